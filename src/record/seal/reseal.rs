//! A record changed after debate wrote it — its status given, or marked superseded —
//! sealed again, so it still verifies and the signatures of the version before are
//! kept: the change's text is sealed with the transcript file beside it (read from the
//! work tree). A record debate did not write (no seal, no debate carried, no debate
//! id) is left as it is: its format is its own. A record whose status another tool or
//! a person changed since it was sealed is told (`status_changed`), to sign it again on
//! request.

use std::path::Path;

use crate::model::is_debate_id;
use crate::record::read::carried;
use crate::record::seal::block;
use crate::record::seal::make::{Act, seal};
use crate::record::seal::signer::Sealer;
use crate::record::{Result, WorkTree, render::sidecar_path};

/// `content`, the new text of the record at `relative` under `root` (its old seal still
/// at its end), sealed again for `act`; with what the user should hear about it.
pub fn reseal(
    root: &Path,
    relative: &Path,
    content: Vec<u8>,
    act: Act,
    sealer: &Sealer,
) -> Result<(Vec<u8>, Option<String>)> {
    let Ok(text) = String::from_utf8(content.clone()) else { return Ok((content, None)) };
    if !debates(&text) {
        return Ok((content, None));
    }
    let sidecar = match sidecar_path(relative) {
        Some(side) => WorkTree::open(root)?.read(&side)?.map(|bytes| String::from_utf8_lossy(&bytes).into_owned()),
        None => None,
    };
    let (sealed, warning) = seal(&text, sidecar.as_deref(), Some(&text), act, sealer);
    Ok((sealed.into_bytes(), warning))
}

/// Whether the record `text` at `relative` under `root` had its status changed since
/// it was sealed (by another ADR tool, or by hand) and nothing else: what signing it
/// again, as it is, vouches for.
pub fn status_changed(root: &Path, relative: &Path, text: &str) -> Result<bool> {
    let sidecar = match sidecar_path(relative) {
        Some(side) => WorkTree::open(root)?.read(&side)?.map(|bytes| String::from_utf8_lossy(&bytes).into_owned()),
        None => None,
    };
    let checked = super::check::check(text, sidecar.as_deref(), None, chrono::Utc::now());
    Ok(checked.is_some_and(|checked| checked.failures.is_empty() && !checked.lifecycle.is_empty()))
}

/// Whether `text` is a record debate wrote: sealed, carrying its debate, or with a
/// debate's id in its front matter.
fn debates(text: &str) -> bool {
    let text = text.replace("\r\n", "\n");
    let opened = block::open(&text);
    opened.seal.is_some()
        || text.lines().any(|line| carried::state_json(line).is_some())
        || crate::adr::read("", &text).and_then(|fields| fields.id).is_some_and(|id| is_debate_id(&id))
}
