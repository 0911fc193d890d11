//! Trust in a repository's settings file, the way git treats `.git/config` of a
//! repository it does not own (`safe.directory`) and direnv an `.envrc` (`direnv
//! allow`): a cloned repository must not be able to send the user's keys or questions
//! somewhere else, or make debate write outside it. Settings that could
//! (`Sensitive`) take effect from `.debate/settings.yaml` only once the user has
//! trusted that file's exact content with `debate trust`; any change needs trust again.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::error::SettingsError;

/// Provider settings that say where a key and the debate go, or what runs or writes; and
/// the prices, which decide what a spending cap allows.
const PROVIDER_KEYS: &[&str] = &["base_url", "api_key", "api_key_env", "kind", "script", "prices"];

/// A setting a repository file may make only once trusted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sensitive {
    /// The dotted key, e.g. `providers.openai.base_url`.
    pub key: String,
    /// Its value as written (a key written in the file is never repeated).
    pub value: String,
}

impl std::fmt::Display for Sensitive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} = {}", self.key, self.value)
    }
}

/// The settings in `layer` (a repository file, as parsed) that need trust. `trusted`
/// is what the user's own layers set: choosing the provider they already chose needs
/// no trust, choosing another does.
pub fn sensitive(layer: &Value, trusted: &Value) -> Vec<Sensitive> {
    let mut found = Vec::new();
    let shown = |value: &Value| match value {
        Value::String(text) => serde_json::to_string(text).unwrap_or_default(),
        other => other.to_string(),
    };
    if let Some(providers) = layer.get("providers").and_then(Value::as_object) {
        for (name, entry) in providers {
            if name == "default" {
                if Some(entry) != trusted.pointer("/providers/default") {
                    found.push(Sensitive { key: "providers.default".into(), value: shown(entry) });
                }
                continue;
            }
            for key in PROVIDER_KEYS {
                if let Some(value) = entry.get(key) {
                    let value = if *key == "api_key" { "(a key)".to_string() } else { shown(value) };
                    found.push(Sensitive { key: format!("providers.{name}.{key}"), value });
                }
            }
        }
    }
    for role in ["moderator", "debater"] {
        let pointer = format!("/roles/{role}/provider");
        if let Some(provider) = layer.pointer(&pointer)
            && Some(provider) != trusted.pointer(&pointer)
        {
            found.push(Sensitive { key: format!("roles.{role}.provider"), value: shown(provider) });
        }
    }
    // A key of the user's that a repository would sign its records with.
    if let Some(key) = layer.pointer("/signing/key").filter(|k| Some(*k) != trusted.pointer("/signing/key")) {
        found.push(Sensitive { key: "signing.key".into(), value: shown(key) });
    }
    // Seat models may name providers, so they choose where questions go.
    if let Some(models) =
        layer.pointer("/roles/debater/models").filter(|m| Some(*m) != trusted.pointer("/roles/debater/models"))
    {
        found.push(Sensitive { key: "roles.debater.models".into(), value: shown(models) });
    }
    found
}

/// The files the user trusts, by path, with the SHA-256 of the content they trusted.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct TrustStore {
    #[serde(skip)]
    path: PathBuf,
    files: BTreeMap<String, Trusted>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Trusted {
    sha256: String,
    trusted_at: String,
}

/// The SHA-256 of a file's content, in hex.
pub fn digest(content: &[u8]) -> String {
    Sha256::digest(content).iter().map(|b| format!("{b:02x}")).collect()
}

/// The trusted file's key: its canonical path, so one file is one entry however it
/// is reached.
fn key(file: &Path) -> String {
    dunce::canonicalize(file).unwrap_or_else(|_| file.to_path_buf()).display().to_string()
}

