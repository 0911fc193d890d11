//! The OpenAI-compatible and Anthropic providers, end to end over real HTTP on
//! 127.0.0.1: the wire format, streaming split at awkward byte boundaries, retries,
//! failure classification, key redaction, structured-output downgrade and the
//! in-flight cap (README: "Providers", "Exit codes"; docs/architecture.md: `providers/`).
//! Nothing here touches the internet.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use debate::model::{Completion, ProviderDef, ProviderKind, Purpose, RoleChoice};
use debate::providers::{self, Brief, Budget, Provider, ProviderError as Error, Request, Schema, TextSink};
use debate::settings::{Settings, TokenParameter};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use wiremock::matchers::any;
use wiremock::{Mock, MockServer, ResponseTemplate};

pub(crate) const KEY: &str = "sk-test-distinctive-1234";
const SYSTEM: &str = "You are the moderator of a structured debate.";
const PROMPT: &str = "Should we shard the orders table? Answer with care.";

// ---------------------------------------------------------------------------------
// Building providers and requests the way the binary does
// ---------------------------------------------------------------------------------

pub(crate) fn base_config(kind: ProviderKind, base_url: String) -> ProviderDef {
    let mut config = ProviderDef::new(kind);
    config.base_url = Some(base_url);
    config.api_key = Some(KEY.into());
    config.model = Some(match kind {
        ProviderKind::Anthropic => "claude-test".into(),
        _ => "gpt-test".into(),
    });
    config.max_retries = Some(2);
    config.timeout_seconds = Some(2);
    config
}

pub(crate) fn build(config: ProviderDef) -> Arc<dyn Provider> {
    let mut settings = Settings::default();
    settings.providers.named.insert("mock".into(), config);
    let choice = RoleChoice { provider: "mock".into(), kind: ProviderKind::Openai, model: None, temperature: 0.3 };
    let definitions = providers::definitions(&settings, &[&choice]).unwrap();
    let panel = providers::build_panel(&choice, std::slice::from_ref(&choice), &definitions, &settings);
    panel.unwrap_or_else(|err| panic!("build failed: {err}")).moderator
}

fn openai(base: &str) -> ProviderDef {
    base_config(ProviderKind::Openai, format!("{base}/v1"))
}

fn anthropic(base: &str) -> ProviderDef {
    base_config(ProviderKind::Anthropic, format!("{base}/v1"))
}

pub(crate) fn request() -> Request {
    Request {
        purpose: Purpose::Evaluation,
        round: 1,
        perspective: None,
        system: SYSTEM.into(),
        context: String::new(),
        prompt: PROMPT.into(),
        shared: 0,
        cache_key: None,
        max_tokens: Some(512),
        temperature: 0.3,
        schema: None,
        on_text: None,
        on_retry: None,
        budget: Budget::default(),
        stop: None,
        brief: Brief::None,
    }
}

fn schema() -> Schema {
    Schema {
        name: "verdict",
        value: json!({
            "type": "object",
            "properties": {
                "verdict": {"type": "string", "enum": ["continue", "stop"]},
                "novelty": {"type": "number"}
            },
            "required": ["verdict", "novelty"],
            "additionalProperties": false
        }),
    }
}

pub(crate) fn structured() -> Request {
    Request { schema: Some(schema()), ..request() }
}

/// A sink that keeps every delta, in order.
fn collector() -> (TextSink, Arc<Mutex<Vec<String>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let into = seen.clone();
    (TextSink::new(move |text| into.lock().unwrap().push(text.to_string())), seen)
}

fn streaming() -> (Request, Arc<Mutex<Vec<String>>>) {
    let (sink, seen) = collector();
    (Request { on_text: Some(sink), purpose: Purpose::Argument, ..request() }, seen)
}

fn non_empty(deltas: &Arc<Mutex<Vec<String>>>) -> Vec<String> {
    deltas.lock().unwrap().iter().filter(|d| !d.is_empty()).cloned().collect()
}

pub(crate) fn expect_ok(result: providers::Result<Completion>) -> Completion {
    result.unwrap_or_else(|err| panic!("expected a completion, got {err:?}: {err} (hint: {:?})", err.hint()))
}

/// A failure of the model service that a shorter prompt would not cure: the debate
/// pauses with exit 3.
#[track_caller]
fn assert_service_failure(err: &Error) {
    assert!(err.from_service() && !err.retryable(), "expected a provider failure, got {err:?}");
}

pub(crate) fn expect_err(result: providers::Result<Completion>) -> Error {
    match result {
        Ok(c) => panic!("expected an error, got a completion: {:?}", c.text),
        Err(err) => err,
    }
}

/// Everything an error could show a user.
pub(crate) fn shown(err: &Error) -> String {
    format!("{err} | {} | {err:?}", err.hint().unwrap_or_default())
}

fn assert_no_key(err: &Error, key: &str) {
    let text = shown(err);
    assert!(!text.contains(key), "the key leaked into the error: {text}");
    // Not even a recognisable fragment of it.
    assert!(!text.contains(&key[..key.len() - 2]), "part of the key leaked into the error: {text}");
}

fn openai_answer(content: &str) -> Value {
    json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "gpt-test-2024-08-06",
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": content},
            "finish_reason": "stop"
        }],
        "usage": {"prompt_tokens": 17, "completion_tokens": 5, "total_tokens": 22}
    })
}

// ---------------------------------------------------------------------------------
// A wiremock server that records every request (with its arrival time) and answers
// from a closure of (index of this request, its JSON body)
// ---------------------------------------------------------------------------------

#[derive(Clone, Default)]
struct Seen(Arc<Mutex<Vec<(Instant, wiremock::Request)>>>);

impl Seen {
    fn all(&self) -> Vec<(Instant, wiremock::Request)> {
        self.0.lock().unwrap().clone()
    }
    fn len(&self) -> usize {
        self.0.lock().unwrap().len()
    }
    fn bodies(&self) -> Vec<Value> {
        self.all().iter().map(|(_, r)| r.body_json().expect("request body is JSON")).collect()
    }
}

async fn mock_server<F>(answer: F) -> (MockServer, Seen)
where
    F: Fn(usize, &Value) -> ResponseTemplate + Send + Sync + 'static,
{
    let server = MockServer::start().await;
    let seen = Seen::default();
    let log = seen.clone();
    Mock::given(any())
        .respond_with(move |req: &wiremock::Request| {
            let body: Value = req.body_json().unwrap_or(Value::Null);
            let index = {
                let mut log = log.0.lock().unwrap();
                log.push((Instant::now(), req.clone()));
                log.len() - 1
            };
            answer(index, &body)
        })
        .mount(&server)
        .await;
    (server, seen)
}

fn header(req: &wiremock::Request, name: &str) -> Option<String> {
    req.headers.get(name).map(|v| v.to_str().unwrap().to_string())
}

// ---------------------------------------------------------------------------------
// A raw HTTP/1.1 server for byte-level control
// ---------------------------------------------------------------------------------

#[derive(Clone)]
enum Step {
    /// Write these bytes and flush.
    Send(Vec<u8>),
    /// Sleep this many milliseconds.
    Pause(u64),
}

struct RawRequest {
    at: Instant,
    head: String,
    body: Vec<u8>,
}

impl RawRequest {
    fn request_line(&self) -> &str {
        self.head.lines().next().unwrap_or("")
    }
    fn header(&self, name: &str) -> Option<String> {
        self.head.lines().skip(1).find_map(|line| {
            let (k, v) = line.split_once(':')?;
            k.trim().eq_ignore_ascii_case(name).then(|| v.trim().to_string())
        })
    }
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("request body is JSON")
    }
}

struct RawServer {
    base: String,
    log: Arc<Mutex<Vec<RawRequest>>>,
    /// The most requests the server was handling at one moment.
    peak: Arc<AtomicUsize>,
}

impl RawServer {
    fn count(&self) -> usize {
        self.log.lock().unwrap().len()
    }
    fn times(&self) -> Vec<Instant> {
        self.log.lock().unwrap().iter().map(|r| r.at).collect()
    }
}

