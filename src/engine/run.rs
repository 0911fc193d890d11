//! The step executor: load the state, ask for the next step, do it, persist, repeat.
//! Provider calls of one step run concurrently; each result is committed as it lands.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use futures::StreamExt;
use futures::stream::FuturesUnordered;

use super::state::{Contribution, ContributionKind, DebateState, EndReason, Outcome, Round, Status, Usage};
use super::step::{self, Step};
use crate::catalog::Catalog;
use crate::error::{Error, Kind, Result};
use crate::moderator::detection;
use crate::moderator::evaluation::{self, Evaluation};
use crate::moderator::{prompts, selection, synthesis};
use crate::providers::{Brief, Completion, Panel, Provider, Purpose, Request};
use crate::record::{self, Published, issue::Draft};
use crate::settings::Rebuttals;
use crate::store::Store;

/// Longest contribution we keep; an enormous answer is cut, and says so.
const MAX_ANSWER_CHARS: usize = 60_000;
/// Completion limits for the moderator's structured answers.
const ANALYSIS_TOKENS: u32 = 1_000;
const EVALUATION_TOKENS: u32 = 1_500;
const SYNTHESIS_TOKENS: u32 = 4_000;

/// What the engine reports as it goes; the terminal decides how to show it.
pub trait Events {
    fn panel(&mut self, _state: &DebateState) {}
    fn round_started(&mut self, _round: u32, _framing: &str) {}
    fn working(&mut self, _round: u32, _what: &str, _who: &[String]) {}
    fn contribution(&mut self, _round: u32, _name: &str, _contribution: &Contribution) {}
    fn assessed(&mut self, _state: &DebateState, _round: &Round) {}
    fn ended(&mut self, _reason: EndReason) {}
    fn synthesized(&mut self, _outcome: &Outcome) {}
    fn recorded(&mut self, _state: &DebateState, _record: &Published, _draft: Option<&Draft>) {}
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
                Step::StartRound(round) => self.start_round(&state, *round),
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
                Err(Stop::Failed(err)) if err.kind == Kind::Provider => return Err(self.pause(id, err)),
                Err(Stop::Failed(err)) => return Err(err),
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
        let prompt =
            prompts::analysis(&state.question, &state.analysis, &state.panel, self.catalog, &state.snapshot.forced);
        let request = moderator_request(state, Purpose::Analysis, 0, prompt, ANALYSIS_TOKENS, Brief::None);
        let completion =
            call(self.providers.moderator.as_ref(), &request, deadline, "the moderator's analysis").await?;
        let panel = selection::refine(self.catalog, &state.panel, &state.snapshot.forced, &completion.text)
            .unwrap_or_else(|| state.panel.clone());
        self.store.save_panel(&state.id, &panel, &completion)?;
        let chosen = self.store.load(&state.id)?;
        self.events.panel(&chosen);
        Ok(())
    }

    fn start_round(&mut self, state: &DebateState, round: u32) -> Result<(), Stop> {
        let framing = prompts::framing(state, round);
        self.store.start_round(&state.id, round, &framing, None)?;
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
        let names: Vec<String> = seats.iter().map(|&s| state.panel[s].name().to_string()).collect();
        self.events.working(round, kind.as_str(), &names);

        let provider = self.providers.debater.clone();
        let mut pending: FuturesUnordered<_> = seats
            .iter()
            .map(|&seat| {
                let request = debater_request(state, seat, round, kind);
                let provider = provider.clone();
                async move {
                    let what = format!("{} ({} {kind})", request.perspective.clone().unwrap_or_default(), round);
                    (seat, timed(provider.as_ref(), &request).await.and_then(|c| usable(c, &what)))
                }
            })
            .collect();
        // Stored the moment they land; shown in panel order, not completion order.
        let mut landed: BTreeMap<usize, Option<Contribution>> = BTreeMap::new();
        let mut shown = 0;
        let mut failure = None;
        loop {
            let next = tokio::time::timeout_at(deadline.into(), pending.next()).await;
            let Ok(next) = next else { return Err(Stop::TimedOut("a debate round")) };
            let Some((seat, result)) = next else { break };
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
                    failure.get_or_insert(err);
                }
            }
            while let Some(ready) = seats.get(shown).and_then(|seat| landed.get(seat)) {
                if let Some(contribution) = ready {
                    self.events.contribution(round, state.panel[contribution.seat].name(), contribution);
                }
                shown += 1;
            }
        }
        failure.map_or(Ok(()), |err| Err(Stop::Failed(err)))
    }

    async fn evaluate(&mut self, state: &DebateState, round: u32, deadline: Instant) -> Result<(), Stop> {
        let measures = step::measure(state, round);
        let mut history = state.measures();
        history.push(measures.clone());
        let rules = &state.snapshot.debate;
        let stagnating = detection::stagnating(&history, rules.repetition_threshold.0, rules.novelty_threshold.0);
        let arguments: Vec<(String, String)> = state.rounds[round as usize - 1]
            .arguments
            .iter()
            .map(|c| (state.panel[c.seat].name().to_string(), c.text.clone()))
            .collect();

        let prompt = prompts::evaluation(state, round, &measures);
        let brief = Brief::Evaluation { arguments: arguments.clone(), novelty: measures.novelty, stagnating };
        let request = moderator_request(state, Purpose::Evaluation, round, prompt, EVALUATION_TOKENS, brief);
        let completion =
            call(self.providers.moderator.as_ref(), &request, deadline, "the moderator's evaluation").await?;
        let evaluation: Evaluation = evaluation::parse(&completion.text, &state.panel_names())
            .unwrap_or_else(|_| evaluation::heuristic(&arguments, measures.novelty, stagnating));
        self.store.save_evaluation(&state.id, round, &measures, &evaluation, &completion)?;
        let updated = self.store.load(&state.id)?;
        self.events.assessed(&updated, &updated.rounds[round as usize - 1]);
        Ok(())
    }

    async fn synthesize(&mut self, state: &DebateState, deadline: Instant) -> Result<(), Stop> {
        let names = state.panel_names();
        let brief = Brief::Synthesis {
            panel: state.panel.iter().map(|s| s.perspective.clone()).collect(),
            options: state.analysis.options.clone(),
        };
        let request =
            moderator_request(state, Purpose::Synthesis, 0, prompts::synthesis(state), SYNTHESIS_TOKENS, brief);
        let completion =
            call(self.providers.moderator.as_ref(), &request, deadline, "the moderator's synthesis").await?;
        let (synthesis, source) = synthesis::parse(&completion.text, &names).unwrap_or_else(|_| {
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

fn debater_request(state: &DebateState, seat: usize, round: u32, kind: ContributionKind) -> Request {
    let (purpose, prompt) = match kind {
        ContributionKind::Argument => (Purpose::Argument, prompts::argument(state, seat, round)),
        ContributionKind::Rebuttal => (Purpose::Rebuttal, prompts::rebuttal(state, seat, round)),
    };
    let me = &state.panel[seat];
    Request {
        purpose,
        round,
        perspective: Some(me.name().to_string()),
        system: prompt.system,
        prompt: prompt.user,
        max_tokens: state.snapshot.debate.token_budget_per_round.0,
        temperature: state.snapshot.debater.temperature,
        json: false,
        brief: Brief::Debater {
            perspective: me.perspective.clone(),
            seat,
            question: state.question.clone(),
            options: state.analysis.options.clone(),
            others: state
                .panel
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != seat)
                .map(|(_, s)| s.perspective.clone())
                .collect(),
        },
    }
}

fn moderator_request(
    state: &DebateState,
    purpose: Purpose,
    round: u32,
    prompt: prompts::Prompt,
    max_tokens: u32,
    brief: Brief,
) -> Request {
    Request {
        purpose,
        round,
        perspective: None,
        system: prompt.system,
        prompt: prompt.user,
        max_tokens: Some(max_tokens),
        temperature: state.snapshot.moderator.temperature,
        json: true,
        brief,
    }
}

/// One call, with its wall time as the latency.
async fn timed(provider: &dyn Provider, request: &Request) -> Result<Completion> {
    let started = Instant::now();
    let mut completion = provider.complete(request).await?;
    completion.usage = Usage { latency_ms: started.elapsed().as_millis() as u64, ..completion.usage };
    Ok(completion)
}

async fn call(
    provider: &dyn Provider,
    request: &Request,
    deadline: Instant,
    what: &'static str,
) -> Result<Completion, Stop> {
    match tokio::time::timeout_at(deadline.into(), timed(provider, request)).await {
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
