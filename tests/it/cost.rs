//! The estimated cost of a debate against a local OpenAI-compatible server: from the
//! prices in the settings per call, per debate and in the record; "unknown", never a
//! guess, for a model without a price.

use crate::common::llm::{self, MockLlm};
use crate::common::*;
use serde_json::Value;

/// A two-seat, one-round debate against `mock` with `extra` provider settings: its
/// `--show --json` and its record.
async fn debate(mock: &MockLlm, extra: &str) -> (Sandbox, Value, String) {
    let sandbox = Sandbox::new();
    let config = sandbox.openai_compatible(&mock.base_url(), extra, "");
    let mut cmd = sandbox.std_cmd();
    cmd.arg("--config").arg(&config).args(["-p", "2", "-r", "1", "--no-commit", "-q", QUESTION]);
    cmd.env("DEBATE_TEST_KEY", "sk-test-cost-0000");
    let out = tokio::task::spawn_blocking(move || cmd.output().expect("debate runs")).await.unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let detail = sandbox.shown();
    let record = std::fs::read_to_string(&sandbox.records()[0]).unwrap();
    (sandbox, detail, record)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prices_in_the_settings_give_each_call_and_the_debate_its_cost() {
    let mock = MockLlm::start().await;
    let prices = ", prices: {mock-model: {input: 2.0, cached_input: 0.5, output: 8.0}}";
    let (sandbox, detail, record) = debate(&mock, prices).await;
    // Per call: 36 fresh prompt tokens × $2, 64 cached × $0.5 and 40 completion × $8 per million.
    let fresh = llm::PROMPT_TOKENS - llm::CACHED_TOKENS;
    let per_call = (fresh as f64 * 2.0 + llm::CACHED_TOKENS as f64 * 0.5 + llm::COMPLETION_TOKENS as f64 * 8.0) / 1e6;
    let calls = mock.requests().len() as f64;
    let estimated = detail["cost"]["estimated_usd"].as_f64().expect("every call priced");
    assert!((estimated - calls * per_call).abs() < 1e-9, "{} for {calls} calls", detail["cost"]);
    let first = &detail["transcript"][0]["arguments"][0];
    assert!((first["cost_usd"].as_f64().unwrap() - per_call).abs() < 1e-12, "{first}");
    let shown = format!("Estimated cost: ≈ ${estimated:.4}.");
    assert!(record.contains(&shown), "the record's provenance says it: {record}");
    let id = detail["id"].as_str().unwrap();
    let text_shown = text(&sandbox.cmd().args(["show", id]).assert().success().get_output().stdout);
    assert!(text_shown.contains(&format!("Cost:       ≈ ${estimated:.4}")), "{text_shown}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_without_a_price_makes_the_cost_unknown() {
    let mock = MockLlm::start().await;
    let (_sandbox, detail, record) = debate(&mock, "").await;
    assert_eq!(detail["cost"]["estimated_usd"], Value::Null);
    assert_eq!(detail["cost"]["unpriced_models"], serde_json::json!(["mock-model"]));
    assert_eq!(detail["transcript"][0]["arguments"][0]["cost_usd"], Value::Null);
    assert!(record.contains("Estimated cost: unknown for mock-model (no price in the settings)."), "{record}");
}
