//! The synthesis (docs/guide.md, "What a debate does") as structured data, read tolerantly from a model's answer:
//! JSON first, then the sections of a markdown answer (pulldown-cmark). Whatever the
//! model writes, every name in the result is a panel perspective and every option one
//! of the considered options.

use pulldown_cmark::{Event, HeadingLevel, Parser, Tag, TagEnd};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::answers::{self, Answer, Unreadable};
use super::naming::matching;
use crate::model::lenient::{read_confidence, text};
use crate::model::{
    Confidence, Dissent, OptionAssessment, PerspectiveSummary, Section, Shape, Source, Synthesis, TITLE_LIMIT, sections,
};
use crate::text::untrusted::one_line;
use crate::text::{first_sentence, shorten};

/// The synthesis as a model writes it: the decision itself, and (when the request asks
/// for it) the last round's summary, which the debate keeps with that round.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SynthesisAnswer {
    /// only when the request asks for it: the last round in 2-4 sentences, naming each perspective's position
    #[serde(default, deserialize_with = "text")]
    pub last_round_summary: String,
    #[serde(flatten)]
    pub synthesis: Synthesis,
}

impl Answer for SynthesisAnswer {
    const NAME: &'static str = "write_synthesis";

    /// The declared sections with no field of their own, asked for by their heading.
    fn more_properties() -> Vec<(&'static str, Value)> {
        let words = |s: &Section| s.asked.map_or_else(|| s.heading.to_lowercase(), str::to_string);
        sections()
            .filter_map(|s| match s.shape {
                Shape::Text | Shape::Date => Some((s.key, json!({"type": "string", "description": words(s)}))),
                Shape::Points | Shape::Tasks | Shape::Guards => {
                    Some((s.key, json!({"type": "array", "items": {"type": "string"}, "description": words(s)})))
                }
                _ => None,
            })
            .collect()
    }
}

/// What the result must name: the panel, the considered options, and the earlier
/// decisions the debaters read (a contradiction counts only when it names one).
#[derive(Debug, Clone, Copy)]
pub struct Known<'a> {
    pub panel: &'a [String],
    pub options: &'a [String],
    pub decisions: &'a [String],
}

/// Read a synthesis: JSON, else markdown sections. The panel fixes the perspective
/// order; a perspective the model left out or misspelt beyond recognition is kept with
/// empty lists (`fill_arguments` fills them from the debate).
pub fn parse(text: &str, known: &Known) -> Result<(Synthesis, Source), Unreadable> {
    let (mut synthesis, source) = match answers::read::<SynthesisAnswer>(text) {
        Ok(answer) if !answer.synthesis.recommendation.is_empty() => {
            (named(answer.synthesis, known), Source::Structured)
        }
        Ok(_) => return Err(Unreadable::Missing("recommendation")),
        Err(json_error) => (from_markdown(text, known).ok_or(json_error)?, Source::MarkdownSections),
    };
    synthesis.contradicts = decisions_named(&synthesis.contradicts, known.decisions);
    Ok((synthesis, source))
}

/// The summary of the last round a synthesis that judged it gives, if it gave one.
pub fn last_round_summary(text: &str) -> Option<String> {
    let answer = answers::read::<SynthesisAnswer>(text).ok()?;
    Some(answer.last_round_summary).filter(|summary| !summary.trim().is_empty())
}

/// The decisions `named` refers to, by path or file name, each once, in `decisions`' order.
fn decisions_named(named: &[String], decisions: &[String]) -> Vec<String> {
    let refers = |name: &str, path: &str| {
        let name = name.trim().trim_matches(['`', '"', '\'', '[', ']', '(', ')']).trim_start_matches("./");
        !name.is_empty() && (path == name || path.rsplit('/').next() == Some(name))
    };
    decisions.iter().filter(|path| named.iter().any(|name| refers(name, path))).cloned().collect()
}

