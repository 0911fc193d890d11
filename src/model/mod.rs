//! The debate's data: its state, rules, panel, rounds and contributions, the
//! moderator's judgements, model calls, and the events a debate reports. Plain types
//! with serde; this module imports nothing else of ours, and everything else builds on
//! it.

pub mod bounds;
mod budget;
mod call;
mod cost;
mod debate;
mod decision;
mod events;
#[cfg(test)]
pub mod fixture;
mod guard;
mod judgement;
pub mod lenient;
mod options;
mod perspective;
pub mod prices;
mod project;
mod provider;
mod rules;
mod scores;
mod verdict;

pub use budget::{Cap, Dollars, Tokens, dollars};
pub use call::{Completion, Purpose, Reckoning, Sending, Usage};
pub use cost::{Cost, PriceList, price_from_table};
pub use debate::{
    Clarification, ContextFile, Contribution, ContributionKind, DebateState, Discarded, Early, EndReason, Listing,
    Revision, Round, Seat, Snapshot, Status, is_debate_id,
};
pub use decision::{
    Consequences, Dissent, LAYOUT, OptionAssessment, Outcome, Part, PerspectiveSummary, Place, Section, Shape, Source,
    Synthesis, TITLE_LIMIT, is_day, layout, sections,
};
pub use events::{Clarified, Decision, Draft, Events, Pending, Published};
pub use guard::{Guard, Rule, SERVICES, Subject, derive as derive_guards, services_of};
pub use judgement::{
    Analysis, Assessment, Confidence, Constraint, DebaterAssessment, EarlyStart, Evaluation, OptionsReading,
    ReadingVerdict, RoundMeasures, Stance,
};
pub use options::RunOptions;
pub use perspective::{CatalogFile, CatalogOverlay, PerspectiveDef};
pub use project::{
    ContextSource, Convention, Dependency, DependencyKind, EarlierDecision, History, Infrastructure, LanguageShare,
    ProjectContext, ProjectFacts, tokens,
};
pub use provider::{
    AtOnce, Identity, Price, ProviderDef, ProviderKind, Reach, RoleChoice, ServerSays, TokenParameter, family, maker,
};
pub use rules::{
    DebateSettings, FilenameTemplate, Fraction, PanelSize, Rebuttals, RecordDirectory, RecordSettings, Rounds, Scalar,
    Seats, Seconds, TokenBudget, TranscriptPlacement,
};
pub use scores::{Baseline, Check, CheckKind, Criterion, Disagreement, Evaluator, Mark, Scorecard};
pub use verdict::Verdict;
