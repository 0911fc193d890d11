//! The step executor: load the state, ask for the next step, do it, persist, repeat.
//! Provider calls of one step run concurrently; each result is committed as it lands.

use std::collections::BTreeMap;
use std::future::Future;
use std::time::{Duration, Instant};

use futures::StreamExt;
use futures::stream::FuturesUnordered;

use super::calls::{self, Ask};
use super::state::{Contribution, ContributionKind, DebateState, EndReason, Outcome, Round, Status};
use super::step::{self, Step};
use crate::catalog::Catalog;
use crate::error::{Error, Kind, Result};
use crate::moderator::detection;
use crate::moderator::evaluation::{self, Evaluation};
use crate::moderator::{json, prompts, selection, synthesis};
use crate::providers::{Completion, Panel, TextSink};
use crate::record::{self, Published, issue::Draft};
use crate::settings::Rebuttals;
use crate::store::Store;

/// Longest contribution we keep; an enormous answer is cut, and says so.
const MAX_ANSWER_CHARS: usize = 60_000;

/// The human's answer at a checkpoint (SPEC §2.4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Continue,
    /// Continue, with this guidance for the next round.
    Guide(String),
    /// Go to synthesis now.
    End,
    Pause,
    /// Stdin ended: nobody can answer; the debate pauses.
    EndOfInput,
    /// Ctrl-C.
    Interrupted,
}

/// A question that blocks until the human answers; run off the async runtime.
pub type Checkpoint = Box<dyn FnOnce() -> Decision + Send>;

/// What the engine reports as it goes; the terminal decides how to show it.
pub trait Events {
    /// Between rounds: the question to ask, or `None` when nobody can answer (no
    /// terminal). Called with the round just finished.
    fn checkpoint(&mut self, _state: &DebateState, _round: u32) -> Option<Checkpoint> {
        None
    }
    /// The moderator is at work (analysing, evaluating, synthesising).
    fn moderating(&mut self, _what: &str) {}
    fn panel(&mut self, _state: &DebateState) {}
    fn round_started(&mut self, _round: u32, _framing: &str) {}
    /// A step's calls start, for these seats (in panel order).
    fn working(&mut self, _round: u32, _kind: ContributionKind, _seats: &[(usize, String)]) {}
    fn contribution(&mut self, _round: u32, _name: &str, _contribution: &Contribution) {}
    fn assessed(&mut self, _state: &DebateState, _round: &Round) {}
    fn ended(&mut self, _reason: EndReason) {}
    fn synthesized(&mut self, _outcome: &Outcome) {}
    fn recorded(&mut self, _state: &DebateState, _record: &Published, _draft: Option<&Draft>) {}
    /// Whether to stream debaters' text as it arrives (a terminal that shows it).
    fn live(&self) -> bool {
        false
    }
    /// Text of the debater at `seat` as it arrives (only when `live`).
    fn delta(&mut self, _seat: usize, _text: &str) {}
    /// A debater's call failed this step.
    fn failed(&mut self, _round: u32, _seat: usize, _name: &str) {}
    /// A debater left the panel after repeated provider failures.
    fn dropped(&mut self, _name: &str, _reason: &str) {}
    /// The debate paused and can be resumed.
    fn paused(&mut self, _id: &str, _why: &str) {}
    /// At the end of a debate run with checkpoints on: does the human want an issue
    /// draft? (Only a terminal can answer.)
    fn wants_issue_draft(&mut self) -> bool {
        false
    }
}

pub struct Engine<'a> {
    pub store: &'a Store,
    pub providers: Panel,
    pub catalog: &'a Catalog,
    pub events: &'a mut dyn Events,
}

