//! The debate as a state machine: every step reads the stored state, does one thing,
//! and persists its result before the next step is chosen.

mod answer;
pub mod calls;
mod clock;
mod early;
mod moderating;
mod recording;
mod round;
pub mod run;
pub mod step;

#[cfg(test)]
mod tests;
