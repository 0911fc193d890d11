//! What a suite compares a debate with (`debate eval --suite --baseline`): the debate's
//! question as one answer starts from it, how many answers a vote takes within the
//! debate's tokens, and the answer that stands for the majority. Pure.

use crate::model::{Baseline, DebateState, Usage};

/// The most answers a vote takes, however many the debate's tokens would pay for.
pub const MOST_VOTES: usize = 9;

/// The debate as one answer starts from it: the same question, reading of the options,
/// project context, models and settings; no panel, no rounds, nothing concluded or spent.
pub fn starting_point(debated: &DebateState, kind: Baseline) -> DebateState {
    let mut state = debated.clone();
    state.id = format!("{}-{}", debated.id, kind.as_str());
    state.panel.clear();
    state.rounds.clear();
    state.discarded.clear();
    state.end_reason = None;
    state.outcome = None;
    state.record_path = None;
    state.commit_id = None;
    state.totals = Usage::default();
    state.usage_by_model.clear();
    state.revisions.clear();
    state.scorecards.clear();
    state
}

/// How many answers a vote takes: as many as the debate's tokens pay for at what one
/// answer took, at most [`MOST_VOTES`], odd so that two options cannot tie, and one at
/// least (when a single answer costs more than the whole debate, the vote is that answer).
pub fn votes(debate_tokens: u64, one_answer: u64) -> usize {
    let affordable = debate_tokens.checked_div(one_answer).unwrap_or(1).clamp(1, MOST_VOTES as u64) as usize;
    if affordable.is_multiple_of(2) { affordable - 1 } else { affordable }
}

/// The answer that stands for the vote: the first of those that chose the option most
/// answers chose (the earliest such option on a tie), or the first answer when none chose.
pub fn majority(chosen: &[Option<String>]) -> usize {
    let plain = |option: &str| option.trim().to_lowercase();
    let count = |option: &str| chosen.iter().flatten().filter(|other| plain(other) == plain(option)).count();
    let mut best: Option<(usize, usize)> = None;
    for (at, option) in chosen.iter().enumerate() {
        let Some(option) = option else { continue };
        let votes = count(option);
        if best.is_none_or(|(_, most)| votes > most) {
            best = Some((at, votes));
        }
    }
    best.map_or(0, |(at, _)| at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fixture;

    #[test]
    fn a_vote_takes_what_the_debate_paid_for_and_an_odd_number() {
        assert_eq!(votes(10_000, 1_000), 9);
        assert_eq!(votes(100_000, 1_000), MOST_VOTES);
        assert_eq!(votes(4_000, 1_000), 3);
        assert_eq!(votes(3_000, 1_000), 3);
        assert_eq!(votes(1_999, 1_000), 1);
        assert_eq!(votes(500, 1_000), 1);
        assert_eq!(votes(500, 0), 1);
    }

    #[test]
    fn the_majority_is_the_option_most_answers_chose() {
        let chose = |options: &[Option<&str>]| options.iter().map(|o| o.map(str::to_string)).collect::<Vec<_>>();
        assert_eq!(majority(&chose(&[Some("Redis"), Some("Postgres"), Some("postgres")])), 1);
        assert_eq!(majority(&chose(&[None, Some("Redis"), Some("Postgres")])), 1);
        assert_eq!(majority(&chose(&[None, None])), 0);
        assert_eq!(majority(&[]), 0);
    }

    #[test]
    fn one_answer_starts_from_the_question_alone() {
        let debated = fixture::with_rounds(2);
        let start = starting_point(&debated, Baseline::Vote);
        assert_eq!(start.question, debated.question);
        assert_eq!(start.analysis, debated.analysis);
        assert_eq!(start.snapshot.project.text, debated.snapshot.project.text);
        assert!(start.panel.is_empty() && start.rounds.is_empty() && start.outcome.is_none());
        assert_eq!(start.totals, Usage::default());
        assert_ne!(start.id, debated.id);
    }
}
