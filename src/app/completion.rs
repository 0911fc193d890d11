//! Shell completions that know this repository: debate ids from the state database,
//! decision records, perspective names and provider names. The shell script
//! `debate completions SHELL` prints calls back into `debate` (clap_complete's
//! completion engine, `COMPLETE=SHELL debate …`), so what it offers is always current.
//! A completer never fails loudly: whatever it cannot read, it leaves out.

use std::ffi::OsStr;

use clap::Command;
use clap_complete::engine::{ArgValueCompleter, CompletionCandidate};
use clap_complete::env::{Bash, Elvish, EnvCompleter, Fish, Powershell, Zsh};

use crate::catalog::Catalog;
use crate::cli::Cli;
use crate::error::Result;
use crate::settings::{self, FlagOverrides};
use crate::store::Store;
use crate::terminal::{self, OutputError};

/// The variable the shell script sets when it asks for completions.
const VARIABLE: &str = "COMPLETE";

/// When the shell asks for completions, answer and exit; otherwise return at once.
pub fn answer_the_shell() {
    clap_complete::CompleteEnv::with_factory(command).var(VARIABLE).complete();
}

/// `debate completions SHELL`: the script that asks `debate` for completions.
pub fn script(shell: clap_complete::Shell) -> Result<()> {
    use clap_complete::Shell;
    let completer: &dyn EnvCompleter = match shell {
        Shell::Bash => &Bash,
        Shell::Elvish => &Elvish,
        Shell::Fish => &Fish,
        Shell::PowerShell => &Powershell,
        Shell::Zsh => &Zsh,
        _ => &Bash,
    };
    let mut script = Vec::new();
    completer.write_registration(VARIABLE, "debate", "debate", "debate", &mut script).map_err(OutputError::from)?;
    Ok(terminal::print_out(&String::from_utf8_lossy(&script))?)
}

/// The command line with a completer on every argument that names something debate
/// knows; `cli` itself stays definitions only.
pub fn command() -> Command {
    let ids = || ArgValueCompleter::new(debate_ids);
    let records = || ArgValueCompleter::new(record_paths);
    let mut command = <Cli as clap::CommandFactory>::command()
        .mut_arg("resume", |a| a.add(ids()))
        .mut_arg("show", |a| a.add(ids()))
        .mut_arg("abandon", |a| a.add(ids()))
        .mut_arg("delete", |a| a.add(ids()))
        .mut_arg("with", |a| a.add(ArgValueCompleter::new(perspectives)))
        .mut_arg("provider", |a| a.add(ArgValueCompleter::new(provider_names)))
        .mut_arg("supersedes", |a| a.add(records()));
    for name in ["show", "resume", "abandon", "delete"] {
        command = command.mut_subcommand(name, |sub| sub.mut_arg("id", |a| a.add(ids())));
    }
    for name in ["review", "eval"] {
        command = command.mut_subcommand(name, |sub| sub.mut_arg("target", |a| a.add(ids())));
    }
    for name in ["accept", "reject", "deprecate"] {
        command = command.mut_subcommand(name, |sub| sub.mut_arg("target", |a| a.add(records())));
    }
    for name in ["new", "resume", "review"] {
        command = command
            .mut_subcommand(name, |sub| sub.mut_arg("provider", |a| a.add(ArgValueCompleter::new(provider_names))));
    }
    command.mut_subcommand("new", |sub| {
        sub.mut_arg("with", |a| a.add(ArgValueCompleter::new(perspectives))).mut_arg("supersedes", |a| a.add(records()))
    })
}

/// The candidates among `names` that start with what was typed (any case), each with
/// its help.
fn matching(current: &OsStr, names: impl IntoIterator<Item = (String, Option<String>)>) -> Vec<CompletionCandidate> {
    let typed = current.to_string_lossy().to_lowercase();
    names
        .into_iter()
        .filter(|(name, _)| name.to_lowercase().starts_with(&typed))
        .map(|(name, help)| CompletionCandidate::new(name).help(help.map(Into::into)))
        .collect()
}

/// The debates in the state database, newest first, each with its title.
fn debate_ids(current: &OsStr) -> Vec<CompletionCandidate> {
    let Ok(path) = crate::store::default_path() else { return Vec::new() };
    let Ok(Some(store)) = Store::open_existing(&path) else { return Vec::new() };
    let rows = store.list(None, 200).unwrap_or_default();
    matching(current, rows.into_iter().map(|row| (row.id, Some(row.title))))
}

/// The decision records of the repository here.
fn record_paths(current: &OsStr) -> Vec<CompletionCandidate> {
    let Ok(root) = crate::repo::around_working_directory() else { return Vec::new() };
    let Ok(here) = std::env::current_dir() else { return Vec::new() };
    let also = settings::load(&root, None, &FlagOverrides::default())
        .map(|loaded| loaded.settings.record.directory.0)
        .unwrap_or_default();
    let shown = |relative: String| {
        let path = root.join(&relative);
        path.strip_prefix(&here).map(|p| p.display().to_string()).unwrap_or(relative)
    };
    matching(current, crate::context::record_paths(&root, &also).into_iter().map(|r| (shown(r), None)))
}

/// The perspectives of the catalog, with this repository's and the user's additions.
fn perspectives(current: &OsStr) -> Vec<CompletionCandidate> {
    let Ok(root) = crate::repo::around_working_directory() else { return Vec::new() };
    let Ok(loaded) = settings::load(&root, None, &FlagOverrides::default()) else { return Vec::new() };
    let Ok(catalog) = Catalog::build(&loaded.overlays) else { return Vec::new() };
    matching(current, catalog.entries().iter().map(|p| (p.name.clone(), None)))
}

/// The providers a role may take here.
fn provider_names(current: &OsStr) -> Vec<CompletionCandidate> {
    let Ok(root) = crate::repo::around_working_directory() else { return Vec::new() };
    let settings = settings::load(&root, None, &FlagOverrides::default()).map(|l| l.settings).unwrap_or_default();
    matching(current, crate::providers::names(&settings).into_iter().map(|name| (name, None)))
}
