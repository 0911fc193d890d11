//! What the decision template sees: a debate's record as plain data, and the front
//! matter's keys. Pure.

use std::collections::{BTreeMap, BTreeSet};

use minijinja::Value;
use serde::Serialize;
use serde_json::json;

use crate::model::{
    Cost, DebateState, Discarded, Dissent, EarlierDecision, EarlyStart, EndReason, OptionAssessment, OptionsReading,
    Part, Place, ProviderKind, ReadingVerdict, Revision, Round, tokens,
};
use crate::record::date_of;
pub(super) use crate::record::render::entries::SidecarLink;
use crate::record::render::entries::{
    Ended, LogRow, PanelEntry, RecordLink, Related, RoleEntry, ScoresEntry, SectionEntry, SourceEntry, Tokens,
};
use crate::record::render::links;
use crate::record::{RecordError, Result};

#[derive(Serialize)]
pub(super) struct Context<'a> {
    pub(super) id: &'a str,
    pub(super) title: &'a str,
    pub(super) date: String,
    pub(super) question: &'a str,
    pub(super) rounds: usize,
    pub(super) ended_by: &'a str,
    pub(super) confidence: &'a str,
    /// Why the confidence is not the moderator's own.
    pub(super) lowered: &'a [String],
    /// Every model that argued, and the moderator's.
    pub(super) models: BTreeSet<&'a str>,
    pub(super) decision_makers: &'a [String],
    /// The perspectives, then every model that took part.
    pub(super) tool: String,
    pub(super) moderator: RoleEntry<'a>,
    pub(super) debaters: Vec<RoleEntry<'a>>,
    pub(super) muted: Vec<&'a str>,
    pub(super) dropped: Vec<&'a str>,
    pub(super) sources: Vec<SourceEntry<'a>>,
    /// The rendered transcript, when it is inline.
    pub(super) transcript: Option<Value>,
    pub(super) transcript_file: Option<SidecarLink>,
    /// Earlier conclusions of this debate, when a review reopened it.
    pub(super) history: &'a [Revision],
    pub(super) tokens: Tokens,
    /// Per model, the tries of its calls that failed and were made again (none: left out).
    pub(super) retries: Vec<(&'a str, u64)>,
    /// The debate's spending cap, if it has one.
    pub(super) cap: Option<String>,
    /// The estimated cost, from the prices in the settings, or why it is not known.
    pub(super) cost: String,
    /// Arguments written for rounds the debate ended before, per round.
    pub(super) discarded: Vec<Discarded>,
    /// What became of round 1's arguments begun while the moderator read the question.
    pub(super) early: Option<String>,
    /// What in the record the offline provider wrote ("the arguments", …), if anything.
    pub(super) offline: Option<&'static str>,
    /// What in the record the scripted provider wrote, if anything.
    pub(super) scripted: Option<&'static str>,
    pub(super) names: Vec<String>,
    pub(super) context: Vec<String>,
    /// The earlier decisions the debaters read, and those this record supersedes.
    pub(super) related: Vec<Related<'a>>,
    /// The records this one supersedes, as the header's links to them.
    pub(super) supersedes: Vec<RecordLink>,
    /// The earlier decisions the recommendation goes against.
    pub(super) contradicts: Vec<Related<'a>>,
    pub(super) panel: Vec<PanelEntry<'a>>,
    /// The decision's sections the record places by their declaration (model/decision.rs),
    /// as the layout the debate was decided in has them.
    pub(super) sections: Vec<SectionEntry>,
    /// Each of those sections' content by its key, for a repository's own template.
    #[serde(flatten)]
    pub(super) by_key: BTreeMap<&'static str, serde_json::Value>,
    /// Each considered option with what was argued for and against it.
    pub(super) options: &'a [OptionAssessment],
    pub(super) chosen_option: Option<&'a str>,
    /// Ended as a sentence ends, to follow "Chosen option: …, because".
    pub(super) rationale: String,
    pub(super) recommendation: &'a str,
    pub(super) dissents: &'a [Dissent],
    /// Where the perspectives ended, for a Dissenting View the moderator left empty.
    pub(super) ended: Ended<'a>,
    /// The perspective the others conceded to, when the debate ended that way.
    pub(super) winner: Option<&'a str>,
    pub(super) degradations: &'a [String],
    pub(super) log: Vec<LogRow>,
    /// The template's body has its Debate Log above the provenance.
    pub(super) log_above: bool,
    /// How the moderator's server took structured answers, where it had a choice.
    pub(super) structured_output: Option<&'a str>,
    /// The scores `debate eval --write` added, of the record as it is.
    pub(super) evaluation: Option<ScoresEntry>,
}

