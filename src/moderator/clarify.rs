//! The moderator's clarifying questions for a vague question: what a model writes for
//! this question, read leniently, and what the analysis alone can ask when no model
//! does (the offline provider, or an answer that cannot be read). Pure.

use schemars::JsonSchema;
use serde::Deserialize;

use super::analysis::Terms;
use super::answers::{Answer, says_nothing};
use crate::model::Analysis;
use crate::model::lenient::{flag, one_or_many};
use crate::text::untrusted::{one_line, shows_anything};

/// At most this many questions are asked, each at most this many characters.
const MOST: usize = 3;
const LONGEST: usize = 240;

/// Words that say how big the thing is; a question without any (or a number) is asked.
const SCALE: &[&str] = &[
    "user",
    "request",
    "rps",
    "qps",
    "traffic",
    "load",
    "scale",
    "throughput",
    "gb",
    "tb",
    "mb",
    "million",
    "thousand",
    "per second",
    "per day",
    "per month",
    "customer",
    "tenant",
    "volume",
    "size",
];

/// The moderator's answer: whether the question is too vague to debate, and the one to
/// three short questions that would settle it.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ClarifyingQuestions {
    /// true when the question is too vague to debate as it stands
    #[serde(default, deserialize_with = "flag")]
    pub vague: bool,
    /// one to three short questions to the person asking, each one sentence ending in a question mark
    #[serde(default, deserialize_with = "one_or_many")]
    pub questions: Vec<String>,
}

impl Answer for ClarifyingQuestions {
    const NAME: &'static str = "clarifying_questions";
}

impl ClarifyingQuestions {
    /// The questions to ask: none when the moderator found the question clear; else its
    /// questions on one line each, at most three, without blanks, repeats, echoed
    /// placeholders or anything but text; `None` when a vague verdict came with no
    /// usable question (ask what the analysis can).
    pub fn usable(&self) -> Option<Vec<String>> {
        if !self.vague {
            return Some(Vec::new());
        }
        let mut kept: Vec<String> = Vec::new();
        for question in &self.questions {
            let line = one_line(question);
            let line: String = line.chars().take(LONGEST).collect();
            if shows_anything(&line) && !says_nothing(&line) && !kept.contains(&line) {
                kept.push(line);
            }
        }
        kept.truncate(MOST);
        (!kept.is_empty()).then_some(kept)
    }
}

/// What the analysis found missing from `question`, asked: the options when it names
/// fewer than two, the constraint when it implies none, the scale when it says nothing
/// of it; the whole decision when nothing in particular is missing.
pub fn composed(question: &str, analysis: &Analysis) -> Vec<String> {
    let mut asked = Vec::new();
    if analysis.options.len() < 2 {
        asked.push("Which options are you choosing between (keeping what you have counts as one)?".to_string());
    }
    if analysis.constraints.is_empty() {
        asked.push(
            "What constrains the choice most: budget, a deadline, the team's skills, or something you already run?"
                .to_string(),
        );
    }
    let terms = Terms::new(question, &[]);
    let sized = question.chars().any(|c| c.is_ascii_digit()) || SCALE.iter().any(|word| terms.matches(word));
    if !sized {
        asked.push("At what scale: how many users, requests or how much data?".to_string());
    }
    if asked.is_empty() {
        asked.push("What decision do you need to make, between which options, under which constraints?".to_string());
    }
    asked
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::moderator::analysis::analyse;

    #[test]
    fn what_is_missing_is_asked() {
        let asked = composed("What should we do?", &analyse("What should we do?"));
        assert_eq!(asked.len(), 3, "{asked:?}");
        assert!(asked[0].contains("options") && asked[1].contains("constrains") && asked[2].contains("scale"));
        let question = "Redis or Postgres for 5 million sessions with a small team?";
        assert!(composed(question, &analyse(question)).len() == 1, "only what is missing");
    }

    #[test]
    fn a_models_questions_are_cleaned_and_capped() {
        let answer = ClarifyingQuestions {
            vague: true,
            questions: vec![
                "Which workload:\nsession data or query results?".into(),
                "Which workload: session data or query results?".into(),
                "\u{1b}[31m".into(),
                "<one short question>".into(),
                "Do you already run Postgres?".into(),
                "How big?".into(),
                "A fourth?".into(),
                "x".repeat(1_000),
            ],
        };
        let questions = answer.usable().unwrap();
        assert_eq!(
            questions,
            ["Which workload: session data or query results?", "Do you already run Postgres?", "How big?"]
        );
        assert_eq!(ClarifyingQuestions { vague: false, questions: vec!["Why?".into()] }.usable(), Some(vec![]));
        assert_eq!(ClarifyingQuestions { vague: true, questions: vec![" ".into()] }.usable(), None);
    }
}
