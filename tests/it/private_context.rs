//! Context is code and documents: a file that may hold secrets by its name (`.env*`,
//! keys, credential files) and anything under `.git/` is refused at every door that
//! takes a context file — `--context`, a suite's `context:` — by its name and by the
//! name of the file a link leads to, before anything is stored or sent; and a FIFO in a
//! file's place is refused at once instead of waited on.

use std::time::Duration;

use crate::common::*;

const QUESTION: &str = "Should we cache sessions in Redis or in Postgres?";
const SECRET: &str = "STRIPE_WEBHOOK_SIGNING=whsec-plain-words-0x9a1";
const CHECKOUT_HEADER: &str = "AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Z2hzX2NoZWNrb3V0";

/// `--context PATH` in the sandbox's repository, offline, with a deadline so a hang fails.
fn with_context(sandbox: &Sandbox, path: &str) -> std::process::Output {
    sandbox
        .cmd()
        .args(["--offline", "--no-checkpoints", "-r", "1", "--context", path, QUESTION])
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap()
}

fn assert_refused_and_nothing_kept(sandbox: &Sandbox, path: &str, out: &std::process::Output, because: &str) {
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{path}: {stderr}");
    assert!(stderr.contains("context file") && stderr.contains(because), "{path}: {stderr}");
    assert!(!stderr.contains("panicked") && !stderr.contains("backtrace"), "{stderr}");
    // Everything debate could have written: the planted files themselves aside.
    let planted = |file: &std::path::Path| {
        file.to_string_lossy().contains("/.env")
            || file.starts_with(sandbox.repo.join(".git"))
            || file.symlink_metadata().is_ok_and(|m| m.file_type().is_symlink())
    };
    for (file, bytes) in sandbox.files().into_iter().filter(|(file, _)| !planted(file)) {
        let bytes = String::from_utf8_lossy(&bytes);
        assert!(!bytes.contains("whsec-plain") && !bytes.contains("ghs_checkout"), "{} holds it", file.display());
    }
    assert!(sandbox.try_listed().map(|l| l.is_empty()).unwrap_or(true), "{path}: no debate was stored");
}

#[test]
fn dot_env_files_are_refused_by_name_before_anything_is_stored() {
    let sandbox = Sandbox::new();
    write(&sandbox.repo, ".env", &format!("{SECRET}\n"));
    write(&sandbox.repo, "config/.env.production", &format!("{SECRET}\n"));
    for path in [".env", "config/.env.production", "./config/../.env"] {
        let out = with_context(&sandbox, path);
        assert_refused_and_nothing_kept(&sandbox, path, &out, "may hold secrets");
    }
}

#[test]
fn nothing_under_dot_git_is_context() {
    let sandbox = Sandbox::new();
    // What actions/checkout leaves in the repository's config.
    git(&sandbox.repo, &["config", "http.https://github.com/.extraheader", CHECKOUT_HEADER]);
    for path in [".git/config", ".git/HEAD", "./.git/../.git/config"] {
        let out = with_context(&sandbox, path);
        assert_refused_and_nothing_kept(&sandbox, path, &out, ".git/");
    }
}

#[test]
fn a_link_is_judged_by_the_file_it_leads_to() {
    let sandbox = Sandbox::new();
    write(&sandbox.repo, ".env", &format!("{SECRET}\n"));
    std::os::unix::fs::symlink(".env", sandbox.repo.join("notes.md")).unwrap();
    std::os::unix::fs::symlink(".git/config", sandbox.repo.join("settings.md")).unwrap();
    git(&sandbox.repo, &["config", "http.https://github.com/.extraheader", CHECKOUT_HEADER]);
    let out = with_context(&sandbox, "notes.md");
    assert_refused_and_nothing_kept(&sandbox, "notes.md", &out, "may hold secrets");
    let out = with_context(&sandbox, "settings.md");
    assert_refused_and_nothing_kept(&sandbox, "settings.md", &out, ".git/");
}

#[test]
fn a_document_named_like_one_is_still_read() {
    let sandbox = Sandbox::new();
    write(&sandbox.repo, "docs/environment.md", "We run Postgres 15 in every environment.\n");
    let out = with_context(&sandbox, "docs/environment.md");
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn a_fifo_in_a_context_files_place_is_refused_not_waited_on() {
    let sandbox = Sandbox::new();
    let made = std::process::Command::new("mkfifo").arg(sandbox.repo.join("notes.md")).status().unwrap();
    assert!(made.success());
    let out = with_context(&sandbox, "notes.md");
    // The sandbox's files are read whole below: the FIFO goes first.
    std::fs::remove_file(sandbox.repo.join("notes.md")).unwrap();
    assert_refused_and_nothing_kept(&sandbox, "notes.md", &out, "not a regular file");
}

#[test]
fn a_suites_fifo_context_file_is_refused_not_waited_on() {
    let sandbox = Sandbox::new();
    let suites = sandbox.repo.join("suites");
    std::fs::create_dir_all(&suites).unwrap();
    assert!(std::process::Command::new("mkfifo").arg(suites.join("notes.md")).status().unwrap().success());
    write(&suites, "suite.yaml", "questions:\n  - question: Redis or Postgres?\n    context: [notes.md]\n");
    let out = sandbox
        .cmd()
        .args(["eval", "--suite", "suites/suite.yaml", "--offline", "-r", "1"])
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("notes.md") && stderr.contains("not a regular file"), "{stderr}");
}
