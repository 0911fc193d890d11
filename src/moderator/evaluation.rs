//! The moderator's round evaluation (SPEC §2.2 step 4, §2.3): one call gives the
//! assessment and the summary that opens the next round.

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use strum::VariantNames;

use super::answers::{self, Answer, Unreadable};
use crate::model::{Assessment, Evaluation};
use crate::text::first_sentence;
use crate::text::json::{flag, one_or_many, text, text_or_none};

/// The evaluation as a model writes it.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct RoundVerdict {
    /// the round in 2-4 sentences, naming each perspective's position; it opens the next round
    #[serde(default, deserialize_with = "text")]
    pub summary: String,
    #[serde(default, deserialize_with = "assessment")]
    #[schemars(schema_with = "assessment_schema")]
    pub assessment: Option<Assessment>,
    /// whether the debaters' recommendations agree
    #[serde(default, deserialize_with = "flag")]
    pub agreement: bool,
    /// perspective name the others conceded to
    #[serde(default, deserialize_with = "text_or_none")]
    pub clear_winner: Option<String>,
    /// perspective names that drifted off the question
    #[serde(default, deserialize_with = "one_or_many")]
    pub off_topic: Vec<String>,
    /// points raised for the first time
    #[serde(default, deserialize_with = "one_or_many")]
    pub new_points: Vec<String>,
}

impl Answer for RoundVerdict {
    const NAME: &'static str = "evaluate_round";
}

fn assessment_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "string", "enum": Assessment::VARIANTS})
}

/// An assessment as a model may spell it: "New ground", "converging.", "circular".
fn assessment<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Assessment>, D::Error> {
    let written = text(deserializer)?.to_lowercase().replace([' ', '-'], "_");
    Ok(Some(match written.as_str() {
        a if a.starts_with("converg") => Assessment::Converging,
        a if a.starts_with("stagnat") || a == "circular" => Assessment::Stagnating,
        a if a.starts_with("diverg") => Assessment::Diverging,
        a if a.starts_with("new") => Assessment::NewGround,
        _ => return Ok(None),
    }))
}

/// Read the moderator's answer. Names outside the panel are dropped.
pub fn parse(text: &str, panel: &[String]) -> Result<Evaluation, Unreadable> {
    let verdict: RoundVerdict = answers::read(text)?;
    if verdict.summary.is_empty() {
        return Err(Unreadable::Missing("summary"));
    }
    let on_panel = |name: &str| panel.iter().find(|p| p.eq_ignore_ascii_case(name.trim())).cloned();
    Ok(Evaluation {
        summary: verdict.summary,
        assessment: verdict.assessment.unwrap_or(Assessment::NewGround),
        agreement: verdict.agreement,
        clear_winner: verdict.clear_winner.as_deref().and_then(on_panel),
        off_topic: verdict.off_topic.iter().filter_map(|n| on_panel(n)).collect(),
        new_points: verdict.new_points,
        fallback: false,
    })
}

/// A local evaluation for when the moderator's answer is unusable (and what the
/// offline provider answers): a summary from the first sentence of each argument, and
/// an assessment from the measures alone.
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
        assert!(matches!(parse(r#"{"summary": "  "}"#, &panel()), Err(Unreadable::Missing("summary"))));
        assert!(parse("", &panel()).is_err());
    }

    #[test]
    fn the_heuristic_reads_back_as_itself() {
        let local = heuristic(&[("A".into(), "Use Redis. It is fast.".into())], 0.9, false);
        assert_eq!(local.summary, "A: Use Redis.");
        assert!(local.fallback);
        let read = parse(&serde_json::to_string(&local).unwrap(), &["A".into()]).unwrap();
        assert_eq!(read, Evaluation { fallback: false, ..local });
    }

    #[test]
    fn the_schema_lists_every_assessment() {
        let schema = answers::schema::<RoundVerdict>(&answers::Names::default());
        assert_eq!(
            schema["properties"]["assessment"]["enum"],
            serde_json::json!(["converging", "stagnating", "new_ground", "diverging"])
        );
        assert!(answers::shape::<RoundVerdict>(&answers::Names::default()).contains(r#""agreement": true | false"#));
    }
}
