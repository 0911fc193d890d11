//! A debater's stance: the option its contribution recommends, how sure it is, what
//! would change its mind and what it concedes. Every contribution is asked to end with
//! one `STANCE:` line; this reads it back, leniently, and only ever as one of the
//! considered options. Pure.

use schemars::JsonSchema;
use serde::Deserialize;

use super::answers::{self, Answer};
use super::naming;
use crate::model::lenient::text;
use crate::model::{Confidence, Stance};

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

/// Where an answer being written is done: just past the JSON object of its first stance
/// line, once that object is whole. What a debater writes after it the debate never
/// keeps, so a stream is read no further (a small model goes on to write the other
/// debaters' parts, or loops). Kept up as the answer streams in: each call reads only
/// what came since the one before; a text that does not go on from it is a new answer.
#[derive(Debug, Default)]
pub struct StanceWatch {
    /// The text read so far.
    seen: String,
    /// Where the line being read starts, while no marker line is found.
    line: usize,
    /// The marker line's object, once it opened: how deep, inside a string, after a `\`.
    object: Option<(u32, bool, bool)>,
    marker: bool,
    done: Option<usize>,
}

impl StanceWatch {
    pub fn watch(&mut self, text: &str) -> Option<usize> {
        if !text.starts_with(&self.seen) {
            *self = StanceWatch::default();
        }
        if self.done.is_some() {
            return self.done;
        }
        let read = self.seen.len();
        self.seen.push_str(&text[read..]);
        if !self.marker {
            let word = &MARKER[..MARKER.len() - 1];
            for line in text[self.line..].split_inclusive('\n') {
                let bare = line.trim_start().trim_start_matches(['*', '_', '`', '#', ' ']);
                if bare.get(..word.len()).is_some_and(|start| start.eq_ignore_ascii_case(word)) {
                    self.marker = true;
                    break;
                }
                // A line still being written is read again with what follows it.
                if !line.ends_with('\n') {
                    break;
                }
                self.line += line.len();
            }
            if !self.marker {
                return None;
            }
        }
        let from = match self.object {
            Some(_) => read,
            None => self.line,
        };
        for (at, c) in text[from..].char_indices() {
            let Some((depth, string, escaped)) = &mut self.object else {
                if c == '{' {
                    self.object = Some((1, false, false));
                }
                continue;
            };
            match (c, *string, *escaped) {
                (_, true, true) => *escaped = false,
                ('\\', true, false) => *escaped = true,
                ('"', _, false) => *string = !*string,
                ('{', false, _) => *depth += 1,
                ('}', false, _) => {
                    *depth -= 1;
                    if *depth == 0 {
                        self.done = Some(from + at + 1);
                        return self.done;
                    }
                }
                _ => {}
            }
        }
        None
    }
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
    fn an_answer_is_done_once_its_stance_line_closes_however_it_streams_in() {
        let stance = "STANCE: {\"option\": \"Redis\", \"would_change_if\": \"a }\\\" in \\\"quotes\\\"\", \"concedes\": \"{x}\"}";
        let answer = format!("Redis is fast.\nWe run {{one}} cache.\n{stance}");
        let done = answer.len();
        let text = format!("{answer}\n[Operational Simplicity — argument]\nThe other side, written by the same model.");
        for step in [1, 3, 7, text.len()] {
            let mut watch = StanceWatch::default();
            let mut found = None;
            for end in (step..=text.len()).step_by(step).chain([text.len()]).filter(|e| text.is_char_boundary(*e)) {
                found = found.or(watch.watch(&text[..end]));
            }
            assert_eq!(found, Some(done), "read {step} bytes at a time");
        }
        let mut watch = StanceWatch::default();
        assert_eq!(watch.watch("Redis is fast.\nSTANCE: {\"option\": \"Re"), None, "not yet closed");
        assert_eq!(watch.watch("A new answer with no stance line {at all}."), None, "a new answer, watched afresh");
        assert_eq!(StanceWatch::default().watch("No stance {here} at all.\n"), None);
        let fenced = "Argument.\nstance: ```json\n{\"option\": \"Redis\"}\n```\nMore.";
        assert_eq!(StanceWatch::default().watch(fenced), fenced.find("}\n```").map(|at| at + 1));
        let (kept, read) = split(&text[..done], &options());
        assert_eq!(
            (kept.as_str(), read.and_then(|s| s.option).as_deref()),
            ("Redis is fast.\nWe run {one} cache.", Some("Redis"))
        );
    }

    #[test]
    fn the_instruction_lists_the_options() {
        let line = instruction(&options());
        assert!(line.contains(r#""option": "Redis" | "Postgres" | "Keep what we have""#), "{line}");
    }
}
