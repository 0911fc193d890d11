//! The synthesis (SPEC §2.5) as structured data, read tolerantly from a model's answer:
//! JSON first, then the sections of a markdown answer (pulldown-cmark).

use pulldown_cmark::{Event, HeadingLevel, Parser, Tag, TagEnd};
use serde::{Deserialize, Serialize};

use super::json::{extract, one_or_many};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Confidence {
    Low,
    Medium,
    High,
}

impl Confidence {
    pub fn lowered(self) -> Confidence {
        match self {
            Confidence::High => Confidence::Medium,
            _ => Confidence::Low,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Confidence::High => "High",
            Confidence::Medium => "Medium",
            Confidence::Low => "Low",
        }
    }
    fn read(text: &str) -> Option<Confidence> {
        let text = text.trim().to_lowercase();
        [Confidence::High, Confidence::Medium, Confidence::Low]
            .into_iter()
            .find(|c| text.starts_with(&c.as_str().to_lowercase()))
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PerspectiveSummary {
    pub name: String,
    pub key_arguments: Vec<String>,
    pub trade_offs_accepted: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Dissent {
    pub perspective: String,
    pub view: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Synthesis {
    /// One entry per panel perspective, in panel order.
    pub perspectives: Vec<PerspectiveSummary>,
    pub agreement: Vec<String>,
    pub tensions: Vec<String>,
    pub recommendation: String,
    pub confidence: Confidence,
    pub caveats: Vec<String>,
    pub dissent: Option<Dissent>,
}

/// How the synthesis was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// The model's structured answer.
    Structured,
    /// Recovered from the sections of a free-text answer.
    MarkdownSections,
    /// The moderator's answer was unusable; assembled from the debate itself.
    Transcript,
}

pub const SCHEMA_HINT: &str = r#"{"perspectives": [{"name": "<panel perspective>", "key_arguments": ["..."], "trade_offs_accepted": ["..."]}], "agreement": ["<points every perspective accepts>"], "tensions": ["<unresolved conflicts; say what is unresolved>"], "recommendation": "<what to do, concretely>", "confidence": "High" | "Medium" | "Low", "caveats": ["<conditions that would change the recommendation>"], "dissent": null | {"perspective": "<name>", "view": "<its strongest disagreement>"}}"#;

/// The JSON Schema of the answer, for providers that enforce structured output.
pub fn schema() -> serde_json::Value {
    let list = serde_json::json!({"type": "array", "items": {"type": "string"}});
    serde_json::json!({
        "type": "object",
        "properties": {
            "perspectives": {"type": "array", "items": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "key_arguments": list, "trade_offs_accepted": list},
                "required": ["name", "key_arguments", "trade_offs_accepted"],
                "additionalProperties": false,
            }},
            "agreement": list,
            "tensions": list,
            "recommendation": {"type": "string"},
            "confidence": {"type": "string", "enum": ["High", "Medium", "Low"]},
            "caveats": list,
            "dissent": {"anyOf": [
                {"type": "null"},
                {"type": "object", "properties": {"perspective": {"type": "string"}, "view": {"type": "string"}},
                 "required": ["perspective", "view"], "additionalProperties": false},
            ]},
        },
        "required": ["perspectives", "agreement", "tensions", "recommendation", "confidence", "caveats", "dissent"],
        "additionalProperties": false,
    })
}

#[derive(Deserialize)]
struct WirePerspective {
    #[serde(default)]
    name: String,
    #[serde(default, deserialize_with = "one_or_many")]
    key_arguments: Vec<String>,
    #[serde(default, alias = "trade_offs", deserialize_with = "one_or_many")]
    trade_offs_accepted: Vec<String>,
}

#[derive(Deserialize)]
struct Wire {
    #[serde(default)]
    perspectives: Vec<WirePerspective>,
    #[serde(default, alias = "points_of_agreement", deserialize_with = "one_or_many")]
    agreement: Vec<String>,
    #[serde(default, alias = "key_tensions", deserialize_with = "one_or_many")]
    tensions: Vec<String>,
    #[serde(default)]
    recommendation: String,
    #[serde(default)]
    confidence: String,
    #[serde(default, deserialize_with = "one_or_many")]
    caveats: Vec<String>,
    #[serde(default)]
    dissent: Option<serde_json::Value>,
}

/// Read a synthesis: JSON, else markdown sections. `panel` fixes the perspective order;
/// a perspective the model left out is kept with empty lists (the record says so).
pub fn parse(text: &str, panel: &[String]) -> Result<(Synthesis, Source), String> {
    match extract::<Wire>(text) {
        Ok(wire) if !wire.recommendation.trim().is_empty() => Ok((from_wire(wire, panel), Source::Structured)),
        Ok(_) => Err("the synthesis has no recommendation".into()),
        Err(json_error) => from_markdown(text, panel)
            .map(|s| (s, Source::MarkdownSections))
            .ok_or(format!("{json_error}, and no recommendation section was found either")),
    }
}

fn from_wire(wire: Wire, panel: &[String]) -> Synthesis {
    let perspectives = panel
        .iter()
        .map(|name| {
            let found = wire.perspectives.iter().find(|p| p.name.trim().eq_ignore_ascii_case(name));
            PerspectiveSummary {
                name: name.clone(),
                key_arguments: found.map(|p| p.key_arguments.clone()).unwrap_or_default(),
                trade_offs_accepted: found.map(|p| p.trade_offs_accepted.clone()).unwrap_or_default(),
            }
        })
        .collect();
    let dissent = match wire.dissent {
        Some(serde_json::Value::Object(map)) => {
            let field = |k: &str| map.get(k).and_then(|v| v.as_str()).unwrap_or("").trim().to_string();
            let view = field("view");
            (!view.is_empty()).then(|| Dissent { perspective: field("perspective"), view })
        }
        Some(serde_json::Value::String(view)) if !view.trim().is_empty() => {
            Some(Dissent { perspective: String::new(), view: view.trim().to_string() })
        }
        _ => None,
    };
    Synthesis {
        perspectives,
        agreement: wire.agreement,
        tensions: wire.tensions,
        recommendation: wire.recommendation.trim().to_string(),
        confidence: Confidence::read(&wire.confidence).unwrap_or(Confidence::Medium),
        caveats: wire.caveats,
        dissent,
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
        .and_then(|c| Confidence::read(c))
        .or_else(|| {
            text.to_lowercase()
                .split("confidence")
                .nth(1)
                .and_then(|rest| Confidence::read(rest.trim_start_matches([':', '*', ' '])))
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
                key_arguments: vec![super::evaluation::first_sentence(text)],
                trade_offs_accepted: Vec::new(),
            })
            .collect(),
        agreement: Vec::new(),
        tensions: Vec::new(),
        recommendation: format!("No synthesis could be read from the moderator. Its last summary: {last_summary}"),
        confidence: Confidence::Low,
        caveats: Vec::new(),
        dissent: None,
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
        let (s, source) = parse(text, &panel()).unwrap();
        assert_eq!(source, Source::Structured);
        assert_eq!(s.perspectives[0].name, "Performance Advocate");
        assert_eq!(s.perspectives[1].key_arguments, ["one database"]);
        assert_eq!(s.confidence, Confidence::Medium);
        assert_eq!(s.dissent.unwrap().perspective, "Performance Advocate");
    }

    #[test]
    fn falls_back_to_markdown_sections() {
        let text = "# Synthesis\n\n## Points of Agreement\n- Measure first\n\n## Key Tensions\n- Latency vs ops\n\n## Recommendation\nStart with Postgres.\n\n**Confidence:** High\n\n## Caveats\n- If p99 grows\n";
        let (s, source) = parse(text, &panel()).unwrap();
        assert_eq!(source, Source::MarkdownSections);
        assert_eq!(s.agreement, ["Measure first"]);
        assert_eq!(s.tensions, ["Latency vs ops"]);
        assert!(s.recommendation.starts_with("Start with Postgres."));
        assert_eq!(s.confidence, Confidence::High);
        assert_eq!(s.caveats, ["If p99 grows"]);
    }

    #[test]
    fn unusable_answers_are_errors() {
        assert!(parse("", &panel()).is_err());
        assert!(parse("I cannot help with that.", &panel()).is_err());
        assert!(parse(r#"{"recommendation": ""}"#, &panel()).is_err());
        assert!(
            parse(r#"{"recommendation": "Use Postgres", "perspectives": [{"name": "Performance"#, &panel()).is_err()
        );
    }

    #[test]
    fn confidence_lowers_one_step() {
        assert_eq!(Confidence::High.lowered(), Confidence::Medium);
        assert_eq!(Confidence::Medium.lowered(), Confidence::Low);
        assert_eq!(Confidence::Low.lowered(), Confidence::Low);
    }
}
