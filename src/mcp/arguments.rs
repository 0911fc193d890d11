//! Each tool's arguments, as the client sends them: a JSON Schema object per tool
//! (`additionalProperties: false`), its descriptions what an agent reads to call it.
//! Unknown arguments are refused; a run's options are the command line's own type
//! (`model::RunOptions`), its bounded numbers (rounds, perspectives, caps) read by the
//! model's own types, so a tool takes what the command line takes and refuses what it
//! refuses, with the same words; a value of the wrong kind is named in a person's words.

use rmcp::handler::server::common::{FromContextPart, schema_for_type};
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::schemars::{self, JsonSchema};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use crate::model::{RunOptions, Verdict};

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

/// A tool that runs a debate: its own arguments and a run's options (`model::RunOptions`,
/// as the command line takes them), one object to the client. The schema lists both's
/// arguments; each part is read on its own, so a refusal names the argument at fault.
#[derive(Debug, Clone)]
pub struct Run<T> {
    pub own: T,
    pub options: RunOptions,
}

impl<T: JsonSchema> JsonSchema for Run<T> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        T::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let mut schema = T::json_schema(generator);
        let options = RunOptions::json_schema(generator);
        let theirs = options.get("properties").and_then(Value::as_object);
        if let (Some(own), Some(theirs)) = (schema.get_mut("properties").and_then(Value::as_object_mut), theirs) {
            own.extend(theirs.clone());
        }
        schema
    }
}

impl<'de, T: DeserializeOwned + JsonSchema> Deserialize<'de> for Run<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut own = Map::<String, Value>::deserialize(deserializer)?;
        let schema = schema_for_type::<RunOptions>();
        let names = schema.get("properties").and_then(Value::as_object).into_iter().flat_map(|names| names.keys());
        let options: Map<String, Value> = names.filter_map(|name| own.remove_entry(name)).collect();
        Ok(Run { own: part(own)?, options: part(options)? })
    }
}

/// One part of a tool's arguments, a refusal worded as [`Parameters`] words one.
fn part<T: DeserializeOwned, E: serde::de::Error>(arguments: Map<String, Value>) -> Result<T, E> {
    serde_path_to_error::deserialize(Value::Object(arguments)).map_err(|err| {
        let at = err.path().to_string();
        E::custom(readable(&at, &err.into_inner().to_string()))
    })
}

/// `start_debate`'s own arguments, beside a run's options.
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
}

/// `resume_debate`'s own arguments, beside a run's options (those a new debate fixes
/// when it starts are refused, saying why, as `debate resume` refuses them).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResumeDebate {
    /// The paused or interrupted debate: its id (`DEB-k3x9q2`; any case, a unique prefix).
    pub id: String,
    /// The repository it runs from (default: as for start_debate).
    pub repository: Option<String>,
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

/// `check_decisions`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckDecisions {
    /// Whose work tree and records (default: as for start_debate).
    pub repository: Option<String>,
    /// Only what changed since this revision's merge base with HEAD (a branch such as
    /// "main"); the whole work tree when left out.
    pub base: Option<String>,
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
        let err = serde_path_to_error::deserialize::<_, Run<StartDebate>>(serde_json::json!({})).unwrap_err();
        let said = readable(&err.path().to_string(), &err.into_inner().to_string());
        assert_eq!(said, "the argument `question` is missing: it is required");
        let err = serde_path_to_error::deserialize::<_, Run<StartDebate>>(
            serde_json::json!({"question": "Q?", "max_rounds": 0}),
        )
        .unwrap_err();
        let said = readable(&err.path().to_string(), &err.into_inner().to_string());
        assert_eq!(said, "max_rounds: rounds must be a whole number from 1 to 20, not 0", "a run option named too");
    }

    #[test]
    fn every_tools_schema_refuses_what_it_does_not_name() {
        let schema = schema_for_type::<Run<StartDebate>>();
        assert_eq!(schema.get("additionalProperties"), Some(&serde_json::json!(false)), "{schema:?}");
        let properties = schema.get("properties").and_then(Value::as_object).unwrap();
        for name in ["question", "repository", "max_rounds", "perspectives", "checkpoints", "offline"] {
            assert!(properties.contains_key(name), "{name}: {properties:?}");
        }
        assert!(!properties.contains_key("supersedes"), "the command line's only");
    }
}
