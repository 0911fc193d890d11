use super::*;
use crate::model::fixture::{self, with_rounds};
use crate::model::{ContributionKind, Evaluation};

fn evaluated(state: &mut DebateState, change: impl FnOnce(&mut Evaluation)) {
    evaluated_round(state.rounds.last_mut().unwrap(), change);
}

fn evaluated_round(round: &mut Round, change: impl FnOnce(&mut Evaluation)) {
    change(round.evaluation.as_mut().unwrap());
}

/// Every contribution recommends Postgres.
fn same_stance(state: &mut DebateState) {
    for round in &mut state.rounds {
        for c in round.arguments.iter_mut().chain(round.rebuttals.iter_mut()) {
            c.stance.as_mut().unwrap().option = Some("Postgres".into());
        }
    }
}

#[test]
fn the_next_step_follows_from_the_stored_state() {
    type Build = fn() -> DebateState;
    let cases: &[(&str, Build, Step)] = &[
        ("not analysed", || DebateState { analyzed: false, ..fixture::state() }, Step::Analyze),
        ("analysed, no round yet", fixture::state, Step::StartRound(1)),
        (
            "round open, nobody argued",
            || {
                let mut s = with_rounds(1);
                let round = &mut s.rounds[0];
                (round.arguments, round.rebuttals, round.measures, round.evaluation) =
                    (Vec::new(), Vec::new(), None, None);
                s
            },
            Step::Argue { round: 1, seats: vec![0, 1] },
        ),
        (
            "one argument missing",
            || {
                let mut s = with_rounds(1);
                s.rounds[0].arguments.remove(1);
                s.rounds[0].rebuttals.clear();
                s
            },
            Step::Argue { round: 1, seats: vec![1] },
        ),
        (
            "arguments in, rebuttals missing",
            || {
                let mut s = with_rounds(1);
                s.rounds[0].rebuttals.clear();
                s.rounds[0].evaluation = None;
                s
            },
            Step::Rebut { round: 1, seats: vec![0, 1], stances: vec![] },
        ),
        (
            "all in, not evaluated",
            || {
                let mut s = with_rounds(1);
                s.rounds[0].evaluation = None;
                s
            },
            Step::Evaluate(1),
        ),
        ("evaluated, nothing ends it", || with_rounds(1), Step::StartRound(2)),
        (
            "the moderator sees agreement in round 1",
            || {
                let mut s = with_rounds(1);
                evaluated(&mut s, |e| e.agreement = true);
                same_stance(&mut s);
                s
            },
            Step::StartRound(2),
        ),
        (
            "with min_rounds 1, round 1 may end in agreement",
            || {
                let mut s = with_rounds(1);
                s.snapshot.debate.min_rounds = crate::model::Rounds::new(1).unwrap();
                evaluated(&mut s, |e| e.agreement = true);
                same_stance(&mut s);
                s
            },
            Step::Conclude(EndReason::Agreement),
        ),
        (
            "the moderator sees agreement, the stances differ",
            || {
                let mut s = with_rounds(2);
                evaluated(&mut s, |e| e.agreement = true);
                s
            },
            Step::StartRound(3),
        ),
        (
            "the moderator sees agreement, a stance is unknown",
            || {
                let mut s = with_rounds(2);
                evaluated(&mut s, |e| e.agreement = true);
                same_stance(&mut s);
                s.rounds[1].rebuttals[0].stance = Some(crate::model::Stance::unknown());
                s
            },
            Step::StartRound(3),
        ),
        (
            "agreement and one stance, round 2",
            || {
                let mut s = with_rounds(2);
                evaluated(&mut s, |e| e.agreement = true);
                same_stance(&mut s);
                s
            },
            Step::Conclude(EndReason::Agreement),
        ),
        (
            "a clear winner in round 1 is not taken yet",
            || {
                let mut s = with_rounds(1);
                evaluated(&mut s, |e| e.clear_winner = Some("Operational Simplicity".into()));
                s
            },
            Step::StartRound(2),
        ),
        (
            "a clear winner in round 2, the other conceded to it",
            || {
                let mut s = with_rounds(2);
                evaluated(&mut s, |e| e.clear_winner = Some("Operational Simplicity".into()));
                same_stance(&mut s);
                s
            },
            Step::Conclude(EndReason::ClearWinner),
        ),
        (
            "a clear winner the stances do not back",
            || {
                let mut s = with_rounds(2);
                evaluated(&mut s, |e| e.clear_winner = Some("Operational Simplicity".into()));
                s
            },
            Step::StartRound(3),
        ),
        (
            "a clear winner among stances that only followed the list",
            || {
                let mut s = with_rounds(2);
                evaluated(&mut s, |e| e.clear_winner = Some("Operational Simplicity".into()));
                same_stance(&mut s);
                for c in s.rounds.iter_mut().flat_map(|r| r.arguments.iter_mut().chain(r.rebuttals.iter_mut())) {
                    c.stance.as_mut().unwrap().first_listed = true;
                }
                s.rounds[0].arguments[0].stance.as_mut().unwrap().option = Some("Redis".into());
                s
            },
            Step::StartRound(3),
        ),
        (
            "the moderator finds it stagnating twice",
            || {
                let mut s = with_rounds(2);
                for r in &mut s.rounds {
                    r.evaluation.as_mut().unwrap().assessment = Assessment::Stagnating;
                }
                s
            },
            Step::Conclude(EndReason::Stagnation),
        ),
        (
            "stagnating once, with new points",
            || {
                let mut s = with_rounds(2);
                evaluated(&mut s, |e| e.assessment = Assessment::Stagnating);
                s
            },
            Step::StartRound(3),
        ),
        (
            "arguments without a stance",
            || {
                let mut s = with_rounds(1);
                s.rounds[0].arguments[1].stance = None;
                s.rounds[0].rebuttals[0].stance = None;
                s
            },
            Step::ReadStances { round: 1, kind: ContributionKind::Argument, seats: vec![1] },
        ),
        (
            "a rebuttal without a stance",
            || {
                let mut s = with_rounds(1);
                s.rounds[0].rebuttals[0].stance = None;
                s
            },
            Step::ReadStances { round: 1, kind: ContributionKind::Rebuttal, seats: vec![0] },
        ),
        (
            "everyone repeats themselves",
            || {
                let mut s = with_rounds(2);
                s.rounds[1].measures.as_mut().unwrap().repetition = vec![Some(0.9), Some(0.8)];
                s
            },
            Step::Conclude(EndReason::Stagnation),
        ),
        (
            "novelty low two rounds running",
            || {
                let mut s = with_rounds(2);
                for r in &mut s.rounds {
                    r.measures.as_mut().unwrap().novelty = 0.1;
                }
                s
            },
            Step::Conclude(EndReason::Stagnation),
        ),
        ("the last round, evaluated (a debate stored before)", || with_rounds(3), Step::Conclude(EndReason::MaxRounds)),
        (
            "the last round argued: the synthesis judges it",
            || {
                let mut s = with_rounds(3);
                (s.rounds[2].evaluation, s.rounds[2].measures) = (None, None);
                s
            },
            Step::Synthesize,
        ),
        (
            "a dropped seat no longer argues",
            || {
                let mut s = with_rounds(1);
                s.panel.push(s.panel[0].clone());
                s.panel[2].perspective.name = "Cost Control".into();
                s.panel[0].dropped = Some("kept failing".into());
                s.rounds[0].seats = vec![0, 1, 2];
                s.rounds.push(Round { number: 2, seats: vec![0, 1, 2], ..fixture::round(2) });
                let round = s.rounds.last_mut().unwrap();
                (round.arguments, round.rebuttals, round.evaluation) = (Vec::new(), Vec::new(), None);
                s
            },
            Step::Argue { round: 2, seats: vec![1, 2] },
        ),
        (
            "ended, no synthesis yet",
            || DebateState { end_reason: Some(EndReason::Agreement), ..with_rounds(1) },
            Step::Synthesize,
        ),
        (
            "synthesised, not recorded",
            || DebateState { status: Status::Recording, ..fixture::complete(1) },
            Step::Record,
        ),
        ("complete", || fixture::complete(1), Step::Done),
    ];
    for (what, build, expected) in cases {
        assert_eq!(next(&build(), Between::Checkpoint), *expected, "{what}");
    }
}

