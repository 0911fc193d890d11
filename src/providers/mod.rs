//! Providers: one trait, one file per wire format; retries and streaming shared.
//! The engine only sees [`Provider`].

mod anthropic;
mod http;
mod offline;
mod openai;
mod scripted;
mod sse;

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;

use crate::catalog::PerspectiveDef;
use crate::engine::state::{RoleChoice, Usage};
use crate::error::{Error, Result};
use crate::settings::{ProviderConfig, ProviderKind, Settings};

pub use offline::OFFLINE_LABEL;
pub use openai::TokenParameter;

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

/// The JSON shape a structured answer must have.
#[derive(Debug, Clone)]
pub struct Schema {
    pub name: &'static str,
    pub value: serde_json::Value,
}

/// Where a streaming provider sends text as it arrives.
#[derive(Clone)]
pub struct TextSink(Arc<dyn Fn(&str) + Send + Sync>);

impl TextSink {
    pub fn new(send: impl Fn(&str) + Send + Sync + 'static) -> TextSink {
        TextSink(Arc::new(send))
    }
    pub fn send(&self, text: &str) {
        (self.0)(text)
    }
}

impl std::fmt::Debug for TextSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TextSink")
    }
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
    /// The answer must be one JSON object of this shape.
    pub schema: Option<Schema>,
    /// Stream the answer's text here as it arrives (on a terminal only).
    pub on_text: Option<TextSink>,
    pub brief: Brief,
}

#[derive(Debug, Clone)]
pub struct Completion {
    pub text: String,
    pub model: String,
    pub usage: Usage,
}

