//! Bad input, run through the binary as a user would (SPEC §8): each is rejected with the
//! right exit code, in one or two lines that start with `error:` and name the offending
//! thing, with no panic or backtrace, and before anything is written — the repository,
//! the home directory and the state database are byte-for-byte unchanged.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::common::*;
use assert_cmd::Command;

const INPUT: i32 = 2;
const CONFIG: i32 = 4;

/// Run `cmd` and check that it is rejected per SPEC §8: exit `code`, a short error on
/// stderr that contains every string in `mentions`, nothing on stdout, and no file in the
/// sandbox added, removed or changed. Returns stderr for further checks.
#[track_caller]
fn rejects(sandbox: &Sandbox, mut cmd: Command, code: i32, mentions: &[&str]) -> String {
    let before = sandbox.files();
    let output = cmd.output().expect("debate runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert_eq!(output.status.code(), Some(code), "exit code; stderr:\n{stderr}");
    assert_short_error(&stderr);
    for wanted in mentions {
        assert!(stderr.contains(wanted), "the error should mention {wanted:?}; stderr:\n{stderr}");
    }
    assert!(stdout.trim().is_empty(), "a rejected command prints no result on stdout; stdout:\n{stdout}");
    assert_unchanged(&before, &sandbox.files());
    stderr
}

/// One or two non-empty lines, the first starting with `error:`, and no trace of a panic.
#[track_caller]
fn assert_short_error(stderr: &str) {
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert!(!lines.is_empty(), "an error must be reported on stderr");
    assert!(lines.len() <= 2, "an error takes one or two lines, got {}:\n{stderr}", lines.len());
    assert!(lines[0].starts_with("error:"), "stderr starts with `error:`:\n{stderr}");
    assert_no_panic(stderr);
}

#[track_caller]
fn assert_no_panic(stderr: &str) {
    let lower = stderr.to_lowercase();
    for sign in ["panicked", "backtrace", "stack backtrace", "internal error"] {
        assert!(!lower.contains(sign), "stderr shows a panic ({sign:?}):\n{stderr}");
    }
}

/// Case-insensitive: the error mentions at least one of `words`.
#[track_caller]
fn assert_mentions_any(stderr: &str, words: &[&str]) {
    let lower = stderr.to_lowercase();
    assert!(
        words.iter().any(|w| lower.contains(&w.to_lowercase())),
        "the error should mention one of {words:?}; stderr:\n{stderr}"
    );
}

/// The error names a line: `file:3:`, `line 3` or `line: 3`.
#[track_caller]
fn assert_names_line(stderr: &str, file: &str, line: u32) {
    let lower = stderr.to_lowercase();
    let forms = [format!("{file}:{line}:"), format!("{file}:{line} "), format!("line {line}"), format!("line: {line}")];
    assert!(
        forms.iter().any(|f| lower.contains(&f.to_lowercase())),
        "the error should name {file} line {line}; stderr:\n{stderr}"
    );
}

/// Two snapshots are equal; on failure, say which files were added, removed or changed.
#[track_caller]
fn assert_unchanged(before: &BTreeMap<PathBuf, Vec<u8>>, after: &BTreeMap<PathBuf, Vec<u8>>) {
    if before == after {
        return;
    }
    let mut diff = Vec::new();
    for (path, bytes) in after {
        match before.get(path) {
            None => diff.push(format!("added   {}", path.display())),
            Some(old) if old != bytes => diff.push(format!("changed {}", path.display())),
            Some(_) => {}
        }
    }
    for path in before.keys().filter(|p| !after.contains_key(*p)) {
        diff.push(format!("removed {}", path.display()));
    }
    panic!("bad input must be rejected before anything is written:\n{}", diff.join("\n"));
}

fn write(path: &Path, bytes: impl AsRef<[u8]>) -> PathBuf {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, bytes).unwrap();
    path.to_path_buf()
}