/// Three seats; `flags[r]` names the perspectives round r+1's evaluation found off
/// the question. Every round is complete and evaluated, each argued by the roster it
/// opened with; five rounds at most.
fn flagged_rounds(flags: &[&[&str]]) -> DebateState {
    let mut state = fixture::state();
    state.snapshot.debate.max_rounds = crate::model::Rounds::new(5).unwrap();
    state.panel.push(state.panel[1].clone());
    state.panel[2].perspective.name = "Cost Control".into();
    for (index, off_topic) in flags.iter().enumerate() {
        let number = index as u32 + 1;
        let seats = state.roster_for(number);
        let mut round = fixture::round(number);
        let said = |kind, seat| fixture::contribution(seat, kind, &format!("Seat {seat} in round {number}."));
        round.arguments = seats.iter().map(|&seat| said(ContributionKind::Argument, seat)).collect();
        round.rebuttals = seats.iter().map(|&seat| said(ContributionKind::Rebuttal, seat)).collect();
        round.evaluation.as_mut().unwrap().off_topic = off_topic.iter().map(|n| n.to_string()).collect();
        round.seats = seats;
        state.rounds.push(round);
    }
    state
}

#[test]
fn a_round_keeps_the_roster_it_opened_with() {
    const PERFORMANCE: &str = "Performance Advocate";
    const SIMPLICITY: &str = "Operational Simplicity";
    const COST: &str = "Cost Control";
    // (what, each round's off-topic flags, the next step, the roster the next round opens with)
    type Case = (&'static str, &'static [&'static [&'static str]], Step, &'static [usize]);
    let cases: &[Case] = &[
        ("nobody drifts", &[&[], &[]], Step::StartRound(3), &[0, 1, 2]),
        ("flagged once: still speaks", &[&[PERFORMANCE], &[]], Step::StartRound(3), &[0, 1, 2]),
        ("flagged twice: muted from the next round", &[&[PERFORMANCE], &[PERFORMANCE]], Step::StartRound(3), &[1, 2]),
        (
            // Seen with real models: round 3's evaluation flags the two left, and the
            // seat muted in round 2 was asked for round-3 work it never owed.
            "the evaluation of a round mutes the rest: the round stays as it was argued",
            &[&[PERFORMANCE], &[PERFORMANCE, SIMPLICITY, COST], &[SIMPLICITY, COST]],
            Step::StartRound(4),
            &[1, 2],
        ),
    ];
    for (what, flags, expected, roster) in cases {
        let state = flagged_rounds(flags);
        assert_eq!(next(&state, Between::Checkpoint), *expected, "{what}");
        assert_eq!(state.roster_for(flags.len() as u32 + 1), *roster, "{what}");
    }
}

