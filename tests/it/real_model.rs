//! A debate against a real model server on this machine, not a mock written to the
//! spec: llama-cpp-python's server with Gemma 3 270M, started by
//! `.ci/real-model-server` (which `.ci/run` calls). It answers `json_schema` with HTTP
//! 500, computes one request at a time and sends about 40 tokens a second on 2 cores.
//!
//! Runs when `DEBATE_REAL_MODEL_URL` names the server (and `DEBATE_REAL_MODEL_LOG` its
//! log); otherwise it says it is skipped.

use crate::common::*;

/// Requests a 2-perspective, 2-round debate may make: analysis, 2 × (2 arguments, 2
/// rebuttals, an evaluation), the synthesis, and room for the retries and repairs a
/// weak model needs.
const MAX_REQUESTS: usize = 30;

#[test]
fn a_debate_completes_against_a_real_local_model_server() {
    let Ok(base_url) = std::env::var("DEBATE_REAL_MODEL_URL") else {
        eprintln!("skipped: no real model server (.ci/real-model-server start; then set DEBATE_REAL_MODEL_URL)");
        return;
    };
    let log = std::env::var("DEBATE_REAL_MODEL_LOG").ok();
    let requests_before = log.as_deref().map_or(0, requests_in);
    let sandbox = Sandbox::new();
    git(&sandbox.repo, &["config", "user.name", "Test"]);
    git(&sandbox.repo, &["config", "user.email", "test@example.com"]);
    // Default settings but the provider.
    let config = sandbox.home.join("settings.yaml");
    std::fs::write(
        &config,
        format!(
            "providers:\n  default: local\n  local: {{kind: openai, base_url: \"{base_url}\", model: gemma-3-270m}}\n"
        ),
    )
    .unwrap();

    let out = sandbox.cmd().arg("--config").arg(&config).args(["-p", "2", "-r", "2", QUESTION]).output().unwrap();
    let stderr = text(&out.stderr);
    eprintln!("{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");

    let record = std::fs::read_to_string(&sandbox.records()[0]).unwrap();
    let log_line = git(&sandbox.repo, &["log", "-1", "--format=%B"]);
    assert!(log_line.contains(&format!("Debate-Id: {}", sandbox.only_id())), "committed: {log_line}");
    let shown = sandbox.cmd().args(["--show", &sandbox.only_id(), "--json"]).output().unwrap();
    let shown: serde_json::Value = serde_json::from_slice(&shown.stdout).unwrap();
    assert_eq!(shown["status"], "complete");
    // Whatever degraded the result is named in the record.
    for degradation in shown["outcome"]["degradations"].as_array().into_iter().flatten() {
        let first_words: String =
            degradation.as_str().unwrap().split_whitespace().take(4).collect::<Vec<_>>().join(" ");
        assert!(record.contains(&first_words), "{first_words:?} is named in the record");
    }
    assert!(!stderr.contains("timed out") && !stderr.contains("sent no token"), "no call was cut off: {stderr}");

    if let Some(log) = log {
        let requests = requests_in(&log) - requests_before;
        eprintln!("{requests} requests to the real server");
        assert!(requests <= MAX_REQUESTS, "{requests} requests");
        let server = std::fs::read_to_string(&log).unwrap_or_default();
        assert!(!server.contains("Disconnected from client"), "a request was abandoned while the model answered");
    }
}

/// Chat-completion requests the server has logged.
fn requests_in(log: &str) -> usize {
    std::fs::read_to_string(log).unwrap_or_default().matches("\"POST /v1/chat/completions HTTP/1.1\"").count()
}

/// `debate doctor` against the real server: its model, the structured format it takes
/// (llama-cpp-python answers `json_schema` with 500, so a lower one), one request at a
/// time, and a measured speed.
#[test]
fn doctor_reports_the_real_server() {
    let Ok(base_url) = std::env::var("DEBATE_REAL_MODEL_URL") else {
        eprintln!("skipped: no real model server (.ci/real-model-server start; then set DEBATE_REAL_MODEL_URL)");
        return;
    };
    let sandbox = Sandbox::new();
    let config = sandbox.home.join("settings.yaml");
    // The model by the name the server lists it (the path of its file).
    let listed = std::process::Command::new("python3")
        .args(["-c", &format!("import json, urllib.request; print(json.load(urllib.request.urlopen('{base_url}/models'))['data'][0]['id'])")])
        .output()
        .unwrap();
    let model = text(&listed.stdout).trim().to_string();
    std::fs::write(
        &config,
        format!(
            "providers:\n  default: local\n  local: {{kind: openai, base_url: \"{base_url}\", model: \"{model}\"}}\n"
        ),
    )
    .unwrap();
    let out = sandbox.cmd().arg("--config").arg(&config).args(["doctor", "--json"]).output().unwrap();
    eprintln!("{}{}", text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let checkups: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let local = &checkups[0];
    assert_eq!((local["provider"].as_str(), local["model_listed"].as_bool()), (Some("local"), Some(true)), "{local}");
    assert_eq!(local["software"], "llama-cpp-python");
    assert!(["json_object", "instructions"].contains(&local["structured"].as_str().unwrap_or_default()), "{local}");
    assert_eq!(local["at_once"]["requests"], 1, "{local}");
    assert!(local["tokens_per_second"].as_f64().is_some_and(|tps| tps > 0.0), "{local}");
}
