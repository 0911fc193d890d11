//! `debate check [--base REF]`: the work tree checked against the guards of the
//! repository's decision records — accepted records' guards enforced (exit 1 on a
//! violation), proposed records' warned of, the others' (superseded, rejected,
//! deprecated) ignored. No model, no network, no state database: a pull request's job
//! runs it with no key. A guard is data, never run; the manifests are read as the
//! context reader reads them.

use std::path::Path;

use crate::adr;
use crate::app::invocation::request::CheckRequest;
use crate::app::shared::project;
use crate::context::{self, Guarded};
use crate::error::{Error, Result};
use crate::github::api::{self, Kept};
use crate::github::{GithubError, event};
use crate::model::{Guard, Rule, Subject};
use crate::terminal::{self, Terminal};
use crate::text::untrusted::one_line;
use crate::text::{markdown, secrets};
use crate::view::{Found, GuardCheck, GuardingRecord, Violation};

pub async fn run(request: &CheckRequest, json: bool, terminal: &Terminal) -> Result<()> {
    let root = crate::repo::around_working_directory()?;
    // The event is read before anything is checked: a wrong file is a usage error.
    let pull = match &request.github_event {
        Some(path) => {
            let shown = path.display().to_string();
            let text = std::fs::read_to_string(path)
                .map_err(|err| GithubError::Event { path: shown.clone(), why: err.to_string() })?;
            Some(event::parse_pull_request(&shown, &text)?)
        }
        None => None,
    };
    let checked = check(&root, request.base.as_deref(), request.config.as_deref(), terminal)?;
    match json {
        true => terminal::print_json(&checked)?,
        false => terminal::print_out(&report(&checked))?,
    }
    if let Some(pull) = pull {
        // The comment is a courtesy: a token that may not write (a fork's) is said, and
        // the check's own exit code stands.
        match comment_on(&pull, &checked).await {
            Ok(kept) => terminal.say(&format!("The check's comment on #{}: {}.", pull.number, kept.said())),
            Err(err) => {
                terminal.warn(&format!("the check's comment on #{} was not kept up to date: {err}", pull.number))
            }
        }
    }
    for warning in &checked.warnings {
        terminal.warn(&format!("{} (proposed, so not enforced until it is accepted)", line(warning)));
    }
    match checked.violations.len() {
        0 => Ok(()),
        n => Err(Error::unverified(
            format!("{n} place(s) go against accepted decisions"),
            "change the code back, or change the decision: supersede the record with a new debate, or \
             `debate guard drop RECORD GUARD` with the team's review",
            1,
        )),
    }
}

/// Marks the one comment `debate check` keeps on a pull request.
const MARKER: &str = "<!-- debate:check -->";

/// Places a comment lists of each kind, at most.
const COMMENT_ITEMS: usize = 50;

async fn comment_on(pull: &event::PullRequest, checked: &GuardCheck) -> std::result::Result<Kept, GithubError> {
    let client = api::Client::from_env()?;
    client.keep_comment(&pull.repository, pull.number, MARKER, comment(checked).as_deref()).await
}

/// The comment's markdown: each violation, then each warning; `None` when there is
/// neither. What the repository wrote (names, paths, titles) is escaped as text.
fn comment(checked: &GuardCheck) -> Option<String> {
    if checked.violations.is_empty() && checked.warnings.is_empty() {
        return None;
    }
    let item = |v: &Violation| {
        let what = match &v.found {
            Found::Dependency { name, brings, manifest, line } => {
                let at = line
                    .map_or(markdown::quiet_line(manifest), |l| format!("{} line {l}", markdown::quiet_line(manifest)));
                let brings = brings.as_ref().filter(|b| !b.eq_ignore_ascii_case(name));
                format!(
                    "{at}: **{}**{}",
                    markdown::quiet_line(name),
                    brings.map_or(String::new(), |b| format!(" (brings {})", markdown::quiet_line(b)))
                )
            }
            Found::Path { path } => format!("the file **{}**", markdown::quiet_line(path)),
            Found::Missing { target } => format!("nothing in the work tree is **{}**", markdown::quiet_line(target)),
        };
        let number = v.record.number.map_or(String::new(), |n| format!("#{n} "));
        format!(
            "- {what} goes against `{}` of {number}**{}** ({}, {})\n",
            v.guard,
            markdown::quiet_line(&v.record.title),
            markdown::quiet_line(&v.record.path),
            markdown::quiet_line(&v.record.status)
        )
    };
    // A comment holds at most 65,536 characters: the first places of each list, and a count.
    let listed = |out: &mut String, heading: &str, found: &[Violation]| {
        if found.is_empty() {
            return;
        }
        out.push_str(&format!("### {heading}\n\n"));
        found.iter().take(COMMENT_ITEMS).for_each(|v| out.push_str(&item(v)));
        if found.len() > COMMENT_ITEMS {
            out.push_str(&format!("- and {} more\n", found.len() - COMMENT_ITEMS));
        }
        out.push('\n');
    };
    let mut out = String::new();
    listed(&mut out, "This change goes against accepted decisions", &checked.violations);
    listed(&mut out, "Proposed decisions it would go against once they are accepted", &checked.warnings);
    out.push_str(
        "Change the code back, or change the decision: a new debate that supersedes the record, or \
         `debate guard drop RECORD GUARD` reviewed like any change. `debate check` shows the same locally.\n",
    );
    Some(out)
}

