//! The debate's state as stored: status, panel, rounds and contributions. Plain data;
//! the store reads and writes it, the engine derives its next step from it.

use serde::{Deserialize, Serialize};

use crate::moderator::analysis::Analysis;
use crate::moderator::detection::RoundMeasures;
use crate::moderator::evaluation::Evaluation;
use crate::moderator::synthesis::{Confidence, Source, Synthesis};
use crate::settings::{DebateSettings, RecordSettings};

pub use crate::moderator::selection::Seat;

macro_rules! string_enum {
    ($name:ident { $($variant:ident => $text:literal),+ $(,)? }) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
        pub enum $name { $($variant),+ }
        impl $name {
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }
            pub fn parse(text: &str) -> Option<Self> {
                match text { $($text => Some($name::$variant),)+ _ => None }
            }
        }
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

string_enum!(Status {
    Analyzing => "analyzing",
    InRound => "in_round",
    Checkpoint => "checkpoint",
    Paused => "paused",
    Synthesizing => "synthesizing",
    Recording => "recording",
    Complete => "complete",
    Failed => "failed",
});

string_enum!(ContributionKind {
    Argument => "argument",
    Rebuttal => "rebuttal",
});

string_enum!(EndReason {
    Agreement => "agreement",
    ClearWinner => "clear-winner",
    Stagnation => "stagnation",
    MaxRounds => "max-rounds",
    Human => "human",
    Timeout => "timeout",
});

/// What was fixed when the debate started; stored with it so a resumed debate keeps
/// its rules whatever the settings say now.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Snapshot {
    pub debate: DebateSettings,
    pub record: RecordSettings,
    pub moderator: RoleChoice,
    pub debater: RoleChoice,
    pub context: Vec<ContextFile>,
    /// `--perspectives` or the setting, if any.
    pub requested_size: Option<u8>,
    pub forced: Vec<String>,
    /// `--branch`: the new branch the record is committed to.
    #[serde(default)]
    pub branch: Option<String>,
}

/// Which configured provider and model a role uses (never a key).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoleChoice {
    pub provider: String,
    pub model: Option<String>,
    pub temperature: f32,
}

/// A `--context` file as it was when the debate started.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ContextFile {
    pub path: String,
    pub text: String,
}

/// Tokens and time one call took.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub latency_ms: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Contribution {
    pub seat: usize,
    pub kind: ContributionKind,
    pub text: String,
    pub model: String,
    pub usage: Usage,
}

#[derive(Debug, Clone, Serialize)]
pub struct Round {
    pub number: u32,
    pub framing: String,
    pub guidance: Option<String>,
    /// In seat order, whatever order they completed in.
    pub arguments: Vec<Contribution>,
    pub rebuttals: Vec<Contribution>,
    pub measures: Option<RoundMeasures>,
    pub evaluation: Option<Evaluation>,
}

impl Round {
    pub fn argument(&self, seat: usize) -> Option<&Contribution> {
        self.arguments.iter().find(|c| c.seat == seat)
    }
    pub fn rebuttal(&self, seat: usize) -> Option<&Contribution> {
        self.rebuttals.iter().find(|c| c.seat == seat)
    }
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
}

#[derive(Debug, Clone, Serialize)]
pub struct DebateState {
    pub id: String,
    pub question: String,
    pub title: String,
    pub repo_root: String,
    pub status: Status,
    pub created_at: String,
    pub snapshot: Snapshot,
    pub analysis: Analysis,
    /// Empty until the analysis step has chosen the panel.
    pub panel: Vec<Seat>,
    pub rounds: Vec<Round>,
    pub end_reason: Option<EndReason>,
    pub outcome: Option<Outcome>,
    pub record_path: Option<String>,
    pub commit_id: Option<String>,
    pub totals: Usage,
    /// The moderator's analysis call is stored: the panel is final.
    pub analyzed: bool,
    /// The moderator's clarifying question for a vague question, and the answer.
    pub clarification: Option<Clarification>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Clarification {
    pub question: String,
    pub answer: String,
}

impl DebateState {
    pub fn panel_names(&self) -> Vec<String> {
        self.panel.iter().map(|s| s.name().to_string()).collect()
    }

    /// Seats that still speak: not dropped; and a perspective flagged off-topic in two
    /// rounds is muted, unless that would leave fewer than two.
    pub fn active_seats(&self) -> Vec<usize> {
        let all: Vec<usize> = (0..self.panel.len()).filter(|&seat| self.panel[seat].dropped.is_none()).collect();
        let active: Vec<usize> = all
            .iter()
            .copied()
            .filter(|&seat| {
                let name = self.panel[seat].name();
                let flagged = self
                    .rounds
                    .iter()
                    .filter_map(|r| r.evaluation.as_ref())
                    .filter(|e| e.off_topic.iter().any(|n| n == name))
                    .count();
                flagged < 2
            })
            .collect();
        if active.len() >= 2 { active } else { all }
    }

    /// `"Performance Advocate 12%"` for every debater with a repetition figure in `round`.
    pub fn repetition_figures(&self, round: &Round) -> Vec<String> {
        let Some(measures) = &round.measures else { return Vec::new() };
        measures
            .repetition
            .iter()
            .enumerate()
            .filter_map(|(seat, r)| Some(format!("{} {:.0}%", self.panel.get(seat)?.name(), r.as_ref()? * 100.0)))
            .collect()
    }

    pub fn measures(&self) -> Vec<RoundMeasures> {
        self.rounds.iter().filter_map(|r| r.measures.clone()).collect()
    }
}
