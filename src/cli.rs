//! Command-line definitions only: flags, help text and value parsing. No behaviour.
//!
//! Commands are subcommands, as in git and cargo (`debate list`, `debate show ID`), and
//! a bare question starts a debate. The flag forms the first versions had (`--list`,
//! `--show`, `--resume`, `--abandon`, `--delete`) stay as aliases. The options every
//! command takes (`Shared`) and a run's options (`model::RunOptions`) are global: they
//! go anywhere on the line, and mean the same before the command and after it.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::parser::ValueSource;
use clap::{ArgGroup, Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use strum::VariantNames;

use crate::model::{Baseline, RunOptions};

/// What only a new debate's question takes; the flag forms of the other commands refuse
/// it.
const QUESTION_ONLY: [&str; 3] = ["question", "file", "context_preview"];

/// Whether `command` takes the run option `option` (its id, `max_cost`). Those it does
/// not take are left out of its help, and refused when given (`app::invocation`), never
/// dropped. A new debate, a resumed and a reviewed one take them all (resume and review
/// refuse those a debate fixes when it starts, saying why).
pub fn takes(command: &str, option: &str) -> bool {
    match command {
        "new" | "resume" | "review" => true,
        // With --suite, also the rounds and the models each question is debated with.
        "eval" => matches!(option, "offline" | "max_cost" | "max_tokens" | "max_rounds" | "models"),
        "serve" => option == "offline",
        "accept" | "reject" | "deprecate" => option == "no_commit",
        _ => false,
    }
}

/// A run option the command line gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Given {
    /// Its id, the field of `RunOptions` (`max_cost`).
    pub id: String,
    /// As typed (`--max-cost`).
    pub flag: String,
}

#[derive(Debug, Parser)]
#[command(
    name = "debate",
    version,
    about = "Turn a hard engineering question into a reviewed decision record",
    long_about = "A moderator picks 2–4 perspectives from a catalog, runs debate rounds between \
                  LLM debaters, stops on agreement, repetition or stagnation, and writes a \
                  decision record to docs/decisions/. Every step is kept in SQLite, so an \
                  interrupted debate continues with `debate resume ID`.",
    group(ArgGroup::new("mode").args(["resume", "list", "show", "abandon", "delete"]).multiple(false)),
    subcommand_value_name = "COMMAND",
    after_help = "Examples:\n  debate --offline \"Should we use Redis or Postgres for caching?\"\n  \
                  debate --context-preview \"Redis or Postgres for caching?\"\n  \
                  debate list\n  debate resume DEB-k3x9q2\n  debate show deb-k3\n  \
                  debate accept docs/decisions/0003-use-postgres.md\n\n\
                  A one-word question is taken for a mistyped command; ask it with \
                  `debate new WORD` or `debate -- WORD`."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    #[command(flatten)]
    pub start: StartArgs,

    /// Continue a paused or interrupted debate (any case, unique prefix); as `debate resume`
    #[arg(long, value_name = "ID", conflicts_with_all = QUESTION_ONLY)]
    pub resume: Option<String>,

    /// With --resume of a completed debate: a reviewer's objection (as `debate review`)
    #[arg(long, value_name = "TEXT", requires = "resume", conflicts_with_all = ["question", "file"])]
    pub guide: Option<String>,

    /// With --guide: rewrite the record from the debate even where edits committed since
    /// the debate wrote it differ (they stay in git history)
    #[arg(long, requires = "guide")]
    pub discard_edits: bool,

    /// List recent debates of this repository; as `debate list`
    #[arg(long, conflicts_with_all = QUESTION_ONLY)]
    pub list: bool,

    #[command(flatten)]
    pub listing: ListArgs,

    /// Print a debate: decision, perspectives, rounds; as `debate show`
    #[arg(long, value_name = "ID", conflicts_with_all = QUESTION_ONLY)]
    pub show: Option<String>,

    /// With show: print without a pager, even on a terminal
    #[arg(long)]
    pub no_pager: bool,

    /// Give a debate up; as `debate abandon`
    #[arg(long, value_name = "ID", conflicts_with_all = QUESTION_ONLY)]
    pub abandon: Option<String>,

    /// Remove a debate from the state database; as `debate delete`
    #[arg(long, value_name = "ID", conflicts_with_all = QUESTION_ONLY)]
    pub delete: Option<String>,

    #[command(flatten)]
    pub shared: Shared,

    // Last: under a heading of their own in every command's help.
    #[command(flatten)]
    pub options: RunOptions,

    /// The question came after `--`: taken as it is, even one word (set by [`Cli::read`]).
    #[arg(skip)]
    pub separated: bool,

    /// The run options the command line gave (set by [`Cli::read`]).
    #[arg(skip)]
    pub given: Vec<Given>,

    /// A global option given both before the command and after it (set by [`Cli::read`]):
    /// clap keeps the later, so it is refused rather than the other dropped.
    #[arg(skip)]
    pub twice: Option<String>,
}