/// The repository at `root` checked: every record's guards against the work tree, or
/// with `base` against what changed since its merge base with HEAD.
pub fn check(root: &Path, base: Option<&str>, config: Option<&Path>, terminal: &Terminal) -> Result<GuardCheck> {
    let directory = project::record_settings(root, config, terminal)?.directory.0;
    let changed = match base {
        Some(rev) => Some(crate::repo::changed_since(root, rev)?.ok_or_else(|| {
            Error::input(format!("--base {rev}: no commit of that name here"))
                .with_hint("give a branch, tag or commit this clone has (in CI, fetch the base branch first)")
        })?),
        None => None,
    };
    let keys = secrets::keys();
    // The work tree is walked once, and only when some record has a guard to check.
    let mut tree: Option<Guarded> = None;
    let mut view = GuardCheck {
        base: base.map(str::to_string),
        records: 0,
        guards: 0,
        violations: Vec::new(),
        warnings: Vec::new(),
        notes: Vec::new(),
        exit_code: 0,
    };
    for (path, text) in context::record_texts(root, &directory, &keys) {
        let Some(fields) = adr::read(&path, &text) else { continue };
        view.records += 1;
        let status = fields.status.to_lowercase();
        let enforced = status.starts_with("accepted");
        if !enforced && !status.starts_with("proposed") {
            continue;
        }
        let record = GuardingRecord {
            number: number_of(&path),
            title: one_line(&fields.title),
            status: one_line(&fields.status),
            path: path.clone(),
        };
        for written in &fields.guards {
            let guard = match written.parse::<Guard>() {
                Ok(guard) => guard,
                Err(why) => {
                    view.notes.push(format!("{path}: a guard was not read: {why}"));
                    continue;
                }
            };
            view.guards += 1;
            let tree = tree.get_or_insert_with(|| context::guarded(root, &keys));
            for found in against(&guard, tree, changed.as_deref()) {
                let violation = Violation { record: record.clone(), guard: guard.to_string(), found };
                match enforced {
                    true => view.violations.push(violation),
                    false => view.warnings.push(violation),
                }
            }
        }
    }
    view.notes.extend(tree.map(|tree| tree.notes).unwrap_or_default());
    view.exit_code = u8::from(!view.violations.is_empty());
    Ok(view)
}

/// What in the work tree goes against `guard`; with `changed`, only in the files it
/// names (a requirement is checked when a manifest changed, since any manifest may
/// hold what it asks for).
fn against(guard: &Guard, tree: &Guarded, changed: Option<&[String]>) -> Vec<Found> {
    let in_scope = |file: &str| changed.is_none_or(|changed| changed.iter().any(|c| c == file));
    let declared = tree.dependencies.iter().filter(|d| {
        let dependency = &d.dependency;
        guard.matches_dependency(&dependency.name, dependency.detail.as_deref())
    });
    let matcher = match guard.subject {
        Subject::Path => guard.matcher().ok(),
        Subject::Dependency => None,
    };
    let files = tree.files.iter().filter(|file| matcher.as_ref().is_some_and(|m| m.is_match(file.as_str())));
    match (guard.rule, guard.subject) {
        (Rule::Forbid, Subject::Dependency) => declared
            .filter(|d| in_scope(&d.dependency.manifest))
            .map(|d| Found::Dependency {
                name: d.dependency.name.clone(),
                brings: d.dependency.detail.clone(),
                manifest: d.dependency.manifest.clone(),
                line: d.line,
            })
            .collect(),
        (Rule::Forbid, Subject::Path) => {
            files.filter(|f| in_scope(f)).map(|f| Found::Path { path: f.clone() }).collect()
        }
        (Rule::Require, subject) => {
            let manifest_changed = changed.is_none_or(|c| c.iter().any(|f| context::manifests::is_manifest(f)));
            let present = match subject {
                Subject::Dependency => declared.count() > 0,
                Subject::Path => files.count() > 0,
            };
            let looked = subject == Subject::Path || manifest_changed;
            match looked && !present {
                true => vec![Found::Missing { target: guard.target.clone() }],
                false => Vec::new(),
            }
        }
    }
}

