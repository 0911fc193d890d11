//! The decision record as markdown, from `templates/decision.md` and the transcript from
//! `templates/transcript.md` (or the repository's `.debate/templates/…`) with minijinja.
//! The templates see plain data.

use crate::text::markdown;
use std::collections::BTreeSet;
use std::path::Path;

use minijinja::{AutoEscape, Environment, Value};
use serde::Serialize;
use serde_json::json;

use super::{RecordError, Result, carried, date_of, front_matter, links};
use crate::model::{
    CheckKind, Consequences, Cost, Criterion, DebateState, Discarded, Dissent, EarlierDecision, EndReason,
    OptionAssessment, ProviderKind, Revision, RoleChoice, Round, Scorecard, Stance, TranscriptPlacement, tokens,
};

/// A template the repository may override in `.debate/templates/<name>`.
struct Template {
    name: &'static str,
    built_in: &'static str,
}

const DECISION: Template = Template { name: "decision.md", built_in: include_str!("../../templates/decision.md") };
const ISSUE: Template = Template { name: "issue.md", built_in: include_str!("../../templates/issue.md") };
const TRANSCRIPT: Template =
    Template { name: "transcript.md", built_in: include_str!("../../templates/transcript.md") };
/// The parts of a record no template writes: the notices of who wrote it and what
/// degraded it, and its provenance.
const HONESTY: &str = include_str!("../../templates/honesty.md");
const PROVENANCE: &str = include_str!("../../templates/provenance.md");

/// The record and issue templates of a repository, read and checked once, before a
/// debate starts or resumes, so a broken override is reported before any model call
/// and what is rendered later is exactly what was checked.
pub struct Templates {
    decision: String,
    issue: String,
    transcript: String,
}

/// A debate's record as written: the decision, and the transcript file beside it when
/// the transcript is not inline.
pub struct Rendered {
    pub decision: String,
    pub sidecar: Option<String>,
}

impl Templates {
    pub fn load(repo_root: &Path) -> Result<Templates> {
        Ok(Templates {
            decision: read(repo_root, &DECISION)?,
            issue: read(repo_root, &ISSUE)?,
            transcript: read(repo_root, &TRANSCRIPT)?,
        })
    }

    /// The decision record of a debate that has its outcome, and its transcript.
    pub fn decision(&self, state: &DebateState, path: &Path) -> Result<Rendered> {
        // The debate itself travels at the transcript's end, for a clone that never ran it.
        let transcript = render(&self.transcript, TRANSCRIPT.name, &transcript(state))? + &carried::block(state) + "\n";
        let sidecar_name = sidecar_path(path).and_then(|p| Some(p.file_name()?.to_string_lossy().into_owned()));
        let (inline, sidecar) = match (state.snapshot.record.transcript, sidecar_name) {
            (TranscriptPlacement::Sidecar, Some(name)) => {
                let heading = format!("# Transcript of {}: {}\n\n", state.id, markdown::line(state.decision_title()));
                (None, Some((name, heading + &transcript)))
            }
            _ => (Some(transcript), None),
        };
        let mut context = context(state)?;
        context.transcript = inline.map(Value::from_safe_string);
        context.transcript_file =
            sidecar.as_ref().map(|(name, _)| SidecarLink { link: links::relative("", name), name: name.clone() });
        let rendered = render(&self.decision, DECISION.name, &context)?;
        let (extra, body) = front_matter::split(&rendered).map_err(|why| RecordError::Render {
            name: DECISION.name,
            source: minijinja::Error::new(minijinja::ErrorKind::InvalidOperation, why),
        })?;
        let front = front_matter::write(&front_matter_fields(&context), &extra);
        context.log_above = log_before_transcript(body);
        let notes = render(HONESTY, "honesty.md", &context)?;
        let provenance = render(PROVENANCE, "provenance.md", &context)?;
        let decision = compose(&front, body, &notes, &provenance);
        if !shows_plainly(&decision, !notes.trim().is_empty()) {
            return Err(RecordError::Hides);
        }
        Ok(Rendered { decision, sidecar: sidecar.map(|(_, text)| text) })
    }

