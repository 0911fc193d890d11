//! `debate man`: manual pages from the same definitions as `--help`, one for `debate`
//! and one per command. A page printed alone names the others by what prints them
//! (`debate man show`), since no `debate-show(1)` need be installed; the pages `--dir`
//! writes name each other as man pages do (`debate-show(1)`), all of them there.

use std::path::Path;

use clap::Command;
use clap_mangen::Man;
use roff::{Roff, bold, italic, roman};

use crate::error::{Error, Result};
use crate::terminal::{self, OutputError};

/// How a page names the other pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Links {
    /// By the command that prints them.
    Printed,
    /// As man pages in the same directory: `debate-show(1)`.
    Installed,
}

/// `debate man [COMMAND]`: that page on stdout.
pub fn print(name: Option<&str>) -> Result<()> {
    let debate = commands();
    let command = match name {
        None => &debate,
        Some(name) => debate.find_subcommand(name).ok_or_else(|| unknown(name, &debate))?,
    };
    Ok(terminal::print_out(&page(command, Links::Printed)?)?)
}

/// `debate man --dir DIR`: every page written into `dir`, each path on stdout.
pub fn write_all(dir: &Path) -> Result<()> {
    let cannot = |path: &Path, err: std::io::Error| Error::input(format!("cannot write {}: {err}", path.display()));
    std::fs::create_dir_all(dir).map_err(|err| cannot(dir, err))?;
    let debate = commands();
    for command in std::iter::once(&debate).chain(pages_below(&debate)) {
        let path = dir.join(format!("{}.1", page_name(command)));
        std::fs::write(&path, page(command, Links::Installed)?).map_err(|err| cannot(&path, err))?;
        terminal::print_out(&format!("{}\n", path.display()))?;
    }
    Ok(())
}

/// The command line as its pages show it: built, so each command knows its place
/// (`debate show`, page `debate-show`), and without clap's `help` command, which has
/// no page.
fn commands() -> Command {
    let mut debate = crate::cli::command().disable_help_subcommand(true);
    debate.build();
    debate
}

/// The commands that have a page of their own, in the order `--help` lists them.
fn pages_below(debate: &Command) -> impl Iterator<Item = &Command> {
    debate.get_subcommands().filter(|command| !command.is_hide_set())
}

/// `debate`, `debate-show`: the page's name, as man finds it.
fn page_name(command: &Command) -> &str {
    command.get_display_name().unwrap_or(command.get_name())
}

fn unknown(name: &str, debate: &Command) -> Error {
    let names: Vec<&str> = pages_below(debate).map(Command::get_name).collect();
    Error::input(format!("debate has no command `{name}`")).with_hint(format!("its commands: {}", names.join(", ")))
}

/// One page: clap_mangen's sections, with the commands and the other pages named as
/// `links` says.
fn page(command: &Command, links: Links) -> Result<String> {
    let render = || -> std::io::Result<Vec<u8>> {
        // Every page is debate's, at this version (clap_mangen would name a command's page after the command alone).
        let man = Man::new(command.clone()).source(format!("debate {}", env!("CARGO_PKG_VERSION")));
        let mut out = Vec::new();
        man.render_title(&mut out)?;
        man.render_name_section(&mut out)?;
        man.render_synopsis_section(&mut out)?;
        man.render_description_section(&mut out)?;
        man.render_options_section(&mut out)?;
        own_sections(command, links).to_writer(&mut out)?;
        examples(command).to_writer(&mut out)?;
        if command.get_name() == "debate" {
            reference().to_writer(&mut out)?;
        }
        if command.get_version().is_some() {
            man.render_version_section(&mut out)?;
        }
        Ok(out)
    };
    let page = render().map_err(OutputError::from)?;
    Ok(String::from_utf8_lossy(&page).into_owned())
}

/// COMMANDS on debate's page, SEE ALSO on a command's.
fn own_sections(command: &Command, links: Links) -> Roff {
    let mut roff = Roff::new();
    let below: Vec<&Command> = pages_below(command).collect();
    if below.is_empty() {
        roff.control("SH", ["SEE ALSO"]);
        match links {
            Links::Printed => roff.text([bold("debate man"), roman(": debate's page, with every command")]),
            Links::Installed => roff.text([bold("debate"), roman("(1)")]),
        };
        return roff;
    }
    roff.control("SH", ["COMMANDS"]);
    // Only debate's own commands have pages; a command's actions (`debate guard add`)
    // are told on its page.
    let paged = command.get_name() == "debate";
    for sub in below {
        roff.control("TP", []);
        match (links, paged) {
            (Links::Installed, true) => roff.text([bold(page_name(sub)), roman("(1)")]),
            _ => roff.text([bold(format!("{} {}", page_name(command).replace('-', " "), sub.get_name()))]),
        };
        for line in sub.get_about().map(ToString::to_string).unwrap_or_default().lines() {
            roff.text([roman(line)]);
        }
    }
    if links == Links::Printed {
        roff.control("PP", []);
        roff.text([
            roman("A command's page: "),
            bold("debate man "),
            italic("COMMAND"),
            roman(". Every page, where man finds them: "),
            bold("debate man --dir "),
            italic("DIR"),
            roman(" (e.g. ~/.local/share/man/man1)."),
        ]);
    }
    roff
}

