//! The next step, derived from the stored state alone. Pure: resuming a debate is
//! just asking this again.

use super::calls::{self, Ask};
use super::early;
use crate::model::{
    Assessment, Confidence, ContributionKind, DebateState, EndReason, Evaluation, Outcome, Round, RoundMeasures,
    Source, Status, Synthesis,
};
use crate::moderator::evaluation::{self, Said};
use crate::moderator::{detection, noise};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// A vague question: the moderator's questions, asked before the panel is final.
    Clarify,
    /// Let the moderator confirm or refine the keyword panel.
    Analyze,
    /// The moderator confirms or refines the keyword panel while the debaters at these
    /// seats begin round 1's arguments on the question's reading (nobody waits between
    /// rounds, so nobody waits for the reading either): kept when its confirmation
    /// leaves what they were asked as it was, written again when not.
    AnalyzeWhileArguing {
        seats: Vec<usize>,
    },
    /// Frame round N and open it.
    StartRound(u32),
    /// Debaters at these seats still owe their argument.
    Argue {
        round: u32,
        seats: Vec<usize>,
    },
    /// Round `evaluate` is judged while the debaters at these seats argue `round`, the
    /// one after it (opened early: nobody waits between rounds), and the debaters at
    /// `stances` are asked the stance their rebuttal in round `evaluate` did not state.
    EvaluateWhileArguing {
        evaluate: u32,
        round: u32,
        seats: Vec<usize>,
        stances: Vec<usize>,
    },
    /// Debaters at these seats still owe their rebuttal; those at `stances` are asked
    /// alongside for the stance their argument did not state.
    Rebut {
        round: u32,
        seats: Vec<usize>,
        stances: Vec<usize>,
    },
    /// These contributions did not end with a readable stance: ask once more.
    ReadStances {
        round: u32,
        kind: ContributionKind,
        seats: Vec<usize>,
    },
    Evaluate(u32),
    Conclude(EndReason),
    /// The synthesis; when no end was found before, the last round the rules allow is
    /// judged in the same call.
    Synthesize,
    Record,
    Done,
}

/// Whether a round waits for the previous one's evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Between {
    /// It waits: a human answers a checkpoint in between, or the model server serves one
    /// request at a time, so arguments written alongside the evaluation would only queue
    /// behind it (and be thrown away when it ends the debate).
    Checkpoint,
    /// Nobody waits: a round opens as soon as the previous one is argued, and its
    /// arguments run alongside that round's evaluation.
    Nobody,
}

