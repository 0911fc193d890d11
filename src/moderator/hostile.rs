//! Every reader of model or user text fed arbitrary Unicode: whatever a model answers
//! or a question holds, none of them panics. The text is drawn from pieces these readers
//! look for (markers, braces, headings, placeholders) mixed with multi-byte characters,
//! so a slice inside a character is found within a few hundred cases.

use proptest::prelude::*;

use super::analysis;
use super::answers;
use super::detection;
use super::evaluation;
use super::naming;
use super::selection::{self, PanelChoice};
use super::stance;
use super::synthesis::{self, Known};
use crate::text;

/// Pieces of model text: the marks the readers look for, and characters of 1 to 4 bytes.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("STANCE:".to_string()),
        Just("**Stance:** ".to_string()),
        Just("{\"option\": \"".to_string()),
        Just("\"confidence\": \"high\"".to_string()),
        Just("{".to_string()),
        Just("}".to_string()),
        Just("[".to_string()),
        Just("\", ".to_string()),
        Just("\"<".to_string()),
        Just(">\"".to_string()),
        Just("\n".to_string()),
        Just("\n## ".to_string()),
        Just("```".to_string()),
        Just(" or ".to_string()),
        Just(" vs. ".to_string()),
        Just("Redis".to_string()),
        Just("Postgres".to_string()),
        Just("summary".to_string()),
        Just("recommendation".to_string()),
        Just(". ".to_string()),
        Just("\u{200b}".to_string()),
        Just("\u{202e}".to_string()),
        "[–—€é🚀ü漢字と、]{1,3}",
        "\\PC{0,6}",
        "[a-zA-Z ]{0,8}",
    ]
}

fn model_text() -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 0..40).prop_map(|pieces| pieces.concat())
}

fn names() -> Vec<String> {
    vec!["Performance Advocate".into(), "Cost Control".into()]
}

fn choices() -> Vec<String> {
    vec!["Redis".into(), "Postgres".into(), "Keep what we have".into()]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn no_reader_of_model_text_panics(text in model_text()) {
        let (panel, options) = (names(), choices());
        let _ = stance::split(&text, &options);
        let _ = answers::read::<stance::StanceAnswer>(&text).map(|a| stance::from_answer(a, &options));
        let _ = answers::says_nothing(&text);
        let _ = evaluation::parse(&text, &panel, &options);
        let known = Known { panel: &panel, options: &options, decisions: &[] };
        let _ = synthesis::parse(&text, &known);
        let _ = synthesis::last_round_summary(&text);
        let _ = answers::read::<PanelChoice>(&text).map(|choice| selection::refine_options(&choice));
        let _ = detection::loops(&text);
        let _ = detection::containment(&text, "Redis is fast. Postgres is there.");
        let _ = naming::matching(&text, &options);
        let _ = text::json::extract::<serde_json::Value>(&text);
        let _ = (text::first_sentence(&text), text::cap(&text, 7), text::shorten(&text, 5));
        let _ = text::untrusted::for_terminal(&text);
    }

    #[test]
    fn no_reader_of_a_question_panics(question in model_text()) {
        let _ = analysis::analyse(&question);
        let _ = analysis::keyword_terms(&question);
    }
}
