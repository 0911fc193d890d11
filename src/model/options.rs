//! A run's options, described once: what a new debate, a resumed or reviewed one, an
//! evaluation and a suite take, whichever door gives them — the command line (clap: each
//! a global flag, the same before the command or after it), the MCP tools' arguments and
//! the dashboard's form (serde, and the tools' JSON Schema from the same fields) — and
//! the rules that hold wherever they come from. The settings and the `DEBATE_*`
//! variables give their defaults (`app::invocation::resolve`).

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};

use super::{Cap, Dollars, Rounds, Seats, Tokens};

/// The options of one run. A door that takes only some builds the rest as defaults; the
/// command line refuses an option given to a command that takes none of it.
#[derive(Debug, Clone, Default, PartialEq, clap::Args, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[command(next_help_heading = "Options of a run")]
pub struct RunOptions {
    /// The most rounds the debate may take in all, 1–20 (with `eval --suite`: every
    /// question's) [default: debate.max_rounds, 5]
    #[arg(short = 'r', long, value_name = "N", global = true)]
    #[schemars(with = "Option<u8>", range(min = 1, max = 20))]
    pub max_rounds: Option<Rounds>,

    /// A new debate's number of debaters, 2–4 [default: debate.default_perspectives, the
    /// moderator decides]
    #[arg(short = 'p', long, value_name = "N", global = true)]
    #[schemars(with = "Option<u8>", range(min = 2, max = 4))]
    pub perspectives: Option<Seats>,

    /// A perspective of the catalog a new debate's panel must have, by name (repeatable)
    #[arg(long, value_name = "NAME", global = true)]
    pub with: Vec<String>,

    /// A file a new debate's debaters read as project context (repeatable); through MCP, a
    /// path in the repository
    #[arg(long, value_name = "PATH", global = true)]
    pub context: Vec<PathBuf>,

    /// A new debate reads nothing of the repository (README, manifests, infrastructure,
    /// history, earlier decisions) [default: context.repository]
    #[arg(long, global = true)]
    pub no_repo_context: bool,

    /// An earlier decision record a new debate's record supersedes, in the same commit: its
    /// path, or the debate id in its front matter (repeatable; the command line's only:
    /// the record it names may be anywhere)
    #[arg(long, value_name = "PATH|ID", global = true)]
    #[serde(skip)]
    #[schemars(skip)]
    pub supersedes: Vec<String>,

    /// Models a new debate seats, handed out to the perspectives in turn, each
    /// `provider:model` or a model of the debaters' provider (comma-separated; with `eval
    /// --suite`: the suite debated with each in turn) [default: roles.debater.models]
    #[arg(long, value_name = "MODELS", value_delimiter = ',', global = true)]
    pub models: Vec<String>,

    /// Run to the end without pausing at checkpoints [default: debate.checkpoints]
    #[arg(long, global = true)]
    #[serde(rename = "checkpoints", deserialize_with = "inverted")]
    #[schemars(
        description = "Stop after each round for the user to continue, guide, end or pause, asked through the \
                       client (elicitation); off when the client cannot ask its user.",
        extend("default" = true)
    )]
    pub no_checkpoints: bool,

    /// Also write an issue draft to .debate/issues/<ID>.md [default: record.issue_draft]
    #[arg(long, global = true)]
    pub issue: bool,

    /// Write the record (with accept, reject or deprecate: its new status) but do not
    /// commit it [default: record.commit]
    #[arg(long, global = true)]
    pub no_commit: bool,

    /// Commit the record onto a new branch (default decisions/<id>-<slug>) without
    /// touching the checked-out branch, index or working tree, for a pull request
    #[arg(long, value_name = "NAME", num_args = 0..=1, require_equals = true, default_missing_value = "",
          value_parser = trimmed, global = true)]
    #[serde(deserialize_with = "trimmed_name")]
    pub branch: Option<String>,

    /// The configured provider every role uses (with resume: continue on it)
    /// [default: providers.default, DEBATE_PROVIDER]
    #[arg(long, value_name = "NAME", global = true)]
    pub provider: Option<String>,

    /// The model every role uses [default: roles.*.model, else the provider's]
    #[arg(long, value_name = "MODEL", global = true)]
    pub model: Option<String>,

    /// The built-in offline debater in every role: no network, no key, not model-reasoned
    /// (with eval: marks composed from the record's text; with serve: the dashboard's
    /// debates)
    #[arg(long, global = true)]
    pub offline: bool,

    /// The most US dollars the run may spend in all — a debate, reviews included (a call
    /// that could cross it is not sent: the debate pauses, resumable with a higher cap), or
    /// an eval's scores; needs a price for every model [default: budget.per_debate_usd]
    #[arg(long, value_name = "USD", global = true)]
    #[schemars(with = "Option<f64>")]
    pub max_cost: Option<Dollars>,

    /// The most tokens the run may spend in all [default: budget.per_debate_tokens]
    #[arg(long, value_name = "N", global = true)]
    #[schemars(with = "Option<u64>")]
    pub max_tokens: Option<Tokens>,
}

