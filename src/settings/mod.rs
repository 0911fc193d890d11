//! Settings: built-in defaults < user file < repository file < `--config` file <
//! environment (`DEBATE_*`) (docs/reference.md, "Settings"); a run's flags go over them
//! in `app::run`, typed.
//!
//! Each file is parsed into the typed [`Settings`] first, so an unknown key or a wrong
//! type is reported with the file, line and key. The layers are then merged as plain
//! values (later wins, mappings merge key by key) and the result is read once more.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value, json};

use crate::model::{CatalogFile, CatalogOverlay, DebateSettings, RecordSettings};
use crate::model::{Dollars, ProviderDef, Tokens, bounds};
mod error;
mod paths;
mod trust;

pub use crate::model::{ProviderKind, TokenParameter};
use crate::text::yaml;
pub use error::SettingsError;
pub use paths::{data_dir, repository_settings, user_settings_path};
pub use trust::{Sensitive, TrustStore, digest};

type Result<T, E = SettingsError> = std::result::Result<T, E>;

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    pub debate: DebateSettings,
    pub providers: Providers,
    pub roles: Roles,
    pub record: RecordSettings,
    pub context: ContextSettings,
    pub budget: BudgetSettings,
    pub signing: SigningSettings,
}

/// What debates may spend (docs/guide.md, "Spending caps"). A repository's settings may
/// lower each figure, never raise it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct BudgetSettings {
    /// Dollars one debate may spend, reviews included (`--max-cost` over it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_debate_usd: Option<Dollars>,
    /// Tokens one debate may spend (`--max-tokens` over it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_debate_tokens: Option<Tokens>,
    /// Dollars every run of this machine may spend in a calendar month (UTC), as
    /// `debate usage` adds them up: a run the month has no room for is refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_month_usd: Option<Dollars>,
}

/// Which key signs the records debate writes (docs/guide.md, "Signed records").
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct SigningSettings {
    /// An ed25519 ssh key (its private key file, or its `.pub` when an ssh-agent holds
    /// it); unset: the key git signs commits with (`gpg.format=ssh`, `user.signingkey`).
    pub key: Option<PathBuf>,
}

/// What a debate reads of the repository it runs in, and how much of it the debaters
/// are given.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct ContextSettings {
    /// Read the repository (README, manifests, infrastructure, history, decision records).
    pub repository: bool,
    /// Tokens, estimated at four bytes each, shared by the project facts, the earlier
    /// decisions and `--context` files.
    pub budget_tokens: ContextBudget,
    /// Earlier decisions given to the debaters, most relevant first.
    pub decisions: DecisionCount,
}

impl Default for ContextSettings {
    fn default() -> Self {
        ContextSettings { repository: true, budget_tokens: ContextBudget(8_000), decisions: DecisionCount(5) }
    }
}

/// 0 (no project context at all) to 100,000 tokens: more would crowd out the debate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(try_from = "i64")]
pub struct ContextBudget(pub u64);

impl TryFrom<i64> for ContextBudget {
    type Error = String;
    fn try_from(value: i64) -> Result<Self, String> {
        match value {
            0..=100_000 => Ok(ContextBudget(value as u64)),
            _ => Err(format!("context.budget_tokens must be 0 to 100000, not {value}")),
        }
    }
}

/// 0 to 20 earlier decisions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(try_from = "i64")]
pub struct DecisionCount(pub usize);

impl TryFrom<i64> for DecisionCount {
    type Error = String;
    fn try_from(value: i64) -> Result<Self, String> {
        match value {
            0..=20 => Ok(DecisionCount(value as usize)),
            _ => Err(format!("context.decisions must be 0 to 20, not {value}")),
        }
    }
}

/// Named providers and the default one. Written by hand so that `default` can sit
/// beside the named entries while every entry keeps its line numbers in errors. Each
/// entry is read over the built-in provider of its name, key by key, so `openai:
/// {model: gpt-4.1}` is OpenAI's API with another model; the key a file holds is kept
/// here, and `ProviderDef::stored` leaves it out of what a debate stores.
#[derive(Debug, Clone, Default)]
pub struct Providers {
    pub default: Option<String>,
    pub named: BTreeMap<String, ProviderDef>,
    /// Entries that name no kind and are no built-in provider: an error once one is used
    /// (a file may set a provider's model while another file gives its kind).
    pub kindless: std::collections::BTreeSet<String>,
}

