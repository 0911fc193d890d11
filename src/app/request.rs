//! The command line resolved once into what each command takes: one [`Mode`] and the
//! typed request it carries. The commands, and the dashboard that starts and resumes
//! debates, take these requests, never the clap structs.

use std::net::IpAddr;
use std::path::PathBuf;

use crate::cli::{Cli, Command, Lifecycle};
use crate::error::{Error, Result};
use crate::record::lifecycle::Verdict;
use crate::settings::FlagOverrides;
use crate::terminal::Verbosity;

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
    Completions(clap_complete::Shell),
}

/// Where a new debate's question comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QuestionSource {
    Text(String),
    Stdin,
    File(PathBuf),
}

/// A new debate, as `debate QUESTION` or the dashboard's form asks for it.
#[derive(Debug, Clone)]
pub struct StartRequest {
    pub question: QuestionSource,
    /// `--config`: a settings file over the user's and the repository's.
    pub config: Option<PathBuf>,
    /// What the command line sets over the settings.
    pub flags: FlagOverrides,
    /// `--offline`: the built-in offline debater in every role.
    pub offline: bool,
    /// `--with`: perspectives the panel must have.
    pub with: Vec<String>,
    /// `--branch`: the branch the record goes to; empty: the default name.
    pub branch: Option<String>,
    /// `--context`: files the debaters read.
    pub context: Vec<PathBuf>,
    /// `--no-repo-context`.
    pub no_repo_context: bool,
    /// `--supersedes`: earlier records, by path or debate id.
    pub supersedes: Vec<String>,
}

/// Continue a debate, or reopen a complete one for review.
#[derive(Debug, Clone, Default)]
pub struct ResumeRequest {
    pub id: String,
    pub config: Option<PathBuf>,
    pub max_rounds: Option<u8>,
    pub no_checkpoints: bool,
    pub issue: bool,
    pub no_commit: bool,
    pub branch: Option<String>,
    pub model: Option<String>,
    pub provider: Option<String>,
    pub offline: bool,
    /// `--guide` on a complete debate: a reviewer's objection.
    pub review: Option<Review>,
}

/// A reviewer's objection to a complete debate.
#[derive(Debug, Clone)]
pub struct Review {
    pub objection: String,
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
        let shared = cli.shared;
        let verbosity = match (shared.quiet, shared.verbose) {
            (true, _) => Verbosity::Quiet,
            (_, true) => Verbosity::Verbose,
            _ => Verbosity::Normal,
        };
        let config = shared.config;
        let lifecycle = |args: Lifecycle, verdict| {
            Mode::Lifecycle(LifecycleRequest {
                target: args.target,
                verdict,
                no_commit: args.no_commit,
                config: config.clone(),
            })
        };
        let mode = match cli.command {
            Some(Command::Completions { shell }) => Mode::Completions(shell),
            Some(Command::Trust { path, revoke }) => Mode::Trust { path, revoke },
            Some(Command::Accept(args)) => lifecycle(args, Verdict::Accepted),
            Some(Command::Reject(args)) => lifecycle(args, Verdict::Rejected),
            Some(Command::Deprecate(args)) => lifecycle(args, Verdict::Deprecated),
            Some(Command::Serve(args)) => Mode::Serve(ServeRequest {
                bind: args.bind,
                port: args.port,
                open: args.open,
                config: config.clone(),
                offline: args.offline,
            }),
            None if cli.list => Mode::List { all: cli.all, limit: cli.limit },
            None => match (cli.show, cli.resume, cli.abandon, cli.delete) {
                (Some(id), ..) => Mode::Show { id },
                (_, Some(id), ..) => Mode::Resume(ResumeRequest {
                    id,
                    config: config.clone(),
                    max_rounds: cli.max_rounds,
                    no_checkpoints: cli.no_checkpoints,
                    issue: cli.issue,
                    no_commit: cli.no_commit,
                    branch: cli.branch.map(|name| name.trim().to_string()),
                    model: cli.model,
                    provider: cli.provider,
                    offline: cli.offline,
                    review: cli.guide.map(|objection| Review { objection, discard_edits: cli.discard_edits }),
                }),
                (_, _, Some(id), _) => Mode::GiveUp { id, delete: false },
                (.., Some(id)) => Mode::GiveUp { id, delete: true },
                (None, None, None, None) => {
                    let start = StartRequest {
                        question: question_source(cli.question, cli.file)?,
                        config: config.clone(),
                        flags: FlagOverrides {
                            max_rounds: cli.max_rounds,
                            perspectives: cli.perspectives,
                            no_checkpoints: cli.no_checkpoints,
                            no_commit: cli.no_commit,
                            issue: cli.issue,
                            provider: cli.provider,
                            model: cli.model,
                            models: cli.models,
                        },
                        offline: cli.offline,
                        with: cli.with,
                        branch: cli.branch.map(|name| name.trim().to_string()),
                        context: cli.context,
                        no_repo_context: cli.no_repo_context,
                        supersedes: cli.supersedes,
                    };
                    match cli.context_preview {
                        true => Mode::Preview(start),
                        false => Mode::Start(start),
                    }
                }
            },
        };
        Ok(Invocation { mode, db: shared.db, json: shared.json, verbosity })
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn invocation(args: &[&str]) -> Invocation {
        let cli = Cli::try_parse_from(std::iter::once("debate").chain(args.iter().copied())).unwrap();
        Invocation::from_cli(cli).unwrap()
    }

