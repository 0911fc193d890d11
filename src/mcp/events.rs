//! The engine's events for a debate a tool call runs, in the terminal's place: each step
//! a step of progress (counted toward the debate's rounds), each checkpoint and
//! clarifying question asked of the user — an elicitation request before 2026-07-28, an
//! input-required turn of the conversation from it on — and the call's cancellation, or
//! the client going away, a stop that pauses the debate as Ctrl-C does.

use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema, EnumSchema};
use rmcp::service::Peer;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::model::{
    Clarified, Contribution, ContributionKind, DebateState, Decision, Draft, EndReason, Events, Outcome, Pending,
    Published, Round,
};
use crate::text::untrusted::one_line;

/// Who asks the user a question for the debate.
pub enum Asker {
    /// Nobody can: the client declared no elicitation.
    Nobody,
    /// The client, by an elicitation request (before 2026-07-28).
    Client(Peer<RoleServer>),
    /// Whoever holds the conversation: the call answers input-required, or the task's
    /// status becomes input-required (2026-07-28).
    Turns(mpsc::UnboundedSender<Asked>),
}

/// A question for the user, and where its answer goes (`None`: nobody can answer).
pub struct Asked {
    /// `checkpoint` or `clarify`: the key of its input request.
    pub key: &'static str,
    pub params: ElicitRequestParams,
    pub answer: oneshot::Sender<Option<ElicitResult>>,
}

/// One step of progress: what happened, how far the debate is (`stage`: 0 analysis,
/// N round N, rounds + 1 the synthesis) and how far it can go (`total`), once known.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub message: String,
    pub stage: u32,
    pub total: Option<u32>,
    /// Its record is written: the debate is done.
    pub last: bool,
}

/// The engine's events for one tool call.
pub struct McpEvents {
    asker: Asker,
    /// Steps, in order, to whoever tells the client.
    progress: mpsc::UnboundedSender<Step>,
    stage: u32,
    total: Option<u32>,
    /// The call's own stop (its cancellation), and the end of the client's input.
    stop: CancellationToken,
    closed: CancellationToken,
    id: Option<String>,
    /// What the agent should read besides the result: warnings, and how the debate paused.
    pub notes: Vec<String>,
}

impl McpEvents {
    /// Events for a call whose questions `asker` asks and whose steps go to `progress`.
    pub fn new(
        asker: Asker,
        progress: mpsc::UnboundedSender<Step>,
        (stop, closed): (CancellationToken, CancellationToken),
    ) -> McpEvents {
        McpEvents { asker, progress, stage: 0, total: None, stop, closed, id: None, notes: Vec::new() }
    }

    fn say(&self, message: String) {
        self.step(message, false);
    }

    fn step(&self, message: String, last: bool) {
        let _ = self.progress.send(Step { message, stage: self.stage, total: self.total, last });
    }

    /// The rounds the debate may take: the steps' total is analysis, each round, synthesis.
    fn rounds(&mut self, rounds: u32) {
        self.total = Some(rounds + 2);
    }

    /// Ask the user, at most for `patience`; `None` when nobody answered (the client went
    /// away, or could not show the form).
    fn ask(
        &self,
        key: &'static str,
        message: String,
        schema: ElicitationSchema,
        patience: Duration,
    ) -> Pending<Option<ElicitResult>> {
        let params = ElicitRequestParams::FormElicitationParams { meta: None, message, requested_schema: schema };
        let timed_out = || Some(ElicitResult::new(ElicitationAction::Cancel));
        match &self.asker {
            Asker::Nobody => Box::pin(async { None }),
            Asker::Client(peer) => {
                let peer = peer.clone();
                Box::pin(async move {
                    match tokio::time::timeout(patience, peer.create_elicitation(params)).await {
                        Ok(Ok(answer)) => Some(answer),
                        Ok(Err(_)) => None,
                        Err(_) => timed_out(),
                    }
                })
            }
            Asker::Turns(turns) => {
                let (answer, answered) = oneshot::channel();
                let sent = turns.send(Asked { key, params, answer }).is_ok();
                Box::pin(async move {
                    if !sent {
                        return None;
                    }
                    match tokio::time::timeout(patience, answered).await {
                        Ok(answer) => answer.ok().flatten(),
                        Err(_) => timed_out(),
                    }
                })
            }
        }
    }

    fn asks(&self) -> bool {
        !matches!(self.asker, Asker::Nobody)
    }
}

