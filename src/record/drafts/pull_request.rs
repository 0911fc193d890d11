//! The pull request a record on a branch of its own asks for (`--branch`): the
//! `git push` and `gh pr create` lines, the title and body taken from the record, every
//! value single-quoted so no text a model wrote can become shell syntax. Pure.

use std::path::Path;

use crate::model::DebateState;
use crate::record::drafts::issue::issue_title;
use crate::text::untrusted::one_line;
use crate::text::{shell_quote, shorten};

/// How much of the recommendation the body quotes; the record holds all of it.
const RECOMMENDATION_LIMIT: usize = 400;

/// The commands that push `branch` and open its pull request, for the record at
/// `relative` (the body's lines stay inside its quotes).
pub fn commands(state: &DebateState, branch: &str, relative: &Path) -> Vec<String> {
    let branch = shell_quote(branch);
    vec![
        format!("git push -u origin {branch}"),
        format!(
            "gh pr create --head {branch} --title {} --body {}",
            shell_quote(&issue_title(state.decision_title())),
            shell_quote(&body(state, relative))
        ),
    ]
}

/// What the pull request says: the record, the decision in brief, and how to answer it.
fn body(state: &DebateState, relative: &Path) -> String {
    let record = relative.to_string_lossy().replace('\\', "/");
    let mut body = format!("Proposed decision record `{record}` (debate {}).\n\n", state.id);
    if let Some(outcome) = &state.outcome {
        let chosen = outcome.synthesis.chosen_option.as_deref().map_or("none".to_string(), one_line);
        body.push_str(&format!("**Chosen option:** {chosen} · **confidence:** {}\n\n", outcome.confidence.as_str()));
        let recommendation = shorten(&one_line(&outcome.synthesis.recommendation), RECOMMENDATION_LIMIT);
        if !recommendation.is_empty() {
            body.push_str(&format!("{recommendation}\n\n"));
        }
    }
    body.push_str(&format!(
        "Review it here. Answer an objection with another round: `debate review {id} --guide \"…\"` \
         (or comment `/debate <objection>` where the debate-review workflow runs); \
         when the team agrees: `debate accept {id}`.",
        id = state.id
    ));
    body
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fixture;

    /// `text` run through `sh -c 'printf %s "$@"' sh <words>`: the words the shell makes.
    fn words(command: &str) -> Vec<String> {
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("for w in {command}; do printf '%s\\0' \"$w\"; done"))
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap().split_terminator('\0').map(str::to_string).collect()
    }

    #[test]
    fn the_pull_request_is_titled_and_described_from_the_record() {
        let state = fixture::complete(1);
        let [push, create] =
            commands(&state, "decisions/cache", Path::new("docs/decisions/cache.md")).try_into().unwrap();
        assert_eq!(push, "git push -u origin 'decisions/cache'");
        let create = words(create.strip_prefix("gh pr create ").unwrap());
        assert_eq!(create[..3], ["--head", "decisions/cache", "--title"]);
        assert_eq!(create[3], issue_title(state.decision_title()));
        assert_eq!(create[4], "--body");
        let body = &create[5];
        assert!(
            body.starts_with(&format!("Proposed decision record `docs/decisions/cache.md` (debate {}).", state.id))
        );
        assert!(body.contains("**Chosen option:** Postgres"), "{body}");
        assert!(body.contains(&format!("debate review {} --guide", state.id)), "{body}");
        assert_eq!(create.len(), 6, "{create:?}");
    }

    #[test]
    fn text_a_model_wrote_stays_one_quoted_word() {
        let mut state = fixture::complete(1);
        let hostile = "it's $(touch /tmp/pwned) `id` \"; rm -rf ~ #\nnext line";
        state.outcome.as_mut().unwrap().synthesis.title = hostile.into();
        state.outcome.as_mut().unwrap().synthesis.recommendation = hostile.into();
        let create = &commands(&state, "decisions/x", Path::new("docs/decisions/x.md"))[1];
        let create = words(create.strip_prefix("gh pr create ").unwrap());
        assert_eq!(create.len(), 6, "{create:?}");
        assert!(create[3].starts_with("it's $(touch"), "{create:?}");
        assert!(create[5].contains("it's $(touch /tmp/pwned) `id`"), "{create:?}");
    }
}
