//! Alternatives that are courses of action ("split billing out, or keep it as a
//! module?"), kept whole unless each only chooses a thing.

use super::reading::Reading;
use super::words::{
    ASKING, DETERMINERS, FOR_VERBS, OBJECT_PRONOUNS, OPTION_WORDS, PHRASE_ENDS, PHRASE_WORDS, PREPOSITIONS, PRONOUNS,
    STOPS, describes, is_connector, is_name, phrase, verb,
};
use crate::moderator::analysis::lexicon::{CHOOSING, KEEPING};

/// Courses of action joined by the connector at `at`, the first of its clause: "split
/// the billing service out of the monolith, or keep billing as a module?", "hire a
/// contractor or train our team?", a list of them ("keep one HashMap, shard the
/// keyspace across several locks, or give each shard its own task?"). The alternative
/// after the connector starts with a verb, or the list's middle ones are courses of
/// action themselves. Each is kept whole, unless every one only chooses a thing (`chosen`).
pub(super) fn actions(tokens: &[String], at: usize) -> Option<Reading> {
    let clause = tokens[..at].iter().rposition(|t| STOPS.contains(&t.as_str())).map_or(0, |i| i + 1);
    if (clause..at).any(|i| is_connector(tokens, i)) {
        return None;
    }
    let left = first_actions(tokens, clause, at);
    let right = later_actions(tokens, at);
    let listed = left.len() >= 2 && left[1..].iter().all(|item| is_action(item));
    if !(listed || right.first().is_some_and(|item| starts_with_verb(item))) {
        return None;
    }
    let all: Vec<&[String]> = left.into_iter().chain(right).collect();
    if all.len() < 2 || all.iter().any(|item| item.is_empty()) {
        return None;
    }
    if let Some(things) = all.iter().map(|item| chosen(item)).collect::<Option<Vec<_>>>() {
        return Some(Reading::of(things.concat(), None));
    }
    let whole = all.iter().all(|item| item.len() <= PHRASE_WORDS);
    let acts = all.iter().map(|item| action(item)).collect();
    whole.then(|| Reading { acting: true, ..Reading::of(acts, None) })
}

/// The first alternatives, from the start of the first course of action (`subject_end`)
/// to the connector: one, or a list whose later items are courses of action ("keep one
/// HashMap, shard the keyspace"), not names the first one's verb takes ("adopt
/// Terraform, Pulumi").
pub(super) fn first_actions(tokens: &[String], clause: usize, at: usize) -> Vec<&[String]> {
    let start = subject_end(tokens, clause, at);
    let end = if at > start && tokens[at - 1] == "," { at - 1 } else { at };
    let region = &tokens[start..end.max(start)];
    let items: Vec<&[String]> = region.split(|t| t == ",").collect();
    match items.len() >= 2 && items[1..].iter().all(|item| is_action(item)) {
        true => items.into_iter().map(without_purpose).collect(),
        false => vec![without_purpose(region)],
    }
}

/// A course of action without what it is for ("store card numbers ourselves *for a
/// second acquirer*"); a verb's own "for" stays ("pay for Datadog").
pub(super) fn without_purpose(item: &[String]) -> &[String] {
    let own_for = item.first().is_some_and(|verb| FOR_VERBS.contains(&verb.to_lowercase().as_str()));
    let end = (1..item.len())
        .filter(|&i| !(i == 1 && own_for))
        .find(|&i| PHRASE_ENDS.contains(&item[i].to_lowercase().as_str()));
    &item[..end.unwrap_or(item.len())]
}

/// The alternatives after the connector: each past its own asking words ("or *may we*
/// replicate it"), up to the next connector or the clause's end, without what it is for.
pub(super) fn later_actions(tokens: &[String], connector: usize) -> Vec<&[String]> {
    let mut found = Vec::new();
    let mut at = connector + 1;
    loop {
        at = past_asking(tokens, at);
        let ends = |i: &usize| STOPS.contains(&tokens[*i].as_str()) || is_connector(tokens, *i);
        let end = (at..tokens.len()).find(ends).unwrap_or(tokens.len());
        let item = &tokens[at..end.max(at)];
        found.push(without_purpose(item.strip_suffix(&[",".to_string()]).unwrap_or(item)));
        match end < tokens.len() && is_connector(tokens, end) {
            true => at = end + 1,
            false => return found,
        }
    }
}

/// Past an alternative's own asking words: "or *may we* replicate it", "or *should we*
/// stay on VMs", "or *just* use Postgres".
pub(super) fn past_asking(tokens: &[String], mut at: usize) -> usize {
    let low = |i: usize| tokens.get(i).map(|t| t.to_lowercase()).unwrap_or_default();
    if ASKING.contains(&low(at).as_str()) && PRONOUNS.contains(&low(at + 1).as_str()) {
        at += 2;
    }
    if ["just", "simply"].contains(&low(at).as_str()) && tokens.get(at + 1).is_some_and(|t| verb(t).is_some()) {
        at += 1;
    }
    at
}

