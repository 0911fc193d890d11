use super::*;

#[test]
fn context_files_without_their_text_add_no_empty_section() {
    let mut state = crate::model::fixture::state();
    state.snapshot.project.text.clear();
    state.snapshot.context = vec![crate::model::ContextFile { path: "docs/load.md".into(), text: String::new() }];
    assert!(!shared(&state).contains("Project context from"), "{}", shared(&state));
    state.snapshot.context[0].text = "p99 is 40 ms".into();
    assert!(shared(&state).contains("## Project context from docs/load.md"));
}
use crate::model::EndReason;
use crate::model::fixture::{self, with_rounds};

fn show(prompt: &Prompt) -> String {
    format!("── context ──\n{}── task ──\n{}\n", prompt.context, prompt.task)
}

/// Round 3 of 3 is open: two rounds behind it, with guidance and a context file.
fn third_round() -> DebateState {
    let mut state = with_rounds(3);
    let open = &mut state.rounds[2];
    open.rebuttals.clear();
    open.evaluation = None;
    open.measures = None;
    open.framing = framing(&with_rounds(2), 3);
    open.guidance = Some("Weigh our team's Postgres experience".into());
    state.snapshot.project.text = "## Project context from docs/load.md\n\nPeak load is 2,000 reads per second.".into();
    state
}

#[test]
fn debater_prompts() {
    let state = third_round();
    insta::assert_snapshot!("argument_round_1", show(&argument(&with_rounds(1), 0, 1, Size::NORMAL)));
    insta::assert_snapshot!("argument_round_3", show(&argument(&state, 1, 3, Size::NORMAL)));
    insta::assert_snapshot!("rebuttal_round_3", show(&rebuttal(&state, 0, 3, Size::NORMAL)));
    insta::assert_snapshot!("argument_round_3_compact", show(&argument(&state, 1, 3, Size::COMPACT)));
    let mut second = with_rounds(2);
    second.rounds[1].framing = framing(&with_rounds(1), 2);
    (second.rounds[1].rebuttals, second.rounds[1].evaluation) = (Vec::new(), None);
    insta::assert_snapshot!("rebuttal_round_2", show(&rebuttal(&second, 1, 2, Size::NORMAL)));
}

#[test]
fn guidance_stays_in_force_and_quotes_start_with_another_seat_each_round() {
    let mut state = third_round();
    state.rounds[1].guidance = Some("Assume the EU data centre".into());
    let measures = state.rounds[1].measures.clone().unwrap();
    let given = "Guidance from the humans running this debate, in force from here on: ";
    for prompt in [argument(&state, 0, 3, Size::NORMAL), evaluation(&state, 3, &measures, Size::NORMAL)] {
        assert!(prompt.task.contains(&format!("{given}Assume the EU data centre")), "{}", prompt.task);
        assert!(prompt.task.contains(&format!("{given}Weigh our team's Postgres experience")), "{}", prompt.task);
    }
    let first_quoted = |round: u32| {
        let mut state = with_rounds(round);
        state.rounds[round as usize - 1].rebuttals.clear();
        let task = rebuttal(&state, 0, round, Size::NORMAL).task;
        let at = task.rfind("Arguments:").unwrap();
        task[at..].lines().nth(1).unwrap().to_string()
    };
    assert_eq!(first_quoted(1), "[Performance Advocate — argument]");
    assert_eq!(first_quoted(2), "[Operational Simplicity — argument]", "position bias: the order rotates");
}

#[test]
fn a_sequential_rebuttal_sees_the_rebuttals_before_it() {
    let mut state = with_rounds(1);
    state.snapshot.debate.rebuttals = Rebuttals::Sequential;
    state.rounds[0].rebuttals.truncate(1);
    let second = rebuttal(&state, 1, 1, Size::NORMAL).task;
    assert!(second.contains("\nRebuttals:\n") && second.contains("Seat 0 answers"), "{second}");
    let first = rebuttal(&state, 0, 1, Size::NORMAL).task;
    assert!(!first.contains("\nRebuttals:\n"), "{first}");
}

#[test]
fn moderator_prompts() {
    let state = with_rounds(2);
    let measures = state.rounds[1].measures.clone().unwrap();
    insta::assert_snapshot!("evaluation_round_2", show(&evaluation(&state, 2, &measures, Size::NORMAL)));
    let ended = DebateState { end_reason: Some(EndReason::MaxRounds), ..with_rounds(3) };
    insta::assert_snapshot!("synthesis", show(&synthesis(&ended, Size::NORMAL)));
    let catalog = Catalog::build(&[]).unwrap();
    let mut state = fixture::state();
    state.snapshot.forced = vec!["Operational Simplicity".to_string()];
    insta::assert_snapshot!("analysis", show(&analysis(&state, &catalog, Size::NORMAL)));
    let compact = analysis(&state, &catalog, Size::COMPACT).task;
    assert!(
        compact.len() < analysis(&state, &catalog, Size::NORMAL).task.len() && compact.contains("- Cost Control\n")
    );
}

#[test]
fn framing_opens_each_round() {
    let mut state = with_rounds(1);
    state.rounds[0].evaluation.as_mut().unwrap().off_topic = vec!["Performance Advocate".into()];
    insta::assert_snapshot!("framing_round_1", framing(&state, 1));
    insta::assert_snapshot!("framing_round_2", framing(&state, 2));
}
