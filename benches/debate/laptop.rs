//! A decision on a laptop: the 2-debater, 2-round debate of `tests/it/real_model.rs` on a
//! real small model served on this machine (`.ci/real-model-server`: llama-cpp-python
//! with Gemma 3 270M on 2 threads), timed, with the tokens the model generated and the
//! prompt tokens its cache served, read from the server's log. Runs when
//! `DEBATE_REAL_MODEL_URL` names the server and `DEBATE_REAL_MODEL_LOG` its log; says it
//! is skipped otherwise. The machine's load is printed beside it: the model shares the
//! cores with whatever else runs.

use std::time::{Duration, Instant};

use debate::model::DebateState;
use debate::store::Store;

use crate::Target;
use crate::common::real_server::Spent;
use crate::common::{QUESTION, Sandbox, git, text};

/// The goal: a decision in a minute on two quiet cores.
const GOAL: Duration = Duration::from_secs(60);

/// The 1-minute load average, as /proc/loadavg says.
fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_string))
        .unwrap_or_default()
}

/// The laptop's targets, and the debate it ran (for `turns`).
pub fn laptop() -> (Vec<Target>, Option<DebateState>) {
    let (Ok(base_url), Ok(log)) = (std::env::var("DEBATE_REAL_MODEL_URL"), std::env::var("DEBATE_REAL_MODEL_LOG"))
    else {
        println!(
            "## A decision on a laptop\n\nSkipped: no real model server (`.ci/real-model-server start`, then set \
             DEBATE_REAL_MODEL_URL and DEBATE_REAL_MODEL_LOG).\n"
        );
        return (Vec::new(), None);
    };
    let sandbox = Sandbox::new();
    git(&sandbox.repo, &["config", "user.name", "Bench"]);
    git(&sandbox.repo, &["config", "user.email", "bench@example.com"]);
    let config = sandbox.home.join("settings.yaml");
    let provider = format!(
        "providers:\n  default: local\n  local: {{kind: openai, base_url: \"{base_url}\", model: gemma-3-270m}}\n"
    );
    std::fs::write(&config, provider).expect("settings");
    let before = std::fs::read(&log).map_or(0, |l| l.len());
    let load_before = load();
    let started = Instant::now();
    let out =
        sandbox.std_cmd().arg("--config").arg(&config).args(["-p", "2", "-r", "2", QUESTION]).output().expect("runs");
    let wall = started.elapsed();
    let load_after = load();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let server = std::fs::read(&log).unwrap_or_default();
    let spent = Spent::read(&String::from_utf8_lossy(&server[before.min(server.len())..]));
    let shown = sandbox.cmd().args(["show", &sandbox.only_id(), "--json"]).output().expect("show");
    let shown: serde_json::Value = serde_json::from_slice(&shown.stdout).expect("--json");
    println!("## A decision on a laptop\n");
    println!(
        "`debate -p 2 -r 2 \"{QUESTION}\"` with default settings but the provider, against the real model server; \
         the load average (1 minute) was {load_before} before and {load_after} after.\n"
    );
    println!(
        "| wall | requests | generated tokens | prompt tokens reused | evaluated | rounds | ended by | confidence |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    println!(
        "| {:.0} s | {} | {} | {} | {} | {} | {} | {} |\n",
        wall.as_secs_f64(),
        spent.requests,
        spent.generated,
        spent.reused,
        spent.evaluated,
        shown["rounds"],
        shown["end_reason"].as_str().unwrap_or("-"),
        shown["outcome"]["confidence"].as_str().unwrap_or("-"),
    );
    let id = sandbox.only_id();
    let state = Store::open(&sandbox.db()).and_then(|store| store.load(&id)).expect("the debate it ran");
    let targets = vec![Target::new(
        &format!(
            "a 2-debater, 2-round decision on Gemma 3 270M (llama-cpp-python, 2 threads) ≤ 60 s (load {load_before} before)"
        ),
        format!("{:.0} s, {} tokens generated", wall.as_secs_f64(), spent.generated),
        wall <= GOAL,
    )];
    (targets, Some(state))
}
