//! A finished debate's record scored (`debate eval`): each evaluator's mark on every
//! criterion of the rubric, and the checks that need no model.

use serde::{Deserialize, Serialize};
use strum::{EnumIter, EnumString, IntoStaticStr, VariantNames};

use super::Usage;

/// What a suite compares each debate with (`debate eval --suite --baseline`): one
/// answer without a debate, or a majority vote of answers, within the debate's tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, IntoStaticStr, EnumString, VariantNames)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Baseline {
    /// One call: the question, the same project context, the record's decision parts.
    Single,
    /// The same call sampled as many times as the debate's tokens pay for, the majority's
    /// choice taken.
    Vote,
}

impl Baseline {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// A criterion of the rubric, each marked from 1 to 10.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    IntoStaticStr,
    EnumString,
    EnumIter,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Criterion {
    Decision,
    Options,
    Context,
    Dissent,
    FollowThrough,
}

impl Criterion {
    /// Its name in JSON and in the database.
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// What it asks, in a few words (a table's row).
    pub fn label(self) -> &'static str {
        match self {
            Criterion::Decision => "Decision stated and chosen among the options",
            Criterion::Options => "Every option has pros and cons",
            Criterion::Context => "Arguments use the project's context, none contradicts it",
            Criterion::Dissent => "Dissent stated fairly",
            Criterion::FollowThrough => "Consequences, confirmation and action items concrete",
        }
    }
}

/// One evaluator's mark on one criterion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mark {
    pub criterion: Criterion,
    /// From 1 (absent or wrong) to 10 (exemplary).
    pub score: u8,
    /// Why, in one sentence.
    pub reason: String,
}

/// Who scored the record, and what it gave.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evaluator {
    /// The provider's name in settings.
    pub provider: String,
    /// The model that answered (the configured one when it named none).
    pub model: String,
    /// A model judged the record; `false`: the marks were composed from the checks.
    pub reasoned: bool,
    /// One per criterion, in the rubric's order; empty when its answer could not be read.
    pub marks: Vec<Mark>,
    pub usage: Usage,
}

impl Evaluator {
    pub fn mark(&self, criterion: Criterion) -> Option<&Mark> {
        self.marks.iter().find(|m| m.criterion == criterion)
    }

    /// The one mark a model gave every criterion, when it did: marks that do not tell
    /// the criteria apart say nothing about the record (a weak model gives 10 to all).
    pub fn uniform(&self) -> Option<u8> {
        use strum::IntoEnumIterator;
        let first = self.marks.first()?.score;
        let every = self.marks.len() == Criterion::iter().count() && self.marks.iter().all(|m| m.score == first);
        (self.reasoned && every).then_some(first)
    }
}

/// A check that needs no model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, IntoStaticStr, EnumString, EnumIter)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum CheckKind {
    /// The sections a decision needs are there.
    Sections,
    /// No section only says it is empty, and no prompt's placeholder was left in.
    Placeholders,
    /// No sentence is written twice.
    Repetition,
    /// Every option the question names is weighed in the record.
    Options,
}

impl CheckKind {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// What passing it means.
    pub fn label(self) -> &'static str {
        match self {
            CheckKind::Sections => "the sections a decision needs are there",
            CheckKind::Placeholders => "no section is left empty or a placeholder",
            CheckKind::Repetition => "no sentence is written twice",
            CheckKind::Options => "every option the question names is weighed",
        }
    }
}

/// A check's result: what it found wrong (nothing: it passed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Check {
    pub kind: CheckKind,
    pub findings: Vec<String>,
}

impl Check {
    pub fn passed(&self) -> bool {
        self.findings.is_empty()
    }
}

/// Two evaluators more than `Scorecard::APART` points apart on one criterion: reported,
/// never averaged away.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Disagreement {
    pub criterion: Criterion,
    /// The lowest mark, and the model of the evaluator that gave it.
    pub lowest: u8,
    pub lowest_by: String,
    pub highest: u8,
    pub highest_by: String,
}

/// One evaluation of a debate's record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scorecard {
    /// 1 for a debate's first evaluation, and so on.
    pub number: u32,
    /// When it was made (RFC 3339).
    pub created_at: String,
    /// The record's revision it scored: how many reviews had reopened the debate then.
    pub revision: u32,
    pub evaluators: Vec<Evaluator>,
    pub checks: Vec<Check>,
    /// `eval --write` added it to the record's provenance.
    #[serde(default)]
    pub written: bool,
}

impl Scorecard {
    /// More apart than this on a criterion, two evaluators disagree.
    pub const APART: u8 = 3;

    /// Whether a model judged the record: any evaluator that reasoned gave marks.
    pub fn judged_by_a_model(&self) -> bool {
        self.evaluators.iter().any(|e| e.reasoned && !e.marks.is_empty())
    }

