//! `debate show <ID>`: a debate in full, the decision first (as the dashboard has it),
//! then the facts, panel and rounds with each perspective's stance. And
//! `--context-preview`: what the debaters read about the project.

use std::fmt::Write;

use serde_json::Value;

use crate::model::{Part, ProjectContext, Shape, dollars, tokens};
use crate::text::secrets;
use crate::text::untrusted::for_terminal;
use crate::view::{ContextView, Detail, OutcomeView, RoundView};

/// The whole debate as text, without escape sequences or controls from any of it, its
/// lines broken between words on a terminal once the secret gate has seen them whole.
pub fn text(detail: &Detail) -> String {
    let text = secrets::gate(&for_terminal(&unsanitised(detail)));
    super::wrap::fit(&text, super::wrap::width(&std::io::stdout()))
}

/// What a finished run reports: the debate's head as `text` shows it — question, the
/// decision, and the facts (record, commit, tokens, cost) — without the panel and the
/// rounds, and without escape sequences or controls.
pub fn head(detail: &Detail) -> String {
    secrets::gate(&for_terminal(&unsanitised_head(detail)))
}

fn unsanitised(detail: &Detail) -> String {
    let mut out = unsanitised_head(detail);
    let _ = write!(out, "\n{}", sources(&detail.context));
    let _ = writeln!(out, "\nPanel:");
    for seat in &detail.panel {
        let _ = writeln!(out, "  • {} — {}", seat.perspective, seat.reason);
    }
    for round in &detail.transcript {
        let _ = writeln!(out, "\n═══ Round {} ═══", round.number);
        if let Some(g) = &round.guidance {
            let _ = writeln!(out, "Guidance: {g}");
        }
        for c in round.arguments.iter().chain(&round.rebuttals) {
            let cut = match (c.looped, c.truncated) {
                (true, _) => " (stopped where it began to repeat itself)",
                (false, true) => " (cut off at the length limit)",
                _ => "",
            };
            let cost = c.cost_usd.map(|usd| format!(", {}", dollars(usd))).unwrap_or_default();
            let tokens = format!("{} prompt tokens, {} of them cached{cost}", c.tokens.prompt, c.tokens.cached);
            let _ = writeln!(out, "\n[{} — {}{cut}] {tokens}\n{}", c.perspective, c.kind, c.text.trim());
        }
        if let Some(e) = &round.evaluation {
            let _ = writeln!(out, "\nModerator ({}): {}", e.assessment.describe(), e.summary);
        }
        out.push_str(&stances(detail, round));
    }
    out
}

