//! The command line resolved once into what each command takes: one [`Mode`] and the
//! typed request it carries. The commands, and the dashboard that starts and resumes
//! debates, take these requests, never the clap structs.

use std::ffi::OsString;
use std::net::IpAddr;
use std::path::{Path, PathBuf};

use crate::app::invocation::flags;
use crate::app::invocation::resolve::RunFlags;
use crate::cli::{Cli, Command, EvalArgs, ExportFormat, GuardAction, Lifecycle, ListArgs, StartArgs};
use crate::error::{Error, Result};
use crate::model::{Baseline, Cap, RunOptions, Verdict};
use crate::repo::Here;
use crate::terminal::Verbosity;
use crate::text::shell_word;

/// One run of `debate`: what to do, and the options every command shares.
#[derive(Debug)]
pub struct Invocation {
    pub mode: Mode,
    /// The state database named with `--db`; none: the default place.
    pub db: Option<PathBuf>,
    /// `--json`: machine-readable output on stdout.
    pub json: bool,
    pub verbosity: Verbosity,
}

/// What the command line asks for.
#[derive(Debug)]
pub enum Mode {
    Start(StartRequest),
    /// `--context-preview`: what a new debate would read about the project.
    Preview(StartRequest),
    Resume(ResumeRequest),
    List {
        all: bool,
        limit: u32,
    },
    Show {
        id: String,
        /// On a terminal, through the pager (not with `--no-pager`).
        paged: bool,
    },
    /// `debate search QUERY`: this repository's records ranked against a query.
    Search {
        query: String,
        limit: u32,
        config: Option<PathBuf>,
    },
    /// `--abandon` (listed as failed) or `--delete` (gone from the database).
    GiveUp {
        id: String,
        delete: bool,
    },
    Lifecycle(LifecycleRequest),
    Trust {
        path: Option<PathBuf>,
        revoke: bool,
    },
    Serve(ServeRequest),
    /// `debate mcp`: the tools over the Model Context Protocol, with this settings file.
    Mcp {
        config: Option<PathBuf>,
        /// The directories it may touch (`--allow`); none: the repository it runs in.
        allow: Vec<PathBuf>,
    },
    /// `debate config`: the effective settings and where each came from.
    Config {
        config: Option<PathBuf>,
    },
    /// `debate usage`: what debates cost, since `since` (`None`: this month), grouped by `by`.
    Usage {
        since: Option<String>,
        by: String,
        config: Option<PathBuf>,
    },
    /// `debate doctor [PROVIDER]`: whether each provider can run a debate.
    Doctor {
        provider: Option<String>,
        config: Option<PathBuf>,
    },
    Completions(clap_complete::Shell),
    /// `debate man [COMMAND]`: a manual page; `--dir`: all of them, written there.
    Man {
        command: Option<String>,
        dir: Option<PathBuf>,
    },
    /// `debate review --github-event PATH`: the review loop in a pull request.
    GithubReview(GithubReviewRequest),
    /// `debate ci github`: write the workflow that runs it.
    Ci {
        install: Option<String>,
        force: bool,
        config: Option<PathBuf>,
    },
    /// `debate eval ID|PATH`: a finished debate's record scored.
    Eval(EvalRequest),
    /// `debate eval --suite FILE`: a suite of questions debated, scored and reported.
    Suite(SuiteRequest),
    /// `debate guard`: a record's guards listed or changed.
    Guard(GuardRequest),
    /// `debate list --due`: accepted records past their review date.
    Due {
        /// Keep one open issue listing them (`--github-issue`).
        github_issue: bool,
        config: Option<PathBuf>,
    },
    /// `debate check`: the work tree against the records' guards.
    Check(CheckRequest),
    /// `debate verify`: records checked offline.
    Verify(VerifyRequest),
    /// `debate export ID --format odr|json|md`: a decision written out.
    Export(ExportRequest),
}

/// `debate check`: what to check, and where to say it.
#[derive(Debug, Clone)]
pub struct CheckRequest {
    /// Only what changed since this revision's merge base.
    pub base: Option<String>,
    /// A `pull_request` event: keep one comment on that pull request.
    pub github_event: Option<PathBuf>,
    pub config: Option<PathBuf>,
}