/// The front matter: MADR's keys (`consulted` left for the people the team asks), then
/// debate's own. Every record starts `proposed`; the lifecycle changes it.
pub(super) fn front_matter_fields(c: &Context) -> Vec<(&'static str, serde_json::Value)> {
    vec![
        ("id", json!(c.id)),
        ("title", json!(c.title)),
        ("status", json!("proposed")),
        ("date", json!(c.date)),
        ("decision-makers", json!(c.decision_makers)),
        ("consulted", json!([])),
        ("question", json!(c.question)),
        ("perspectives", json!(c.names)),
        ("chosen-option", json!(c.chosen_option)),
        ("confidence", json!(c.confidence)),
        ("confidence-lowered", json!(c.lowered)),
        ("rounds", json!(c.rounds)),
        ("ended_by", json!(c.ended_by)),
        ("winner", json!(c.winner)),
        ("muted", json!(c.muted)),
        ("dropped", json!(c.dropped)),
        ("moderator", json!(c.moderator)),
        ("debaters", json!(c.debaters)),
        ("models", json!(c.models)),
        ("tokens", json!(c.tokens)),
        ("context", json!(c.sources)),
        ("tool", json!(c.tool)),
    ]
}

pub(super) fn of(state: &DebateState) -> Result<Context<'_>> {
    let outcome = state.outcome.as_ref().ok_or(RecordError::NoOutcome)?;
    let synthesis = &outcome.synthesis;
    let placed: Vec<Part> =
        synthesis.parts(outcome.layout).into_iter().filter(|part| part.section.place != Place::Framed).collect();
    let empty: &[String] = &[];
    let debater_models: Vec<&str> =
        state.rounds.iter().flat_map(Round::contributions).map(|c| c.model.as_str()).collect();
    let active = state.active_seats();
    let debaters: Vec<RoleEntry> = state
        .panel
        .iter()
        .enumerate()
        .map(|(seat, s)| RoleEntry {
            perspective: Some(s.name()),
            muted: s.dropped.is_none() && !active.contains(&seat),
            dropped: s.dropped.as_deref(),
            ..RoleEntry::of(state, state.snapshot.debater_for(seat), argued_by(state, seat).first().copied())
        })
        .collect();
    // A moderator sharing the debaters' provider and model answered as they did.
    let moderator_role = &state.snapshot.moderator;
    let debater_role = &state.snapshot.debater;
    let same_as_debaters =
        moderator_role.provider == debater_role.provider && moderator_role.model == debater_role.model;
    let moderator = RoleEntry::of(state, moderator_role, debater_models.first().copied().filter(|_| same_as_debaters));
    Ok(Context {
        id: &state.id,
        title: state.decision_title(),
        date: date_of(state),
        question: &state.question,
        rounds: state.rounds.len(),
        ended_by: state.end_reason.map_or("unknown", |r| r.as_str()),
        confidence: outcome.confidence.as_str(),
        lowered: &outcome.lowered,
        // Every model that answered, the moderator's too; MADR's `consulted` is for people.
        models: debater_models.iter().copied().chain([moderator.model]).collect(),
        decision_makers: &state.snapshot.decision_makers,
        tool: format!("debate {}", env!("CARGO_PKG_VERSION")),
        moderator,
        debaters,
        muted: (0..state.panel.len())
            .filter(|seat| state.panel[*seat].dropped.is_none() && !active.contains(seat))
            .map(|seat| state.name(seat))
            .collect(),
        dropped: state.panel.iter().filter(|s| s.dropped.is_some()).map(|s| s.name()).collect(),
        sources: state
            .snapshot
            .project
            .sources
            .iter()
            .map(|s| SourceEntry {
                name: &s.name,
                tokens: s.tokens,
                read: s.read,
                cut: s.cut(),
                describe: s.describe(),
            })
            .collect(),
        transcript: None,
        transcript_file: None,
        history: &state.revisions,
        tokens: Tokens {
            prompt: state.totals.prompt_tokens,
            cached: state.totals.cached_tokens,
            completion: state.totals.completion_tokens,
        },
        retries: state
            .usage_by_model
            .iter()
            .filter(|(_, u)| u.retries > 0)
            .map(|(m, u)| (m.as_str(), u.retries))
            .collect(),
        discarded: state.discarded_by_round(),
        early: state.analysis.early.as_ref().map(early_start),
        cap: (!state.snapshot.cap.is_none()).then(|| state.snapshot.cap.describe()),
        cost: Cost::of(state).describe(),
        offline: written_by(state, ProviderKind::Offline),
        scripted: written_by(state, ProviderKind::Scripted),
        names: state.panel_names(),
        context: context_lines(state),
        related: related_decisions(state).map(|d| related(state, d)).collect(),
        supersedes: state
            .snapshot
            .supersedes
            .iter()
            .map(|d| RecordLink {
                slug: d.path.rsplit('/').next().unwrap_or(&d.path).trim_end_matches(".md").to_string(),
                link: links::relative(&state.snapshot.record.directory.0, &d.path),
            })
            .collect(),
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
                    argued_by: match state.snapshot.seat_models.is_empty() {
                        true => Vec::new(),
                        false => argued_by(state, seat_index),
                    },
                }
            })
            .collect(),
        sections: placed.iter().map(SectionEntry::of).collect(),
        by_key: placed.iter().map(|part| (part.section.key, part.value.clone())).collect(),
        options: &synthesis.options,
        chosen_option: synthesis.chosen_option.as_deref(),
        rationale: as_sentence(&synthesis.rationale),
        recommendation: &synthesis.recommendation,
        dissents: &synthesis.dissents,
        ended: Ended::of(state, synthesis.chosen_option.as_deref()),
        winner: state
            .end_reason
            .filter(|r| *r == EndReason::ClearWinner)
            .and_then(|_| state.rounds.last()?.evaluation.as_ref()?.clear_winner.as_deref()),
        degradations: &outcome.degradations,
        log_above: false,
        structured_output: state.structured_format.as_deref(),
        evaluation: state.written_scorecard().map(ScoresEntry::of),
        log: state
            .rounds
            .iter()
            .map(|r| LogRow {
                round: r.number,
                summary: r.evaluation.as_ref().map_or_else(|| "(not evaluated)".into(), |e| e.summary.clone()),
                stances: stances_cell(state, r),
                repetition: repetition_cell(state, r),
                verdict: r.evaluation.as_ref().map_or_else(String::new, |e| match (e.folded, e.off_topic.is_empty()) {
                    (true, _) => format!("{} by the measures; weighed in the synthesis", e.assessment.describe()),
                    (false, true) => e.assessment.describe().to_string(),
                    (false, false) => {
                        format!("{}; off the question: {}", e.assessment.describe(), e.off_topic.join(", "))
                    }
                }),
            })
            .collect(),
    })
}

