//! Debates that know the repository they run in: the stack, the infrastructure and the
//! earlier decisions reach the debaters; the record links the decisions it was given,
//! says when it goes against one, and can supersede one in the same commit; the
//! context budget says what it cut; nothing secret leaves the machine.

use serde_json::Value;

use crate::common::*;

const CARGO: &str = r#"[package]
name = "shop-api"
version = "0.1.0"

[dependencies]
axum = "0.8"
sqlx = { version = "0.8", features = ["postgres", "runtime-tokio"] }
"#;

const COMPOSE: &str = "services:\n  db:\n    image: postgres:16\n  api:\n    build: .\n";

const EARLIER: &str = "# 1. Use Postgres as the only datastore\n\nDate: 2025-03-01\n\n## Status\n\nAccepted\n\n## Context\n\nOrders, carts and sessions need a home.\n\n## Decision\n\nUse Postgres as the only datastore, for caching too.\n\n## Consequences\n\nOne database to run.\n";

const EARLIER_PATH: &str = "docs/decisions/0001-use-postgres.md";

/// A synthesis that recommends against the earlier decision, and says so.
const AGAINST: &str = r#"{"perspectives": [], "agreement": ["measure first"], "tensions": ["latency against operations"], "recommendation": "Add Redis as a cache in front of Postgres.", "confidence": "Medium", "caveats": [], "dissent": null, "contradicts": ["docs/decisions/0001-use-postgres.md"]}"#;

/// The repository of the issue: sqlx with Postgres, a compose Postgres service, and an
/// accepted decision to use Postgres for everything; all committed.
fn shop(sandbox: &Sandbox) {
    git(&sandbox.repo, &["config", "user.name", "Test"]);
    git(&sandbox.repo, &["config", "user.email", "test@example.com"]);
    write(&sandbox.repo, "Cargo.toml", CARGO);
    write(&sandbox.repo, "docker-compose.yml", COMPOSE);
    write(&sandbox.repo, "src/main.rs", "fn main() {}\n");
    write(&sandbox.repo, EARLIER_PATH, EARLIER);
    write(&sandbox.repo, "README.md", "# shop-api\n\nThe API behind our web shop.\n");
    git(&sandbox.repo, &["add", "-A"]);
    git(&sandbox.repo, &["commit", "-q", "-m", "shop"]);
}

/// Scripted answers for a one-round debate whose synthesis is `synthesis`.
fn script(sandbox: &Sandbox, synthesis: &str) -> std::path::PathBuf {
    let answers = replace_answers(
        &varied_answers(&PANEL, 1, AGREE),
        "{purpose: synthesis",
        &format!("{{purpose: synthesis, text: '{synthesis}'}}"),
    );
    sandbox.scripted(&answers)
}

fn record_text(sandbox: &Sandbox, name_ends: &str) -> String {
    let records = sandbox.records();
    let path = records.iter().find(|p| p.to_string_lossy().ends_with(name_ends));
    std::fs::read_to_string(path.unwrap_or_else(|| panic!("no record ending {name_ends} in {records:?}"))).unwrap()
}

#[test]
fn the_debaters_read_the_stack_the_infrastructure_and_the_earlier_decision() {
    let sandbox = Sandbox::new();
    shop(&sandbox);
    let config = script(&sandbox, AGAINST);
    let out = sandbox.cmd().arg("--config").arg(&config).args(["-r", "1", QUESTION]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("Decision records here: 1 in docs/decisions/, numbered 0001-…"), "{stderr}");

    let prompts = sandbox.prompts();
    assert!(prompts.len() > 5);
    for prompt in &prompts {
        let prompt = prompt["prompt"].as_str().unwrap();
        for fact in [
            "sqlx 0.8 (postgres database)",
            "compose service db (postgres:16)",
            "docs/decisions/0001-use-postgres.md",
            "Use Postgres as the only datastore",
        ] {
            assert!(prompt.contains(fact), "{fact:?} missing from a prompt:\n{prompt}");
        }
    }
    // The record follows the repository's numbering, links the decision it was given,
    // and says the recommendation goes against it.
    let record = record_text(&sandbox, "0002-should-we-use-redis-or-postgres-for-caching.md");
    assert!(record.contains("## Related Decisions"), "{record}");
    assert!(record.contains("- [1. Use Postgres as the only datastore](0001-use-postgres.md) — Accepted, 2025-03-01 · **this recommendation goes against it**"), "{record}");
    assert!(record.contains("**This recommendation goes against an earlier decision:**"), "{record}");
    assert!(record.contains("`--supersedes docs/decisions/0001-use-postgres.md`"), "{record}");
    assert!(record.contains("Read by the debaters: docs/decisions/0001-use-postgres.md ("), "{record}");
}

