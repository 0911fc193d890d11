//! Providers: one trait, one file per wire format; retries and streaming shared.
//! The engine only sees [`Provider`].

pub mod activity;
mod anthropic;
pub mod budget;
mod contract;
mod http;
mod offline;
mod openai;
pub mod probe;
mod remote;
mod scripted;
mod sse;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use crate::model::{ProviderDef, ProviderKind, Reach, RoleChoice, bounds};
use crate::settings::Settings;
use crate::text::secrets::{self, Masker};

pub use budget::Budget;
pub use contract::{
    Brief, Counted, Cut, Provider, ProviderError, Request, Result, RetryNotes, Schema, StopAt, StreamedText, TextSink,
};
pub use offline::OFFLINE_LABEL;
use remote::Remote;
pub use scripted::SCRIPTED_LABEL;

/// How a provider that no model stands behind is named wherever its words appear.
pub fn label(kind: ProviderKind) -> Option<&'static str> {
    match kind {
        ProviderKind::Offline => Some(OFFLINE_LABEL),
        ProviderKind::Scripted => Some(SCRIPTED_LABEL),
        ProviderKind::Openai | ProviderKind::Anthropic => None,
    }
}

/// The providers a debate uses, by role.
#[derive(Clone)]
pub struct Panel {
    pub moderator: Arc<dyn Provider>,
    /// The debaters' providers, handed out to the seats in turn (one for all seats
    /// unless the panel is heterogeneous).
    pub debaters: Vec<Arc<dyn Provider>>,
    /// What every call of the run shares.
    pub shared: Shared,
}

/// What every call of a run shares, whichever provider answers it.
#[derive(Clone, Default)]
pub struct Shared {
    /// Every key this run knows, masked in every answer before it is stored or shown.
    pub secrets: Arc<Masker>,
    /// A structured answer of this run could not be read (see `engine::calls::ask_structured`).
    pub strict: Arc<AtomicBool>,
    /// Every retry of this run's calls, for whoever runs it to tell.
    pub retries: RetryNotes,
    /// What the run may still spend (none: no cap).
    pub budget: Budget,
}

impl Panel {
    /// Who argues at `seat`.
    pub fn debater(&self, seat: usize) -> &Arc<dyn Provider> {
        &self.debaters[seat % self.debaters.len()]
    }

    /// Whether a model stands behind every debater.
    pub fn debaters_reasoned(&self) -> bool {
        self.debaters.iter().all(|d| d.identity().reasoned)
    }
}

/// Every provider name a role may take: the built-in ones and those the settings add.
pub fn names(settings: &Settings) -> Vec<String> {
    let built_in = ProviderDef::built_in_names().map(str::to_string);
    let mut names: Vec<String> = built_in.chain(settings.providers.named.keys().cloned()).collect();
    names.sort();
    names.dedup();
    names
}

/// A provider by name, as a debate stores it (without its key): as the settings have
/// it (over the built-in one of that name), else the built-in one.
fn definition_for(settings: &Settings, name: &str) -> Result<ProviderDef> {
    if settings.providers.kindless.contains(name) {
        return Err(ProviderError::setup(
            format!("provider {name:?} has no kind"),
            format!("set providers.{name}.kind to openai, anthropic, offline or scripted"),
        ));
    }
    match settings.providers.named.get(name).cloned().or_else(|| ProviderDef::built_in(name)) {
        Some(provider) => Ok(provider.stored()),
        None => {
            let mut known: Vec<String> = settings.providers.named.keys().cloned().collect();
            known.extend(ProviderDef::built_in_names().map(str::to_string));
            Err(ProviderError::setup(
                format!("provider {name:?} is not configured (known: {})", known.join(", ")),
                "add it under `providers:` in your settings, or pick another with --provider",
            ))
        }
    }
}

/// The roles of a debate: the moderator, the debater, and the seat models of a
/// heterogeneous panel (empty when every seat is the debater).
pub struct Roles {
    pub moderator: RoleChoice,
    pub debater: RoleChoice,
    pub seat_models: Vec<RoleChoice>,
}

impl Roles {
    /// Every role, for the provider definitions a debate stores.
    pub fn all(&self) -> Vec<&RoleChoice> {
        [&self.moderator, &self.debater].into_iter().chain(&self.seat_models).collect()
    }
}

