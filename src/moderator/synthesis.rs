//! The synthesis (SPEC §2.5) as structured data, read tolerantly from a model's answer:
//! JSON first, then the sections of a markdown answer (pulldown-cmark).

use pulldown_cmark::{Event, HeadingLevel, Parser, Tag, TagEnd};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde_json::Value;

use super::answers::{self, Answer, Unreadable};
use crate::model::{Confidence, Dissent, PerspectiveSummary, Source, Synthesis};
use crate::text::first_sentence;
use crate::text::json::{one_or_many, text};

/// The synthesis as a model writes it.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SynthesisAnswer {
    #[serde(default)]
    pub perspectives: Vec<PerspectiveAnswer>,
    /// points every perspective accepts
    #[serde(default, alias = "points_of_agreement", deserialize_with = "one_or_many")]
    pub agreement: Vec<String>,
    /// unresolved conflicts; say what is unresolved
    #[serde(default, alias = "key_tensions", deserialize_with = "one_or_many")]
    pub tensions: Vec<String>,
    /// what to do, concretely
    #[serde(default, deserialize_with = "text")]
    pub recommendation: String,
    #[serde(default, deserialize_with = "confidence")]
    #[schemars(schema_with = "confidence_schema")]
    pub confidence: Option<Confidence>,
    /// conditions that would change the recommendation
    #[serde(default, deserialize_with = "one_or_many")]
    pub caveats: Vec<String>,
    #[serde(default, deserialize_with = "dissent")]
    pub dissent: Option<DissentAnswer>,
    /// paths of earlier decisions (as listed above) the recommendation goes against
    #[serde(default, deserialize_with = "one_or_many")]
    pub contradicts: Vec<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct PerspectiveAnswer {
    /// panel perspective
    #[serde(default, deserialize_with = "text")]
    pub name: String,
    /// its strongest arguments
    #[serde(default, deserialize_with = "one_or_many")]
    pub key_arguments: Vec<String>,
    /// what it gives up
    #[serde(default, alias = "trade_offs", deserialize_with = "one_or_many")]
    pub trade_offs_accepted: Vec<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct DissentAnswer {
    /// the dissenting perspective
    #[serde(default, deserialize_with = "text")]
    pub perspective: String,
    /// its strongest disagreement
    #[serde(default, deserialize_with = "text")]
    pub view: String,
}

impl Answer for SynthesisAnswer {
    const NAME: &'static str = "write_synthesis";
}

fn confidence_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "string", "enum": ["High", "Medium", "Low"]})
}

/// "High", "medium", "Low confidence", …
fn confidence<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Confidence>, D::Error> {
    Ok(read_confidence(&text(deserializer)?))
}

fn read_confidence(text: &str) -> Option<Confidence> {
    let text = text.trim().to_lowercase();
    [Confidence::High, Confidence::Medium, Confidence::Low]
        .into_iter()
        .find(|c| text.starts_with(&c.as_str().to_lowercase()))
}

/// An object with a view, or the view alone as a string.
fn dissent<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<DissentAnswer>, D::Error> {
    let found = match Value::deserialize(deserializer)? {
        Value::Object(map) => {
            let field = |k: &str| map.get(k).and_then(Value::as_str).unwrap_or("").trim().to_string();
            DissentAnswer { perspective: field("perspective"), view: field("view") }
        }
        Value::String(view) => DissentAnswer { perspective: String::new(), view: view.trim().to_string() },
        _ => return Ok(None),
    };
    Ok((!found.view.is_empty()).then_some(found))
}

/// Read a synthesis: JSON, else markdown sections. `panel` fixes the perspective order;
/// a perspective the model left out is kept with empty lists (the record says so).
/// `decisions` are the earlier decisions the debaters read: a contradiction is kept
/// only when it names one of them.
pub fn parse(text: &str, panel: &[String], decisions: &[String]) -> Result<(Synthesis, Source), Unreadable> {
    let (mut synthesis, source) = match answers::read::<SynthesisAnswer>(text) {
        Ok(answer) if !answer.recommendation.is_empty() => (from_answer(answer, panel), Source::Structured),
        Ok(_) => return Err(Unreadable::Missing("recommendation")),
        Err(json_error) => (from_markdown(text, panel).ok_or(json_error)?, Source::MarkdownSections),
    };
    synthesis.contradicts = known(&synthesis.contradicts, decisions);
    Ok((synthesis, source))
}

