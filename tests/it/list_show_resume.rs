//! `--list`, `--show` and `--resume` as a user runs them.

use std::path::PathBuf;

use crate::common::*;
use predicates::prelude::*;

fn offline(sandbox: &Sandbox, question: &str) -> String {
    sandbox.cmd().args(["--offline", "-q", question]).assert().success();
    sandbox.newest_id()
}

#[test]
fn list_shows_this_repository_newest_first_and_all_with_all() {
    let one = Sandbox::new();
    let first = offline(&one, "Should we use Redis or Postgres for caching?");
    let second = offline(&one, "Monolith or microservices for the billing system?");
    // Another repository sharing the same state database.
    let other = one.repo.parent().unwrap().join("other");
    std::fs::create_dir_all(&other).unwrap();
    git(&other, &["init", "-q"]);
    one.cmd().current_dir(&other).args(["--offline", "-q", "REST or GraphQL for the public API?"]).assert().success();

    let out = one.cmd().arg("--list").assert().success().get_output().stdout.clone();
    let out = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "header and this repository's two debates: {out}");
    assert!(lines[0].starts_with("ID") && lines[0].contains("STATUS") && lines[0].contains("RECORD"));
    assert!(lines[1].starts_with(&second) && lines[2].starts_with(&first), "newest first: {out}");
    assert!(lines[1].contains("complete") && lines[1].contains("docs/decisions/"), "{out}");

    one.cmd().args(["--list", "--all"]).assert().success().stdout(predicate::str::contains("REST or GraphQL"));
    let limited = one.cmd().args(["--list", "--all", "--limit", "1"]).assert().success().get_output().stdout.clone();
    assert_eq!(String::from_utf8(limited).unwrap().lines().count(), 2);
}

#[test]
fn list_and_show_as_json_hold_only_json() {
    let sandbox = Sandbox::new();
    let id = offline(&sandbox, QUESTION);
    let out = sandbox.cmd().args(["--list", "--json"]).assert().success().get_output().stdout.clone();
    let rows: serde_json::Value = serde_json::from_slice(&out).expect("--list --json is JSON");
    assert_eq!(rows[0]["id"], id.as_str());
    assert_eq!(rows[0]["status"], "complete");
    assert!(rows[0]["record_path"].as_str().unwrap().ends_with(".md"));

    let out = sandbox.cmd().args(["--show", &id, "--json"]).assert().success().get_output().stdout.clone();
    let shown: serde_json::Value = serde_json::from_slice(&out).expect("--show --json is JSON");
    assert_eq!(shown["panel"].as_array().unwrap().len(), 2);
    assert!(shown["transcript"][0]["arguments"][0]["text"].is_string());
    assert!(shown["outcome"]["synthesis"]["recommendation"].is_string());

    let out = sandbox.cmd().args(["--offline", "--json", QUESTION]).assert().success().get_output().stdout.clone();
    let started: serde_json::Value = serde_json::from_slice(&out).expect("a debate with --json prints JSON");
    assert_eq!(started["status"], "complete");
    assert!(started["tokens"]["completion"].as_u64().unwrap() > 0);

    // One vocabulary: the same debate reads the same in all three documents.
    let new_id = started["id"].as_str().unwrap();
    let out = sandbox.cmd().args(["--list", "--json"]).assert().success().get_output().stdout.clone();
    let rows: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let listed = rows.as_array().unwrap().iter().find(|r| r["id"] == new_id).unwrap();
    let out = sandbox.cmd().args(["--show", new_id, "--json"]).assert().success().get_output().stdout.clone();
    let shown: serde_json::Value = serde_json::from_slice(&out).unwrap();
    for key in ["status", "ended_by", "confidence", "rounds", "record_path", "commit_id", "tokens"] {
        assert_eq!(started[key], listed[key], "--json and --list --json differ on {key}");
        assert_eq!(started[key], shown[key], "--json and --show --json differ on {key}");
    }
    assert_eq!(shown["confidence"], "low", "lowercase, as every other name");
}

#[test]
fn an_empty_list_says_so_on_stderr() {
    let sandbox = Sandbox::new();
    sandbox.cmd().arg("--list").assert().success().stdout("").stderr(predicate::str::contains("No debates yet"));
    assert!(!sandbox.db().exists(), "listing does not create a database");
}

/// A pager that writes what it was given to `paged`, and `$LESS` as it found it to
/// `less`, then passes the text on to the terminal.
fn recording_pager(sandbox: &Sandbox) -> (String, PathBuf, PathBuf) {
    let (paged, less) = (sandbox.home.join("paged"), sandbox.home.join("less"));
    let pager = format!("printf %s \"$LESS\" > '{}'; tee '{}'", less.display(), paged.display());
    (pager, paged, less)
}

