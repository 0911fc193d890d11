//! Providers: one trait, one file per kind. The engine only sees [`Provider`].

mod offline;
mod scripted;

use std::sync::Arc;

use async_trait::async_trait;

use crate::catalog::PerspectiveDef;
use crate::engine::state::{RoleChoice, Usage};
use crate::error::{Error, Result};
use crate::settings::{ProviderKind, Settings};

pub use offline::OFFLINE_LABEL;

/// Why a call is made; the scripted provider matches on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Purpose {
    Analysis,
    Argument,
    Rebuttal,
    Evaluation,
    Synthesis,
}

/// Structured facts behind a prompt, for providers that compose answers without a
/// model (offline). Model providers read only the prompt text.
#[derive(Debug, Clone)]
pub enum Brief {
    None,
    Debater {
        perspective: PerspectiveDef,
        seat: usize,
        question: String,
        options: Vec<String>,
        others: Vec<PerspectiveDef>,
    },
    Evaluation {
        arguments: Vec<(String, String)>,
        novelty: f64,
        stagnating: bool,
    },
    Synthesis {
        panel: Vec<PerspectiveDef>,
        options: Vec<String>,
    },
}

#[derive(Debug, Clone)]
pub struct Request {
    pub purpose: Purpose,
    pub round: u32,
    pub perspective: Option<String>,
    pub system: String,
    pub prompt: String,
    /// The completion limit (the debater's token budget); `None` is unlimited.
    pub max_tokens: Option<u32>,
    pub temperature: f32,
    /// The answer must be one JSON object.
    pub json: bool,
    pub brief: Brief,
}

#[derive(Debug, Clone)]
pub struct Completion {
    pub text: String,
    pub model: String,
    pub usage: Usage,
}

#[async_trait]
pub trait Provider: Send + Sync {
    /// Whether a model reasons behind the answers (false for offline).
    fn reasoned(&self) -> bool {
        true
    }
    async fn complete(&self, request: &Request) -> Result<Completion>;
}

/// The providers a debate uses, by role.
#[derive(Clone)]
pub struct Panel {
    pub moderator: Arc<dyn Provider>,
    pub debater: Arc<dyn Provider>,
}

/// Which provider each role uses: `--offline`, else the role's provider, else the
/// default provider.
pub fn choose(settings: &Settings, offline: bool) -> Result<(RoleChoice, RoleChoice)> {
    let role = |role: &crate::settings::RoleSettings, default_temperature: f32| -> Result<RoleChoice> {
        let provider = if offline {
            "offline".to_string()
        } else {
            role.provider.clone().or_else(|| settings.providers.default.clone()).ok_or_else(no_provider)?
        };
        Ok(RoleChoice {
            provider,
            model: role.model.clone(),
            temperature: role.temperature.unwrap_or(default_temperature),
        })
    };
    Ok((role(&settings.roles.moderator, 0.2)?, role(&settings.roles.debater, 0.8)?))
}

fn no_provider() -> Error {
    Error::config("no LLM provider is configured")
        .with_hint("run with --offline (no key needed), or set providers.default in .debate/settings.yaml or ~/.config/debate/settings.yaml (see settings.example.yaml)")
}

/// Build the provider a role uses.
pub fn build(choice: &RoleChoice, settings: &Settings) -> Result<Arc<dyn Provider>> {
    if choice.provider == "offline" && !settings.providers.named.contains_key("offline") {
        return Ok(Arc::new(offline::Offline));
    }
    let config = settings.providers.named.get(&choice.provider).ok_or_else(|| {
        let mut known: Vec<&str> = settings.providers.named.keys().map(String::as_str).collect();
        known.push("offline");
        Error::config(format!("provider {:?} is not configured (known: {})", choice.provider, known.join(", ")))
            .with_hint("add it under `providers:` in your settings, or pick another with --provider")
    })?;
    match config.kind {
        ProviderKind::Offline => Ok(Arc::new(offline::Offline)),
        ProviderKind::Scripted => {
            let path = config.script.as_ref().ok_or_else(|| {
                Error::config(format!(
                    "provider {:?} (kind scripted) needs `script: <path to a YAML script>`",
                    choice.provider
                ))
            })?;
            Ok(Arc::new(scripted::Scripted::load(path, choice.model.clone().or(config.model.clone()))?))
        }
        ProviderKind::Openai | ProviderKind::Anthropic => Err(Error::config(format!(
            "provider {:?}: network providers are not available in this build yet",
            choice.provider
        ))
        .with_hint("run with --offline, or configure a scripted provider")),
    }
}

/// A rough token count for providers that do not report one: four bytes a token.
pub fn estimate_tokens(text: &str) -> u64 {
    (text.len() as u64).div_ceil(4)
}
