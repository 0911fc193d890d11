//! A model behind an HTTP API: the provider every wire format is. What the formats
//! share — retries, the cap on requests in flight, what the server says of itself, how
//! many requests it serves at once — is written here once; a format's own file says
//! only how a request is put and an answer read ([`Wire`]).

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use async_trait::async_trait;

use super::http::{Endpoint, Failure};
use super::{Budget, Provider, Request, Result, probe};
use crate::model::{AtOnce, Completion, Identity, ProviderKind, Reckoning, ServerSays, Stance, Usage};
use crate::text::untrusted::shows_anything;

/// One wire format: how a request is sent to `endpoint` and its answer read.
#[async_trait]
pub trait Wire: Send + Sync + 'static {
    const KIND: ProviderKind;

    /// One attempt of `request`.
    async fn attempt(&self, endpoint: &Endpoint, request: &Request) -> std::result::Result<Completion, Failure>;

    /// The attempts of a call ended in `failure`: whether the call is made again, the
    /// format changed (a structured-output format the server refused, stepped down).
    fn step_down(&self, _failure: &Failure) -> bool {
        false
    }

    /// Ask for structured answers the way the server took them before.
    fn start_with_format(&self, _format: &str) {}
}

pub struct Remote<W> {
    endpoint: Endpoint,
    wire: W,
}

impl<W: Wire> Remote<W> {
    pub fn new(endpoint: Endpoint, wire: W) -> Remote<W> {
        Remote { endpoint, wire }
    }
}

#[async_trait]
impl<W: Wire> Provider for Remote<W> {
    fn identity(&self) -> Identity {
        Identity { kind: W::KIND, reasoned: true }
    }

    fn model(&self) -> Option<&str> {
        Some(&self.endpoint.model)
    }

    fn start_with_format(&self, format: &str) {
        self.wire.start_with_format(format);
    }

    fn learning_server(&self) -> Option<&str> {
        self.endpoint.learns_at_once.then_some(self.endpoint.base_url.as_str())
    }

    async fn serves_at_once(&self, budget: &Budget) -> Option<AtOnce> {
        // Each probe is a request like any other: held against the cap, on the ledger.
        let probe = Request { budget: budget.clone(), ..Request::probe("Say OK.", 4) };
        self.endpoint.learns_at_once.then_some(())?;
        probe::at_once(&self.endpoint, || self.metered(&probe)).await
    }

    fn send_at_once(&self, requests: usize) {
        self.endpoint.send_at_once(requests);
    }

    fn sends_at_once(&self) -> usize {
        self.endpoint.at_once.load(std::sync::atomic::Ordering::Relaxed)
    }

    async fn server_says(&self) -> Option<std::result::Result<ServerSays, String>> {
        Some(probe::said(&self.endpoint).await.map(|(says, _)| says))
    }

    async fn complete(&self, request: &Request) -> Result<Completion> {
        let retried = AtomicU64::new(0);
        // What every attempt took, a retried one too: the call cost all of it.
        let took = Mutex::new(Usage::default());
        let most = self.endpoint.max_retries;
        let retrying = |failure: &Failure, wait: Duration| {
            let tries = retried.fetch_add(1, Ordering::Relaxed) + 1;
            if let Some(notes) = &request.on_retry {
                let left = u64::from(most).saturating_sub(tries);
                notes.note(format!(
                    "{} from {}: {}; trying again in {:.1} s ({left} {} left)",
                    request.describe(),
                    self.endpoint.name,
                    self.endpoint.redact(&failure.reason()),
                    wait.as_secs_f64(),
                    if left == 1 { "retry" } else { "retries" }
                ));
            }
        };
        loop {
            match self.endpoint.with_retries(|| self.answered(request, &took), &retrying).await {
                Ok(mut completion) => {
                    completion.usage = Usage { latency_ms: 0, ..*took.lock().unwrap_or_else(|p| p.into_inner()) };
                    completion.usage.retries = retried.load(Ordering::Relaxed);
                    return Ok(completion);
                }
                Err(failure) if self.wire.step_down(&failure) => {}
                Err(failure) => return Err(self.endpoint.give_up(failure)),
            }
        }
    }
}

impl<W: Wire> Remote<W> {
    /// One attempt, whose answer must hold text: an empty one — nothing that shows, or
    /// only a stance line — is a failed attempt (unless the completion limit cut it off,
    /// which another try would only repeat). What it took is added to `took`.
    async fn answered(&self, request: &Request, took: &Mutex<Usage>) -> std::result::Result<Completion, Failure> {
        let completion = self.metered(request).await?;
        let mut sum = took.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        *sum = *sum + completion.usage;
        match hollow(&completion.text) && !completion.truncated {
            true => Err(Failure::Empty),
            false => Ok(completion),
        }
    }

    /// One attempt, held against the budget and written to the ledger before it is sent,
    /// and settled with what it took: the server's count, bounded by what was asked for;
    /// an answer stopped early (looping) at the attempt's worst case, since the server
    /// may have gone on generating before it saw the connection close.
    async fn metered(&self, request: &Request) -> std::result::Result<Completion, Failure> {
        let worst = request.worst_case();
        let (name, model, purpose) = (&self.endpoint.name, &self.endpoint.model, request.purpose.as_ref());
        let held = request.budget.reserve(name, model, purpose, &worst).map_err(|r| Failure::Fatal(r.into()))?;
        let mut completion = self.wire.attempt(&self.endpoint, request).await?;
        if completion.looped {
            let prompt = match completion.reckoning {
                Reckoning::Server | Reckoning::Bounded => completion.usage.prompt_tokens,
                _ => worst.prompt_tokens,
            };
            completion.usage =
                Usage { prompt_tokens: prompt, completion_tokens: worst.completion_tokens, ..completion.usage };
            completion.reckoning = Reckoning::Limit;
        }
        held.settle(&completion.usage, completion.reckoning);
        Ok(completion)
    }
}

/// An answer that holds nothing: nothing that shows once escape sequences, invisible
/// characters and blanks are gone, or nothing before a stance line.
fn hollow(text: &str) -> bool {
    let body = text.split(Stance::MARKER).next().unwrap_or_default();
    !shows_anything(body.trim_matches(|c: char| c.is_whitespace() || "`*_>#-".contains(c)))
}

#[cfg(test)]
mod tests {
    use super::hollow;

    #[test]
    fn answers_that_show_nothing_are_hollow() {
        for text in [
            "",
            " \n\t",
            "\u{200b}\u{200c}\u{feff}",
            "\x1b[31m\x1b[0m\x1b[1m",
            "\u{2800}\u{2800} \u{2800}",
            "STANCE: {\"option\": \"Redis\"}",
            "\n`STANCE: {\"option\": \"Redis\"}`",
            "**STANCE:** {\"option\": \"Redis\"}",
        ] {
            assert!(hollow(text), "{text:?}");
        }
        for text in ["Redis is faster.", "Postgres.\nSTANCE: {\"option\": \"Postgres\"}", "{\"summary\": \"x\"}"] {
            assert!(!hollow(text), "{text:?}");
        }
    }
}
