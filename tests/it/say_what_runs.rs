//! What a run says as it goes (issue 32): its provider and model before the first
//! call, the options after the analysis, `Round N of M`, and without a terminal a log
//! in order, however the work overlapped.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use wiremock::ResponseTemplate;

use crate::common::llm::{MockLlm, ok, prompt_of};
use crate::common::*;

fn identity(sandbox: &Sandbox) {
    git(&sandbox.repo, &["config", "user.name", "Test"]);
    git(&sandbox.repo, &["config", "user.email", "test@example.com"]);
}

fn run(sandbox: &Sandbox, config: &std::path::Path, args: &[&str]) -> std::process::Output {
    sandbox.cmd().env("DEBATE_TEST_KEY", "sk-test").arg("--config").arg(config).args(args).output().unwrap()
}

/// Where `needle` first appears in `haystack`, for order.
fn at(haystack: &str, needle: &str) -> usize {
    haystack.find(needle).unwrap_or_else(|| panic!("{needle:?} missing from:\n{haystack}"))
}

/// A real provider is named with its model and where it is served before the first call,
/// the options follow the analysis, and each round says how many it may take.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_says_its_provider_model_options_and_rounds() {
    let mock = MockLlm::serving(|_, _| None, "vllm").await;
    let sandbox = Sandbox::new();
    identity(&sandbox);
    let config = sandbox.openai_compatible(&mock.base_url(), "", "");
    let out = run(&sandbox, &config, &["-p", "2", "-r", "2", QUESTION]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let provider = format!(
        "Provider: mock, model mock-model at {} (moderator and debaters) · price unknown (none in the settings)",
        mock.base_url()
    );
    assert!(at(&stderr, &provider) < at(&stderr, "Panel: 2 perspectives"), "{stderr}");
    assert!(stderr.contains("Options: Redis · Postgres\nPanel: 2 perspectives"), "{stderr}");
    assert!(stderr.contains("═══ Round 1 of 2 ═══") && stderr.contains("═══ Round 2 of 2 ═══"), "{stderr}");
}

/// Round 2's arguments are written while round 1 is judged (the evaluation is slow);
/// without a terminal they are printed after round 1's end line all the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_terminal_the_log_reads_round_after_round() {
    let mock = MockLlm::serving(
        |body, _| {
            prompt_of(body).contains("Evaluate round 1").then(|| {
                let verdict = r#"{"summary": "Both held their ground.", "assessment": "new_ground", "agreement": false, "clear_winner": null, "off_topic": [], "new_points": ["cost"]}"#;
                ok(body, verdict).set_delay(Duration::from_millis(1_500))
            })
        },
        "vllm",
    )
    .await;
    let sandbox = Sandbox::new();
    identity(&sandbox);
    let config = sandbox.openai_compatible(&mock.base_url(), "", "");
    let out = run(&sandbox, &config, &["-p", "2", "-r", "2", QUESTION]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    // Round 2 was argued while round 1 was judged (its evaluation takes 1.5 s).
    assert!(mock.requests().iter().any(|r| prompt_of(&r["body"]).contains("Write your round-2 argument")));
    let complete = at(&stderr, "═══ Round 1 Complete ═══");
    assert!(complete < at(&stderr, "═══ Round 2 of 2 ═══"), "{stderr}");
    let round_two = &stderr[at(&stderr, "═══ Round 2 of 2 ═══")..];
    assert!(
        round_two.contains(&format!("✓ {}: argument", PANEL[0])),
        "round 2's arguments follow its header: {stderr}"
    );
    assert_eq!(stderr.matches("═══ Round 2 of 2 ═══").count(), 1, "{stderr}");
}

/// A debate paused in the middle of round 2 and resumed prints round 2's header again
/// before its first line; a review whose rounds ran out says so, not "at a checkpoint".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resumed_round_has_its_header_and_a_review_says_why_it_ended() {
    let broken = Arc::new(AtomicBool::new(true));
    let failing = broken.clone();
    let mock = MockLlm::serving(
        move |body, _| {
            let prompt = prompt_of(body);
            if failing.load(Ordering::SeqCst) && prompt.contains("Write your round-2 rebuttal") {
                return Some(ResponseTemplate::new(400).set_body_string(r#"{"error": {"message": "bad request"}}"#));
            }
            // A synthesis that is unsure: the debate never ends in agreement.
            prompt.contains("Write the synthesis").then(|| {
                let synthesis = r#"{"perspectives": [], "agreement": [], "tensions": ["cost"], "recommendation": "Use Postgres for now.", "confidence": "Low", "caveats": [], "dissent": null}"#;
                ok(body, synthesis)
            })
        },
        "vllm",
    )
    .await;
    let sandbox = Sandbox::new();
    identity(&sandbox);
    let config = sandbox.openai_compatible(&mock.base_url(), "", "");
    let out = run(&sandbox, &config, &["-p", "2", "-r", "2", QUESTION]);
    assert!(!out.status.success(), "the round-2 rebuttals fail: {}", text(&out.stderr));
    let id = sandbox.only_id();

    broken.store(false, Ordering::SeqCst);
    let out = run(&sandbox, &config, &["resume", &id]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(at(&stderr, "Resuming") < at(&stderr, "═══ Round 2 of 2 ═══"), "{stderr}");
    assert!(at(&stderr, "═══ Round 2 of 2 ═══") < at(&stderr, &format!("✓ {}: rebuttal", PANEL[0])), "{stderr}");

    let out = run(&sandbox, &config, &["review", &id, "--guide", "Reviewer: what about operating cost?"]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(sandbox.show(&id)["ended_by"], "human", "{stderr}");
    assert!(stderr.contains("Debate ended: human (the rounds the review asked for are done)"), "{stderr}");
    assert!(!stderr.contains("at a checkpoint"), "{stderr}");
}
