//! Alternatives that are things: "Redis or Postgres", "in Redis or in Postgres", "React,
//! Vue, or Svelte", "between X and Y"; and keeping what exists where a question implies it.

use super::reading::Reading;
use super::words::{
    ARTICLES, BETWEEN, KEEP, LEAVING, LIST_JOINERS, MEANS, OPTION_WORDS, PREPOSITIONS, PROPOSING, ROLE_NOUNS, STOPS,
    describes, is_connector, is_left_boundary, is_name, is_right_boundary, is_word, phrase,
};
use crate::moderator::analysis::lexicon::KEEPING;

/// Names joined by the connector at `at`: "Redis or Postgres", "React, Vue, or Svelte",
/// "in Redis or in Postgres", "Kafka, or is Postgres enough?"; keeping what exists
/// added where the question implies it (`kept`).
pub(super) fn names(tokens: &[String], at: usize) -> Option<Reading> {
    let mut found = left_of(tokens, at);
    found.extend(right_of(tokens, at));
    if found.len() < 2 {
        return None;
    }
    share_noun(&mut found, tokens, at);
    let kept = kept(tokens, &found);
    Some(Reading::of(found, kept))
}

/// Comma-separated options before the connector at `at`, up to a boundary word. A
/// boundary word written as a name right before a comma or the connector is an option
/// itself ("Go or Rust"); a preposition every alternative repeats is passed over ("in
/// Redis, in Memcached or in Postgres").
pub(super) fn left_of(tokens: &[String], at: usize) -> Vec<String> {
    let shared = tokens.get(at + 1).map(|t| t.to_lowercase()).filter(|t| PREPOSITIONS.contains(&t.as_str()));
    let mut items: Vec<Vec<&str>> = vec![Vec::new()];
    for i in (0..at).rev() {
        let (token, low) = (&tokens[i], tokens[i].to_lowercase());
        if shared.as_deref() == Some(low.as_str()) && i > 0 && tokens[i - 1] == "," {
            continue;
        }
        let item_len = items.last().map_or(0, Vec::len);
        let capitalised = token.starts_with(char::is_uppercase);
        let before_name = items.last().and_then(|item| item.last()).is_some_and(|next| is_name(next));
        let boundary = match item_len {
            0 => is_left_boundary(&low) && !capitalised,
            _ => is_left_boundary(&low) || (ROLE_NOUNS.contains(&low.as_str()) && before_name),
        };
        if token == "," {
            items.push(Vec::new());
        } else if STOPS.contains(&token.as_str()) || boundary || item_len >= OPTION_WORDS {
            break;
        } else if let Some(item) = items.last_mut() {
            item.push(token);
        }
    }
    items.into_iter().rev().map(|mut item| phrase(item.drain(..).rev())).filter(|item| !item.is_empty()).collect()
}

/// Options after the connector: one, and more while another connector follows ("A or
/// B or C", "A or B, or C").
pub(super) fn right_of(tokens: &[String], connector: usize) -> Vec<String> {
    let ends_item = |i: usize| {
        let token = tokens[i].as_str();
        token == "," || STOPS.contains(&token) || is_right_boundary(token) || is_connector(tokens, i)
    };
    let mut found = Vec::new();
    let mut at = connector + 1;
    loop {
        at = item_start(tokens, at);
        let mut len = (at..tokens.len()).take_while(|&i| !ends_item(i)).take(OPTION_WORDS).count();
        // "or is Postgres good enough?"
        if len > 1 && is_word(tokens, at + len, "enough") && is_word(tokens, at + len - 1, "good") {
            len -= 1;
        }
        if len == 0 {
            return found;
        }
        found.push(phrase(tokens[at..at + len].iter().map(String::as_str)));
        at += len;
        if tokens.get(at).is_some_and(|t| t == ",") {
            at += 1;
        }
        match at < tokens.len() && is_connector(tokens, at) {
            true => at += 1,
            false => return found,
        }
    }
}