/// `answer` with every name one of the panel's and every option a considered one: a
/// perspective per panel seat in panel order, each considered option once with all that
/// was argued about it, a dissent per perspective, and only the declared sections.
fn named(answer: Synthesis, known: &Known) -> Synthesis {
    let named_as = |name: &str, names: &[String]| matching(name, names);
    let perspectives = known
        .panel
        .iter()
        .map(|name| {
            let about = |p: &&PerspectiveSummary| named_as(&p.name, known.panel).as_ref() == Some(name);
            let found = (answer.perspectives.iter().filter(about).find(|p| !p.key_arguments.is_empty()))
                .or_else(|| answer.perspectives.iter().find(about));
            PerspectiveSummary { name: name.clone(), ..found.cloned().unwrap_or_default() }
        })
        .collect();
    let options = known
        .options
        .iter()
        .map(|option| {
            let argued: Vec<&OptionAssessment> =
                answer.options.iter().filter(|o| named_as(&o.option, known.options).as_ref() == Some(option)).collect();
            OptionAssessment {
                option: option.clone(),
                pros: argued.iter().flat_map(|o| o.pros.clone()).collect(),
                cons: argued.iter().flat_map(|o| o.cons.clone()).collect(),
            }
        })
        .collect();
    let mut dissents: Vec<Dissent> = Vec::new();
    for d in &answer.dissents {
        let Some(perspective) = named_as(&d.perspective, known.panel) else { continue };
        if dissents.iter().all(|seen| seen.perspective != perspective) {
            let option = d.option.as_deref().and_then(|o| named_as(o, known.options));
            dissents.push(Dissent { perspective, option, view: d.view.clone() });
        }
    }
    let mut synthesis = Synthesis {
        title: shorten(&one_line(&answer.title), TITLE_LIMIT),
        perspectives,
        options,
        chosen_option: answer.chosen_option.as_deref().and_then(|o| named_as(o, known.options)),
        dissents,
        ..answer
    };
    synthesis.keep_declared();
    synthesis
}

