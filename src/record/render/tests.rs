use std::path::Path;

use super::Templates;
use crate::model::fixture;
use crate::model::{DebateState, ProviderKind, Revision, RoleChoice};

fn record(state: &DebateState) -> String {
    Templates::built_in().decision(state, Path::new("docs/decisions/redis.md")).unwrap().decision
}

/// The lines of `record` from `heading` up to the next `## ` heading.
fn section(record: &str, heading: &str) -> String {
    let lines = record.lines().skip_while(|l| *l != heading).skip(1);
    lines.take_while(|l| !l.starts_with("## ")).collect::<Vec<_>>().join("\n").trim().to_string()
}

/// Every contribution of the last round ends on `option` (seat by seat).
fn ended_on(state: &mut DebateState, options: [&str; 2]) {
    let last = state.rounds.last_mut().unwrap();
    for c in last.arguments.iter_mut().chain(&mut last.rebuttals) {
        c.stance.as_mut().unwrap().option = Some(options[c.seat].into());
    }
}

/// A complete debate whose moderator recorded no dissent.
fn without_dissents(chosen: Option<&str>) -> DebateState {
    let mut state = fixture::complete(2);
    let synthesis = &mut state.outcome.as_mut().unwrap().synthesis;
    synthesis.dissents.clear();
    synthesis.chosen_option = chosen.map(str::to_string);
    state
}

const NO_DISSENT: &str = "No perspective dissented";

#[test]
fn no_dissent_is_claimed_while_the_stances_differ() {
    let view = section(&record(&without_dissents(Some("Postgres"))), "## Dissenting View");
    assert!(!view.contains(NO_DISSENT), "{view}");
    assert_eq!(
        view,
        "The moderator recorded no dissenting view, but these perspectives ended on an option other than the chosen one:\n\n- **Performance Advocate**: Redis"
    );
    let view = section(&record(&without_dissents(None)), "## Dissenting View");
    assert!(!view.contains(NO_DISSENT), "{view}");
    assert!(view.starts_with("The moderator recorded no dissenting view and chose no single option."), "{view}");
    assert!(view.contains("- **Performance Advocate**: Redis\n- **Operational Simplicity**: Postgres"), "{view}");
}

#[test]
fn no_dissent_is_claimed_when_every_stance_names_the_chosen_option() {
    let mut state = without_dissents(Some("Postgres"));
    ended_on(&mut state, ["Postgres", "Postgres"]);
    let view = section(&record(&state), "## Dissenting View");
    assert_eq!(view, "No perspective dissented: every perspective ended on the chosen option, Postgres.");
    // All on one option the moderator did not choose: each of them is apart from it.
    ended_on(&mut state, ["Redis", "Redis"]);
    let view = section(&record(&state), "## Dissenting View");
    assert!(!view.contains(NO_DISSENT) && view.contains("- **Operational Simplicity**: Redis"), "{view}");
}

#[test]
fn stances_that_only_followed_the_list_claim_no_dissent() {
    let mut state = without_dissents(Some("Postgres"));
    ended_on(&mut state, ["Postgres", "Postgres"]);
    state.rounds[0].arguments[0].stance.as_mut().unwrap().option = Some("Redis".into());
    for c in state.rounds.iter_mut().flat_map(|r| r.arguments.iter_mut().chain(&mut r.rebuttals)) {
        c.stance.as_mut().unwrap().first_listed = true;
    }
    let view = section(&record(&state), "## Dissenting View");
    assert_eq!(view, "The moderator recorded no dissenting view.");
}

#[test]
fn without_stances_only_the_moderators_silence_is_reported() {
    let mut state = without_dissents(None);
    for c in state.rounds.iter_mut().flat_map(|r| r.arguments.iter_mut().chain(&mut r.rebuttals)) {
        c.stance = None;
    }
    assert_eq!(section(&record(&state), "## Dissenting View"), "The moderator recorded no dissenting view.");
}

#[test]
fn the_moderators_dissents_are_listed_as_recorded() {
    let view = section(&record(&fixture::complete(2)), "## Dissenting View");
    assert_eq!(view, "- **Performance Advocate** (prefers Redis): latency will need Redis within a year");
}

#[test]
fn the_transcript_counts_the_rounds_argued_not_the_limit() {
    // The fixture allows three rounds.
    let two = record(&fixture::complete(2));
    assert!(two.contains("<summary>Round 2 of 2 (rebuttal)</summary>"), "{two}");
    assert!(!two.contains(" of 3 ("), "a third round was never argued:\n{two}");
    let three = record(&fixture::complete(3));
    assert!(three.contains("<summary>Round 3 of 3 (closing)</summary>"), "{three}");
}

