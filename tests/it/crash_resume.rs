//! Crash anywhere, resume, lose nothing, repeat nothing: the real binary is killed with
//! SIGKILL (or stopped with Ctrl-C) at chosen points and resumed against the same SQLite
//! file. Nobody waits between rounds here, so round 1's arguments begin while the
//! moderator reads the question: the early wave is killed in too.

use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::common::*;

/// Calls in an uninterrupted 2-debater, 2-round debate: analysis, 2 × (2 arguments,
/// 2 rebuttals), the evaluation of round 1, and the synthesis (which judges round 2).
const UNINTERRUPTED_CALLS: usize = 11;

fn script() -> String {
    // Every call takes a while, the first seat longer, so kills land mid-step.
    let answers = varied_answers(&PANEL, 2, CONTINUE);
    let mut yaml = String::from("delay_ms: 150\n");
    for line in answers.lines() {
        if line.contains(&format!("perspective: \"{}\"", PANEL[0])) {
            yaml.push_str(&line.replace("text:", "delay_ms: 500, text:"));
        } else {
            yaml.push_str(line);
        }
        yaml.push('\n');
    }
    yaml
}

fn start(sandbox: &Sandbox, config: &std::path::Path) -> Child {
    sandbox
        .std_cmd()
        .arg("--config")
        .arg(config)
        .args(["--max-rounds", "2", QUESTION])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("debate starts")
}

/// A count from the database as it stands (0 before it exists). The database itself:
/// --show does not print the moderator's calls or the early arguments, and these are
/// rows after a SIGKILL.
fn count(sandbox: &Sandbox, sql: &str) -> usize {
    if !sandbox.db().exists() {
        return 0;
    }
    let Ok(conn) = rusqlite::Connection::open(sandbox.db()) else { return 0 };
    conn.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap_or(0) as usize
}

/// Results stored so far: contributions, moderator calls, and round 1's arguments
/// written early, whether waiting for the moderator's reading or discarded since.
fn stored(sandbox: &Sandbox) -> usize {
    count(
        sandbox,
        "SELECT (SELECT COUNT(*) FROM contributions) + (SELECT COUNT(*) FROM moderator_calls)
              + (SELECT COUNT(*) FROM discarded)",
    )
}

/// Round 1's arguments stored: early ones waiting for the moderator's reading, and
/// those round 1 holds.
fn round_one_arguments(sandbox: &Sandbox) -> usize {
    count(
        sandbox,
        "SELECT (SELECT COUNT(*) FROM discarded WHERE awaiting IS NOT NULL)
              + (SELECT COUNT(*) FROM contributions WHERE round = 1 AND kind = 'argument')",
    )
}

/// How the run is stopped.
#[derive(Clone, Copy)]
enum Stop {
    Kill,
    CtrlC,
}

/// Kill when `ready` holds, resume, and check the final state.
fn kill_and_resume(what: &str, ready: impl Fn(&Sandbox) -> bool) {
    stop_and_resume(what, Stop::Kill, ready);
}

