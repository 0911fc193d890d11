//! Flags mean the same wherever they stand: `debate --offline -r 1 new "Q"` is
//! `debate new --offline -r 1 "Q"`. A run's options are global flags (`cli`), read
//! wherever they stand; the flags of a new debate's question and of a list, given before
//! the command, join the command's own. A flag the command does not take is refused
//! rather than dropped, and so is one given both before and after it.

use crate::cli::{self, Given, ListArgs, StartArgs};
use crate::error::{Error, Result};

/// The run options given to `command` (`new`, `eval`, `list`: as typed, or the flag form
/// the line used): each must be one it takes, given once.
pub fn options(given: &[Given], twice: Option<&str>, command: &str) -> Result<()> {
    if let Some(flag) = twice {
        return Err(Error::input(format!("{flag} is given both before and after the command"))
            .with_hint(format!("give {flag} once, before or after `{command}`")));
    }
    match given.iter().find(|option| !cli::takes(command, &option.id)) {
        Some(option) => Err(stray(&option.flag, command)),
        None => Ok(()),
    }
}

/// The question flags of a new debate given before `new`, joined to `after` (its own).
pub fn start(before: StartArgs, after: StartArgs) -> Result<StartArgs> {
    if let Some(question) = before.question {
        return Err(stray(&format!("the question {question:?}"), "new"));
    }
    let joined = StartArgs {
        question: after.question,
        file: once(before.file, after.file, "--file")?,
        context_preview: before.context_preview || after.context_preview,
    };
    if joined.question.is_some() && joined.file.is_some() {
        return Err(Error::input("give the question as an argument or with --file, not both"));
    }
    Ok(joined)
}

/// Refuse a new debate's question, given before a command that takes none.
pub fn no_question(before: &StartArgs, command: &str) -> Result<()> {
    let given = [
        (before.question.is_some(), "the question"),
        (before.file.is_some(), "--file"),
        (before.context_preview, "--context-preview"),
    ];
    match given.into_iter().find(|(given, _)| *given) {
        Some((_, flag)) => Err(stray(flag, command)),
        None => Ok(()),
    }
}

/// `--all` and `--limit` given before `list`, joined to its own.
pub fn list(before: ListArgs, after: ListArgs) -> Result<ListArgs> {
    let (all, due) = (before.all || after.all, before.due || after.due);
    if due && (all || before.limit.is_some() || after.limit.is_some()) {
        return Err(Error::input("--due lists records, not debates: it takes neither --all nor --limit")
            .with_hint("debate list --due"));
    }
    let github_issue = before.github_issue || after.github_issue;
    Ok(ListArgs { all, limit: once(before.limit, after.limit, "--limit")?, due, github_issue })
}

/// Refuse `--all` or `--limit` given before a command that lists nothing.
pub fn no_listing(listing: &ListArgs, command: &str) -> Result<()> {
    match (listing.all, listing.limit.is_some(), listing.due) {
        (true, ..) => Err(stray("--all", command)),
        (_, true, _) => Err(stray("--limit", command)),
        (.., true) => Err(stray("--due", command)),
        _ if listing.github_issue => Err(stray("--github-issue", command)),
        _ => Ok(()),
    }
}

/// The one value of a flag given before the subcommand, after it, or both alike.
fn once<T: PartialEq>(before: Option<T>, after: Option<T>, flag: &str) -> Result<Option<T>> {
    match (before, after) {
        (Some(before), Some(after)) if before != after => {
            Err(Error::input(format!("{flag} is given twice, with two values")).with_hint(format!("give {flag} once")))
        }
        (before, after) => Ok(after.or(before)),
    }
}

fn stray(flag: &str, command: &str) -> Error {
    Error::input(format!("{flag} does not go with `debate {command}`"))
        .with_hint(format!("see `debate {command} --help` for what it takes"))
}
