//! Capped: every request sent is on the ledger — each attempt of a call (a retried empty
//! answer too), each probe of what a server serves — counted as the server counted it,
//! bounded by what was asked for; a cap is never passed by more than one call's worst
//! case, the month's room is held in the state database across runs at once, and
//! `debate usage` files each request under the provider it went through. Against stand-in
//! servers on 127.0.0.1 that report their own token counts.

use std::process::Output;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use wiremock::ResponseTemplate;

use crate::common::llm::{MockLlm, prompt_of, reply, streamed_with_usage};
use crate::common::*;

const QUESTION: &str = "Should we cache sessions in Redis or in Postgres?";
/// A hundred dollars a million tokens, in and out.
const PRICES: &str = ", prices: {mock-model: {input: 100, output: 100}}";
const PER_TOKEN: f64 = 100.0 / 1_000_000.0;

async fn run(sandbox: &Sandbox, config: &std::path::Path, args: &[&str]) -> Output {
    let mut cmd = sandbox.std_cmd();
    cmd.arg("--config").arg(config).args(args).env("DEBATE_TEST_KEY", "sk-test-ledger");
    tokio::task::spawn_blocking(move || cmd.output().unwrap()).await.unwrap()
}

fn usage_json(sandbox: &Sandbox, args: &[&str]) -> Value {
    let out = sandbox.cmd().args(["usage", "--json"]).args(args).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `text`, streamed, the last event reporting `prompt` and `completion` tokens.
fn answer(text: &str, prompt: u64, completion: u64) -> ResponseTemplate {
    let usage = json!({"prompt_tokens": prompt, "completion_tokens": completion});
    ResponseTemplate::new(200).insert_header("content-type", "text/event-stream").set_body_string(streamed_with_usage(
        "mock-model",
        text,
        "stop",
        usage,
    ))
}

/// 40 completion tokens, or the request's limit when it is less (a probe's 4), as a
/// server counts them.
fn forty(body: &Value) -> u64 {
    body["max_tokens"].as_u64().or(body["max_completion_tokens"].as_u64()).unwrap_or(40).min(40)
}

fn is_debater(body: &Value) -> bool {
    prompt_of(body).contains("You are the debater for")
}

/// Answers that hold nothing a reader can see.
const HOLLOW: [&str; 5] = [
    "",
    "\u{200b}\u{200c}\u{2060}\u{feff}",
    "\u{1b}[31m\u{1b}[0m\u{1b}[1m\u{1b}[0m",
    "\u{2800}\u{2800} \u{2800}\n\u{2800}",
    "STANCE: {\"option\": \"Postgres\", \"confidence\": \"high\"}",
];

/// Every debater's first try holds nothing (the empty answer of a gateway, invisible
/// characters, colour codes, braille blanks, a stance alone), its retry an argument; the
/// server says (as LM Studio's does) nothing of how many requests it serves, so it is
/// probed; every answer reports 100 prompt and 40 completion tokens. The ledger holds
/// every request the server received, at the server's count.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_request_is_on_the_ledger_retries_and_probes_too_and_hollow_answers_are_retried() {
    let debater_calls = Arc::new(AtomicUsize::new(0));
    let hollow_sent = Arc::new(AtomicUsize::new(0));
    let (calls, sent) = (debater_calls.clone(), hollow_sent.clone());
    let mock = MockLlm::serving(
        move |body, _| {
            if !is_debater(body) {
                return Some(answer(&reply(body), 100, forty(body)));
            }
            let n = calls.fetch_add(1, Ordering::SeqCst);
            match n % 2 {
                0 => {
                    sent.fetch_add(1, Ordering::SeqCst);
                    Some(answer(HOLLOW[(n / 2) % HOLLOW.len()], 100, forty(body)))
                }
                _ => Some(answer(&reply(body), 100, forty(body))),
            }
        },
        "organization_owner",
    )
    .await;
    let sandbox = Sandbox::new();
    let config = sandbox.openai_compatible(&mock.base_url(), &format!("{PRICES}, max_retries: 3"), "");
    let out = run(&sandbox, &config, &["-p", "2", "-r", "1", QUESTION]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));

    let received = mock.requests().len() as u64;
    let completion: u64 = mock.requests().iter().map(|r| forty(&r["body"])).sum();
    let probes = mock.requests().iter().filter(|r| prompt_of(&r["body"]).contains("Say OK.")).count();
    assert!(probes > 0, "the server was probed");
    assert!(hollow_sent.load(Ordering::SeqCst) >= 2, "the hollow answers were sent");
    let usage = usage_json(&sandbox, &[]);
    let total = &usage["total"];
    assert_eq!(total["requests"], received, "every request the server received: {usage}");
    assert_eq!(total["prompt_tokens"], received * 100, "at the server's own count: {usage}");
    assert_eq!(total["completion_tokens"], completion, "{usage}");
    let billed = (received * 100 + completion) as f64 * PER_TOKEN;
    assert!((total["usd"].as_f64().unwrap() - billed).abs() < 1e-9, "{usage} against {billed}");
    assert_eq!(total["not_as_reported"], 0);

    // Nothing hollow stands as an argument: each was asked again, and the retries counted.
    let shown = sandbox.shown();
    let record = std::fs::read_to_string(&sandbox.records()[0]).unwrap();
    for hollow in &HOLLOW[1..4] {
        assert!(!record.contains(hollow), "{hollow:?} is in the record");
    }
    let rounds = shown["transcript"].as_array().unwrap();
    for argument in rounds.iter().flat_map(|round| round["arguments"].as_array().unwrap()) {
        let said = argument["text"].as_str().unwrap_or_default();
        assert!(said.split("STANCE:").next().unwrap().trim().len() > 20, "a hollow argument stands: {argument}");
    }
    let retries: u64 = shown["models"].as_array().into_iter().flatten().filter_map(|m| m["retries"].as_u64()).sum();
    assert!(retries >= hollow_sent.load(Ordering::SeqCst) as u64, "{}", shown["models"]);
}