impl RunOptions {
    /// What no door may ask for, in the same words at each: the options that cannot go
    /// together. (Each value's own bounds are its type's.)
    pub fn check(&self) -> Result<(), String> {
        let seated = !self.models.is_empty();
        let refused = [
            (self.provider.is_some() && self.offline, "--provider cannot be used with --offline"),
            (seated && self.offline, "--models cannot be used with --offline"),
            (seated && self.model.is_some(), "--models cannot be used with --model"),
            (self.branch.is_some() && self.no_commit, "--branch cannot be used with --no-commit"),
        ];
        match refused.into_iter().find(|(given, _)| *given) {
            Some((_, why)) => Err(why.to_string()),
            None => Ok(()),
        }
    }

    /// The caps these options give; neither: none given.
    pub fn cap(&self) -> Cap {
        Cap { usd: self.max_cost, tokens: self.max_tokens }
    }
}

/// `--branch= x `: the name without the spaces around it.
fn trimmed(name: &str) -> Result<String, String> {
    Ok(name.trim().to_string())
}

fn trimmed_name<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    Ok(Option::<String>::deserialize(deserializer)?.map(|name| name.trim().to_string()))
}

/// `checkpoints: false` is `--no-checkpoints`.
fn inverted<'de, D: Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    bool::deserialize(deserializer).map(|on| !on)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{Args, FromArgMatches};

    fn parsed(args: &[&str]) -> RunOptions {
        let command = RunOptions::augment_args(clap::Command::new("run").no_binary_name(true));
        RunOptions::from_arg_matches(&command.try_get_matches_from(args).unwrap()).unwrap()
    }

    #[test]
    fn the_command_line_and_a_json_door_read_the_same_options() {
        let flags = parsed(&["-r", "3", "--no-checkpoints", "--branch= x ", "--models", "a,b", "--max-tokens", "9"]);
        let json: RunOptions = serde_json::from_value(serde_json::json!({
            "max_rounds": 3, "checkpoints": false, "branch": " x ", "models": ["a", "b"], "max_tokens": 9
        }))
        .unwrap();
        assert_eq!(flags, json);
        assert_eq!(flags.branch.as_deref(), Some("x"), "the branch name is trimmed as it is read");
        assert_eq!(flags.cap(), Cap { usd: None, tokens: Tokens::try_from(9).ok() });
        let on: RunOptions = serde_json::from_value(serde_json::json!({})).unwrap();
        assert!(!on.no_checkpoints, "checkpoints are on unless turned off");
    }

    #[test]
    fn options_that_cannot_go_together_are_refused_in_the_same_words_from_any_door() {
        let refused = |options: RunOptions| options.check().unwrap_err();
        let provider = Some("openai".to_string());
        assert_eq!(
            refused(RunOptions { provider, offline: true, ..RunOptions::default() }),
            "--provider cannot be used with --offline"
        );
        let models = vec!["openai:gpt-4.1".to_string()];
        assert_eq!(
            refused(RunOptions { models: models.clone(), model: Some("m".into()), ..RunOptions::default() }),
            "--models cannot be used with --model"
        );
        assert!(refused(RunOptions { models, offline: true, ..RunOptions::default() }).contains("--offline"));
        assert_eq!(
            refused(RunOptions { branch: Some(String::new()), no_commit: true, ..RunOptions::default() }),
            "--branch cannot be used with --no-commit"
        );
        assert_eq!(RunOptions::default().check(), Ok(()));
    }

    #[test]
    fn a_supersedes_is_the_command_lines_only() {
        let read = serde_json::from_value::<RunOptions>(serde_json::json!({"supersedes": ["x.md"]}));
        assert!(read.unwrap_err().to_string().contains("unknown field `supersedes`"));
        let schema = serde_json::to_value(schemars::schema_for!(RunOptions)).unwrap();
        assert!(schema["properties"].get("supersedes").is_none());
        assert_eq!(schema["properties"]["checkpoints"]["default"], true);
    }
}
