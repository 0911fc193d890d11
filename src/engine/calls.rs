//! The calls the engine makes: each request built from the stored state, and the two
//! second chances a call gets — a compact prompt after a context-length error, and a
//! stricter instruction after a structured answer that cannot be read.

use std::time::Instant;

use super::state::{ContributionKind, DebateState, Usage};
use crate::catalog::Catalog;
use crate::error::{Kind, Result};
use crate::moderator::detection::RoundMeasures;
use crate::moderator::prompts::{self, STRICTER, Size};
use crate::moderator::{evaluation, selection, synthesis};
use crate::providers::{Brief, Completion, Provider, Purpose, Request, Schema, TextSink};

/// Completion limits for the moderator's structured answers.
const ANALYSIS_TOKENS: u32 = 1_000;
const EVALUATION_TOKENS: u32 = 1_500;
const SYNTHESIS_TOKENS: u32 = 4_000;

/// What is being asked.
pub enum Ask<'a> {
    Debater { seat: usize, round: u32, kind: ContributionKind },
    Analysis { catalog: &'a Catalog },
    Evaluation { round: u32, measures: &'a RoundMeasures, stagnating: bool },
    Synthesis,
}

pub fn request(state: &DebateState, ask: &Ask, size: Size) -> Request {
    match ask {
        Ask::Debater { seat, round, kind } => debater(state, *seat, *round, *kind, size),
        Ask::Analysis { catalog } => {
            let prompt =
                prompts::analysis(&state.question, &state.analysis, &state.panel, catalog, &state.snapshot.forced);
            let schema = Schema { name: "choose_panel", value: selection::refinement_schema() };
            moderator(state, Purpose::Analysis, 0, prompt, ANALYSIS_TOKENS, schema, Brief::None)
        }
        Ask::Evaluation { round, measures, stagnating } => {
            let arguments = state.rounds[*round as usize - 1]
                .arguments
                .iter()
                .map(|c| (state.panel[c.seat].name().to_string(), c.text.clone()))
                .collect();
            let brief = Brief::Evaluation { arguments, novelty: measures.novelty, stagnating: *stagnating };
            let schema = Schema { name: "evaluate_round", value: evaluation::schema() };
            let prompt = prompts::evaluation(state, *round, measures, size);
            moderator(state, Purpose::Evaluation, *round, prompt, EVALUATION_TOKENS, schema, brief)
        }
        Ask::Synthesis => {
            let brief = Brief::Synthesis {
                panel: state.panel.iter().map(|s| s.perspective.clone()).collect(),
                options: state.analysis.options.clone(),
            };
            let schema = Schema { name: "write_synthesis", value: synthesis::schema() };
            moderator(state, Purpose::Synthesis, 0, prompts::synthesis(state, size), SYNTHESIS_TOKENS, schema, brief)
        }
    }
}

fn debater(state: &DebateState, seat: usize, round: u32, kind: ContributionKind, size: Size) -> Request {
    let (purpose, prompt) = match kind {
        ContributionKind::Argument => (Purpose::Argument, prompts::argument(state, seat, round, size)),
        ContributionKind::Rebuttal => (Purpose::Rebuttal, prompts::rebuttal(state, seat, round, size)),
    };
    let me = &state.panel[seat];
    Request {
        purpose,
        round,
        perspective: Some(me.name().to_string()),
        system: prompt.system,
        prompt: prompt.user,
        max_tokens: state.snapshot.debate.token_budget_per_round.0,
        temperature: state.snapshot.debater.temperature,
        schema: None,
        on_text: None,
        brief: Brief::Debater {
            perspective: me.perspective.clone(),
            seat,
            question: state.question.clone(),
            options: state.analysis.options.clone(),
            others: state
                .panel
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != seat)
                .map(|(_, s)| s.perspective.clone())
                .collect(),
        },
    }
}

fn moderator(
    state: &DebateState,
    purpose: Purpose,
    round: u32,
    prompt: prompts::Prompt,
    max_tokens: u32,
    schema: Schema,
    brief: Brief,
) -> Request {
    Request {
        purpose,
        round,
        perspective: None,
        system: prompt.system,
        prompt: prompt.user,
        max_tokens: Some(max_tokens),
        temperature: state.snapshot.moderator.temperature,
        schema: Some(schema),
        on_text: None,
        brief,
    }
}

/// One call. A context-length error gets one more try with a compact prompt.
pub async fn ask(
    provider: &dyn Provider,
    state: &DebateState,
    ask: &Ask<'_>,
    on_text: Option<TextSink>,
) -> Result<Completion> {
    let mut normal = request(state, ask, Size::NORMAL);
    normal.on_text = on_text.clone();
    match timed(provider, &normal).await {
        Err(err) if err.kind == Kind::ContextLength => {
            let mut compact = request(state, ask, Size::COMPACT);
            compact.on_text = on_text;
            timed(provider, &compact).await
        }
        result => result,
    }
}

/// A structured answer and what `read` made of it. An answer that cannot be read is
/// asked for once more with a stricter instruction; the completion then carries the
/// tokens of both calls and the second answer's text.
pub async fn ask_structured<T>(
    provider: &dyn Provider,
    state: &DebateState,
    what: &Ask<'_>,
    read: impl Fn(&str) -> Option<T>,
) -> Result<(Completion, Option<T>)> {
    let first = ask(provider, state, what, None).await?;
    if let Some(value) = read(&first.text) {
        return Ok((first, Some(value)));
    }
    if !provider.reasoned() {
        // The offline provider would only say the same again.
        return Ok((first, None));
    }
    let mut stricter = request(state, what, Size::NORMAL);
    stricter.prompt.push_str(STRICTER);
    let second = timed(provider, &stricter).await?;
    let value = read(&second.text);
    let usage = Usage {
        prompt_tokens: first.usage.prompt_tokens + second.usage.prompt_tokens,
        completion_tokens: first.usage.completion_tokens + second.usage.completion_tokens,
        latency_ms: first.usage.latency_ms + second.usage.latency_ms,
    };
    Ok((Completion { usage, ..second }, value))
}

/// One call, with its wall time as the latency.
async fn timed(provider: &dyn Provider, request: &Request) -> Result<Completion> {
    let started = Instant::now();
    let mut completion = provider.complete(request).await?;
    completion.usage.latency_ms = started.elapsed().as_millis() as u64;
    Ok(completion)
}
