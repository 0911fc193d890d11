//! The debate a record carries, so any clone can show, review and answer it: everything
//! the engine goes on from, as one HTML comment line at the end of the transcript
//! (invisible on GitHub), with every argument and rebuttal read from the transcript
//! itself — each one's text between two comment lines — never a second copy of them.
//!
//! Nothing that points elsewhere travels: no provider definition (a record could send a
//! key to a server of its choosing), no path of the machine that ran it, not the project
//! text the debaters read (its sources are listed). A record read back is trusted only
//! when rendering it again gives the file as it is (`read_back`), and its texts only
//! when they are the ones the line's digest was taken of. Pure.

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use thiserror::Error;

use super::markdown;
use crate::model::{DebateState, Status};

const STATE: &str = "<!-- debate:state ";
const END: &str = " -->";
const TEXT: &str = "<!-- debate:text -->";
const TEXT_END: &str = "<!-- /debate:text -->";

/// Why a record cannot be read back as its debate.
#[derive(Debug, Error, PartialEq)]
pub enum CarryError {
    #[error("it carries no debate (written before records did, or by hand)")]
    Missing,
    #[error("it carries its debate more than once")]
    Twice,
    #[error("its debate cannot be read: {0}")]
    Unreadable(String),
    #[error("its transcript holds {found} arguments and rebuttals where the debate had {expected}")]
    Texts { found: usize, expected: usize },
    #[error("its arguments and rebuttals are not the ones the debate wrote")]
    TextsEdited,
}

/// What the line holds: the debate without its texts, and the digest of the texts as
/// the transcript shows them, which an edit of any of them changes.
#[derive(Serialize, Deserialize)]
struct Carried {
    texts: String,
    debate: DebateState,
}

/// The line that carries `state`, as ASCII JSON (`ascii`).
pub fn block(state: &DebateState) -> String {
    let mut debate = without_what_stays_home(state.clone());
    let rendered: Vec<String> =
        debate.rounds.iter().flat_map(|r| r.contributions()).map(|c| rendered(&c.text)).collect();
    for contribution in debate.rounds.iter_mut().flat_map(|r| r.arguments.iter_mut().chain(r.rebuttals.iter_mut())) {
        contribution.text.clear();
    }
    // Discarded arguments were never part of the debate and the record shows only their count.
    for (_, contribution) in &mut debate.discarded {
        contribution.text.clear();
    }
    let json = serde_json::to_string(&Carried { texts: digest(&rendered), debate }).unwrap_or_default();
    format!("{STATE}{}{END}", ascii(&json))
}

