//! Server-sent events from a streaming response, for both wire formats. Bytes may be
//! split anywhere, even inside a UTF-8 character; eventsource-stream reassembles them.

use eventsource_stream::{Event, Eventsource};
use futures::{Stream, StreamExt};

use super::http::{Endpoint, Failure};

/// The events of a response body, each one or a failure that is worth retrying.
pub fn events(endpoint: &Endpoint, response: reqwest::Response) -> impl Stream<Item = Result<Event, Failure>> + '_ {
    response.bytes_stream().eventsource().map(move |item| {
        item.map_err(|err| Failure::retry(format!("the stream broke off: {}", endpoint.redact(&err.to_string()))))
    })
}
