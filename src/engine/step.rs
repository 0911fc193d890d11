//! The next step, derived from the stored state alone. Pure: resuming a debate is
//! just asking this again.

use super::calls::{self, Ask};
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
        return if state.analysis.vague && !settled { Step::Clarify } else { Step::Analyze };
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
        Step::Analyze => Status::Analyzing,
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
    Outcome { synthesis, source, confidence, degradations, lowered }
}

/// Every active debater's final stance names the synthesis's chosen option.
fn all_chose(state: &DebateState, synthesis: &Synthesis) -> bool {
    let Some(chosen) = &synthesis.chosen_option else { return false };
    state.latest_stances().iter().all(|(_, stance)| stance.and_then(|s| s.option.as_ref()) == Some(chosen))
}

#[cfg(test)]
mod tests {
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
            (
                "the last round, evaluated (a debate stored before)",
                || with_rounds(3),
                Step::Conclude(EndReason::MaxRounds),
            ),
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
            (
                "flagged twice: muted from the next round",
                &[&[PERFORMANCE], &[PERFORMANCE]],
                Step::StartRound(3),
                &[1, 2],
            ),
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
            (
                "max rounds",
                |s| s.end_reason = Some(EndReason::MaxRounds),
                Source::Structured,
                true,
                Confidence::Low,
                &[],
            ),
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
}
