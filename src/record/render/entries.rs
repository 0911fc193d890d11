//! The parts of the decision template's data: roles, sources, related records, the
//! panel, the decision's sections, the log, the scores and where the perspectives
//! ended. Pure.

use minijinja::Value;
use serde::Serialize;

use crate::model::{CheckKind, Criterion, DebateState, Part, Place, ProviderKind, RoleChoice, Scorecard, Shape};
use crate::text::markdown;

/// A record's scores as its provenance shows them: a row per criterion, a column per
/// evaluator, the disagreements named and the checks that need no model.
#[derive(Serialize)]
pub(super) struct ScoresEntry {
    pub(super) number: u32,
    pub(super) date: String,
    /// The evaluators' models, in order.
    pub(super) evaluators: Vec<String>,
    /// No model judged the record: the marks were composed from the checks.
    pub(super) composed: bool,
    pub(super) rows: Vec<ScoresRow>,
    pub(super) disagreements: Vec<String>,
    /// "3 of 4 passed"
    pub(super) checks_passed: String,
    /// Each failed check: what it checks, then what it found.
    pub(super) findings: Vec<String>,
}

#[derive(Serialize)]
pub(super) struct ScoresRow {
    pub(super) criterion: &'static str,
    /// Per evaluator: "8: its reason", or "—" when its answer could not be read.
    pub(super) marks: Vec<String>,
}

impl ScoresEntry {
    pub(super) fn of(card: &Scorecard) -> ScoresEntry {
        use strum::IntoEnumIterator;
        let rows = Criterion::iter()
            .map(|criterion| ScoresRow {
                criterion: criterion.label(),
                marks: card
                    .evaluators
                    .iter()
                    .map(|e| e.mark(criterion).map_or("—".into(), |m| format!("{}: {}", m.score, m.reason)))
                    .collect(),
            })
            .collect();
        let passed = card.checks.iter().filter(|c| c.passed()).count();
        ScoresEntry {
            number: card.number,
            date: card.created_at.get(..10).unwrap_or(&card.created_at).to_string(),
            evaluators: card.evaluators.iter().map(|e| e.model.clone()).collect(),
            composed: !card.judged_by_a_model(),
            rows,
            disagreements: card
                .disagreements()
                .iter()
                .map(|d| {
                    format!(
                        "{}: {} ({}) and {} ({})",
                        d.criterion.label(),
                        d.lowest,
                        d.lowest_by,
                        d.highest,
                        d.highest_by
                    )
                })
                .collect(),
            checks_passed: format!("{passed} of {} passed", card.checks.len()),
            findings: card.failed_checks().map(|c| format!("{}: {}", failed(c.kind), c.findings.join("; "))).collect(),
        }
    }
}

/// What a failed check found, in a few words.
pub(super) fn failed(kind: CheckKind) -> &'static str {
    match kind {
        CheckKind::Sections => "sections missing",
        CheckKind::Placeholders => "empty or placeholder text",
        CheckKind::Repetition => "repeated text",
        CheckKind::Options => "options of the question left out",
    }
}

/// Where the perspectives still speaking ended: what their last stances show about
/// dissent, for a Dissenting View the moderator left empty.
#[derive(Serialize)]
pub(super) struct Ended<'a> {
    /// The option every one of them ended on, if they all named the same.
    pub(super) together: Option<&'a str>,
    /// Each last stance that named an option other than the chosen one; with no option
    /// chosen, every last stance that named one.
    pub(super) apart: Vec<EndedOn<'a>>,
}

#[derive(Serialize)]
pub(super) struct EndedOn<'a> {
    pub(super) perspective: &'a str,
    pub(super) option: &'a str,
}

impl<'a> Ended<'a> {
    pub(super) fn of(state: &'a DebateState, chosen: Option<&str>) -> Ended<'a> {
        let stances: Vec<(&str, Option<&str>)> = state
            .latest_stances()
            .into_iter()
            .map(|(seat, stance)| (state.name(seat), stance.and_then(|s| s.option.as_deref())))
            .collect();
        let first = stances.first().and_then(|(_, option)| *option);
        let together = first.filter(|option| stances.iter().all(|(_, o)| *o == Some(*option)));
        let apart = stances
            .into_iter()
            .filter_map(|(perspective, option)| Some(EndedOn { perspective, option: option? }))
            .filter(|e| chosen != Some(e.option))
            .collect();
        Ended { together, apart }
    }
}

/// Who played a role: its provider, kind, model and temperature (the perspective for a
/// debater; muted or dropped when it left).
#[derive(Serialize)]
pub(super) struct RoleEntry<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) perspective: Option<&'a str>,
    pub(super) provider: &'a str,
    pub(super) kind: ProviderKind,
    pub(super) model: &'a str,
    /// Two decimals, as a person set it (not `0.2` as an `f32` prints in full).
    pub(super) temperature: f64,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(super) muted: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) dropped: Option<&'a str>,
}