/// Run one offline debate to completion, so the state database exists; returns its id.
/// The id is read from `--json`, not from the database: a read-only SQLite connection
/// would leave `-wal`/`-shm` files behind and blur the before/after snapshots.
fn offline_debate(sandbox: &Sandbox, question: &str) -> String {
    let output = sandbox.cmd().args(["--offline", "--no-checkpoints", "--json", question]).output().unwrap();
    assert!(output.status.success(), "offline debate failed: {}", String::from_utf8_lossy(&output.stderr));
    assert!(sandbox.db().is_file(), "the offline debate created the state database");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("--json prints JSON");
    report["id"].as_str().expect("the report has an id").to_string()
}

/// A well-formed id that is not a prefix of `taken`.
fn unknown_id_besides(taken: &str) -> String {
    let first = taken.to_lowercase().chars().nth(4).unwrap_or('0');
    let other = if first == 'z' { 'y' } else { 'z' };
    format!("DEB-{other}{other}{other}{other}{other}{other}")
}

// ── The question ────────────────────────────────────────────────────────────────

#[test]
fn no_question_is_rejected() {
    let sandbox = Sandbox::new();
    let mut cmd = sandbox.cmd();
    cmd.arg("--offline");
    let stderr = rejects(&sandbox, cmd, INPUT, &[]);
    assert_mentions_any(&stderr, &["question"]);
}

#[test]
fn empty_question_is_rejected() {
    let sandbox = Sandbox::new();
    let mut cmd = sandbox.cmd();
    cmd.args(["--offline", ""]);
    let stderr = rejects(&sandbox, cmd, INPUT, &[]);
    assert_mentions_any(&stderr, &["empty"]);
}

#[test]
fn whitespace_question_is_rejected() {
    let sandbox = Sandbox::new();
    let mut cmd = sandbox.cmd();
    cmd.args(["--offline", "  \t \n  "]);
    let stderr = rejects(&sandbox, cmd, INPUT, &[]);
    assert_mentions_any(&stderr, &["empty", "blank", "whitespace"]);
}

#[test]
fn question_file_that_does_not_exist_is_rejected() {
    let sandbox = Sandbox::new();
    let mut cmd = sandbox.cmd();
    cmd.args(["--offline", "--file", "missing-question.txt"]);
    rejects(&sandbox, cmd, INPUT, &["missing-question.txt"]);
}

#[test]
fn question_file_that_is_a_directory_is_rejected() {
    let sandbox = Sandbox::new();
    std::fs::create_dir_all(sandbox.repo.join("questions-dir")).unwrap();
    write(&sandbox.repo.join("questions-dir/keep.txt"), "x");
    let mut cmd = sandbox.cmd();
    cmd.args(["--offline", "--file", "questions-dir"]);
    rejects(&sandbox, cmd, INPUT, &["questions-dir"]);
}

#[test]
fn binary_question_file_is_rejected() {
    let sandbox = Sandbox::new();
    write(&sandbox.repo.join("question.bin"), b"Redis or Postgres\0\x01\x02\0for caching?\n");
    let mut cmd = sandbox.cmd();
    cmd.args(["--offline", "--file", "question.bin"]);
    let stderr = rejects(&sandbox, cmd, INPUT, &["question.bin"]);
    assert_mentions_any(&stderr, &["binary", "NUL"]);
}

#[test]
fn huge_question_file_is_rejected() {
    let sandbox = Sandbox::new();
    let line = "Should we use Redis or Postgres for caching? ";
    let text = line.repeat((1 << 20) / line.len() + 1);
    assert!(text.len() >= 1 << 20);
    write(&sandbox.repo.join("huge-question.txt"), &text);
    let mut cmd = sandbox.cmd();
    cmd.args(["--offline", "--file", "huge-question.txt"]);
    let stderr = rejects(&sandbox, cmd, INPUT, &["huge-question.txt"]);
    assert_mentions_any(&stderr, &["large", "long", "big", "size", "KiB", "MiB", "bytes"]);
}

