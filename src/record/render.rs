//! The decision record as markdown, from `templates/decision.md` (or the repository's
//! `.debate/templates/decision.md`) with minijinja. The template sees plain data.

use std::collections::BTreeSet;
use std::path::Path;

use minijinja::{AutoEscape, Environment, Value};
use serde::Serialize;

use super::{RecordError, Result, date_of, links, markdown};
use crate::model::{
    Consequences, DebateState, Dissent, EarlierDecision, EndReason, OptionAssessment, ProviderKind, Round, tokens,
};
use crate::text::untrusted::one_line;

/// A template the repository may override in `.debate/templates/<name>`.
struct Template {
    name: &'static str,
    built_in: &'static str,
}

const DECISION: Template = Template { name: "decision.md", built_in: include_str!("../../templates/decision.md") };
const ISSUE: Template = Template { name: "issue.md", built_in: include_str!("../../templates/issue.md") };

/// The record and issue templates of a repository, read and checked once, before a
/// debate starts or resumes, so a broken override is reported before any model call
/// and what is rendered later is exactly what was checked.
pub struct Templates {
    decision: String,
    issue: String,
}

impl Templates {
    pub fn load(repo_root: &Path) -> Result<Templates> {
        Ok(Templates { decision: read(repo_root, &DECISION)?, issue: read(repo_root, &ISSUE)? })
    }

    /// The decision record of a debate that has its outcome.
    pub fn decision(&self, state: &DebateState) -> Result<String> {
        render(&self.decision, DECISION.name, &context(state)?)
    }

    pub fn issue<S: Serialize>(&self, context: &S) -> Result<String> {
        render(&self.issue, ISSUE.name, context)
    }
}

fn read(repo_root: &Path, template: &Template) -> Result<String> {
    let path = repo_root.join(".debate").join("templates").join(template.name);
    let text = if path.is_file() {
        std::fs::read_to_string(&path).map_err(|source| RecordError::ReadTemplate { path: path.clone(), source })?
    } else {
        template.built_in.to_string()
    };
    environment().template_from_str(&text).map_err(|source| RecordError::Template { path, source })?;
    Ok(text)
}

fn render<S: Serialize>(text: &str, name: &'static str, context: &S) -> Result<String> {
    environment().render_str(text, context).map_err(|source| RecordError::Render { name, source })
}

#[derive(Serialize)]
struct Context<'a> {
    id: &'a str,
    title: &'a str,
    date: String,
    question: &'a str,
    rounds: usize,
    ended_by: &'a str,
    confidence: &'a str,
    models: BTreeSet<&'a str>,
    tokens: Tokens,
    /// What in the record the offline provider wrote ("the arguments", …), if anything.
    offline: Option<&'static str>,
    /// What in the record the scripted provider wrote, if anything.
    scripted: Option<&'static str>,
    names: Vec<String>,
    context: Vec<String>,
    /// The earlier decisions the debaters read, and those this record supersedes.
    related: Vec<Related<'a>>,
    /// The earlier decisions the recommendation goes against.
    contradicts: Vec<Related<'a>>,
    panel: Vec<PanelEntry<'a>>,
    agreement: &'a [String],
    tensions: &'a [String],
    /// Each considered option with what was argued for and against it.
    options: &'a [OptionAssessment],
    chosen_option: Option<&'a str>,
    rationale: &'a str,
    recommendation: &'a str,
    caveats: &'a [String],
    consequences: &'a Consequences,
    confirmation: &'a str,
    action_items: &'a [String],
    dissents: &'a [Dissent],
    /// The perspective the others conceded to, when the debate ended that way.
    winner: Option<&'a str>,
    degradations: &'a [String],
    log: Vec<LogRow>,
}

#[derive(Serialize)]
struct Tokens {
    prompt: u64,
    /// Of `prompt`, what the providers served from their prefix caches.
    cached: u64,
    completion: u64,
}

#[derive(Serialize)]
struct Related<'a> {
    path: &'a str,
    title: &'a str,
    status: &'a str,
    date: Option<&'a str>,
    /// Relative to the record, percent-encoded.
    link: String,
    /// This record supersedes it.
    superseded_here: bool,
    /// The recommendation goes against it.
    contradicted: bool,
    /// `--supersedes <path>`, when the path needs no quoting.
    supersede_flag: Option<String>,
}

