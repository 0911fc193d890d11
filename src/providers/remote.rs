//! A model behind an HTTP API: the provider every wire format is. What the formats
//! share — retries, the cap on requests in flight, what the server says of itself, how
//! many requests it serves at once — is written here once; a format's own file says
//! only how a request is put and an answer read ([`Wire`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use async_trait::async_trait;

use super::http::{Endpoint, Failure};
use super::{Provider, Request, Result, probe};
use crate::model::{AtOnce, Completion, Identity, ProviderKind, ServerSays};

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

    fn start_with_format(&self, format: &str) {
        self.wire.start_with_format(format);
    }

    fn learning_server(&self) -> Option<&str> {
        self.endpoint.learns_at_once.then_some(self.endpoint.base_url.as_str())
    }

    async fn serves_at_once(&self) -> Option<AtOnce> {
        let probe = Request::probe("Say OK.", 4);
        self.endpoint.learns_at_once.then_some(())?;
        probe::at_once(&self.endpoint, || self.wire.attempt(&self.endpoint, &probe)).await
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
            match self.endpoint.with_retries(|| self.answered(request), &retrying).await {
                Ok(mut completion) => {
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
    /// One attempt, whose answer must hold text: an empty one is a failed attempt (unless
    /// the completion limit cut it off, which another try would only repeat).
    async fn answered(&self, request: &Request) -> std::result::Result<Completion, Failure> {
        let completion = self.wire.attempt(&self.endpoint, request).await?;
        match completion.text.trim().is_empty() && !completion.truncated {
            true => Err(Failure::Empty),
            false => Ok(completion),
        }
    }
}