#[test]
fn show_leads_with_the_decision_and_pages_nothing_into_a_pipe() {
    let sandbox = Sandbox::new();
    let id = offline(&sandbox, QUESTION);
    let prefix = id[..6].to_lowercase();
    let (pager, paged, _) = recording_pager(&sandbox);
    let out = sandbox.cmd().args(["--show", &prefix]).env("PAGER", pager).assert().success();
    let shown = text(&out.get_output().stdout);
    let head = format!("{id}  complete\nQuestion:   {QUESTION}\n\n═══ Decision ═══\nChosen option: ");
    assert!(shown.starts_with(&head), "{shown}");
    let at = |needle: &str| shown.find(needle).unwrap_or_else(|| panic!("{needle:?} in:\n{shown}"));
    assert!(at("Confidence: Low") < at("Repository:"), "{shown}");
    assert!(at("Repository:") < at("Panel:") && at("Panel:") < at("═══ Round 1 ═══"), "{shown}");
    assert!(!paged.exists(), "no pager without a terminal");
}

#[test]
fn show_on_a_terminal_pages_through_pager_unless_told_not_to() {
    let sandbox = Sandbox::new();
    let id = offline(&sandbox, QUESTION);
    let (pager, paged, less) = recording_pager(&sandbox);
    let on_terminal = |pager: &str, less: Option<&str>, args: &[&str]| {
        let mut cmd = sandbox.std_cmd();
        cmd.args(args).env("PAGER", pager).env("TERM", "dumb");
        match less {
            Some(less) => cmd.env("LESS", less),
            None => cmd.env_remove("LESS"),
        };
        let mut p = rexpect::session::spawn_command(cmd, Some(30_000)).expect("debate starts on a pty");
        // rexpect reads bytes as Latin-1: the needles stay ASCII.
        let screen = p.exp_eof().unwrap();
        assert!(screen.contains("Chosen option: "), "{screen}");
    };

    on_terminal(&pager, None, &["show", &id]);
    let given = std::fs::read_to_string(&paged).expect("the pager ran");
    assert!(given.starts_with(&format!("{id}  complete\n")) && given.contains("═══ Decision ═══"), "{given}");
    assert_eq!(std::fs::read_to_string(&less).unwrap(), "FRX", "LESS as git sets it");
    on_terminal(&pager, Some("-R"), &["show", &id]);
    assert_eq!(std::fs::read_to_string(&less).unwrap(), "-R", "a LESS of one's own stays");

    std::fs::remove_file(&paged).unwrap();
    for args in [&["show", &id, "--no-pager"][..], &["--no-pager", "--show", &id]] {
        on_terminal(&pager, None, args);
        assert!(!paged.exists(), "{args:?} ran the pager");
    }
    // No pager for an empty PAGER or cat, and a pager that cannot start: printed as it is.
    let missing = sandbox.home.join("no-such-pager").display().to_string();
    for pager in ["", "cat", &missing] {
        on_terminal(pager, None, &["show", &id]);
    }
}

#[test]
fn ids_resolve_in_any_case_and_by_unique_prefix_only() {
    let sandbox = Sandbox::new();
    let mut ids = Vec::new();
    // Enough debates that some share a first character.
    for n in 0..12 {
        ids.push(offline(&sandbox, &format!("Redis or Postgres for cache number {n}?")));
    }
    for id in &ids {
        sandbox.cmd().args(["--show", &id.to_uppercase()]).assert().success();
        sandbox.cmd().args(["--show", &id[4..]]).assert().success();
    }
    // One character names nothing; two that several debates share are ambiguous.
    let one = &ids[0][..5];
    sandbox.cmd().args(["--show", one]).assert().code(2).stderr(predicate::str::contains("too short"));
    let prefixes: Vec<&str> = ids.iter().map(|id| &id[..6]).collect();
    if let Some(shared) = prefixes.iter().find(|p| prefixes.iter().filter(|q| q == p).count() > 1) {
        sandbox
            .cmd()
            .args(["--show", shared])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("matches several debates"));
    }
}

