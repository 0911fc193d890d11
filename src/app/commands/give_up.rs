//! `--abandon` and `--delete`: a debate given up stays listed as failed; a deleted one
//! leaves the state database. A record already in the repository is never touched.

use std::path::Path;

use crate::app::shared::existing;
use crate::error::{Error, Result};
use crate::model::Status;
use crate::terminal::Terminal;

/// `--abandon` (listed as failed from now on) or `--delete` (gone from the database).
/// A record already in the repository is never touched.
pub fn run(db_path: &Path, input: &str, delete: bool, terminal: &Terminal) -> Result<()> {
    let (store, state) = existing::load(db_path, input)?;
    let id = &state.id;
    if delete && !names_whole(input, id) {
        return Err(Error::input(format!("--delete needs a debate's whole id; {input:?} is only the start of {id}"))
            .with_hint(format!("`debate delete {id}`")));
    }
    if !delete && state.status == Status::Complete {
        return Err(Error::input(format!("{id} is complete: there is nothing to abandon"))
            .with_hint(format!("`debate delete {id}` removes it from the state database (its record stays)")));
    }
    // Not while another process drives it.
    let lease = store.acquire(id)?;
    if delete {
        store.delete(id)?;
        drop(lease);
        let record = state.record_path.map(|p| format!("; its record {p} stays as it is")).unwrap_or_default();
        terminal.say(&format!("Deleted {id} from the state database{record}."));
    } else {
        store.set_status(id, Status::Failed)?;
        drop(lease);
        terminal.say(&format!(
            "Abandoned {id}: it is listed as failed. `debate resume {id}` takes it up again; `debate delete {id}` removes it."
        ));
    }
    Ok(())
}

/// `input` is all of `id`, with or without `DEB-`, in any case: deleting takes no
/// prefix, as abandoning does.
fn names_whole(input: &str, id: &str) -> bool {
    let (input, id) = (input.trim().to_lowercase(), id.to_lowercase());
    input == id || format!("deb-{input}") == id
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delete_takes_the_whole_id_only() {
        for whole in ["DEB-0ym064", "deb-0ym064", "0ym064", " 0YM064 "] {
            assert!(names_whole(whole, "DEB-0ym064"), "{whole}");
        }
        for part in ["0ym", "DEB-0ym06", "deb-", ""] {
            assert!(!names_whole(part, "DEB-0ym064"), "{part}");
        }
    }
}