#[test]
fn a_recommendation_that_agrees_says_nothing_against_anything() {
    let sandbox = Sandbox::new();
    shop(&sandbox);
    let config = sandbox.scripted(&varied_answers(&PANEL, 1, AGREE));
    sandbox.cmd().arg("--config").arg(&config).args(["-r", "1", QUESTION]).assert().success();
    let record = record_text(&sandbox, "0002-should-we-use-redis-or-postgres-for-caching.md");
    assert!(record.contains("[1. Use Postgres as the only datastore](0001-use-postgres.md) — Accepted"), "{record}");
    assert!(!record.contains("goes against"), "{record}");
}

#[test]
fn supersedes_marks_the_earlier_record_in_the_same_commit() {
    let sandbox = Sandbox::new();
    shop(&sandbox);
    let config = script(&sandbox, AGAINST);
    let out = sandbox
        .cmd()
        .arg("--config")
        .arg(&config)
        .args(["-r", "1", "--supersedes", EARLIER_PATH, QUESTION])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let name = "0002-should-we-use-redis-or-postgres-for-caching.md";
    // log4brains reads the link's text as the superseding record's slug.
    let stem = name.trim_end_matches(".md");
    let changed = git(&sandbox.repo, &["show", "--name-only", "--format=", "HEAD"]);
    let mut changed: Vec<&str> = changed.lines().collect();
    changed.sort();
    assert_eq!(
        changed,
        [EARLIER_PATH.to_string(), format!("docs/decisions/{name}"), "docs/decisions/README.md".into()],
        "one commit: both records and the index"
    );
    assert_eq!(git(&sandbox.repo, &["status", "--porcelain"]), "", "committed and staged, nothing else touched");

    let earlier = std::fs::read_to_string(sandbox.repo.join(EARLIER_PATH)).unwrap();
    let record = record_text(&sandbox, name);
    let date = record.lines().find_map(|l| l.strip_prefix("date: ")).expect("the new record's date");
    // Written as the record writes its status (capitalised), with a line of history
    // under it: superseded on the new record's date, by the git identity.
    let expected = EARLIER.replace(
        "## Status\n\nAccepted\n",
        &format!("## Status\n\nSuperseded by [{stem}]({name})\n\nSuperseded on {date} by Test (was Accepted).\n"),
    );
    assert_eq!(earlier, expected, "only the status and its history changed");
    assert!(
        record.contains("- [1. Use Postgres as the only datastore](0001-use-postgres.md) — Accepted, 2025-03-01 · **superseded by this record**"),
        "{record}"
    );
    assert!(!record.contains("should be marked superseded"), "it already is:\n{record}");
}

