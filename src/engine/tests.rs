//! The engine in process: the real executor and store (SQLite in memory), a fake at
//! the provider edge, and a recording `Events`. Timeouts run on tokio's paused clock,
//! so nothing here sleeps.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;

use super::run::Engine;
use crate::catalog::Catalog;
use crate::error::Error;
use crate::model::bounds::MOST_SAID_BYTES;
use crate::model::fixture;
use crate::model::{
    Completion, DebateState, Decision, EndReason, Events, Identity, Outcome, Pending, ProviderKind, Published, Purpose,
    Round, Seconds, Status, Usage,
};
use crate::providers::{self, Panel, Provider, ProviderError, Request};
use crate::record::Templates;
use crate::record::seal::Sealer;
use crate::store::{NewDebate, Store};

/// A call as the fake saw it.
#[derive(Debug, Clone, PartialEq)]
struct Call {
    purpose: Purpose,
    round: u32,
    perspective: Option<String>,
    prompt: String,
}

/// Which calls fail, never answer, or leave out the stance line.
#[derive(Default)]
struct Faults {
    failing: Vec<(Purpose, u32, &'static str)>,
    hanging: Vec<(Purpose, u32)>,
    stanceless: Vec<(Purpose, u32, &'static str)>,
    /// Evaluations of these rounds find the debaters in agreement.
    agreeing: Vec<u32>,
    /// The moderator's analysis, when not `{}` (the keyword panel and reading kept).
    analysis: Option<&'static str>,
}

/// Answers like a model would: new words from debaters every time, JSON from the
/// moderator; logs every call.
#[derive(Default)]
struct FakeModel {
    calls: Mutex<Vec<Call>>,
    faults: Mutex<Faults>,
}

impl FakeModel {
    fn calls(&self) -> Vec<Call> {
        self.calls.lock().unwrap().clone()
    }

    fn purposes(&self) -> Vec<Purpose> {
        self.calls().iter().map(|c| c.purpose).collect()
    }
}

#[async_trait]
impl Provider for FakeModel {
    fn identity(&self) -> Identity {
        Identity { kind: ProviderKind::Scripted, reasoned: true }
    }

    async fn complete(&self, request: &Request) -> providers::Result<Completion> {
        let call = Call {
            purpose: request.purpose,
            round: request.round,
            perspective: request.perspective.clone(),
            prompt: request.prompt.clone(),
        };
        let n = {
            let mut calls = self.calls.lock().unwrap();
            calls.push(call.clone());
            calls.len()
        };
        let analysis = self.faults.lock().unwrap().analysis.unwrap_or("{}");
        let (fails, hangs, stanceless, agreeing) = {
            let faults = self.faults.lock().unwrap();
            let who = call.perspective.as_deref().unwrap_or("moderator");
            let this = |f: &(Purpose, u32, &str)| (f.0, f.1, f.2) == (call.purpose, call.round, who);
            (
                faults.failing.iter().any(this),
                faults.hanging.contains(&(call.purpose, call.round)),
                faults.stanceless.iter().any(this),
                faults.agreeing.contains(&call.round),
            )
        };
        if fails {
            return Err(ProviderError::Refused { message: "overloaded".into(), hint: None, status: None });
        }
        if hangs {
            tokio::time::sleep(Duration::from_secs(3600)).await;
        }
        let text = match call.purpose {
            Purpose::Analysis => analysis.to_string(),
            Purpose::Evaluation => {
                let evaluation = fixture::evaluation("Both sides traded points.");
                serde_json::to_string(&crate::model::Evaluation { agreement: agreeing, ..evaluation }).unwrap()
            }
            Purpose::Synthesis => serde_json::to_string(&fixture::synthesis()).unwrap(),
            Purpose::Stance => r#"{"option": "Redis", "confidence": "low"}"#.to_string(),
            _ if stanceless => {
                format!("{} argues point{n} in round {} and forgets its stance.", who(&call), call.round)
            }
            _ => format!(
                "{} argues point{n} and reason{n} in round {}.\nSTANCE: {{\"option\": \"Postgres\", \"confidence\": \"medium\"}}",
                who(&call),
                call.round
            ),
        };
        let usage = Usage { prompt_tokens: 10, cached_tokens: 0, completion_tokens: 5, latency_ms: 0, retries: 0 };
        Ok(Completion { text, model: "fake".into(), usage, ..Completion::default() })
    }
}

fn who(call: &Call) -> &str {
    call.perspective.as_deref().unwrap_or("moderator")
}

/// Every event as a line, and the answers to give at checkpoints.
#[derive(Default)]
struct Recorder {
    log: Vec<String>,
    decisions: Vec<Decision>,
    /// Someone would answer a checkpoint.
    attended: bool,
}

impl Events for Recorder {
    fn attended(&self) -> bool {
        self.attended
    }
    fn checkpoint(&mut self, _: &DebateState, round: u32, _: Duration) -> Option<Pending<Decision>> {
        self.log.push(format!("checkpoint after {round}"));
        let decision = (!self.decisions.is_empty()).then(|| self.decisions.remove(0))?;
        Some(Box::pin(std::future::ready(decision)))
    }
    fn panel(&mut self, state: &DebateState) {
        self.log.push(format!("panel {}", state.panel_names().join(", ")));
    }
    fn round_started(&mut self, round: u32, _: u32, _: &str) {
        self.log.push(format!("round {round}"));
    }
    fn contribution(&mut self, round: u32, name: &str, c: &crate::model::Contribution) {
        self.log.push(format!("{} {round} {name}", c.kind));
    }
    fn assessed(&mut self, _: &DebateState, round: &Round) {
        self.log.push(format!("assessed {}", round.number));
    }
    fn ended(&mut self, _: &DebateState, reason: EndReason) {
        self.log.push(format!("ended {reason}"));
    }
    fn synthesized(&mut self, _: &Outcome) {
        self.log.push("synthesized".into());
    }
    fn recorded(&mut self, _: &DebateState, _: &Published, _: Option<&crate::model::Draft>) {
        self.log.push("recorded".into());
    }
    fn paused(&mut self, _: &str, why: &str) {
        self.log.push(format!("paused: {why}"));
    }
    fn warning(&mut self, message: &str) {
        self.log.push(format!("warning: {message}"));
    }
}

/// A stored debate, not yet analysed, about to run in `repo`.
struct Setup {
    store: Store,
    repo: tempfile::TempDir,
    model: Arc<FakeModel>,
    catalog: Catalog,
    id: String,
}

fn setup(change: impl FnOnce(&mut DebateState)) -> Setup {
    let repo = tempfile::tempdir().unwrap();
    let mut state = fixture::state();
    state.repo_root = repo.path().display().to_string();
    state.snapshot.debate.checkpoints = false;
    change(&mut state);
    let store = Store::open_in_memory().unwrap();
    store.create_debate(&NewDebate::of(&state)).unwrap();
    Setup { store, repo, model: Arc::default(), catalog: Catalog::build(&[]).unwrap(), id: state.id }
}

impl Setup {
    async fn run(&self, events: &mut Recorder) -> Result<DebateState, Error> {
        let templates = Templates::load(self.repo.path()).unwrap();
        let sealer = Sealer::unsigned();
        let provider: Arc<dyn Provider> = self.model.clone();
        let providers = Panel { moderator: provider.clone(), debaters: vec![provider], shared: Default::default() };
        let mut engine = Engine {
            store: &self.store,
            providers,
            catalog: &self.catalog,
            templates: &templates,
            sealer: &sealer,
            events,
        };
        engine.run(&self.id).await
    }

    fn state(&self) -> DebateState {
        self.store.load(&self.id).unwrap()
    }
}

const PANEL: &str = "Performance Advocate, Operational Simplicity";

fn round_events(round: u32) -> Vec<String> {
    let mut events = vec![format!("round {round}")];
    for kind in ["argument", "rebuttal"] {
        for name in ["Performance Advocate", "Operational Simplicity"] {
            events.push(format!("{kind} {round} {name}"));
        }
    }
    events.push(format!("assessed {round}"));
    events
}

#[tokio::test]
async fn a_debate_runs_every_step_in_order_and_records_once() {
    let setup = setup(|s| s.snapshot.debate.max_rounds = crate::model::Rounds::new(2).unwrap());
    let mut events = Recorder::default();
    let done = setup.run(&mut events).await.unwrap();

    // Nobody waits between rounds: round 2 is argued while round 1 is judged, and the
    // synthesis judges round 2, the last. Round 1's assessment lands among round 2's
    // arguments, in whatever order the calls finish.
    let at = |line: &str| events.log.iter().position(|l| l == line).unwrap();
    assert!(at("round 2") < at("assessed 1") && at("assessed 1") < at("rebuttal 2 Performance Advocate"));
    let mut expected = vec![format!("panel {PANEL}")];
    expected.extend(round_events(1).into_iter().filter(|e| e != "assessed 1"));
    expected.extend(round_events(2));
    expected.extend(["ended agreement".to_string(), "synthesized".into(), "recorded".into()]);
    assert_eq!(events.log.iter().filter(|l| *l != "assessed 1").cloned().collect::<Vec<_>>(), expected);
    use Purpose::*;
    let mut purposes = setup.model.purposes();
    let evaluations = purposes.iter().filter(|p| **p == Evaluation).count();
    purposes.retain(|p| *p != Evaluation);
    assert_eq!(evaluations, 1, "the last round is judged in the synthesis");
    assert_eq!(
        purposes,
        [Analysis, Argument, Argument, Rebuttal, Rebuttal, Argument, Argument, Rebuttal, Rebuttal, Synthesis]
    );
    assert!(done.rounds[1].evaluation.as_ref().is_some_and(|e| e.folded), "the synthesis judged round 2");
    assert_eq!(done.status, Status::Complete);
    assert_eq!(done.rounds.iter().flat_map(Round::contributions).count(), 8);
    let record = std::path::PathBuf::from(done.record_path.as_deref().unwrap());
    assert!(record.starts_with(setup.repo.path()) && record.is_file());

    // Run again: nothing is left to do, and nothing is asked twice.
    let calls = setup.model.calls().len();
    let again = setup.run(&mut Recorder::default()).await.unwrap();
    assert_eq!((again.status, setup.model.calls().len()), (Status::Complete, calls));
}

#[tokio::test]
async fn a_failure_pauses_and_resume_redoes_only_the_failed_call() {
    let setup = setup(|s| s.snapshot.debate.max_rounds = crate::model::Rounds::new(2).unwrap());
    setup.model.faults.lock().unwrap().failing.push((Purpose::Argument, 2, "Operational Simplicity"));
    let err = setup.run(&mut Recorder::default()).await.unwrap_err();
    assert!(matches!(&err, Error::Paused { id, .. } if *id == setup.id), "{err:?}");
    assert_eq!(err.exit_code(), 3);
    assert!(err.hint().unwrap().contains(&format!("debate resume {}", setup.id)));
    let paused = setup.state();
    assert_eq!(paused.status, Status::Paused);
    assert_eq!(paused.rounds[1].arguments.len(), 1, "the other debater's argument is kept");

    setup.model.faults.lock().unwrap().failing.clear();
    let before = setup.model.calls().len();
    let done = setup.run(&mut Recorder::default()).await.unwrap();
    let redone: Vec<(Purpose, Option<String>)> =
        setup.model.calls()[before..].iter().map(|c| (c.purpose, c.perspective.clone())).collect();
    assert_eq!(
        redone,
        [
            (Purpose::Argument, Some("Operational Simplicity".into())),
            (Purpose::Rebuttal, Some("Performance Advocate".into())),
            (Purpose::Rebuttal, Some("Operational Simplicity".into())),
            (Purpose::Synthesis, None),
        ]
    );
    assert_eq!(done.status, Status::Complete);
    assert_eq!(done.rounds.iter().flat_map(Round::contributions).count(), 8, "each contribution once");
}

#[tokio::test]
async fn a_contribution_without_a_stance_is_asked_once_more_and_never_fails_the_debate() {
    let setup = setup(|s| s.snapshot.debate.max_rounds = crate::model::Rounds::new(1).unwrap());
    {
        let mut faults = setup.model.faults.lock().unwrap();
        faults.stanceless.push((Purpose::Argument, 1, "Operational Simplicity"));
        faults.stanceless.push((Purpose::Rebuttal, 1, "Performance Advocate"));
        faults.failing.push((Purpose::Stance, 1, "Performance Advocate"));
    }
    let done = setup.run(&mut Recorder::default()).await.unwrap();
    let stances: Vec<(String, Option<String>)> = done.rounds[0]
        .contributions()
        .map(|c| (format!("{} {}", done.name(c.seat), c.kind), c.stance.clone().unwrap().option))
        .collect();
    assert_eq!(
        stances,
        [
            ("Performance Advocate argument".to_string(), Some("Postgres".to_string())),
            ("Operational Simplicity argument".into(), Some("Redis".into())),
            ("Performance Advocate rebuttal".into(), None),
            ("Operational Simplicity rebuttal".into(), Some("Postgres".into())),
        ],
        "read from the text, asked once more, and unknown when asking failed"
    );
    let asked: Vec<Option<String>> =
        setup.model.calls().iter().filter(|c| c.purpose == Purpose::Stance).map(|c| c.perspective.clone()).collect();
    let twice = Some("Performance Advocate".to_string());
    assert_eq!(
        asked,
        [Some("Operational Simplicity".into()), twice.clone(), twice],
        "a failed call is tried once more"
    );
    assert!(!done.rounds[0].argument(1).unwrap().text.contains("STANCE"), "the stance line is not in the text");
    assert_eq!(done.status, Status::Complete);
}

#[tokio::test(start_paused = true)]
async fn a_round_past_its_timeout_goes_to_synthesis_with_what_it_has() {
    let setup = setup(|s| s.snapshot.debate.round_timeout_seconds = Seconds(30));
    setup.model.faults.lock().unwrap().hanging.push((Purpose::Argument, 2));
    let started = tokio::time::Instant::now();
    let done = setup.run(&mut Recorder::default()).await.unwrap();
    assert_eq!((done.status, done.end_reason), (Status::Complete, Some(EndReason::Timeout)));
    assert_eq!(done.rounds.len(), 2);
    assert!(done.outcome.unwrap().degradations.iter().any(|d| d.contains("timeout")));
    let waited = started.elapsed();
    assert!(waited >= Duration::from_secs(30) && waited < Duration::from_secs(60), "{waited:?} on the paused clock");
}

#[tokio::test(start_paused = true)]
async fn a_timeout_before_anything_usable_pauses() {
    let setup = setup(|s| s.snapshot.debate.round_timeout_seconds = Seconds(30));
    setup.model.faults.lock().unwrap().hanging.push((Purpose::Argument, 1));
    let err = setup.run(&mut Recorder::default()).await.unwrap_err();
    assert!(err.to_string().contains("timed out before anything usable was said"), "{err}");
    assert_eq!(setup.state().status, Status::Paused);
}

/// A megabyte pasted at a checkpoint, through any door, is kept to its first 16 KiB: the
/// prompts and the record carry no more of it, and the person is told.
#[tokio::test]
async fn guidance_past_what_a_person_writes_is_cut() {
    let setup = setup(|s| s.snapshot.debate.checkpoints = true);
    let pasted = "Weigh our Postgres experience. ".repeat(40_000);
    let mut events = Recorder { decisions: vec![Decision::Guide(pasted), Decision::End], ..Default::default() };
    let done = setup.run(&mut events).await.unwrap();
    let kept = done.rounds[1].guidance.as_deref().unwrap();
    assert!(kept.len() <= MOST_SAID_BYTES + 32 && kept.ends_with("[…cut at 16 KiB]"), "{} bytes", kept.len());
    assert!(setup.model.calls().iter().all(|c| c.prompt.len() < 200_000));
    assert!(events.log.iter().any(|line| line.contains("longer than 16 KiB")), "{:?}", events.log);
}

#[tokio::test]
async fn checkpoint_answers_guide_end_and_pause_the_debate() {
    // Guidance reaches the next round's prompts; End goes to synthesis.
    let setup = setup(|s| s.snapshot.debate.checkpoints = true);
    let mut events = Recorder {
        decisions: vec![Decision::Guide("Weigh our Postgres experience".into()), Decision::End],
        ..Default::default()
    };
    let done = setup.run(&mut events).await.unwrap();
    assert_eq!(done.end_reason, Some(EndReason::Human));
    assert_eq!(done.rounds[1].guidance.as_deref(), Some("Weigh our Postgres experience"));
    let round_two: Vec<Call> =
        setup.model.calls().into_iter().filter(|c| c.round == 2 && c.perspective.is_some()).collect();
    assert_eq!(round_two.len(), 4);
    assert!(round_two.iter().all(|c| c.prompt.contains("Weigh our Postgres experience")));
    assert!(events.log.contains(&"ended human".to_string()));

    // No answer in time pauses, and the debate stays resumable at that checkpoint.
    let setup = self::setup(|s| s.snapshot.debate.checkpoints = true);
    let mut events = Recorder { decisions: vec![Decision::TimedOut], ..Default::default() };
    let paused = setup.run(&mut events).await.unwrap();
    assert_eq!((paused.status, paused.rounds.len()), (Status::Paused, 1));
    assert_eq!(events.log.last().unwrap(), "paused: no answer at the checkpoint in time");
    let mut events = Recorder { decisions: vec![Decision::Continue, Decision::Continue], ..Default::default() };
    let done = setup.run(&mut events).await.unwrap();
    assert_eq!(events.log[0], "checkpoint after 1", "resume asks the same question again");
    assert_eq!((done.status, done.rounds.len()), (Status::Complete, 3));

    // Ctrl-C at a checkpoint is an interruption (exit 130), with the state saved.
    let setup = self::setup(|s| s.snapshot.debate.checkpoints = true);
    let mut events = Recorder { decisions: vec![Decision::Interrupted], ..Default::default() };
    let err = setup.run(&mut events).await.unwrap_err();
    assert_eq!(err.exit_code(), 130);
    assert_eq!(setup.state().status, Status::Paused);
}

#[tokio::test]
async fn a_debater_that_fails_leaves_a_panel_of_three() {
    let setup = setup(|s| {
        let mut third = s.panel[0].clone();
        third.perspective.name = "Cost Control".into();
        s.panel.push(third);
        s.snapshot.debate.max_rounds = crate::model::Rounds::new(1).unwrap();
    });
    setup.model.faults.lock().unwrap().failing.push((Purpose::Argument, 1, "Cost Control"));
    let done = setup.run(&mut Recorder::default()).await.unwrap();
    assert_eq!(
        done.panel[2].dropped.as_deref(),
        Some("its argument in round 1 failed: overloaded (twice; the second try had a shorter prompt)")
    );
    assert_eq!(done.rounds[0].rebuttals.len(), 2, "the dropped debater does not rebut");
    let outcome = done.outcome.unwrap();
    assert!(outcome.degradations.iter().any(|d| d.contains("Cost Control was dropped from the panel: its argument")));
    assert!(
        !setup
            .model
            .calls()
            .iter()
            .any(|c| c.purpose == Purpose::Rebuttal && c.perspective.as_deref() == Some("Cost Control"))
    );
}

#[tokio::test]
async fn with_a_human_at_each_checkpoint_every_round_waits_for_its_evaluation() {
    let setup = setup(|s| {
        s.snapshot.debate.max_rounds = crate::model::Rounds::new(2).unwrap();
        s.snapshot.debate.checkpoints = true;
    });
    let mut events = Recorder { attended: true, decisions: vec![Decision::Continue], ..Recorder::default() };
    setup.run(&mut events).await.unwrap();
    let mut expected = vec![format!("panel {PANEL}")];
    expected.extend(round_events(1));
    expected.push("checkpoint after 1".into());
    expected.extend(round_events(2));
    expected.extend(["ended agreement".to_string(), "synthesized".into(), "recorded".into()]);
    assert_eq!(events.log, expected);
}

#[tokio::test]
async fn arguments_for_a_round_the_evaluation_ends_are_kept_as_discarded() {
    let setup = setup(|s| {
        s.snapshot.debate.max_rounds = crate::model::Rounds::new(3).unwrap();
        s.snapshot.debate.min_rounds = crate::model::Rounds::new(1).unwrap();
    });
    setup.model.faults.lock().unwrap().agreeing.push(1);
    let done = setup.run(&mut Recorder::default()).await.unwrap();
    assert_eq!(done.end_reason, Some(EndReason::Agreement));
    assert_eq!(done.rounds.len(), 1, "round 2 is not part of the debate");
    let discarded: Vec<(u32, usize)> = done.discarded.iter().map(|(round, c)| (*round, c.seat)).collect();
    assert_eq!(discarded, [(2, 0), (2, 1)], "both round-2 arguments, kept");
    assert_eq!(done.totals.prompt_tokens, 10 * setup.model.calls().len() as u64, "and counted");
    let record = std::fs::read_to_string(done.record_path.as_deref().unwrap()).unwrap();
    assert!(record.contains("2 arguments written for round 2 were discarded"), "{record}");
}

#[tokio::test]
async fn round_one_is_argued_while_the_moderator_reads_the_question_and_kept_when_it_confirms() {
    let setup = setup(|s| {
        s.analyzed = false;
        s.snapshot.debate.max_rounds = crate::model::Rounds::new(1).unwrap();
    });
    let mut events = Recorder::default();
    let done = setup.run(&mut events).await.unwrap();
    use Purpose::*;
    assert_eq!(setup.model.purposes(), [Analysis, Argument, Argument, Rebuttal, Rebuttal, Synthesis], "none redone");
    let panel = done.panel_names();
    assert_eq!(done.analysis.early, Some(crate::model::EarlyStart { kept: panel, redone: Vec::new() }));
    assert!(done.discarded.is_empty() && done.early.is_empty());
    assert_eq!(done.rounds[0].arguments.len(), 2);
    // Shown once kept, after the panel and round 1's opening; never before.
    let at = |line: &str| events.log.iter().position(|l| l == line).unwrap();
    assert!(at(&format!("panel {PANEL}")) < at("round 1") && at("round 1") < at("argument 1 Performance Advocate"));
    assert_eq!(done.totals.prompt_tokens, 10 * setup.model.calls().len() as u64, "each call counted once");
    let record = std::fs::read_to_string(done.record_path.as_deref().unwrap()).unwrap();
    assert!(record.contains("its reading changed nothing they were asked, so they were kept"), "{record}");
}

#[tokio::test]
async fn a_reading_the_moderator_corrects_has_round_one_written_again_and_counts_the_first() {
    let setup = setup(|s| {
        s.analyzed = false;
        s.snapshot.debate.max_rounds = crate::model::Rounds::new(1).unwrap();
    });
    setup.model.faults.lock().unwrap().analysis = Some(
        r#"{"options": ["Redis", "Postgres", "Memcached"], "options_reason": "The team runs Memcached already.", "perspectives": []}"#,
    );
    let mut events = Recorder::default();
    let done = setup.run(&mut events).await.unwrap();
    use Purpose::*;
    let purposes = setup.model.purposes();
    assert_eq!(purposes, [Analysis, Argument, Argument, Argument, Argument, Rebuttal, Rebuttal, Synthesis]);
    assert_eq!(done.analysis.options, ["Redis", "Postgres", "Memcached"]);
    let early = done.analysis.early.as_ref().unwrap();
    assert_eq!((early.kept.len(), early.redone.clone()), (0, done.panel_names()));
    let discarded: Vec<(u32, usize)> = done.discarded.iter().map(|(round, c)| (*round, c.seat)).collect();
    assert_eq!(discarded, [(1, 0), (1, 1)], "the first arguments, kept as discarded");
    assert!(done.rounds[0].arguments.iter().all(|c| !c.text.is_empty()), "round 1 argued on the corrected options");
    assert_eq!(events.log.iter().filter(|l| l.starts_with("argument 1 ")).count(), 2, "shown once each");
    assert_eq!(done.totals.prompt_tokens, 10 * purposes.len() as u64, "the discarded calls counted, once");
    let record = std::fs::read_to_string(done.record_path.as_deref().unwrap()).unwrap();
    assert!(record.contains("its reading changed what they were asked, so they were written again"), "{record}");
    assert!(record.contains("2 arguments written for round 1 were discarded: the moderator's reading"), "{record}");
}

#[tokio::test]
async fn with_a_human_between_rounds_round_one_waits_for_the_moderators_reading() {
    let setup = setup(|s| {
        s.analyzed = false;
        s.snapshot.debate.max_rounds = crate::model::Rounds::new(1).unwrap();
        s.snapshot.debate.checkpoints = true;
    });
    let done = setup.run(&mut Recorder { attended: true, ..Recorder::default() }).await.unwrap();
    assert_eq!(done.analysis.early, None);
    assert_eq!(setup.model.purposes()[..3], [Purpose::Analysis, Purpose::Argument, Purpose::Argument]);
}