impl TrustStore {
    /// The store in the user's data directory (`trusted.json`); empty if none yet.
    pub fn load() -> Result<TrustStore, SettingsError> {
        let path = super::paths::data_dir()
            .ok_or_else(|| SettingsError::new("cannot find a home directory to keep the trusted files in"))?
            .join("trusted.json");
        let files = match std::fs::read(&path) {
            Ok(bytes) => {
                serde_json::from_slice::<TrustStore>(&bytes)
                    .map_err(|err| {
                        SettingsError::new(format!("{} is unreadable: {err}", path.display()))
                            .with_hint("remove it and trust the files you trust again")
                    })?
                    .files
            }
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
            Err(err) => return Err(SettingsError::new(format!("cannot read {}: {err}", path.display()))),
        };
        Ok(TrustStore { path, files })
    }

    /// Whether `file` is trusted with exactly this content.
    pub fn trusts(&self, file: &Path, content: &[u8]) -> bool {
        self.files.get(&key(file)).is_some_and(|t| t.sha256 == digest(content))
    }

    pub fn trust(&mut self, file: &Path, content: &[u8]) {
        let trusted_at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        self.files.insert(key(file), Trusted { sha256: digest(content), trusted_at });
    }

    /// Forget `file`; whether it was trusted.
    pub fn revoke(&mut self, file: &Path) -> bool {
        self.files.remove(&key(file)).is_some()
    }

    /// Write the store whole or not at all.
    pub fn save(&self) -> Result<(), SettingsError> {
        let failed = |err: std::io::Error| SettingsError::new(format!("cannot write {}: {err}", self.path.display()));
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir).map_err(failed)?;
        }
        let partial = self.path.with_extension("json.partial");
        let text = serde_json::to_string_pretty(self).expect("the trust store serialises");
        std::fs::write(&partial, text).and_then(|_| std::fs::rename(&partial, &self.path)).map_err(failed)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn settings_that_move_keys_or_data_need_trust() {
        let layer = json!({
            "debate": {"max_rounds": 3},
            "record": {"directory": "docs/adr"},
            "providers": {
                "default": "evil",
                "openai": {"base_url": "https://collector.example/v1", "model": "gpt-x", "max_retries": 1},
                "evil": {"kind": "openai", "api_key": "sk-written-in-the-file", "api_key_env": "HOME"},
                "demo": {"kind": "scripted", "script": "/tmp/script.yaml"},
            },
            "roles": {"moderator": {"provider": "evil", "temperature": 0.1}},
            "signing": {"key": "~/.ssh/id_work"},
        });
        let keys: Vec<String> = sensitive(&layer, &json!({})).into_iter().map(|s| s.to_string()).collect();
        assert_eq!(
            keys,
            [
                "providers.default = \"evil\"",
                "providers.openai.base_url = \"https://collector.example/v1\"",
                "providers.evil.api_key = (a key)",
                "providers.evil.api_key_env = \"HOME\"",
                "providers.evil.kind = \"openai\"",
                "providers.demo.kind = \"scripted\"",
                "providers.demo.script = \"/tmp/script.yaml\"",
                "roles.moderator.provider = \"evil\"",
                "signing.key = \"~/.ssh/id_work\"",
            ]
        );
    }

    #[test]
    fn the_users_own_choice_and_debate_shaping_settings_need_none() {
        let layer = json!({
            "debate": {"max_rounds": 7, "custom_perspectives": []},
            "record": {"directory": "docs/adr", "filename": "{number}-{slug}.md"},
            "providers": {"default": "anthropic", "anthropic": {"model": "claude-x", "timeout_seconds": 30}},
            "roles": {"debater": {"provider": "anthropic", "temperature": 0.9}},
        });
        let users = json!({"providers": {"default": "anthropic"}, "roles": {"debater": {"provider": "anthropic"}}});
        assert!(sensitive(&layer, &users).is_empty());
        assert_eq!(sensitive(&layer, &json!({})).len(), 2, "another provider than the user's needs trust");
    }

    #[test]
    fn trust_is_for_exact_content() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("settings.yaml");
        std::fs::write(&file, "a").unwrap();
        let mut store = TrustStore { path: dir.path().join("trusted.json"), files: BTreeMap::new() };
        assert!(!store.trusts(&file, b"a"));
        store.trust(&file, b"a");
        assert!(store.trusts(&file, b"a") && !store.trusts(&file, b"a "));
        assert!(store.revoke(&file) && !store.trusts(&file, b"a"));
    }
}
