//! The Anthropic Messages API (Anthropic's, or a gateway's such as LiteLLM's or Ollama's).
//! Every call streams (`message_start` … `message_stop`), structured ones too, so a slow
//! model still sending is never taken for a dead one and the first-token and idle limits
//! apply; a server that does not stream answers whole. Structured answers are asked for
//! as a forced tool call whose input is the JSON.

use async_trait::async_trait;
use futures::StreamExt;
use serde_json::{Value, json};

use super::http::{Endpoint, Failure};
use super::remote::Wire;
use super::{Counted, Request, StreamedText, sse};
use crate::model::{Completion, ProviderKind};
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

pub struct Anthropic;

impl Anthropic {
    fn body(&self, endpoint: &Endpoint, request: &Request) -> Value {
        let mut body = json!({
            "model": endpoint.model,
            "max_tokens": request.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
            "system": request.system,
            "messages": [{"role": "user", "content": content(request)}],
            "temperature": request.temperature,
        });
        body["stream"] = json!(true);
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

    async fn read_whole(
        &self,
        endpoint: &Endpoint,
        request: &Request,
        response: reqwest::Response,
    ) -> std::result::Result<Completion, Failure> {
        let parsed = endpoint.json(response).await?;
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
        Ok(counted.completion(request, text, parsed["model"].as_str().unwrap_or(&endpoint.model)))
    }

    async fn read_stream(
        &self,
        endpoint: &Endpoint,
        request: &Request,
        response: reqwest::Response,
    ) -> std::result::Result<Completion, Failure> {
        let mut events = std::pin::pin!(sse::events(endpoint, response));
        let (mut streamed, mut tool_input) = (StreamedText::new(request), String::new());
        let (mut usage, mut model, mut finished, mut truncated) = (serde_json::Map::new(), None, false, false);
        while let Some(event) = events.next().await {
            let event = event?;
            let data: Value = match event.event.as_str() {
                "ping" => continue,
                _ => serde_json::from_str(&event.data).map_err(|_| {
                    Failure::retry(format!("a stream event is not JSON: {}", endpoint.preview(&event.data)))
                })?,
            };
            // Anthropic's `error` event, or a gateway's bare `data: {"error": …}` line.
            if let Some(failure) = endpoint.error_in(&data) {
                return Err(failure);
            }
            match data["type"].as_str().unwrap_or(event.event.as_str()) {
                "message_start" => {
                    merge_usage(&mut usage, &data["message"]["usage"]);
                    model = data["message"]["model"].as_str().map(str::to_string);
                }
                "content_block_delta" => match data["delta"]["type"].as_str() {
                    Some("text_delta") if !streamed.push(data["delta"]["text"].as_str().unwrap_or("")) => {
                        finished = true;
                        break;
                    }
                    Some("input_json_delta") => {
                        tool_input.push_str(data["delta"]["partial_json"].as_str().unwrap_or(""))
                    }
                    _ => {}
                },
                "message_delta" => {
                    merge_usage(&mut usage, &data["usage"]);
                    truncated |= cut_off(&data["delta"]["stop_reason"]);
                }
                "message_stop" => {
                    finished = true;
                    break;
                }
                _ => {}
            }
        }
        if !finished {
            return Err(Failure::retry("the stream ended before message_stop"));
        }
        let (looped, whole) = (streamed.looped, streamed.whole());
        let answer = if tool_input.is_empty() { streamed.text } else { tool_input };
        let usage = Value::Object(usage);
        let mut counts = counted(&usage, usage["output_tokens"].as_u64().filter(|_| !looped));
        // Written past its end to the limit: what was kept is whole all the same.
        counts.truncated = truncated && !whole;
        let mut completion = counts.completion(request, answer, model.as_deref().unwrap_or(&endpoint.model));
        completion.looped = looped;
        Ok(completion)
    }
}

/// Where the Messages API is under `base_url`: its `/messages` when the base ends in
/// `/v1` (as debate's settings have always written it), else its `/v1/messages` (as the
/// Anthropic SDK and LiteLLM take a base URL).
fn messages_url(base_url: &str) -> String {
    let base = base_url.trim_end_matches('/');
    match base.ends_with("/v1") {
        true => format!("{base}/messages"),
        false => format!("{base}/v1/messages"),
    }
}

/// A stream's usage so far, with `more` from a later event: the Messages API reports it
/// cumulatively, so a later figure replaces an earlier one — unless it is zero where one
/// was known (a gateway such as LiteLLM sends zeros in `message_start` and the real
/// prompt figures only in `message_delta`; Ollama an estimate first).
fn merge_usage(usage: &mut serde_json::Map<String, Value>, more: &Value) {
    for (name, value) in more.as_object().into_iter().flatten() {
        let known = usage.get(name).and_then(Value::as_u64).unwrap_or(0);
        if value.as_u64().is_some_and(|n| n > 0 || known == 0) {
            usage.insert(name.clone(), value.clone());
        }
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
        // Checked: a figure past u64 is no figure (`Counted::completion` estimates it).
        prompt: part("input_tokens")
            .and_then(|input| input.checked_add(cached)?.checked_add(part("cache_creation_input_tokens").unwrap_or(0))),
        cached,
        output,
        truncated: false,
    }
}

#[async_trait]
impl Wire for Anthropic {
    const KIND: ProviderKind = ProviderKind::Anthropic;

    async fn attempt(&self, endpoint: &Endpoint, request: &Request) -> std::result::Result<Completion, Failure> {
        let call = endpoint.client.post(messages_url(&endpoint.base_url)).json(&self.body(endpoint, request));
        let response = endpoint.send(endpoint.authorized(call), |_, _| None).await?;
        match sse::whole(&response) {
            true => self.read_whole(endpoint, request, response).await,
            false => self.read_stream(endpoint, request, response).await,
        }
    }
}
