//! A record says only what its signer signed (issue 49, "Authentic"): the seal's act,
//! signer and time and the order of the record's parts are signed; a record's form —
//! CR line endings, a seal, a carried debate or an id taken off — never turns a check
//! into a skip in the pull-request gate; a record whose carried debate repeats what a
//! debate holds once is refused at read-back; a file that is no record is a usage error;
//! a record sealed by the previous format still verifies, saying so; and `verify` says
//! which allowed-signers file named the signers, and what to do about a signer nobody
//! names.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::keys;
use crate::common::*;

/// An offline debate committed in `sandbox`: its record's path in the repository.
fn debated(sandbox: &Sandbox, question: &str) -> String {
    let out = sandbox.cmd().args(["--offline", "--no-checkpoints", "-q", "-r", "1", question]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let path = PathBuf::from(text(&out.stdout).trim());
    path.strip_prefix(&sandbox.repo).unwrap_or(&path).to_string_lossy().into_owned()
}

/// `debate verify <args>` in the repository: exit code, stdout, stderr.
fn verify(sandbox: &Sandbox, args: &[&str]) -> (i32, String, String) {
    let out = sandbox.cmd().arg("verify").args(args).output().unwrap();
    (out.status.code().unwrap(), text(&out.stdout), text(&out.stderr))
}

/// `text` with its seal's JSON changed by `change`.
fn with_seal(text: &str, change: impl Fn(&mut Value)) -> String {
    let line = text.lines().last().unwrap();
    let json = line.strip_prefix("<!-- debate:seal ").and_then(|l| l.strip_suffix(" -->")).expect("a seal");
    let mut seal: Value = serde_json::from_str(json).unwrap();
    change(&mut seal);
    text.replace(line, &format!("<!-- debate:seal {seal} -->"))
}

/// Where the section `## name` starts in `text`, and where the next one does.
fn section(text: &str, name: &str) -> (usize, usize) {
    let start = text.find(&format!("\n## {name}\n")).expect("the section") + 1;
    let end = text[start + 3..].find("\n## ").map_or(text.len(), |at| start + 3 + at + 1);
    (start, end)
}

/// `text` with the section `## first` and the one after it swapped, each whole.
fn swapped(text: &str, first: &str) -> String {
    let (a, b) = section(text, first);
    let c = text[b + 3..].find("\n## ").map(|at| b + 3 + at + 1).expect("a section after the next");
    format!("{}{}{}{}", &text[..a], &text[b..c], &text[a..b], &text[c..])
}

fn commit_all(repo: &Path, message: &str) {
    git(repo, &["commit", "-q", "-a", "--no-gpg-sign", "-m", message]);
}

#[test]
fn the_seals_act_and_the_order_of_the_sections_are_signed() {
    let sandbox = Sandbox::new();
    keys::alices(&sandbox);
    let relative = debated(&sandbox, QUESTION);
    let path = sandbox.repo.join(&relative);
    let record = std::fs::read_to_string(&path).unwrap();
    assert_eq!(verify(&sandbox, &[&relative]).0, 0);

    // "signed by alice when it was accepted", for a record she only recorded.
    std::fs::write(&path, with_seal(&record, |seal| seal["act"] = "accepted".into())).unwrap();
    let (code, stdout, _) = verify(&sandbox, &[&relative]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("FAILED") && stdout.contains("was edited"), "{stdout}");
    assert!(!stdout.contains("when it was accepted"), "{stdout}");

    // The same sections, two of them swapped.
    let reordered = swapped(&record, "Question");
    assert_ne!(reordered, record);
    std::fs::write(&path, &reordered).unwrap();
    let (code, stdout, _) = verify(&sandbox, &[&relative]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("its parts are not in the order it was sealed in"), "{stdout}");
}

#[test]
fn a_record_sealed_in_format_1_still_verifies_and_says_so() {
    use debate::record::seal::{block, make, parts};
    let sandbox = Sandbox::new();
    let (key, _) = keys::alices(&sandbox);
    let relative = debated(&sandbox, QUESTION);
    let path = sandbox.repo.join(&relative);
    let record = std::fs::read_to_string(&path).unwrap();
    // Sealed as debate sealed records before format 2, with Alice's key.
    let body = block::body(&record);
    let signer = debate::attest::Signer::from_file(&key, None).unwrap();
    let parts = parts::parts_in(parts::FORMAT_1, body, None);
    let note = make::note(Ok(&signer.public()), "recorded");
    let earlier = serde_json::json!([]);
    let covered = parts::Covered {
        format: parts::FORMAT_1,
        note: &note,
        earlier: &earlier,
        act: "recorded",
        signer: None,
        signed_at: None,
    };
    let digest = parts::digest(&parts, &covered);
    let sshsig = debate::attest::sshsig::sign(&signer, digest.as_bytes()).unwrap();
    let seal = block::Seal {
        format: parts::FORMAT_1.into(),
        digest,
        parts,
        act: "recorded".into(),
        signature: Some(block::Signature { signed_at: "2026-11-30T10:00:00Z".into(), sshsig }),
        unsigned: None,
        earlier: Vec::new(),
    };
    std::fs::write(&path, block::close(body, &note, &seal)).unwrap();
    commit_all(&sandbox.repo, "as debate sealed it before format 2");
    let (code, stdout, stderr) = verify(&sandbox, &[&relative, "--require-signature"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("signed by alice@example.org when it was recorded; sealed in format 1"), "{stdout}");
    // Accepted now: sealed again in the current format, Alice's first signature kept.
    let out = sandbox.cmd().args(["accept", &relative]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let (code, stdout, _) = verify(&sandbox, &[&relative]);
    assert_eq!(code, 0, "{stdout}");
    assert!(!stdout.contains("format 1") && stdout.contains("earlier: signed by alice@example.org"), "{stdout}");
}

/// The pull request's gate: `verify --all --require-signature --since HEAD~1` after a
/// commit that edits a signed record and hides the edit in its form.
#[test]
fn a_records_form_never_turns_the_gate_into_a_skip() {
    let sandbox = Sandbox::new();
    keys::alices(&sandbox);
    let relative = debated(&sandbox, QUESTION);
    let path = sandbox.repo.join(&relative);
    let record = std::fs::read_to_string(&path).unwrap();
    let gate = |sandbox: &Sandbox| verify(sandbox, &["--all", "--require-signature", "--since", "HEAD~1"]);

    // Its decision edited, saved with CR line endings (GitHub still renders it).
    let (start, _) = section(&record, "Decision Outcome");
    let edited = format!("{}{}", &record[..start], record[start..].replacen("\n\n", "\n\nWe chose otherwise. ", 1));
    std::fs::write(&path, edited.replace('\n', "\r")).unwrap();
    commit_all(&sandbox.repo, "a small fix");
    let (code, stdout, _) = gate(&sandbox);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("edited since it was sealed, in: Decision Outcome"), "{stdout}");
    assert!(!stdout.contains("skip"), "{stdout}");

    // Its seal, the debate it carries and its id taken off: it was debate's at the base.
    git(&sandbox.repo, &["reset", "-q", "--hard", "HEAD~1"]);
    let stripped: String = debate::record::seal::unsealed(&record)
        .lines()
        .filter(|line| !line.starts_with("<!-- debate:state ") && !line.starts_with("id: "))
        .map(|line| format!("{line}\n"))
        .collect();
    std::fs::write(&path, stripped.replacen("We chose", "We chose otherwise", 1)).unwrap();
    commit_all(&sandbox.repo, "a cleaner record");
    let (code, stdout, _) = gate(&sandbox);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains(&format!("FAILED {relative}: does not verify: it was a record debate wrote at HEAD~1 (sealed), and its seal was taken off")),
        "{stdout}"
    );

    // A decision record written by hand, never debate's: unsigned, and the gate decides.
    git(&sandbox.repo, &["reset", "-q", "--hard", "HEAD~1"]);
    write(
        &sandbox.repo,
        "docs/decisions/0002-use-sqlite.md",
        "# 2. Use SQLite\n\n## Status\n\nAccepted\n\n## Decision\n\nSQLite.\n",
    );
    git(&sandbox.repo, &["add", "-A"]);
    commit_all(&sandbox.repo, "a record by hand");
    let (code, stdout, _) = verify(&sandbox, &["--all", "--since", "HEAD~1"]);
    assert_eq!(code, 0, "{stdout}");
    assert!(
        stdout.contains("--     docs/decisions/0002-use-sqlite.md: unsigned: a decision record debate did not write"),
        "{stdout}"
    );
    let (code, _, stderr) = gate(&sandbox);
    assert_eq!(code, 3, "{stderr}");
}

#[test]
fn a_file_that_is_no_decision_record_is_a_usage_error() {
    let sandbox = Sandbox::new();
    keys::alices(&sandbox);
    debated(&sandbox, QUESTION);
    write(&sandbox.repo, "README.md", "# Shop\n\nThe shop's code.\n");
    for file in ["README.md", "docs/decisions/README.md"] {
        let (code, stdout, stderr) = verify(&sandbox, &[file]);
        assert_eq!(code, 2, "{file}: {stdout}{stderr}");
        assert!(stderr.contains("not a decision record") && stdout.is_empty(), "{file}: {stderr}");
    }
}

/// A forged record whose carried debate repeats its scorecard a hundred times (every
/// text and section as rendered) is refused by a clone that reads it back.
#[test]
fn a_carried_debate_that_repeats_a_scorecard_is_refused_at_read_back() {
    let sandbox = Sandbox::new();
    git(&sandbox.repo, &["config", "user.name", "Ada Author"]);
    git(&sandbox.repo, &["config", "user.email", "ada@example.com"]);
    git(&sandbox.repo, &["commit", "-q", "--allow-empty", "-m", "start"]);
    let relative = debated(&sandbox, QUESTION);
    let id = sandbox.only_id();
    sandbox.cmd().args(["eval", &id, "--write", "-q"]).assert().success();
    let path = sandbox.repo.join(&relative);
    let record = std::fs::read_to_string(&path).unwrap();
    let at = record.find("\"scorecards\":[").expect("the scores travel") + "\"scorecards\":[".len();
    let length = json_value_length(&record[at..]);
    let card = &record[at..at + length];
    assert!(card.starts_with("{\"number\":1,") && card.ends_with('}'), "{card}");
    let forged = format!("{}{}{}", &record[..at], vec![card; 100].join(","), &record[at + length..]);
    std::fs::write(&path, forged).unwrap();
    commit_all(&sandbox.repo, "forged");

    let clone = sandbox.home.join("clone");
    git(&sandbox.home, &["clone", "-q", sandbox.repo.to_str().unwrap(), clone.to_str().unwrap()]);
    let home = sandbox.home.join("reader");
    let out = sandbox.std_cmd_as(&clone, &home).args(["show", &id, "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("it holds an evaluation twice"), "{}", text(&out.stderr));
    let listed = sandbox.std_cmd_as(&clone, &home).args(["list", "--all", "--json"]).output().unwrap();
    assert_eq!(text(&listed.stdout).trim(), "[]", "nothing imported");
}

#[test]
fn verify_names_the_allowed_signers_file_and_what_to_do_about_a_signer_nobody_names() {
    let sandbox = Sandbox::new();
    let (_, allowed) = keys::alices(&sandbox);
    let mallory = keys::ssh_key(&sandbox.home.join("keys"), "mallory", "");
    keys::sign_with(&sandbox.repo, &mallory, "Mallory", "mallory@example.org");
    let relative = debated(&sandbox, QUESTION);
    let (code, stdout, stderr) = verify(&sandbox, &[&relative]);
    assert_eq!(code, 1, "{stdout}");
    let named = format!("{} (git's gpg.ssh.allowedSignersFile)", allowed.display());
    assert!(stderr.contains(&format!("Signers are named by {named}.")), "{stderr}");
    // Nothing changed: the hint is about the key, not a diff.
    assert!(!stderr.contains("git log -p"), "{stderr}");
    assert!(stderr.contains(&format!("if you trust the key, name its owner in {named}")), "{stderr}");

    let (_, document, _) = verify(&sandbox, &[&relative, "--json", "--allowed-signers", allowed.to_str().unwrap()]);
    let document: Value = serde_json::from_str(&document).unwrap();
    assert_eq!(document["allowed_signers"], format!("{} (--allowed-signers)", allowed.display()));
}