/// The number a record's file name starts with (`0003-use-postgres.md` is 3).
fn number_of(path: &str) -> Option<u32> {
    let name = path.rsplit('/').next()?;
    let digits: String = name.chars().take_while(char::is_ascii_digit).collect();
    let rest = name[digits.len()..].strip_prefix(['-', '_'])?;
    // `2026-12-08-…` is dated, not numbered.
    let dated = rest.len() > 3 && rest[..2].bytes().all(|b| b.is_ascii_digit()) && rest[2..].starts_with('-');
    (!digits.is_empty() && digits.len() <= 5 && !dated).then(|| digits.parse().ok()).flatten()
}

/// One violation in a line: where, what, and which record's guard.
fn line(violation: &Violation) -> String {
    let record = &violation.record;
    let number = record.number.map_or(String::new(), |n| format!("#{n} "));
    let what = match &violation.found {
        Found::Dependency { name, brings, manifest, line } => {
            let at = line.map_or(manifest.clone(), |line| format!("{manifest}:{line}"));
            let brings = brings.as_ref().filter(|b| !b.eq_ignore_ascii_case(name));
            format!("{at}: {name}{}", brings.map_or(String::new(), |b| format!(" (brings {b})")))
        }
        Found::Path { path } => format!("{path}: this file"),
        Found::Missing { target } => format!("nothing in the work tree is {target}"),
    };
    // Names and paths come from the repository: one line, nothing a terminal would run.
    one_line(&format!("{what} goes against `{}` of {number}\"{}\" ({})", violation.guard, record.title, record.path))
}

/// What a person reads: each violation, then a summary.
pub fn report(checked: &GuardCheck) -> String {
    let mut out = String::new();
    for violation in &checked.violations {
        out.push_str(&line(violation));
        out.push('\n');
    }
    for note in &checked.notes {
        out.push_str(&format!("note: {note}\n"));
    }
    let scope = checked.base.as_ref().map_or("the work tree".to_string(), |b| format!("what changed since {b}"));
    out.push_str(&match checked.violations.len() {
        0 => format!(
            "{scope} keeps to {} guard(s) of {} record(s){}\n",
            checked.guards,
            checked.records,
            match checked.warnings.len() {
                0 => String::new(),
                n => format!("; {n} warning(s) from proposed records"),
            }
        ),
        n => format!("{n} violation(s) in {scope}\n"),
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn violation(n: usize) -> Violation {
        Violation {
            record: GuardingRecord {
                path: "docs/adr/0001-x.md".into(),
                number: Some(1),
                title: "X".into(),
                status: "accepted".into(),
            },
            guard: "forbid path *.sql".into(),
            found: Found::Path { path: format!("db/{n}.sql") },
        }
    }

    #[test]
    fn a_comment_lists_the_first_places_and_counts_the_rest() {
        let mut checked = GuardCheck {
            base: None,
            records: 1,
            guards: 1,
            violations: (0..60).map(violation).collect(),
            warnings: Vec::new(),
            notes: Vec::new(),
            exit_code: 1,
        };
        let body = comment(&checked).unwrap();
        assert_eq!(body.matches("`forbid path *.sql`").count(), COMMENT_ITEMS);
        assert!(body.contains("- and 10 more\n") && !body.contains("Proposed"), "{body}");
        checked.violations.clear();
        assert_eq!(comment(&checked), None, "nothing to say: no comment");
    }

    #[test]
    fn a_record_is_numbered_by_its_file_name_when_it_is() {
        assert_eq!(number_of("docs/adr/0003-use-postgres.md"), Some(3));
        assert_eq!(number_of("docs/decisions/2026-12-08-use-postgres.md"), None);
        assert_eq!(number_of("docs/decisions/use-postgres.md"), None);
    }
}