    pub fn issue<S: Serialize>(&self, context: &S) -> Result<String> {
        render(&self.issue, ISSUE.name, context)
    }

    /// debate's own templates, as in a repository that overrides none.
    #[cfg(test)]
    pub fn built_in() -> Templates {
        Templates {
            decision: DECISION.built_in.into(),
            issue: ISSUE.built_in.into(),
            transcript: TRANSCRIPT.built_in.into(),
        }
    }
}

fn read(repo_root: &Path, template: &Template) -> Result<String> {
    let relative = Path::new(".debate").join("templates").join(template.name);
    let path = repo_root.join(&relative);
    // A repository's template is read as any file in it is: never through a link.
    let text = match super::WorkTree::open(repo_root).and_then(|tree| tree.read(&relative)) {
        Ok(Some(bytes)) => String::from_utf8(bytes).map_err(|_| RecordError::ReadTemplate {
            path: path.clone(),
            source: std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8"),
        })?,
        Ok(None) => template.built_in.to_string(),
        Err(RecordError::Read { source, .. } | RecordError::Write { source, .. }) => {
            return Err(RecordError::ReadTemplate { path, source });
        }
        Err(err) => return Err(err),
    };
    environment().template_from_str(&text).map_err(|source| RecordError::Template { path: path.clone(), source })?;
    // No loader stands behind a template, so an include could only fail after every
    // model call, and `safe` would print a value unescaped: both are refused now.
    let refused = [
        (&*INCLUDES, "a record template cannot include, import or extend other templates"),
        (&*UNESCAPED, "a record template prints values escaped only"),
    ];
    if let Some((tag, why)) = refused.iter().find_map(|(pattern, why)| Some((pattern.find(&text)?, why))) {
        let source =
            minijinja::Error::new(minijinja::ErrorKind::InvalidOperation, format!("`{}`: {why}", tag.as_str()));
        return Err(RecordError::Template { path, source });
    }
    Ok(text)
}

static INCLUDES: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"\{%[-+]?\s*(?:include|import|from|extends)\b[^%]*%\}").expect("a valid pattern")
});
static UNESCAPED: std::sync::LazyLock<regex::Regex> =
    std::sync::LazyLock::new(|| regex::Regex::new(r"\|\s*safe\b").expect("a valid pattern"));

/// The record: the front matter, the template's title and header list, the notices, the
/// rest of the template's body, then the provenance before the transcript (or at the end).
fn compose(front: &str, body: &str, notes: &str, provenance: &str) -> String {
    let lines: Vec<&str> = body.split_inclusive('\n').collect();
    // After the title and the list under it, when the body opens with them.
    let mut at = 0;
    if lines.get(at).is_some_and(|l| l.starts_with("# ")) {
        at += 1;
        while lines.get(at).is_some_and(|l| l.trim().is_empty() || l.starts_with("- ")) {
            at += 1;
        }
    }
    let transcript = lines.iter().position(|l| l.trim_end() == "## Transcript").unwrap_or(lines.len()).max(at);
    let mut record = format!("{front}{}", lines[..at].concat());
    // Each part a block of its own, one blank line between.
    let mut push = |part: &str| {
        let part = part.trim_matches('\n');
        if part.is_empty() {
            return;
        }
        if !record.is_empty() {
            record.truncate(record.trim_end_matches('\n').len());
            record.push_str("\n\n");
        }
        record.push_str(part);
        record.push('\n');
    };
    push(notes);
    push(&lines[at..transcript].concat());
    push(provenance);
    push(&lines[transcript..].concat());
    record
}

/// Whether the template's body has a Debate Log ahead of its transcript: the provenance,
/// placed between them, may then point up to it.
fn log_before_transcript(body: &str) -> bool {
    body.lines().take_while(|l| l.trim_end() != "## Transcript").any(|l| l.trim_end() == "## Debate Log")
}

