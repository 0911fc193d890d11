//! Running the engine on a stored debate until it completes, pauses or is stopped:
//! the lease and its heartbeat, the signals that pause it, and who hears its events.

use std::path::Path;

use crate::catalog::Catalog;
use crate::engine::run::Engine;
use crate::error::{Error, Result, Signal};
use crate::model::{DebateState, Events};
use crate::providers;
use crate::record::Templates;
use crate::store::{self, Lease, Store};
use crate::terminal::Terminal;

/// Who hears the engine: the front end that takes its events, else the terminal.
pub fn hearer<'a, 'b: 'a>(terminal: &'a mut Terminal, events: Option<&'a mut (dyn Events + 'b)>) -> &'a mut dyn Events {
    match events {
        Some(events) => events,
        None => terminal,
    }
}

/// A provider no model stands behind is always named.
pub fn announce_providers(providers: &providers::Panel, terminal: &Terminal) {
    let mut said: Vec<&str> = Vec::new();
    for provider in [&providers.moderator].into_iter().chain(&providers.debaters) {
        if let Some(label) = providers::label(provider.identity().kind)
            && !said.contains(&label)
        {
            terminal.say(&format!("Provider: {label}"));
            said.push(label);
        }
    }
}

/// What a run of the engine needs besides the store.
pub struct Run<'a> {
    pub providers: providers::Panel,
    pub catalog: &'a Catalog,
    pub templates: &'a Templates,
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
    events.driving(&id);
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
    let Run { providers, catalog, templates } = run;
    let mut engine = Engine { store, providers, catalog, templates, events };
    let result = tokio::select! {
        result = engine.run(&id) => result,
        signal = stop_signal() => match signal {
            Ok(signal) => Err(engine.pause(&id, Error::Stopped { signal })),
            Err(err) => Err(err),
        },
    };
    heartbeat.abort();
    drop(lease);
    result
}

/// The first of Ctrl-C, SIGTERM and SIGHUP to arrive.
pub async fn stop_signal() -> Result<Signal> {
    use tokio::signal::unix::{SignalKind, signal};
    let listen = |kind| signal(kind).map_err(|err| Error::config(format!("cannot listen for signals: {err}")));
    let (mut terminate, mut hang_up) = (listen(SignalKind::terminate())?, listen(SignalKind::hangup())?);
    Ok(tokio::select! {
        _ = tokio::signal::ctrl_c() => Signal::Interrupt,
        _ = terminate.recv() => Signal::Terminate,
        _ = hang_up.recv() => Signal::HangUp,
    })
}
