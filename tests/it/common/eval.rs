//! The selection evaluation set (`tests/data/selection_eval.yaml`): real questions and
//! the perspectives (and options, and vagueness) a reviewer would expect, run through
//! the question analysis and the keyword panel — no model. Shared by the test that
//! holds the hit rate to its target and the benchmark that reports it.

use debate::catalog::Catalog;
use debate::moderator::{analysis, selection};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
pub struct Case {
    pub question: String,
    pub category: String,
    pub expect: Vec<String>,
    #[serde(default)]
    pub options: Option<Vec<String>>,
    #[serde(default)]
    pub vague: Option<bool>,
}

/// How the analysis and selection did on the set.
#[derive(Debug, Default)]
pub struct Score {
    pub cases: usize,
    pub expected: usize,
    /// Expected perspectives that were on the panel.
    pub present: usize,
    pub option_cases: usize,
    pub options_right: usize,
    pub vague_cases: usize,
    pub vague_right: usize,
    /// One line per miss, for the failure message and the report.
    pub misses: Vec<String>,
}

impl Score {
    pub fn hit_rate(&self) -> f64 {
        self.present as f64 / self.expected.max(1) as f64
    }
}

pub fn cases() -> Vec<Case> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/selection_eval.yaml");
    serde_saphyr::from_str(&std::fs::read_to_string(path).expect("the evaluation set")).expect("the set is YAML")
}

pub fn evaluate() -> Score {
    let catalog = Catalog::build(&[]).expect("the built-in catalog");
    let mut score = Score::default();
    for case in cases() {
        score.cases += 1;
        let found = analysis::analyse(&case.question);
        let panel = selection::select(&catalog, &case.question, &found, &selection::Request::default())
            .expect("a panel for every question");
        let names: Vec<&str> = panel.iter().map(|s| s.name()).collect();
        for expected in &case.expect {
            score.expected += 1;
            match names.contains(&expected.as_str()) {
                true => score.present += 1,
                false => score.misses.push(format!("{:?}: no {expected} in {names:?}", case.question)),
            }
        }
        if let Some(options) = &case.options {
            score.option_cases += 1;
            let yes_no = options.iter().map(|o| o.to_lowercase()).collect::<Vec<_>>() == ["yes", "no"];
            let right = match yes_no {
                true => found.options.len() == 2,
                false => {
                    found.options.len() == options.len()
                        && found.options.iter().zip(options).all(|(a, b)| a.eq_ignore_ascii_case(b))
                }
            };
            match right {
                true => score.options_right += 1,
                false => {
                    score.misses.push(format!("{:?}: options {:?}, wanted {options:?}", case.question, found.options))
                }
            }
        }
        if let Some(vague) = case.vague {
            score.vague_cases += 1;
            match found.vague == vague {
                true => score.vague_right += 1,
                false => score.misses.push(format!("{:?}: vague {}, wanted {vague}", case.question, found.vague)),
            }
        }
    }
    score
}