impl<'a> RoleEntry<'a> {
    /// `role` as it ran: its model, else its provider's, else the one that answered.
    pub(super) fn of(state: &'a DebateState, role: &'a RoleChoice, answered: Option<&'a str>) -> RoleEntry<'a> {
        let configured = state.snapshot.model_of(role);
        RoleEntry {
            perspective: None,
            provider: &role.provider,
            kind: role.kind,
            model: configured.or(answered).unwrap_or("(the provider's default)"),
            temperature: (f64::from(role.temperature) * 100.0).round() / 100.0,
            muted: false,
            dropped: None,
        }
    }
}

#[derive(Serialize)]
pub(super) struct SourceEntry<'a> {
    pub(super) name: &'a str,
    pub(super) tokens: u64,
    pub(super) read: u64,
    pub(super) cut: bool,
    pub(super) describe: String,
}

#[derive(Serialize)]
pub(super) struct SidecarLink {
    pub(super) name: String,
    pub(super) link: String,
}

#[derive(Serialize)]
pub(super) struct Tokens {
    pub(super) prompt: u64,
    /// Of `prompt`, what the providers served from their prefix caches.
    pub(super) cached: u64,
    pub(super) completion: u64,
}

/// A link to another record whose text is its file name without `.md`: log4brains takes
/// that text as the record's slug, adr-tools the link's leading number as its own.
#[derive(Serialize)]
pub(super) struct RecordLink {
    pub(super) slug: String,
    pub(super) link: String,
}

#[derive(Serialize)]
pub(super) struct Related<'a> {
    pub(super) path: &'a str,
    pub(super) title: &'a str,
    pub(super) status: &'a str,
    pub(super) date: Option<&'a str>,
    /// Relative to the record, percent-encoded.
    pub(super) link: String,
    /// This record supersedes it.
    pub(super) superseded_here: bool,
    /// The recommendation goes against it.
    pub(super) contradicted: bool,
    /// `--supersedes <path>`, when the path needs no quoting.
    pub(super) supersede_flag: Option<String>,
}

#[derive(Serialize)]
pub(super) struct PanelEntry<'a> {
    pub(super) name: &'a str,
    pub(super) reason: &'a str,
    pub(super) priorities: &'a [String],
    pub(super) key_arguments: &'a [String],
    pub(super) trade_offs_accepted: &'a [String],
    /// The models that argued it, on a heterogeneous panel.
    pub(super) argued_by: Vec<&'a str>,
}

#[derive(Serialize)]
pub(super) struct LogRow {
    pub(super) round: u32,
    pub(super) summary: String,
    /// Where each debater stood at the end of the round.
    pub(super) stances: String,
    pub(super) repetition: String,
    pub(super) verdict: String,
}

/// A declared section of the decision as the record writes it: its place and heading,
/// and its content as markdown, or the record's words for an empty one.
#[derive(Serialize)]
pub(super) struct SectionEntry {
    pub(super) key: &'static str,
    pub(super) heading: &'static str,
    pub(super) place: Place,
    /// Left empty by the moderator.
    pub(super) empty: bool,
    /// Its markdown: each point a line, escaped; the record's words when empty.
    pub(super) body: Value,
}

impl SectionEntry {
    pub(super) fn of(part: &Part) -> SectionEntry {
        let s = &part.section;
        let body = match (part.is_empty(), s.shape) {
            (true, _) => s.empty.to_string(),
            (false, Shape::Text | Shape::Date) => markdown::line(part.value.as_str().unwrap_or_default()),
            // A guard reads back as it is written: a code span, never markup.
            (false, Shape::Guards) => part.points().iter().map(|g| format!("- `{g}`")).collect::<Vec<_>>().join("\n"),
            (false, Shape::GoodBad) => {
                let said = |side: &str, why: &str| -> Vec<String> {
                    let points = part.value[side].as_array().into_iter().flatten().filter_map(|v| v.as_str());
                    points.map(|point| format!("- {why}, because {}", markdown::line(point))).collect()
                };
                [said("good", "Good"), said("bad", "Bad")].concat().join("\n")
            }
            (false, shape) => {
                let bullet = if shape == Shape::Tasks { "- [ ]" } else { "-" };
                part.points()
                    .iter()
                    .map(|point| format!("{bullet} {}", markdown::line(point)))
                    .collect::<Vec<_>>()
                    .join("\n")
            }
        };
        SectionEntry {
            key: s.key,
            heading: s.heading,
            place: s.place,
            empty: part.is_empty(),
            body: Value::from_safe_string(body),
        }
    }
}