impl Cli {
    /// The command line as debate reads it (`args` with the program's name first): parsed
    /// as [`command`] defines it, with the run options it gives and any global option it
    /// gives twice.
    pub fn read<T: Into<OsString> + Clone>(args: impl IntoIterator<Item = T>) -> Result<Cli, clap::Error> {
        let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
        let matches = command().try_get_matches_from(&args)?;
        let mut cli = Cli::from_arg_matches(&matches)?;
        let typed = |id: &str| matches.value_source(id) == Some(ValueSource::CommandLine);
        cli.given = run_options()
            .into_iter()
            .filter(|option| typed(option.get_id().as_str()))
            .map(|option| Given { id: option.get_id().to_string(), flag: flag(&option) })
            .collect();
        cli.twice = given_twice(&args);
        // After `--` a question is taken as it is, even one word.
        cli.separated = args.iter().any(|arg| arg == "--");
        Ok(cli)
    }
}

/// The command line's definitions as every reader takes them — parsing, help, manual
/// pages, completions: each command shows the run options it takes; one that takes some
/// not keeps a hidden copy of its own, so that they are read wherever they stand and
/// refused rather than shown.
pub fn command() -> clap::Command {
    let mut debate = Cli::command();
    let options = run_options();
    let names: Vec<String> = debate.get_subcommands().map(|sub| sub.get_name().to_string()).collect();
    for name in names {
        debate = debate.mut_subcommand(&name, |sub| {
            let untaken = options.iter().filter(|option| !takes(&name, option.get_id().as_str()));
            untaken.fold(sub, |sub, option| sub.arg(option.clone().global(false).hide(true)))
        });
    }
    debate
}

/// The run options' arguments, as clap defines them.
fn run_options() -> Vec<clap::Arg> {
    RunOptions::augment_args(clap::Command::new("run")).get_arguments().cloned().collect()
}

/// An option as typed: `--max-cost`.
fn flag(option: &clap::Arg) -> String {
    format!("--{}", option.get_long().unwrap_or(option.get_id().as_str()))
}

