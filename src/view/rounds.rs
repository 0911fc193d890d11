//! A debate's rounds: every contribution in full with its stance, the measures, and the
//! moderator's evaluation.

use serde::Serialize;

use crate::model::{Assessment, ContributionKind, DebaterAssessment, Evaluation, Stance};
use crate::view::summary::Tokens;

#[derive(Debug, Clone, Serialize)]
pub struct RoundView {
    pub number: u32,
    pub framing: String,
    pub guidance: Option<String>,
    pub arguments: Vec<ContributionView>,
    pub rebuttals: Vec<ContributionView>,
    pub measures: Option<Measures>,
    pub evaluation: Option<EvaluationView>,
}

impl RoundView {
    /// Where `perspective` stood at the end of the round: after its rebuttal, else after
    /// its argument.
    pub fn stance_of(&self, perspective: &str) -> Option<&Stance> {
        [&self.rebuttals, &self.arguments]
            .into_iter()
            .filter_map(|contributions| contributions.iter().find(|c| c.perspective == perspective))
            .find_map(|c| c.stance.as_ref())
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct ContributionView {
    pub perspective: String,
    pub kind: ContributionKind,
    pub text: String,
    pub model: String,
    pub tokens: Tokens,
    /// Estimated from the prices in the settings; `null` without one for its model.
    pub cost_usd: Option<f64>,
    pub latency_ms: u64,
    /// The answer stopped at the completion limit (asked again for less, unless the model
    /// looped or ignored the length it was asked for).
    pub truncated: bool,
    /// It began to repeat itself and was stopped there.
    pub looped: bool,
    /// It said nothing of its own (only its prompt given back): never quoted as an argument.
    pub failed: bool,
    /// Where the debater stood after it (`option` is `null` when it could not be read).
    pub stance: Option<Stance>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Measures {
    /// Share of the round's phrasing never seen before.
    pub novelty: f64,
    /// Per debater that argued in the previous round too: share of its argument repeated.
    pub repetition: Vec<Repetition>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Repetition {
    pub perspective: String,
    pub share: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct EvaluationView {
    /// Each debater as the moderator judged it, before its verdicts.
    pub debaters: Vec<DebaterAssessment>,
    pub summary: String,
    pub assessment: Assessment,
    pub agreement: bool,
    pub clear_winner: Option<String>,
    pub off_topic: Vec<String>,
    pub new_points: Vec<String>,
    /// What the round left unresolved: the next round's agenda.
    pub open_tensions: Vec<String>,
    /// The moderator's answer was unreadable; this was derived from the measures.
    pub fallback: bool,
    /// The last round, weighed in the synthesis: verdicts from the measures.
    pub folded: bool,
}

impl From<&Evaluation> for EvaluationView {
    fn from(e: &Evaluation) -> EvaluationView {
        EvaluationView {
            debaters: e.debaters.clone(),
            summary: e.summary.clone(),
            assessment: e.assessment,
            agreement: e.agreement,
            clear_winner: e.clear_winner.clone(),
            off_topic: e.off_topic.clone(),
            new_points: e.new_points.clone(),
            open_tensions: e.open_tensions.clone(),
            fallback: e.fallback,
            folded: e.folded,
        }
    }
}