/// Stop the run `how` when `ready` holds, resume, and check the final state.
fn stop_and_resume(what: &str, how: Stop, ready: impl Fn(&Sandbox) -> bool) {
    let sandbox = Sandbox::new();
    let config = sandbox.scripted(&script());
    let mut child = start(&sandbox, &config);
    wait_for(what, || {
        assert!(child.try_wait().unwrap().is_none(), "debate finished before {what}");
        ready(&sandbox)
    });
    match how {
        Stop::Kill => child.kill().expect("SIGKILL"),
        Stop::CtrlC => signal(child.id(), "INT"),
    }
    let status = child.wait().unwrap();
    if let Stop::CtrlC = how {
        assert!(!status.success(), "{what}: stopped, not finished");
        assert_eq!(sandbox.listed()[0]["status"], "paused", "{what}: Ctrl-C pauses the debate");
    }

    let started_calls = sandbox.prompts().len();
    let lost = started_calls - stored(&sandbox);
    if sandbox.listed().is_empty() {
        // Killed before the debate was stored: nothing may be half-written either.
        assert_eq!(started_calls, 0, "{what}: a call started for a debate that was never stored");
        assert!(sandbox.records().is_empty(), "{what}");
        return;
    }
    let id = sandbox.only_id();
    sandbox.cmd().args(["--config"]).arg(&config).args(["--resume", &id.to_lowercase()]).assert().success();

    let detail = sandbox.show(&id);
    assert_eq!(detail["status"], "complete", "{what}");
    assert_eq!(contributions(&detail), 8, "{what}: every contribution once");
    let judged = detail["transcript"].as_array().unwrap().iter().filter(|r| !r["evaluation"].is_null()).count();
    assert_eq!(judged, 2, "{what}: both rounds judged");
    // The database itself: after a SIGKILL its rows must be whole and each there once;
    // duplicate rows, the moderator's calls and SQLite's integrity check are not in --show.
    let conn = sandbox.sqlite();
    let count = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap();
    assert_eq!(count("SELECT COUNT(*) FROM contributions"), 8, "{what}: every contribution exactly once");
    assert_eq!(count("SELECT COUNT(DISTINCT round || seat || kind) FROM contributions"), 8, "{what}");
    assert_eq!(count("SELECT COUNT(*) FROM moderator_calls"), 3, "{what}");
    assert_eq!(count("SELECT COUNT(*) FROM discarded"), 0, "{what}: every early argument kept (the reading stood)");
    // An early argument stored before the stop is kept (the count of calls below says
    // it was not asked again); one still in flight is asked again, early or in round 1.
    let early = &detail["analysis"]["early"];
    let kept = early["kept"].as_array().map_or(0, Vec::len);
    assert!((1..=2).contains(&kept) && early["redone"] == serde_json::json!([]), "{what}: {early}");
    let integrity: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(integrity, "ok", "{what}");
    assert_eq!(sandbox.records().len(), 1, "{what}: one record");
    assert_eq!(
        sandbox.prompts().len(),
        UNINTERRUPTED_CALLS + lost,
        "{what}: only the {lost} calls in flight at the kill were repeated"
    );
}

fn purposes_started(sandbox: &Sandbox, purpose: &str) -> usize {
    sandbox.prompts().iter().filter(|p| p["purpose"] == purpose).count()
}

#[test]
fn uninterrupted_run_makes_the_expected_calls() {
    let sandbox = Sandbox::new();
    let config = sandbox.scripted(&script());
    let status = start(&sandbox, &config).wait().unwrap();
    assert!(status.success());
    assert_eq!(sandbox.prompts().len(), UNINTERRUPTED_CALLS);
}

#[test]
fn killed_during_analysis() {
    kill_and_resume("analysis", |s| purposes_started(s, "analysis") == 1);
}

#[test]
fn killed_mid_arguments() {
    // One argument stored (early, beside the moderator's reading), the slower one still
    // in flight.
    kill_and_resume("mid-arguments", |s| round_one_arguments(s) == 1);
}

#[test]
fn killed_in_the_early_wave_once_the_moderator_has_read_the_question() {
    // The reading and the quicker debater's early argument stored, the slower in flight:
    // the stored one is kept, never asked again; only the one in flight is.
    kill_and_resume("early wave, read", |s| purposes_started(s, "analysis") == 1 && stored(s) == 2);
}

#[test]
fn interrupted_in_the_early_wave() {
    stop_and_resume("Ctrl-C in the early wave", Stop::CtrlC, |s| round_one_arguments(s) == 1);
}

#[test]
fn interrupted_during_the_moderators_reading() {
    stop_and_resume("Ctrl-C during the reading", Stop::CtrlC, |s| purposes_started(s, "analysis") == 1);
}

#[test]
fn killed_mid_rebuttals() {
    kill_and_resume("mid-rebuttals", |s| s.try_shown().is_ok_and(|d| stored_in_round(&d, 2, "rebuttals") == 1));
}

#[test]
fn killed_mid_synthesis() {
    kill_and_resume("mid-synthesis", |s| purposes_started(s, "synthesis") == 1);
}

#[test]
fn killed_at_arbitrary_instants() {
    // The uninterrupted run takes about 2.3 s since round 1 starts early: every instant
    // falls inside it, with room for a fast machine.
    for delay_ms in [20, 400, 900, 1400, 1800] {
        let what = format!("kill after {delay_ms} ms");
        let started = Instant::now();
        kill_and_resume(&what, move |_| started.elapsed() >= Duration::from_millis(delay_ms));
    }
}
