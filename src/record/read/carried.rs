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

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use thiserror::Error;

use crate::model::{DebateState, Status, Usage, is_debate_id};
use crate::text::markdown;

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
    /// Each text's lines, so a text that quotes the marks (in a code block) is read whole.
    lines: Vec<usize>,
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
    let lines = rendered.iter().map(|text| text.split('\n').count()).collect();
    let json = serde_json::to_string(&Carried { texts: digest(&rendered), lines, debate }).unwrap_or_default();
    format!("{STATE}{}{END}", ascii(&json))
}

/// JSON with every character but printable ASCII, and `<`, `>` and `&`, as `\u` escapes:
/// nothing in it can end the comment, open markup, or reorder or hide text on a page
/// or a terminal (bidi overrides, controls). Outside its strings JSON is ASCII already.
pub(crate) fn ascii(json: &str) -> String {
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
/// a key would be sent), its paths and branch, the text it read from files there, and
/// evaluations never written into the record.
/// Applied when the record is written and again when it is read, so a record written by
/// hand cannot bring them either.
fn without_what_stays_home(mut state: DebateState) -> DebateState {
    // Written while it is being recorded, read back as what it then is.
    state.status = Status::Complete;
    // The model each role asked for travels in the role, not in the provider that stays:
    // the record names it, and a clone must render the same name (not the dated one a
    // server answered with).
    let snapshot = &mut state.snapshot;
    for role in [&mut snapshot.moderator, &mut snapshot.debater].into_iter().chain(&mut snapshot.seat_models) {
        if role.model.is_none() {
            role.model = snapshot.providers.get(&role.provider).and_then(|p| p.model.clone());
        }
    }
    let prices = snapshot.providers.values().flat_map(|p| p.prices.clone());
    snapshot.prices.extend(prices.collect::<Vec<_>>());
    state.snapshot.providers.clear();
    state.snapshot.project.text.clear();
    state.snapshot.branch = None;
    for file in &mut state.snapshot.context {
        file.text.clear();
    }
    state.repo_root.clear();
    state.record_path = None;
    state.commit_id = None;
    // The scores its record shows (now or before a review), not every evaluation run here.
    state.scorecards.retain(|card| card.written);
    state
}

/// The JSON of the line that carries a debate, if `line` is one.
pub fn state_json(line: &str) -> Option<&str> {
    line.strip_prefix(STATE).and_then(|l| l.strip_suffix(END))
}

/// A contribution's text as the transcript shows it, between the lines that let it be
/// read back.
pub fn marked(text: &str) -> String {
    format!("{TEXT}\n{}\n{TEXT_END}", rendered(text))
}

/// The debate `transcript` (the record, or its sidecar transcript) carries, with each
/// contribution's text as the transcript renders it.
pub fn read(transcript: &str) -> Result<DebateState, CarryError> {
    // A clone that checks files out with CRLF (Git for Windows) reads what was written.
    let transcript = transcript.replace("\r\n", "\n");
    let lines: Vec<&str> = transcript.lines().collect();
    let state_line = |line: &str| state_json(line).is_some();
    // The line is written last: one a text quotes comes before it.
    let at = lines.iter().rposition(|line| state_line(line)).ok_or(CarryError::Missing)?;
    let json = &lines[at][STATE.len()..lines[at].len() - END.len()];
    let carried: Carried = serde_json::from_str(json).map_err(|err| CarryError::Unreadable(err.to_string()))?;
    let mut state = without_what_stays_home(carried.debate);
    whole(&state).map_err(CarryError::Unreadable)?;
    let (texts, outside) = texts(&lines[..at], &carried.lines);
    if outside.iter().any(|line| state_line(line)) {
        return Err(CarryError::Twice);
    }
    let slots: Vec<&mut String> = state
        .rounds
        .iter_mut()
        .flat_map(|r| r.arguments.iter_mut().chain(r.rebuttals.iter_mut()))
        .map(|c| &mut c.text)
        .collect();
    if slots.len() != texts.len() || carried.lines.len() != texts.len() {
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

/// A debate the engine can go on from: its id in debate's form, a panel of two to four,
/// rounds numbered from 1, and every seat a round, a contribution or a discarded
/// argument names on that panel. A line edited by hand is read by nothing else first.
fn whole(state: &DebateState) -> Result<(), String> {
    if !is_debate_id(&state.id) {
        return Err(format!("{:?} is no debate id", state.id));
    }
    let json = serde_json::to_value(state).map_err(|err| err.to_string())?;
    if let Some(number) = out_of_range(&json) {
        return Err(format!("it holds {number}, a number no debate has (counts go up to {})", Usage::LIMIT));
    }
    if let Some(length) = longest_list(&json).filter(|length| *length > LONGEST_LIST) {
        return Err(format!("it holds a list of {length} items, more than any debate has ({LONGEST_LIST})"));
    }
    once_each(state)?;
    let seats = state.panel.len();
    if !(2..=4).contains(&seats) {
        return Err(format!("a panel of {seats}"));
    }
    for (at, round) in state.rounds.iter().enumerate() {
        if round.number as usize != at + 1 {
            return Err(format!("round {} where round {} belongs", round.number, at + 1));
        }
        if round.seats.iter().chain(round.contributions().map(|c| &c.seat)).any(|seat| *seat >= seats) {
            return Err(format!("round {} names a seat the panel of {seats} does not have", round.number));
        }
    }
    if state.discarded.iter().any(|(round, c)| c.seat >= seats || *round == 0) {
        return Err("a discarded argument names a seat or round the debate does not have".into());
    }
    for earlier in &state.snapshot.supersedes {
        if !a_record_path(&earlier.path, &state.snapshot.record.directory.0) {
            return Err(format!(
                "it names {:?} as a record it supersedes, which is no decision record's path",
                earlier.path
            ));
        }
    }
    Ok(())
}

/// The most items any list a debate carries may hold: far past what a debate of the
/// longest rounds, reviews and evaluations holds, far short of what could flood a store.
const LONGEST_LIST: usize = 500;

/// The length of the longest list anywhere in `json`.
fn longest_list(json: &serde_json::Value) -> Option<usize> {
    use serde_json::Value;
    match json {
        Value::Array(items) => items.iter().filter_map(longest_list).chain([items.len()]).max(),
        Value::Object(fields) => fields.values().filter_map(longest_list).max(),
        _ => None,
    }
}

/// Every element a debate holds once is there once: an evaluation by its number, a seat
/// by its perspective, a model's usage by its model, a file read or a record superseded
/// by its path, a seat's argument or rebuttal in a round, a discarded argument by its
/// round and seat. A line that repeats one (a scorecard a hundred times) is forged.
fn once_each(state: &DebateState) -> Result<(), String> {
    fn repeated<T: PartialEq>(items: impl Iterator<Item = T>) -> bool {
        let seen: Vec<T> = items.collect();
        seen.iter().enumerate().any(|(at, item)| seen[..at].contains(item))
    }
    let twice = |what: &str| Err(format!("it holds {what} twice"));
    if repeated(state.scorecards.iter().map(|card| card.number)) {
        return twice("an evaluation");
    }
    if repeated(state.panel.iter().map(|seat| seat.name())) {
        return twice("a seat's perspective");
    }
    if repeated(state.usage_by_model.iter().map(|(model, _)| model)) {
        return twice("a model's usage");
    }
    if repeated(state.snapshot.context.iter().map(|file| &file.path)) {
        return twice("a file it read");
    }
    if repeated(state.snapshot.supersedes.iter().map(|earlier| &earlier.path)) {
        return twice("a record it supersedes");
    }
    for round in &state.rounds {
        if repeated(round.seats.iter())
            || repeated(round.arguments.iter().map(|c| c.seat))
            || repeated(round.rebuttals.iter().map(|c| c.seat))
        {
            return twice(&format!("a seat of round {}", round.number));
        }
    }
    if repeated(state.discarded.iter().map(|(round, c)| (*round, c.seat))) {
        return twice("a discarded argument");
    }
    Ok(())
}

/// A number in `json` past what the store keeps of any figure, or negative: what a
/// hand-made line could bring to make the state's sums overflow.
fn out_of_range(json: &serde_json::Value) -> Option<&serde_json::Number> {
    use serde_json::Value;
    match json {
        Value::Number(n) => {
            let fits = n.as_u64().is_some_and(|n| n <= Usage::LIMIT)
                || n.as_f64().is_some_and(|f| (0.0..=Usage::LIMIT as f64).contains(&f));
            (!fits).then_some(n)
        }
        Value::Array(items) => items.iter().find_map(out_of_range),
        Value::Object(fields) => fields.values().find_map(out_of_range),
        _ => None,
    }
}

/// A path a record may carry for another record: relative, of plain names, none of them
/// a git directory, a markdown record in its directory or a directory records are kept in.
fn a_record_path(path: &str, directory: &str) -> bool {
    use std::path::{Component, Path};
    let path = Path::new(path);
    let plain = path.components().all(|c| match c {
        Component::Normal(name) => name.to_str().is_some_and(|name| !name.eq_ignore_ascii_case(".git")),
        _ => false,
    });
    let parent = path.parent().and_then(Path::to_str).unwrap_or_default();
    let in_records = std::iter::once(directory).chain(crate::adr::DECISION_DIRECTORIES.iter().copied()).any(|d| {
        let d = d.trim_end_matches('/');
        parent == d || parent.strip_prefix(d).is_some_and(|rest| rest.starts_with('/'))
    });
    let named = path.file_name().and_then(|n| n.to_str()).is_some_and(crate::adr::is_record_name);
    plain && in_records && named
}

/// Every marked text, in order, each as long as `lengths` says (a text that quotes a
/// mark is read whole), and the lines outside them. A text whose closing mark is not
/// where its length ends is not read, which leaves the count short.
fn texts<'a>(lines: &[&'a str], lengths: &[usize]) -> (Vec<String>, Vec<&'a str>) {
    let (mut texts, mut outside) = (Vec::new(), Vec::new());
    let mut at = 0;
    while at < lines.len() {
        let length = lengths.get(texts.len()).copied().unwrap_or(0);
        // A length the line claims is checked, never trusted: one past the end is no text.
        let end = (at + 1).checked_add(length).filter(|end| *end < lines.len());
        if let Some(end) = end.filter(|end| lines[at] == TEXT && lines[*end] == TEXT_END) {
            texts.push(lines[at + 1..end].join("\n"));
            at = end + 1;
        } else {
            outside.push(lines[at]);
            at += 1;
        }
    }
    (texts, outside)
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

    #[test]
    fn a_state_that_names_a_seat_the_panel_lacks_is_unreadable_not_a_crash() {
        let state = fixture::complete(1);
        let texts: String =
            state.rounds.iter().flat_map(|r| r.contributions()).map(|c| marked(&c.text) + "\n").collect();
        let hostile = |change: &dyn Fn(&mut DebateState)| {
            let mut changed = state.clone();
            change(&mut changed);
            read(&format!("{texts}{}\n", block(&changed)))
        };
        assert!(hostile(&|_| {}).is_ok());
        for (what, change) in [
            ("seat", &(|s: &mut DebateState| s.rounds[0].seats.push(7)) as &dyn Fn(&mut DebateState)),
            ("contribution", &|s: &mut DebateState| s.rounds[0].arguments[0].seat = 9),
            ("round number", &|s: &mut DebateState| s.rounds[0].number = 4),
            ("panel", &|s: &mut DebateState| s.panel.truncate(1)),
            ("id", &|s: &mut DebateState| s.id = "DEB-ab".into()),
            ("supersedes in .git", &|s: &mut DebateState| s.snapshot.supersedes = vec![earlier(".git/x.md")]),
            ("supersedes outside", &|s: &mut DebateState| {
                s.snapshot.supersedes = vec![earlier("../x/docs/decisions/a.md")]
            }),
            ("supersedes a source file", &|s: &mut DebateState| s.snapshot.supersedes = vec![earlier("src/main.rs")]),
            ("supersedes off the records", &|s: &mut DebateState| {
                s.snapshot.supersedes = vec![earlier("notes/0001-keep.md")]
            }),
        ] {
            assert!(matches!(hostile(change), Err(CarryError::Unreadable(_))), "{what}");
        }
    }

    fn earlier(path: &str) -> crate::model::EarlierDecision {
        crate::model::EarlierDecision {
            path: path.into(),
            title: "Keep".into(),
            status: "accepted".into(),
            date: None,
            decision: String::new(),
            superseded_by: None,
        }
    }

    #[test]
    fn a_line_that_repeats_what_a_debate_holds_once_or_lists_past_any_bound_is_unreadable() {
        let state = fixture::complete(1);
        let texts: String =
            state.rounds.iter().flat_map(|r| r.contributions()).map(|c| marked(&c.text) + "\n").collect();
        let read_with = |change: &dyn Fn(&mut DebateState)| {
            let mut changed = state.clone();
            change(&mut changed);
            read(&format!("{texts}{}\n", block(&changed))).err()
        };
        let card = fixture::scorecard(true);
        assert_eq!(read_with(&|s| s.scorecards = vec![card.clone()]), None);
        let hundred = read_with(&|s| s.scorecards = vec![card.clone(); 100]);
        assert_eq!(hundred, Some(CarryError::Unreadable("it holds an evaluation twice".into())));
        let numbered = |n: u32| crate::model::Scorecard { number: n, ..card.clone() };
        let flood = read_with(&|s| s.scorecards = (1..=501).map(numbered).collect());
        assert!(matches!(flood, Some(CarryError::Unreadable(why)) if why.contains("list of 501 items")), "bounded");
        let usage = read_with(&|s| s.usage_by_model = vec![("m".into(), Default::default()); 2]);
        assert_eq!(usage, Some(CarryError::Unreadable("it holds a model's usage twice".into())));
        let seat = read_with(&|s| {
            let again = s.rounds[0].arguments[0].clone();
            s.rounds[0].arguments.push(again);
        });
        assert_eq!(seat, Some(CarryError::Unreadable("it holds a seat of round 1 twice".into())));
    }

    #[test]
    fn a_record_it_supersedes_is_a_record_in_a_decisions_directory() {
        for path in ["docs/decisions/0001-keep.md", "docs/decisions/old/0001-keep.md", "doc/adr/0002-x.md"] {
            assert!(a_record_path(path, "docs/decisions"), "{path}");
        }
        for path in
            ["docs/decisions/.git/x.md", "docs/decisions/README.md", "docs/decisionsx/a.md", "/docs/decisions/a.md"]
        {
            assert!(!a_record_path(path, "docs/decisions"), "{path}");
        }
        assert!(a_record_path("records/a.md", "records"));
    }

    #[test]
    fn a_record_checked_out_with_crlf_reads_as_written() {
        let state = fixture::complete(1);
        let texts: String =
            state.rounds.iter().flat_map(|r| r.contributions()).map(|c| marked(&c.text) + "\n").collect();
        let written = format!("{texts}{}\n", block(&state));
        assert!(read(&written.replace('\n', "\r\n")).is_ok());
    }

    #[test]
    fn a_text_that_quotes_the_marks_in_a_code_block_reads_back_whole() {
        let mut state = fixture::complete(1);
        let quoting =
            format!("The record marks its texts:\n\n```\n{TEXT_END}\n{TEXT}\n{STATE}{{}}{END}\n```\n\nAnd so on.");
        state.rounds[0].arguments[0].text = quoting;
        let texts: String =
            state.rounds.iter().flat_map(|r| r.contributions()).map(|c| marked(&c.text) + "\n").collect();
        let read = read(&format!("{texts}{}\n", block(&state))).unwrap();
        assert_eq!(read.rounds[0].arguments[0].text, rendered(&state.rounds[0].arguments[0].text));
        assert_eq!(read.rounds[0].rebuttals, state.rounds[0].rebuttals);
    }
}
