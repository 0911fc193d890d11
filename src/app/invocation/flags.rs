//! Flags mean the same wherever they stand: `debate --offline -r 1 new "Q"` is
//! `debate new --offline -r 1 "Q"`. Clap reads flags before a subcommand into the
//! top-level arguments; here they join the subcommand's own, and a flag the subcommand
//! does not take is refused rather than dropped.

use crate::cli::{EvalArgs, ListArgs, RunArgs, StartArgs, Starting};
use crate::error::{Error, Result};

/// The flags a new debate takes, given before the subcommand, joined to `after` (the
/// subcommand's own). One flag given in both places with two values is refused.
pub fn start(before: StartArgs, after: StartArgs) -> Result<StartArgs> {
    if let Some(question) = before.question {
        return Err(stray(&format!("the question {question:?}"), "new"));
    }
    let joined = StartArgs {
        question: after.question,
        file: once(before.file, after.file, "--file")?,
        context_preview: before.context_preview || after.context_preview,
        starting: starting(before.starting, after.starting)?,
        run: run(before.run, after.run)?,
    };
    let models = &joined.starting.models;
    if !models.is_empty() && (joined.run.model.is_some() || joined.run.offline) {
        let other = if joined.run.offline { "--offline" } else { "--model" };
        return Err(Error::input(format!("--models cannot be used with {other}")));
    }
    if joined.question.is_some() && joined.file.is_some() {
        return Err(Error::input("give the question as an argument or with --file, not both"));
    }
    Ok(joined)
}

/// The flags a resumed or reviewed debate takes, given before `command`, joined to the
/// subcommand's own. What a debate fixes when it starts is joined too, for the run to
/// refuse with the reason; the question is no flag of theirs.
pub fn resume(before: StartArgs, after: (Starting, RunArgs), command: &str) -> Result<(Starting, RunArgs)> {
    let question = [(before.question.is_some(), "the question"), (before.file.is_some(), "--file")];
    let context_preview = [(before.context_preview, "--context-preview")];
    if let Some((_, flag)) = question.into_iter().chain(context_preview).find(|(given, _)| *given) {
        return Err(stray(flag, command));
    }
    Ok((starting(before.starting, after.0)?, run(before.run, after.1)?))
}

/// The flags `debate eval` takes given before it (`--offline`, and with `--suite`
/// `--max-rounds` and `--models`), joined to its own.
pub fn eval(before: StartArgs, after: EvalArgs) -> Result<EvalArgs> {
    let joined = EvalArgs {
        offline: before.run.offline || after.offline,
        max_rounds: once(before.run.max_rounds, after.max_rounds, "--max-rounds")?,
        models: match (before.starting.models.is_empty(), after.models.is_empty()) {
            (false, false) if before.starting.models != after.models => return Err(twice("--models")),
            (false, _) => before.starting.models,
            (true, _) => after.models,
        },
        ..after
    };
    if joined.suite.is_none()
        && let Some(flag) = [(joined.max_rounds.is_some(), "--max-rounds"), (!joined.models.is_empty(), "--models")]
            .into_iter()
            .find_map(|(given, flag)| given.then_some(flag))
    {
        return Err(Error::input(format!("{flag} goes with `debate eval --suite`"))
            .with_hint("the rounds and the models of a debate already run are its own"));
    }
    for (given, flag) in [(!joined.evaluators.is_empty(), "--evaluators"), (!joined.models.is_empty(), "--models")] {
        if joined.offline && given {
            return Err(Error::input(format!("{flag} cannot be used with --offline"))
                .with_hint("--offline debates and scores without a model; --evaluators and --models name models"));
        }
    }
    Ok(joined)
}

/// `--all` and `--limit` given before `list`, joined to its own.
pub fn list(before: ListArgs, after: ListArgs) -> Result<ListArgs> {
    Ok(ListArgs { all: before.all || after.all, limit: once(before.limit, after.limit, "--limit")? })
}

/// Refuse any flag of a debate given before a command that runs none.
pub fn none(before: &StartArgs, listing: &ListArgs, command: &str) -> Result<()> {
    only(before, listing, command, &[])
}

