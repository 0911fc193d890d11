//! Each tool's arguments, as the client sends them: a JSON Schema object per tool
//! (`additionalProperties: false`), its descriptions what an agent reads to call it.
//! Unknown arguments are refused; bounded numbers (rounds, perspectives) are read by the
//! model's own types, so a tool takes what the command line takes and refuses what it
//! refuses, with the same words; a value of the wrong kind is named in a person's words.

use rmcp::handler::server::common::{FromContextPart, schema_for_type};
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;
use serde::de::DeserializeOwned;

use crate::model::{Dollars, Rounds, Seats, Tokens};

/// What rmcp's refusal of a tool's arguments begins with: it answers such an error as a
/// tool error (the server then says it as its other refusals).
pub const REFUSED: &str = "failed to deserialize parameters: ";

/// A tool's arguments, read as rmcp's own `Parameters` reads them (its schema is the
/// arguments' type's), but a refusal names the argument at fault in words: `max_rounds:
/// rounds must be a whole number from 1 to 20, not 0`, `limit must be a whole number, 0
/// or more, not -3`. Refused arguments are a tool error.
pub struct Parameters<P>(pub P);

impl<P: JsonSchema> JsonSchema for Parameters<P> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        P::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        P::json_schema(generator)
    }
}

impl<S, P: DeserializeOwned + JsonSchema + 'static> FromContextPart<ToolCallContext<'_, S>> for Parameters<P> {
    fn from_context_part(context: &mut ToolCallContext<S>) -> Result<Self, rmcp::ErrorData> {
        let arguments = context.arguments.take().unwrap_or_default();
        // rmcp answers an error with this prefix as a tool error, the rest as its text.
        let refused = |why: String| rmcp::ErrorData::invalid_params(format!("{REFUSED}{why}"), None);
        let schema = schema_for_type::<P>();
        let known = schema.get("properties").and_then(serde_json::Value::as_object);
        if let Some(known) = known
            && let Some(unknown) = arguments.keys().find(|name| !known.contains_key(*name))
        {
            let names: Vec<&str> = known.keys().map(String::as_str).collect();
            return Err(refused(format!("unknown argument `{unknown}`; the arguments are {}", names.join(", "))));
        }
        serde_path_to_error::deserialize(serde_json::Value::Object(arguments)).map(Parameters).map_err(|err| {
            let at = err.path().to_string();
            refused(readable(&at, &err.into_inner().to_string()))
        })
    }
}

/// What serde says of an argument, as a person reads it: `limit must be a whole number,
/// 0 or more, not -3` rather than ``invalid value: integer `-3`, expected u32``.
fn readable(at: &str, said: &str) -> String {
    let mistyped = said.strip_prefix("invalid type: ").or_else(|| said.strip_prefix("invalid value: "));
    if let Some((given, expected)) = mistyped.and_then(|rest| rest.split_once(", expected ")) {
        let name = if matches!(at, "." | "") { "the arguments".to_string() } else { at.to_string() };
        return format!("{name} must be {}, not {}", expected_words(expected), given_words(given));
    }
    if let Some(field) = said.strip_prefix("missing field `").and_then(|rest| rest.strip_suffix('`')) {
        return format!("the argument `{field}` is missing: it is required");
    }
    match at {
        "." | "" => said.to_string(),
        at => format!("{at}: {said}"),
    }
}

fn expected_words(expected: &str) -> String {
    match expected {
        "u8" | "u16" | "u32" | "u64" | "usize" => "a whole number, 0 or more",
        "i8" | "i16" | "i32" | "i64" | "isize" => "a whole number",
        "f32" | "f64" => "a number",
        "a boolean" => "true or false",
        "a string" => "text",
        "a sequence" => "a list",
        "a map" => "an object",
        other => return other.strip_prefix("struct ").map_or(other.to_string(), |_| "an object".to_string()),
    }
    .to_string()
}

fn given_words(given: &str) -> String {
    let quoted = |kind: &str| given.strip_prefix(kind).map(|v| v.trim_matches('`').to_string());
    quoted("integer ")
        .or_else(|| quoted("floating point "))
        .or_else(|| quoted("boolean "))
        .or_else(|| given.strip_prefix("string ").map(str::to_string))
        .unwrap_or_else(|| match given {
            "sequence" => "a list".into(),
            "map" => "an object".into(),
            "unit value" => "null".into(),
            other => other.into(),
        })
}