fn unsanitised_head(detail: &Detail) -> String {
    let summary = &detail.summary;
    let mut out = String::new();
    let _ = writeln!(out, "{}  {}", summary.id, summary.status);
    let _ = writeln!(out, "Question:   {}", summary.question);
    if let Some(c) = &detail.clarification {
        let questions = c.questions.join(" ");
        match &c.answer {
            Some(answer) => {
                let _ = writeln!(out, "Asked:      {questions}\nAnswered:   {answer}");
            }
            None if c.open => {
                let _ = writeln!(out, "Left open:  {questions}");
            }
            None => {}
        }
    }
    if let Some(outcome) = &detail.outcome {
        let _ = write!(out, "\n{}\n", decision(outcome));
    }
    let scores = super::scores::block(&detail.evaluations, detail.revisions.len());
    if !scores.is_empty() {
        let _ = writeln!(out, "{scores}");
    }
    let _ = writeln!(out, "Repository: {}", summary.repository);
    let _ = writeln!(out, "Started:    {}", summary.created_at);
    let providers = &detail.providers;
    let _ = writeln!(
        out,
        "Providers:  moderator {}, debaters {}",
        providers.moderator.provider, providers.debater.provider
    );
    if let Some(format) = &detail.structured_output {
        let _ = writeln!(out, "Structured: {format} (how the moderator's server took structured answers)");
    }
    for server in &detail.servers {
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
    if let Some(reason) = summary.ended_by {
        let _ = writeln!(out, "Ended by:   {reason}");
    }
    let _ = writeln!(out, "Record:     {}", summary.record_path.as_deref().unwrap_or("-"));
    if let Some(status) = &summary.record_status {
        let _ = writeln!(out, "Status:     {status} (the record's)");
    }
    if let Some(signature) = &summary.record_signature {
        let _ = writeln!(out, "Signature:  {} (the record's; `debate verify` checks it)", signature.said);
    }
    let _ = writeln!(out, "Commit:     {}", summary.commit_id.as_deref().unwrap_or("-"));
    let t = &summary.tokens;
    let _ = writeln!(out, "Tokens:     {} prompt ({} of them cached), {} completion", t.prompt, t.cached, t.completion);
    let _ = writeln!(out, "Cost:       {}", detail.cost.describe());
    if !detail.cap.is_none() {
        let _ = writeln!(out, "Cap:        {}", detail.cap.describe());
    }
    for m in detail.models.iter().filter(|m| m.retries > 0) {
        let _ = writeln!(out, "Retried:    {} tries of {}'s calls failed and were made again", m.retries, m.model);
    }
    if let Some(early) = &detail.analysis.early {
        let names = |names: &[String]| if names.is_empty() { "none".to_string() } else { names.join(", ") };
        let _ = writeln!(
            out,
            "Early:      round 1 begun while the moderator read the question; kept: {}; written again: {}",
            names(&early.kept),
            names(&early.redone)
        );
    }
    for d in &detail.discarded {
        let when = match d.round {
            1 => "while the moderator read the question, whose reading changed what was asked",
            _ => "while the debate was ending",
        };
        let _ = writeln!(
            out,
            "Discarded:  {} round-{} argument(s) ({} tokens), written {when}",
            d.arguments, d.round, d.tokens
        );
    }

    out
}

/// What a person opens a finished debate for: the option chosen and the recommendation,
/// how sure it is and what weakens it, then every section of the decision that has
/// something in it, as the record orders them.
fn decision(outcome: &OutcomeView) -> String {
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
    for part in outcome.sections.iter().filter(|part| !part.is_empty()) {
        out.push_str(&section(part));
    }
    for path in &s.contradicts {
        let _ = writeln!(out, "Goes against the earlier decision {path}");
    }
    out
}

/// A section of the decision: its heading, and a line per point.
fn section(part: &Part) -> String {
    let value = &part.value;
    let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
    let points = |v: &Value| -> Vec<String> { v.as_array().into_iter().flatten().map(text).collect() };
    let lines: Vec<String> = match part.section.shape {
        Shape::Text | Shape::Date => return format!("{}: {}\n", part.section.heading, text(value)),
        Shape::Points | Shape::Tasks | Shape::Guards => points(value),
        Shape::GoodBad => {
            let good = points(&value["good"]).into_iter().map(|p| format!("good: {p}"));
            good.chain(points(&value["bad"]).into_iter().map(|p| format!("bad: {p}"))).collect()
        }
        Shape::Options => value
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|o| {
                let option = text(&o["option"]);
                let pros = points(&o["pros"]).into_iter().map(move |p| format!("for: {p}"));
                let cons = points(&o["cons"]).into_iter().map(|p| format!("against: {p}"));
                std::iter::once(option).chain(pros.chain(cons).map(|line| format!("{NESTED}{line}")))
            })
            .collect(),
        Shape::Perspectives => value
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|p| {
                let argued = points(&p["key_arguments"]).into_iter().map(|a| format!("{NESTED}argues: {a}"));
                let gives = points(&p["trade_offs_accepted"]).into_iter().map(|t| format!("{NESTED}gives up: {t}"));
                std::iter::once(text(&p["name"])).chain(argued).chain(gives)
            })
            .collect(),
        Shape::Dissents => value
            .as_array()
            .into_iter()
            .flatten()
            .map(|d| {
                let prefers = d["option"].as_str().map(|o| format!(" (prefers {o})")).unwrap_or_default();
                format!("{}{prefers}: {}", text(&d["perspective"]), text(&d["view"]))
            })
            .collect(),
    };
    let mut out = format!("{}:\n", part.section.heading);
    for line in lines {
        match line.strip_prefix(NESTED) {
            Some(nested) => writeln!(out, "      {nested}"),
            None => writeln!(out, "  • {line}"),
        }
        .unwrap_or_default();
    }
    out
}

