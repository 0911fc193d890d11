//! What both wire formats share: the HTTP client, a cap on requests in flight, retries
//! with exponential backoff and jitter that honour `Retry-After`, the classification of
//! failures, and keeping the key out of every message.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use backon::{ExponentialBuilder, Retryable};
use tokio::sync::Semaphore;

use super::{ProviderError, Result};
use crate::text::secrets::Masker;

/// The version of the Messages API the Anthropic format speaks.
const ANTHROPIC_VERSION: &str = "2023-06-01";

/// How a provider reaches its server.
#[derive(Clone)]
pub struct Endpoint {
    /// The provider's name in settings, for messages.
    pub name: String,
    pub base_url: String,
    /// Never printed or stored; see [`Endpoint::redact`].
    pub key: Option<String>,
    /// Where the key came from (`OPENAI_API_KEY`, or `api_key in settings`), for messages.
    pub key_source: String,
    pub model: String,
    pub max_retries: u32,
    pub client: reqwest::Client,
    pub in_flight: Arc<Semaphore>,
    /// How many requests `in_flight` lets out at once now.
    pub at_once: Arc<AtomicUsize>,
    /// Whether that follows what the server serves at once (a server on this machine
    /// whose limit the settings leave open), rather than a fixed limit.
    pub learns_at_once: bool,
    /// It speaks the Anthropic format, which takes the key in `x-api-key`.
    pub anthropic: bool,
    /// Longest wait for the answer to begin (a local model reads the prompt first).
    pub first_token: Duration,
    /// Longest silence once the answer has begun.
    pub idle: Duration,
}

pub struct Limits {
    /// The whole call, first token to last.
    pub timeout: Duration,
    pub max_concurrency: usize,
}

pub fn client(base_url: &str, limits: &Limits) -> Result<reqwest::Client> {
    let mut builder =
        reqwest::Client::builder().connect_timeout(Duration::from_secs(10).min(limits.timeout)).timeout(limits.timeout);
    if base_url.starts_with("http://") {
        // No TLS to verify: skip loading the platform's root certificates, which costs
        // more at start-up than everything else before the first request.
        builder = builder.tls_certs_only(Vec::<reqwest::Certificate>::new());
    }
    builder
        .build()
        .map_err(|err| ProviderError::Setup { message: format!("cannot set up the HTTP client: {err}"), hint: None })
}

/// One failed attempt.
#[derive(Debug)]
pub enum Failure {
    /// Worth another attempt: 429, 5xx, timeouts, dropped connections, cut streams.
    Retry {
        message: String,
        after: Option<Duration>,
        /// The HTTP status, when the server answered (else it could not be reached).
        answered: Option<u16>,
    },
    /// The server refused what we sent in a way another attempt will not fix.
    Fatal(ProviderError),
    /// An OpenAI-compatible server does not support the structured-output format sent.
    FormatRejected,
    /// A whole answer that holds no text (or only whitespace), not cut off at the
    /// completion limit: a gateway such as LiteLLM turns a backend's error into one.
    /// Worth another attempt, as a dropped stream is.
    Empty,
    /// The model sent nothing for too long. Not retried: the server may still be
    /// computing the answer, and one that computes one request at a time would put the
    /// retry behind it.
    TimedOut(String),
}

impl Failure {
    pub fn retry(message: impl Into<String>) -> Failure {
        Failure::Retry { message: message.into(), after: None, answered: None }
    }

    /// Worth another attempt.
    fn retried(&self) -> bool {
        matches!(self, Failure::Retry { .. } | Failure::Empty)
    }

    /// Why an attempt failed, in a few words.
    pub fn reason(&self) -> String {
        match self {
            Failure::Retry { message, .. } => message.clone(),
            Failure::Empty => EMPTY.to_string(),
            Failure::Fatal(err) => err.to_string(),
            Failure::FormatRejected => "the server rejects structured output".into(),
            Failure::TimedOut(message) => message.clone(),
        }
    }
}

const EMPTY: &str = "the model returned an empty answer";

