//! A record's scores as text (`debate eval`, and `debate show`'s Evaluations block):
//! each evaluator's mark and reason per criterion — never only their mean —, the
//! criteria they disagree on, and the checks that need no model.

use std::fmt::Write;

use crate::view::{CriterionView, ScorecardView};

/// A debate's evaluations, for `show`, of a debate `reviews` reviews reopened: the latest
/// in full, the earlier ones a line each. Empty when it has none.
pub fn block(cards: &[ScorecardView], reviews: usize) -> String {
    let Some((latest, earlier)) = cards.split_last() else { return String::new() };
    let mut out = String::from("\nEvaluations:\n");
    for card in earlier {
        let _ = writeln!(out, "  {}", summary_line(card, reviews));
    }
    out.push_str(&indented(&scorecard(latest, reviews), "  "));
    out
}

/// One evaluation in full.
pub fn scorecard(card: &ScorecardView, reviews: usize) -> String {
    let mut out = format!("{}\n", heading(card, reviews));
    for criterion in &card.criteria {
        let _ = writeln!(out, "  {}", criterion.label);
        for (index, evaluator) in card.evaluators.iter().enumerate() {
            match criterion.marks.iter().find(|m| m.evaluator == index) {
                Some(mark) => {
                    let _ = writeln!(out, "    {:>2}  {}: {}", mark.score, evaluator.model, or_none(&mark.reason));
                }
                None => {
                    let _ = writeln!(out, "     –  {}: its answer could not be read as scores", evaluator.model);
                }
            }
        }
    }
    for evaluator in &card.evaluators {
        if let Some(mark) = evaluator.uniform {
            let _ = writeln!(
                out,
                "  {} gave every criterion {mark}: marks that do not tell the criteria apart say nothing about this record.",
                evaluator.model
            );
        }
    }
    for d in &card.disagreements {
        let _ = writeln!(
            out,
            "  The evaluators disagree on \"{}\": {} ({}) and {} ({}).",
            d.criterion.label(),
            d.lowest,
            d.lowest_by,
            d.highest,
            d.highest_by
        );
    }
    let passed = card.checks.iter().filter(|c| c.passed).count();
    let _ = writeln!(out, "  Checks without a model: {passed} of {} passed", card.checks.len());
    for check in card.checks.iter().filter(|c| !c.passed) {
        let _ = writeln!(out, "    ✗ {}: {}", check.label, check.findings.join("; "));
    }
    out
}

/// "Evaluation 2 · 2026-11-27 · mock-model, other · in the record's provenance".
fn heading(card: &ScorecardView, reviews: usize) -> String {
    let by: Vec<&str> = card.evaluators.iter().map(|e| e.model.as_str()).collect();
    let date = card.created_at.get(..10).unwrap_or(&card.created_at);
    let mut parts = vec![format!("Evaluation {}", card.number), date.to_string(), by.join(", ")];
    if !card.judged_by_a_model {
        parts.push("composed from the record's text by the offline provider, not a model's judgement".into());
    }
    if !card.current {
        parts.push(format!("of the record before review {reviews}"));
    } else if card.written {
        parts.push("in the record's provenance".into());
    }
    parts.join(" · ")
}

/// "Evaluation 1 · 2026-11-22 · m, n: decision 8/7 · options 7/7 · …".
fn summary_line(card: &ScorecardView, reviews: usize) -> String {
    let marks: Vec<String> = card.criteria.iter().map(criterion_marks).collect();
    format!("{}: {}", heading(card, reviews), marks.join(" · "))
}

/// "decision 8/7", or "decision –" without a mark.
fn criterion_marks(criterion: &CriterionView) -> String {
    let scores: Vec<String> = criterion.marks.iter().map(|m| m.score.to_string()).collect();
    let name = criterion.criterion.as_str().replace('_', "-");
    format!("{name} {}", if scores.is_empty() { "–".into() } else { scores.join("/") })
}

fn or_none(reason: &str) -> &str {
    if reason.trim().is_empty() { "(no reason given)" } else { reason }
}

fn indented(text: &str, by: &str) -> String {
    text.lines().map(|line| format!("{by}{line}\n")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Scorecard, fixture};

    #[test]
    fn a_model_that_gives_every_criterion_one_mark_is_named() {
        let mut state = fixture::complete(1);
        let mut card = fixture::scorecard(false);
        card.evaluators.truncate(1);
        for mark in &mut card.evaluators[0].marks {
            mark.score = 10;
        }
        state.scorecards = vec![card];
        let text = block(&crate::view::Detail::of(&state).evaluations, state.revisions.len());
        assert!(
            text.contains("m gave every criterion 10: marks that do not tell the criteria apart say nothing"),
            "{text}"
        );
    }

    #[test]
    fn every_mark_is_shown_with_its_reason_and_the_disagreement_named() {
        let mut state = fixture::complete(1);
        let mut unread = fixture::scorecard(true);
        unread.evaluators[1].marks.clear();
        state.scorecards = vec![Scorecard { number: 1, ..unread }, Scorecard { number: 2, ..fixture::scorecard(true) }];
        let text = block(&crate::view::Detail::of(&state).evaluations, state.revisions.len());
        assert!(text.starts_with("\nEvaluations:\n  Evaluation 1 · 2026-11-23 · m, n · in the record's provenance: decision 8 · options 7 · context 2 ·"), "{text}");
        assert!(text.contains("  Evaluation 2 · 2026-11-23 · m, n · in the record's provenance\n"), "{text}");
        assert!(text.contains("    Arguments use the project's context, none contradicts it\n       2  m: m on context.\n       9  n: n on context.\n"), "{text}");
        assert!(text.contains("The evaluators disagree on \"Arguments use the project's context, none contradicts it\": 2 (m) and 9 (n)."), "{text}");
        assert!(text.contains("Checks without a model: 1 of 2 passed\n      ✗ no section is left empty or a placeholder: Consequences: (none given)\n"), "{text}");
        let first = scorecard(&ScorecardView::of(&state.scorecards[0], 0), 0);
        assert!(first.contains("     –  n: its answer could not be read as scores"), "{first}");
    }

    #[test]
    fn marks_no_model_gave_say_so() {
        let mut state = fixture::complete(1);
        let mut card = fixture::scorecard(false);
        card.evaluators.truncate(1);
        card.evaluators[0].reasoned = false;
        state.scorecards.push(card);
        assert!(
            block(&crate::view::Detail::of(&state).evaluations, 0)
                .contains("· m · composed from the record's text by the offline provider, not a model's judgement\n")
        );
    }
}