pub fn next(state: &DebateState, between: Between) -> Step {
    if state.status == Status::Complete {
        return Step::Done;
    }
    if !state.analyzed {
        let settled = state.clarification.as_ref().is_some_and(|c| c.settled);
        if state.analysis.vague && !settled {
            return Step::Clarify;
        }
        let seats = match between {
            Between::Nobody => early::owed(state),
            Between::Checkpoint => Vec::new(),
        };
        return if seats.is_empty() { Step::Analyze } else { Step::AnalyzeWhileArguing { seats } };
    }
    if state.outcome.is_some() {
        return Step::Record;
    }
    if state.end_reason.is_some() {
        return Step::Synthesize;
    }
    let Some(round) = state.rounds.last() else { return Step::StartRound(1) };
    let active = state.seats_of(round);
    let missing = |has: &dyn Fn(usize) -> bool| active.iter().copied().filter(|&s| !has(s)).collect::<Vec<_>>();
    let arguments = missing(&|s| round.argument(s).is_some());

    let unread = |round: &Round, kind: ContributionKind| -> Vec<usize> {
        round.contributions().filter(|c| c.kind == kind && c.stance.is_none()).map(|c| c.seat).collect()
    };
    // This round opened before the previous one was judged (and, it may be, before its
    // rebuttals' stances were all read).
    if let [.., previous, _] = state.rounds.as_slice() {
        if previous.evaluation.is_none() {
            let stances = unread(previous, ContributionKind::Rebuttal);
            return match (arguments.is_empty(), stances.is_empty()) {
                (true, true) => Step::Evaluate(previous.number),
                (true, false) => {
                    Step::ReadStances { round: previous.number, kind: ContributionKind::Rebuttal, seats: stances }
                }
                (false, _) => Step::EvaluateWhileArguing {
                    evaluate: previous.number,
                    round: round.number,
                    seats: arguments,
                    stances,
                },
            };
        }
        // Judged, but stopped before its stances were all read (a crash in that wave).
        let stances = unread(previous, ContributionKind::Rebuttal);
        if !stances.is_empty() {
            return Step::ReadStances { round: previous.number, kind: ContributionKind::Rebuttal, seats: stances };
        }
        // Its evaluation ended the debate: this round will not be argued.
        if let Some(reason) = ending(&state.through(previous.number)) {
            return Step::Conclude(reason);
        }
    }

    if !arguments.is_empty() {
        return Step::Argue { round: round.number, seats: arguments };
    }
    // An argument's stance asked for again goes alongside the rebuttals, which read
    // the arguments' texts, never their stances: not a wave of its own.
    let stances = unread(round, ContributionKind::Argument);
    let rebuttals = missing(&|s| round.rebuttal(s).is_some());
    if !rebuttals.is_empty() {
        return Step::Rebut { round: round.number, seats: rebuttals, stances };
    }
    if !stances.is_empty() {
        return Step::ReadStances { round: round.number, kind: ContributionKind::Argument, seats: stances };
    }
    let stances = unread(round, ContributionKind::Rebuttal);
    let opens_next = round.evaluation.is_none() && between == Between::Nobody && !last_allowed(state, round.number);
    // With nobody between rounds, the stances are read alongside the next round's
    // arguments: a wave of their own would hold the whole debate back.
    if !stances.is_empty() && !opens_next {
        return Step::ReadStances { round: round.number, kind: ContributionKind::Rebuttal, seats: stances };
    }
    if round.evaluation.is_none() {
        return match (last_allowed(state, round.number), between) {
            (true, _) => Step::Synthesize,
            (false, Between::Nobody) => Step::StartRound(round.number + 1),
            (false, Between::Checkpoint) => Step::Evaluate(round.number),
        };
    }
    match ending(state) {
        Some(reason) => Step::Conclude(reason),
        None => Step::StartRound(round.number + 1),
    }
}

/// Round `number` is the last the rules allow: whatever its evaluation would find, the
/// debate ends with it, so the synthesis judges it.
fn last_allowed(state: &DebateState, number: u32) -> bool {
    number >= u32::from(state.snapshot.debate.max_rounds.get())
}

/// The status a debate is in when work on it resumes.
pub fn resumed_status(state: &DebateState) -> Status {
    match next(state, Between::Checkpoint) {
        Step::Done => Status::Complete,
        Step::Analyze | Step::AnalyzeWhileArguing { .. } => Status::Analyzing,
        Step::Synthesize => Status::Synthesizing,
        Step::Record => Status::Recording,
        _ => Status::InRound,
    }
}

/// Whether the evaluated latest round ends the debate, and why (docs/guide.md, "What a debate does").
///
/// Agreement needs the moderator's word *and* every active debater's latest stance on
/// the same option (when there are options), and a clear winner is taken only from
/// `min_rounds` on, so no debate ends before each debater has answered the others.
/// Stagnation is the local measures' verdict, or the moderator's: stagnating two rounds
/// running, or once in a round the measures find little new in.
pub fn ending(state: &DebateState) -> Option<EndReason> {
    let round = state.rounds.last()?;
    // A review reopened the debate after this round: what ended it then has been heard.
    if state.revisions.last().is_some_and(|r| round.number <= r.rounds) {
        return None;
    }
    let evaluation = round.evaluation.as_ref()?;
    let rules = &state.snapshot.debate;
    let settled = round.number >= u32::from(rules.min_rounds.get().min(rules.max_rounds.get()));
    if settled && evaluation.agreement && stances_agree(state) {
        return Some(EndReason::Agreement);
    }
    if settled && evaluation.clear_winner.as_deref().is_some_and(|winner| stances_back(state, winner)) {
        return Some(EndReason::ClearWinner);
    }
    let measured = detection::stagnating(&state.measures(), rules.repetition_threshold.0, rules.novelty_threshold.0);
    if measured || moderator_finds_stagnation(state) {
        return Some(EndReason::Stagnation);
    }
    if round.number >= u32::from(rules.max_rounds.get()) {
        // The rounds a review asked for end because a person set their number.
        return Some(if state.reviewed(round.number) { EndReason::Human } else { EndReason::MaxRounds });
    }
    None
}

