//! The pages' HTML, rendered on the server from `view`'s documents with minijinja (HTML
//! templates escape every value; model text goes through `markdown`), and the live
//! part of a debate's page: its buttons and who drives it.

use axum::http::StatusCode;
use minijinja::{Environment, Value};
use serde::Serialize;

use super::error::ApiError;
use super::hub::{self, Driver, Situation};
use super::launch::Launch;
use super::markdown;
use crate::model::{DebateState, Status};
use crate::store::Store;
use crate::view::Detail;

const TEMPLATES: &[(&str, &str)] = &[
    ("base.html", include_str!("../../templates/serve/base.html")),
    ("list.html", include_str!("../../templates/serve/list.html")),
    ("debate.html", include_str!("../../templates/serve/debate.html")),
    ("live.html", include_str!("../../templates/serve/live.html")),
    ("error.html", include_str!("../../templates/serve/error.html")),
    ("record.html", include_str!("../../templates/serve/record.html")),
];
/// The largest record file shown.
const MAX_RECORD_BYTES: u64 = 1024 * 1024;

pub struct Pages {
    env: Environment<'static>,
}

/// The live part of a debate's page: what the `state` event carries.
#[derive(Debug, Serialize)]
pub struct Live {
    pub status: Status,
    /// The checkpoint buttons that apply now: `continue`, `guide`, `end`, `pause`.
    pub actions: Vec<&'static str>,
    /// The rounds argued so far: the checkpoint the buttons answer is the one after it.
    pub round: usize,
    /// What the bar over the buttons says; empty without buttons.
    pub ask: String,
    /// Who drives it, in words.
    pub driver: String,
    pub html: String,
}

/// The record of a complete debate.
#[derive(Serialize)]
struct Record {
    path: String,
    commit: Option<String>,
    branch: Option<String>,
    /// The file as HTML; `None` when it is not in the working tree.
    html: Option<String>,
}

impl Pages {
    pub fn new() -> Pages {
        let mut env = Environment::new();
        for (name, source) in TEMPLATES {
            // The templates are ours and compiled in; a broken one fails every page test.
            if let Err(err) = env.add_template(name, source) {
                panic!("templates/serve/{name}: {err}");
            }
        }
        env.add_filter("markdown", |text: &str| Value::from_safe_string(markdown::to_html(text)));
        env.add_filter("percent", |share: f64| format!("{:.0}%", share * 100.0));
        env.add_filter("short", |commit: &str| commit.chars().take(10).collect::<String>());
        env.add_filter("code", code_spans);
        Pages { env }
    }

    pub fn render(&self, name: &str, context: impl Serialize) -> Result<String, ApiError> {
        self.env
            .get_template(name)
            .and_then(|template| template.render(context))
            .map_err(|err| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("cannot render {name}: {err}")))
    }

    /// The live part of a debate's page, as it stands in the database.
    pub fn live(
        &self,
        launch: &dyn Launch,
        store: &Store,
        state: &DebateState,
        situation: Situation,
    ) -> Result<Live, ApiError> {
        let driver = hub::driver(situation, store.driver(&state.id)?);
        let mut detail = Detail::of(state);
        detail.summary = launch.on_disk(detail.summary);
        let actions = actions(state, &driver, situation);
        let said = describe(&driver, state, !actions.is_empty());
        // What it spent, and its cap, as `show` says them.
        let spent = match detail.cap.is_none() {
            true => format!("cost {}", detail.cost.describe()),
            false => format!("cost {} of a {} cap", detail.cost.describe(), detail.cap.describe()),
        };
        let html = self.render(
            "live.html",
            minijinja::context! {
                d => detail,
                driver => said,
                record => record(state),
                live => state.status != Status::Complete,
                spent => spent,
            },
        )?;
        let round = state.rounds.len();
        Ok(Live { status: state.status, ask: ask(state, &actions), actions, round, driver: said, html })
    }
}