impl Serialize for Providers {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        if let Some(default) = &self.default {
            map.serialize_entry("default", default)?;
        }
        for (name, provider) in &self.named {
            let mut shown = serde_json::to_value(provider).map_err(serde::ser::Error::custom)?;
            if let (true, Some(shown)) = (self.kindless.contains(name), shown.as_object_mut()) {
                shown.remove("kind");
            }
            map.serialize_entry(name, &shown)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Providers {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Providers;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a mapping of provider names to provider settings")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Providers, A::Error> {
                let mut providers = Providers::default();
                while let Some(key) = map.next_key::<String>()? {
                    if key == "default" {
                        providers.default = map.next_value()?;
                    } else {
                        let mut provider: ProviderDef = map.next_value()?;
                        provider.key_in_settings = provider.api_key.is_some();
                        providers.named.insert(key, provider);
                    }
                }
                Ok(providers)
            }
        }
        deserializer.deserialize_map(Visitor)
    }
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct Roles {
    pub moderator: RoleSettings,
    pub debater: RoleSettings,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct RoleSettings {
    pub provider: Option<String>,
    pub model: Option<String>,
    #[serde(deserialize_with = "bounds::temperature")]
    pub temperature: Option<f32>,
    /// Debaters only: models handed out to the seats in turn, each `provider:model` or a
    /// model of the role's provider (a heterogeneous panel).
    pub models: Vec<String>,
}

/// Settings as loaded, with the catalog overlays in precedence order.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub settings: Settings,
    pub overlays: Vec<CatalogOverlay>,
    pub files: Vec<PathBuf>,
    /// Where each key that is not a default was set: a file, a variable or a flag.
    pub origins: BTreeMap<String, String>,
    /// Which record settings a file or variable set, so the repository's own
    /// convention fills in only the rest.
    pub chosen: Chosen,
    /// What the user should hear of how the files were taken: a repository's file that
    /// would raise a spending cap, which it may not.
    pub notices: Vec<String>,
}

#[derive(Debug, Clone, Copy, Default)]
pub struct Chosen {
    pub record_directory: bool,
    pub record_filename: bool,
}

/// Environment variables that set a key, and the key they set. Read here rather than
/// through clap's `env`: they are settings, layered and checked as the files are.
const ENVIRONMENT: &[(&str, &[&str])] = &[
    ("DEBATE_MAX_ROUNDS", &["debate", "max_rounds"]),
    ("DEBATE_MIN_ROUNDS", &["debate", "min_rounds"]),
    ("DEBATE_DEFAULT_PERSPECTIVES", &["debate", "default_perspectives"]),
    ("DEBATE_TOKEN_BUDGET_PER_ROUND", &["debate", "token_budget_per_round"]),
    ("DEBATE_REPETITION_THRESHOLD", &["debate", "repetition_threshold"]),
    ("DEBATE_NOVELTY_THRESHOLD", &["debate", "novelty_threshold"]),
    ("DEBATE_REBUTTALS", &["debate", "rebuttals"]),
    ("DEBATE_CHECKPOINTS", &["debate", "checkpoints"]),
    ("DEBATE_ROUND_TIMEOUT_SECONDS", &["debate", "round_timeout_seconds"]),
    ("DEBATE_CHECKPOINT_TIMEOUT_SECONDS", &["debate", "checkpoint_timeout_seconds"]),
    ("DEBATE_TOTAL_TIMEOUT_SECONDS", &["debate", "total_timeout_seconds"]),
    ("DEBATE_PROVIDER", &["providers", "default"]),
    ("DEBATE_RECORD_DIRECTORY", &["record", "directory"]),
    ("DEBATE_RECORD_FILENAME", &["record", "filename"]),
    ("DEBATE_RECORD_COMMIT", &["record", "commit"]),
    ("DEBATE_ISSUE_DRAFT", &["record", "issue_draft"]),
    ("DEBATE_RECORD_TRANSCRIPT", &["record", "transcript"]),
    ("DEBATE_RECORD_INDEX", &["record", "index"]),
    ("DEBATE_CONTEXT_REPOSITORY", &["context", "repository"]),
    ("DEBATE_CONTEXT_BUDGET_TOKENS", &["context", "budget_tokens"]),
    ("DEBATE_CONTEXT_DECISIONS", &["context", "decisions"]),
    ("DEBATE_SIGNING_KEY", &["signing", "key"]),
];

