//! The Anthropic Messages API, streaming (`message_start` … `message_stop`) or not.
//! Structured answers are asked for as a forced tool call whose input is the JSON.

use async_trait::async_trait;
use futures::StreamExt;
use serde_json::{Value, json};

use super::http::{Endpoint, Failure};
use super::{Counted, Provider, Request, Result, sse};
use crate::model::{Completion, Identity, ProviderKind};

const API_VERSION: &str = "2023-06-01";
/// The Messages API requires a completion limit; used when the budget is unlimited.
const DEFAULT_MAX_TOKENS: u32 = 8_192;

/// The user's message: the debate's shared context, then the debate so far (what the
/// other calls of this wave and the next send too), each a block marked as the end of a
/// prefix the server may cache; then this call's own part.
fn content(request: &Request) -> Value {
    let at = Some(request.shared).filter(|&at| request.prompt.is_char_boundary(at)).unwrap_or(0);
    let (so_far, own) = request.prompt.split_at(at);
    let cached = |text: &str| json!({"type": "text", "text": text, "cache_control": {"type": "ephemeral"}});
    let mut blocks: Vec<Value> =
        [&request.context[..], so_far].into_iter().filter(|text| !text.is_empty()).map(cached).collect();
    blocks.push(json!({"type": "text", "text": own}));
    Value::Array(blocks)
}

pub struct Anthropic {
    endpoint: Endpoint,
}

impl Anthropic {
    pub fn new(endpoint: Endpoint) -> Anthropic {
        Anthropic { endpoint }
    }

    fn body(&self, request: &Request) -> Value {
        let mut body = json!({
            "model": self.endpoint.model,
            "max_tokens": request.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
            "system": request.system,
            "messages": [{"role": "user", "content": content(request)}],
            "temperature": request.temperature,
        });
        if request.on_text.is_some() {
            body["stream"] = json!(true);
        }
        if let Some(schema) = &request.schema {
            body["tools"] = json!([{
                "name": schema.name,
                "description": "Record the answer in exactly this shape.",
                "input_schema": schema.value,
            }]);
            body["tool_choice"] = json!({"type": "tool", "name": schema.name});
        }
        body
    }

    async fn attempt(&self, request: &Request) -> std::result::Result<Completion, Failure> {
        let mut call = self
            .endpoint
            .client
            .post(self.endpoint.url("messages"))
            .header("anthropic-version", API_VERSION)
            .json(&self.body(request));
        if let Some(key) = &self.endpoint.key {
            call = call.header("x-api-key", key);
        }
        let response = self.endpoint.send(call, |_, _| None).await?;
        if request.on_text.is_some() {
            self.read_stream(request, response).await
        } else {
            self.read_whole(request, response).await
        }
    }

    async fn read_whole(
        &self,
        request: &Request,
        response: reqwest::Response,
    ) -> std::result::Result<Completion, Failure> {
        let parsed = self.endpoint.json(response).await?;
        let mut text = String::new();
        for block in parsed["content"].as_array().into_iter().flatten() {
            match block["type"].as_str() {
                Some("text") => text.push_str(block["text"].as_str().unwrap_or("")),
                Some("tool_use") => text.push_str(&block["input"].to_string()),
                _ => {}
            }
        }
        let mut counted = counted(&parsed["usage"], parsed["usage"]["output_tokens"].as_u64());
        counted.truncated = cut_off(&parsed["stop_reason"]);
        Ok(counted.completion(request, text, parsed["model"].as_str().unwrap_or(&self.endpoint.model)))
    }

    async fn read_stream(
        &self,
        request: &Request,
        response: reqwest::Response,
    ) -> std::result::Result<Completion, Failure> {
        let mut events = std::pin::pin!(sse::events(&self.endpoint, response));
        let (mut text, mut tool_input) = (String::new(), String::new());
        let (mut counts, mut model, mut finished) = (Counted::default(), None, false);
        while let Some(event) = events.next().await {
            let event = event?;
            let data: Value = match event.event.as_str() {
                "ping" => continue,
                _ => serde_json::from_str(&event.data).map_err(|_| {
                    Failure::retry(format!("a stream event is not JSON: {}", self.endpoint.preview(&event.data)))
                })?,
            };
            match data["type"].as_str().unwrap_or(event.event.as_str()) {
                "message_start" => {
                    counts = counted(&data["message"]["usage"], None);
                    model = data["message"]["model"].as_str().map(str::to_string);
                }
                "content_block_delta" => match data["delta"]["type"].as_str() {
                    Some("text_delta") => {
                        let delta = data["delta"]["text"].as_str().unwrap_or("");
                        text.push_str(delta);
                        if let Some(sink) = &request.on_text {
                            sink.send(delta);
                        }
                    }
                    Some("input_json_delta") => {
                        tool_input.push_str(data["delta"]["partial_json"].as_str().unwrap_or(""))
                    }
                    _ => {}
                },
                "message_delta" => {
                    counts.output = data["usage"]["output_tokens"].as_u64().or(counts.output);
                    counts.truncated |= cut_off(&data["delta"]["stop_reason"]);
                }
                "message_stop" => {
                    finished = true;
                    break;
                }
                "error" => {
                    let message = data["error"]["message"].as_str().unwrap_or("unknown error");
                    return Err(Failure::retry(format!(
                        "the stream reported an error: {}",
                        self.endpoint.redact(message)
                    )));
                }
                _ => {}
            }
        }
        if !finished {
            return Err(Failure::retry("the stream ended before message_stop"));
        }
        let answer = if tool_input.is_empty() { text } else { tool_input };
        Ok(counts.completion(request, answer, model.as_deref().unwrap_or(&self.endpoint.model)))
    }
}

/// A `stop_reason` of `max_tokens`: the answer stopped at the completion limit.
fn cut_off(stop_reason: &Value) -> bool {
    stop_reason.as_str() == Some("max_tokens")
}

/// `usage` as the Messages API reports it: `input_tokens` leaves out what was read
/// from or written to the prompt cache, so the prompt is all three.
fn counted(usage: &Value, output: Option<u64>) -> Counted {
    let part = |name: &str| usage[name].as_u64();
    let cached = part("cache_read_input_tokens").unwrap_or(0);
    Counted {
        prompt: part("input_tokens").map(|input| input + cached + part("cache_creation_input_tokens").unwrap_or(0)),
        cached,
        output,
        truncated: false,
    }
}

#[async_trait]
impl Provider for Anthropic {
    fn identity(&self) -> Identity {
        Identity { kind: ProviderKind::Anthropic, reasoned: true }
    }

    async fn complete(&self, request: &Request) -> Result<Completion> {
        self.endpoint.with_retries(|| self.attempt(request)).await.map_err(|failure| self.endpoint.give_up(failure))
    }
}