#[test]
fn a_provider_failure_pauses_and_resume_continues_without_repeating_calls() {
    let sandbox = Sandbox::new();
    let answers = varied_answers(&PANEL, 2, CONTINUE);
    let this_debater = format!("{{purpose: argument, round: 2, perspective: \"{}\"", PANEL[1]);
    let failing = replace_answers(&answers, &this_debater, &format!("{this_debater}, error: overloaded}}"));
    let config = sandbox.scripted(&failing);
    let out = sandbox.cmd().arg("--config").arg(&config).args(["--max-rounds", "2", QUESTION]).assert().code(3);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    let id = sandbox.only_id();
    assert!(stderr.contains("overloaded") && stderr.contains(&format!("debate resume {id}")), "{stderr}");
    assert_eq!(sandbox.show(&id)["status"], "paused");
    assert!(sandbox.records().is_empty());
    let calls_before = sandbox.prompts().len();

    // The provider recovers.
    sandbox.scripted(&answers);
    sandbox.cmd().arg("--config").arg(&config).args(["--resume", &id]).assert().success();
    let resumed: Vec<String> =
        sandbox.prompts()[calls_before..].iter().map(|p| p["purpose"].as_str().unwrap().to_string()).collect();
    assert_eq!(resumed, ["argument", "rebuttal", "rebuttal", "synthesis"], "only the failed call is redone");
    assert_eq!(sandbox.records().len(), 1);
}

#[test]
fn resuming_a_complete_debate_prints_its_record_and_calls_nothing() {
    let sandbox = Sandbox::new();
    let config = sandbox.scripted(&varied_answers(&PANEL, 1, AGREE));
    sandbox.cmd().arg("--config").arg(&config).arg(QUESTION).assert().success();
    let calls = sandbox.prompts().len();
    let id = sandbox.only_id();
    sandbox
        .cmd()
        .arg("--config")
        .arg(&config)
        .args(["--resume", &id])
        .assert()
        .success()
        .stdout(predicate::str::ends_with(".md\n"))
        .stderr(predicate::str::contains("already complete"));
    assert_eq!(sandbox.prompts().len(), calls);
}

#[test]
fn unreadable_moderator_answers_fall_back_and_the_record_says_so() {
    let sandbox = Sandbox::new();
    let answers = varied_answers(&PANEL, 2, AGREE)
        .replace(
            &format!("{{purpose: synthesis, text: '{SYNTHESIS}'}}"),
            "{purpose: synthesis, text: \"## Recommendation\\n\\nUse Postgres.\\n\\n## Caveats\\n\\n- load grows\\n\"}",
        )
        .replace(
            &format!("{{purpose: evaluation, text: '{AGREE}'}}"),
            "{purpose: evaluation, text: \"I think they mostly agree\"}",
        );
    let config = sandbox.scripted(&answers);
    sandbox.cmd().arg("--config").arg(&config).args(["--max-rounds", "2", QUESTION]).assert().success();
    let record = std::fs::read_to_string(&sandbox.records()[0]).unwrap();
    assert!(record.contains("Use Postgres."), "{record}");
    assert!(record.contains("recovered from the moderator's free text"), "{record}");
    assert!(record.contains("assessment of round 1 was unreadable"), "{record}");
    // Max rounds → Low, and nothing can go lower.
    assert!(record.contains("confidence: Low"), "{record}");
}

#[test]
fn outside_a_git_repository_the_record_is_written_in_the_working_directory() {
    let sandbox = Sandbox::plain();
    sandbox.cmd().args(["--offline", QUESTION]).assert().success();
    assert_eq!(sandbox.records().len(), 1);
}

#[test]
fn started_from_a_subdirectory_the_record_lands_at_the_repository_root() {
    let sandbox = Sandbox::new();
    let sub = sandbox.repo.join("src/deep");
    std::fs::create_dir_all(&sub).unwrap();
    sandbox.cmd().current_dir(&sub).args(["--offline", QUESTION]).assert().success();
    assert_eq!(sandbox.records().len(), 1);
    assert!(!sub.join("docs").exists());
}

#[test]
fn resume_with_json_prints_one_json_document() {
    let sandbox = Sandbox::new();
    let answers = varied_answers(&PANEL, 1, AGREE);
    let failing = replace_answers(&answers, "{purpose: synthesis", "{purpose: synthesis, error: overloaded}");
    let config = sandbox.scripted(&failing);
    let out = sandbox.cmd().arg("--config").arg(&config).args(["--json", QUESTION]).assert().code(3);
    let paused: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).expect("a pause prints JSON");
    let id = sandbox.only_id();
    assert_eq!((paused["id"].as_str(), paused["status"].as_str()), (Some(id.as_str()), Some("paused")));
    assert_eq!(paused["resume"], format!("debate resume {id}"));
    assert_eq!(paused["exit_code"], 3);
    assert!(paused["error"].as_str().unwrap().contains("overloaded"), "{paused}");
    sandbox.scripted(&answers);
    let out = sandbox.cmd().arg("--config").arg(&config).args(["--json", "--resume", &id]).assert().success();
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).expect("one JSON document");
    assert_eq!((json["id"].as_str(), json["status"].as_str()), (Some(id.as_str()), Some("complete")));
}
