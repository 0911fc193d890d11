//! What the user hands a command as text: the question (argument, file or stdin) and
//! the `--context` files, checked (UTF-8, not binary, not huge) and with every secret
//! masked before anything stores, sends or writes them.

use std::io::Read;
use std::path::Path;

use crate::app::invocation::request::QuestionSource;
use crate::error::{Error, Result};
use crate::terminal::Terminal;
use crate::text::secrets::{self, Masker};

/// Largest question (or objection) we accept, from any source.
const MAX_QUESTION_BYTES: usize = crate::model::bounds::MOST_SAID_BYTES;
/// Largest `--context` file.
pub const MAX_CONTEXT_BYTES: usize = 256 * 1024;

/// The question: UTF-8 text, not empty, not binary, not huge.
pub fn read_question(source: &QuestionSource) -> Result<String> {
    read_given(source, "question", "ask a question with a decision in it, e.g. \"Redis or Postgres for caching?\"")
}

/// A reviewer's objection (`--guide`, `--guide-file`), checked as a question is.
pub fn read_objection(source: &QuestionSource) -> Result<String> {
    read_given(source, "objection", "--guide \"Reviewer: what about operating cost?\"")
}

/// A search's query, checked as a question is.
pub fn read_query(query: &str) -> Result<String> {
    read_given(&QuestionSource::Text(query.to_string()), "query", "debate search \"caching\"")
}

/// Text the user gives as an argument, a file or stdin: UTF-8, not empty, not binary,
/// not huge; `noun` names it in errors, `example` is the hint when it is empty.
fn read_given(source: &QuestionSource, noun: &str, example: &str) -> Result<String> {
    let (bytes, origin) = match source {
        QuestionSource::Text(q) => (q.clone().into_bytes(), format!("the {noun}")),
        QuestionSource::Stdin => (read_limited(std::io::stdin().lock(), "stdin")?, format!("the {noun} on stdin")),
        QuestionSource::File(path) => {
            let file = open_regular(path)
                .map_err(|err| Error::input(format!("cannot read the {noun} file {}: {err}", path.display())))?;
            (read_limited(file, &path.display().to_string())?, format!("the {noun} file {}", path.display()))
        }
    };
    let text = checked_text(bytes, &origin, MAX_QUESTION_BYTES)?;
    let given = text.trim().to_string();
    // Zero-width spaces, controls and bidi marks alone are no question either.
    if !crate::text::untrusted::shows_anything(&given) {
        return Err(Error::input(format!("{origin} is empty")).with_hint(example));
    }
    Ok(given)
}

/// A file the debaters may read, whole (the budget cuts it later).
pub fn read_text_file(path: &Path, origin: &str) -> Result<String> {
    let file = open_regular(path).map_err(|err| Error::input(format!("cannot read {origin}: {err}")))?;
    checked_text(read_limited(file, origin)?, origin, MAX_CONTEXT_BYTES)
}

/// A `--context` file (or MCP's `context`): refused by its name — as given, and as the
/// file it leads to — when it may hold secrets or is git's own, then read as any text file.
pub fn read_context_file(path: &Path) -> Result<String> {
    let origin = format!("the context file {}", path.display());
    let target = path.canonicalize().ok();
    if let Some(why) = crate::context::refused(path).or_else(|| target.as_deref().and_then(crate::context::refused)) {
        return Err(Error::input(format!("{origin} is refused: {why}"))
            .with_hint("pass the project's code and documents; a secret stays out of every prompt"));
    }
    read_text_file(path, &origin)
}

/// `path` opened for reading only when it is a regular file: a FIFO or a device would
/// block or never end, so it is opened without waiting and refused.
fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
    let file = crate::platform::files::open_for_reading(path)?;
    match file.metadata()?.is_file() {
        true => Ok(file),
        false => Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "it is not a regular file")),
    }
}

fn read_limited(reader: impl Read, origin: &str) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader
        .take(MAX_CONTEXT_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|err| Error::input(format!("cannot read {origin}: {err}")))?;
    Ok(bytes)
}

fn checked_text(bytes: Vec<u8>, origin: &str, limit: usize) -> Result<String> {
    if bytes.len() > limit {
        return Err(Error::input(format!("{origin} is larger than {} KiB", limit / 1024))
            .with_hint("shorten it; put background material in a --context file"));
    }
    if bytes.contains(&0) {
        return Err(
            Error::input(format!("{origin} looks binary (it contains NUL bytes)")).with_hint("pass a UTF-8 text file")
        );
    }
    String::from_utf8(bytes)
        .map_err(|_| Error::input(format!("{origin} is not valid UTF-8")).with_hint("convert it to UTF-8"))
}

/// `text` with every known key and everything shaped like a credential masked, and a
/// warning for each kind found: nothing of it is stored, sent or written.
pub fn without_secrets(text: &str, origin: &str, keys: &Masker, terminal: &Terminal) -> String {
    let (masked, found) = secrets::scrub(text, keys);
    for what in found {
        warn_masked(origin, &what, terminal);
    }
    masked
}

pub fn warn_masked(origin: &str, what: &str, terminal: &Terminal) {
    terminal.warn(&secrets::masked_warning(origin, what));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_is_trimmed_and_must_say_something() {
        let read = |q: &str| read_question(&QuestionSource::Text(q.into()));
        assert_eq!(read("  Redis or Postgres?\n").unwrap(), "Redis or Postgres?");
        assert_eq!(read(" \n ").unwrap_err().to_string(), "the question is empty");
        let invisible = read("\u{200b}\u{202e}\u{feff}\u{7}").unwrap_err();
        assert_eq!((invisible.to_string().as_str(), invisible.exit_code()), ("the question is empty", 2));
        assert!(read_objection(&QuestionSource::Text("\u{200b}\u{200c}".into())).is_err());
        assert!(read(&"x".repeat(MAX_QUESTION_BYTES + 1)).unwrap_err().to_string().contains("larger than 16 KiB"));
    }

    #[test]
    fn binary_and_non_utf8_text_are_refused() {
        assert!(checked_text(vec![b'a', 0], "f", 10).unwrap_err().to_string().contains("binary"));
        assert!(checked_text(vec![0xff], "f", 10).unwrap_err().to_string().contains("UTF-8"));
    }

    #[test]
    fn a_missing_question_file_is_named() {
        let err = read_question(&QuestionSource::File("/nonexistent/q.txt".into())).unwrap_err();
        assert!(err.to_string().starts_with("cannot read the question file /nonexistent/q.txt"), "{err}");
        assert_eq!(err.exit_code(), 2);
    }
}
