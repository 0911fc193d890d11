//! What every provider takes and answers: a request, a counted completion, the
//! `Provider` trait, and why a call failed.

use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;

use super::budget::{Budget, Refusal};
use crate::model::{
    AtOnce, Completion, Evaluation, Identity, Mark, PerspectiveDef, Purpose, Reckoning, ServerSays, Usage,
};
use crate::text::estimate_tokens;

/// An attempt without a completion limit is reckoned at this many tokens at most.
const UNLIMITED_COMPLETION: u64 = 8_000;

/// Why a call failed.
#[derive(Debug, thiserror::Error)]
pub enum ProviderError {
    /// Every attempt failed in a way that is usually passing: 429, 5xx, timeouts,
    /// dropped connections, cut streams.
    #[error("{provider}: {message} (gave up after {retries} {})", if *retries == 1 { "retry" } else { "retries" })]
    Unavailable { provider: String, message: String, retries: u32, hint: String },
    /// The server refused the request: another attempt of the same request will not
    /// fix it (`status` is its HTTP status, when there is one).
    #[error("{message}")]
    Refused { message: String, hint: Option<String>, status: Option<u16> },
    /// The server will not take the key, or does not know the model or the path: the same
    /// request, shorter or not, is refused again (`status` is its HTTP status; `key`: it
    /// refused the key, which the settings or the environment must put right).
    #[error("{message}")]
    Rejected { message: String, hint: String, status: u16, key: bool },
    /// A call that failed, was tried once more with a shorter prompt, and failed again.
    #[error("{}", retried(first, last))]
    Retried { first: String, last: Box<ProviderError> },
    /// The model sent nothing for too long; not retried, as the server may still be
    /// computing.
    #[error("{provider}: {message}")]
    TimedOut { provider: String, message: String, hint: String },
    /// The prompt is longer than the model takes.
    #[error("{provider}: the prompt is too long for the model: {detail}")]
    ContextLength { provider: String, detail: String },
    /// The answer came, but cannot be used.
    #[error("{0}")]
    Unusable(String),
    /// The call could cross the run's spending cap, and was not sent; `raise` is the flag
    /// that would let the debate go on.
    #[error("{message}")]
    OverBudget { message: String, raise: Option<String> },
    /// The provider cannot be set up from the settings.
    #[error("{message}")]
    Setup { message: String, hint: Option<String> },
    /// A file the provider writes could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl ProviderError {
    /// Worth one more try with a shorter prompt: the prompt was too long, or the server
    /// refused this one request. A refused key (401), model access (403) or a model or
    /// endpoint that does not exist (404) is not worth it.
    pub fn retryable(&self) -> bool {
        match self {
            ProviderError::ContextLength { .. } => true,
            ProviderError::Refused { status, .. } => !matches!(status, Some(401 | 403 | 404)),
            _ => false,
        }
    }

    /// A failure that says nothing against the key, the model or the settings (an
    /// overloaded or silent server, an unusable answer): an optional step may do without
    /// its call, where a refused key would refuse every later call too.
    pub fn passing(&self) -> bool {
        match self {
            ProviderError::Unavailable { .. } | ProviderError::TimedOut { .. } | ProviderError::Unusable(_) => true,
            ProviderError::Retried { last, .. } => last.passing(),
            other => other.retryable(),
        }
    }

    /// A failure of the model service, rather than of this machine or its settings: a
    /// debater failing this way may leave the panel.
    pub fn from_service(&self) -> bool {
        match self {
            ProviderError::Retried { last, .. } => last.from_service(),
            other => !matches!(
                other,
                ProviderError::Setup { .. } | ProviderError::Io { .. } | ProviderError::OverBudget { .. }
            ),
        }
    }

    /// A failure the debate pauses on, resumable once it is put right: the service's, or
    /// a spending cap reached.
    pub fn pauses_the_debate(&self) -> bool {
        self.from_service() || self.resume_flags().is_some()
    }

    pub fn exit_code(&self) -> u8 {
        match self {
            ProviderError::Setup { .. } => 4,
            ProviderError::Io { .. } => 1,
            _ => 3,
        }
    }

