//! The moderator's steps: clarifying a vague question, choosing the panel, judging
//! each round, ending the debate and writing the synthesis.

use std::future::Future;
use std::time::Duration;

use futures::future::{FutureExt, LocalBoxFuture};

use super::calls::{self, Ask, Asked};
use super::clock::{Deadlines, deadline_passed};
use super::run::{Engine, Stop, moderator_server};
use super::step;
use crate::error::{Error, Signal};
use crate::model::{
    Analysis, Clarified, Completion, Confidence, DebateState, EndReason, Evaluation, RoundMeasures, Source, Status,
};
use crate::moderator::analysis;
use crate::moderator::answers;
use crate::moderator::clarify::{self, ClarifyingQuestions};
use crate::moderator::confirmation;
use crate::moderator::evaluation;
use crate::moderator::selection::{self, PanelChoice};
use crate::moderator::synthesis::{self, Latest};
use crate::providers::{self, ProviderError};
use crate::store::{LastRound, Server};
use crate::text::secrets;

/// A round's evaluation, the moderator's or (when its answer was unreadable) the
/// measures' own, with the measures it was given.
pub(super) struct Judged {
    measures: RoundMeasures,
    evaluation: Evaluation,
    completion: Completion,
}

/// An evaluation on its way.
pub(super) type Judging<'s> = LocalBoxFuture<'s, providers::Result<Judged>>;

/// The moderator's analysis on its way: its call, and the panel it chose if readable.
pub(super) type Analysing<'s> = LocalBoxFuture<'s, providers::Result<(Completion, Option<PanelChoice>)>>;

