//! A mock OpenAI-compatible server on 127.0.0.1 that answers like a model would:
//! prose for debaters, JSON for the moderator, streaming when asked. Every request
//! body is logged; a test may answer any request itself to inject faults.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use wiremock::{Mock, MockServer, Request, ResponseTemplate, matchers};

/// Tokens the mock reports for every call.
pub const PROMPT_TOKENS: u64 = 100;
pub const COMPLETION_TOKENS: u64 = 40;
/// Of the prompt tokens, what the mock says its prefix cache served.
pub const CACHED_TOKENS: u64 = 64;

type Rule = dyn Fn(&Value, usize) -> Option<ResponseTemplate> + Send + Sync;

pub struct MockLlm {
    pub server: MockServer,
    log: Arc<Mutex<Vec<Value>>>,
}

impl MockLlm {
    /// A server whose moderator never sees agreement (debates run to max rounds).
    pub async fn start() -> MockLlm {
        Self::with_rule(|_, _| None).await
    }

    /// `rule(body, n)` may answer the n-th request (0-based) itself. The server lists its
    /// model as llama-cpp-python does (`owned_by: "me"`), so debate sends it one request
    /// at a time, as it does that server.
    pub async fn with_rule(
        rule: impl Fn(&Value, usize) -> Option<ResponseTemplate> + Send + Sync + 'static,
    ) -> MockLlm {
        Self::serving(rule, "me").await
    }

    /// A server that lists its model as the software `owned_by` names it (`vllm`: one that
    /// batches requests, so debate sends it several at once).
    pub async fn serving(
        rule: impl Fn(&Value, usize) -> Option<ResponseTemplate> + Send + Sync + 'static,
        owned_by: &str,
    ) -> MockLlm {
        Self::answering_after(rule, owned_by, std::time::Duration::ZERO).await
    }

    /// As `serving`, every answer sent `latency` after its request arrived, as a model
    /// server's would: the log's `arrived_ms` (since the server started) and the latency
    /// say which requests were answered before another arrived.
    pub async fn answering_after(
        rule: impl Fn(&Value, usize) -> Option<ResponseTemplate> + Send + Sync + 'static,
        owned_by: &str,
        latency: std::time::Duration,
    ) -> MockLlm {
        let started = std::time::Instant::now();
        let server = MockServer::start().await;
        let models = json!({"object": "list", "data": [{"id": "mock-model", "object": "model", "owned_by": owned_by}]});
        Mock::given(matchers::method("GET"))
            .and(matchers::path("/v1/models"))
            .respond_with(ResponseTemplate::new(200).set_body_json(models))
            .mount(&server)
            .await;
        let log: Arc<Mutex<Vec<Value>>> = Arc::default();
        let rule: Arc<Rule> = Arc::new(rule);
        let seen = log.clone();
        Mock::given(matchers::method("POST"))
            .and(matchers::path("/v1/chat/completions"))
            .respond_with(move |request: &Request| {
                let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
                let n = {
                    let mut log = seen.lock().unwrap();
                    let arrived_ms = started.elapsed().as_secs_f64() * 1000.0;
                    log.push(json!({"body": body, "authorization": request.headers.get("authorization").map(|v| v.to_str().unwrap_or("").to_string()), "arrived_ms": arrived_ms}));
                    log.len() - 1
                };
                let response = rule(&body, n).unwrap_or_else(|| answer(&body));
                if latency.is_zero() { response } else { response.set_delay(latency) }
            })
            .mount(&server)
            .await;
        MockLlm { server, log }
    }

    /// A server that speaks Anthropic's Messages API at `/v1/messages`, naming the model
    /// `rule(body)` returns (`None`: the one it was asked for), answering as `reply` does.
    pub async fn anthropic(model: impl Fn(&Value) -> Option<String> + Send + Sync + 'static) -> MockLlm {
        let server = MockServer::start().await;
        let log: Arc<Mutex<Vec<Value>>> = Arc::default();
        let seen = log.clone();
        Mock::given(matchers::method("POST"))
            .and(matchers::path("/v1/messages"))
            .respond_with(move |request: &Request| {
                let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
                let key = request.headers.get("x-api-key").map(|v| v.to_str().unwrap_or("").to_string());
                seen.lock().unwrap().push(json!({"body": body, "authorization": key}));
                let named = model(&body).unwrap_or_else(|| body["model"].as_str().unwrap_or("mock-model").to_string());
                anthropic_ok(&named, &body, &reply(&body))
            })
            .mount(&server)
            .await;
        MockLlm { server, log }
    }

