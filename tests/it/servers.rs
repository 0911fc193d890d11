//! Servers and gateways as they are (issue 31), and the process around the calls: what
//! a run costs besides them.

use std::os::unix::fs::PermissionsExt;

use crate::common::*;

/// Output without a terminal asks no program for the terminal's size: a `tput` first on
/// the PATH records every call, and a whole debate makes none.
#[test]
fn a_run_without_a_terminal_spawns_no_tput() {
    let sandbox = Sandbox::new();
    let bin = sandbox.home.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let calls = sandbox.home.join("tput-calls");
    let tput = bin.join("tput");
    std::fs::write(&tput, format!("#!/bin/sh\necho \"$@\" >> '{}'\necho 80\n", calls.display())).unwrap();
    std::fs::set_permissions(&tput, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let out =
        sandbox.cmd().env("PATH", path).args(["--offline", "--no-checkpoints", "-r", "2", QUESTION]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!calls.exists(), "tput was run: {}", std::fs::read_to_string(&calls).unwrap_or_default());
}

// ── Servers and gateways as they answer (recorded bodies in tests/it/servers/) ──────

use std::sync::Arc;

use debate::model::ProviderKind;
use debate::providers::Provider;
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::providers_wire::{base_config, build, expect_err, expect_ok, request, shown, structured};

/// A recorded body of a server or gateway.
fn recorded(name: &str) -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/servers").join(name))
        .unwrap_or_else(|err| panic!("tests/it/servers/{name}: {err}"))
}

/// A server answering every POST to `at` with `status` and the recorded `body` (`sse`:
/// as an event stream).
async fn answering(at: &str, status: u16, body: &str, sse: bool) -> MockServer {
    let server = MockServer::start().await;
    let kind = if sse { "text/event-stream" } else { "application/json" };
    let reply = ResponseTemplate::new(status).set_body_raw(body.to_string(), kind);
    Mock::given(method("POST")).and(path(at)).respond_with(reply).mount(&server).await;
    server
}

fn provider(kind: ProviderKind, base_url: String, model: &str) -> Arc<dyn Provider> {
    let mut config = base_config(kind, base_url);
    config.model = Some(model.into());
    build(config)
}

/// 1. LiteLLM streams an Anthropic answer with zeros in `message_start` and the real
/// prompt figures only in `message_delta`: the prompt tokens are the delta's.
#[tokio::test]
async fn a_streamed_anthropic_answer_through_litellm_counts_its_prompt() {
    let server = answering("/v1/messages", 200, &recorded("litellm-anthropic-stream.sse"), true).await;
    let base_url = format!("{}/v1", server.uri());
    let answer = expect_ok(provider(ProviderKind::Anthropic, base_url, "gateway-model").complete(&request()).await);
    assert_eq!(answer.text, "Hello from the stand-in.");
    assert_eq!((answer.usage.prompt_tokens, answer.usage.completion_tokens), (13, 6));
}

/// 2. A gateway that answers 200 with an error — as a whole body, or as an event of a
/// stream already begun — is a failure in the gateway's own words, never an empty answer.
#[tokio::test]
async fn an_error_a_gateway_answers_with_200_is_shown_in_its_words() {
    let whole = answering("/v1/chat/completions", 200, &recorded("litellm-api-error.json"), false).await;
    let err = expect_err(
        provider(ProviderKind::Openai, format!("{}/v1", whole.uri()), "gateway-model").complete(&request()).await,
    );
    assert!(shown(&err).contains("litellm.APIError: APIError: OpenAIException - backend said 501"), "{}", shown(&err));

    for (kind, at, body) in [
        (ProviderKind::Openai, "/v1/chat/completions", "litellm-openai-error-mid-stream.sse"),
        (ProviderKind::Anthropic, "/v1/messages", "litellm-anthropic-error-mid-stream.sse"),
    ] {
        let server = answering(at, 200, &recorded(body), true).await;
        let err =
            expect_err(provider(kind, format!("{}/v1", server.uri()), "gateway-model").complete(&request()).await);
        assert!(shown(&err).contains("backend died mid-stream"), "{body}: {}", shown(&err));
        assert_eq!(server.received_requests().await.unwrap().len(), 3, "{body}: retried as a failing server is");
    }
}

/// 3. A 404 is told in the server's words: Ollama's model that is not pulled (with the
/// pull that fixes it), vLLM's unknown model in both its shapes, FastAPI's wrong path.
#[tokio::test]
async fn a_not_found_keeps_the_servers_words() {
    for (body, model, words, hint) in [
        (
            "ollama-v1-chat-completions-404-not-pulled-v0.12+.json",
            "llama3.2",
            "model 'llama3.2' not found",
            "ollama pull llama3.2",
        ),
        (
            "ollama-v1-chat-completions-404-not-pulled-before-v0.12.json",
            "llama3.2",
            "try pulling it first",
            "ollama pull llama3.2",
        ),
        ("vllm-404-unknown-model-v0.10.1+.json", "gpt-4", "The model `gpt-4` does not exist.", "debate doctor"),
        ("vllm-404-unknown-model-before-v0.10.1.json", "gpt-4", "The model `gpt-4` does not exist.", "debate doctor"),
        ("fastapi-not-found.json", "gateway-model", "answered 404 Not Found: Not Found", "base_url"),
    ] {
        let server = answering("/v1/chat/completions", 404, &recorded(body), false).await;
        let err = expect_err(
            provider(ProviderKind::Openai, format!("{}/v1", server.uri()), model).complete(&request()).await,
        );
        assert!(err.to_string().contains(words), "{body}: {err}");
        assert!(err.hint().unwrap_or_default().contains(hint), "{body}: {:?}", err.hint());
        assert!(!err.retryable(), "{body}: no shorter prompt cures a 404");
    }
}

