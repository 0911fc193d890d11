//! The decision document, described once: the synthesis the moderator answers with (its
//! type is the moderator's answer type, read leniently), and its sections declared in
//! the order the record has them — each one's key, heading, shape and place. Every door
//! (the record, `show`, `--json`, the dashboard, MCP, `export`, the issue draft, eval's
//! checks) shows a decision through `Synthesis::parts`, so a section added here reaches
//! them all. A record carries the layout it was written with (`Outcome::layout`), and
//! is read back with that layout's sections, so a new one never makes an older record
//! look edited. docs/architecture.md, "Adding a section to the decision".

use std::collections::BTreeMap;
use std::sync::LazyLock;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use strum::IntoStaticStr;

use super::guard::Guard;
use super::judgement::Confidence;
use super::lenient::{confidence, one_or_many, text, text_or_none};

/// The layout records are written with now: the highest `since` of a section.
pub const LAYOUT: u32 = 2;

/// How a section's content is shaped, and so how every door shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    /// A paragraph (a JSON string).
    Text,
    /// Points, a line each (a list of strings).
    Points,
    /// Things to do: points that become tasks (the issue draft's checklist).
    Tasks,
    /// What gets better and what gets worse (`{"good": […], "bad": […]}`).
    GoodBad,
    /// Each considered option, with what was argued for and against it.
    Options,
    /// What each perspective argued and what it gave up.
    Perspectives,
    /// Who disagrees, preferring what, and why.
    Dissents,
    /// Rules the code is checked against (`model/guard.rs`), a line each.
    Guards,
    /// A day (`YYYY-MM-DD`).
    Date,
}

/// Where the record puts a section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Place {
    /// Under the Decision Outcome, as a `###` section.
    Outcome,
    /// With the recommendation, as a bold heading and its points.
    Recommendation,
    /// In the body, as a `##` section, after the perspectives and before the dissent.
    Body,
    /// Where the record's own prose frames it (the options, the perspectives, the dissent).
    Framed,
}

/// One section of the decision.
#[derive(Debug, Clone, Serialize)]
pub struct Section {
    /// Its key in the synthesis's JSON (the moderator's answer, `--json`, MCP).
    pub key: &'static str,
    pub heading: &'static str,
    pub shape: Shape,
    pub place: Place,
    /// What the record says when the moderator left it empty.
    #[serde(skip)]
    pub empty: &'static str,
    /// What the moderator is asked for, when its heading does not say enough.
    #[serde(skip)]
    pub asked: Option<&'static str>,
    /// Words a free-text answer's heading for it has (lowercase).
    #[serde(skip)]
    pub words: &'static [&'static str],
    /// The first record layout that has it.
    #[serde(skip)]
    pub since: u32,
    /// Its name in an Open Decision Receipt, where that format has a place for it.
    #[serde(skip)]
    pub receipt: Option<&'static str>,
}