    pub fn base_url(&self) -> String {
        format!("{}/v1", self.server.uri())
    }

    /// Every request: `{"body": …, "authorization": …}`.
    pub fn requests(&self) -> Vec<Value> {
        self.log.lock().unwrap().clone()
    }
}

/// The prompt text (system and user) of a chat-completions body, its content a string or
/// a list of text parts (as a gateway such as LiteLLM sends it on).
/// An Anthropic Messages body's system prompt (`system`) comes first.
pub fn prompt_of(body: &Value) -> String {
    let text = |content: &Value| match content {
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join(""),
        other => other.as_str().unwrap_or_default().to_string(),
    };
    let system = body.get("system").map(text);
    let messages = body["messages"].as_array().into_iter().flatten().map(|m| text(&m["content"]));
    system.into_iter().chain(messages).collect::<Vec<_>>().join("\n")
}

fn answer(body: &Value) -> ResponseTemplate {
    ok(body, &reply(body))
}

/// What a model would say to this request: prose for a debater, JSON for the moderator.
pub fn reply(body: &Value) -> String {
    let prompt = prompt_of(body);
    if prompt.contains("First name the options") {
        "{}".to_string()
    } else if prompt.contains("may be too vague to debate") {
        // Vague, with no questions of its own: those the analysis asks.
        r#"{"vague": true, "questions": []}"#.to_string()
    } else if prompt.contains("Evaluate round") {
        json!({"summary": "The perspectives traded new points.", "assessment": "new_ground", "agreement": false,
               "clear_winner": null, "off_topic": [], "new_points": ["cost"]})
        .to_string()
    } else if prompt.contains(RUBRIC) {
        scores(7)
    } else if prompt.contains(SINGLE_ANSWER) {
        json!({"title": "Cache in Postgres", "options": [{"option": "Redis", "pros": ["fast"], "cons": ["one more service"]},
               {"option": "Postgres", "pros": ["already run"], "cons": []}], "chosen_option": "Postgres",
               "rationale": "The load fits one database.", "recommendation": "Cache in Postgres now.",
               "confidence": "Medium", "caveats": ["traffic grows tenfold"], "confirmation": "p99 under 50 ms",
               "action_items": ["add a cache table"]})
        .to_string()
    } else if prompt.contains("Write the synthesis") {
        json!({"perspectives": [], "agreement": ["measure first"], "tensions": ["latency against operations"],
               "recommendation": "Use Postgres now and revisit at ten times the load.", "confidence": "High",
               "caveats": ["traffic grows tenfold"], "dissent": null})
        .to_string()
    } else {
        // A debater: new words every time, so nothing repeats; a stance at the end.
        let stance = r#"STANCE: {"option": "Postgres", "confidence": "medium"}"#;
        format!("From my perspective {}\n{stance}", super::fresh_words(&prompt, 50))
    }
}

/// What a suite's baseline asks (`debate eval --suite --baseline`): one answer, no debate.
pub const SINGLE_ANSWER: &str = "Decide the question above yourself";

/// What every evaluator's request asks (`debate eval`).
pub const RUBRIC: &str = "Score the decision record on each criterion of this rubric";

/// An evaluator's answer: a mark for every criterion of the rubric, `context` on the
/// context criterion and 8 on the others, each with its reason.
pub fn scores(context: u8) -> String {
    let mark =
        |score: u8, criterion: &str| json!({"score": score, "reason": format!("{criterion} is marked {score}.")});
    json!({"decision": mark(8, "decision"), "options": mark(8, "options"), "context": mark(context, "context"),
           "dissent": mark(8, "dissent"), "follow_through": mark(8, "follow_through")})
    .to_string()
}