/// Every active debater's latest stance names the same option; with no options to
/// choose among, only the moderator's word counts.
pub fn stances_agree(state: &DebateState) -> bool {
    if state.analysis.options.is_empty() {
        return true;
    }
    let options: Vec<Option<&String>> =
        state.latest_stances().into_iter().map(|(_, stance)| stance.and_then(|s| s.option.as_ref())).collect();
    options.first().is_some_and(|first| first.is_some() && options.iter().all(|o| o == first))
}

/// The stances back the moderator's clear winner: its latest stance was read, and more
/// than half the active debaters' latest stances name the same option (the others
/// conceded to it). A winner named against the stances, or by a model that only
/// follows the list, ends nothing.
fn stances_back(state: &DebateState, winner: &str) -> bool {
    let stances = state.latest_stances();
    let option =
        |seat: usize| stances.iter().find(|(s, _)| *s == seat).and_then(|(_, st)| st.and_then(|s| s.option.as_ref()));
    let Some(seat) = state.panel.iter().position(|s| s.name() == winner) else { return false };
    let Some(chosen) = option(seat) else { return state.analysis.options.is_empty() };
    let with_it = stances.iter().filter(|(s, _)| option(*s) == Some(chosen)).count();
    with_it * 2 > stances.len()
}

fn moderator_finds_stagnation(state: &DebateState) -> bool {
    let stagnating = |round: &Round| round.evaluation.as_ref().is_some_and(|e| e.assessment == Assessment::Stagnating);
    let [.., before, latest] = state.rounds.as_slice() else { return false };
    let little_new = latest.measures.as_ref().is_some_and(|m| m.novelty < state.snapshot.debate.novelty_threshold.0);
    stagnating(latest) && (stagnating(before) || little_new)
}

/// The evaluation the measures alone give a round: what the moderator is shown, and
/// what stands when its answer cannot be read.
pub fn local_evaluation(state: &DebateState, round: u32, measures: &RoundMeasures) -> Evaluation {
    let mut history = state.measures();
    history.push(measures.clone());
    let rules = &state.snapshot.debate;
    let stagnating = detection::stagnating(&history, rules.repetition_threshold.0, rules.novelty_threshold.0);
    let current = &state.rounds[round as usize - 1];
    // What each debater said itself: a line its prompt gave it is no summary of it.
    let own: Vec<(usize, String, Option<&str>)> = current
        .arguments
        .iter()
        .filter(|c| !c.failed)
        .map(|c| {
            let latest = [current.rebuttal(c.seat), Some(c)].into_iter().flatten().find_map(|c| c.stance.as_ref());
            let prompt = calls::prompt_text(state, &Ask::Debater { seat: c.seat, round, kind: c.kind });
            (c.seat, noise::own_lines(&c.text, &prompt), latest.and_then(|s| s.option.as_deref()))
        })
        .collect();
    let said: Vec<Said> =
        own.iter().map(|(seat, text, stance)| Said { perspective: state.name(*seat), text, stance: *stance }).collect();
    evaluation::heuristic(&said, measures.novelty, stagnating)
}

