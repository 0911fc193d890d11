//! A debater's stance: the option its contribution recommends, how sure it is, what
//! would change its mind and what it concedes. Every contribution is asked to end with
//! one `STANCE:` line; this reads it back, leniently, and only ever as one of the
//! considered options. Pure.

use schemars::JsonSchema;
use serde::Deserialize;

use super::answers::{self, Answer};
use super::naming;
use crate::model::{Confidence, Stance};
use crate::text::json::text;

const MARKER: &str = Stance::MARKER;

/// A stance as a model writes it.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct StanceAnswer {
    /// one of the options, exactly as listed
    #[serde(default, deserialize_with = "text")]
    #[schemars(extend("x-options" = true))]
    pub option: String,
    #[serde(default, deserialize_with = "text")]
    #[schemars(schema_with = "confidence_schema")]
    pub confidence: String,
    /// what would change your mind
    #[serde(default, deserialize_with = "text")]
    pub would_change_if: String,
    /// what you grant the others
    #[serde(default, deserialize_with = "text")]
    pub concedes: String,
}

impl Answer for StanceAnswer {
    const NAME: &'static str = "state_stance";
}

fn confidence_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": "string", "enum": ["high", "medium", "low"]})
}

/// The contribution's text without its stance line, and the stance it states: `None`
/// when it states none that names one of `options` (it is then asked for once more).
/// With no options to choose from the stance is unknown from the start.
pub fn split(text: &str, options: &[String]) -> (String, Option<Stance>) {
    let (text, stance) = match marker_at(text) {
        Some(at) => {
            let before = text[..at].trim_end();
            let stance = answers::read::<StanceAnswer>(&text[at..]).ok().and_then(|a| from_answer(a, options));
            (if before.is_empty() { text.trim() } else { before }, stance)
        }
        None => (text.trim(), None),
    };
    (text.to_string(), stance.or_else(|| options.is_empty().then(Stance::unknown)))
}

/// A stance answer as a stance, if it names one of `options`.
pub fn from_answer(answer: StanceAnswer, options: &[String]) -> Option<Stance> {
    let option = naming::matching(&answer.option, options)?;
    let confidence = ["high", "medium", "low"]
        .iter()
        .zip([Confidence::High, Confidence::Medium, Confidence::Low])
        .find(|(name, _)| answer.confidence.trim().to_lowercase().starts_with(*name))
        .map(|(_, confidence)| confidence);
    Some(Stance {
        option: Some(option),
        confidence,
        would_change_if: answer.would_change_if,
        concedes: answer.concedes,
        first_listed: false,
    })
}

/// Where the last line that starts with the marker begins (bold or not, any case).
fn marker_at(text: &str) -> Option<usize> {
    let mut found = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_start().trim_start_matches(['*', '_', '`', '#', ' ']);
        // `get`, not an index: a model's line may have a multi-byte character there.
        let word = &MARKER[..MARKER.len() - 1];
        if bare.get(..word.len()).is_some_and(|start| start.eq_ignore_ascii_case(word)) {
            found = Some(offset);
        }
        offset += line.len();
    }
    found
}

/// The stance line a debater is asked to end with, for these options.
pub fn instruction(options: &[String]) -> String {
    let choices = options.iter().map(|o| format!("\"{o}\"")).collect::<Vec<_>>().join(" | ");
    format!(
        "End your answer with one line that starts with `{MARKER}` followed by a JSON object: \
         {{\"option\": {choices}, \"confidence\": \"high\" | \"medium\" | \"low\", \"would_change_if\": \
         \"<what would change your mind>\", \"concedes\": \"<what you grant the others>\"}}."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> Vec<String> {
        vec!["Redis".into(), "Postgres".into(), "Keep what we have".into()]
    }

    #[test]
    fn the_stance_line_is_read_and_taken_off_the_text() {
        let text = "Postgres is already there.\n\nSTANCE: {\"option\": \"Postgres\", \"confidence\": \"high\", \"would_change_if\": \"p99 over 50 ms\", \"concedes\": \"Redis is faster\"}\n";
        let (text, stance) = split(text, &options());
        assert_eq!(text, "Postgres is already there.");
        let stance = stance.unwrap();
        assert_eq!((stance.option.as_deref(), stance.confidence), (Some("Postgres"), Some(Confidence::High)));
        assert_eq!((stance.would_change_if.as_str(), stance.concedes.as_str()), ("p99 over 50 ms", "Redis is faster"));
    }

    #[test]
    fn a_stance_in_markdown_or_a_code_fence_is_read_too() {
        for text in [
            "Argument.\n**Stance:** {\"option\": \"redis\", \"confidence\": \"Medium confidence\"}",
            "Argument.\n`STANCE: {\"option\": \"Redis.\"}`",
            "Argument.\nstance: ```json\n{\"option\": \"Redis\"}\n```",
        ] {
            let (rest, stance) = split(text, &options());
            assert_eq!(rest, "Argument.", "{text}");
            assert_eq!(stance.and_then(|s| s.option).as_deref(), Some("Redis"), "{text}");
        }
    }

    #[test]
    fn only_an_option_on_the_list_is_a_stance() {
        for garbled in [
            "Argument.\nSTANCE: {\"option\": \"MongoDB\"}",
            "Argument.\nSTANCE: {\"option\": \"\"}",
            "Argument.\nSTANCE: the one I said",
            "Argument without any stance.",
        ] {
            assert_eq!(split(garbled, &options()).1, None, "{garbled}");
        }
        let (_, none) = split("Argument.\nSTANCE: {\"option\": \"Redis\"}", &[]);
        assert_eq!(none, Some(Stance::unknown()), "no options: unknown, not to be asked again");
    }

    #[test]
    fn a_line_with_a_multibyte_character_where_the_marker_would_end_is_prose() {
        for text in ["Yes – Redis wins.", "Cost — it is cheaper.", "Stanc€ is not it", "ab🚀"] {
            let (rest, stance) = split(&format!("{text}\nMore."), &options());
            assert_eq!((rest.as_str(), stance), (format!("{text}\nMore.").as_str(), None), "{text}");
        }
    }

    #[test]
    fn the_instruction_lists_the_options() {
        let line = instruction(&options());
        assert!(line.contains(r#""option": "Redis" | "Postgres" | "Keep what we have""#), "{line}");
    }
}
