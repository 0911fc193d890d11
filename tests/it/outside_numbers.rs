//! What a server reports reaches the state and the record only in a form they can hold:
//! usage figures far past any real call, and a model named otherwise than it was asked
//! for. The history stays readable and every record reads back in a fresh clone.

use std::process::Output;

use serde_json::{Value, json};
use wiremock::ResponseTemplate;

use crate::common::llm::{self, MockLlm};
use crate::common::*;

const KEY: &str = "sk-outside-numbers-4b5c6d";

async fn run(sandbox: &Sandbox, config: &std::path::Path, args: &[&str]) -> Output {
    let mut cmd = sandbox.std_cmd();
    cmd.arg("--config").arg(config).args(args).env("DEBATE_TEST_KEY", KEY);
    tokio::task::spawn_blocking(move || cmd.output().expect("debate runs")).await.unwrap()
}

fn identity(repo: &std::path::Path) {
    git(repo, &["config", "user.name", "Test"]);
    git(repo, &["config", "user.email", "test@example.com"]);
}

/// An answer whose usage says `usage`, streamed or whole as the request asked.
fn with_usage(body: &Value, usage: Value) -> ResponseTemplate {
    let text = llm::reply(body);
    if body["stream"] == true {
        let chunk = json!({"model": "mock-model", "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": null}]});
        let last = json!({"model": "mock-model", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "usage": usage});
        let sse = format!("data: {chunk}\n\ndata: {last}\n\ndata: [DONE]\n\n");
        return ResponseTemplate::new(200).insert_header("content-type", "text/event-stream").set_body_string(sse);
    }
    ResponseTemplate::new(200).set_body_json(json!({
        "id": "x", "object": "chat.completion", "model": "mock-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": usage,
    }))
}

/// 1. A proxy that reports i64::MAX, u64::MAX or a negative count: the debate completes,
/// and `list --all`, `show` and `delete` go on working.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_servers_absurd_usage_never_breaks_the_history() {
    for usage in [
        json!({"prompt_tokens": 100, "completion_tokens": i64::MAX}),
        json!({"prompt_tokens": u64::MAX, "completion_tokens": u64::MAX, "prompt_tokens_details": {"cached_tokens": u64::MAX}}),
        json!({"prompt_tokens": -5, "completion_tokens": -1}),
        json!({"prompt_tokens": 1e300, "completion_tokens": "many"}),
    ] {
        let reported = usage.clone();
        let mock = MockLlm::with_rule(move |body, _| Some(with_usage(body, reported.clone()))).await;
        let sandbox = Sandbox::new();
        identity(&sandbox.repo);
        let config = sandbox.openai_compatible(&mock.base_url(), "", "");
        for _ in 0..2 {
            let out = run(&sandbox, &config, &["-r", "1", "-q", QUESTION]).await;
            assert!(out.status.success(), "{usage}: {}", text(&out.stderr));
        }
        let listed = sandbox.cmd().args(["list", "--all", "--json"]).output().unwrap();
        assert!(listed.status.success(), "{usage}: {}", text(&listed.stderr));
        let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
        assert_eq!(listed.as_array().unwrap().len(), 2, "{usage}");
        let id = sandbox.newest_id();
        let shown = sandbox.show(&id);
        let tokens = shown["usage"]["completion_tokens"].as_u64().unwrap_or_default();
        assert!(tokens < 1_000_000_000, "{usage}: the count is one a debate can have: {shown}");
        let deleted = sandbox.cmd().args(["delete", &id]).output().unwrap();
        assert!(deleted.status.success(), "{usage}: {}", text(&deleted.stderr));
    }
}

