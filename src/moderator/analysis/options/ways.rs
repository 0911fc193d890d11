//! A question that names no alternatives: a change ("from A to B"), "is it worth …",
//! a proposal against keeping what we have, or yes and no.

use super::reading::Reading;
use super::words::{ASKING, KEEP, LEAVING, OPTION_WORDS, PHRASE_ENDS, PHRASE_WORDS, PRONOUNS, PROPOSING, verb};

/// Longest a proposal may be as an option.
pub(super) const PROPOSAL_CHARS: usize = 80;

/// A yes/no question's two ways: what it proposes against keeping what we have ("Should
/// we adopt X?"), or yes and no ("Is it safe to …?"). `None` for any other question.
pub(super) fn yes_no(question: &str) -> Option<Reading> {
    let words: Vec<&str> = last_clause(question).split_whitespace().collect();
    let first = words.first()?.trim_start_matches(['¿', '¡']).to_lowercase();
    if !ASKING.contains(&first.as_str()) {
        return None;
    }
    let proposes = PROPOSING.contains(&first.as_str())
        && words.get(1).is_some_and(|w| PRONOUNS.contains(&w.to_lowercase().as_str()))
        && words.len() > 2;
    Some(match proposes {
        true => proposed(&words[2..]),
        false => Reading::ways(vec!["Yes".to_string(), "No".to_string()]),
    })
}

/// "Is it worth rewriting the image resizer from Python to Rust?" ("is it worth it to …",
/// "would it be worth the effort to …"): doing it against keeping what is.
pub(super) fn worth(question: &str) -> Option<Reading> {
    let words: Vec<&str> = last_clause(question).split_whitespace().collect();
    let lower: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
    let at = lower.iter().position(|w| w == "worth" || w == "worthwhile")?;
    if !(ASKING.contains(&lower[0].as_str()) && lower[..at].iter().any(|w| w == "it")) {
        return None;
    }
    let said = |i: usize, among: &[&str]| lower.get(i).is_some_and(|w| among.contains(&w.as_str()));
    let mut start = at + 1;
    if said(start, &["it"]) {
        start += 1;
    } else if said(start, &["the", "our"]) && said(start + 1, &["effort", "cost", "time", "trouble", "money"]) {
        start += 2;
    }
    if said(start, &["to"]) {
        start += 1;
    }
    (start < words.len()).then(|| proposed(&words[start..]))
}

/// What a proposal — a verb and what it does — weighs: a change from one thing to
/// another (`change`), else the proposal ("Adopt event sourcing") against keeping what
/// we have.
pub(super) fn proposed(words: &[&str]) -> Reading {
    let base = verb(words[0]).unwrap_or_else(|| words[0].to_string());
    change(&base, &words[1..]).unwrap_or_else(|| {
        let all: Vec<&str> = std::iter::once(base.as_str()).chain(words[1..].iter().copied()).collect();
        Reading::ways(vec![proposal(&all), KEEP.to_string()])
    })
}

/// Verbs of a change that name what they leave first: "replace X *with* Y".
pub(super) const REPLACING: &[&str] = &["replace", "swap"];

/// Verbs whose change is made *in* the new thing: "rewrite it in Rust".
pub(super) const WRITING: &[&str] = &["rewrite", "write", "reimplement"];

/// A change from one thing to another, made against kept: "move the batch jobs from
/// on-demand instances to spot instances" → "Move them to spot instances" · "Keep
/// on-demand instances"; "replace release branches with trunk-based development" →
/// "Replace them with trunk-based development" · "Keep release branches". `None` for a
/// proposal of no such change.
pub(super) fn change(verb: &str, rest: &[&str]) -> Option<Reading> {
    let lower: Vec<String> = rest.iter().map(|w| w.to_lowercase()).collect();
    let (object, old, new) = if REPLACING.contains(&verb) {
        let with = lower.iter().position(|w| w == "with")?;
        (&rest[..with], &rest[..with], &rest[with + 1..])
    } else if LEAVING.contains(&verb) {
        let from = lower.iter().position(|w| w == "from")?;
        let to = from + lower[from..].iter().position(|w| w == "to")?;
        (&rest[..from], &rest[from + 1..to], &rest[to + 1..])
    } else {
        return None;
    };
    // What the change is for ("to save money", "for the reports") is no part of it.
    let end = new.iter().position(|w| w.eq_ignore_ascii_case("to") || PHRASE_ENDS.contains(&w.to_lowercase().as_str()));
    let new = &new[..end.unwrap_or(new.len())];
    if !(1..=OPTION_WORDS).contains(&old.len()) || !(1..=PHRASE_WORDS).contains(&new.len()) {
        return None;
    }
    let preposition = match (REPLACING.contains(&verb), WRITING.contains(&verb)) {
        (true, _) => "with",
        (false, true) => "in",
        (false, false) => "to",
    };
    // The thing changed is in the question: "it", or "them" for several.
    let pronoun = object.last().map(|w| if w.ends_with('s') && !w.ends_with("ss") { "them" } else { "it" });
    let made: Vec<&str> = [verb].into_iter().chain(pronoun).chain([preposition]).chain(new.iter().copied()).collect();
    let (old, new) = (old.join(" "), new.join(" "));
    Some(Reading { options: vec![proposal(&made), format!("Keep {old}")], named: vec![new, old], acting: false })
}

/// The question's last clause, where a yes/no question is put after a statement ("Our
/// bill doubled; should we move to spot instances?").
pub(super) fn last_clause(question: &str) -> &str {
    let question = question.trim().trim_end_matches(['?', '？', '!', '.', ' ']);
    let start = question.rfind([';', ':', '?', '!']).map_or(0, |i| i + 1);
    let start = question[start..].rfind(". ").map_or(start, |i| start + i + 2);
    question[start..].trim()
}

/// "adopt event sourcing for the order service" → "Adopt event sourcing for the order
/// service", cut at a word when it is long.
pub(super) fn proposal(words: &[&str]) -> String {
    let mut text = String::new();
    for word in words {
        if text.chars().count() + word.chars().count() + 1 > PROPOSAL_CHARS {
            break;
        }
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str(word);
    }
    let mut chars = text.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}