/// Round 1 argued and not yet judged, round 2 open with `argued` of its arguments.
fn opened_early(argued: usize) -> DebateState {
    let mut s = with_rounds(2);
    (s.rounds[0].evaluation, s.rounds[0].measures) = (None, None);
    let round = &mut s.rounds[1];
    round.arguments.truncate(argued);
    (round.rebuttals, round.measures, round.evaluation) = (Vec::new(), None, None);
    s
}

#[test]
fn with_nobody_between_rounds_the_next_round_is_argued_while_the_last_is_judged() {
    type Build = fn() -> DebateState;
    let cases: &[(&str, Build, Step)] = &[
        (
            "round 1 argued: round 2 opens before round 1 is judged",
            || {
                let mut s = with_rounds(1);
                (s.rounds[0].evaluation, s.rounds[0].measures) = (None, None);
                s
            },
            Step::StartRound(2),
        ),
        (
            "round 2 open",
            || opened_early(0),
            Step::EvaluateWhileArguing { evaluate: 1, round: 2, seats: vec![0, 1], stances: vec![] },
        ),
        (
            "one argument in",
            || opened_early(1),
            Step::EvaluateWhileArguing { evaluate: 1, round: 2, seats: vec![1], stances: vec![] },
        ),
        ("every argument in, round 1 still unjudged", || opened_early(2), Step::Evaluate(1)),
        (
            "round 1's evaluation went on: round 2 continues",
            || {
                let mut s = opened_early(1);
                s.rounds[0] = fixture::round(1);
                s
            },
            Step::Argue { round: 2, seats: vec![1] },
        ),
        (
            "round 1's evaluation ended the debate: round 2 is not argued",
            || {
                let mut s = opened_early(1);
                s.rounds[0] = fixture::round(1);
                s.snapshot.debate.min_rounds = crate::model::Rounds::new(1).unwrap();
                evaluated_round(&mut s.rounds[0], |e| e.agreement = true);
                let round = &mut s.rounds[0];
                for c in round.arguments.iter_mut().chain(&mut round.rebuttals) {
                    c.stance.as_mut().unwrap().option = Some("Postgres".into());
                }
                s
            },
            Step::Conclude(EndReason::Agreement),
        ),
        (
            "the last round is never followed by another",
            || {
                let mut s = with_rounds(3);
                (s.rounds[2].evaluation, s.rounds[2].measures) = (None, None);
                s
            },
            Step::Synthesize,
        ),
    ];
    for (what, build, expected) in cases {
        assert_eq!(next(&build(), Between::Nobody), *expected, "{what}");
    }
}

