//! Everything the user sees. Progress and reports go to stderr, results to stdout;
//! colour only on a terminal, never with `NO_COLOR`, always with `CLICOLOR_FORCE`
//! (anstream decides, anstyle styles).

use std::cell::RefCell;
use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use anstyle::{AnsiColor, Style};

use crate::model::{
    Clarified, Contribution, ContributionKind, DebateState, Decision, Draft, EndReason, Events, Outcome, Pending,
    Published, Round,
};
use crate::text::secrets;
use crate::text::untrusted::{for_terminal, is_bidi_control, one_line};

mod in_order;
pub mod list;
pub mod pager;
pub mod progress;
pub mod prompt;
pub mod scores;
pub mod show;
pub mod suite;
mod wrap;

use in_order::InOrder;
use progress::Progress;

const HEADING: Style = Style::new().bold();
const HEADER: Style = Style::new().dimmed();
const MODERATOR: Style = AnsiColor::Cyan.on_default();
const WARNING: Style = AnsiColor::Yellow.on_default();

/// Writing a result failed for a reason other than a reader that went away.
#[derive(Debug, thiserror::Error)]
#[error("cannot write to stdout: {0}")]
pub struct OutputError(#[from] std::io::Error);

impl OutputError {
    pub fn exit_code(&self) -> u8 {
        1
    }

    pub fn hint(&self) -> Option<String> {
        None
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verbosity {
    Quiet,
    Normal,
    Verbose,
}

pub struct Terminal {
    verbosity: Verbosity,
    /// Spinners, on a terminal only; lines then go above them.
    progress: Option<Progress>,
    started: Instant,
    /// Round after round, however the work overlapped.
    order: RefCell<InOrder<(String, Layout)>>,
    /// The rounds the debate may take, for `Round N of M`.
    rounds: u32,
    /// A checkpoint was shown in this run.
    asked_at_checkpoint: bool,
}

impl Terminal {
    pub fn new(verbosity: Verbosity) -> Terminal {
        let terminal = std::io::stderr().is_terminal();
        let progress = if terminal && verbosity >= Verbosity::Normal { Progress::on_stderr() } else { None };
        Terminal {
            verbosity,
            progress,
            started: Instant::now(),
            order: RefCell::default(),
            rounds: 0,
            asked_at_checkpoint: false,
        }
    }

    fn line(&self, text: &str) {
        self.print(text, Layout::Prose);
    }

    /// A line now, or when its round's turn comes (`InOrder`).
    fn print(&self, text: &str, layout: Layout) {
        let passed = self.order.borrow_mut().pass((text.to_string(), layout));
        if let Some((text, layout)) = passed {
            self.emit(&text, layout);
        }
    }

    fn emit(&self, text: &str, layout: Layout) {
        match &self.progress {
            Some(progress) => progress.suspend(|| eprint_line(text, layout)),
            None => eprint_line(text, layout),
        }
    }

    fn emit_held(&self, held: Vec<(String, Layout)>) {
        for (text, layout) in held {
            self.emit(&text, layout);
        }
    }

    /// What `say` prints while `say` runs belongs to round `round`: it waits for the end
    /// line of the round before, and the round's header comes first.
    fn for_round(&mut self, round: u32, say: impl FnOnce(&mut Terminal)) {
        self.order.borrow_mut().speak_for(Some(round));
        if self.order.borrow_mut().needs_header(round) {
            self.styled(HEADING, &format!("\n═══ Round {round} of {} ═══", self.rounds.max(round)));
        }
        say(self);
        self.order.borrow_mut().speak_for(None);
    }

    /// The debate ended or paused: every line held back goes now.
    fn release(&self) {
        let held = self.order.borrow_mut().release();
        self.emit_held(held);
    }

    /// A line on stderr at normal verbosity. Whatever it holds from a model, the
    /// question or a repository is shown without escape sequences or controls.
    pub fn say(&self, text: &str) {
        if self.verbosity >= Verbosity::Normal {
            self.line(&for_terminal(text));
        }
    }

    /// A command to copy, at normal verbosity: never broken across lines.
    pub fn command(&self, text: &str) {
        if self.verbosity >= Verbosity::Normal {
            self.print(&for_terminal(text), Layout::Verbatim);
        }
    }

    /// A line on stderr with `-v` only.
    pub fn detail(&self, text: &str) {
        if self.verbosity >= Verbosity::Verbose {
            self.line(&for_terminal(text));
        }
    }

    pub fn warn(&self, text: &str) {
        self.line(&format!("{} {}", paint(WARNING, "warning:"), for_terminal(text)));
    }

    /// A whole line in `style`, at normal verbosity.
    fn styled(&self, style: Style, text: &str) {
        if self.verbosity >= Verbosity::Normal {
            self.line(&paint(style, &for_terminal(text)));
        }
    }

    /// `label` in `style`, then `text`, at normal verbosity.
    fn labelled(&self, style: Style, label: &str, text: &str) {
        if self.verbosity >= Verbosity::Normal {
            self.line(&format!("{} {}", paint(style, label), for_terminal(text)));
        }
    }

    fn clear_progress(&mut self) {
        if let Some(progress) = self.progress.as_mut() {
            progress.clear();
        }
    }

    /// Where a debate being resumed stands: question, panel, rounds so far, last assessment.
    pub fn resume_summary(&mut self, state: &DebateState) {
        self.say(&format!("Resuming {}: {}", state.id, state.question));
        self.say(&format!("Panel: {}", state.panel_names().join(", ")));
        let rounds = state.rounds.len();
        self.say(&format!("{rounds} round{} so far; status {}", if rounds == 1 { "" } else { "s" }, state.status));
        self.rounds = u32::from(state.snapshot.debate.max_rounds.get());
        let judged = state.rounds.iter().rev().find(|r| r.evaluation.is_some());
        if let Some(round) = judged {
            self.round_report(state, round);
        }
        // The log takes up after the last round that ended; a round begun in an earlier
        // run gets its header again before its first line.
        *self.order.borrow_mut() = InOrder::after(judged.map_or(0, |r| r.number));
    }

    /// `═══ Round N Complete ═══`, the moderator's assessment and the local measures.
    fn round_report(&self, state: &DebateState, round: &Round) {
        let Some(evaluation) = &round.evaluation else { return };
        self.styled(HEADING, &format!("═══ Round {} Complete ═══", round.number));
        self.labelled(MODERATOR, "Moderator:", &evaluation.summary);
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
        if evaluation.folded {
            facts.push("weighed in the synthesis".into());
        }
        if evaluation.fallback {
            facts.push("moderator answer unreadable, local measures used".into());
        }
        self.say(&format!("  {}", facts.join(" · ")));
    }
}

/// `text` in `style`; anstream drops the style where colour is not wanted.
fn paint(style: Style, text: &str) -> String {
    format!("{style}{text}{style:#}")
}

/// How a line is laid out on a terminal.
#[derive(Debug, Clone, Copy)]
enum Layout {
    /// Broken between words at the terminal's width.
    Prose,
    /// As it is: a command, which a line break would cut in two when copied.
    Verbatim,
}

/// A line on stderr, coloured only where colour is wanted; prose is broken between words
/// on a terminal, after the secret gate has seen it whole. A closed stderr is not worth
/// a panic.
fn eprint_line(text: &str, layout: Layout) {
    let text = secrets::gate(text);
    let text = match layout {
        Layout::Prose => wrap::fit(&text, wrap::width(&std::io::stderr())),
        Layout::Verbatim => text,
    };
    let _ = writeln!(anstream::stderr(), "{text}");
}

/// Print a result on stdout. A reader that went away (`debate list | head -1`) is
/// not an error.
pub fn print_out(text: &str) -> Result<(), OutputError> {
    let text = secrets::gate(text);
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(err) if err.kind() != std::io::ErrorKind::BrokenPipe => Err(err.into()),
        _ => Ok(()),
    }
}

/// A JSON document on stdout: every string through the secret gate, and characters
/// that would reorder or control a terminal written as `\uXXXX` escapes.
pub fn print_json<T: serde::Serialize>(value: &T) -> Result<(), OutputError> {
    let text = secrets::gated_json(value, true).expect("documents serialise");
    print_out(&format!("{}\n", escape_invisible(&text)))
}

/// C1 controls and bidi controls as JSON escapes. serde_json escapes only C0 controls,
/// and in a JSON text these characters can stand only inside strings, where an escape
/// means the same character.
fn escape_invisible(json: &str) -> String {
    json.chars()
        .map(|c| match c {
            '\u{80}'..='\u{9f}' => format!("\\u{:04x}", c as u32),
            c if is_bidi_control(c) => format!("\\u{:04x}", c as u32),
            c => c.to_string(),
        })
        .collect()
}

/// `1.2s`, `850ms`.
fn seconds(ms: u64) -> String {
    if ms < 1000 { format!("{ms}ms") } else { format!("{:.1}s", ms as f64 / 1000.0) }
}

impl Terminal {
    /// A question for the human, if one can answer: spinners are cleared first.
    fn ask<T: Send + 'static>(
        &mut self,
        patience: Duration,
        fallback: T,
        question: impl FnOnce(&prompt::Asking) -> T + Send + 'static,
    ) -> Option<Pending<T>> {
        if !prompt::interactive() {
            return None;
        }
        self.clear_progress();
        Some(prompt::ask(patience, fallback, question))
    }
}

impl Events for Terminal {
    fn attended(&self) -> bool {
        prompt::interactive()
    }

    fn checkpoint(&mut self, _state: &DebateState, _round: u32, patience: Duration) -> Option<Pending<Decision>> {
        let asked = self.ask(patience, Decision::EndOfInput, prompt::checkpoint);
        self.asked_at_checkpoint |= asked.is_some();
        asked
    }

    fn clarify(&mut self, questions: &[&str], patience: Duration) -> Option<Pending<Clarified>> {
        let questions: Vec<String> = questions.iter().map(|q| one_line(q)).collect();
        self.ask(patience, Clarified::Skipped, move |asking| prompt::clarify(asking, &questions))
    }

    fn wants_issue_draft(&mut self, patience: Duration) -> Option<Pending<bool>> {
        self.ask(patience, false, |asking| prompt::confirm(asking, "Write an issue draft for the follow-up work?"))
    }

    fn moderating(&mut self, what: &str) {
        match self.progress.as_mut() {
            Some(progress) => progress.moderator(what),
            None => self.detail(&format!("  moderator: {what}…")),
        }
    }

    fn panel(&mut self, state: &DebateState) {
        self.clear_progress();
        if !state.analysis.options.is_empty() {
            self.say(&format!("Options: {}", state.analysis.options.join(" · ")));
        }
        self.styled(HEADING, &format!("Panel: {} perspectives", state.panel.len()));
        for seat in &state.panel {
            self.say(&format!("  • {} — {}", seat.name(), seat.reason));
        }
        if state.analysis.vague {
            self.warn("the question is vague; the debaters will state their assumptions (the record notes this)");
        }
    }

    fn round_started(&mut self, round: u32, of: u32, framing: &str) {
        self.rounds = of;
        self.for_round(round, |t| t.detail(&format!("Moderator: {framing}")));
    }

    fn live(&self) -> bool {
        self.progress.is_some()
    }

    fn working(&mut self, round: u32, kind: ContributionKind, seats: &[(usize, String)]) {
        let doing = if kind == ContributionKind::Argument { "arguing" } else { "rebutting" };
        self.for_round(round, |t| match t.progress.as_mut() {
            Some(progress) => progress.debaters(seats, doing),
            None => {
                let names: Vec<&str> = seats.iter().map(|(_, n)| n.as_str()).collect();
                t.detail(&format!("  round {round}: {} {doing}…", names.join(", ")));
            }
        });
    }

    fn delta(&mut self, seat: usize, text: &str) {
        if let Some(progress) = self.progress.as_mut() {
            progress.text(seat, text);
        }
    }

    fn contribution(&mut self, round: u32, name: &str, c: &Contribution) {
        let on_terminal = self.progress.is_some();
        if let Some(progress) = self.progress.as_mut() {
            progress.done(c.seat);
        }
        let tokens = c.usage.completion_tokens;
        let done = format!("  ✓ {name}: {} ({tokens} tokens, {})", c.kind, seconds(c.usage.latency_ms));
        self.for_round(round, |t| {
            if on_terminal {
                // The debate is read as it happens: header, text and done line in one
                // write, so no spinner redraw lands in between.
                let header = paint(HEADER, &for_terminal(&format!("── {name} ({}) ──", c.kind)));
                t.line(&format!("{header}\n{}\n{}", for_terminal(c.text.trim()), for_terminal(&done)));
            } else {
                t.say(&done);
                t.detail(&format!("{}\n", c.text));
            }
        });
    }

    fn failed(&mut self, round: u32, seat: usize, name: &str) {
        if let Some(progress) = self.progress.as_mut() {
            progress.done(seat);
        }
        self.for_round(round, |t| t.say(&format!("  ✗ {name}: the provider failed")));
    }

    fn dropped(&mut self, name: &str, reason: &str) {
        self.warn(&format!("{name} leaves the panel: {reason}; the record says so"));
    }

    fn warning(&mut self, text: &str) {
        self.clear_progress();
        self.warn(text);
    }

    fn retrying(&mut self, line: &str) {
        self.detail(&format!("retrying {line}"));
    }

    fn server_learned(&mut self, base_url: &str, at_once: &crate::model::AtOnce) {
        self.clear_progress();
        let requests = match at_once.requests {
            1 => "one request at a time".to_string(),
            n => format!("{n} requests at once"),
        };
        self.say(&format!("The server at {base_url} serves {requests} ({}).", at_once.learned_from));
    }

    fn assessed(&mut self, state: &DebateState, round: &Round) {
        self.clear_progress();
        self.round_report(state, round);
        let due = self.order.borrow_mut().completed(round.number);
        self.emit_held(due);
    }

    fn ended(&mut self, state: &DebateState, reason: EndReason) {
        self.clear_progress();
        self.release();
        let last = state.rounds.last().map_or(0, |r| r.number);
        let why = match reason {
            EndReason::Agreement => "the debaters agree",
            EndReason::ClearWinner => "one perspective won the others over",
            EndReason::Stagnation => "the debate stopped producing new points",
            EndReason::MaxRounds => "the round limit was reached without convergence",
            EndReason::Human if self.asked_at_checkpoint => "ended at a checkpoint",
            EndReason::Human if state.reviewed(last) => "the rounds the review asked for are done",
            EndReason::Human => "a person ended it",
            EndReason::Timeout => "time ran out",
        };
        self.styled(HEADING, &format!("\nDebate ended: {reason} ({why})"));
    }

    fn synthesized(&mut self, outcome: &Outcome) {
        self.clear_progress();
        self.release();
        let s = &outcome.synthesis;
        self.labelled(HEADING, "Recommendation:", &s.recommendation);
        self.say(&format!("Confidence: {}", outcome.confidence.as_str()));
        for caveat in &s.caveats {
            self.say(&format!("  caveat: {caveat}"));
        }
        for d in &outcome.degradations {
            self.say(&format!("  note: {d}"));
        }
    }

    fn paused(&mut self, id: &str, why: &str) {
        self.clear_progress();
        self.release();
        self.say(&format!("\nPaused ({why}); every finished step is saved."));
        self.command(&format!("Continue with: debate resume {id}"));
    }

    fn recorded(&mut self, state: &DebateState, record: &Published, draft: Option<&Draft>) {
        self.clear_progress();
        let shown = record.path.strip_prefix(&state.repo_root).unwrap_or(&record.path).display().to_string();
        for warning in &record.warnings {
            self.warn(warning);
        }
        let short = |commit: &str| commit.chars().take(10).collect::<String>();
        match (&record.commit, &record.branch, &record.not_committed) {
            (Some(commit), Some(branch), _) => {
                self.say(&format!(
                    "\nDecision record committed as {} on the {}branch {branch} ({shown});",
                    short(commit),
                    if state.revisions.is_empty() { "new " } else { "" }
                ));
                self.say("your checked-out branch, index and working tree are unchanged.");
                if !record.pull_request.is_empty() {
                    self.say(match state.revisions.is_empty() {
                        true => "Open its pull request with:",
                        false => "Update its pull request with:",
                    });
                    for command in &record.pull_request {
                        self.command(&format!("  {command}"));
                    }
                }
            }
            (Some(commit), None, _) => {
                self.say(&format!("\nDecision record written to {shown} and committed as {}.", short(commit)));
                if !record.pull_request.is_empty() {
                    self.say("Update its pull request with:");
                    for command in &record.pull_request {
                        self.command(&format!("  {command}"));
                    }
                }
            }
            (None, _, reason) => {
                let why = reason.as_deref().unwrap_or("committing is off");
                self.say(&format!("\nDecision record written to {shown}; not committed ({why})."));
            }
        }
        if let Some(draft) = draft {
            let path = draft.path.strip_prefix(&state.repo_root).unwrap_or(&draft.path).display().to_string();
            self.say(&format!("Issue draft written to {path} (not committed). File it with:"));
            self.command(&format!("  {}", draft.command));
        }
        let tokens = state.totals.prompt_tokens + state.totals.completion_tokens;
        let cost = match crate::model::Cost::of(state).known() {
            Some(usd) if usd > 0.0 => format!(" · ≈ {}", crate::model::dollars(usd)),
            _ => String::new(),
        };
        self.say(&format!(
            "Debate {} is complete: {} round{} · ended by {} · confidence {} · {tokens} tokens{cost} · {} · {shown}",
            state.id,
            state.rounds.len(),
            if state.rounds.len() == 1 { "" } else { "s" },
            state.end_reason.map_or("unknown", |r| r.as_str()),
            state.outcome.as_ref().map_or("unknown", |o| o.confidence.as_str()),
            seconds(self.started.elapsed().as_millis() as u64),
        ));
    }
}