    /// Every mark on `criterion`, with its evaluator's model, in the evaluators' order.
    pub fn marks(&self, criterion: Criterion) -> Vec<(&str, &Mark)> {
        self.evaluators.iter().filter_map(|e| Some((e.model.as_str(), e.mark(criterion)?))).collect()
    }

    /// The mean mark on `criterion`, when any evaluator gave one.
    pub fn mean(&self, criterion: Criterion) -> Option<f64> {
        let marks = self.marks(criterion);
        (!marks.is_empty()).then(|| marks.iter().map(|(_, m)| f64::from(m.score)).sum::<f64>() / marks.len() as f64)
    }

    /// The criteria on which evaluators are more than `APART` points apart.
    pub fn disagreements(&self) -> Vec<Disagreement> {
        use strum::IntoEnumIterator;
        Criterion::iter()
            .filter_map(|criterion| {
                let marks = self.marks(criterion);
                let low = marks.iter().min_by_key(|(_, m)| m.score)?;
                let high = marks.iter().max_by_key(|(_, m)| m.score)?;
                (high.1.score - low.1.score > Self::APART).then(|| Disagreement {
                    criterion,
                    lowest: low.1.score,
                    lowest_by: low.0.to_string(),
                    highest: high.1.score,
                    highest_by: high.0.to_string(),
                })
            })
            .collect()
    }

    /// Every model that judged the record gave all criteria one mark: no signal.
    pub fn uniform(&self) -> bool {
        let judged: Vec<&Evaluator> = self.evaluators.iter().filter(|e| e.reasoned && !e.marks.is_empty()).collect();
        !judged.is_empty() && judged.iter().all(|e| e.uniform().is_some())
    }

    /// The checks that found something.
    pub fn failed_checks(&self) -> impl Iterator<Item = &Check> {
        self.checks.iter().filter(|c| !c.passed())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn evaluator(model: &str, scores: [u8; 5]) -> Evaluator {
        use strum::IntoEnumIterator;
        Evaluator {
            provider: "p".into(),
            model: model.into(),
            reasoned: true,
            marks: Criterion::iter()
                .zip(scores)
                .map(|(criterion, score)| Mark { criterion, score, reason: format!("{score} for a reason") })
                .collect(),
            usage: Usage::default(),
        }
    }

    fn card(evaluators: Vec<Evaluator>) -> Scorecard {
        Scorecard {
            number: 1,
            created_at: "2026-11-22T10:00:00.000Z".into(),
            revision: 0,
            evaluators,
            checks: Vec::new(),
            written: false,
        }
    }

    #[test]
    fn evaluators_more_than_three_apart_disagree_and_are_named() {
        let card = card(vec![evaluator("a", [8, 7, 2, 5, 9]), evaluator("b", [5, 7, 9, 9, 9])]);
        let apart = card.disagreements();
        assert_eq!(apart.len(), 2, "{apart:?}");
        let context = Disagreement {
            criterion: Criterion::Context,
            lowest: 2,
            lowest_by: "a".into(),
            highest: 9,
            highest_by: "b".into(),
        };
        assert_eq!(apart[0], context);
        assert_eq!(apart[1].criterion, Criterion::Dissent, "four apart is more than three");
        assert_eq!(card.mean(Criterion::Decision), Some(6.5), "three apart is not a disagreement");
    }

    #[test]
    fn one_mark_for_every_criterion_is_no_signal() {
        let tens = evaluator("gemma", [10; 5]);
        assert_eq!(tens.uniform(), Some(10));
        assert!(card(vec![tens.clone()]).uniform());
        assert!(!card(vec![tens, evaluator("b", [8, 7, 2, 5, 9])]).uniform(), "another model told them apart");
        let mut composed = evaluator("offline", [5; 5]);
        composed.reasoned = false;
        assert_eq!(composed.uniform(), None, "composed marks are said to be so already");
        let mut partial = evaluator("c", [7; 5]);
        partial.marks.truncate(2);
        assert_eq!(partial.uniform(), None, "two marks alike are not every criterion");
    }

    #[test]
    fn one_evaluator_never_disagrees_and_an_unread_one_gives_no_mark() {
        let mut unread = evaluator("b", [1; 5]);
        unread.marks.clear();
        let card = card(vec![evaluator("a", [1, 10, 1, 10, 1]), unread]);
        assert!(card.disagreements().is_empty());
        assert_eq!(card.marks(Criterion::Options).len(), 1);
        assert!(card.judged_by_a_model());
    }

    #[test]
    fn composed_marks_are_no_models_judgement() {
        let mut composed = evaluator("offline", [5; 5]);
        composed.reasoned = false;
        assert!(!card(vec![composed]).judged_by_a_model());
    }
}
