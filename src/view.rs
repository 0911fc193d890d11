//! The public JSON documents: what `--json`, `--resume --json`, `--list --json` and
//! `--show --json` print. Built from the model, never the internal state itself, with
//! one lowercase vocabulary for every status, end reason, kind, assessment and
//! confidence.

use serde::Serialize;

use crate::model::{
    Analysis, Assessment, CheckKind, Confidence, ContributionKind, Cost, Criterion, DebateSettings, DebateState,
    DebaterAssessment, Disagreement, Discarded, EndReason, Evaluation, Listing, Outcome, PriceList, ProjectContext,
    ProviderKind, RoleChoice, Round, Scorecard, Source, Stance, Status, Synthesis, Usage,
};

/// A debate in one object: what `--list --json` lists, and what a run prints.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub id: String,
    pub status: Status,
    pub question: String,
    pub title: String,
    pub repository: String,
    pub created_at: String,
    pub rounds: u32,
    pub ended_by: Option<EndReason>,
    pub confidence: Option<Confidence>,
    pub record_path: Option<String>,
    /// The record's lifecycle status as the record states it now (`proposed`,
    /// `accepted`, `rejected`, `deprecated`, `superseded`), read from the work tree or
    /// the record's branch; `None` without a record to read. `status` is the debate's.
    pub record_status: Option<String>,
    pub commit_id: Option<String>,
    /// The branch the record was committed to with `--branch`.
    pub branch: Option<String>,
    pub issue_draft: Option<IssueDraft>,
    pub tokens: Tokens,
}

