//! Lenient field readers for what a model writes: a list as one string, a flag as
//! "yes", a name as a number, a confidence as "High confidence". None of them ever
//! fails; what cannot be read is left empty. The moderator's answer types use them as
//! serde attributes, so the type a model answers with is the type the debate keeps.

use serde::Deserialize;
use serde_json::Value;

use super::judgement::Confidence;

/// A list of strings, written as a list, one string, or `null`.
pub fn one_or_many<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Vec<String>, D::Error> {
    Ok(match Value::deserialize(deserializer)? {
        Value::Array(items) => items.into_iter().filter_map(scalar_text).collect(),
        other => scalar_text(other).into_iter().collect(),
    })
}

/// `true`, `"true"` or `"yes"` (any case); anything else is false.
pub fn flag<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    Ok(match Value::deserialize(deserializer)? {
        Value::Bool(b) => b,
        Value::String(s) => matches!(s.trim().to_lowercase().as_str(), "true" | "yes"),
        _ => false,
    })
}

/// A string, or nothing for `null`, `false`, an empty string or any other shape.
pub fn text_or_none<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    Ok(match Value::deserialize(deserializer)? {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
        _ => None,
    })
}

/// A string, or the empty string for anything else.
pub fn text<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    Ok(text_or_none(deserializer)?.unwrap_or_default())
}

/// Trimmed text of a value (a structure as its JSON); nothing for null and blanks.
fn scalar_text(value: Value) -> Option<String> {
    let text = match value {
        Value::String(s) => s,
        Value::Null => return None,
        other => other.to_string(),
    };
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

/// "High", "medium", "Low confidence", … (Medium when it cannot be read).
pub fn confidence<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Confidence, D::Error> {
    Ok(read_confidence(&text(deserializer)?).unwrap_or_default())
}

/// The confidence a text begins with, in any case.
pub fn read_confidence(text: &str) -> Option<Confidence> {
    let text = text.trim().to_lowercase();
    [Confidence::High, Confidence::Medium, Confidence::Low]
        .into_iter()
        .find(|c| text.starts_with(&c.as_str().to_lowercase()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lenient_fields_never_fail() {
        #[derive(Deserialize)]
        struct Lenient {
            #[serde(default, deserialize_with = "one_or_many")]
            list: Vec<String>,
            #[serde(default, deserialize_with = "flag")]
            flag: bool,
            #[serde(default, deserialize_with = "text_or_none")]
            name: Option<String>,
        }
        let read = |json: &str| serde_json::from_str::<Lenient>(json).unwrap();
        let all = read(r#"{"list": ["a", " ", null, 3, {"x": 1}], "flag": "Yes", "name": " Cost "}"#);
        assert_eq!(all.list, ["a", "3", r#"{"x":1}"#]);
        assert_eq!((all.flag, all.name.as_deref()), (true, Some("Cost")));
        let odd = read(r#"{"list": "one", "flag": 1, "name": false}"#);
        assert_eq!((odd.list, odd.flag, odd.name), (vec!["one".to_string()], false, None));
        let empty = read("{}");
        assert!(empty.list.is_empty() && !empty.flag && empty.name.is_none());
    }
}
