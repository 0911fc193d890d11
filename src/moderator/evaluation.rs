//! The moderator's round evaluation: one call gives the assessment and the summary
//! that opens the next round.

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use strum::VariantNames;

use super::answers::{self, Answer, Unreadable};
use super::naming;
use crate::model::lenient::{flag, one_or_many, text, text_or_none};
use crate::model::{Assessment, DebaterAssessment, Evaluation};
use crate::text::first_sentence;

/// The evaluation as a model writes it: each debater first, then the verdicts, so the
/// verdicts follow from the reasoning rather than the other way round.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct RoundVerdict {
    /// every debater, before any verdict
    #[serde(default)]
    pub debaters: Vec<DebaterVerdict>,
    /// the round in 2-4 sentences, naming each perspective's position
    #[serde(default, deserialize_with = "text")]
    pub summary: String,
    #[serde(default, deserialize_with = "assessment")]
    #[schemars(schema_with = "assessment_schema")]
    pub assessment: Option<Assessment>,
    /// conflicts the round left unresolved, each one line: the next round's agenda
    #[serde(default, deserialize_with = "one_or_many")]
    pub open_tensions: Vec<String>,
    /// points raised for the first time
    #[serde(default, deserialize_with = "one_or_many")]
    pub new_points: Vec<String>,
    /// whether every debater now recommends the same option
    #[serde(default, deserialize_with = "flag")]
    pub agreement: bool,
    /// the perspective the others conceded to, if one clearly won
    #[serde(default, deserialize_with = "text_or_none")]
    #[schemars(extend("x-panel" = true))]
    pub clear_winner: Option<String>,
    /// perspectives that drifted off the question
    #[serde(default, deserialize_with = "one_or_many")]
    #[schemars(extend("x-panel" = true))]
    pub off_topic: Vec<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct DebaterVerdict {
    #[serde(default, alias = "perspective", deserialize_with = "text")]
    #[schemars(extend("x-panel" = true))]
    pub name: String,
    /// the option it now recommends
    #[serde(default, deserialize_with = "text")]
    #[schemars(extend("x-options" = true))]
    pub stance: String,
    /// whether and how it answered the strongest opposing point
    #[serde(default, deserialize_with = "text")]
    pub engagement: String,
    /// its strongest point this round
    #[serde(default, deserialize_with = "text")]
    pub strongest: String,
    /// its weakest point this round
    #[serde(default, deserialize_with = "text")]
    pub weakest: String,
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

/// Read the moderator's answer. Names outside the panel are dropped, and a stance
/// outside the options is unknown.
pub fn parse(text: &str, panel: &[String], options: &[String]) -> Result<Evaluation, Unreadable> {
    let verdict: RoundVerdict = answers::read(text)?;
    if verdict.summary.is_empty() {
        return Err(Unreadable::Missing("summary"));
    }
    let on_panel = |name: &str| naming::matching(name, panel);
    let mut debaters: Vec<DebaterAssessment> = Vec::new();
    for d in verdict.debaters {
        let Some(perspective) = on_panel(&d.name) else { continue };
        if debaters.iter().all(|seen| seen.perspective != perspective) {
            debaters.push(DebaterAssessment {
                perspective,
                stance: naming::matching(&d.stance, options),
                engagement: d.engagement,
                strongest: d.strongest,
                weakest: d.weakest,
            });
        }
    }
    let off_topic: Vec<String> = verdict.off_topic.iter().filter_map(|n| on_panel(n)).collect();
    // A winner the same answer finds off the question won nothing.
    let clear_winner = verdict.clear_winner.as_deref().and_then(on_panel).filter(|w| !off_topic.contains(w));
    Ok(Evaluation {
        debaters,
        summary: verdict.summary,
        assessment: verdict.assessment.unwrap_or(Assessment::NewGround),
        agreement: verdict.agreement,
        clear_winner,
        off_topic,
        new_points: verdict.new_points,
        open_tensions: verdict.open_tensions,
        fallback: false,
        folded: false,
    })
}

/// What a debater said in a round, for the local evaluation.
pub struct Said<'a> {
    pub perspective: &'a str,
    pub text: &'a str,
    pub stance: Option<&'a str>,
}