/// EXAMPLES: what `--help` ends with (its "Examples:" line left out): each indented
/// command on a line of its own, the notes after them as paragraphs.
fn examples(command: &Command) -> Roff {
    let mut roff = Roff::new();
    let help = command.get_after_long_help().or(command.get_after_help()).map(ToString::to_string);
    let Some(help) = help else { return roff };
    roff.control("SH", ["EXAMPLES"]);
    for line in help.lines().filter(|l| !l.trim().is_empty() && l.trim_end() != "Examples:") {
        match line.starts_with(char::is_whitespace) {
            true => roff.control("TP", []).text([bold(line.trim())]),
            false => roff.control("PP", []).text([roman(line.trim())]),
        };
    }
    roff
}

/// The sections a reader of debate(1) looks for: EXIT STATUS, ENVIRONMENT and FILES, as
/// docs/reference.md has them.
fn reference() -> Roff {
    let mut roff = Roff::new();
    let rows = |roff: &mut Roff, title: &str, rows: &[(&str, &str)]| {
        roff.control("SH", [title]);
        for (name, what) in rows {
            roff.control("TP", []).text([bold(*name)]).text([roman(*what)]);
        }
    };
    rows(
        &mut roff,
        "EXIT STATUS",
        &[
            ("0", "Success."),
            ("1", "A general error; debate verify: a record failed."),
            ("2", "Invalid arguments or input; nothing was written."),
            (
                "3",
                "A provider error (the debate is paused and can be resumed); debate verify --require-signature: a record unsigned or its signer not named.",
            ),
            ("4", "A configuration error."),
            ("5", "A git or record error."),
            ("75", "Another process drives this debate, or a commit lost a race to another; try again."),
            (
                "129, 130, 143",
                "SIGHUP (or the terminal or console went away), Ctrl-C (or Ctrl-Break), SIGTERM: the debate is paused, every finished step saved.",
            ),
        ],
    );
    rows(
        &mut roff,
        "ENVIRONMENT",
        &[
            ("DEBATE_CONFIG", "A settings file, as --config."),
            (
                "DEBATE_HOME",
                "Where debate keeps its state database and the settings files you trusted (default: the user data directory).",
            ),
            ("DEBATE_*", "Each setting's variable (docs/reference.md, \"Settings\")."),
            (
                "OPENAI_API_KEY, ANTHROPIC_API_KEY, OPENROUTER_API_KEY",
                "The built-in providers' keys, masked wherever text leaves debate.",
            ),
            ("XDG_CONFIG_HOME, XDG_DATA_HOME", "Where the user settings file and the data directory are (Unix)."),
            ("NO_COLOR, CLICOLOR_FORCE", "Never colour; colour even without a terminal."),
            ("PAGER, LESS", "The pager debate show uses on a terminal, and its options."),
            (
                "SSH_AUTH_SOCK",
                "The ssh-agent that signs records with a key whose file cannot sign by itself (on Windows, Windows OpenSSH's agent when unset).",
            ),
            ("GITHUB_TOKEN, GITHUB_API_URL, GITHUB_SERVER_URL", "debate review --github-event: set by GitHub Actions."),
        ],
    );
    rows(
        &mut roff,
        "FILES",
        &[
            ("~/.config/debate/settings.yaml", "Your settings."),
            ("$DEBATE_HOME/debates.sqlite3", "The state database: every debate of every repository."),
            ("$DEBATE_HOME/trusted.json", "The repository settings files you trusted, by path and SHA-256."),
            (".debate/settings.yaml, .debate/perspectives.yaml", "A repository's settings and perspectives."),
            (".debate/templates/", "A repository's templates for records, transcripts and issue drafts."),
            (".debate/allowed_signers", "The signers the pull-request workflow requires, read from the base branch."),
            ("docs/decisions/", "The decision records and their README.md index."),
        ],
    );
    roff
}