/// The first global option given both before the command and after it. Clap keeps one of
/// the two, so the line is read once more with nothing global — each command with a copy
/// of its own — where each place keeps what it was given.
fn given_twice(args: &[OsString]) -> Option<String> {
    let mut apart = command();
    let globals: Vec<clap::Arg> = apart.get_arguments().filter(|arg| arg.is_global_set()).cloned().collect();
    apart = apart.mut_args(|arg| arg.global(false));
    let names: Vec<String> = apart.get_subcommands().map(|sub| sub.get_name().to_string()).collect();
    for name in names {
        apart = apart.mut_subcommand(&name, |sub| {
            let own: Vec<String> = sub.get_arguments().map(|arg| arg.get_id().to_string()).collect();
            let missing = globals.iter().filter(|arg| !own.iter().any(|id| id == arg.get_id().as_str()));
            missing.fold(sub, |sub, arg| sub.arg(arg.clone().global(false)))
        });
    }
    let before = apart.try_get_matches_from(args).ok()?;
    let (_, after) = before.subcommand()?;
    let typed = |matches: &clap::ArgMatches, id: &str| matches.value_source(id) == Some(ValueSource::CommandLine);
    globals.iter().find(|arg| typed(&before, arg.get_id().as_str()) && typed(after, arg.get_id().as_str())).map(flag)
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Start a debate (what a bare question does); takes a one-word question too
    New(StartArgs),
    /// List recent debates of this repository
    #[command(visible_alias = "ls")]
    List(ListArgs),
    /// Print a debate: the decision first, then perspectives, rounds and stances; on a
    /// terminal through $PAGER (else less)
    Show {
        /// The debate (any case, unique prefix)
        #[arg(value_name = "ID")]
        id: String,
        /// Print without a pager, even on a terminal
        #[arg(long)]
        no_pager: bool,
    },
    /// Continue a paused or interrupted debate where it stopped
    Resume(ResumeArgs),
    /// Reopen a completed debate for a reviewer's objection: one more round with it as
    /// guidance, a new synthesis, and the same record rewritten and committed
    Review(ReviewArgs),
    /// Give a debate up: it stays listed as failed (resume can still take it up again)
    Abandon {
        #[arg(value_name = "ID")]
        id: String,
    },
    /// Remove a debate from the state database; its record in the repository stays as it is
    Delete {
        /// The debate's whole id
        #[arg(value_name = "ID")]
        id: String,
    },
    /// Mark a decision record accepted: its status, a line of status history, and a
    /// commit of only that file (and the decisions index)
    Accept(Lifecycle),
    /// Mark a decision record rejected (its status and history, committed alone)
    Reject(Lifecycle),
    /// Mark a decision record deprecated (its status and history, committed alone)
    Deprecate(Lifecycle),
    /// Trust this repository's .debate/settings.yaml as it is now, so its provider
    /// settings (endpoints, keys, kinds, scripts) take effect; any change needs trust again
    Trust {
        /// The settings file [default: .debate/settings.yaml in this repository]
        #[arg(value_name = "PATH")]
        path: Option<PathBuf>,
        /// Stop trusting the file
        #[arg(long)]
        revoke: bool,
    },
    /// Serve the decision tools to a coding agent over the Model Context Protocol on
    /// stdin and stdout, e.g. `claude mcp add debate -- debate mcp`: start, resume, show,
    /// list, search, review, evaluate debates and records, and set a record's status
    Mcp {
        /// A directory the server may touch (a repository, or one holding repositories);
        /// repeat for more [default: the repository it is started in]
        #[arg(long, value_name = "DIR")]
        allow: Vec<PathBuf>,
    },
    /// Serve the dashboard: every debate in the database in a browser, live, with the
    /// checkpoints' buttons and a form to start new debates
    Serve(ServeArgs),
    /// Rank this repository's decision records against a query: each with its decision on
    /// one line and its status — what to read before proposing a change
    Search {
        /// What the change is about, in a few words
        #[arg(value_name = "QUERY")]
        query: String,
        /// How many records to show [default: 10]
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
        limit: Option<u32>,
    },
    /// Print the effective settings, where each value came from, and the paths debate uses
    Config,
    /// Check each configured provider: reachable, key there, model present, structured
    /// format, streaming, requests at once, tokens per second, and what a default debate
    /// would take; exit 0 only when the default provider can run a debate
    Doctor {
        /// Only this provider (a name under `providers:`, or openai, anthropic, openrouter)
        #[arg(id = "only", value_name = "PROVIDER")]
        provider: Option<String>,
    },
    /// What debates cost: requests, tokens (cached apart) and dollars from the ledger in
    /// the state database, since a moment (this month by default), by model, provider or
    /// repository, and the month against budget.per_month_usd
    Usage(UsageArgs),
    /// Print shell completions, e.g. `debate completions bash > ~/.local/share/bash-completion/completions/debate`
    /// (that directory made first)
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff), e.g. `debate man | man -l -`, or a command's
    /// (`debate man show`); `--dir` writes them all for man to find
    Man(ManArgs),
    /// Write the CI workflow for the review loop in pull requests: a `/debate <objection>`
    /// comment by a collaborator runs a review round and commits it to the pull request
    Ci(CiArgs),
    /// Check decision records offline, from the records alone: each one's digest (an
    /// edit named by its section), its signature, and who signed it (git's
    /// allowed-signers file); exit 0 all verified, 1 a record failed, 3 a record unsigned
    /// with --require-signature
    Verify(VerifyArgs),
    /// Check the work tree against the guards of the decision records: a dependency or a
    /// file an accepted decision forbids, or one it requires that is missing, named with
    /// its manifest and line and the record; exit 1 on a violation (proposed records only
    /// warn; superseded, rejected and deprecated ones are ignored)
    Check {
        /// Only what changed since REF's merge base with HEAD (a pull request's base)
        #[arg(long, value_name = "REF")]
        base: Option<String>,
        /// A `pull_request` event (Actions' $GITHUB_EVENT_PATH): keep one comment on the
        /// pull request with what the check found, removed once nothing is left
        #[arg(long, value_name = "PATH")]
        github_event: Option<PathBuf>,
    },
    /// List, add, change or drop a decision's guards, or set its review date: the record
    /// written again, sealed (and signed) again, and committed alone
    Guard {
        #[command(subcommand)]
        action: GuardAction,
    },
    /// Write a finished decision out: as an Open Decision Receipt v0.2 signed with your
    /// ssh key (`aragora-verify` checks it), as the `show --json` document, or as its record
    Export(ExportArgs),
    /// Score a finished debate's record on a rubric fitted to decisions: evaluator models
    /// mark each criterion from 1 to 10 with a reason, beside checks that need no model;
    /// with --suite, debate a suite of questions and report how the models compare
    Eval(EvalArgs),
}

