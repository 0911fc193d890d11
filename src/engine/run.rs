//! The step executor: load the state, ask for the next step, do it, persist, repeat.
//! Provider calls of one step run concurrently; each result is committed as it lands.

use std::collections::BTreeMap;
use std::time::Duration;

use super::calls::Asked;
use super::clock::Clock;
use super::step::{self, Between, Step};
use crate::catalog::Catalog;
use crate::error::{Error, Result, Signal};
use crate::model::bounds::MOST_SAID_BYTES;
use crate::model::{AtOnce, DebateState, EndReason, Events, Status};
use crate::providers::{Panel, ProviderError};
use crate::record::seal::Sealer;
use crate::record::{RecordError, Templates};
use crate::store::{Server, Store, StoreError};
use crate::text::secrets;

pub struct Engine<'a> {
    pub store: &'a Store,
    pub providers: Panel,
    pub catalog: &'a Catalog,
    pub templates: &'a Templates,
    /// Seals (and signs) the record it writes.
    pub sealer: &'a Sealer,
    pub events: &'a mut dyn Events,
}
/// Why a step stopped short.
pub(super) enum Stop {
    TimedOut(&'static str),
    Failed(Error),
    /// Paused at a checkpoint (by the human, end of input, or no answer in time).
    Paused(&'static str),
    /// Ctrl-C at a question, or the terminal gone (as SIGHUP).
    Signalled(Signal),
}

impl From<Error> for Stop {
    fn from(err: Error) -> Stop {
        Stop::Failed(err)
    }
}

impl From<StoreError> for Stop {
    fn from(err: StoreError) -> Stop {
        Stop::Failed(err.into())
    }
}

impl From<ProviderError> for Stop {
    fn from(err: ProviderError) -> Stop {
        Stop::Failed(err.into())
    }
}

impl From<RecordError> for Stop {
    fn from(err: RecordError) -> Stop {
        Stop::Failed(err.into())
    }
}

impl Engine<'_> {
    pub(super) fn moderator(&self) -> Asked<'_> {
        Asked { provider: self.providers.moderator.as_ref(), shared: &self.providers.shared }
    }