/// Where the first course of action starts in a clause that asks: after the asking
/// word and who is asked — a pronoun ("Should we"), else the words up to the first verb
/// ("Should EU customers' data stay", "Is it worth moving"). The clause's start when it
/// does not ask.
pub(super) fn subject_end(tokens: &[String], clause: usize, at: usize) -> usize {
    let low = |i: usize| tokens[i].to_lowercase();
    if clause + 1 >= at || !ASKING.contains(&low(clause).as_str()) {
        return clause;
    }
    if PRONOUNS.contains(&low(clause + 1).as_str()) {
        return clause + 2;
    }
    (clause + 1..at).take(OPTION_WORDS + 1).find(|&i| verb(&tokens[i]).is_some()).unwrap_or(clause + 2)
}

/// Whether a course of action starts here: with a verb, not a name that is one too
/// ("Rust or Go?").
pub(super) fn starts_with_verb(item: &[String]) -> bool {
    item.first().is_some_and(|word| word.starts_with(char::is_lowercase) && verb(word).is_some())
}

/// A course of action of a list: it starts with a verb, or runs longer than a name.
pub(super) fn is_action(item: &[String]) -> bool {
    starts_with_verb(item) || item.len() > OPTION_WORDS
}

/// The things a course of action chooses, when that is all it does: "use Kafka" →
/// Kafka; "move our services to Kubernetes" → Kubernetes; "keep deploying them to VMs
/// with systemd" → VMs with systemd; what is kept by its name ("stay with hand-written
/// CloudFormation" → CloudFormation). With no verb known, the thing after a place ("cache
/// sessions in Elasticsearch") or the names as they are ("Terraform, Pulumi"). `None`
/// for anything else ("keep them with Stripe", "split the monolith").
pub(super) fn chosen(item: &[String]) -> Option<Vec<String>> {
    // A capitalised word alone is a name, even one that is a verb too ("Go, or stay with …").
    let verb = match item {
        [word, rest @ ..] if is_name(word) && rest.first().is_none_or(|w| w == ",") => None,
        _ => verb(item.first()?),
    };
    let (rest, verb) = match verb.as_deref() {
        None => (item, ""),
        Some(verb) if CHOOSING.contains(&verb) => (&item[1..], verb),
        Some(_) => return None,
    };
    let object = object(verb, rest)?;
    match KEEPING.contains(&verb) {
        true => short_names(by_name(object)),
        false => short_names(object),
    }
}

/// The thing a choosing `verb` takes in the words after it: past the verbs that go on
/// from it ("keep *deploying* them to"), the thing after a place ("to Kubernetes", "in
/// Postgres") or after "stay with", else its object; without whose it is ("our") or what
/// it is for ("between the web app and the workers"). `None` for "it" or "them", which
/// only point back into the question.
pub(super) fn object<'a>(verb: &str, words: &'a [String]) -> Option<&'a [String]> {
    let gerunds = words.iter().take_while(|w| w.to_lowercase().ends_with("ing") && self::verb(w).is_some()).count();
    let words = &words[gerunds..];
    let lower: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
    let with = ["stay", "stick", "go"].contains(&verb) && lower.first().is_some_and(|w| w == "with");
    let place = lower.iter().position(|w| ["to", "onto", "into", "on", "in"].contains(&w.as_str()));
    let object = match (with, place) {
        (true, _) => &words[1..],
        (false, Some(place)) => &words[place + 1..],
        (false, None) if lower.first().is_some_and(|w| OBJECT_PRONOUNS.contains(&w.as_str())) => return None,
        (false, None) => words,
    };
    let object = &object[object.iter().take_while(|w| DETERMINERS.contains(&w.to_lowercase().as_str())).count()..];
    object.split(|w| w.eq_ignore_ascii_case("between")).next()
}

/// A thing kept, by its name: "hand-written CloudFormation" → CloudFormation (how it is
/// used today is not another option); anything else as it is.
pub(super) fn by_name(words: &[String]) -> &[String] {
    let qualifiers = words.iter().take_while(|w| w.starts_with(char::is_lowercase) && describes(w)).count();
    match words.get(qualifiers).is_some_and(|w| w.starts_with(char::is_uppercase)) {
        true => &words[qualifiers..],
        false => words,
    }
}

/// The names of a comma list, each short enough to be one and without the preposition
/// it repeats ("in Redis, in Memcached"); `None` otherwise.
pub(super) fn short_names(words: &[String]) -> Option<Vec<String>> {
    let repeated = |name: &[String]| name.first().is_some_and(|w| PREPOSITIONS.contains(&w.to_lowercase().as_str()));
    words
        .split(|w| w == ",")
        .map(|name| if repeated(name) { &name[1..] } else { name })
        .map(|name| (1..=OPTION_WORDS).contains(&name.len()).then(|| phrase(name.iter().map(String::as_str))))
        .collect::<Option<Vec<_>>>()
        .filter(|names| !names.is_empty())
}

/// A course of action as an option: its words, without a last "inside it" that only
/// points back into the question.
pub(super) fn action(item: &[String]) -> String {
    let words = match item {
        [rest @ .., preposition, pronoun]
            if !rest.is_empty()
                && PREPOSITIONS.contains(&preposition.to_lowercase().as_str())
                && OBJECT_PRONOUNS.contains(&pronoun.to_lowercase().as_str()) =>
        {
            rest
        }
        _ => item,
    };
    phrase(words.iter().map(String::as_str))
}
