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

/// What a built provider is: its kind, and whether a model reasons behind its answers.
/// Banners and degradation notes read this, never a provider's configured name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Identity {
    pub kind: ProviderKind,
    pub reasoned: bool,
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
    Analysis,
    Argument,
    Rebuttal,
    Evaluation,
    Synthesis,
}

/// Tokens and time one call took.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub latency_ms: u64,
}

impl std::ops::Add for Usage {
    type Output = Usage;
    fn add(self, other: Usage) -> Usage {
        Usage {
            prompt_tokens: self.prompt_tokens + other.prompt_tokens,
            completion_tokens: self.completion_tokens + other.completion_tokens,
            latency_ms: self.latency_ms + other.latency_ms,
        }
    }
}

/// What one call returned: the text, the model that wrote it, and what it cost.
#[derive(Debug, Clone)]
pub struct Completion {
    pub text: String,
    pub model: String,
    pub usage: Usage,
}