/// Connection `i` (one request each) is answered with `plans[min(i, last)]`, after
/// `think` during which the request counts as being handled. When a plan's steps are
/// done the socket is shut down and dropped: an empty plan is a dropped connection.
async fn raw_server(plans: Vec<Vec<Step>>, think: Duration) -> RawServer {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let log = Arc::new(Mutex::new(Vec::new()));
    let active = Arc::new(AtomicUsize::new(0));
    let peak = Arc::new(AtomicUsize::new(0));
    let server = RawServer { base, log: log.clone(), peak: peak.clone() };
    tokio::spawn(async move {
        let mut connection = 0usize;
        loop {
            let Ok((stream, _)) = listener.accept().await else { return };
            let plan = plans[connection.min(plans.len() - 1)].clone();
            connection += 1;
            let (log, active, peak) = (log.clone(), active.clone(), peak.clone());
            tokio::spawn(async move {
                handle(stream, plan, think, log, active, peak).await;
            });
        }
    });
    server
}

async fn handle(
    mut stream: TcpStream,
    plan: Vec<Step>,
    think: Duration,
    log: Arc<Mutex<Vec<RawRequest>>>,
    active: Arc<AtomicUsize>,
    peak: Arc<AtomicUsize>,
) {
    stream.set_nodelay(true).unwrap();
    let Some((head, body)) = read_request(&mut stream).await else { return };
    let now = active.fetch_add(1, Ordering::SeqCst) + 1;
    peak.fetch_max(now, Ordering::SeqCst);
    log.lock().unwrap().push(RawRequest { at: Instant::now(), head, body });
    tokio::time::sleep(think).await;
    // The request is answered from here on; the client may send the next one.
    active.fetch_sub(1, Ordering::SeqCst);
    for step in plan {
        match step {
            Step::Send(bytes) => {
                if stream.write_all(&bytes).await.is_err() || stream.flush().await.is_err() {
                    return;
                }
            }
            Step::Pause(ms) => tokio::time::sleep(Duration::from_millis(ms)).await,
        }
    }
    let _ = stream.shutdown().await;
}

pub(crate) async fn read_request(stream: &mut TcpStream) -> Option<(String, Vec<u8>)> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let length = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim().eq_ignore_ascii_case("content-length").then(|| v.trim().parse::<usize>().ok())?
        })
        .unwrap_or(0);
    while buf.len() < head_end + length {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    Some((head, buf[head_end..head_end + length].to_vec()))
}

/// A complete JSON answer with a Content-Length.
fn json_reply(status: &str, body: &Value) -> Vec<Step> {
    let body = body.to_string();
    vec![Step::Send(
        format!(
            "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .into_bytes(),
    )]
}

/// A read that never gets an answer within `ms`.
fn hang(ms: u64) -> Vec<Step> {
    vec![Step::Pause(ms)]
}

/// An event stream sent as HTTP chunks, one per piece, each flushed and sent a few
/// milliseconds after the last (hyper hands each chunk on as its own piece of body).
/// Without `complete` the connection is closed where the terminating chunk should be.
fn sse_chunked(pieces: &[Vec<u8>], complete: bool) -> Vec<Step> {
    let mut steps = vec![Step::Send(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            .to_vec(),
    )];
    for piece in pieces {
        let mut framed = format!("{:x}\r\n", piece.len()).into_bytes();
        framed.extend_from_slice(piece);
        framed.extend_from_slice(b"\r\n");
        steps.push(Step::Send(framed));
        steps.push(Step::Pause(4));
    }
    if complete {
        steps.push(Step::Send(b"0\r\n\r\n".to_vec()));
    }
    steps
}

/// An event stream whose body ends where the connection closes (no length, no chunks).
fn sse_close_delimited(pieces: &[Vec<u8>]) -> Vec<Step> {
    let mut steps =
        vec![Step::Send(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n".to_vec())];
    for piece in pieces {
        steps.push(Step::Send(piece.clone()));
        steps.push(Step::Pause(4));
    }
    steps
}

/// `body` cut at each (first occurrence of needle + offset) and every `every` bytes.
fn split(body: &str, needles: &[(&str, usize)], every: usize) -> Vec<Vec<u8>> {
    let bytes = body.as_bytes();
    let mut cuts: Vec<usize> = needles
        .iter()
        .map(|(needle, offset)| {
            let at = body.find(needle).unwrap_or_else(|| panic!("{needle:?} is not in the stream"));
            assert!(*offset < needle.len(), "cut {offset} is outside {needle:?}");
            at + offset
        })
        .collect();
    cuts.extend((every..bytes.len()).step_by(every));
    cuts.push(bytes.len());
    cuts.sort_unstable();
    cuts.dedup();
    let mut pieces = Vec::new();
    let mut start = 0;
    for cut in cuts {
        if cut > start {
            pieces.push(bytes[start..cut].to_vec());
            start = cut;
        }
    }
    // Some cuts really fall inside a UTF-8 character.
    assert!(pieces.iter().any(|p| std::str::from_utf8(p).is_err()), "no piece splits a character");
    pieces
}

// ---------------------------------------------------------------------------------
// Stream bodies
// ---------------------------------------------------------------------------------

const OPENAI_DELTAS: &[&str] = &["Caf", "é — naïve ", "résumé 🦀", " done.\n"];

fn openai_chunk(delta: Value, finish: Value) -> String {
    json!({
        "id": "chatcmpl-9",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": "gpt-test-0125",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]
    })
    .to_string()
}

/// An OpenAI stream: a comment, a role chunk, the deltas (some events ending in CRLF),
/// the finish chunk, the usage chunk and `[DONE]`; `cut` stops after that many deltas.
fn openai_stream(cut: Option<usize>) -> String {
    let mut body = String::from(": keep-alive\n\n");
    body += &format!("data: {}\n\n", openai_chunk(json!({"role": "assistant", "content": ""}), Value::Null));
    for (i, delta) in OPENAI_DELTAS.iter().enumerate() {
        if cut == Some(i) {
            return body;
        }
        let end = if i % 2 == 0 { "\r\n\r\n" } else { "\n\n" };
        body += &format!("data: {}{end}", openai_chunk(json!({"content": delta}), Value::Null));
    }
    body += &format!("data: {}\n\n", openai_chunk(json!({}), json!("stop")));
    let usage = json!({
        "id": "chatcmpl-9",
        "object": "chat.completion.chunk",
        "model": "gpt-test-0125",
        "choices": [],
        "usage": {"prompt_tokens": 31, "completion_tokens": 9, "total_tokens": 40}
    });
    body += &format!("data: {usage}\n\ndata: [DONE]\n\n");
    body
}

fn openai_pieces(body: &str) -> Vec<Vec<u8>> {
    split(
        body,
        &[
            ("data: {", 2),     // inside "data:"
            ("\r\n\r\n", 1),    // between \r and \n
            ("\r\n\r\n", 3),    // between the two line ends
            ("\n\ndata", 1),    // between \n and \n
            ("\"content\"", 4), // inside the JSON
            ("é", 1),           // inside a two-byte character
            ("—", 1),           // inside a three-byte character, twice
            ("—", 2),
            ("🦀", 1), // inside a four-byte character, three times
            ("🦀", 2),
            ("🦀", 3),
            ("[DONE]", 3),
        ],
        41,
    )
}

const ANTHROPIC_DELTAS: &[&str] = &["Hé", "llo — wor", "ld 🎉, ", "ça va?"];

fn anthropic_event(name: &str, data: Value, crlf: bool) -> String {
    if crlf { format!("event: {name}\r\ndata: {data}\r\n\r\n") } else { format!("event: {name}\ndata: {data}\n\n") }
}

/// An Anthropic stream; `cut` stops after that many deltas (no `message_stop`).
fn anthropic_stream(cut: Option<usize>) -> String {
    let mut body = anthropic_event(
        "message_start",
        json!({"type": "message_start", "message": {
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test-20250101",
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 5, "cache_read_input_tokens": 20, "output_tokens": 1}
        }}),
        false,
    );
    body += &anthropic_event(
        "content_block_start",
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        true,
    );
    body += &anthropic_event("ping", json!({"type": "ping"}), false);
    for (i, delta) in ANTHROPIC_DELTAS.iter().enumerate() {
        if cut == Some(i) {
            return body;
        }
        body += &anthropic_event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": delta}}),
            i % 2 == 1,
        );
        if i == 1 {
            body += &anthropic_event("ping", json!({"type": "ping"}), true);
        }
    }
    body += &anthropic_event("content_block_stop", json!({"type": "content_block_stop", "index": 0}), false);
    body += &anthropic_event(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null},
               "usage": {"output_tokens": 15}}),
        true,
    );
    body += &anthropic_event("message_stop", json!({"type": "message_stop"}), false);
    body
}

