//! The statuses a person gives a decision record — accepted, rejected, deprecated — one
//! type for the command line, the record's lifecycle and MCP's `set_decision_status`.

use schemars::JsonSchema;
use serde::Deserialize;

/// The statuses a person gives a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Accepted,
    Rejected,
    Deprecated,
}

impl Verdict {
    /// The status as records write it.
    pub fn status(self) -> &'static str {
        match self {
            Verdict::Accepted => "accepted",
            Verdict::Rejected => "rejected",
            Verdict::Deprecated => "deprecated",
        }
    }

    /// The command that gives it.
    pub fn verb(self) -> &'static str {
        match self {
            Verdict::Accepted => "accept",
            Verdict::Rejected => "reject",
            Verdict::Deprecated => "deprecate",
        }
    }
}