/// A rebuttal's stance asked for again goes alongside the next round's arguments when
/// nobody waits between rounds: not a wave of its own. With a checkpoint, or after
/// the last round, it is read before anything else.
#[test]
fn stances_asked_again_go_alongside_the_next_rounds_arguments() {
    let argued = || {
        let mut s = with_rounds(1);
        (s.rounds[0].evaluation, s.rounds[0].measures) = (None, None);
        s.rounds[0].rebuttals[0].stance = None;
        s.rounds[0].rebuttals[1].stance = None;
        s
    };
    assert_eq!(next(&argued(), Between::Nobody), Step::StartRound(2));
    let reading = Step::ReadStances { round: 1, kind: ContributionKind::Rebuttal, seats: vec![0, 1] };
    assert_eq!(next(&argued(), Between::Checkpoint), reading);
    let mut last = argued();
    last.snapshot.debate.max_rounds = crate::model::Rounds::new(1).unwrap();
    assert_eq!(next(&last, Between::Nobody), reading, "the synthesis reads every stance");

    let mut opened = opened_early(1);
    opened.rounds[0].rebuttals[1].stance = None;
    let alongside = Step::EvaluateWhileArguing { evaluate: 1, round: 2, seats: vec![1], stances: vec![1] };
    assert_eq!(next(&opened, Between::Nobody), alongside);
    let mut argued_all = opened_early(2);
    argued_all.rounds[0].rebuttals[1].stance = None;
    let left = Step::ReadStances { round: 1, kind: ContributionKind::Rebuttal, seats: vec![1] };
    assert_eq!(next(&argued_all, Between::Nobody), left, "before the evaluation, if the wave stopped short");
    let mut judged = opened_early(1);
    judged.rounds[0] = fixture::round(1);
    judged.rounds[0].rebuttals[0].stance = None;
    let left = Step::ReadStances { round: 1, kind: ContributionKind::Rebuttal, seats: vec![0] };
    assert_eq!(next(&judged, Between::Nobody), left, "judged, but stopped before its stances were read");
}

