//! YAML reading with errors that name the file, line and key (serde-saphyr).

use serde::de::DeserializeOwned;

/// Largest YAML file we read: settings, catalogs and scripts are small, and a budget
/// keeps a hostile file from eating memory.
pub const MAX_YAML_BYTES: usize = 1 << 20;

/// Parse `text` (read from `origin`) into `T`. The error message starts with
/// `origin:line:column` and names the key on that line when the parser did not.
pub fn parse<T: DeserializeOwned>(text: &str, origin: &str) -> Result<T, String> {
    if text.len() > MAX_YAML_BYTES {
        return Err(format!("{origin}: file is larger than {MAX_YAML_BYTES} bytes"));
    }
    let options = serde_saphyr::options! { with_snippet: false };
    serde_saphyr::from_str_with_options(text, options).map_err(|err| describe(&err, text, origin))
}

fn describe(err: &serde_saphyr::Error, text: &str, origin: &str) -> String {
    let message = err.to_string();
    // serde-saphyr appends " at line L, column C"; we lead with it instead, compiler-style.
    let message = message.split(" at line ").next().unwrap_or(&message).to_string();
    match err.location() {
        Some(location) => {
            let line = location.line() as usize;
            let key = key_on_line(text, line, location.column() as usize);
            let about = match key {
                Some(key) if !message.contains(&format!("`{key}`")) => format!("key `{key}`: "),
                _ => String::new(),
            };
            format!("{origin}:{line}:{}: {about}{message}", location.column())
        }
        None => format!("{origin}: {message}"),
    }
}

/// The mapping key written on a 1-based line, if the line holds one.
/// The key whose value is at `column` of `line`: in a flow mapping (`{a: 1, b: 2}`) the
/// last one written before the column, else the line's own.
fn key_on_line(text: &str, line: usize, column: usize) -> Option<String> {
    let source = text.lines().nth(line.checked_sub(1)?)?;
    let before: String = source.chars().take(column.saturating_sub(1)).collect();
    let in_flow = before.rsplit([',', '{']).next().filter(|part| before.contains('{') && part.contains(':'));
    let source = in_flow.unwrap_or(source).trim_start().trim_start_matches("- ");
    let (key, _) = source.split_once(':')?;
    let key = key.trim().trim_matches(|c| c == '"' || c == '\'');
    (!key.is_empty() && !key.contains(' ')).then(|| key.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Sample {
        rounds: Option<u8>,
    }

    #[test]
    fn a_value_in_a_flow_mapping_names_its_own_key() {
        let text = "providers: {mock: {kind: openai, max_concurrency: 99}}\n";
        assert_eq!(key_on_line(text, 1, 52).as_deref(), Some("max_concurrency"));
        assert_eq!(key_on_line(text, 1, 1).as_deref(), Some("providers"));
    }

    #[test]
    fn wrong_type_names_file_line_and_key() {
        let err = parse::<Sample>("\nrounds: many\n", "s.yaml").unwrap_err();
        assert!(err.starts_with("s.yaml:2:"), "{err}");
        assert!(err.contains("`rounds`"), "{err}");
    }

    #[test]
    fn unknown_key_is_named() {
        let err = parse::<Sample>("round: 3\n", "s.yaml").unwrap_err();
        assert!(err.starts_with("s.yaml:1:"), "{err}");
        assert!(err.contains("`round`"), "{err}");
    }
}
