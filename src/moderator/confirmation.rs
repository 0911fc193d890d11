//! The options read from the question, put to the moderator: its correction stands when
//! it keeps to the question or says why it does not, and is refused when it adds an
//! option the question never names or drops one it does without a reason (a weak
//! model's invention must not decide what a debate weighs).

use super::analysis::terms;
use super::selection::{PanelChoice, refine_options};
use crate::model::{OptionsReading, ReadingVerdict};
use crate::text::{cap, untrusted};

/// Words that say nothing of which option is meant.
const FILLER: &[&str] = &[
    "a", "an", "the", "and", "or", "of", "in", "on", "to", "for", "with", "we", "our", "it", "its", "is", "be", "as",
    "at", "by", "use", "using", "what", "have", "has", "that", "this", "one", "new", "both", "all",
];

/// Words that open "keep what we have": the status quo, which the moderator is asked to
/// add where it is a real choice and which needs no word of the question.
const KEEPING: &[&str] = &["keep", "stay", "stick", "remain", "continue", "status"];

/// The longest reason the record quotes.
const REASON_LIMIT: usize = 240;

/// The options that stand, and how they were read: `question` is the question as asked,
/// `read` the options read from it, `choice` the moderator's answer, if any.
pub fn confirm(question: &str, read: &[String], choice: Option<&PanelChoice>) -> (Vec<String>, OptionsReading) {
    let reading = |verdict, proposed: Vec<String>, reason: String| OptionsReading {
        read: read.to_vec(),
        verdict,
        proposed,
        reason,
    };
    // No answer, or one that names no options at all (the offline provider's).
    let Some(choice) = choice.filter(|choice| !choice.options.is_empty()) else {
        return (read.to_vec(), reading(ReadingVerdict::Unconfirmed, Vec::new(), String::new()));
    };
    let Some(proposed) = refine_options(choice) else {
        let why = "the moderator named no usable options (2 to 5, one line each)".to_string();
        return (read.to_vec(), reading(ReadingVerdict::Unconfirmed, Vec::new(), why));
    };
    if same_options(read, &proposed) {
        return (read.to_vec(), reading(ReadingVerdict::Confirmed, Vec::new(), String::new()));
    }
    let asked = content_stems(question);
    let added: Vec<&String> =
        proposed.iter().filter(|option| !keeps_what_exists(option) && !shares_a_word(option, &asked)).collect();
    let dropped: Vec<&String> =
        read.iter().filter(|option| !proposed.iter().any(|p| shares_a_word(p, &content_stems(option)))).collect();
    let reason = cap(untrusted::one_line(&choice.options_reason).trim(), REASON_LIMIT);
    if reason.is_empty() && !(added.is_empty() && dropped.is_empty()) {
        let unexplained = [(added, "added"), (dropped, "left out")]
            .into_iter()
            .filter(|(options, _)| !options.is_empty())
            .map(|(options, what)| format!("{what} {}", quoted(&options)))
            .collect::<Vec<_>>()
            .join(" and ");
        return (read.to_vec(), reading(ReadingVerdict::Refused, proposed, format!("{unexplained} without a reason")));
    }
    (proposed.clone(), reading(ReadingVerdict::Corrected, proposed, reason))
}

/// The same options, whatever their order, case or final full stop.
fn same_options(read: &[String], proposed: &[String]) -> bool {
    let key = |options: &[String]| {
        let mut keys: Vec<String> = options.iter().map(|o| o.trim().trim_end_matches('.').to_lowercase()).collect();
        keys.sort();
        keys
    };
    key(read) == key(proposed)
}

fn keeps_what_exists(option: &str) -> bool {
    terms::words(option).first().is_some_and(|first| KEEPING.contains(&first.as_str()))
}

fn shares_a_word(option: &str, stems: &[String]) -> bool {
    content_stems(option).iter().any(|stem| stems.contains(stem))
}

/// The stems of the words that name something.
fn content_stems(text: &str) -> Vec<String> {
    terms::words(text).iter().filter(|word| !FILLER.contains(&word.as_str())).map(|word| terms::stem(word)).collect()
}