    /// Who argues at `seat`.
    pub(super) fn debater(&self, seat: usize) -> Asked<'_> {
        Asked { provider: self.providers.debater(seat).as_ref(), shared: &self.providers.shared }
    }

    /// The retries of the calls made since the last time, told.
    pub(super) fn tell_retries(&mut self) {
        for line in self.providers.shared.retries.take() {
            self.events.retrying(&line);
        }
    }

    /// Text the user typed during the debate, with keys and credentials masked (and a
    /// warning when there were any): it is stored, sent and written like the question.
    /// What a person said to the debate as it runs (guidance, an answer): every secret
    /// masked, and cut at the most a person may write at once, whichever door it came
    /// through (a megabyte pasted at a checkpoint is not written into the record whole).
    pub(super) fn scrubbed(&mut self, text: &str, origin: &str) -> String {
        let (mut masked, found) = secrets::scrub(text, &self.providers.shared.secrets);
        for what in found {
            self.events.warning(&secrets::masked_warning(origin, &what));
        }
        if masked.len() > MOST_SAID_BYTES {
            let mut end = MOST_SAID_BYTES;
            while !masked.is_char_boundary(end) {
                end -= 1;
            }
            masked.truncate(end);
            masked.push_str(" […cut at 16 KiB]");
            self.events.warning(&format!("{origin} is longer than 16 KiB: only its first 16 KiB are kept"));
        }
        masked
    }

    /// Run the debate to completion from wherever its stored state stands.
    pub async fn run(&mut self, id: &str) -> Result<DebateState> {
        let started = Clock::start();
        let state = self.store.load(id)?;
        self.store.set_status(id, step::resumed_status(&state))?;
        // A server that refused a format before is asked the way it took last time.
        if let Some((provider, model, base_url)) = moderator_server(&state) {
            let server = Server { provider: &provider, model: &model, base_url: &base_url };
            if let Some(format) = self.store.learnt_format(&server)? {
                self.providers.moderator.start_with_format(&format);
            }
        }
        self.learn_at_once().await?;
        let mut round_started: Option<(u32, Clock)> = None;
        loop {
            // Another process may have taken the debate over (its owner looked dead).
            self.store.check_lease(id)?;
            let state = self.store.load(id)?;
            let rules = &state.snapshot.debate;
            let total_deadline = started.after(Duration::from_secs(rules.total_timeout_seconds.0));
            let round_timeout = Duration::from_secs(rules.round_timeout_seconds.0);
            // A round's clock starts when this run first works on it.
            let mut round_deadline = |round: u32| {
                let since = match round_started {
                    Some((r, at)) if r == round => at,
                    _ => round_started.insert((round, Clock::start())).1.to_owned(),
                };
                [since.after(round_timeout), total_deadline]
            };
            // With someone to answer between rounds, or a server that serves one request
            // at a time, each round waits for the last one's evaluation; otherwise the
            // next round's arguments run alongside it.
            let between = match rules.checkpoints && self.events.attended() || self.one_at_a_time() {
                true => Between::Checkpoint,
                false => Between::Nobody,
            };
            let step = step::next(&state, between);
            let result = match &step {
                Step::Done => return Ok(state),
                Step::Clarify => self.clarify(&state, [Clock::start().after(round_timeout), total_deadline]).await,
                Step::Analyze => self.analyze(&state, [Clock::start().after(round_timeout), total_deadline]).await,
                Step::AnalyzeWhileArguing { seats } => {
                    let deadline = [Clock::start().after(round_timeout), total_deadline];
                    self.analyze_while_arguing(&state, seats, deadline).await
                }
                Step::StartRound(round) => self.start_round(&state, *round).await,
                Step::Argue { round, seats } => self.argue(&state, *round, seats, round_deadline(*round)).await,
                Step::EvaluateWhileArguing { evaluate, round, seats, stances } => {
                    let deadline = round_deadline(*round);
                    self.argue_while_judging(&state, (*evaluate, *round), seats, stances, deadline).await
                }
                Step::Rebut { round, seats, stances } => {
                    self.rebut(&state, *round, seats, stances, round_deadline(*round)).await
                }
                Step::ReadStances { round, kind, seats } => {
                    self.read_stances(&state, *round, *kind, seats, round_deadline(*round)).await
                }
                Step::Evaluate(round) => self.evaluate(&state, *round, round_deadline(*round)).await,
                Step::Conclude(reason) => self.conclude(&state, *reason),
                Step::Synthesize => {
                    self.synthesize(&state, [Clock::start().after(round_timeout), total_deadline]).await
                }
                Step::Record => self.record(&state).await,
            };
            self.tell_retries();
            match result {
                Ok(()) => {}
                Err(Stop::TimedOut(what)) => {
                    let in_round = matches!(
                        step,
                        Step::Argue { .. }
                            | Step::EvaluateWhileArguing { .. }
                            | Step::Rebut { .. }
                            | Step::ReadStances { .. }
                            | Step::Evaluate(_)
                    );
                    let usable = state.rounds.iter().any(|r| !r.arguments.is_empty());
                    if in_round && usable {
                        self.store.save_end(id, EndReason::Timeout)?;
                        self.events.ended(&state, EndReason::Timeout);
                    } else {
                        let timed_out =
                            ProviderError::Unusable(format!("{what} timed out before anything usable was said"));
                        return Err(self.pause(id, timed_out.into()));
                    }
                }
                Err(Stop::Failed(Error::Provider(err))) if err.pauses_the_debate() => {
                    return Err(self.pause(id, err.into()));
                }
                Err(Stop::Failed(err)) => return Err(err),
                Err(Stop::Paused(why)) => {
                    self.store.set_status(id, Status::Paused)?;
                    self.events.paused(id, why);
                    return Ok(self.store.load(id)?);
                }
                Err(Stop::Signalled(signal)) => return Err(self.pause(id, Error::Stopped { signal })),
            }
        }
    }

    /// Whether a server this debate calls serves one request at a time.
    fn one_at_a_time(&self) -> bool {
        [&self.providers.moderator].into_iter().chain(&self.providers.debaters).any(|p| p.sends_at_once() == 1)
    }

    /// Each provider on a model server of this machine sends as many requests at once as
    /// the server serves: as learned before, else asked or measured now and kept, so the
    /// next debate on it starts there. A server that serves one at a time gets one.
    async fn learn_at_once(&mut self) -> Result<()> {
        let providers: Vec<_> =
            [&self.providers.moderator].into_iter().chain(&self.providers.debaters).cloned().collect();
        // Each server is asked once, however many roles use it.
        let mut servers: BTreeMap<String, Option<AtOnce>> = BTreeMap::new();
        for provider in providers {
            let Some(server) = provider.learning_server().map(str::to_string) else { continue };
            if !servers.contains_key(&server) {
                let at_once = match self.store.learnt_at_once(&server)? {
                    Some(known) => Some(known),
                    None => {
                        let learned = provider.serves_at_once(&self.providers.shared.budget).await;
                        if let Some(learned) = &learned {
                            self.store.save_at_once(&server, learned)?;
                            self.events.server_learned(&server, learned);
                        }
                        learned
                    }
                };
                servers.insert(server.clone(), at_once);
            }
            if let Some(at_once) = &servers[&server] {
                provider.send_at_once(at_once.requests);
            }
        }
        Ok(())
    }

    /// Leave the debate resumable and say how to resume it.
    pub fn pause(&self, id: &str, err: Error) -> Error {
        match self.store.set_status(id, Status::Paused) {
            Ok(()) => Error::Paused { id: id.to_string(), source: Box::new(err) },
            Err(store_err) => store_err.into(),
        }
    }
}

/// The moderator's server (provider, model, base URL), as the formats it takes are
/// remembered; `None` for a provider without a model or a server.
pub(super) fn moderator_server(state: &DebateState) -> Option<(String, String, String)> {
    let role = &state.snapshot.moderator;
    let definition = state.snapshot.providers.get(&role.provider)?;
    Some((role.provider.clone(), definition.model_for(role)?.to_string(), definition.base_url()?))
}
