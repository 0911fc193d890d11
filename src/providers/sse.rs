//! Server-sent events from a streaming response, for both wire formats, read in one
//! pass: bytes may be split anywhere, even inside a UTF-8 character, and each byte is
//! looked at once however long its line (a reader that rescans its buffer for every
//! chunk spends minutes on one long `data:` line, and its timeouts fire late).

use futures::{Stream, StreamExt};

use super::http::{Endpoint, Failure};

/// The most one event may hold: far past any answer, short of what a hostile server
/// could make this process keep.
const MOST_EVENT_BYTES: usize = 16 << 20;

/// One event: its type (`event:`) and its data lines joined by newlines.
#[derive(Debug, Default, PartialEq)]
pub struct Event {
    pub event: String,
    pub data: String,
}

/// The SSE parser: bytes in, whole events out.
#[derive(Default)]
struct Reader {
    buffer: Vec<u8>,
    /// How far `buffer` has been searched for a line's end.
    scanned: usize,
    /// A line ended in CR: a LF first in the next chunk belongs to it.
    after_cr: bool,
    event: Event,
    data_lines: usize,
}

impl Reader {
    /// The events `chunk` completes.
    fn feed(&mut self, chunk: &[u8]) -> Result<Vec<Event>, String> {
        let mut chunk = chunk;
        if self.after_cr && chunk.first() == Some(&b'\n') {
            chunk = &chunk[1..];
        }
        self.after_cr = false;
        self.buffer.extend_from_slice(chunk);
        let mut events = Vec::new();
        let mut start = 0;
        while let Some(end) = self.buffer[self.scanned..].iter().position(|b| matches!(b, b'\n' | b'\r')) {
            let end = self.scanned + end;
            let line = self.buffer[start..end].to_vec();
            let crlf = self.buffer[end] == b'\r' && self.buffer.get(end + 1) == Some(&b'\n');
            self.after_cr = self.buffer[end] == b'\r' && end + 1 == self.buffer.len();
            start = end + if crlf { 2 } else { 1 };
            self.scanned = start;
            let line = String::from_utf8(line).map_err(|_| "an event line is not UTF-8".to_string())?;
            events.extend(self.line(&line)?);
        }
        self.buffer.drain(..start);
        self.scanned = self.buffer.len();
        if self.buffer.len() + self.event.data.len() > MOST_EVENT_BYTES {
            return Err(format!("an event grew past {} MiB", MOST_EVENT_BYTES >> 20));
        }
        Ok(events)
    }

    /// One line of the stream: a field of the event being read, or the blank line that
    /// ends it.
    fn line(&mut self, line: &str) -> Result<Option<Event>, String> {
        if line.is_empty() {
            let whole = std::mem::take(&mut self.event);
            let had_data = std::mem::take(&mut self.data_lines) > 0;
            return Ok(had_data.then_some(whole));
        }
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "event" => self.event.event = value.to_string(),
            "data" => {
                if self.data_lines > 0 {
                    self.event.data.push('\n');
                }
                self.event.data.push_str(value);
                self.data_lines += 1;
            }
            // Comments (`: ping`), `id`, `retry` and fields no format defines.
            _ => {}
        }
        Ok(None)
    }
}

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
    let mut reader = Reader::default();
    let events = response.bytes_stream().flat_map(move |chunk| {
        let events = match chunk {
            // The whole call's limit (`timeout_seconds`) reached while the answer came in:
            // the server may still be computing it, so it is never sent again.
            Err(err) if err.is_timeout() => Err(Failure::TimedOut(format!(
                "the call took longer than its limit (timeout_seconds): {}",
                endpoint.redact(&err.to_string())
            ))),
            Err(err) => Err(Failure::retry(format!("the stream broke off: {}", endpoint.redact(&err.to_string())))),
            Ok(bytes) => reader.feed(&bytes).map_err(|why| Failure::retry(format!("the stream broke off: {why}"))),
        };
        let items: Vec<Result<Event, Failure>> = match events {
            Ok(events) => events.into_iter().map(Ok).collect(),
            Err(failure) => vec![Err(failure)],
        };
        futures::stream::iter(items)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn read(chunks: &[&[u8]]) -> Result<Vec<Event>, String> {
        let mut reader = Reader::default();
        let mut events = Vec::new();
        for chunk in chunks {
            events.extend(reader.feed(chunk)?);
        }
        Ok(events)
    }

    fn event(event: &str, data: &str) -> Event {
        Event { event: event.into(), data: data.into() }
    }

    #[test]
    fn events_are_read_whatever_their_line_ends_and_wherever_the_bytes_split() {
        let whole =
            "event: message_start\ndata: {\"a\":1}\n\n: ping\n\ndata: one\r\ndata: two\r\n\r\ndata:x\r\rdata: é\n\n";
        let expected = vec![event("message_start", "{\"a\":1}"), event("", "one\ntwo"), event("", "x"), event("", "é")];
        assert_eq!(read(&[whole.as_bytes()]).unwrap(), expected);
        let bytes = whole.as_bytes();
        for at in 1..bytes.len() {
            assert_eq!(read(&[&bytes[..at], &bytes[at..]]).unwrap(), expected, "split at {at}");
        }
        let one_by_one: Vec<&[u8]> = bytes.chunks(1).collect();
        assert_eq!(read(&one_by_one).unwrap(), expected);
    }

    #[test]
    fn an_event_past_the_bound_or_not_utf8_is_a_broken_stream() {
        let big = vec![b'x'; 1 << 20];
        let mut chunks: Vec<&[u8]> = vec![b"data: "];
        chunks.extend(std::iter::repeat_n(&big[..], 17));
        assert!(read(&chunks).unwrap_err().contains("16 MiB"));
        assert!(read(&[b"data: \xff\xfe\n\n"]).unwrap_err().contains("UTF-8"));
    }
}
