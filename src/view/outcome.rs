//! The decision: the synthesis and its sections, how sure it is and why, and what
//! degraded it.

use serde::Serialize;

use crate::model::{Confidence, Outcome, Part, Source, Synthesis};

#[derive(Debug, Clone, Serialize)]
pub struct OutcomeView {
    /// After every adjustment (max rounds, degradations).
    pub confidence: Confidence,
    pub source: Source,
    pub degradations: Vec<String>,
    /// Why the confidence is not the moderator's own.
    pub lowered: Vec<String>,
    pub synthesis: Synthesis,
    /// Every section of the decision, in the record's order, as the layout it was decided
    /// in has them: what each door shows.
    pub sections: Vec<Part>,
}

impl From<&Outcome> for OutcomeView {
    fn from(o: &Outcome) -> OutcomeView {
        OutcomeView {
            confidence: o.confidence,
            source: o.source,
            degradations: o.degradations.clone(),
            lowered: o.lowered.clone(),
            synthesis: o.synthesis.clone(),
            sections: o.synthesis.parts(o.layout),
        }
    }
}
