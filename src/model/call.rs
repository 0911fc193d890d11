//! Model calls: why a call is made, and what it returned.

use serde::{Deserialize, Serialize};
use strum::{AsRefStr, EnumString, IntoStaticStr};

/// Why a call is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, AsRefStr, IntoStaticStr, EnumString)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum Purpose {
    /// The clarifying questions for a vague question.
    Clarification,
    Analysis,
    Argument,
    Rebuttal,
    /// A debater's stance, asked for again when its contribution did not end with one.
    Stance,
    Evaluation,
    Synthesis,
    /// An evaluator's scores of a finished record (`debate eval`); never part of a debate.
    Scoring,
    /// A few tokens asked of a server to learn what it does (`debate doctor`, how many
    /// requests it serves at once); never part of a debate.
    Probe,
}

/// Tokens and time one call took.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    pub prompt_tokens: u64,
    /// The part of `prompt_tokens` the provider served from its prefix cache.
    #[serde(default)]
    pub cached_tokens: u64,
    pub completion_tokens: u64,
    pub latency_ms: u64,
    /// Tries that failed before the answer came (a dropped stream, an overloaded server,
    /// an empty answer) and were made again: the call was sent `1 + retries` times.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub retries: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Usage {
    /// The most any one figure of a call may be: a billion tokens, or a billion
    /// milliseconds (eleven days). Far past any real call, and far enough under what
    /// SQLite's integers hold that its sums over every stored call never overflow.
    pub const LIMIT: u64 = 1_000_000_000;

    /// Each figure at most `LIMIT`: what the store keeps of a call.
    pub fn bounded(self) -> Usage {
        Usage {
            prompt_tokens: self.prompt_tokens.min(Self::LIMIT),
            cached_tokens: self.cached_tokens.min(Self::LIMIT),
            completion_tokens: self.completion_tokens.min(Self::LIMIT),
            latency_ms: self.latency_ms.min(Self::LIMIT),
            retries: self.retries.min(Self::LIMIT),
        }
    }

    /// Whether every figure is one a call can have.
    pub fn within_limit(&self) -> bool {
        *self == self.bounded()
    }
}

/// Saturating: totals of figures read from outside never wrap.
impl std::ops::Add for Usage {
    type Output = Usage;
    fn add(self, other: Usage) -> Usage {
        Usage {
            prompt_tokens: self.prompt_tokens.saturating_add(other.prompt_tokens),
            cached_tokens: self.cached_tokens.saturating_add(other.cached_tokens),
            completion_tokens: self.completion_tokens.saturating_add(other.completion_tokens),
            latency_ms: self.latency_ms.saturating_add(other.latency_ms),
            retries: self.retries.saturating_add(other.retries),
        }
    }
}

/// What one call returned: the text, the model that wrote it, and what it cost.
#[derive(Debug, Clone, Default)]
pub struct Completion {
    pub text: String,
    pub model: String,
    pub usage: Usage,
    /// The answer stopped at the completion limit (`finish_reason: length`,
    /// `stop_reason: max_tokens`): it is not whole.
    pub truncated: bool,
    /// How a structured answer was asked for, where the server chose among ways
    /// (`json_schema`, `json_object`, `instructions`).
    pub format: Option<String>,
    /// The answer began to repeat itself and was stopped there: `text` is what came
    /// before the loop.
    pub looped: bool,
    /// How `usage` was come by.
    pub reckoning: Reckoning,
}

/// A request about to be sent, as the ledger writes it down.
#[derive(Debug, Clone)]
pub struct Sending<'a> {
    /// `None`: no debate's (`debate doctor`'s checks).
    pub debate_id: Option<&'a str>,
    pub provider: &'a str,
    pub model: &'a str,
    pub purpose: &'a str,
    /// Its worst case: the prompt's estimate and the completion limit.
    pub worst: Usage,
    pub worst_usd: Option<f64>,
}

/// How a request's token figures were come by, as the ledger keeps them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, AsRefStr)]
#[strum(serialize_all = "lowercase")]
pub enum Reckoning {
    /// As the server reported them.
    Server,
    /// Estimated from the text: the server gave none.
    #[default]
    Estimated,
    /// The server reported more than the request could take: bounded by its limits.
    Bounded,
    /// Stopped before the server's count came: counted at the request's worst case.
    Limit,
    /// No answer came: nothing is known to have been generated.
    Failed,
}
