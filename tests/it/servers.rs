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
use debate::providers::{Budget, Provider};
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
    let requests = server.received_requests().await.unwrap();
    (requests.iter().filter(|r| r.method.as_str() == "POST").count(), out)
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

// ── How many requests a server on this machine serves at once ────────────────────

/// A server that lists its model as `owned_by` names it and answers every completion
/// after `think`, several at once.
async fn listing(owned_by: &str, think: std::time::Duration) -> MockServer {
    let server = MockServer::start().await;
    let models = json!({"object": "list", "data": [{"id": "m", "object": "model", "owned_by": owned_by}]});
    Mock::given(method("GET"))
        .and(path("/v1/models"))
        .respond_with(ResponseTemplate::new(200).set_body_json(models))
        .mount(&server)
        .await;
    let done = json!({"choices": [{"message": {"content": "OK"}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 3, "completion_tokens": 1}});
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(ResponseTemplate::new(200).set_body_json(done).set_delay(think))
        .mount(&server)
        .await;
    server
}

/// A server like Ollama that serves one request at a time: it takes the next connection
/// only once it has answered the last.
async fn one_at_a_time(think: std::time::Duration) -> String {
    use tokio::io::AsyncWriteExt;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let Some((head, _)) = crate::providers_wire::read_request(&mut stream).await else { continue };
            let body = match head.starts_with("GET") {
                true => json!({"object": "list", "data": [{"id": "m", "object": "model", "owned_by": "library"}]}),
                false => {
                    tokio::time::sleep(think).await;
                    json!({"choices": [{"message": {"content": "OK"}, "finish_reason": "stop"}]})
                }
            }
            .to_string();
            let reply = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(reply.as_bytes()).await;
            let _ = stream.shutdown().await;
        }
    });
    base
}

/// What a server on this machine says of itself decides how many requests it gets at
/// once: vLLM batches, llama.cpp counts its slots in /props, llama-cpp-python serves one.
#[tokio::test]
async fn a_server_that_says_how_many_it_serves_is_taken_at_its_word() {
    let quick = std::time::Duration::ZERO;
    let vllm = listing("vllm", quick).await;
    let llamacpp = listing("llamacpp", quick).await;
    Mock::given(method("GET"))
        .and(path("/props"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(
            recorded("llamacpp-props.json").replace("\"total_slots\":4", "\"total_slots\":3"),
            "application/json",
        ))
        .mount(&llamacpp)
        .await;
    let llama_cpp_python = listing("me", quick).await;
    for (server, requests, said) in
        [(&vllm, 8, "vLLM"), (&llamacpp, 3, "llama.cpp's /props: 3 slots"), (&llama_cpp_python, 1, "llama-cpp-python")]
    {
        let provider = provider(ProviderKind::Openai, format!("{}/v1", server.uri()), "m");
        let at_once = provider.serves_at_once(&Budget::default()).await.expect("a server on this machine is asked");
        assert_eq!(at_once.requests, requests, "{}", at_once.learned_from);
        assert!(at_once.learned_from.contains(said), "{}", at_once.learned_from);
        let posted = server.received_requests().await.unwrap().iter().filter(|r| r.method.as_str() == "POST").count();
        assert_eq!(posted, 0, "{said}: asked, not measured");
    }
}

/// A server that lists its models but not how many requests it serves (Ollama, LM
/// Studio, a gateway) is measured: two at once take as long as one where it serves them
/// together, twice as long where it serves one at a time.
#[tokio::test]
async fn a_server_that_does_not_say_is_measured() {
    // Long enough that a queued pair is told from a served one on a busy machine.
    let think = std::time::Duration::from_millis(300);
    let together = listing("library", think).await;
    let at_once = provider(ProviderKind::Openai, format!("{}/v1", together.uri()), "m")
        .serves_at_once(&Budget::default())
        .await
        .unwrap();
    assert_eq!(at_once.requests, 4, "{}", at_once.learned_from);
    assert!(at_once.learned_from.starts_with("measured"), "{}", at_once.learned_from);

    let queued = one_at_a_time(think).await;
    let at_once = provider(ProviderKind::Openai, queued, "m").serves_at_once(&Budget::default()).await.unwrap();
    assert_eq!(at_once.requests, 1, "{}", at_once.learned_from);

    let mut fixed = base_config(ProviderKind::Openai, format!("{}/v1", together.uri()));
    fixed.max_concurrency = Some(2);
    assert!(build(fixed).serves_at_once(&Budget::default()).await.is_none(), "max_concurrency in the settings is kept");
}

/// The most requests that arrived within `window` of each other: with every answer
/// taking longer than `window`, how many were in flight together.
fn most_together(arrivals: &[std::time::Instant], window: std::time::Duration) -> usize {
    arrivals.iter().map(|a| arrivals.iter().filter(|b| **b >= *a && **b - *a < window).count()).max().unwrap_or(0)
}

/// A debate against a server on this machine that batches requests gets its debaters'
/// calls at once; one against a server that serves one at a time gets them in turn. No
/// `max_concurrency` is set; `show` says what was learned of the server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_debate_sends_a_server_as_many_requests_at_once_as_it_serves() {
    use crate::common::llm::{MockLlm, ok, reply};
    let think = std::time::Duration::from_millis(300);
    // A batching server gets the moderator's reading and round 1's three arguments together.
    for (owned_by, at_once) in [("vllm", 4), ("me", 1)] {
        let arrivals = Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = arrivals.clone();
        let mock = MockLlm::serving(
            move |body, _| {
                seen.lock().unwrap().push(std::time::Instant::now());
                Some(ok(body, &reply(body)).set_delay(think))
            },
            owned_by,
        )
        .await;
        let sandbox = Sandbox::new();
        let config = sandbox.openai_compatible(&mock.base_url(), "", "");
        let out = sandbox
            .cmd()
            .env("DEBATE_TEST_KEY", "sk-test")
            .arg("--config")
            .arg(&config)
            .args(["-p", "3", "-r", "1", "--no-checkpoints", QUESTION])
            .output()
            .unwrap();
        assert!(out.status.success(), "{owned_by}: {}", text(&out.stderr));
        let together = most_together(&arrivals.lock().unwrap(), think * 2 / 3);
        assert_eq!(together, at_once, "{owned_by}: requests in flight together");
        let shown = sandbox.cmd().args(["show", &sandbox.only_id()]).output().unwrap();
        let line = format!("Server:     {} serves", mock.base_url());
        assert!(text(&shown.stdout).contains(&line), "{owned_by}: {}", text(&shown.stdout));
    }
}

