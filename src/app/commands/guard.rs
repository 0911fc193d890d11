//! `debate guard list|add|drop|change|review-by ID|PATH …`: a decision's guards (and its
//! review date) changed by a person — the record written again from the debate with the
//! change, sealed and signed again (the act `guarded`), and committed alone, so a guard
//! is never changed by hand (`debate verify` fails a hand edit of one).

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::app::invocation::request::{GuardChange, GuardRequest};
use crate::app::shared::existing;
use crate::error::{Error, Result};
use crate::model::{DebateState, Guard, LAYOUT, Outcome, Status, is_day};
use crate::record::{self, Templates, lifecycle::amend::Amendment};
use crate::repo::Here;
use crate::settings;
use crate::terminal::{self, Terminal};

/// A record's guards as `debate guard … --json` prints them.
#[derive(Debug, Serialize)]
struct Guards {
    id: String,
    record: Option<String>,
    guards: Vec<String>,
    review_by: Option<String>,
    /// The commit that holds the change, when one was made and committed.
    commit: Option<String>,
}

pub fn run(request: &GuardRequest, db_path: &Path, json: bool, terminal: &Terminal) -> Result<()> {
    let here = Here::WorkingDirectory;
    let (store, state, imported) = existing::find(db_path, &request.target, request.config.as_deref(), &here)?;
    if let Some(imported) = imported {
        terminal.say(&imported.said(&state.id));
    }
    let outcome = match (&state.outcome, state.status) {
        (Some(outcome), Status::Complete) => outcome,
        _ => {
            return Err(Error::input(format!(
                "{} is {}: it has no decision to guard yet",
                state.id,
                state.status.as_str()
            ))
            .with_hint(format!("finish it with `debate resume {}` first", state.id)));
        }
    };
    let mut commit = None;
    let changed = match &request.change {
        GuardChange::List => None,
        change => changed(outcome, change)?,
    };
    let shown = match changed {
        None => state.clone(),
        Some((after, said)) => {
            existing::here(&state, &here)?;
            existing::record_in_work_tree(&state, "debate guard changes")?;
            let root = PathBuf::from(&state.repo_root);
            let loaded = settings::load(&root, request.config.as_deref())?;
            let templates = Templates::load(&root)?;
            // The record and the debate as they are once no other command writes them.
            let _lock = record::CommitLock::at(&root)?;
            let mut amended = store.load(&state.id)?;
            record::lifecycle::amend::check_writable(&amended, &templates)?;
            amended.outcome = Some(after);
            let sealer = record::seal::Sealer::new(&root, loaded.settings.signing.key.clone());
            let amendment = Amendment::Guards(said.clone());
            let written =
                record::lifecycle::amend::amend(&amended, &amendment, &templates, &sealer, &loaded.settings.record)?;
            store.save_amended_outcome(&state.id, amended.outcome.as_ref().expect("just set"))?;
            for warning in &written.warnings {
                terminal.warn(warning);
            }
            let path = written.path.strip_prefix(&root).unwrap_or(&written.path).display().to_string();
            terminal.say(&match (&written.commit, &written.not_committed) {
                (Some(id), _) => format!("{said}: {path} written again and committed as {}.", &id[..id.len().min(10)]),
                (None, why) => format!(
                    "{said}: {path} written again; not committed ({}).",
                    why.as_deref().unwrap_or("committing is off")
                ),
            });
            commit = written.commit;
            amended
        }
    };
    let guards = of(&shown, commit);
    match json {
        true => terminal::print_json(&guards)?,
        false => terminal::print_out(&listed(&guards))?,
    }
    Ok(())
}

/// The outcome with `change` made, and the change in a line; `None` when it changes
/// nothing (the guard is there already).
fn changed(outcome: &Outcome, change: &GuardChange) -> Result<Option<(Outcome, String)>> {
    let mut guards: Vec<Guard> = outcome.synthesis.guards();
    let said = match change {
        GuardChange::List => return Ok(None),
        GuardChange::Add(text) => {
            let guard = parsed(text)?;
            if guards.contains(&guard) {
                return Ok(None);
            }
            guards.push(guard.clone());
            format!("add `{guard}`")
        }
        GuardChange::Drop(text) => {
            let at = position(&guards, text)?;
            format!("drop `{}`", guards.remove(at))
        }
        GuardChange::Change { old, new } => {
            let at = position(&guards, old)?;
            let new = parsed(new)?;
            let said = format!("change `{}` to `{new}`", guards[at]);
            // Changed into one it already has: that one stays, once.
            match guards.contains(&new) {
                true => drop(guards.remove(at)),
                false => guards[at] = new,
            }
            said
        }
        GuardChange::ReviewBy(day) => {
            let day = day.trim();
            let set = match day.eq_ignore_ascii_case("none") {
                true => None,
                false if is_day(day) => Some(day.to_string()),
                false => {
                    return Err(Error::input(format!("{day:?} is no day: the review date is YYYY-MM-DD, or none"))
                        .with_hint("debate guard review-by ID 2027-06-30"));
                }
            };
            let before = outcome.synthesis.more.get("review_by").and_then(Value::as_str);
            if before == set.as_deref() {
                return Ok(None);
            }
            let mut after = outcome.clone();
            let said = match &set {
                Some(day) => format!("review by {day}"),
                None => "no review date".to_string(),
            };
            match set {
                Some(day) => after.synthesis.more.insert("review_by".into(), day.into()),
                None => after.synthesis.more.remove("review_by"),
            };
            after.layout = after.layout.max(LAYOUT);
            return Ok(Some((after, said)));
        }
    };
    let mut after = outcome.clone();
    let written: Vec<String> = guards.iter().map(Guard::to_string).collect();
    after.synthesis.more.insert("guards".into(), written.into());
    // A record from before guards had a section for them gets one now.
    after.layout = after.layout.max(LAYOUT);
    Ok(Some((after, said)))
}