/// JSON with every character but printable ASCII, and `<`, `>` and `&`, as `\u` escapes:
/// nothing in it can end the comment, open markup, or reorder or hide text on a page
/// or a terminal (bidi overrides, controls). Outside its strings JSON is ASCII already.
fn ascii(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if matches!(c, ' '..='~') && !matches!(c, '<' | '>' | '&') {
            out.push(c);
        } else {
            for unit in c.encode_utf16(&mut [0; 2]) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    out
}

/// A contribution's text as the transcript shows it.
fn rendered(text: &str) -> String {
    markdown::block(text)
}

fn digest(texts: &[String]) -> String {
    let mut hash = Sha256::new();
    for text in texts {
        hash.update(text.as_bytes());
        hash.update([0]);
    }
    hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// `state` without what belongs to the machine that ran it: provider definitions (where
/// a key would be sent), its paths and branch, and the text it read from files there.
/// Applied when the record is written and again when it is read, so a record written by
/// hand cannot bring them either.
fn without_what_stays_home(mut state: DebateState) -> DebateState {
    // Written while it is being recorded, read back as what it then is.
    state.status = Status::Complete;
    state.snapshot.providers.clear();
    state.snapshot.project.text.clear();
    state.snapshot.branch = None;
    for file in &mut state.snapshot.context {
        file.text.clear();
    }
    state.repo_root.clear();
    state.record_path = None;
    state.commit_id = None;
    state
}

/// A contribution's text as the transcript shows it, between the lines that let it be
/// read back.
pub fn marked(text: &str) -> String {
    format!("{TEXT}\n{}\n{TEXT_END}", rendered(text))
}

/// The debate `transcript` (the record, or its sidecar transcript) carries, with each
/// contribution's text as the transcript renders it.
pub fn read(transcript: &str) -> Result<DebateState, CarryError> {
    let mut lines = transcript.lines().filter_map(|line| line.strip_prefix(STATE)?.strip_suffix(END));
    let json = lines.next().ok_or(CarryError::Missing)?;
    if lines.next().is_some() {
        return Err(CarryError::Twice);
    }
    let carried: Carried = serde_json::from_str(json).map_err(|err| CarryError::Unreadable(err.to_string()))?;
    let mut state = without_what_stays_home(carried.debate);
    let texts = texts(transcript);
    let slots: Vec<&mut String> = state
        .rounds
        .iter_mut()
        .flat_map(|r| r.arguments.iter_mut().chain(r.rebuttals.iter_mut()))
        .map(|c| &mut c.text)
        .collect();
    if slots.len() != texts.len() {
        return Err(CarryError::Texts { found: texts.len(), expected: slots.len() });
    }
    if digest(&texts) != carried.texts {
        return Err(CarryError::TextsEdited);
    }
    for (slot, text) in slots.into_iter().zip(texts) {
        *slot = text;
    }
    Ok(state)
}

/// Every marked text, in order.
fn texts(transcript: &str) -> Vec<String> {
    static MARKED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(&format!(r"(?ms)^{}\n(.*?)\n{}$", regex::escape(TEXT), regex::escape(TEXT_END)))
            .expect("a valid pattern")
    });
    MARKED.captures_iter(transcript).map(|c| c[1].to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fixture;

    #[test]
    fn a_state_travels_without_its_texts_providers_or_paths_and_comes_back_with_them() {
        let mut state = fixture::complete(2);
        state.question = "Redis \u{202e}or\u{202c} Postgres — <b>&</b> 🚀?".into();
        state.snapshot.project.text = "the whole project".into();
        state.repo_root = "/home/alice/shop".into();
        let line = block(&state);
        assert!(!line.contains("/home/alice") && !line.contains("the whole project"), "{line}");
        assert!(
            line[STATE.len()..line.len() - END.len()].chars().all(|c| matches!(c, ' '..='~') && !"<>&".contains(c))
        );
        let transcript: String = state
            .rounds
            .iter()
            .flat_map(|r| r.contributions())
            .map(|c| format!("**{}**\n\n{}\n\n", c.seat, marked(&c.text)))
            .chain([line])
            .collect();
        let read = read(&transcript).unwrap();
        let texts = |s: &DebateState| -> Vec<String> {
            s.rounds.iter().flat_map(|r| r.contributions()).map(|c| c.text.clone()).collect()
        };
        assert_eq!(texts(&read), texts(&state));
        assert_eq!(read.question, state.question);
        assert!(read.snapshot.providers.is_empty() && read.repo_root.is_empty() && read.record_path.is_none());
        assert!(read.snapshot.project.text.is_empty() && read.snapshot.branch.is_none());
        assert_eq!(read.outcome.map(|o| o.synthesis), state.outcome.map(|o| o.synthesis));
    }

    #[test]
    fn a_record_without_its_debate_or_with_it_twice_or_short_of_texts_says_so() {
        let state = fixture::complete(1);
        let line = block(&state);
        assert!(matches!(read("# A record\n"), Err(CarryError::Missing)));
        assert!(matches!(read(&format!("{line}\n{line}\n")), Err(CarryError::Twice)));
        assert!(matches!(read(&format!("{STATE}{{not json{END}\n")), Err(CarryError::Unreadable(_))));
        let expected = state.rounds.iter().flat_map(|r| r.contributions()).count();
        let short = read(&format!("{}\n{line}\n", marked("only one")));
        assert!(matches!(short, Err(CarryError::Texts { found: 1, expected: e }) if e == expected), "{short:?}");
    }

    #[test]
    fn a_hand_written_state_cannot_bring_a_provider_a_path_or_a_branch() {
        let state = fixture::complete(1);
        let line = block(&state);
        let mut json: serde_json::Value = serde_json::from_str(&line[STATE.len()..line.len() - END.len()]).unwrap();
        json["debate"]["snapshot"]["providers"] = serde_json::json!({
            "openai": { "kind": "openai", "base_url": "https://collector.example/v1", "api_key_env": "OPENAI_API_KEY",
                        "key_in_settings": false, "model": null, "script": null, "max_retries": null,
                        "max_concurrency": null, "timeout_seconds": null, "token_parameter": null }
        });
        json["debate"]["snapshot"]["branch"] = "main".into();
        json["debate"]["repo_root"] = "/etc".into();
        json["debate"]["record_path"] = "/etc/passwd".into();
        let texts: String =
            state.rounds.iter().flat_map(|r| r.contributions()).map(|c| marked(&c.text) + "\n").collect();
        let hostile = format!("{texts}{STATE}{json}{END}\n");
        let read = read(&hostile).unwrap();
        assert!(read.snapshot.providers.is_empty(), "{:?}", read.snapshot.providers);
        assert!(read.snapshot.branch.is_none() && read.repo_root.is_empty() && read.record_path.is_none());
    }

    #[test]
    fn an_argument_edited_in_the_transcript_is_told_apart() {
        let state = fixture::complete(1);
        let transcript: String =
            state.rounds.iter().flat_map(|r| r.contributions()).map(|c| marked(&c.text) + "\n").collect::<String>()
                + &block(&state);
        assert!(read(&transcript).is_ok());
        let first = &state.rounds[0].arguments[0].text;
        let edited = transcript.replacen(first.as_str(), "Redis, because I say so.", 1);
        assert!(matches!(read(&edited), Err(CarryError::TextsEdited)));
    }
}