/// `text` with a full stop unless it already ends a sentence.
pub(super) fn as_sentence(text: &str) -> String {
    let text = text.trim();
    match text.ends_with(['.', '!', '?', '…']) || text.is_empty() {
        true => text.to_string(),
        false => format!("{text}."),
    }
}

/// The models that argued at `seat`, each once.
pub(super) fn argued_by(state: &DebateState, seat: usize) -> Vec<&str> {
    let mut models: Vec<&str> = Vec::new();
    for contribution in state.rounds.iter().flat_map(Round::contributions).filter(|c| c.seat == seat) {
        if !models.contains(&contribution.model.as_str()) {
            models.push(&contribution.model);
        }
    }
    models
}

/// What in the record a provider of `kind` wrote, by the roles it played.
pub(super) fn written_by(state: &DebateState, kind: ProviderKind) -> Option<&'static str> {
    let argued = state.snapshot.debater_roles().iter().any(|role| role.kind == kind);
    match (argued, state.snapshot.moderator.kind == kind) {
        (true, true) => Some("The arguments and the moderator's judgements"),
        (true, false) => Some("The arguments"),
        (false, true) => Some("The moderator's summaries and synthesis"),
        (false, false) => None,
    }
}

/// The records this one supersedes, then the other earlier decisions the debaters read.
pub(super) fn related_decisions(state: &DebateState) -> impl Iterator<Item = &EarlierDecision> {
    let superseded = &state.snapshot.supersedes;
    let read = state.snapshot.project.decisions.iter().filter(|d| !superseded.iter().any(|s| s.path == d.path));
    superseded.iter().chain(read)
}

