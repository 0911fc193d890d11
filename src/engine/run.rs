//! The step executor: load the state, ask for the next step, do it, persist, repeat.
//! Provider calls of one step run concurrently; each result is committed as it lands.

use std::collections::BTreeMap;
use std::future::Future;
use std::time::Duration;

use futures::StreamExt;
use futures::future::{FutureExt, LocalBoxFuture};
use futures::stream::FuturesUnordered;
use tokio::time::Instant;

use super::calls::{self, Ask, Asked};
use super::step::{self, Between, Step};
use crate::catalog::Catalog;
use crate::error::{Error, Result, Signal};
use crate::model::{
    Analysis, AtOnce, Clarified, Completion, Confidence, Contribution, ContributionKind, DebateState, Decision,
    EndReason, Evaluation, Events, Rebuttals, RoundMeasures, Source, Stance, Status, Usage,
};
use crate::moderator::analysis;
use crate::moderator::answers;
use crate::moderator::clarify::{self, ClarifyingQuestions};
use crate::moderator::evaluation;
use crate::moderator::noise;
use crate::moderator::prompts;
use crate::moderator::selection::{self, PanelChoice};
use crate::moderator::stance::{self, StanceAnswer};
use crate::moderator::synthesis::{self, Latest};
use crate::providers::{self, Panel, ProviderError, TextSink};
use crate::record::{self, RecordError, Templates};
use crate::store::{LastRound, Opening, Server, Store, StoreError};
use crate::text::secrets::{self, MaskedStream};

pub struct Engine<'a> {
    pub store: &'a Store,
    pub providers: Panel,
    pub catalog: &'a Catalog,
    pub templates: &'a Templates,
    pub events: &'a mut dyn Events,
}

/// A round's evaluation, the moderator's or (when its answer was unreadable) the
/// measures' own, with the measures it was given.
struct Judged {
    measures: RoundMeasures,
    evaluation: Evaluation,
    completion: Completion,
}

/// An evaluation on its way.
type Judging<'s> = LocalBoxFuture<'s, providers::Result<Judged>>;

/// A call of a step that landed: a debater's, the evaluation running alongside, or a
/// stance the round before did not state, asked alongside.
enum Landed {
    Argued(usize, providers::Result<Completion>),
    Judged(u32, providers::Result<Judged>),
    Stance(u32, ContributionKind, usize, providers::Result<Completion>),
}

/// What runs alongside a wave of debaters: the evaluation of the round before, and the
/// stances contributions did not state (round, kind, seat).
struct Alongside<'s> {
    judging: Option<(u32, Judging<'s>)>,
    stances: Vec<(u32, ContributionKind, usize)>,
}

impl Alongside<'_> {
    const NOTHING: Alongside<'static> = Alongside { judging: None, stances: Vec::new() };
}

