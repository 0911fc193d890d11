//! The store against real SQLite: what is written reads back the same, migrations
//! bring old databases up to date, and what this version cannot read is refused.

use rusqlite::Connection;

use super::*;
use crate::model::fixture;
use crate::model::{
    Analysis, Completion, ContributionKind, DebateState, EndReason, Outcome, ProviderKind, Round, Status, Usage,
};

/// Round 1 of the fixture's two seats.
const FIRST: Opening = Opening { framing: "Round 1.", guidance: None, seats: &[0, 1] };

fn create(store: &Store, state: &DebateState) {
    store.create_debate(&NewDebate::of(state)).unwrap();
}

fn call(text: &str) -> Completion {
    Completion {
        text: text.into(),
        model: "m".into(),
        usage: Usage { prompt_tokens: 7, cached_tokens: 4, completion_tokens: 3, latency_ms: 2, retries: 0 },
        ..Completion::default()
    }
}

/// Write `state` (complete, with its rounds) through the store's operations, as the
/// engine does step by step.
fn write(store: &Store, state: &DebateState) {
    create(store, state);
    store.save_panel(&state.id, &state.panel, &state.analysis, &call("{}")).unwrap();
    for round in &state.rounds {
        let opening = Opening { framing: &round.framing, guidance: round.guidance.as_deref(), seats: &round.seats };
        store.start_round(&state.id, round.number, &opening, None).unwrap();
        for c in round.contributions() {
            store.save_contribution(&state.id, round.number, state.name(c.seat), c).unwrap();
        }
        store
            .save_evaluation(
                &state.id,
                round.number,
                round.measures.as_ref().unwrap(),
                round.evaluation.as_ref().unwrap(),
                &call("{}"),
            )
            .unwrap();
    }
    store.save_end(&state.id, state.end_reason.unwrap()).unwrap();
    store.save_outcome(&state.id, state.outcome.as_ref().unwrap(), &call("{}"), 0).unwrap();
    store.save_record_path(&state.id, state.record_path.as_deref().unwrap()).unwrap();
    store.complete(&state.id, state.commit_id.as_deref()).unwrap();
}

/// The clarifying questions are stored before anyone is asked, then answered (the
/// analysis and panel the answer gives replace the keyword ones) or left open.
#[test]
fn clarifying_questions_are_stored_then_answered_or_left_open() {
    let store = Store::open_in_memory().unwrap();
    let mut state = fixture::complete(2);
    state.analysis.vague = true;
    create(&store, &state);
    let questions = ["Which workload?".to_string(), "Do you run Postgres?".to_string()];
    store.save_clarifying_questions(&state.id, &questions, &state.analysis, &call("{}")).unwrap();
    let asked = store.load(&state.id).unwrap().clarification.unwrap();
    assert_eq!(
        (asked.questions(), asked.answer.as_deref(), asked.settled),
        (vec!["Which workload?", "Do you run Postgres?"], None, false)
    );
    assert!(asked.open().is_empty(), "not yet asked is not open");

    let clear = Analysis { vague: false, ..state.analysis.clone() };
    let panel = vec![state.panel[1].clone(), state.panel[0].clone()];
    store.settle_clarification(&state.id, Some(("Session data; yes", &clear, &panel))).unwrap();
    let loaded = store.load(&state.id).unwrap();
    let answered = loaded.clarification.unwrap();
    assert_eq!((answered.answer.as_deref(), answered.settled), (Some("Session data; yes"), true));
    assert_eq!((loaded.analysis.vague, loaded.panel), (false, panel));

    let other = Store::open_in_memory().unwrap();
    create(&other, &state);
    other.save_clarifying_questions(&state.id, &questions, &state.analysis, &call("{}")).unwrap();
    other.settle_clarification(&state.id, None).unwrap();
    let open = other.load(&state.id).unwrap().clarification.unwrap();
    assert_eq!(open.open(), ["Which workload?", "Do you run Postgres?"]);
}