impl Endpoint {
    /// `attempt` until it succeeds, fails fatally, or `max_retries` retries are spent;
    /// `retrying` hears of each failed attempt that is made again, and the wait before it.
    /// Each attempt is one HTTP request and holds one of the provider's in-flight permits.
    pub async fn with_retries<T, F, Fut>(
        &self,
        mut attempt: F,
        retrying: impl Fn(&Failure, Duration),
    ) -> std::result::Result<T, Failure>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = std::result::Result<T, Failure>>,
    {
        let permits = self.in_flight.clone();
        let limited = || {
            let permits = permits.clone();
            let next = attempt();
            async move {
                let _permit = permits.acquire_owned().await.map_err(|_| Failure::retry("shutting down"))?;
                let _answering = super::activity::in_flight();
                next.await
            }
        };
        let backoff = ExponentialBuilder::default()
            .with_min_delay(Duration::from_millis(250))
            .with_max_delay(Duration::from_secs(30))
            .with_max_times(self.max_retries as usize)
            .with_jitter();
        limited
            .retry(backoff)
            .sleep(tokio::time::sleep)
            .when(Failure::retried)
            .adjust(|failure, delay| match (failure, delay) {
                // Retry-After wins over the backoff, but never extends the number of tries.
                (Failure::Retry { after: Some(after), .. }, Some(_)) => Some(*after),
                (_, delay) => delay,
            })
            .notify(retrying)
            .await
    }

    /// The error to report once retrying is over.
    pub fn give_up(&self, failure: Failure) -> ProviderError {
        match failure {
            Failure::Fatal(err) => err,
            Failure::FormatRejected => ProviderError::Refused {
                message: format!("{}: the server rejects structured output", self.name),
                hint: None,
                status: Some(400),
            },
            Failure::TimedOut(message) => ProviderError::TimedOut {
                provider: self.name.clone(),
                message,
                hint: format!(
                    "a slow model may need more time: raise providers.{}.first_token_timeout_seconds or idle_timeout_seconds, then `debate resume`",
                    self.name
                ),
            },
            Failure::Empty => ProviderError::Unavailable {
                provider: self.name.clone(),
                message: format!("{EMPTY} to every try"),
                retries: self.max_retries,
                hint: format!(
                    "a gateway may have swallowed an error (LiteLLM answers a backend's failure with an empty answer): \
                     its log, or {}'s, says why; then `debate resume`",
                    self.base_url
                ),
            },
            Failure::Retry { message, answered, .. } => {
                let hint = match answered {
                    Some(429 | 503 | 529) => format!(
                        "{} is overloaded: try again later, or lower providers.{}.max_concurrency",
                        self.base_url, self.name
                    ),
                    Some(code) => format!(
                        "{} answered HTTP {code} to every try: its log says why; then `debate resume`",
                        self.base_url
                    ),
                    None => format!("check that {} is reachable (is the server running?)", self.base_url),
                };
                ProviderError::Unavailable {
                    provider: self.name.clone(),
                    message: self.redact(&message),
                    retries: self.max_retries,
                    hint,
                }
            }
        }
    }

    /// Send one request. A refusal is classified, unless `refused` recognises it first
    /// (from its status and body).
    pub async fn send(
        &self,
        call: reqwest::RequestBuilder,
        refused: impl FnOnce(reqwest::StatusCode, &str) -> Option<Failure>,
    ) -> std::result::Result<reqwest::Response, Failure> {
        let waited = self.first_token.as_secs();
        let response = tokio::time::timeout(self.first_token, call.send())
            .await
            .map_err(|_| {
                Failure::TimedOut(format!("the server did not answer for {waited} s (first_token_timeout_seconds)"))
            })?
            .map_err(|err| self.transport(err))?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let headers = response.headers().clone();
        let body = response.text().await.unwrap_or_default();
        Err(refused(status, &body).unwrap_or_else(|| self.classify(status, &headers, &body)))
    }