/// A llama.cpp server (its answers carry `timings`) is asked to keep each prompt cached
/// and each role to a slot of its own: every debater, and the moderator, keep their own
/// slot for the whole debate, so one's calls never evict another's cached prompt.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_llama_cpp_server_keeps_each_roles_prompt_cached_in_a_slot_of_its_own() {
    use crate::common::llm::{MockLlm, reply, streamed_body};
    let mock = MockLlm::serving(
        |body, _| {
            // llama.cpp's last chunk carries its timings.
            let timings = json!({"prompt_n": 12, "prompt_ms": 3.5, "predicted_n": 40, "predicted_ms": 90.0});
            let sse: String = streamed_body("gemma", &reply(body), "stop")
                .split_inclusive("\n\n")
                .map(|event| {
                    match event.strip_prefix("data: ").map(|data| serde_json::from_str::<Value>(data.trim())) {
                        Some(Ok(mut chunk)) if chunk["usage"].is_object() => {
                            chunk["timings"] = timings.clone();
                            format!("data: {chunk}\n\n")
                        }
                        _ => event.to_string(),
                    }
                })
                .collect();
            Some(ResponseTemplate::new(200).insert_header("content-type", "text/event-stream").set_body_string(sse))
        },
        "llamacpp",
    )
    .await;
    Mock::given(method("GET"))
        .and(path("/props"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(recorded("llamacpp-props.json"), "application/json"))
        .mount(&mock.server)
        .await;
    let sandbox = Sandbox::new();
    let config = sandbox.openai_compatible(&mock.base_url(), "", "");
    let out = sandbox
        .cmd()
        .env("DEBATE_TEST_KEY", "sk-test")
        .arg("--config")
        .arg(&config)
        .args(["-p", "3", "-r", "2", "--no-checkpoints", QUESTION])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let requests = mock.requests();
    // Nothing is known of the server before its first answer: the first wave goes as to any.
    assert!(requests[0]["body"].get("cache_prompt").is_none(), "{}", requests[0]["body"]);
    let asked: Vec<(String, u64)> = requests
        .iter()
        .filter(|r| r["body"]["cache_prompt"] == true)
        .map(|r| {
            let prompt = crate::common::llm::prompt_of(&r["body"]);
            let debater = prompt.rsplit_once("You are the debater for \"").and_then(|(_, own)| own.split_once('"'));
            let role = debater.map_or("moderator", |(name, _)| name);
            (role.to_string(), r["body"]["id_slot"].as_u64().expect("a slot"))
        })
        .collect();
    assert!(asked.len() >= 8, "every call after the first answer: {asked:?}");
    let mut slots: std::collections::BTreeMap<&str, std::collections::BTreeSet<u64>> = Default::default();
    for (role, slot) in &asked {
        slots.entry(role.as_str()).or_default().insert(*slot);
    }
    assert!(slots.values().all(|s| s.len() == 1), "one slot each, kept: {slots:?}");
    let distinct: std::collections::BTreeSet<u64> = slots.values().flatten().copied().collect();
    assert_eq!(distinct.len(), slots.len(), "no two roles share a slot of the server's four: {slots:?}");
    assert!(distinct.iter().all(|slot| *slot < 4), "{slots:?}");
}

