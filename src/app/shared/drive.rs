//! Running the engine on a stored debate until it completes, pauses or is stopped:
//! the lease and its heartbeat, the signals that pause it, and who hears its events.

use std::path::Path;

use crate::app::shared::spending;
use crate::catalog::Catalog;
use crate::engine::run::Engine;
use crate::error::{Error, Result, Signal};
use crate::model::{DebateState, Dollars, Events, RoleChoice, Snapshot};
use crate::platform::stop::Stop;
use crate::providers;
use crate::record::Templates;
use crate::record::seal::Sealer;
use crate::store::{self, Lease, Store};
use crate::terminal::Terminal;

/// Who hears the engine: the front end that takes its events, else the terminal.
pub fn hearer<'a, 'b: 'a>(terminal: &'a mut Terminal, events: Option<&'a mut (dyn Events + 'b)>) -> &'a mut dyn Events {
    match events {
        Some(events) => events,
        None => terminal,
    }
}

/// What runs, before the first call: each provider and model, for which role, where
/// it is served and its price per million tokens when the settings give one. A
/// provider no model stands behind is named as such.
pub fn announce_providers(snapshot: &Snapshot, terminal: &Terminal) {
    for line in provider_lines(snapshot) {
        terminal.say(&line);
    }
}

fn provider_lines(snapshot: &Snapshot) -> Vec<String> {
    let debaters = snapshot.debater_roles();
    let mut roles: Vec<(&RoleChoice, Vec<&str>)> = Vec::new();
    for (role, who) in [(&snapshot.moderator, "moderator")].into_iter().chain(debaters.iter().map(|r| (r, "debaters")))
    {
        let same = |seen: &RoleChoice| seen.provider == role.provider && seen.model == role.model;
        match roles.iter_mut().find(|(seen, _)| same(seen)) {
            Some((_, whom)) if !whom.contains(&who) => whom.push(who),
            Some(_) => {}
            None => roles.push((role, vec![who])),
        }
    }
    let mut lines: Vec<String> = Vec::new();
    for (role, whom) in roles {
        let line = match providers::label(role.kind) {
            Some(label) => format!("Provider: {label}"),
            None => {
                let definition = snapshot.providers.get(&role.provider);
                let model = snapshot.model_of(role).unwrap_or("?");
                let at =
                    definition.and_then(|d| d.base_url.as_deref()).map(|url| format!(" at {url}")).unwrap_or_default();
                let price = match definition.and_then(|d| d.prices.get(model)) {
                    Some(p) => format!("${} in, ${} out per million tokens", p.input, p.output),
                    None => "price unknown (none in the settings)".to_string(),
                };
                format!("Provider: {}, model {model}{at} ({}) · {price}", role.provider, whom.join(" and "))
            }
        };
        if !lines.contains(&line) {
            lines.push(line);
        }
    }
    lines
}

/// What a run of the engine needs besides the store.
pub struct Run<'a> {
    pub providers: providers::Panel,
    pub catalog: &'a Catalog,
    pub templates: &'a Templates,
    pub sealer: &'a Sealer,
    /// `budget.per_month_usd` of the settings loaded now.
    pub per_month: Option<Dollars>,
}

/// Run the engine until the debate completes, pauses or is interrupted.
/// One process drives a debate at a time: it holds the debate's lease while it runs,
/// says it is alive from a second connection, and gives the lease up however it stops.
/// Ctrl-C, SIGTERM and SIGHUP all pause the debate.
pub async fn drive(
    db_path: &Path,
    store: &Store,
    lease: Lease<'_>,
    run: Run<'_>,
    events: &mut dyn Events,
) -> Result<DebateState> {
    let id = lease.id().to_string();
    let Run { mut providers, catalog, templates, sealer, per_month } = run;
    spending::month_room(per_month, store)?;
    providers.shared.budget = spending::budget(store, &store.load(&id)?, per_month)?;
    events.driving(&id);
    let stopped = events.stopped();
    let heartbeat = {
        let (db_path, id, owner) = (db_path.to_path_buf(), id.clone(), lease.owner().clone());
        tokio::spawn(async move {
            let Ok(store) = Store::open(&db_path) else { return };
            // Until the lease is lost; the engine notices that at its next step.
            while store.heartbeat(&id, &owner).unwrap_or(true) {
                tokio::time::sleep(store::HEARTBEAT).await;
            }
        })
    };
    let mut engine = Engine { store, providers, catalog, templates, sealer, events };
    let result = tokio::select! {
        result = engine.run(&id) => result,
        signal = stop_signal() => match signal {
            Ok(signal) => Err(engine.pause(&id, Error::Stopped { signal })),
            Err(err) => Err(err),
        },
        () = halted(stopped) => Err(engine.pause(&id, Error::Stopped { signal: Signal::Cancelled })),
    };
    heartbeat.abort();
    drop(lease);
    result
}

/// When the front end stops the debate; never, when it does not.
async fn halted(stopped: Option<crate::model::Pending<()>>) {
    match stopped {
        Some(stopped) => stopped.await,
        None => std::future::pending().await,
    }
}

/// The first of the system's stops to arrive: Ctrl-C, SIGTERM and SIGHUP on Unix;
/// Ctrl-C, Ctrl-Break and the console closing on Windows.
pub async fn stop_signal() -> Result<Signal> {
    let stop = crate::platform::signals::first().await;
    Ok(match stop.map_err(|err| Error::config(format!("cannot listen for signals: {err}")))? {
        Stop::Interrupt => Signal::Interrupt,
        Stop::Break => Signal::Break,
        Stop::Terminate => Signal::Terminate,
        Stop::HangUp => Signal::HangUp,
        Stop::Closed => Signal::Closed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Price, ProviderDef, ProviderKind, fixture};

    fn hosted(name: &str, model: &str) -> RoleChoice {
        RoleChoice { provider: name.into(), kind: ProviderKind::Openai, model: Some(model.into()), temperature: 0.5 }
    }

    #[test]
    fn every_run_says_its_provider_model_and_price() {
        let mut snapshot = fixture::state().snapshot;
        assert_eq!(provider_lines(&snapshot), [format!("Provider: {}", providers::SCRIPTED_LABEL)]);

        let mut local = ProviderDef::new(ProviderKind::Openai);
        local.base_url = Some("http://127.0.0.1:8080/v1".into());
        let mut openai = ProviderDef::new(ProviderKind::Openai);
        openai.prices.insert("gpt-4o-mini".into(), Price { input: 0.15, output: 0.6, cached_input: None });
        snapshot.providers = [("local".to_string(), local), ("openai".to_string(), openai)].into();
        (snapshot.moderator, snapshot.debater) = (hosted("local", "qwen"), hosted("local", "qwen"));
        assert_eq!(
            provider_lines(&snapshot),
            [
                "Provider: local, model qwen at http://127.0.0.1:8080/v1 (moderator and debaters) · price unknown (none in the settings)"
            ]
        );
        snapshot.moderator = hosted("openai", "gpt-4o-mini");
        assert_eq!(
            provider_lines(&snapshot),
            [
                "Provider: openai, model gpt-4o-mini (moderator) · $0.15 in, $0.6 out per million tokens",
                "Provider: local, model qwen at http://127.0.0.1:8080/v1 (debaters) · price unknown (none in the settings)",
            ]
        );
    }
}