/// The debate with its last round judged by the synthesis that read it (the last round
/// the rules allow has no evaluation of its own), and the end that follows: the
/// measures' verdict, the synthesis's `summary` of the round when it gave one, and
/// agreement when the moderator's synthesis is confident (`moderator_agrees`: High,
/// which it may only say when every final stance names the chosen option) and every
/// debater's latest stance names the same option. `None` when the last round was
/// evaluated already.
pub fn judged_in_synthesis(
    state: &DebateState,
    summary: Option<String>,
    moderator_agrees: bool,
) -> Option<DebateState> {
    let last = state.rounds.last().filter(|r| r.evaluation.is_none())?;
    let measures = measure(state, last.number);
    let mut evaluation = local_evaluation(state, last.number, &measures);
    // Nobody judged the debaters one by one: only the synthesis weighed them.
    evaluation.debaters.clear();
    (evaluation.fallback, evaluation.folded) = (false, true);
    if let Some(summary) = summary {
        evaluation.summary = summary;
    }
    let mut judged = state.clone();
    evaluation.agreement = moderator_agrees && !state.analysis.options.is_empty() && stances_agree(state);
    let round = judged.rounds.last_mut().expect("a last round");
    (round.measures, round.evaluation) = (Some(measures), Some(evaluation));
    judged.end_reason = ending(&judged);
    Some(judged)
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
/// and one step lower for any degradation, each of which is named (docs/guide.md, "The decision record").
/// `unreasoned` says which roles no model stood behind, one sentence each.
pub fn outcome(state: &DebateState, synthesis: Synthesis, source: Source, unreasoned: &[String]) -> Outcome {
    let mut degradations = unreasoned.to_vec();
    for seat in &state.panel {
        if let Some(reason) = &seat.dropped {
            degradations.push(format!("{} was dropped from the panel: {reason}.", seat.name()));
        }
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
        for c in round.contributions().filter(|c| c.truncated && !c.looped) {
            degradations.push(format!(
                "{}'s round-{} {} was cut off at the model's length limit.",
                state.name(c.seat),
                round.number,
                c.kind
            ));
        }
        for c in round.contributions().filter(|c| c.looped) {
            degradations.push(format!(
                "{}'s round-{} {} began to repeat itself and was stopped there; what came before is kept.",
                state.name(c.seat),
                round.number,
                c.kind
            ));
        }
        for c in round.contributions().filter(|c| c.failed) {
            degradations.push(format!(
                "{}'s round-{} {} said nothing of its own (it only gave back its prompt: headings, instructions or placeholders).",
                state.name(c.seat),
                round.number,
                c.kind
            ));
        }
        if round.evaluation.as_ref().is_some_and(|e| e.fallback) {
            degradations.push(format!(
                "The moderator's assessment of round {} was unreadable; local measures were used.",
                round.number
            ));
        }
    }
    if state.stances_follow_the_list() {
        degradations.push(
            "Every stance named the option its request listed first, though the order changed from request to request: \
             the model followed the list, so the stances were not read as anyone's position."
                .into(),
        );
    }
    if state.end_reason == Some(EndReason::Timeout) {
        degradations.push("The debate was cut short by a timeout.".into());
    }
    let mut confidence = synthesis.confidence;
    let mut lowered = Vec::new();
    if state.end_reason == Some(EndReason::MaxRounds) && confidence != Confidence::Low {
        confidence = Confidence::Low;
        lowered.push(format!(
            "Low: the debate reached its limit of {} rounds without the debaters converging.",
            state.rounds.len()
        ));
    }
    // High means every final stance names the chosen option (the synthesis prompt's
    // own definition); a moderator that says High otherwise is held to it.
    if confidence == Confidence::High && !state.analysis.options.is_empty() && !all_chose(state, &synthesis) {
        confidence = Confidence::Medium;
        lowered
            .push("Medium, not the moderator's High: not every debater's final stance names the chosen option.".into());
    }
    if !degradations.is_empty() && confidence != Confidence::Low {
        confidence = confidence.lowered();
        lowered.push(format!("One step lower ({}) for the degradations listed in this record.", confidence.as_str()));
    }
    Outcome { synthesis, source, confidence, degradations, lowered, layout: crate::model::layout() }
}

/// Every active debater's final stance names the synthesis's chosen option.
fn all_chose(state: &DebateState, synthesis: &Synthesis) -> bool {
    let Some(chosen) = &synthesis.chosen_option else { return false };
    state.latest_stances().iter().all(|(_, stance)| stance.and_then(|s| s.option.as_ref()) == Some(chosen))
}

#[cfg(test)]
mod tests;
