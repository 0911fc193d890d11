//! `--resume` as a user runs it after things went wrong: anywhere the key is
//! available, with the flags that can still change applied and the others refused.

use crate::common::*;

#[test]
fn a_debate_resumes_without_the_settings_file_it_started_with() {
    let sandbox = Sandbox::new();
    let answers = varied_answers(&PANEL, 2, CONTINUE);
    let failing = replace_answers(&answers, "{purpose: synthesis", "{purpose: synthesis, error: overloaded}");
    let config = sandbox.scripted(&failing);
    sandbox.cmd().arg("--config").arg(&config).args(["-r", "2", QUESTION]).assert().code(3);
    sandbox.scripted(&answers);
    // No --config: the provider the debate started with is stored with it.
    let id = sandbox.only_id();
    sandbox.cmd().args(["--resume", &id]).assert().success();
    assert_eq!(sandbox.records().len(), 1);
    // The database itself: what is stored of the provider (never a key), not what --show
    // prints.
    let snapshot: String = sandbox.sqlite().query_row("SELECT snapshot FROM debates", [], |r| r.get(0)).unwrap();
    assert!(snapshot.contains("\"script\"") && !snapshot.contains("api_key\""), "{snapshot}");
}

/// A 2-round scripted debate paused in round 2 by a failing debater.
fn paused_in_round_two(sandbox: &Sandbox, rounds: u32) -> (String, std::path::PathBuf) {
    let answers = varied_answers(&PANEL, rounds, CONTINUE);
    let failing = format!("{{purpose: argument, round: 2, perspective: \"{}\"", PANEL[1]);
    let config = sandbox.scripted(&replace_answers(&answers, &failing, &format!("{failing}, error: overloaded}}")));
    sandbox.cmd().arg("--config").arg(&config).args(["-r", "2", QUESTION]).assert().code(3);
    sandbox.scripted(&answers);
    (sandbox.only_id(), config)
}

