//! The connection to the client: one JSON-RPC message a line on stdin, answers on a copy
//! of the stdout the client gave, every message through the secret gate. Stdout itself
//! then points at stderr, so nothing but protocol messages reaches the client, whatever
//! else prints. A line that is no message gets JSON-RPC's error and the server goes on;
//! the end of input is told to the server at once.

use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::model::{ClientRequest, GetMeta, JsonRpcMessage};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;
use tokio_util::sync::CancellationToken;

use crate::error::{Error, Result};
use crate::text::secrets;

/// The longest line read as a message; a longer one is answered as an invalid request
/// and skipped, never held whole.
pub const MAX_LINE: usize = 16 << 20;

/// Messages from `R`, answers to `W`, one a line.
pub struct Lines<R, W> {
    reader: BufReader<R>,
    /// The line read so far: `receive` may be dropped between two reads and goes on here.
    line: Vec<u8>,
    /// The rest of a line too long to read is skipped.
    skipping: bool,
    writer: Arc<Mutex<W>>,
    /// Cancelled when input ends.
    closed: CancellationToken,
    /// The client opened the connection (`opens`): before that, a notification or a
    /// response is no message to answer, and never ends the connection.
    opened: bool,
}

/// The protocol's streams: stdin, and the stdout the process was started with, which
/// from now on only this writes; the process's own stdout goes to stderr.
pub fn stdio(closed: CancellationToken) -> Result<Lines<tokio::io::Stdin, tokio::fs::File>> {
    let cannot = |err: std::io::Error| Error::config(format!("cannot keep stdout for the protocol: {err}"));
    let protocol = crate::platform::stdout::take().map_err(cannot)?;
    let writer = tokio::fs::File::from_std(protocol);
    Ok(Lines::new(tokio::io::stdin(), writer, closed))
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin + Send + 'static> Lines<R, W> {
    pub fn new(read: R, write: W, closed: CancellationToken) -> Lines<R, W> {
        Lines {
            reader: BufReader::new(read),
            line: Vec::new(),
            skipping: false,
            writer: Arc::new(Mutex::new(write)),
            closed,
            opened: false,
        }
    }

    /// The next whole line, without its line break; `None` at the end of input. A line
    /// longer than `MAX_LINE` is answered and skipped.
    async fn next_line(&mut self) -> Option<Vec<u8>> {
        loop {
            let available = match self.reader.fill_buf().await {
                Ok([]) | Err(_) => {
                    let rest = std::mem::take(&mut self.line);
                    return (!rest.is_empty() && !self.skipping).then_some(rest);
                }
                Ok(available) => available,
            };
            let (taken, ended) = match available.iter().position(|b| *b == b'\n') {
                Some(at) => (at + 1, true),
                None => (available.len(), false),
            };
            if !self.skipping {
                self.line.extend_from_slice(&available[..taken]);
            }
            self.reader.consume(taken);
            if !self.skipping && self.line.len() > MAX_LINE {
                self.line = Vec::new();
                self.skipping = true;
                self.reply(error_reply(Value::Null, -32600, "Invalid Request: the message is longer than 16 MiB"));
            }
            if ended {
                let skipped = std::mem::replace(&mut self.skipping, false);
                let line = std::mem::take(&mut self.line);
                if !skipped {
                    return Some(line);
                }
            }
        }
    }

    /// An answer of the transport's own, written whole whatever becomes of `receive`.
    fn reply(&self, answer: Value) {
        let writer = self.writer.clone();
        tokio::spawn(async move {
            let _ = write_message(&writer, &answer).await;
        });
    }
}

