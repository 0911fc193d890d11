//! The issue draft (`--issue`): `templates/issue.md` rendered to
//! `.debate/issues/<ID>.md` in the repository (kept out of git by `.git/info/exclude`),
//! a work item titled by the decision, linking its record, with the action items and the
//! confirmation check as tasks, and a `gh issue create` line that works from anywhere in
//! the repository.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{RecordError, Result, Templates, WorkTree, git, links};
use crate::model::{DebateState, Draft, Published, TITLE_LIMIT};
use crate::text::untrusted::one_line;
use crate::text::{first_sentence, shorten};

#[derive(Serialize)]
struct Context<'a> {
    id: &'a str,
    title: &'a str,
    question: &'a str,
    chosen_option: Option<&'a str>,
    recommendation: &'a str,
    confidence: &'a str,
    /// The record's path in the repository, and the link to it from the draft.
    record: String,
    record_link: String,
    /// The record on the remote's web page, when the remote is a known forge.
    web_url: Option<String>,
    web_branch: Option<String>,
    branch: Option<&'a str>,
    names: Vec<String>,
    tensions: &'a [String],
    caveats: &'a [String],
    actions: Vec<String>,
    confirmation: &'a str,
}

pub fn write(state: &DebateState, templates: &Templates, published: &Published) -> Result<Draft> {
    let outcome = state.outcome.as_ref().ok_or(RecordError::NoOutcome)?;
    let root = Path::new(&state.repo_root);
    let record = published.path.strip_prefix(root).unwrap_or(&published.path).to_string_lossy().replace('\\', "/");
    let web = git::web_url(root, published.branch.as_deref(), &record);
    let context = Context {
        id: &state.id,
        title: state.decision_title(),
        question: &state.question,
        chosen_option: outcome.synthesis.chosen_option.as_deref(),
        recommendation: &outcome.synthesis.recommendation,
        confidence: outcome.confidence.as_str(),
        record_link: links::relative(DRAFTS, &record),
        record,
        web_branch: web.as_ref().map(|(branch, _)| branch.clone()),
        web_url: web.map(|(_, url)| url),
        branch: published.branch.as_deref(),
        names: state.panel_names(),
        tensions: &outcome.synthesis.tensions,
        caveats: &outcome.synthesis.caveats,
        actions: match outcome.synthesis.action_items.is_empty() {
            true => action_items(&outcome.synthesis.recommendation),
            false => outcome.synthesis.action_items.clone(),
        },
        confirmation: &outcome.synthesis.confirmation,
    };
    let body = templates.issue(&context)?;
    let path = draft_path(root, &state.id);
    // The draft is ours to rewrite: a resumed debate writes the same text again; never
    // through a link a clone put at `.debate` or its `issues`.
    WorkTree::open(root)?.replace(&Path::new(DRAFTS).join(format!("{}.md", state.id)), body.as_bytes())?;
    git::exclude(root, ".debate/");
    let title = issue_title(state.decision_title());
    Ok(Draft { command: command(root, &title, &path), path, title })
}

/// Where drafts go, relative to the repository root.
const DRAFTS: &str = ".debate/issues";

/// The decision's title, as a work item: one line, never cut mid-word.
pub fn issue_title(decision_title: &str) -> String {
    shorten(&one_line(decision_title), TITLE_LIMIT)
}

/// The `gh issue create` line that files the draft at `path`, from anywhere in the
/// repository (the body file is found from the work tree's top).
pub fn command(repo_root: &Path, title: &str, path: &Path) -> String {
    let relative = path.strip_prefix(repo_root).unwrap_or(path).to_string_lossy().replace('\\', "/");
    format!(
        "gh issue create --title {} --body-file \"$(git rev-parse --show-toplevel)\"/{}",
        shell_quote(&issue_title(title)),
        shell_quote(&relative)
    )
}

/// `.debate/issues/<ID>.md` in the debate's repository.
pub fn draft_path(repo_root: &Path, id: &str) -> PathBuf {
    repo_root.join(DRAFTS).join(format!("{id}.md"))
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