#[test]
fn resume_applies_the_flags_that_can_still_change() {
    let sandbox = Sandbox::new();
    git(&sandbox.repo, &["config", "user.name", "Test"]);
    git(&sandbox.repo, &["config", "user.email", "test@example.com"]);
    let (id, config) = paused_in_round_two(&sandbox, 3);
    let out = sandbox
        .cmd()
        .arg("--config")
        .arg(&config)
        .args(["--resume", &id, "--no-commit", "--issue", "-r", "3"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(sandbox.show(&id)["rounds"], 3, "-r 3 took effect");
    assert!(sandbox.repo.join(format!(".debate/issues/{id}.md")).is_file(), "--issue took effect");
    assert_eq!(sandbox.records().len(), 1);
    let log = std::process::Command::new("git").args(["log", "--oneline"]).current_dir(&sandbox.repo).output().unwrap();
    assert!(text(&log.stdout).is_empty(), "--no-commit took effect: nothing committed");
}

/// What a debate fixes when it starts is refused by the flag form `--resume` as by
/// `debate resume` (tests/it/run_flags.rs); a complete debate takes no flag that would
/// change it, and `--issue` writes its draft.
#[test]
fn resume_refuses_what_was_fixed_when_the_debate_started() {
    let sandbox = Sandbox::new();
    let (id, config) = paused_in_round_two(&sandbox, 2);
    for flags in [&["--with", "Cost Control"][..], &["-p", "3"], &["--context", "README.md"]] {
        let out = sandbox.cmd().arg("--config").arg(&config).args(["--resume", &id]).args(flags).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{flags:?}: {}", text(&out.stderr));
        let stderr = text(&out.stderr);
        assert!(stderr.contains("is fixed when a debate starts"), "{flags:?}: {stderr}");
    }
    sandbox.cmd().arg("--config").arg(&config).args(["--resume", &id]).assert().success();
    let out = sandbox.cmd().args(["--resume", &id, "--no-commit"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("is already complete, so --no-commit cannot change it"),
        "{}",
        text(&out.stderr)
    );
    let out = sandbox.cmd().args(["--resume", &id, "--issue"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(sandbox.repo.join(format!(".debate/issues/{id}.md")).is_file());
}

#[test]
fn a_template_without_an_id_line_does_not_wedge_resume() {
    let sandbox = Sandbox::new();
    git(&sandbox.repo, &["config", "user.name", "Test"]);
    git(&sandbox.repo, &["config", "user.email", "test@example.com"]);
    std::fs::create_dir_all(sandbox.repo.join(".debate/templates")).unwrap();
    std::fs::write(sandbox.repo.join(".debate/templates/decision.md"), "# {{ title }}\n\n{{ recommendation }}\n")
        .unwrap();
    let crashed =
        sandbox.cmd().env("DEBATE_FAILPOINT", "after-record-write").args(["--offline", QUESTION]).output().unwrap();
    assert!(!crashed.status.success());
    let id = sandbox.only_id();
    let out = sandbox.cmd().args(["--resume", &id]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(sandbox.records().len(), 1);
    let trailers = git(&sandbox.repo, &["log", "--format=%(trailers:key=Debate-Id,valueonly)"]);
    assert_eq!(trailers.trim(), id, "committed once");
}

#[test]
fn a_debate_can_be_abandoned_and_deleted() {
    let sandbox = Sandbox::new();
    let (id, config) = paused_in_round_two(&sandbox, 2);
    let out = sandbox.cmd().args(["--abandon", &id]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let listed = sandbox.cmd().arg("--list").output().unwrap();
    assert!(text(&listed.stdout).contains("failed"), "{}", text(&listed.stdout));
    // Taken up again, it completes; deleting it leaves its record alone.
    sandbox.cmd().arg("--config").arg(&config).args(["--resume", &id]).assert().success();
    let record = sandbox.records()[0].clone();
    // An empty or short id (a script's unset variable) names nothing; --delete wants it whole.
    for partial in ["", "d", "deb-", &id[..7], &id[4..9]] {
        let out = sandbox.cmd().args(["--delete", partial]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "--delete {partial:?}: {}", text(&out.stderr));
    }
    assert_eq!(sandbox.only_id(), id, "still there");
    let out = sandbox.cmd().args(["--delete", &id.to_lowercase()]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("stays as it is"), "{}", text(&out.stderr));
    assert!(record.is_file());
    // The database itself: no row of the deleted debate is left (--show cannot see rows of
    // a debate that is gone).
    let left: i64 = sandbox.sqlite().query_row("SELECT (SELECT COUNT(*) FROM debates) + (SELECT COUNT(*) FROM contributions) + (SELECT COUNT(*) FROM rounds)", [], |r| r.get(0)).unwrap();
    assert_eq!(left, 0, "nothing of it is left in the database");
    // The record it left is still the debate: show reads it back from there.
    let shown = sandbox.cmd().args(["--show", &id]).output().unwrap();
    assert!(shown.status.success(), "{}", text(&shown.stderr));
    assert!(text(&shown.stderr).contains("back from its record"), "{}", text(&shown.stderr));
    std::fs::remove_file(&record).unwrap();
    let left: i64 = sandbox.sqlite().query_row("SELECT COUNT(*) FROM debates", [], |r| r.get(0)).unwrap();
    assert_eq!(left, 1, "imported again");
    sandbox.cmd().args(["--delete", &id]).assert().success();
    assert_eq!(
        sandbox.cmd().args(["--show", &id]).output().unwrap().status.code(),
        Some(2),
        "neither here nor recorded"
    );
}

#[test]
fn a_record_name_taken_by_another_debate_before_this_one_wrote_it_gets_a_free_one() {
    let sandbox = Sandbox::new();
    git(&sandbox.repo, &["config", "user.name", "Test"]);
    git(&sandbox.repo, &["config", "user.email", "test@example.com"]);
    // The first debate chooses its record's name and dies before writing it.
    let crashed =
        sandbox.cmd().env("DEBATE_FAILPOINT", "after-record-path").args(["--offline", QUESTION]).output().unwrap();
    assert!(!crashed.status.success());
    let first = sandbox.only_id();
    // A second debate of the same question, the same day, takes that name.
    sandbox.cmd().args(["--offline", QUESTION]).assert().success();
    let out = sandbox.cmd().args(["--resume", &first]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let records = sandbox.records();
    assert_eq!(records.len(), 2, "{records:?}");
    let free = records.iter().find(|p| p.to_string_lossy().ends_with("-2.md")).expect("a free name");
    let mine = std::fs::read_to_string(free).unwrap();
    assert!(mine.contains(&format!("id: {first}")), "the first debate's record has the free name: {mine}");
}

#[test]
fn once_the_record_is_being_written_its_provider_and_destination_are_fixed() {
    let sandbox = Sandbox::new();
    let crashed =
        sandbox.cmd().env("DEBATE_FAILPOINT", "after-record-path").args(["--offline", QUESTION]).output().unwrap();
    assert!(!crashed.status.success());
    let id = sandbox.only_id();
    for flag in [&["--offline"][..], &["--provider", "openai"], &["--no-commit"], &["--branch"]] {
        let out = sandbox.cmd().args(["--resume", &id]).args(flag).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{flag:?}: {}", text(&out.stderr));
        assert!(text(&out.stderr).contains("is already being written"), "{}", text(&out.stderr));
    }
    sandbox.cmd().args(["--resume", &id]).assert().success();
}