/// Every section, in the order the record has them within each place.
const SECTIONS: &[Section] = &[
    Section {
        key: "consequences",
        heading: "Consequences",
        shape: Shape::GoodBad,
        place: Place::Outcome,
        asked: None,
        empty: "*(none given)*",
        words: &[],
        since: 1,
        receipt: None,
    },
    Section {
        key: "confirmation",
        heading: "Confirmation",
        shape: Shape::Text,
        place: Place::Outcome,
        asked: None,
        empty: "*(no check was given)*",
        words: &["confirm"],
        since: 1,
        receipt: None,
    },
    Section {
        key: "guards",
        heading: "Guards",
        shape: Shape::Guards,
        place: Place::Outcome,
        asked: Some(
            "rules that keep the code to this decision, checked on every pull request, one per item, each exactly \
             `forbid dependency NAME`, `require dependency NAME` or `forbid path GLOB`: NAME is what a package \
             brings (redis, postgres, mysql, sqlite, mongodb, kafka, rabbitmq, nats, elasticsearch, …); forbid \
             what only the set-aside options bring, require what the chosen one brings where the project's \
             manifests already declare it; none when nothing can be checked",
        ),
        empty: "No guards were given: `debate guard add` adds one.",
        words: &["guard"],
        since: 2,
        receipt: None,
    },
    Section {
        key: "review_by",
        heading: "Review By",
        shape: Shape::Date,
        place: Place::Outcome,
        asked: Some(
            "the day to revisit the decision (YYYY-MM-DD) when a caveat or the confirmation names a time; \
             empty otherwise",
        ),
        empty: "No review date was set.",
        words: &["review by", "revisit"],
        since: 2,
        receipt: None,
    },
    Section {
        key: "action_items",
        heading: "Action Items",
        shape: Shape::Tasks,
        place: Place::Outcome,
        asked: None,
        empty: "*(none given)*",
        words: &["action", "next step"],
        since: 1,
        receipt: None,
    },
    Section {
        key: "caveats",
        heading: "Caveats",
        shape: Shape::Points,
        place: Place::Recommendation,
        asked: None,
        empty: "*(none given)*",
        words: &["caveat"],
        since: 1,
        receipt: None,
    },
    Section {
        key: "options",
        heading: "Considered Options",
        shape: Shape::Options,
        place: Place::Framed,
        asked: None,
        empty: "*(no options to weigh)*",
        words: &[],
        since: 1,
        receipt: None,
    },
    Section {
        key: "perspectives",
        heading: "Perspectives Considered",
        shape: Shape::Perspectives,
        place: Place::Framed,
        asked: None,
        empty: "*(the moderator left this empty)*",
        words: &[],
        since: 1,
        receipt: None,
    },
    Section {
        key: "agreement",
        heading: "Points of Agreement",
        shape: Shape::Points,
        place: Place::Body,
        asked: None,
        empty: "*(the moderator recorded no points of agreement)*",
        words: &["agreement", "agree"],
        since: 1,
        receipt: None,
    },
    Section {
        key: "tensions",
        heading: "Key Tensions",
        shape: Shape::Points,
        place: Place::Body,
        asked: None,
        empty: "*(the moderator recorded no tensions)*",
        words: &["tension", "unresolved"],
        since: 1,
        receipt: Some("cruxes"),
    },
    Section {
        key: "dissents",
        heading: "Dissenting View",
        shape: Shape::Dissents,
        place: Place::Framed,
        asked: None,
        empty: "The moderator recorded no dissenting view.",
        words: &[],
        since: 1,
        receipt: Some("findings"),
    },
];

/// A section that exists only in a debug build run with `DEBATE_SCRATCH_SECTION` set:
/// how the tests add a section to the decision and follow it through every door.
static SCRATCH: LazyLock<Option<Section>> = LazyLock::new(|| {
    (cfg!(debug_assertions) && std::env::var_os("DEBATE_SCRATCH_SECTION").is_some()).then_some(Section {
        key: "scratch_notes",
        heading: "Scratch Notes",
        shape: Shape::Points,
        place: Place::Body,
        asked: None,
        empty: "*(no scratch notes)*",
        words: &["scratch"],
        since: LAYOUT + 1,
        receipt: None,
    })
});

/// The sections of the decision, in the record's order (the scratch section last in
/// the body, where a new one would go).
pub fn sections() -> impl Iterator<Item = &'static Section> {
    let body_ends = SECTIONS.iter().rposition(|s| s.place == Place::Body).map_or(SECTIONS.len(), |at| at + 1);
    SECTIONS[..body_ends].iter().chain(SCRATCH.as_ref()).chain(&SECTIONS[body_ends..])
}

/// The layout a record written now has.
pub fn layout() -> u32 {
    sections().map(|s| s.since).max().unwrap_or(LAYOUT)
}

/// One section of a decision as the doors show it: its declaration and its content.
#[derive(Debug, Clone, Serialize)]
pub struct Part {
    #[serde(flatten)]
    pub section: Section,
    /// As the shape has it; `null` or empty when the moderator left it empty.
    pub value: Value,
    /// Nothing in it: the moderator left it empty.
    pub empty: bool,
}

/// Nothing in a section's content.
fn nothing_in(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(text) => text.trim().is_empty(),
        Value::Array(items) => items.is_empty(),
        Value::Object(fields) => fields.values().all(|v| v.as_array().is_none_or(Vec::is_empty)),
        _ => false,
    }
}

impl Part {
    /// Nothing in it.
    pub fn is_empty(&self) -> bool {
        self.empty
    }

    /// Its points, for the shapes that are points (`Points`, `Tasks`).
    pub fn points(&self) -> Vec<&str> {
        self.value.as_array().into_iter().flatten().filter_map(Value::as_str).collect()
    }
}

// The types below are what the moderator answers with and what the debate keeps: each
// field's `schemars(description)` is what the model is asked for, and its lenient reader
// (`lenient.rs`) takes whatever shape the model wrote it in. Naming against the panel and
// the considered options is the moderator's (`moderator/synthesis.rs`).