/// `debate guard`: which record, and what to do to its guards.
#[derive(Debug, Clone)]
pub struct GuardRequest {
    pub target: String,
    pub change: GuardChange,
    pub config: Option<PathBuf>,
}

/// A change to a record's guards, as typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GuardChange {
    List,
    Add(String),
    Drop(String),
    Change { old: String, new: String },
    ReviewBy(String),
}

/// `debate guard ACTION ID|PATH …` as a request.
fn guard_request(action: GuardAction, config: Option<PathBuf>) -> GuardRequest {
    let (target, change) = match action {
        GuardAction::List { target } => (target, GuardChange::List),
        GuardAction::Add { target, guard } => (target, GuardChange::Add(guard.join(" "))),
        GuardAction::Drop { target, guard } => (target, GuardChange::Drop(guard.join(" "))),
        GuardAction::Change { target, old, new } => (target, GuardChange::Change { old, new }),
        GuardAction::ReviewBy { target, day } => (target, GuardChange::ReviewBy(day)),
    };
    GuardRequest { target, change, config }
}

/// `debate verify`: which records, and what counts as verified.
#[derive(Debug, Clone)]
pub struct VerifyRequest {
    /// Paths or debate ids; empty with `all`.
    pub targets: Vec<String>,
    pub all: bool,
    /// With `all`: only records changed since this revision.
    pub since: Option<String>,
    pub require_signature: bool,
    pub allowed_signers: Option<PathBuf>,
    pub config: Option<PathBuf>,
}

/// `debate export`: which decision, in what form, and where.
#[derive(Debug, Clone)]
pub struct ExportRequest {
    pub target: String,
    pub format: ExportFormat,
    /// `-o FILE`; none: standard output.
    pub output: Option<PathBuf>,
    /// With the receipt: where the public key goes, for `aragora-verify --pubkey`.
    pub pubkey_out: Option<PathBuf>,
    pub config: Option<PathBuf>,
}

/// `debate eval --suite`: the suite, what debates it and who scores, and the report.
#[derive(Debug, Clone)]
pub struct SuiteRequest {
    pub suite: PathBuf,
    /// `--evaluators`; empty: each debate's moderator.
    pub evaluators: Vec<String>,
    /// The markdown report; the JSON one goes beside it.
    pub report: PathBuf,
    /// `--baseline`: each question also answered without a debate.
    pub baseline: Option<Baseline>,
    /// What every question's debate runs with: `--offline` (scored offline too), `-r`, the
    /// caps (its scores' too), and `--models`, debated with each in turn.
    pub options: RunOptions,
    pub config: Option<PathBuf>,
}

/// `debate eval`: which record, scored by whom, and whether the scores go into it.
#[derive(Debug, Clone)]
pub struct EvalRequest {
    /// The debate's id or its record's path.
    pub target: String,
    /// `--evaluators`; empty: the debate's moderator.
    pub evaluators: Vec<String>,
    /// `--write`: add the scores to the record's provenance and commit it.
    pub write: bool,
    /// `--offline`: marks composed from the record's text.
    pub offline: bool,
    /// `--max-cost`, `--max-tokens`: what the scores may spend.
    pub cap: Cap,
    pub config: Option<PathBuf>,
    /// Where a record's path is read and an id's record looked for.
    pub here: Here,
}

/// A pull request comment's review, as a GitHub Actions job runs it.
#[derive(Debug, Clone)]
pub struct GithubReviewRequest {
    /// The event file (`$GITHUB_EVENT_PATH`).
    pub event: PathBuf,
    /// Each review's flags: `--provider`, `--model`, `--offline` say what the job
    /// reviews with, where the records' own providers cannot run in it (a server on the
    /// author's machine).
    pub flags: RunFlags,
}

/// Where text the user gives comes from: a new debate's question, a reviewer's objection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QuestionSource {
    Text(String),
    Stdin,
    File(PathBuf),
}

