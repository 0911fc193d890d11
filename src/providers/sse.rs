//! Server-sent events from a streaming response, for both wire formats. Bytes may be
//! split anywhere, even inside a UTF-8 character; eventsource-stream reassembles them.

use eventsource_stream::{Event, EventStreamError, Eventsource};
use futures::{Stream, StreamExt};

use super::http::{Endpoint, Failure};

/// Whether a response to a streamed request came as a whole document instead (a server
/// that does not stream answers with JSON; a proxy with its error page).
pub fn whole(response: &reqwest::Response) -> bool {
    response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .is_some_and(|t| [&b"application/json"[..], b"text/html"].iter().any(|w| t.as_bytes().starts_with(w)))
}

/// The events of a response body, each one or a failure: a broken stream is worth
/// retrying; a model that sends nothing for the endpoint's first-token or idle time is
/// not (the server may still be computing, and a second request would queue behind it).
/// A model that is still sending is never cut off.
pub fn events(endpoint: &Endpoint, response: reqwest::Response) -> impl Stream<Item = Result<Event, Failure>> + '_ {
    let events = response.bytes_stream().eventsource().map(move |item| {
        item.map_err(|err| match err {
            // The whole call's limit (`timeout_seconds`) reached while the answer came in:
            // the server may still be computing it, so it is never sent again.
            EventStreamError::Transport(err) if err.is_timeout() => Failure::TimedOut(format!(
                "the call took longer than its limit (timeout_seconds): {}",
                endpoint.redact(&err.to_string())
            )),
            err => Failure::retry(format!("the stream broke off: {}", endpoint.redact(&err.to_string()))),
        })
    });
    futures::stream::unfold((Box::pin(events), true, false), move |(mut events, first, done)| async move {
        if done {
            return None;
        }
        let limit = if first { endpoint.first_token } else { endpoint.idle };
        match tokio::time::timeout(limit, events.next()).await {
            Ok(Some(item)) => Some((item, (events, false, false))),
            Ok(None) => None,
            Err(_) => {
                let waited = match first {
                    true => format!("sent no token for {} s (first_token_timeout_seconds)", limit.as_secs()),
                    false => format!("sent nothing for {} s mid-answer (idle_timeout_seconds)", limit.as_secs()),
                };
                Some((Err(Failure::TimedOut(format!("the model {waited}"))), (events, first, true)))
            }
        }
    })
}