/// Load every layer. `repo_root` is the repository (or working directory) the debate is about.
pub fn load(repo_root: &Path, config: Option<&Path>) -> Result<Loaded> {
    let mut merged = Value::Object(Map::new());
    let mut overlays = Vec::new();
    let mut files = Vec::new();
    let mut origins = BTreeMap::new();
    let mut notices = Vec::new();

    if let Some(path) = user_settings_path().filter(|p| p.is_file()) {
        let (_, layer) = read_layer(&path, &mut overlays)?;
        note_origin(&mut origins, &layer, &path.display().to_string());
        merge(&mut merged, layer);
        files.push(path);
    }
    let repository_file = repository_settings(repo_root);
    if repository_file.is_file() {
        let (text, mut layer) = read_layer(&repository_file, &mut overlays)?;
        check_trust(&repository_file, &text, &layer, &merged)?;
        notices.extend(keep_caps_from_rising(&mut layer, &merged, &repository_file));
        note_origin(&mut origins, &layer, &repository_file.display().to_string());
        merge(&mut merged, layer);
        files.push(repository_file);
    }
    let repo_catalog = repo_root.join(".debate").join("perspectives.yaml");
    if repo_catalog.is_file() {
        overlays.push(read_catalog_file(&repo_catalog)?);
    }
    if let Some(path) = config {
        if !path.is_file() {
            return Err(SettingsError::new(format!("settings file {} does not exist", path.display()))
                .with_hint("pass an existing YAML file to --config, e.g. a copy of settings.example.yaml"));
        }
        let (_, layer) = read_layer(path, &mut overlays)?;
        note_origin(&mut origins, &layer, &path.display().to_string());
        merge(&mut merged, layer);
        files.push(path.to_path_buf());
    }
    for (name, patch) in environment_layers()? {
        note_origin(&mut origins, &patch, name);
        merge(&mut merged, patch);
    }

    let set = |key: &str| merged.get("record").and_then(|record| record.get(key)).is_some_and(|v| !v.is_null());
    let chosen = Chosen { record_directory: set("directory"), record_filename: set("filename") };
    let kindless = over_built_in(&mut merged);
    let mut settings: Settings =
        serde_json::from_value(merged).map_err(|err| SettingsError::new(format!("settings: {err}")))?;
    settings.providers.kindless = kindless;
    Ok(Loaded { settings, overlays, files, origins, chosen, notices })
}

/// A repository's file may lower a spending cap the user set, never raise it: a cap it
/// would raise is taken out of its layer, and why is said.
fn keep_caps_from_rising(layer: &mut Value, below: &Value, path: &Path) -> Vec<String> {
    let Some(budget) = layer.get_mut("budget").and_then(Value::as_object_mut) else { return Vec::new() };
    let mut notices = Vec::new();
    for key in ["per_debate_usd", "per_debate_tokens", "per_month_usd"] {
        let users = below.pointer(&format!("/budget/{key}")).and_then(Value::as_f64);
        let (Some(raised), Some(users)) = (budget.get(key).and_then(Value::as_f64), users) else { continue };
        if raised > users {
            budget.remove(key);
            notices.push(format!(
                "{} would raise budget.{key} from {users} to {raised}; a repository's settings may only lower a cap, so {users} stands",
                path.display()
            ));
        }
    }
    notices
}

