//! Shared test harness: a temporary git repository, an isolated home (settings, state
//! database), and the real `debate` binary run inside it.
#![allow(dead_code)]

pub mod eval;
pub mod llm;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command as StdCommand;

use assert_cmd::Command;
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
            if key.starts_with("DEBATE_") || key.starts_with("XDG_") || key == "NO_COLOR" {
                cmd.env_remove(key);
            }
        }
        cmd.env("HOME", &self.home)
            .env("DEBATE_HOME", &self.home)
            .env("XDG_CONFIG_HOME", self.home.join("config"))
            .env("XDG_DATA_HOME", self.home.join("data"));
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

    /// Every request the scripted provider received, in order.
    pub fn prompts(&self) -> Vec<serde_json::Value> {
        std::fs::read_to_string(self.home.join("prompts.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).expect("prompt log line is JSON"))
            .collect()
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

    /// Open the state database read-only.
    pub fn sqlite(&self) -> rusqlite::Connection {
        rusqlite::Connection::open_with_flags(self.db(), rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).expect("state db")
    }

    /// The id of the only debate in the database.
    pub fn only_id(&self) -> String {
        self.sqlite().query_row("SELECT id FROM debates", [], |r| r.get(0)).expect("one debate")
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
