//! A provider, described once: what the settings say of it, what a debate stores of it
//! (everything but its key), and what the wire is built from — one struct, where the
//! built-in providers, whether a server is on this machine or a hosted API, and which
//! maker a model comes from are each decided in one place.

use serde::{Deserialize, Serialize, Serializer};
use strum::IntoStaticStr;

use super::{Usage, bounds};

/// The wire format (or the lack of one) behind a configured provider.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, IntoStaticStr)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum ProviderKind {
    Openai,
    Anthropic,
    #[default]
    Offline,
    Scripted,
}

impl ProviderKind {
    /// Where a provider of this kind sends its requests when its settings name no
    /// `base_url`; none for those that need no server.
    pub fn default_base_url(self) -> Option<&'static str> {
        match self {
            ProviderKind::Openai => Some("https://api.openai.com/v1"),
            ProviderKind::Anthropic => Some("https://api.anthropic.com/v1"),
            ProviderKind::Offline | ProviderKind::Scripted => None,
        }
    }

    /// The variable its key is read from when its settings name none.
    pub fn default_key_variable(self) -> &'static str {
        match self {
            ProviderKind::Anthropic => "ANTHROPIC_API_KEY",
            ProviderKind::Openai | ProviderKind::Offline | ProviderKind::Scripted => "OPENAI_API_KEY",
        }
    }

    /// A model answers over the network (not the offline or scripted provider).
    pub fn over_the_network(self) -> bool {
        matches!(self, ProviderKind::Openai | ProviderKind::Anthropic)
    }
}

/// Whether `url` names a server on this machine (`localhost`, a loopback address): a
/// model server of one's own, which needs no key and serves as many requests at once as
/// it says.
fn on_this_machine(url: &str) -> bool {
    let host = url.split("://").nth(1).unwrap_or(url).split(['/', '?']).next().unwrap_or_default();
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    let host = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => host.split(':').next().unwrap_or_default(),
    };
    host.eq_ignore_ascii_case("localhost") || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// The name of the completion-limit field an OpenAI-compatible endpoint understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenParameter {
    MaxTokens,
    MaxCompletionTokens,
}

/// What a model's tokens cost, in US dollars per million tokens, as the settings give it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    #[serde(deserialize_with = "bounds::price")]
    pub input: f64,
    #[serde(deserialize_with = "bounds::price")]
    pub output: f64,
    /// Prompt tokens served from the prefix cache; the input price when not given.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "bounds::optional_price")]
    pub cached_input: Option<f64>,
}

impl Price {
    /// Dollars for a call's tokens.
    pub fn of(&self, usage: &Usage) -> f64 {
        let cached = usage.cached_tokens.min(usage.prompt_tokens);
        let fresh = usage.prompt_tokens - cached;
        (fresh as f64 * self.input
            + cached as f64 * self.cached_input.unwrap_or(self.input)
            + usage.completion_tokens as f64 * self.output)
            / 1_000_000.0
    }
}