#[test]
fn non_utf8_question_file_is_rejected() {
    let sandbox = Sandbox::new();
    // Latin-1 "Redis oder Postgres für Caching?": valid text, not UTF-8.
    write(&sandbox.repo.join("latin1-question.txt"), b"Redis oder Postgres f\xfcr Caching?\n");
    let mut cmd = sandbox.cmd();
    cmd.args(["--offline", "--file", "latin1-question.txt"]);
    rejects(&sandbox, cmd, INPUT, &["latin1-question.txt", "UTF-8"]);
}

#[test]
fn non_utf8_question_on_stdin_is_rejected() {
    let sandbox = Sandbox::new();
    let mut cmd = sandbox.cmd();
    cmd.args(["--offline", "-"]).write_stdin(&b"Redis oder Postgres f\xfcr Caching?\n"[..]);
    rejects(&sandbox, cmd, INPUT, &["stdin", "UTF-8"]);
}

#[test]
fn non_utf8_question_on_stdin_via_file_dash_is_rejected() {
    let sandbox = Sandbox::new();
    let mut cmd = sandbox.cmd();
    cmd.args(["--offline", "--file", "-"]).write_stdin(&b"Redis oder Postgres f\xfcr Caching?\n"[..]);
    rejects(&sandbox, cmd, INPUT, &["stdin", "UTF-8"]);
}

#[test]
fn empty_question_on_stdin_is_rejected() {
    let sandbox = Sandbox::new();
    let mut cmd = sandbox.cmd();
    cmd.args(["--offline", "-"]).write_stdin("   \n\n");
    let stderr = rejects(&sandbox, cmd, INPUT, &["stdin"]);
    assert_mentions_any(&stderr, &["empty"]);
}

#[test]
fn non_utf8_question_argument_is_rejected() {
    let sandbox = Sandbox::new();
    let mut cmd = sandbox.cmd();
    cmd.arg("--offline").arg(OsStr::from_bytes(b"Redis oder Postgres f\xfcr Caching?"));
    rejects(&sandbox, cmd, INPUT, &["UTF-8"]);
}

// ── Flags ───────────────────────────────────────────────────────────────────────

#[test]
fn max_rounds_zero_is_rejected() {
    let sandbox = Sandbox::new();
    let mut cmd = sandbox.cmd();
    cmd.args(["--offline", "--max-rounds", "0", QUESTION]);
    rejects(&sandbox, cmd, INPUT, &["--max-rounds", "0"]);
}

#[test]
fn max_rounds_twenty_one_is_rejected() {
    let sandbox = Sandbox::new();
    let mut cmd = sandbox.cmd();
    cmd.args(["--offline", "-r", "21", QUESTION]);
    rejects(&sandbox, cmd, INPUT, &["--max-rounds", "21"]);
}

#[test]
fn one_perspective_is_rejected() {
    let sandbox = Sandbox::new();
    let mut cmd = sandbox.cmd();
    cmd.args(["--offline", "--perspectives", "1", QUESTION]);
    rejects(&sandbox, cmd, INPUT, &["--perspectives", "1"]);
}

#[test]
fn five_perspectives_are_rejected() {
    let sandbox = Sandbox::new();
    let mut cmd = sandbox.cmd();
    cmd.args(["--offline", "-p", "5", QUESTION]);
    rejects(&sandbox, cmd, INPUT, &["--perspectives", "5"]);
}

#[test]
fn unknown_with_name_is_rejected_and_known_names_are_listed() {
    let sandbox = Sandbox::new();
    let mut cmd = sandbox.cmd();
    cmd.args(["--offline", "--with", "Performance Advocate", "--with", "Wizard of Scale", QUESTION]);
    rejects(&sandbox, cmd, INPUT, &["--with", "Wizard of Scale", "Operational Simplicity", "Security Advocate"]);
}

