//! `debate eval`: a finished debate's record scored on a rubric fitted to decisions,
//! and a suite of questions debated and compared. Pure: the rubric, its request and
//! the reading of an evaluator's answer (`rubric`), the checks that need no model
//! (`checks`), the suite file (`suite`) and its report (`report`); `app::eval` and
//! `app::suite` make the calls, through the engine's structured asking, and store and
//! write what they give.

pub mod baseline;
pub mod checks;
pub mod report;
pub mod rubric;
pub mod suite;
