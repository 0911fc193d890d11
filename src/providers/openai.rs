//! Any OpenAI-compatible chat-completions endpoint (OpenAI, OpenRouter, Ollama's `/v1`,
//! vLLM, LM Studio, llama.cpp server), streaming or not.
//!
//! Every call streams (a server that does not stream answers whole). Structured answers
//! ask for `response_format: json_schema`; a server that rejects it (with any status
//! whose body names the format) is asked for `json_object` with the schema beside it,
//! then for plain text with the instructions in the prompt, and the step down is
//! remembered for the rest of the run.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

use async_trait::async_trait;
use futures::StreamExt;
use serde_json::{Value, json};

use super::http::{Endpoint, Failure};
use super::remote::Wire;
use super::{Counted, Request, StreamedText, sse};
use crate::model::{Completion, ProviderDef, ProviderKind, Reach};
use crate::settings::TokenParameter;

/// How structured output is asked for, from most to least strict.
const JSON_SCHEMA: u8 = 0;
const JSON_OBJECT: u8 = 1;
const INSTRUCTIONS: u8 = 2;
/// The formats by name, as a completion reports them and the state database keeps them.
const FORMATS: [&str; 3] = ["json_schema", "json_object", "instructions"];

pub struct OpenAi {
    token_parameter: TokenParameter,
    /// Send the debate's id as `prompt_cache_key`.
    cache_key: bool,
    /// Send the rules as a system message, rather than at the start of the user's turn.
    system_message: bool,
    format: AtomicU8,
    /// The server's answers carry llama.cpp's `timings`: it is asked to keep each prompt
    /// cached (`cache_prompt`), and each debater, and the moderator, to a slot of its own
    /// (`id_slot`, in the order they first called), so each one's cache outlives the
    /// others' calls.
    llama_cpp: AtomicBool,
    slots: Mutex<Vec<Option<String>>>,
}

impl OpenAi {
    pub fn new(definition: &ProviderDef) -> OpenAi {
        // OpenAI's own API wants max_completion_tokens and routes a debate's calls to one
        // prefix cache by prompt_cache_key; compatible servers know max_tokens, cache on
        // their own, and some refuse fields they do not know.
        let openai = definition.base_url().is_some_and(|url| url.contains("api.openai.com"));
        let default = if openai { TokenParameter::MaxCompletionTokens } else { TokenParameter::MaxTokens };
        // A local model's chat template may drop the system message (llama-cpp-python's
        // `gemma` format does): there the rules travel in the user's turn.
        let system_message = definition.system_message.unwrap_or(definition.reach() != Reach::ThisMachine);
        OpenAi {
            token_parameter: definition.token_parameter.unwrap_or(default),
            cache_key: definition.prompt_cache_key.unwrap_or(openai),
            system_message,
            format: AtomicU8::new(JSON_SCHEMA),
            llama_cpp: AtomicBool::new(false),
            slots: Mutex::default(),
        }
    }

    /// The llama.cpp slot for `request`'s role, when the server has more than one.
    fn slot(&self, endpoint: &Endpoint, request: &Request) -> Option<usize> {
        let slots = endpoint.at_once.load(Ordering::Relaxed);
        let mut seen = self.slots.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let at = match seen.iter().position(|role| *role == request.perspective) {
            Some(at) => at,
            None => {
                seen.push(request.perspective.clone());
                seen.len() - 1
            }
        };
        (slots > 1).then_some(at % slots)
    }

    /// The request's messages: the rules as a system message, or opening the user's turn.
    fn messages(&self, request: &Request) -> Value {
        if self.system_message {
            return json!([
                {"role": "system", "content": request.system},
                {"role": "user", "content": request.user_text()},
            ]);
        }
        let texts = [request.system.clone(), request.user_text()];
        let user: Vec<String> = texts.into_iter().filter(|text| !text.is_empty()).collect();
        json!([{"role": "user", "content": user.join("\n\n")}])
    }