/// A local evaluation for when the moderator's answer is unusable (and what the
/// offline provider answers): per debater its stance and first sentence, a summary
/// from the first sentence of each argument, and an assessment from the measures alone.
pub fn heuristic(arguments: &[Said], novelty: f64, stagnating: bool) -> Evaluation {
    let summary = arguments
        .iter()
        .map(|said| format!("{}: {}", said.perspective, first_sentence(said.text)))
        .collect::<Vec<_>>()
        .join(" ");
    let assessment = if stagnating {
        Assessment::Stagnating
    } else if novelty > 0.5 {
        Assessment::NewGround
    } else {
        Assessment::Diverging
    };
    Evaluation {
        debaters: arguments
            .iter()
            .map(|said| DebaterAssessment {
                perspective: said.perspective.to_string(),
                stance: said.stance.map(str::to_string),
                engagement: String::new(),
                strongest: first_sentence(said.text),
                weakest: String::new(),
            })
            .collect(),
        summary: if summary.is_empty() { "No arguments were made this round.".into() } else { summary },
        assessment,
        agreement: false,
        clear_winner: None,
        off_topic: Vec::new(),
        new_points: Vec::new(),
        open_tensions: Vec::new(),
        fallback: true,
        folded: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn panel() -> Vec<String> {
        vec!["Performance Advocate".into(), "Operational Simplicity".into()]
    }

    fn options() -> Vec<String> {
        vec!["Redis".into(), "Postgres".into()]
    }

    #[test]
    fn each_debater_is_judged_and_only_panel_names_and_options_count() {
        let e = parse(
            r#"{"debaters": [
                {"name": "Performance Advocate", "stance": "redis", "engagement": "answered the cost point", "strongest": "p99", "weakest": "ops"},
                {"name": "Perfomance Advocat", "stance": "Redis"},
                {"name": "Operational Simplicity", "stance": "MongoDB"},
                {"name": "operational simplicity", "stance": "Postgres"}],
              "summary": "s", "clear_winner": "The Wizard", "off_topic": ["Operational Simplicity", "Nobody"]}"#,
            &panel(),
            &options(),
        )
        .unwrap();
        let judged: Vec<(&str, Option<&str>)> =
            e.debaters.iter().map(|d| (d.perspective.as_str(), d.stance.as_deref())).collect();
        assert_eq!(judged, [("Performance Advocate", Some("Redis")), ("Operational Simplicity", None)]);
        assert_eq!(e.debaters[0].engagement, "answered the cost point");
        assert_eq!((e.clear_winner, e.off_topic), (None, vec!["Operational Simplicity".to_string()]));
    }

    #[test]
    fn the_schema_puts_the_debaters_first_and_names_the_panel_and_options() {
        let (panel, options) = (panel(), options());
        let schema = answers::schema::<RoundVerdict>(&answers::Names { panel: &panel, options: &options });
        let fields: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
        assert_eq!(fields[0], "debaters", "reasoning before verdicts: {fields:?}");
        assert_eq!(schema["properties"]["debaters"]["items"]["properties"]["name"]["enum"], serde_json::json!(panel));
        assert_eq!(
            schema["properties"]["debaters"]["items"]["properties"]["stance"]["enum"],
            serde_json::json!(options)
        );
        assert_eq!(
            schema["properties"]["clear_winner"]["enum"],
            serde_json::json!([null, "Performance Advocate", "Operational Simplicity"])
        );
        assert_eq!(schema["properties"]["off_topic"]["items"]["enum"], serde_json::json!(panel));
    }

    #[test]
    fn reads_a_well_formed_evaluation() {
        let e = parse(
            r#"{"summary": "Both want Postgres first.", "assessment": "converging", "agreement": true, "clear_winner": null, "off_topic": [], "new_points": ["pgbouncer"]}"#,
            &panel(),
            &options(),
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
            &options(),
        )
        .unwrap();
        assert!(e.agreement);
        assert_eq!(e.assessment, Assessment::NewGround);
        assert_eq!(e.clear_winner.as_deref(), Some("Performance Advocate"));
        assert!(e.off_topic.is_empty());
    }

    #[test]
    fn an_empty_summary_is_unusable() {
        assert!(matches!(parse(r#"{"summary": "  "}"#, &panel(), &options()), Err(Unreadable::Missing("summary"))));
        assert!(parse("", &panel(), &options()).is_err());
    }

    #[test]
    fn the_heuristic_reads_back_as_itself() {
        let said = Said { perspective: "A", text: "Use Redis. It is fast.", stance: Some("Redis") };
        let local = heuristic(&[said], 0.9, false);
        assert_eq!(local.summary, "A: Use Redis.");
        assert!(local.fallback);
        let read = parse(&serde_json::to_string(&local).unwrap(), &["A".into()], &options()).unwrap();
        assert_eq!(read, Evaluation { fallback: false, ..local });
    }

    #[test]
    fn a_winner_the_answer_finds_off_the_question_won_nothing() {
        let e = parse(
            r#"{"summary": "s", "clear_winner": "Performance Advocate", "off_topic": ["Performance Advocate"]}"#,
            &panel(),
            &options(),
        )
        .unwrap();
        assert_eq!((e.clear_winner, e.off_topic), (None, vec!["Performance Advocate".to_string()]));
    }

    #[test]
    fn a_summary_that_spells_out_its_own_instruction_is_empty() {
        for echoed in [
            "The round in 2-4 sentences, naming each perspective's position",
            "<the round in 2-4 sentences, naming each perspective's position>",
            "the round in 2–4 sentences; naming each perspective’s position.",
        ] {
            let answer =
                serde_json::json!({"summary": echoed, "new_points": ["points raised for the first time", "pgbouncer"]});
            assert!(
                matches!(parse(&answer.to_string(), &panel(), &options()), Err(Unreadable::Missing("summary"))),
                "{echoed}"
            );
        }
        let answer = r#"{"summary": "The round in 2-4 sentences was long; each perspective's position held.", "new_points": ["points raised for the first time", "pgbouncer"]}"#;
        let e = parse(answer, &panel(), &options()).unwrap();
        assert_eq!(e.new_points, ["pgbouncer"], "a real summary stays, an echoed point goes");
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