/// A provider: as the settings write it (over the built-in one of its name, key by key),
/// as a debate stores it so that it resumes wherever the key can be found, whatever
/// settings are loaded then (`stored`: without the key), and as the wire is built from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderDef {
    /// Offline when a settings file names none (an error once the provider is used,
    /// unless another layer or the built-in provider of its name gives one).
    #[serde(default)]
    pub kind: ProviderKind,
    #[serde(default)]
    pub base_url: Option<String>,
    /// Name of the environment variable that holds the key.
    #[serde(default)]
    pub api_key_env: Option<String>,
    /// A key written into the settings file: never stored, never printed.
    #[serde(default, skip_serializing_if = "Option::is_none", serialize_with = "hidden")]
    pub api_key: Option<String>,
    /// The key was written in a settings file: it is looked up there again. Set as the
    /// settings are read, whatever a file says of it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub key_in_settings: bool,
    #[serde(default)]
    pub model: Option<String>,
    /// For `kind: scripted`: the YAML script to answer from (relative to the settings file).
    #[serde(default)]
    pub script: Option<std::path::PathBuf>,
    /// Retries of a failed request (429, 5xx, timeouts, dropped connections); default 5.
    #[serde(default, deserialize_with = "bounds::whole::<_, _, 0, { bounds::MOST_RETRIES as u64 }>")]
    pub max_retries: Option<u32>,
    /// Requests in flight at once; default 8, or 1 for a server on this machine.
    #[serde(default, deserialize_with = "bounds::whole::<_, _, 1, { bounds::MOST_AT_ONCE as u64 }>")]
    pub max_concurrency: Option<usize>,
    /// Longest a whole call may take, in seconds; default 900.
    #[serde(default, deserialize_with = "bounds::whole::<_, _, 1, { bounds::MOST_CALL_SECONDS }>")]
    pub timeout_seconds: Option<u64>,
    /// Longest wait for an answer to begin, in seconds; default 300.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "bounds::whole::<_, _, 1, { bounds::MOST_CALL_SECONDS }>"
    )]
    pub first_token_timeout_seconds: Option<u64>,
    /// Longest silence once an answer has begun, in seconds; default 60.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "bounds::whole::<_, _, 1, { bounds::MOST_CALL_SECONDS }>"
    )]
    pub idle_timeout_seconds: Option<u64>,
    /// `max_tokens` or `max_completion_tokens` (default: the latter for api.openai.com).
    #[serde(default)]
    pub token_parameter: Option<TokenParameter>,
    /// Send `prompt_cache_key` (the debate's id) so the server keeps a debate's calls
    /// on one prefix cache (default: only to api.openai.com; other servers may refuse
    /// a field they do not know).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_cache_key: Option<bool>,
    /// Send the rules of the debate as a system message (default: yes, except to a
    /// server on this machine, where they open the user's turn: a local model's chat
    /// template may drop the system message, as Gemma's does).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_message: Option<bool>,
    /// US dollars per million tokens, by model, for the cost estimate and caps.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub prices: std::collections::BTreeMap<String, Price>,
}

/// Where a provider's model answers from. Decided here, once: whether a key is needed,
/// whether a server's own limits are learned, and whether the rules go in a system
/// message follow from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// No server: the offline and scripted providers answer in this process.
    InProcess,
    /// A model server on this machine (`localhost`, a loopback address): a server of
    /// one's own, which needs no key and serves as many requests at once as it says.
    ThisMachine,
    /// A hosted API (OpenAI's, Anthropic's, OpenRouter's), which takes no request
    /// without a key.
    Hosted,
    /// Any other server (a gateway, a team's own): a key if the settings name one.
    Elsewhere,
}

/// The providers that exist without settings: name, kind, base URL (none: the kind's),
/// the key variable that enables each, and the model it uses unless told.
const BUILT_IN: &[(&str, ProviderKind, Option<&str>, &str, &str)] = &[
    ("openai", ProviderKind::Openai, None, "OPENAI_API_KEY", "gpt-4o-mini"),
    ("anthropic", ProviderKind::Anthropic, None, "ANTHROPIC_API_KEY", "claude-sonnet-4-5"),
    (
        "openrouter",
        ProviderKind::Openai,
        Some("https://openrouter.ai/api/v1"),
        "OPENROUTER_API_KEY",
        "openai/gpt-4o-mini",
    ),
];

/// The hosts of the hosted APIs.
const HOSTED: [&str; 3] = ["api.openai.com", "api.anthropic.com", "openrouter.ai"];

impl ProviderDef {
    /// The built-in provider of that name (`openai`, `anthropic`, `openrouter`, `offline`).
    pub fn built_in(name: &str) -> Option<ProviderDef> {
        if name == "offline" {
            return Some(ProviderDef::new(ProviderKind::Offline));
        }
        BUILT_IN.iter().find(|b| b.0 == name).map(|(_, kind, base_url, key_env, model)| ProviderDef {
            base_url: base_url.or(kind.default_base_url()).map(str::to_string),
            api_key_env: Some(key_env.to_string()),
            model: Some(model.to_string()),
            ..ProviderDef::new(*kind)
        })
    }