/// A non-streaming chat-completions answer carrying `text`.
pub fn completion_body(text: &str) -> Value {
    completion_from("mock-model", text, "stop")
}

fn usage() -> Value {
    json!({"prompt_tokens": PROMPT_TOKENS, "completion_tokens": COMPLETION_TOKENS,
           "prompt_tokens_details": {"cached_tokens": CACHED_TOKENS}})
}

fn completion_from(model: &str, text: &str, finish: &str) -> Value {
    json!({
        "id": "chatcmpl-mock", "object": "chat.completion", "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}],
        "usage": usage(),
    })
}

/// A successful answer with `text`, streamed as SSE if the request asked for it.
pub fn ok(body: &Value, text: &str) -> ResponseTemplate {
    ok_from("mock-model", body, text)
}

/// As `ok`, with the server naming `model` as the one that answered.
pub fn ok_from(model: &str, body: &Value, text: &str) -> ResponseTemplate {
    finished(model, body, text, "stop")
}

/// As `ok`, but cut off at the completion limit (`finish_reason: length`).
pub fn cut_off(body: &Value, text: &str) -> ResponseTemplate {
    finished("mock-model", body, text, "length")
}

/// An answer that ended for `finish` (`stop`, `length`), streamed if asked for.
fn finished(model: &str, body: &Value, text: &str, finish: &str) -> ResponseTemplate {
    if body["stream"] == true {
        let sse = streamed_body(model, text, finish);
        return ResponseTemplate::new(200).insert_header("content-type", "text/event-stream").set_body_string(sse);
    }
    ResponseTemplate::new(200).set_body_json(completion_from(model, text, finish))
}

/// `text` as a streamed chat-completions answer (SSE), a word a chunk.
pub fn streamed_body(model: &str, text: &str, finish: &str) -> String {
    streamed_with_usage(model, text, finish, usage())
}

/// As `streamed_body`, the last event reporting `usage` (`{"prompt_tokens": …}`).
pub fn streamed_with_usage(model: &str, text: &str, finish: &str, usage: Value) -> String {
    let mut sse = String::new();
    for piece in text.split_inclusive(' ') {
        let chunk =
            json!({"model": model, "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": null}]});
        sse.push_str(&format!("data: {chunk}\n\n"));
    }
    let last = json!({"model": model, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}], "usage": usage});
    sse.push_str(&format!("data: {last}\n\ndata: [DONE]\n\n"));
    sse
}

/// `text` as the Messages API answers it, streamed (its events) if the request asked.
pub fn anthropic_ok(model: &str, body: &Value, text: &str) -> ResponseTemplate {
    let usage = json!({"input_tokens": PROMPT_TOKENS - CACHED_TOKENS, "cache_read_input_tokens": CACHED_TOKENS,
                       "output_tokens": COMPLETION_TOKENS});
    if body["stream"] != true {
        return ResponseTemplate::new(200).set_body_json(json!({
            "id": "msg_mock", "type": "message", "role": "assistant", "model": model,
            "content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "usage": usage,
        }));
    }
    let event = |name: &str, data: Value| format!("event: {name}\ndata: {data}\n\n");
    let mut sse = event(
        "message_start",
        json!({"type": "message_start", "message": {"id": "msg_mock", "type": "message", "role": "assistant",
               "model": model, "content": [], "usage": {"input_tokens": usage["input_tokens"], "output_tokens": 1}}}),
    );
    sse += &event(
        "content_block_start",
        json!({"type": "content_block_start", "index": 0,
                                                 "content_block": {"type": "text", "text": ""}}),
    );
    for piece in text.split_inclusive(' ') {
        sse += &event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0,
                                                     "delta": {"type": "text_delta", "text": piece}}),
        );
    }
    sse += &event("content_block_stop", json!({"type": "content_block_stop", "index": 0}));
    sse +=
        &event("message_delta", json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": usage}));
    sse += &event("message_stop", json!({"type": "message_stop"}));
    ResponseTemplate::new(200).insert_header("content-type", "text/event-stream").set_body_string(sse)
}
