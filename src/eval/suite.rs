//! A suite of questions for `debate eval --suite`: each with the context files the
//! debaters read, the options a reviewer expects the debate to weigh and, optionally,
//! the option a team actually chose. Read from YAML, checked whole before anything runs.

use std::path::PathBuf;

use serde::Deserialize;

use crate::model::Rounds;

/// ```yaml
/// max_rounds: 1                  # optional: rounds per question (1–20)
/// questions:
///   - question: Should we cache product pages in Redis or in Postgres?
///     domain: data               # optional: a label the report groups by
///     context: [notes/cache.md]  # optional: files, relative to the suite file
///     options: [Redis, Postgres] # optional: the options a reviewer expects weighed
///     chosen: Postgres           # optional: the option a team chose, one of `options`
///     max_rounds: 2              # optional: this question's own
/// ```
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Suite {
    #[serde(default)]
    pub max_rounds: Option<Rounds>,
    pub questions: Vec<Question>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Question {
    pub question: String,
    #[serde(default)]
    pub domain: Option<String>,
    #[serde(default)]
    pub context: Vec<PathBuf>,
    #[serde(default)]
    pub options: Vec<String>,
    #[serde(default)]
    pub chosen: Option<String>,
    #[serde(default)]
    pub max_rounds: Option<Rounds>,
}

impl Question {
    /// The rounds this question is debated for: `forced` (`-r`), its own, the suite's,
    /// or the settings' (`None`).
    pub fn rounds(&self, suite: &Suite, forced: Option<Rounds>) -> Option<Rounds> {
        forced.or(self.max_rounds).or(suite.max_rounds)
    }
}

/// The suite in `text` (read from `origin`), or why not: a YAML error with its line, or
/// the question and what is wrong with it.
pub fn parse(text: &str, origin: &str) -> Result<Suite, String> {
    let suite: Suite = crate::text::yaml::parse(text, origin)?;
    if suite.questions.is_empty() {
        return Err(format!("{origin}: `questions` is empty: a suite needs one question at least"));
    }
    for (at, q) in suite.questions.iter().enumerate() {
        let which = format!("{origin}: question {}", at + 1);
        if q.question.trim().is_empty() {
            return Err(format!("{which} is empty"));
        }
        if let Some(chosen) = &q.chosen
            && !q.options.is_empty()
            && !q.options.iter().any(|o| o.eq_ignore_ascii_case(chosen.trim()))
        {
            return Err(format!("{which}: `chosen` ({chosen:?}) is not one of its `options`"));
        }
    }
    Ok(suite)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_suite_reads_with_its_defaults() {
        let suite = parse(
            "max_rounds: 2\nquestions:\n  - question: Redis or Postgres?\n    options: [Redis, Postgres]\n    chosen: postgres\n  - question: Kafka or SQS?\n    max_rounds: 1\n",
            "s.yaml",
        )
        .unwrap();
        assert_eq!(suite.questions.len(), 2);
        let rounds = |n: i64| Some(Rounds::try_from(n).unwrap());
        assert_eq!(suite.questions[0].rounds(&suite, None), rounds(2));
        assert_eq!(suite.questions[1].rounds(&suite, None), rounds(1));
        assert_eq!(suite.questions[1].rounds(&suite, rounds(3)), rounds(3), "-r wins");
        assert!(suite.questions[1].context.is_empty() && suite.questions[1].chosen.is_none());
    }

    #[test]
    fn what_is_wrong_is_named_with_its_place() {
        let err = |yaml: &str| parse(yaml, "s.yaml").unwrap_err();
        assert!(err("questions:\n  - question: X or Y?\n    choice: X\n").starts_with("s.yaml:3:"), "unknown key");
        assert_eq!(err("questions: []\n"), "s.yaml: `questions` is empty: a suite needs one question at least");
        assert_eq!(err("questions:\n  - question: ' '\n"), "s.yaml: question 1 is empty");
        assert_eq!(
            err("questions:\n  - question: X or Y?\n    options: [X, Y]\n    chosen: Z\n"),
            "s.yaml: question 1: `chosen` (\"Z\") is not one of its `options`"
        );
        let rounds = err("max_rounds: 0\nquestions:\n  - question: X or Y?\n");
        assert!(rounds.starts_with("s.yaml:1:") && rounds.contains("from 1 to 20, not 0"), "{rounds}");
    }
}
