//! Shell completions that know this repository: debate ids from the state database,
//! decision records, perspective names and provider names. The shell script
//! `debate completions SHELL` prints calls back into `debate` (clap_complete's
//! completion engine, `COMPLETE=SHELL debate …`), so what it offers is always current.
//! A completer never fails loudly: whatever it cannot read, it leaves out.
//!
//! What each shell does with a word is `shells`': a value with a space reaches `debate`
//! as one word, and what was typed is read without its quoting.

mod shells;

use std::ffi::OsStr;

use clap::Command;
use clap_complete::engine::{ArgValueCompleter, CompletionCandidate};

use crate::catalog::Catalog;
use crate::error::{Error, Result};
use crate::settings;
use crate::store::Store;
use crate::terminal::{self, OutputError};
use shells::{SHELLS, typed};

/// The variable the shell script sets when it asks for completions.
const VARIABLE: &str = "COMPLETE";

/// When the shell asks for completions, answer and exit; otherwise return at once.
pub fn answer_the_shell() {
    clap_complete::CompleteEnv::with_factory(command).var(VARIABLE).shells(SHELLS).complete();
}

/// `debate completions SHELL`: the script that asks `debate` for completions.
pub fn script(shell: clap_complete::Shell) -> Result<()> {
    let Some(completer) = SHELLS.completer(&shell.to_string()) else {
        return Err(Error::input(format!("no completions for {shell}")));
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
    let ids_or_records = || ArgValueCompleter::new(ids_or_record_paths);
    let mut command = crate::cli::command()
        .mut_arg("resume", |a| a.add(ids()))
        .mut_arg("show", |a| a.add(ids_or_records()))
        .mut_arg("abandon", |a| a.add(ids()))
        .mut_arg("delete", |a| a.add(ids()))
        .mut_arg("with", |a| a.add(ArgValueCompleter::new(perspectives)))
        .mut_arg("provider", |a| a.add(ArgValueCompleter::new(provider_names)))
        .mut_arg("supersedes", |a| a.add(records()));
    for name in ["resume", "abandon", "delete"] {
        command = command.mut_subcommand(name, |sub| sub.mut_arg("id", |a| a.add(ids())));
    }
    command = command.mut_subcommand("show", |sub| sub.mut_arg("id", |a| a.add(ids_or_records())));
    for name in ["review", "eval"] {
        command = command.mut_subcommand(name, |sub| sub.mut_arg("target", |a| a.add(ids_or_records())));
    }
    command = command.mut_subcommand("export", |sub| sub.mut_arg("target", |a| a.add(ids())));
    command = command.mut_subcommand("verify", |sub| sub.mut_arg("targets", |a| a.add(records())));
    for name in ["accept", "reject", "deprecate"] {
        command = command.mut_subcommand(name, |sub| sub.mut_arg("target", |a| a.add(records())));
    }
    // A run's options are global: completed wherever they stand.
    command.mut_subcommand("man", |sub| sub.mut_arg("command", |a| a.add(ArgValueCompleter::new(commands))))
}

/// The candidates among `names` that start with what was typed (any case), each with
/// its help.
fn matching(current: &OsStr, names: impl IntoIterator<Item = (String, Option<String>)>) -> Vec<CompletionCandidate> {
    let typed = typed(current).to_lowercase();
    names
        .into_iter()
        .filter(|(name, _)| name.to_lowercase().starts_with(&typed))
        .map(|(name, help)| candidate(name, help))
        .collect()
}

fn candidate(value: String, help: Option<String>) -> CompletionCandidate {
    CompletionCandidate::new(value).help(help.map(Into::into))
}

/// The debates of the repository here (of every repository outside one) in the state
/// database, newest first, each with its title, as `debate list` lists them. An id is
/// offered in the form it was begun in, the forms `show` takes: `8i` gives `8ix2k4`,
/// `deb-8i` gives `deb-8ix2k4`; zsh and fish keep only candidates that begin with the
/// word as typed.
fn debate_ids(current: &OsStr) -> Vec<CompletionCandidate> {
    let Ok(path) = crate::store::default_path() else { return Vec::new() };
    let Ok(Some(store)) = Store::open_existing(&path) else { return Vec::new() };
    let typed = typed(current);
    let here = crate::repo::around_working_directory().ok().map(|root| root.to_string_lossy().into_owned());
    let rows = store.list(here.as_deref(), 200).unwrap_or_default();
    rows.into_iter().filter_map(|row| id_completing(&typed, &row.id).map(|id| candidate(id, Some(row.title)))).collect()
}

/// `id` as a completion of `typed`, if it completes it: what was typed, then the rest
/// of the id; of its part after `DEB-` when that was left out (`8i`).
fn id_completing(typed: &str, id: &str) -> Option<String> {
    let body = id.strip_prefix("DEB-")?;
    let lower = typed.to_lowercase();
    let with_prefix = "deb-".starts_with(&lower) || lower.starts_with("deb-");
    let form = if !with_prefix {
        body.to_string()
    } else if typed.starts_with(char::is_lowercase) {
        format!("deb-{body}")
    } else {
        id.to_string()
    };
    let rest = form.get(typed.len()..).filter(|_| form.to_lowercase().starts_with(&lower))?;
    Some(format!("{typed}{rest}"))
}

/// What `show`, `review` and `eval` take: a debate's id or its record's path.
fn ids_or_record_paths(current: &OsStr) -> Vec<CompletionCandidate> {
    let mut candidates = debate_ids(current);
    candidates.extend(record_paths(current));
    candidates
}

/// The decision records of the repository here.
fn record_paths(current: &OsStr) -> Vec<CompletionCandidate> {
    let Ok(root) = crate::repo::around_working_directory() else { return Vec::new() };
    let Ok(here) = std::env::current_dir() else { return Vec::new() };
    let also = settings::load(&root, None).map(|loaded| loaded.settings.record.directory.0).unwrap_or_default();
    let shown = |relative: String| {
        let path = root.join(&relative);
        path.strip_prefix(&here).map(|p| p.display().to_string()).unwrap_or(relative)
    };
    matching(current, crate::context::record_paths(&root, &also).into_iter().map(|r| (shown(r), None)))
}

/// The perspectives of the catalog, with this repository's and the user's additions,
/// each with its priorities.
fn perspectives(current: &OsStr) -> Vec<CompletionCandidate> {
    let Ok(root) = crate::repo::around_working_directory() else { return Vec::new() };
    let Ok(loaded) = settings::load(&root, None) else { return Vec::new() };
    let Ok(catalog) = Catalog::build(&loaded.overlays) else { return Vec::new() };
    matching(current, catalog.entries().iter().map(|p| (p.name.clone(), Some(p.priorities.join(", ")))))
}

/// The providers a role may take here.
fn provider_names(current: &OsStr) -> Vec<CompletionCandidate> {
    let Ok(root) = crate::repo::around_working_directory() else { return Vec::new() };
    let settings = settings::load(&root, None).map(|l| l.settings).unwrap_or_default();
    matching(current, crate::providers::names(&settings).into_iter().map(|name| (name, None)))
}

/// debate's commands, each with what it does: the pages `debate man` prints.
fn commands(current: &OsStr) -> Vec<CompletionCandidate> {
    let debate = crate::cli::command();
    let about = |command: &Command| command.get_about().map(|about| about.to_string());
    matching(
        current,
        debate.get_subcommands().filter(|c| !c.is_hide_set()).map(|c| (c.get_name().to_string(), about(c))),
    )
}
