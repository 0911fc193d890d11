//! A path as a `file:` URI spells it, made a path of this system.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::PathBuf;

/// The path of a `file:` URI from its percent-decoded path part (`/home/me/repo`): its
/// bytes as they are, which is what a Unix path is.
pub fn from_uri(decoded: Vec<u8>) -> Option<PathBuf> {
    Some(PathBuf::from(OsString::from_vec(decoded)))
}