/// A new debate, as `debate QUESTION`, the dashboard's form or a suite asks for it.
#[derive(Debug, Clone)]
pub struct StartRequest {
    pub question: QuestionSource,
    pub flags: RunFlags,
}

/// Continue a debate, or reopen a complete one for review.
#[derive(Debug, Clone, Default)]
pub struct ResumeRequest {
    pub id: String,
    pub flags: RunFlags,
    /// `--guide` on a complete debate: a reviewer's objection.
    pub review: Option<Review>,
    /// The repository it runs from: where a record's path is read, a review is allowed,
    /// and a repository that moved is looked for.
    pub here: Here,
}

/// A reviewer's objection to a complete debate.
#[derive(Debug, Clone)]
pub struct Review {
    /// `--guide TEXT` or `--guide-file PATH` (`-`: stdin).
    pub objection: QuestionSource,
    /// `--discard-edits`: rewrite the record even where it was edited since.
    pub discard_edits: bool,
}

/// `debate accept|reject|deprecate`.
#[derive(Debug)]
pub struct LifecycleRequest {
    pub target: String,
    pub verdict: Verdict,
    pub no_commit: bool,
    pub config: Option<PathBuf>,
    /// The repository whose record it is.
    pub here: Here,
}

/// `debate serve`.
#[derive(Debug)]
pub struct ServeRequest {
    pub bind: IpAddr,
    pub port: u16,
    pub open: bool,
    /// The settings file for debates started from the dashboard.
    pub config: Option<PathBuf>,
    /// Debates started from the dashboard use the offline debater.
    pub offline: bool,
}