/// The buttons that apply: all four at a checkpoint this server waits at; for a debate
/// nobody drives, continue (as `--resume`), and guide and end when it stopped at a
/// checkpoint; none while it runs, or is driven elsewhere, or is complete.
fn actions(state: &DebateState, driver: &Driver, situation: Situation) -> Vec<&'static str> {
    match driver {
        _ if situation.waiting && clarifying(state) => vec!["answer", "continue"],
        _ if situation.waiting => vec!["continue", "guide", "end", "pause"],
        Driver::Here | Driver::Elsewhere { .. } => Vec::new(),
        Driver::Nobody if state.status == Status::Complete => Vec::new(),
        Driver::Nobody if hub::at_checkpoint(state) => vec!["continue", "guide", "end"],
        Driver::Nobody => vec!["continue"],
    }
}

/// Whether the debate is at its clarifying questions: asked, not yet answered.
fn clarifying(state: &DebateState) -> bool {
    !state.analyzed && state.clarification.as_ref().is_some_and(|c| !c.settled)
}

/// The bar's words for the buttons that apply: the moderator's questions; a checkpoint
/// waits for an answer; a debate that only continues stopped elsewhere.
fn ask(state: &DebateState, actions: &[&str]) -> String {
    match actions {
        [] => String::new(),
        ["answer", ..] => {
            let questions = state.clarification.as_ref().map(|c| c.questions()).unwrap_or_default();
            let numbered: Vec<String> = questions.iter().enumerate().map(|(n, q)| format!("{}. {q}", n + 1)).collect();
            format!(
                "The question is vague. The moderator asks: {} Answer, or continue to debate it as it is.",
                numbered.join(" ")
            )
        }
        ["continue"] => "This debate stopped before it was done: continue it from here.".into(),
        _ => format!("Round {} is done: the debate waits for your answer.", state.rounds.len()),
    }
}

fn describe(driver: &Driver, state: &DebateState, actionable: bool) -> String {
    match driver {
        Driver::Here => "Driven by this dashboard.".into(),
        Driver::Elsewhere { pid, host } => {
            format!("Driven by process {pid} on {host}; its checkpoints are answered there.")
        }
        Driver::Nobody if state.status == Status::Complete => "Complete.".into(),
        Driver::Nobody if actionable => "Nobody drives it now: continue it here, or `debate resume` it.".into(),
        Driver::Nobody => "Nobody drives it now.".into(),
    }
}

/// Text whose `…` spans are code, as hints write commands; the rest escaped as any
/// value is. An unpaired backtick stays as it is.
fn code_spans(text: &str) -> Value {
    let parts: Vec<&str> = text.split('`').collect();
    let html: String = parts
        .iter()
        .enumerate()
        .map(|(i, part)| {
            let part = minijinja::HtmlEscape(part);
            match (i % 2 == 1, i + 1 < parts.len()) {
                (true, true) => format!("<code>{part}</code>"),
                (true, false) => format!("`{part}"),
                (false, _) => part.to_string(),
            }
        })
        .collect();
    Value::from_safe_string(html)
}

fn record(state: &DebateState) -> Option<Record> {
    let path = state.record_path.clone()?;
    if state.status != Status::Complete {
        return None;
    }
    let html = record_text(state).map(|text| markdown::record_to_html(markdown::without_front_matter(&text)));
    Some(Record { path, commit: state.commit_id.clone(), branch: state.snapshot.branch.clone(), html })
}

/// The record's text, at most `MAX_RECORD_BYTES`: the file, or — on `--branch`, where no
/// work tree holds it — as its commit does.
pub fn record_text(state: &DebateState) -> Option<String> {
    match &state.snapshot.branch {
        Some(_) => {
            let committed = crate::record::committed(state)?;
            Some(String::from_utf8_lossy(&committed[..committed.len().min(MAX_RECORD_BYTES as usize)]).into_owned())
        }
        None => {
            let path = std::path::Path::new(state.record_path.as_deref()?);
            crate::record::checked_out_text(std::path::Path::new(&state.repo_root), path, MAX_RECORD_BYTES)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backticked_spans_are_code_and_everything_else_is_text() {
        let html = |text: &str| code_spans(text).to_string();
        assert_eq!(html("`debate list` shows <them>"), "<code>debate list</code> shows &lt;them&gt;");
        assert_eq!(html("run `a<b>` then `"), "run <code>a&lt;b&gt;</code> then `");
        assert_eq!(html("no code"), "no code");
    }
}
