//! A debate in full: `--show --json`, the dashboard's page, and `debate show`.

use serde::Serialize;

use crate::model::{
    Analysis, Cost, DebateSettings, DebateState, Discarded, PriceList, ProviderKind, Revision, RoleChoice, Round,
};
use crate::view::context::ContextView;
use crate::view::outcome::OutcomeView;
use crate::view::rounds::{ContributionView, EvaluationView, Measures, Repetition, RoundView};
use crate::view::scorecard::ScorecardView;
use crate::view::summary::{Summary, Tokens};

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
    /// Earlier conclusions of this debate that reviews reopened, oldest first.
    pub revisions: Vec<Revision>,
    /// The estimated cost of every call, from the prices in the settings.
    pub cost: CostView,
    /// Per model that answered: its calls' tokens, and the tries made again after one failed.
    pub models: Vec<ModelUsage>,
    /// The model servers on this machine the debate's providers use, and how many requests
    /// each serves at once, as this database learned it.
    pub servers: Vec<ServerView>,
    /// Its record scored by `debate eval`, oldest first.
    pub evaluations: Vec<ScorecardView>,
}

/// One model's calls in a debate.
#[derive(Debug, Clone, Serialize)]
pub struct ModelUsage {
    pub model: String,
    pub tokens: Tokens,
    /// Tries that failed (a dropped answer, an overloaded server, an empty answer) and
    /// were made again.
    pub retries: u64,
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

impl CostView {
    /// `≈ $0.0123`, or what is not known and why.
    pub fn describe(&self) -> String {
        Cost { usd: self.priced_usd, unpriced: self.unpriced_models.clone() }.describe()
    }
}

impl From<Cost> for CostView {
    fn from(cost: Cost) -> CostView {
        CostView { estimated_usd: cost.known(), priced_usd: cost.usd, unpriced_models: cost.unpriced }
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
            revisions: state.revisions.clone(),
            cost: Cost::of(state).into(),
            models: state
                .usage_by_model
                .iter()
                .map(|(model, usage)| ModelUsage {
                    model: model.clone(),
                    tokens: (*usage).into(),
                    retries: usage.retries,
                })
                .collect(),
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
