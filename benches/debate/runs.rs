//! One debate against the mock, as a user runs it, timed; wall time against the
//! critical path and the size of its prompts round by round.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::llm::prompt_of;
use crate::common::{QUESTION, Sandbox, git};
use crate::server::{Exchange, Server};

/// A repository with an identity, and settings pointing at the mock server, with no
/// `max_concurrency`: the tool sends as many calls at once as the server says it serves.
pub fn sandbox(mock: &Server, rebuttals: &str) -> (Sandbox, PathBuf) {
    let sandbox = Sandbox::new();
    git(&sandbox.repo, &["config", "user.name", "Bench"]);
    git(&sandbox.repo, &["config", "user.email", "bench@example.com"]);
    let config = sandbox.openai_compatible(&mock.base_url(), "", &format!("  rebuttals: {rebuttals}\n"));
    (sandbox, config)
}

pub fn debate_command(sandbox: &Sandbox, config: &Path, perspectives: u32, rounds: u32) -> Command {
    let mut cmd = sandbox.std_cmd();
    cmd.arg("--config")
        .arg(config)
        .args(["--json", "-q", "-p", &perspectives.to_string(), "-r", &rounds.to_string(), QUESTION])
        .env("DEBATE_TEST_KEY", "bench-key")
        .stdin(Stdio::null());
    cmd
}

/// Peak resident memory of one debate process: the largest of the children reaped so
/// far, which is the debate (the only other children are small `git` commands).
pub async fn peak_rss(mock: &Server) -> i64 {
    use nix::sys::resource::{UsageWho, getrusage};
    let (sandbox, config) = sandbox(mock, "parallel");
    let mut cmd = debate_command(&sandbox, &config, 4, 5);
    cmd.stdout(Stdio::null()).stderr(Stdio::null());
    tokio::task::spawn_blocking(move || {
        let status = cmd.status().expect("debate runs");
        assert!(status.success(), "the debate failed");
        let peak = getrusage(UsageWho::RUSAGE_CHILDREN).expect("rusage").max_rss();
        println!("## Peak memory\n\nA 4-perspective, 5-round debate: peak RSS {:.1} MB.\n", peak as f64 / 1024.0);
        peak
    })
    .await
    .expect("measured")
}

/// Runs of each configuration; the median is reported.
pub const RUNS_PER_CONFIGURATION: usize = 3;

/// The calls on the critical path: per round the arguments (parallel) and the
/// rebuttals (parallel: one call deep; sequential: one per debater), then the
/// synthesis. Neither the analysis nor an evaluation is on it: with nobody waiting
/// between rounds, round 1's arguments run alongside the moderator's reading of the
/// question, round N's evaluation alongside round N+1's arguments, and the synthesis
/// judges the last round.
pub fn critical_calls(perspectives: u32, rounds: u32, sequential: bool) -> u32 {
    let rebuttal_depth = if sequential { perspectives } else { 1 };
    1 + rounds * (1 + rebuttal_depth)
}

/// Every call a debate makes when no round is cut short (the mock's evaluation never
/// finds agreement): the analysis, per round an argument and a rebuttal per debater,
/// an evaluation for every round but the last (the synthesis judges it), the synthesis.
pub fn total_calls(perspectives: u32, rounds: u32) -> u32 {
    1 + rounds * 2 * perspectives + (rounds - 1) + 1
}

/// One debate run to its end.
pub struct Timed {
    pub started: Instant,
    pub wall: Duration,
    /// Its `--json` result.
    pub result: Value,
    /// Every request it made, in order of arrival.
    pub exchanges: Vec<Exchange>,
}

pub async fn timed_debate(mock: &Server, mut cmd: Command) -> Timed {
    let before = mock.exchanges().len();
    let started = Instant::now();
    let out = tokio::task::spawn_blocking(move || cmd.output().expect("debate runs")).await.unwrap();
    let wall = started.elapsed();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let result = serde_json::from_slice(&out.stdout).expect("--json");
    Timed { started, wall, result, exchanges: mock.exchanges().split_off(before) }
}

