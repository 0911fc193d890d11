//! One view of a debate, built from the model (never the internal state itself), with
//! one lowercase vocabulary for every status, end reason, kind, assessment and
//! confidence. `--json`, `--show --json`, the dashboard's pages and `debate show` render
//! from it: a new part of a debate is one field here, filled in `Detail::of`, plus one
//! place in each renderer.
//!
//! The decision record is the exception that proves the rule: it is rendered from the
//! debate itself (`record::render`), since a committed record must render again byte for
//! byte from the debate it carries (`record::read`), and that debate is the model's.

mod check;
mod context;
mod detail;
mod outcome;
mod rounds;
mod scorecard;
mod search;
mod summary;
mod usage;
mod verification;

pub use check::{Found, GuardCheck, GuardingRecord, Violation};
pub use context::{ContextView, ConventionView, DecisionView, SourceView};
pub use detail::{Clarification, CostView, Detail, ModelUsage, Role, Roles, Seat, ServerView};
pub use outcome::OutcomeView;
pub use rounds::{ContributionView, EvaluationView, Measures, Repetition, RoundView};
pub use scorecard::{CheckView, CriterionView, EvaluatorView, MarkView, ScorecardView};
pub use search::{FoundView, SearchView};
pub use summary::{IssueDraft, Paused, StatusChange, Summary, Tokens};
pub use usage::{MonthView, UsageRow, UsageView};
pub use verification::{RecordCheck, RecordSignature, SignatureView, Verdict, Verification};

#[cfg(test)]
mod tests;