/// Why a step stopped short.
enum Stop {
    TimedOut(&'static str),
    Failed(Error),
    /// Paused at a checkpoint (by the human, end of input, or no answer in time).
    Paused(&'static str),
    Interrupted,
}

impl From<Error> for Stop {
    fn from(err: Error) -> Stop {
        Stop::Failed(err)
    }
}

impl Engine<'_> {
    /// Run the debate to completion from wherever its stored state stands.
    pub async fn run(&mut self, id: &str) -> Result<DebateState> {
        let started = Instant::now();
        let state = self.store.load(id)?;
        self.store.set_status(id, step::resumed_status(&state))?;
        let mut round_started: Option<(u32, Instant)> = None;
        loop {
            let state = self.store.load(id)?;
            let rules = &state.snapshot.debate;
            let total_deadline = started + Duration::from_secs(rules.total_timeout_seconds.0);
            let round_timeout = Duration::from_secs(rules.round_timeout_seconds.0);
            // A round's clock starts when this run first works on it.
            let mut round_deadline = |round: u32| {
                let since = match round_started {
                    Some((r, at)) if r == round => at,
                    _ => round_started.insert((round, Instant::now())).1.to_owned(),
                };
                (since + round_timeout).min(total_deadline)
            };
            let step = step::next(&state);
            let result = match &step {
                Step::Done => return Ok(state),
                Step::Analyze => self.analyze(&state, Instant::now() + round_timeout).await,
                Step::StartRound(round) => self.start_round(&state, *round).await,
                Step::Argue { round, seats } => {
                    self.debaters(&state, *round, ContributionKind::Argument, seats, round_deadline(*round)).await
                }
                Step::Rebut { round, seats } => {
                    self.debaters(&state, *round, ContributionKind::Rebuttal, seats, round_deadline(*round)).await
                }
                Step::Evaluate(round) => self.evaluate(&state, *round, round_deadline(*round)).await,
                Step::Conclude(reason) => {
                    self.store.save_end(id, *reason)?;
                    self.events.ended(*reason);
                    Ok(())
                }
                Step::Synthesize => self.synthesize(&state, Instant::now() + round_timeout).await,
                Step::Record => self.record(&state),
            };
            match result {
                Ok(()) => {}
                Err(Stop::TimedOut(what)) => {
                    let in_round = matches!(step, Step::Argue { .. } | Step::Rebut { .. } | Step::Evaluate(_));
                    let usable = state.rounds.iter().any(|r| !r.arguments.is_empty());
                    if in_round && usable {
                        self.store.save_end(id, EndReason::Timeout)?;
                        self.events.ended(EndReason::Timeout);
                    } else {
                        return Err(self
                            .pause(id, Error::provider(format!("{what} timed out before anything usable was said"))));
                    }
                }
                Err(Stop::Failed(err)) if matches!(err.kind, Kind::Provider | Kind::ContextLength) => {
                    return Err(self.pause(id, err));
                }
                Err(Stop::Failed(err)) => return Err(err),
                Err(Stop::Paused(why)) => {
                    self.store.set_status(id, Status::Paused)?;
                    self.events.paused(id, why);
                    return self.store.load(id);
                }
                Err(Stop::Interrupted) => {
                    self.store.set_status(id, Status::Paused)?;
                    return Err(interrupted(id));
                }
            }
        }
    }

    /// Leave the debate resumable and say how to resume it.
    fn pause(&self, id: &str, err: Error) -> Error {
        if let Err(store_err) = self.store.set_status(id, Status::Paused) {
            return store_err;
        }
        let hint = match err.hint {
            Some(hint) => format!("{hint}; the debate is paused: debate --resume {id}"),
            None => format!("the debate is paused; continue it with: debate --resume {id}"),
        };
        Error { hint: Some(hint), ..err }
    }

    async fn analyze(&mut self, state: &DebateState, deadline: Instant) -> Result<(), Stop> {
        self.events.moderating("choosing the panel");
        let ask = Ask::Analysis { catalog: self.catalog };
        let read = |text: &str| json::extract::<serde_json::Value>(text).ok();
        let asked = calls::ask_structured(self.providers.moderator.as_ref(), state, &ask, read);
        let (completion, _) = within(deadline, "the moderator's analysis", asked).await?;
        let panel = selection::refine(self.catalog, &state.panel, &state.snapshot.forced, &completion.text)
            .unwrap_or_else(|| state.panel.clone());
        self.store.save_panel(&state.id, &panel, &completion)?;
        let chosen = self.store.load(&state.id)?;
        self.events.panel(&chosen);
        Ok(())
    }

    /// Open round N; from round 2 on, with checkpoints on and someone to answer, the
    /// human decides first. An unanswered checkpoint is just a round not yet started.
    async fn start_round(&mut self, state: &DebateState, round: u32) -> Result<(), Stop> {
        let mut guidance = None;
        let rules = &state.snapshot.debate;
        let question = if round > 1 && rules.checkpoints { self.events.checkpoint(state, round - 1) } else { None };
        if let Some(question) = question {
            self.store.set_status(&state.id, Status::Checkpoint)?;
            let patience = Duration::from_secs(rules.checkpoint_timeout_seconds.0);
            let answer = tokio::time::timeout(patience, tokio::task::spawn_blocking(question)).await;
            match answer {
                Err(_) => return Err(Stop::Paused("no answer at the checkpoint in time")),
                Ok(Err(_)) | Ok(Ok(Decision::EndOfInput)) => return Err(Stop::Paused("input ended at the checkpoint")),
                Ok(Ok(Decision::Pause)) => return Err(Stop::Paused("paused at the checkpoint")),
                Ok(Ok(Decision::Interrupted)) => return Err(Stop::Interrupted),
                Ok(Ok(Decision::End)) => {
                    self.store.save_end(&state.id, EndReason::Human)?;
                    self.events.ended(EndReason::Human);
                    return Ok(());
                }
                Ok(Ok(Decision::Guide(text))) => guidance = Some(text),
                Ok(Ok(Decision::Continue)) => {}
            }
        }
        let framing = prompts::framing(state, round);
        self.store.start_round(&state.id, round, &framing, guidance.as_deref())?;
        self.events.round_started(round, &framing);
        Ok(())
    }

    async fn debaters(
        &mut self,
        state: &DebateState,
        round: u32,
        kind: ContributionKind,
        seats: &[usize],
        deadline: Instant,
    ) -> Result<(), Stop> {
        // Sequential rebuttals go one per step, so each sees the ones stored before it.
        let sequential = kind == ContributionKind::Rebuttal && state.snapshot.debate.rebuttals == Rebuttals::Sequential;
        let seats = if sequential { &seats[..1] } else { seats };
        let named: Vec<(usize, String)> = seats.iter().map(|&s| (s, state.panel[s].name().to_string())).collect();
        self.events.working(round, kind, &named);

        // On a terminal the text streams in; the terminal keeps parallel debaters apart.
        let (live_tx, mut live_rx) = tokio::sync::mpsc::unbounded_channel::<(usize, String)>();
        let live = self.events.live();
        let provider = self.providers.debater.clone();
        let mut pending: FuturesUnordered<_> = seats
            .iter()
            .map(|&seat| {
                let provider = provider.clone();
                let live_tx = live_tx.clone();
                let sink = live.then(|| {
                    TextSink::new(move |text| {
                        let _ = live_tx.send((seat, text.to_string()));
                    })
                });
                async move {
                    let what = format!("{} ({} {kind})", state.panel[seat].name(), round);
                    let asked = calls::ask(provider.as_ref(), state, &Ask::Debater { seat, round, kind }, sink).await;
                    (seat, asked.and_then(|c| usable(c, &what)))
                }
            })
            .collect();

        // Stored the moment they land; shown in panel order, not completion order.
        let mut landed: BTreeMap<usize, Option<Contribution>> = BTreeMap::new();
        let mut shown = 0;
        let mut failures: Vec<(usize, Error)> = Vec::new();
        loop {
            let next = tokio::select! {
                biased;
                Some((seat, text)) = live_rx.recv() => {
                    self.events.delta(seat, &text);
                    continue;
                }
                next = tokio::time::timeout_at(deadline.into(), pending.next()) => next,
            };
            let Ok(next) = next else { return Err(Stop::TimedOut("a debate round")) };
            let Some((seat, result)) = next else { break };
            while let Ok((seat, text)) = live_rx.try_recv() {
                self.events.delta(seat, &text);
            }
            match result {
                Ok(completion) => {
                    let contribution = Contribution {
                        seat,
                        kind,
                        text: completion.text,
                        model: completion.model,
                        usage: completion.usage,
                    };
                    self.store.save_contribution(&state.id, round, state.panel[seat].name(), &contribution)?;
                    landed.insert(seat, Some(contribution));
                }
                Err(err) => {
                    landed.insert(seat, None);
                    failures.push((seat, err));
                }
            }
            while let Some(ready) = seats.get(shown).and_then(|seat| landed.get(seat)) {
                match ready {
                    Some(contribution) => {
                        self.events.contribution(round, state.panel[contribution.seat].name(), contribution)
                    }
                    None => self.events.failed(round, seats[shown], state.panel[seats[shown]].name()),
                }
                shown += 1;
            }
        }
        self.drop_or_fail(state, failures)
    }

    /// A debater whose provider keeps failing leaves the panel when at least two others
    /// remain (recorded, and the result is marked degraded); otherwise the debate pauses.
    fn drop_or_fail(&mut self, state: &DebateState, failures: Vec<(usize, Error)>) -> Result<(), Stop> {
        if failures.is_empty() {
            return Ok(());
        }
        let droppable = failures.iter().all(|(_, err)| matches!(err.kind, Kind::Provider | Kind::ContextLength));
        let remaining = state.active_seats().len().saturating_sub(failures.len());
        if !droppable || remaining < 2 {
            let (_, err) = failures.into_iter().next().expect("not empty");
            return Err(Stop::Failed(err));
        }
        for (seat, err) in failures {
            let reason = err.message;
            self.store.drop_seat(&state.id, seat, &reason)?;
            self.events.dropped(state.panel[seat].name(), &reason);
        }
        Ok(())
    }

    async fn evaluate(&mut self, state: &DebateState, round: u32, deadline: Instant) -> Result<(), Stop> {
        let measures = step::measure(state, round);
        let mut history = state.measures();
        history.push(measures.clone());
        let rules = &state.snapshot.debate;
        let stagnating = detection::stagnating(&history, rules.repetition_threshold.0, rules.novelty_threshold.0);

        self.events.moderating("evaluating the round");
        let ask = Ask::Evaluation { round, measures: &measures, stagnating };
        let names = state.panel_names();
        let read = |text: &str| evaluation::parse(text, &names).ok();
        let asked = calls::ask_structured(self.providers.moderator.as_ref(), state, &ask, read);
        let (completion, parsed) = within(deadline, "the moderator's evaluation", asked).await?;
        let evaluation: Evaluation = parsed.unwrap_or_else(|| {
            let arguments: Vec<(String, String)> = state.rounds[round as usize - 1]
                .arguments
                .iter()
                .map(|c| (state.panel[c.seat].name().to_string(), c.text.clone()))
                .collect();
            evaluation::heuristic(&arguments, measures.novelty, stagnating)
        });
        self.store.save_evaluation(&state.id, round, &measures, &evaluation, &completion)?;
        let updated = self.store.load(&state.id)?;
        self.events.assessed(&updated, &updated.rounds[round as usize - 1]);
        Ok(())
    }

    async fn synthesize(&mut self, state: &DebateState, deadline: Instant) -> Result<(), Stop> {
        self.events.moderating("writing the synthesis");
        let names = state.panel_names();
        let read = |text: &str| synthesis::parse(text, &names).ok();
        let asked = calls::ask_structured(self.providers.moderator.as_ref(), state, &Ask::Synthesis, read);
        let (completion, parsed) = within(deadline, "the moderator's synthesis", asked).await?;
        let (synthesis, source) = parsed.unwrap_or_else(|| {
            let latest = latest_arguments(state);
            let summary =
                state.rounds.iter().rev().find_map(|r| r.evaluation.as_ref()).map_or("", |e| e.summary.as_str());
            (synthesis::from_transcript(&latest, summary), synthesis::Source::Transcript)
        });
        let reasoned = self.providers.moderator.reasoned() && self.providers.debater.reasoned();
        let outcome = step::outcome(state, synthesis, source, reasoned);
        self.store.save_outcome(&state.id, &outcome, &completion)?;
        self.events.synthesized(&outcome);
        Ok(())
    }

    fn record(&mut self, state: &DebateState) -> Result<(), Stop> {
        // The path is stored before anything is written, so a crash at any point later
        // resumes with the same file (and finds its commit by the Debate-Id trailer).
        let path = match &state.record_path {
            Some(path) => path.into(),
            None => {
                let path = record::plan_path(state)?;
                self.store.save_record_path(&state.id, &path.display().to_string())?;
                path
            }
        };
        let published = record::publish(state, &path)?;
        record::failpoint("after-commit");
        let wanted =
            state.snapshot.record.issue_draft || (state.snapshot.debate.checkpoints && self.events.wants_issue_draft());
        let draft = match wanted {
            true => Some(record::issue::write(state, &published)?),
            false => None,
        };
        self.store.complete(&state.id, published.commit.as_deref())?;
        let done = self.store.load(&state.id)?;
        self.events.recorded(&done, &published, draft.as_ref());
        Ok(())
    }
}

fn latest_arguments(state: &DebateState) -> Vec<(String, String)> {
    state
        .panel
        .iter()
        .enumerate()
        .filter_map(|(seat, s)| {
            let text = state.rounds.iter().rev().find_map(|r| r.argument(seat))?.text.clone();
            Some((s.name().to_string(), text))
        })
        .collect()
}

/// Ctrl-C: everything finished is stored; say how to continue.
pub fn interrupted(id: &str) -> Error {
    Error::interrupted("interrupted; every finished step is saved")
        .with_hint(format!("continue with: debate --resume {id}"))
}

/// A step's call, cut off at the deadline.
async fn within<T>(deadline: Instant, what: &'static str, call: impl Future<Output = Result<T>>) -> Result<T, Stop> {
    match tokio::time::timeout_at(deadline.into(), call).await {
        Ok(result) => Ok(result?),
        Err(_) => Err(Stop::TimedOut(what)),
    }
}

/// A debater's answer must say something; an enormous one is cut.
fn usable(mut completion: Completion, what: &str) -> Result<Completion> {
    let text = completion.text.trim();
    if text.is_empty() {
        return Err(Error::provider(format!("the model returned an empty answer for {what}")));
    }
    completion.text = match text.char_indices().nth(MAX_ANSWER_CHARS) {
        Some((end, _)) => format!("{} […cut at {MAX_ANSWER_CHARS} characters]", &text[..end]),
        None => text.to_string(),
    };
    Ok(completion)
}
