//! The issue draft (`--issue`): `templates/issue.md` rendered to
//! `.debate/issues/<ID>.md` in the repository (kept out of git by `.git/info/exclude`),
//! a work item titled by the decision, linking its record, with the action items and the
//! confirmation check as tasks (tasks only: the recommendation and the caveats are not),
//! and a `gh issue create` line that works from anywhere in the repository.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::model::{DebateState, Draft, Outcome, Place, Published, Shape, TITLE_LIMIT};
use crate::record::{RecordError, Result, Templates, WorkTree, render::links, write::git};
use crate::text::untrusted::one_line;
use crate::text::{shell_quote, shorten};

#[derive(Serialize)]
struct Context<'a> {
    id: &'a str,
    title: &'a str,
    question: &'a str,
    chosen_option: Option<&'a str>,
    /// The considered options, for the decision still to make when none was chosen.
    options: &'a [String],
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
    /// The points of the decision's task sections (its action items).
    actions: Vec<String>,
    /// The decision's sections by key (the template names those it shows).
    #[serde(flatten)]
    sections: BTreeMap<&'static str, Value>,
}

/// The decision's tasks, and its sections by key.
fn sections(outcome: &Outcome) -> (Vec<String>, BTreeMap<&'static str, Value>) {
    let parts = outcome.synthesis.parts(outcome.layout);
    let tasks = parts.iter().filter(|p| p.section.shape == Shape::Tasks).flat_map(|p| p.points());
    // The framed ones (options, perspectives, dissents) are the record's, not the draft's.
    let placed = parts.iter().filter(|p| p.section.place != Place::Framed);
    let by_key = placed.map(|p| (p.section.key, p.value.clone())).collect();
    (tasks.map(str::to_string).collect(), by_key)
}

pub fn write(state: &DebateState, templates: &Templates, published: &Published) -> Result<Draft> {
    let outcome = state.outcome.as_ref().ok_or(RecordError::NoOutcome)?;
    let root = Path::new(&state.repo_root);
    let record = published.path.strip_prefix(root).unwrap_or(&published.path).to_string_lossy().replace('\\', "/");
    let web = git::web_url(root, published.branch.as_deref(), &record);
    let (actions, sections) = sections(outcome);
    let context = Context {
        id: &state.id,
        title: state.decision_title(),
        question: &state.question,
        chosen_option: outcome.synthesis.chosen_option.as_deref(),
        options: &state.analysis.options,
        recommendation: &outcome.synthesis.recommendation,
        confidence: outcome.confidence.as_str(),
        record_link: links::relative(DRAFTS, &record),
        record,
        web_branch: web.as_ref().map(|(branch, _)| branch.clone()),
        web_url: web.map(|(_, url)| url),
        branch: published.branch.as_deref(),
        names: state.panel_names(),
        actions,
        sections,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The draft of the fixture's debate, with its synthesis changed by `change`.
    fn draft(change: impl FnOnce(&mut crate::model::Synthesis)) -> String {
        let mut state = crate::model::fixture::complete(1);
        change(&mut state.outcome.as_mut().unwrap().synthesis);
        let outcome = state.outcome.as_ref().unwrap();
        let s = &outcome.synthesis;
        let (actions, sections) = sections(outcome);
        let context = Context {
            id: &state.id,
            title: state.decision_title(),
            question: &state.question,
            chosen_option: s.chosen_option.as_deref(),
            options: &state.analysis.options,
            recommendation: &s.recommendation,
            confidence: outcome.confidence.as_str(),
            record: "docs/decisions/redis.md".into(),
            record_link: "../../docs/decisions/redis.md".into(),
            web_url: None,
            web_branch: None,
            branch: None,
            names: state.panel_names(),
            actions,
            sections,
        };
        Templates::built_in().issue(&context).unwrap()
    }

    /// The checkbox lines of a draft.
    fn tasks(draft: &str) -> Vec<&str> {
        draft.lines().filter(|l| l.starts_with("- [ ] ")).collect()
    }

    #[test]
    fn the_moderators_action_items_and_the_confirmation_are_the_tasks() {
        let draft = draft(|_| {});
        assert_eq!(
            tasks(&draft),
            [
                "- [ ] add an UNLOGGED cache table",
                "- [ ] alert on p99 over 50 ms",
                "- [ ] Confirm the decision: p99 of the product page stays under 50 ms for 30 days"
            ]
        );
        let caveats = "## Caveats\n\nRevisit the decision if one of these comes to pass:\n- traffic grows tenfold";
        assert!(draft.contains(caveats), "{draft}");
    }

    #[test]
    fn the_recommendation_and_the_caveats_never_become_tasks() {
        let offline = draft(|s| {
            s.action_items.clear();
            s.confirmation.clear();
            s.chosen_option = None;
            s.recommendation = "No model reasoned about this question. Weigh Redis or Postgres yourself.".into();
            s.caveats = vec!["These arguments were composed from the perspective catalog.".into()];
        });
        assert_eq!(
            tasks(&offline),
            ["- [ ] Choose one of the options (Redis, Postgres): the debate chose no single option"]
        );
        let chosen = draft(|s| {
            s.action_items.clear();
            s.confirmation.clear();
        });
        assert_eq!(tasks(&chosen), ["- [ ] Carry out the chosen option: Postgres"], "{chosen}");
    }
}
