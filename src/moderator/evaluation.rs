//! The moderator's round evaluation (SPEC §2.2 step 4, §2.3): one call gives the
//! assessment and the summary that opens the next round.

use serde::{Deserialize, Serialize};

use super::json::{extract, one_or_many};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Assessment {
    Converging,
    Stagnating,
    NewGround,
    Diverging,
}

impl Assessment {
    pub fn describe(self) -> &'static str {
        match self {
            Assessment::Converging => "converging",
            Assessment::Stagnating => "stagnating",
            Assessment::NewGround => "new points emerging",
            Assessment::Diverging => "diverging",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    pub summary: String,
    pub assessment: Assessment,
    /// The debaters' recommendations align.
    pub agreement: bool,
    /// A perspective the others conceded to.
    pub clear_winner: Option<String>,
    pub off_topic: Vec<String>,
    pub new_points: Vec<String>,
    /// The moderator's answer could not be read; this was derived locally.
    #[serde(default)]
    pub fallback: bool,
}

/// What a model may send: every field optional and lenient.
#[derive(Deserialize)]
struct Wire {
    #[serde(default)]
    summary: String,
    #[serde(default)]
    assessment: Option<String>,
    #[serde(default)]
    agreement: Option<serde_json::Value>,
    #[serde(default)]
    clear_winner: Option<serde_json::Value>,
    #[serde(default, deserialize_with = "one_or_many")]
    off_topic: Vec<String>,
    #[serde(default, deserialize_with = "one_or_many")]
    new_points: Vec<String>,
}

/// The JSON shape asked of the model.
pub const SCHEMA_HINT: &str = r#"{"summary": "<the round in 2-4 sentences, naming each perspective's position; it opens the next round>", "assessment": "converging" | "stagnating" | "new_ground" | "diverging", "agreement": true | false, "clear_winner": null | "<perspective name the others conceded to>", "off_topic": ["<perspective names that drifted off the question>"], "new_points": ["<points raised for the first time>"]}"#;

/// The JSON Schema of the answer, for providers that enforce structured output.
pub fn schema() -> serde_json::Value {
    let text = serde_json::json!({"type": "string"});
    serde_json::json!({
        "type": "object",
        "properties": {
            "summary": text,
            "assessment": {"type": "string", "enum": ["converging", "stagnating", "new_ground", "diverging"]},
            "agreement": {"type": "boolean"},
            "clear_winner": {"type": ["string", "null"]},
            "off_topic": {"type": "array", "items": text},
            "new_points": {"type": "array", "items": text},
        },
        "required": ["summary", "assessment", "agreement", "clear_winner", "off_topic", "new_points"],
        "additionalProperties": false,
    })
}

/// Read the moderator's answer. Names outside the panel are dropped.
pub fn parse(text: &str, panel: &[String]) -> Result<Evaluation, String> {
    let wire: Wire = extract(text)?;
    let summary = wire.summary.trim().to_string();
    if summary.is_empty() {
        return Err("the evaluation has no summary".into());
    }
    let on_panel = |name: &str| panel.iter().find(|p| p.eq_ignore_ascii_case(name.trim())).cloned();
    let assessment = match wire.assessment.as_deref().map(|a| a.trim().to_lowercase().replace([' ', '-'], "_")) {
        Some(a) if a.starts_with("converg") => Assessment::Converging,
        Some(a) if a.starts_with("stagnat") || a == "circular" => Assessment::Stagnating,
        Some(a) if a.starts_with("diverg") => Assessment::Diverging,
        _ => Assessment::NewGround,
    };
    let agreement = match wire.agreement {
        Some(serde_json::Value::Bool(b)) => b,
        Some(serde_json::Value::String(s)) => matches!(s.trim().to_lowercase().as_str(), "true" | "yes"),
        _ => false,
    };
    let clear_winner = match wire.clear_winner {
        Some(serde_json::Value::String(name)) => on_panel(&name),
        _ => None,
    };
    Ok(Evaluation {
        summary,
        assessment,
        agreement,
        clear_winner,
        off_topic: wire.off_topic.iter().filter_map(|n| on_panel(n)).collect(),
        new_points: wire.new_points,
        fallback: false,
    })
}

/// A local evaluation for when the moderator's answer is unusable: a summary from the
/// first sentence of each argument, and an assessment from the measures alone.
pub fn heuristic(arguments: &[(String, String)], novelty: f64, stagnating: bool) -> Evaluation {
    let summary =
        arguments.iter().map(|(name, text)| format!("{name}: {}", first_sentence(text))).collect::<Vec<_>>().join(" ");
    let assessment = if stagnating {
        Assessment::Stagnating
    } else if novelty > 0.5 {
        Assessment::NewGround
    } else {
        Assessment::Diverging
    };
    Evaluation {
        summary: if summary.is_empty() { "No arguments were made this round.".into() } else { summary },
        assessment,
        agreement: false,
        clear_winner: None,
        off_topic: Vec::new(),
        new_points: Vec::new(),
        fallback: true,
    }
}

/// The first sentence of a text, at most 240 characters.
pub fn first_sentence(text: &str) -> String {
    let text = text.trim();
    let end = text.find(['.', '!', '?', '\n']).map_or(text.len(), |i| i + 1);
    let sentence: String = text[..end].chars().take(240).collect();
    sentence.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn panel() -> Vec<String> {
        vec!["Performance Advocate".into(), "Operational Simplicity".into()]
    }

    #[test]
    fn reads_a_well_formed_evaluation() {
        let e = parse(
            r#"{"summary": "Both want Postgres first.", "assessment": "converging", "agreement": true, "clear_winner": null, "off_topic": [], "new_points": ["pgbouncer"]}"#,
            &panel(),
        )
        .unwrap();
        assert!(e.agreement);
        assert_eq!(e.assessment, Assessment::Converging);
        assert_eq!(e.new_points, ["pgbouncer"]);
    }

    #[test]
    fn lenient_fields_and_unknown_names() {
        let e = parse(
            "Here you go: {\"summary\": \"x\", \"assessment\": \"New ground\", \"agreement\": \"yes\", \"clear_winner\": \"performance advocate\", \"off_topic\": \"Wizard\",}",
            &panel(),
        )
        .unwrap();
        assert!(e.agreement);
        assert_eq!(e.assessment, Assessment::NewGround);
        assert_eq!(e.clear_winner.as_deref(), Some("Performance Advocate"));
        assert!(e.off_topic.is_empty());
    }

    #[test]
    fn an_empty_summary_is_unusable() {
        assert!(parse(r#"{"summary": "  "}"#, &panel()).is_err());
        assert!(parse("", &panel()).is_err());
    }

    #[test]
    fn heuristic_summarises_first_sentences() {
        let e = heuristic(&[("A".into(), "Use Redis. It is fast.".into())], 0.9, false);
        assert_eq!(e.summary, "A: Use Redis.");
        assert!(e.fallback);
    }
}
