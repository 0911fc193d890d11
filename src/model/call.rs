//! Model calls: which provider a role uses, why a call is made, and what it returned.

use serde::{Deserialize, Serialize};
use strum::{AsRefStr, EnumString, IntoStaticStr};

/// The wire format (or the lack of one) behind a configured provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, IntoStaticStr)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum ProviderKind {
    Openai,
    Anthropic,
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
pub fn on_this_machine(url: &str) -> bool {
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
    #[serde(deserialize_with = "super::bounds::price")]
    pub input: f64,
    #[serde(deserialize_with = "super::bounds::price")]
    pub output: f64,
    /// Prompt tokens served from the prefix cache; the input price when not given.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "super::bounds::optional_price")]
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

/// A provider as a debate uses it, stored with the debate so that it resumes wherever
/// the key can be found, whatever settings are loaded then. It never holds a key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProviderDef {
    pub kind: ProviderKind,
    pub base_url: Option<String>,
    /// The environment variable that holds the key.
    pub api_key_env: Option<String>,
    /// The key was written in a settings file: it is looked up there again, never stored.
    pub key_in_settings: bool,
    pub model: Option<String>,
    /// For `kind: scripted`: the script to answer from.
    pub script: Option<std::path::PathBuf>,
    pub max_retries: Option<u32>,
    pub max_concurrency: Option<usize>,
    pub timeout_seconds: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_token_timeout_seconds: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_timeout_seconds: Option<u64>,
    pub token_parameter: Option<TokenParameter>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_cache_key: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_message: Option<bool>,
    /// Prices by model name, from the settings (none built in).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub prices: std::collections::BTreeMap<String, Price>,
}

impl ProviderDef {
    /// Where its requests go: its own `base_url`, else its kind's.
    pub fn base_url(&self) -> Option<String> {
        self.base_url.clone().or_else(|| self.kind.default_base_url().map(str::to_string))
    }

    /// The variable its key is read from.
    pub fn key_variable(&self) -> String {
        self.api_key_env.clone().unwrap_or_else(|| self.kind.default_key_variable().to_string())
    }

    /// Its server runs on this machine.
    pub fn on_this_machine(&self) -> bool {
        self.base_url().is_some_and(|url| on_this_machine(&url))
    }

    /// A hosted API, which takes no request without a key.
    pub fn hosted(&self) -> bool {
        let url = self.base_url().unwrap_or_default();
        ["api.openai.com", "api.anthropic.com", "openrouter.ai"].iter().any(|host| url.contains(host))
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

/// Which configured provider and model a role uses (never a key).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoleChoice {
    /// The provider's name in settings (`openai`, `local`, `offline`, …).
    pub provider: String,
    pub kind: ProviderKind,
    pub model: Option<String>,
    pub temperature: f32,
}

/// Why a call is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, AsRefStr, IntoStaticStr, EnumString)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum Purpose {
    /// The clarifying questions for a vague question.
    Clarification,
    Analysis,
    Argument,
    Rebuttal,
    /// A debater's stance, asked for again when its contribution did not end with one.
    Stance,
    Evaluation,
    Synthesis,
    /// An evaluator's scores of a finished record (`debate eval`); never part of a debate.
    Scoring,
    /// A few tokens asked of a server to learn what it does (`debate doctor`, how many
    /// requests it serves at once); never part of a debate.
    Probe,
}

/// Tokens and time one call took.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    pub prompt_tokens: u64,
    /// The part of `prompt_tokens` the provider served from its prefix cache.
    #[serde(default)]
    pub cached_tokens: u64,
    pub completion_tokens: u64,
    pub latency_ms: u64,
    /// Tries that failed before the answer came (a dropped stream, an overloaded server,
    /// an empty answer) and were made again: the call was sent `1 + retries` times.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub retries: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Usage {
    /// The most any one figure of a call may be: a billion tokens, or a billion
    /// milliseconds (eleven days). Far past any real call, and far enough under what
    /// SQLite's integers hold that its sums over every stored call never overflow.
    pub const LIMIT: u64 = 1_000_000_000;

    /// Each figure at most `LIMIT`: what the store keeps of a call.
    pub fn bounded(self) -> Usage {
        Usage {
            prompt_tokens: self.prompt_tokens.min(Self::LIMIT),
            cached_tokens: self.cached_tokens.min(Self::LIMIT),
            completion_tokens: self.completion_tokens.min(Self::LIMIT),
            latency_ms: self.latency_ms.min(Self::LIMIT),
            retries: self.retries.min(Self::LIMIT),
        }
    }

    /// Whether every figure is one a call can have.
    pub fn within_limit(&self) -> bool {
        *self == self.bounded()
    }
}

/// Saturating: totals of figures read from outside never wrap.
impl std::ops::Add for Usage {
    type Output = Usage;
    fn add(self, other: Usage) -> Usage {
        Usage {
            prompt_tokens: self.prompt_tokens.saturating_add(other.prompt_tokens),
            cached_tokens: self.cached_tokens.saturating_add(other.cached_tokens),
            completion_tokens: self.completion_tokens.saturating_add(other.completion_tokens),
            latency_ms: self.latency_ms.saturating_add(other.latency_ms),
            retries: self.retries.saturating_add(other.retries),
        }
    }
}

/// What one call returned: the text, the model that wrote it, and what it cost.
#[derive(Debug, Clone, Default)]
pub struct Completion {
    pub text: String,
    pub model: String,
    pub usage: Usage,
    /// The answer stopped at the completion limit (`finish_reason: length`,
    /// `stop_reason: max_tokens`): it is not whole.
    pub truncated: bool,
    /// How a structured answer was asked for, where the server chose among ways
    /// (`json_schema`, `json_object`, `instructions`).
    pub format: Option<String>,
    /// The answer began to repeat itself and was stopped there: `text` is what came
    /// before the loop.
    pub looped: bool,
    /// How `usage` was come by.
    pub reckoning: Reckoning,
}

/// A request about to be sent, as the ledger writes it down.
#[derive(Debug, Clone)]
pub struct Sending<'a> {
    /// `None`: no debate's (`debate doctor`'s checks).
    pub debate_id: Option<&'a str>,
    pub provider: &'a str,
    pub model: &'a str,
    pub purpose: &'a str,
    /// Its worst case: the prompt's estimate and the completion limit.
    pub worst: Usage,
    pub worst_usd: Option<f64>,
}

/// How a request's token figures were come by, as the ledger keeps them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, AsRefStr)]
#[strum(serialize_all = "lowercase")]
pub enum Reckoning {
    /// As the server reported them.
    Server,
    /// Estimated from the text: the server gave none.
    #[default]
    Estimated,
    /// The server reported more than the request could take: bounded by its limits.
    Bounded,
    /// Stopped before the server's count came: counted at the request's worst case.
    Limit,
    /// No answer came: nothing is known to have been generated.
    Failed,
}