/// `start_debate`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StartDebate {
    /// The engineering question to debate, with the options in it, e.g. "Should we cache
    /// in Redis or in Postgres?" (plain text, at most 16 KiB).
    pub question: String,
    /// The git work tree the debate runs in and commits its record into
    /// (docs/decisions/): an absolute path, or one relative to the client's first root.
    /// Default: the client's first root, else the directory `debate mcp` runs in.
    pub repository: Option<String>,
    /// The most rounds the debate may take, 1 to 20 (default: the settings', else 5).
    #[schemars(with = "Option<u8>", range(min = 1, max = 20))]
    pub max_rounds: Option<Rounds>,
    /// How many perspectives debate, 2 to 4 (default: the moderator decides).
    #[schemars(with = "Option<u8>", range(min = 2, max = 4))]
    pub perspectives: Option<Seats>,
    /// Perspectives of the catalog the panel must have, by name (e.g. "Security
    /// Advocate").
    #[serde(default)]
    pub with: Vec<String>,
    /// A provider configured in the settings to use for every role (e.g. "openai").
    pub provider: Option<String>,
    /// A model to use for every role.
    pub model: Option<String>,
    /// Debate with the built-in offline debater: no network and no key, arguments
    /// composed from the catalog, not reasoned by a model (the record says so).
    #[serde(default)]
    pub offline: bool,
    /// Stop after each round for the user to continue, guide, end or pause, asked
    /// through the client (elicitation). Off when the client cannot ask its user.
    #[serde(default = "yes")]
    pub checkpoints: bool,
    /// Files the debaters read as project context: paths inside the repository, relative
    /// to its root.
    #[serde(default)]
    pub context: Vec<String>,
    /// The most US dollars the debate may spend in all (a call that could cross it is not
    /// sent: the debate pauses, resumable with a higher cap). Needs a price for every model.
    #[schemars(with = "Option<f64>")]
    pub max_cost: Option<Dollars>,
    /// The most tokens the debate may spend in all.
    #[schemars(with = "Option<u64>")]
    pub max_tokens: Option<Tokens>,
}

/// `resume_debate`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResumeDebate {
    /// The paused or interrupted debate: its id (`DEB-k3x9q2`; any case, a unique prefix).
    pub id: String,
    /// The repository it runs from (default: as for start_debate).
    pub repository: Option<String>,
    /// A new cap on the debate's rounds in all, 1 to 20.
    #[schemars(with = "Option<u8>", range(min = 1, max = 20))]
    pub max_rounds: Option<Rounds>,
    /// Continue on this configured provider instead of the one it started with.
    pub provider: Option<String>,
    /// Continue with this model.
    pub model: Option<String>,
    /// Continue with the built-in offline debater.
    #[serde(default)]
    pub offline: bool,
    /// Stop after each round for the user (elicitation); off when the client cannot ask.
    #[serde(default = "yes")]
    pub checkpoints: bool,
    /// The most US dollars the debate may have spent in all (a call that could cross it is not
    /// sent: the debate pauses, resumable with a higher cap). Needs a price for every model.
    #[schemars(with = "Option<f64>")]
    pub max_cost: Option<Dollars>,
    /// The most tokens the debate may spend in all.
    #[schemars(with = "Option<u64>")]
    pub max_tokens: Option<Tokens>,
}

/// What a new debate and a resumed one both take: the command line's run flags.
#[derive(Debug, Clone, Default)]
pub struct RunArguments {
    pub max_rounds: Option<Rounds>,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub offline: bool,
    pub checkpoints: bool,
    pub max_cost: Option<Dollars>,
    pub max_tokens: Option<Tokens>,
}

impl StartDebate {
    pub fn run(&self) -> RunArguments {
        let (provider, model) = (self.provider.clone(), self.model.clone());
        RunArguments {
            max_rounds: self.max_rounds,
            provider,
            model,
            offline: self.offline,
            checkpoints: self.checkpoints,
            max_cost: self.max_cost,
            max_tokens: self.max_tokens,
        }
    }
}