    /// The names of the built-in providers.
    pub fn built_in_names() -> impl Iterator<Item = &'static str> {
        BUILT_IN.iter().map(|b| b.0).chain(["offline"])
    }

    /// The hosted built-in providers and the variable each one's key is read from.
    pub fn built_in_keys() -> impl Iterator<Item = (&'static str, &'static str)> {
        BUILT_IN.iter().map(|b| (b.0, b.3))
    }

    /// As a debate stores it: without the key, which is looked up again where it was.
    pub fn stored(self) -> ProviderDef {
        ProviderDef { key_in_settings: self.key_in_settings || self.api_key.is_some(), api_key: None, ..self }
    }

    /// Where its requests go: its own `base_url`, else its kind's.
    pub fn base_url(&self) -> Option<String> {
        self.base_url.clone().or_else(|| self.kind.default_base_url().map(str::to_string))
    }

    /// The variable its key is read from.
    pub fn key_variable(&self) -> String {
        self.api_key_env.clone().unwrap_or_else(|| self.kind.default_key_variable().to_string())
    }

    /// Where its model answers from.
    pub fn reach(&self) -> Reach {
        if !self.kind.over_the_network() {
            return Reach::InProcess;
        }
        let url = self.base_url().unwrap_or_default();
        match () {
            _ if on_this_machine(&url) => Reach::ThisMachine,
            _ if HOSTED.iter().any(|host| url.contains(host)) => Reach::Hosted,
            _ => Reach::Elsewhere,
        }
    }

    /// The model `role` asks this provider for: its own, else the provider's.
    pub fn model_for<'a>(&'a self, role: &'a RoleChoice) -> Option<&'a str> {
        role.model.as_deref().or(self.model.as_deref())
    }

    pub fn new(kind: ProviderKind) -> ProviderDef {
        ProviderDef {
            kind,
            base_url: None,
            api_key_env: None,
            api_key: None,
            key_in_settings: false,
            model: None,
            script: None,
            max_retries: None,
            max_concurrency: None,
            timeout_seconds: None,
            first_token_timeout_seconds: None,
            idle_timeout_seconds: None,
            token_parameter: None,
            prompt_cache_key: None,
            system_message: None,
            prices: Default::default(),
        }
    }
}

fn hidden<S: Serializer>(key: &Option<String>, serializer: S) -> Result<S::Ok, S::Error> {
    match key {
        Some(_) => serializer.serialize_str("(set; hidden)"),
        None => serializer.serialize_none(),
    }
}

/// The maker of a model, by the name models are sold under (`gpt-4.1` and `o3` →
/// openai, `anthropic/claude-sonnet-4` → anthropic, `gemma3:270m` → google); `None` when
/// the name does not say. A receipt's model family and a suite's "judged by its own
/// family" both ask this.
pub fn maker(model: &str) -> Option<&'static str> {
    const MAKERS: &[(&str, &[&str])] = &[
        ("openai", &["gpt", "o1", "o3", "o4", "chatgpt", "openai"]),
        ("anthropic", &["claude", "anthropic"]),
        ("google", &["gemini", "gemma", "google"]),
        ("meta", &["llama", "meta"]),
        ("mistral", &["mistral", "mixtral", "codestral", "ministral"]),
        ("alibaba", &["qwen", "qwq", "alibaba"]),
        ("deepseek", &["deepseek"]),
        ("microsoft", &["phi", "microsoft"]),
        ("xai", &["grok", "x-ai"]),
        ("cohere", &["command", "cohere"]),
    ];
    let lower = model.to_ascii_lowercase();
    let names: Vec<&str> = lower.split(['/', ':']).collect();
    let found = MAKERS.iter().find(|(_, prefixes)| {
        names.iter().any(|name| {
            prefixes.iter().any(|p| name.starts_with(p) && !name[p.len()..].starts_with(char::is_alphabetic))
        })
    });
    found.map(|(maker, _)| *maker)
}