/// Whether the notices (when there are any) and the provenance show as they should on
/// GitHub: as a quote and a heading of their own, in no HTML comment, `<details>` or
/// code block a template opened before them.
fn shows_plainly(record: &str, has_notes: bool) -> bool {
    use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
    let mut details = 0i32;
    let mut depth = 0usize;
    let (mut notes_seen, mut provenance_seen, mut in_heading) = (!has_notes, false, false);
    for event in Parser::new_ext(record, Options::ENABLE_YAML_STYLE_METADATA_BLOCKS | Options::ENABLE_TABLES) {
        match event {
            Event::Html(html) | Event::InlineHtml(html) => {
                let html = html.to_ascii_lowercase();
                details += html.matches("<details").count() as i32 - html.matches("</details").count() as i32;
            }
            Event::Start(Tag::BlockQuote(_)) => depth += 1,
            Event::End(TagEnd::BlockQuote(_)) => depth -= 1,
            Event::Start(Tag::Heading { level: HeadingLevel::H2, .. }) => in_heading = true,
            Event::End(TagEnd::Heading(_)) => in_heading = false,
            Event::Text(text) if in_heading && details <= 0 && &*text == "Provenance" => provenance_seen = true,
            Event::Text(text)
                if depth == 1
                    && details <= 0
                    && ["Offline debate.", "Scripted debate.", "This result is degraded"].contains(&&*text) =>
            {
                notes_seen = true
            }
            _ => {}
        }
    }
    notes_seen && provenance_seen
}

fn render<S: Serialize>(text: &str, name: &'static str, context: &S) -> Result<String> {
    environment().render_str(text, context).map_err(|source| RecordError::Render { name, source })
}

/// `<record>.transcript.md` beside the record at `path`.
pub fn sidecar_path(path: &Path) -> Option<std::path::PathBuf> {
    let stem = path.file_stem()?.to_string_lossy();
    Some(path.with_file_name(format!("{stem}.transcript.md")))
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
    /// Why the confidence is not the moderator's own.
    lowered: &'a [String],
    /// Every model that argued, and the moderator's.
    models: BTreeSet<&'a str>,
    decision_makers: &'a [String],
    /// The perspectives, then every model that took part.
    tool: String,
    moderator: RoleEntry<'a>,
    debaters: Vec<RoleEntry<'a>>,
    muted: Vec<&'a str>,
    dropped: Vec<&'a str>,
    sources: Vec<SourceEntry<'a>>,
    /// The rendered transcript, when it is inline.
    transcript: Option<Value>,
    transcript_file: Option<SidecarLink>,
    /// Earlier conclusions of this debate, when a review reopened it.
    history: &'a [Revision],
    tokens: Tokens,
    /// The estimated cost, from the prices in the settings, or why it is not known.
    cost: String,
    /// Arguments written for rounds the debate ended before, per round.
    discarded: Vec<Discarded>,
    /// What in the record the offline provider wrote ("the arguments", …), if anything.
    offline: Option<&'static str>,
    /// What in the record the scripted provider wrote, if anything.
    scripted: Option<&'static str>,
    names: Vec<String>,
    context: Vec<String>,
    /// The earlier decisions the debaters read, and those this record supersedes.
    related: Vec<Related<'a>>,
    /// The records this one supersedes, as the header's links to them.
    supersedes: Vec<RecordLink>,
    /// The earlier decisions the recommendation goes against.
    contradicts: Vec<Related<'a>>,
    panel: Vec<PanelEntry<'a>>,
    agreement: &'a [String],
    tensions: &'a [String],
    /// Each considered option with what was argued for and against it.
    options: &'a [OptionAssessment],
    chosen_option: Option<&'a str>,
    /// Ended as a sentence ends, to follow "Chosen option: …, because".
    rationale: String,
    recommendation: &'a str,
    caveats: &'a [String],
    consequences: &'a Consequences,
    confirmation: &'a str,
    action_items: &'a [String],
    dissents: &'a [Dissent],
    /// Where the perspectives ended, for a Dissenting View the moderator left empty.
    ended: Ended<'a>,
    /// The perspective the others conceded to, when the debate ended that way.
    winner: Option<&'a str>,
    degradations: &'a [String],
    log: Vec<LogRow>,
    /// The template's body has its Debate Log above the provenance.
    log_above: bool,
    /// How the moderator's server took structured answers, where it had a choice.
    structured_output: Option<&'a str>,
    /// The scores `debate eval --write` added, of the record as it is.
    evaluation: Option<ScoresEntry>,
}

