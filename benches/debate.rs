//! The benchmark runner (SPEC §9): `cargo bench --bench debate`.
//!
//! Starts a mock OpenAI-compatible server with a fixed latency per call
//! (`DEBATE_BENCH_LATENCY_MS`, default 200), runs real release-built `debate` processes
//! against it and prints markdown tables: wall time against the critical path, prompt
//! size by round and role, tokens per debate, `--list` on 0 / 1,000 / 10,000 debates
//! (written through the store's own code), the peak RSS of a 4-perspective, 5-round
//! debate, the time to gather a 10,000-file repository's context, and the share of a
//! debate's prompt tokens a provider's prefix cache can serve. Ratios, not bare times,
//! are what the targets constrain.

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
    let mock = Server::start(latency).await;
    println!("# debate benchmarks\n");
    println!("Mock model latency: {} ms per call. Machine: {}.\n", latency.as_millis(), machine());
    // `cargo bench --bench debate -- dashboard`: that case alone.
    if std::env::args().any(|arg| arg == "dashboard") {
        let slowdown = dashboard_load(&mock).await;
        println!("Slowdown under load: {slowdown:.3}");
        return;
    }

    let rss_kib = peak_rss(&mock).await;
    let (worst, prompts) = overhead(&mock, latency).await;
    let prompt_ratio = prompt_growth(&prompts);
    let list_ratio = list_scaling();
    let gathered = gather_time();
    let cacheable = prefix_cache_share(&mock).await;
    let selection = selection_hit_rate();
    let slowdown = dashboard_load(&mock).await;

    println!("## Targets (SPEC §9)\n");
    println!("| target | measured | met |\n|---|---|---|");
    let row = |what: &str, measured: String, met: bool| {
        println!("| {what} | {measured} | {} |", if met { "yes" } else { "NO" })
    };
    row("wall time ≤ 1.05 × critical path", format!("{worst:.3} (worst case)"), worst <= 1.05);
    row(
        "round-5 prompt ≤ 1.5 × round-2 prompt",
        format!("{prompt_ratio:.2} (worst debater call)"),
        prompt_ratio <= 1.5,
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
        "prompt tokens a prefix cache can serve, 3 perspectives × 3 rounds, ~8k context ≥ 70%",
        format!("{:.0}%", cacheable * 100.0),
        cacheable >= 0.70,
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

/// In a 3-perspective, 3-round debate with about 8,000 tokens of project context, the
/// share of prompt bytes (≈ tokens) that repeat the start of an earlier request of the
/// same debate: what a provider's prefix cache can serve.
async fn prefix_cache_share(mock: &Server) -> f64 {
    let (sandbox, config) = sandbox(mock, "parallel");
    let notes: String =
        (0..700).map(|i| format!("Load note {i}: the checkout path peaks at lunch and on Fridays.\n")).collect();
    std::fs::write(sandbox.repo.join("notes.md"), notes).expect("notes");
    let before = mock.requests().len();
    let mut cmd = debate_command(&sandbox, &config, 3, 3);
    cmd.args(["--context", "notes.md"]);
    let out = tokio::task::spawn_blocking(move || cmd.output().expect("debate runs")).await.unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let requests = mock.requests()[before..].to_vec();
    // What a provider reads, in order: the system message, then the user's.
    let texts: Vec<String> = requests.iter().map(|r| prompt_of(&r["body"])).collect();
    let common = |a: &str, b: &str| a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    let (mut total, mut cached) = (0usize, 0usize);
    for (i, text) in texts.iter().enumerate() {
        total += text.len();
        cached += texts[..i].iter().map(|earlier| common(text, earlier)).max().unwrap_or(0);
    }
    let share = cached as f64 / total as f64;
    let context = texts.iter().map(|t| t.find("## The question").unwrap_or(0)).min().unwrap_or(0);
    println!("## Prefix caching\n");
    println!(
        "A 3-perspective, 3-round debate with a {}-byte (≈{} tokens) project context shared by every request: {} requests, {} prompt bytes (≈{} tokens), {} of them (≈{} tokens) repeat the start of an earlier request of the debate: {:.0}%.\n",
        context,
        context / 4,
        texts.len(),
        total,
        total / 4,
        cached,
        cached / 4,
        share * 100.0
    );
    share
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

/// A repository with an identity, and settings pointing at the mock server.
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

/// The calls on the critical path: analysis, per round the arguments (parallel), the
/// rebuttals (parallel: one call deep; sequential: one per debater) and the
/// evaluation, then the synthesis.
fn critical_calls(perspectives: u32, rounds: u32, sequential: bool) -> u32 {
    let rebuttal_depth = if sequential { perspectives } else { 1 };
    2 + rounds * (1 + rebuttal_depth + 1)
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
                    let before = mock.requests().len();
                    let mut cmd = debate_command(&sandbox, &config, perspectives, rounds);
                    let started = Instant::now();
                    let out = tokio::task::spawn_blocking(move || cmd.output().expect("debate runs")).await.unwrap();
                    walls.push(started.elapsed());
                    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
                    result = serde_json::from_slice(&out.stdout).expect("--json");
                    requests = mock.requests()[before..].to_vec();
                }
                walls.sort();
                let wall = walls[walls.len() / 2];
                let calls = requests.len() as u32;
                assert_eq!(calls, 2 + rounds * (2 * perspectives + 1), "every call made once");
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
                    prompts = requests;
                }
            }
        }
    }
    println!();
    (worst, prompts)
}

