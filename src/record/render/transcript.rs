//! What the transcript template sees: every round in full, each contribution marked so
//! the record can be read back. Pure.

use minijinja::Value;
use serde::Serialize;

use crate::model::{DebateState, Stance};
use crate::record::read::carried;

#[derive(Serialize)]
pub(super) struct TranscriptContext<'a> {
    pub(super) rounds: Vec<TranscriptRound<'a>>,
}

#[derive(Serialize)]
pub(super) struct TranscriptRound<'a> {
    pub(super) number: u32,
    /// The rounds argued, not the limit: "Round 2 of 2" in a debate that ended there.
    pub(super) of: usize,
    pub(super) phase: &'static str,
    pub(super) framing: &'a str,
    pub(super) guidance: Option<&'a str>,
    pub(super) contributions: Vec<TranscriptEntry<'a>>,
}

#[derive(Serialize)]
pub(super) struct TranscriptEntry<'a> {
    pub(super) perspective: &'a str,
    pub(super) kind: &'static str,
    pub(super) model: &'a str,
    /// Rendered as Markdown between the marks that let the record be read back.
    pub(super) text: Value,
    pub(super) truncated: bool,
    pub(super) looped: bool,
    pub(super) stance: String,
}

/// Every round's framing, guidance, arguments and rebuttals in full, with stances.
pub(super) fn transcript(state: &DebateState) -> TranscriptContext<'_> {
    let rounds = state
        .rounds
        .iter()
        .map(|r| TranscriptRound {
            number: r.number,
            of: state.rounds.len(),
            phase: state.phase(r.number),
            framing: &r.framing,
            guidance: r.guidance.as_deref(),
            contributions: r
                .contributions()
                .map(|c| TranscriptEntry {
                    perspective: state.name(c.seat),
                    kind: c.kind.as_str(),
                    model: &c.model,
                    text: Value::from_safe_string(carried::marked(&c.text)),
                    truncated: c.truncated,
                    looped: c.looped,
                    stance: stance_text(c.stance.as_ref()),
                })
                .collect(),
        })
        .collect();
    TranscriptContext { rounds }
}

/// "Postgres (medium); would change if …; concedes …", or "not read".
pub(super) fn stance_text(stance: Option<&Stance>) -> String {
    let Some(stance) = stance else { return "not read".into() };
    let mut text = stance.brief();
    if !stance.would_change_if.is_empty() {
        text.push_str(&format!("; would change if {}", stance.would_change_if));
    }
    if !stance.concedes.is_empty() {
        text.push_str(&format!("; concedes {}", stance.concedes));
    }
    text
}