/// Which provider each role uses: `--offline`; else the role's provider; else the
/// default provider; else the first of `OPENAI_API_KEY`, `ANTHROPIC_API_KEY`,
/// `OPENROUTER_API_KEY` that is set. `roles.debater.models` (or `--models`) seats
/// those models in turn, each `provider:model` or a model of the debater's provider.
pub fn choose_roles(settings: &Settings, offline: bool) -> Result<Roles> {
    let (moderator, debater) = choose(settings, offline)?;
    if !settings.roles.moderator.models.is_empty() {
        return Err(ProviderError::setup(
            "roles.moderator.models is not a setting: one model moderates",
            "set roles.debater.models for the debaters, and roles.moderator.model for the moderator",
        ));
    }
    let seat_models = match offline {
        true => Vec::new(),
        false => settings
            .roles
            .debater
            .models
            .iter()
            .map(|entry| seat_model(settings, &debater, entry, "roles.debater.models"))
            .collect::<Result<_>>()?,
    };
    Ok(Roles { moderator, debater, seat_models })
}

/// The evaluators `debate eval --evaluators` names: each `provider:model` or a model of
/// `moderator`'s provider, judging at the moderator's temperature.
pub fn evaluator_roles(settings: &Settings, moderator: &RoleChoice, entries: &[String]) -> Result<Vec<RoleChoice>> {
    entries.iter().map(|entry| seat_model(settings, moderator, entry, "--evaluators")).collect()
}

/// `provider:model`, or a model of `role`'s provider (a model may hold a colon, as
/// `llama3.1:8b` does: only a configured provider's name before it counts), as a list
/// named `listed` gives it.
fn seat_model(settings: &Settings, role: &RoleChoice, entry: &str, listed: &str) -> Result<RoleChoice> {
    let entry = entry.trim();
    if entry.is_empty() {
        return Err(ProviderError::setup(
            format!("an empty entry in {listed}"),
            "write provider:model or a model name",
        ));
    }
    let named = entry.split_once(':').filter(|(provider, _)| definition_for(settings, provider).is_ok());
    let (provider, model) = match named {
        Some((provider, model)) => (provider.to_string(), model.trim()),
        None => (role.provider.clone(), entry),
    };
    Ok(RoleChoice {
        kind: definition_for(settings, &provider)?.kind,
        provider,
        model: (!model.is_empty()).then(|| model.to_string()),
        temperature: role.temperature,
    })
}

fn choose(settings: &Settings, offline: bool) -> Result<(RoleChoice, RoleChoice)> {
    let detected = || {
        ProviderDef::built_in_keys()
            .find(|(_, key)| std::env::var(key).is_ok_and(|v| !v.trim().is_empty()))
            .map(|(name, _)| name.to_string())
    };
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
            kind: definition_for(settings, &provider)?.kind,
            provider,
            model: role.model.clone(),
            temperature: role.temperature.unwrap_or(default_temperature),
        })
    };
    Ok((role(&settings.roles.moderator, 0.2)?, role(&settings.roles.debater, 0.8)?))
}

/// The same role on another configured provider (`--provider` or `--offline` when a
/// debate resumes).
pub fn switch(choice: &RoleChoice, settings: &Settings, provider: &str) -> Result<RoleChoice> {
    let kind = definition_for(settings, provider)?.kind;
    Ok(RoleChoice { provider: provider.to_string(), kind, ..choice.clone() })
}

fn no_provider() -> ProviderError {
    ProviderError::setup(
        "no LLM provider is configured",
        "set OPENAI_API_KEY, ANTHROPIC_API_KEY or OPENROUTER_API_KEY; or configure `providers:` in .debate/settings.yaml \
         or ~/.config/debate/settings.yaml (see settings.example.yaml); or run with --offline (no key, not model-reasoned)",
    )
}

/// The providers the roles name, as the debate stores them.
pub fn definitions(settings: &Settings, roles: &[&RoleChoice]) -> Result<BTreeMap<String, ProviderDef>> {
    roles.iter().map(|role| Ok((role.provider.clone(), definition_for(settings, &role.provider)?))).collect()
}

