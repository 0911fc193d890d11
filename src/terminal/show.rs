//! `debate --show <ID>`: a debate in full: panel, rounds, decision.

use std::fmt::Write;

use crate::model::DebateState;
use crate::text::untrusted::for_terminal;

/// The whole debate as text, without escape sequences or controls from any of it.
pub fn text(state: &DebateState) -> String {
    for_terminal(&unsanitised(state))
}

fn unsanitised(state: &DebateState) -> String {
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
    if let Some(reason) = state.end_reason {
        let _ = writeln!(out, "Ended by:   {reason}");
    }
    if let Some(outcome) = &state.outcome {
        let _ = writeln!(out, "Confidence: {}", outcome.confidence.as_str());
    }
    let _ = writeln!(out, "Record:     {}", state.record_path.as_deref().unwrap_or("-"));
    let _ = writeln!(out, "Commit:     {}", state.commit_id.as_deref().unwrap_or("-"));
    let t = &state.totals;
    let _ = writeln!(out, "Tokens:     {} prompt, {} completion", t.prompt_tokens, t.completion_tokens);

    let _ = writeln!(out, "\nPanel:");
    for seat in &state.panel {
        let _ = writeln!(out, "  • {} — {}", seat.name(), seat.reason);
    }
    for round in &state.rounds {
        let _ = writeln!(out, "\n═══ Round {} ═══", round.number);
        if let Some(g) = &round.guidance {
            let _ = writeln!(out, "Guidance: {g}");
        }
        for c in round.contributions() {
            let _ = writeln!(out, "\n[{} — {}]\n{}", state.name(c.seat), c.kind, c.text.trim());
        }
        if let Some(e) = &round.evaluation {
            let _ = writeln!(out, "\nModerator ({}): {}", e.assessment.describe(), e.summary);
        }
    }
    if let Some(outcome) = &state.outcome {
        let s = &outcome.synthesis;
        let _ = writeln!(out, "\n═══ Decision ═══\n{}", s.recommendation);
        for c in &s.caveats {
            let _ = writeln!(out, "  caveat: {c}");
        }
        for d in &outcome.degradations {
            let _ = writeln!(out, "  note: {d}");
        }
    }
    out
}