/// Wall time against the critical path for every configuration. Returns the worst
/// ratio and the request log of the 4-perspective 5-round parallel debate.
pub async fn overhead(mock: &Server, latency: Duration) -> (f64, Vec<Value>) {
    println!("## Wall time against the critical path\n");
    println!("Median of {RUNS_PER_CONFIGURATION} runs per configuration.\n");
    println!(
        "| rebuttals | perspectives | rounds | calls | critical path | wall time | ratio | prompt tokens | completion tokens |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let (mut worst, mut prompts) = (0.0f64, Vec::new());
    for rebuttals in ["parallel", "sequential"] {
        for perspectives in [2, 3, 4] {
            for rounds in [1, 3, 5] {
                let mut walls = Vec::new();
                let (mut result, mut requests) = (Value::Null, Vec::new());
                for _ in 0..RUNS_PER_CONFIGURATION {
                    let (sandbox, config) = sandbox(mock, rebuttals);
                    let run = timed_debate(mock, debate_command(&sandbox, &config, perspectives, rounds)).await;
                    walls.push(run.wall);
                    (result, requests) = (run.result, run.exchanges);
                }
                walls.sort();
                let wall = walls[walls.len() / 2];
                let calls = requests.len() as u32;
                assert_eq!(calls, total_calls(perspectives, rounds), "every call made once");
                let critical = latency * critical_calls(perspectives, rounds, rebuttals == "sequential");
                let ratio = wall.as_secs_f64() / critical.as_secs_f64();
                worst = worst.max(ratio);
                println!(
                    "| {rebuttals} | {perspectives} | {rounds} | {calls} | {:.2} s | {:.2} s | {ratio:.3} | {} | {} |",
                    critical.as_secs_f64(),
                    wall.as_secs_f64(),
                    result["tokens"]["prompt"],
                    result["tokens"]["completion"]
                );
                if rebuttals == "parallel" && perspectives == 4 && rounds == 5 {
                    prompts = requests.into_iter().map(|e| e.request).collect();
                }
            }
        }
    }
    println!();
    (worst, prompts)
}

/// Prompt size per call by round and role in the 4-perspective 5-round debate; the
/// worst round-5 / round-2 ratio of a debater call.
pub fn prompt_growth(requests: &[Value]) -> usize {
    println!("## Prompt size by round and role (4 perspectives, 5 rounds)\n");
    println!("Largest prompt of each kind, in bytes (≈ tokens at 4 bytes a token).\n");
    println!("| round | argument | rebuttal | moderator evaluation |\n|---|---|---|---|");
    let largest = |round: u32, marker: &str| -> usize {
        requests
            .iter()
            .map(|r| prompt_of(&r["body"]))
            .filter(|p| p.contains(&marker.replace("{round}", &round.to_string())))
            .map(|p| p.len())
            .max()
            .unwrap_or(0)
    };
    let kinds = ["Write your round-{round} argument", "Write your round-{round} rebuttal", "Evaluate round {round}."];
    for round in 1..=5 {
        let cells: Vec<String> = kinds.iter().map(|k| largest(round, k)).map(|b| format!("{b} (≈{})", b / 4)).collect();
        println!("| {round} | {} |", cells.join(" | "));
    }
    let ratio = kinds[..2].iter().map(|k| largest(5, k) as f64 / largest(2, k) as f64).fold(0.0, f64::max);
    println!("\nRound 5 / round 2, worst debater call: {ratio:.2} (the debate so far grows: a cache serves it)\n");
    // The account of the debate so far in the largest round-5 debater call.
    let account = requests
        .iter()
        .map(|r| prompt_of(&r["body"]))
        .filter(|p| kinds[..2].iter().any(|k| p.contains(&k.replace("{round}", "5"))))
        .filter_map(|p| Some(p[p.find("## The debate so far")?..p.find("## Your part")?].len()))
        .max()
        .unwrap_or(0);
    println!("The debate so far in the largest round-5 debater call: {account} bytes.\n");
    account
}