/// What `debate guard` does to a record's guards. A guard is `forbid dependency NAME`,
/// `require dependency NAME`, `forbid path GLOB` or `require path GLOB`.
#[derive(Debug, Subcommand)]
pub enum GuardAction {
    /// Print the record's guards, numbered, and its review date
    List {
        /// The record: its path, or its debate's ID
        #[arg(value_name = "ID|PATH")]
        target: String,
    },
    /// Add a guard, e.g. `debate guard add DEB-abc123 forbid dependency redis`
    Add {
        #[arg(value_name = "ID|PATH")]
        target: String,
        /// The guard, in one argument or three words
        #[arg(value_name = "GUARD", num_args = 1.., required = true)]
        guard: Vec<String>,
    },
    /// Drop a guard, named as written or by its number in `debate guard list`
    Drop {
        #[arg(value_name = "ID|PATH")]
        target: String,
        #[arg(value_name = "GUARD|N", num_args = 1.., required = true)]
        guard: Vec<String>,
    },
    /// Replace a guard (as written, or its number) by another, each in one argument
    Change {
        #[arg(value_name = "ID|PATH")]
        target: String,
        #[arg(value_name = "GUARD|N")]
        old: String,
        #[arg(value_name = "GUARD")]
        new: String,
    },
    /// Set the day to revisit the decision (YYYY-MM-DD), or `none` to clear it
    ReviewBy {
        #[arg(value_name = "ID|PATH")]
        target: String,
        #[arg(value_name = "DAY|none")]
        day: String,
    },
}

/// `debate eval`: with the run options `--offline`, `--max-cost` and `--max-tokens`, and
/// with `--suite` also `-r` and `--models`.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// The finished debate: its id, or its record's path
    #[arg(value_name = "ID|PATH", required_unless_present = "suite", conflicts_with = "suite")]
    pub target: Option<String>,

    /// The evaluators, comma-separated: each `provider:model` or a model of the
    /// moderator's provider [default: the debate's moderator]
    #[arg(long, value_name = "MODELS", value_delimiter = ',')]
    pub evaluators: Vec<String>,

    /// Add the scores to the record's provenance, in a commit of the record alone
    #[arg(long, conflicts_with = "suite")]
    pub write: bool,

    /// Debate every question of a YAML suite in throwaway repositories, score each
    /// record, and write a report that compares the models (docs/eval/suite.yaml is one)
    #[arg(long, value_name = "FILE")]
    pub suite: Option<PathBuf>,

    /// With --suite: the markdown report; the JSON report goes beside it (.json)
    /// [default: eval-report.md]
    #[arg(long, value_name = "PATH", requires = "suite")]
    pub report: Option<PathBuf>,

    /// With --suite: also answer each question without a debate, within the debate's
    /// tokens — one answer (`single`) or a majority vote of answers (`vote`) — and
    /// score both records alike
    #[arg(long, value_name = "KIND", requires = "suite", value_parser = baseline())]
    pub baseline: Option<Baseline>,
}