    /// A whole JSON response body; anything else is worth another attempt, and so is an
    /// error in a 200 (a gateway such as LiteLLM answers a failing backend so), whose
    /// words are kept.
    pub async fn json(&self, response: reqwest::Response) -> std::result::Result<serde_json::Value, Failure> {
        let body = response.text().await.map_err(|err| self.transport(err))?;
        let parsed: serde_json::Value = serde_json::from_str(&body).map_err(|_| {
            Failure::retry(format!("the server answered 200 with a body that is not JSON: {}", self.preview(&body)))
        })?;
        match self.error_in(&parsed) {
            Some(failure) => Err(failure),
            None => Ok(parsed),
        }
    }

    /// An error a server put where an answer belongs (a 200's body, a stream's event):
    /// a top-level `error`, as an object with a message or as a string.
    pub fn error_in(&self, value: &serde_json::Value) -> Option<Failure> {
        let error = value.get("error").filter(|e| !e.is_null())?;
        let message = error["message"].as_str().or(error.as_str()).map_or_else(|| error.to_string(), str::to_string);
        let message = one_message(&self.redact(&message));
        Some(Failure::Retry {
            message: format!("the server answered with an error: {message}"),
            after: None,
            answered: Some(200),
        })
    }

    /// A failure from an HTTP status and the body the server sent.
    pub fn classify(&self, status: reqwest::StatusCode, headers: &reqwest::header::HeaderMap, body: &str) -> Failure {
        // Mask before shortening: a key cut in half would survive the mask.
        let detail = server_message(&self.redact(body));
        let code = status.as_u16();
        if is_context_length(&detail) {
            return Failure::Fatal(ProviderError::ContextLength { provider: self.name.clone(), detail });
        }
        if is_unknown_model(&detail) && code != 429 {
            let message = format!(
                "{}: the server at {} does not know model {:?} (HTTP {code}): {detail}",
                self.name, self.base_url, self.model
            );
            let mut hint = format!(
                "check `model` in providers.{} (`debate doctor {}` lists the models the server has)",
                self.name, self.name
            );
            // Ollama says a model is missing this way; it has it once it is pulled.
            if detail.contains(&format!("'{}'", self.model)) || detail.contains("try pulling it") {
                hint.push_str(&format!("; for Ollama: ollama pull {}", self.model));
            }
            return Failure::Fatal(ProviderError::Rejected { message, hint, status: code, key: false });
        }
        if is_key_refused(&detail) {
            return Failure::Fatal(ProviderError::Rejected {
                message: format!("{}: the server does not take the key (HTTP {code}): {detail}", self.name),
                hint: format!("check the key in {}: a gateway such as LiteLLM takes its own keys", self.key_source),
                status: code,
                key: true,
            });
        }
        if code == 429 || code == 529 || status.is_server_error() || code == 408 {
            return Failure::Retry {
                message: format!("HTTP {code}: {detail}"),
                after: retry_after(headers),
                answered: Some(code),
            };
        }
        let rejected = |message: String, hint: String| {
            Failure::Fatal(ProviderError::Rejected { message, hint, status: code, key: code == 401 })
        };
        match code {
            401 => rejected(
                format!("{}: the API key was rejected (HTTP 401): {detail}", self.name),
                format!("check the key in {}", self.key_source),
            ),
            403 => rejected(
                format!("{}: the key may not use model {:?} (HTTP 403): {detail}", self.name, self.model),
                format!(
                    "check the key's permissions, or pick another model with --model; the key is read from {}",
                    self.key_source
                ),
            ),
            // The server's own words first: they say which of the two it is.
            404 => rejected(
                format!("{}: {} answered 404 Not Found: {detail}", self.name, self.base_url),
                format!(
                    "check `base_url` (the server's API root, such as http://127.0.0.1:4000/v1; for the Anthropic format the /v1 may be left out) and `model` in providers.{}",
                    self.name
                ),
            ),
            _ => Failure::Fatal(ProviderError::Refused {
                message: format!("{}: the request was rejected (HTTP {code}): {detail}", self.name),
                hint: Some("check the provider's `model` and `base_url`; run with -v for more detail".to_string()),
                status: Some(code),
            }),
        }
    }

