//! A path as a `file:` URI spells it, made a path of this system.

use std::path::PathBuf;

/// The path of a `file:` URI from its percent-decoded path part: `/C:/Users/me/repo`
/// is `C:\Users\me\repo` (RFC 8089, appendix E.2). The bytes must be UTF-8, as a URI's
/// are; a path with no drive names no directory here.
pub fn from_uri(decoded: Vec<u8>) -> Option<PathBuf> {
    let text = String::from_utf8(decoded).ok()?;
    let rest = text.strip_prefix('/')?;
    let bytes = rest.as_bytes();
    let drive = bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
    let rooted = bytes.get(2) == Some(&b'/');
    (drive && rooted).then(|| PathBuf::from(rest.replace('/', "\\")))
}