/// Build the roles' providers from their stored definitions; roles that name the same
/// provider and model share one instance, so its in-flight cap and what it learned about
/// the server apply to all of them. `settings` holds any key written in a file.
pub fn build_panel<'a>(
    moderator: &'a RoleChoice,
    debaters: &'a [RoleChoice],
    definitions: &BTreeMap<String, ProviderDef>,
    settings: &Settings,
) -> Result<Panel> {
    let mut built: Vec<(&RoleChoice, Arc<dyn Provider>)> = Vec::new();
    let mut provider_for = |role: &'a RoleChoice| -> Result<Arc<dyn Provider>> {
        if let Some((_, same)) = built.iter().find(|(r, _)| r.provider == role.provider && r.model == role.model) {
            return Ok(same.clone());
        }
        let definition = definitions.get(&role.provider).ok_or_else(|| {
            ProviderError::setup(
                format!("provider {:?} has no stored definition", role.provider),
                "resume with --provider NAME to pick a configured one",
            )
        })?;
        let key = key_for(&role.provider, definition, settings)?;
        let provider = build(&role.provider, definition, role.model.clone(), key)?;
        built.push((role, provider.clone()));
        Ok(provider)
    };
    let moderator_provider = provider_for(moderator)?;
    let debaters = debaters.iter().map(&mut provider_for).collect::<Result<Vec<_>>>()?;
    let mut keys = configured_keys(settings);
    keys.extend(definitions.iter().filter_map(|(name, def)| key_for(name, def, settings).ok()?.value));
    secrets::guard(keys);
    Ok(Panel {
        moderator: moderator_provider,
        debaters,
        shared: Shared { secrets: secrets::keys(), ..Shared::default() },
    })
}

/// Every API key the settings and the environment hold: each configured provider's
/// (written in settings, or in its variable) and the well-known variables'.
pub fn configured_keys(settings: &Settings) -> Vec<String> {
    let from_env = |name: &str| std::env::var(name).ok();
    let configured = settings.providers.named.iter().flat_map(|(name, config)| {
        let variable = definition_for(settings, name).map(|d| d.key_variable()).ok();
        [config.api_key.clone(), variable.as_deref().and_then(from_env)]
    });
    configured.flatten().chain(environment_keys()).collect()
}

/// The keys in the well-known variables (`OPENAI_API_KEY`, …), whatever the settings say.
pub fn environment_keys() -> Vec<String> {
    ProviderDef::built_in_keys().filter_map(|(_, key)| std::env::var(key).ok()).collect()
}

/// A provider's key and where it came from (for messages); local servers need none.
pub struct Key {
    pub value: Option<String>,
    pub source: String,
}

/// The key of a stored provider: from the settings file it was written in (loaded
/// again now), else from its variable.
fn key_for(name: &str, definition: &ProviderDef, settings: &Settings) -> Result<Key> {
    if definition.key_in_settings {
        let written = settings.providers.named.get(name).and_then(|config| config.api_key.clone());
        return match written {
            Some(value) => Ok(Key { value: Some(value), source: format!("providers.{name}.api_key in your settings") }),
            None => Err(ProviderError::setup(
                format!("the key of provider {name:?} was written in a settings file that is not loaded now"),
                "pass the same --config, or keep the key in an environment variable (api_key_env)",
            )),
        };
    }
    let variable = definition.key_variable();
    Ok(Key { value: std::env::var(&variable).ok().filter(|k| !k.trim().is_empty()), source: variable })
}

/// Build a provider from its definition. `model` overrides the definition's.
pub fn build(name: &str, definition: &ProviderDef, model: Option<String>, key: Key) -> Result<Arc<dyn Provider>> {
    let model = model.or(definition.model.clone());
    match definition.kind {
        ProviderKind::Offline => Ok(Arc::new(offline::Offline)),
        ProviderKind::Scripted => {
            let path = definition.script.as_ref().ok_or_else(|| ProviderError::Setup {
                message: format!("provider {name:?} (kind scripted) needs `script: <path to a YAML script>`"),
                hint: None,
            })?;
            Ok(Arc::new(scripted::Scripted::load(path, model)?))
        }
        ProviderKind::Openai => {
            Ok(Arc::new(Remote::new(endpoint(name, definition, model, key)?, openai::OpenAi::new(definition))))
        }
        ProviderKind::Anthropic => {
            Ok(Arc::new(Remote::new(endpoint(name, definition, model, key)?, anthropic::Anthropic)))
        }
    }
}

