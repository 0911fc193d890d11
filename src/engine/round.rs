//! A round's waves: the human's checkpoint that opens it, the debaters' arguments and
//! rebuttals (with what runs alongside them: round 1's beside the moderator's reading of
//! the question), and the stances asked for once more.
//! Every call's result is stored the moment it lands.

use std::collections::BTreeMap;
use std::time::Duration;

use futures::StreamExt;
use futures::future::{FutureExt, LocalBoxFuture};
use futures::stream::FuturesUnordered;

use super::answer::{contribution_of, first_listed, usable};
use super::calls::{self, Ask, Asked};
use super::clock::{Deadlines, deadline_passed};
use super::early;
use super::moderating::{Judged, Judging, within};
use super::run::{Engine, Stop};
use crate::error::Signal;
use crate::model::{
    Analysis, Completion, Contribution, ContributionKind, DebateState, Decision, EndReason, Events, Rebuttals, Stance,
    Status, Usage,
};
use crate::moderator::answers;
use crate::moderator::prompts;
use crate::moderator::selection::PanelChoice;
use crate::moderator::stance::{self, StanceAnswer};
use crate::providers::{self, ProviderError, TextSink};
use crate::store::{Opening, Settled};
use crate::text::secrets::MaskedStream;

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

impl Engine<'_> {
    /// Open round N; from round 2 on, with checkpoints on and someone to answer, the
    /// human decides first. An unanswered checkpoint is just a round not yet started.
    pub(super) async fn start_round(&mut self, state: &DebateState, round: u32) -> Result<(), Stop> {
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
        // Round 1's early arguments, settled as it opens.
        let settling = round == 1 && !state.early.is_empty();
        let (mut kept, start) = if settling { early::settle(state) } else { Default::default() };
        let analysis = Analysis { early: Some(start.clone()), ..state.analysis.clone() };
        let settled = Settled { kept: kept.clone(), analysis: &analysis };
        self.store.start_round(&state.id, round, &opening, settling.then_some(&settled))?;
        self.events.round_started(round, u32::from(state.snapshot.debate.max_rounds.get()), &framing);
        if !settling {
            return Ok(());
        }
        kept.sort_by_key(|(_, c)| c.seat);
        for (_, contribution) in &kept {
            self.events.contribution(round, state.panel[contribution.seat].name(), contribution);
        }
        if !start.redone.is_empty() {
            self.events.warning(&format!(
                "the moderator's reading changed what {} {} asked: round 1's argument is written again (the first \
                 is discarded, its tokens counted)",
                start.redone.join(", "),
                if start.redone.len() == 1 { "was" } else { "were" }
            ));
        }
        Ok(())
    }

    /// The round's arguments, from the debaters at `seats`.
    pub(super) async fn argue(
        &mut self,
        state: &DebateState,
        round: u32,
        seats: &[usize],
        deadline: Deadlines,
    ) -> Result<(), Stop> {
        self.debaters(state, round, ContributionKind::Argument, seats, Alongside::NOTHING, deadline).await
    }

    /// The round's arguments while the round before is judged, and the stances its
    /// rebuttals at `stances` did not state are asked for.
    pub(super) async fn argue_while_judging(
        &mut self,
        state: &DebateState,
        (evaluate, round): (u32, u32),
        seats: &[usize],
        stances: &[usize],
        deadline: Deadlines,
    ) -> Result<(), Stop> {
        let alongside = Alongside {
            judging: Some((evaluate, self.judging(state, evaluate))),
            stances: stances.iter().map(|&seat| (evaluate, ContributionKind::Rebuttal, seat)).collect(),
        };
        self.debaters(state, round, ContributionKind::Argument, seats, alongside, deadline).await
    }

    /// The round's rebuttals, while the stances its arguments at `stances` did not state
    /// are asked for.
    pub(super) async fn rebut(
        &mut self,
        state: &DebateState,
        round: u32,
        seats: &[usize],
        stances: &[usize],
        deadline: Deadlines,
    ) -> Result<(), Stop> {
        let alongside = Alongside {
            judging: None,
            stances: stances.iter().map(|&seat| (round, ContributionKind::Argument, seat)).collect(),
        };
        self.debaters(state, round, ContributionKind::Rebuttal, seats, alongside, deadline).await
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
        let secrets = self.providers.shared.secrets.clone();
        let mut pending: FuturesUnordered<LocalBoxFuture<'_, Landed>> = seats
            .iter()
            .map(|&seat| -> LocalBoxFuture<'_, Landed> {
                let live_tx = live_tx.clone();
                let sink = live.then(|| {
                    TextSink::new(move |text| {
                        let _ = live_tx.send((seat, text.to_string()));
                    })
                });
                self.arguing(state, seat, round, kind, sink).map(move |asked| Landed::Argued(seat, asked)).boxed_local()
            })
            .collect();
        if let Some((evaluate, judging)) = alongside.judging {
            self.events.moderating(&format!("evaluating round {evaluate}"));
            pending.push(judging.map(move |judged| Landed::Judged(evaluate, judged)).boxed_local());
        }
        for (stated, of, seat) in alongside.stances {
            let (provider, shared) = (self.providers.debater(seat).clone(), self.providers.shared.clone());
            pending.push(
                async move {
                    let to = Asked { provider: provider.as_ref(), shared: &shared };
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
            self.tell_retries();
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
                    let contribution = contribution_of(state, seat, round, kind, completion);
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

    /// The call of the debater at `seat` for its `kind` of `round`, not yet stored. It
    /// holds its own handles on the debater's provider, so it can run alongside others.
    pub(super) fn arguing<'s>(
        &self,
        state: &'s DebateState,
        seat: usize,
        round: u32,
        kind: ContributionKind,
        sink: Option<TextSink>,
    ) -> LocalBoxFuture<'s, providers::Result<Completion>> {
        let (provider, shared) = (self.providers.debater(seat).clone(), self.providers.shared.clone());
        async move {
            let what = format!("{} ({} {kind})", state.panel[seat].name(), round);
            let to = Asked { provider: provider.as_ref(), shared: &shared };
            let ask = Ask::Debater { seat, round, kind };
            let mut asked = calls::ask(to, state, &ask, sink.clone()).await;
            // An answer that only repeats the prompt's placeholders is asked for once
            // more; a second such answer is kept, marked failed.
            if let Some(first) = asked.as_ref().ok().filter(|c| answers::says_nothing(&c.text)).cloned() {
                let again = calls::ask_in_own_words(to, state, &ask, first.clone(), sink).await;
                asked = Ok(again.unwrap_or(first));
            }
            asked.and_then(|c| usable(c, &what))
        }
        .boxed_local()
    }

    /// Ask each of these debaters once more for the stance its contribution did not
    /// state; one that still cannot be read (or a failed call) is unknown. Never fails.
    pub(super) async fn read_stances(
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
}

/// A call of the early wave (round 1 begun while the moderator reads the question) that
/// landed.
enum Early {
    Analysis(Result<(Completion, Option<PanelChoice>), Stop>),
    Argued(usize, providers::Result<Completion>),
}

impl Engine<'_> {
    /// The moderator reads the question (and may refine the panel) while the debaters at
    /// `seats` write round 1's arguments on the question's reading: each stored as it
    /// lands, none shown. At the deadline the analysis stands as timed out, as alone, and
    /// the early arguments still out are asked again in round 1.
    pub(super) async fn analyze_while_arguing(
        &mut self,
        state: &DebateState,
        seats: &[usize],
        deadline: Deadlines,
    ) -> Result<(), Stop> {
        let opened = early::opened(state);
        // As alone: the early arguments are not shown until they are kept.
        self.events.moderating("choosing the panel");
        let analysing = within(deadline, "the moderator's analysis", self.analysing(state));
        let mut pending: FuturesUnordered<LocalBoxFuture<'_, Early>> = [analysing.map(Early::Analysis).boxed_local()]
            .into_iter()
            .chain(seats.iter().map(|&seat| {
                let call = self.arguing(&opened, seat, 1, ContributionKind::Argument, None);
                call.map(move |asked| Early::Argued(seat, asked)).boxed_local()
            }))
            .collect();
        let (mut analysed, mut failure): (bool, Option<ProviderError>) = (false, None);
        loop {
            let landed = tokio::select! {
                landed = pending.next() => landed,
                () = deadline_passed(deadline) => break,
            };
            match landed {
                None => break,
                Some(Early::Analysis(answered)) => {
                    self.save_analysis(state, answered)?;
                    analysed = true;
                }
                Some(Early::Argued(seat, Ok(completion))) => {
                    let name = state.panel[seat].name();
                    self.store.save_early(&state.id, seat, name, &early::request(&opened, seat), &completion)?;
                }
                // Round 1 asks it again, where a failure drops the debater or pauses.
                Some(Early::Argued(_, Err(err))) if err.passing() => {}
                Some(Early::Argued(_, Err(err))) => {
                    failure.get_or_insert(err);
                }
            }
            self.tell_retries();
        }
        drop(pending);
        if !analysed {
            self.save_analysis(state, Err(Stop::TimedOut("the moderator's analysis")))?;
        }
        match failure {
            Some(err) => Err(err.into()),
            None => Ok(()),
        }
    }
}
