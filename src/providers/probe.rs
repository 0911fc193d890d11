//! What a model server on this machine says of itself, and how many requests it serves
//! at once: as it says (vLLM batches, llama.cpp's `/props` counts its slots,
//! llama-cpp-python answers one at a time), else as it shows — a request alone, then two
//! together, then four: a server that serves them at once answers a pair about as fast
//! as one. Servers elsewhere, and limits the settings fix, are not asked.

use std::future::Future;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::http::{Endpoint, Failure, error_chain};
use crate::model::{AtOnce, Completion, ServerSays, bounds};

/// How long a question about the server itself may take.
const ASKED: Duration = Duration::from_secs(5);

/// What the server at `endpoint` says of itself — its software, the models it lists (and
/// Ollama's `/api/tags`) — and how many requests it serves at once where it says; an
/// error when it cannot be reached at all.
pub async fn said(endpoint: &Endpoint) -> Result<(ServerSays, Option<AtOnce>), String> {
    let Some((listed, litellm)) = get(endpoint, &endpoint.url("models")).await? else {
        return Ok((ServerSays::default(), None));
    };
    let data = listed["data"].as_array();
    let mut models: Option<Vec<String>> =
        data.map(|data| data.iter().filter_map(|m| m["id"].as_str().map(str::to_string)).collect());
    let owner = data.and_then(|data| data.first()).and_then(|m| m["owned_by"].as_str()).unwrap_or_default();
    let told = |requests: usize, why: &str| Some(AtOnce { requests, learned_from: why.to_string() });
    let (software, at_once) = match owner {
        _ if litellm => (Some("LiteLLM"), None),
        "vllm" => (Some("vLLM"), told(8, "vLLM batches the requests it is sent (its /v1/models)")),
        "me" => (Some("llama-cpp-python"), told(1, "llama-cpp-python serves one request at a time (its /v1/models)")),
        "llamacpp" => {
            let props = get(endpoint, &root(endpoint, "props")).await.ok().flatten();
            let slots = props.and_then(|(props, _)| props["total_slots"].as_u64());
            let at_once = slots.map(|slots| AtOnce {
                // A server's own count is bounded as a setting is: 2^64 slots is no count.
                requests: slots.clamp(1, bounds::MOST_AT_ONCE as u64) as usize,
                learned_from: format!("llama.cpp's /props: {slots} slots (--parallel)"),
            });
            (Some("llama.cpp"), at_once)
        }
        "organization_owner" => (Some("LM Studio"), None),
        // Ollama lists no model at all (`data: null`) until one is pulled.
        _ if owner == "library" || listed["data"].is_null() => {
            let tags = get(endpoint, &root(endpoint, "api/tags")).await.ok().flatten();
            match tags {
                Some((tags, _)) => {
                    let names = tags["models"].as_array().into_iter().flatten();
                    models = Some(names.filter_map(|m| m["name"].as_str().map(str::to_string)).collect());
                    (Some("Ollama"), None)
                }
                None => (None, None),
            }
        }
        _ => (None, None),
    };
    Ok((ServerSays { software: software.map(str::to_string), models }, at_once))
}

/// How many requests the server serves at once: as it says, else — for a server that
/// lists its models but not how many requests it serves (Ollama, LM Studio, LiteLLM) —
/// as `one` (a request of a few tokens, sent past the in-flight cap) shows when sent
/// alone and together.
pub async fn at_once<F, Fut>(endpoint: &Endpoint, one: F) -> Option<AtOnce>
where
    F: Fn() -> Fut,
    Fut: Future<Output = Result<Completion, Failure>>,
{
    let (says, at_once) = said(endpoint).await.ok()?;
    if at_once.is_some() {
        return at_once;
    }
    // A server that lists no models is no model server this knows how to measure: it
    // keeps one request at a time.
    says.models.as_ref()?;
    // A model loads on its first request (Ollama): that one is not timed.
    one().await.ok()?;
    let alone = timed(one()).await?;
    // Served at once, a batch ends about when one alone would; queued, at twice that.
    let at_once_with = |slowest: Duration| slowest <= alone * 3 / 2 + Duration::from_millis(25);
    let pair = together(&one, 2).await?;
    let ms = |d: Duration| d.as_millis();
    if !at_once_with(pair) {
        return Some(AtOnce {
            requests: 1,
            learned_from: format!("measured: two requests took {} ms where one took {} ms", ms(pair), ms(alone)),
        });
    }
    let four = together(&one, 4).await?;
    let requests = if at_once_with(four) { 4 } else { 2 };
    Some(AtOnce {
        requests,
        learned_from: format!(
            "measured: one request took {} ms, two at once {} ms, four at once {} ms",
            ms(alone),
            ms(pair),
            ms(four)
        ),
    })
}

/// How long the slowest of `n` requests sent together took.
async fn together<F, Fut>(one: &F, n: usize) -> Option<Duration>
where
    F: Fn() -> Fut,
    Fut: Future<Output = Result<Completion, Failure>>,
{
    let times = futures::future::join_all((0..n).map(|_| timed(one()))).await;
    times.into_iter().collect::<Option<Vec<_>>>()?.into_iter().max()
}

async fn timed(call: impl Future<Output = Result<Completion, Failure>>) -> Option<Duration> {
    let started = Instant::now();
    call.await.ok()?;
    Some(started.elapsed())
}

/// `path` at the server's root, beside its `/v1` (llama.cpp's `/props`, Ollama's `/api/…`).
pub fn root(endpoint: &Endpoint, path: &str) -> String {
    let base = endpoint.base_url.trim_end_matches('/');
    format!("{}/{path}", base.strip_suffix("/v1").unwrap_or(base))
}

/// A JSON document the server answers a GET with (and whether LiteLLM answered it, as
/// its headers say); nothing when it has no such route or no JSON there; an error when
/// nothing answers.
async fn get(endpoint: &Endpoint, url: &str) -> Result<Option<(Value, bool)>, String> {
    let request = endpoint.authorized(endpoint.client.get(url).timeout(ASKED));
    let response = request.send().await.map_err(|err| endpoint.redact(&error_chain(&err)))?;
    let Ok(response) = response.error_for_status() else { return Ok(None) };
    let litellm = response.headers().contains_key("x-litellm-version");
    Ok(response.json().await.ok().map(|json| (json, litellm)))
}