/// Marks a line that belongs to the point above it.
const NESTED: &str = "\u{0}";

/// Where each perspective stood at the end of `round`, as the record's Debate Log has it;
/// nothing when no stance was stated (the question named no options).
fn stances(detail: &Detail, round: &RoundView) -> String {
    let mut out = String::new();
    for seat in &detail.panel {
        if let Some(stance) = round.stance_of(&seat.perspective) {
            let _ = writeln!(out, "  {}: {}", seat.perspective, stance.brief());
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
    let project = ContextView::of(project);
    let mut out = sources(&project);
    if let Some(c) = &project.convention {
        let numbered = if c.numbered { ", numbered" } else { "" };
        let _ = writeln!(out, "Decision records: {} in {}/{numbered}", c.records, c.directory);
    }
    let _ = writeln!(out, "\n─── what the debaters read, before the question and the panel ───");
    let _ = writeln!(out, "{}", if project.text.is_empty() { "(nothing)" } else { &project.text });
    for_terminal(&out)
}

/// "Context (budget 8,000 tokens, estimated at 4 bytes each):" and a line per part.
fn sources(project: &ContextView) -> String {
    let mut out = String::new();
    let repository = if project.repository { "" } else { "; the repository was not read" };
    let _ =
        writeln!(out, "Context (budget {}, estimated at 4 bytes a token{repository}):", tokens(project.budget_tokens));
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
    use crate::view::Summary;

    #[test]
    fn show_gives_each_rounds_stances_and_the_chosen_option() {
        let shown = unsanitised(&Detail {
            summary: Summary { record_status: Some("accepted".into()), ..Detail::of(&fixture::complete(2)).summary },
            ..Detail::of(&fixture::complete(2))
        });
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
        let shown = unsanitised(&Detail::of(&state));
        let decision = "\n\n═══ Decision ═══
Chosen option: Postgres
Cache in Postgres now; add Redis when p99 exceeds 50 ms.
Why: Operational Simplicity showed the load fits one database; Performance Advocate's latency case needs numbers first.
Confidence: Medium
  lowered: One step lower (Medium) for the degradations listed.
  note: Operational Simplicity left the panel in round 2.
Consequences:
  • good: one database to run
  • bad: cache hits take milliseconds, not microseconds
Confirmation: p99 of the product page stays under 50 ms for 30 days
Action Items:
  • add an UNLOGGED cache table
  • alert on p99 over 50 ms
Caveats:
  • traffic grows tenfold
Considered Options:
  • Redis
      for: sub-millisecond reads (Performance Advocate)
      against: another service to run (Operational Simplicity)
  • Postgres
      for: already run and backed up (Operational Simplicity)
      against: slower cache hits (Performance Advocate)
Perspectives Considered:
  • Performance Advocate
      argues: sub-millisecond reads
      gives up: another service to run
  • Operational Simplicity
      argues: one database to run
      gives up: slower cache hits
Points of Agreement:
  • measure before adding Redis
Key Tensions:
  • latency against operations
Dissenting View:
  • Performance Advocate (prefers Redis): latency will need Redis within a year
Goes against the earlier decision docs/decisions/0001-use-redis.md

Repository: ";
        let at = |needle: &str| shown.find(needle).unwrap_or_else(|| panic!("{needle:?} in:\n{shown}"));
        assert!(at("Question:") < at(decision), "{shown}");
        assert!(at(decision) < at("Panel:") && at("Panel:") < at("═══ Round 1 ═══"), "{shown}");
        assert_eq!(shown.matches("═══ Decision ═══").count(), 1, "{shown}");
    }

    #[test]
    fn a_debate_without_a_decision_yet_shows_none() {
        let shown = unsanitised(&Detail::of(&fixture::with_rounds(1)));
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
        let shown = unsanitised(&Detail::of(&state));
        assert!(shown.contains("Chosen option: none (no single option was chosen)"), "{shown}");
        assert!(!shown.contains("Stances after"), "{shown}");
    }
}