/// Prompt size per call by round and role in the 4-perspective 5-round debate; the
/// worst round-5 / round-2 ratio of a debater call.
fn prompt_growth(requests: &[Value]) -> f64 {
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
    let kinds = ["Write your round-{round} argument", "Write your round-{round} rebuttal", "Evaluate round {round}:"];
    for round in 1..=5 {
        let cells: Vec<String> = kinds.iter().map(|k| largest(round, k)).map(|b| format!("{b} (≈{})", b / 4)).collect();
        println!("| {round} | {} |", cells.join(" | "));
    }
    let ratio = kinds[..2].iter().map(|k| largest(5, k) as f64 / largest(2, k) as f64).fold(0.0, f64::max);
    println!("\nRound 5 / round 2, worst debater call: {ratio:.2}\n");
    ratio
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
    };
    let usage = Usage { prompt_tokens: 100, cached_tokens: 0, completion_tokens: 40, latency_ms: 200 };
    let call =
        |text: &str| Completion { text: text.into(), model: "mock".into(), usage, truncated: false, format: None };
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
            clarification: None,
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

/// An OpenAI-compatible server that answers every request after a fixed latency, the
/// way a well-behaved API server does: TCP_NODELAY, each response in one write,
/// connections kept alive. (A server that writes headers and body separately without
/// TCP_NODELAY adds the client's delayed-ACK time, ~40 ms, to every call on a reused
/// connection: that would be measured as the tool's overhead.)
struct Server {
    address: String,
    log: Arc<Mutex<Vec<Value>>>,
}

impl Server {
    async fn start(latency: Duration) -> Server {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1");
        let address = format!("http://{}", listener.local_addr().unwrap());
        let log: Arc<Mutex<Vec<Value>>> = Arc::default();
        let seen = log.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                stream.set_nodelay(true).ok();
                let seen = seen.clone();
                tokio::spawn(async move {
                    let (read, mut write) = stream.into_split();
                    let mut read = BufReader::new(read);
                    while let Some(body) = read_request(&mut read).await {
                        seen.lock().unwrap().push(json!({"body": body}));
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

    fn requests(&self) -> Vec<Value> {
        self.log.lock().unwrap().clone()
    }
}

/// One HTTP/1.1 request's JSON body, or `None` when the connection closes.
async fn read_request(read: &mut BufReader<tokio::net::tcp::OwnedReadHalf>) -> Option<Value> {
    let mut length = 0;
    loop {
        let mut line = String::new();
        if read.read_line(&mut line).await.ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().ok()?;
        }
    }
    let mut body = vec![0; length];
    read.read_exact(&mut body).await.ok()?;
    serde_json::from_slice(&body).ok()
}
