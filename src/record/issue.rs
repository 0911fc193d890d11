//! The issue draft (`--issue`): `templates/issue.md` rendered to
//! `.debate/issues/<ID>.md` in the repository, not committed, with a ready
//! `gh issue create` line.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::Published;
use super::render::{ISSUE, render_template};
use crate::engine::state::DebateState;
use crate::error::{Error, Result};
use crate::moderator::evaluation::first_sentence;

/// A written draft and the command that files it.
#[derive(Debug, Clone, Serialize)]
pub struct Draft {
    pub path: PathBuf,
    pub title: String,
    pub command: String,
}

#[derive(Serialize)]
struct Context<'a> {
    id: &'a str,
    question: &'a str,
    recommendation: &'a str,
    confidence: &'a str,
    record: String,
    branch: Option<&'a str>,
    names: Vec<String>,
    tensions: &'a [String],
    caveats: &'a [String],
    actions: Vec<String>,
}

pub fn write(state: &DebateState, published: &Published) -> Result<Draft> {
    let outcome = state.outcome.as_ref().ok_or_else(|| Error::general("the debate has no synthesis for an issue"))?;
    let root = Path::new(&state.repo_root);
    let record = published.path.strip_prefix(root).unwrap_or(&published.path).display().to_string();
    let context = Context {
        id: &state.id,
        question: &state.question,
        recommendation: &outcome.synthesis.recommendation,
        confidence: outcome.confidence.as_str(),
        record,
        branch: published.branch.as_deref(),
        names: state.panel_names(),
        tensions: &outcome.synthesis.tensions,
        caveats: &outcome.synthesis.caveats,
        actions: action_items(&outcome.synthesis.recommendation),
    };
    let body = render_template(root, &ISSUE, &context)?;
    let path = draft_path(state);
    let failed = |err: std::io::Error| Error::record(format!("cannot write the issue draft {}: {err}", path.display()));
    std::fs::create_dir_all(path.parent().expect("has a parent")).map_err(failed)?;
    // The draft is ours to rewrite: a resumed debate writes the same text again.
    let temporary = path.with_extension("md.partial");
    std::fs::write(&temporary, body).and_then(|_| std::fs::rename(&temporary, &path)).map_err(failed)?;
    Ok(Draft { path, title: title(state), command: command(state) })
}

fn title(state: &DebateState) -> String {
    format!("Act on decision: {}", state.title)
}

/// The `gh issue create` line that files the draft, run from the repository root.
pub fn command(state: &DebateState) -> String {
    let path = draft_path(state);
    let relative = path.strip_prefix(&state.repo_root).unwrap_or(&path).display().to_string();
    format!("gh issue create --title {} --body-file {}", shell_quote(&title(state)), shell_quote(&relative))
}

/// `.debate/issues/<ID>.md` in the debate's repository.
pub fn draft_path(state: &DebateState) -> PathBuf {
    Path::new(&state.repo_root).join(".debate").join("issues").join(format!("{}.md", state.id))
}

/// One action item per sentence of the recommendation (at most six).
fn action_items(recommendation: &str) -> Vec<String> {
    let mut items = Vec::new();
    let mut rest = recommendation.trim();
    while !rest.is_empty() && items.len() < 6 {
        let sentence = first_sentence(rest);
        if sentence.is_empty() {
            break;
        }
        rest = rest[rest.find(&sentence).map_or(rest.len(), |i| i + sentence.len())..].trim_start();
        items.push(sentence);
    }
    items
}

/// Single-quoted for a POSIX shell.
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_action_per_sentence() {
        assert_eq!(
            action_items("Use Postgres now. Add Redis later! Measure p99?"),
            ["Use Postgres now.", "Add Redis later!", "Measure p99?"]
        );
        assert!(action_items("").is_empty());
    }

    #[test]
    fn quotes_survive_the_shell() {
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
    }
}
