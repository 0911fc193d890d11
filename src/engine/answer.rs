//! A debater's answer as the debate keeps it: something said, the stance line read off
//! (marked when it names the option its request listed first), and marked failed when
//! it only gave back its prompt.

use super::calls::{self, Ask};
use crate::model::{Completion, Contribution, ContributionKind, DebateState, Stance};
use crate::moderator::{answers, noise, stance};
use crate::providers::{self, ProviderError};

/// A debater's answer as the debate keeps it: its text without the stance line, the
/// stance read from it, and marked failed when it only gave back the prompt's
/// placeholders, headings or instructions.
pub fn contribution_of(
    state: &DebateState,
    seat: usize,
    round: u32,
    kind: ContributionKind,
    completion: Completion,
) -> Contribution {
    let (text, stance) = stance::split(&completion.text, &state.analysis.options);
    let prompt = calls::prompt_text(state, &Ask::Debater { seat, round, kind });
    Contribution {
        seat,
        kind,
        text,
        model: completion.model,
        usage: completion.usage,
        truncated: completion.truncated,
        looped: completion.looped,
        failed: answers::says_nothing(&completion.text) || noise::echoes(&completion.text, &prompt),
        stance: stance.map(|s| first_listed(state, s, seat, round, kind)),
    }
}

/// `stance`, marked when it names the option its request listed first.
pub fn first_listed(
    state: &DebateState,
    mut stance: Stance,
    seat: usize,
    round: u32,
    kind: ContributionKind,
) -> Stance {
    stance.first_listed =
        stance.option.is_some() && state.options_listed(seat, round, kind).first() == stance.option.as_ref();
    stance
}

/// A debater's answer must say something.
pub fn usable(mut completion: Completion, what: &str) -> providers::Result<Completion> {
    let text = completion.text.trim();
    if text.is_empty() {
        return Err(ProviderError::Unusable(format!("the model returned an empty answer for {what}")));
    }
    completion.text = text.to_string();
    Ok(completion)
}
