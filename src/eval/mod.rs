//! `debate eval`: a finished debate's record scored on a rubric fitted to decisions.
//! Pure: the rubric, its request and the reading of an evaluator's answer (`rubric`),
//! and the checks that need no model (`checks`); `app::eval` makes the calls, through
//! the engine's structured asking, and stores the scores.

pub mod checks;
pub mod rubric;
