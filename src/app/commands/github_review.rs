//! `debate review --github-event PATH`: the review loop in a pull request, as the
//! workflow `debate ci github` writes runs it. A collaborator's `/debate <objection>`
//! reviews each decision record the pull request changes, on its branch, pushes the
//! revisions and answers in the thread; anyone else, a fork's pull request, a comment
//! without an objection and a pull request without a record are answered with why not.

use std::panic::AssertUnwindSafe;
use std::path::Path;

use futures::FutureExt;

use crate::app::commands::resume;
use crate::app::invocation::request::{GithubReviewRequest, QuestionSource, ResumeRequest, Review};
use crate::app::invocation::resolve::RunFlags;
use crate::error::{Error, Result};
use crate::github::api::{Client, Pull};
use crate::github::event::{self, Comment};
use crate::github::{self, GithubError};
use crate::model::{DebateState, RunOptions, is_debate_id};
use crate::record::WorkTree;
use crate::terminal::Terminal;
use crate::text::shorten;
use crate::text::untrusted::one_line;

pub async fn run(request: &GithubReviewRequest, db_path: &Path, terminal: &mut Terminal) -> Result<()> {
    let shown = request.event.display().to_string();
    // GitHub's webhook payloads are at most 25 MB.
    let read = std::fs::File::open(&request.event).and_then(|file| crate::text::read_bounded(file, 25 << 20));
    let text = read
        .and_then(|bytes| String::from_utf8(bytes).map_err(|_| std::io::Error::other("it is not UTF-8")))
        .map_err(|err| GithubError::Event { path: shown.clone(), why: err.to_string() })?;
    let comment = event::parse(&shown, &text)?;
    let Some(objection) = comment.objection().filter(|_| comment.on_pull_request) else {
        terminal.say("The event is no `/debate` comment on a pull request: nothing to review.");
        return Ok(());
    };
    let client = Client::from_env()?;
    // Every failure from here on is answered in the thread, an internal one too.
    let answered = AssertUnwindSafe(answer(&client, &comment, &objection, request, db_path, terminal)).catch_unwind();
    let (err, said) = match answered.await {
        Ok(Ok(())) => return Ok(()),
        Ok(Err(Failed { err, said })) => {
            let said = said.unwrap_or_else(|| failed(&err));
            (err, said)
        }
        Err(panic) => {
            let what = panic.downcast_ref::<String>().map(String::as_str).or(panic.downcast_ref::<&str>().copied());
            let err = Error::Internal(what.unwrap_or("a panic").to_string());
            let said = failed(&err);
            (err, said)
        }
    };
    if let Err(unsent) = client.reply(&comment.repository, comment.number, &said).await {
        terminal.warn(&format!("cannot answer in #{}: {unsent}", comment.number));
    }
    Err(err)
}

/// Why a comment's review failed, and the reply that says so when it is not the general one.
struct Failed {
    err: Error,
    said: Option<String>,
}

impl<E: Into<Error>> From<E> for Failed {
    fn from(err: E) -> Failed {
        Failed { err: err.into(), said: None }
    }
}

/// The reply to a failure nothing more particular answers.
fn failed(err: &Error) -> String {
    let mut reply = format!("debate could not review this: {}", quoted(&err.to_string(), 500));
    if let Some(hint) = err.hint() {
        reply.push_str(&format!(" ({})", quoted(&hint, 300)));
    }
    reply.push_str(" The job's log has the details.");
    reply
}

/// Act on a collaborator's `/debate <objection>` and answer it in the thread.
async fn answer(
    client: &Client,
    comment: &Comment,
    objection: &str,
    request: &GithubReviewRequest,
    db_path: &Path,
    terminal: &mut Terminal,
) -> Result<(), Failed> {
    // Seen: the workflow's first step may have reacted already, which is no error.
    if let Err(err) = client.react(&comment.repository, comment.id, "eyes").await {
        terminal.warn(&format!("cannot react to the comment: {err}"));
    }
    if !comment.by_collaborator() {
        return Ok(refuse(client, comment, terminal, &not_a_collaborator(comment)).await?);
    }
    // An association is no permission: a member or collaborator may only read.
    let permission = client.permission(&comment.repository, &comment.author).await?;
    if !matches!(permission.as_str(), "admin" | "maintain" | "write") {
        return Ok(refuse(client, comment, terminal, &cannot_write(comment, &permission)).await?);
    }
    if !crate::text::untrusted::shows_anything(objection) {
        return Ok(refuse(client, comment, terminal, NO_OBJECTION).await?);
    }
    let pull = client.pull(&comment.repository, comment.number).await?;
    if pull.head_repository.as_deref() != Some(comment.repository.as_str()) {
        return Ok(refuse(client, comment, terminal, &from_a_fork(&pull)).await?);
    }
    let root = crate::repo::around_working_directory()?;
    crate::record::failpoint("github-review");
    let mut reviewed = Vec::new();
    match review_each(request, db_path, terminal, &root, &pull, objection, &mut reviewed).await {
        Ok(None) => Ok(refuse(client, comment, terminal, NO_RECORD).await?),
        Ok(Some(commit)) => {
            let links = Links { server: github::api::server_url(), repository: &comment.repository, commit: &commit };
            let mut reply = concluded(objection, &reviewed, &links, &pull);
            // The workflow says whether it pushed with a token of the repository's own.
            if !std::env::var("DEBATE_PUSH_TOKEN_SET").is_ok_and(|set| set == "true") {
                reply.push_str(CHECKS_WAIT);
            }
            client.reply(&comment.repository, comment.number, &reply).await?;
            terminal.say(&format!("Pushed the revision to {} and answered in #{}.", pull.head_ref, comment.number));
            Ok(())
        }
        Err((record, err)) => {
            // What was reviewed before it is kept: pushed, and said.
            let pushed = !reviewed.is_empty() && github::git::push(&root, &pull.head_ref).is_ok();
            let said = stopped(record.as_deref(), &err, pushed.then_some(&reviewed[..]), comment, &pull, &root);
            Err(Failed { err, said: Some(said) })
        }
    }
}