#[derive(Serialize)]
struct PanelEntry<'a> {
    name: &'a str,
    reason: &'a str,
    priorities: &'a [String],
    key_arguments: &'a [String],
    trade_offs_accepted: &'a [String],
    /// The models that argued it, on a heterogeneous panel.
    argued_by: Vec<&'a str>,
}

#[derive(Serialize)]
struct LogRow {
    round: u32,
    summary: String,
    /// Where each debater stood at the end of the round.
    stances: String,
    repetition: String,
    verdict: String,
}

fn context(state: &DebateState) -> Result<Context<'_>> {
    let outcome = state.outcome.as_ref().ok_or(RecordError::NoOutcome)?;
    let synthesis = &outcome.synthesis;
    let empty: &[String] = &[];
    Ok(Context {
        id: &state.id,
        title: &state.title,
        date: date_of(state),
        question: &state.question,
        rounds: state.rounds.len(),
        ended_by: state.end_reason.map_or("unknown", |r| r.as_str()),
        confidence: outcome.confidence.as_str(),
        models: state.rounds.iter().flat_map(Round::contributions).map(|c| c.model.as_str()).collect(),
        tokens: Tokens {
            prompt: state.totals.prompt_tokens,
            cached: state.totals.cached_tokens,
            completion: state.totals.completion_tokens,
        },
        offline: written_by(state, ProviderKind::Offline),
        scripted: written_by(state, ProviderKind::Scripted),
        names: state.panel_names(),
        context: context_lines(state),
        related: related_decisions(state).map(|d| related(state, d)).collect(),
        contradicts: state
            .snapshot
            .project
            .decisions
            .iter()
            .filter(|d| synthesis.contradicts.contains(&d.path))
            .map(|d| related(state, d))
            .collect(),
        panel: state
            .panel
            .iter()
            .enumerate()
            .map(|(seat_index, seat)| {
                let summary = synthesis.perspectives.iter().find(|p| p.name == seat.name());
                PanelEntry {
                    name: seat.name(),
                    reason: &seat.reason,
                    priorities: &seat.perspective.priorities,
                    key_arguments: summary.map_or(empty, |s| &s.key_arguments),
                    trade_offs_accepted: summary.map_or(empty, |s| &s.trade_offs_accepted),
                    argued_by: argued_by(state, seat_index),
                }
            })
            .collect(),
        agreement: &synthesis.agreement,
        tensions: &synthesis.tensions,
        options: &synthesis.options,
        chosen_option: synthesis.chosen_option.as_deref(),
        rationale: &synthesis.rationale,
        recommendation: &synthesis.recommendation,
        caveats: &synthesis.caveats,
        consequences: &synthesis.consequences,
        confirmation: &synthesis.confirmation,
        action_items: &synthesis.action_items,
        dissents: &synthesis.dissents,
        winner: state
            .end_reason
            .filter(|r| *r == EndReason::ClearWinner)
            .and_then(|_| state.rounds.last()?.evaluation.as_ref()?.clear_winner.as_deref()),
        degradations: &outcome.degradations,
        log: state
            .rounds
            .iter()
            .map(|r| LogRow {
                round: r.number,
                summary: r.evaluation.as_ref().map_or_else(|| "(not evaluated)".into(), |e| e.summary.clone()),
                stances: stances_cell(state, r),
                repetition: repetition_cell(state, r),
                verdict: r.evaluation.as_ref().map_or_else(String::new, |e| e.assessment.describe().to_string()),
            })
            .collect(),
    })
}

/// The models that argued at `seat`, when the panel seats different models.
fn argued_by(state: &DebateState, seat: usize) -> Vec<&str> {
    if state.snapshot.seat_models.is_empty() {
        return Vec::new();
    }
    let mut models: Vec<&str> = Vec::new();
    for contribution in state.rounds.iter().flat_map(Round::contributions).filter(|c| c.seat == seat) {
        if !models.contains(&contribution.model.as_str()) {
            models.push(&contribution.model);
        }
    }
    models
}

/// What in the record a provider of `kind` wrote, by the roles it played.
fn written_by(state: &DebateState, kind: ProviderKind) -> Option<&'static str> {
    match (state.snapshot.debater.kind == kind, state.snapshot.moderator.kind == kind) {
        (true, true) => Some("The arguments and the moderator's judgements"),
        (true, false) => Some("The arguments"),
        (false, true) => Some("The moderator's summaries and synthesis"),
        (false, false) => None,
    }
}