/// A record's scores as its provenance shows them: a row per criterion, a column per
/// evaluator, the disagreements named and the checks that need no model.
#[derive(Serialize)]
struct ScoresEntry {
    number: u32,
    date: String,
    /// The evaluators' models, in order.
    evaluators: Vec<String>,
    /// No model judged the record: the marks were composed from the checks.
    composed: bool,
    rows: Vec<ScoresRow>,
    disagreements: Vec<String>,
    /// "3 of 4 passed"
    checks_passed: String,
    /// Each failed check: what it checks, then what it found.
    findings: Vec<String>,
}

#[derive(Serialize)]
struct ScoresRow {
    criterion: &'static str,
    /// Per evaluator: "8: its reason", or "—" when its answer could not be read.
    marks: Vec<String>,
}

impl ScoresEntry {
    fn of(card: &Scorecard) -> ScoresEntry {
        use strum::IntoEnumIterator;
        let rows = Criterion::iter()
            .map(|criterion| ScoresRow {
                criterion: criterion.label(),
                marks: card
                    .evaluators
                    .iter()
                    .map(|e| e.mark(criterion).map_or("—".into(), |m| format!("{}: {}", m.score, m.reason)))
                    .collect(),
            })
            .collect();
        let passed = card.checks.iter().filter(|c| c.passed()).count();
        ScoresEntry {
            number: card.number,
            date: card.created_at.get(..10).unwrap_or(&card.created_at).to_string(),
            evaluators: card.evaluators.iter().map(|e| e.model.clone()).collect(),
            composed: !card.judged_by_a_model(),
            rows,
            disagreements: card
                .disagreements()
                .iter()
                .map(|d| {
                    format!(
                        "{}: {} ({}) and {} ({})",
                        d.criterion.label(),
                        d.lowest,
                        d.lowest_by,
                        d.highest,
                        d.highest_by
                    )
                })
                .collect(),
            checks_passed: format!("{passed} of {} passed", card.checks.len()),
            findings: card.failed_checks().map(|c| format!("{}: {}", failed(c.kind), c.findings.join("; "))).collect(),
        }
    }
}

/// What a failed check found, in a few words.
fn failed(kind: CheckKind) -> &'static str {
    match kind {
        CheckKind::Sections => "sections missing",
        CheckKind::Placeholders => "empty or placeholder text",
        CheckKind::Repetition => "repeated text",
        CheckKind::Options => "options of the question left out",
    }
}

/// Where the perspectives still speaking ended: what their last stances show about
/// dissent, for a Dissenting View the moderator left empty.
#[derive(Serialize)]
struct Ended<'a> {
    /// The option every one of them ended on, if they all named the same.
    together: Option<&'a str>,
    /// Each last stance that named an option other than the chosen one; with no option
    /// chosen, every last stance that named one.
    apart: Vec<EndedOn<'a>>,
}

#[derive(Serialize)]
struct EndedOn<'a> {
    perspective: &'a str,
    option: &'a str,
}