/// Why a step stopped short.
enum Stop {
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
    fn moderator(&self) -> Asked<'_> {
        Asked {
            provider: self.providers.moderator.as_ref(),
            secrets: &self.providers.secrets,
            strict: &self.providers.strict,
        }
    }

    /// Who argues at `seat`.
    fn debater(&self, seat: usize) -> Asked<'_> {
        Asked {
            provider: self.providers.debater(seat).as_ref(),
            secrets: &self.providers.secrets,
            strict: &self.providers.strict,
        }
    }

    /// Text the user typed during the debate, with keys and credentials masked (and a
    /// warning when there were any): it is stored, sent and written like the question.
    fn scrubbed(&mut self, text: &str, origin: &str) -> String {
        let (masked, found) = secrets::scrub(text, &self.providers.secrets);
        for what in found {
            self.events.warning(&secrets::masked_warning(origin, &what));
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
                Step::StartRound(round) => self.start_round(&state, *round).await,
                Step::Argue { round, seats } => {
                    let deadline = round_deadline(*round);
                    self.debaters(&state, *round, ContributionKind::Argument, seats, Alongside::NOTHING, deadline).await
                }
                Step::EvaluateWhileArguing { evaluate, round, seats, stances } => {
                    let deadline = round_deadline(*round);
                    let alongside = Alongside {
                        judging: Some((*evaluate, self.judging(&state, *evaluate))),
                        stances: stances.iter().map(|&seat| (*evaluate, ContributionKind::Rebuttal, seat)).collect(),
                    };
                    self.debaters(&state, *round, ContributionKind::Argument, seats, alongside, deadline).await
                }
                Step::Rebut { round, seats, stances } => {
                    let deadline = round_deadline(*round);
                    let alongside = Alongside {
                        judging: None,
                        stances: stances.iter().map(|&seat| (*round, ContributionKind::Argument, seat)).collect(),
                    };
                    self.debaters(&state, *round, ContributionKind::Rebuttal, seats, alongside, deadline).await
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
                Err(Stop::Failed(Error::Provider(err))) if err.from_service() => {
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
                        let learned = provider.serves_at_once().await;
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

    /// Remember how the moderator's server took a structured answer, for the next debate.
    fn remember_format(&self, state: &DebateState, completion: &Completion) -> Result<(), Stop> {
        if let (Some(format), Some((provider, model, base_url))) = (&completion.format, moderator_server(state)) {
            self.store.save_format(&Server { provider: &provider, model: &model, base_url: &base_url }, format)?;
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

    /// A vague question, in two steps: the moderator's questions are stored before
    /// anyone is asked (what the analysis alone asks when its answer is unusable); then,
    /// with checkpoints on and someone to answer, the answer joins the question and the
    /// panel is chosen again with it. Unanswered, the questions are left open for the
    /// record.
    async fn clarify(&mut self, state: &DebateState, deadline: Deadlines) -> Result<(), Stop> {
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

    async fn analyze(&mut self, state: &DebateState, deadline: Deadlines) -> Result<(), Stop> {
        self.events.moderating("choosing the panel");
        let ask = Ask::Analysis { catalog: self.catalog };
        let read = |text: &str| answers::read::<PanelChoice>(text).ok();
        let asked = calls::ask_structured(self.moderator(), state, &ask, read);
        let mut analysis = state.analysis.clone();
        // The refinement is optional: when the moderator fails or times out, the keyword
        // panel stands and the record says why.
        let (completion, choice) = match within(deadline, "the moderator's analysis", asked).await {
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
        if let Some(options) = choice.as_ref().and_then(selection::refine_options) {
            analysis.options = options;
        }
        self.store.save_panel(&state.id, &panel, &analysis, &completion)?;
        self.remember_format(state, &completion)?;
        let chosen = self.store.load(&state.id)?;
        self.events.panel(&chosen);
        Ok(())
    }

    /// Open round N; from round 2 on, with checkpoints on and someone to answer, the
    /// human decides first. An unanswered checkpoint is just a round not yet started.
    async fn start_round(&mut self, state: &DebateState, round: u32) -> Result<(), Stop> {
        // A review's objection is this round's guidance, and was the human's answer.
        let mut guidance = state.review_guidance(round).map(str::to_string);
        let rules = &state.snapshot.debate;
        let patience = Duration::from_secs(rules.checkpoint_timeout_seconds.0);
        let ask = round > 1 && rules.checkpoints && guidance.is_none();
        let question = if ask { self.events.checkpoint(state, round - 1, patience) } else { None };
        if let Some(answer) = question {
            self.store.set_status(&state.id, Status::Checkpoint)?;
            match answer.await {
                Decision::TimedOut => return Err(Stop::Paused("no answer at the checkpoint in time")),
                Decision::EndOfInput => return Err(Stop::Paused("input ended at the checkpoint")),
                Decision::Pause => return Err(Stop::Paused("paused at the checkpoint")),
                Decision::Interrupted => return Err(Stop::Signalled(Signal::Interrupt)),
                Decision::HungUp => return Err(Stop::Signalled(Signal::HangUp)),
                Decision::End => {
                    self.store.save_end(&state.id, EndReason::Human)?;
                    self.events.ended(state, EndReason::Human);
                    return Ok(());
                }
                Decision::Guide(text) => guidance = Some(self.scrubbed(&text, "your guidance")),
                Decision::Continue => {}
            }
        }
        let framing = prompts::framing(state, round);
        let seats = state.roster_for(round);
        let opening = Opening { framing: &framing, guidance: guidance.as_deref(), seats: &seats };
        self.store.start_round(&state.id, round, &opening)?;
        self.events.round_started(round, u32::from(state.snapshot.debate.max_rounds.get()), &framing);
        Ok(())
    }

    /// The debaters at `seats` write their `kind` of `round`, each stored as it lands;
    /// an evaluation of the round before runs `alongside` them and is stored the same way.
    async fn debaters(
        &mut self,
        state: &DebateState,
        round: u32,
        kind: ContributionKind,
        seats: &[usize],
        alongside: Alongside<'_>,
        deadline: Deadlines,
    ) -> Result<(), Stop> {
        // Sequential rebuttals go one per step, so each sees the ones stored before it.
        let sequential = kind == ContributionKind::Rebuttal && state.snapshot.debate.rebuttals == Rebuttals::Sequential;
        let seats = if sequential { &seats[..1] } else { seats };
        let named: Vec<(usize, String)> = seats.iter().map(|&s| (s, state.panel[s].name().to_string())).collect();
        self.events.working(round, kind, &named);

        // On a terminal the text streams in; the terminal keeps parallel debaters apart.
        let (live_tx, mut live_rx) = tokio::sync::mpsc::unbounded_channel::<(usize, String)>();
        let live = self.events.live();
        let secrets = self.providers.secrets.clone();
        let mut pending: FuturesUnordered<LocalBoxFuture<'_, Landed>> = seats
            .iter()
            .map(|&seat| -> LocalBoxFuture<'_, Landed> {
                let (provider, secrets, strict) =
                    (self.providers.debater(seat).clone(), secrets.clone(), self.providers.strict.clone());
                let live_tx = live_tx.clone();
                let sink = live.then(|| {
                    TextSink::new(move |text| {
                        let _ = live_tx.send((seat, text.to_string()));
                    })
                });
                async move {
                    let what = format!("{} ({} {kind})", state.panel[seat].name(), round);
                    let to = Asked { provider: provider.as_ref(), secrets: &secrets, strict: &strict };
                    let ask = Ask::Debater { seat, round, kind };
                    let mut asked = calls::ask(to, state, &ask, sink.clone()).await;
                    // An answer that only repeats the prompt's placeholders is asked for
                    // once more; a second such answer is kept, marked failed.
                    if let Some(first) = asked.as_ref().ok().filter(|c| answers::says_nothing(&c.text)).cloned() {
                        let again = calls::ask_in_own_words(to, state, &ask, first.clone(), sink).await;
                        asked = Ok(again.unwrap_or(first));
                    }
                    Landed::Argued(seat, asked.and_then(|c| usable(c, &what)))
                }
                .boxed_local()
            })
            .collect();
        if let Some((evaluate, judging)) = alongside.judging {
            self.events.moderating(&format!("evaluating round {evaluate}"));
            pending.push(judging.map(move |judged| Landed::Judged(evaluate, judged)).boxed_local());
        }
        for (stated, of, seat) in alongside.stances {
            let (provider, secrets, strict) =
                (self.providers.debater(seat).clone(), secrets.clone(), self.providers.strict.clone());
            pending.push(
                async move {
                    let to = Asked { provider: provider.as_ref(), secrets: &secrets, strict: &strict };
                    let ask = Ask::Stance { seat, round: stated, kind: of };
                    Landed::Stance(stated, of, seat, calls::ask(to, state, &ask, None).await)
                }
                .boxed_local(),
            );
        }
        let (mut judged_failure, mut judged_ends) = (None, false);

        // Stored the moment they land; shown in panel order, not completion order.
        let mut landed: BTreeMap<usize, Option<Contribution>> = BTreeMap::new();
        let mut shown = 0;
        let mut failures: Vec<(usize, ProviderError)> = Vec::new();
        // Streamed text is shown masked, and never a part of a key.
        let mut streams: BTreeMap<usize, MaskedStream> = BTreeMap::new();
        let mut stream = |events: &mut dyn Events, seat: usize, text: &str| {
            let ready = streams.entry(seat).or_default().push(&secrets, text);
            if !ready.is_empty() {
                events.delta(seat, &ready);
            }
        };
        loop {
            let next = tokio::select! {
                biased;
                Some((seat, text)) = live_rx.recv() => {
                    stream(&mut *self.events, seat, &text);
                    continue;
                }
                next = pending.next() => Some(next),
                () = deadline_passed(deadline) => None,
            };
            let Some(next) = next else { return Err(Stop::TimedOut("a debate round")) };
            let (seat, result) = match next {
                None => break,
                Some(Landed::Argued(seat, result)) => (seat, result),
                Some(Landed::Judged(evaluate, judged)) => {
                    match judged {
                        Ok(judged) => judged_ends = self.save_judged(state, evaluate, judged)?,
                        Err(err) => judged_failure = Some(err),
                    }
                    continue;
                }
                Some(Landed::Stance(stated, of, seat, answer)) => {
                    self.save_read_stance(state, stated, seat, of, answer)?;
                    continue;
                }
            };
            while let Ok((seat, text)) = live_rx.try_recv() {
                stream(&mut *self.events, seat, &text);
            }
            match result {
                Ok(completion) => {
                    let (text, stance) = stance::split(&completion.text, &state.analysis.options);
                    let stance = stance.map(|s| first_listed(state, s, seat, round, kind));
                    let contribution = Contribution {
                        seat,
                        kind,
                        text,
                        model: completion.model,
                        usage: completion.usage,
                        truncated: completion.truncated,
                        looped: completion.looped,
                        // Only the prompt's placeholders, headings or instructions given back.
                        failed: answers::says_nothing(&completion.text)
                            || noise::echoes(
                                &completion.text,
                                &calls::prompt_text(state, &Ask::Debater { seat, round, kind }),
                            ),
                        stance,
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
                    None => self.events.failed(round, seats[shown], state.name(seats[shown])),
                }
                shown += 1;
            }
        }
        if judged_ends {
            // This round will be discarded: a failure in it changes nothing.
            return Ok(());
        }
        self.drop_or_fail(state, round, kind, failures)?;
        match judged_failure {
            Some(err) => Err(err.into()),
            None => Ok(()),
        }
    }

    /// Ask each of these debaters once more for the stance its contribution did not
    /// state; one that still cannot be read (or a failed call) is unknown. Never fails.
    async fn read_stances(
        &mut self,
        state: &DebateState,
        round: u32,
        kind: ContributionKind,
        seats: &[usize],
        deadline: Deadlines,
    ) -> Result<(), Stop> {
        // All at once, each stored as it lands: one wave, however many were cut short.
        let mut asked: FuturesUnordered<LocalBoxFuture<'_, (usize, providers::Result<Completion>)>> = seats
            .iter()
            .map(|&seat| {
                let to = self.debater(seat);
                async move { (seat, calls::ask(to, state, &Ask::Stance { seat, round, kind }, None).await) }
                    .boxed_local()
            })
            .collect();
        loop {
            let landed = tokio::select! {
                landed = asked.next() => landed,
                () = deadline_passed(deadline) => return Err(Stop::TimedOut("reading the debaters' stances")),
            };
            let Some((seat, answer)) = landed else { return Ok(()) };
            self.save_read_stance(state, round, seat, kind, answer)?;
        }
    }

    /// The stance a debater gave when asked once more; one that cannot be read (or a
    /// failed call) is unknown.
    fn save_read_stance(
        &self,
        state: &DebateState,
        round: u32,
        seat: usize,
        kind: ContributionKind,
        answer: providers::Result<Completion>,
    ) -> Result<(), Stop> {
        let (stance, usage) = match answer {
            Ok(completion) => {
                let read = answers::read::<StanceAnswer>(&completion.text).ok();
                let stance = read
                    .and_then(|answer| stance::from_answer(answer, &state.analysis.options))
                    .map(|s| first_listed(state, s, seat, round, kind));
                (stance.unwrap_or_else(Stance::unknown), completion.usage)
            }
            Err(_) => (Stance::unknown(), Usage::default()),
        };
        Ok(self.store.save_stance(&state.id, round, seat, kind, &stance, usage)?)
    }

    /// A debater whose provider keeps failing leaves the panel when at least two others
    /// remain (recorded, and the result is marked degraded); otherwise the debate pauses.
    fn drop_or_fail(
        &mut self,
        state: &DebateState,
        round: u32,
        kind: ContributionKind,
        failures: Vec<(usize, ProviderError)>,
    ) -> Result<(), Stop> {
        if failures.is_empty() {
            return Ok(());
        }
        let droppable = failures.iter().all(|(_, err)| err.from_service());
        let remaining = state.active_seats().len().saturating_sub(failures.len());
        if !droppable || remaining < 2 {
            let (_, err) = failures.into_iter().next().expect("not empty");
            return Err(err.into());
        }
        for (seat, err) in failures {
            let reason = format!("its {kind} in round {round} failed: {err}");
            self.store.drop_seat(&state.id, seat, &reason)?;
            self.events.dropped(state.panel[seat].name(), &reason);
        }
        Ok(())
    }

    async fn evaluate(&mut self, state: &DebateState, round: u32, deadline: Deadlines) -> Result<(), Stop> {
        self.events.moderating("evaluating the round");
        let judged = within(deadline, "the moderator's evaluation", self.judging(state, round)).await?;
        self.save_judged(state, round, judged).map(|_| ())
    }

    /// The moderator's evaluation of `round`, not yet stored. It holds its own handles
    /// on the moderator, so it can run alongside the next round's debaters.
    fn judging<'s>(&self, state: &'s DebateState, round: u32) -> Judging<'s> {
        let (provider, secrets, strict) =
            (self.providers.moderator.clone(), self.providers.secrets.clone(), self.providers.strict.clone());
        async move {
            let measures = step::measure(state, round);
            let local = step::local_evaluation(state, round, &measures);
            let ask = Ask::Evaluation { round, measures: &measures, local: &local };
            let names = state.panel_names();
            let read = |text: &str| evaluation::parse(text, &names, &state.analysis.options).ok();
            let to = Asked { provider: provider.as_ref(), secrets: &secrets, strict: &strict };
            let (completion, parsed) = calls::ask_structured(to, state, &ask, read).await?;
            Ok(Judged { evaluation: parsed.unwrap_or(local), measures, completion })
        }
        .boxed_local()
    }

    /// Store an evaluation; whether it ends the debate.
    fn save_judged(&mut self, state: &DebateState, round: u32, judged: Judged) -> Result<bool, Stop> {
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
    fn conclude(&mut self, state: &DebateState, reason: EndReason) -> Result<(), Stop> {
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

    async fn synthesize(&mut self, state: &DebateState, deadline: Deadlines) -> Result<(), Stop> {
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

    /// At the end of a debate run with checkpoints: ask whether to write an issue draft.
    /// No answer in time is no.
    async fn wants_issue_draft(&mut self, state: &DebateState) -> bool {
        let rules = &state.snapshot.debate;
        if !rules.checkpoints {
            return false;
        }
        let patience = Duration::from_secs(rules.checkpoint_timeout_seconds.0);
        match self.events.wants_issue_draft(patience) {
            Some(answer) => answer.await,
            None => false,
        }
    }

    async fn record(&mut self, state: &DebateState) -> Result<(), Stop> {
        // The path is stored before anything is written, so a crash at any point later
        // resumes with the same file (and finds its commit by the Debate-Id trailer).
        let (path, new) = record::path_for(state, self.templates)?;
        if new {
            self.store.save_record_path(&state.id, &path.display().to_string())?;
            record::failpoint("after-record-path");
        }
        let published = record::publish(state, self.templates, &path)?;
        record::failpoint("after-commit");
        let wanted = state.snapshot.record.issue_draft || self.wants_issue_draft(state).await;
        let draft = match wanted {
            true => Some(record::issue::write(state, self.templates, &published)?),
            false => None,
        };
        self.store.complete(&state.id, published.commit.as_deref())?;
        let done = self.store.load(&state.id)?;
        self.events.recorded(&done, &published, draft.as_ref());
        Ok(())
    }
}

/// `stance`, marked when it names the option its request listed first.
fn first_listed(state: &DebateState, mut stance: Stance, seat: usize, round: u32, kind: ContributionKind) -> Stance {
    stance.first_listed =
        stance.option.is_some() && state.options_listed(seat, round, kind).first() == stance.option.as_ref();
    stance
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
async fn within<T>(
    deadline: Deadlines,
    what: &'static str,
    call: impl Future<Output = providers::Result<T>>,
) -> Result<T, Stop> {
    tokio::select! {
        result = call => Ok(result?),
        () = deadline_passed(deadline) => Err(Stop::TimedOut(what)),
    }
}

/// When a step's time is up: its round's deadline and the debate's.
type Deadlines = [Deadline; 2];

/// A clock that stands still while a model is answering: the round and total timeouts
/// measure debate's own waiting, never a slow model that is still at work (each call
/// has its own limits for a model that has gone silent).
#[derive(Debug, Clone, Copy)]
struct Clock {
    at: Instant,
    busy: Duration,
}

#[derive(Debug, Clone, Copy)]
struct Deadline {
    since: Clock,
    limit: Duration,
}

impl Clock {
    fn start() -> Clock {
        Clock { at: Instant::now(), busy: providers::activity::busy() }
    }

    fn after(self, limit: Duration) -> Deadline {
        Deadline { since: self, limit }
    }
}

impl Deadline {
    /// What is left of the limit, the time models spent answering not counted.
    fn remaining(&self) -> Duration {
        let answering = providers::activity::busy().saturating_sub(self.since.busy);
        let spent = self.since.at.elapsed().saturating_sub(answering);
        self.limit.saturating_sub(spent)
    }
}

/// Resolves once either deadline has passed.
async fn deadline_passed(deadlines: Deadlines) {
    loop {
        let left = deadlines.iter().map(Deadline::remaining).min().unwrap_or_default();
        if left.is_zero() {
            return;
        }
        // While a model answers the clocks stand still: look again shortly after.
        tokio::time::sleep(left.max(Duration::from_millis(200))).await;
    }
}

/// A debater's answer must say something.
fn usable(mut completion: Completion, what: &str) -> providers::Result<Completion> {
    let text = completion.text.trim();
    if text.is_empty() {
        return Err(ProviderError::Unusable(format!("the model returned an empty answer for {what}")));
    }
    completion.text = text.to_string();
    Ok(completion)
}

/// The moderator's server (provider, model, base URL), as the formats it takes are
/// remembered; `None` for a provider without a model or a server.
fn moderator_server(state: &DebateState) -> Option<(String, String, String)> {
    let role = &state.snapshot.moderator;
    let definition = state.snapshot.providers.get(&role.provider)?;
    Some((role.provider.clone(), definition.model_for(role)?.to_string(), definition.base_url()?))
}