/// The records this one supersedes, then the other earlier decisions the debaters read.
fn related_decisions(state: &DebateState) -> impl Iterator<Item = &EarlierDecision> {
    let superseded = &state.snapshot.supersedes;
    let read = state.snapshot.project.decisions.iter().filter(|d| !superseded.iter().any(|s| s.path == d.path));
    superseded.iter().chain(read)
}

fn related<'a>(state: &'a DebateState, decision: &'a EarlierDecision) -> Related<'a> {
    let path = decision.path.as_str();
    let plain = path.chars().all(|c| c.is_ascii_alphanumeric() || "-._/".contains(c));
    Related {
        path,
        title: &decision.title,
        status: &decision.status,
        date: decision.date.as_deref(),
        link: links::relative(&state.snapshot.record.directory.0, path),
        superseded_here: state.snapshot.supersedes.iter().any(|s| s.path == path),
        contradicted: state.outcome.as_ref().is_some_and(|o| o.synthesis.contradicts.iter().any(|c| c == path)),
        supersede_flag: plain.then(|| format!("--supersedes {path}")),
    }
}

fn context_lines(state: &DebateState) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(c) = &state.clarification {
        lines.push(format!("The question was clarified before the debate: {}", c.answer));
    }
    if state.analysis.vague {
        lines.push(
            "The question was vague and no clarification was given; the debaters stated their own assumptions."
                .to_string(),
        );
    }
    if !state.analysis.options.is_empty() {
        lines.push(format!("Options named in the question: {}.", state.analysis.options.join(", ")));
    }
    for c in &state.analysis.constraints {
        lines.push(format!("Implied constraint: \u{201c}{}\u{201d} — {}.", c.phrase, c.meaning));
    }
    let project = &state.snapshot.project;
    if project.sources.is_empty() {
        // Debates from before the budget was shared list their `--context` files only.
        for file in &state.snapshot.context {
            lines.push(format!("Project context from `{}`.", file.path));
        }
    } else {
        for source in &project.sources {
            lines.push(format!("Read by the debaters: {}.", source.describe()));
        }
        lines.push(format!("Tokens are estimated at 4 bytes each; the context budget was {}.", tokens(project.budget)));
    }
    if !project.repository && project.budget > 0 {
        lines.push("The repository itself was not read (--no-repo-context or context.repository: false).".into());
    }
    for r in &state.rounds {
        if let Some(g) = &r.guidance {
            lines.push(format!("Guidance before round {}: {g}", r.number));
        }
    }
    lines
}

/// "Performance Advocate: Redis (high); Operational Simplicity: unknown".
fn stances_cell(state: &DebateState, round: &Round) -> String {
    let stances: Vec<String> = (0..state.panel.len())
        .filter_map(|seat| {
            let stance =
                [round.rebuttal(seat), round.argument(seat)].into_iter().flatten().find_map(|c| c.stance.as_ref())?;
            let option = stance.option.as_deref().unwrap_or("unknown");
            let confidence = stance.confidence.map(|c| format!(" ({})", c.as_str().to_lowercase())).unwrap_or_default();
            Some(format!("{}: {option}{confidence}", state.name(seat)))
        })
        .collect();
    if stances.is_empty() { "—".into() } else { stances.join("; ") }
}

fn repetition_cell(state: &DebateState, round: &Round) -> String {
    let figures = state.repetition_figures(round);
    if figures.is_empty() { "—".into() } else { figures.join(", ") }
}

fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_trim_blocks(true);
    env.set_lstrip_blocks(true);
    env.set_keep_trailing_newline(true);
    // Every value a template prints is made safe as one line of markdown unless a
    // filter below already made it safe its own way: a repository's template that
    // prints `{{ recommendation }}` bare still cannot break the record's structure.
    env.set_auto_escape_callback(|_| AutoEscape::Custom("markdown"));
    env.set_formatter(|out, _state, value| {
        match value.as_str() {
            Some(text) if !value.is_safe() => out.write_str(&markdown::line(text))?,
            _ if value.is_undefined() => {}
            _ => write!(out, "{value}")?,
        }
        Ok(())
    });
    let safe = |f: fn(&str) -> String| move |value: String| Value::from_safe_string(f(&value));
    // A JSON string is a valid YAML scalar, whatever quotes or colons the title holds.
    env.add_filter("yaml", safe(|value| serde_json::to_string(&one_line(value)).unwrap_or_default()));
    env.add_filter("line", safe(markdown::line));
    env.add_filter("link_text", safe(markdown::link_text));
    env.add_filter("cell", safe(markdown::cell));
    env.add_filter("block", safe(markdown::block));
    env
}
