//! The options read from the question are put to the moderator (docs/guide.md, "How
//! the options are read"): its correction stands when it keeps to the question or says
//! why, is refused when it invents or drops an option without a reason, and the record
//! says which reading stood.

use crate::common::*;

/// A debate whose moderator answers the analysis with `analysis` (JSON); its record's
/// text and `show --json`'s analysis.
fn debated_with(analysis: &str) -> (String, serde_json::Value) {
    let sandbox = Sandbox::new();
    let answers = varied_answers(&PANEL, 1, AGREE).replacen(
        "answers:\n",
        &format!("answers:\n  - {{purpose: analysis, text: '{analysis}'}}\n"),
        1,
    );
    let config = sandbox.scripted(&answers);
    sandbox.cmd().arg("--config").arg(&config).arg(QUESTION).assert().success();
    let record = std::fs::read_to_string(&sandbox.records()[0]).unwrap();
    (record, sandbox.shown()["analysis"].clone())
}

#[test]
fn the_same_options_confirm_the_reading() {
    let (record, analysis) = debated_with(r#"{"options": ["postgres", "Redis"], "perspectives": []}"#);
    assert!(
        record.contains("- Options read from the question and confirmed by the moderator: Redis, Postgres."),
        "{record}"
    );
    assert_eq!(analysis["options"], serde_json::json!(["Redis", "Postgres"]));
    assert_eq!(analysis["reading"]["verdict"], "confirmed");
}

#[test]
fn an_invented_option_without_a_reason_is_refused_and_the_record_says_so() {
    let (record, analysis) = debated_with(r#"{"options": ["Redis", "Postgres", "Memcached"], "perspectives": []}"#);
    assert!(
        record.contains(
            "- Options read from the question: Redis, Postgres. The moderator proposed Redis, Postgres, Memcached but \
             added “Memcached” without a reason, so the question's reading stood."
        ),
        "{record}"
    );
    assert_eq!(analysis["options"], serde_json::json!(["Redis", "Postgres"]), "the debate weighed the question's");
    assert!(!record.contains("\n### Memcached\n"), "{record}");
    assert_eq!(analysis["reading"]["verdict"], "refused");
    assert_eq!(analysis["reading"]["proposed"], serde_json::json!(["Redis", "Postgres", "Memcached"]));
}

#[test]
fn a_correction_with_a_reason_stands_and_the_record_quotes_it() {
    let (record, analysis) = debated_with(
        r#"{"options": ["Redis", "Postgres", "Memcached"], "options_reason": "The project already runs Memcached.", "perspectives": []}"#,
    );
    assert!(
        record.contains(
            "- Options as the moderator corrected them: Redis, Postgres, Memcached (The project already runs \
             Memcached.); read from the question: Redis, Postgres."
        ),
        "{record}"
    );
    assert_eq!(analysis["options"], serde_json::json!(["Redis", "Postgres", "Memcached"]));
    assert_eq!(analysis["reading"]["verdict"], "corrected");
    assert!(record.contains("\n### Memcached\n"), "the debate weighed it: {record}");
}

#[test]
fn a_moderator_that_names_no_options_leaves_the_reading_unconfirmed() {
    let (record, analysis) = debated_with(r#"{"perspectives": []}"#);
    assert!(
        record.contains("- Options read from the question, not confirmed by the moderator: Redis, Postgres."),
        "{record}"
    );
    assert_eq!(analysis["reading"]["verdict"], "unconfirmed");
}