/// Refuse any flag of a debate given before `command` but those in `taken`, which the
/// command joins to its own.
pub fn only(before: &StartArgs, listing: &ListArgs, command: &str, taken: &[&str]) -> Result<()> {
    let mut given = new_only(before);
    given.extend(run_flags(&before.run));
    given.retain(|flag| !taken.contains(flag));
    if listing.all {
        given.push("--all");
    }
    if listing.limit.is_some() {
        given.push("--limit");
    }
    match given.first() {
        Some(flag) => Err(stray(flag, command)),
        None => Ok(()),
    }
}

fn starting(before: Starting, after: Starting) -> Result<Starting> {
    let joined = Starting {
        perspectives: once(before.perspectives, after.perspectives, "--perspectives")?,
        with: [before.with, after.with].concat(),
        context: [before.context, after.context].concat(),
        no_repo_context: before.no_repo_context || after.no_repo_context,
        supersedes: [before.supersedes, after.supersedes].concat(),
        models: match (before.models.is_empty(), after.models.is_empty()) {
            (false, false) if before.models != after.models => return Err(twice("--models")),
            (false, _) => before.models,
            (true, _) => after.models,
        },
    };
    Ok(joined)
}

fn run(before: RunArgs, after: RunArgs) -> Result<RunArgs> {
    let joined = RunArgs {
        max_rounds: once(before.max_rounds, after.max_rounds, "--max-rounds")?,
        no_checkpoints: before.no_checkpoints || after.no_checkpoints,
        issue: before.issue || after.issue,
        no_commit: before.no_commit || after.no_commit,
        branch: once(before.branch, after.branch, "--branch")?,
        provider: once(before.provider, after.provider, "--provider")?,
        model: once(before.model, after.model, "--model")?,
        offline: before.offline || after.offline,
        max_cost: once(before.max_cost, after.max_cost, "--max-cost")?,
        max_tokens: once(before.max_tokens, after.max_tokens, "--max-tokens")?,
    };
    // What clap checks within one place, checked across both.
    if joined.offline && joined.provider.is_some() {
        return Err(Error::input("--provider cannot be used with --offline"));
    }
    if joined.no_commit && joined.branch.is_some() {
        return Err(Error::input("--branch cannot be used with --no-commit"));
    }
    Ok(joined)
}

/// The one value of a flag given before the subcommand, after it, or both alike.
fn once<T: PartialEq>(before: Option<T>, after: Option<T>, flag: &str) -> Result<Option<T>> {
    match (before, after) {
        (Some(before), Some(after)) if before != after => Err(twice(flag)),
        (before, after) => Ok(after.or(before)),
    }
}

fn twice(flag: &str) -> Error {
    Error::input(format!("{flag} is given twice, with two values")).with_hint(format!("give {flag} once"))
}

fn stray(flag: &str, command: &str) -> Error {
    Error::input(format!("{flag} does not go with `debate {command}`"))
        .with_hint(format!("see `debate {command} --help` for what it takes"))
}

/// The flags only a new debate takes that are set in `args`.
fn new_only(args: &StartArgs) -> Vec<&'static str> {
    let starting = &args.starting;
    [
        (args.file.is_some(), "--file"),
        (starting.perspectives.is_some(), "--perspectives"),
        (!starting.with.is_empty(), "--with"),
        (!starting.context.is_empty(), "--context"),
        (starting.no_repo_context, "--no-repo-context"),
        (!starting.supersedes.is_empty(), "--supersedes"),
        (args.context_preview, "--context-preview"),
        (!starting.models.is_empty(), "--models"),
    ]
    .into_iter()
    .filter_map(|(given, flag)| given.then_some(flag))
    .collect()
}

/// The flags of a run that are set in `run`.
fn run_flags(run: &RunArgs) -> Vec<&'static str> {
    [
        (run.max_rounds.is_some(), "--max-rounds"),
        (run.no_checkpoints, "--no-checkpoints"),
        (run.issue, "--issue"),
        (run.no_commit, "--no-commit"),
        (run.branch.is_some(), "--branch"),
        (run.provider.is_some(), "--provider"),
        (run.model.is_some(), "--model"),
        (run.offline, "--offline"),
    ]
    .into_iter()
    .filter_map(|(given, flag)| given.then_some(flag))
    .collect()
}
