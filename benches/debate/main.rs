//! The benchmark runner (docs/benchmarks.md): `cargo bench --bench debate`.
//!
//! Starts a mock OpenAI-compatible server with a fixed latency per call
//! (`DEBATE_BENCH_LATENCY_MS`, default 200), runs real release-built `debate` processes
//! against it and prints markdown tables: wall time against the critical path, prompt
//! size by round and role, tokens per debate, `--list` on 0 / 1,000 / 10,000 debates
//! (written through the store's own code), the peak RSS of a 4-perspective, 5-round
//! debate, the time to gather a 10,000-file repository's context, and the sequential
//! waves of a debate with the share of its prompt bytes a provider's prefix cache can
//! serve from earlier waves, by wave kind, and what a decision costs with its cached
//! tokens priced; and, with a real small model served on this machine, a laptop's
//! decision timed. Ratios, not bare times, are what the targets constrain.

// A benchmark reports on stdout and stderr; the rule that output goes through
// `terminal` is the binary's.
#![allow(clippy::print_stdout, clippy::print_stderr)]

#[path = "../../tests/it/common/mod.rs"]
mod common;

mod dashboard;
mod laptop;
mod listing;
mod reading;
mod runs;
mod server;
mod turns;
mod waves;

use std::time::Duration;

use dashboard::dashboard_load;
use laptop::laptop;
use listing::list_scaling;
use reading::{gather_time, selection_hit_rate};
use runs::{overhead, peak_rss, prompt_growth};
use server::{PARALLEL, Server};
use turns::turns;
use waves::{ACCOUNT_BUDGET, waves};

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    runtime.block_on(run());
}

async fn run() {
    let latency = Duration::from_millis(
        std::env::var("DEBATE_BENCH_LATENCY_MS").ok().and_then(|v| v.parse().ok()).unwrap_or(200),
    );
    let mock = Server::start(latency, PARALLEL).await;
    println!("# debate benchmarks\n");
    println!("Mock model latency: {} ms per call. Machine: {}.\n", latency.as_millis(), machine());
    // `cargo bench --bench debate -- dashboard`: that case alone.
    if std::env::args().any(|arg| arg == "dashboard") {
        let slowdown = dashboard_load(&mock).await;
        println!("Slowdown under load: {slowdown:.3}");
        return;
    }
    // `cargo bench --bench debate -- waves`: that case alone, with its targets.
    if std::env::args().any(|arg| arg == "waves") {
        let waves = waves(latency).await;
        print_targets(&waves.targets());
        return;
    }
    // `cargo bench --bench debate -- laptop`: the real small model alone.
    if std::env::args().any(|arg| arg == "laptop") {
        print_targets(&on_a_laptop().await);
        return;
    }

    let rss_kib = peak_rss(&mock).await;
    let (worst, prompts) = overhead(&mock, latency).await;
    let waves = waves(latency).await;
    let account = prompt_growth(&prompts);
    let list_ratio = list_scaling();
    let gathered = gather_time();
    let selection = selection_hit_rate();
    let slowdown = dashboard_load(&mock).await;
    let on_a_laptop = on_a_laptop().await;

    let mut rows =
        vec![Target::new("wall time ≤ 1.05 × critical path", format!("{worst:.3} (worst case)"), worst <= 1.05)];
    rows.extend(waves.targets());
    let mut row = |what: &str, measured: String, met: bool| rows.push(Target::new(what, measured, met));
    row(
        "the debate so far in a round-5 debater call within its budget (24,000 bytes of rounds in full, then summaries)",
        format!("{account} bytes (largest)"),
        account > 0 && account <= ACCOUNT_BUDGET,
    );
    row("`--list` at 10,000 debates ≤ 2 × empty", format!("{list_ratio:.2}"), list_ratio <= 2.0);
    row(
        "peak RSS of a 4-perspective 5-round debate ≤ 30 MB",
        format!("{:.1} MB", rss_kib as f64 / 1024.0),
        rss_kib <= 30 * 1024,
    );
    row(
        "gathering a 10,000-file, 50-manifest repository ≤ 100 ms warm",
        format!("{:.1} ms", gathered.as_secs_f64() * 1000.0),
        gathered <= Duration::from_millis(100),
    );
    row(
        "expected perspectives on the keyword panel, selection evaluation set ≥ 90%",
        format!("{:.1}%", selection * 100.0),
        selection >= 0.90,
    );
    row(
        "a debate driven by `debate serve` with 50 event streams and 10 page loads at a time ≤ 1.05 × without",
        format!("{slowdown:.3}"),
        slowdown <= 1.05,
    );
    rows.extend(on_a_laptop);
    print_targets(&rows);
}

/// The real small model's cases: a decision on a laptop, then whether one call per
/// debater turn would keep what the record needs.
async fn on_a_laptop() -> Vec<Target> {
    let (targets, ran) = tokio::task::spawn_blocking(laptop).await.expect("laptop");
    if let Some(state) = ran {
        turns(&state).await;
    }
    targets
}

/// One row of the targets table.
pub struct Target {
    what: String,
    measured: String,
    met: bool,
}

impl Target {
    pub fn new(what: &str, measured: String, met: bool) -> Target {
        Target { what: what.into(), measured, met }
    }
}

fn print_targets(rows: &[Target]) {
    println!("## Targets\n");
    println!("| target | measured | met |\n|---|---|---|");
    for Target { what, measured, met } in rows {
        println!("| {what} | {measured} | {} |", if *met { "yes" } else { "NO" });
    }
    println!();
}

fn machine() -> String {
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    format!("{cores} cores, {cpu}, {} {}", std::env::consts::OS, std::env::consts::ARCH)
}