/// The decisions `named` refers to, by path or file name, each once, in `decisions`' order.
fn known(named: &[String], decisions: &[String]) -> Vec<String> {
    let refers = |name: &str, path: &str| {
        let name = name.trim().trim_matches(['`', '"', '\'', '[', ']', '(', ')']).trim_start_matches("./");
        !name.is_empty() && (path == name || path.rsplit('/').next() == Some(name))
    };
    decisions.iter().filter(|path| named.iter().any(|name| refers(name, path))).cloned().collect()
}

fn from_answer(answer: SynthesisAnswer, panel: &[String]) -> Synthesis {
    let perspectives = panel
        .iter()
        .map(|name| {
            let found = answer.perspectives.iter().find(|p| p.name.eq_ignore_ascii_case(name));
            PerspectiveSummary {
                name: name.clone(),
                key_arguments: found.map(|p| p.key_arguments.clone()).unwrap_or_default(),
                trade_offs_accepted: found.map(|p| p.trade_offs_accepted.clone()).unwrap_or_default(),
            }
        })
        .collect();
    Synthesis {
        perspectives,
        agreement: answer.agreement,
        tensions: answer.tensions,
        recommendation: answer.recommendation,
        confidence: answer.confidence.unwrap_or(Confidence::Medium),
        caveats: answer.caveats,
        dissent: answer.dissent.map(|d| Dissent { perspective: d.perspective, view: d.view }),
        contradicts: answer.contradicts,
    }
}

/// Sections of a markdown answer by heading; list items (or paragraphs) are the entries.
fn from_markdown(text: &str, panel: &[String]) -> Option<Synthesis> {
    let mut sections: Vec<(String, Vec<String>)> = Vec::new();
    let mut heading: Option<String> = None;
    let mut block = String::new();
    let mut in_item = 0usize;
    for event in Parser::new(text) {
        match event {
            Event::Start(Tag::Heading { level, .. }) if level <= HeadingLevel::H4 => heading = Some(String::new()),
            Event::End(TagEnd::Heading(_)) => {
                sections.push((heading.take().unwrap_or_default().trim().to_lowercase(), Vec::new()));
            }
            Event::Start(Tag::Item) => in_item += 1,
            Event::End(TagEnd::Item) | Event::End(TagEnd::Paragraph) => {
                if matches!(event, Event::End(TagEnd::Item)) {
                    in_item = in_item.saturating_sub(1);
                }
                let entry = std::mem::take(&mut block).trim().to_string();
                if !entry.is_empty()
                    && let Some((_, entries)) = sections.last_mut()
                {
                    entries.push(entry);
                }
            }
            Event::Text(t) | Event::Code(t) => match heading.as_mut() {
                Some(h) => h.push_str(&t),
                None => block.push_str(&t),
            },
            Event::SoftBreak | Event::HardBreak => block.push(' '),
            _ => {}
        }
    }
    let section = |words: &[&str]| -> Vec<String> {
        sections.iter().filter(|(h, _)| words.iter().any(|w| h.contains(w))).flat_map(|(_, e)| e.clone()).collect()
    };
    let recommendation = section(&["recommend"]).join(" ");
    if recommendation.trim().is_empty() {
        return None;
    }
    let confidence = section(&["confidence"])
        .first()
        .and_then(|c| read_confidence(c))
        .or_else(|| {
            text.to_lowercase()
                .split("confidence")
                .nth(1)
                .and_then(|rest| read_confidence(rest.trim_start_matches([':', '*', ' '])))
        })
        .unwrap_or(Confidence::Medium);
    let perspectives = panel
        .iter()
        .map(|name| PerspectiveSummary {
            name: name.clone(),
            key_arguments: section(&[&name.to_lowercase()]),
            trade_offs_accepted: Vec::new(),
        })
        .collect();
    let dissent = section(&["dissent"]).first().map(|view| Dissent { perspective: String::new(), view: view.clone() });
    Some(Synthesis {
        perspectives,
        agreement: section(&["agreement", "agree"]),
        tensions: section(&["tension", "unresolved"]),
        recommendation,
        confidence,
        caveats: section(&["caveat"]),
        dissent,
        contradicts: section(&["contradict"]),
    })
}