#[test]
fn a_debate_reads_back_as_it_was_written() {
    let store = Store::open_in_memory().unwrap();
    let mut state = fixture::complete(2);
    state.rounds[1].guidance = Some("Weigh the team's Postgres experience".into());
    state.panel[1].dropped = None;
    write(&store, &state);
    let loaded = store.load(&state.id).unwrap();

    assert_eq!(loaded.status, Status::Complete);
    assert_eq!(loaded.panel, state.panel);
    assert_eq!(loaded.rounds, state.rounds);
    assert_eq!(loaded.end_reason, Some(EndReason::Agreement));
    assert_eq!(serde_json::to_value(&loaded.outcome).unwrap(), serde_json::to_value(&state.outcome).unwrap());
    assert_eq!(loaded.analysis, state.analysis);
    assert_eq!(loaded.snapshot.moderator, state.snapshot.moderator);
    assert_eq!(loaded.snapshot.debate, state.snapshot.debate);
    assert_eq!((loaded.record_path, loaded.commit_id), (state.record_path, state.commit_id));
    assert!(loaded.analyzed);
    // 8 contributions at 100/40 tokens (60 cached), 4 moderator calls at 7/3 (4 cached).
    let totals = &loaded.totals;
    assert_eq!(
        (totals.prompt_tokens, totals.cached_tokens, totals.completion_tokens),
        (8 * 100 + 4 * 7, 8 * 60 + 4 * 4, 8 * 40 + 4 * 3)
    );
    assert_eq!(loaded.rounds[0].arguments[0].usage.cached_tokens, 60);
}

#[test]
fn rounds_after_the_judged_one_move_to_discarded_and_stay_counted() {
    let store = Store::open_in_memory().unwrap();
    let mut state = fixture::complete(2);
    state.panel[1].dropped = None;
    write(&store, &state);
    let before = store.load(&state.id).unwrap().totals;
    store.discard_after(&state.id, 1).unwrap();
    let loaded = store.load(&state.id).unwrap();
    assert_eq!(loaded.rounds, state.rounds[..1], "round 2 left the debate");
    let discarded: Vec<(u32, usize, ContributionKind)> =
        loaded.discarded.iter().map(|(round, c)| (*round, c.seat, c.kind)).collect();
    assert_eq!(discarded.len(), 4, "its contributions are kept: {discarded:?}");
    assert!(discarded.iter().all(|(round, _, _)| *round == 2));
    assert_eq!(loaded.totals, before, "and still counted");
    // A review may open a round 2 again.
    store.start_round(&state.id, 2, &Opening { framing: "Round 2.", guidance: None, seats: &[0, 1] }, None).unwrap();
}

#[test]
fn a_round_reads_back_with_the_roster_it_opened_with() {
    let store = Store::open_in_memory().unwrap();
    let mut state = fixture::state();
    state.panel.push(state.panel[1].clone());
    state.panel[2].perspective.name = "Cost Control".into();
    create(&store, &state);
    store.start_round(&state.id, 1, &Opening { framing: "Round 1.", guidance: None, seats: &[0, 2] }, None).unwrap();
    assert_eq!(store.load(&state.id).unwrap().rounds[0].seats, [0, 2]);
    // A round stored before rosters were gets the one its evaluations give it.
    store.conn.execute("UPDATE rounds SET seats = NULL", []).unwrap();
    assert_eq!(store.load(&state.id).unwrap().rounds[0].seats, [0, 1, 2]);
}

