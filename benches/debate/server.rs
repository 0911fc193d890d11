//! The mock model server the benchmarks run debates against: OpenAI-compatible, a fixed
//! latency per call, every request logged with when it arrived and when it was answered.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

use crate::common::fresh_words;
use crate::common::llm::{completion_body, prompt_of, reply, streamed_body};

/// What the mock says it is in its `/v1/models`: vLLM, a server on 127.0.0.1 that
/// answers any number of calls at once (as this mock does), so no `max_concurrency`
/// setting is needed; and llama-cpp-python, which serves one at a time.
pub const PARALLEL: &str = "vllm";
pub const ONE_AT_A_TIME: &str = "me";

/// One request the mock server answered.
#[derive(Clone)]
pub struct Exchange {
    /// `{"body": …}`, the shape the tests' mock logs.
    pub request: Value,
    /// When its body had been read.
    pub arrived: Instant,
    /// When its response was written.
    pub answered: Instant,
    /// The answer's text, in bytes.
    pub answer_bytes: usize,
}

/// Every request the mock received: its body, when it arrived, when it was answered and
/// the bytes of its answer's text.
pub type Log = Arc<Mutex<Vec<(Value, Instant, Option<(Instant, usize)>)>>>;

/// An OpenAI-compatible server that answers every request after a fixed latency, the
/// way a well-behaved API server does: TCP_NODELAY, each response in one write,
/// connections kept alive. (A server that writes headers and body separately without
/// TCP_NODELAY adds the client's delayed-ACK time, ~40 ms, to every call on a reused
/// connection: that would be measured as the tool's overhead.) Every request is logged
/// with when it arrived and when it was answered: the waves a debate's calls fall into
/// are read from those times.
pub struct Server {
    address: String,
    /// In order of arrival; `answered` is `None` while the response is not written.
    log: Log,
}

/// How the mock's debaters answer.
#[derive(Clone, Copy)]
pub struct Debaters {
    /// Words of fresh text in each answer.
    pub words: usize,
    /// Every `cut`-th debater answer stops before its stance line, as a model's that ran
    /// out of tokens does (0: none).
    pub cut: usize,
}

impl Debaters {
    /// Short answers, each with its stance: the calls alone are measured.
    pub const TERSE: Debaters = Debaters { words: 50, cut: 0 };
    /// Answers as long as the prompts ask for (about 450 words), one in seven cut short.
    pub const REALISTIC: Debaters = Debaters { words: 420, cut: 7 };
}

impl Server {
    /// A server that lists its model as `owned_by` says (`PARALLEL`, `ONE_AT_A_TIME`).
    pub async fn start(latency: Duration, owned_by: &'static str) -> Server {
        Server::answering(latency, owned_by, Debaters::TERSE).await
    }

    /// As `start`, its debaters answering as `debaters` says.
    pub async fn answering(latency: Duration, owned_by: &'static str, debaters: Debaters) -> Server {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1");
        let address = format!("http://{}", listener.local_addr().unwrap());
        let log: Log = Arc::default();
        let seen = log.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                stream.set_nodelay(true).ok();
                let seen = seen.clone();
                tokio::spawn(async move {
                    let (read, mut write) = stream.into_split();
                    let mut read = BufReader::new(read);
                    while let Some(request) = read_request(&mut read).await {
                        let body = match request {
                            Request::Models => {
                                let models =
                                    json!({"object": "list", "data": [{"id": "mock-model", "owned_by": owned_by}]})
                                        .to_string();
                                let response = format!(
                                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{models}",
                                    models.len()
                                );
                                if write.write_all(response.as_bytes()).await.is_err() {
                                    break;
                                }
                                continue;
                            }
                            Request::Completion(body) => body,
                        };
                        let entry = {
                            let mut log = seen.lock().unwrap();
                            log.push((json!({"body": body}), Instant::now(), None));
                            log.len() - 1
                        };
                        tokio::time::sleep(latency).await;
                        // Streamed when asked (the dashboard streams debaters' text).
                        let text = answer(&body, entry, debaters);
                        let (kind, payload) = match body["stream"] == true {
                            true => ("text/event-stream", streamed_body("mock-model", &text, "stop")),
                            false => ("application/json", completion_body(&text).to_string()),
                        };
                        let response = format!(
                            "HTTP/1.1 200 OK\r\ncontent-type: {kind}\r\ncontent-length: {}\r\n\r\n{payload}",
                            payload.len()
                        );
                        // Stamped just before the write, so that it is in the log by the
                        // time the client can have read the response.
                        seen.lock().unwrap()[entry].2 = Some((Instant::now(), text.len()));
                        if write.write_all(response.as_bytes()).await.is_err() {
                            break;
                        }
                    }
                });
            }
        });
        Server { address, log }
    }

    pub fn base_url(&self) -> String {
        format!("{}/v1", self.address)
    }

    /// Every request so far, in order of arrival. Called between debates, when every
    /// request has been answered.
    pub fn exchanges(&self) -> Vec<Exchange> {
        let log = self.log.lock().unwrap();
        log.iter()
            .map(|(request, arrived, answered)| {
                let (answered, answer_bytes) = answered.expect("every request answered before the debate ended");
                Exchange { request: request.clone(), arrived: *arrived, answered, answer_bytes }
            })
            .collect()
    }
}

/// What the tool asks the mock: what it is, or a completion.
pub enum Request {
    Models,
    Completion(Value),
}

/// One HTTP/1.1 request, or `None` when the connection closes.
pub async fn read_request(read: &mut BufReader<tokio::net::tcp::OwnedReadHalf>) -> Option<Request> {
    let mut length = 0;
    let mut models = false;
    loop {
        let mut line = String::new();
        if read.read_line(&mut line).await.ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        models |= line.starts_with("GET ") && line.contains("/models");
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().ok()?;
        }
    }
    if models {
        return Some(Request::Models);
    }
    let mut body = vec![0; length];
    read.read_exact(&mut body).await.ok()?;
    serde_json::from_slice(&body).ok().map(Request::Completion)
}

/// The mock's answer to request `n`: the tests' mock's, a debater's at the length and with
/// the cuts `debaters` asks for.
fn answer(body: &Value, n: usize, debaters: Debaters) -> String {
    let text = reply(body);
    let Some(said) = text.strip_prefix("From my perspective ") else { return text };
    let stance = said.lines().last().unwrap_or_default();
    let words = fresh_words(&format!("{n}{}", prompt_of(body)), debaters.words);
    match debaters.cut > 0 && n.is_multiple_of(debaters.cut) {
        true => format!("From my perspective {words}"),
        false => format!("From my perspective {words}\n{stance}"),
    }
}