impl Invocation {
    /// The command line as the commands take it. Clap has checked each flag; what is
    /// left is which command runs and what it needs.
    pub fn from_cli(cli: Cli) -> Result<Invocation> {
        // Each run option must be one the command takes, given once.
        flags::options(&cli.given, cli.twice.as_deref(), command_name(&cli))?;
        let shared = cli.shared;
        let verbosity = match (shared.quiet, shared.verbose) {
            (true, _) => Verbosity::Quiet,
            (_, true) => Verbosity::Verbose,
            _ => Verbosity::Normal,
        };
        let config = shared.config;
        let options = cli.options;
        let flags = RunFlags { config: config.clone(), options: options.clone() };
        options.check().map_err(Error::input)?;
        let lifecycle = |args: Lifecycle, verdict| {
            Mode::Lifecycle(LifecycleRequest {
                target: args.target,
                verdict,
                no_commit: options.no_commit,
                config: config.clone(),
                here: Here::WorkingDirectory,
            })
        };
        let resume = |id: String, review: Option<Review>| {
            Mode::Resume(ResumeRequest { id, flags: flags.clone(), review, here: Here::WorkingDirectory })
        };
        let review = |objection: Option<QuestionSource>, discard_edits| {
            objection.map(|objection| Review { objection, discard_edits })
        };
        // A question's flags before the subcommand are `new`'s (`debate --file q.txt new`),
        // and a list's are `list`'s; any other command refuses them.
        let before = cli.start;
        let no_pager = cli.no_pager;
        if let Some(command) = &cli.command {
            if !matches!(command, Command::New(_)) {
                flags::no_question(&before, name(command))?;
            }
            if !matches!(command, Command::List(_)) {
                flags::no_listing(&cli.listing, name(command))?;
            }
        }
        let mode = match cli.command {
            Some(Command::New(start)) => start_mode(flags::start(before, start)?, flags, true)?,
            Some(Command::List(args)) => match flags::list(cli.listing, args)? {
                ListArgs { due: true, github_issue, .. } => Mode::Due { github_issue, config: config.clone() },
                args => Mode::List { all: args.all, limit: args.limit.unwrap_or(DEFAULT_LIMIT) },
            },
            Some(Command::Show { id, no_pager: after }) => Mode::Show { id, paged: !(no_pager || after) },
            Some(Command::Resume(args)) => {
                resume(args.id, review(args.guide.map(QuestionSource::Text), args.discard_edits))
            }
            Some(Command::Review(args)) => match (args.github_event, args.target) {
                (Some(event), _) => Mode::GithubReview(GithubReviewRequest { event, flags: flags.clone() }),
                (None, target) => {
                    let file = |path: PathBuf| {
                        if path == Path::new("-") { QuestionSource::Stdin } else { QuestionSource::File(path) }
                    };
                    let objection = args.guide.map(QuestionSource::Text).or(args.guide_file.map(file));
                    resume(target.unwrap_or_default(), review(objection, args.discard_edits))
                }
            },
            Some(Command::Ci(args)) => match args.platform {
                crate::cli::CiPlatform::Github => {
                    Mode::Ci { install: args.install, force: args.force, config: config.clone() }
                }
            },
            Some(Command::Eval(args)) => eval_mode(args, options.clone(), config.clone())?,
            Some(Command::Guard { action }) => Mode::Guard(guard_request(action, config.clone())),
            Some(Command::Check { base, github_event }) => {
                Mode::Check(CheckRequest { base, github_event, config: config.clone() })
            }
            Some(Command::Verify(args)) => Mode::Verify(VerifyRequest {
                targets: args.targets,
                all: args.all,
                since: args.since,
                require_signature: args.require_signature,
                allowed_signers: args.allowed_signers,
                config: config.clone(),
            }),
            Some(Command::Export(args)) => {
                if args.pubkey_out.is_some() && args.format != ExportFormat::Odr {
                    return Err(Error::input("--pubkey-out goes with --format odr")
                        .with_hint("debate export ID --format odr -o receipt.json --pubkey-out signer.pub.hex"));
                }
                Mode::Export(ExportRequest {
                    target: args.target,
                    format: args.format,
                    output: args.output,
                    pubkey_out: args.pubkey_out,
                    config: config.clone(),
                })
            }
            Some(Command::Abandon { id }) => Mode::GiveUp { id, delete: false },
            Some(Command::Delete { id }) => Mode::GiveUp { id, delete: true },
            Some(Command::Accept(args)) => lifecycle(args, Verdict::Accepted),
            Some(Command::Reject(args)) => lifecycle(args, Verdict::Rejected),
            Some(Command::Deprecate(args)) => lifecycle(args, Verdict::Deprecated),
            Some(Command::Trust { path, revoke }) => Mode::Trust { path, revoke },
            Some(Command::Serve(args)) => Mode::Serve(ServeRequest {
                bind: args.bind,
                port: args.port,
                open: args.open,
                config: config.clone(),
                offline: options.offline,
            }),
            Some(Command::Search { query, limit }) => {
                Mode::Search { query, limit: limit.unwrap_or(DEFAULT_SEARCH_LIMIT), config: config.clone() }
            }
            Some(Command::Mcp { allow }) => Mode::Mcp { config: config.clone(), allow },
            Some(Command::Config) => Mode::Config { config: config.clone() },
            Some(Command::Doctor { provider }) => Mode::Doctor { provider, config: config.clone() },
            Some(Command::Usage(args)) => {
                Mode::Usage { since: args.since, by: args.by.unwrap_or_else(|| "model".into()), config: config.clone() }
            }
            Some(Command::Completions { shell }) => Mode::Completions(shell),
            Some(Command::Man(args)) => Mode::Man { command: args.command, dir: args.dir },
            None => {
                if (cli.listing.all || cli.listing.limit.is_some() || cli.listing.due) && !cli.list {
                    return Err(Error::input("--all, --limit and --due go with a list")
                        .with_hint("debate list --all (or --limit N, or --due)"));
                }
                match (cli.list, cli.show, cli.resume, cli.abandon, cli.delete) {
                    (true, ..) if cli.listing.due => {
                        Mode::Due { github_issue: cli.listing.github_issue, config: config.clone() }
                    }
                    (true, ..) => {
                        Mode::List { all: cli.listing.all, limit: cli.listing.limit.unwrap_or(DEFAULT_LIMIT) }
                    }
                    (_, Some(id), ..) => Mode::Show { id, paged: !no_pager },
                    (_, _, Some(id), ..) => resume(id, review(cli.guide.map(QuestionSource::Text), cli.discard_edits)),
                    (.., Some(id), _) => Mode::GiveUp { id, delete: false },
                    (.., Some(id)) => Mode::GiveUp { id, delete: true },
                    (false, None, None, None, None) => start_mode(before, flags, cli.separated)?,
                }
            }
        };
        if no_pager && !matches!(mode, Mode::Show { .. }) {
            return Err(Error::input("--no-pager goes with `debate show`").with_hint("debate show ID --no-pager"));
        }
        Ok(Invocation { mode, db: shared.db, json: shared.json, verbosity })
    }
}