impl<'a> Ended<'a> {
    fn of(state: &'a DebateState, chosen: Option<&str>) -> Ended<'a> {
        let stances: Vec<(&str, Option<&str>)> = state
            .latest_stances()
            .into_iter()
            .map(|(seat, stance)| (state.name(seat), stance.and_then(|s| s.option.as_deref())))
            .collect();
        let first = stances.first().and_then(|(_, option)| *option);
        let together = first.filter(|option| stances.iter().all(|(_, o)| *o == Some(*option)));
        let apart = stances
            .into_iter()
            .filter_map(|(perspective, option)| Some(EndedOn { perspective, option: option? }))
            .filter(|e| chosen != Some(e.option))
            .collect();
        Ended { together, apart }
    }
}

/// Who played a role: its provider, kind, model and temperature (the perspective for a
/// debater; muted or dropped when it left).
#[derive(Serialize)]
struct RoleEntry<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    perspective: Option<&'a str>,
    provider: &'a str,
    kind: ProviderKind,
    model: &'a str,
    /// Two decimals, as a person set it (not `0.2` as an `f32` prints in full).
    temperature: f64,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    muted: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    dropped: Option<&'a str>,
}

impl<'a> RoleEntry<'a> {
    /// `role` as it ran: its model, else its provider's, else the one that answered.
    fn of(state: &'a DebateState, role: &'a RoleChoice, answered: Option<&'a str>) -> RoleEntry<'a> {
        let configured = state.snapshot.model_of(role);
        RoleEntry {
            perspective: None,
            provider: &role.provider,
            kind: role.kind,
            model: configured.or(answered).unwrap_or("(the provider's default)"),
            temperature: (f64::from(role.temperature) * 100.0).round() / 100.0,
            muted: false,
            dropped: None,
        }
    }
}

#[derive(Serialize)]
struct SourceEntry<'a> {
    name: &'a str,
    tokens: u64,
    read: u64,
    cut: bool,
    describe: String,
}

#[derive(Serialize)]
struct SidecarLink {
    name: String,
    link: String,
}

#[derive(Serialize)]
struct Tokens {
    prompt: u64,
    /// Of `prompt`, what the providers served from their prefix caches.
    cached: u64,
    completion: u64,
}

/// A link to another record whose text is its file name without `.md`: log4brains takes
/// that text as the record's slug, adr-tools the link's leading number as its own.
#[derive(Serialize)]
struct RecordLink {
    slug: String,
    link: String,
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

/// The front matter: MADR's keys (`consulted` left for the people the team asks), then
/// debate's own. Every record starts `proposed`; the lifecycle changes it.
fn front_matter_fields(c: &Context) -> Vec<(&'static str, serde_json::Value)> {
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

fn context(state: &DebateState) -> Result<Context<'_>> {
    let outcome = state.outcome.as_ref().ok_or(RecordError::NoOutcome)?;
    let synthesis = &outcome.synthesis;
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
        discarded: state.discarded_by_round(),
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
        agreement: &synthesis.agreement,
        tensions: &synthesis.tensions,
        options: &synthesis.options,
        chosen_option: synthesis.chosen_option.as_deref(),
        rationale: as_sentence(&synthesis.rationale),
        recommendation: &synthesis.recommendation,
        caveats: &synthesis.caveats,
        consequences: &synthesis.consequences,
        confirmation: &synthesis.confirmation,
        action_items: &synthesis.action_items,
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

#[derive(Serialize)]
struct TranscriptContext<'a> {
    rounds: Vec<TranscriptRound<'a>>,
}

#[derive(Serialize)]
struct TranscriptRound<'a> {
    number: u32,
    /// The rounds argued, not the limit: "Round 2 of 2" in a debate that ended there.
    of: usize,
    phase: &'static str,
    framing: &'a str,
    guidance: Option<&'a str>,
    contributions: Vec<TranscriptEntry<'a>>,
}

#[derive(Serialize)]
struct TranscriptEntry<'a> {
    perspective: &'a str,
    kind: &'static str,
    model: &'a str,
    /// Rendered as Markdown between the marks that let the record be read back.
    text: Value,
    truncated: bool,
    looped: bool,
    stance: String,
}