// ── debate doctor ──────────────────────────────────────────────────────────────────

/// `debate doctor` against a server on this machine: reachable, the model listed, the
/// structured format it took, streaming, one request at a time (as llama-cpp-python
/// says), a measured speed and a default debate's estimate; what it learned is kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_checks_a_server_on_this_machine() {
    use crate::common::llm::{MockLlm, ok, reply};
    // Like Ollama, the server answers only for a model it has.
    let mock = MockLlm::with_rule(|body, _| match body["model"] == "mock-model" {
        true => Some(ok(body, &reply(body))),
        false => Some(
            ResponseTemplate::new(404)
                .set_body_raw(recorded("ollama-v1-chat-completions-404-not-pulled-v0.12+.json"), "application/json"),
        ),
    })
    .await;
    let sandbox = Sandbox::new();
    let config = sandbox.openai_compatible(&mock.base_url(), "", "");
    let doctor = |json: bool| {
        let mut cmd = sandbox.cmd();
        cmd.env("DEBATE_TEST_KEY", "sk-test").arg("--config").arg(&config).arg("doctor");
        if json {
            cmd.arg("--json");
        }
        cmd.output().unwrap()
    };
    let out = doctor(true);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let checkups: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mock_checkup =
        checkups.as_array().unwrap().iter().find(|c| c["provider"] == "mock").expect("the default provider");
    assert_eq!(mock_checkup["default"], true);
    assert_eq!(mock_checkup["reachable"], true);
    assert_eq!(mock_checkup["software"], "llama-cpp-python");
    assert_eq!(mock_checkup["model_listed"], true, "{mock_checkup}");
    assert_eq!(mock_checkup["problems"], json!([]));
    assert!(!text(&out.stdout).contains("sk-test"), "the key is never shown");

    let out = doctor(false);
    let table = text(&out.stdout);
    assert!(out.status.success(), "{table}{}", text(&out.stderr));
    let row = table.lines().find(|l| l.starts_with("mock *")).expect("a row for the default provider");
    for cell in ["(llama-cpp-python)", "DEBATE_TEST_KEY set", "mock-model", "json_schema", "yes", " 1 "] {
        assert!(row.contains(cell), "{cell:?} in {row}");
    }
    assert!(table.contains("mock: 1 at once (llama-cpp-python serves one request at a time"), "{table}");
    assert!(table.contains("mock: a default debate: up to 5 rounds, 37 calls"), "{table}");
    assert!(table.contains("mock: price: no price: give it one under prices:"), "{table}");
    assert!(row.split_whitespace().last().unwrap().parse::<f64>().is_ok(), "a measured tokens per second: {row}");
    let db = rusqlite::Connection::open(sandbox.db()).unwrap();
    // SQLite here, because what doctor learned is not part of any debate's document.
    let format: String = db.query_row("SELECT format FROM structured_formats", [], |r| r.get(0)).unwrap();
    assert_eq!(format, "json_schema");

    // A model the server does not list: exit 4, and the fix.
    std::fs::write(&config, std::fs::read_to_string(&config).unwrap().replace("model: mock-model", "model: mistral"))
        .unwrap();
    let out = doctor(false);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("the server has no model \"mistral\" (it lists: mock-model)"),
        "{}",
        text(&out.stderr)
    );
    assert!(text(&out.stdout).contains("mistral (not listed)"), "{}", text(&out.stdout));
}

