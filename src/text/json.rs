//! Tolerant reading of JSON a model wrote: code fences, prose around the object and
//! trailing commas are forgiven.

use serde::de::DeserializeOwned;

/// Why no JSON object could be read from a text.
#[derive(Debug, thiserror::Error)]
pub enum JsonError {
    #[error("the answer holds no complete JSON object")]
    NoObject,
    #[error("the JSON object does not fit: {0}")]
    DoesNotFit(#[source] serde_json::Error),
}

/// The first JSON object in `text` parsed as `T`, or why not.
pub fn extract<T: DeserializeOwned>(text: &str) -> Result<T, JsonError> {
    let mut last_error = None;
    for object in objects(text) {
        match serde_json::from_str(object).or_else(|_| serde_json::from_str(&strip_trailing_commas(object))) {
            Ok(value) => return Ok(value),
            Err(err) => last_error = Some(err),
        }
    }
    Err(last_error.map_or(JsonError::NoObject, JsonError::DoesNotFit))
}

/// Every balanced `{…}` in the text, strings respected, in order. An object cut off
/// before its end (a truncated answer) is not among them. At most `MAX_STARTS` braces
/// that open nothing are tried, so a text full of them costs linear time, not square.
fn objects(text: &str) -> impl Iterator<Item = &str> {
    const MAX_STARTS: usize = 64;
    let (mut search, mut failed) = (0, 0);
    std::iter::from_fn(move || {
        while let Some(offset) = text[search..].find('{').filter(|_| failed < MAX_STARTS) {
            let start = search + offset;
            search = start + 1;
            match balanced_end(&text[start..]) {
                Some(end) => {
                    search = start + end;
                    return Some(&text[start..start + end]);
                }
                None => failed += 1,
            }
        }
        None
    })
}

fn balanced_end(text: &str) -> Option<usize> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, c) in text.char_indices() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' | '[' => depth += 1,
            '}' | ']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// Drop commas that stand right before `}` or `]`, outside strings.
fn strip_trailing_commas(json: &str) -> String {
    let chars: Vec<char> = json.chars().collect();
    let mut out = String::with_capacity(json.len());
    let (mut in_string, mut escaped) = (false, false);
    for (i, &c) in chars.iter().enumerate() {
        if in_string {
            escaped = !escaped && c == '\\';
            if c == '"' && !escaped {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
        } else if c == ',' && chars[i + 1..].iter().find(|c| !c.is_whitespace()).is_some_and(|n| *n == '}' || *n == ']')
        {
            continue;
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn reads_fenced_json_with_prose() {
        let v: Value = extract("Sure! Here it is:\n```json\n{\"a\": 1, \"b\": \"}\"}\n```\nHope that helps.").unwrap();
        assert_eq!(v["a"], 1);
        assert_eq!(v["b"], "}");
    }

    #[test]
    fn forgives_trailing_commas() {
        let v: Value = extract("{\"a\": [1, 2,], \"b\": \"x,]\",}").unwrap();
        assert_eq!(v["a"][1], 2);
        assert_eq!(v["b"], "x,]");
    }

    #[test]
    fn rejects_truncated_and_missing_objects() {
        assert!(extract::<Value>("{\"a\": \"cut off").is_err());
        assert!(extract::<Value>("no json here").is_err());
        assert!(extract::<Value>("").is_err());
    }

    #[test]
    fn skips_a_stray_brace_before_the_object() {
        let v: Value = extract("use {braces} carefully: {\"ok\": true}").unwrap();
        assert_eq!(v["ok"], true);
    }

    #[test]
    fn gives_up_after_many_braces_that_open_nothing() {
        let answer = |stray: usize| format!("{}{{\"ok\": true}}", "{".repeat(stray));
        assert!(extract::<Value>(&answer(10)).is_ok(), "a few stray braces are skipped");
        assert!(extract::<Value>(&answer(100)).is_err(), "a text of stray braces is not searched for ever");
    }
}