fn role(provider: &str, kind: ProviderKind, model: &str) -> RoleChoice {
    RoleChoice { provider: provider.into(), kind, model: Some(model.into()), temperature: 0.2 }
}

/// The record's provenance with the moderator and every debater played by `role`.
fn provenance(role: RoleChoice) -> String {
    let mut state = fixture::complete(1);
    state.snapshot.moderator = role.clone();
    state.snapshot.debater = role;
    section(&record(&state), "## Provenance")
}

#[test]
fn the_provenance_names_a_provider_once() {
    let offline = provenance(role("offline", ProviderKind::Offline, "offline"));
    assert!(offline.contains("- Moderator: offline (temperature 0.2).\n"), "{offline}");
    assert!(offline.contains("- Performance Advocate: offline (temperature 0.2)\n"), "{offline}");
    assert!(!offline.contains("offline, offline"), "{offline}");
    let hosted = provenance(role("openai", ProviderKind::Openai, "gpt-4o"));
    assert!(hosted.contains("- Moderator: gpt-4o (openai, temperature 0.2).\n"), "{hosted}");
    let local = provenance(role("local", ProviderKind::Openai, "qwen3"));
    assert!(local.contains("- Moderator: qwen3 (local, openai, temperature 0.2).\n"), "{local}");
}

#[test]
fn the_provenance_points_to_the_debate_log_only_when_it_is_above() {
    const POINTER: &str = "the stances per round are in the Debate Log above";
    let state = fixture::complete(1);
    assert!(record(&state).contains(POINTER));
    let without_log = Templates {
        decision: "# {{ title | line }}\n\n## Decision\n\n{{ recommendation | block }}\n".into(),
        ..Templates::built_in()
    };
    let rendered = without_log.decision(&state, Path::new("docs/decisions/redis.md")).unwrap().decision;
    assert!(rendered.contains("## Provenance") && !rendered.contains(POINTER), "{rendered}");
}

#[test]
fn written_scores_of_the_record_as_it_is_are_in_its_provenance() {
    let mut state = fixture::complete(1);
    state.scorecards.push(fixture::scorecard(false));
    assert!(!record(&state).contains("### Evaluation"), "only written scores are shown");
    state.scorecards[0].written = true;
    let provenance = section(&record(&state), "## Provenance");
    let table = "| Criterion | m | n |\n|---|---|---|\n| Decision stated and chosen among the options | 8: m on decision. | 7: n on decision. |";
    assert!(provenance.contains(table), "{provenance}");
    assert!(provenance.contains("Evaluation 1 of this record, made 2026-11-23 by m, n: each criterion scored from 1 to 10, with the evaluator's reason."), "{provenance}");
    assert!(
        provenance.contains(
            "- The evaluators disagree on Arguments use the project's context, none contradicts it: 2 (m) and 9 (n)."
        ),
        "{provenance}"
    );
    assert!(
        provenance.contains(
            "- Checks without a model: 1 of 2 passed; empty or placeholder text: Consequences: (none given)."
        ),
        "{provenance}"
    );
    for card in &mut state.scorecards {
        card.evaluators.iter_mut().for_each(|e| e.reasoned = false);
    }
    assert!(
        record(&state).contains("composed from the record's text by the offline provider — not a model's judgement")
    );
    state.revisions.push(Revision {
        date: "2026-11-24".into(),
        rounds: 1,
        chosen_option: None,
        confidence: crate::model::Confidence::Low,
        recommendation: String::new(),
        commit: None,
        reopened_by: "cost?".into(),
    });
    assert!(!record(&state).contains("### Evaluation"), "a review's rewrite leaves the last record's scores out");
}

#[test]
fn only_a_provider_that_does_not_reason_is_said_not_to() {
    let mut state = fixture::complete(1);
    state.snapshot.moderator = role("openai", ProviderKind::Openai, "gpt-4o");
    state.snapshot.debater = state.snapshot.moderator.clone();
    let reasoned = record(&state);
    assert!(!reasoned.contains("no model reasoned"), "{reasoned}");
    state.snapshot.moderator = role("offline", ProviderKind::Offline, "offline");
    state.snapshot.debater = state.snapshot.moderator.clone();
    let offline = record(&state);
    assert!(offline.contains("> **Offline debate.**") && offline.contains("no model reasoned about them"), "{offline}");
}