fn read_text(path: &Path) -> Result<String> {
    let read = std::fs::File::open(path).and_then(|file| crate::text::read_bounded(file, yaml::MAX_YAML_BYTES));
    let text = read.and_then(|bytes| String::from_utf8(bytes).map_err(std::io::Error::other));
    text.map_err(|err| {
        SettingsError::new(format!("cannot read {}: {err}", path.display()))
            .with_hint("settings and catalog files must be readable UTF-8 YAML")
    })
}

/// A repository file as `debate trust` sees it.
pub struct Trustable {
    /// What it sets that needs trust, given the user's own settings.
    pub sensitive: Vec<Sensitive>,
    /// What trusting it covers: its text and every script it names.
    pub content: Vec<u8>,
}

pub fn trustable(file: &Path) -> Result<Trustable> {
    let mut overlays = Vec::new();
    let mut users = Value::Object(Map::new());
    if let Some(path) = user_settings_path().filter(|p| p.is_file()) {
        merge(&mut users, read_layer(&path, &mut overlays)?.1);
    }
    let (text, layer) = read_layer(file, &mut overlays)?;
    Ok(Trustable { sensitive: trust::sensitive(&layer, &users), content: trusted_content(&text, &layer) })
}

/// The file's text followed by every script it names (path and content), so a script
/// that changes after the file was trusted needs trust again.
fn trusted_content(text: &str, layer: &Value) -> Vec<u8> {
    let mut content = text.as_bytes().to_vec();
    let providers = layer.get("providers").and_then(Value::as_object).into_iter().flatten();
    for script in providers.filter_map(|(_, p)| p.get("script")?.as_str()) {
        content.extend_from_slice(format!("\0{script}\0").as_bytes());
        let read = std::fs::File::open(script).and_then(|file| crate::text::read_bounded(file, yaml::MAX_YAML_BYTES));
        content.extend(read.unwrap_or_default());
    }
    content
}

/// Refuse a repository file that sets what needs trust, unless the user trusts its
/// exact content (and that of the scripts it names).
fn check_trust(path: &Path, text: &str, layer: &Value, users: &Value) -> Result<()> {
    let sensitive = trust::sensitive(layer, users);
    if sensitive.is_empty() || TrustStore::load()?.trusts(path, &trusted_content(text, layer)) {
        return Ok(());
    }
    let settings: Vec<String> = sensitive.iter().map(ToString::to_string).collect();
    Err(SettingsError::new(format!(
        "{} is not trusted, and it would change where debate sends your API keys and questions, or what it runs: {}",
        path.display(),
        settings.join("; ")
    ))
    .with_hint("read the file; if you trust it as it is, run `debate trust` (any change to it needs trust again)"))
}

/// A settings file read: its text, and its value with script paths made absolute and
/// custom perspectives moved to the catalog overlays.
fn read_layer(path: &Path, overlays: &mut Vec<CatalogOverlay>) -> Result<(String, Value)> {
    let text = read_text(path)?;
    let origin = path.display().to_string();
    let typed: Settings = yaml::parse::<Option<Settings>>(&text, &origin)
        .map_err(|msg| SettingsError::new(msg).with_hint("see settings.example.yaml for every key and its type"))?
        .unwrap_or_default();
    if !typed.debate.custom_perspectives.is_empty() {
        overlays.push(CatalogOverlay { origin: origin.clone(), entries: typed.debate.custom_perspectives });
    }
    let mut layer: Value =
        yaml::parse::<Option<Value>>(&text, &origin).map_err(SettingsError::new)?.unwrap_or(Value::Null);
    if let Some(debate) = layer.get_mut("debate").and_then(Value::as_object_mut) {
        debate.remove("custom_perspectives");
    }
    resolve_script_paths(&mut layer, path.parent().unwrap_or(Path::new(".")));
    Ok((text, layer))
}

/// Script paths in a settings file are relative to that file.
fn resolve_script_paths(layer: &mut Value, base: &Path) {
    let Some(providers) = layer.get_mut("providers").and_then(Value::as_object_mut) else { return };
    for entry in providers.values_mut() {
        if let Some(script) = entry.get_mut("script")
            && let Some(relative) = script.as_str()
        {
            *script = Value::String(base.join(relative).display().to_string());
        }
    }
}

