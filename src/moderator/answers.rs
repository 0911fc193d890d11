//! The moderator's structured answers, each defined once as a type: the JSON Schema
//! sent to providers that enforce structure, the shape hint written into the prompt,
//! and the lenient reader all come from that one definition (schemars and serde).

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::de::DeserializeOwned;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, LazyLock, Mutex};

use regex::Regex;
use serde_json::{Map, Value};

use crate::text::json::{self, JsonError};

/// A structured answer the moderator is asked for.
pub trait Answer: DeserializeOwned + JsonSchema {
    /// The name the schema goes by (Anthropic's forced tool, OpenAI's `json_schema`).
    const NAME: &'static str;

    /// Properties its derived schema cannot know (sections declared at run time).
    fn more_properties() -> Vec<(&'static str, Value)> {
        Vec::new()
    }
}

/// The names an answer must choose among: a field marked `x-panel` takes one of the
/// panel's perspectives, a field marked `x-options` one of the considered options.
#[derive(Debug, Clone, Copy, Default)]
pub struct Names<'a> {
    pub panel: &'a [String],
    pub options: &'a [String],
}

/// The JSON Schema of `T`: subschemas inlined, every property required, no others
/// allowed, no defaults (they describe the lenient reader, not what is asked), and the
/// marked fields restricted to `names`.
pub fn schema<T: Answer>(names: &Names) -> Value {
    let generator = SchemaSettings::draft2020_12()
        .with(|settings| {
            settings.inline_subschemas = true;
            settings.meta_schema = None;
        })
        .into_generator();
    let mut value = generator.into_root_schema_for::<T>().to_value();
    if let Some(properties) = value.get_mut("properties").and_then(Value::as_object_mut) {
        for (name, schema) in T::more_properties() {
            properties.entry(name).or_insert(schema);
        }
    }
    strict(&mut value);
    restrict(&mut value, names);
    value
}

/// Marked fields become enums of `names` (a nullable one keeps `null`); the markers go.
fn restrict(value: &mut Value, names: &Names) {
    match value {
        Value::Object(object) => {
            for (marker, choices) in [("x-panel", names.panel), ("x-options", names.options)] {
                if object.remove(marker).is_none() || choices.is_empty() {
                    continue;
                }
                // A list of names: each item is one of them.
                let target = match object.get("type").and_then(Value::as_str) {
                    Some("array") => object.get_mut("items").and_then(Value::as_object_mut),
                    _ => Some(&mut *object),
                };
                let Some(target) = target else { continue };
                // `null` first: a model that takes whatever is listed first then names nobody.
                let nullable =
                    target.get("type").and_then(Value::as_array).is_some_and(|t| t.contains(&Value::from("null")));
                let allowed: Vec<Value> = nullable
                    .then_some(Value::Null)
                    .into_iter()
                    .chain(choices.iter().cloned().map(Value::String))
                    .collect();
                target.insert("enum".into(), Value::Array(allowed));
            }
            object.values_mut().for_each(|v| restrict(v, names));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| restrict(v, names)),
        _ => {}
    }
}

/// A schema as strict structured output wants it: every property required, no others,
/// no `default` or `title` keywords. The `properties` map holds field names, not
/// keywords: a field called `title` stays.
fn strict(value: &mut Value) {
    match value {
        Value::Object(object) => {
            object.remove("default");
            object.remove("title");
            if let Some(Value::Object(properties)) = object.get_mut("properties") {
                let names = properties.keys().cloned().map(Value::String).collect();
                properties.values_mut().for_each(strict);
                object.insert("required".into(), Value::Array(names));
                object.insert("additionalProperties".into(), Value::Bool(false));
            }
            object.iter_mut().filter(|(key, _)| *key != "properties").for_each(|(_, v)| strict(v));
        }
        Value::Array(items) => items.iter_mut().for_each(strict),
        _ => {}
    }
}

/// The answer's shape in one line for the prompt, e.g.
/// `{"summary": "<the round in 2-4 sentences>", "agreement": true | false}`.
pub fn shape<T: Answer>(names: &Names) -> String {
    hint(&schema::<T>(names), None)
}

fn hint(schema: &Value, described: Option<&str>) -> String {
    let described = schema["description"].as_str().or(described);
    if let Some(choices) = schema["enum"].as_array() {
        return choices.iter().map(Value::to_string).collect::<Vec<_>>().join(" | ");
    }
    if let Some(variants) = schema["anyOf"].as_array().or(schema["oneOf"].as_array()) {
        return variants.iter().map(|v| hint(v, described)).collect::<Vec<_>>().join(" | ");
    }
    let types: Vec<&str> = match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    };
    let mut shapes: Vec<String> = Vec::new();
    if types.contains(&"null") {
        shapes.push("null".into());
    }
    for kind in types.iter().filter(|t| **t != "null") {
        shapes.push(match *kind {
            "object" => object_hint(schema["properties"].as_object()),
            "array" => format!("[{}]", hint(&schema["items"], described)),
            "boolean" => "true | false".into(),
            "integer" | "number" => format!("<{}>", described.unwrap_or("number")),
            _ => format!("\"<{}>\"", described.unwrap_or("text")),
        });
    }
    shapes.join(" | ")
}