/// A cap so small no request fits: nothing reaches the server, the probes of how many
/// requests it serves included, and the debate pauses with the way on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cap_holds_the_probes_too() {
    let mock = MockLlm::serving(|body, _| Some(answer(&reply(body), 100, 40)), "organization_owner").await;
    let sandbox = Sandbox::new();
    let config = sandbox.openai_compatible(&mock.base_url(), PRICES, "");
    let out = run(&sandbox, &config, &["--max-cost", "0.000001", QUESTION]).await;
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("debate resume"), "{stderr}");
    assert!(mock.requests().is_empty(), "sent past the cap: {:?}", mock.requests().len());
}

/// A server that reports 100 million completion tokens for an answer limited to a few
/// hundred is not believed: the ledger bounds the figure by the request's limit and says
/// it did, and a month's budget is not gone on it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_impossible_count_is_bounded_by_what_was_asked_for() {
    let mock = MockLlm::with_rule(|body, _| {
        let limited = body["max_tokens"].as_u64().or(body["max_completion_tokens"].as_u64());
        Some(answer(&reply(body), 100, if limited.is_some() { 100_000_000 } else { 40 }))
    })
    .await;
    let sandbox = Sandbox::new();
    let config = sandbox.openai_compatible(&mock.base_url(), PRICES, "");
    let out = run(&sandbox, &config, &["-p", "2", "-r", "1", QUESTION]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let bodies: Vec<Value> = mock.requests().into_iter().map(|r| r["body"].clone()).collect();
    let limits: Vec<u64> =
        bodies.iter().filter_map(|b| b["max_tokens"].as_u64().or(b["max_completion_tokens"].as_u64())).collect();
    assert!(!limits.is_empty(), "some requests are limited");
    let most = limits.iter().sum::<u64>() + 40 * (bodies.len() - limits.len()) as u64;
    let usage = usage_json(&sandbox, &[]);
    let completion = usage["total"]["completion_tokens"].as_u64().unwrap();
    assert!(completion <= most, "{completion} tokens recorded, {most} at most could be: {usage}");
    assert_eq!(usage["total"]["not_as_reported"], limits.len() as u64, "each bounded figure is flagged: {usage}");
    assert!(usage["total"]["usd"].as_f64().unwrap() < 1.0, "{usage}");
    let table = text(&sandbox.cmd().args(["usage"]).output().unwrap().stdout);
    assert!(table.contains("not as their servers reported them"), "{table}");
}