/// `.debate/perspectives.yaml`: a catalog file in the repository.
fn read_catalog_file(path: &Path) -> Result<CatalogOverlay> {
    let origin = path.display().to_string();
    let text = read_text(path)?;
    let file: CatalogFile = yaml::parse(&text, &origin).map_err(SettingsError::new)?;
    Ok(CatalogOverlay { origin, entries: file.perspectives })
}

/// Each `DEBATE_*` variable that is set, and what it sets.
fn environment_layers() -> Result<Vec<(&'static str, Value)>> {
    let mut layers = Vec::new();
    for (name, key) in ENVIRONMENT {
        let Ok(raw) = std::env::var(name) else { continue };
        let value: Value = yaml::parse::<Value>(&raw, name).unwrap_or(Value::String(raw.clone()));
        let patch = nest(key, value);
        // Read the variable on its own, so a bad value is blamed on the variable.
        serde_json::from_value::<Settings>(patch.clone()).map_err(|err| {
            SettingsError::new(format!("environment variable {name}={raw:?}: {err}"))
                .with_hint(format!("fix or unset {name}"))
        })?;
        layers.push((*name, patch));
    }
    Ok(layers)
}

/// Every key `layer` sets came from `origin`, unless a later layer sets it again.
fn note_origin(origins: &mut BTreeMap<String, String>, layer: &Value, origin: &str) {
    for (key, _) in leaves(layer) {
        origins.insert(key, origin.to_string());
    }
}

/// Each value in `value` that is not a mapping, by its dotted path (nulls left out).
pub fn leaves(value: &Value) -> Vec<(String, &Value)> {
    fn walk<'v>(value: &'v Value, prefix: &str, out: &mut Vec<(String, &'v Value)>) {
        match value {
            Value::Object(map) => {
                for (key, inner) in map {
                    let path = if prefix.is_empty() { key.clone() } else { format!("{prefix}.{key}") };
                    walk(inner, &path, out);
                }
            }
            Value::Null => {}
            _ => out.push((prefix.to_string(), value)),
        }
    }
    let mut out = Vec::new();
    walk(value, "", &mut out);
    out
}

/// A key written in a settings file is shown as set, never as it is.
/// Each provider the merged layers write, over the built-in provider of its name, key by
/// key (`openai: {model: gpt-4.1}` is OpenAI's API with another model); the names of those
/// that still name no kind, which are an error once used.
fn over_built_in(merged: &mut Value) -> std::collections::BTreeSet<String> {
    let mut kindless = std::collections::BTreeSet::new();
    let Some(providers) = merged.get_mut("providers").and_then(Value::as_object_mut) else { return kindless };
    for (name, written) in providers.iter_mut().filter(|(name, _)| *name != "default") {
        if let Some(built_in) = ProviderDef::built_in(name).and_then(|b| serde_json::to_value(b).ok()) {
            let mut under = built_in;
            merge(&mut under, std::mem::take(written));
            *written = under;
        }
        if written.get("kind").is_none_or(Value::is_null) {
            kindless.insert(name.clone());
        }
    }
    kindless
}

fn nest(key: &[&str], value: Value) -> Value {
    key.iter().rev().fold(value, |inner, part| json!({ *part: inner }))
}