/// The command a line runs, as typed: a subcommand, a flag form (`--list`), or `new`.
fn command_name(cli: &Cli) -> &'static str {
    match &cli.command {
        Some(command) => name(command),
        None if cli.list => "list",
        None if cli.show.is_some() => "show",
        None if cli.resume.is_some() => "resume",
        None if cli.abandon.is_some() => "abandon",
        None if cli.delete.is_some() => "delete",
        None => "new",
    }
}

/// `debate eval ID|PATH`, or `debate eval --suite FILE`.
fn eval_mode(args: EvalArgs, options: RunOptions, config: Option<PathBuf>) -> Result<Mode> {
    let suited = [(options.max_rounds.is_some(), "--max-rounds"), (!options.models.is_empty(), "--models")];
    if let (None, Some((_, flag))) = (&args.suite, suited.iter().find(|(given, _)| *given)) {
        return Err(Error::input(format!("{flag} goes with `debate eval --suite`"))
            .with_hint("the rounds and the models of a debate already run are its own"));
    }
    if options.offline && !args.evaluators.is_empty() {
        return Err(Error::input("--evaluators cannot be used with --offline")
            .with_hint("--offline debates and scores without a model; --evaluators names models"));
    }
    Ok(match (args.suite, args.target) {
        (Some(suite), _) => Mode::Suite(SuiteRequest {
            suite,
            evaluators: args.evaluators,
            report: args.report.unwrap_or_else(|| PathBuf::from(DEFAULT_REPORT)),
            baseline: args.baseline,
            options,
            config,
        }),
        (None, target) => Mode::Eval(EvalRequest {
            target: target.unwrap_or_default(),
            evaluators: args.evaluators,
            write: args.write,
            offline: options.offline,
            cap: options.cap(),
            config,
            here: Here::WorkingDirectory,
        }),
    })
}

/// Where `debate eval --suite` writes its markdown report unless told.
const DEFAULT_REPORT: &str = "eval-report.md";

/// The subcommand's name, as typed.
fn name(command: &Command) -> &'static str {
    match command {
        Command::New(_) => "new",
        Command::List(_) => "list",
        Command::Show { .. } => "show",
        Command::Resume(_) => "resume",
        Command::Review(_) => "review",
        Command::Abandon { .. } => "abandon",
        Command::Delete { .. } => "delete",
        Command::Accept(_) => "accept",
        Command::Reject(_) => "reject",
        Command::Deprecate(_) => "deprecate",
        Command::Trust { .. } => "trust",
        Command::Serve(_) => "serve",
        Command::Mcp { .. } => "mcp",
        Command::Search { .. } => "search",
        Command::Config => "config",
        Command::Doctor { .. } => "doctor",
        Command::Usage(_) => "usage",
        Command::Completions { .. } => "completions",
        Command::Man(_) => "man",
        Command::Ci(_) => "ci",
        Command::Eval(_) => "eval",
        Command::Verify(_) => "verify",
        Command::Check { .. } => "check",
        Command::Guard { .. } => "guard",
        Command::Export(_) => "export",
    }
}

/// How many debates a list shows unless told.
pub const DEFAULT_LIMIT: u32 = 20;

/// How many records a search shows unless told.
pub const DEFAULT_SEARCH_LIMIT: u32 = 10;