/// Where a name after a connector starts: past a repeated asking word ("or *is* Postgres
/// enough?"), a narrowing adverb and the preposition the alternatives share ("or *only
/// for* admins") and an article.
pub(super) fn item_start(tokens: &[String], mut at: usize) -> usize {
    for skipped in [&["is", "are"][..], &["only", "just"], PREPOSITIONS, ARTICLES] {
        if tokens.get(at).is_some_and(|t| skipped.contains(&t.to_lowercase().as_str())) {
            at += 1;
        }
    }
    at
}

/// "Blue-green or canary deployments", "self-hosted or managed Kafka": a lone qualifier
/// before the connector describes the same thing as the other option, so it gets that
/// option's noun ("blue-green deployments"). A capital opening the question says nothing,
/// so there only a joined word counts ("Self-hosted", not "Memcached").
pub(super) fn share_noun(found: &mut [String], tokens: &[String], at: usize) {
    let [left, right] = found else { return };
    let Some((first, noun)) = right.split_once(' ') else { return };
    let opens_sentence = at < 2 || STOPS.contains(&tokens[at - 2].as_str());
    let lowercase = |w: &str| w.starts_with(|c: char| c.is_lowercase());
    let qualifier = describes(left) && (lowercase(left) || (opens_sentence && left.contains('-')));
    if !left.contains(' ') && qualifier && lowercase(first) {
        *left = format!("{left} {noun}");
    }
}

/// "Between X, Y and Z", with no connector to say the alternatives are elsewhere.
pub(super) fn between(tokens: &[String]) -> Option<Reading> {
    let at = tokens.iter().position(|t| BETWEEN.contains(&t.to_lowercase().as_str()))?;
    let found = split_list(&tokens[at + 1..]);
    (found.len() >= 2).then(|| Reading::of(found, None))
}

/// Items of a list like "X, Y and Z" up to the first boundary, without their articles.
pub(super) fn split_list(tokens: &[String]) -> Vec<String> {
    let mut items: Vec<Vec<&str>> = vec![Vec::new()];
    for token in tokens {
        let low = token.to_lowercase();
        let item = items.last_mut().expect("a list has an item");
        if token == "," || LIST_JOINERS.contains(&low.as_str()) {
            items.push(Vec::new());
        } else if STOPS.contains(&token.as_str()) || is_right_boundary(&low) {
            break;
        } else if !(item.is_empty() && ARTICLES.contains(&low.as_str())) {
            item.push(token);
        }
    }
    items.into_iter().map(|item| phrase(item.into_iter())).filter(|item| !item.is_empty()).collect()
}

/// Keeping what exists, when the question implies it and names it nowhere among
/// `named`: the change it proposes may be made one of several ways, or not at all
/// ("Should mini-redis persist data with an append-only file or periodic snapshots?"),
/// and what a move leaves stays a way ("Should we migrate from MySQL to Postgres or
/// CockroachDB?": keep MySQL).
pub(super) fn kept(tokens: &[String], named: &[String]) -> Option<String> {
    let lower: Vec<String> = tokens.iter().map(|t| t.to_lowercase()).collect();
    let keeps = |option: &String| {
        let first = option.split_whitespace().next().unwrap_or("").to_lowercase();
        KEEPING.contains(&first.as_str()) || option.eq_ignore_ascii_case(KEEP)
    };
    if named.len() < 2 || named.iter().any(keeps) {
        return None;
    }
    let first_option = named[0].split_whitespace().next()?;
    let at = tokens.iter().position(|t| t == first_option)?;
    let before = &lower[..at];
    // "from X to": what is left.
    if let Some(from) = before.iter().rposition(|w| w == "from")
        && before[..from].iter().any(|w| LEAVING.contains(&w.as_str()))
        && let Some(to) = before[from..].iter().position(|w| w == "to").map(|i| from + i)
        && (2..=OPTION_WORDS + 1).contains(&(to - from))
    {
        return Some(format!("Keep {}", phrase(tokens[from + 1..to].iter().map(String::as_str))));
    }
    // "should X <do something> with A or B": or not do it.
    let proposes = before.first().is_some_and(|w| PROPOSING.contains(&w.as_str()));
    let means = before.iter().rev().take(3).any(|w| MEANS.contains(&w.as_str()));
    (proposes && means).then(|| KEEP.to_string())
}
