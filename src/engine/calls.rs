//! The calls the engine makes: each request built from the stored state, and the two
//! second chances a call gets — a compact prompt after a context-length error, and a
//! stricter instruction after a structured answer that cannot be read.

use std::sync::atomic::Ordering;
use std::time::Instant;

use crate::catalog::Catalog;
use crate::model::{Completion, ContributionKind, DebateState, Evaluation, Purpose, RoundMeasures};
use crate::moderator::answers::{self, Answer};
use crate::moderator::clarify::{self, ClarifyingQuestions};
use crate::moderator::detection;
use crate::moderator::evaluation::RoundVerdict;
use crate::moderator::prompts::{self, OWN_WORDS, SHORTER, STRICT, STRICTER, Size};
use crate::moderator::selection::PanelChoice;
use crate::moderator::stance::{StanceAnswer, StanceWatch};
use crate::moderator::synthesis::SynthesisAnswer;
use crate::providers::{
    Brief, Budget, Cut, Provider, ProviderError, Request, Result, Schema, Shared, StopAt, TextSink,
};

/// Completion limits for the moderator's structured answers.
const CLARIFICATION_TOKENS: u32 = 400;
const ANALYSIS_TOKENS: u32 = 1_000;
const EVALUATION_TOKENS: u32 = 1_500;
const SYNTHESIS_TOKENS: u32 = 4_000;
const STANCE_TOKENS: u32 = 300;

/// What is being asked.
pub enum Ask<'a> {
    Debater {
        seat: usize,
        round: u32,
        kind: ContributionKind,
    },
    /// The clarifying questions for a vague question.
    Clarification,
    Analysis {
        catalog: &'a Catalog,
    },
    /// `local` is the evaluation the measures alone give.
    Evaluation {
        round: u32,
        measures: &'a RoundMeasures,
        local: &'a Evaluation,
    },
    Synthesis,
    /// The question answered once without a debate (a suite's baseline), at the
    /// debaters' temperature so that answers sampled for a vote differ.
    Single,
    /// The stance a debater's contribution did not state.
    Stance {
        seat: usize,
        round: u32,
        kind: ContributionKind,
    },
    /// A question outside the debate's steps (an evaluator's scores), its request built
    /// by the caller.
    Own(&'a Request),
}

impl Ask<'_> {
    /// A call the debate can do without (the panel's refinement), or made outside it:
    /// asked once, and once more with a stricter instruction at most, never shorter or
    /// compact.
    fn optional(&self) -> bool {
        matches!(self, Ask::Analysis { .. } | Ask::Clarification | Ask::Single | Ask::Own(_))
    }
}

pub fn request(state: &DebateState, ask: &Ask, size: Size) -> Request {
    match ask {
        Ask::Debater { seat, round, kind } => debater(state, *seat, *round, *kind, size),
        Ask::Clarification => {
            let brief = Brief::Clarification { questions: clarify::composed(&state.question, &state.analysis) };
            let prompt = prompts::clarification(state);
            let purpose = Purpose::Clarification;
            moderator::<ClarifyingQuestions>(state, purpose, 0, prompt, CLARIFICATION_TOKENS, brief)
        }
        Ask::Analysis { catalog } => {
            let prompt = prompts::analysis(state, catalog, size);
            moderator::<PanelChoice>(state, Purpose::Analysis, 0, prompt, ANALYSIS_TOKENS, Brief::None)
        }
        Ask::Evaluation { round, measures, local } => {
            let brief = Brief::Evaluation { local: (*local).clone() };
            let prompt = prompts::evaluation(state, *round, measures, size);
            moderator::<RoundVerdict>(state, Purpose::Evaluation, *round, prompt, EVALUATION_TOKENS, brief)
        }
        Ask::Synthesis => {
            let brief = Brief::Synthesis {
                panel: state.panel.iter().map(|s| s.perspective.clone()).collect(),
                options: state.analysis.options.clone(),
                stances: final_stances(state),
            };
            let prompt = prompts::synthesis(state, size);
            moderator::<SynthesisAnswer>(state, Purpose::Synthesis, 0, prompt, SYNTHESIS_TOKENS, brief)
        }
        Ask::Single => {
            let brief =
                Brief::Synthesis { panel: Vec::new(), options: state.analysis.options.clone(), stances: Vec::new() };
            let prompt = prompts::single_answer(state);
            let mut request =
                moderator::<SynthesisAnswer>(state, Purpose::Synthesis, 0, prompt, SYNTHESIS_TOKENS, brief);
            request.temperature = state.snapshot.debater.temperature;
            request
        }
        Ask::Stance { seat, round, kind } => {
            let prompt = prompts::stance(state, *seat, *round, *kind, size);
            let mut request =
                moderator::<StanceAnswer>(state, Purpose::Stance, *round, prompt, STANCE_TOKENS, Brief::None);
            // The schema lists the options in the order the prompt does.
            let (panel, listed) = (state.panel_names(), state.options_listed(*seat, *round, *kind));
            let names = answers::Names { panel: &panel, options: &listed };
            request.schema = Some(Schema { name: StanceAnswer::NAME, value: answers::schema::<StanceAnswer>(&names) });
            request.perspective = Some(state.panel[*seat].name().to_string());
            request.temperature = state.snapshot.debater.temperature;
            request
        }
        Ask::Own(request) => (*request).clone(),
    }
}

