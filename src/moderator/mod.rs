//! The moderator's judgement. Everything here is pure: text and data in, data out.

pub mod analysis;
pub mod answers;
pub mod briefing;
pub mod clarify;
pub mod confirmation;
pub mod detection;
pub mod evaluation;
#[cfg(test)]
mod hostile;
pub mod naming;
pub mod noise;
pub mod prompts;
pub mod selection;
pub mod stance;
pub mod synthesis;