/// Every round's framing, guidance, arguments and rebuttals in full, with stances.
fn transcript(state: &DebateState) -> TranscriptContext<'_> {
    let rounds = state
        .rounds
        .iter()
        .map(|r| TranscriptRound {
            number: r.number,
            of: state.rounds.len(),
            phase: state.phase(r.number),
            framing: &r.framing,
            guidance: r.guidance.as_deref(),
            contributions: r
                .contributions()
                .map(|c| TranscriptEntry {
                    perspective: state.name(c.seat),
                    kind: c.kind.as_str(),
                    model: &c.model,
                    text: Value::from_safe_string(carried::marked(&c.text)),
                    truncated: c.truncated,
                    looped: c.looped,
                    stance: stance_text(c.stance.as_ref()),
                })
                .collect(),
        })
        .collect();
    TranscriptContext { rounds }
}

/// "Postgres (medium); would change if …; concedes …", or "not read".
fn stance_text(stance: Option<&Stance>) -> String {
    let Some(stance) = stance else { return "not read".into() };
    let mut text = stance.brief();
    if !stance.would_change_if.is_empty() {
        text.push_str(&format!("; would change if {}", stance.would_change_if));
    }
    if !stance.concedes.is_empty() {
        text.push_str(&format!("; concedes {}", stance.concedes));
    }
    text
}

/// `text` with a full stop unless it already ends a sentence.
fn as_sentence(text: &str) -> String {
    let text = text.trim();
    match text.ends_with(['.', '!', '?', '…']) || text.is_empty() {
        true => text.to_string(),
        false => format!("{text}."),
    }
}