/// Where the key of the provider `name` comes from and whether it holds one (never the
/// key itself); `None` for a provider that needs none (offline, scripted, a server of
/// one's own without a key).
pub fn key_status(settings: &Settings, name: &str) -> Option<(String, bool)> {
    let definition = definition_for(settings, name).ok()?;
    if definition.reach() == Reach::InProcess {
        return None;
    }
    let status = match key_for(name, &definition, settings) {
        Ok(key) => (key.source, key.value.is_some()),
        Err(_) => ("a settings file that is not loaded now".into(), false),
    };
    // A server of one's own (llama.cpp, Ollama) takes requests without one, unless the
    // settings name the variable its key is read from (a gateway's, such as LiteLLM's).
    (status.1 || definition.reach() == Reach::Hosted || definition.api_key_env.is_some()).then_some(status)
}

fn endpoint(name: &str, definition: &ProviderDef, model: Option<String>, key: Key) -> Result<http::Endpoint> {
    let base_url = definition.base_url().unwrap_or_default();
    let model = model.ok_or_else(|| {
        ProviderError::setup(
            format!("provider {name:?} has no model"),
            format!("set providers.{name}.model, or pass --model"),
        )
    })?;
    if key.value.is_none() && definition.reach() == Reach::Hosted {
        return Err(ProviderError::setup(
            format!("provider {name:?} needs an API key, and {} is not set", key.source),
            format!("export {}=…, set providers.{name}.api_key_env, or run with --offline", key.source),
        ));
    }
    // A server on this machine starts at one request at a time — llama-cpp-python and a
    // default Ollama compute one answer at a time, and a second request would only queue
    // behind the first — until it says or shows it serves more (`probe`).
    let local = definition.reach() == Reach::ThisMachine;
    let concurrency = if local { 1 } else { 8 };
    // Bounded again: a debate stored by an earlier version may hold any number.
    let seconds = |given: Option<u64>, default: u64| {
        Duration::from_secs(given.unwrap_or(default).clamp(1, bounds::MOST_CALL_SECONDS))
    };
    let limits = http::Limits {
        timeout: seconds(definition.timeout_seconds, 900),
        max_concurrency: definition.max_concurrency.unwrap_or(concurrency).clamp(1, bounds::MOST_AT_ONCE),
    };
    let client = http::client(&base_url, &limits)?;
    Ok(http::Endpoint {
        name: name.to_string(),
        base_url,
        key: key.value,
        key_source: key.source,
        model,
        max_retries: definition.max_retries.unwrap_or(5).min(bounds::MOST_RETRIES),
        client,
        in_flight: Arc::new(tokio::sync::Semaphore::new(limits.max_concurrency)),
        at_once: Arc::new(std::sync::atomic::AtomicUsize::new(limits.max_concurrency)),
        learns_at_once: local && definition.max_concurrency.is_none(),
        anthropic: definition.kind == ProviderKind::Anthropic,
        first_token: seconds(definition.first_token_timeout_seconds, 300),
        idle: seconds(definition.idle_timeout_seconds, 60),
    })
}

/// What keeps the provider `name` from running in a CI job that trusts no settings file
/// and whose environment holds only the key variables `keys`; `None` when nothing does.
pub fn unreachable_in_ci(settings: &Settings, name: &str, keys: &[&str]) -> Option<String> {
    let definition = match definition_for(settings, name) {
        Ok(definition) => definition,
        Err(_) => {
            return Some("it is not configured here, and the job has only openai, anthropic and openrouter".into());
        }
    };
    let built_in = ProviderDef::built_in(name).is_some();
    match definition.kind {
        ProviderKind::Offline => return None,
        ProviderKind::Scripted => return Some("it answers from a script of this machine's settings".into()),
        ProviderKind::Openai | ProviderKind::Anthropic => {}
    }
    if definition.reach() == Reach::ThisMachine {
        return Some(format!("it is a server on this machine ({})", definition.base_url().unwrap_or_default()));
    }
    if !built_in {
        return Some(
            "it is defined in settings, and the job trusts no settings file (it has openai, anthropic and openrouter)"
                .into(),
        );
    }
    match definition.api_key_env.as_deref() {
        Some(variable) if !keys.contains(&variable) => {
            Some(format!("its key is read from {variable}, which the workflow does not pass"))
        }
        _ => None,
    }
}
