//! The scripted provider: answers read from a YAML script, for tests and demos.
//!
//! ```yaml
//! model: scripted-demo          # reported as the model
//! log: prompts.jsonl            # optional: every request appended as a JSON line when it starts
//! delay_ms: 0                   # optional: wait before every answer
//! answers:
//!   - purpose: argument         # clarification | analysis | argument | rebuttal | evaluation | synthesis
//!     round: 2                  # optional filter
//!     perspective: Cost Control # optional filter
//!     contains: "could not be read" # optional filter on the prompt text
//!     text: "{perspective} in round {round}: ..."
//!     delay_ms: 500             # optional, overrides the default
//!     error: "overloaded"       # optional: fail this call instead of answering
//!     truncated: true           # optional: report the answer as cut off at the completion limit
//! ```
//! The most specific matching answer wins (earliest on a tie). With no match, an
//! analysis call keeps the keyword panel, a clarification call asks what the analysis
//! alone asks; any other call is an error.

use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use async_trait::async_trait;
use serde::Deserialize;

use super::{Counted, Provider, ProviderError, Request, Result};
use crate::model::{Completion, Identity, ProviderKind, Purpose};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Script {
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    log: Option<PathBuf>,
    #[serde(default)]
    delay_ms: u64,
    #[serde(default)]
    answers: Vec<Answer>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Answer {
    #[serde(default)]
    purpose: Option<Purpose>,
    #[serde(default)]
    round: Option<u32>,
    #[serde(default)]
    perspective: Option<String>,
    /// Matches only prompts containing this text.
    #[serde(default)]
    contains: Option<String>,
    #[serde(default)]
    text: String,
    #[serde(default)]
    delay_ms: Option<u64>,
    #[serde(default)]
    error: Option<String>,
    /// Report the answer as cut off at the completion limit.
    #[serde(default)]
    truncated: bool,
}

impl Answer {
    /// How many filters it sets, if it matches the request at all.
    fn specificity(&self, request: &Request) -> Option<usize> {
        let purpose = self.purpose.map(|p| p == request.purpose);
        let round = self.round.map(|r| r == request.round);
        let perspective =
            self.perspective.as_ref().map(|p| request.perspective.as_ref().is_some_and(|q| p.eq_ignore_ascii_case(q)));
        let contains = self.contains.as_ref().map(|c| request.user_text().contains(c.as_str()));
        let filters = [purpose, round, perspective, contains];
        filters.iter().all(|f| f.unwrap_or(true)).then(|| filters.iter().flatten().count())
    }
}

pub const SCRIPTED_LABEL: &str =
    "the scripted provider (answers read from a script, for tests and demos; not reasoned by a model)";

pub struct Scripted {
    script: Script,
    model: String,
    log: Option<PathBuf>,
}

impl Scripted {
    pub fn load(path: &Path, model: Option<String>) -> Result<Scripted> {
        let origin = path.display().to_string();
        let setup = |message: String| ProviderError::Setup { message, hint: None };
        let text = std::fs::read_to_string(path).map_err(|err| setup(format!("cannot read script {origin}: {err}")))?;
        let script: Script = crate::text::yaml::parse(&text, &origin).map_err(setup)?;
        let base = path.parent().unwrap_or(Path::new("."));
        // The log is a file beside the script, never anywhere a script names.
        let beside = |log: &Path| matches!(log.components().collect::<Vec<_>>()[..], [Component::Normal(_)]);
        let log = match &script.log {
            Some(log) if !beside(log) => {
                return Err(setup(format!(
                    "{origin}: `log` must be a file name beside the script, not {}",
                    log.display()
                )));
            }
            log => log.as_ref().map(|log| base.join(log)),
        };
        let model = model.or(script.model.clone()).unwrap_or_else(|| "scripted".into());
        Ok(Scripted { script, model, log })
    }

    fn record(&self, request: &Request) -> Result<()> {
        let Some(path) = &self.log else { return Ok(()) };
        let line = serde_json::json!({
            "purpose": request.purpose,
            "round": request.round,
            "perspective": request.perspective,
            "system": request.system,
            "prompt": request.user_text(),
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            "schema": request.schema.as_ref().map(|s| s.name),
        });
        let failed = |source| ProviderError::Io { path: path.clone(), source };
        // Not through a link: a link beside the script could point anywhere.
        let mut options = std::fs::OpenOptions::new();
        options.create(true).append(true);
        let mut file = crate::platform::files::open_no_follow(path, options).map_err(failed)?;
        // One write per line, so concurrent appends never interleave.
        file.write_all(format!("{line}\n").as_bytes()).map_err(failed)
    }
}

#[async_trait]
impl Provider for Scripted {
    fn identity(&self) -> Identity {
        // Canned text: repeatable, not reasoned, but written as a model would.
        Identity { kind: ProviderKind::Scripted, reasoned: true }
    }

    async fn complete(&self, request: &Request) -> Result<Completion> {
        self.record(request)?;
        let best = self
            .script
            .answers
            .iter()
            .filter_map(|a| a.specificity(request).map(|s| (s, a)))
            .fold(None::<(usize, &Answer)>, |best, (s, a)| match best {
                Some((b, _)) if b >= s => best,
                _ => Some((s, a)),
            })
            .map(|(_, a)| a);
        let delay = best.and_then(|a| a.delay_ms).unwrap_or(self.script.delay_ms);
        if delay > 0 {
            tokio::time::sleep(Duration::from_millis(delay)).await;
        }
        let truncated = best.is_some_and(|a| a.truncated);
        let text = match best {
            Some(Answer { error: Some(message), .. }) => {
                let message = format!("scripted provider: {message}");
                return Err(ProviderError::Refused { message, hint: None, status: None });
            }
            Some(answer) => answer
                .text
                .replace("{perspective}", request.perspective.as_deref().unwrap_or("moderator"))
                .replace("{round}", &request.round.to_string()),
            None if request.purpose == Purpose::Analysis => "{}".into(),
            // A vague verdict without questions: those the analysis alone asks.
            None if request.purpose == Purpose::Clarification => r#"{"vague": true}"#.into(),
            None => {
                return Err(ProviderError::Refused {
                    message: format!(
                        "scripted provider: the script has no answer for {:?} in round {}{}",
                        request.purpose,
                        request.round,
                        request.perspective.as_ref().map(|p| format!(" by {p}")).unwrap_or_default()
                    ),
                    hint: Some("add an entry under `answers:` in the script".into()),
                    status: None,
                });
            }
        };
        Ok(Counted { truncated, ..Counted::default() }.completion(request, text, &self.model))
    }
}
