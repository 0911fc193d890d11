//! Bad input, run through the binary as a user would (README: "Exit codes"): each is
//! rejected with the right exit code, in one or two lines that start with `error:` and name
//! the offending thing, with no panic or backtrace, and before anything is written — the
//! repository, the home directory and the state database are byte-for-byte unchanged.
//!
//! The cases are one table, `CASES`: each row names a case, what it writes or runs first
//! (`Setup`), the environment, arguments and stdin of the rejected command, the exit code,
//! the strings the error must contain, the words it must contain at least one of, the
//! file and line it must name, and what must still hold afterwards (`After`).
//! `bad_input_is_rejected` runs every row in its own sandbox, even after one fails, and
//! then fails once, listing every failing case by name. A closed stdout is a different
//! shape and has its own test at the end.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::common::*;
use assert_cmd::Command;

const INPUT: i32 = 2;
const CONFIG: i32 = 4;

/// Latin-1 "Redis oder Postgres für Caching?": valid text, not UTF-8.
const LATIN1_QUESTION: &[u8] = b"Redis oder Postgres f\xfcr Caching?\n";

/// Placeholders in a case's `args` and `mentions`, filled in per sandbox:
/// the home directory's absolute path,
const HOME_DIR: &str = "{home}";
/// a well-formed id that is not the prior debate's (needs `Setup::PriorDebate`),
const UNKNOWN_ID: &str = "{unknown-id}";
/// and, as a whole argument, `LATIN1_QUESTION` without its newline.
const LATIN1_ARG: &str = "{latin-1 question}";

// ── The table ───────────────────────────────────────────────────────────────────

/// One bad input: how to get there, what to run, and how it must be rejected.
struct Case {
    name: &'static str,
    setup: Setup,
    /// Variables set (`Some`) or removed (`None`) for the command.
    env: &'static [(&'static str, Option<&'static str>)],
    args: &'static [&'static str],
    stdin: Option<&'static [u8]>,
    code: i32,
    /// The error contains every one of these.
    mentions: &'static [&'static str],
    /// The error contains at least one of these, case-insensitive (unchecked if empty).
    mentions_any: &'static [&'static str],
    /// The error names this file and line.
    names_line: Option<(&'static str, u32)>,
    after: After,
}