impl ResumeDebate {
    pub fn run(&self) -> RunArguments {
        let (provider, model) = (self.provider.clone(), self.model.clone());
        RunArguments {
            max_rounds: self.max_rounds,
            provider,
            model,
            offline: self.offline,
            checkpoints: self.checkpoints,
            max_cost: self.max_cost,
            max_tokens: self.max_tokens,
        }
    }
}

/// `list_debates`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListDebates {
    /// Whose debates (default: as for start_debate).
    pub repository: Option<String>,
    /// The debates of every repository, not only this one's.
    #[serde(default)]
    pub all: bool,
    /// How many debates, newest first (default 20).
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
}

/// `show_debate`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShowDebate {
    /// The debate's id (any case, a unique prefix), or its record's path in the
    /// repository.
    pub id: String,
    /// Where a record's path is read (default: as for start_debate).
    pub repository: Option<String>,
}

/// `search_decisions`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchDecisions {
    /// What the change is about, in a few words (e.g. "caching layer Redis").
    pub query: String,
    /// Whose records (default: as for start_debate).
    pub repository: Option<String>,
    /// How many records, most relevant first (default 10).
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
}

/// `review_decision`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReviewDecision {
    /// The completed debate: its id, or its record's path.
    pub id: String,
    /// The reviewer's objection: the guidance of one more round, after which a new
    /// synthesis rewrites the same record in a new commit.
    pub objection: String,
    /// The repository the debate was debated in (default: as for start_debate).
    pub repository: Option<String>,
}

/// `verify_decision`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VerifyDecision {
    /// The record: its path in the repository, or the id of the debate that wrote it.
    pub id: String,
    /// The repository it is in (default: as for start_debate).
    pub repository: Option<String>,
    /// Count a record that is unsigned, or signed by a key no allowed-signers file names,
    /// as not verified.
    #[serde(default)]
    pub require_signature: bool,
}

/// A record's lifecycle status, as a person gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Accepted,
    Rejected,
    Deprecated,
}

/// `set_decision_status`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetDecisionStatus {
    /// The record: its path in the repository, or the id of the debate that wrote it.
    pub id: String,
    /// The record's new status; the change is committed alone.
    pub status: Verdict,
    /// The repository whose record it is (default: as for start_debate).
    pub repository: Option<String>,
}

/// `evaluate_decision`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EvaluateDecision {
    /// The finished debate: its id, or its record's path.
    pub id: String,
    /// Where a record's path is read (default: as for start_debate).
    pub repository: Option<String>,
    /// Marks composed from the record's text by the offline provider, no model's
    /// judgement (default: the debate's moderator scores it).
    #[serde(default)]
    pub offline: bool,
}

/// `check_providers`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckProviders {
    /// Only this provider (a name under `providers:` in the settings, or openai,
    /// anthropic, openrouter); default: every configured one.
    pub provider: Option<String>,
    /// Whose settings (default: as for start_debate).
    pub repository: Option<String>,
}

fn yes() -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_names_the_argument_in_a_persons_words() {
        let read = |value: serde_json::Value| {
            let err = serde_path_to_error::deserialize::<_, ListDebates>(value).unwrap_err();
            readable(&err.path().to_string(), &err.into_inner().to_string())
        };
        assert_eq!(read(serde_json::json!({"limit": -3})), "limit must be a whole number, 0 or more, not -3");
        assert_eq!(read(serde_json::json!({"all": "yes"})), "all must be true or false, not \"yes\"");
        assert_eq!(read(serde_json::json!({"repository": [1]})), "repository must be text, not a list");
        let err = serde_path_to_error::deserialize::<_, StartDebate>(serde_json::json!({})).unwrap_err();
        let said = readable(&err.path().to_string(), &err.into_inner().to_string());
        assert_eq!(said, "the argument `question` is missing: it is required");
    }

    #[test]
    fn every_tools_schema_refuses_what_it_does_not_name() {
        let schema = schema_for_type::<StartDebate>();
        assert_eq!(schema.get("additionalProperties"), Some(&serde_json::json!(false)), "{schema:?}");
    }
}