/// The models that argued at `seat`, each once.
fn argued_by(state: &DebateState, seat: usize) -> Vec<&str> {
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
    let argued = state.snapshot.debater_roles().iter().any(|role| role.kind == kind);
    match (argued, state.snapshot.moderator.kind == kind) {
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
    if !state.analysis.options.is_empty() {
        lines.push(format!("Options named in the question: {}.", state.analysis.options.join(", ")));
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
fn stances_cell(state: &DebateState, round: &Round) -> String {
    let stances: Vec<String> = (0..state.panel.len())
        .filter_map(|seat| Some(format!("{}: {}", state.name(seat), round.stance(seat)?.brief())))
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
    // For a repository template's own front matter keys: one line of YAML, read back as
    // the value whatever quotes or colons it holds.
    env.add_filter("yaml", |value: Value| {
        let json = serde_json::to_value(&value).unwrap_or(serde_json::Value::Null);
        Value::from_safe_string(front_matter::flow(&json))
    });
    env.add_filter("line", safe(markdown::line));
    env.add_filter("link_text", safe(markdown::link_text));
    env.add_filter("cell", safe(markdown::cell));
    env.add_filter("block", safe(markdown::block));
    // A template prints escaped values only.
    env.remove_filter("safe");
    env
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fixture;

    fn record(state: &DebateState) -> String {
        Templates::built_in().decision(state, Path::new("docs/decisions/redis.md")).unwrap().decision
    }

    /// The lines of `record` from `heading` up to the next `## ` heading.
    fn section(record: &str, heading: &str) -> String {
        let lines = record.lines().skip_while(|l| *l != heading).skip(1);
        lines.take_while(|l| !l.starts_with("## ")).collect::<Vec<_>>().join("\n").trim().to_string()
    }

    /// Every contribution of the last round ends on `option` (seat by seat).
    fn ended_on(state: &mut DebateState, options: [&str; 2]) {
        let last = state.rounds.last_mut().unwrap();
        for c in last.arguments.iter_mut().chain(&mut last.rebuttals) {
            c.stance.as_mut().unwrap().option = Some(options[c.seat].into());
        }
    }

    /// A complete debate whose moderator recorded no dissent.
    fn without_dissents(chosen: Option<&str>) -> DebateState {
        let mut state = fixture::complete(2);
        let synthesis = &mut state.outcome.as_mut().unwrap().synthesis;
        synthesis.dissents.clear();
        synthesis.chosen_option = chosen.map(str::to_string);
        state
    }

    const NO_DISSENT: &str = "No perspective dissented";

    #[test]
    fn no_dissent_is_claimed_while_the_stances_differ() {
        let view = section(&record(&without_dissents(Some("Postgres"))), "## Dissenting View");
        assert!(!view.contains(NO_DISSENT), "{view}");
        assert_eq!(
            view,
            "The moderator recorded no dissenting view, but these perspectives ended on an option other than the chosen one:\n\n- **Performance Advocate**: Redis"
        );
        let view = section(&record(&without_dissents(None)), "## Dissenting View");
        assert!(!view.contains(NO_DISSENT), "{view}");
        assert!(view.starts_with("The moderator recorded no dissenting view and chose no single option."), "{view}");
        assert!(view.contains("- **Performance Advocate**: Redis\n- **Operational Simplicity**: Postgres"), "{view}");
    }

    #[test]
    fn no_dissent_is_claimed_when_every_stance_names_the_chosen_option() {
        let mut state = without_dissents(Some("Postgres"));
        ended_on(&mut state, ["Postgres", "Postgres"]);
        let view = section(&record(&state), "## Dissenting View");
        assert_eq!(view, "No perspective dissented: every perspective ended on the chosen option, Postgres.");
        // All on one option the moderator did not choose: each of them is apart from it.
        ended_on(&mut state, ["Redis", "Redis"]);
        let view = section(&record(&state), "## Dissenting View");
        assert!(!view.contains(NO_DISSENT) && view.contains("- **Operational Simplicity**: Redis"), "{view}");
    }

    #[test]
    fn stances_that_only_followed_the_list_claim_no_dissent() {
        let mut state = without_dissents(Some("Postgres"));
        ended_on(&mut state, ["Postgres", "Postgres"]);
        state.rounds[0].arguments[0].stance.as_mut().unwrap().option = Some("Redis".into());
        for c in state.rounds.iter_mut().flat_map(|r| r.arguments.iter_mut().chain(&mut r.rebuttals)) {
            c.stance.as_mut().unwrap().first_listed = true;
        }
        let view = section(&record(&state), "## Dissenting View");
        assert_eq!(view, "The moderator recorded no dissenting view.");
    }

    #[test]
    fn without_stances_only_the_moderators_silence_is_reported() {
        let mut state = without_dissents(None);
        for c in state.rounds.iter_mut().flat_map(|r| r.arguments.iter_mut().chain(&mut r.rebuttals)) {
            c.stance = None;
        }
        assert_eq!(section(&record(&state), "## Dissenting View"), "The moderator recorded no dissenting view.");
    }

    #[test]
    fn the_moderators_dissents_are_listed_as_recorded() {
        let view = section(&record(&fixture::complete(2)), "## Dissenting View");
        assert_eq!(view, "- **Performance Advocate** (prefers Redis): latency will need Redis within a year");
    }

    #[test]
    fn the_transcript_counts_the_rounds_argued_not_the_limit() {
        // The fixture allows three rounds.
        let two = record(&fixture::complete(2));
        assert!(two.contains("<summary>Round 2 of 2 (rebuttal)</summary>"), "{two}");
        assert!(!two.contains(" of 3 ("), "a third round was never argued:\n{two}");
        let three = record(&fixture::complete(3));
        assert!(three.contains("<summary>Round 3 of 3 (closing)</summary>"), "{three}");
    }

    fn role(provider: &str, kind: ProviderKind, model: &str) -> RoleChoice {
        RoleChoice { provider: provider.into(), kind, model: Some(model.into()), temperature: 0.2 }
    }

    /// The record's provenance with the moderator and every debater played by `role`.
    fn provenance(role: RoleChoice) -> String {
        let mut state = fixture::complete(1);
        state.snapshot.moderator = role.clone();
        state.snapshot.debater = role;
        section(&record(&state), "## Provenance")
    }

    #[test]
    fn the_provenance_names_a_provider_once() {
        let offline = provenance(role("offline", ProviderKind::Offline, "offline"));
        assert!(offline.contains("- Moderator: offline (temperature 0.2).\n"), "{offline}");
        assert!(offline.contains("- Performance Advocate: offline (temperature 0.2)\n"), "{offline}");
        assert!(!offline.contains("offline, offline"), "{offline}");
        let hosted = provenance(role("openai", ProviderKind::Openai, "gpt-4o"));
        assert!(hosted.contains("- Moderator: gpt-4o (openai, temperature 0.2).\n"), "{hosted}");
        let local = provenance(role("local", ProviderKind::Openai, "qwen3"));
        assert!(local.contains("- Moderator: qwen3 (local, openai, temperature 0.2).\n"), "{local}");
    }

    #[test]
    fn the_provenance_points_to_the_debate_log_only_when_it_is_above() {
        const POINTER: &str = "the stances per round are in the Debate Log above";
        let state = fixture::complete(1);
        assert!(record(&state).contains(POINTER));
        let without_log = Templates {
            decision: "# {{ title | line }}\n\n## Decision\n\n{{ recommendation | block }}\n".into(),
            ..Templates::built_in()
        };
        let rendered = without_log.decision(&state, Path::new("docs/decisions/redis.md")).unwrap().decision;
        assert!(rendered.contains("## Provenance") && !rendered.contains(POINTER), "{rendered}");
    }

    #[test]
    fn written_scores_of_the_record_as_it_is_are_in_its_provenance() {
        let mut state = fixture::complete(1);
        state.scorecards.push(fixture::scorecard(false));
        assert!(!record(&state).contains("### Evaluation"), "only written scores are shown");
        state.scorecards[0].written = true;
        let provenance = section(&record(&state), "## Provenance");
        let table = "| Criterion | m | n |\n|---|---|---|\n| Decision stated and chosen among the options | 8: m on decision. | 7: n on decision. |";
        assert!(provenance.contains(table), "{provenance}");
        assert!(provenance.contains("Evaluation 1 of this record, made 2026-11-23 by m, n: each criterion scored from 1 to 10, with the evaluator's reason."), "{provenance}");
        assert!(
            provenance.contains("- The evaluators disagree on Arguments use the project's context, none contradicts it: 2 (m) and 9 (n)."),
            "{provenance}"
        );
        assert!(
            provenance.contains(
                "- Checks without a model: 1 of 2 passed; empty or placeholder text: Consequences: (none given)."
            ),
            "{provenance}"
        );
        for card in &mut state.scorecards {
            card.evaluators.iter_mut().for_each(|e| e.reasoned = false);
        }
        assert!(
            record(&state)
                .contains("composed from the record's text by the offline provider — not a model's judgement")
        );
        state.revisions.push(Revision {
            date: "2026-11-24".into(),
            rounds: 1,
            chosen_option: None,
            confidence: crate::model::Confidence::Low,
            recommendation: String::new(),
            commit: None,
            reopened_by: "cost?".into(),
        });
        assert!(!record(&state).contains("### Evaluation"), "a review's rewrite leaves the last record's scores out");
    }

    #[test]
    fn only_a_provider_that_does_not_reason_is_said_not_to() {
        let mut state = fixture::complete(1);
        state.snapshot.moderator = role("openai", ProviderKind::Openai, "gpt-4o");
        state.snapshot.debater = state.snapshot.moderator.clone();
        let reasoned = record(&state);
        assert!(!reasoned.contains("no model reasoned"), "{reasoned}");
        state.snapshot.moderator = role("offline", ProviderKind::Offline, "offline");
        state.snapshot.debater = state.snapshot.moderator.clone();
        let offline = record(&state);
        assert!(
            offline.contains("> **Offline debate.**") && offline.contains("no model reasoned about them"),
            "{offline}"
        );
    }
}