/// Later wins; mappings merge key by key; a null (an empty YAML key) changes nothing.
fn merge(base: &mut Value, layer: Value) {
    match (base, layer) {
        (_, Value::Null) => {}
        (Value::Object(base), Value::Object(layer)) => {
            for (key, value) in layer {
                merge(base.entry(key).or_insert(Value::Null), value);
            }
        }
        (base, layer) => *base = layer,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Fraction, Rebuttals, Rounds, TokenBudget};

    fn parse(text: &str) -> std::result::Result<Settings, String> {
        yaml::parse(text, "s.yaml")
    }

    /// The example documents every key: it parses as it is, and with its commented
    /// heterogeneous-panel line switched on.
    #[test]
    fn the_example_settings_file_parses_with_its_models_line_on() {
        let example = include_str!("../../settings.example.yaml");
        let settings = parse(example).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(settings.debate.max_rounds, Rounds::new(5).unwrap());
        let switched_on = example
            .lines()
            .map(|line| match line.trim_start().strip_prefix("# ") {
                Some(rest) if rest.starts_with("models:") => format!("    {rest}"),
                _ => line.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n");
        let settings = parse(&switched_on).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(settings.roles.debater.models, ["openai:gpt-4o", "anthropic:claude-sonnet-4-5"]);
    }

    #[test]
    fn defaults_match_the_spec() {
        let s = Settings::default();
        assert_eq!(s.debate.max_rounds, Rounds::new(5).unwrap());
        assert_eq!(s.debate.token_budget_per_round, TokenBudget(Some(2000)));
        assert_eq!(s.debate.repetition_threshold, Fraction(0.6));
        assert_eq!(s.debate.rebuttals, Rebuttals::Parallel);
        assert_eq!(s.record.filename.0, "{date}-{slug}.md");
        assert!(s.record.commit);
        assert!(s.record.index, "the decisions index is on by default");
        assert!(s.context.repository);
        assert_eq!((s.context.budget_tokens, s.context.decisions), (ContextBudget(8_000), DecisionCount(5)));
    }

    #[test]
    fn context_limits_are_checked() {
        assert_eq!(parse("context: {budget_tokens: 0}").unwrap().context.budget_tokens, ContextBudget(0));
        for bad in ["context: {budget_tokens: -1}", "context: {budget_tokens: 100001}", "context: {decisions: 21}"] {
            let err = parse(bad).unwrap_err();
            assert!(err.contains("context."), "{bad}: {err}");
        }
        assert!(parse("context: {repository: false, decisions: 0}").is_ok());
    }

    #[test]
    fn the_example_file_parses() {
        let text = include_str!("../../settings.example.yaml");
        let s = parse(text).unwrap();
        assert_eq!(s.providers.default.as_deref(), Some("openai"));
        assert!(s.providers.named.contains_key("ollama"));
    }

    #[test]
    fn token_budget_accepts_zero_and_unlimited() {
        for text in ["debate: {token_budget_per_round: 0}", "debate: {token_budget_per_round: unlimited}"] {
            assert_eq!(parse(text).unwrap().debate.token_budget_per_round, TokenBudget(None));
        }
    }

    #[test]
    fn out_of_range_values_name_line_and_key() {
        let err = parse("debate:\n  max_rounds: 0\n").unwrap_err();
        assert!(err.starts_with("s.yaml:2:"), "{err}");
        assert!(err.contains("max_rounds"), "{err}");
        let err = parse("debate:\n  rebuttals: loud\n").unwrap_err();
        assert!(err.contains("s.yaml:2:") && err.contains("rebuttals"), "{err}");
    }

    #[test]
    fn provider_entries_keep_their_line_numbers() {
        let err = parse("providers:\n  default: x\n  x:\n    kind: openai\n    modle: y\n").unwrap_err();
        assert!(err.starts_with("s.yaml:5:"), "{err}");
        assert!(err.contains("modle"), "{err}");
    }

    #[test]
    fn filename_templates_are_checked() {
        assert!(parse("record: {filename: '../{slug}.md'}").is_err());
        assert!(parse("record: {filename: '{title}.md'}").is_err());
        assert!(parse("record: {filename: 'fixed.md'}").is_err());
        assert!(parse("record: {filename: '{number}-{slug}.md'}").is_ok());
        assert!(parse("record: {directory: '../out'}").is_err());
        for inside_git in [".git", ".git/decisions", "./.GIT/x", "/abs/docs", "docs/.git", "a/.Git/b"] {
            assert!(parse(&format!("record: {{directory: '{inside_git}'}}")).is_err(), "{inside_git}");
        }
        assert!(parse("record: {directory: 'docs/.github-decisions'}").is_ok());
    }

    #[test]
    fn later_layers_win_and_mappings_merge() {
        let mut base = json!({"debate": {"max_rounds": 3, "rebuttals": "sequential"}});
        merge(&mut base, json!({"debate": {"max_rounds": 7}}));
        assert_eq!(base, json!({"debate": {"max_rounds": 7, "rebuttals": "sequential"}}));
    }
}
