use super::*;
use crate::model::fixture::{self, perspective, seat};
use crate::model::{Early, Usage};

/// The keyword analysis's debate, not yet analysed, with an early argument from each
/// seat as its debater answered it (stance line and all).
fn with_early() -> DebateState {
    let mut state = DebateState { analyzed: false, ..fixture::state() };
    let asked = opened(&state);
    state.early = (0..state.panel.len())
        .map(|seat| Early {
            row: seat as i64 + 10,
            perspective: state.panel[seat].name().to_string(),
            request: request(&asked, seat),
            contribution: Contribution {
                text: format!("Seat {seat} opens.\nSTANCE: {{\"option\": \"Postgres\", \"confidence\": \"medium\"}}"),
                usage: Usage { prompt_tokens: 10, completion_tokens: 5, ..Usage::default() },
                ..fixture::contribution(seat, ContributionKind::Argument, "")
            },
        })
        .collect();
    state
}

#[test]
fn a_reading_the_moderator_confirms_keeps_every_early_argument_read_as_round_one_reads_it() {
    let state = DebateState { analyzed: true, ..with_early() };
    let (kept, start) = settle(&state);
    assert_eq!(start, EarlyStart { kept: state.panel_names(), redone: Vec::new() });
    let seats: Vec<(i64, usize)> = kept.iter().map(|(row, c)| (*row, c.seat)).collect();
    assert_eq!(seats, [(10, 0), (11, 1)]);
    let first = &kept[0].1;
    assert_eq!(first.text, "Seat 0 opens.", "the stance line read off");
    assert_eq!(first.stance.as_ref().and_then(|s| s.option.as_deref()), Some("Postgres"));
    assert_eq!(first.usage.prompt_tokens, 10, "its tokens go with it, once");
}

#[test]
fn a_corrected_reading_redoes_what_it_changed() {
    let mut state = DebateState { analyzed: true, ..with_early() };
    state.analysis.options = vec!["Redis".into(), "Postgres".into(), "Memcached".into()];
    let (kept, start) = settle(&state);
    assert!(kept.is_empty(), "every prompt lists the options");
    assert_eq!(start.redone, state.panel_names());
}

#[test]
fn a_refined_panel_keeps_no_argument_written_for_another_panel() {
    let mut state = DebateState { analyzed: true, ..with_early() };
    state.panel[1] = seat(perspective("Cost Control", &["spend"], "Performance Advocate"));
    let (kept, start) = settle(&state);
    assert!(kept.is_empty(), "the panel is part of every prompt: {kept:?}");
    assert_eq!(start.redone, ["Performance Advocate"], "Operational Simplicity left the panel: not asked again");
}

#[test]
fn only_the_seats_without_an_early_argument_owe_one() {
    let mut state = with_early();
    assert!(owed(&state).is_empty());
    state.early.remove(0);
    assert_eq!(owed(&state), [0]);
    state.early.clear();
    assert_eq!(owed(&state), [0, 1]);
}

#[test]
fn the_early_request_is_the_one_round_one_makes() {
    let state = fixture::state();
    let asked = opened(&state);
    let mut started = fixture::with_rounds(1);
    started.rounds[0].arguments.clear();
    started.rounds[0].rebuttals.clear();
    (started.rounds[0].evaluation, started.rounds[0].measures) = (None, None);
    started.rounds[0].framing = prompts::framing(&state, 1);
    assert_eq!(asked.rounds, started.rounds, "round 1 as StartRound(1) opens it");
    for seat in 0..2 {
        assert_eq!(request(&asked, seat), request(&started, seat));
    }
}
