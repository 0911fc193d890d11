//! The benchmark runner (docs/benchmarks.md): `cargo bench --bench debate`.
//!
//! Starts a mock OpenAI-compatible server with a fixed latency per call
//! (`DEBATE_BENCH_LATENCY_MS`, default 200), runs real release-built `debate` processes
//! against it and prints markdown tables: wall time against the critical path, prompt
//! size by round and role, tokens per debate, `--list` on 0 / 1,000 / 10,000 debates
//! (written through the store's own code), the peak RSS of a 4-perspective, 5-round
//! debate, the time to gather a 10,000-file repository's context, and the sequential
//! waves of a debate with the share of its prompt bytes a provider's prefix cache can
//! serve from earlier waves. Ratios, not bare times, are what the targets constrain.

// A benchmark reports on stdout and stderr; the rule that output goes through
// `terminal` is the binary's.
#![allow(clippy::print_stdout, clippy::print_stderr)]

#[path = "../tests/it/common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use std::sync::{Arc, Mutex};

use common::llm::{completion_body, prompt_of, reply, streamed_body};
use common::{QUESTION, Sandbox, git};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

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
        let waves = waves(&mock, latency).await;
        print_targets(&waves.targets());
        return;
    }

    let rss_kib = peak_rss(&mock).await;
    let (worst, prompts) = overhead(&mock, latency).await;
    let waves = waves(&mock, latency).await;
    let account = prompt_growth(&prompts);
    let list_ratio = list_scaling();
    let gathered = gather_time();
    let selection = selection_hit_rate();
    let slowdown = dashboard_load(&mock).await;

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
    print_targets(&rows);
}

/// One row of the targets table.
struct Target {
    what: String,
    measured: String,
    met: bool,
}