    pub fn hint(&self) -> Option<String> {
        match self {
            ProviderError::Unavailable { hint, .. }
            | ProviderError::TimedOut { hint, .. }
            | ProviderError::Rejected { hint, .. } => Some(hint.clone()),
            ProviderError::Refused { hint, .. } | ProviderError::Setup { hint, .. } => hint.clone(),
            ProviderError::Retried { last, .. } => last.hint(),
            ProviderError::OverBudget { raise: Some(raise), .. } => {
                Some(format!("what is done is saved; resume with a higher cap ({raise}) to go on"))
            }
            ProviderError::OverBudget { raise: None, .. } => Some(
                "what is done is saved; resume once the month has room (next month, or a higher \
                 budget.per_month_usd in your settings)"
                    .into(),
            ),
            ProviderError::ContextLength { .. } | ProviderError::Unusable(_) | ProviderError::Io { .. } => None,
        }
    }

    /// The flags a resume needs to go on after this failure (a higher cap).
    pub fn resume_flags(&self) -> Option<&str> {
        match self {
            ProviderError::OverBudget { raise, .. } => raise.as_deref(),
            ProviderError::Retried { last, .. } => last.resume_flags(),
            _ => None,
        }
    }

    /// The key is missing or refused: the settings or the environment are at fault.
    pub fn about_the_key(&self) -> bool {
        match self {
            ProviderError::Rejected { key, .. } => *key,
            ProviderError::Retried { last, .. } => last.about_the_key(),
            _ => false,
        }
    }

    pub(super) fn setup(message: impl Into<String>, hint: impl Into<String>) -> ProviderError {
        ProviderError::Setup { message: message.into(), hint: Some(hint.into()) }
    }
}

pub type Result<T, E = ProviderError> = std::result::Result<T, E>;

fn retried(first: &str, last: &ProviderError) -> String {
    let last = last.to_string();
    match first == last {
        true => format!("{last} (twice; the second try had a shorter prompt)"),
        false => format!("{last} (on the second try, with a shorter prompt; the first failed with: {first})"),
    }
}

/// Structured facts behind a prompt, for providers that compose answers without a
/// model (offline). Model providers read only the prompt text.
#[derive(Debug, Clone)]
pub enum Brief {
    None,
    Debater {
        perspective: PerspectiveDef,
        seat: usize,
        question: String,
        options: Vec<String>,
        others: Vec<PerspectiveDef>,
        /// The latest guidance the humans gave, still in force in this round.
        guidance: Option<String>,
    },
    /// The questions the analysis alone would ask of a vague question.
    Clarification {
        questions: Vec<String>,
    },
    /// The evaluation the engine derives locally from the round's measures.
    Evaluation {
        local: Evaluation,
    },
    Synthesis {
        panel: Vec<PerspectiveDef>,
        options: Vec<String>,
        /// Per panel seat, the option its latest stance named (`None`: none read, or the
        /// seat no longer speaks).
        stances: Vec<Option<String>>,
    },
    /// The marks a record's checks alone give it (`debate eval`).
    Scoring {
        local: Vec<Mark>,
    },
}

impl Request {
    /// A request of a few tokens, to learn what a server does.
    pub fn probe(prompt: &str, max_tokens: u32) -> Request {
        Request {
            purpose: Purpose::Probe,
            round: 0,
            perspective: None,
            system: "Answer briefly.".into(),
            context: String::new(),
            prompt: prompt.into(),
            shared: 0,
            cache_key: None,
            max_tokens: Some(max_tokens),
            temperature: 0.0,
            schema: None,
            on_text: None,
            on_retry: None,
            budget: Budget::default(),
            stop: None,
            brief: Brief::None,
        }
    }
}

/// The JSON shape a structured answer must have.
#[derive(Debug, Clone)]
pub struct Schema {
    pub name: &'static str,
    pub value: serde_json::Value,
}

/// Where a streaming provider sends text as it arrives.
#[derive(Clone)]
pub struct TextSink(Arc<dyn Fn(&str) + Send + Sync>);

