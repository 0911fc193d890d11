//! Earlier records this debate's record supersedes (`--supersedes`): each one's status,
//! in every place it states it, becomes "superseded by" a link to the new record, with
//! a line of status history, in the same commit as the new record. A record with
//! uncommitted changes is refused rather than committed along.

use crate::text::markdown;
use std::path::{Path, PathBuf};

use git2::Repository;

use crate::model::DebateState;
use crate::record::seal::{Act, Sealer, reseal};
use crate::record::{RecordError, Result, WorkTree, lifecycle::status, render::links, write::git};

/// An earlier record as the commit leaves it.
pub struct Superseded {
    /// Relative to the repository root.
    pub relative: PathBuf,
    pub content: Vec<u8>,
}

/// Whether an earlier record can be marked superseded as it is now: it states a status
/// debate can rewrite and, when the mark is to be committed on this branch, has no
/// changes of its own that are not committed. Checked before a debate starts.
pub fn check(root: &Path, relative: &Path, committed: bool) -> Result<()> {
    let repo = crate::repo::open(root)?.filter(|_| committed);
    let target = repo.as_ref().map(|_| git::Target::Head);
    marked(root, relative, repo.as_ref(), target.as_ref(), "superseded", None, None).map(drop)
}

/// The earlier records `state` supersedes, marked superseded by the record at `record`
/// (relative to the root), on the debate's date and by the git identity's name in their
/// history. `committed_to` is where the commit goes, if one is made: the mark is then
/// made on the record as committed at HEAD. A record debate sealed is sealed again by
/// `sealer`, its signatures kept.
pub fn changes(
    state: &DebateState,
    record: &Path,
    repo: Option<&Repository>,
    committed_to: Option<&git::Target>,
    sealer: &Sealer,
) -> Result<Vec<Superseded>> {
    let root = Path::new(&state.repo_root);
    // The link's text is the new record's file name without `.md`: log4brains reads a
    // record's `superseded by` as that slug.
    let slug = record.file_stem().map(|stem| markdown::link_text(&stem.to_string_lossy())).unwrap_or_default();
    let (date, by) = (crate::record::date_of(state), crate::repo::user_name(repo));
    let entry = status::Entry { date: &date, by: by.as_deref() };
    state
        .snapshot
        .supersedes
        .iter()
        .map(|earlier| {
            let relative = PathBuf::from(&earlier.path);
            let directory = earlier.path.rsplit_once('/').map_or("", |(directory, _)| directory);
            let link = links::relative(directory, &record.to_string_lossy());
            let status = format!("superseded by [{slug}]({link})");
            let content = marked(root, &relative, repo, committed_to, &status, Some(entry), Some(sealer))?;
            Ok(Superseded { relative, content })
        })
        .collect()
}

/// The record at `relative` with `status` (and, given an `entry`, the change in its
/// history). Without a commit the file as it is now is marked; with one, the file as
/// HEAD has it, and on the checked-out branch the file must not differ from that
/// (beyond this very mark). With a `sealer`, a record debate sealed is sealed again.
fn marked(
    root: &Path,
    relative: &Path,
    repo: Option<&Repository>,
    committed_to: Option<&git::Target>,
    status: &str,
    entry: Option<status::Entry>,
    sealer: Option<&Sealer>,
) -> Result<Vec<u8>> {
    let path = root.join(relative);
    let on_disk = WorkTree::open(root)?.read_existing(relative)?;
    let at_head = repo.filter(|_| committed_to.is_some()).and_then(|repo| git::read_at_head(repo, relative));
    let base = at_head.as_ref().unwrap_or(&on_disk);
    let mark = |bytes: &[u8]| {
        let text = String::from_utf8(bytes.to_vec()).map_err(|_| RecordError::NoStatus(path.clone()))?;
        let marked = match entry {
            Some(entry) => status::transition(&text, status, entry),
            None => status::set(&text, status),
        };
        marked.map(String::into_bytes).ok_or_else(|| RecordError::NoStatus(path.clone()))
    };
    let content = match (mark(base)?, sealer) {
        (content, Some(sealer)) => reseal(root, relative, content, Act::Superseded, sealer)?.0,
        (content, None) => content,
    };
    let unchanged = git::same_content(&on_disk, base) || git::same_content(&on_disk, &content);
    if committed_to == Some(&git::Target::Head) && !unchanged {
        return Err(RecordError::Modified(path));
    }
    Ok(content)
}

/// Write the marked records into the work tree, each whole or not at all.
pub fn write(root: &Path, superseded: &[Superseded]) -> Result<()> {
    for change in superseded {
        let tree = WorkTree::open(root)?;
        if tree.read(&change.relative)?.is_some_and(|now| now == change.content) {
            continue;
        }
        tree.replace(&change.relative, &change.content)?;
    }
    Ok(())
}