/// `single` or `vote`, listed in help and completions.
fn baseline() -> impl clap::builder::TypedValueParser<Value = Baseline> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(Baseline::VARIANTS)
        .try_map(|kind: String| kind.parse::<Baseline>().map_err(|err| err.to_string()))
}

/// `debate usage`.
#[derive(Debug, Clone, Args)]
pub struct UsageArgs {
    /// Since when: `7d`, `30d`, `24h`, or a date (YYYY-MM-DD) [default: this month's start]
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,

    /// Group by `model`, `provider` or `repository` [default: model]
    #[arg(long, value_name = "KEY", value_parser = ["model", "provider", "repository"])]
    pub by: Option<String>,
}

/// `debate verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The records: each a path, or a debate ID its front matter carries
    #[arg(value_name = "ID|PATH", required_unless_present = "all", conflicts_with = "all")]
    pub targets: Vec<String>,

    /// Every decision record in the repository's decision directories
    #[arg(long)]
    pub all: bool,

    /// With --all: only the records changed since REV's merge base with HEAD (a pull
    /// request's base branch), work tree included
    #[arg(long, value_name = "REV", requires = "all")]
    pub since: Option<String>,

    /// Exit 3 when a record is unsigned, or signed by a key no allowed-signers file names
    #[arg(long)]
    pub require_signature: bool,

    /// The allowed-signers file that names who signs (ssh-keygen's format) [default:
    /// git's gpg.ssh.allowedSignersFile]
    #[arg(long, value_name = "FILE")]
    pub allowed_signers: Option<PathBuf>,
}

/// `debate export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The finished debate: its id, or its record's path
    #[arg(value_name = "ID|PATH")]
    pub target: String,

    /// What to write: an Open Decision Receipt v0.2 (odr), the `show --json` document
    /// (json), or the decision record (md)
    #[arg(long, value_enum)]
    pub format: ExportFormat,

    /// Write it to this file instead of standard output
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// With --format odr: also write the signing key's public half here, in the hex
    /// `aragora-verify --pubkey` reads
    #[arg(long, value_name = "FILE")]
    pub pubkey_out: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// An Open Decision Receipt v0.2, signed with the key that signs records
    Odr,
    /// The `debate show --json` document
    Json,
    /// The decision record, as the repository holds it
    Md,
}

/// `debate man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// A command's page [default: debate's own, which lists the commands]
    #[arg(value_name = "COMMAND")]
    pub command: Option<String>,

    /// Write debate.1 and a page per command (debate-show.1, …) into this directory, made
    /// if missing, e.g. ~/.local/share/man/man1; prints the paths written
    #[arg(long, value_name = "DIR", conflicts_with = "command")]
    pub dir: Option<PathBuf>,
}

/// `debate ci`.
#[derive(Debug, Args)]
pub struct CiArgs {
    /// The CI system to write the workflow for
    #[arg(value_enum)]
    pub platform: CiPlatform,

    /// The workflow's command that installs debate, on one line [default: cargo install
    /// debate-cli --version =THIS_VERSION --locked]
    #[arg(long, value_name = "COMMAND")]
    pub install: Option<String>,

    /// Replace a workflow file that is already there
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CiPlatform {
    /// GitHub Actions: .github/workflows/debate-review.yml
    Github,
}

/// What a new debate's question takes, beside the run options.
#[derive(Debug, Default, Args)]
pub struct StartArgs {
    /// The question to debate; `-` reads it from stdin
    #[arg(value_name = "QUESTION", conflicts_with = "file")]
    pub question: Option<String>,

