//! Repositories in states a plain `git init` never shows: a symlinked record directory,
//! signed commits, hooks, another user's repository, a file where the directory should
//! be, a repository that moved while a debate was paused. Each is handled before a
//! model is asked anything, or repaired on resume; nothing lands outside the work tree.

use std::path::Path;
use std::process::{Command, Output};

use crate::common::*;

/// A repository with an identity and one commit.
fn repository() -> Sandbox {
    let sandbox = Sandbox::new();
    git(&sandbox.repo, &["config", "user.name", "Test"]);
    git(&sandbox.repo, &["config", "user.email", "test@example.com"]);
    std::fs::write(sandbox.repo.join("README.md"), "# project\n").unwrap();
    git(&sandbox.repo, &["add", "README.md"]);
    git(&sandbox.repo, &["commit", "-q", "-m", "initial"]);
    sandbox
}

fn commits(dir: &Path) -> usize {
    git(dir, &["rev-list", "--count", "HEAD"]).trim().parse().unwrap()
}

/// Refused with `code` before anything was written or committed, saying `says`.
#[track_caller]
fn refused_up_front(sandbox: &Sandbox, out: &Output, code: i32, says: &[&str]) {
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{stderr}");
    for needle in says {
        assert!(stderr.contains(needle), "stderr should say {needle:?}: {stderr}");
    }
    assert!(!sandbox.db().exists(), "no debate was stored, so no model was asked anything");
}

#[test]
fn a_symlinked_record_directory_is_refused_and_nothing_lands_outside() {
    let sandbox = repository();
    let outside = sandbox.repo.parent().unwrap().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::create_dir_all(sandbox.repo.join("docs")).unwrap();
    std::os::unix::fs::symlink(&outside, sandbox.repo.join("docs/decisions")).unwrap();
    git(&sandbox.repo, &["add", "docs/decisions"]);
    git(&sandbox.repo, &["commit", "-q", "-m", "a tracked symlink"]);
    let out = sandbox.cmd().args(["--offline", QUESTION]).output().unwrap();
    refused_up_front(&sandbox, &out, 5, &["docs/decisions is a symbolic link", "outside"]);
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0, "nothing was written outside the work tree");
    assert_eq!(commits(&sandbox.repo), 2);
    assert_eq!(git(&sandbox.repo, &["ls-files", "-s", "docs/decisions"]).split_whitespace().next(), Some("120000"));
}

#[test]
fn a_symlink_inside_the_repository_is_refused_too() {
    let sandbox = repository();
    std::fs::create_dir_all(sandbox.repo.join("docs/adr")).unwrap();
    std::os::unix::fs::symlink("adr", sandbox.repo.join("docs/decisions")).unwrap();
    let out = sandbox.cmd().args(["--offline", QUESTION]).output().unwrap();
    refused_up_front(&sandbox, &out, 5, &["is a symbolic link"]);
}

#[test]
fn a_file_where_the_record_directory_should_be_is_refused_up_front() {
    let sandbox = repository();
    std::fs::create_dir_all(sandbox.repo.join("docs")).unwrap();
    std::fs::write(sandbox.repo.join("docs/decisions"), "a file\n").unwrap();
    let out = sandbox.cmd().args(["--offline", QUESTION]).output().unwrap();
    refused_up_front(&sandbox, &out, 5, &["docs/decisions is a file"]);
}

#[test]
fn a_repository_of_another_user_is_refused_up_front() {
    let sandbox = repository();
    let chown = Command::new("chown").args(["-R", "65534:65534"]).arg(&sandbox.repo).status().unwrap();
    assert!(chown.success(), "the tests run as root, as CI does");
    let out = sandbox.cmd().args(["--offline", QUESTION]).output().unwrap();
    refused_up_front(&sandbox, &out, 5, &["belongs to another user", "safe.directory"]);
    assert!(!sandbox.repo.join("docs").exists());
}

/// A git config for ssh signing with a new key; the allowed-signers file git verifies with.
fn ssh_signing(sandbox: &Sandbox) -> std::path::PathBuf {
    let key = sandbox.home.join("signing_key");
    let made =
        Command::new("ssh-keygen").args(["-q", "-t", "ed25519", "-N", "", "-C", "test", "-f"]).arg(&key).status();
    assert!(made.unwrap().success(), "ssh-keygen makes a key (.ci/run installs openssh-client)");
    git(&sandbox.repo, &["config", "gpg.format", "ssh"]);
    git(&sandbox.repo, &["config", "user.signingkey", &key.display().to_string()]);
    git(&sandbox.repo, &["config", "commit.gpgsign", "true"]);
    let public = std::fs::read_to_string(key.with_extension("pub")).unwrap();
    let allowed = sandbox.home.join("allowed_signers");
    std::fs::write(&allowed, format!("test@example.com {public}")).unwrap();
    allowed
}