/// A synthesis assembled from the debate when the moderator's answer is unusable:
/// each perspective's latest argument, the latest summary as the recommendation.
pub fn from_transcript(latest: &[(String, String)], last_summary: &str) -> Synthesis {
    Synthesis {
        perspectives: latest
            .iter()
            .map(|(name, text)| PerspectiveSummary {
                name: name.clone(),
                key_arguments: vec![first_sentence(text)],
                trade_offs_accepted: Vec::new(),
            })
            .collect(),
        agreement: Vec::new(),
        tensions: Vec::new(),
        recommendation: format!("No synthesis could be read from the moderator. Its last summary: {last_summary}"),
        confidence: Confidence::Low,
        caveats: Vec::new(),
        dissent: None,
        contradicts: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn panel() -> Vec<String> {
        vec!["Performance Advocate".into(), "Operational Simplicity".into()]
    }

    #[test]
    fn reads_structured_json_in_panel_order() {
        let text = r#"```json
{"perspectives": [{"name": "operational simplicity", "key_arguments": "one database"}, {"name": "Performance Advocate", "key_arguments": ["sub-ms reads"], "trade_offs_accepted": ["another service"]}],
 "agreement": ["measure first"], "tensions": [], "recommendation": "Start with Postgres.", "confidence": "medium", "caveats": ["p99 over 50ms"], "dissent": {"perspective": "Performance Advocate", "view": "Redis later costs more"},}
```"#;
        let (s, source) = parse(text, &panel(), &[]).unwrap();
        assert_eq!(source, Source::Structured);
        assert_eq!(s.perspectives[0].name, "Performance Advocate");
        assert_eq!(s.perspectives[1].key_arguments, ["one database"]);
        assert_eq!(s.confidence, Confidence::Medium);
        assert_eq!(s.dissent.unwrap().perspective, "Performance Advocate");
    }

    #[test]
    fn falls_back_to_markdown_sections() {
        let text = "# Synthesis\n\n## Points of Agreement\n- Measure first\n\n## Key Tensions\n- Latency vs ops\n\n## Recommendation\nStart with Postgres.\n\n**Confidence:** High\n\n## Caveats\n- If p99 grows\n";
        let (s, source) = parse(text, &panel(), &[]).unwrap();
        assert_eq!(source, Source::MarkdownSections);
        assert_eq!(s.agreement, ["Measure first"]);
        assert_eq!(s.tensions, ["Latency vs ops"]);
        assert!(s.recommendation.starts_with("Start with Postgres."));
        assert_eq!(s.confidence, Confidence::High);
        assert_eq!(s.caveats, ["If p99 grows"]);
    }

    #[test]
    fn unusable_answers_are_errors() {
        assert!(parse("", &panel(), &[]).is_err());
        assert!(parse("I cannot help with that.", &panel(), &[]).is_err());
        assert!(parse(r#"{"recommendation": ""}"#, &panel(), &[]).is_err());
        assert!(
            parse(r#"{"recommendation": "Use Postgres", "perspectives": [{"name": "Performance"#, &panel(), &[])
                .is_err()
        );
    }

    #[test]
    fn confidence_lowers_one_step() {
        assert_eq!(Confidence::High.lowered(), Confidence::Medium);
        assert_eq!(Confidence::Medium.lowered(), Confidence::Low);
        assert_eq!(Confidence::Low.lowered(), Confidence::Low);
    }

    #[test]
    fn only_contradictions_of_decisions_the_debaters_read_are_kept() {
        let decisions = ["docs/decisions/0001-use-postgres.md".to_string(), "docs/decisions/0002-react.md".into()];
        let text = r#"{"recommendation": "Use Redis.", "contradicts": ["0001-use-postgres.md", "../../etc/passwd", "`docs/decisions/0001-use-postgres.md`"]}"#;
        let (s, _) = parse(text, &panel(), &decisions).unwrap();
        assert_eq!(s.contradicts, ["docs/decisions/0001-use-postgres.md"]);
        let (s, _) = parse(
            r#"{"recommendation": "Use Redis.", "contradicts": "docs/decisions/0002-react.md"}"#,
            &panel(),
            &decisions,
        )
        .unwrap();
        assert_eq!(s.contradicts, ["docs/decisions/0002-react.md"], "one path as a string");
        let (s, _) = parse(r#"{"recommendation": "Use Redis."}"#, &panel(), &decisions).unwrap();
        assert!(s.contradicts.is_empty());
    }

    #[test]
    fn a_serialised_synthesis_reads_back_as_itself() {
        let (s, _) = parse(
            r#"{"perspectives": [{"name": "Performance Advocate", "key_arguments": ["a"], "trade_offs_accepted": ["b"]}], "recommendation": "Do it.", "confidence": "Low", "dissent": {"perspective": "Operational Simplicity", "view": "no"}}"#,
            &panel(),
            &[],
        )
        .unwrap();
        let (again, source) = parse(&serde_json::to_string(&s).unwrap(), &panel(), &[]).unwrap();
        assert_eq!((again, source), (s, Source::Structured));
    }
}