fn anthropic_pieces(body: &str) -> Vec<Vec<u8>> {
    split(
        body,
        &[
            ("event: message_start", 3), // inside "event:"
            ("data: {", 2),              // inside "data:"
            ("\r\n\r\n", 1),
            ("\r\n\r\n", 2),
            ("\n\nevent", 1),
            ("\"text_delta\"", 5), // inside the JSON
            ("é", 1),
            ("—", 1),
            ("—", 2),
            ("🎉", 1),
            ("🎉", 3),
            ("ç", 1),
            ("message_stop", 6),
        ],
        37,
    )
}

// ---------------------------------------------------------------------------------
// 1. OpenAI wire format, non-streaming
// ---------------------------------------------------------------------------------

#[tokio::test]
async fn openai_request_and_answer_on_the_wire() {
    let (server, seen) = mock_server(|_, body| {
        let content = if body.get("response_format").is_some() {
            r#"{"verdict":"continue","novelty":0.4}"#
        } else {
            "Shard by customer id."
        };
        ResponseTemplate::new(200).set_body_json(openai_answer(content))
    })
    .await;
    // As a hosted API is sent it (a server on this machine gets the rules in the user's turn).
    let provider = build(ProviderDef { system_message: Some(true), ..openai(&server.uri()) });

    let plain = expect_ok(provider.complete(&request()).await);
    assert_eq!(plain.text, "Shard by customer id.");
    assert_eq!(plain.model, "gpt-test-2024-08-06", "the model the server reports");
    assert_eq!(plain.usage.prompt_tokens, 17);
    assert_eq!(plain.usage.completion_tokens, 5);

    let answer = expect_ok(provider.complete(&structured()).await);
    assert_eq!(answer.text, r#"{"verdict":"continue","novelty":0.4}"#);

    let requests = seen.all();
    assert_eq!(requests.len(), 2);
    for (_, req) in &requests {
        assert_eq!(req.method.as_str(), "POST");
        assert_eq!(req.url.path(), "/v1/chat/completions");
        assert_eq!(header(req, "authorization").as_deref(), Some(format!("Bearer {KEY}").as_str()));
        assert!(header(req, "content-type").unwrap_or_default().starts_with("application/json"));
    }
    let bodies = seen.bodies();
    let body = &bodies[0];
    assert_eq!(body["model"], "gpt-test");
    assert_eq!(
        body["messages"],
        json!([{"role": "system", "content": SYSTEM}, {"role": "user", "content": PROMPT}]),
        "system then user, with the request's texts"
    );
    let temperature = body["temperature"].as_f64().expect("temperature is a number");
    assert!((temperature - 0.3).abs() < 1e-6, "temperature {temperature}");
    assert_eq!(body["max_tokens"], 512, "a compatible server gets max_tokens: {body}");
    assert!(body.get("max_completion_tokens").is_none(), "{body}");
    assert!(body.get("response_format").is_none(), "no schema, no response_format: {body}");
    assert_eq!(body["stream"], true, "every call streams, where the server streams: {body}");

    let body = &bodies[1];
    assert_eq!(body["response_format"]["type"], "json_schema", "{body}");
    assert_eq!(body["response_format"]["json_schema"]["name"], "verdict");
    assert_eq!(body["response_format"]["json_schema"]["schema"], schema().value);
}

/// A local model's chat template may drop the system message (llama-cpp-python's `gemma`
/// format does): to a server on this machine the rules open the user's turn, before the
/// shared context, so they reach the model and every call still shares its start.
#[tokio::test]
async fn a_server_on_this_machine_gets_the_rules_in_the_users_turn() {
    let (server, seen) = mock_server(|_, _| ResponseTemplate::new(200).set_body_json(openai_answer("ok"))).await;
    let provider = build(openai(&server.uri()));
    expect_ok(provider.complete(&Request { context: CONTEXT.into(), ..request() }).await);
    assert_eq!(
        seen.bodies()[0]["messages"],
        json!([{"role": "user", "content": format!("{SYSTEM}\n\n{CONTEXT}\n\n{PROMPT}")}]),
        "one user turn: the rules, the shared context, the request's own part"
    );
}

const CONTEXT: &str = "## About this project\n\nStack in Cargo.toml: sqlx 0.8 with postgres (database).";

#[tokio::test]
async fn openai_gets_the_shared_context_first_and_reports_cached_tokens() {
    let (server, seen) = mock_server(|_, _| {
        let mut answer = openai_answer("Use the database you have.");
        answer["usage"] = json!({"prompt_tokens": 2006, "completion_tokens": 5,
                                 "prompt_tokens_details": {"cached_tokens": 1920}});
        ResponseTemplate::new(200).set_body_json(answer)
    })
    .await;
    let provider = build(ProviderDef { system_message: Some(true), ..openai(&server.uri()) });

    let completion = expect_ok(provider.complete(&Request { context: CONTEXT.into(), ..request() }).await);
    assert_eq!((completion.usage.prompt_tokens, completion.usage.cached_tokens), (2006, 1920));
    let body = &seen.bodies()[0];
    assert_eq!(
        body["messages"][1],
        json!({"role": "user", "content": format!("{CONTEXT}\n\n{PROMPT}")}),
        "the context is the start of the user message, so a prefix cache can serve it"
    );
}

#[tokio::test]
async fn openai_groups_a_debates_calls_by_prompt_cache_key_only_where_asked() {
    let (server, seen) = mock_server(|_, _| ResponseTemplate::new(200).set_body_json(openai_answer("ok"))).await;
    let keyed = Request { cache_key: Some("DEB-abc123".into()), ..request() };
    expect_ok(build(openai(&server.uri())).complete(&keyed).await);
    let mut config = openai(&server.uri());
    config.prompt_cache_key = Some(true);
    expect_ok(build(config).complete(&keyed).await);
    let bodies = seen.bodies();
    assert!(bodies[0].get("prompt_cache_key").is_none(), "not to a server that did not ask: {}", bodies[0]);
    assert_eq!(bodies[1]["prompt_cache_key"], "DEB-abc123");
}

#[tokio::test]
async fn anthropic_marks_the_context_and_the_debate_so_far_as_cacheable() {
    let (server, seen) = mock_server(|_, _| {
        ResponseTemplate::new(200).set_body_json(json!({
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test-20250101",
            "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
            "usage": {"input_tokens": 40, "output_tokens": 1}
        }))
    })
    .await;
    let prompt = format!("## The debate so far\n\nRound 1 in full.\n{PROMPT}");
    let shared = prompt.find(PROMPT).unwrap();
    let request = Request { context: CONTEXT.into(), prompt: prompt.clone(), shared, ..request() };
    expect_ok(build(anthropic(&server.uri())).complete(&request).await);
    let content = &seen.bodies()[0]["messages"][0]["content"];
    let texts: Vec<&str> = content.as_array().unwrap().iter().map(|b| b["text"].as_str().unwrap()).collect();
    assert_eq!(texts, [CONTEXT, &prompt[..shared], PROMPT], "the prompt as sent, in three blocks");
    let marked: Vec<bool> = content.as_array().unwrap().iter().map(|b| b.get("cache_control").is_some()).collect();
    assert_eq!(marked, [true, true, false], "a breakpoint after each shared part, none on the call's own");
}

#[tokio::test]
async fn openai_sends_max_completion_tokens_when_configured() {
    let (server, seen) = mock_server(|_, _| ResponseTemplate::new(200).set_body_json(openai_answer("ok"))).await;
    let mut config = openai(&server.uri());
    config.token_parameter = Some(TokenParameter::MaxCompletionTokens);
    let provider = build(config);

    expect_ok(provider.complete(&request()).await);
    let body = &seen.bodies()[0];
    assert_eq!(body["max_completion_tokens"], 512, "{body}");
    assert!(body.get("max_tokens").is_none(), "only one limit field: {body}");
}

// ---------------------------------------------------------------------------------
// 2. OpenAI streaming
// ---------------------------------------------------------------------------------

#[tokio::test]
async fn openai_stream_split_at_awkward_boundaries_yields_the_exact_text() {
    let body = openai_stream(None);
    let server = raw_server(vec![sse_chunked(&openai_pieces(&body), true)], Duration::ZERO).await;
    let provider = build(openai(&server.base));
    let (request, deltas) = streaming();

    let completion = expect_ok(provider.complete(&request).await);

    let expected: String = OPENAI_DELTAS.concat();
    assert_eq!(non_empty(&deltas), OPENAI_DELTAS, "every delta reaches the sink, whole and in order");
    assert_eq!(completion.text, expected);
    assert_eq!(completion.text, deltas.lock().unwrap().concat(), "the text is the deltas joined");
    assert_eq!(completion.model, "gpt-test-0125");
    assert_eq!(completion.usage.prompt_tokens, 31, "usage from the final chunk");
    assert_eq!(completion.usage.completion_tokens, 9, "usage from the final chunk");

    assert_eq!(server.count(), 1);
    let log = server.log.lock().unwrap();
    assert_eq!(log[0].request_line(), "POST /v1/chat/completions HTTP/1.1");
    assert_eq!(log[0].header("authorization").as_deref(), Some(format!("Bearer {KEY}").as_str()));
    let sent = log[0].json();
    assert_eq!(sent["stream"], true, "{sent}");
    assert_eq!(sent["stream_options"]["include_usage"], true, "{sent}");
}

#[tokio::test]
async fn openai_stream_in_a_close_delimited_body_split_inside_characters() {
    // The same stream with no chunked framing: the body ends when the socket closes,
    // and a character may be split across two TCP segments.
    let body = openai_stream(None);
    let server = raw_server(vec![sse_close_delimited(&openai_pieces(&body))], Duration::ZERO).await;
    let provider = build(openai(&server.base));
    let (request, deltas) = streaming();

    let completion = expect_ok(provider.complete(&request).await);
    assert_eq!(completion.text, OPENAI_DELTAS.concat());
    assert_eq!(non_empty(&deltas), OPENAI_DELTAS);
    assert_eq!((completion.usage.prompt_tokens, completion.usage.completion_tokens), (31, 9));
    assert_eq!(server.count(), 1);
}

// ---------------------------------------------------------------------------------
// 3. Anthropic wire format, non-streaming
// ---------------------------------------------------------------------------------

#[tokio::test]
async fn anthropic_request_and_answer_on_the_wire() {
    let (server, seen) = mock_server(|_, body| {
        let answer = if body.get("tools").is_some() {
            json!({
                "id": "msg_2", "type": "message", "role": "assistant", "model": "claude-test-20250101",
                "content": [{"type": "tool_use", "id": "toolu_1", "name": "verdict",
                             "input": {"verdict": "stop", "novelty": 0.1}}],
                "stop_reason": "tool_use",
                "usage": {"input_tokens": 21, "output_tokens": 9}
            })
        } else {
            json!({
                "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test-20250101",
                "content": [{"type": "text", "text": "Shard later; partition first."}],
                "stop_reason": "end_turn",
                "usage": {"input_tokens": 12, "output_tokens": 7}
            })
        };
        ResponseTemplate::new(200).set_body_json(answer)
    })
    .await;
    let provider = build(anthropic(&server.uri()));

    let unlimited = Request { max_tokens: None, ..request() };
    let plain = expect_ok(provider.complete(&unlimited).await);
    assert_eq!(plain.text, "Shard later; partition first.");
    assert_eq!(plain.model, "claude-test-20250101");
    assert_eq!((plain.usage.prompt_tokens, plain.usage.completion_tokens), (12, 7));

    let answer = expect_ok(provider.complete(&structured()).await);
    let parsed: Value = serde_json::from_str(&answer.text).expect("the tool input is the answer, as JSON");
    assert_eq!(parsed, json!({"verdict": "stop", "novelty": 0.1}));
    assert_eq!((answer.usage.prompt_tokens, answer.usage.completion_tokens), (21, 9));

    let requests = seen.all();
    assert_eq!(requests.len(), 2);
    for (_, req) in &requests {
        assert_eq!(req.method.as_str(), "POST");
        assert_eq!(req.url.path(), "/v1/messages");
        assert_eq!(header(req, "x-api-key").as_deref(), Some(KEY));
        assert_eq!(header(req, "anthropic-version").as_deref(), Some("2023-06-01"));
        assert!(header(req, "authorization").is_none(), "Anthropic takes the key in x-api-key only");
    }
    let bodies = seen.bodies();
    let body = &bodies[0];
    assert_eq!(body["model"], "claude-test");
    let limit = body["max_tokens"].as_u64().expect("max_tokens is required by the Messages API, even unlimited");
    assert!(limit > 0, "{body}");
    assert_eq!(body["system"], SYSTEM);
    assert_eq!(body["messages"], json!([{"role": "user", "content": [{"type": "text", "text": PROMPT}]}]));
    assert!(body.get("tools").is_none() && body.get("tool_choice").is_none(), "{body}");

    let body = &bodies[1];
    assert_eq!(body["max_tokens"], 512, "the request's limit when it has one");
    assert_eq!(body["tools"][0]["name"], "verdict");
    assert_eq!(body["tools"][0]["input_schema"], schema().value);
    assert_eq!(body["tool_choice"], json!({"type": "tool", "name": "verdict"}));
}

#[tokio::test]
async fn anthropic_marks_the_shared_context_for_caching_and_reports_cached_tokens() {
    let (server, seen) = mock_server(|_, _| {
        ResponseTemplate::new(200).set_body_json(json!({
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test-20250101",
            "content": [{"type": "text", "text": "Use the database you have."}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 40, "cache_read_input_tokens": 1900, "cache_creation_input_tokens": 60,
                      "output_tokens": 7}
        }))
    })
    .await;
    let provider = build(anthropic(&server.uri()));

    let completion = expect_ok(provider.complete(&Request { context: CONTEXT.into(), ..request() }).await);
    assert_eq!(
        (completion.usage.prompt_tokens, completion.usage.cached_tokens),
        (2000, 1900),
        "the prompt is the uncached, cache-read and cache-written tokens together"
    );
    let body = &seen.bodies()[0];
    assert_eq!(
        body["messages"],
        json!([{"role": "user", "content": [
            {"type": "text", "text": CONTEXT, "cache_control": {"type": "ephemeral"}},
            {"type": "text", "text": PROMPT}
        ]}]),
        "the stable block first, marked for the prompt cache; this call's part after it"
    );
}

// ---------------------------------------------------------------------------------
// 4. Anthropic streaming
// ---------------------------------------------------------------------------------

#[tokio::test]
async fn anthropic_stream_split_at_awkward_boundaries_yields_the_exact_text() {
    let body = anthropic_stream(None);
    let server = raw_server(vec![sse_chunked(&anthropic_pieces(&body), true)], Duration::ZERO).await;
    let provider = build(anthropic(&server.base));
    let (request, deltas) = streaming();

    let completion = expect_ok(provider.complete(&request).await);

    assert_eq!(non_empty(&deltas), ANTHROPIC_DELTAS, "every text_delta reaches the sink, in order");
    assert_eq!(completion.text, ANTHROPIC_DELTAS.concat());
    assert_eq!(completion.text, deltas.lock().unwrap().concat());
    assert_eq!(completion.model, "claude-test-20250101");
    assert_eq!(completion.usage.prompt_tokens, 25, "input and cache-read tokens from message_start");
    assert_eq!(completion.usage.cached_tokens, 20, "cache-read tokens from message_start");
    assert_eq!(completion.usage.completion_tokens, 15, "output_tokens from message_delta");

    assert_eq!(server.count(), 1);
    let log = server.log.lock().unwrap();
    assert_eq!(log[0].request_line(), "POST /v1/messages HTTP/1.1");
    assert_eq!(log[0].header("x-api-key").as_deref(), Some(KEY));
    assert_eq!(log[0].header("anthropic-version").as_deref(), Some("2023-06-01"));
    assert_eq!(log[0].json()["stream"], true);
}

// ---------------------------------------------------------------------------------
// 5. Faults
// ---------------------------------------------------------------------------------

#[tokio::test]
async fn retry_after_is_honoured_on_429() {
    let (server, seen) = mock_server(|i, _| match i {
        0 => ResponseTemplate::new(429)
            .insert_header("retry-after", "1")
            .set_body_json(json!({"error": {"message": "Rate limit reached", "type": "rate_limit_error"}})),
        _ => ResponseTemplate::new(200).set_body_json(openai_answer("after the wait")),
    })
    .await;
    let provider = build(openai(&server.uri()));

    let completion = expect_ok(provider.complete(&request()).await);
    assert_eq!(completion.text, "after the wait");
    let times: Vec<Instant> = seen.all().iter().map(|(t, _)| *t).collect();
    assert_eq!(times.len(), 2);
    let gap = times[1] - times[0];
    assert!(gap >= Duration::from_millis(950), "the retry came {gap:?} after the 429, not the 1 s asked for");
    assert!(gap < Duration::from_secs(5), "the retry waited {gap:?}");
}

#[tokio::test]
async fn server_error_then_success() {
    let (server, seen) = mock_server(|i, _| match i {
        0 => ResponseTemplate::new(500).set_body_json(json!({"error": {"message": "internal error"}})),
        _ => ResponseTemplate::new(200).set_body_json(openai_answer("recovered")),
    })
    .await;
    let provider = build(openai(&server.uri()));
    let completion = expect_ok(provider.complete(&request()).await);
    assert_eq!(completion.text, "recovered");
    assert_eq!(seen.len(), 2);
    assert_eq!(seen.bodies()[0], seen.bodies()[1], "the retry sends the same request");
}

#[tokio::test]
async fn unavailable_every_time_gives_up_after_max_retries() {
    let (server, seen) = mock_server(|_, _| {
        ResponseTemplate::new(503).set_body_json(json!({"error": {"message":
            format!("overloaded; you sent authorization: Bearer {KEY}")}}))
    })
    .await;
    let provider = build(openai(&server.uri())); // max_retries: 2
    let err = expect_err(provider.complete(&request()).await);
    assert_eq!(seen.len(), 3, "max_retries + 1 requests");
    assert_service_failure(&err);
    assert_no_key(&err, KEY);

    // The same for Anthropic's 529 ("overloaded").
    let (server, seen) = mock_server(|_, _| {
        ResponseTemplate::new(529).set_body_json(
            json!({"type": "error", "error": {"type": "overloaded_error", "message": format!("Overloaded {KEY}")}}),
        )
    })
    .await;
    let mut config = anthropic(&server.uri());
    config.max_retries = Some(1);
    let err = expect_err(build(config).complete(&request()).await);
    assert_eq!(seen.len(), 2, "max_retries + 1 requests");
    assert_service_failure(&err);
    assert_no_key(&err, KEY);
}

#[tokio::test]
async fn dropped_connection_then_success() {
    let server =
        raw_server(vec![vec![], json_reply("200 OK", &openai_answer("second time lucky"))], Duration::ZERO).await;
    let provider = build(openai(&server.base));
    let completion = expect_ok(provider.complete(&request()).await);
    assert_eq!(completion.text, "second time lucky");
    assert_eq!(server.count(), 2);
}

/// A server that may still be computing is never sent the request again: a second
/// request would only queue behind the first on a server that answers one at a time.
#[tokio::test]
async fn a_call_past_its_limit_is_not_sent_again() {
    let server = raw_server(vec![hang(4_000), json_reply("200 OK", &openai_answer("awake now"))], Duration::ZERO).await;
    let mut config = openai(&server.base);
    config.timeout_seconds = Some(1);
    let provider = build(config);

    let err = expect_err(provider.complete(&request()).await);
    assert_service_failure(&err);
    assert_eq!(server.count(), 1, "one request: {err}");
    assert!(err.to_string().contains("timeout_seconds"), "names the limit: {err}");
    assert!(err.hint().unwrap_or_default().contains("debate resume"), "{err}");
}

#[tokio::test]
async fn a_hanging_anthropic_call_is_not_sent_again() {
    let server = raw_server(vec![hang(4_000)], Duration::ZERO).await;
    let mut config = anthropic(&server.base);
    config.timeout_seconds = Some(1);
    config.max_retries = Some(1);
    let provider = build(config);

    let started = Instant::now();
    let err = expect_err(provider.complete(&request()).await);
    assert_service_failure(&err);
    assert_eq!(server.count(), 1, "a server that may still be computing is not asked again");
    assert!(started.elapsed() < Duration::from_secs(5), "gave up after {:?}", started.elapsed());
    assert!(err.to_string().contains("took longer than its limit"), "says it timed out: {}", err);
}

#[tokio::test]
async fn a_200_whose_body_is_not_json_is_a_provider_error() {
    for kind in [ProviderKind::Openai, ProviderKind::Anthropic] {
        let (server, seen) = mock_server(|_, _| {
            ResponseTemplate::new(200).set_body_raw("<html><body>502 Bad Gateway (proxy)</body></html>", "text/html")
        })
        .await;
        let mut config = base_config(kind, format!("{}/v1", server.uri()));
        config.max_retries = Some(1);
        let err = expect_err(build(config).complete(&request()).await);
        assert_service_failure(&err);
        assert!(err.to_string().contains("JSON"), "{kind:?}: says the answer was not JSON: {}", err);
        assert!((1..=2).contains(&seen.len()), "{kind:?}: {} requests for max_retries 1", seen.len());
        assert_no_key(&err, KEY);
    }
}

#[tokio::test]
async fn openai_stream_cut_before_done_then_a_full_stream() {
    let cut = openai_stream(Some(2));
    let full = openai_stream(None);
    let server = raw_server(
        vec![sse_close_delimited(&[cut.into_bytes()]), sse_chunked(&openai_pieces(&full), true)],
        Duration::ZERO,
    )
    .await;
    let provider = build(openai(&server.base));
    let (request, deltas) = streaming();

    let completion = expect_ok(provider.complete(&request).await);
    assert_eq!(server.count(), 2, "a stream that ends without [DONE] or finish_reason is retried");
    assert_eq!(completion.text, OPENAI_DELTAS.concat(), "the text is the full stream's, not the cut one's");
    assert_eq!((completion.usage.prompt_tokens, completion.usage.completion_tokens), (31, 9));
    let shown = deltas.lock().unwrap().concat();
    assert!(shown.ends_with(&completion.text), "the sink saw the full answer last: {shown:?}");
}

/// A `data:` line that never ends (20 MiB in 64 KiB pieces, no newline) is read in one
/// pass and given up at the event bound as a broken stream, which is tried again; a
/// reader that rescanned its buffer would hold a core for minutes on it.
#[tokio::test]
async fn an_endless_event_line_is_given_up_at_its_bound_and_tried_again() {
    let mut endless = b"data: {\"choices\":[{\"delta\":{\"content\":\"".to_vec();
    endless.extend(std::iter::repeat_n(b'a', 20 << 20));
    let pieces: Vec<Vec<u8>> = endless.chunks(64 << 10).map(<[u8]>::to_vec).collect();
    let mut endless_plan = sse_close_delimited(&[]);
    endless_plan.extend(pieces.into_iter().map(Step::Send));
    let full = openai_stream(None);
    let server = raw_server(vec![endless_plan, sse_chunked(&openai_pieces(&full), true)], Duration::ZERO).await;
    let mut config = openai(&server.base);
    config.timeout_seconds = Some(600);
    let provider = build(config);
    let (request, _) = streaming();
    let completion = expect_ok(provider.complete(&request).await);
    assert_eq!(server.count(), 2, "the broken stream is tried again");
    assert_eq!(completion.text, OPENAI_DELTAS.concat());
}

#[tokio::test]
async fn anthropic_stream_cut_before_message_stop_then_a_full_stream() {
    let cut = anthropic_stream(Some(2));
    let full = anthropic_stream(None);
    // The first body is chunked and the connection closes without the last chunk.
    let server = raw_server(
        vec![sse_chunked(&[cut.into_bytes()], false), sse_chunked(&anthropic_pieces(&full), true)],
        Duration::ZERO,
    )
    .await;
    let provider = build(anthropic(&server.base));
    let (request, deltas) = streaming();

    let completion = expect_ok(provider.complete(&request).await);
    assert_eq!(server.count(), 2);
    assert_eq!(completion.text, ANTHROPIC_DELTAS.concat());
    assert_eq!((completion.usage.prompt_tokens, completion.usage.completion_tokens), (25, 15));
    let shown = deltas.lock().unwrap().concat();
    assert!(shown.ends_with(&completion.text), "the sink saw the full answer last: {shown:?}");

    // A stream that ends cleanly (terminating chunk sent) but without message_stop is
    // just as incomplete.
    let server = raw_server(
        vec![sse_chunked(&[anthropic_stream(Some(3)).into_bytes()], true), sse_chunked(&[full.into_bytes()], true)],
        Duration::ZERO,
    )
    .await;
    let (request, _) = streaming();
    let completion = expect_ok(build(anthropic(&server.base)).complete(&request).await);
    assert_eq!(server.count(), 2);
    assert_eq!(completion.text, ANTHROPIC_DELTAS.concat());
}

#[tokio::test]
async fn unauthorized_is_not_retried_and_never_shows_the_key() {
    // OpenAI, with the key written in settings. (A key read from a variable is named by
    // its variable: providers_e2e checks that through the binary.)
    let (server, seen) = mock_server(|_, _| {
        ResponseTemplate::new(401).set_body_json(json!({"error": {
            "message": format!("Incorrect API key provided: {KEY}. Request headers: authorization: Bearer {KEY}"),
            "type": "invalid_request_error", "code": "invalid_api_key"
        }}))
    })
    .await;
    let mut config = openai(&server.uri());
    config.max_retries = Some(3);
    let err = expect_err(build(config).complete(&request()).await);
    assert_eq!(seen.len(), 1, "a 401 is not retried");
    assert_eq!(header(&seen.all()[0].1, "authorization").as_deref(), Some(format!("Bearer {KEY}").as_str()));
    assert_service_failure(&err);
    assert!(shown(&err).contains("api_key in your settings"), "says where the key is: {}", shown(&err));
    assert_no_key(&err, KEY);

    // Anthropic, with the key written in settings: it says so, and never shows it.
    let (server, seen) = mock_server(|_, _| {
        ResponseTemplate::new(401).set_body_json(json!({"type": "error", "error": {
            "type": "authentication_error", "message": format!("invalid x-api-key: {KEY}")
        }}))
    })
    .await;
    let mut config = anthropic(&server.uri());
    config.max_retries = Some(3);
    let err = expect_err(build(config).complete(&request()).await);
    assert_eq!(seen.len(), 1, "a 401 is not retried");
    assert_service_failure(&err);
    assert!(shown(&err).contains("api_key"), "says the key is the one in settings: {}", shown(&err));
    assert_no_key(&err, KEY);
}

#[tokio::test]
async fn not_found_names_the_model_and_base_url() {
    let (server, seen) = mock_server(|_, _| {
        ResponseTemplate::new(404).set_body_json(json!({"error": {
            "message": "The model `gpt-test` does not exist or you do not have access to it.",
            "type": "invalid_request_error", "code": "model_not_found"
        }}))
    })
    .await;
    let base_url = format!("{}/v1", server.uri());
    let err = expect_err(build(openai(&server.uri())).complete(&request()).await);
    assert_eq!(seen.len(), 1, "a 404 is not retried");
    assert_service_failure(&err);
    assert!(err.to_string().contains("gpt-test"), "names the model: {}", err);
    assert!(err.to_string().contains(&base_url), "names the base_url {base_url}: {}", err);
}

// ---------------------------------------------------------------------------------
// 6. Structured-output downgrade
// ---------------------------------------------------------------------------------

fn format_of(body: &Value) -> Option<String> {
    body.get("response_format").map(|f| f["type"].as_str().unwrap_or("?").to_string())
}

#[tokio::test]
async fn a_rejected_json_schema_steps_down_to_json_object_and_is_remembered() {
    let (server, seen) = mock_server(|_, body| match format_of(body).as_deref() {
        Some("json_schema") => ResponseTemplate::new(400).set_body_json(json!({"error": {
            "message": "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
            "type": "invalid_request_error", "param": "response_format", "code": null
        }})),
        _ => ResponseTemplate::new(200).set_body_json(openai_answer(r#"{"verdict":"stop","novelty":0.0}"#)),
    })
    .await;
    let provider = build(openai(&server.uri()));

    let first = expect_ok(provider.complete(&structured()).await);
    assert_eq!(first.text, r#"{"verdict":"stop","novelty":0.0}"#);
    let formats: Vec<_> = seen.bodies().iter().map(format_of).collect();
    assert_eq!(formats, [Some("json_schema".to_string()), Some("json_object".to_string())]);

    expect_ok(provider.complete(&structured()).await);
    let formats: Vec<_> = seen.bodies().iter().map(format_of).collect();
    assert_eq!(formats.len(), 3, "the second call needs one request: {formats:?}");
    assert_eq!(formats[2].as_deref(), Some("json_object"), "the step down is remembered");
}

#[tokio::test]
async fn a_server_that_rejects_json_object_too_gets_no_response_format() {
    let (server, seen) = mock_server(|_, body| match format_of(body) {
        Some(kind) => ResponseTemplate::new(400).set_body_json(json!({"error": {
            "message": format!("response_format of type '{kind}' is not supported by this server"),
            "type": "invalid_request_error"
        }})),
        None => ResponseTemplate::new(200).set_body_json(openai_answer(r#"{"verdict":"continue","novelty":1}"#)),
    })
    .await;
    let provider = build(openai(&server.uri()));

    let first = expect_ok(provider.complete(&structured()).await);
    assert_eq!(first.text, r#"{"verdict":"continue","novelty":1}"#);
    let formats: Vec<_> = seen.bodies().iter().map(format_of).collect();
    assert_eq!(formats, [Some("json_schema".to_string()), Some("json_object".to_string()), None]);

    expect_ok(provider.complete(&structured()).await);
    let formats: Vec<_> = seen.bodies().iter().map(format_of).collect();
    assert_eq!(formats.len(), 4, "the second call needs one request: {formats:?}");
    assert_eq!(formats[3], None, "the step down is remembered");
}

// ---------------------------------------------------------------------------------
// 7. max_concurrency
// ---------------------------------------------------------------------------------

#[tokio::test]
async fn max_concurrency_one_never_has_two_requests_in_flight() {
    let answer = json_reply("200 OK", &openai_answer("one at a time"));
    let server = raw_server(vec![answer.clone()], Duration::from_millis(300)).await;
    let mut config = openai(&server.base);
    config.max_concurrency = Some(1);
    let provider = build(config);

    let (first, second) = (request(), request());
    let (a, b) = tokio::join!(provider.complete(&first), provider.complete(&second));
    expect_ok(a);
    expect_ok(b);
    assert_eq!(server.count(), 2);
    assert_eq!(server.peak.load(Ordering::SeqCst), 1, "the server saw two requests at once");
    let times = server.times();
    assert!(times[1] - times[0] >= Duration::from_millis(290), "the second began {:?} after", times[1] - times[0]);

    // The harness does see overlap when it is allowed.
    let server = raw_server(vec![answer], Duration::from_millis(300)).await;
    let mut config = openai(&server.base);
    config.max_concurrency = Some(2);
    let provider = build(config);
    let (first, second) = (request(), request());
    let (a, b) = tokio::join!(provider.complete(&first), provider.complete(&second));
    expect_ok(a);
    expect_ok(b);
    assert_eq!(server.peak.load(Ordering::SeqCst), 2, "with max_concurrency 2 both go at once");
}

// ---------------------------------------------------------------------------------
// 8. Context length
// ---------------------------------------------------------------------------------

#[tokio::test]
async fn a_context_length_400_is_a_context_length_error_after_one_request() {
    let (server, seen) = mock_server(|_, _| {
        ResponseTemplate::new(400).set_body_json(json!({"error": {
            "message": "This model's maximum context length is 8192 tokens. However, your messages resulted in 9120 tokens. Please reduce the length of the messages.",
            "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"
        }}))
    })
    .await;
    let provider = build(openai(&server.uri()));
    let err = expect_err(provider.complete(&request()).await);
    assert!(err.retryable(), "{err}");
    assert_eq!(seen.len(), 1, "not retried");

    // A structured call is not mistaken for a rejected response_format.
    let err = expect_err(provider.complete(&structured()).await);
    assert!(err.retryable(), "{err}");
    assert_eq!(seen.len(), 2, "not retried, not stepped down");

    let (server, seen) = mock_server(|_, _| {
        ResponseTemplate::new(400).set_body_json(json!({"type": "error", "error": {
            "type": "invalid_request_error", "message": "prompt is too long: 210034 tokens > 200000 maximum"
        }}))
    })
    .await;
    let err = expect_err(build(anthropic(&server.uri())).complete(&request()).await);
    assert!(err.retryable(), "{err}");
    assert_eq!(seen.len(), 1, "not retried");
}

// ---------------------------------------------------------------------------------
// More faults: an error event inside a stream; the key echoed near a cut-off
// ---------------------------------------------------------------------------------

#[tokio::test]
async fn anthropic_error_event_mid_stream_then_a_full_stream() {
    let mut broken = anthropic_stream(Some(1));
    broken += &anthropic_event(
        "error",
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
        false,
    );
    let server = raw_server(
        vec![sse_chunked(&[broken.into_bytes()], true), sse_chunked(&anthropic_pieces(&anthropic_stream(None)), true)],
        Duration::ZERO,
    )
    .await;
    let (request, _) = streaming();
    let completion = expect_ok(build(anthropic(&server.base)).complete(&request).await);
    assert_eq!(server.count(), 2, "an overloaded_error event is retried");
    assert_eq!(completion.text, ANTHROPIC_DELTAS.concat());
}

/// Whether any run of `len` characters of `key` appears in `text`.
fn leaks(text: &str, key: &str, len: usize) -> Option<String> {
    (0..=key.len() - len).map(|i| &key[i..i + len]).find(|part| text.contains(part)).map(str::to_string)
}

#[tokio::test]
async fn a_key_echoed_in_a_long_error_body_never_shows_in_part() {
    // Servers' messages are shortened for display; the key must go before the cut, or a
    // prefix of it survives. The echo is placed at every offset around any likely cut.
    let padding = Arc::new(AtomicUsize::new(0));
    let pad = padding.clone();
    let (server, _) = mock_server(move |_, _| {
        let filler = "x".repeat(pad.load(Ordering::SeqCst));
        ResponseTemplate::new(403).set_body_json(json!({"error": {"message": format!("{filler} {KEY} was refused")}}))
    })
    .await;
    let mut config = openai(&server.uri());
    config.max_retries = Some(0);
    let provider = build(config);
    for n in (0..420).step_by(3) {
        padding.store(n, Ordering::SeqCst);
        let err = expect_err(provider.complete(&request()).await);
        if let Some(part) = leaks(&shown(&err), KEY, 10) {
            panic!("HTTP 403 body with the key after {n} characters: {part:?} shows in {:?}", err);
        }
    }
}

#[tokio::test]
async fn a_key_echoed_in_a_non_json_200_never_shows_in_part() {
    // The body is previewed in the message; the key must go before the preview is cut.
    let padding = Arc::new(AtomicUsize::new(0));
    let pad = padding.clone();
    let (server, _) = mock_server(move |_, _| {
        let filler = "x".repeat(pad.load(Ordering::SeqCst));
        ResponseTemplate::new(200).set_body_raw(format!("<p>{filler} {KEY} </p>"), "text/html")
    })
    .await;
    for kind in [ProviderKind::Openai, ProviderKind::Anthropic] {
        let mut settings = base_config(kind, format!("{}/v1", server.uri()));
        settings.max_retries = Some(0);
        let provider = build(settings);
        for n in (0..240).step_by(3) {
            padding.store(n, Ordering::SeqCst);
            let err = expect_err(provider.complete(&request()).await);
            if let Some(part) = leaks(&shown(&err), KEY, 10) {
                panic!("{kind:?}, non-JSON 200 with the key after {n} characters: {part:?} shows in {:?}", err);
            }
        }
    }
}

#[tokio::test]
async fn a_key_echoed_in_a_stream_error_event_never_shows_in_part() {
    // The event is previewed in the message; the key must go before the preview is cut.
    let padding = Arc::new(AtomicUsize::new(0));
    let pad = padding.clone();
    let (server, _) = mock_server(move |_, _| {
        let filler = "x".repeat(pad.load(Ordering::SeqCst));
        let event = json!({"error": {"message": format!("{filler} {KEY} quota"), "type": "server_error"}});
        ResponseTemplate::new(200).set_body_raw(format!("data: {event}\n\n"), "text/event-stream")
    })
    .await;
    let mut config = openai(&server.uri());
    config.max_retries = Some(0);
    let provider = build(config);
    for n in (0..240).step_by(3) {
        padding.store(n, Ordering::SeqCst);
        let (request, _) = streaming();
        let err = expect_err(provider.complete(&request).await);
        if let Some(part) = leaks(&shown(&err), KEY, 10) {
            panic!("stream error event with the key after {n} characters: {part:?} shows in {:?}", err);
        }
    }
}

// ---------------------------------------------------------------------------------
// Answers cut off at the completion limit
// ---------------------------------------------------------------------------------

#[tokio::test]
async fn an_answer_cut_off_at_the_limit_is_reported_on_both_wire_formats() {
    let (server, _) = mock_server(|_, _| {
        let mut answer = openai_answer("Shard by customer id, because");
        answer["choices"][0]["finish_reason"] = json!("length");
        ResponseTemplate::new(200).set_body_json(answer)
    })
    .await;
    assert!(expect_ok(build(openai(&server.uri())).complete(&request()).await).truncated, "finish_reason: length");
    let (server, _) = mock_server(|_, _| ResponseTemplate::new(200).set_body_json(openai_answer("Complete."))).await;
    assert!(!expect_ok(build(openai(&server.uri())).complete(&request()).await).truncated, "finish_reason: stop");

    let (server, _) = mock_server(|_, _| {
        ResponseTemplate::new(200).set_body_json(json!({
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
            "content": [{"type": "text", "text": "Partition first, because"}],
            "stop_reason": "max_tokens", "usage": {"input_tokens": 12, "output_tokens": 512}
        }))
    })
    .await;
    assert!(expect_ok(build(anthropic(&server.uri())).complete(&request()).await).truncated, "stop_reason: max_tokens");
}

#[tokio::test]
async fn a_streamed_answer_cut_off_at_the_limit_is_reported_on_both_wire_formats() {
    let cut = openai_stream(None).replace(r#""finish_reason":"stop""#, r#""finish_reason":"length""#);
    assert!(cut.contains(r#""finish_reason":"length""#), "the fixture names its finish reason");
    let server = raw_server(vec![sse_chunked(&openai_pieces(&cut), true)], Duration::ZERO).await;
    let (request, _) = streaming();
    assert!(expect_ok(build(openai(&server.base)).complete(&request).await).truncated);

    let cut = anthropic_stream(None).replace(r#""stop_reason":"end_turn""#, r#""stop_reason":"max_tokens""#);
    assert!(cut.contains(r#""stop_reason":"max_tokens""#), "the fixture names its stop reason");
    let server = raw_server(vec![sse_chunked(&anthropic_pieces(&cut), true)], Duration::ZERO).await;
    let (request, _) = streaming();
    assert!(expect_ok(build(anthropic(&server.base)).complete(&request).await).truncated);
    let whole = raw_server(vec![sse_chunked(&anthropic_pieces(&anthropic_stream(None)), true)], Duration::ZERO).await;
    let (request, _) = streaming();
    assert!(!expect_ok(build(anthropic(&whole.base)).complete(&request).await).truncated);
}

// ---------------------------------------------------------------------------------
// 9. Real servers: formats refused with any status, slow models, one request at a time
// ---------------------------------------------------------------------------------

/// llama-cpp-python answers `json_schema` with HTTP 500 (a validation error); other
/// servers with 422. Either steps down at once, without a retry, to `json_object` with
/// the schema beside it.
#[tokio::test]
async fn a_format_refused_with_500_or_422_steps_down_at_once() {
    let llama_cpp_python = json!({"error": {"message": "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}", "type": "internal_server_error", "param": null, "code": null}});
    let unprocessable =
        json!({"detail": [{"loc": ["body", "response_format"], "msg": "json_schema is not supported"}]});
    for (status, body) in [(500, llama_cpp_python), (422, unprocessable)] {
        let (server, seen) = mock_server(move |_, request| match format_of(request).as_deref() {
            Some("json_schema") => ResponseTemplate::new(status).set_body_json(body.clone()),
            _ => ResponseTemplate::new(200).set_body_json(openai_answer(r#"{"verdict":"stop","novelty":0.0}"#)),
        })
        .await;
        let provider = build(openai(&server.uri()));
        expect_ok(provider.complete(&structured()).await);
        let bodies = seen.bodies();
        let formats: Vec<_> = bodies.iter().map(format_of).collect();
        assert_eq!(formats, [Some("json_schema".into()), Some("json_object".into())], "HTTP {status}: no retry");
        assert_eq!(bodies[1]["response_format"]["schema"], schema().value, "the schema goes beside json_object");
    }
}

/// An OpenAI-compatible stream whose tokens arrive `gap_ms` apart.
fn slow_stream(tokens: usize, gap_ms: u64) -> Vec<Step> {
    let mut steps =
        vec![Step::Send(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n".to_vec())];
    for i in 0..tokens {
        let chunk = json!({"model": "gemma", "choices": [{"index": 0, "delta": {"content": format!("t{i} ")}, "finish_reason": null}]});
        steps.push(Step::Send(format!("data: {chunk}\n\n").into_bytes()));
        steps.push(Step::Pause(gap_ms));
    }
    let last = json!({"model": "gemma", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]});
    steps.push(Step::Send(format!("data: {last}\n\ndata: [DONE]\n\n").into_bytes()));
    steps
}

/// A model that keeps sending tokens is never cut off, however long it takes in all
/// (well past the idle limit); one that goes silent mid-answer is, and is not asked again.
#[tokio::test]
async fn a_slow_model_that_keeps_sending_is_never_cut_off_and_a_silent_one_is_not_asked_again() {
    let server = raw_server(vec![slow_stream(12, 250)], Duration::ZERO).await;
    let mut config = openai(&server.base);
    config.idle_timeout_seconds = Some(1);
    config.first_token_timeout_seconds = Some(1);
    config.timeout_seconds = Some(30);
    let completion = expect_ok(build(config.clone()).complete(&request()).await);
    assert!(completion.text.starts_with("t0 t1") && completion.text.contains("t11"), "{}", completion.text);
    assert_eq!(server.count(), 1);

    let mut silent = slow_stream(3, 50);
    silent.insert(4, Step::Pause(3_000));
    let server = raw_server(vec![silent], Duration::ZERO).await;
    let mut config = openai(&server.base);
    config.idle_timeout_seconds = Some(1);
    let err = expect_err(build(config).complete(&request()).await);
    assert_eq!(server.count(), 1, "the server may still be computing: {err}");
    assert!(err.to_string().contains("idle_timeout_seconds"), "{err}");
    assert!(err.hint().unwrap_or_default().contains("debate resume"), "{err}");
}

/// A server on this machine computes one answer at a time: it gets one request at a
/// time unless `max_concurrency` says otherwise.
#[tokio::test]
async fn a_server_on_this_machine_gets_one_request_at_a_time_by_default() {
    let answer = json_reply("200 OK", &openai_answer("one at a time"));
    let server = raw_server(vec![answer], Duration::from_millis(300)).await;
    assert!(server.base.starts_with("http://127.0.0.1"), "{}", server.base);
    let provider = build(openai(&server.base));
    let requests = [request(), request(), request()];
    let (a, b, c) =
        tokio::join!(provider.complete(&requests[0]), provider.complete(&requests[1]), provider.complete(&requests[2]));
    for result in [a, b, c] {
        expect_ok(result);
    }
    assert_eq!(server.peak.load(Ordering::SeqCst), 1, "the server saw two requests at once");
}

/// A server that answered is quoted and classified, never called unreachable; an
/// unknown model is not retried.
#[tokio::test]
async fn a_server_that_answered_is_quoted_not_called_unreachable() {
    let (server, seen) = mock_server(|_, _| {
        ResponseTemplate::new(500).set_body_json(
            json!({"error": {"message": "CUDA out of memory while loading", "type": "internal_server_error"}}),
        )
    })
    .await;
    let mut config = openai(&server.uri());
    config.max_retries = Some(1);
    let err = expect_err(build(config).complete(&request()).await);
    assert_eq!(seen.len(), 2, "a 500 is retried");
    assert!(err.to_string().contains("CUDA out of memory"), "quotes the server: {err}");
    let hint = err.hint().unwrap_or_default();
    assert!(hint.contains("HTTP 500") && !hint.contains("reachable"), "{hint}");

    let (server, seen) = mock_server(|_, _| {
        ResponseTemplate::new(400)
            .set_body_json(json!({"error": {"message": "model 'llama9' not found, try pulling it first"}}))
    })
    .await;
    let err = expect_err(build(openai(&server.uri())).complete(&request()).await);
    assert_eq!(seen.len(), 1, "an unknown model is not retried");
    assert!(err.to_string().contains("does not know model"), "{err}");
}

/// llama-cpp-python answers a prompt longer than its context with an event stream that
/// closes before any event: said as such, never as a server that cannot be reached.
#[tokio::test]
async fn a_stream_closed_before_the_first_token_says_what_it_may_mean() {
    let empty =
        vec![Step::Send(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n".to_vec())];
    let server = raw_server(vec![empty], Duration::ZERO).await;
    let mut config = openai(&server.base);
    config.max_retries = Some(1);
    let err = expect_err(build(config).complete(&request()).await);
    assert!(err.to_string().contains("before the first token") && err.to_string().contains("context"), "{err}");
    assert!(!err.hint().unwrap_or_default().contains("reachable"), "{err}");
}
