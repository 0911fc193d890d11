//! The decision: the synthesis, how sure it is and why, and what degraded it.

use serde::Serialize;

use crate::model::{Confidence, Outcome, Source, Synthesis};

#[derive(Debug, Clone, Serialize)]
pub struct OutcomeView {
    /// After every adjustment (max rounds, degradations).
    pub confidence: Confidence,
    pub source: Source,
    pub degradations: Vec<String>,
    /// Why the confidence is not the moderator's own.
    pub lowered: Vec<String>,
    pub synthesis: Synthesis,
}

impl From<&Outcome> for OutcomeView {
    fn from(o: &Outcome) -> OutcomeView {
        OutcomeView {
            confidence: o.confidence,
            source: o.source,
            degradations: o.degradations.clone(),
            lowered: o.lowered.clone(),
            synthesis: o.synthesis.clone(),
        }
    }
}