/// JSON-RPC's error answer.
fn error_reply(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// What a line is: a message for the server, nothing to answer, or the error to answer.
fn read_message(line: &[u8]) -> std::result::Result<Option<RxJsonRpcMessage<RoleServer>>, Value> {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix("\u{feff}".as_bytes()).unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    if let Ok(message) = serde_json::from_slice(line) {
        return Ok(Some(message));
    }
    let Ok(value) = serde_json::from_slice::<Value>(line) else {
        return Err(error_reply(Value::Null, -32700, "Parse error: the line is not JSON"));
    };
    let id = value.get("id").filter(|id| id.is_string() || id.is_i64() || id.is_u64()).cloned();
    match (id, value.get("method").is_some_and(Value::is_string)) {
        // A notification this server does not know: nobody waits for an answer.
        (None, true) => Ok(None),
        (id, _) => Err(error_reply(id.unwrap_or(Value::Null), -32600, "Invalid Request: not a JSON-RPC 2.0 message")),
    }
}

/// Whether a request opens the connection: `initialize` (2025-11-25 and before), or at
/// 2026-07-28 any request with its protocol version in `_meta` but `server/discover`,
/// which only asks what the server speaks.
fn opens(request: &ClientRequest) -> bool {
    match request {
        ClientRequest::InitializeRequest(_) => true,
        ClientRequest::DiscoverRequest(_) | ClientRequest::PingRequest(_) => false,
        other => other.get_meta().protocol_version().is_some(),
    }
}

/// `message` as one line, every string in it through the secret gate.
async fn write_message<W: AsyncWrite + Unpin>(writer: &Mutex<W>, message: &Value) -> std::io::Result<()> {
    let mut gated = message.clone();
    secrets::gate_json(&mut gated);
    let mut line = serde_json::to_vec(&gated)?;
    line.push(b'\n');
    // One line at a time: answers and notifications never interleave.
    let mut writer = writer.lock().await;
    writer.write_all(&line).await?;
    writer.flush().await
}

impl<R, W> rmcp::transport::Transport<RoleServer> for Lines<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = std::result::Result<(), Self::Error>> + Send + 'static {
        let writer = self.writer.clone();
        async move {
            let message = serde_json::to_value(&item)?;
            write_message(&writer, &message).await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            let Some(line) = self.next_line().await else {
                self.closed.cancel();
                return None;
            };
            match read_message(&line) {
                Ok(Some(JsonRpcMessage::Request(request))) => {
                    self.opened |= opens(&request.request);
                    return Some(JsonRpcMessage::Request(request));
                }
                Ok(Some(message)) if self.opened => return Some(message),
                Ok(Some(_)) => {}
                Ok(None) => {}
                Err(answer) => self.reply(answer),
            }
        }
    }

    async fn close(&mut self) -> std::result::Result<(), Self::Error> {
        self.writer.lock().await.flush().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_a_message_nothing_or_the_error_to_answer() {
        let message = read_message(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
        assert!(matches!(message, Ok(Some(_))), "{message:?}");
        assert!(matches!(read_message(b"  \r\n"), Ok(None)));
        assert!(matches!(read_message(br#"{"jsonrpc":"2.0","method":"notifications/whatever","params":7}"#), Ok(None)));
        let parse = read_message(b"{not json").unwrap_err();
        assert_eq!((parse["id"].clone(), parse["error"]["code"].clone()), (Value::Null, json!(-32700)));
        let invalid = read_message(br#"{"jsonrpc":"1.0","id":"a7"}"#).unwrap_err();
        assert_eq!((invalid["id"].clone(), invalid["error"]["code"].clone()), (json!("a7"), json!(-32600)));
        let batch = read_message(br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#).unwrap_err();
        assert_eq!(batch["error"]["code"], json!(-32600));
    }

    #[tokio::test]
    async fn a_line_too_long_is_answered_and_skipped_and_the_next_one_read() {
        let long = vec![b'x'; MAX_LINE + 10];
        let mut input = long.clone();
        input.extend_from_slice(b"\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n");
        let (write, mut read_back) = tokio::io::duplex(1 << 16);
        let closed = CancellationToken::new();
        let mut lines = Lines::new(&input[..], write, closed.clone());
        let line = lines.next_line().await.unwrap();
        assert!(line.starts_with(b"{\"jsonrpc\""), "the long line was skipped");
        let mut answer = String::new();
        let mut reader = BufReader::new(&mut read_back);
        reader.read_line(&mut answer).await.unwrap();
        let answer: Value = serde_json::from_str(&answer).unwrap();
        assert_eq!(answer["error"]["code"], json!(-32600));
        assert!(lines.next_line().await.is_none() && !closed.is_cancelled(), "only receive tells the end");
    }

    #[tokio::test]
    async fn every_message_goes_through_the_secret_gate() {
        secrets::guard(["sk-transport-test-key-0123456789".to_string()]);
        let writer = Mutex::new(Vec::new());
        write_message(&writer, &json!({"result": {"text": "key sk-transport-test-key-0123456789"}})).await.unwrap();
        let written = String::from_utf8(writer.into_inner()).unwrap();
        assert!(!written.contains("sk-transport-test-key") && written.ends_with('\n'), "{written}");
    }
}