/// What a case writes or runs before the rejected command.
#[derive(Clone, Copy)]
enum Setup {
    /// Nothing: a fresh repository and home.
    Nothing,
    /// A file under the repository, its directories created.
    RepoFile(&'static str, &'static [u8]),
    /// A file under the home directory.
    HomeFile(&'static str, &'static [u8]),
    /// A question file of over 1 MiB under the repository.
    HugeRepoFile(&'static str),
    /// One offline debate run to completion, so the state database exists.
    PriorDebate,
}

/// What must still hold after the rejection, besides `rejects`' own checks.
#[derive(Clone, Copy)]
enum After {
    Nothing,
    /// No state database was created.
    NoDatabase,
}

/// The defaults each row starts from; every row sets its own `name`, `args` and `code`.
const BASE: Case = Case {
    name: "",
    setup: Setup::Nothing,
    env: &[],
    args: &[],
    stdin: None,
    code: 0,
    mentions: &[],
    mentions_any: &[],
    names_line: None,
    after: After::Nothing,
};

const CASES: &[Case] = &[
    // ── The question ────────────────────────────────────────────────────────────
    Case { name: "no_question", args: &["--offline"], code: INPUT, mentions_any: &["question"], ..BASE },
    Case { name: "empty_question", args: &["--offline", ""], code: INPUT, mentions_any: &["empty"], ..BASE },
    Case {
        name: "whitespace_question",
        args: &["--offline", "  \t \n  "],
        code: INPUT,
        mentions_any: &["empty", "blank", "whitespace"],
        ..BASE
    },
    Case {
        name: "question_file_that_does_not_exist",
        args: &["--offline", "--file", "missing-question.txt"],
        code: INPUT,
        mentions: &["missing-question.txt"],
        ..BASE
    },
    Case {
        name: "question_file_that_is_a_directory",
        setup: Setup::RepoFile("questions-dir/keep.txt", b"x"),
        args: &["--offline", "--file", "questions-dir"],
        code: INPUT,
        mentions: &["questions-dir"],
        ..BASE
    },
    Case {
        name: "binary_question_file",
        setup: Setup::RepoFile("question.bin", b"Redis or Postgres\0\x01\x02\0for caching?\n"),
        args: &["--offline", "--file", "question.bin"],
        code: INPUT,
        mentions: &["question.bin"],
        mentions_any: &["binary", "NUL"],
        ..BASE
    },
    Case {
        name: "huge_question_file",
        setup: Setup::HugeRepoFile("huge-question.txt"),
        args: &["--offline", "--file", "huge-question.txt"],
        code: INPUT,
        mentions: &["huge-question.txt"],
        mentions_any: &["large", "long", "big", "size", "KiB", "MiB", "bytes"],
        ..BASE
    },
    Case {
        name: "non_utf8_question_file",
        setup: Setup::RepoFile("latin1-question.txt", LATIN1_QUESTION),
        args: &["--offline", "--file", "latin1-question.txt"],
        code: INPUT,
        mentions: &["latin1-question.txt", "UTF-8"],
        ..BASE
    },
    Case {
        name: "non_utf8_question_on_stdin",
        args: &["--offline", "-"],
        stdin: Some(LATIN1_QUESTION),
        code: INPUT,
        mentions: &["stdin", "UTF-8"],
        ..BASE
    },
    Case {
        name: "non_utf8_question_on_stdin_via_file_dash",
        args: &["--offline", "--file", "-"],
        stdin: Some(LATIN1_QUESTION),
        code: INPUT,
        mentions: &["stdin", "UTF-8"],
        ..BASE
    },
    Case {
        name: "empty_question_on_stdin",
        args: &["--offline", "-"],
        stdin: Some(b"   \n\n"),
        code: INPUT,
        mentions: &["stdin"],
        mentions_any: &["empty"],
        ..BASE
    },
    Case { name: "non_utf8_question_argument", args: &["--offline", LATIN1_ARG], code: INPUT, mentions: &["UTF-8"], ..BASE },
    // ── Flags ───────────────────────────────────────────────────────────────────
    Case {
        name: "max_rounds_zero",
        args: &["--offline", "--max-rounds", "0", QUESTION],
        code: INPUT,
        mentions: &["--max-rounds", "0"],
        ..BASE
    },
    Case {
        name: "max_rounds_twenty_one",
        args: &["--offline", "-r", "21", QUESTION],
        code: INPUT,
        mentions: &["--max-rounds", "21"],
        ..BASE
    },
    Case {
        name: "one_perspective",
        args: &["--offline", "--perspectives", "1", QUESTION],
        code: INPUT,
        mentions: &["--perspectives", "1"],
        ..BASE
    },
    Case {
        name: "five_perspectives",
        args: &["--offline", "-p", "5", QUESTION],
        code: INPUT,
        mentions: &["--perspectives", "5"],
        ..BASE
    },
    Case {
        name: "unknown_with_name_lists_known_names",
        args: &["--offline", "--with", "Performance Advocate", "--with", "Wizard of Scale", QUESTION],
        code: INPUT,
        mentions: &["--with", "Wizard of Scale", "Operational Simplicity", "Security Advocate"],
        ..BASE
    },
    Case { name: "list_limit_zero", args: &["--list", "--limit", "0"], code: INPUT, mentions: &["--limit"], ..BASE },
    Case {
        name: "unknown_flag",
        args: &["--offline", "--max-round", "3", QUESTION],
        code: INPUT,
        mentions: &["--max-round"],
        ..BASE
    },
    Case {
        name: "question_with_resume",
        args: &["--resume", "DEB-k3x9q2", QUESTION],
        code: INPUT,
        mentions: &["--resume"],
        ..BASE
    },
    // ── Ids ─────────────────────────────────────────────────────────────────────
    Case {
        name: "resume_unknown_id",
        setup: Setup::PriorDebate,
        args: &["--offline", "--resume", UNKNOWN_ID],
        code: INPUT,
        mentions: &[UNKNOWN_ID],
        ..BASE
    },
    Case {
        name: "show_unknown_id",
        setup: Setup::PriorDebate,
        args: &["--show", UNKNOWN_ID],
        code: INPUT,
        mentions: &[UNKNOWN_ID],
        ..BASE
    },
    Case {
        name: "resume_without_any_database_creates_none",
        args: &["--offline", "--resume", "DEB-k3x9q2"],
        code: INPUT,
        mentions: &["DEB-k3x9q2"],
        after: After::NoDatabase,
        ..BASE
    },
    Case {
        name: "show_without_any_database_creates_none",
        args: &["--show", "DEB-k3x9q2"],
        code: INPUT,
        mentions: &["DEB-k3x9q2"],
        after: After::NoDatabase,
        ..BASE
    },
    // ── Settings and catalog ────────────────────────────────────────────────────
    Case {
        name: "malformed_yaml_in_config_file_names_file_and_line",
        setup: Setup::HomeFile(
            "broken-settings.yaml",
            b"debate:\n  max_rounds: 3\n  checkpoints: false: true\nrecord:\n  commit: false\n",
        ),
        args: &["--offline", "--config", "{home}/broken-settings.yaml", QUESTION],
        code: CONFIG,
        mentions: &["broken-settings.yaml"],
        names_line: Some(("broken-settings.yaml", 3)),
        ..BASE
    },
    Case {
        name: "unknown_key_in_repository_settings_names_file_line_and_key",
        setup: Setup::RepoFile(".debate/settings.yaml", b"debate:\n  max_rounds: 3\n  max_round: 4\n"),
        args: &["--offline", QUESTION],
        code: CONFIG,
        mentions: &["settings.yaml", "max_round"],
        names_line: Some(("settings.yaml", 3)),
        ..BASE
    },
    Case {
        name: "wrong_type_in_repository_settings_names_file_line_and_key",
        setup: Setup::RepoFile(".debate/settings.yaml", b"debate:\n  max_rounds: many\n"),
        args: &["--offline", QUESTION],
        code: CONFIG,
        mentions: &["settings.yaml", "max_rounds"],
        names_line: Some(("settings.yaml", 2)),
        ..BASE
    },
    Case {
        name: "config_file_that_does_not_exist",
        args: &["--offline", "--config", "no-such-settings.yaml", QUESTION],
        code: CONFIG,
        mentions: &["no-such-settings.yaml"],
        ..BASE
    },
    Case {
        name: "catalog_entry_with_empty_priorities_names_file_entry_and_field",
        setup: Setup::RepoFile(
            ".debate/perspectives.yaml",
            b"perspectives:\n  - name: Hollow Advocate\n    priorities: []\n    trade_offs: Will accept anything\n    opposes: [Performance Advocate]\n",
        ),
        args: &["--offline", QUESTION],
        code: CONFIG,
        mentions: &["perspectives.yaml", "Hollow Advocate", "priorities"],
        ..BASE
    },
    Case {
        name: "catalog_entry_opposing_an_unknown_perspective",
        setup: Setup::RepoFile(
            ".debate/perspectives.yaml",
            b"perspectives:\n  - name: Lonely Advocate\n    priorities: [solitude]\n    trade_offs: Will accept isolation\n    opposes: [Imaginary Friend]\n",
        ),
        args: &["--offline", QUESTION],
        code: CONFIG,
        mentions: &["perspectives.yaml", "Lonely Advocate", "opposes", "Imaginary Friend"],
        ..BASE
    },
    Case {
        name: "record_directory_inside_git",
        setup: Setup::RepoFile(".debate/settings.yaml", b"record:\n  directory: .git/decisions\n"),
        args: &["--offline", QUESTION],
        code: CONFIG,
        mentions: &["settings.yaml", "record.directory", ".git"],
        ..BASE
    },
    Case {
        name: "record_directory_in_a_nested_git_directory",
        setup: Setup::RepoFile(".debate/settings.yaml", b"record:\n  directory: docs/.git\n"),
        args: &["--offline", QUESTION],
        code: CONFIG,
        mentions: &["settings.yaml", "record.directory", "docs/.git"],
        ..BASE
    },
    Case {
        name: "invalid_environment_value_names_the_variable",
        env: &[("DEBATE_MAX_ROUNDS", Some("abc"))],
        args: &["--offline", QUESTION],
        code: CONFIG,
        mentions: &["DEBATE_MAX_ROUNDS"],
        ..BASE
    },
    Case {
        name: "no_provider_configured_mentions_offline",
        env: &[("OPENAI_API_KEY", None), ("ANTHROPIC_API_KEY", None), ("OPENROUTER_API_KEY", None)],
        args: &[QUESTION],
        code: CONFIG,
        mentions: &["--offline"],
        ..BASE
    },
];

/// Every case, each in a fresh sandbox; a failing case does not stop the others, and
/// the test fails once at the end, naming every case that failed and why.
#[test]
fn bad_input_is_rejected() {
    let names: BTreeSet<&str> = CASES.iter().map(|case| case.name).collect();
    assert_eq!(names.len(), CASES.len(), "every case has its own name");
    let failures: Vec<String> = CASES
        .iter()
        .filter_map(|case| {
            let outcome = panic::catch_unwind(AssertUnwindSafe(|| run(case)));
            outcome.err().map(|payload| format!("{}: {}", case.name, panic_message(payload.as_ref())))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} bad-input cases failed:\n\n{}",
        failures.len(),
        CASES.len(),
        failures.join("\n\n")
    );
}

/// Run one case: set it up, run the command, check the rejection and what follows it.
fn run(case: &Case) {
    assert_ne!(case.code, 0, "the case names the exit code it expects");
    let sandbox = Sandbox::new();
    let unknown_id = prepare(&sandbox, case.setup);
    let fill = |text: &str| fill_in(text, &sandbox, unknown_id.as_deref());
    let mut cmd = sandbox.cmd();
    for &(key, value) in case.env {
        match value {
            Some(value) => cmd.env(key, value),
            None => cmd.env_remove(key),
        };
    }
    cmd.args(case.args.iter().map(|arg| match *arg {
        LATIN1_ARG => OsStr::from_bytes(LATIN1_QUESTION.trim_ascii_end()).to_owned(),
        arg => OsString::from(fill(arg)),
    }));
    if let Some(input) = case.stdin {
        cmd.write_stdin(input);
    }
    let mentions: Vec<String> = case.mentions.iter().map(|m| fill(m)).collect();
    let mentions: Vec<&str> = mentions.iter().map(String::as_str).collect();
    let stderr = rejects(&sandbox, cmd, case.code, &mentions);
    if !case.mentions_any.is_empty() {
        assert_mentions_any(&stderr, case.mentions_any);
    }
    if let Some((file, line)) = case.names_line {
        assert_names_line(&stderr, file, line);
    }
    match case.after {
        After::Nothing => {}
        After::NoDatabase => assert!(!sandbox.db().exists(), "no state database is created by a rejected command"),
    }
}

/// Do a case's setup; after a prior debate, returns a well-formed id that is not its id.
fn prepare(sandbox: &Sandbox, setup: Setup) -> Option<String> {
    match setup {
        Setup::Nothing => {}
        Setup::RepoFile(path, bytes) => write(&sandbox.repo.join(path), bytes),
        Setup::HomeFile(path, bytes) => write(&sandbox.home.join(path), bytes),
        Setup::HugeRepoFile(path) => {
            let line = "Should we use Redis or Postgres for caching? ";
            let text = line.repeat((1 << 20) / line.len() + 1);
            assert!(text.len() >= 1 << 20);
            write(&sandbox.repo.join(path), text);
        }
        Setup::PriorDebate => return Some(unknown_id_besides(&offline_debate(sandbox, QUESTION))),
    }
    None
}

/// `text` with `HOME_DIR` and `UNKNOWN_ID` replaced by this sandbox's values.
fn fill_in(text: &str, sandbox: &Sandbox, unknown_id: Option<&str>) -> String {
    let mut text = text.replace(HOME_DIR, sandbox.home.to_str().expect("the home path is UTF-8"));
    if text.contains(UNKNOWN_ID) {
        text = text.replace(UNKNOWN_ID, unknown_id.expect("a case that uses {unknown-id} sets up a prior debate"));
    }
    text
}

/// The message a panic carries (`assert!`, `panic!` and `expect` give a string).
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    match (payload.downcast_ref::<String>(), payload.downcast_ref::<&str>()) {
        (Some(message), _) => message.clone(),
        (None, Some(message)) => (*message).to_string(),
        (None, None) => "a panic without a message".to_string(),
    }
}

// ── The checks ──────────────────────────────────────────────────────────────────

/// Run `cmd` and check that it is rejected as the README's "Exit codes" says: exit `code`,
/// a short error on stderr that contains every string in `mentions`, nothing on stdout, and
/// no file in the sandbox added, removed or changed. Returns stderr for further checks.
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

/// Write a file, creating its directories.
fn write(path: &Path, bytes: impl AsRef<[u8]>) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, bytes).unwrap();
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

// ── A closed stdout ─────────────────────────────────────────────────────────────

/// `debate list | head -1`: the reader goes away before the output is written. The
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