    /// A transport error (no HTTP status): timeouts and dropped connections are retried.
    pub fn transport(&self, err: reqwest::Error) -> Failure {
        if err.is_timeout() && !err.is_connect() {
            // The whole-call limit: the server was answering, and may still be computing.
            return Failure::TimedOut(format!(
                "the call took longer than its limit (timeout_seconds): {}",
                self.redact(&error_chain(&err))
            ));
        }
        let what = if err.is_connect() { "cannot connect" } else { "the connection failed" };
        Failure::retry(format!("{what} ({})", self.redact(&error_chain(&err))))
    }

    /// The start of a text the server sent, for a message: key masked first, then cut.
    pub fn preview(&self, text: &str) -> String {
        self.redact(text).chars().take(120).collect()
    }

    /// The text with the key, if it appears, masked as every answer is.
    pub fn redact(&self, text: &str) -> String {
        Masker::new(self.key.clone()).mask(text)
    }

    /// `request` with the key, as the server's format takes it (and, for the Anthropic
    /// format, the API version it speaks, key or not).
    pub fn authorized(&self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match (self.anthropic, &self.key) {
            (true, key) => {
                let request = request.header("anthropic-version", ANTHROPIC_VERSION);
                match key {
                    Some(key) => request.header("x-api-key", key),
                    None => request,
                }
            }
            (false, Some(key)) => request.bearer_auth(key),
            (false, None) => request,
        }
    }

    /// Let up to `requests` out at once from now on, where the limit follows the server.
    pub fn send_at_once(&self, requests: usize) {
        if !self.learns_at_once {
            return;
        }
        let requests = requests.clamp(1, 16);
        let before = self.at_once.swap(requests, Ordering::Relaxed);
        match requests.cmp(&before) {
            std::cmp::Ordering::Greater => self.in_flight.add_permits(requests - before),
            std::cmp::Ordering::Less => {
                self.in_flight.forget_permits(before - requests);
            }
            std::cmp::Ordering::Equal => {}
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}/{}", self.base_url.trim_end_matches('/'), path.trim_start_matches('/'))
    }
}

pub fn error_chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(inner) = source {
        text.push_str(": ");
        text.push_str(&inner.to_string());
        source = inner.source();
    }
    text
}

/// `Retry-After` in seconds or as an HTTP date (a date already past: at once); a wait
/// longer than ten minutes is no hint worth taking.
fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    retry_after_at(headers, chrono::Utc::now())
}

fn retry_after_at(headers: &reqwest::header::HeaderMap, now: chrono::DateTime<chrono::Utc>) -> Option<Duration> {
    let value = headers.get(reqwest::header::RETRY_AFTER)?.to_str().ok()?.trim();
    let seconds = match value.parse::<f64>() {
        Ok(seconds) => seconds,
        // IMF-fixdate (`Wed, 21 Oct 2015 07:28:00 GMT`) is an RFC 2822 date.
        Err(_) => {
            let at = chrono::DateTime::parse_from_rfc2822(value).ok()?;
            (at.with_timezone(&chrono::Utc) - now).num_milliseconds().max(0) as f64 / 1000.0
        }
    };
    (0.0..=600.0).contains(&seconds).then(|| Duration::from_secs_f64(seconds))
}

/// The error message inside an error body — OpenAI's or Anthropic's (`error.message`),
/// Ollama's (`error` as text), vLLM's older flat one (`message`), FastAPI's (`detail`) —
/// else the body itself.
fn server_message(body: &str) -> String {
    let parsed: Option<serde_json::Value> = serde_json::from_str(body).ok();
    let message = parsed.as_ref().and_then(|v| {
        v["error"]["message"].as_str().or(v["error"].as_str()).or(v["message"].as_str()).or(v["detail"].as_str())
    });
    one_message(message.unwrap_or(body))
}