/// What one perspective argued, and what it gives up.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PerspectiveSummary {
    #[serde(default, deserialize_with = "text")]
    #[schemars(extend("x-panel" = true))]
    pub name: String,
    #[serde(default, deserialize_with = "one_or_many")]
    #[schemars(description = "its strongest arguments")]
    pub key_arguments: Vec<String>,
    #[serde(default, alias = "trade_offs", deserialize_with = "one_or_many")]
    #[schemars(description = "what it gives up")]
    pub trade_offs_accepted: Vec<String>,
}

/// A perspective that disagrees with the chosen option, and what it would choose.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Dissent {
    #[serde(default, deserialize_with = "text")]
    #[schemars(description = "the dissenting perspective", extend("x-panel" = true))]
    pub perspective: String,
    /// One of the considered options.
    #[serde(default, deserialize_with = "text_or_none")]
    #[schemars(with = "String", description = "the option it prefers", extend("x-options" = true))]
    pub option: Option<String>,
    /// Its reason (a model is asked for `reason`).
    #[serde(default, alias = "reason", deserialize_with = "text")]
    #[schemars(rename = "reason", description = "its reason")]
    pub view: String,
}

/// A considered option with what was argued for and against it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct OptionAssessment {
    #[serde(default, deserialize_with = "text")]
    #[schemars(extend("x-options" = true))]
    pub option: String,
    #[serde(default, deserialize_with = "one_or_many")]
    #[schemars(description = "what was argued for it, and by whom")]
    pub pros: Vec<String>,
    #[serde(default, deserialize_with = "one_or_many")]
    #[schemars(description = "what was argued against it, and by whom")]
    pub cons: Vec<String>,
}

/// What follows from the decision.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Consequences {
    #[serde(default, deserialize_with = "one_or_many")]
    #[schemars(description = "what gets better")]
    pub good: Vec<String>,
    #[serde(default, deserialize_with = "one_or_many")]
    #[schemars(description = "what gets worse, or is risked")]
    pub bad: Vec<String>,
}

/// A decision title's length at most: what fits a commit subject and an issue title.
pub const TITLE_LIMIT: usize = 72;

/// The synthesis (docs/guide.md, "What a debate does"): what each perspective argued,
/// the options weighed, the option chosen and why, and what follows.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Synthesis {
    /// The decision in a few words (at most `TITLE_LIMIT` characters; empty when the
    /// moderator wrote none).
    #[serde(default, deserialize_with = "text")]
    #[schemars(
        description = "the decision in a short title (at most 72 characters), such as: Cache in Postgres until p99 passes 50 ms"
    )]
    pub title: String,
    /// One entry per panel perspective, in panel order.
    #[serde(default)]
    pub perspectives: Vec<PerspectiveSummary>,
    /// Every considered option, in the analysis's order.
    #[serde(default)]
    #[schemars(description = "every considered option, with what was argued for and against it")]
    pub options: Vec<OptionAssessment>,
    /// One of the considered options; `None` when none was chosen.
    #[serde(default, deserialize_with = "text_or_none")]
    #[schemars(with = "String", description = "the option recommended", extend("x-options" = true))]
    pub chosen_option: Option<String>,
    #[serde(default, deserialize_with = "text")]
    #[schemars(description = "why, from what was argued, attributed to the perspectives that argued it")]
    pub rationale: String,
    #[serde(default, alias = "points_of_agreement", deserialize_with = "one_or_many")]
    #[schemars(description = "points every perspective accepts")]
    pub agreement: Vec<String>,
    #[serde(default, alias = "key_tensions", deserialize_with = "one_or_many")]
    #[schemars(description = "unresolved conflicts; say what is unresolved")]
    pub tensions: Vec<String>,
    #[serde(default, deserialize_with = "text")]
    #[schemars(description = "what to do, concretely")]
    pub recommendation: String,
    #[serde(default, deserialize_with = "confidence")]
    #[schemars(schema_with = "confidence_schema")]
    pub confidence: Confidence,
    #[serde(default, deserialize_with = "one_or_many")]
    #[schemars(description = "conditions that would change the recommendation")]
    pub caveats: Vec<String>,
    #[serde(default)]
    pub consequences: Consequences,
    /// How to tell later that the decision was right.
    #[serde(default, deserialize_with = "text")]
    #[schemars(description = "how to tell later that the decision was right: what to measure, the mark, and when")]
    pub confirmation: String,
    #[serde(default, deserialize_with = "one_or_many")]
    #[schemars(description = "concrete next steps")]
    pub action_items: Vec<String>,
    /// Every perspective that disagrees with the chosen option.
    #[serde(default, alias = "dissent", deserialize_with = "dissents")]
    #[schemars(description = "every perspective that disagrees with the chosen option")]
    pub dissents: Vec<Dissent>,
    /// Earlier decisions (their paths) the recommendation goes against.
    #[serde(default, deserialize_with = "one_or_many")]
    #[schemars(description = "paths of earlier decisions (as listed above) the recommendation goes against")]
    pub contradicts: Vec<String>,
    /// The declared sections with no field of their own, by key.
    #[serde(flatten)]
    #[schemars(skip)]
    pub more: BTreeMap<String, Value>,
}

