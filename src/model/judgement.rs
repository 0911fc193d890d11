//! What the moderator judges along the way: the analysis of the question, each round's
//! evaluation and measures, and how sure a recommendation is. The decision it ends in
//! is `decision.rs`.

use serde::{Deserialize, Serialize};
use strum::{EnumString, IntoStaticStr, VariantNames};

/// What the moderator read from the question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    /// Decision domains, strongest first (e.g. `data`, `security`).
    pub domains: Vec<String>,
    /// The options the question names ("Redis", "Postgres").
    pub options: Vec<String>,
    pub constraints: Vec<Constraint>,
    /// Too vague to debate well: no options, no subject, a few words.
    pub vague: bool,
    /// Panel size the question calls for (2 for a binary choice, else 3–4).
    pub panel_size: u8,
    /// Why the moderator's refinement of the panel was not used, when it was not (it
    /// is optional: the keyword analysis stands without it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unrefined: Option<String>,
    /// Whose reading of the options the debate weighs: the question's, confirmed or
    /// corrected by the moderator. `None` in debates from before the moderator was asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reading: Option<OptionsReading>,
    /// Round 1's arguments, begun on the question's reading while the moderator read
    /// it, and what became of them; `None` when round 1 waited for the moderator.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub early: Option<EarlyStart>,
}

/// Round 1's arguments begun while the moderator read the question: those its reading
/// left as they were asked were kept, the others written again (the first versions
/// discarded, their tokens counted).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EarlyStart {
    /// The perspectives whose early argument was kept.
    pub kept: Vec<String>,
    /// The perspectives asked again: the moderator's reading changed what they were
    /// asked (the options, the panel). One it took off the panel is in neither list; its
    /// early argument is discarded.
    pub redone: Vec<String>,
}

/// The options read from the question, put to the moderator, and what came of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OptionsReading {
    /// The options the question was read as weighing, before the moderator answered.
    pub read: Vec<String>,
    pub verdict: ReadingVerdict,
    /// The moderator's options, when they differ from those read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub proposed: Vec<String>,
    /// The moderator's reason for its correction; for a refused one, what it left unexplained.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
}

/// Which reading of the options stood.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, IntoStaticStr)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum ReadingVerdict {
    /// The moderator named the same options.
    Confirmed,
    /// The moderator's options stood: they keep to the question, or it said why not.
    Corrected,
    /// The moderator added or dropped an option without a reason: the question's reading stood.
    Refused,
    /// The moderator did not answer (or named no usable options): the question's reading stood.
    Unconfirmed,
}

/// Where a debater stands at the end of a contribution.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stance {
    /// One of the considered options, as the analysis wrote it; `None` when the stance
    /// could not be read (unknown).
    pub option: Option<String>,
    pub confidence: Option<Confidence>,
    /// What would change the debater's mind.
    #[serde(default)]
    pub would_change_if: String,
    /// What the debater grants the others.
    #[serde(default)]
    pub concedes: String,
    /// The option is the one its request listed first (the order rotates from request to
    /// request): a model that only ever takes the first says nothing by it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub first_listed: bool,
}

impl Stance {
    /// What starts the line a contribution states its stance on.
    pub const MARKER: &str = "STANCE:";

    pub fn unknown() -> Stance {
        Stance {
            option: None,
            confidence: None,
            would_change_if: String::new(),
            concedes: String::new(),
            first_listed: false,
        }
    }

    /// "Redis (low)", or "unknown (low)" when the option could not be read.
    pub fn brief(&self) -> String {
        let option = self.option.as_deref().unwrap_or("unknown");
        match self.confidence {
            Some(confidence) => format!("{option} ({})", confidence.as_str().to_lowercase()),
            None => option.to_string(),
        }
    }
}

/// A constraint implied by the wording, and the perspectives it gives weight to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Constraint {
    pub phrase: String,
    pub meaning: String,
    pub favours: Vec<String>,
}

/// The local measures of one round (docs/guide.md, "What a debate does").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoundMeasures {
    /// Per seat: containment of its argument in its own previous-round argument
    /// (`None` in its first round, or when it did not argue).
    pub repetition: Vec<Option<f64>>,
    /// Share of the round's phrasing never seen in earlier rounds.
    pub novelty: f64,
}

/// The moderator's one-word reading of a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, IntoStaticStr, EnumString, VariantNames)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Assessment {
    Converging,
    Stagnating,
    NewGround,
    Diverging,
}

impl Assessment {
    /// How a person reads it.
    pub fn describe(self) -> &'static str {
        match self {
            Assessment::Converging => "converging",
            Assessment::Stagnating => "stagnating",
            Assessment::NewGround => "new points emerging",
            Assessment::Diverging => "diverging",
        }
    }
}

/// The moderator's evaluation of a round: the assessment, and the summary that opens
/// the next round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    /// Each debater, judged before the round is: its stance, engagement, strongest and
    /// weakest point.
    #[serde(default)]
    pub debaters: Vec<DebaterAssessment>,
    pub summary: String,
    pub assessment: Assessment,
    /// The debaters' recommendations align.
    pub agreement: bool,
    /// A perspective the others conceded to.
    pub clear_winner: Option<String>,
    pub off_topic: Vec<String>,
    pub new_points: Vec<String>,
    /// What the round left unresolved: the next round's agenda.
    #[serde(default)]
    pub open_tensions: Vec<String>,
    /// The moderator's answer could not be read; this was derived locally.
    #[serde(default)]
    pub fallback: bool,
    /// The last round, judged in the synthesis call rather than an evaluation of its
    /// own: the verdicts are the measures', the summary the synthesis's.
    #[serde(default)]
    pub folded: bool,
}

/// How one debater did in a round, in the moderator's eyes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DebaterAssessment {
    pub perspective: String,
    /// The option it now recommends, as the moderator reads it.
    pub stance: Option<String>,
    /// How it answered the others (or did not).
    pub engagement: String,
    pub strongest: String,
    pub weakest: String,
}

/// How sure the recommendation is.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    IntoStaticStr,
    EnumString,
    VariantNames,
)]
#[serde(rename_all = "lowercase")]
#[strum(ascii_case_insensitive)]
pub enum Confidence {
    // Outcomes stored before JSON used one lowercase vocabulary say "High".
    #[serde(alias = "Low")]
    Low,
    /// What a moderator that named none is taken to mean.
    #[default]
    #[serde(alias = "Medium")]
    Medium,
    #[serde(alias = "High")]
    High,
}

impl Confidence {
    /// One step lower; Low stays Low.
    pub fn lowered(self) -> Confidence {
        match self {
            Confidence::High => Confidence::Medium,
            _ => Confidence::Low,
        }
    }

    /// `High`, `Medium` or `Low`, as the record writes it.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}