impl Engine<'_> {
    /// Remember how the moderator's server took a structured answer, for the next debate.
    pub(super) fn remember_format(&self, state: &DebateState, completion: &Completion) -> Result<(), Stop> {
        if let (Some(format), Some((provider, model, base_url))) = (&completion.format, moderator_server(state)) {
            self.store.save_format(&Server { provider: &provider, model: &model, base_url: &base_url }, format)?;
        }
        Ok(())
    }

    /// A vague question, in two steps: the moderator's questions are stored before
    /// anyone is asked (what the analysis alone asks when its answer is unusable); then,
    /// with checkpoints on and someone to answer, the answer joins the question and the
    /// panel is chosen again with it. Unanswered, the questions are left open for the
    /// record.
    pub(super) async fn clarify(&mut self, state: &DebateState, deadline: Deadlines) -> Result<(), Stop> {
        let Some(clarification) = &state.clarification else {
            self.events.moderating("reading what the question leaves open");
            let read = |text: &str| answers::read::<ClarifyingQuestions>(text).ok();
            let asked = calls::ask_structured(self.moderator(), state, &Ask::Clarification, read);
            // Optional, as the analysis is: a moderator that fails leaves the analysis's questions.
            let (completion, answer) = match within(deadline, "the moderator's clarifying questions", asked).await {
                Ok(answered) => answered,
                Err(Stop::TimedOut(_) | Stop::Failed(Error::Provider(ProviderError::TimedOut { .. }))) => {
                    (Completion::default(), None)
                }
                Err(Stop::Failed(Error::Provider(err))) if err.passing() => (Completion::default(), None),
                Err(stop) => return Err(stop),
            };
            let questions = answer
                .as_ref()
                .and_then(ClarifyingQuestions::usable)
                .unwrap_or_else(|| clarify::composed(&state.question, &state.analysis));
            let analysis = Analysis { vague: !questions.is_empty(), ..state.analysis.clone() };
            self.store.save_clarifying_questions(&state.id, &questions, &analysis, &completion)?;
            return self.remember_format(state, &completion);
        };
        let rules = &state.snapshot.debate;
        let patience = Duration::from_secs(rules.checkpoint_timeout_seconds.0);
        let asked = match rules.checkpoints {
            true => self.events.clarify(&clarification.questions(), patience),
            false => None,
        };
        let answered = match asked {
            Some(answer) => {
                self.store.set_status(&state.id, Status::Checkpoint)?;
                answer.await
            }
            None => Clarified::Skipped,
        };
        match answered {
            Clarified::Interrupted => Err(Stop::Signalled(Signal::Interrupt)),
            Clarified::Skipped => Ok(self.store.settle_clarification(&state.id, None)?),
            Clarified::Answer(text) => {
                let answer = self.scrubbed(&text, "your answer");
                let subject = format!("{}\n{answer}", state.question);
                let analysis = analysis::analyse(&subject);
                let snapshot = &state.snapshot;
                let wanted = selection::Request { size: snapshot.requested_size, forced: &snapshot.forced };
                let panel = selection::select(self.catalog, &subject, &analysis, &wanted)
                    .unwrap_or_else(|_| state.panel.clone());
                Ok(self.store.settle_clarification(&state.id, Some((&answer, &analysis, &panel)))?)
            }
        }
    }

    pub(super) async fn analyze(&mut self, state: &DebateState, deadline: Deadlines) -> Result<(), Stop> {
        self.events.moderating("choosing the panel");
        let answered = within(deadline, "the moderator's analysis", self.analysing(state)).await;
        self.save_analysis(state, answered)
    }

    /// Store the analysis: the panel and options as the moderator refined them. The
    /// refinement is optional: when the moderator failed or timed out, the keyword panel
    /// stands and the record says why.
    pub(super) fn save_analysis(
        &mut self,
        state: &DebateState,
        answered: Result<(Completion, Option<PanelChoice>), Stop>,
    ) -> Result<(), Stop> {
        let mut analysis = state.analysis.clone();
        let (completion, choice) = match answered {
            Ok(answered) => answered,
            Err(Stop::TimedOut(_) | Stop::Failed(Error::Provider(ProviderError::TimedOut { .. }))) => {
                analysis.unrefined = Some("the moderator did not answer in time".into());
                (Completion::default(), None)
            }
            Err(Stop::Failed(Error::Provider(err))) if err.passing() => {
                analysis.unrefined = Some(format!("the moderator failed: {}", secrets::gate(&err.to_string())));
                (Completion::default(), None)
            }
            Err(stop) => return Err(stop),
        };
        if choice.is_none() && analysis.unrefined.is_none() {
            analysis.unrefined = Some("the moderator's answer could not be read".into());
        }
        let snapshot = &state.snapshot;
        let refined = |choice: &PanelChoice| {
            selection::refine(self.catalog, &state.panel, &snapshot.forced, snapshot.requested_size, choice)
        };
        let panel = choice.as_ref().and_then(refined).unwrap_or_else(|| state.panel.clone());
        // What the asker said counts as asked: the question and any clarification.
        let answer = state.clarification.as_ref().and_then(|c| c.answer.as_deref()).unwrap_or_default();
        let asked = format!("{}\n{answer}", state.question);
        let (options, reading) = confirmation::confirm(&asked, &state.analysis.options, choice.as_ref());
        analysis.options = options;
        analysis.reading = Some(reading);
        self.store.save_panel(&state.id, &panel, &analysis, &completion)?;
        self.remember_format(state, &completion)?;
        let chosen = self.store.load(&state.id)?;
        self.events.panel(&chosen);
        Ok(())
    }

    pub(super) async fn evaluate(&mut self, state: &DebateState, round: u32, deadline: Deadlines) -> Result<(), Stop> {
        self.events.moderating("evaluating the round");
        let judged = within(deadline, "the moderator's evaluation", self.judging(state, round)).await?;
        self.save_judged(state, round, judged).map(|_| ())
    }

    /// The moderator's evaluation of `round`, not yet stored. It holds its own handles
    /// on the moderator, so it can run alongside the next round's debaters.
    pub(super) fn judging<'s>(&self, state: &'s DebateState, round: u32) -> Judging<'s> {
        let (provider, shared) = (self.providers.moderator.clone(), self.providers.shared.clone());
        async move {
            let measures = step::measure(state, round);
            let local = step::local_evaluation(state, round, &measures);
            let ask = Ask::Evaluation { round, measures: &measures, local: &local };
            let names = state.panel_names();
            let read = |text: &str| evaluation::parse(text, &names, &state.analysis.options).ok();
            let to = Asked { provider: provider.as_ref(), shared: &shared };
            let (completion, parsed) = calls::ask_structured(to, state, &ask, read).await?;
            Ok(Judged { evaluation: parsed.unwrap_or(local), measures, completion })
        }
        .boxed_local()
    }

    /// Store an evaluation; whether it ends the debate.
    pub(super) fn save_judged(&mut self, state: &DebateState, round: u32, judged: Judged) -> Result<bool, Stop> {
        let Judged { measures, evaluation, completion } = judged;
        self.store.save_evaluation(&state.id, round, &measures, &evaluation, &completion)?;
        self.remember_format(state, &completion)?;
        let updated = self.store.load(&state.id)?;
        self.events.assessed(&updated, &updated.rounds[round as usize - 1]);
        Ok(step::ending(&updated.through(round)).is_some())
    }

    /// The debate ends: a round opened while the one before it was judged (its
    /// arguments ran alongside that evaluation) leaves it, its arguments kept as
    /// discarded.
    pub(super) fn conclude(&mut self, state: &DebateState, reason: EndReason) -> Result<(), Stop> {
        let judged = state.rounds.iter().rev().find(|r| r.evaluation.is_some()).map(|r| r.number);
        if let Some(judged) = judged.filter(|&n| state.rounds.last().is_some_and(|last| last.number > n)) {
            self.store.discard_after(&state.id, judged)?;
            let written: usize = state.rounds.iter().filter(|r| r.number > judged).map(|r| r.arguments.len()).sum();
            self.events.warning(&format!(
                "{written} argument(s) written for round {} while round {judged} was judged are discarded: that \
                 evaluation ended the debate (their tokens are counted)",
                judged + 1
            ));
        }
        self.store.save_end(&state.id, reason)?;
        self.events.ended(state, reason);
        Ok(())
    }

    pub(super) async fn synthesize(&mut self, state: &DebateState, deadline: Deadlines) -> Result<(), Stop> {
        self.events.moderating("writing the synthesis");
        let names = state.panel_names();
        let decisions: Vec<String> = state.snapshot.project.decisions.iter().map(|d| d.path.clone()).collect();
        let known = synthesis::Known { panel: &names, options: &state.analysis.options, decisions: &decisions };
        let read = |text: &str| synthesis::parse(text, &known).ok();
        let asked = calls::ask_structured(self.moderator(), state, &Ask::Synthesis, read);
        let (completion, parsed) = within(deadline, "the moderator's synthesis", asked).await?;
        // When nothing ended the debate before its last round, the synthesis judged it.
        let judged = match state.end_reason {
            None => {
                let agrees = parsed.as_ref().is_some_and(|(s, _)| s.confidence == Confidence::High);
                step::judged_in_synthesis(state, synthesis::last_round_summary(&completion.text), agrees)
            }
            Some(_) => None,
        };
        let state = judged.as_ref().unwrap_or(state);
        let latest = latest_arguments(state);
        let (mut synthesis, source) = parsed.unwrap_or_else(|| {
            let summary =
                state.rounds.iter().rev().find_map(|r| r.evaluation.as_ref()).map_or("", |e| e.summary.as_str());
            (synthesis::from_transcript(&latest, summary, &state.analysis.options), Source::Transcript)
        });
        synthesis::fill_arguments(&mut synthesis, &latest);
        let debaters = self.providers.debaters.iter().map(|d| ("The debaters' arguments", d));
        let roles = debaters.chain([("The moderator's judgements", &self.providers.moderator)]);
        let mut unreasoned: Vec<String> = roles
            .filter(|(_, provider)| !provider.identity().reasoned)
            .map(|(what, provider)| {
                let by = providers::label(provider.identity().kind).unwrap_or("a provider no model stands behind");
                format!("{what} came from {by}.")
            })
            .collect();
        unreasoned.dedup();
        let outcome = step::outcome(state, synthesis, source, &unreasoned);
        let revision = state.revisions.len() as u32;
        let last = state.rounds.last().filter(|_| judged.is_some());
        match (last, state.end_reason) {
            (Some(round), Some(reason)) => {
                let (measures, evaluation) = round.measures.as_ref().zip(round.evaluation.as_ref()).expect("judged");
                let judged = LastRound { round: round.number, measures, evaluation, reason };
                self.store.save_judged_outcome(&state.id, &judged, &outcome, &completion, revision)?;
                self.events.assessed(state, round);
                self.events.ended(state, reason);
            }
            _ => self.store.save_outcome(&state.id, &outcome, &completion, revision)?,
        }
        self.remember_format(state, &completion)?;
        self.events.synthesized(&outcome);
        Ok(())
    }
}