/// Everything a call's prompt says, as the model reads it.
pub fn prompt_text(state: &DebateState, ask: &Ask) -> String {
    let request = request(state, ask, Size::NORMAL);
    format!("{}\n\n{}\n\n{}", request.system, request.context, request.prompt)
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
        context: prompt.context,
        prompt: prompt.task,
        shared: prompt.shared,
        cache_key: Some(state.id.clone()),
        max_tokens: prompts::debater_tokens(state),
        temperature: state.snapshot.debater.temperature,
        schema: None,
        on_text: None,
        on_retry: None,
        budget: Budget::default(),
        // A debater is read up to its stance line, which ends what the debate keeps of
        // it; one that begins to go round in circles before is stopped there.
        stop: Some(StopAt::new({
            let (mut done, mut watch) = (StanceWatch::default(), detection::LoopWatch::default());
            move |text| {
                let whole = done.watch(text).map(|at| Cut { at, whole: true });
                whole.or_else(|| watch.watch(text).map(|at| Cut { at, whole: false }))
            }
        })),
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
            guidance: state.rounds.iter().filter(|r| r.number <= round).rev().find_map(|r| r.guidance.clone()),
        },
    }
}

/// The option each seat's latest stance named, in panel order.
fn final_stances(state: &DebateState) -> Vec<Option<String>> {
    let latest = state.latest_stances();
    (0..state.panel.len())
        .map(|seat| latest.iter().find(|(s, _)| *s == seat).and_then(|(_, stance)| (*stance)?.option.clone()))
        .collect()
}

fn moderator<T: Answer>(
    state: &DebateState,
    purpose: Purpose,
    round: u32,
    prompt: prompts::Prompt,
    max_tokens: u32,
    brief: Brief,
) -> Request {
    let panel = state.panel_names();
    let names = answers::Names { panel: &panel, options: &state.analysis.options };
    Request {
        purpose,
        round,
        perspective: None,
        system: prompt.system,
        context: prompt.context,
        prompt: prompt.task,
        shared: prompt.shared,
        cache_key: Some(state.id.clone()),
        max_tokens: Some(max_tokens),
        temperature: state.snapshot.moderator.temperature,
        schema: Some(Schema { name: T::NAME, value: answers::schema::<T>(&names) }),
        on_text: None,
        on_retry: None,
        budget: Budget::default(),
        stop: None,
        brief,
    }
}

/// Who answers a call, and the keys to mask in what comes back.
#[derive(Clone, Copy)]
pub struct Asked<'a> {
    pub provider: &'a dyn Provider,
    /// The keys to mask, whether to ask strictly, where retries are noted, and what the
    /// run may still spend.
    pub shared: &'a Shared,
}

/// One call. A failure that one more try may cure (a prompt too long, a request the
/// server refused) gets one more, with a compact prompt. An answer cut off at the
/// completion limit is asked for once more, shorter; the second answer is kept (marked
/// truncated if it is cut off too), or the first if the second call fails.
pub async fn ask(to: Asked<'_>, state: &DebateState, ask: &Ask<'_>, on_text: Option<TextSink>) -> Result<Completion> {
    ask_adding(to, state, ask, on_text, "").await
}