fn object_hint(properties: Option<&Map<String, Value>>) -> String {
    let fields: Vec<String> =
        properties.into_iter().flatten().map(|(name, schema)| format!("\"{name}\": {}", hint(schema, None))).collect();
    format!("{{{}}}", fields.join(", "))
}

/// Why a structured answer could not be used.
#[derive(Debug, thiserror::Error)]
pub enum Unreadable {
    #[error(transparent)]
    Json(#[from] JsonError),
    #[error("the answer has no {0}")]
    Missing(&'static str),
}

/// The first JSON object in `text` that reads as `T`.
/// A value that only repeats the prompt's shape hint (`"<why, in a sentence>"`) is
/// empty, not content: a weak model echoes the placeholders it was shown, with or
/// without their angle brackets.
pub fn read<T: Answer>(text: &str) -> Result<T, Unreadable> {
    Ok(json::extract(&without_placeholders(&without_descriptions(text, &descriptions::<T>())))?)
}

/// The field descriptions of `T`'s schema (what its shape hint shows between `<` and
/// `>`), each as `words` gives it; worked out once per answer type.
fn descriptions<T: Answer>() -> Arc<HashSet<String>> {
    type ByAnswer = HashMap<&'static str, Arc<HashSet<String>>>;
    static KNOWN: LazyLock<Mutex<ByAnswer>> = LazyLock::new(Default::default);
    let mut known = KNOWN.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let found = known.entry(T::NAME).or_insert_with(|| {
        let mut found = HashSet::new();
        let schema = schema::<T>(&Names::default());
        let mut stack = vec![&schema];
        while let Some(value) = stack.pop() {
            match value {
                Value::Object(object) => {
                    found.extend(
                        object.get("description").and_then(Value::as_str).map(words).filter(|w| w.contains(' ')),
                    );
                    stack.extend(object.values());
                }
                Value::Array(items) => stack.extend(items),
                _ => {}
            }
        }
        Arc::new(found)
    });
    Arc::clone(found)
}

/// `text`'s words in lower case, one space apart: what is left when case, punctuation
/// and brackets are not counted.
fn words(text: &str) -> String {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// `text` with every JSON string that only spells out one of `descriptions`, or three
/// or more of its words in a row ("in one sentence" of "why, in one sentence"), made a
/// placeholder, which `without_placeholders` then empties.
fn without_descriptions(text: &str, descriptions: &HashSet<String>) -> String {
    // A string and, when it is a key, the colon after it: keys are never echoes.
    static STRING: LazyLock<Regex> = LazyLock::new(|| Regex::new(r#""((?:[^"\\\n]|\\.)*)"(\s*:)?"#).expect("valid"));
    // A run counts only from a description's instruction, never from its example.
    let instruction = |d: &String| {
        let end = [" such as ", " e g ", " for example "].iter().filter_map(|m| d.find(m)).min().unwrap_or(d.len());
        format!(" {} ", &d[..end])
    };
    let echoes = |value: &str| {
        let said = words(value);
        let run =
            said.split(' ').count() >= 3 && descriptions.iter().any(|d| instruction(d).contains(&format!(" {said} ")));
        descriptions.contains(&said) || run
    };
    STRING
        .replace_all(text, |c: &regex::Captures| match c.get(2).is_none() && echoes(&c[1]) {
            true => r#""<echo>""#.to_string(),
            false => c[0].to_string(),
        })
        .into_owned()
}

/// A placeholder given back whole (`"<why, in one sentence>"`), or cut short where the
/// model's answer stopped (`"<why"`: a letter after the bracket, never closed).
static PLACEHOLDER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#""(<[^"<>\n]{1,200}>|<[A-Za-z][^"<>\n]{0,40})""#).expect("valid"));
/// An emptied item of a list, and what follows it (`, "" ]`, `[ "" ,`).
static EMPTY_ITEM: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"\[\s*""\s*(,\s*)?|,\s*""\s*([,\]])"#).expect("valid"));

fn without_placeholders(text: &str) -> String {
    let mut text = PLACEHOLDER.replace_all(text, r#""""#).into_owned();
    loop {
        let next = EMPTY_ITEM
            .replace_all(&text, |c: &regex::Captures| match c.get(2) {
                Some(end) => end.as_str().to_string(),
                None => "[".to_string(),
            })
            .into_owned();
        if next == text {
            return text;
        }
        text = next;
    }
}

/// A debater's answer that says nothing of its own: it repeats placeholders it was
/// shown (`<option>`), and with them and its stance line taken away, fewer than eight
/// words are left. (A short answer without placeholders is short, not empty.)
pub fn says_nothing(text: &str) -> bool {
    static SPAN: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"<[^<>\n]{1,120}>").expect("valid"));
    if !SPAN.is_match(text) {
        return false;
    }
    let words = text
        .lines()
        .filter(|line| !line.trim_start().to_uppercase().starts_with("STANCE"))
        .map(|line| SPAN.replace_all(line, " ").into_owned())
        .flat_map(|line| line.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .filter(|word| word.chars().filter(|c| c.is_alphabetic()).count() >= 2)
        .count();
    words < 8
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;

    /// A verdict.
    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Verdict {
        /// why, in a sentence
        #[serde(default)]
        reason: String,
        /// points raised
        #[serde(default)]
        points: Vec<String>,
        stop: bool,
        winner: Option<String>,
    }

    impl Answer for Verdict {
        const NAME: &'static str = "verdict";
    }

    /// Fields named like schema keywords.
    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Titled {
        title: String,
        default: bool,
    }

    impl Answer for Titled {
        const NAME: &'static str = "titled";
    }

    #[test]
    fn the_schema_requires_every_field_and_allows_no_other() {
        let schema = schema::<Verdict>(&Names::default());
        assert_eq!(schema["required"], serde_json::json!(["reason", "points", "stop", "winner"]));
        assert_eq!(schema["additionalProperties"], false);
        assert!(schema["properties"]["reason"].get("default").is_none());
        assert_eq!(schema["properties"]["reason"]["description"], "why, in a sentence");
        let titled = super::schema::<Titled>(&Names::default());
        assert_eq!(titled["required"], serde_json::json!(["title", "default"]), "fields are not keywords");
        assert_eq!(titled["properties"]["title"]["type"], "string");
    }

    #[test]
    fn the_shape_hint_follows_the_schema() {
        assert_eq!(
            shape::<Verdict>(&Names::default()),
            r#"{"reason": "<why, in a sentence>", "points": ["<points raised>"], "stop": true | false, "winner": null | "<text>"}"#
        );
    }

    #[test]
    fn the_reader_takes_the_first_fitting_object() {
        let verdict: Verdict = read("Here: {\"stop\": true, \"winner\": null}").unwrap();
        assert!(verdict.stop && verdict.reason.is_empty());
        assert!(matches!(read::<Verdict>("no json"), Err(Unreadable::Json(JsonError::NoObject))));
    }

    #[test]
    fn echoed_placeholders_are_empty_not_content() {
        let echoed = r#"{"reason": "<why, in a sentence>", "points": ["<points raised>", "real point", "<more>"], "stop": true, "winner": null}"#;
        let verdict = read::<Verdict>(echoed).unwrap();
        assert_eq!((verdict.reason.as_str(), verdict.points), ("", vec!["real point".to_string()]));
        let part = r#"{"reason": "in a sentence", "points": ["a sentence of its own"], "stop": true, "winner": null}"#;
        let verdict = read::<Verdict>(part).unwrap();
        assert_eq!(verdict.reason, "", "three words of a description in a row are an echo");
        assert_eq!(verdict.points, ["a sentence of its own"]);
        let cut = r#"{"reason": "<why", "points": ["<= 10 users", "<5 ms at p99"], "stop": true, "winner": null}"#;
        let verdict = read::<Verdict>(cut).unwrap();
        assert_eq!(verdict.reason, "", "a placeholder cut short is one too");
        assert_eq!(verdict.points, ["<= 10 users", "<5 ms at p99"], "text that starts with < is kept");
        let only = r#"{"reason": "fine", "points": ["<points raised>"], "stop": false, "winner": "<text>"}"#;
        let verdict = read::<Verdict>(only).unwrap();
        assert!(verdict.points.is_empty() && verdict.winner.as_deref() == Some(""), "{:?}", verdict.points);
    }

    #[test]
    fn an_answer_of_placeholders_says_nothing() {
        assert!(says_nothing("<your argument, 150-300 words>\nSTANCE: <option> (<confidence>)"));
        assert!(!says_nothing("slow"), "short, not a placeholder");
        assert!(!says_nothing(
            "Postgres already runs here and backs up nightly; a second store doubles the on-call load.\nSTANCE: Postgres (high)"
        ));
    }
}
