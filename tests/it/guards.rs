//! Decisions that guard the code: a debate chooses Postgres over Redis with guards, the
//! record is accepted, and a branch that adds `ioredis` and `redis` fails `debate check`
//! — named by dependency, manifest, line and record — while main passes; the guards read
//! back in a fresh clone with the signature valid, a hand edit of one fails `verify`,
//! and `list --due` names the record once its review date has passed.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::keys;
use crate::common::*;

const GUARDS: &str =
    r#""guards": ["forbid dependency redis", "require dependency postgres", "not a guard"], "review_by": "2026-01-15""#;

const PACKAGE: &str =
    "{\n  \"name\": \"shop\",\n  \"dependencies\": {\n    \"express\": \"^4\",\n    \"pg\": \"^8\"\n  }\n}\n";
const PACKAGE_WITH_REDIS: &str = "{\n  \"name\": \"shop\",\n  \"dependencies\": {\n    \"express\": \"^4\",\n    \"ioredis\": \"^5\",\n    \"pg\": \"^8\"\n  }\n}\n";
const REQUIREMENTS: &str = "flask==3.0\npsycopg2==2.9\n";
const REQUIREMENTS_WITH_REDIS: &str = "flask==3.0\npsycopg2==2.9\nredis==5.0.1\n";

/// A repository with both manifests on main and a debate that chose Postgres, guarded;
/// its record's path, and with `signed` the allowed-signers file that names its signer.
fn decided_as(signed: bool) -> (Sandbox, String, Option<PathBuf>) {
    let sandbox = Sandbox::new();
    let allowed = match signed {
        true => Some(keys::alices(&sandbox).1),
        false => {
            git(&sandbox.repo, &["config", "user.name", "Jane Doe"]);
            git(&sandbox.repo, &["config", "user.email", "jane@example.com"]);
            None
        }
    };
    write(&sandbox.repo, "package.json", PACKAGE);
    write(&sandbox.repo, "requirements.txt", REQUIREMENTS);
    git(&sandbox.repo, &["add", "."]);
    git(&sandbox.repo, &["commit", "-qm", "shop"]);
    let synthesis = SYNTHESIS.replace(r#""dissents": []"#, &format!(r#""dissents": [], {GUARDS}"#));
    let answers = varied_answers(&PANEL, 1, AGREE).replace(SYNTHESIS, &synthesis);
    let config = sandbox.scripted(&answers);
    sandbox.cmd().arg("--config").arg(&config).arg(QUESTION).assert().success();
    let record = sandbox.records().pop().expect("a record");
    let relative = record.strip_prefix(&sandbox.repo).unwrap().to_string_lossy().into_owned();
    (sandbox, relative, allowed)
}

fn decided() -> (Sandbox, String) {
    let (sandbox, record, _) = decided_as(false);
    (sandbox, record)
}

fn check(sandbox: &Sandbox, dir: &Path, args: &[&str]) -> (i32, Value, String) {
    let out = sandbox.std_cmd_as(dir, &sandbox.home).args(["check", "--json"]).args(args).output().unwrap();
    let json = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", text(&out.stdout)));
    (out.status.code().unwrap(), json, text(&out.stderr))
}

fn found(json: &Value, list: &str) -> Vec<(String, String, u64)> {
    json[list]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            let found = &v["found"];
            (
                found["name"].as_str().unwrap_or_default().into(),
                found["manifest"].as_str().unwrap_or_default().into(),
                found["line"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

fn redis_branch(sandbox: &Sandbox) {
    git(&sandbox.repo, &["checkout", "-qb", "sessions-in-redis"]);
    write(&sandbox.repo, "package.json", PACKAGE_WITH_REDIS);
    write(&sandbox.repo, "requirements.txt", REQUIREMENTS_WITH_REDIS);
    git(&sandbox.repo, &["commit", "-qam", "cache sessions in redis"]);
}

#[test]
fn a_branch_that_adds_what_an_accepted_decision_forbids_fails_the_check() {
    let (sandbox, record) = decided();
    let content = std::fs::read_to_string(sandbox.repo.join(&record)).unwrap();
    assert!(
        content.contains("### Guards\n\n- `forbid dependency redis`\n- `require dependency postgres`\n\n### Review By\n\n2026-01-15\n"),
        "the guards the moderator gave, the one that is no guard left out: {content}"
    );
    let shown = sandbox.show(&sandbox.only_id());
    let sections = shown["outcome"]["sections"].as_array().unwrap();
    let guards = sections.iter().find(|s| s["key"] == "guards").unwrap();
    assert_eq!(guards["value"], serde_json::json!(["forbid dependency redis", "require dependency postgres"]));

    // Proposed: the same branch only warns.
    redis_branch(&sandbox);
    let (code, json, stderr) = check(&sandbox, &sandbox.repo, &[]);
    assert_eq!(code, 0, "{json}");
    assert!(json["violations"].as_array().unwrap().is_empty());
    assert_eq!(found(&json, "warnings").len(), 2, "{json}");
    assert!(stderr.contains("proposed, so not enforced until it is accepted"), "{stderr}");

    // Accepted on main, then the branch again on top of it.
    git(&sandbox.repo, &["checkout", "-q", "main"]);
    sandbox.cmd().args(["accept", &record]).assert().success();
    let (code, json, _) = check(&sandbox, &sandbox.repo, &[]);
    assert_eq!((code, json["guards"].as_u64()), (0, Some(2)), "main keeps to the decision: {json}");
    git(&sandbox.repo, &["checkout", "-q", "sessions-in-redis"]);
    git(&sandbox.repo, &["rebase", "-q", "main"]);
    let (code, json, stderr) = check(&sandbox, &sandbox.repo, &[]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(
        found(&json, "violations"),
        [("ioredis".into(), "package.json".into(), 5), ("redis".into(), "requirements.txt".into(), 3)]
    );
    let violation = &json["violations"][0];
    assert_eq!(violation["guard"], "forbid dependency redis");
    assert_eq!(violation["record"]["path"], record.as_str());
    assert_eq!(violation["record"]["status"], "accepted");
    assert_eq!(violation["record"]["title"], "Should we use Redis or Postgres for caching");

    // The text a person reads names the same, and so does --base.
    let out = sandbox.cmd().args(["check", "--base", "main"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let said = text(&out.stdout);
    for expected in
        ["package.json:5: ioredis (brings redis)", "requirements.txt:3: redis", &record, "forbid dependency redis"]
    {
        assert!(said.contains(expected), "{expected} in {said}");
    }
    // Only what changed counts with --base: main's own files are not blamed.
    git(&sandbox.repo, &["checkout", "-q", "main"]);
    let (code, json, _) = check(&sandbox, &sandbox.repo, &["--base", "main"]);
    assert_eq!(code, 0, "{json}");
    // Superseded, rejected and deprecated records guard nothing.
    git(&sandbox.repo, &["checkout", "-q", "sessions-in-redis"]);
    sandbox.cmd().args(["deprecate", &record]).assert().success();
    let (code, json, _) = check(&sandbox, &sandbox.repo, &[]);
    assert_eq!((code, json["guards"].as_u64()), (0, Some(0)), "{json}");
}

#[test]
fn guards_travel_with_the_record_and_a_hand_edit_of_one_fails_verify() {
    let (sandbox, record, allowed) = decided_as(true);
    let allowed = allowed.unwrap();
    sandbox.cmd().args(["accept", &record]).assert().success();
    redis_branch(&sandbox);
    let clone = sandbox.home.join("clone");
    git(sandbox.home.as_path(), &["clone", "-q", "-b", "sessions-in-redis", sandbox.repo.to_str().unwrap(), "clone"]);
    let elsewhere = sandbox.home.join("teammate");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let run = |args: &[&str]| sandbox.std_cmd_as(&clone, &elsewhere).args(args).output().unwrap();
    let out = run(&["verify", "--all", "--require-signature", "--allowed-signers", allowed.to_str().unwrap()]);
    assert!(out.status.success(), "signed by Alice, guards and all: {}{}", text(&out.stdout), text(&out.stderr));
    let out = run(&["check"]);
    assert_eq!(out.status.code(), Some(1), "the clone's check reads the guards from the record");
    let out = run(&["list", "--due", "--json"]);
    let due: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(due[0]["path"], record.as_str(), "{due}");
    assert_eq!(due[0]["review_by"], "2026-01-15");

    let path = clone.join(&record);
    let content = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, content.replace("- `forbid dependency redis`", "- `forbid dependency kafka`")).unwrap();
    let out = run(&["verify", &record]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(said.contains("Decision Outcome"), "the edit is named by its section: {said}");
}

#[test]
fn a_guard_is_data_and_a_record_without_guards_checks_nothing() {
    let sandbox = Sandbox::new();
    write(&sandbox.repo, "package.json", PACKAGE_WITH_REDIS);
    write(
        &sandbox.repo,
        "docs/adr/0001-x.md",
        "# X\n\n## Status\n\nAccepted\n\n## Decision\n\nPostgres.\n\n### Guards\n\n- `forbid dependency $(touch pwned)`\n- `forbid path ../../etc/passwd`\n- forbid dependency ioredis\n",
    );
    let (code, json, _) = check(&sandbox, &sandbox.repo, &[]);
    assert_eq!(code, 1, "{json}");
    assert_eq!(found(&json, "violations"), [("ioredis".into(), "package.json".into(), 5)]);
    assert!(json["notes"].to_string().contains("a guard was not read"), "{json}");
    assert!(!sandbox.repo.join("pwned").exists());
    // A package name that would drive the terminal reaches it as text.
    write(&sandbox.repo, "package.json", "{\"dependencies\": {\"@aws-sdk/\\u001b]0;pwned\\u0007x\": \"1\"}}\n");
    write(
        &sandbox.repo,
        "docs/adr/0001-x.md",
        "# X\n\n## Status\n\nAccepted\n\n### Guards\n\n- `forbid dependency aws`\n",
    );
    let out = sandbox.cmd().arg("check").output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("package.json: @aws-sdk/x (brings aws)"), "{}", text(&out.stdout));
    assert!(!out.stdout.iter().any(|b| *b == 0x1b || *b == 0x07), "{:?}", text(&out.stdout));
    // Without a record, nothing to keep to.
    std::fs::remove_file(sandbox.repo.join("docs/adr/0001-x.md")).unwrap();
    let (code, json, _) = check(&sandbox, &sandbox.repo, &[]);
    assert_eq!((code, json["records"].as_u64()), (0, Some(0)));
}

#[test]
fn a_person_changes_the_guards_through_the_command_and_the_record_stays_genuine() {
    let (sandbox, record, allowed) = decided_as(true);
    let signed =
        ["verify", "--all", "--require-signature", "--allowed-signers", allowed.as_ref().unwrap().to_str().unwrap()];
    sandbox.cmd().args(["accept", &record]).assert().success();
    let id = sandbox.only_id();
    let out = sandbox.cmd().args(["guard", "add", &record, "forbid", "path", "ormconfig.*"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("  3  forbid path ormconfig.*"), "{}", text(&out.stdout));
    assert_eq!(
        git(&sandbox.repo, &["log", "-1", "--format=%B"]).trim(),
        format!(
            "docs(decisions): guard Should we use Redis or Postgres for caching\n\nadd `forbid path ormconfig.*`\n\nDebate-Id: {id}"
        )
    );
    assert_eq!(git(&sandbox.repo, &["status", "--porcelain"]), "", "committed alone, nothing left over");
    let content = std::fs::read_to_string(sandbox.repo.join(&record)).unwrap();
    assert!(content.contains("- `forbid path ormconfig.*`") && content.contains("status: accepted"), "{content}");
    assert!(content.contains(r#""act":"guarded""#), "sealed again for the change: {content}");
    sandbox.cmd().args(signed).assert().success();

    write(&sandbox.repo, "api/ormconfig.json", "{}");
    let (code, json, _) = check(&sandbox, &sandbox.repo, &[]);
    assert_eq!(code, 1);
    assert_eq!(json["violations"][0]["found"], serde_json::json!({"kind": "path", "path": "api/ormconfig.json"}));

    // Dropped by number, changed, and the review date cleared: each its own commit.
    sandbox.cmd().args(["guard", "drop", &id, "3"]).assert().success();
    let (code, _, _) = check(&sandbox, &sandbox.repo, &[]);
    assert_eq!(code, 0, "the dropped guard no longer holds");
    sandbox
        .cmd()
        .args(["guard", "change", &id, "forbid dependency redis", "forbid dependency kafka"])
        .assert()
        .success();
    sandbox.cmd().args(["guard", "review-by", &id, "none"]).assert().success();
    let out = sandbox.cmd().args(["guard", "list", &id, "--json"]).output().unwrap();
    let listed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(listed["guards"], serde_json::json!(["forbid dependency kafka", "require dependency postgres"]));
    assert_eq!(listed["review_by"], Value::Null);
    sandbox.cmd().args(signed).assert().success();
    let subjects = git(&sandbox.repo, &["log", "--format=%s", "-3"]);
    assert_eq!(subjects.lines().filter(|s| s.starts_with("docs(decisions): guard ")).count(), 3, "{subjects}");

    // What is not a guard, or not there, is refused and nothing is written.
    let head = git(&sandbox.repo, &["rev-parse", "HEAD"]);
    for args in [&["add", &id, "allow", "dependency", "redis"][..], &["drop", &id, "9"], &["review-by", &id, "soon"]] {
        let out = sandbox.cmd().arg("guard").args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out.stderr));
    }
    assert_eq!(git(&sandbox.repo, &["rev-parse", "HEAD"]), head);
}

#[test]
fn guards_changed_in_a_teammates_clone_are_taken_from_the_record_pulled_here() {
    let (sandbox, record) = decided();
    let id = sandbox.only_id();
    let clone = sandbox.home.join("teammate-clone");
    git(sandbox.home.as_path(), &["clone", "-q", sandbox.repo.to_str().unwrap(), "teammate-clone"]);
    git(&clone, &["config", "user.name", "Teo Mate"]);
    git(&clone, &["config", "user.email", "teo@example.com"]);
    let theirs = sandbox.home.join("teammate");
    std::fs::create_dir_all(&theirs).unwrap();
    let out = sandbox
        .std_cmd_as(&clone, &theirs)
        .args(["guard", "add", &record, "forbid dependency kafka"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    git(&sandbox.repo, &["pull", "-q", "--ff-only", clone.to_str().unwrap(), "main"]);

    let out = sandbox.cmd().args(["guard", "list", &id, "--json"]).output().unwrap();
    assert!(text(&out.stderr).contains("guards from its record"), "{}", text(&out.stderr));
    let listed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(listed["guards"][2], "forbid dependency kafka", "{listed}");
    let shown = sandbox.show(&id);
    assert!(shown["outcome"]["synthesis"]["guards"].to_string().contains("kafka"), "show agrees: {shown}");
    // And this database can change them again: the record is no hand edit to it.
    let out = sandbox.cmd().args(["guard", "drop", &id, "forbid dependency kafka"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
}