/// Answer why the comment is not acted on.
async fn refuse(client: &Client, comment: &Comment, terminal: &Terminal, why: &str) -> Result<()> {
    client.reply(&comment.repository, comment.number, why).await?;
    terminal.say(&format!("Not reviewed: {}", one_line(why)));
    Ok(())
}

/// Check out the pull request's branch, review each record it changes, and push: the
/// commit pushed, or `None` when it changes no record; on failure, the record under
/// review (if any) and why.
async fn review_each(
    request: &GithubReviewRequest,
    db_path: &Path,
    terminal: &mut Terminal,
    root: &Path,
    pull: &Pull,
    objection: &str,
    reviewed: &mut Vec<(String, DebateState)>,
) -> Result<Option<String>, (Option<String>, Error)> {
    let branch = |err: Error| (None, err);
    github::git::check_out(root, &pull.head_ref, &pull.base_ref).map_err(|err| branch(err.into()))?;
    let records = changed_records(root, &pull.base_ref).map_err(branch)?;
    if records.is_empty() {
        return Ok(None);
    }
    for record in records {
        let review = ResumeRequest {
            id: record.clone(),
            flags: RunFlags {
                options: RunOptions { no_checkpoints: true, ..request.flags.options.clone() },
                ..request.flags.clone()
            },
            review: Some(Review { objection: QuestionSource::Text(objection.to_string()), discard_edits: false }),
            here: Default::default(),
        };
        match resume::run(&review, db_path, terminal, None).await {
            Ok(state) => reviewed.push((record, state)),
            Err(err) => return Err((Some(record), err)),
        }
    }
    github::git::push(root, &pull.head_ref).map_err(|err| branch(err.into()))?;
    Ok(Some(github::git::head(root).map_err(|err| branch(err.into()))?))
}

/// The decision records debate wrote that the pull request adds or changes: Markdown
/// files still in its tree whose front matter names a debate by an id of debate's form
/// (another site generator's `id: intro` is no record).
fn changed_records(root: &Path, base: &str) -> Result<Vec<String>> {
    let tree = WorkTree::open(root)?;
    let mut records = Vec::new();
    for path in github::git::changed(root, base)? {
        if !path.ends_with(".md") {
            continue;
        }
        let Ok(Some(bytes)) = tree.read(Path::new(&path)) else { continue };
        if crate::adr::read(&path, &String::from_utf8_lossy(&bytes))
            .and_then(|f| f.id)
            .is_some_and(|id| is_debate_id(&id))
        {
            records.push(path);
        }
    }
    Ok(records)
}

/// Why the repository's checks do not run on a revision pushed with the workflow's token.
const CHECKS_WAIT: &str = "\n\nThe repository's checks do not run on this revision by themselves: it was pushed \
     with the workflow's own token, which starts no workflow (pull request checks wait for *Approve workflows to run*). \
     To have them run, add a `DEBATE_PUSH_TOKEN` secret: a token with contents: write on this repository.";

const NO_OBJECTION: &str = "Give the objection after the command, for example `/debate what about operating cost?`: \
     it becomes the guidance of one more round, and the record is revised on this branch.";

const NO_RECORD: &str = "This pull request changes no decision record, so there is nothing to review: \
     `/debate` answers an objection to a record that debate wrote.";

fn cannot_write(comment: &Comment, permission: &str) -> String {
    format!(
        "@{}: `/debate` runs for those who can push to this repository (admin, maintain or write), \
         because a review spends the repository's model keys and commits to the branch; your permission here is {}.",
        comment.author,
        code(permission)
    )
}

fn not_a_collaborator(comment: &Comment) -> String {
    format!(
        "@{}: only this repository's owners, members and collaborators can run `/debate`, \
         because a review spends the repository's model keys.",
        comment.author
    )
}