/// Round 1's early arguments wait unseen (counted as spent), and move once as round 1
/// opens: the kept one into round 1, the other into the discarded, neither counted twice.
#[test]
fn early_arguments_wait_unseen_and_settle_once_when_round_one_opens() {
    let store = Store::open_in_memory().unwrap();
    let state = fixture::state();
    create(&store, &state);
    let answer = call("Seat 0 opens.\nSTANCE: {\"option\": \"Postgres\"}");
    store.save_early(&state.id, 0, state.name(0), "request-0", &answer).unwrap();
    store.save_early(&state.id, 1, state.name(1), "request-1", &Completion { looped: true, ..answer.clone() }).unwrap();
    let waiting = store.load(&state.id).unwrap();
    let seen: Vec<(&str, &str, bool)> =
        waiting.early.iter().map(|e| (e.perspective.as_str(), e.request.as_str(), e.contribution.looped)).collect();
    assert_eq!(seen, [(state.name(0), "request-0", false), (state.name(1), "request-1", true)]);
    assert_eq!(waiting.early[0].contribution.text, answer.text, "kept whole until it is read");
    assert!(waiting.rounds.is_empty() && waiting.discarded.is_empty(), "nothing shown");
    assert_eq!(waiting.totals.prompt_tokens, 14, "but spent");

    let kept = crate::model::Contribution {
        usage: answer.usage,
        ..fixture::contribution(0, ContributionKind::Argument, "Seat 0 opens.")
    };
    let early = crate::model::EarlyStart { kept: vec![state.name(0).into()], redone: vec![state.name(1).into()] };
    let analysis = Analysis { early: Some(early.clone()), ..state.analysis.clone() };
    let settled = Settled { kept: vec![(waiting.early[0].row, kept)], analysis: &analysis };
    store.start_round(&state.id, 1, &FIRST, Some(&settled)).unwrap();
    let opened = store.load(&state.id).unwrap();
    assert!(opened.early.is_empty());
    assert_eq!(opened.rounds[0].arguments.iter().map(|c| c.seat).collect::<Vec<_>>(), [0]);
    let discarded: Vec<(u32, usize, bool)> = opened.discarded.iter().map(|(r, c)| (*r, c.seat, c.looped)).collect();
    assert_eq!(discarded, [(1, 1, true)]);
    assert_eq!(opened.analysis.early, Some(early));
    assert_eq!(opened.totals.prompt_tokens, 14, "each call counted once");
}

#[test]
fn contributions_come_back_in_seat_order_whatever_order_they_were_stored_in() {
    let store = Store::open_in_memory().unwrap();
    let state = fixture::state();
    create(&store, &state);
    store.start_round(&state.id, 1, &FIRST, None).unwrap();
    let round = fixture::round(1);
    for c in round.arguments.iter().rev() {
        store.save_contribution(&state.id, 1, state.name(c.seat), c).unwrap();
    }
    let seats: Vec<usize> = store.load(&state.id).unwrap().rounds[0].arguments.iter().map(|c| c.seat).collect();
    assert_eq!(seats, [0, 1]);
}

#[test]
fn a_contribution_is_stored_once() {
    let store = Store::open_in_memory().unwrap();
    let state = fixture::state();
    create(&store, &state);
    store.start_round(&state.id, 1, &FIRST, None).unwrap();
    let c = &fixture::round(1).arguments[0];
    store.save_contribution(&state.id, 1, state.name(0), c).unwrap();
    assert!(matches!(store.save_contribution(&state.id, 1, state.name(0), c), Err(StoreError::SavedElsewhere(_))));
}

#[test]
fn the_list_reads_summaries_without_loading_debates() {
    let store = Store::open_in_memory().unwrap();
    let done = fixture::complete(1);
    write(&store, &done);
    let mut other = fixture::state();
    other.id = "DEB-zzz999".into();
    other.repo_root = "/elsewhere".into();
    create(&store, &other);

    let rows = store.list(Some("/repo"), 20).unwrap();
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    assert_eq!(
        (row.id.as_str(), row.status, row.rounds, row.end_reason),
        ("DEB-abc123", Status::Complete, 1, Some(EndReason::Agreement))
    );
    assert_eq!(row.confidence, done.outcome.as_ref().map(|o: &Outcome| o.confidence));
    assert_eq!((row.totals.prompt_tokens, row.totals.cached_tokens), (4 * 100 + 3 * 7, 4 * 60 + 3 * 4));
    assert_eq!(store.list(None, 20).unwrap().len(), 2);
    assert_eq!(store.list(None, 1).unwrap().len(), 1);
}