/// 4. A gateway's unknown model (LiteLLM's 400 `Invalid model name`) and its refusal of
/// a key (400 `No connected db.`) are named so, and no shorter prompt is tried.
#[tokio::test]
async fn a_gateways_unknown_model_and_refused_key_are_named_and_not_retried_shorter() {
    for (kind, at, body, words) in [
        (
            ProviderKind::Openai,
            "/v1/chat/completions",
            "litellm-openai-unknown-model.json",
            "does not know model \"no-such-model\"",
        ),
        (
            ProviderKind::Anthropic,
            "/v1/messages",
            "litellm-anthropic-unknown-model.json",
            "does not know model \"no-such-model\"",
        ),
        (ProviderKind::Openai, "/v1/chat/completions", "litellm-wrong-key.json", "does not take the key"),
    ] {
        let server = answering(at, 400, &recorded(body), false).await;
        let err =
            expect_err(provider(kind, format!("{}/v1", server.uri()), "no-such-model").complete(&request()).await);
        assert!(err.to_string().contains(words), "{body}: {err}");
        assert!(!err.retryable(), "{body}: a shorter prompt would be refused the same");
        assert_eq!(server.received_requests().await.unwrap().len(), 1, "{body}");
    }
}

/// 5. The Anthropic format takes a base URL with or without `/v1`, as the Anthropic SDK
/// and LiteLLM do.
#[tokio::test]
async fn an_anthropic_base_url_is_taken_with_or_without_v1() {
    let server = answering("/v1/messages", 200, &recorded("litellm-anthropic-stream.sse"), true).await;
    for base in [server.uri(), format!("{}/", server.uri()), format!("{}/v1", server.uri())] {
        let answer =
            expect_ok(provider(ProviderKind::Anthropic, base.clone(), "gateway-model").complete(&request()).await);
        assert_eq!(answer.text, "Hello from the stand-in.", "{base}");
    }
}

/// 6. Every Anthropic call streams, structured ones and those with nobody watching too,
/// so the first-token and idle limits apply to them; a tool's input arrives in pieces.
#[tokio::test]
async fn every_anthropic_call_streams_structured_ones_too() {
    let server = answering("/v1/messages", 200, &recorded("litellm-anthropic-tool-stream.sse"), true).await;
    let answer =
        expect_ok(provider(ProviderKind::Anthropic, server.uri(), "gateway-model").complete(&structured()).await);
    assert_eq!(serde_json::from_str::<Value>(&answer.text).unwrap(), json!({"verdict": "yes", "score": 3}));
    assert_eq!(answer.usage.prompt_tokens, 22);
    let sent: Value = serde_json::from_slice(&server.received_requests().await.unwrap()[0].body).unwrap();
    assert_eq!(sent["stream"], true, "{sent}");
    assert!(request().on_text.is_none(), "no terminal watches this call");
}

/// A whole debate against a gateway that answers every call with `status` and `body`:
/// how many requests it got, and the run's output.
async fn debate_against(status: u16, body: &str) -> (usize, std::process::Output) {
    let server = answering("/v1/chat/completions", status, body, false).await;
    let sandbox = Sandbox::new();
    let config = sandbox.openai_compatible(&format!("{}/v1", server.uri()), ", max_retries: 1", "");
    let out = sandbox
        .cmd()
        .env("DEBATE_TEST_KEY", "sk-test")
        .arg("--config")
        .arg(&config)
        .args(["--no-checkpoints", "-r", "1", "--json", QUESTION])
        .output()
        .unwrap();
    (server.received_requests().await.unwrap().len(), out)
}

/// Through a whole debate: the gateway's error in a 200 is what the user reads (on
/// stderr and in `--json`), not "an empty answer".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_debate_against_a_gateway_answering_errors_in_200_says_the_gateways_words() {
    let (_, out) = debate_against(200, &recorded("litellm-api-error.json")).await;
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let said = format!("{}{}", text(&out.stderr), text(&out.stdout));
    assert!(said.contains("litellm.APIError"), "{said}");
    assert!(!said.contains("empty answer"), "{said}");
}

/// Through a whole debate: a gateway's unknown model stops it at the first call, named
/// as an unknown model, with no shorter prompt sent after it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_debate_against_a_gateway_without_the_model_stops_at_the_first_call() {
    let (requests, out) = debate_against(400, &recorded("litellm-openai-unknown-model.json")).await;
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("does not know model"), "{}", text(&out.stderr));
    assert_eq!(requests, 1, "one request, not a shorter one after it");
}