fn quoted(options: &[&String]) -> String {
    options.iter().map(|o| format!("\u{201c}{o}\u{201d}")).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::moderator::answers;

    fn choice(json: &str) -> PanelChoice {
        answers::read::<PanelChoice>(json).unwrap()
    }

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    const QUESTION: &str = "Should we cache product pages in Redis or in Postgres?";

    #[test]
    fn no_answer_leaves_the_reading_unconfirmed() {
        let read = strings(&["Redis", "Postgres"]);
        let (options, reading) = confirm(QUESTION, &read, None);
        assert_eq!(options, read);
        assert_eq!(reading.verdict, ReadingVerdict::Unconfirmed);
    }

    #[test]
    fn an_answer_without_options_leaves_the_reading_unconfirmed_without_a_reason() {
        let read = strings(&["Redis", "Postgres"]);
        let (options, reading) = confirm(QUESTION, &read, Some(&choice(r#"{"perspectives": []}"#)));
        assert_eq!(options, read);
        assert_eq!((reading.verdict, reading.reason.as_str()), (ReadingVerdict::Unconfirmed, ""));
    }

    #[test]
    fn the_same_options_in_another_order_confirm_the_reading() {
        let read = strings(&["Redis", "Postgres"]);
        let (options, reading) = confirm(QUESTION, &read, Some(&choice(r#"{"options": ["postgres", "Redis."]}"#)));
        assert_eq!(options, read);
        assert_eq!(reading.verdict, ReadingVerdict::Confirmed);
        assert!(reading.proposed.is_empty());
    }

    #[test]
    fn a_correction_that_keeps_to_the_question_stands_without_a_reason() {
        let read = strings(&["Cache product pages in Redis or in Postgres", "Keep what we have"]);
        let answer = choice(r#"{"options": ["Redis", "Postgres", "Keep the current cache"]}"#);
        let (options, reading) = confirm(QUESTION, &read, Some(&answer));
        assert_eq!(options, strings(&["Redis", "Postgres", "Keep the current cache"]));
        assert_eq!(reading.verdict, ReadingVerdict::Corrected);
    }

    #[test]
    fn an_invented_option_without_a_reason_is_refused() {
        let read = strings(&["Redis", "Postgres"]);
        let answer = choice(r#"{"options": ["Redis", "Postgres", "Memcached"]}"#);
        let (options, reading) = confirm(QUESTION, &read, Some(&answer));
        assert_eq!(options, read);
        assert_eq!(reading.verdict, ReadingVerdict::Refused);
        assert_eq!(reading.proposed, strings(&["Redis", "Postgres", "Memcached"]));
        assert_eq!(reading.reason, "added \u{201c}Memcached\u{201d} without a reason");
    }

    #[test]
    fn a_dropped_option_without_a_reason_is_refused() {
        let read = strings(&["Terraform", "Pulumi", "CloudFormation"]);
        let question = "Do we adopt Terraform, Pulumi or stay with hand-written CloudFormation?";
        let answer = choice(r#"{"options": ["Terraform", "Pulumi"]}"#);
        let (options, reading) = confirm(question, &read, Some(&answer));
        assert_eq!(options, read);
        assert_eq!(reading.reason, "left out \u{201c}CloudFormation\u{201d} without a reason");
    }

    #[test]
    fn a_correction_with_a_reason_stands_and_the_reason_is_kept() {
        let read = strings(&["the order service", "the inventory service"]);
        let question = "Should we use gRPC or REST between the order service and the inventory service?";
        let answer = choice(
            r#"{"options": ["gRPC", "REST"], "options_reason": "The services are the subject; the protocols are the choice."}"#,
        );
        let (options, reading) = confirm(question, &read, Some(&answer));
        assert_eq!(options, strings(&["gRPC", "REST"]));
        assert_eq!(reading.verdict, ReadingVerdict::Corrected);
        assert_eq!(reading.reason, "The services are the subject; the protocols are the choice.");
    }

    #[test]
    fn unusable_options_leave_the_reading_unconfirmed_and_say_why() {
        let read = strings(&["Redis", "Postgres"]);
        let (options, reading) = confirm(QUESTION, &read, Some(&choice(r#"{"options": ["Redis"]}"#)));
        assert_eq!(options, read);
        assert_eq!(reading.verdict, ReadingVerdict::Unconfirmed);
        assert!(reading.reason.contains("no usable options"));
    }

    #[test]
    fn a_reason_is_one_bounded_line() {
        let read = strings(&["Redis", "Postgres"]);
        let long = format!("line one\nline two {}", "x".repeat(1000));
        let json = serde_json::json!({"options": ["Memcached", "Redis"], "options_reason": long}).to_string();
        let (_, reading) = confirm(QUESTION, &read, Some(&choice(&json)));
        assert!(!reading.reason.contains('\n'));
        assert!(reading.reason.chars().count() <= REASON_LIMIT + " […]".chars().count());
    }
}
