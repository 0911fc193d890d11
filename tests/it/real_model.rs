//! A debate against a real model server on this machine, not a mock written to the
//! spec: llama-cpp-python's server with Gemma 3 270M, started by
//! `.ci/real-model-server` (which `.ci/run` calls). It answers `json_schema` with HTTP
//! 500, computes one request at a time and sends about 40 tokens a second on 2 cores.
//!
//! Runs when `DEBATE_REAL_MODEL_URL` names the server (and `DEBATE_REAL_MODEL_LOG` its
//! log); otherwise it says it is skipped. It prints what the debate cost (wall time,
//! tokens generated, prompt tokens the server reused from its cache and evaluated
//! afresh, read from its log, and the record's lines) as a row of the real-model table in
//! docs/benchmarks.md, and appends it to `DEBATE_REAL_MODEL_REPORT` when that names a file.
//! Then `debate eval` scores the record with the same server, and the scores are stored.

use crate::common::real_server::Spent;
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
    let log_before = log.as_deref().map_or(0, |log| std::fs::read(log).map_or(0, |l| l.len()));
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

    let started = std::time::Instant::now();
    let out = sandbox.cmd().arg("--config").arg(&config).args(["-p", "2", "-r", "2", QUESTION]).output().unwrap();
    let wall = started.elapsed();
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
        let server = std::fs::read(&log).unwrap_or_default();
        let server = String::from_utf8_lossy(&server[log_before.min(server.len())..]).into_owned();
        let spent = Spent::read(&server);
        eprintln!("{} requests to the real server", spent.requests);
        assert!(spent.requests <= MAX_REQUESTS, "{} requests", spent.requests);
        // The client leaves a stream only to stop an answer that began to loop.
        let looped = shown["transcript"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|r| {
                r["arguments"].as_array().into_iter().flatten().chain(r["rebuttals"].as_array().into_iter().flatten())
            })
            .filter(|c| c["looped"] == true)
            .count();
        let left = server.matches("Disconnected from client").count();
        assert!(left <= looped, "{left} requests abandoned while the model answered, {looped} of them loops stopped");
        let row = format!(
            "| {} | {:.0} s | {} | {} | {} | {} ({:.0}%) | {} |",
            git(&std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")), &["rev-parse", "--short", "HEAD"]).trim(),
            wall.as_secs_f64(),
            spent.requests,
            spent.generated,
            spent.reused,
            spent.evaluated,
            100.0 * spent.evaluated as f64 / (spent.reused + spent.evaluated).max(1) as f64,
            record.lines().count(),
        );
        eprintln!("| commit | wall | requests | generated | reused | evaluated (share) | record lines |\n{row}");
        if let Ok(report) = std::env::var("DEBATE_REAL_MODEL_REPORT") {
            use std::io::Write;
            let mut file = std::fs::OpenOptions::new().create(true).append(true).open(report).unwrap();
            writeln!(file, "{row}").unwrap();
        }
    }

    // The record scored by the same server: one evaluator (the moderator's model), one
    // answer of a few hundred tokens at most, every criterion's mark stored.
    let started = std::time::Instant::now();
    let id = sandbox.only_id();
    let scored = sandbox.cmd().arg("--config").arg(&config).args(["eval", &id]).output().unwrap();
    eprintln!(
        "{}{}debate eval took {:.0} s",
        text(&scored.stdout),
        text(&scored.stderr),
        started.elapsed().as_secs_f64()
    );
    assert_eq!(scored.status.code(), Some(0), "{}", text(&scored.stderr));
    let evaluation = &sandbox.show(&id)["evaluations"][0];
    assert_eq!(evaluation["evaluators"].as_array().map(Vec::len), Some(1), "{evaluation}");
    for criterion in evaluation["criteria"].as_array().unwrap() {
        assert_eq!(criterion["marks"].as_array().map(Vec::len), Some(1), "{criterion} is marked: {evaluation}");
    }
}

#[test]
fn the_servers_log_says_what_a_debate_cost() {
    let log = "INFO:     127.0.0.1:1 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK
Llama.generate: 4 prefix-match hit, remaining 1134 prompt tokens to eval
llama_perf_context_print: prompt eval time =    1489.53 ms /  1134 tokens (    1.31 ms per token,   761.31 tokens per second)
llama_perf_context_print:        eval time =    1487.09 ms /   105 runs   (   14.16 ms per token,    70.61 tokens per second)
INFO:     127.0.0.1:2 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK
Llama.generate: 8692 prefix-match hit, remaining 38 prompt tokens to eval
llama_perf_context_print:        eval time =    9583.68 ms /   347 runs   (   27.62 ms per token,    36.21 tokens per second)
";
    assert_eq!(Spent::read(log), Spent { requests: 2, generated: 452, reused: 8696, evaluated: 1172 });
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