/// 2. A server that names its model otherwise than it was asked (OpenAI's and
/// Anthropic's dated ids, a name in another script), in each wire format: the record it
/// wrote reads back in a fresh clone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_record_reads_back_whatever_name_the_server_gives_its_model() {
    for kind in ["openai", "anthropic"] {
        for named in ["mock-1-2024-07-18", "mock-1-20250929", "モデル-ünï", "a model: with \"quotes\" and # marks"]
        {
            let name = named.to_string();
            let mock = match kind {
                "openai" => MockLlm::with_rule(move |body, _| Some(llm::ok_from(&name, body, &llm::reply(body)))).await,
                _ => MockLlm::anthropic(move |_| Some(name.clone())).await,
            };
            let sandbox = Sandbox::new();
            identity(&sandbox.repo);
            git(&sandbox.repo, &["commit", "-q", "--allow-empty", "-m", "start"]);
            let config = sandbox.openai_compatible(&mock.base_url(), "", "");
            let settings = std::fs::read_to_string(&config).unwrap().replace("kind: openai", &format!("kind: {kind}"));
            std::fs::write(&config, settings).unwrap();
            let out = run(&sandbox, &config, &["-r", "1", "--json", QUESTION]).await;
            assert!(out.status.success(), "{kind} {named}: {}", text(&out.stderr));
            assert!(!mock.requests().is_empty(), "{kind}: the stand-in answered");
            let id = sandbox.newest_id();
            let record = std::fs::read_to_string(&sandbox.records()[0]).unwrap();
            assert!(record.contains(named.split(':').next().unwrap()), "{kind}: the record names {named}: {record}");

            let clone = sandbox.home.join("clone");
            git(&sandbox.home, &["clone", "-q", sandbox.repo.to_str().unwrap(), clone.to_str().unwrap()]);
            let home = sandbox.home.join("teammate");
            std::fs::create_dir_all(&home).unwrap();
            let shown = sandbox.std_cmd_as(&clone, &home).args(["show", &id, "--json"]).output().unwrap();
            assert!(shown.status.success(), "{kind} {named}: {}", text(&shown.stderr));
            let shown: Value = serde_json::from_slice(&shown.stdout).unwrap();
            assert_eq!(shown["id"], id.as_str());
        }
    }
}

/// 5. A number in the settings past what can be acted on is a configuration error
/// naming its file and key, never a panic; one a server claims of itself (llama.cpp's
/// `/props` with u64::MAX slots) is taken at most at the bound.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_number_from_settings_or_a_server_is_bounded() {
    let mock = MockLlm::serving(|_, _| None, "llamacpp").await;
    wiremock::Mock::given(wiremock::matchers::method("GET"))
        .and(wiremock::matchers::path("/props"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"total_slots": u64::MAX})))
        .mount(&mock.server)
        .await;
    let sandbox = Sandbox::new();
    identity(&sandbox.repo);
    let config = sandbox.openai_compatible(&mock.base_url(), "", "");
    let out = run(&sandbox, &config, &["-r", "1", "-q", QUESTION]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(sandbox.cmd().args(["list", "--all"]).output().unwrap().status.success());

    for (extra, debate, key) in [
        (", max_concurrency: 4611686018427387904", "", "max_concurrency"),
        (", max_retries: 99999999999", "", "max_retries"),
        (", timeout_seconds: 18446744073709551615", "", "timeout_seconds"),
        (", idle_timeout_seconds: -4", "", "idle_timeout_seconds"),
        (", prices: {mock-model: {input: 1e308, output: 1}}", "", "input"),
        ("", "  round_timeout_seconds: 9223372036854775807\n", "round_timeout_seconds"),
    ] {
        let config = sandbox.openai_compatible(&mock.base_url(), extra, debate);
        let before = mock.requests().len();
        let out = run(&sandbox, &config, &["-r", "1", QUESTION]).await;
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(4), "{key}: {stderr}");
        assert!(stderr.contains("settings.yaml") && stderr.contains(key), "{key}: {stderr}");
        assert!(!stderr.contains("panicked"), "{key}: {stderr}");
        assert_eq!(mock.requests().len(), before, "{key}: nothing was sent");
    }
    let roles = sandbox.openai_compatible(&mock.base_url(), "", "");
    let settings = std::fs::read_to_string(&roles).unwrap();
    std::fs::write(&roles, format!("{settings}roles:\n  debater: {{temperature: 1e30}}\n")).unwrap();
    let out = run(&sandbox, &roles, &["-r", "1", QUESTION]).await;
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("temperature"), "{}", text(&out.stderr));
}
