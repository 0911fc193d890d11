//! The record's YAML front matter, written here rather than by the template: every
//! value serialized (strings quoted whenever YAML could read them otherwise), one line
//! per key, so no question, title or model name can add a key or end the block. Pure.
//!
//! The block ends with a blank line before its closing `---`: a markdown renderer that
//! knows no front matter (cmark-gfm, log4brains) then shows it as a paragraph and a
//! rule, not as one huge setext heading, and the header list under the title stays the
//! first list before the first section, where log4brains reads a record's status.

use serde_json::{Map, Value};

use crate::text::untrusted::one_line;

/// The front matter of `fields`, in their order, followed by the keys of `extra` (a
/// repository template's own front matter) that `fields` does not set.
pub fn write(fields: &[(&str, Value)], extra: &Map<String, Value>) -> String {
    let mut block = String::from("---\n");
    let ours = fields.iter().map(|(key, value)| (*key, value));
    let theirs = extra.iter().filter(|(key, _)| !fields.iter().any(|(ours, _)| ours == key));
    for (key, value) in ours.chain(theirs.map(|(key, value)| (key.as_str(), value))) {
        block.push_str(&format!("{}: {}\n", scalar(key), flow(value)));
    }
    block.push_str("\n---\n");
    block
}

/// Any value as one line of YAML: a string plain where YAML reads it back as that same
/// string, everything else as JSON (valid YAML in flow style), each string in it one line.
pub fn flow(value: &Value) -> String {
    match value {
        Value::String(text) => scalar(&one_line(text)),
        Value::Array(items) => format!("[{}]", items.iter().map(flow).collect::<Vec<_>>().join(", ")),
        Value::Object(map) => {
            let entries: Vec<String> = map.iter().map(|(k, v)| format!("{}: {}", scalar(k), flow(v))).collect();
            format!("{{{}}}", entries.join(", "))
        }
        other => other.to_string(),
    }
}

/// A string as a YAML scalar: plain when it is words or an ISO date (`accepted`,
/// `DEB-abc123`, `2026-11-25`), else a JSON string. A renderer without front matter shows
/// the block as text, and one that passes HTML through would take a question's
/// `</details>` as markup: `<`, `>` and `&` are written as `\u` escapes, which YAML
/// reads back the same.
pub fn scalar(text: &str) -> String {
    let inner_ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, ' ' | '-' | '_');
    let words = text.starts_with(|c: char| c.is_ascii_alphabetic())
        && text.ends_with(|c: char| c.is_ascii_alphanumeric())
        && text.chars().all(inner_ok)
        && !text.contains("  ");
    let special = ["yes", "no", "true", "false", "on", "off", "null", "y", "n"]
        .iter()
        .any(|word| text.eq_ignore_ascii_case(word));
    let date = text.len() == 10
        && text.char_indices().all(|(i, c)| if i == 4 || i == 7 { c == '-' } else { c.is_ascii_digit() });
    match (words && !special) || date {
        true => text.to_string(),
        false => Value::from(text).to_string().replace('<', "\\u003c").replace('>', "\\u003e").replace('&', "\\u0026"),
    }
}

/// The template's own front matter as a mapping, and the body after it; an empty mapping
/// when it has none. `Err` with the reason when it has one that is not a YAML mapping.
pub fn split(rendered: &str) -> Result<(Map<String, Value>, &str), String> {
    let Some(rest) = rendered.strip_prefix("---\n").or_else(|| rendered.strip_prefix("---\r\n")) else {
        return Ok((Map::new(), rendered));
    };
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            let yaml = &rest[..offset];
            let body = &rest[offset + line.len()..];
            let parsed: Value = match yaml.trim().is_empty() {
                true => Value::Object(Map::new()),
                false => crate::text::yaml::parse(yaml, "the template's front matter")?,
            };
            return match parsed {
                Value::Object(map) => Ok((map, body)),
                Value::Null => Ok((Map::new(), body)),
                _ => Err("the template's front matter is not a mapping of keys to values".into()),
            };
        }
        offset += line.len();
    }
    Err("the template's front matter is never closed with `---`".into())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn read_back(block: &str) -> Value {
        let inner = block.strip_prefix("---\n").and_then(|b| b.strip_suffix("---\n")).unwrap();
        crate::text::yaml::parse(inner, "front matter").unwrap()
    }

    #[test]
    fn every_value_reads_back_as_written_and_no_value_adds_a_line() {
        let hostile = "Redis </details><script>x</script> & \"Postgres\":\n---\nstatus: owned # which?";
        let fields = [
            ("id", json!("DEB-abc123")),
            ("status", json!("proposed")),
            ("date", json!("2026-11-25")),
            ("question", json!(hostile)),
            ("perspectives", json!(["Cost: first", "yes", "- item"])),
            ("rounds", json!(3)),
            ("winner", Value::Null),
            ("tokens", json!({"prompt": 10, "cached": 0})),
        ];
        let block = write(&fields, &Map::new());
        assert_eq!(block.lines().count(), fields.len() + 3, "{block}");
        assert!(!block.contains(['<', '>', '&']), "{block}");
        assert!(block.contains("\nstatus: proposed\ndate: 2026-11-25\n"), "{block}");
        assert!(block.ends_with("\n\n---\n"), "a blank line keeps renderers from a setext heading");
        let read = read_back(&block);
        assert_eq!(read["question"], one_line(hostile));
        assert_eq!(read["perspectives"], json!(["Cost: first", "yes", "- item"]));
        assert_eq!(read["status"], "proposed");
        assert_eq!(read["rounds"], 3);
        assert_eq!(read["winner"], Value::Null);
        assert_eq!(read["tokens"]["prompt"], 10);
    }

    #[test]
    fn a_template_adds_keys_but_never_replaces_ours() {
        let (extra, body) = split("---\nteam: storage\nid: forged\n---\n# Title\n").unwrap();
        assert_eq!(body, "# Title\n");
        let block = write(&[("id", json!("DEB-abc123"))], &extra);
        assert_eq!(block, "---\nid: DEB-abc123\nteam: storage\n\n---\n");
        assert_eq!(split("# No front matter\n").unwrap().1, "# No front matter\n");
        assert!(split("---\n- a list\n---\n").is_err());
        assert!(split("---\nnever: closed\n").is_err());
    }

    #[test]
    fn plain_scalars_are_only_those_yaml_reads_as_the_same_string() {
        for plain in ["proposed", "DEB-abc123", "ended_by", "2026-11-25", "debate 0"] {
            assert_eq!(scalar(plain), plain);
        }
        for quoted in
            ["yes", "No", "null", "1.5", "2026-11-25x", "a: b", "x #y", "", " lead", "superseded by [a](b.md)"]
        {
            let written = scalar(quoted);
            assert!(written.starts_with('"'), "{quoted} → {written}");
            let read: Value = crate::text::yaml::parse(&format!("k: {written}\n"), "t").unwrap();
            assert_eq!(read["k"], quoted);
        }
    }
}