impl TextSink {
    pub fn new(send: impl Fn(&str) + Send + Sync + 'static) -> TextSink {
        TextSink(Arc::new(send))
    }
    pub fn send(&self, text: &str) {
        (self.0)(text)
    }
}

impl std::fmt::Debug for TextSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TextSink")
    }
}

/// Where to stop reading an answer: given the text so far, where to cut it, and whether
/// what comes before the cut is the whole answer (a debater's stance line read) or the
/// answer has gone wrong there (a model looping). Checked as the answer streams in, by a
/// watcher that keeps what it read (each call gives the whole text so far).
#[derive(Clone)]
pub struct StopAt(Arc<std::sync::Mutex<Box<CutAt>>>);

/// Where to cut a text, if anywhere.
type CutAt = dyn FnMut(&str) -> Option<Cut> + Send;

/// A cut in an answer's text: a byte offset, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cut {
    pub at: usize,
    /// What comes before is the whole answer, not one gone wrong.
    pub whole: bool,
}

impl StopAt {
    pub fn new(at: impl FnMut(&str) -> Option<Cut> + Send + 'static) -> StopAt {
        StopAt(Arc::new(std::sync::Mutex::new(Box::new(at))))
    }

    /// Where to cut `text`, if anywhere (a char boundary within it).
    pub fn check(&self, text: &str) -> Option<Cut> {
        let mut at = self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        (at)(text).filter(|cut| cut.at <= text.len() && text.is_char_boundary(cut.at))
    }
}

/// The text of a streamed answer as it comes, cut where the request's `stop` says. An
/// answer cut whole is read on for a few more events, where the server's count and its
/// end come; one that goes on writing, or goes wrong, is read no further: dropping the
/// stream closes the connection, and the server stops writing it.
pub struct StreamedText<'r> {
    request: &'r Request,
    pub text: String,
    /// The text events read past a whole answer's cut, once it was cut.
    whole: Option<u32>,
    /// Read no further: the answer went wrong, or went on past its cut.
    pub looped: bool,
}

/// Text events read past a whole answer's cut before the stream is given up.
const EVENTS_PAST_WHOLE: u32 = 8;

impl<'r> StreamedText<'r> {
    pub fn new(request: &'r Request) -> Self {
        StreamedText { request, text: String::new(), whole: None, looped: false }
    }

    /// The answer was cut where it was whole.
    pub fn whole(&self) -> bool {
        self.whole.is_some()
    }

    /// Takes a piece of text; `false` when the stream is to be read no further.
    pub fn push(&mut self, delta: &str) -> bool {
        if let Some(past) = &mut self.whole {
            *past += 1;
            self.looped = *past > EVENTS_PAST_WHOLE;
            return !self.looped;
        }
        self.text.push_str(delta);
        if let Some(sink) = &self.request.on_text {
            sink.send(delta);
        }
        match self.request.stop.as_ref().and_then(|stop| stop.check(&self.text)) {
            Some(cut) => {
                self.text.truncate(cut.at);
                match cut.whole {
                    true => self.whole = Some(0),
                    false => self.looped = true,
                }
                !self.looped
            }
            None => true,
        }
    }
}

impl std::fmt::Debug for StopAt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StopAt")
    }
}

#[derive(Debug, Clone)]
pub struct Request {
    pub purpose: Purpose,
    pub round: u32,
    pub perspective: Option<String>,
    pub system: String,
    /// The part of the prompt every call of the debate shares, sent first so that a
    /// provider's prefix cache can serve it.
    pub context: String,
    /// This call's own part.
    pub prompt: String,
    /// How much of `prompt`, from its start, other calls of the debate send too (the
    /// debate so far): where a provider's cache breakpoint goes.
    pub shared: usize,
    /// Groups the debate's calls for a provider's prefix cache (the debate's id).
    pub cache_key: Option<String>,
    /// The completion limit (the debater's token budget); `None` is unlimited.
    pub max_tokens: Option<u32>,
    pub temperature: f32,
    /// The answer must be one JSON object of this shape.
    pub schema: Option<Schema>,
    /// Stream the answer's text here as it arrives (on a terminal only).
    pub on_text: Option<TextSink>,
    /// Stop reading the answer where this says it went wrong.
    pub stop: Option<StopAt>,
    /// Told of every retry of this call as it happens.
    pub on_retry: Option<RetryNotes>,
    /// Asked before each attempt is sent, and told what it took (none: nothing capped or kept).
    pub budget: Budget,
    pub brief: Brief,
}