#[test]
fn the_synthesis_judges_the_last_round_and_finds_the_end() {
    let mut state = with_rounds(3);
    (state.rounds[2].evaluation, state.rounds[2].measures) = (None, None);
    let judged = judged_in_synthesis(&state, Some("Both held their ground.".into()), true).unwrap();
    let evaluation = judged.rounds[2].evaluation.as_ref().unwrap();
    assert!(evaluation.folded && !evaluation.fallback && evaluation.debaters.is_empty());
    assert_eq!(evaluation.summary, "Both held their ground.");
    assert_eq!(judged.end_reason, Some(EndReason::MaxRounds), "the stances differ");
    same_stance(&mut state);
    let agreed = judged_in_synthesis(&state, None, true).unwrap();
    assert_eq!(agreed.end_reason, Some(EndReason::Agreement), "every stance names Postgres");
    let unsure = judged_in_synthesis(&state, None, false).unwrap();
    assert_eq!(unsure.end_reason, Some(EndReason::MaxRounds), "the moderator did not say so");
    assert!(judged_in_synthesis(&with_rounds(3), None, true).is_none(), "an evaluated round is not judged again");
}

#[test]
fn a_perspective_off_topic_twice_is_muted_but_never_below_two() {
    let mut state = with_rounds(2);
    for round in &mut state.rounds {
        round.evaluation.as_mut().unwrap().off_topic = vec!["Performance Advocate".into()];
    }
    assert_eq!(state.roster_for(3), [0, 1], "two seats stay whatever happens");
    state.panel.push(state.panel[1].clone());
    state.panel[2].perspective.name = "Cost Control".into();
    state.rounds[1].seats = vec![0, 1, 2];
    assert_eq!(state.roster_for(3), [1, 2]);
}

#[test]
fn resuming_sets_the_status_of_the_next_step() {
    assert_eq!(resumed_status(&DebateState { analyzed: false, ..fixture::state() }), Status::Analyzing);
    assert_eq!(resumed_status(&with_rounds(1)), Status::InRound);
    assert_eq!(
        resumed_status(&DebateState { end_reason: Some(EndReason::Human), ..with_rounds(1) }),
        Status::Synthesizing
    );
    assert_eq!(resumed_status(&fixture::complete(1)), Status::Complete);
}