/// A completion with the server's token counts, or estimates where it gave none.
pub fn completion(
    request: &Request,
    text: String,
    prompt: Option<u64>,
    output: Option<u64>,
    model: &str,
) -> Completion {
    let prompt_tokens = prompt.unwrap_or_else(|| estimate_tokens(&request.system) + estimate_tokens(&request.prompt));
    let completion_tokens = output.unwrap_or_else(|| estimate_tokens(&text));
    Completion { model: model.to_string(), usage: Usage { prompt_tokens, completion_tokens, latency_ms: 0 }, text }
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

/// Providers that exist without settings, and the key variable that enables each.
const BUILT_IN: &[(&str, ProviderKind, &str, &str, &str)] = &[
    ("openai", ProviderKind::Openai, "https://api.openai.com/v1", "OPENAI_API_KEY", "gpt-4o-mini"),
    ("anthropic", ProviderKind::Anthropic, "https://api.anthropic.com/v1", "ANTHROPIC_API_KEY", "claude-sonnet-4-5"),
    ("openrouter", ProviderKind::Openai, "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY", "openai/gpt-4o-mini"),
];

/// A provider by name: from settings, else built in.
fn config_for(settings: &Settings, name: &str) -> Option<ProviderConfig> {
    if let Some(config) = settings.providers.named.get(name) {
        return Some(config.clone());
    }
    let (_, kind, base_url, key_env, model) = BUILT_IN.iter().find(|b| b.0 == name)?;
    Some(ProviderConfig {
        kind: *kind,
        base_url: Some(base_url.to_string()),
        api_key_env: Some(key_env.to_string()),
        model: Some(model.to_string()),
        ..ProviderConfig::new(*kind)
    })
}

/// Which provider each role uses: `--offline`; else the role's provider; else the
/// default provider; else the first of `OPENAI_API_KEY`, `ANTHROPIC_API_KEY`,
/// `OPENROUTER_API_KEY` that is set.
pub fn choose(settings: &Settings, offline: bool) -> Result<(RoleChoice, RoleChoice)> {
    let detected =
        || BUILT_IN.iter().find(|b| std::env::var(b.3).is_ok_and(|v| !v.trim().is_empty())).map(|b| b.0.to_string());
    let role = |role: &crate::settings::RoleSettings, default_temperature: f32| -> Result<RoleChoice> {
        let provider = if offline {
            "offline".to_string()
        } else {
            role.provider
                .clone()
                .or_else(|| settings.providers.default.clone())
                .or_else(detected)
                .ok_or_else(no_provider)?
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
    Error::config("no LLM provider is configured").with_hint(
        "set OPENAI_API_KEY, ANTHROPIC_API_KEY or OPENROUTER_API_KEY; or configure `providers:` in .debate/settings.yaml \
         or ~/.config/debate/settings.yaml (see settings.example.yaml); or run with --offline (no key, not model-reasoned)",
    )
}

/// Build both roles' providers; roles that name the same provider and model share one
/// instance, so its in-flight cap and what it learned about the server apply to both.
pub fn build_panel(moderator: &RoleChoice, debater: &RoleChoice, settings: &Settings) -> Result<Panel> {
    let moderator_provider = build(moderator, settings)?;
    let same = moderator.provider == debater.provider && moderator.model == debater.model;
    let debater_provider = if same { moderator_provider.clone() } else { build(debater, settings)? };
    Ok(Panel { moderator: moderator_provider, debater: debater_provider })
}

/// Build the provider a role uses.
pub fn build(choice: &RoleChoice, settings: &Settings) -> Result<Arc<dyn Provider>> {
    if choice.provider == "offline" && !settings.providers.named.contains_key("offline") {
        return Ok(Arc::new(offline::Offline));
    }
    let config = config_for(settings, &choice.provider).ok_or_else(|| {
        let mut known: Vec<&str> = settings.providers.named.keys().map(String::as_str).collect();
        known.extend(BUILT_IN.iter().map(|b| b.0));
        known.push("offline");
        Error::config(format!("provider {:?} is not configured (known: {})", choice.provider, known.join(", ")))
            .with_hint("add it under `providers:` in your settings, or pick another with --provider")
    })?;
    let model = choice.model.clone().or(config.model.clone());
    match config.kind {
        ProviderKind::Offline => Ok(Arc::new(offline::Offline)),
        ProviderKind::Scripted => {
            let path = config.script.as_ref().ok_or_else(|| {
                Error::config(format!(
                    "provider {:?} (kind scripted) needs `script: <path to a YAML script>`",
                    choice.provider
                ))
            })?;
            Ok(Arc::new(scripted::Scripted::load(path, model)?))
        }
        ProviderKind::Openai => {
            Ok(Arc::new(openai::OpenAi::new(endpoint(&choice.provider, &config, model)?, config.token_parameter)))
        }
        ProviderKind::Anthropic => Ok(Arc::new(anthropic::Anthropic::new(endpoint(&choice.provider, &config, model)?))),
    }
}

fn endpoint(name: &str, config: &ProviderConfig, model: Option<String>) -> Result<http::Endpoint> {
    let (default_url, default_env) = match config.kind {
        ProviderKind::Anthropic => ("https://api.anthropic.com/v1", "ANTHROPIC_API_KEY"),
        _ => ("https://api.openai.com/v1", "OPENAI_API_KEY"),
    };
    let base_url = config.base_url.clone().unwrap_or_else(|| default_url.to_string());
    let model = model.ok_or_else(|| {
        Error::config(format!("provider {name:?} has no model"))
            .with_hint(format!("set providers.{name}.model, or pass --model"))
    })?;
    // The key: written in settings, else from its variable. Local servers need none.
    let key_env = config.api_key_env.clone().unwrap_or_else(|| default_env.to_string());
    let (key, key_source) = match &config.api_key {
        Some(key) => (Some(key.clone()), format!("providers.{name}.api_key in your settings")),
        None => (std::env::var(&key_env).ok().filter(|k| !k.trim().is_empty()), key_env.clone()),
    };
    let hosted = base_url.contains("api.openai.com")
        || base_url.contains("api.anthropic.com")
        || base_url.contains("openrouter.ai");
    if key.is_none() && hosted {
        return Err(Error::config(format!("provider {name:?} needs an API key, and {key_env} is not set"))
            .with_hint(format!("export {key_env}=…, set providers.{name}.api_key_env, or run with --offline")));
    }
    let limits = http::Limits {
        timeout: Duration::from_secs(config.timeout_seconds.unwrap_or(120).max(1)),
        max_concurrency: config.max_concurrency.unwrap_or(8).max(1),
    };
    let client = http::client(&base_url, &limits)?;
    Ok(http::Endpoint {
        name: name.to_string(),
        base_url,
        key,
        key_source,
        model,
        max_retries: config.max_retries.unwrap_or(5),
        client,
        in_flight: Arc::new(tokio::sync::Semaphore::new(limits.max_concurrency)),
    })
}

/// A rough token count for providers that do not report one: four bytes a token.
pub fn estimate_tokens(text: &str) -> u64 {
    (text.len() as u64).div_ceil(4)
}
