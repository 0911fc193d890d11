//! Everything the user sees. Progress and reports go to stderr, results to stdout;
//! colour only on a terminal and never with `NO_COLOR`.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};

use crate::engine::run::Events;
use crate::engine::state::{Contribution, ContributionKind, DebateState, EndReason, Outcome, Round};
use crate::error::{Error, Result};
use crate::record::{Published, issue::Draft};

pub mod list;
pub mod show;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verbosity {
    Quiet,
    Normal,
    Verbose,
}

pub struct Terminal {
    verbosity: Verbosity,
    colour: bool,
    /// stderr is a terminal: debaters' text streams in as it arrives.
    streaming: bool,
    live: Option<Live>,
}

/// The step being streamed: one debater is shown live, the others wait their turn in
/// panel order, so parallel debaters never interleave.
struct Live {
    order: Vec<(usize, String)>,
    kind: ContributionKind,
    current: usize,
    waiting: BTreeMap<usize, String>,
}

impl Terminal {
    pub fn new(verbosity: Verbosity) -> Terminal {
        let terminal = std::io::stderr().is_terminal();
        let colour = terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
        Terminal { verbosity, colour, streaming: terminal && verbosity >= Verbosity::Normal, live: None }
    }

    fn write_raw(&self, text: &str) {
        let mut stderr = std::io::stderr();
        let _ = stderr.write_all(text.as_bytes()).and_then(|_| stderr.flush());
    }

    /// Open the next debater's live text: a header and whatever arrived already.
    fn show_next_live(&mut self) {
        let Some(live) = self.live.as_mut() else { return };
        let Some((seat, name)) = live.order.get(live.current).cloned() else { return };
        let waiting = live.waiting.remove(&seat).unwrap_or_default();
        let title = format!("── {name} ({}) ──", live.kind);
        let header = self.paint("2", &title);
        self.write_raw(&format!("{header}\n{waiting}"));
    }

    /// The live debater is done and its ✓ line is out: open the next one.
    fn advance_live(&mut self) {
        let Some(live) = self.live.as_mut() else { return };
        live.current += 1;
        if live.current >= live.order.len() {
            self.live = None;
        } else {
            self.show_next_live();
        }
    }

    /// A line on stderr at normal verbosity. A closed stderr is not worth a panic.
    pub fn say(&self, text: &str) {
        if self.verbosity >= Verbosity::Normal {
            let _ = writeln!(std::io::stderr(), "{text}");
        }
    }

    fn detail(&self, text: &str) {
        if self.verbosity >= Verbosity::Verbose {
            let _ = writeln!(std::io::stderr(), "{text}");
        }
    }

    pub fn warn(&self, text: &str) {
        let _ = writeln!(std::io::stderr(), "{} {text}", self.paint("33", "warning:"));
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.colour { format!("\x1b[{code}m{text}\x1b[0m") } else { text.to_string() }
    }

    fn heading(&self, text: &str) -> String {
        self.paint("1", text)
    }
}

/// Print a result on stdout. A reader that went away (`debate --list | head -1`) is
/// not an error.
pub fn print_out(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(err) if err.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(Error::general(format!("cannot write to stdout: {err}")))
        }
        _ => Ok(()),
    }
}

pub fn print_json<T: serde::Serialize>(value: &T) -> Result<()> {
    let text =
        serde_json::to_string_pretty(value).map_err(|err| Error::general(format!("cannot encode JSON: {err}")))?;
    print_out(&format!("{text}\n"))
}

/// `1.2s`, `850ms`.
fn seconds(ms: u64) -> String {
    if ms < 1000 { format!("{ms}ms") } else { format!("{:.1}s", ms as f64 / 1000.0) }
}

impl Events for Terminal {
    fn panel(&mut self, state: &DebateState) {
        self.say(&self.heading(&format!("Panel: {} perspectives", state.panel.len())));
        for seat in &state.panel {
            self.say(&format!("  • {} — {}", seat.name(), seat.reason));
        }
        if state.analysis.vague {
            self.warn("the question is vague; the debaters will state their assumptions (the record notes this)");
        }
    }

    fn round_started(&mut self, round: u32, framing: &str) {
        self.say(&self.heading(&format!("\n═══ Round {round} ═══")));
        self.detail(&format!("Moderator: {framing}"));
    }

    fn live(&self) -> bool {
        self.streaming
    }

    fn working(&mut self, round: u32, kind: ContributionKind, seats: &[(usize, String)]) {
        let names: Vec<&str> = seats.iter().map(|(_, n)| n.as_str()).collect();
        let doing = if kind == ContributionKind::Argument { "arguing" } else { "rebutting" };
        self.detail(&format!("  round {round}: {} {doing}…", names.join(", ")));
        if self.streaming {
            self.live = Some(Live { order: seats.to_vec(), kind, current: 0, waiting: BTreeMap::new() });
            self.show_next_live();
        }
    }