#[test]
fn the_final_confidence_names_every_degradation() {
    type Case = (&'static str, fn(&mut DebateState), Source, bool, Confidence, &'static [&'static str]);
    let offline = ["The debaters' arguments came from the offline provider.".to_string()];
    let cases: &[Case] = &[
        ("clean", |_| {}, Source::Structured, true, Confidence::High, &[]),
        (
            "High, but the final stances are split",
            |s| s.rounds[0].rebuttals[0].stance.as_mut().unwrap().option = Some("Redis".into()),
            Source::Structured,
            true,
            Confidence::Medium,
            &[],
        ),
        ("max rounds", |s| s.end_reason = Some(EndReason::MaxRounds), Source::Structured, true, Confidence::Low, &[]),
        ("offline", |_| {}, Source::Structured, false, Confidence::Medium, &["offline provider"]),
        ("free text", |_| {}, Source::MarkdownSections, true, Confidence::Medium, &["free text"]),
        (
            "from the transcript",
            |_| {},
            Source::Transcript,
            true,
            Confidence::Medium,
            &["assembled from the debate transcript"],
        ),
        (
            "a dropped debater and a timeout",
            |s| {
                s.panel[1].dropped = Some("HTTP 500".into());
                s.end_reason = Some(EndReason::Timeout);
            },
            Source::Structured,
            true,
            Confidence::Medium,
            &["Operational Simplicity was dropped", "timeout"],
        ),
        (
            "an unreadable assessment",
            |s| s.rounds[0].evaluation.as_mut().unwrap().fallback = true,
            Source::Structured,
            true,
            Confidence::Medium,
            &["assessment of round 1 was unreadable"],
        ),
        (
            "a truncated argument",
            |s| s.rounds[0].arguments[1].truncated = true,
            Source::Structured,
            true,
            Confidence::Medium,
            &["Operational Simplicity's round-1 argument was cut off"],
        ),
    ];
    for (what, change, source, reasoned, confidence, notes) in cases {
        let mut state = DebateState { end_reason: Some(EndReason::Agreement), ..with_rounds(1) };
        same_stance(&mut state);
        change(&mut state);
        let unreasoned: &[String] = if *reasoned { &[] } else { &offline };
        let outcome = outcome(&state, fixture::synthesis(), *source, unreasoned);
        assert_eq!(outcome.confidence, *confidence, "{what}");
        assert_eq!(outcome.degradations.len(), notes.len(), "{what}: {:?}", outcome.degradations);
        for note in *notes {
            assert!(
                outcome.degradations.iter().any(|d| d.contains(note)),
                "{what}: {note} in {:?}",
                outcome.degradations
            );
        }
    }
}

#[test]
fn stances_that_only_followed_the_list_are_a_degradation() {
    let mut state = with_rounds(2);
    same_stance(&mut state);
    state.rounds[0].arguments[0].stance.as_mut().unwrap().option = Some("Redis".into());
    let plain = outcome(&state, fixture::synthesis(), Source::Structured, &[]);
    assert!(plain.degradations.is_empty(), "{:?}", plain.degradations);
    for c in state.rounds.iter_mut().flat_map(|r| r.arguments.iter_mut().chain(r.rebuttals.iter_mut())) {
        c.stance.as_mut().unwrap().first_listed = true;
    }
    let followed = outcome(&state, fixture::synthesis(), Source::Structured, &[]);
    assert!(followed.degradations.iter().any(|d| d.contains("followed the list")), "{:?}", followed.degradations);
    assert!(state.latest_stances().iter().all(|(_, stance)| stance.is_none()));
}

#[test]
fn measures_compare_a_seat_with_its_own_previous_argument() {
    let mut state = with_rounds(2);
    state.rounds[1].arguments[0] =
        fixture::contribution(0, ContributionKind::Argument, &state.rounds[0].arguments[0].text.clone());
    let measures = measure(&state, 2);
    assert_eq!(measures.repetition[0], Some(1.0));
    assert!(measures.repetition[1].unwrap() < 0.5);
    assert!(measures.novelty > 0.0 && measures.novelty < 1.0);
    assert_eq!(measure(&state, 1).repetition, [None, None]);
}

/// With nobody waiting between rounds, round 1's arguments begin while the moderator
/// reads the question, from the seats that have none stored yet; with a checkpoint, or a
/// vague question not yet settled, the moderator goes first.
#[test]
fn round_one_begins_alongside_the_analysis_when_nobody_waits() {
    let unread = || DebateState { analyzed: false, ..fixture::state() };
    assert_eq!(next(&unread(), Between::Nobody), Step::AnalyzeWhileArguing { seats: vec![0, 1] });
    assert_eq!(next(&unread(), Between::Checkpoint), Step::Analyze);
    let early = |seat: usize| crate::model::Early {
        row: seat as i64,
        perspective: unread().panel[seat].name().to_string(),
        request: String::new(),
        contribution: fixture::contribution(seat, ContributionKind::Argument, "early"),
    };
    let one = DebateState { early: vec![early(0)], ..unread() };
    assert_eq!(next(&one, Between::Nobody), Step::AnalyzeWhileArguing { seats: vec![1] }, "only the one missing");
    let both = DebateState { early: vec![early(0), early(1)], ..unread() };
    assert_eq!(next(&both, Between::Nobody), Step::Analyze, "the moderator alone, after a crash in that wave");
    assert_eq!(resumed_status(&both), Status::Analyzing);
    let analysed = DebateState { analyzed: true, ..both };
    assert_eq!(next(&analysed, Between::Nobody), Step::StartRound(1), "which settles them");
    let mut vague = unread();
    vague.analysis.vague = true;
    assert_eq!(next(&vague, Between::Nobody), Step::Clarify, "the answer would change every prompt");
}