impl Target {
    fn new(what: &str, measured: String, met: bool) -> Target {
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

/// The selection evaluation set (`tests/data/selection_eval.yaml`) through the keyword
/// analysis and panel: the share of the perspectives a reviewer expects that are seated.
fn selection_hit_rate() -> f64 {
    let score = common::eval::evaluate();
    println!("## Selection evaluation set\n");
    println!(
        "{} questions (binary, multi-option, yes/no, security, cost, process, data, operations, UX, compliance, vague, non-English), \
         keyword analysis and panel only, no model:\n",
        score.cases
    );
    println!("| measure | result |\n|---|---|");
    println!(
        "| expected perspectives on the panel | {} of {} ({:.1}%) |",
        score.present,
        score.expected,
        score.hit_rate() * 100.0
    );
    println!("| options read as a reviewer would | {} of {} |", score.options_right, score.option_cases);
    println!("| vagueness verdicts right | {} of {} |", score.vague_right, score.vague_cases);
    println!();
    for miss in &score.misses {
        println!("- miss: {miss}");
    }
    println!();
    score.hit_rate()
}

/// Runs of each dashboard condition; the median is reported.
const DASHBOARD_RUNS: usize = 3;

/// A 3-perspective, 3-round debate started through `debate serve`'s API, timed from
/// the request to its completion: alone, then with 50 open event streams and 10
/// clients loading its page and the list without pause. Returns loaded ÷ quiet.
async fn dashboard_load(mock: &Server) -> f64 {
    let (sandbox, config) = sandbox(mock, "parallel");
    let mut serve = sandbox.std_cmd();
    serve
        .arg("serve")
        .args(["--port", "0", "--config"])
        .arg(&config)
        .env("DEBATE_TEST_KEY", "bench-key")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut server = serve.spawn().expect("debate serve runs");
    let mut line = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(server.stdout.take().unwrap()), &mut line).unwrap();
    let url = line.trim().strip_prefix("Listening on ").expect("the address").to_string();
    let client = reqwest::Client::new();
    let listed = client.get(format!("{url}api/debates")).send().await.expect("the dashboard answers");
    let csrf = listed.headers()["x-csrf-token"].to_str().unwrap().to_string();
    let repository = sandbox.repo.canonicalize().unwrap().to_string_lossy().into_owned();

    let (mut quiet, mut loaded) = (Vec::new(), Vec::new());
    let (mut streamed, mut pages) = (0u64, 0u64);
    for _ in 0..DASHBOARD_RUNS {
        for load in [false, true] {
            let started = Instant::now();
            let body = json!({"question": QUESTION, "repository": repository, "perspectives": 3, "max_rounds": 3, "checkpoints": false});
            let created = client
                .post(format!("{url}api/debates"))
                .header("x-csrf-token", &csrf)
                .json(&body)
                .send()
                .await
                .expect("started");
            assert_eq!(created.status(), 201, "{}", created.text().await.unwrap_or_default());
            let id = created.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_string();
            let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
            let mut tasks = Vec::new();
            if load {
                for _ in 0..50 {
                    let (client, events, done) =
                        (client.clone(), format!("{url}api/debates/{id}/events"), done.clone());
                    tasks.push(tokio::spawn(async move {
                        use futures::StreamExt;
                        let mut bytes = 0u64;
                        let Ok(response) = client.get(events).send().await else { return (bytes, 0) };
                        let mut stream = response.bytes_stream();
                        while !done.load(std::sync::atomic::Ordering::Relaxed) {
                            match tokio::time::timeout(Duration::from_millis(100), stream.next()).await {
                                Ok(Some(Ok(chunk))) => bytes += chunk.len() as u64,
                                Ok(_) => break,
                                Err(_) => {}
                            }
                        }
                        (bytes, 0)
                    }));
                }
                for client_number in 0..10 {
                    let (client, done) = (client.clone(), done.clone());
                    let pages = [format!("{url}debates/{id}"), url.clone()];
                    tasks.push(tokio::spawn(async move {
                        let mut loads = 0u64;
                        while !done.load(std::sync::atomic::Ordering::Relaxed) {
                            let page = &pages[(loads as usize + client_number) % 2];
                            if let Ok(response) = client.get(page).send().await {
                                let _ = response.bytes().await;
                                loads += 1;
                            }
                        }
                        (0, loads)
                    }));
                }
            }
            loop {
                let detail: Value =
                    client.get(format!("{url}api/debates/{id}")).send().await.unwrap().json().await.unwrap();
                match detail["status"].as_str() {
                    Some("complete") => break,
                    Some("paused" | "failed") => panic!("the debate stopped: {detail}"),
                    _ => {}
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            let wall = started.elapsed();
            done.store(true, std::sync::atomic::Ordering::Relaxed);
            for task in tasks {
                let (bytes, loads) = task.await.unwrap();
                streamed += bytes;
                pages += loads;
            }
            if load { loaded.push(wall) } else { quiet.push(wall) }
        }
    }
    let _ = Command::new("kill").args(["-TERM", &server.id().to_string()]).status();
    let _ = server.wait();
    quiet.sort();
    loaded.sort();
    let (quiet, loaded) = (quiet[DASHBOARD_RUNS / 2], loaded[DASHBOARD_RUNS / 2]);
    let slowdown = loaded.as_secs_f64() / quiet.as_secs_f64();
    println!("## A debate driven by the dashboard, under load\n");
    println!(
        "A 3-perspective, 3-round debate started with `POST /api/debates` on `debate serve`, \
         from the request until it is complete; median of {DASHBOARD_RUNS} runs each.\n"
    );
    println!("| condition | wall time |\n|---|---|");
    println!("| alone | {:.2} s |", quiet.as_secs_f64());
    println!("| 50 event streams + 10 clients loading pages without pause | {:.2} s |", loaded.as_secs_f64());
    println!(
        "\nUnder load: {} pages served and {:.1} MB streamed over the {} loaded runs; slowdown {slowdown:.3}.\n",
        pages,
        streamed as f64 / 1e6,
        DASHBOARD_RUNS
    );
    slowdown
}

/// Commits in the gathering benchmark's history: as many as gathering reads.
const HISTORY_COMMITS: usize = 20_000;

/// `count` commits by seven people on `main`, written at once with `git fast-import`.
fn import_history(root: &Path, count: usize) {
    use std::io::Write;
    let mut stream = String::new();
    for n in 1..=count {
        let who = n % 7;
        let message = format!("change {n}\n");
        stream.push_str(&format!(
            "commit refs/heads/main\nmark :{n}\ncommitter Dev{who} <dev{who}@example.com> {} +0000\ndata {}\n{message}",
            1_600_000_000 + n * 600,
            message.len()
        ));
        if n > 1 {
            stream.push_str(&format!("from :{}\n", n - 1));
        }
        stream.push('\n');
    }
    let mut import = Command::new("git")
        .args(["fast-import", "--quiet"])
        .current_dir(root)
        .stdin(Stdio::piped())
        .spawn()
        .expect("git fast-import runs");
    import.stdin.take().expect("stdin").write_all(stream.as_bytes()).expect("history written");
    assert!(import.wait().expect("git fast-import ends").success(), "git fast-import failed");
}

/// Gathering the repository context (the library call a debate makes before anything
/// else) on a repository of 10,000 source files, 50 manifests and 20,000 commits:
/// median of 11 warm runs, after one that warms the page cache.
fn gather_time() -> Duration {
    const DIRECTORIES: usize = 100;
    const FILES_PER_DIRECTORY: usize = 100;
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    let source: String =
        (0..30).map(|i| format!("// line {i} of a source file in the benchmark repository\n")).collect();
    for d in 0..DIRECTORIES {
        let package = root.join(format!("services/pkg{d:03}/src"));
        std::fs::create_dir_all(&package).expect("dir");
        for f in 0..FILES_PER_DIRECTORY {
            let extension = ["rs", "py", "ts", "go"][f % 4];
            std::fs::write(package.join(format!("file{f:03}.{extension}")), &source).expect("file");
        }
    }
    for m in 0..50 {
        let at = root.join(format!("services/pkg{m:03}"));
        match m % 5 {
            0 => std::fs::write(at.join("Cargo.toml"), "[package]\nname = \"x\"\n\n[dependencies]\naxum = \"0.8\"\nsqlx = { version = \"0.8\", features = [\"postgres\"] }\nredis = \"0.27\"\nserde = \"1\"\ntokio = \"1\"\n"),
            1 => std::fs::write(at.join("package.json"), r#"{"dependencies": {"express": "^4.19.2", "pg": "^8.11.0", "ioredis": "^5.4.1", "lodash": "^4"}}"#),
            2 => std::fs::write(at.join("pyproject.toml"), "[project]\nname = \"x\"\ndependencies = [\"django>=5\", \"psycopg[binary]>=3.1\", \"celery[redis]>=5.3\", \"boto3>=1.34\"]\n"),
            3 => std::fs::write(at.join("go.mod"), "module example.com/x\n\ngo 1.22\n\nrequire (\n\tgithub.com/gin-gonic/gin v1.10.0\n\tgithub.com/jackc/pgx/v5 v5.6.0\n)\n"),
            _ => std::fs::write(at.join("Gemfile"), "source \"https://rubygems.org\"\ngem \"rails\", \"~> 7.1\"\ngem \"pg\"\ngem \"sidekiq\"\n"),
        }
        .expect("manifest");
    }
    std::fs::write(
        root.join("docker-compose.yml"),
        "services:\n  db:\n    image: postgres:16\n  cache:\n    image: redis:7\n",
    )
    .expect("compose");
    std::fs::create_dir_all(root.join("docs/adr")).expect("adr dir");
    for n in 1..=10 {
        let record = format!(
            "# {n}. Decision number {n}\n\nDate: 2025-01-{n:02}\n\n## Status\n\nAccepted\n\n## Decision\n\nWe decided thing {n}.\n"
        );
        std::fs::write(root.join(format!("docs/adr/{n:04}-decision-{n}.md")), record).expect("record");
    }
    git(root, &["init", "-q", "-b", "main"]);
    import_history(root, HISTORY_COMMITS);
    git(root, &["-c", "user.name=Bench", "-c", "user.email=bench@example.com", "add", "-A"]);
    git(root, &["-c", "user.name=Bench", "-c", "user.email=bench@example.com", "commit", "-q", "-m", "bench"]);

    let keys = debate::text::secrets::Masker::default();
    let gathered = debate::context::gather(root, &keys);
    assert!(gathered.facts.stack.len() >= 5 && gathered.decisions.len() == 10, "the repository was read");
    assert!(gathered.facts.history.as_ref().is_some_and(|h| h.partial), "the history was read as far as it is read");
    let mut times: Vec<Duration> = (0..11)
        .map(|_| {
            let started = Instant::now();
            std::hint::black_box(debate::context::gather(root, &keys));
            started.elapsed()
        })
        .collect();
    times.sort();
    let median = times[times.len() / 2];
    println!("## Gathering the repository context\n");
    println!(
        "{} files in {DIRECTORIES} directories, 50 manifests, a compose file, 10 decision records and {HISTORY_COMMITS} commits: median of 11 warm runs {:.1} ms (fastest {:.1} ms, slowest {:.1} ms).\n",
        DIRECTORIES * FILES_PER_DIRECTORY,
        median.as_secs_f64() * 1000.0,
        times[0].as_secs_f64() * 1000.0,
        times[times.len() - 1].as_secs_f64() * 1000.0,
    );
    median
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

/// What the mock says it is in its `/v1/models`: vLLM, a server on 127.0.0.1 that
/// answers any number of calls at once (as this mock does), so no `max_concurrency`
/// setting is needed; and llama-cpp-python, which serves one at a time.
const PARALLEL: &str = "vllm";
const ONE_AT_A_TIME: &str = "me";

/// A repository with an identity, and settings pointing at the mock server, with no
/// `max_concurrency`: the tool sends as many calls at once as the server says it serves.
fn sandbox(mock: &Server, rebuttals: &str) -> (Sandbox, PathBuf) {
    let sandbox = Sandbox::new();
    git(&sandbox.repo, &["config", "user.name", "Bench"]);
    git(&sandbox.repo, &["config", "user.email", "bench@example.com"]);
    let config = sandbox.openai_compatible(&mock.base_url(), "", &format!("  rebuttals: {rebuttals}\n"));
    (sandbox, config)
}

fn debate_command(sandbox: &Sandbox, config: &Path, perspectives: u32, rounds: u32) -> Command {
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
async fn peak_rss(mock: &Server) -> i64 {
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
const RUNS_PER_CONFIGURATION: usize = 3;

/// The calls on the critical path: analysis, per round the arguments (parallel) and
/// the rebuttals (parallel: one call deep; sequential: one per debater), then the
/// synthesis. No evaluation is on it: with nobody waiting between rounds, round N's
/// evaluation runs alongside round N+1's arguments, and the synthesis judges the last
/// round.
fn critical_calls(perspectives: u32, rounds: u32, sequential: bool) -> u32 {
    let rebuttal_depth = if sequential { perspectives } else { 1 };
    2 + rounds * (1 + rebuttal_depth)
}

/// Every call a debate makes when no round is cut short (the mock's evaluation never
/// finds agreement): the analysis, per round an argument and a rebuttal per debater,
/// an evaluation for every round but the last (the synthesis judges it), the synthesis.
fn total_calls(perspectives: u32, rounds: u32) -> u32 {
    1 + rounds * 2 * perspectives + (rounds - 1) + 1
}

/// One debate run to its end.
struct Timed {
    started: Instant,
    wall: Duration,
    /// Its `--json` result.
    result: Value,
    /// Every request it made, in order of arrival.
    exchanges: Vec<Exchange>,
}

async fn timed_debate(mock: &Server, mut cmd: Command) -> Timed {
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
async fn overhead(mock: &Server, latency: Duration) -> (f64, Vec<Value>) {
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

/// Sequential waves, each as its first request's arrival and its last answer: the
/// requests in order of arrival, a new wave starting with a request that arrives once
/// every request of the current wave has been answered (it could have waited on them);
/// any other request runs alongside the current wave. A debate's wall time cannot be
/// less than its waves × the model's latency.
fn waves_of(exchanges: &[Exchange]) -> Vec<(Instant, Instant)> {
    let mut order: Vec<&Exchange> = exchanges.iter().collect();
    order.sort_by_key(|e| e.arrived);
    let mut waves: Vec<(Instant, Instant)> = Vec::new();
    for e in order {
        match waves.last_mut() {
            Some((_, answered)) if e.arrived < *answered => *answered = (*answered).max(e.answered),
            _ => waves.push((e.arrived, e.answered)),
        }
    }
    waves
}

/// Where a debate's wall time beyond waves × latency went, as table cells: before its
/// first request, within its waves (a wave longer than one call: requests sent or
/// answered late), between its waves, and after its last answer. They add up to its
/// wall time less its critical path.
fn outside_calls(run: &Timed, latency: Duration) -> String {
    let waves = waves_of(&run.exchanges);
    let within: Duration = waves.iter().map(|(sent, answered)| (*answered - *sent).saturating_sub(latency)).sum();
    let between: Duration = waves.windows(2).map(|w| w[1].0 - w[0].1).sum();
    let (first, last) = (waves[0].0, waves[waves.len() - 1].1);
    let ms = |d: Duration| format!("{:.0} ms", d.as_secs_f64() * 1000.0);
    let after = run.started + run.wall - last;
    format!("{} | {} | {} | {}", ms(first - run.started), ms(within), ms(between), ms(after))
}

/// For each request (in the order given), its prompt's length in bytes (≈ 4 a token)
/// and the longest start it shares with the prompt of a request answered before it
/// arrived: an earlier wave. That is what a provider's prefix cache can serve: requests
/// sent together all miss it, since none has been read when the others arrive, so a
/// prefix shared only within a wave is not counted.
fn earlier_wave_prefixes(exchanges: &[Exchange]) -> Vec<(usize, usize)> {
    // What a provider reads, in order: the system message, then the user's.
    let prompts: Vec<String> = exchanges.iter().map(|e| prompt_of(&e.request["body"])).collect();
    let common = |a: &str, b: &str| a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    exchanges
        .iter()
        .zip(&prompts)
        .map(|(e, prompt)| {
            let cached = exchanges
                .iter()
                .zip(&prompts)
                .filter(|(earlier, _)| earlier.answered <= e.arrived)
                .map(|(_, earlier)| common(prompt, earlier))
                .max()
                .unwrap_or(0);
            (prompt.len(), cached)
        })
        .collect()
}

/// What a request asks for, read from its own part of the prompt.
fn purpose(prompt: &str) -> &'static str {
    let debater =
        prompt.rsplit_once("Write your round-").map(|(_, rest)| rest.trim_start_matches(|c: char| c.is_ascii_digit()));
    if prompt.contains("First name the options") {
        "analysis"
    } else if prompt.contains("Write the synthesis") {
        "synthesis"
    } else if prompt.contains("Evaluate round ") {
        "evaluation"
    } else if debater.is_some_and(|rest| rest.starts_with(" argument")) {
        "argument"
    } else if debater.is_some_and(|rest| rest.starts_with(" rebuttal")) {
        "rebuttal"
    } else {
        "other"
    }
}

const PURPOSES: [&str; 6] = ["analysis", "argument", "rebuttal", "evaluation", "synthesis", "other"];

/// `prompts::Size::NORMAL.account`, and the headings around the rounds it holds.
const ACCOUNT_BUDGET: usize = 24_000 + 1_000;

/// Debaters in the waves case.
const WAVE_PERSPECTIVES: u32 = 3;

/// One configuration of the waves case.
struct WaveRun {
    context: bool,
    rounds: u32,
    waves: usize,
    ratio: f64,
    share: f64,
    /// The share of the argument requests alone.
    argument_share: f64,
}

/// What the waves case measured, for the targets.
struct Waves {
    runs: Vec<WaveRun>,
    /// Against a server that says it serves one request at a time: requests and waves.
    one_at_a_time: (usize, usize),
}

impl Waves {
    fn targets(&self) -> Vec<Target> {
        let most_waves = self.runs.iter().filter(|r| r.rounds == 5).map(|r| r.waves).max().unwrap_or(usize::MAX);
        // The issue's case: 5 rounds, no project context. The others are in the table.
        let ratio = self.runs.iter().filter(|r| r.rounds == 5 && !r.context).map(|r| r.ratio).fold(0.0, f64::max);
        let worst_share =
            |context: bool| self.runs.iter().filter(|r| r.context == context).map(|r| r.share).fold(1.0, f64::min);
        let (bare, with_context) = (worst_share(false), worst_share(true));
        let arguments = self.runs.iter().filter(|r| !r.context).map(|r| r.argument_share).fold(1.0, f64::min);
        vec![
            Target::new(
                "3 debaters, 5 rounds, checkpoints off: ≤ 13 sequential waves",
                format!("{most_waves} waves"),
                most_waves <= 13,
            ),
            Target::new(
                "3 debaters, 5 rounds, checkpoints off: wall time ≤ 1.05 × its own critical path",
                format!("{ratio:.3}"),
                ratio <= 1.05,
            ),
            Target::new(
                "prefix share from earlier waves ≥ 65% without project context (worst of R=3,5)",
                format!("{:.0}%", bare * 100.0),
                bare >= 0.65,
            ),
            Target::new(
                "argument requests: prefix share from earlier waves ≥ 50% without project context (worst of R=3,5)",
                format!("{:.0}%", arguments * 100.0),
                arguments >= 0.50,
            ),
            Target::new(
                "prefix share from earlier waves ≥ 85% with an 8k-token context (worst of R=3,5)",
                format!("{:.0}%", with_context * 100.0),
                with_context >= 0.85,
            ),
            Target::new(
                "against llama-cpp-python (as its /v1/models says): one request at a time, waves = requests",
                format!("{} waves, {} requests", self.one_at_a_time.1, self.one_at_a_time.0),
                self.one_at_a_time.0 == self.one_at_a_time.1,
            ),
        ]
    }
}

/// A 3-debater debate with checkpoints off (`--json -q`, no terminal: nobody waits
/// between rounds) at 3 and 5 rounds, without project context and with about 8,000
/// tokens of it: how many sequential waves its calls take, its wall time against
/// waves × latency, and the share of its prompt bytes a prefix cache can serve from
/// earlier waves. Then whether a peer tool is installed to compare with.
async fn waves(mock: &Server, latency: Duration) -> Waves {
    println!("## Sequential waves and prefix caching (3 debaters, checkpoints off)\n");
    let notes: String =
        (0..700).map(|i| format!("Load note {i}: the checkout path peaks at lunch and on Fridays.\n")).collect();
    let (mut runs, mut rows, mut by_purpose, mut context_bytes) = (Vec::new(), Vec::new(), Vec::new(), 0);
    let mut spent = Vec::new();
    for context in [false, true] {
        for rounds in [3, 5] {
            let mut walls = Vec::new();
            let mut last = None;
            for _ in 0..RUNS_PER_CONFIGURATION {
                let (sandbox, config) = sandbox(mock, "parallel");
                let mut cmd = debate_command(&sandbox, &config, WAVE_PERSPECTIVES, rounds);
                if context {
                    std::fs::write(sandbox.repo.join("notes.md"), &notes).expect("notes");
                    cmd.args(["--context", "notes.md"]);
                }
                let run = timed_debate(mock, cmd).await;
                walls.push(run.wall);
                last = Some(run);
            }
            walls.sort();
            let wall = walls[walls.len() / 2];
            let last = last.expect("a run");
            let exchanges = &last.exchanges;
            let label = if context { "~8k tokens" } else { "none" };
            let waves = waves_of(exchanges).len();
            spent.push(format!("| {label} | {rounds} | {} |", outside_calls(&last, latency)));
            let critical = latency * waves as u32;
            let ratio = wall.as_secs_f64() / critical.as_secs_f64();
            let request_bytes: usize =
                exchanges.iter().map(|e| serde_json::to_string(&e.request["body"]).unwrap().len()).sum();
            let prefixes = earlier_wave_prefixes(exchanges);
            let (prompt_bytes, cached) = prefixes.iter().fold((0, 0), |(t, c), (len, shared)| (t + len, c + shared));
            let share = cached as f64 / prompt_bytes as f64;
            if context {
                context_bytes = exchanges
                    .iter()
                    .filter_map(|e| prompt_of(&e.request["body"]).find("## The question"))
                    .min()
                    .unwrap_or(0);
            }
            rows.push(format!(
                "| {label} | {rounds} | {} | {waves} | {:.1} | {request_bytes} | {:.0}% ({cached} of {prompt_bytes}) | {:.2} s | {:.2} s | {ratio:.3} |",
                exchanges.len(),
                (waves as f64 - 2.0) / rounds as f64,
                share * 100.0,
                wall.as_secs_f64(),
                critical.as_secs_f64(),
            ));
            let mut purposes = [(0usize, 0usize, 0usize); PURPOSES.len()];
            for (e, (len, shared)) in exchanges.iter().zip(&prefixes) {
                let kind = purpose(&prompt_of(&e.request["body"]));
                let slot = &mut purposes[PURPOSES.iter().position(|p| *p == kind).unwrap()];
                *slot = (slot.0 + 1, slot.1 + len, slot.2 + shared);
            }
            let (_, argument_bytes, argument_shared) =
                purposes[PURPOSES.iter().position(|p| *p == "argument").unwrap()];
            let argument_share = argument_shared as f64 / argument_bytes.max(1) as f64;
            by_purpose.push((format!("{label}, R={rounds}"), purposes));
            runs.push(WaveRun { context, rounds, waves, ratio, share, argument_share });
        }
    }
    println!(
        "Wall time: median of {RUNS_PER_CONFIGURATION} runs; the rest from the requests of one run. A wave starts with a \
         request that arrives once every request of the wave before has been answered; the critical path is waves × \
         {} ms. Expected from the schedule: {} waves at 3 rounds, {} at 5 (analysis, per round arguments then rebuttals, \
         synthesis), and {} and {} requests. Prefix share: the bytes of each prompt's start that a request answered \
         before it arrived also sent, over all prompt bytes. With context, {context_bytes} bytes (≈{} tokens) of every \
         prompt come before the question.\n",
        latency.as_millis(),
        critical_calls(WAVE_PERSPECTIVES, 3, false),
        critical_calls(WAVE_PERSPECTIVES, 5, false),
        total_calls(WAVE_PERSPECTIVES, 3),
        total_calls(WAVE_PERSPECTIVES, 5),
        context_bytes / 4,
    );
    println!(
        "| context | rounds | requests | waves | waves per round | request bytes | prefix share (earlier waves) | wall | critical path | ratio |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for row in rows {
        println!("{row}");
    }
    println!("\nPrefix share from earlier waves by purpose: share (requests, bytes not served).\n");
    let header: Vec<&str> = by_purpose.iter().map(|(label, _)| label.as_str()).collect();
    println!("| purpose | {} |\n|---|{}", header.join(" | "), "---|".repeat(header.len()));
    for (i, name) in PURPOSES.iter().enumerate() {
        if by_purpose.iter().all(|(_, p)| p[i].0 == 0) {
            continue;
        }
        let cells: Vec<String> = by_purpose
            .iter()
            .map(|(_, p)| {
                let (count, total, shared) = p[i];
                match count {
                    0 => "–".to_string(),
                    _ => format!("{:.0}% ({count}, {})", shared as f64 * 100.0 / total as f64, total - shared),
                }
            })
            .collect();
        println!("| {name} | {} |", cells.join(" | "));
    }
    println!(
        "\nWhere the wall time beyond the critical path goes, in the run the requests are from (against its own wall \
         time): from the start of the process to the first request, a wave's span beyond one call's latency, the gaps \
         between one wave's last answer and the next wave's first request, and from the last answer to the end of the \
         process.\n"
    );
    println!(
        "| context | rounds | before the first request | within waves | between waves | after the last answer |\n|---|---|---|---|---|---|"
    );
    for row in spent {
        println!("{row}");
    }
    // The same debate against a server that says it is llama-cpp-python.
    let serial = Server::start(latency, ONE_AT_A_TIME).await;
    let (sandbox, config) = sandbox(&serial, "parallel");
    let run = timed_debate(&serial, debate_command(&sandbox, &config, WAVE_PERSPECTIVES, 5)).await;
    let one_at_a_time = (run.exchanges.len(), waves_of(&run.exchanges).len());
    println!(
        "\nAgainst a server that lists its model as llama-cpp-python does (`owned_by: me`), the same 5-round debate: \
         {} requests in {} waves, {:.2} s.\n",
        one_at_a_time.0,
        one_at_a_time.1,
        run.wall.as_secs_f64()
    );
    peer();
    Waves { runs, one_at_a_time }
}

/// A peer tool, when one is installed: it cannot be pointed at this mock without its
/// own configuration, so it is named, not measured.
fn peer() {
    use std::os::unix::fs::PermissionsExt;
    let on_path = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join("dialectic"))
            .find(|file| file.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0))
    });
    match on_path {
        Some(file) => {
            let version = Command::new(&file)
                .arg("--version")
                .output()
                .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
                .unwrap_or_else(|e| format!("{} (--version failed: {e})", file.display()));
            println!("Peer found: {version}; comparison needs its own mock configuration (not automated).\n");
        }
        None => println!("No peer installed (`dialectic` not on PATH): the peer comparison is skipped.\n"),
    }
}

/// Prompt size per call by round and role in the 4-perspective 5-round debate; the
/// worst round-5 / round-2 ratio of a debater call.
fn prompt_growth(requests: &[Value]) -> usize {
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

/// `debate --list` on databases of 0, 1,000 and 10,000 debates; the 10,000 / empty ratio.
/// The databases are written first and synced, then timed in turn, so that disk
/// writeback and machine noise fall on every size alike.
fn list_scaling() -> f64 {
    const SIZES: [usize; 3] = [0, 1_000, 10_000];
    const RUNS: usize = 21;
    println!("## `debate --list` against the number of debates\n");
    println!(
        "Median of {RUNS} runs of the real binary (process start included), sizes interleaved; this repository's debates.\n"
    );
    println!("| debates | median | ratio to empty |\n|---|---|---|");
    let scratch = tempfile::tempdir().expect("temp dir");
    let repo = scratch.path().join("project");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q"]);
    let root = repo.canonicalize().unwrap().display().to_string();
    let databases: Vec<PathBuf> = SIZES
        .iter()
        .map(|count| {
            let db = scratch.path().join(format!("{count}.sqlite3"));
            populate(&db, *count, &root);
            db
        })
        .collect();
    nix::unistd::sync();
    let bin = assert_cmd::cargo::cargo_bin!("debate");
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); SIZES.len()];
    for _ in 0..RUNS {
        for (db, samples) in databases.iter().zip(&mut times) {
            let started = Instant::now();
            let out =
                Command::new(bin).current_dir(&repo).arg("--db").arg(db).arg("--list").output().expect("--list runs");
            samples.push(started.elapsed());
            assert!(out.status.success());
        }
    }
    let medians: Vec<Duration> = times
        .into_iter()
        .map(|mut samples| {
            samples.sort();
            samples[samples.len() / 2]
        })
        .collect();
    for (count, median) in SIZES.iter().zip(&medians) {
        let ratio = median.as_secs_f64() / medians[0].as_secs_f64();
        println!("| {count} | {:.1} ms | {ratio:.2} |", median.as_secs_f64() * 1000.0);
    }
    println!();
    medians[2].as_secs_f64() / medians[0].as_secs_f64()
}

/// `count` complete debates written through the store's own operations, spread over
/// ten repositories (one of them `root`).
fn populate(path: &Path, count: usize, root: &str) {
    use debate::model::{
        Completion, Confidence, Contribution, ContributionKind, EndReason, Outcome, ProviderKind, RoleChoice,
        RoundMeasures, Snapshot, Source, Usage,
    };
    use debate::moderator::{analysis, selection, synthesis};

    let store = debate::store::Store::open(path).expect("store");
    let catalog = debate::catalog::Catalog::build(&[]).unwrap();
    let analysis = analysis::analyse(QUESTION);
    let panel = selection::select(&catalog, QUESTION, &analysis, &selection::Request::default()).unwrap();
    let role = RoleChoice {
        provider: "bench".into(),
        kind: ProviderKind::Openai,
        model: Some("mock".into()),
        temperature: 0.5,
    };
    let snapshot = Snapshot {
        debate: Default::default(),
        record: Default::default(),
        moderator: role.clone(),
        debater: role,
        seat_models: Vec::new(),
        decision_makers: Vec::new(),
        context: Vec::new(),
        requested_size: None,
        forced: Vec::new(),
        branch: None,
        providers: Default::default(),
        started_on: None,
        project: Default::default(),
        supersedes: Vec::new(),
        prices: Default::default(),
    };
    let usage = Usage { prompt_tokens: 100, cached_tokens: 0, completion_tokens: 40, latency_ms: 200 };
    let call = |text: &str| Completion {
        text: text.into(),
        model: "mock".into(),
        usage,
        truncated: false,
        format: None,
        looped: false,
    };
    let evaluation = debate::moderator::evaluation::heuristic(&[], 1.0, false);
    let measures = RoundMeasures { repetition: vec![None, None], novelty: 1.0 };
    let known = synthesis::Known { panel: &[], options: &[], decisions: &[] };
    let (synthesis, _) =
        synthesis::parse(r#"{"recommendation": "Use Postgres.", "confidence": "Medium"}"#, &known).unwrap();
    let outcome = Outcome {
        synthesis,
        source: Source::Structured,
        confidence: Confidence::Medium,
        degradations: Vec::new(),
        lowered: Vec::new(),
    };
    for n in 0..count {
        let id = format!("DEB-{n:06}");
        let repo = if n % 10 == 0 { root.to_string() } else { format!("/bench/repo-{}", n % 10) };
        let question = format!("{QUESTION} (#{n})");
        let new = debate::store::NewDebate {
            id: &id,
            question: &question,
            title: &question,
            repo_root: &repo,
            snapshot: &snapshot,
            analysis: &analysis,
            panel: &panel,
        };
        store.create_debate(&new).unwrap();
        store.save_panel(&id, &panel, &analysis, &call("{}")).unwrap();
        let seats: Vec<usize> = (0..panel.len()).collect();
        let opening = debate::store::Opening { framing: "Round 1.", guidance: None, seats: &seats };
        store.start_round(&id, 1, &opening).unwrap();
        for (seat, member) in panel.iter().enumerate() {
            for kind in [ContributionKind::Argument, ContributionKind::Rebuttal] {
                let text = "An argument of ordinary length.".repeat(20);
                let stance = Some(debate::model::Stance::unknown());
                let c = Contribution {
                    seat,
                    kind,
                    text,
                    model: "mock".into(),
                    usage,
                    truncated: false,
                    failed: false,
                    looped: false,
                    stance,
                };
                store.save_contribution(&id, 1, member.name(), &c).unwrap();
            }
        }
        store.save_evaluation(&id, 1, &measures, &evaluation, &call("{}")).unwrap();
        store.save_end(&id, EndReason::Agreement).unwrap();
        store.save_outcome(&id, &outcome, &call("{}"), 0).unwrap();
        store.save_record_path(&id, &format!("{repo}/docs/decisions/{id}.md")).unwrap();
        store.complete(&id, Some("0123456789abcdef0123456789abcdef01234567")).unwrap();
    }
}

/// One request the mock server answered.
#[derive(Clone)]
struct Exchange {
    /// `{"body": …}`, the shape the tests' mock logs.
    request: Value,
    /// When its body had been read.
    arrived: Instant,
    /// When its response was written.
    answered: Instant,
}

/// Every request the mock received: its body, when it arrived, when it was answered.
type Log = Arc<Mutex<Vec<(Value, Instant, Option<Instant>)>>>;

/// An OpenAI-compatible server that answers every request after a fixed latency, the
/// way a well-behaved API server does: TCP_NODELAY, each response in one write,
/// connections kept alive. (A server that writes headers and body separately without
/// TCP_NODELAY adds the client's delayed-ACK time, ~40 ms, to every call on a reused
/// connection: that would be measured as the tool's overhead.) Every request is logged
/// with when it arrived and when it was answered: the waves a debate's calls fall into
/// are read from those times.
struct Server {
    address: String,
    /// In order of arrival; `answered` is `None` while the response is not written.
    log: Log,
}

impl Server {
    /// A server that lists its model as `owned_by` says (`PARALLEL`, `ONE_AT_A_TIME`).
    async fn start(latency: Duration, owned_by: &'static str) -> Server {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1");
        let address = format!("http://{}", listener.local_addr().unwrap());
        let log: Log = Arc::default();
        let seen = log.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                stream.set_nodelay(true).ok();
                let seen = seen.clone();
                tokio::spawn(async move {
                    let (read, mut write) = stream.into_split();
                    let mut read = BufReader::new(read);
                    while let Some(request) = read_request(&mut read).await {
                        let body = match request {
                            Request::Models => {
                                let models =
                                    json!({"object": "list", "data": [{"id": "mock-model", "owned_by": owned_by}]})
                                        .to_string();
                                let response = format!(
                                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{models}",
                                    models.len()
                                );
                                if write.write_all(response.as_bytes()).await.is_err() {
                                    break;
                                }
                                continue;
                            }
                            Request::Completion(body) => body,
                        };
                        let entry = {
                            let mut log = seen.lock().unwrap();
                            log.push((json!({"body": body}), Instant::now(), None));
                            log.len() - 1
                        };
                        tokio::time::sleep(latency).await;
                        // Streamed when asked (the dashboard streams debaters' text).
                        let (kind, payload) = match body["stream"] == true {
                            true => ("text/event-stream", streamed_body("mock-model", &reply(&body), "stop")),
                            false => ("application/json", completion_body(&reply(&body)).to_string()),
                        };
                        let response = format!(
                            "HTTP/1.1 200 OK\r\ncontent-type: {kind}\r\ncontent-length: {}\r\n\r\n{payload}",
                            payload.len()
                        );
                        // Stamped just before the write, so that it is in the log by the
                        // time the client can have read the response.
                        seen.lock().unwrap()[entry].2 = Some(Instant::now());
                        if write.write_all(response.as_bytes()).await.is_err() {
                            break;
                        }
                    }
                });
            }
        });
        Server { address, log }
    }

    fn base_url(&self) -> String {
        format!("{}/v1", self.address)
    }

    /// Every request so far, in order of arrival. Called between debates, when every
    /// request has been answered.
    fn exchanges(&self) -> Vec<Exchange> {
        let log = self.log.lock().unwrap();
        log.iter()
            .map(|(request, arrived, answered)| Exchange {
                request: request.clone(),
                arrived: *arrived,
                answered: answered.expect("every request answered before the debate ended"),
            })
            .collect()
    }
}

/// What the tool asks the mock: what it is, or a completion.
enum Request {
    Models,
    Completion(Value),
}

/// One HTTP/1.1 request, or `None` when the connection closes.
async fn read_request(read: &mut BufReader<tokio::net::tcp::OwnedReadHalf>) -> Option<Request> {
    let mut length = 0;
    let mut models = false;
    loop {
        let mut line = String::new();
        if read.read_line(&mut line).await.ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        models |= line.starts_with("GET ") && line.contains("/models");
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().ok()?;
        }
    }
    if models {
        return Some(Request::Models);
    }
    let mut body = vec![0; length];
    read.read_exact(&mut body).await.ok()?;
    serde_json::from_slice(&body).ok().map(Request::Completion)
}