impl<'a> Engine<'a> {
    /// The moderator's reading of the question and refinement of the panel, not yet
    /// stored. It holds its own handles on the moderator, so it can run alongside round
    /// 1's early arguments.
    pub(super) fn analysing<'s>(&self, state: &'s DebateState) -> Analysing<'s>
    where
        'a: 's,
    {
        let (provider, shared, catalog) =
            (self.providers.moderator.clone(), self.providers.shared.clone(), self.catalog);
        async move {
            let ask = Ask::Analysis { catalog };
            let read = |text: &str| answers::read::<PanelChoice>(text).ok();
            let to = Asked { provider: provider.as_ref(), shared: &shared };
            calls::ask_structured(to, state, &ask, read).await
        }
        .boxed_local()
    }
}

/// Each debater's latest argument and final stance.
fn latest_arguments(state: &DebateState) -> Vec<Latest<'_>> {
    let stances = state.latest_stances();
    state
        .panel
        .iter()
        .enumerate()
        .filter_map(|(seat, s)| {
            // An argument that said nothing of its own is never quoted as one.
            let text = &state.rounds.iter().rev().find_map(|r| r.argument(seat).filter(|c| !c.failed))?.text;
            let option = stances.iter().find(|(at, _)| *at == seat).and_then(|(_, st)| (*st)?.option.as_deref());
            Some(Latest { perspective: s.name(), text, option })
        })
        .collect()
}

/// A step's call, cut off at the deadline (but never while a model is answering).
pub(super) async fn within<T>(
    deadline: Deadlines,
    what: &'static str,
    call: impl Future<Output = providers::Result<T>>,
) -> Result<T, Stop> {
    tokio::select! {
        result = call => Ok(result?),
        () = deadline_passed(deadline) => Err(Stop::TimedOut(what)),
    }
}
