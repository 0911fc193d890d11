//! Spending caps (docs/guide.md, "Spending caps"): against a stand-in server whose every
//! answer reports its own tokens, priced in the settings, a capped debate pauses with
//! nothing sent past its cap and goes on when resumed with room; a token cap holds by the
//! server's count; a cost cap needs a price; a month without room refuses a run; a
//! repository may lower a cap, never raise it; and `debate usage` adds up what was spent.

use std::process::Output;

use serde_json::Value;

use crate::common::llm::{self, MockLlm};
use crate::common::*;

/// A hundred dollars a million tokens: the stand-in's call (100 prompt and 40 completion
/// tokens) costs $0.014.
const PRICES: &str = ", prices: {mock-model: {input: 100, output: 100}}";
const CALL_USD: f64 = 140.0 * 100.0 / 1_000_000.0;

async fn run(sandbox: &Sandbox, config: &std::path::Path, args: &[&str]) -> Output {
    let mut cmd = sandbox.std_cmd();
    cmd.arg("--config").arg(config).args(args).env("DEBATE_TEST_KEY", "sk-test-budget");
    tokio::task::spawn_blocking(move || cmd.output().unwrap()).await.unwrap()
}

/// What the stand-in was asked for, by its own count, in calls.
fn calls(mock: &MockLlm) -> usize {
    mock.requests().len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_debate_capped_below_its_cost_pauses_and_resume_with_room_finishes_it() {
    let mock = MockLlm::start().await;
    let sandbox = Sandbox::new();
    let config = sandbox.openai_compatible(&mock.base_url(), PRICES, "");
    let out = run(&sandbox, &config, &["-p", "2", "-r", "2", "--max-cost", "0.25", QUESTION]).await;
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "paused as any pause: {stderr}");
    assert!(stderr.contains("the cost cap of $0.2500 is reached"), "{stderr}");
    let id = sandbox.only_id();
    assert!(stderr.contains(&format!("debate resume {id} --max-cost 0.50")), "the exact line: {stderr}");
    let sent = calls(&mock);
    assert!(sent >= 1, "the calls with room went out");
    assert!(sent as f64 * CALL_USD <= 0.25, "{sent} calls: nothing past the cap");
    let shown = sandbox.show(&id);
    assert_eq!(shown["status"], "paused");
    let stored = shown["transcript"].as_array().map_or(0, |rounds| rounds.len());

    let out = run(&sandbox, &config, &["resume", &id, "--max-cost", "5"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let shown = sandbox.show(&id);
    assert_eq!(shown["status"], "complete");
    assert!(shown["transcript"].as_array().unwrap().len() >= stored, "nothing finished was lost");
    assert!(calls(&mock) as f64 * CALL_USD <= 5.0);
    let record = std::fs::read_to_string(shown["record_path"].as_str().unwrap()).unwrap();
    assert!(record.contains("Spending cap: $5.00"), "the record says the cap: {record}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_cap_holds_by_the_servers_count() {
    let mock = MockLlm::start().await;
    let sandbox = Sandbox::new();
    let config = sandbox.openai_compatible(&mock.base_url(), "", "");
    let out = run(&sandbox, &config, &["-p", "2", "-r", "3", "--max-tokens", "3000", QUESTION]).await;
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("the cap of 3000 tokens is reached"), "{stderr}");
    assert!(stderr.contains("--max-tokens 6000"), "{stderr}");
    let counted = calls(&mock) as u64 * (llm::PROMPT_TOKENS + llm::COMPLETION_TOKENS);
    assert!(counted <= 3000, "{counted} tokens by the server's count");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cost_cap_with_a_model_that_has_no_price_sends_nothing() {
    let mock = MockLlm::start().await;
    let sandbox = Sandbox::new();
    let config = sandbox.openai_compatible(&mock.base_url(), "", "");
    let out = run(&sandbox, &config, &["--max-cost", "1", QUESTION]).await;
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("a cost cap of $1.00 needs a price for every model, and mock-model has none"), "{stderr}");
    assert!(stderr.contains("--max-tokens"), "the other way: {stderr}");
    assert_eq!(calls(&mock), 0);
    assert!(sandbox.try_listed().unwrap_or_default().is_empty(), "nothing stored");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_month_without_room_refuses_a_run_and_usage_adds_up_the_debates_costs() {
    let mock = MockLlm::start().await;
    let sandbox = Sandbox::new();
    let config = sandbox.openai_compatible(&mock.base_url(), PRICES, "");
    let out = run(&sandbox, &config, &["-p", "2", "-r", "1", QUESTION]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let spent = calls(&mock) as f64 * CALL_USD;

    let usage = sandbox.cmd().args(["usage", "--json"]).output().unwrap();
    assert!(usage.status.success(), "{}", text(&usage.stderr));
    let usage: Value = serde_json::from_slice(&usage.stdout).unwrap();
    let shown = sandbox.show(&sandbox.only_id());
    let estimated = shown["cost"]["estimated_usd"].as_f64().unwrap();
    assert!((usage["total"]["usd"].as_f64().unwrap() - estimated).abs() < 1e-9, "{usage} against {estimated}");
    assert!((estimated - spent).abs() < 1e-9, "the stand-in's own count: {estimated} against {spent}");
    assert_eq!(usage["total"]["requests"], calls(&mock) as u64);
    assert_eq!(usage["rows"][0]["key"], "mock-model");
    let by_repository =
        sandbox.cmd().args(["usage", "--by", "repository", "--json", "--since", "7d"]).output().unwrap();
    let by_repository: Value = serde_json::from_slice(&by_repository.stdout).unwrap();
    assert_eq!(by_repository["rows"].as_array().unwrap().len(), 1);

    // A month that has spent its cap refuses the next run before anything is sent.
    let month = format!("budget:\n  per_month_usd: {}\n", spent / 2.0);
    std::fs::write(&config, std::fs::read_to_string(&config).unwrap() + &month).unwrap();
    let before = calls(&mock);
    let out = run(&sandbox, &config, &["-r", "1", "Kafka or RabbitMQ for the order events?"]).await;
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(stderr.contains("no room for another"), "{stderr}");
    assert_eq!(calls(&mock), before, "nothing sent");
    let table = text(&sandbox.cmd().args(["--config", config.to_str().unwrap(), "usage"]).output().unwrap().stdout);
    assert!(table.contains("This month:") && table.contains("left."), "{table}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repository_may_lower_a_cap_but_not_raise_it() {
    let mock = MockLlm::start().await;
    let sandbox = Sandbox::new();
    let config = sandbox.openai_compatible(&mock.base_url(), PRICES, "");
    write(&sandbox.home, "config/debate/settings.yaml", "budget:\n  per_debate_usd: 0.25\n");
    write(&sandbox.repo, ".debate/settings.yaml", "budget:\n  per_debate_usd: 50\n");
    let out = run(&sandbox, &config, &["-p", "2", "-r", "2", QUESTION]).await;
    let stderr = text(&out.stderr);
    assert!(stderr.contains("would raise budget.per_debate_usd from 0.25 to 50"), "said: {stderr}");
    assert_eq!(out.status.code(), Some(3), "the user's cap stands: {stderr}");
    assert!(stderr.contains("the cost cap of $0.2500 is reached"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repository_that_prices_a_model_needs_trust_first() {
    let mock = MockLlm::start().await;
    let sandbox = Sandbox::new();
    let config = sandbox.openai_compatible(&mock.base_url(), PRICES, "");
    // Free calls would let a cap allow anything.
    write(
        &sandbox.repo,
        ".debate/settings.yaml",
        "providers:\n  mock:\n    prices: {mock-model: {input: 0, output: 0}}\n",
    );
    let out = run(&sandbox, &config, &["--max-cost", "0.25", QUESTION]).await;
    let stderr = text(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains("is not trusted") && stderr.contains("providers.mock.prices"), "{stderr}");
    assert_eq!(calls(&mock), 0, "nothing sent");
}

/// Round 1 begun while the moderator reads the question, and written again because its
/// reading corrects the options: the first arguments, discarded, were paid for and count
/// against the cap as spent; every call counts once, before the pause and after resume.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cap_counts_the_early_arguments_a_corrected_reading_discards_and_nothing_twice() {
    let mock = MockLlm::serving(
        |body, _| {
            let corrected = r#"{"options": ["Redis", "Postgres", "Memcached"], "options_reason": "The team runs Memcached already.", "perspectives": []}"#;
            llm::prompt_of(body).contains("First name the options").then(|| llm::ok(body, corrected))
        },
        "vllm",
    )
    .await;
    let sandbox = Sandbox::new();
    let config = sandbox.openai_compatible(&mock.base_url(), "", "");
    let per_call = llm::PROMPT_TOKENS + llm::COMPLETION_TOKENS;
    let out =
        run(&sandbox, &config, &["-p", "2", "-r", "2", "--no-checkpoints", "--max-tokens", "5600", QUESTION]).await;
    let stderr = text(&out.stderr);
    // 5,600 tokens hold the worst cases of the first three waves (the reading beside two
    // early arguments, the two written again, the rebuttals), not the fourth's: by then
    // seven calls were answered, two of them discarded, and all seven are spent.
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains(&format!("the cap of 5600 tokens is reached: {} spent", 7 * per_call)), "{stderr}");
    let id = sandbox.only_id();
    let counted =
        |shown: &Value| shown["tokens"]["prompt"].as_u64().unwrap() + shown["tokens"]["completion"].as_u64().unwrap();
    let shown = sandbox.show(&id);
    assert_eq!(shown["discarded"], serde_json::json!([{"round": 1, "arguments": 2, "tokens": 2 * per_call}]));
    assert_eq!(counted(&shown), calls(&mock) as u64 * per_call, "every call the server answered, once");

    let out = run(&sandbox, &config, &["resume", &id, "--max-tokens", "100000"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let shown = sandbox.show(&id);
    assert_eq!(shown["status"], "complete");
    assert_eq!(counted(&shown), calls(&mock) as u64 * per_call, "nothing counted twice across the resume");
    let usage = sandbox.cmd().args(["usage", "--json"]).output().unwrap();
    let usage: Value = serde_json::from_slice(&usage.stdout).unwrap();
    assert_eq!(usage["total"]["requests"], calls(&mock) as u64, "{usage}");
    let record = std::fs::read_to_string(shown["record_path"].as_str().unwrap()).unwrap();
    assert!(record.contains("2 arguments written for round 1 were discarded: the moderator's reading"), "{record}");
}
