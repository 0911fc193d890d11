//! `GET /api/debates/{id}/events`: every debate's page, live (Server-Sent Events).
//! For every watched debate, whoever drives it, one watcher reads the database twice a
//! second (WAL lets it read while another process writes) and sends the page's live
//! part when it changed; it stops with its last subscriber.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Path, State};
use axum::response::sse::{Event, KeepAlive, Sse};
use futures::{Stream, StreamExt};
use tokio::sync::{Notify, broadcast};

use super::error::ApiError;
use super::hub::Message;
use super::state::App;
use super::stored::{existing, with_store};

/// How often a watched debate is read back from the database.
const POLL: Duration = Duration::from_millis(500);

/// The live part of a debate's page, as the `state` event carries it.
async fn state_message(app: &Arc<App>, id: &str) -> Result<Message, ApiError> {
    let situation = app.hub.situation(id);
    let (id, app) = (id.to_string(), app.clone());
    with_store(&app.db.clone(), move |store| {
        let store = existing(store, &id)?;
        let state = store.load(&id)?;
        Ok(Message::new("state", &app.pages.live(app.launch.as_ref(), &store, &state, situation)?))
    })
    .await
}

/// Reads a watched debate back twice a second, or at once when its driver here says
/// something changed, and sends its live part when that differs from the last one.
async fn watch(app: Arc<App>, id: String, nudge: Arc<Notify>) {
    let mut stopping = app.stopping.clone();
    let mut last: Option<String> = None;
    loop {
        tokio::select! {
            _ = tokio::time::sleep(POLL) => {}
            _ = nudge.notified() => {}
            _ = stopping.wait_for(|stopped| *stopped) => return,
        }
        if !app.hub.keep_watching(&id) {
            return;
        }
        // A failed read (the debate deleted, the disk busy) is tried again next time.
        if let Ok(message) = state_message(&app, &id).await
            && last.as_ref() != Some(&message.data)
        {
            last = Some(message.data.clone());
            app.hub.send(&id, message);
        }
    }
}

/// `GET /api/debates/{id}/events`: Server-Sent Events. `state` first and whenever the
/// debate changes (`{status, actions, driver, html}`); for a debate this server drives
/// also `working` (`{round, doing, seats}`), `delta` (`{seat, text}`: streamed text),
/// `landed` (`{seat}`), `moderating` (`{what}`) and `notice` (`{text}`).
pub async fn events(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ApiError> {
    let id = {
        let id = id.clone();
        with_store(&app.db, move |store| Ok(existing(store, &id)?.resolve_id(&id)?)).await?
    };
    let (receiver, start) = app.hub.subscribe(&id);
    if let Some(nudge) = start {
        tokio::spawn(watch(app.clone(), id.clone(), nudge));
    }
    let first = state_message(&app, &id).await?;
    let mut stopping = app.stopping.clone();
    let updates = futures::stream::unfold((receiver, app, id), |(mut receiver, app, id)| async move {
        loop {
            match receiver.recv().await {
                Ok(message) => return Some((message, (receiver, app, id))),
                // Too slow for the stream: skip to how the debate stands now.
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    if let Ok(message) = state_message(&app, &id).await {
                        return Some((message, (receiver, app, id)));
                    }
                }
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    });
    let stream = futures::stream::once(std::future::ready(first))
        .chain(updates)
        .map(|message| Ok(message.event()))
        .take_until(async move {
            let _ = stopping.wait_for(|stopped| *stopped).await;
        });
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()))
}