/// Two debates started together under one `budget.per_month_usd` share the month's room:
/// each request is held in the state database before it is sent, so together they never
/// spend past it. The server bills each request at the prompt's size and the whole
/// completion limit (as close to each request's worst case as a server comes).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_runs_at_once_cannot_both_spend_the_months_room() {
    let billed = Arc::new(Mutex::new(0.0_f64));
    let bill = billed.clone();
    let mock = MockLlm::with_rule(move |body, _| {
        let prompt = prompt_of(body).len() as u64 / 4;
        let completion = body["max_tokens"].as_u64().or(body["max_completion_tokens"].as_u64()).unwrap_or(500);
        *bill.lock().unwrap() += (prompt + completion) as f64 * PER_TOKEN;
        Some(answer(&reply(body), prompt, completion).set_delay(Duration::from_millis(100)))
    })
    .await;
    let sandbox = Sandbox::new();
    let config = sandbox.openai_compatible(&mock.base_url(), PRICES, "");
    let one = run(&sandbox, &config, &["-p", "2", "-r", "1", QUESTION]).await;
    assert!(one.status.success(), "{}", text(&one.stderr));
    let debate = *billed.lock().unwrap();
    let spent = usage_json(&sandbox, &[])["month"]["spent_usd"].as_f64().unwrap();
    assert!((spent - debate).abs() < 1e-6, "the ledger is the server's bill: {spent} against {debate}");

    // Room for one and a half debates more.
    let room = debate * 1.5;
    let month = format!("budget:\n  per_month_usd: {:.6}\n", spent + room);
    std::fs::write(&config, std::fs::read_to_string(&config).unwrap() + &month).unwrap();
    *billed.lock().unwrap() = 0.0;
    let (a, b) = tokio::join!(
        run(&sandbox, &config, &["-p", "2", "-r", "1", "Kafka or RabbitMQ for the order events?"]),
        run(&sandbox, &config, &["-p", "2", "-r", "1", "gRPC or REST between the billing services?"]),
    );
    let together = *billed.lock().unwrap();
    assert!(together <= room + 1e-6, "the two runs spent {together:.4}, the month had {room:.4}");
    let paused: Vec<String> = [a, b].iter().filter(|out| !out.status.success()).map(|out| text(&out.stderr)).collect();
    assert!(!paused.is_empty(), "two debates cannot both fit in one and a half");
    for stderr in &paused {
        assert!(stderr.contains("budget.per_month_usd"), "{stderr}");
    }
}

/// `debate usage --by provider` files each request under the provider it went through:
/// an offline debate sends none, and a provider nobody answers leaves no row without a
/// model.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn usage_files_requests_under_their_provider() {
    let mock = MockLlm::start().await;
    let sandbox = Sandbox::new();
    let config = sandbox.openai_compatible(&mock.base_url(), PRICES, "");
    assert!(run(&sandbox, &config, &["-p", "2", "-r", "1", QUESTION]).await.status.success());
    assert!(sandbox.cmd().args(["--offline", "-r", "1", "gRPC or REST?"]).output().unwrap().status.success());
    let dead = sandbox.home.join("dead.yaml");
    std::fs::write(
        &dead,
        "providers:\n  default: gone\n  gone: {kind: openai, base_url: \"http://127.0.0.1:9/v1\", api_key_env: DEBATE_TEST_KEY, model: gone-model, max_retries: 0}\ndebate:\n  checkpoints: false\n",
    )
    .unwrap();
    let out = run(&sandbox, &dead, &["Kafka or RabbitMQ?"]).await;
    assert!(!out.status.success());

    let by_provider = usage_json(&sandbox, &["--by", "provider"]);
    let keys: Vec<&str> = by_provider["rows"].as_array().unwrap().iter().map(|r| r["key"].as_str().unwrap()).collect();
    assert!(keys.contains(&"mock"), "{by_provider}");
    assert!(!keys.contains(&"unknown"), "{by_provider}");
    let by_model = usage_json(&sandbox, &[]);
    for row in by_model["rows"].as_array().unwrap() {
        assert!(!row["key"].as_str().unwrap().is_empty(), "a row without a model: {by_model}");
    }
}