#[test]
fn supersedes_takes_the_debate_id_a_record_carries() {
    let sandbox = Sandbox::new();
    shop(&sandbox);
    sandbox.cmd().args(["--offline", "Monolith or microservices for billing?"]).assert().success();
    let first = sandbox.only_id();
    // The id as `show` takes it too: without its `DEB-`.
    let out = sandbox.cmd().args(["--offline", "--supersedes", &first["DEB-".len()..], QUESTION]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let earlier = record_text(&sandbox, "0002-monolith-or-microservices-for-billing.md");
    assert!(
        earlier.contains("status: \"superseded by [0003-should-we-use-redis-or-postgres-for-caching](0003-should-we-use-redis-or-postgres-for-caching.md)\"\nstatus-history: [superseded "),
        "{earlier}"
    );
    let changed = git(&sandbox.repo, &["show", "--name-only", "--format=", "HEAD"]);
    assert_eq!(changed.lines().count(), 3, "both records and the index: {changed}");
}

#[test]
fn a_bad_supersedes_target_is_a_usage_error_before_any_model_call() {
    let sandbox = Sandbox::new();
    shop(&sandbox);
    write(&sandbox.repo, "notes.md", "Just notes, no title.\n");
    write(&sandbox.repo, "docs/decisions/0009-no-status.md", "# A record without a status\n\nWe did a thing.\n");
    let outside = sandbox.home.join("elsewhere.md");
    std::fs::write(&outside, EARLIER).unwrap();
    std::os::unix::fs::symlink(sandbox.repo.join(EARLIER_PATH), sandbox.repo.join("docs/link.md")).unwrap();
    write(&sandbox.repo, ".git/evil.md", EARLIER);
    write(&sandbox.repo, "nested/docs/decisions/0001-n.md", EARLIER);
    git(&sandbox.repo.join("nested"), &["init", "-q"]);
    let config = script(&sandbox, AGAINST);
    let before = sandbox.files();
    let head = git(&sandbox.repo, &["rev-parse", "HEAD"]);
    for target in [
        "docs/decisions/0404-missing.md",
        outside.to_str().unwrap(),
        "notes.md",
        "Cargo.toml",
        "docs/decisions/0009-no-status.md",
        "docs/link.md",
        ".git/evil.md",
        "nested/docs/decisions/0001-n.md",
        "DEB-zzzzzz",
    ] {
        let out = sandbox.cmd().arg("--config").arg(&config).args(["--supersedes", target, QUESTION]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "--supersedes {target}: {}", text(&out.stderr));
        assert!(text(&out.stderr).contains(&format!("--supersedes {target}")), "{}", text(&out.stderr));
    }
    // The earlier record with a change of its own is not committed along.
    std::fs::write(sandbox.repo.join(EARLIER_PATH), format!("{EARLIER}\nA local edit.\n")).unwrap();
    let out =
        sandbox.cmd().arg("--config").arg(&config).args(["--supersedes", EARLIER_PATH, QUESTION]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("changes that are not committed"), "{}", text(&out.stderr));
    std::fs::write(sandbox.repo.join(EARLIER_PATH), EARLIER).unwrap();

    assert!(sandbox.prompts().is_empty(), "no model was called");
    assert_eq!(sandbox.files(), before, "nothing was written");
    assert_eq!(git(&sandbox.repo, &["rev-parse", "HEAD"]), head, "nothing was committed");
}

#[test]
fn records_follow_an_adr_directory_and_its_numbering_unless_settings_choose() {
    let sandbox = Sandbox::new();
    write(
        &sandbox.repo,
        "docs/adr/0001-record-architecture-decisions.md",
        "# 1. Record architecture decisions\n\nDate: 2024-01-01\n\n## Status\n\nAccepted\n\n## Decision\n\nWe will use ADRs.\n",
    );
    let out = sandbox.cmd().args(["--offline", QUESTION]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(sandbox.repo.join("docs/adr/0002-should-we-use-redis-or-postgres-for-caching.md").is_file());
    assert!(
        text(&out.stderr).contains("this record goes to docs/adr/ and continues their numbering"),
        "{}",
        text(&out.stderr)
    );

    let chosen = sandbox
        .cmd()
        .env("DEBATE_RECORD_DIRECTORY", "decisions")
        .args(["--offline", "Monolith or microservices?"])
        .output()
        .unwrap();
    assert!(chosen.status.success(), "{}", text(&chosen.stderr));
    let made: Vec<_> = std::fs::read_dir(sandbox.repo.join("decisions"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .filter(|name| name != "README.md")
        .collect();
    assert_eq!(made.len(), 1);
    assert!(made[0].to_string_lossy().starts_with("0001-monolith"), "the numbering still follows: {made:?}");
}

#[test]
fn the_budget_cuts_what_does_not_fit_and_says_so_everywhere() {
    let sandbox = Sandbox::new();
    write(&sandbox.repo, "big.md", &"The load is spiky at lunch time. ".repeat(400));
    write(&sandbox.repo, "later.md", "LATER_FILE_MARKER never fits.");
    let config = sandbox.scripted(&varied_answers(&PANEL, 1, AGREE));
    let out = sandbox
        .cmd()
        .env("DEBATE_CONTEXT_BUDGET_TOKENS", "1000")
        .arg("--config")
        .arg(&config)
        .args(["--no-repo-context", "--context", "big.md", "--context", "later.md", "-r", "1", QUESTION])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    // Cut at the end of a sentence: a little under the budget, counted as kept.
    let kept: u64 = stderr
        .split("big.md: first ")
        .nth(1)
        .and_then(|rest| rest.split(" of 3,300 tokens").next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no cut of big.md reported: {stderr}"));
    assert!((980..=1_000).contains(&kept), "{kept}");
    assert!(stderr.contains("later.md: not read"), "{stderr}");
    for prompt in sandbox.prompts() {
        let prompt = prompt["prompt"].as_str().unwrap();
        assert!(prompt.contains(&format!("[… cut here: the first {kept} of 3300 tokens]")), "{prompt}");
        assert!(!prompt.contains("LATER_FILE_MARKER"), "a file that did not fit reached a prompt");
    }
    let record = std::fs::read_to_string(&sandbox.records()[0]).unwrap();
    assert!(record.contains(&format!("Read by the debaters: big.md: first {kept} of 3,300 tokens.")), "{record}");
    assert!(record.contains("later.md: not read"), "{record}");
    assert!(record.contains("the context budget was 1,000 tokens"), "{record}");
    assert!(record.contains("The repository itself was not read"), "{record}");
}

#[test]
fn context_preview_prints_what_the_debaters_read_and_calls_no_model() {
    let sandbox = Sandbox::new();
    shop(&sandbox);
    let config = sandbox.scripted(&varied_answers(&PANEL, 1, AGREE));
    let out = sandbox.cmd().arg("--config").arg(&config).args(["--context-preview", QUESTION]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    assert!(shown.contains("Context (budget 8,000 tokens, estimated at 4 bytes a token):"), "{shown}");
    assert!(shown.contains("  project facts ("), "{shown}");
    assert!(shown.contains("  docs/decisions/0001-use-postgres.md ("), "{shown}");
    assert!(shown.contains("Stack in Cargo.toml: axum 0.8 (web framework), sqlx 0.8 (postgres database)."), "{shown}");
    assert!(shown.contains("Languages: Rust (1 file, 1 line)."), "{shown}");

    let json =
        sandbox.cmd().arg("--config").arg(&config).args(["--context-preview", "--json", QUESTION]).output().unwrap();
    let json: Value = serde_json::from_slice(&json.stdout).expect("JSON");
    assert_eq!(json["budget_tokens"], 8000);
    assert_eq!(json["decisions"][0]["path"], EARLIER_PATH);
    assert_eq!(json["convention"]["directory"], "docs/decisions");
    assert!(json["text"].as_str().unwrap().contains("Use Postgres as the only datastore"));
    assert!(sandbox.prompts().is_empty(), "no model was called");
    assert!(!sandbox.db().exists(), "nothing was stored");
}

#[test]
fn the_repository_can_be_left_unread() {
    let sandbox = Sandbox::new();
    shop(&sandbox);
    let config = sandbox.scripted(&varied_answers(&PANEL, 1, AGREE));
    sandbox.cmd().arg("--config").arg(&config).args(["--no-repo-context", "-r", "1", QUESTION]).assert().success();
    let again = Sandbox::new();
    shop(&again);
    let config = again.scripted(&varied_answers(&PANEL, 1, AGREE));
    let settings = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("{settings}context:\n  repository: false\n")).unwrap();
    again.cmd().arg("--config").arg(&config).args(["-r", "1", QUESTION]).assert().success();
    for sandbox in [&sandbox, &again] {
        for prompt in sandbox.prompts() {
            let prompt = prompt["prompt"].as_str().unwrap();
            assert!(!prompt.contains("About this project") && !prompt.contains("0001-use-postgres"), "{prompt}");
        }
    }
}

#[test]
fn planted_secrets_and_ignored_files_never_leave_the_machine() {
    const AWS: &str = "AKIAIOSFODNN7EXAMPLE";
    const PASSWORD: &str = "hunter2-s3cret-pw";
    const MARKERS: &[&str] = &[
        "IGNORED_RECORD_MARKER",
        "IGNORED_COMPOSE_MARKER",
        "HIDDEN_COMPOSE_MARKER",
        "SECRETS_YAML_MARKER",
        "DOTENV_MARKER",
        "PEM_MARKER",
        "IDRSA_MARKER",
    ];
    let sandbox = Sandbox::new();
    shop(&sandbox);
    // Each of these would be read (a record, compose files, a Kubernetes manifest) if
    // it were not ignored, hidden or named like a secret.
    write(&sandbox.repo, ".gitignore", "local/\ndocs/decisions/0009-private.md\n");
    write(
        &sandbox.repo,
        "docs/decisions/0009-private.md",
        "# IGNORED_RECORD_MARKER cache\n\n## Status\n\nAccepted\n\n## Decision\n\nRedis for caching, IGNORED_RECORD_MARKER.\n",
    );
    write(&sandbox.repo, "local/docker-compose.yml", "services:\n  IGNORED_COMPOSE_MARKER:\n    image: redis:7\n");
    write(&sandbox.repo, ".hidden/docker-compose.yml", "services:\n  HIDDEN_COMPOSE_MARKER:\n    image: redis:7\n");
    write(
        &sandbox.repo,
        "deploy/k8s/secrets.yaml",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: SECRETS_YAML_MARKER\n",
    );
    write(&sandbox.repo, ".env", "DATABASE_URL=DOTENV_MARKER\n");
    write(&sandbox.repo, "deploy/server.pem", "PEM_MARKER\n");
    write(&sandbox.repo, "id_rsa", "IDRSA_MARKER\n");
    write(
        &sandbox.repo,
        "README.md",
        &format!("# shop-api\n\nDeploy with AWS key {AWS}.\nThe database is postgres://shop:{PASSWORD}@db/shop.\n"),
    );
    write(
        &sandbox.repo,
        "docker-compose.yml",
        &format!("services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_PASSWORD: {PASSWORD}\n"),
    );
    write(
        &sandbox.repo,
        EARLIER_PATH,
        &EARLIER.replace("One database to run.", &format!("One database to run (password={PASSWORD}).")),
    );
    let config = sandbox.scripted(&varied_answers(&PANEL, 1, AGREE));
    let out = sandbox.cmd().arg("--config").arg(&config).args(["-r", "1", "--no-commit", QUESTION]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("README.md holds what looks like an AWS access key id"),
        "{}",
        text(&out.stderr)
    );
    let preview = sandbox.cmd().args(["--context-preview", QUESTION]).output().unwrap();

    assert!(!sandbox.prompts().is_empty());
    let record = record_text(&sandbox, "-should-we-use-redis-or-postgres-for-caching.md");
    for secret in [AWS, PASSWORD].iter().chain(MARKERS) {
        assert!(!text(&preview.stdout).contains(secret), "{secret} in the preview");
        assert!(!record.contains(secret), "{secret} in the record");
        // The home holds the state database (and its WAL) and the log of every request.
        for (path, bytes) in sandbox.files().iter().filter(|(path, _)| path.starts_with(&sandbox.home)) {
            assert!(!text(bytes).contains(secret), "{secret} reached {}", path.display());
        }
    }
}

#[test]
fn a_supersede_cut_short_by_a_crash_is_finished_by_resume_in_one_commit() {
    for failpoint in ["after-record-write", "after-commit-before-index"] {
        let sandbox = Sandbox::new();
        shop(&sandbox);
        let args = ["--offline", "--supersedes", EARLIER_PATH, QUESTION];
        let crashed = sandbox.cmd().env("DEBATE_FAILPOINT", failpoint).args(args).output().unwrap();
        assert!(!crashed.status.success(), "{failpoint}");
        let out = sandbox.cmd().args(["--resume", &sandbox.only_id()]).output().unwrap();
        assert!(out.status.success(), "{failpoint}: {}", text(&out.stderr));
        assert_eq!(git(&sandbox.repo, &["rev-list", "--count", "HEAD"]).trim(), "2", "{failpoint}: one commit more");
        assert_eq!(git(&sandbox.repo, &["show", "--name-only", "--format=", "HEAD"]).lines().count(), 3);
        assert_eq!(git(&sandbox.repo, &["status", "--porcelain"]), "", "{failpoint}: the index agrees");
        let earlier = std::fs::read_to_string(sandbox.repo.join(EARLIER_PATH)).unwrap();
        assert!(earlier.contains("Superseded by ["), "{failpoint}: {earlier}");
        assert_eq!(earlier.matches("Superseded on ").count(), 1, "{failpoint}: one line of history: {earlier}");
    }
}

#[test]
fn on_a_new_branch_the_supersede_is_committed_there_and_the_checkout_is_untouched() {
    let sandbox = Sandbox::new();
    shop(&sandbox);
    let out = sandbox
        .cmd()
        .args(["--offline", "--branch=decide-cache", "--supersedes", EARLIER_PATH, QUESTION])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(std::fs::read_to_string(sandbox.repo.join(EARLIER_PATH)).unwrap(), EARLIER, "the checkout is as it was");
    assert_eq!(git(&sandbox.repo, &["status", "--porcelain"]), "");
    let on_branch = git(&sandbox.repo, &["show", &format!("decide-cache:{EARLIER_PATH}")]);
    assert!(
        on_branch.contains("## Status\n\nSuperseded by [0002-should-we-use-redis-or-postgres-for-caching]("),
        "{on_branch}"
    );
    assert_eq!(git(&sandbox.repo, &["show", "--name-only", "--format=", "decide-cache"]).lines().count(), 3);
}

/// A `--context` file outside the repository is named by its file name alone in the
/// prompts, the terminal, the record and the database: the author's layout stays home.
/// One inside is named by its path in the repository, wherever the command ran.
#[test]
fn a_context_file_outside_the_repository_is_named_by_its_name_only() {
    let sandbox = Sandbox::new();
    git(&sandbox.repo, &["config", "user.name", "Test"]);
    git(&sandbox.repo, &["config", "user.email", "test@example.com"]);
    let private = sandbox.home.join("alice-private-layout");
    std::fs::create_dir_all(&private).unwrap();
    std::fs::write(private.join("load-notes.md"), "Peak load is 2,000 reads a second.").unwrap();
    write(&sandbox.repo, "docs/sizing.md", "We have 40 GB of product pages.");
    std::fs::create_dir_all(sandbox.repo.join("src")).unwrap();
    let outside = private.join("load-notes.md");
    let out = sandbox
        .cmd()
        .current_dir(sandbox.repo.join("src"))
        .args(["--offline", "--no-checkpoints", "-r", "1", "--context", outside.to_str().unwrap()])
        .args(["--context", "../docs/sizing.md", QUESTION])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let record = std::fs::read_to_string(&sandbox.records()[0]).unwrap();
    assert!(record.contains("load-notes.md") && record.contains("docs/sizing.md"), "{record}");
    assert!(!record.contains("alice-private-layout") && !record.contains("../docs"), "{record}");
    assert!(!text(&out.stderr).contains("alice-private-layout"), "{}", text(&out.stderr));
    let stored: String = sandbox.sqlite().query_row("SELECT snapshot FROM debates", [], |row| row.get(0)).unwrap();
    assert!(!stored.contains("alice-private-layout"), "{stored}");
}