/// The retries of a run's calls, noted as they happen — which call, why, how many tries
/// remain — for whoever runs the debate to tell (`-v` prints them).
#[derive(Debug, Clone, Default)]
pub struct RetryNotes(Arc<std::sync::Mutex<Vec<String>>>);

impl RetryNotes {
    pub fn note(&self, line: String) {
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).push(line);
    }

    /// The notes since the last time they were taken.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner()))
    }
}

impl Request {
    /// The call as a person names it: "Cost Control's round-2 argument", "the
    /// moderator's synthesis".
    pub fn describe(&self) -> String {
        let what = match self.purpose {
            Purpose::Clarification => "clarifying questions",
            Purpose::Analysis => "analysis",
            Purpose::Argument => "argument",
            Purpose::Rebuttal => "rebuttal",
            Purpose::Stance => "stance",
            Purpose::Evaluation => "evaluation",
            Purpose::Synthesis => "synthesis",
            Purpose::Scoring => "scores",
            Purpose::Probe => "probe",
        };
        let round = match self.round {
            0 => String::new(),
            n => format!("round-{n} "),
        };
        let who = self.perspective.as_deref().map_or("the moderator".to_string(), crate::text::untrusted::one_line);
        format!("{who}'s {round}{what}")
    }

    /// The prompt's tokens, estimated at four bytes each (a server's own count is better).
    pub fn estimated_prompt(&self) -> u64 {
        estimate_tokens(&self.system) + estimate_tokens(&self.context) + estimate_tokens(&self.prompt)
    }

    /// What one attempt may take at most: its prompt's tokens (estimated, and a fifth
    /// more, as a server's tokenizer may count more) and its completion limit.
    pub fn worst_case(&self) -> Usage {
        let prompt = self.estimated_prompt();
        let completion = self.max_tokens.map_or(UNLIMITED_COMPLETION, u64::from);
        Usage { prompt_tokens: prompt + prompt / 5, completion_tokens: completion, ..Usage::default() }
    }

    /// The most prompt tokens a server can have counted: no tokenizer makes more tokens
    /// than bytes, and a chat template adds a few hundred.
    fn most_prompt(&self) -> u64 {
        let schema = self.schema.as_ref().map_or(0, |schema| schema.value.to_string().len());
        (self.system.len() + self.context.len() + self.prompt.len() + schema) as u64 + 4_096
    }

    /// The user's message as one text: the shared context, then this call's part.
    pub fn user_text(&self) -> String {
        match self.context.is_empty() {
            true => self.prompt.clone(),
            false => format!("{}\n\n{}", self.context, self.prompt),
        }
    }
}

impl From<Refusal> for ProviderError {
    fn from(refusal: Refusal) -> ProviderError {
        ProviderError::OverBudget { message: refusal.message, raise: refusal.raise }
    }
}

/// What a server reported about an answer besides its text: token counts (each may be
/// missing) and whether it stopped at the completion limit.
#[derive(Debug, Default, Clone, Copy)]
pub struct Counted {
    /// Every prompt token, cached or not.
    pub prompt: Option<u64>,
    /// Prompt tokens served from the provider's prefix cache.
    pub cached: u64,
    pub output: Option<u64>,
    pub truncated: bool,
}

