//! The structured formats several ecosystems share: TOML (Cargo.toml, pyproject.toml)
//! and JSON (package.json, composer.json), parsed with errors that say what is wrong
//! and where, and the dependency specs Cargo and Poetry write alike.

use serde_json::Value as Json;

use super::declared::{Declared, plain_version};

pub fn parse_toml(text: &str) -> Result<toml::Table, String> {
    toml::from_str(text).map_err(|err: toml::de::Error| {
        let message = err.message().trim();
        match err.span() {
            Some(span) => format!("not valid TOML: line {}: {message}", line_of(text, span.start)),
            None => format!("not valid TOML: {message}"),
        }
    })
}

/// The 1-based line holding a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    let before = &text.as_bytes()[..offset.min(text.len())];
    before.iter().filter(|&&byte| byte == b'\n').count() + 1
}

/// `name = "version"` or `name = { version = …, features = […] }`, the way Cargo and
/// Poetry both write dependencies (Poetry says `extras`). A path or git dependency has
/// no version worth naming; a renamed Cargo dependency is known by its `package`.
pub fn toml_declared(name: &str, spec: &toml::Value) -> Declared {
    let Some(table) = spec.as_table() else {
        return Declared::new(name, spec.as_str().and_then(plain_version));
    };
    let local = table.contains_key("path") || table.contains_key("git");
    let version = table.get("version").and_then(toml::Value::as_str).filter(|_| !local).and_then(plain_version);
    let features = ["features", "extras"]
        .iter()
        .filter_map(|key| table.get(*key))
        .filter_map(toml::Value::as_array)
        .flatten()
        .filter_map(toml::Value::as_str)
        .map(str::to_string)
        .collect();
    let name = table.get("package").and_then(toml::Value::as_str).unwrap_or(name);
    Declared { name: name.to_string(), version, features }
}

/// A JSON manifest, whose top level must be an object.
pub fn parse_json(text: &str) -> Result<Json, String> {
    let manifest: Json = serde_json::from_str(text).map_err(|err| format!("not valid JSON: {err}"))?;
    if manifest.is_object() { Ok(manifest) } else { Err("the top level is not a JSON object".into()) }
}

/// The `name: spec` pairs of one of a JSON manifest's sections; none when it is missing.
pub fn json_section<'a>(manifest: &'a Json, section: &str) -> impl Iterator<Item = (&'a String, &'a Json)> {
    manifest.get(section).and_then(Json::as_object).into_iter().flatten()
}

#[cfg(test)]
mod tests {
    use crate::context::manifests::tests::malformed;

    #[test]
    fn malformed_toml_and_json_are_errors_that_say_where() {
        malformed(&[
            ("Cargo.toml", "[dependencies]\nsqlx = { version = \"0.8\"\n", "not valid TOML: line 2:"),
            ("pyproject.toml", "[project]\ndependencies = [\"django\"\n", "not valid TOML: line "),
            ("package.json", "{ \"dependencies\": { \"pg\": \"8\", } }", "not valid JSON: "),
            ("package.json", "[\"pg\"]", "the top level is not a JSON object"),
            ("composer.json", "{ \"require\": ", "not valid JSON: "),
        ]);
    }
}
