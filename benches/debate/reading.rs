//! What debate reads before any model call: the repository's context, and the keyword
//! panel for the selection evaluation set.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{self, git};

/// The selection evaluation set (`tests/data/selection_eval.yaml`) through the keyword
/// analysis and panel: the share of the perspectives a reviewer expects that are seated.
pub fn selection_hit_rate() -> f64 {
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

/// Commits in the gathering benchmark's history: as many as gathering reads.
pub const HISTORY_COMMITS: usize = 20_000;

/// `count` commits by seven people on `main`, written at once with `git fast-import`.
pub fn import_history(root: &Path, count: usize) {
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
pub fn gather_time() -> Duration {
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