/// `debate doctor` against a port nothing listens on: exit 3, the fix named.
#[test]
fn doctor_against_a_dead_port_names_the_fix() {
    let sandbox = Sandbox::new();
    let config = sandbox.openai_compatible("http://127.0.0.1:9/v1", "", "");
    let out =
        sandbox.cmd().env("DEBATE_TEST_KEY", "sk-test").arg("--config").arg(&config).arg("doctor").output().unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("mock cannot run a debate: nothing answers at http://127.0.0.1:9/v1"), "{stderr}");
    assert!(stderr.contains("hint: start the server, or correct providers.mock.base_url"), "{stderr}");
}

/// `debate doctor` against a gateway that refuses a missing key: the settings are at
/// fault (exit 4), the unset variable is named in the table, and the provider's name is
/// said once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_names_an_unset_key_variable_and_a_refused_key_is_a_configuration_error() {
    use crate::common::llm::MockLlm;
    let body = r#"{"error": {"message": "Authentication Error, No api key passed in."}}"#;
    let mock =
        MockLlm::with_rule(move |_, _| Some(ResponseTemplate::new(401).set_body_raw(body, "application/json"))).await;
    let sandbox = Sandbox::new();
    let config = sandbox.openai_compatible(&mock.base_url(), "", "");
    let mut cmd = sandbox.std_cmd();
    cmd.env_remove("DEBATE_TEST_KEY").arg("--config").arg(&config).arg("doctor");
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap()).await.unwrap();
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    let row = stdout.lines().find(|l| l.starts_with("mock *")).expect("a row for the default provider");
    assert!(row.contains("DEBATE_TEST_KEY not set"), "{row}");
    assert!(stderr.contains("error: mock cannot run a debate: the API key was rejected (HTTP 401)"), "{stderr}");
    assert!(!stdout.contains("mock: mock:") && !stderr.contains("mock: mock:"), "{stdout}{stderr}");
    assert!(stdout.contains("\nmock: the API key was rejected"), "{stdout}");
}

/// Behind a gateway that buffers the stream, the text arrives in one burst: the speed is
/// told from the whole call, never from the burst (which would read as millions of
/// tokens a second and a default debate of "about 0 s").
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_times_a_buffered_stream_over_the_whole_call() {
    use crate::common::llm::{self, MockLlm};
    let mock = MockLlm::with_rule(|body, _| {
        let answer = llm::ok(body, &llm::reply(body));
        Some(answer.set_delay(std::time::Duration::from_millis(400)))
    })
    .await;
    let sandbox = Sandbox::new();
    let config = sandbox.openai_compatible(&mock.base_url(), "", "");
    let mut cmd = sandbox.std_cmd();
    cmd.env("DEBATE_TEST_KEY", "sk-test").arg("--config").arg(&config).args(["doctor", "--json"]);
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap()).await.unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let checkups: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mock_checkup = checkups.as_array().unwrap().iter().find(|c| c["provider"] == "mock").unwrap();
    let speed = mock_checkup["tokens_per_second"].as_f64().expect("a measured speed");
    // The stand-in reports 40 completion tokens after 0.4 s: at most 100 tokens a second.
    assert!(speed > 0.0 && speed <= 100.0, "{speed} tokens a second: {mock_checkup}");
    assert!(!mock_checkup["default_debate"].as_str().unwrap().contains("about 0 s"), "{mock_checkup}");
}

