//! `debate show <ID>`: a debate in full: panel, rounds with each perspective's stance,
//! decision. And `--context-preview`: what the debaters read about the project.

use std::fmt::Write;

use crate::model::{Cost, DebateState, PriceList, ProjectContext, Round, dollars, tokens};
use crate::text::secrets;
use crate::text::untrusted::for_terminal;
use crate::view::ServerView;

/// The whole debate as text, without escape sequences or controls from any of it, its
/// lines broken between words on a terminal once the secret gate has seen them whole.
pub fn text(state: &DebateState, servers: &[ServerView]) -> String {
    let text = secrets::gate(&for_terminal(&unsanitised(state, servers)));
    super::wrap::fit(&text, super::wrap::width(&std::io::stdout()))
}

fn unsanitised(state: &DebateState, servers: &[ServerView]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}  {}", state.id, state.status);
    let _ = writeln!(out, "Question:   {}", state.question);
    let _ = writeln!(out, "Repository: {}", state.repo_root);
    let _ = writeln!(out, "Started:    {}", state.created_at);
    let _ = writeln!(
        out,
        "Providers:  moderator {}, debaters {}",
        state.snapshot.moderator.provider, state.snapshot.debater.provider
    );
    if let Some(format) = &state.structured_format {
        let _ = writeln!(out, "Structured: {format} (how the moderator's server took structured answers)");
    }
    for server in servers {
        let _ = writeln!(
            out,
            "Server:     {} serves {} at once ({})",
            server.base_url,
            match server.serves_at_once {
                1 => "one request".to_string(),
                n => format!("{n} requests"),
            },
            server.learned_from
        );
    }
    if let Some(reason) = state.end_reason {
        let _ = writeln!(out, "Ended by:   {reason}");
    }
    if let Some(outcome) = &state.outcome {
        let _ = writeln!(out, "Confidence: {}", outcome.confidence.as_str());
    }
    let _ = writeln!(out, "Record:     {}", state.record_path.as_deref().unwrap_or("-"));
    let _ = writeln!(out, "Commit:     {}", state.commit_id.as_deref().unwrap_or("-"));
    let t = &state.totals;
    let _ = writeln!(
        out,
        "Tokens:     {} prompt ({} of them cached), {} completion",
        t.prompt_tokens, t.cached_tokens, t.completion_tokens
    );
    let _ = writeln!(out, "Cost:       {}", Cost::of(state).describe());
    for d in state.discarded_by_round() {
        let _ = writeln!(
            out,
            "Discarded:  {} round-{} argument(s) ({} tokens), written while the debate was ending",
            d.arguments, d.round, d.tokens
        );
    }

    let _ = write!(out, "\n{}", sources(&state.snapshot.project));
    let _ = writeln!(out, "\nPanel:");
    for seat in &state.panel {
        let _ = writeln!(out, "  • {} — {}", seat.name(), seat.reason);
    }
    let prices = PriceList::of(&state.snapshot);
    for round in &state.rounds {
        let _ = writeln!(out, "\n═══ Round {} ═══", round.number);
        if let Some(g) = &round.guidance {
            let _ = writeln!(out, "Guidance: {g}");
        }
        for c in round.contributions() {
            let cut = match (c.looped, c.truncated) {
                (true, _) => " (stopped where it began to repeat itself)",
                (false, true) => " (cut off at the length limit)",
                _ => "",
            };
            let u = &c.usage;
            let cost = match prices.price(&c.model) {
                Some(price) => format!(", {}", dollars(price.of(u))),
                None => String::new(),
            };
            let tokens = format!("{} prompt tokens, {} of them cached{cost}", u.prompt_tokens, u.cached_tokens);
            let _ = writeln!(out, "\n[{} — {}{cut}] {tokens}\n{}", state.name(c.seat), c.kind, c.text.trim());
        }
        if let Some(e) = &round.evaluation {
            let _ = writeln!(out, "\nModerator ({}): {}", e.assessment.describe(), e.summary);
        }
        out.push_str(&stances(state, round));
    }
    if let Some(outcome) = &state.outcome {
        let s = &outcome.synthesis;
        let chosen = s.chosen_option.as_deref().unwrap_or("none (no single option was chosen)");
        let _ = writeln!(out, "\n═══ Decision ═══\nChosen option: {chosen}\n{}", s.recommendation);
        for c in &s.caveats {
            let _ = writeln!(out, "  caveat: {c}");
        }
        for d in &outcome.degradations {
            let _ = writeln!(out, "  note: {d}");
        }
    }
    out
}

/// Where each perspective stood at the end of `round`, as the record's Debate Log has it;
/// nothing when no stance was stated (the question named no options).
fn stances(state: &DebateState, round: &Round) -> String {
    let mut out = String::new();
    for seat in 0..state.panel.len() {
        if let Some(stance) = round.stance(seat) {
            let _ = writeln!(out, "  {}: {}", state.name(seat), stance.brief());
        }
    }
    match out.is_empty() {
        true => out,
        false => format!("\nStances after round {}:\n{out}", round.number),
    }
}

/// What the debaters read about the project: each part with its tokens, then the text
/// exactly as they read it.
pub fn context(project: &ProjectContext) -> String {
    let mut out = sources(project);
    if let Some(c) = &project.convention {
        let numbered = if c.numbered { ", numbered" } else { "" };
        let _ = writeln!(out, "Decision records: {} in {}/{numbered}", c.records, c.directory);
    }
    let _ = writeln!(out, "\n─── what the debaters read, before the question and the panel ───");
    let _ = writeln!(out, "{}", if project.text.is_empty() { "(nothing)" } else { &project.text });
    for_terminal(&out)
}

/// "Context (budget 8,000 tokens, estimated at 4 bytes each):" and a line per part.
fn sources(project: &ProjectContext) -> String {
    let mut out = String::new();
    let repository = if project.repository { "" } else { "; the repository was not read" };
    let _ = writeln!(out, "Context (budget {}, estimated at 4 bytes a token{repository}):", tokens(project.budget));
    for source in &project.sources {
        let _ = writeln!(out, "  {}", source.describe());
    }
    if project.sources.is_empty() {
        let _ = writeln!(out, "  (none)");
    }
    for note in &project.notes {
        let _ = writeln!(out, "Not read: {note}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fixture;

    #[test]
    fn show_gives_each_rounds_stances_and_the_chosen_option() {
        let shown = unsanitised(&fixture::complete(2), &[]);
        for round in [1, 2] {
            let stances = format!(
                "Stances after round {round}:\n  Performance Advocate: Redis (medium)\n  Operational Simplicity: Postgres (medium)\n"
            );
            assert!(shown.contains(&stances), "round {round}'s stances:\n{shown}");
        }
        assert!(shown.contains("═══ Decision ═══\nChosen option: Postgres\n"), "{shown}");
    }

    #[test]
    fn show_says_when_no_option_was_chosen_and_lists_no_stances_it_does_not_have() {
        let mut state = fixture::complete(1);
        state.outcome.as_mut().unwrap().synthesis.chosen_option = None;
        let round = &mut state.rounds[0];
        for c in round.arguments.iter_mut().chain(&mut round.rebuttals) {
            c.stance = None;
        }
        let shown = unsanitised(&state, &[]);
        assert!(shown.contains("Chosen option: none (no single option was chosen)"), "{shown}");
        assert!(!shown.contains("Stances after"), "{shown}");
    }
}