#[test]
fn with_commit_gpgsign_the_record_is_signed_as_git_would_sign_it() {
    let sandbox = repository();
    let allowed = ssh_signing(&sandbox);
    let out = sandbox.cmd().args(["--offline", QUESTION]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let verified = Command::new("git")
        .args(["-c", &format!("gpg.ssh.allowedSignersFile={}", allowed.display()), "verify-commit", "HEAD"])
        .current_dir(&sandbox.repo)
        .output()
        .unwrap();
    assert!(verified.status.success(), "git verifies the signature: {}", text(&verified.stderr));
    assert!(text(&verified.stderr).contains("Good \"git\" signature"), "{}", text(&verified.stderr));
    assert_eq!(git(&sandbox.repo, &["status", "--porcelain"]), "");
}

#[test]
fn with_commit_gpgsign_and_no_way_to_sign_nothing_unsigned_is_committed() {
    let sandbox = repository();
    git(&sandbox.repo, &["config", "commit.gpgsign", "true"]);
    git(&sandbox.repo, &["config", "gpg.program", "/nonexistent/gpg"]);
    let out = sandbox.cmd().args(["--offline", QUESTION]).output().unwrap();
    refused_up_front(&sandbox, &out, 5, &["commit.gpgsign is on", "/nonexistent/gpg"]);
    assert_eq!(commits(&sandbox.repo), 1);

    // A signer that fails when asked (here `false`, as a locked agent would): the record
    // is written, not committed.
    let sandbox = repository();
    ssh_signing(&sandbox);
    git(&sandbox.repo, &["config", "gpg.ssh.program", "false"]);
    let out = sandbox.cmd().args(["--offline", QUESTION]).output().unwrap();
    assert_eq!(out.status.code(), Some(5), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("false could not sign the commit"), "{}", text(&out.stderr));
    assert_eq!(commits(&sandbox.repo), 1, "no unsigned commit");
}

#[test]
fn hooks_are_not_run_and_the_output_says_so() {
    let sandbox = repository();
    let hook = sandbox.repo.join(".git/hooks/pre-commit");
    std::fs::write(&hook, "#!/bin/sh\ntouch hook-ran\n").unwrap();
    Command::new("chmod").arg("+x").arg(&hook).status().unwrap();
    let out = sandbox.cmd().args(["--offline", QUESTION]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("warning: the pre-commit hook did not run"), "{}", text(&out.stderr));
    assert!(!sandbox.repo.join("hook-ran").exists());
}

/// A scripted debate that pauses at its synthesis (the provider fails there).
fn paused_debate(sandbox: &Sandbox) -> (String, std::path::PathBuf) {
    let answers = varied_answers(&PANEL, 1, AGREE);
    let config =
        sandbox.scripted(&replace_answers(&answers, "{purpose: synthesis", "{purpose: synthesis, error: down}"));
    sandbox.cmd().arg("--config").arg(&config).arg(QUESTION).assert().code(3);
    sandbox.scripted(&answers);
    (sandbox.only_id(), config)
}

#[test]
fn a_debate_follows_its_repository_when_it_moves() {
    let sandbox = repository();
    let (id, config) = paused_debate(&sandbox);
    let moved = sandbox.repo.parent().unwrap().join("moved-project");
    std::fs::rename(&sandbox.repo, &moved).unwrap();

    // From an unrelated repository: refused, saying where to run it.
    let elsewhere = sandbox.repo.parent().unwrap().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    git(&elsewhere, &["init", "-q"]);
    let out =
        sandbox.cmd().current_dir(&elsewhere).arg("--config").arg(&config).args(["--resume", &id]).output().unwrap();
    assert_eq!(out.status.code(), Some(5), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("is no longer at") && text(&out.stderr).contains("inside the repository"));

    // From the repository where it is now: the debate follows it.
    let out = sandbox.cmd().current_dir(&moved).arg("--config").arg(&config).args(["--resume", &id]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("The repository moved"), "{}", text(&out.stderr));
    assert!(!sandbox.repo.exists(), "the old path was not made again");
    assert_eq!(std::fs::read_dir(moved.join("docs/decisions")).unwrap().count(), 2, "the record and the index");
    assert_eq!(commits(&moved), 2);
}

#[test]
fn with_an_openpgp_key_the_record_is_signed_with_gpg() {
    let sandbox = repository();
    let gnupg = sandbox.home.join("gnupg");
    std::fs::create_dir_all(&gnupg).unwrap();
    Command::new("chmod").arg("700").arg(&gnupg).status().unwrap();
    let gpg = |args: &[&str]| Command::new("gpg").args(args).env("GNUPGHOME", &gnupg).output().unwrap();
    let made =
        gpg(&["--batch", "--passphrase", "", "--quick-gen-key", "Test <test@example.com>", "ed25519", "sign", "never"]);
    assert!(made.status.success(), "gpg makes a key (.ci/run installs gnupg): {}", text(&made.stderr));
    git(&sandbox.repo, &["config", "commit.gpgsign", "true"]);
    let out = sandbox.cmd().env("GNUPGHOME", &gnupg).args(["--offline", QUESTION]).output().unwrap();
    let verified = Command::new("git")
        .args(["verify-commit", "HEAD"])
        .env("GNUPGHOME", &gnupg)
        .current_dir(&sandbox.repo)
        .output();
    Command::new("gpgconf").args(["--kill", "gpg-agent"]).env("GNUPGHOME", &gnupg).status().ok();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let verified = verified.unwrap();
    assert!(verified.status.success(), "{}", text(&verified.stderr));
    assert!(
        text(&verified.stderr).contains("Good signature from \"Test <test@example.com>\""),
        "{}",
        text(&verified.stderr)
    );
}