impl Counted {
    /// A completion with these counts, or estimates where the server gave none.
    /// A completion with these counts, or estimates where the server gave none. A count
    /// past what the request could take (100M tokens of an answer limited to 1,000) is
    /// bounded by the request's limits, and the completion says so.
    pub fn completion(self, request: &Request, text: String, model: &str) -> Completion {
        // A figure no call can have (a proxy's i64::MAX) is no figure: estimated instead.
        let real = |count: u64| count <= Usage::LIMIT;
        let (prompt, output) = (self.prompt.filter(|n| real(*n)), self.output.filter(|n| real(*n)));
        let most_completion = request.max_tokens.map_or(Usage::LIMIT, u64::from);
        let mut reckoning = match (prompt, output) {
            (Some(_), Some(_)) => Reckoning::Server,
            _ => Reckoning::Estimated,
        };
        let mut bound = |count: u64, most: u64| {
            if count > most {
                reckoning = Reckoning::Bounded;
            }
            count.min(most)
        };
        let prompt_tokens = bound(prompt.unwrap_or_else(|| request.estimated_prompt()), request.most_prompt());
        let completion_tokens = bound(output.unwrap_or_else(|| estimate_tokens(&text)), most_completion);
        let usage = Usage {
            prompt_tokens,
            cached_tokens: Some(self.cached).filter(|n| real(*n)).unwrap_or(0).min(prompt_tokens),
            completion_tokens,
            ..Usage::default()
        };
        Completion {
            model: model.to_string(),
            usage,
            text,
            truncated: self.truncated,
            reckoning,
            ..Completion::default()
        }
    }
}

#[async_trait]
pub trait Provider: Send + Sync {
    /// What kind of provider this is, and whether a model reasons behind its answers.
    fn identity(&self) -> Identity;
    /// The model it asks for, which a budget prices a call by (none: no model is paid for).
    fn model(&self) -> Option<&str> {
        None
    }
    async fn complete(&self, request: &Request) -> Result<Completion>;
    /// Start asking for structured answers the way a server took them before (a
    /// format from `Completion::format`); providers with one way ignore it.
    fn start_with_format(&self, _format: &str) {}
    /// The server whose learnings (its structured format, how many requests it serves at
    /// once) are kept under its base URL, when the provider learns them: a server on this
    /// machine whose limit the settings leave open.
    fn learning_server(&self) -> Option<&str> {
        None
    }
    /// How many requests the server serves at once, as it says or as it shows
    /// (`probe::at_once`, its requests under `budget`); `None` where there is nothing to learn.
    async fn serves_at_once(&self, _budget: &Budget) -> Option<AtOnce> {
        None
    }
    /// Send up to `requests` at once from now on.
    fn send_at_once(&self, _requests: usize) {}
    /// How many requests it sends at once now (no server: as many as asked).
    fn sends_at_once(&self) -> usize {
        usize::MAX
    }
    /// What its server says of itself (`debate doctor`): `None` for a provider without
    /// a server; an error when the server cannot be reached.
    async fn server_says(&self) -> Option<std::result::Result<ServerSays, String>> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::{Cut, EVENTS_PAST_WHOLE, Request, StopAt, StreamedText};

    fn cut_at(marker: &'static str, whole: bool) -> Request {
        let stop = StopAt::new(move |text: &str| text.find(marker).map(|at| Cut { at: at + marker.len(), whole }));
        Request { stop: Some(stop), ..Request::probe("", 10) }
    }

    #[test]
    fn an_answer_cut_whole_is_read_on_for_its_end_and_one_gone_wrong_is_not() {
        let whole = cut_at("END", true);
        let mut streamed = StreamedText::new(&whole);
        assert!(streamed.push("an answer END and more") && streamed.push(" after"), "read on for the count");
        assert_eq!((streamed.text.as_str(), streamed.looped, streamed.whole()), ("an answer END", false, true));
        let mut wandering = StreamedText::new(&whole);
        wandering.push("END");
        let read = (0..20).take_while(|_| wandering.push("more")).count();
        assert_eq!((read as u32, wandering.looped), (EVENTS_PAST_WHOLE, true), "given up past a few events");

        let looping = cut_at("again again", false);
        let mut streamed = StreamedText::new(&looping);
        assert!(!streamed.push("again again again"), "read no further");
        assert_eq!((streamed.text.as_str(), streamed.looped, streamed.whole()), ("again again", true, false));
    }
}