/// A new debate, or `--context-preview` of one. A question of one word is refused as a
/// mistyped command unless `forced` (`debate new WORD`, or after `--`): a typo must not
/// start a debate, and a paid one at that.
fn start_mode(args: StartArgs, flags: RunFlags, forced: bool) -> Result<Mode> {
    if let (Some(word), false) = (args.question.as_deref(), forced) {
        refuse_one_word(word)?;
    }
    let start = StartRequest { question: question_source(args.question, args.file)?, flags };
    Ok(match args.context_preview {
        true => Mode::Preview(start),
        false => Mode::Start(start),
    })
}

/// The question argument, `--file`, or stdin (`-` for either).
fn question_source(question: Option<String>, file: Option<PathBuf>) -> Result<QuestionSource> {
    match (question, file) {
        (Some(q), None) if q == "-" => Ok(QuestionSource::Stdin),
        (Some(q), None) => Ok(QuestionSource::Text(q)),
        (None, Some(path)) if path.as_os_str() == "-" => Ok(QuestionSource::Stdin),
        (None, Some(path)) => Ok(QuestionSource::File(path)),
        _ => Err(Error::input("no question given").with_hint(
            "debate \"Should we use Redis or Postgres for caching?\" (or --file PATH, or - for stdin); see debate --help",
        )),
    }
}

/// A bare word where a question goes: a command mistyped, most likely.
fn refuse_one_word(word: &str) -> Result<()> {
    let word = word.trim();
    if word == "-" || word.is_empty() || word.contains(char::is_whitespace) {
        return Ok(());
    }
    let forced = format!("debate new {word:?} (or debate -- {word:?})");
    match nearest_command(word) {
        Some(command) => {
            Err(not_a_command(word, &command).with_hint(format!("a one-word question goes after new: {forced}")))
        }
        None => Err(Error::input(format!("{word:?} is one word, not a question to debate")).with_hint(format!(
            "ask the whole question, or give it after new: {forced}; `debate --help` lists the commands"
        ))),
    }
}

/// A command line clap refused whose first word is a command mistyped (`debate shwo
/// DEB-…`, `debate acept PATH`): the typo, worded as for a bare word, rather than clap's
/// complaint about the words after it. None for any other line, and after `--`, where
/// the words are a question.
pub fn mistyped_command(args: &[OsString]) -> Option<Error> {
    if args.iter().any(|arg| arg == "--") {
        return None;
    }
    // Clap's own reading up to where it failed: the word it took for the question.
    let matches = crate::cli::command().ignore_errors(true).try_get_matches_from(args).ok()?;
    let word = matches.get_one::<String>("question")?;
    if word.contains(char::is_whitespace) {
        return None;
    }
    let command = nearest_command(word)?;
    let at = args.iter().skip(1).position(|arg| arg == word.as_str())?;
    let meant: Vec<String> = args
        .iter()
        .skip(1)
        .enumerate()
        .map(|(i, arg)| if i == at { command.clone() } else { shell_word(&arg.to_string_lossy()) })
        .collect();
    let hint = format!("debate {}; a question of several words goes in quotes", meant.join(" "));
    Some(not_a_command(word, &command).with_hint(hint))
}

/// The refusal of `word` where `command` was meant.
fn not_a_command(word: &str, command: &str) -> Error {
    Error::input(format!("{word:?} is not a command; did you mean `debate {command}`?"))
}

/// The command `word` most likely meant, if it is close to one: a small typo, or a
/// command with something after a dash (`list-all`).
fn nearest_command(word: &str) -> Option<String> {
    let lower = word.to_lowercase();
    let command = crate::cli::command();
    let names: Vec<String> = command
        .get_subcommands()
        .flat_map(|sub| std::iter::once(sub.get_name()).chain(sub.get_all_aliases()))
        .map(str::to_string)
        .collect();
    let distance = |name: &str| strsim::damerau_levenshtein(&lower, name);
    names
        .iter()
        .filter(|name| distance(name) <= (name.len() / 3).max(1) || lower.starts_with(&format!("{name}-")))
        .min_by_key(|name| distance(name))
        .cloned()
}

#[cfg(test)]
mod tests;
