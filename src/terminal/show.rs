//! `debate show <ID>`: a debate in full, the decision first (as the dashboard has it),
//! then the facts, panel and rounds with each perspective's stance. And
//! `--context-preview`: what the debaters read about the project.

use std::fmt::Write;

use crate::model::{Cost, DebateState, Outcome, PriceList, ProjectContext, Round, dollars, tokens};
use crate::text::secrets;
use crate::text::untrusted::for_terminal;
use crate::view::ServerView;

/// The whole debate as text, without escape sequences or controls from any of it, its
/// lines broken between words on a terminal once the secret gate has seen them whole.
/// `record_status` is the record's lifecycle status as the record states it now.
pub fn text(state: &DebateState, servers: &[ServerView], record_status: Option<&str>) -> String {
    let text = secrets::gate(&for_terminal(&unsanitised(state, servers, record_status)));
    super::wrap::fit(&text, super::wrap::width(&std::io::stdout()))
}

fn unsanitised(state: &DebateState, servers: &[ServerView], record_status: Option<&str>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}  {}", state.id, state.status);
    let _ = writeln!(out, "Question:   {}", state.question);
    if let Some(c) = &state.clarification {
        let questions = c.questions().join(" ");
        match &c.answer {
            Some(answer) => {
                let _ = writeln!(out, "Asked:      {questions}\nAnswered:   {answer}");
            }
            None if !c.open().is_empty() => {
                let _ = writeln!(out, "Left open:  {questions}");
            }
            None => {}
        }
    }
    if let Some(outcome) = &state.outcome {
        let _ = write!(out, "\n{}\n", decision(outcome));
    }
    let scores = super::scores::block(state);
    if !scores.is_empty() {
        let _ = writeln!(out, "{scores}");
    }
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
    let _ = writeln!(out, "Record:     {}", state.record_path.as_deref().unwrap_or("-"));
    if let Some(status) = record_status {
        let _ = writeln!(out, "Status:     {status} (the record's)");
    }
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
    out
}

/// What a person opens a finished debate for: the option chosen and the recommendation,
/// how sure it is and what weakens it, what follows, and what to do; each part only
/// where the synthesis has it.
fn decision(outcome: &Outcome) -> String {
    let s = &outcome.synthesis;
    let chosen = s.chosen_option.as_deref().unwrap_or("none (no single option was chosen)");
    let mut out = format!("═══ Decision ═══\nChosen option: {chosen}\n{}\n", s.recommendation);
    if !s.rationale.is_empty() {
        let _ = writeln!(out, "Why: {}", s.rationale);
    }
    let _ = writeln!(out, "Confidence: {}", outcome.confidence.as_str());
    for why in &outcome.lowered {
        let _ = writeln!(out, "  lowered: {why}");
    }
    for d in &outcome.degradations {
        let _ = writeln!(out, "  note: {d}");
    }
    for c in &s.caveats {
        let _ = writeln!(out, "  caveat: {c}");
    }
    out.push_str(&listed("Good consequences", &s.consequences.good));
    out.push_str(&listed("Bad consequences", &s.consequences.bad));
    for d in &s.dissents {
        let prefers = d.option.as_ref().map(|o| format!(" (prefers {o})")).unwrap_or_default();
        let _ = writeln!(out, "Dissent: {}{prefers}: {}", d.perspective, d.view);
    }
    if !s.confirmation.is_empty() {
        let _ = writeln!(out, "Confirmation: {}", s.confirmation);
    }
    out.push_str(&listed("Action items", &s.action_items));
    for path in &s.contradicts {
        let _ = writeln!(out, "Goes against the earlier decision {path}");
    }
    out
}

/// `heading:` and a bullet per item; nothing without items.
fn listed(heading: &str, items: &[String]) -> String {
    let mut out = String::new();
    if !items.is_empty() {
        let _ = writeln!(out, "{heading}:");
        for item in items {
            let _ = writeln!(out, "  • {item}");
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
    use crate::model::{Confidence, fixture};

    #[test]
    fn show_gives_each_rounds_stances_and_the_chosen_option() {
        let shown = unsanitised(&fixture::complete(2), &[], Some("accepted"));
        for round in [1, 2] {
            let stances = format!(
                "Stances after round {round}:\n  Performance Advocate: Redis (medium)\n  Operational Simplicity: Postgres (medium)\n"
            );
            assert!(shown.contains(&stances), "round {round}'s stances:\n{shown}");
        }
        assert!(shown.contains("═══ Decision ═══\nChosen option: Postgres\n"), "{shown}");
        assert!(shown.contains("\nStatus:     accepted (the record's)\n"), "{shown}");
    }

    #[test]
    fn show_leads_with_the_whole_decision_and_the_rounds_follow() {
        let mut state = fixture::complete(2);
        let outcome = state.outcome.as_mut().unwrap();
        outcome.confidence = Confidence::Medium;
        outcome.lowered = vec!["One step lower (Medium) for the degradations listed.".into()];
        outcome.degradations = vec!["Operational Simplicity left the panel in round 2.".into()];
        outcome.synthesis.contradicts = vec!["docs/decisions/0001-use-redis.md".into()];
        let shown = unsanitised(&state, &[], None);
        let decision = "\n\n═══ Decision ═══
Chosen option: Postgres
Cache in Postgres now; add Redis when p99 exceeds 50 ms.
Why: Operational Simplicity showed the load fits one database; Performance Advocate's latency case needs numbers first.
Confidence: Medium
  lowered: One step lower (Medium) for the degradations listed.
  note: Operational Simplicity left the panel in round 2.
  caveat: traffic grows tenfold
Good consequences:
  • one database to run
Bad consequences:
  • cache hits take milliseconds, not microseconds
Dissent: Performance Advocate (prefers Redis): latency will need Redis within a year
Confirmation: p99 of the product page stays under 50 ms for 30 days
Action items:
  • add an UNLOGGED cache table
  • alert on p99 over 50 ms
Goes against the earlier decision docs/decisions/0001-use-redis.md

Repository: ";
        let at = |needle: &str| shown.find(needle).unwrap_or_else(|| panic!("{needle:?} in:\n{shown}"));
        assert!(at("Question:") < at(decision), "{shown}");
        assert!(at(decision) < at("Panel:") && at("Panel:") < at("═══ Round 1 ═══"), "{shown}");
        assert_eq!(shown.matches("═══ Decision ═══").count(), 1, "{shown}");
    }

    #[test]
    fn a_debate_without_a_decision_yet_shows_none() {
        let shown = unsanitised(&fixture::with_rounds(1), &[], None);
        assert!(!shown.contains("═══ Decision") && !shown.contains("Confidence:"), "{shown}");
        assert!(shown.contains("Question:") && shown.contains("═══ Round 1 ═══"), "{shown}");
    }

    #[test]
    fn show_says_when_no_option_was_chosen_and_lists_no_stances_it_does_not_have() {
        let mut state = fixture::complete(1);
        state.outcome.as_mut().unwrap().synthesis.chosen_option = None;
        let round = &mut state.rounds[0];
        for c in round.arguments.iter_mut().chain(&mut round.rebuttals) {
            c.stance = None;
        }
        let shown = unsanitised(&state, &[], None);
        assert!(shown.contains("Chosen option: none (no single option was chosen)"), "{shown}");
        assert!(!shown.contains("Stances after"), "{shown}");
    }
}
