//! Round 1 begun early: the debaters argue on the question's reading while the moderator
//! reads it (the analysis; `round.rs` runs that wave), and each early argument is kept
//! when the debate the moderator confirms asks its debater exactly what it was asked,
//! and written again when not. Pure.

use sha2::{Digest, Sha256};

use super::answer::contribution_of;
use super::calls::{self, Ask};
use crate::model::{Completion, Contribution, ContributionKind, DebateState, EarlyStart, Reckoning, Round};
use crate::moderator::prompts;

/// The debate as round 1 opens in it: what an early argument is asked from, before the
/// moderator has answered, and what it is held to once it has.
pub fn opened(state: &DebateState) -> DebateState {
    let mut opened = state.clone();
    opened.rounds = vec![Round {
        number: 1,
        framing: prompts::framing(state, 1),
        guidance: state.review_guidance(1).map(str::to_string),
        seats: state.roster_for(1),
        arguments: Vec::new(),
        rebuttals: Vec::new(),
        measures: None,
        evaluation: None,
    }];
    opened
}

/// The digest of what the debater at `seat` is asked for its round-1 argument in
/// `opened` (the system prompt, the shared context, the debate so far and its own part).
pub fn request(opened: &DebateState, seat: usize) -> String {
    let ask = Ask::Debater { seat, round: 1, kind: ContributionKind::Argument };
    let digest = Sha256::digest(calls::prompt_text(opened, &ask).as_bytes());
    digest.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// The seats still owing an early argument: on the panel, speaking in round 1, and
/// without one stored.
pub fn owed(state: &DebateState) -> Vec<usize> {
    let stored = |seat: usize| state.early.iter().any(|e| e.perspective == state.panel[seat].name());
    state.roster_for(1).into_iter().filter(|&seat| !stored(seat)).collect()
}

/// What becomes of the early arguments as round 1 opens in `state` (analysed): each
/// whose perspective speaks in round 1 and was asked exactly what it would be asked now
/// is kept, as the contribution it becomes; the others are discarded, and written
/// again by those still on the panel.
pub fn settle(state: &DebateState) -> (Vec<(i64, Contribution)>, EarlyStart) {
    let opened = opened(state);
    let (mut kept, mut start) = (Vec::new(), EarlyStart::default());
    for early in &state.early {
        let seat = opened.rounds[0].seats.iter().copied().find(|&s| state.panel[s].name() == early.perspective);
        match seat.filter(|&seat| request(&opened, seat) == early.request) {
            Some(seat) => {
                let c = &early.contribution;
                let completion = Completion {
                    text: c.text.clone(),
                    model: c.model.clone(),
                    usage: c.usage,
                    truncated: c.truncated,
                    looped: c.looped,
                    format: None,
                    reckoning: Reckoning::default(),
                };
                kept.push((early.row, contribution_of(&opened, seat, 1, ContributionKind::Argument, completion)));
                start.kept.push(early.perspective.clone());
            }
            // One the refined panel left out is discarded and not asked again.
            None if seat.is_some() => start.redone.push(early.perspective.clone()),
            None => {}
        }
    }
    (kept, start)
}

#[cfg(test)]
mod tests;