    fn delta(&mut self, seat: usize, text: &str) {
        let Some(live) = self.live.as_mut() else { return };
        if live.order.get(live.current).is_some_and(|(s, _)| *s == seat) {
            self.write_raw(text);
        } else {
            live.waiting.entry(seat).or_default().push_str(text);
        }
    }

    fn contribution(&mut self, _round: u32, name: &str, c: &Contribution) {
        let streamed = self.live.is_some();
        if streamed {
            self.write_raw("\n");
        }
        let tokens = c.usage.completion_tokens;
        self.say(&format!("  ✓ {name}: {} ({tokens} tokens, {})", c.kind, seconds(c.usage.latency_ms)));
        if streamed {
            self.advance_live();
        } else {
            self.detail(&format!("{}\n", c.text));
        }
    }

    fn failed(&mut self, _round: u32, name: &str) {
        let streamed = self.live.is_some();
        if streamed {
            self.write_raw("\n");
        }
        self.say(&format!("  ✗ {name}: the provider failed"));
        if streamed {
            self.advance_live();
        }
    }

    fn dropped(&mut self, name: &str, reason: &str) {
        self.warn(&format!("{name} leaves the panel after repeated provider failures ({reason}); the record says so"));
    }

    fn assessed(&mut self, state: &DebateState, round: &Round) {
        let Some(evaluation) = &round.evaluation else { return };
        self.say(&format!("{} {}", self.paint("36", "Moderator:"), evaluation.summary));
        let mut facts = vec![format!("assessment: {}", evaluation.assessment.describe())];
        if let Some(m) = &round.measures {
            facts.push(format!("novelty {:.0}%", m.novelty * 100.0));
        }
        let repetition = state.repetition_figures(round);
        if !repetition.is_empty() {
            facts.push(format!("repetition: {}", repetition.join(", ")));
        }
        if evaluation.agreement {
            facts.push("debaters agree".into());
        }
        if let Some(winner) = &evaluation.clear_winner {
            facts.push(format!("clear winner: {winner}"));
        }
        if evaluation.fallback {
            facts.push("moderator answer unreadable, local measures used".into());
        }
        self.say(&format!("  {}", facts.join(" · ")));
    }

    fn ended(&mut self, reason: EndReason) {
        let why = match reason {
            EndReason::Agreement => "the debaters agree",
            EndReason::ClearWinner => "one perspective won the others over",
            EndReason::Stagnation => "the debate stopped producing new points",
            EndReason::MaxRounds => "the round limit was reached without convergence",
            EndReason::Human => "ended at a checkpoint",
            EndReason::Timeout => "time ran out",
        };
        self.say(&self.heading(&format!("\nDebate ended: {reason} ({why})")));
    }

    fn synthesized(&mut self, outcome: &Outcome) {
        let s = &outcome.synthesis;
        self.say(&format!("{} {}", self.heading("Recommendation:"), s.recommendation));
        self.say(&format!("Confidence: {}", outcome.confidence.as_str()));
        for caveat in &s.caveats {
            self.say(&format!("  caveat: {caveat}"));
        }
        for d in &outcome.degradations {
            self.say(&format!("  note: {d}"));
        }
    }

    fn wants_issue_draft(&mut self) -> bool {
        if !std::io::stdin().is_terminal() || !std::io::stderr().is_terminal() {
            return false;
        }
        let question = dialoguer::Confirm::new()
            .with_prompt("Write an issue draft for the follow-up work?")
            .default(false)
            .interact_on_opt(&dialoguer::console::Term::stderr());
        // Esc, EOF or a closed terminal count as no.
        matches!(question, Ok(Some(true)))
    }

    fn recorded(&mut self, state: &DebateState, record: &Published, draft: Option<&Draft>) {
        let shown = record.path.strip_prefix(&state.repo_root).unwrap_or(&record.path).display().to_string();
        for warning in &record.warnings {
            self.warn(warning);
        }
        let short = |commit: &str| commit.chars().take(10).collect::<String>();
        match (&record.commit, &record.branch, &record.not_committed) {
            (Some(commit), Some(branch), _) => {
                self.say(&format!(
                    "\nDecision record committed as {} on the new branch {branch} ({shown});",
                    short(commit)
                ));
                self.say("your checked-out branch, index and working tree are unchanged. Open a pull request with:");
                self.say(&format!("  git push -u origin {branch}\n  gh pr create --head {branch} --fill"));
            }
            (Some(commit), None, _) => {
                self.say(&format!("\nDecision record written to {shown} and committed as {}.", short(commit)));
            }
            (None, _, reason) => {
                let why = reason.as_deref().unwrap_or("committing is off");
                self.say(&format!("\nDecision record written to {shown}; not committed ({why})."));
            }
        }
        if let Some(draft) = draft {
            let path = draft.path.strip_prefix(&state.repo_root).unwrap_or(&draft.path).display().to_string();
            self.say(&format!("Issue draft written to {path} (not committed). File it with:\n  {}", draft.command));
        }
        self.say(&format!("Debate {} is complete.", state.id));
    }
}