/// Sections of a markdown answer by heading; list items (or paragraphs) are the entries.
fn from_markdown(text: &str, known: &Known) -> Option<Synthesis> {
    let mut headed: Vec<(String, Vec<String>)> = Vec::new();
    let mut heading: Option<String> = None;
    let mut block = String::new();
    for event in Parser::new(text) {
        match event {
            Event::Start(Tag::Heading { level, .. }) if level <= HeadingLevel::H4 => heading = Some(String::new()),
            Event::End(TagEnd::Heading(_)) => {
                headed.push((heading.take().unwrap_or_default().trim().to_lowercase(), Vec::new()));
            }
            Event::End(TagEnd::Item) | Event::End(TagEnd::Paragraph) => {
                let entry = std::mem::take(&mut block).trim().to_string();
                if !entry.is_empty()
                    && let Some((_, entries)) = headed.last_mut()
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
        headed.iter().filter(|(h, _)| words.iter().any(|w| h.contains(w))).flat_map(|(_, e)| e.clone()).collect()
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
    let perspectives = known
        .panel
        .iter()
        .map(|name| PerspectiveSummary {
            name: name.clone(),
            key_arguments: section(&[&name.to_lowercase()]),
            trade_offs_accepted: Vec::new(),
        })
        .collect();
    let chosen_option = section(&["chosen"]).first().and_then(|c| matching(c, known.options));
    let rationale = match chosen_option {
        Some(_) => "the moderator's synthesis names it (read from its free text, not its structured answer)".into(),
        None => String::new(),
    };
    // The sections a heading names, in their shapes; what cannot be read stays empty.
    let mut found = serde_json::Map::new();
    for s in sections() {
        let value = match s.shape {
            Shape::Points | Shape::Tasks | Shape::Guards => json!(section(s.words)),
            Shape::Text | Shape::Date => json!(section(s.words).join(" ")),
            Shape::GoodBad => json!({"good": section(&["good", "positive"]), "bad": section(&["bad", "negative"])}),
            Shape::Options | Shape::Perspectives | Shape::Dissents => continue,
        };
        found.insert(s.key.to_string(), value);
    }
    let mut synthesis: Synthesis = serde_json::from_value(Value::Object(found)).unwrap_or_default();
    synthesis.keep_declared();
    Some(Synthesis {
        perspectives,
        options: known
            .options
            .iter()
            .map(|option| OptionAssessment { option: option.clone(), ..Default::default() })
            .collect(),
        chosen_option,
        rationale,
        recommendation,
        confidence,
        dissents: section(&["dissent"])
            .first()
            .and_then(|view| {
                let perspective = matching(view, known.panel)?;
                Some(Dissent { perspective, option: None, view: view.clone() })
            })
            .into_iter()
            .collect(),
        contradicts: section(&["contradict"]),
        ..synthesis
    })
}

/// What a debater argued last, for syntheses that must not leave a perspective empty.
pub struct Latest<'a> {
    pub perspective: &'a str,
    pub text: &'a str,
    pub option: Option<&'a str>,
}

/// A synthesis assembled from the debate when the moderator's answer is unusable:
/// each perspective's latest argument, the latest summary as the recommendation, and
/// the option most debaters ended on, if one has more than the others.
pub fn from_transcript(latest: &[Latest], last_summary: &str, options: &[String]) -> Synthesis {
    let votes = |option: &String| latest.iter().filter(|l| l.option == Some(option.as_str())).count();
    let best = options.iter().map(votes).max().unwrap_or(0);
    let leaders: Vec<&String> = options.iter().filter(|o| best > 0 && votes(o) == best).collect();
    let chosen_option = match leaders.as_slice() {
        [one] => Some((*one).clone()),
        _ => None,
    };
    // The reason given for it is the only one there is: the stances.
    let rationale = chosen_option.as_ref().map_or(String::new(), |chosen| {
        let (named, of) = (votes(chosen), latest.len());
        let who = match (named == of, of) {
            (true, 2) => "both debaters' last stances named it".to_string(),
            (true, _) => "every debater's last stance named it".to_string(),
            (false, _) => format!("{named} of {of} debaters' last stances named it, more than any other option"),
        };
        format!("{who}; no synthesis could be read from the moderator")
    });
    // No model names the decision: the question's own title stands.
    let mut synthesis = Synthesis {
        options: options
            .iter()
            .map(|option| OptionAssessment { option: option.clone(), ..Default::default() })
            .collect(),
        chosen_option,
        rationale,
        recommendation: format!("No synthesis could be read from the moderator. Its last summary: {last_summary}"),
        confidence: Confidence::Low,
        ..Synthesis::default()
    };
    synthesis.perspectives = latest
        .iter()
        .map(|l| PerspectiveSummary {
            name: l.perspective.to_string(),
            key_arguments: Vec::new(),
            trade_offs_accepted: Vec::new(),
        })
        .collect();
    fill_arguments(&mut synthesis, latest);
    synthesis
}

/// A perspective the synthesis gives no argument is given the first sentence of its
/// latest argument, marked as such: no perspective is ever left empty.
pub fn fill_arguments(synthesis: &mut Synthesis, latest: &[Latest]) {
    for summary in synthesis.perspectives.iter_mut().filter(|p| p.key_arguments.is_empty()) {
        if let Some(said) = latest.iter().find(|l| l.perspective == summary.name) {
            summary.key_arguments = vec![format!("{} (its last argument)", first_sentence(said.text))];
        }
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

    fn read(text: &str) -> Result<(Synthesis, Source), Unreadable> {
        parse(text, &Known { panel: &panel(), options: &options(), decisions: &[] })
    }

    #[test]
    fn reads_structured_json_in_panel_order() {
        let text = r#"```json
{"perspectives": [{"name": "operational simplicity", "key_arguments": "one database"}, {"name": "Performance Advocate", "key_arguments": ["sub-ms reads"], "trade_offs_accepted": ["another service"]}],
 "agreement": ["measure first"], "tensions": [], "recommendation": "Start with Postgres.", "confidence": "medium", "caveats": ["p99 over 50ms"], "dissent": {"perspective": "Performance Advocate", "view": "Redis later costs more"},}
```"#;
        let (s, source) = read(text).unwrap();
        assert_eq!(source, Source::Structured);
        assert_eq!(s.perspectives[0].name, "Performance Advocate");
        assert_eq!(s.perspectives[1].key_arguments, ["one database"]);
        assert_eq!(s.confidence, Confidence::Medium);
        assert_eq!(s.dissents[0].perspective, "Performance Advocate", "one dissent, as older answers give it");
        assert_eq!(s.dissents[0].view, "Redis later costs more");
    }

    #[test]
    fn a_decision_shaped_synthesis_names_only_the_panel_and_the_options() {
        let text = r#"{"perspectives": [{"name": "Perfomance Advocat", "key_arguments": ["p99 under 1 ms"]}, {"name": "The Wizard", "key_arguments": ["magic"]}],
            "options": [{"option": "redis", "pros": ["fast (Performance Advocate)"], "cons": ["one more service (Operational Simplicity)"]}, {"option": "MongoDB", "pros": ["web scale"]}],
            "chosen_option": "Postgres (for now)", "rationale": "Operational Simplicity showed the load fits.",
            "recommendation": "Cache in Postgres.", "confidence": "High",
            "consequences": {"good": ["one database"], "bad": "slower cache hits"},
            "confirmation": "p99 of /product stays under 50 ms for 30 days", "action_items": ["add an UNLOGGED cache table"],
            "dissents": [{"perspective": "performance advocate", "option": "Redis", "reason": "latency"}, {"perspective": "A stray sentence about things", "reason": "x"}, {"perspective": "Performance Advocate", "reason": "again"}]}"#;
        let (s, _) = read(text).unwrap();
        assert_eq!(s.perspectives[0].key_arguments, ["p99 under 1 ms"], "a misspelt name still finds its perspective");
        assert!(s.perspectives[1].key_arguments.is_empty(), "an unknown name gives nothing");
        let options: Vec<(&str, usize, usize)> =
            s.options.iter().map(|o| (o.option.as_str(), o.pros.len(), o.cons.len())).collect();
        assert_eq!(options, [("Redis", 1, 1), ("Postgres", 0, 0)], "every option, and only the options");
        assert_eq!(s.chosen_option.as_deref(), Some("Postgres"));
        assert_eq!((s.consequences.good.len(), s.consequences.bad.len()), (1, 1));
        assert_eq!(s.confirmation, "p99 of /product stays under 50 ms for 30 days");
        let dissents: Vec<(&str, Option<&str>)> =
            s.dissents.iter().map(|d| (d.perspective.as_str(), d.option.as_deref())).collect();
        assert_eq!(dissents, [("Performance Advocate", Some("Redis"))], "on the panel, once each");
    }

    #[test]
    fn a_chosen_option_outside_the_options_is_no_choice() {
        let (s, _) = read(r#"{"recommendation": "Use MongoDB.", "chosen_option": "MongoDB"}"#).unwrap();
        assert_eq!(s.chosen_option, None);
    }

    #[test]
    fn falls_back_to_markdown_sections() {
        let text = "# Synthesis\n\n## Points of Agreement\n- Measure first\n\n## Key Tensions\n- Latency vs ops\n\n## Recommendation\nStart with Postgres.\n\n**Confidence:** High\n\n## Chosen option\nPostgres\n\n## Caveats\n- If p99 grows\n";
        let (s, source) = read(text).unwrap();
        assert_eq!(source, Source::MarkdownSections);
        assert_eq!(s.agreement, ["Measure first"]);
        assert_eq!(s.tensions, ["Latency vs ops"]);
        assert!(s.recommendation.starts_with("Start with Postgres."));
        assert_eq!(s.confidence, Confidence::High);
        assert_eq!(s.caveats, ["If p99 grows"]);
        assert_eq!(s.chosen_option.as_deref(), Some("Postgres"));
    }

    #[test]
    fn unusable_answers_are_errors() {
        assert!(read("").is_err());
        assert!(read("I cannot help with that.").is_err());
        assert!(read(r#"{"recommendation": ""}"#).is_err());
        assert!(read(r#"{"recommendation": "Use Postgres", "perspectives": [{"name": "Performance"#).is_err());
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
        let known = Known { panel: &panel(), options: &options(), decisions: &decisions };
        let text = r#"{"recommendation": "Use Redis.", "contradicts": ["0001-use-postgres.md", "../../etc/passwd", "`docs/decisions/0001-use-postgres.md`"]}"#;
        let (s, _) = parse(text, &known).unwrap();
        assert_eq!(s.contradicts, ["docs/decisions/0001-use-postgres.md"]);
        let (s, _) =
            parse(r#"{"recommendation": "Use Redis.", "contradicts": "docs/decisions/0002-react.md"}"#, &known)
                .unwrap();
        assert_eq!(s.contradicts, ["docs/decisions/0002-react.md"], "one path as a string");
        let (s, _) = parse(r#"{"recommendation": "Use Redis."}"#, &known).unwrap();
        assert!(s.contradicts.is_empty());
    }

    #[test]
    fn a_serialised_synthesis_reads_back_as_itself() {
        let (s, _) = read(
            r#"{"perspectives": [{"name": "Performance Advocate", "key_arguments": ["a"], "trade_offs_accepted": ["b"]}], "recommendation": "Do it.", "confidence": "Low", "chosen_option": "Redis", "dissents": [{"perspective": "Operational Simplicity", "option": "Postgres", "reason": "no"}]}"#,
        )
        .unwrap();
        let (again, source) = read(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!((again, source), (s, Source::Structured));
    }

    #[test]
    fn no_perspective_is_left_empty_and_the_transcript_chooses_by_majority() {
        let latest = [
            Latest { perspective: "Performance Advocate", text: "Redis serves p99. More.", option: Some("Postgres") },
            Latest { perspective: "Operational Simplicity", text: "One database. More.", option: Some("Postgres") },
        ];
        let s = from_transcript(&latest, "They converged.", &options());
        assert_eq!(s.chosen_option.as_deref(), Some("Postgres"));
        // The reason it gives is the one it had.
        assert_eq!(s.rationale, "both debaters' last stances named it; no synthesis could be read from the moderator");
        let on = |perspective, option| Latest { perspective, text: "A point.", option: Some(option) };
        let three = [on("A", "Redis"), on("B", "Postgres"), on("C", "Postgres")];
        let most = from_transcript(&three, "They split.", &options());
        assert_eq!(
            most.rationale,
            "2 of 3 debaters' last stances named it, more than any other option; no synthesis could be read from the moderator"
        );
        let split = [on("A", "Redis"), on("B", "Postgres")];
        let none = from_transcript(&split, "They split.", &options());
        assert_eq!((none.chosen_option, none.rationale), (None, String::new()));
        assert_eq!(s.perspectives[0].key_arguments, ["Redis serves p99. (its last argument)"]);
        let (mut parsed, _) =
            read(r#"{"recommendation": "x", "perspectives": [{"name": "Nobody", "key_arguments": ["y"]}]}"#).unwrap();
        fill_arguments(&mut parsed, &latest);
        assert!(parsed.perspectives.iter().all(|p| !p.key_arguments.is_empty()));
    }
}