    #[test]
    fn a_question_starts_a_debate_with_the_flags_over_the_settings() {
        let run = invocation(&["-r", "3", "--no-checkpoints", "--branch= x ", "Redis or Postgres?"]);
        let Mode::Start(start) = run.mode else { panic!("{:?}", run.mode) };
        assert_eq!(start.question, QuestionSource::Text("Redis or Postgres?".into()));
        assert_eq!(start.flags.max_rounds, Some(3));
        assert!(start.flags.no_checkpoints);
        assert_eq!(start.branch.as_deref(), Some("x"), "the branch name is trimmed once, here");
    }

    #[test]
    fn a_dash_reads_the_question_from_stdin_either_way() {
        for args in [&["-"][..], &["--file", "-"]] {
            let Mode::Start(start) = invocation(args).mode else { panic!() };
            assert_eq!(start.question, QuestionSource::Stdin);
        }
        let Mode::Preview(preview) = invocation(&["--context-preview", "--file", "q.txt"]).mode else { panic!() };
        assert_eq!(preview.question, QuestionSource::File("q.txt".into()));
    }

    #[test]
    fn no_question_is_an_input_error() {
        let err = Invocation::from_cli(Cli::try_parse_from(["debate", "-r", "2"]).unwrap()).unwrap_err();
        assert_eq!(err.to_string(), "no question given");
        assert_eq!(err.exit_code(), 2);
    }

    #[test]
    fn guide_makes_a_resume_a_review() {
        let Mode::Resume(resume) = invocation(&["--resume", "deb-k3", "--guide", "cost?", "--discard-edits"]).mode
        else {
            panic!()
        };
        let review = resume.review.unwrap();
        assert_eq!((resume.id.as_str(), review.objection.as_str(), review.discard_edits), ("deb-k3", "cost?", true));
        let Mode::Resume(plain) = invocation(&["--resume", "deb-k3"]).mode else { panic!() };
        assert!(plain.review.is_none());
    }

    #[test]
    fn shared_options_are_declared_once_for_every_command() {
        for args in [&["accept", "a.md", "--db", "x.db", "-q"][..], &["accept", "--quiet", "--db=x.db", "a.md"]] {
            let run = invocation(args);
            assert_eq!(run.db.as_deref(), Some(std::path::Path::new("x.db")));
            assert_eq!(run.verbosity, Verbosity::Quiet);
            let Mode::Lifecycle(request) = run.mode else { panic!() };
            assert_eq!((request.target.as_str(), request.verdict), ("a.md", Verdict::Accepted));
        }
    }

    #[test]
    fn the_mode_flags_choose_the_command() {
        assert!(matches!(invocation(&["--list", "--all"]).mode, Mode::List { all: true, limit: 20 }));
        assert!(matches!(invocation(&["--show", "0y"]).mode, Mode::Show { .. }));
        assert!(matches!(invocation(&["--abandon", "0y"]).mode, Mode::GiveUp { delete: false, .. }));
        assert!(matches!(invocation(&["--delete", "DEB-0ym064"]).mode, Mode::GiveUp { delete: true, .. }));
        let Mode::Serve(serve) = invocation(&["serve", "--offline", "--config", "s.yaml"]).mode else { panic!() };
        assert!(serve.offline && serve.config.is_some());
    }
}
