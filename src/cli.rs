//! Command-line definitions only: flags, help text and value parsing. No behaviour.

use std::path::PathBuf;

use clap::{ArgGroup, Args, Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "debate",
    version,
    about = "Turn a hard engineering question into a reviewed decision record",
    long_about = "A moderator picks 2–4 perspectives from a catalog, runs debate rounds between \
                  LLM debaters, stops on agreement, repetition or stagnation, and writes a \
                  decision record to docs/decisions/. Every step is kept in SQLite, so an \
                  interrupted debate continues with --resume.",
    group(ArgGroup::new("mode").args(["resume", "list", "show", "abandon", "delete"]).multiple(false)),
    args_conflicts_with_subcommands = true,
    after_help = "Examples:\n  debate --offline \"Should we use Redis or Postgres for caching?\"\n  \
                  debate --context-preview \"Redis or Postgres for caching?\"\n  \
                  debate --list\n  debate --resume DEB-k3x9q2\n  debate --show deb-k3\n  \
                  debate accept docs/decisions/0003-use-postgres.md"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    /// The question to debate; `-` reads it from stdin
    #[arg(value_name = "QUESTION", conflicts_with_all = ["resume", "list", "show", "abandon", "delete", "file"])]
    pub question: Option<String>,

    /// Read the question from a file (`-` for stdin)
    #[arg(long, value_name = "PATH", conflicts_with_all = ["resume", "list", "show", "abandon", "delete"])]
    pub file: Option<PathBuf>,

    /// Continue a paused or interrupted debate (any case, unique prefix)
    #[arg(long, value_name = "ID")]
    pub resume: Option<String>,

    /// List recent debates of this repository
    #[arg(long)]
    pub list: bool,

    /// With --list: debates of every repository
    #[arg(long, requires = "list")]
    pub all: bool,

    /// With --list: how many debates to show
    #[arg(long, value_name = "N", requires = "list", default_value_t = 20,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub limit: u32,

    /// Print a debate: perspectives, rounds, decision
    #[arg(long, value_name = "ID")]
    pub show: Option<String>,

    /// Give a debate up: it stays listed as failed (--resume can still take it up again)
    #[arg(long, value_name = "ID")]
    pub abandon: Option<String>,

    /// Remove a debate from the state database; its record in the repository stays as it is
    #[arg(long, value_name = "ID")]
    pub delete: Option<String>,

    /// Number of debaters, 2–4 (default: the moderator decides)
    #[arg(short = 'p', long = "perspectives", value_name = "N", conflicts_with = "resume",
          value_parser = clap::value_parser!(u8).range(2..=4))]
    pub perspectives: Option<u8>,

    /// Force a perspective from the catalog (repeatable)
    #[arg(long = "with", value_name = "NAME", conflicts_with = "resume")]
    pub with: Vec<String>,

    /// Cap on rounds, 1–20 [default: 5]
    #[arg(short = 'r', long, value_name = "N",
          value_parser = clap::value_parser!(u8).range(1..=20))]
    pub max_rounds: Option<u8>,

    /// Run to completion without pausing at checkpoints
    #[arg(long)]
    pub no_checkpoints: bool,

    /// Also write an issue draft to .debate/issues/<ID>.md
    #[arg(long)]
    pub issue: bool,

    /// With --resume of a completed debate: a reviewer's objection. Runs one more round
    /// (up to --max-rounds) with it as guidance, re-synthesises, and rewrites and commits
    /// the same record
    #[arg(long, value_name = "TEXT", requires = "resume", conflicts_with_all = ["question", "file"])]
    pub guide: Option<String>,

    /// With --guide: rewrite the record from the debate even where edits committed since
    /// the debate wrote it differ (they stay in git history)
    #[arg(long, requires = "guide")]
    pub discard_edits: bool,

    /// Write the record but do not commit it
    #[arg(long, conflicts_with = "branch")]
    pub no_commit: bool,

    /// Commit the record onto a new branch (default decisions/<id>-<slug>) without
    /// touching the checked-out branch, index or working tree, for a pull request
    #[arg(long, value_name = "NAME", num_args = 0..=1, require_equals = true, default_missing_value = "")]
    pub branch: Option<String>,

    /// A file the debaters may read as project context (repeatable)
    #[arg(long = "context", value_name = "PATH", conflicts_with = "resume")]
    pub context: Vec<PathBuf>,

    /// Do not read the repository (README, manifests, infrastructure, history, earlier decisions)
    #[arg(long, conflicts_with = "resume")]
    pub no_repo_context: bool,

    /// Mark an earlier decision record superseded by this debate's record, in the same
    /// commit: its path, or the debate ID in its front matter (repeatable)
    #[arg(long, value_name = "PATH|ID", conflicts_with = "resume")]
    pub supersedes: Vec<String>,

    /// Print exactly what the debaters would read about the project, with token counts,
    /// and exit without calling a model
    #[arg(long, conflicts_with_all = ["resume", "list", "show", "abandon", "delete"])]
    pub context_preview: bool,

    /// Use this configured provider for every role
    #[arg(long, value_name = "NAME", conflicts_with = "offline")]
    pub provider: Option<String>,

    /// Use this model for every role
    #[arg(long, value_name = "MODEL")]
    pub model: Option<String>,

    /// Seat different models at the debate, handed out to the perspectives in turn:
    /// each `provider:model` or a model of the debaters' provider (comma-separated)
    #[arg(long, value_name = "MODELS", value_delimiter = ',', conflicts_with_all = ["model", "resume", "offline"])]
    pub models: Vec<String>,

    /// Use the built-in offline debater: no network, no key, not model-reasoned
    #[arg(long)]
    pub offline: bool,

    #[command(flatten)]
    pub shared: Shared,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print shell completions, e.g. `debate completions bash > ~/.local/share/bash-completion/completions/debate`
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
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
    /// Serve the dashboard: every debate in the database in a browser, live, with the
    /// checkpoints' buttons and a form to start new debates
    Serve(ServeArgs),
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

    /// Debates started from the dashboard use the built-in offline debater
    #[arg(long)]
    pub offline: bool,
}

/// What `accept`, `reject` and `deprecate` take.
#[derive(Debug, Args)]
pub struct Lifecycle {
    /// The record: its path, or a debate ID (the debate's record, or the record whose
    /// front matter carries `id: DEB-…`)
    #[arg(value_name = "ID|PATH")]
    pub target: String,

    /// Write the new status but do not commit it
    #[arg(long)]
    pub no_commit: bool,
}

/// The options every command takes, anywhere on the line.
#[derive(Debug, Args)]
pub struct Shared {
    /// Settings file (overrides the user and repository files)
    #[arg(long, value_name = "PATH", global = true)]
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