fn parsed(text: &str) -> Result<Guard> {
    text.parse::<Guard>().map_err(|why| {
        Error::input(why)
            .with_hint("debate guard add ID forbid dependency redis (or require dependency, forbid path GLOB)")
    })
}

/// Where a guard named as written, or by its number (from 1), is.
fn position(guards: &[Guard], named: &str) -> Result<usize> {
    let found = match named.trim().parse::<usize>() {
        Ok(n) => n.checked_sub(1).filter(|at| *at < guards.len()),
        Err(_) => named.parse::<Guard>().ok().and_then(|guard| guards.iter().position(|g| *g == guard)),
    };
    found.ok_or_else(|| {
        Error::input(format!("the record has no guard {named:?}"))
            .with_hint("`debate guard list ID` numbers the record's guards")
    })
}

fn of(state: &DebateState, commit: Option<String>) -> Guards {
    let synthesis = state.outcome.as_ref().map(|o| &o.synthesis);
    Guards {
        id: state.id.clone(),
        record: state.record_path.clone(),
        guards: synthesis.map(|s| s.guards().iter().map(Guard::to_string).collect()).unwrap_or_default(),
        review_by: synthesis.and_then(|s| s.more.get("review_by")?.as_str().map(str::to_string)),
        commit,
    }
}

fn listed(guards: &Guards) -> String {
    let mut out = String::new();
    for (n, guard) in guards.guards.iter().enumerate() {
        out.push_str(&format!("{:>3}  {guard}\n", n + 1));
    }
    if guards.guards.is_empty() {
        out.push_str(&format!("{} has no guards.\n", guards.id));
    }
    out.push_str(&match &guards.review_by {
        Some(day) => format!("Review by {day}.\n"),
        None => "No review date.\n".to_string(),
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fixture;

    fn outcome() -> Outcome {
        fixture::complete(1).outcome.unwrap()
    }

    #[test]
    fn a_change_says_what_it_did_and_changes_only_that() {
        let (after, said) = changed(&outcome(), &GuardChange::Add("forbid dependency redis".into())).unwrap().unwrap();
        assert_eq!(said, "add `forbid dependency redis`");
        assert_eq!(after.synthesis.guards(), [Guard::forbid_dependency("redis")]);
        assert!(changed(&after, &GuardChange::Add("Forbid dependency redis".into())).unwrap().is_none());
        let change = GuardChange::Change { old: "1".into(), new: "forbid dependency kafka".into() };
        let (after, said) = changed(&after, &change).unwrap().unwrap();
        assert_eq!(said, "change `forbid dependency redis` to `forbid dependency kafka`");
        let (twice, _) = changed(&after, &GuardChange::Add("forbid dependency mysql".into())).unwrap().unwrap();
        let into_one_there = GuardChange::Change { old: "1".into(), new: "forbid dependency mysql".into() };
        let (once, _) = changed(&twice, &into_one_there).unwrap().unwrap();
        assert_eq!(once.synthesis.guards(), [Guard::forbid_dependency("mysql")]);
        let (after, _) = changed(&after, &GuardChange::Drop("forbid dependency kafka".into())).unwrap().unwrap();
        assert!(after.synthesis.guards().is_empty());
        let (after, said) = changed(&after, &GuardChange::ReviewBy("2027-06-30".into())).unwrap().unwrap();
        assert_eq!(
            (said.as_str(), after.synthesis.more["review_by"].as_str()),
            ("review by 2027-06-30", Some("2027-06-30"))
        );
    }

    #[test]
    fn what_is_not_there_or_no_guard_is_refused() {
        for change in [
            GuardChange::Drop("forbid dependency redis".into()),
            GuardChange::Drop("3".into()),
            GuardChange::Add("run rm -rf".into()),
            GuardChange::ReviewBy("next spring".into()),
        ] {
            assert!(changed(&outcome(), &change).is_err(), "{change:?}");
        }
    }
}