#[test]
fn ids_resolve_by_prefix_in_any_case() {
    let store = Store::open_in_memory().unwrap();
    for id in ["DEB-abc123", "DEB-abd456"] {
        create(&store, &DebateState { id: id.into(), ..fixture::state() });
    }
    assert_eq!(store.resolve_id("deb-ABC").unwrap(), "DEB-abc123");
    assert_eq!(store.resolve_id("abd").unwrap(), "DEB-abd456");
    assert!(matches!(store.resolve_id("ab"), Err(StoreError::Ambiguous { ids, .. }) if ids.len() == 2));
    assert!(matches!(store.resolve_id("xyz"), Err(StoreError::UnknownId(_))));
    assert!(matches!(store.resolve_id("a%"), Err(StoreError::Ambiguous { .. })), "a LIKE wildcard is not a wildcard");
    for short in ["", " ", "a", "deb-", "DEB-a", "d"] {
        assert!(matches!(store.resolve_id(short), Err(StoreError::TooShort(_))), "{short:?} names nothing");
    }
}

#[test]
fn an_unknown_stored_value_is_an_error_naming_its_column() {
    let store = Store::open_in_memory().unwrap();
    let state = fixture::state();
    create(&store, &state);
    store.conn.execute("UPDATE debates SET status = 'exploded'", []).unwrap();
    let err = store.load(&state.id).unwrap_err().to_string();
    assert!(err.contains("debates.status") && err.contains("exploded"), "{err}");

    store.conn.execute("UPDATE debates SET status = 'in_round'", []).unwrap();
    store.start_round(&state.id, 1, &FIRST, None).unwrap();
    store.save_contribution(&state.id, 1, state.name(0), &fixture::round(1).arguments[0]).unwrap();
    store.conn.execute("UPDATE contributions SET kind = 'aside'", []).unwrap_err();
    store.conn.execute("PRAGMA ignore_check_constraints = ON", []).unwrap();
    store.conn.execute("UPDATE contributions SET kind = 'aside'", []).unwrap();
    let err = store.load(&state.id).unwrap_err().to_string();
    assert!(err.contains("contributions.kind") && err.contains("aside"), "{err}");
}

#[test]
fn an_old_database_is_migrated_and_its_debates_still_load() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.sqlite3");
    // A database as version 2 left it: the first two migrations, and a snapshot that
    // names the roles' providers without their kind.
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch(MIGRATIONS[0]).unwrap();
    conn.execute_batch(MIGRATIONS[1]).unwrap();
    conn.pragma_update(None, "user_version", 2).unwrap();
    let state = fixture::state();
    let mut snapshot = serde_json::to_value(&state.snapshot).unwrap();
    for role in ["moderator", "debater"] {
        snapshot[role].as_object_mut().unwrap().remove("kind");
        snapshot[role]["provider"] = if role == "moderator" { "anthropic".into() } else { "offline".into() };
    }
    conn.execute(
        "INSERT INTO debates (id, question, title, repo_root, status, snapshot, analysis, created_at, updated_at)
         VALUES ('DEB-old001', 'q', 't', '/repo', 'paused', ?1, ?2, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')",
        [snapshot.to_string(), serde_json::to_string(&state.analysis).unwrap()],
    )
    .unwrap();
    drop(conn);

    let store = Store::open(&path).unwrap();
    let version: usize = store.conn.pragma_query_value(None, "user_version", |r| r.get(0)).unwrap();
    assert_eq!(version, MIGRATIONS.len());
    let loaded = store.load("DEB-old001").unwrap();
    assert_eq!(loaded.status, Status::Paused);
    assert_eq!(
        (loaded.snapshot.moderator.kind, loaded.snapshot.debater.kind),
        (ProviderKind::Anthropic, ProviderKind::Offline)
    );
    assert_eq!(loaded.rounds, Vec::<Round>::new());
}