#[test]
fn list_limit_zero_is_rejected() {
    let sandbox = Sandbox::new();
    let mut cmd = sandbox.cmd();
    cmd.args(["--list", "--limit", "0"]);
    rejects(&sandbox, cmd, INPUT, &["--limit"]);
}

#[test]
fn unknown_flag_is_rejected() {
    let sandbox = Sandbox::new();
    let mut cmd = sandbox.cmd();
    cmd.args(["--offline", "--max-round", "3", QUESTION]);
    rejects(&sandbox, cmd, INPUT, &["--max-round"]);
}

#[test]
fn question_with_resume_is_rejected() {
    let sandbox = Sandbox::new();
    let mut cmd = sandbox.cmd();
    cmd.args(["--resume", "DEB-k3x9q2", QUESTION]);
    rejects(&sandbox, cmd, INPUT, &["--resume"]);
}

// ── Ids ─────────────────────────────────────────────────────────────────────────

#[test]
fn resume_unknown_id_is_rejected() {
    let sandbox = Sandbox::new();
    let id = offline_debate(&sandbox, QUESTION);
    let unknown = unknown_id_besides(&id);
    let mut cmd = sandbox.cmd();
    cmd.args(["--offline", "--resume", &unknown]);
    rejects(&sandbox, cmd, INPUT, &[&unknown]);
}

#[test]
fn show_unknown_id_is_rejected() {
    let sandbox = Sandbox::new();
    let id = offline_debate(&sandbox, QUESTION);
    let unknown = unknown_id_besides(&id);
    let mut cmd = sandbox.cmd();
    cmd.args(["--show", &unknown]);
    rejects(&sandbox, cmd, INPUT, &[&unknown]);
}

#[test]
fn resume_without_any_database_is_rejected_and_creates_none() {
    let sandbox = Sandbox::new();
    let mut cmd = sandbox.cmd();
    cmd.args(["--offline", "--resume", "DEB-k3x9q2"]);
    rejects(&sandbox, cmd, INPUT, &["DEB-k3x9q2"]);
    assert!(!sandbox.db().exists(), "no state database is created by a failed --resume");
}

#[test]
fn show_without_any_database_is_rejected_and_creates_none() {
    let sandbox = Sandbox::new();
    let mut cmd = sandbox.cmd();
    cmd.args(["--show", "DEB-k3x9q2"]);
    rejects(&sandbox, cmd, INPUT, &["DEB-k3x9q2"]);
    assert!(!sandbox.db().exists(), "no state database is created by a failed --show");
}

// ── Settings and catalog ────────────────────────────────────────────────────────

#[test]
fn malformed_yaml_in_config_file_is_rejected_with_file_and_line() {
    let sandbox = Sandbox::new();
    let config = write(
        &sandbox.home.join("broken-settings.yaml"),
        "debate:\n  max_rounds: 3\n  checkpoints: false: true\nrecord:\n  commit: false\n",
    );
    let mut cmd = sandbox.cmd();
    cmd.args(["--offline", "--config"]).arg(&config).arg(QUESTION);
    let stderr = rejects(&sandbox, cmd, CONFIG, &["broken-settings.yaml"]);
    assert_names_line(&stderr, "broken-settings.yaml", 3);
}

#[test]
fn unknown_key_in_repository_settings_is_rejected_with_file_line_and_key() {
    let sandbox = Sandbox::new();
    write(&sandbox.repo.join(".debate/settings.yaml"), "debate:\n  max_rounds: 3\n  max_round: 4\n");
    let mut cmd = sandbox.cmd();
    cmd.args(["--offline", QUESTION]);
    let stderr = rejects(&sandbox, cmd, CONFIG, &["settings.yaml", "max_round"]);
    assert_names_line(&stderr, "settings.yaml", 3);
}

#[test]
fn wrong_type_in_repository_settings_is_rejected_with_file_line_and_key() {
    let sandbox = Sandbox::new();
    write(&sandbox.repo.join(".debate/settings.yaml"), "debate:\n  max_rounds: many\n");
    let mut cmd = sandbox.cmd();
    cmd.args(["--offline", QUESTION]);
    let stderr = rejects(&sandbox, cmd, CONFIG, &["settings.yaml", "max_rounds"]);
    assert_names_line(&stderr, "settings.yaml", 2);
}