fn from_a_fork(pull: &Pull) -> String {
    let fork = pull.head_repository.as_deref().unwrap_or("a deleted fork");
    format!(
        "This pull request comes from a fork ({}), so `/debate` does not run on it: no key runs on a fork's branch. \
         Run `debate review <record> --guide \"…\"` in a clone and push the revision to the fork, \
         or open the pull request from a branch of this repository.",
        quoted(fork, 100)
    )
}

/// Text from elsewhere (a model, a comment) as one line of a reply: shortened, with no
/// mention that would notify anyone.
fn quoted(text: &str, limit: usize) -> String {
    shorten(&one_line(text), limit).replace('@', "&#64;")
}

/// A name from elsewhere (a branch, a path) as a code span nothing in it can end: fenced
/// by one backtick more than its longest run of them.
fn code(text: &str) -> String {
    let text = one_line(text);
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') { " " } else { "" };
    format!("{fence}{pad}{text}{pad}{fence}")
}

struct Links<'a> {
    server: String,
    repository: &'a str,
    commit: &'a str,
}

impl Links<'_> {
    fn record(&self, path: &str) -> String {
        format!("{}/{}/blob/{}/{path}", self.server, self.repository, self.commit)
    }
}

/// What each record concludes now, linked at the pushed commit.
fn concluded(objection: &str, reviewed: &[(String, DebateState)], links: &Links, pull: &Pull) -> String {
    let mut reply = format!("Reviewed with the objection \u{201c}{}\u{201d}:\n\n", quoted(objection, 300));
    for (path, state) in reviewed {
        reply.push_str(&format!("- [{}]({}): {}\n", code(path), links.record(path), conclusion(state)));
    }
    reply.push_str(&format!(
        "\nThe revision is committed on {} as {}.",
        code(&pull.head_ref),
        links.commit.chars().take(10).collect::<String>()
    ));
    reply
}

/// "now **Postgres** (confidence medium): Cache in Postgres now; …" after its round.
fn conclusion(state: &DebateState) -> String {
    let Some(outcome) = &state.outcome else { return "no conclusion".into() };
    let chosen = outcome.synthesis.chosen_option.as_deref().map_or("no single option".into(), |o| quoted(o, 80));
    let before = state.revisions.last().and_then(|r| r.chosen_option.as_deref());
    let changed = match before {
        Some(before) if Some(before) != outcome.synthesis.chosen_option.as_deref() => {
            format!(" (was {})", quoted(before, 80))
        }
        _ => String::new(),
    };
    let cap = match state.snapshot.cap.is_none() {
        true => String::new(),
        false => format!(", of a {} cap", state.snapshot.cap.describe()),
    };
    format!(
        "now **{chosen}**{changed}, confidence {}: {} (spent {}{cap})",
        outcome.confidence.as_str(),
        quoted(&outcome.synthesis.recommendation, 300),
        crate::model::Cost::of(state).describe()
    )
}

/// A review that stopped: which record (none: the branch itself), why, and what was
/// reviewed and pushed before it.
fn stopped(
    record: Option<&str>,
    err: &Error,
    pushed: Option<&[(String, DebateState)]>,
    comment: &Comment,
    pull: &Pull,
    root: &Path,
) -> String {
    let what = record.map_or(format!("the branch {}", code(&pull.head_ref)), code);
    let mut reply = format!("The review of {what} stopped: {}", quoted(&err.to_string(), 500));
    if let Some(hint) = err.hint() {
        reply.push_str(&format!(" ({})", quoted(&hint, 300)));
    }
    if let Some(done) = pushed {
        let commit = github::git::head(root).unwrap_or_default();
        let links = Links { server: github::api::server_url(), repository: &comment.repository, commit: &commit };
        let done: Vec<String> =
            done.iter().map(|(path, _)| format!("[{}]({})", code(path), links.record(path))).collect();
        reply.push_str(&format!("\n\nReviewed and pushed to {} before it: {}.", code(&pull.head_ref), done.join(", ")));
    }
    reply
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fixture;

    #[test]
    fn text_from_elsewhere_notifies_nobody_and_stays_on_one_line() {
        assert_eq!(quoted("ask @alice\nnow", 100), "ask &#64;alice now");
    }

    #[test]
    fn the_answer_gives_each_records_conclusion_and_link() {
        let state = fixture::complete(1);
        let pull = Pull {
            head_ref: "decisions/cache".into(),
            head_repository: Some("acme/shop".into()),
            base_ref: "main".into(),
        };
        let links = Links { server: "https://github.com".into(), repository: "acme/shop", commit: "0123456789abcdef" };
        let reply = concluded("what about @bob's cost?", &[("docs/decisions/cache.md".into(), state)], &links, &pull);
        assert!(
            reply.starts_with("Reviewed with the objection \u{201c}what about &#64;bob's cost?\u{201d}:\n\n"),
            "{reply}"
        );
        assert!(
            reply.contains("- [`docs/decisions/cache.md`](https://github.com/acme/shop/blob/0123456789abcdef/docs/decisions/cache.md): now **Postgres**"),
            "{reply}"
        );
        assert!(reply.ends_with("committed on `decisions/cache` as 0123456789."), "{reply}");
    }
}