    /// Read the question from a file (`-` for stdin)
    #[arg(long, value_name = "PATH")]
    pub file: Option<PathBuf>,

    /// Print exactly what the debaters would read about the project, with token counts,
    /// and exit without calling a model
    #[arg(long)]
    pub context_preview: bool,
}

/// `debate list`.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct ListArgs {
    /// Debates of every repository
    #[arg(long)]
    pub all: bool,

    /// How many debates to show [default: 20]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub limit: Option<u32>,

    /// Instead, the accepted decision records of this repository whose review date has
    /// passed, oldest first
    #[arg(long, conflicts_with_all = ["all", "limit"])]
    pub due: bool,

    /// With --due, in a GitHub Actions job: keep one open issue of this repository listing
    /// them (opened, updated, closed once none is due)
    #[arg(long, requires = "due")]
    pub github_issue: bool,
}

/// `debate resume`.
#[derive(Debug, Args)]
pub struct ResumeArgs {
    /// The debate (any case, unique prefix)
    #[arg(value_name = "ID")]
    pub id: String,

    /// Of a completed debate: a reviewer's objection (as `debate review`)
    #[arg(long, value_name = "TEXT")]
    pub guide: Option<String>,

    /// With --guide: rewrite the record even where edits committed since differ
    #[arg(long, requires = "guide")]
    pub discard_edits: bool,
}

/// `debate review`.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("objection").required(true))]
pub struct ReviewArgs {
    /// The completed debate: its id, or its record's path
    #[arg(value_name = "ID|PATH", required_unless_present = "github_event", conflicts_with = "github_event")]
    pub target: Option<String>,

    /// The reviewer's objection: the next round's guidance
    #[arg(long, value_name = "TEXT", group = "objection")]
    pub guide: Option<String>,

    /// The reviewer's objection, read from a file (`-` for standard input)
    #[arg(long, value_name = "PATH", group = "objection")]
    pub guide_file: Option<PathBuf>,

    /// In a GitHub Actions job: the pull request comment's event (`$GITHUB_EVENT_PATH`);
    /// a collaborator's `/debate <objection>` reviews the records the pull request
    /// changes, pushes the revision and answers in the thread
    #[arg(long, value_name = "PATH", group = "objection")]
    pub github_event: Option<PathBuf>,

    /// Rewrite the record from the debate even where edits committed since the debate
    /// wrote it differ (they stay in git history)
    #[arg(long)]
    pub discard_edits: bool,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on; any but a loopback address needs the printed token
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1")]
    pub bind: std::net::IpAddr,

    /// Port to listen on (0 picks a free one)
    #[arg(long, value_name = "N", default_value_t = 8023)]
    pub port: u16,

    /// Open the dashboard in the default browser
    #[arg(long)]
    pub open: bool,
}

/// What `accept`, `reject` and `deprecate` take.
#[derive(Debug, Args)]
pub struct Lifecycle {
    /// The record: its path, or a debate ID (the debate's record, or the record whose
    /// front matter carries `id: DEB-…`)
    #[arg(value_name = "ID|PATH")]
    pub target: String,
}

/// The options every command takes, anywhere on the line.
#[derive(Debug, Args)]
pub struct Shared {
    /// Settings file over the user and repository files
    #[arg(long, value_name = "PATH", global = true, env = "DEBATE_CONFIG")]
    pub config: Option<PathBuf>,

    /// State database [default: $DEBATE_HOME/debates.sqlite3 or the user data directory]
    #[arg(long, value_name = "PATH", global = true)]
    pub db: Option<PathBuf>,

    /// Machine-readable output on stdout
    #[arg(long, global = true)]
    pub json: bool,

    /// Less detail on stderr
    #[arg(short, long, conflicts_with = "verbose", global = true)]
    pub quiet: bool,

    /// More detail on stderr
    #[arg(short, long, global = true)]
    pub verbose: bool,
}