/// The checkpoint's form: what to do next, and the guidance for it.
fn checkpoint_form() -> ElicitationSchema {
    let actions = ["continue", "guide", "end", "pause"].map(String::from).to_vec();
    ElicitationSchema::builder()
        .required_enum_schema(
            "action",
            EnumSchema::builder(actions)
                .title("Next step")
                .description(
                    "continue: the next round; guide: the next round with your guidance; end: write the \
                     synthesis now; pause: stop here, resumable",
                )
                .build(),
        )
        .optional_string_with("guidance", |s| {
            s.title("Guidance").description("With guide: what the next round should weigh")
        })
        .build()
        .expect("the checkpoint's form is a valid schema")
}

/// The answer to a checkpoint: declined or cancelled, the debate pauses.
fn decision(answer: Option<ElicitResult>) -> Decision {
    let Some(answer) = answer else { return Decision::EndOfInput };
    let content = answer.content.unwrap_or(Value::Null);
    let field = |name: &str| content.get(name).and_then(Value::as_str).unwrap_or_default().trim().to_string();
    match (answer.action, field("action").as_str(), field("guidance")) {
        (ElicitationAction::Accept, "guide", guidance) if !guidance.is_empty() => Decision::Guide(guidance),
        (ElicitationAction::Accept, "continue" | "guide", _) => Decision::Continue,
        (ElicitationAction::Accept, "end", _) => Decision::End,
        _ => Decision::Pause,
    }
}

impl Events for McpEvents {
    fn attended(&self) -> bool {
        self.asks()
    }

    fn checkpoint(&mut self, state: &DebateState, round: u32, patience: Duration) -> Option<Pending<Decision>> {
        if !self.asks() {
            return None;
        }
        let assessment = state.rounds.get(round as usize - 1).and_then(|r| r.evaluation.as_ref());
        let said = assessment.map(|e| format!(" The moderator: {}", one_line(&e.summary))).unwrap_or_default();
        let message = format!(
            "Debate {}: round {round} of {} is done.{said} How should it go on?",
            state.id, state.snapshot.debate.max_rounds
        );
        self.say(format!("Checkpoint after round {round}: asking the user"));
        let asked = self.ask("checkpoint", message, checkpoint_form(), patience);
        Some(Box::pin(async move { decision(asked.await) }))
    }

    fn clarify(&mut self, questions: &[&str], patience: Duration) -> Option<Pending<Clarified>> {
        if !self.asks() {
            return None;
        }
        let message = format!(
            "The question leaves open what the debate should weigh: {} (leave it empty to debate it as it is)",
            questions.iter().map(|q| one_line(q)).collect::<Vec<_>>().join(" ")
        );
        let form = ElicitationSchema::builder()
            .optional_string_with("answer", |s| s.title("Your answer"))
            .build()
            .expect("the clarifying form is a valid schema");
        let asked = self.ask("clarify", message, form, patience);
        Some(Box::pin(async move {
            let answer = asked.await.filter(|a| a.action == ElicitationAction::Accept).and_then(|a| a.content);
            let text = answer.as_ref().and_then(|c| c.get("answer")).and_then(Value::as_str).map(str::trim);
            match text {
                Some(text) if !text.is_empty() => Clarified::Answer(text.to_string()),
                _ => Clarified::Skipped,
            }
        }))
    }

    fn stopped(&mut self) -> Option<Pending<()>> {
        let (cancelled, closed) = (self.stop.clone(), self.closed.clone());
        Some(Box::pin(async move {
            tokio::select! {
                () = cancelled.cancelled() => {}
                () = closed.cancelled() => {}
            }
        }))
    }

    fn driving(&mut self, id: &str) {
        self.id = Some(id.to_string());
        self.say(format!("Debate {id} started"));
    }

    fn moderating(&mut self, what: &str) {
        self.say(match what {
            "choosing the panel" | "reading what the question leaves open" => format!("Analysis: {what}"),
            "writing the synthesis" => "Synthesis: the moderator writes it".to_string(),
            _ => format!("Moderator: {what}"),
        });
    }

    fn panel(&mut self, state: &DebateState) {
        self.rounds(u32::from(state.snapshot.debate.max_rounds.get()));
        self.say(format!("Analysis: the panel is {}", state.panel_names().join(", ")));
    }

    fn round_started(&mut self, round: u32, of: u32, _framing: &str) {
        self.rounds(of);
        self.stage = round;
        self.say(format!("Round {round} of at most {of} opened"));
    }