/// A server's words on one line, at most 300 characters (a gateway's can be a traceback).
fn one_message(text: &str) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match text.char_indices().nth(300) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None if text.is_empty() => "(empty body)".into(),
        None => text,
    }
}

/// A server saying it has no such model, in the words servers use (a gateway's: LiteLLM
/// answers `Invalid model name passed in model=…` with 400).
fn is_unknown_model(message: &str) -> bool {
    let lower = message.to_lowercase();
    lower.contains("model")
        && [
            "not found",
            "does not exist",
            "unknown model",
            "no such model",
            "model_not_found",
            "not loaded",
            "invalid model name",
        ]
        .iter()
        .any(|needle| lower.contains(needle))
}

/// A gateway refusing the key with another status than 401: LiteLLM without a database
/// answers a key that is not its master key with 400 `No connected db.`.
fn is_key_refused(message: &str) -> bool {
    let lower = message.to_lowercase();
    ["no connected db", "no_db_connection", "invalid api key", "invalid proxy server token"]
        .iter()
        .any(|needle| lower.contains(needle))
}

fn is_context_length(message: &str) -> bool {
    let lower = message.to_lowercase();
    [
        "context length",
        "context_length",
        "context window",
        "maximum context",
        "prompt is too long",
        "too many tokens",
        "exceed context",
        "exceeds the context",
        "n_ctx",
    ]
    .iter()
    .any(|needle| lower.contains(needle))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn endpoint() -> Endpoint {
        Endpoint {
            name: "openai".into(),
            base_url: "http://127.0.0.1:1/v1".into(),
            key: Some("sk-secret-123456".into()),
            key_source: "OPENAI_API_KEY".into(),
            model: "m".into(),
            max_retries: 0,
            client: reqwest::Client::new(),
            in_flight: Arc::new(Semaphore::new(1)),
            at_once: Arc::new(AtomicUsize::new(1)),
            learns_at_once: false,
            anthropic: false,
            first_token: Duration::from_secs(300),
            idle: Duration::from_secs(60),
        }
    }

    #[test]
    fn statuses_are_classified() {
        let e = endpoint();
        let headers = reqwest::header::HeaderMap::new();
        for code in [429, 500, 502, 503, 529] {
            let status = reqwest::StatusCode::from_u16(code).unwrap();
            assert!(matches!(e.classify(status, &headers, "{}"), Failure::Retry { .. }), "{code}");
        }
        let Failure::Fatal(err) = e.classify(reqwest::StatusCode::UNAUTHORIZED, &headers, "bad key sk-secret-123456")
        else {
            panic!("401 is fatal")
        };
        assert!(err.hint().unwrap().contains("OPENAI_API_KEY"));
        assert!(!err.to_string().contains("sk-secret"));
        let body = r#"{"error": {"message": "This model's maximum context length is 8192 tokens", "code": "context_length_exceeded"}}"#;
        let Failure::Fatal(err) = e.classify(reqwest::StatusCode::BAD_REQUEST, &headers, body) else { panic!() };
        assert!(err.retryable(), "{err}");
    }

    #[test]
    fn retry_after_is_read_in_seconds_or_as_an_http_date() {
        let now = chrono::DateTime::parse_from_rfc3339("2015-10-21T07:27:30Z").unwrap().with_timezone(&chrono::Utc);
        let after = |value: &str| {
            let mut headers = reqwest::header::HeaderMap::new();
            headers.insert(reqwest::header::RETRY_AFTER, value.parse().unwrap());
            retry_after_at(&headers, now)
        };
        assert_eq!(after("2"), Some(Duration::from_secs(2)));
        assert_eq!(after("Wed, 21 Oct 2015 07:28:00 GMT"), Some(Duration::from_secs(30)));
        assert_eq!(after("Wed, 21 Oct 2015 07:00:00 GMT"), Some(Duration::ZERO), "a date past: at once");
        assert_eq!(after("Wed, 21 Oct 2015 09:00:00 GMT"), None, "longer than ten minutes");
        assert_eq!(after("soon"), None);
        assert_eq!(after("-1"), None);
    }
}