/// A call cut at `timeout_seconds` while its answer is still coming is never sent again:
/// the server may still be computing it (issue 35: a synthesis abandoned at 900 s was
/// sent again and took 689 s more).
#[tokio::test]
async fn a_call_cut_at_its_whole_limit_is_never_sent_again() {
    use tokio::io::AsyncWriteExt;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    let requests = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let seen = requests.clone();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let seen = seen.clone();
            tokio::spawn(async move {
                if crate::providers_wire::read_request(&mut stream).await.is_none() {
                    return;
                }
                seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n").await;
                // A slow model: a token every 300 ms, for longer than the call may take.
                for _ in 0..20 {
                    let chunk = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"slow \"}}]}\n\n";
                    if stream.write_all(chunk.as_bytes()).await.is_err() {
                        return;
                    }
                    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
                }
            });
        }
    });
    let mut config = base_config(ProviderKind::Openai, base);
    config.timeout_seconds = Some(1);
    let err = expect_err(build(config).complete(&request()).await);
    assert!(shown(&err).contains("timeout_seconds"), "{}", shown(&err));
    assert_eq!(requests.load(std::sync::atomic::Ordering::SeqCst), 1, "sent once, never again");
}

/// `debate doctor` against a server that takes 30 s over every answer: each probe has
/// its deadline (here a second past the provider's first-token limit of 1 s), doctor
/// says which answer the server missed, and ends long before the server would have.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_gives_a_slow_server_a_deadline_per_probe() {
    let slow = std::time::Duration::from_secs(30);
    let missed = [
        (true, "did not answer the request for its models within 2 s"),
        (false, "did not answer for 1 s (first_token_timeout_seconds)"),
    ];
    for (listing, missed) in missed {
        let server = MockServer::start().await;
        let models = serde_json::json!({"object": "list", "data": [{"id": "mock-model", "object": "model"}]});
        let listed = ResponseTemplate::new(200).set_body_json(models);
        Mock::given(method("GET"))
            .and(path("/v1/models"))
            .respond_with(if listing { listed.set_delay(slow) } else { listed })
            .mount(&server)
            .await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(200).set_delay(slow).set_body_string("{}"))
            .mount(&server)
            .await;
        let sandbox = Sandbox::new();
        let config = sandbox.openai_compatible(&format!("{}/v1", server.uri()), ", first_token_timeout_seconds: 1", "");
        let mut cmd = sandbox.std_cmd();
        cmd.env("DEBATE_TEST_KEY", "sk-test").arg("--config").arg(&config).arg("doctor");
        let out = tokio::task::spawn_blocking(move || cmd.output().unwrap()).await.unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{stderr}");
        assert!(stderr.contains(missed), "{stderr}");
    }
}

/// A server that answers every request just inside its limit is not waited on once per
/// probe: a provider's whole checkup has a deadline of its own (half again one answer's
/// limit), and doctor says when that is what ran out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_gives_a_provider_one_deadline_in_all() {
    let server = MockServer::start().await;
    // LM Studio's listing: a server that says nothing of how many requests it serves, so
    // doctor would probe it with several more requests.
    let models = serde_json::json!({"object": "list", "data": [{"id": "mock-model", "object": "model", "owned_by": "organization_owner"}]});
    Mock::given(method("GET"))
        .and(path("/v1/models"))
        .respond_with(ResponseTemplate::new(200).set_body_json(models))
        .mount(&server)
        .await;
    // Each answer takes 1.8 s: inside the 3 s each one is given (a second past the
    // first-token limit of 2 s), and past the 4 s of the whole checkup by the third.
    Mock::given(method("POST"))
        .respond_with(|request: &wiremock::Request| {
            let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
            crate::common::llm::ok(&body, "{\"ok\": true}").set_delay(std::time::Duration::from_millis(1_800))
        })
        .mount(&server)
        .await;
    let sandbox = Sandbox::new();
    let config = sandbox.openai_compatible(&format!("{}/v1", server.uri()), ", first_token_timeout_seconds: 2", "");
    let mut cmd = sandbox.std_cmd();
    cmd.env("DEBATE_TEST_KEY", "sk-test").arg("--config").arg(&config).args(["doctor", "--json"]);
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap()).await.unwrap();
    let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(said.contains("doctor gives a provider 4 s in all"), "{said}");
}

#[test]
fn doctor_with_no_provider_configured_says_so_instead_of_an_empty_table() {
    let sandbox = Sandbox::new();
    let config = sandbox.home.join("settings.yaml");
    std::fs::write(&config, "debate:\n  checkpoints: false\n").unwrap();
    let out = sandbox.cmd().arg("--config").arg(&config).arg("doctor").output().unwrap();
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
    assert!(stdout.starts_with("No provider is configured"), "{stdout}");
    assert!(!stdout.contains("PROVIDER"), "no table without a row: {stdout}");
}