/// A call's figures are stored at most `Usage::LIMIT`, so sums over every call never
/// overflow; a database an earlier version filled with i64::MAX is repaired on opening.
#[test]
fn figures_past_any_real_call_are_stored_bounded_and_old_ones_repaired() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.sqlite3");
    let store = Store::open(&path).unwrap();
    let mut state = fixture::complete(1);
    let absurd = Usage {
        prompt_tokens: u64::MAX,
        cached_tokens: u64::MAX,
        completion_tokens: i64::MAX as u64,
        latency_ms: u64::MAX,
        retries: u64::MAX,
    };
    state.rounds[0].arguments[0].usage = absurd;
    write(&store, &state);
    let mut big = fixture::complete(1);
    big.id = "DEB-big002".into();
    write(&store, &big);
    let loaded = store.load(&state.id).unwrap();
    assert_eq!(loaded.rounds[0].arguments[0].usage, absurd.bounded());
    let listed = store.list(None, 10).unwrap();
    let row = listed.iter().find(|row| row.id == state.id).unwrap();
    assert!(row.totals.prompt_tokens >= Usage::LIMIT && row.totals.prompt_tokens < 2 * Usage::LIMIT);

    // As version 18 left it: i64::MAX in rows of two debates, whose sums overflow (and
    // no retries, which version 20 counts).
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch(
        "UPDATE contributions SET latency_ms = 9223372036854775807, completion_tokens = 9223372036854775807;
         UPDATE moderator_calls SET prompt_tokens = -3;
         DROP VIEW calls;
         DROP TABLE requests;
         ALTER TABLE debates DROP COLUMN imported_at;
         ALTER TABLE contributions DROP COLUMN retries;
         ALTER TABLE moderator_calls DROP COLUMN retries;
         ALTER TABLE discarded DROP COLUMN retries;
         ALTER TABLE discarded DROP COLUMN awaiting;
         ALTER TABLE discarded DROP COLUMN truncated;
         ALTER TABLE discarded DROP COLUMN looped;
         ALTER TABLE carried_usage DROP COLUMN retries;
         CREATE VIEW calls AS SELECT debate_id FROM contributions;",
    )
    .unwrap();
    conn.pragma_update(None, "user_version", 18).unwrap();
    assert!(conn.query_row("SELECT SUM(completion_tokens) FROM contributions", [], |r| r.get::<_, i64>(0)).is_err());
    drop(conn);
    let store = Store::open(&path).unwrap();
    assert_eq!(store.list(None, 10).unwrap().len(), 2);
    let repaired = store.load(&big.id).unwrap();
    assert_eq!(repaired.rounds[0].arguments[0].usage.completion_tokens, Usage::LIMIT);
    assert!(repaired.totals.latency_ms >= Usage::LIMIT);
}

#[test]
fn a_database_from_a_newer_version_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new.sqlite3");
    Connection::open(&path).unwrap().pragma_update(None, "user_version", 99).unwrap();
    let Err(err) = Store::open(&path) else { panic!("a newer schema must be refused") };
    assert!(matches!(err, StoreError::Newer { found: 99, .. }), "{err}");
    assert!(Store::open_existing(&dir.path().join("absent.sqlite3")).unwrap().is_none());
    assert!(!dir.path().join("absent.sqlite3").exists(), "looking for a database creates none");
}

#[test]
fn a_full_disk_says_the_debate_can_be_resumed() {
    let full = rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_FULL), None);
    let hint = StoreError::Sqlite(full).hint().unwrap();
    assert!(hint.contains("disk is full") && hint.contains("debate resume"), "{hint}");
}

/// Many processes opening one new database at the same moment all get it: the first
/// switches it to WAL, the others wait for that rather than fail "database is locked".
#[test]
fn a_new_database_opened_by_many_at_once_opens_for_all() {
    for _ in 0..20 {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("debates.sqlite3");
        let barrier = std::sync::Arc::new(std::sync::Barrier::new(12));
        let opened: Vec<_> = (0..12)
            .map(|_| {
                let (path, barrier) = (path.clone(), barrier.clone());
                std::thread::spawn(move || {
                    barrier.wait();
                    Store::open(&path).map(drop).map_err(|err| err.to_string())
                })
            })
            .collect();
        for opening in opened {
            assert_eq!(opening.join().unwrap(), Ok(()));
        }
    }
}