    fn body(&self, endpoint: &Endpoint, request: &Request, format: u8) -> Value {
        let mut body = json!({
            "model": endpoint.model,
            "messages": self.messages(request),
            "temperature": request.temperature,
        });
        if let Some(limit) = request.max_tokens {
            let field = match self.token_parameter {
                TokenParameter::MaxTokens => "max_tokens",
                TokenParameter::MaxCompletionTokens => "max_completion_tokens",
            };
            body[field] = json!(limit);
        }
        if let Some(key) = request.cache_key.as_ref().filter(|_| self.cache_key) {
            body["prompt_cache_key"] = json!(key);
        }
        if self.llama_cpp.load(Ordering::Relaxed) {
            body["cache_prompt"] = json!(true);
            if let Some(slot) = self.slot(endpoint, request) {
                body["id_slot"] = json!(slot);
            }
        }
        // Every call streams, structured ones too: a slow model that is still sending
        // tokens is then never taken for a dead one.
        body["stream"] = json!(true);
        body["stream_options"] = json!({"include_usage": true});
        if let Some(schema) = &request.schema {
            match format {
                JSON_SCHEMA => {
                    body["response_format"] =
                        json!({"type": "json_schema", "json_schema": {"name": schema.name, "schema": schema.value}})
                }
                // llama-cpp-python constrains the answer to a schema given here; other
                // servers ignore the field.
                JSON_OBJECT => body["response_format"] = json!({"type": "json_object", "schema": schema.value}),
                _ => {}
            }
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
        if parsed["timings"].is_object() {
            self.llama_cpp.store(true, Ordering::Relaxed);
        }
        let text = parsed["choices"][0]["message"]["content"].as_str().unwrap_or("").to_string();
        let counted = counted(&parsed["usage"], &parsed["choices"][0]["finish_reason"]);
        Ok(counted.completion(request, text, parsed["model"].as_str().unwrap_or(&endpoint.model)))
    }

    async fn read_stream(
        &self,
        endpoint: &Endpoint,
        request: &Request,
        response: reqwest::Response,
    ) -> std::result::Result<Completion, Failure> {
        let mut events = std::pin::pin!(sse::events(endpoint, response));
        let mut streamed = StreamedText::new(request);
        let (mut usage, mut model, mut finished, mut finish_reason) = (Value::Null, None, false, Value::Null);
        while let Some(event) = events.next().await {
            let event = event?;
            if event.data.trim() == "[DONE]" {
                finished = true;
                break;
            }
            let chunk: Value = serde_json::from_str(&event.data).map_err(|_| {
                Failure::retry(format!("a stream event is not JSON: {}", endpoint.preview(&event.data)))
            })?;
            if let Some(failure) = endpoint.error_in(&chunk) {
                return Err(failure);
            }
            if let Some(delta) = chunk["choices"][0]["delta"]["content"].as_str()
                && !streamed.push(delta)
            {
                finished = true;
                model = model.or(chunk["model"].as_str().map(str::to_string));
                break;
            }
            if chunk["choices"][0]["finish_reason"].is_string() {
                finished = true;
                finish_reason = chunk["choices"][0]["finish_reason"].clone();
            }
            if chunk["usage"].is_object() {
                usage = chunk["usage"].clone();
            }
            if chunk["timings"].is_object() {
                self.llama_cpp.store(true, Ordering::Relaxed);
            }
            model = model.or(chunk["model"].as_str().map(str::to_string));
        }
        if !finished && streamed.text.is_empty() && model.is_none() {
            // llama-cpp-python answers a prompt longer than its context this way.
            return Err(Failure::Retry {
                message: "the server closed the stream before the first token (a prompt longer than the model's context does this on some servers: raise its context, e.g. --n_ctx)".into(),
                after: None,
                answered: Some(200),
            });
        }
        if !finished {
            return Err(Failure::retry("the stream ended before the answer was complete"));
        }
        let (looped, mut counts) = (streamed.looped, counted(&usage, &finish_reason));
        // Written past its end to the limit: what was kept is whole all the same.
        counts.truncated &= !streamed.whole();
        let mut completion = counts.completion(request, streamed.text, model.as_deref().unwrap_or(&endpoint.model));
        completion.looped = looped;
        Ok(completion)
    }
}

/// `usage` as the Chat Completions API reports it (cached prompt tokens are in
/// `prompt_tokens_details`), and a `finish_reason` of `length`: the answer stopped at
/// the completion limit.
fn counted(usage: &Value, finish_reason: &Value) -> Counted {
    Counted {
        prompt: usage["prompt_tokens"].as_u64(),
        cached: usage["prompt_tokens_details"]["cached_tokens"].as_u64().unwrap_or(0),
        output: usage["completion_tokens"].as_u64(),
        truncated: finish_reason.as_str() == Some("length"),
    }
}

#[async_trait]
impl Wire for OpenAi {
    const KIND: ProviderKind = ProviderKind::Openai;

    async fn attempt(&self, endpoint: &Endpoint, request: &Request) -> std::result::Result<Completion, Failure> {
        let format = self.format.load(Ordering::Relaxed);
        let call = endpoint.client.post(endpoint.url("chat/completions")).json(&self.body(endpoint, request, format));
        let schema = request.schema.is_some();
        // Servers reject a format they do not know with 400, 422 or even 500: any refusal
        // that names the format steps down at once, with no retries.
        let rejects_schema = |status: reqwest::StatusCode, body: &str| {
            let refusal = status.is_client_error() && status.as_u16() != 429 || status.is_server_error();
            (refusal && schema && format < INSTRUCTIONS && rejects_format(body)).then_some(Failure::FormatRejected)
        };
        let response = endpoint.send(endpoint.authorized(call), rejects_schema).await?;
        // A server that does not stream answers with the whole document (JSON, or a
        // proxy's error page).
        let mut completion = match sse::whole(&response) {
            true => self.read_whole(endpoint, request, response).await,
            false => self.read_stream(endpoint, request, response).await,
        }?;
        completion.format = schema.then(|| FORMATS[usize::from(format)].to_string());
        Ok(completion)
    }

    /// A server that refused the structured format steps down once for this and every
    /// later call of the run.
    fn step_down(&self, failure: &Failure) -> bool {
        if !matches!(failure, Failure::FormatRejected) {
            return false;
        }
        let current = self.format.load(Ordering::Relaxed);
        self.format.store((current + 1).min(INSTRUCTIONS), Ordering::Relaxed);
        true
    }

    fn start_with_format(&self, format: &str) {
        if let Some(at) = FORMATS.iter().position(|f| *f == format) {
            self.format.store(at as u8, Ordering::Relaxed);
        }
    }
}

/// A refusal that is about the structured-output request rather than anything else.
fn rejects_format(body: &str) -> bool {
    let lower = body.to_lowercase();
    ["response_format", "json_schema", "json_object", "structured output"].iter().any(|n| lower.contains(n))
}