/// As `ask`, with `added` at the end of every prompt it sends.
async fn ask_adding(
    to: Asked<'_>,
    state: &DebateState,
    ask: &Ask<'_>,
    on_text: Option<TextSink>,
    added: &str,
) -> Result<Completion> {
    let asked = |size| {
        let mut request = request(state, ask, size);
        request.prompt.push_str(added);
        request
    };
    let mut normal = asked(Size::NORMAL);
    normal.on_text = on_text.clone();
    let first = match timed(to, &normal).await {
        Err(first) if first.retryable() && !ask.optional() => {
            let mut compact = asked(Size::COMPACT);
            compact.on_text = on_text;
            timed(to, &compact)
                .await
                .map_err(|last| ProviderError::Retried { first: first.to_string(), last: Box::new(last) })?
        }
        result => result?,
    };
    // A model that looped (now, or in an earlier answer of this debate), or wrote twice
    // the words it was asked for, would only do so again (and a slow local model would
    // take minutes to).
    let ignored_length = prompts::words_asked(state)
        .is_some_and(|asked| first.text.split_whitespace().count() > 2 * asked as usize)
        && matches!(ask, Ask::Debater { .. });
    let looped_before = state.rounds.iter().flat_map(|r| r.contributions()).any(|c| c.looped);
    let hopeless = first.looped || looped_before || detection::loops(&first.text) || ignored_length;
    if !first.truncated || !to.provider.identity().reasoned || ask.optional() || hopeless {
        return Ok(first);
    }
    let mut shorter = asked(Size::NORMAL);
    shorter.prompt.push_str(SHORTER);
    match timed(to, &shorter).await {
        Ok(second) => Ok(Completion { usage: first.usage + second.usage, ..second }),
        Err(_) => Ok(first),
    }
}

/// A debater's answer asked for once more, after one that only repeated the prompt's
/// placeholders; the completion carries the tokens of both calls.
pub async fn ask_in_own_words(
    to: Asked<'_>,
    state: &DebateState,
    ask: &Ask<'_>,
    first: Completion,
    on_text: Option<TextSink>,
) -> Result<Completion> {
    let mut again = request(state, ask, Size::NORMAL);
    again.prompt.push_str(OWN_WORDS);
    again.on_text = on_text;
    let second = timed(to, &again).await?;
    Ok(Completion { usage: first.usage + second.usage, ..second })
}

/// A structured answer and what `read` made of it. An answer that cannot be read is
/// asked for once more with a stricter instruction; the completion then carries the
/// tokens of both calls and the second answer's text. Once one could not be read, the
/// later ones of the run are asked strictly from the start, once: a model that needed
/// telling (or would not listen) is not asked the same way again (a slow local model
/// would spend minutes on each answer it cannot give).
pub async fn ask_structured<T>(
    to: Asked<'_>,
    state: &DebateState,
    what: &Ask<'_>,
    read: impl Fn(&str) -> Option<T>,
) -> Result<(Completion, Option<T>)> {
    if to.shared.strict.load(Ordering::Relaxed) {
        let only = ask_adding(to, state, what, None, STRICT).await?;
        let value = read(&only.text);
        return Ok((only, value));
    }
    let first = ask(to, state, what, None).await?;
    if let Some(value) = read(&first.text) {
        return Ok((first, Some(value)));
    }
    if !to.provider.identity().reasoned {
        // The offline provider would only say the same again.
        return Ok((first, None));
    }
    to.shared.strict.store(true, Ordering::Relaxed);
    let mut stricter = request(state, what, Size::NORMAL);
    stricter.prompt.push_str(STRICTER);
    let second = timed(to, &stricter).await?;
    let value = read(&second.text);
    Ok((Completion { usage: first.usage + second.usage, ..second }, value))
}

/// Longest answer kept from any call, in characters.
const MAX_ANSWER_CHARS: usize = 60_000;

/// One call, with its wall time as the latency, an enormous answer cut, and every known
/// key masked in what the server wrote: the answer and the model name (a server may
/// echo the key it was sent in either).
async fn timed(to: Asked<'_>, request: &Request) -> Result<Completion> {
    let started = Instant::now();
    let request =
        Request { on_retry: Some(to.shared.retries.clone()), budget: to.shared.budget.clone(), ..request.clone() };
    let mut completion = to.provider.complete(&request).await?;
    // Read no further than its stance line: done, not looping.
    if completion.looped && request.stop.is_some() {
        completion.looped = StanceWatch::default().watch(&completion.text) != Some(completion.text.len());
    }
    completion.usage.latency_ms = started.elapsed().as_millis() as u64;
    if let Some((end, _)) = completion.text.char_indices().nth(MAX_ANSWER_CHARS) {
        completion.text = format!("{} […cut at {MAX_ANSWER_CHARS} characters]", &completion.text[..end]);
    }
    completion.text = to.shared.secrets.mask(&completion.text);
    completion.model = to.shared.secrets.mask(&completion.model);
    Ok(completion)
}