/// A model's family: its maker, or, when the name does not say, the word the name starts
/// with (`my-finetune` is `my`). A family judging its own debates tends to favour its own
/// writing.
pub fn family(model: &str) -> String {
    if let Some(maker) = maker(model) {
        return maker.to_string();
    }
    let model = model.trim().to_lowercase();
    // A `provider:` prefix, unless what follows is a tag (`gemma3:270m`).
    let model = match model.split_once(':') {
        Some((_, rest)) if rest.starts_with(|c: char| c.is_ascii_alphabetic()) => rest.to_string(),
        _ => model,
    };
    let name = model.rsplit('/').next().unwrap_or_default();
    name.chars().take_while(|c| c.is_alphabetic()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_family_is_its_maker_else_the_word_its_name_starts_with() {
        for (model, family_) in [
            ("gpt-4o-mini", "openai"),
            ("openai:gpt-4.1", "openai"),
            ("o3", "openai"),
            ("ollama:gemma3:270m", "google"),
            ("gemma3:270m", "google"),
            ("openrouter:anthropic/claude-3.5-sonnet", "anthropic"),
            ("qwen3:8b", "alibaba"),
            ("meta-llama/llama-3.3-70b", "meta"),
            ("my-finetune", "my"),
            ("local:orca2", "orca"),
        ] {
            assert_eq!(family(model), family_, "{model}");
        }
        assert_eq!(family("o3"), family("gpt-4.1"), "one maker, one family");
        assert_ne!(family("claude-sonnet-4"), family("gpt-4o"));
        assert_eq!(maker("orca"), None);
    }

    #[test]
    fn where_a_provider_answers_from_is_decided_once() {
        let at = |kind, url: Option<&str>| ProviderDef { base_url: url.map(str::to_string), ..ProviderDef::new(kind) };
        assert_eq!(at(ProviderKind::Offline, None).reach(), Reach::InProcess);
        assert_eq!(at(ProviderKind::Openai, None).reach(), Reach::Hosted);
        assert_eq!(at(ProviderKind::Anthropic, None).reach(), Reach::Hosted);
        assert_eq!(at(ProviderKind::Openai, Some("https://openrouter.ai/api/v1")).reach(), Reach::Hosted);
        assert_eq!(at(ProviderKind::Openai, Some("http://127.0.0.1:8080/v1")).reach(), Reach::ThisMachine);
        assert_eq!(at(ProviderKind::Openai, Some("http://[::1]:11434/v1")).reach(), Reach::ThisMachine);
        assert_eq!(at(ProviderKind::Openai, Some("https://llm.example.com/v1")).reach(), Reach::Elsewhere);
    }

    #[test]
    fn a_stored_provider_keeps_no_key() {
        let written = ProviderDef { api_key: Some("sk-written".into()), ..ProviderDef::new(ProviderKind::Openai) };
        let stored = written.stored();
        assert!(stored.api_key.is_none() && stored.key_in_settings);
        assert!(!serde_json::to_string(&stored).unwrap().contains("sk-written"));
    }
}

/// Which configured provider and model a role uses (never a key).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoleChoice {
    /// The provider's name in settings (`openai`, `local`, `offline`, …).
    pub provider: String,
    pub kind: ProviderKind,
    pub model: Option<String>,
    pub temperature: f32,
}

/// What a built provider is: its kind, and whether a model reasons behind its answers.
/// Banners and degradation notes read this, never a provider's configured name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Identity {
    pub kind: ProviderKind,
    pub reasoned: bool,
}

/// How many requests a model server serves at once, and how that was learned (what the
/// server said of itself, or what it did when two were sent together).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AtOnce {
    pub requests: usize,
    pub learned_from: String,
}

/// What a model server says of itself.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerSays {
    /// `vLLM`, `llama.cpp`, `llama-cpp-python`, `Ollama`, `LM Studio`, `LiteLLM`.
    pub software: Option<String>,
    /// The models it lists (`None`: it lists none, or has no such route).
    pub models: Option<Vec<String>>,
}