    fn working(&mut self, round: u32, kind: ContributionKind, seats: &[(usize, String)]) {
        let names: Vec<&str> = seats.iter().map(|(_, name)| name.as_str()).collect();
        let doing = if kind == ContributionKind::Argument { "arguing" } else { "rebutting" };
        self.say(format!("Round {round}: {} {doing}", names.join(", ")));
    }

    fn contribution(&mut self, round: u32, name: &str, contribution: &Contribution) {
        self.say(format!("Round {round}: {name}'s {} is in", contribution.kind.as_str()));
    }

    fn failed(&mut self, round: u32, _seat: usize, name: &str) {
        self.say(format!("Round {round}: {name}'s provider failed"));
    }

    fn dropped(&mut self, name: &str, reason: &str) {
        self.notes.push(format!("{name} left the panel: {reason}; the record says so."));
        self.say(format!("{name} left the panel: {reason}"));
    }

    fn assessed(&mut self, _state: &DebateState, round: &Round) {
        let assessment = round.evaluation.as_ref().map_or("judged", |e| e.assessment.describe());
        self.say(format!("Round {} evaluated: {assessment}", round.number));
    }

    fn ended(&mut self, state: &DebateState, reason: EndReason) {
        self.rounds(u32::from(state.snapshot.debate.max_rounds.get()));
        self.stage = self.total.unwrap_or(self.stage + 2) - 1;
        self.say(format!("Debate ended: {}", reason.as_str()));
    }

    fn synthesized(&mut self, outcome: &Outcome) {
        self.say(format!("Synthesis written: confidence {}", outcome.confidence.as_str()));
    }

    fn recorded(&mut self, state: &DebateState, record: &Published, _draft: Option<&Draft>) {
        let path = record.path.strip_prefix(&state.repo_root).unwrap_or(&record.path).display().to_string();
        self.notes.extend(record.warnings.iter().cloned());
        let said = match (&record.commit, &record.not_committed) {
            (Some(commit), _) => format!("Record {path} committed as {}", commit.get(..10).unwrap_or(commit)),
            (None, why) => format!("Record {path} written, not committed ({})", why.as_deref().unwrap_or("off")),
        };
        self.step(said, true);
    }

    fn paused(&mut self, id: &str, why: &str) {
        self.notes.push(format!("It paused: {why}."));
        self.say(format!("Debate {id} paused ({why})"));
    }

    fn retrying(&mut self, line: &str) {
        self.say(format!("Retrying: {line}"));
    }

    fn warning(&mut self, text: &str) {
        self.notes.push(text.to_string());
        self.say(format!("Warning: {text}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn answer(action: ElicitationAction, content: Value) -> Option<ElicitResult> {
        let mut result = ElicitResult::new(action);
        result.content = Some(content);
        Some(result)
    }

    #[test]
    fn each_answer_at_a_checkpoint_is_the_terminals_and_declining_pauses() {
        let accept = |content| decision(answer(ElicitationAction::Accept, content));
        assert_eq!(accept(json!({"action": "continue"})), Decision::Continue);
        assert_eq!(
            accept(json!({"action": "guide", "guidance": " Weigh cost "})),
            Decision::Guide("Weigh cost".into())
        );
        assert_eq!(accept(json!({"action": "guide"})), Decision::Continue, "no guidance: the next round as it is");
        assert_eq!(accept(json!({"action": "end"})), Decision::End);
        assert_eq!(accept(json!({"action": "pause"})), Decision::Pause);
        assert_eq!(
            accept(json!({"action": "explode"})),
            Decision::Pause,
            "an answer not offered stops nothing it should not"
        );
        assert_eq!(decision(answer(ElicitationAction::Decline, Value::Null)), Decision::Pause);
        assert_eq!(decision(answer(ElicitationAction::Cancel, Value::Null)), Decision::Pause);
        assert_eq!(decision(None), Decision::EndOfInput, "no answer at all: the client went away");
    }

    #[test]
    fn the_checkpoints_form_offers_the_four_answers() {
        let form = serde_json::to_value(checkpoint_form()).unwrap();
        assert_eq!(form["required"], json!(["action"]));
        assert_eq!(form["properties"]["action"]["enum"], json!(["continue", "guide", "end", "pause"]));
        assert_eq!(form["properties"]["guidance"]["type"], json!("string"));
    }
}
