//! The issue draft (`--issue`): `templates/issue.md` rendered to
//! `.debate/issues/<ID>.md` in the repository, not committed, with a ready
//! `gh issue create` line.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{RecordError, Result, Templates};
use crate::model::{DebateState, Draft, Published};
use crate::text::first_sentence;

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

pub fn write(state: &DebateState, templates: &Templates, published: &Published) -> Result<Draft> {
    let outcome = state.outcome.as_ref().ok_or(RecordError::NoOutcome)?;
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
        actions: match outcome.synthesis.action_items.is_empty() {
            true => action_items(&outcome.synthesis.recommendation),
            false => outcome.synthesis.action_items.clone(),
        },
    };
    let body = templates.issue(&context)?;
    let path = draft_path(root, &state.id);
    let failed = |source| RecordError::Write { path: path.clone(), source };
    std::fs::create_dir_all(path.parent().expect("has a parent")).map_err(failed)?;
    // The draft is ours to rewrite: a resumed debate writes the same text again.
    let temporary = path.with_extension("md.partial");
    std::fs::write(&temporary, body).and_then(|_| std::fs::rename(&temporary, &path)).map_err(failed)?;
    let command = command(root, &state.title, &path);
    Ok(Draft { path, title: issue_title(&state.title), command })
}

fn issue_title(debate_title: &str) -> String {
    format!("Act on decision: {debate_title}")
}

/// The `gh issue create` line that files the draft at `path`, run from the repository
/// root.
pub fn command(repo_root: &Path, debate_title: &str, path: &Path) -> String {
    let relative = path.strip_prefix(repo_root).unwrap_or(path).display().to_string();
    format!(
        "gh issue create --title {} --body-file {}",
        shell_quote(&issue_title(debate_title)),
        shell_quote(&relative)
    )
}

/// `.debate/issues/<ID>.md` in the debate's repository.
pub fn draft_path(repo_root: &Path, id: &str) -> PathBuf {
    repo_root.join(".debate").join("issues").join(format!("{id}.md"))
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
