//! The next step, derived from the stored state alone. Pure: resuming a debate is
//! just asking this again.

use crate::model::{Confidence, DebateState, EndReason, Outcome, Round, RoundMeasures, Source, Status, Synthesis};
use crate::moderator::detection;
use crate::providers::OFFLINE_LABEL;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Let the moderator confirm or refine the keyword panel.
    Analyze,
    /// Frame round N and open it.
    StartRound(u32),
    /// Debaters at these seats still owe their argument.
    Argue {
        round: u32,
        seats: Vec<usize>,
    },
    /// Debaters at these seats still owe their rebuttal.
    Rebut {
        round: u32,
        seats: Vec<usize>,
    },
    Evaluate(u32),
    Conclude(EndReason),
    Synthesize,
    Record,
    Done,
}

pub fn next(state: &DebateState) -> Step {
    if state.status == Status::Complete {
        return Step::Done;
    }
    if !state.analyzed {
        return Step::Analyze;
    }
    if state.outcome.is_some() {
        return Step::Record;
    }
    if state.end_reason.is_some() {
        return Step::Synthesize;
    }
    let Some(round) = state.rounds.last() else { return Step::StartRound(1) };
    let active = state.active_seats();
    let missing = |has: &dyn Fn(usize) -> bool| active.iter().copied().filter(|&s| !has(s)).collect::<Vec<_>>();

    let arguments = missing(&|s| round.argument(s).is_some());
    if !arguments.is_empty() {
        return Step::Argue { round: round.number, seats: arguments };
    }
    let rebuttals = missing(&|s| round.rebuttal(s).is_some());
    if !rebuttals.is_empty() {
        return Step::Rebut { round: round.number, seats: rebuttals };
    }
    if round.evaluation.is_none() {
        return Step::Evaluate(round.number);
    }
    match ending(state) {
        Some(reason) => Step::Conclude(reason),
        None => Step::StartRound(round.number + 1),
    }
}

/// The status a debate is in when work on it resumes.
pub fn resumed_status(state: &DebateState) -> Status {
    match next(state) {
        Step::Done => Status::Complete,
        Step::Analyze => Status::Analyzing,
        Step::Synthesize => Status::Synthesizing,
        Step::Record => Status::Recording,
        _ => Status::InRound,
    }
}

/// Whether the evaluated latest round ends the debate, and why (SPEC §2.3).
pub fn ending(state: &DebateState) -> Option<EndReason> {
    let round = state.rounds.last()?;
    let evaluation = round.evaluation.as_ref()?;
    let rules = &state.snapshot.debate;
    if evaluation.agreement {
        return Some(EndReason::Agreement);
    }
    if evaluation.clear_winner.is_some() {
        return Some(EndReason::ClearWinner);
    }
    if detection::stagnating(&state.measures(), rules.repetition_threshold.0, rules.novelty_threshold.0) {
        return Some(EndReason::Stagnation);
    }
    if round.number >= u32::from(rules.max_rounds.0) {
        return Some(EndReason::MaxRounds);
    }
    None
}

/// The local measures of a round whose arguments and rebuttals are all in.
pub fn measure(state: &DebateState, round: u32) -> RoundMeasures {
    let index = round as usize - 1;
    let current = &state.rounds[index];
    let previous = index.checked_sub(1).map(|i| &state.rounds[i]);
    let repetition = (0..state.panel.len())
        .map(|seat| {
            let now = current.argument(seat)?;
            let before = previous?.argument(seat)?;
            Some(detection::containment(&now.text, &before.text))
        })
        .collect();
    fn texts(round: &Round) -> impl Iterator<Item = &str> {
        round.contributions().map(|c| c.text.as_str())
    }
    let novelty = detection::novelty(texts(current), state.rounds[..index].iter().flat_map(texts));
    RoundMeasures { repetition, novelty }
}

/// The synthesis with its final confidence: Low after max rounds without convergence,
/// and one step lower for any degradation, each of which is named (SPEC §7).
pub fn outcome(state: &DebateState, synthesis: Synthesis, source: Source, reasoned: bool) -> Outcome {
    let mut degradations = Vec::new();
    if !reasoned {
        degradations.push(format!("Arguments were produced by {OFFLINE_LABEL}."));
    }
    for seat in state.panel.iter().filter(|s| s.dropped.is_some()) {
        degradations.push(format!("{} was dropped after repeated provider failures.", seat.name()));
    }
    match source {
        Source::Structured => {}
        Source::MarkdownSections => degradations
            .push("The synthesis was recovered from the moderator's free text, not its structured answer.".into()),
        Source::Transcript => degradations.push(
            "The moderator's synthesis was unreadable; this one was assembled from the debate transcript.".into(),
        ),
    }
    for round in &state.rounds {
        if round.evaluation.as_ref().is_some_and(|e| e.fallback) {
            degradations.push(format!(
                "The moderator's assessment of round {} was unreadable; local measures were used.",
                round.number
            ));
        }
    }
    if state.end_reason == Some(EndReason::Timeout) {
        degradations.push("The debate was cut short by a timeout.".into());
    }
    let mut confidence = synthesis.confidence;
    if state.end_reason == Some(EndReason::MaxRounds) {
        confidence = Confidence::Low;
    }
    if !degradations.is_empty() {
        confidence = confidence.lowered();
    }
    Outcome { synthesis, source, confidence, degradations }
}