pub(super) fn related<'a>(state: &'a DebateState, decision: &'a EarlierDecision) -> Related<'a> {
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

pub(super) fn context_lines(state: &DebateState) -> Vec<String> {
    let mut lines = Vec::new();
    let open = state.clarification.as_ref().map(|c| c.open()).unwrap_or_default();
    if let Some(c) = &state.clarification
        && let Some(answer) = &c.answer
    {
        let asked: Vec<String> = c.questions().iter().map(|q| format!("\u{201c}{q}\u{201d}")).collect();
        lines.push(format!("The moderator asked {}; the answer before the debate: {answer}", asked.join(" ")));
    }
    if !open.is_empty() {
        lines.push(
            "The question was vague and nobody answered the moderator's questions; the debaters stated their own \
             assumptions."
                .to_string(),
        );
        lines.extend(open.iter().map(|q| format!("Open question: {q}")));
    } else if state.analysis.vague && state.clarification.as_ref().is_none_or(|c| c.answer.is_none()) {
        lines.push(
            "The question was vague and no clarification was given; the debaters stated their own assumptions."
                .to_string(),
        );
    }
    match &state.analysis.reading {
        Some(reading) => lines.push(options_read(reading, &state.analysis.options)),
        // Debates from before the moderator was asked to confirm the options.
        None if !state.analysis.options.is_empty() => {
            lines.push(format!("Options named in the question: {}.", state.analysis.options.join(", ")));
        }
        None => {}
    }
    if let Some(why) = &state.analysis.unrefined {
        lines.push(format!("The panel is the keyword analysis's: {why}, so the moderator did not refine it."));
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
pub(super) fn stances_cell(state: &DebateState, round: &Round) -> String {
    let stances: Vec<String> = (0..state.panel.len())
        .filter_map(|seat| Some(format!("{}: {}", state.name(seat), round.stance(seat)?.brief())))
        .collect();
    if stances.is_empty() { "—".into() } else { stances.join("; ") }
}

pub(super) fn repetition_cell(state: &DebateState, round: &Round) -> String {
    let figures = state.repetition_figures(round);
    if figures.is_empty() { "—".into() } else { figures.join(", ") }
}

/// What became of round 1's arguments begun while the moderator read the question.
fn early_start(early: &EarlyStart) -> String {
    let begun = "Round 1's arguments were begun while the moderator read the question";
    match (early.kept.is_empty(), early.redone.is_empty()) {
        (_, true) => format!("{begun}; its reading changed nothing they were asked, so they were kept."),
        (true, false) => format!("{begun}; its reading changed what they were asked, so they were written again."),
        (false, false) => format!(
            "{begun}: kept for {}; written again for {}, whose request its reading changed.",
            early.kept.join(", "),
            early.redone.join(", ")
        ),
    }
}

/// Which reading of the options the debate weighed, and why.
fn options_read(reading: &OptionsReading, options: &[String]) -> String {
    let (read, proposed) = (reading.read.join(", "), reading.proposed.join(", "));
    let reason = |text: &str| if text.is_empty() { String::new() } else { format!(" ({text})") };
    match reading.verdict {
        ReadingVerdict::Confirmed => format!("Options read from the question and confirmed by the moderator: {read}."),
        ReadingVerdict::Corrected => format!(
            "Options as the moderator corrected them: {}{}; read from the question: {read}.",
            options.join(", "),
            reason(&reading.reason)
        ),
        ReadingVerdict::Refused => format!(
            "Options read from the question: {read}. The moderator proposed {proposed} but {}, so the question's reading stood.",
            reading.reason
        ),
        ReadingVerdict::Unconfirmed => {
            format!(
                "Options read from the question, not confirmed by the moderator{}: {read}.",
                reason(&reading.reason)
            )
        }
    }
}
