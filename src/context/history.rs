//! The repository's history in three numbers: commits, contributors (counted, never
//! named) and the date of the oldest commit.

use std::collections::HashSet;
use std::path::Path;

use git2::Repository;

use crate::model::History;

/// How far back the history is read (about 25 ms on 2 cores); a longer one is marked
/// partial, and its figures are lower bounds.
const MAX_COMMITS: u32 = 5_000;

pub fn read(root: &Path) -> Option<History> {
    let repo = Repository::open(root).ok()?;
    let mut walk = repo.revwalk().ok()?;
    walk.push_head().ok()?;
    let mut authors: HashSet<Vec<u8>> = HashSet::new();
    let (mut commits, mut oldest, mut partial) = (0u32, i64::MAX, false);
    for oid in walk.flatten() {
        if commits == MAX_COMMITS {
            partial = true;
            break;
        }
        let Ok(commit) = repo.find_commit(oid) else { continue };
        commits += 1;
        authors.insert(commit.author().email_bytes().to_ascii_lowercase());
        oldest = oldest.min(commit.time().seconds());
    }
    let since = chrono::DateTime::from_timestamp(oldest, 0)?.format("%Y-%m-%d").to_string();
    Some(History { commits, contributors: authors.len() as u32, since, partial })
}