fn confidence_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "string", "enum": ["High", "Medium", "Low"]})
}

/// Dissents as written: a list, one dissent, or its reason alone as a string; one with
/// neither a perspective nor a reason is none.
fn dissents<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Vec<Dissent>, D::Error> {
    let one = |value: Value| -> Option<Dissent> {
        let found = match value {
            Value::String(reason) => Dissent { view: reason.trim().to_string(), ..Dissent::default() },
            object @ Value::Object(_) => serde_json::from_value(object).ok()?,
            _ => return None,
        };
        (!found.view.is_empty() || !found.perspective.is_empty()).then_some(found)
    };
    Ok(match Value::deserialize(deserializer)? {
        Value::Array(items) => items.into_iter().filter_map(one).collect(),
        other => one(other).into_iter().collect(),
    })
}

impl Synthesis {
    /// Its sections as a record of `layout` has them, each with its content.
    pub fn parts(&self, layout: u32) -> Vec<Part> {
        let json = serde_json::to_value(self).unwrap_or_default();
        sections()
            .filter(|s| s.since <= layout)
            .map(|s| {
                let value = json.get(s.key).cloned().unwrap_or(Value::Null);
                Part { section: s.clone(), empty: nothing_in(&value), value }
            })
            .collect()
    }

    /// Its guards (the `Guards` sections'), each as it reads back.
    pub fn guards(&self) -> Vec<Guard> {
        let declared = sections().filter(|s| s.shape == Shape::Guards);
        let written = declared.filter_map(|s| self.more.get(s.key)?.as_array()).flatten();
        written.filter_map(|g| g.as_str()?.parse().ok()).collect()
    }

    /// Only what a section is declared for stays in `more`, in the section's shape: a
    /// model's or a hand-written record's other keys are dropped.
    pub fn keep_declared(&mut self) {
        let declared: BTreeMap<&str, Shape> = sections().map(|s| (s.key, s.shape)).collect();
        self.more.retain(|key, value| match declared.get(key.as_str()) {
            Some(Shape::Text) => value.is_string(),
            Some(Shape::Date) => value.as_str().is_some_and(is_day),
            Some(Shape::Guards) => {
                // Each guard as it reads back (a list, or lines of one string); one that
                // is no guard is left out.
                let written: Vec<&str> = match &*value {
                    Value::Array(items) => items.iter().filter_map(Value::as_str).collect(),
                    Value::String(lines) => lines.lines().map(|l| l.trim().trim_start_matches(['-', '*'])).collect(),
                    _ => return false,
                };
                let guards: Vec<String> =
                    written.iter().filter_map(|g| g.parse::<Guard>().ok()).map(|g| g.to_string()).collect();
                *value = Value::from(guards);
                true
            }
            Some(Shape::Points | Shape::Tasks) => {
                value.as_array().is_some_and(|items| items.iter().all(Value::is_string))
            }
            _ => false,
        });
    }
}

/// A day as `YYYY-MM-DD`.
pub fn is_day(text: &str) -> bool {
    text.len() == 10 && chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d").is_ok()
}

/// How the synthesis was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, IntoStaticStr)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum Source {
    /// The model's structured answer.
    Structured,
    /// Recovered from the sections of a free-text answer.
    MarkdownSections,
    /// The moderator's answer was unusable; assembled from the debate itself.
    Transcript,
}

/// The synthesis as stored, with how it was obtained and the confidence after every
/// adjustment.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Outcome {
    pub synthesis: Synthesis,
    pub source: Source,
    pub confidence: Confidence,
    /// Why the result is weaker than a clean model-reasoned debate.
    pub degradations: Vec<String>,
    /// Why the confidence is not the moderator's own, one sentence each.
    #[serde(default)]
    pub lowered: Vec<String>,
    /// The layout of the decision it was written in (`layout()`); outcomes from before
    /// layouts were counted are the first.
    #[serde(default = "first_layout")]
    pub layout: u32,
}

fn first_layout() -> u32 {
    1
}
