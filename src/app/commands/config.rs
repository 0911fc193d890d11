//! `debate config`: the effective settings, where each value came from (a default, a
//! file, a `DEBATE_*` variable or a flag), and the files and paths debate uses here —
//! as `git config --show-origin` does.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::error::Result;
use crate::settings;
use crate::terminal;

/// One setting as it is in effect.
#[derive(Debug, Serialize)]
struct Effective {
    key: String,
    value: Value,
    from: String,
}

/// A file or directory debate uses, and why there.
#[derive(Debug, Serialize)]
struct Used {
    what: &'static str,
    path: String,
    from: String,
    exists: bool,
}

#[derive(Debug, Serialize)]
struct Report {
    settings: Vec<Effective>,
    paths: Vec<Used>,
}

pub fn run(config: Option<&Path>, db: Option<&Path>, json: bool) -> Result<()> {
    let root = crate::repo::around_working_directory()?;
    let loaded = settings::load(&root, config)?;
    let value = serde_json::to_value(&loaded.settings).unwrap_or(Value::Null);
    let settings = settings::leaves(&value)
        .into_iter()
        .map(|(key, value)| Effective {
            from: loaded.origins.get(&key).cloned().unwrap_or_else(|| "default".into()),
            value: value.clone(),
            key,
        })
        .collect();
    let report = Report { settings, paths: paths(&root, config, db)? };
    match json {
        true => Ok(terminal::print_json(&report)?),
        false => Ok(terminal::print_out(&text(&report))?),
    }
}

fn paths(root: &Path, config: Option<&Path>, db: Option<&Path>) -> Result<Vec<Used>> {
    let used = |what, path: PathBuf, from: &str| Used {
        what,
        exists: path.exists(),
        path: path.display().to_string(),
        from: from.to_string(),
    };
    let home_set = std::env::var_os("DEBATE_HOME").is_some_and(|h| !h.is_empty());
    let home = if home_set { "DEBATE_HOME" } else { "the user data directory" };
    let mut paths = Vec::new();
    if let Some(user) = settings::user_settings_path() {
        paths.push(used("user settings", user, "the user configuration directory"));
    }
    paths.push(used("repository settings", settings::repository_settings(root), "this repository"));
    if let Some(config) = config {
        let named_by_variable = std::env::var_os("DEBATE_CONFIG").is_some_and(|v| Path::new(&v) == config);
        let from = if named_by_variable { "DEBATE_CONFIG" } else { "--config" };
        paths.push(used("settings file", config.to_path_buf(), from));
    }
    let database = match db {
        Some(db) => used("state database", db.to_path_buf(), "--db"),
        None => used("state database", crate::store::default_path()?, home),
    };
    paths.push(database);
    if let Some(data) = settings::data_dir() {
        paths.push(used("trusted settings", data.join("trusted.json"), home));
    }
    Ok(paths)
}

/// The report for people: one setting a line, aligned, its origin last.
fn text(report: &Report) -> String {
    let shown: Vec<(String, String, &str)> =
        report.settings.iter().map(|s| (s.key.clone(), value_text(&s.value), s.from.as_str())).collect();
    let key_width = shown.iter().map(|(k, ..)| k.chars().count()).max().unwrap_or(0);
    let value_width = shown.iter().map(|(_, v, _)| v.chars().count()).max().unwrap_or(0).min(40);
    let mut out = String::from(
        "Settings (later wins: default < user file < repository file < --config or DEBATE_CONFIG < DEBATE_* < flags):\n",
    );
    for (key, value, from) in &shown {
        out.push_str(&format!("  {key:key_width$}  {value:value_width$}  {from}\n"));
    }
    out.push_str("\nFiles:\n");
    let what_width = report.paths.iter().map(|p| p.what.len()).max().unwrap_or(0);
    for used in &report.paths {
        let missing = if used.exists { "" } else { " (not there)" };
        out.push_str(&format!("  {:what_width$}  {}{missing}  {}\n", used.what, used.path, used.from));
    }
    out
}

fn value_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_setting_shows_its_value_and_origin_aligned() {
        let report = Report {
            settings: vec![
                Effective { key: "debate.max_rounds".into(), value: Value::from(3), from: "DEBATE_MAX_ROUNDS".into() },
                Effective { key: "record.directory".into(), value: Value::from("docs/adr"), from: "default".into() },
            ],
            paths: vec![Used {
                what: "state database",
                path: "/h/d.sqlite3".into(),
                from: "--db".into(),
                exists: false,
            }],
        };
        let shown = text(&report);
        assert!(shown.contains("  debate.max_rounds  3         DEBATE_MAX_ROUNDS\n"), "{shown}");
        assert!(shown.contains("  record.directory   docs/adr  default\n"), "{shown}");
        assert!(shown.contains("  state database  /h/d.sqlite3 (not there)  --db\n"), "{shown}");
    }
}