#[derive(Debug, Clone, Serialize)]
pub struct IssueDraft {
    pub path: String,
    /// The `gh issue create` line that files it, run from the repository root.
    pub command: String,
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct Tokens {
    pub prompt: u64,
    /// Of `prompt`, what the providers served from their prefix caches.
    pub cached: u64,
    pub completion: u64,
}

impl From<Usage> for Tokens {
    fn from(usage: Usage) -> Tokens {
        Tokens { prompt: usage.prompt_tokens, cached: usage.cached_tokens, completion: usage.completion_tokens }
    }
}

impl Summary {
    pub fn of(state: &DebateState) -> Summary {
        Summary {
            id: state.id.clone(),
            status: state.status,
            question: state.question.clone(),
            title: state.decision_title().to_string(),
            repository: state.repo_root.clone(),
            created_at: state.created_at.clone(),
            rounds: state.rounds.len() as u32,
            ended_by: state.end_reason,
            confidence: state.outcome.as_ref().map(|o| o.confidence),
            record_path: state.record_path.clone(),
            record_status: None,
            commit_id: state.commit_id.clone(),
            branch: state.snapshot.branch.clone(),
            issue_draft: None,
            tokens: state.totals.into(),
        }
    }
}

impl From<&Listing> for Summary {
    fn from(row: &Listing) -> Summary {
        Summary {
            id: row.id.clone(),
            status: row.status,
            question: row.question.clone(),
            title: row.title.clone(),
            repository: row.repository.clone(),
            created_at: row.created_at.clone(),
            rounds: row.rounds,
            ended_by: row.end_reason,
            confidence: row.confidence,
            record_path: row.record_path.clone(),
            record_status: None,
            commit_id: row.commit_id.clone(),
            branch: row.branch.clone(),
            issue_draft: None,
            tokens: row.totals.into(),
        }
    }
}

/// A debate a failure left paused (`--json` with an exit code other than 0): what
/// went wrong, and how to go on.
#[derive(Debug, Clone, Serialize)]
pub struct Paused {
    pub id: String,
    pub status: Status,
    pub error: String,
    pub hint: Option<String>,
    pub exit_code: u8,
    /// The command that continues it.
    pub resume: String,
}

impl Paused {
    pub fn new(id: &str, error: String, hint: Option<String>, exit_code: u8) -> Paused {
        Paused {
            id: id.to_string(),
            status: Status::Paused,
            error,
            hint,
            exit_code,
            resume: format!("debate resume {id}"),
        }
    }
}

/// A debate in full: `--show --json`.
#[derive(Debug, Clone, Serialize)]
pub struct Detail {
    #[serde(flatten)]
    pub summary: Summary,
    pub providers: Roles,
    /// How the moderator's server took structured answers (`json_schema`,
    /// `json_object`, `instructions`), where it had a choice.
    pub structured_output: Option<String>,
    pub rules: DebateSettings,
    pub analysis: Analysis,
    pub clarification: Option<Clarification>,
    /// What the debaters read about the project.
    pub context: ContextView,
    /// Earlier records this debate's record supersedes.
    pub supersedes: Vec<String>,
    pub panel: Vec<Seat>,
    /// Every round in full.
    pub transcript: Vec<RoundView>,
    /// Arguments written for a round the debate ended before (an evaluation running
    /// alongside them ended it): per round, how many and their tokens.
    pub discarded: Vec<Discarded>,
    pub outcome: Option<OutcomeView>,
    /// The estimated cost of every call, from the prices in the settings.
    pub cost: CostView,
    /// The model servers on this machine the debate's providers use, and how many requests
    /// each serves at once, as this database learned it.
    pub servers: Vec<ServerView>,
    /// Its record scored by `debate eval`, oldest first.
    pub evaluations: Vec<ScorecardView>,
}

/// One evaluation of the record: every evaluator's mark on each criterion (never only
/// their mean), the criteria they disagree on, and the checks that need no model.
#[derive(Debug, Clone, Serialize)]
pub struct ScorecardView {
    pub number: u32,
    pub created_at: String,
    /// The record's revision it scored (reviews before it); `current`: the record as it
    /// is now.
    pub revision: u32,
    pub current: bool,
    /// `eval --write` added it to the record's provenance.
    pub written: bool,
    /// A model judged the record; `false`: the marks were composed from the checks by
    /// the offline provider.
    pub judged_by_a_model: bool,
    pub evaluators: Vec<EvaluatorView>,
    pub criteria: Vec<CriterionView>,
    /// Criteria on which two evaluators are more than 3 points apart.
    pub disagreements: Vec<Disagreement>,
    pub checks: Vec<CheckView>,
}

#[derive(Debug, Clone, Serialize)]
pub struct EvaluatorView {
    pub provider: String,
    pub model: String,
    /// A model reasoned behind its marks.
    pub reasoned: bool,
    /// Its answer could be read as a mark for every criterion.
    pub scored: bool,
    pub tokens: Tokens,
    pub latency_ms: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct CriterionView {
    pub criterion: Criterion,
    pub label: &'static str,
    /// Each evaluator's mark, in the evaluators' order.
    pub marks: Vec<MarkView>,
    /// The mean of the marks; read it with `disagreements`.
    pub mean: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct MarkView {
    pub model: String,
    pub score: u8,
    pub reason: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct CheckView {
    pub check: CheckKind,
    pub label: &'static str,
    pub passed: bool,
    pub findings: Vec<String>,
}

impl ScorecardView {
    /// `card`, of a debate reopened by `revisions` reviews so far.
    pub fn of(card: &Scorecard, revisions: usize) -> ScorecardView {
        use strum::IntoEnumIterator;
        ScorecardView {
            number: card.number,
            created_at: card.created_at.clone(),
            revision: card.revision,
            current: card.revision as usize == revisions,
            written: card.written,
            judged_by_a_model: card.judged_by_a_model(),
            evaluators: card
                .evaluators
                .iter()
                .map(|e| EvaluatorView {
                    provider: e.provider.clone(),
                    model: e.model.clone(),
                    reasoned: e.reasoned,
                    scored: !e.marks.is_empty(),
                    tokens: e.usage.into(),
                    latency_ms: e.usage.latency_ms,
                })
                .collect(),
            criteria: Criterion::iter()
                .map(|criterion| CriterionView {
                    criterion,
                    label: criterion.label(),
                    marks: card
                        .marks(criterion)
                        .into_iter()
                        .map(|(model, m)| MarkView {
                            model: model.to_string(),
                            score: m.score,
                            reason: m.reason.clone(),
                        })
                        .collect(),
                    mean: card.mean(criterion),
                })
                .collect(),
            disagreements: card.disagreements(),
            checks: card
                .checks
                .iter()
                .map(|c| CheckView {
                    check: c.kind,
                    label: c.kind.label(),
                    passed: c.passed(),
                    findings: c.findings.clone(),
                })
                .collect(),
        }
    }
}

/// A model server and how many requests it serves at once.
#[derive(Debug, Clone, Serialize)]
pub struct ServerView {
    pub base_url: String,
    pub serves_at_once: usize,
    pub learned_from: String,
}

/// What a debate's calls are estimated to cost (US dollars, from the prices in the
/// settings; none are built in).
#[derive(Debug, Clone, Serialize)]
pub struct CostView {
    /// The whole estimate; `null` when a model called has no price.
    pub estimated_usd: Option<f64>,
    /// The calls whose model has a price.
    pub priced_usd: f64,
    /// Models called without a price.
    pub unpriced_models: Vec<String>,
}

impl From<Cost> for CostView {
    fn from(cost: Cost) -> CostView {
        CostView { estimated_usd: cost.known(), priced_usd: cost.usd, unpriced_models: cost.unpriced }
    }
}

/// What the debaters read about the project: `--context-preview --json`, and part of
/// `--show --json`.
#[derive(Debug, Clone, Serialize)]
pub struct ContextView {
    /// Whether the repository was read (not with `--no-repo-context`).
    pub repository: bool,
    /// Tokens are estimated at four bytes each.
    pub budget_tokens: u64,
    /// Every part in the order it was given, with the tokens of the whole part and of
    /// what the debaters read of it.
    pub sources: Vec<SourceView>,
    /// The earlier decisions the debaters read, most relevant first.
    pub decisions: Vec<DecisionView>,
    /// Where the repository keeps decision records, if it does.
    pub convention: Option<ConventionView>,
    /// Files that could not be read, and why.
    pub notes: Vec<String>,
    /// The text, exactly as the debaters read it.
    pub text: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct SourceView {
    pub name: String,
    pub tokens: u64,
    pub read_tokens: u64,
    pub cut: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct DecisionView {
    pub path: String,
    pub title: String,
    pub status: String,
    pub date: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ConventionView {
    pub directory: String,
    pub numbered: bool,
    pub records: u32,
}

impl ContextView {
    pub fn of(project: &ProjectContext) -> ContextView {
        ContextView {
            repository: project.repository,
            budget_tokens: project.budget,
            sources: project
                .sources
                .iter()
                .map(|s| SourceView { name: s.name.clone(), tokens: s.tokens, read_tokens: s.read, cut: s.cut() })
                .collect(),
            decisions: project
                .decisions
                .iter()
                .map(|d| DecisionView {
                    path: d.path.clone(),
                    title: d.title.clone(),
                    status: d.status.clone(),
                    date: d.date.clone(),
                })
                .collect(),
            convention: project.convention.as_ref().map(|c| ConventionView {
                directory: c.directory.clone(),
                numbered: c.numbered,
                records: c.records,
            }),
            notes: project.notes.clone(),
            text: project.text.clone(),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Roles {
    pub moderator: Role,
    pub debater: Role,
}

#[derive(Debug, Clone, Serialize)]
pub struct Role {
    pub provider: String,
    pub kind: ProviderKind,
    pub model: Option<String>,
    pub temperature: f32,
}

impl From<&RoleChoice> for Role {
    fn from(choice: &RoleChoice) -> Role {
        Role {
            provider: choice.provider.clone(),
            kind: choice.kind,
            model: choice.model.clone(),
            temperature: choice.temperature,
        }
    }
}

/// The moderator's clarifying questions for a vague question and the answer; `open`
/// when nobody answered them.
#[derive(Debug, Clone, Serialize)]
pub struct Clarification {
    pub questions: Vec<String>,
    pub answer: Option<String>,
    pub open: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct Seat {
    pub perspective: String,
    pub reason: String,
    pub priorities: Vec<String>,
    pub trade_offs: String,
    /// Why it left the panel, if it did.
    pub dropped: Option<String>,
    /// Who argues it (on a heterogeneous panel, each seat's own model).
    pub debater: Role,
}

#[derive(Debug, Clone, Serialize)]
pub struct RoundView {
    pub number: u32,
    pub framing: String,
    pub guidance: Option<String>,
    pub arguments: Vec<ContributionView>,
    pub rebuttals: Vec<ContributionView>,
    pub measures: Option<Measures>,
    pub evaluation: Option<EvaluationView>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ContributionView {
    pub perspective: String,
    pub kind: ContributionKind,
    pub text: String,
    pub model: String,
    pub tokens: Tokens,
    /// Estimated from the prices in the settings; `null` without one for its model.
    pub cost_usd: Option<f64>,
    pub latency_ms: u64,
    /// The answer stopped at the completion limit (asked again for less, unless the model
    /// looped or ignored the length it was asked for).
    pub truncated: bool,
    /// It began to repeat itself and was stopped there.
    pub looped: bool,
    /// It said nothing of its own (only its prompt given back): never quoted as an argument.
    pub failed: bool,
    /// Where the debater stood after it (`option` is `null` when it could not be read).
    pub stance: Option<Stance>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Measures {
    /// Share of the round's phrasing never seen before.
    pub novelty: f64,
    /// Per debater that argued in the previous round too: share of its argument repeated.
    pub repetition: Vec<Repetition>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Repetition {
    pub perspective: String,
    pub share: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct EvaluationView {
    /// Each debater as the moderator judged it, before its verdicts.
    pub debaters: Vec<DebaterAssessment>,
    pub summary: String,
    pub assessment: Assessment,
    pub agreement: bool,
    pub clear_winner: Option<String>,
    pub off_topic: Vec<String>,
    pub new_points: Vec<String>,
    /// What the round left unresolved: the next round's agenda.
    pub open_tensions: Vec<String>,
    /// The moderator's answer was unreadable; this was derived from the measures.
    pub fallback: bool,
    /// The last round, weighed in the synthesis: verdicts from the measures.
    pub folded: bool,
}

impl From<&Evaluation> for EvaluationView {
    fn from(e: &Evaluation) -> EvaluationView {
        EvaluationView {
            debaters: e.debaters.clone(),
            summary: e.summary.clone(),
            assessment: e.assessment,
            agreement: e.agreement,
            clear_winner: e.clear_winner.clone(),
            off_topic: e.off_topic.clone(),
            new_points: e.new_points.clone(),
            open_tensions: e.open_tensions.clone(),
            fallback: e.fallback,
            folded: e.folded,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct OutcomeView {
    /// After every adjustment (max rounds, degradations).
    pub confidence: Confidence,
    pub source: Source,
    pub degradations: Vec<String>,
    /// Why the confidence is not the moderator's own.
    pub lowered: Vec<String>,
    pub synthesis: Synthesis,
}

impl From<&Outcome> for OutcomeView {
    fn from(o: &Outcome) -> OutcomeView {
        OutcomeView {
            confidence: o.confidence,
            source: o.source,
            degradations: o.degradations.clone(),
            lowered: o.lowered.clone(),
            synthesis: o.synthesis.clone(),
        }
    }
}

impl Detail {
    pub fn of(state: &DebateState) -> Detail {
        let prices = PriceList::of(&state.snapshot);
        let round = |r: &Round| RoundView {
            number: r.number,
            framing: r.framing.clone(),
            guidance: r.guidance.clone(),
            arguments: r.arguments.iter().map(|c| contribution(state, &prices, c)).collect(),
            rebuttals: r.rebuttals.iter().map(|c| contribution(state, &prices, c)).collect(),
            measures: r.measures.as_ref().map(|m| Measures {
                novelty: m.novelty,
                repetition: m
                    .repetition
                    .iter()
                    .enumerate()
                    .filter_map(|(seat, share)| {
                        Some(Repetition { perspective: state.name(seat).to_string(), share: (*share)? })
                    })
                    .collect(),
            }),
            evaluation: r.evaluation.as_ref().map(EvaluationView::from),
        };
        Detail {
            summary: Summary::of(state),
            providers: Roles {
                moderator: (&state.snapshot.moderator).into(),
                debater: (&state.snapshot.debater).into(),
            },
            structured_output: state.structured_format.clone(),
            rules: state.snapshot.debate.clone(),
            analysis: state.analysis.clone(),
            clarification: state.clarification.as_ref().map(|c| Clarification {
                questions: c.questions().iter().map(|q| q.to_string()).collect(),
                answer: c.answer.clone(),
                open: !c.open().is_empty(),
            }),
            context: ContextView::of(&state.snapshot.project),
            supersedes: state.snapshot.supersedes.iter().map(|d| d.path.clone()).collect(),
            panel: state
                .panel
                .iter()
                .enumerate()
                .map(|(index, s)| Seat {
                    perspective: s.name().to_string(),
                    reason: s.reason.clone(),
                    priorities: s.perspective.priorities.clone(),
                    trade_offs: s.perspective.trade_offs.clone(),
                    dropped: s.dropped.clone(),
                    debater: state.snapshot.debater_for(index).into(),
                })
                .collect(),
            transcript: state.rounds.iter().map(round).collect(),
            discarded: state.discarded_by_round(),
            outcome: state.outcome.as_ref().map(OutcomeView::from),
            cost: Cost::of(state).into(),
            servers: Vec::new(),
            evaluations: state.scorecards.iter().map(|card| ScorecardView::of(card, state.revisions.len())).collect(),
        }
    }
}

fn contribution(state: &DebateState, prices: &PriceList, c: &crate::model::Contribution) -> ContributionView {
    ContributionView {
        perspective: state.name(c.seat).to_string(),
        kind: c.kind,
        text: c.text.clone(),
        model: c.model.clone(),
        tokens: c.usage.into(),
        cost_usd: prices.price(&c.model).map(|price| price.of(&c.usage)),
        latency_ms: c.usage.latency_ms,
        truncated: c.truncated,
        looped: c.looped,
        failed: c.failed,
        stance: c.stance.clone(),
    }
}

/// `debate accept|reject|deprecate --json`: what became of the record.
#[derive(Debug, Serialize)]
pub struct StatusChange {
    pub path: String,
    /// The status as the record now states it, and as it stated it before.
    pub status: String,
    pub previous_status: String,
    /// `false` when the record already had that status: nothing was written.
    pub changed: bool,
    pub commit: Option<String>,
    /// Why the new status was written but not committed, if it was not.
    pub not_committed: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fixture;

    fn listing(state: &DebateState) -> Listing {
        Listing {
            id: state.id.clone(),
            status: state.status,
            rounds: state.rounds.len() as u32,
            created_at: state.created_at.clone(),
            question: state.question.clone(),
            title: state.decision_title().to_string(),
            repository: state.repo_root.clone(),
            record_path: state.record_path.clone(),
            branch: state.snapshot.branch.clone(),
            end_reason: state.end_reason,
            confidence: state.outcome.as_ref().map(|o| o.confidence),
            commit_id: state.commit_id.clone(),
            totals: state.totals,
        }
    }

    #[test]
    fn the_documents_are_pinned() {
        let state = fixture::complete(2);
        insta::assert_json_snapshot!("summary", Summary::of(&state));
        insta::assert_json_snapshot!("detail", Detail::of(&state));
    }

    #[test]
    fn a_listed_debate_reads_as_the_same_summary() {
        let state = fixture::complete(2);
        let from_list = serde_json::to_value(Summary::from(&listing(&state))).unwrap();
        assert_eq!(from_list, serde_json::to_value(Summary::of(&state)).unwrap());
    }

    #[test]
    fn every_name_is_lowercase() {
        let mut state = fixture::complete(2);
        state.status = Status::InRound;
        state.end_reason = Some(EndReason::ClearWinner);
        let detail = serde_json::to_value(Detail::of(&state)).unwrap();
        assert_eq!(detail["status"], "in_round");
        assert_eq!(detail["ended_by"], "clear-winner");
        assert_eq!(detail["confidence"], "high");
        assert_eq!(detail["transcript"][0]["arguments"][0]["kind"], "argument");
        assert_eq!(detail["transcript"][0]["evaluation"]["assessment"], "new_ground");
        assert_eq!(detail["outcome"]["source"], "structured");
        assert_eq!(detail["providers"]["moderator"]["kind"], "scripted");
    }

    #[test]
    fn an_evaluation_shows_every_mark_and_names_the_disagreement() {
        let mut state = fixture::complete(1);
        state.scorecards.push(fixture::scorecard(true));
        let detail = serde_json::to_value(Detail::of(&state)).unwrap();
        let evaluation = &detail["evaluations"][0];
        assert_eq!(
            (evaluation["current"].as_bool(), evaluation["judged_by_a_model"].as_bool()),
            (Some(true), Some(true))
        );
        assert_eq!(evaluation["criteria"].as_array().unwrap().len(), 5);
        let context = &evaluation["criteria"][2];
        assert_eq!(context["criterion"], "context");
        assert_eq!(context["marks"][1], serde_json::json!({"model": "n", "score": 9, "reason": "n on context."}));
        assert_eq!(context["mean"], 5.5);
        assert_eq!(
            evaluation["disagreements"],
            serde_json::json!([{"criterion": "context", "lowest": 2, "lowest_by": "m", "highest": 9, "highest_by": "n"}])
        );
        assert_eq!(evaluation["checks"][1]["check"], "placeholders");
        assert_eq!(evaluation["checks"][1]["passed"], false);
    }
}
