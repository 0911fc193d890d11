//! A record's evaluations: every evaluator's mark on each criterion, the criteria they
//! disagree on, and the checks that need no model.

use serde::Serialize;

use crate::model::{CheckKind, Criterion, Disagreement, Scorecard};
use crate::view::summary::Tokens;

/// One evaluation of the record: every evaluator's mark on each criterion (never only
/// their mean), the criteria they disagree on, and the checks that need no model.
#[derive(Debug, Clone, Serialize)]
pub struct ScorecardView {
    pub number: u32,
    pub created_at: String,
    /// The record's revision it scored (reviews before it); `current`: the record as it
    /// is now.
    pub revision: u32,
    pub current: bool,
    /// `eval --write` added it to the record's provenance.
    pub written: bool,
    /// A model judged the record; `false`: the marks were composed from the checks by
    /// the offline provider.
    pub judged_by_a_model: bool,
    pub evaluators: Vec<EvaluatorView>,
    pub criteria: Vec<CriterionView>,
    /// Criteria on which two evaluators are more than 3 points apart.
    pub disagreements: Vec<Disagreement>,
    pub checks: Vec<CheckView>,
}

#[derive(Debug, Clone, Serialize)]
pub struct EvaluatorView {
    pub provider: String,
    pub model: String,
    /// A model reasoned behind its marks.
    pub reasoned: bool,
    /// Its answer could be read as a mark for every criterion.
    pub scored: bool,
    /// The one mark it gave every criterion, when it reasoned and told none apart.
    pub uniform: Option<u8>,
    pub tokens: Tokens,
    pub latency_ms: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct CriterionView {
    pub criterion: Criterion,
    pub label: &'static str,
    /// Each evaluator's mark, in the evaluators' order.
    pub marks: Vec<MarkView>,
    /// The mean of the marks; read it with `disagreements`.
    pub mean: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct MarkView {
    /// Which of `evaluators` gave it.
    pub evaluator: usize,
    pub model: String,
    pub score: u8,
    pub reason: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct CheckView {
    pub check: CheckKind,
    pub label: &'static str,
    pub passed: bool,
    pub findings: Vec<String>,
}

impl ScorecardView {
    /// `card`, of a debate reopened by `revisions` reviews so far.
    pub fn of(card: &Scorecard, revisions: usize) -> ScorecardView {
        use strum::IntoEnumIterator;
        ScorecardView {
            number: card.number,
            created_at: card.created_at.clone(),
            revision: card.revision,
            current: card.revision as usize == revisions,
            written: card.written,
            judged_by_a_model: card.judged_by_a_model(),
            evaluators: card
                .evaluators
                .iter()
                .map(|e| EvaluatorView {
                    provider: e.provider.clone(),
                    model: e.model.clone(),
                    reasoned: e.reasoned,
                    scored: !e.marks.is_empty(),
                    uniform: e.uniform(),
                    tokens: e.usage.into(),
                    latency_ms: e.usage.latency_ms,
                })
                .collect(),
            criteria: Criterion::iter()
                .map(|criterion| CriterionView {
                    criterion,
                    label: criterion.label(),
                    marks: card
                        .evaluators
                        .iter()
                        .enumerate()
                        .filter_map(|(evaluator, e)| {
                            let mark = e.mark(criterion)?;
                            let reason = mark.reason.clone();
                            Some(MarkView { evaluator, model: e.model.clone(), score: mark.score, reason })
                        })
                        .collect(),
                    mean: card.mean(criterion),
                })
                .collect(),
            disagreements: card.disagreements(),
            checks: card
                .checks
                .iter()
                .map(|c| CheckView {
                    check: c.kind,
                    label: c.kind.label(),
                    passed: c.passed(),
                    findings: c.findings.clone(),
                })
                .collect(),
        }
    }
}