#[test]
fn config_file_that_does_not_exist_is_rejected() {
    let sandbox = Sandbox::new();
    let mut cmd = sandbox.cmd();
    cmd.args(["--offline", "--config", "no-such-settings.yaml", QUESTION]);
    rejects(&sandbox, cmd, CONFIG, &["no-such-settings.yaml"]);
}

#[test]
fn catalog_entry_with_empty_priorities_is_rejected_naming_file_entry_and_field() {
    let sandbox = Sandbox::new();
    write(
        &sandbox.repo.join(".debate/perspectives.yaml"),
        "perspectives:\n  - name: Hollow Advocate\n    priorities: []\n    trade_offs: Will accept anything\n    opposes: [Performance Advocate]\n",
    );
    let mut cmd = sandbox.cmd();
    cmd.args(["--offline", QUESTION]);
    rejects(&sandbox, cmd, CONFIG, &["perspectives.yaml", "Hollow Advocate", "priorities"]);
}

#[test]
fn catalog_entry_opposing_an_unknown_perspective_is_rejected() {
    let sandbox = Sandbox::new();
    write(
        &sandbox.repo.join(".debate/perspectives.yaml"),
        "perspectives:\n  - name: Lonely Advocate\n    priorities: [solitude]\n    trade_offs: Will accept isolation\n    opposes: [Imaginary Friend]\n",
    );
    let mut cmd = sandbox.cmd();
    cmd.args(["--offline", QUESTION]);
    rejects(&sandbox, cmd, CONFIG, &["perspectives.yaml", "Lonely Advocate", "opposes", "Imaginary Friend"]);
}

#[test]
fn invalid_environment_value_is_rejected_naming_the_variable() {
    let sandbox = Sandbox::new();
    let mut cmd = sandbox.cmd();
    cmd.env("DEBATE_MAX_ROUNDS", "abc").args(["--offline", QUESTION]);
    rejects(&sandbox, cmd, CONFIG, &["DEBATE_MAX_ROUNDS"]);
}

#[test]
fn no_provider_configured_is_a_configuration_error_that_mentions_offline() {
    let sandbox = Sandbox::new();
    let mut cmd = sandbox.cmd();
    for key in ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY"] {
        cmd.env_remove(key);
    }
    cmd.arg(QUESTION);
    rejects(&sandbox, cmd, CONFIG, &["--offline"]);
}

// ── A closed stdout ─────────────────────────────────────────────────────────────

/// `debate --list | head -1`: the reader goes away before the output is written. The
/// command must not panic or print a backtrace.
#[test]
fn closed_stdout_does_not_panic() {
    let sandbox = Sandbox::new();
    let mut id = String::new();
    for question in
        [QUESTION, "Should we adopt Kafka or RabbitMQ for events?", "Monorepo or polyrepo for our services?"]
    {
        id = offline_debate(&sandbox, question);
    }
    let runs: [&[&str]; 4] = [&["--list"], &["--list", "--all"], &["--list", "--json"], &["--show", &id]];
    for args in runs {
        // A pipe whose read end is dropped before the process starts: every write to
        // stdout fails with EPIPE, deterministically.
        let (reader, writer) = std::io::pipe().expect("pipe");
        drop(reader);
        let mut cmd = sandbox.std_cmd();
        cmd.args(args).stdin(Stdio::null()).stdout(writer).stderr(Stdio::piped());
        let output = cmd.spawn().expect("debate starts").wait_with_output().expect("debate finishes");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_no_panic(&stderr);
        let lines = stderr.lines().filter(|l| !l.trim().is_empty()).count();
        assert!(lines <= 2, "debate {args:?} with a closed stdout: at most two lines on stderr:\n{stderr}");
    }
}
