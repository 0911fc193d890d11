//! The options a question weighs, read as a reviewer reads the question — the names a
//! record lists under "Considered Options", never a clause of the question:
//!
//! - alternatives joined by "or", "vs", "versus" and commas ("A, B or C"), in English,
//!   German, French, Spanish, Italian and Portuguese, Japanese "XとYのどちら" and "XかYか",
//!   Chinese "X还是Y" and "X或Y"; "between A and B" when no "or" joins alternatives (with
//!   one, "between the order service and the inventory service" is what they are for);
//! - a preposition the alternatives share ("in Redis or in Postgres": Redis · Postgres),
//!   a qualifier that shares the other's noun ("blue-green or canary deployments"), "do we
//!   need X, or is Y enough?";
//! - courses of action ("split billing out, or keep it as a module?"), kept whole unless
//!   each only chooses a thing ("adopt Terraform, Pulumi or stay with hand-written
//!   CloudFormation?": Terraform · Pulumi · CloudFormation);
//! - a change: "from A to B or C" keeps A as a way; "is it worth rewriting X from A to B?"
//!   and "should we move X from A to B?" weigh making it against keeping A;
//! - a question with no alternatives: what it proposes against keeping what we have, or
//!   yes and no.

use super::lexicon::{CHOOSING, KEEPING, VERBS};
use super::terms::{is_cjk, is_hiragana};

/// What a question weighs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reading {
    /// The options, in the question's order, with keeping what exists where the question
    /// implies it.
    pub options: Vec<String>,
    /// The alternatives the question names itself: things ("Redis", "Python"), or
    /// courses of action it spells out.
    pub named: Vec<String>,
    /// `named` are courses of action ("hire a contractor"): see `names`.
    acting: bool,
}

impl Reading {
    fn of(named: Vec<String>, kept: Option<String>) -> Reading {
        Reading { options: named.iter().cloned().chain(kept).collect(), named, acting: false }
    }

    /// Two ways that name nothing of the question's: a proposal and keeping, or yes and no.
    fn ways(options: Vec<String>) -> Reading {
        Reading { options, ..Reading::default() }
    }

    /// The names of things among the alternatives: their words say what is chosen, not
    /// what the choice is about ("Redis or Postgres?" is no vote for what Redis is known
    /// for). A course of action's words are what it is about ("hire a contractor").
    pub fn names(&self) -> &[String] {
        match self.acting {
            true => &[],
            false => &self.named,
        }
    }
}

/// How `question` reads: the alternatives it names, or the two ways of one that names none.
pub fn read(question: &str) -> Reading {
    let cjk = cjk_options(question);
    if cjk.len() >= 2 {
        return Reading::of(cjk, None);
    }
    let tokens = tokens(question);
    alternatives(&tokens)
        .or_else(|| between(&tokens))
        .or_else(|| worth(question))
        .or_else(|| yes_no(question))
        .unwrap_or_default()
}

/// Words for "or" between two options.
const CONNECTORS: &[&str] = &["or", "vs", "vs.", "versus", "oder", "ou", "oppure", "ó"];
/// "Or" in Spanish and Italian, but an article in Portuguese ("tirar o serviço"): a
/// connector only next to a name, which has a capital letter or a digit ("REST o gRPC").
const NAME_CONNECTORS: &[&str] = &["o"];
/// Words that open a list of options joined by "and" or "or".
const BETWEEN: &[&str] = &["between", "zwischen", "entre", "tra", "fra"];
const LIST_JOINERS: &[&str] = &["and", "or", "und", "oder", "et", "ou", "y", "o", "e"];

/// Words that end an option on the left: pronouns, verbs of choosing, prepositions and
/// articles; in English, German, French, then Spanish, Portuguese and Italian.
#[rustfmt::skip]
const LEFT_BOUNDARIES: &[&[&str]] = &[
    &[
        "should", "shall", "would", "could", "can", "we", "i", "you", "they", "our", "use", "using", "choose", "pick",
        "adopt", "between", "is", "are", "be", "it", "do", "does", "for", "with", "of", "in", "on", "go", "prefer",
        "which", "what", "whether", "better", "keep", "stick", "switch", "move", "migrate", "to", "either", "via",
        "about", "hire", "write", "run", "store", "put", "try", "want", "need", "a", "an", "the", "through", "into",
        "onto", "over", "from", "by", "at",
    ],
    &[
        "wir", "sollen", "sollten", "können", "für", "mit", "nehmen", "verwenden", "nutzen", "benutzen", "einsetzen",
        "wählen", "ist", "sind", "der", "die", "das", "den", "dem", "ein", "eine", "einen",
    ],
    &[
        "nous", "faut-il", "utiliser", "choisir", "prendre", "adopter", "pour", "avec", "dans", "est", "sont", "le",
        "la", "les", "un", "une", "des",
    ],
    &[
        "usar", "utilizar", "elegir", "escoger", "escolher", "adotar", "adoptar", "usare", "scegliere", "para", "con",
        "com", "per", "en", "em", "es", "é", "è", "el", "los", "las", "os", "um", "uma", "il", "lo", "gli",
    ],
];
/// What an option is for ("the new backend Go or Kotlin"): ends an option on the left
/// before a name, unless it is the option's last word ("a Postgres database or MySQL");
/// before a word it qualifies it is part of the option ("a service mesh").
#[rustfmt::skip]
const ROLE_NOUNS: &[&str] = &[
    "backend", "frontend", "service", "app", "api", "database", "datastore", "platform", "stack", "language",
    "framework", "library", "tool", "server", "system", "datenbank", "sprache",
];
/// Words that end an option on the right; in English, German, then French, Spanish,
/// Portuguese and Italian. "Between" opens what the alternatives are for ("gRPC or REST
/// between the order service and …"), "enough" ends "or is Postgres enough?", "like"
/// an example ("a managed PaaS like Heroku").
#[rustfmt::skip]
const RIGHT_BOUNDARIES: &[&[&str]] = &[
    &[
        "for", "when", "given", "if", "because", "since", "as", "in", "with", "at", "before", "after", "while", "so",
        "and", "but", "now", "here", "there", "today", "to", "between", "enough", "like", "such",
    ],
    &[
        "für", "mit", "als", "wenn", "weil", "nehmen", "verwenden", "nutzen", "benutzen", "einsetzen", "wählen",
    ],
    &[
        "pour", "avec", "quand", "si", "dans", "sans", "para", "con", "cuando", "sin", "com", "quando", "se", "em",
        "sem", "per", "senza",
    ],
];
const STOPS: &[&str] = &["?", "!", ";", ":"];
/// Prepositions alternatives may each repeat ("in Redis or in Postgres").
#[rustfmt::skip]
const PREPOSITIONS: &[&str] = &[
    "in", "on", "with", "for", "through", "via", "to", "into", "onto", "over", "from", "at", "by", "using", "inside",
];
const ARTICLES: &[&str] = &["a", "an", "the"];
/// Words before a thing that say whose or which it is, not what it is.
const DETERMINERS: &[&str] = &["a", "an", "the", "our", "their", "my", "your", "its"];
/// Words that stand for something the question named before ("keep *them* with Stripe").
const OBJECT_PRONOUNS: &[&str] = &["it", "them", "this", "that", "these", "those"];

/// Most words an option has.
const OPTION_WORDS: usize = 4;
/// Most words a course of action has.
const PHRASE_WORDS: usize = 10;
/// Words that end a course of action on the right: what the choice is for.
const PHRASE_ENDS: &[&str] = &["for", "when", "given", "if", "because", "since", "while", "so", "but"];
/// Verbs whose object comes after "for" ("pay for Datadog", "go for Kafka").
const FOR_VERBS: &[&str] = &["pay", "go", "opt", "wait", "ask", "settle"];

/// The alternatives around the first connector that joins two.
fn alternatives(tokens: &[String]) -> Option<Reading> {
    (0..tokens.len())
        .filter(|&at| is_connector(tokens, at))
        .find_map(|at| actions(tokens, at).or_else(|| names(tokens, at)))
}

fn is_connector(tokens: &[String], at: usize) -> bool {
    let word = tokens[at].to_lowercase();
    let name_like = |t: Option<&String>| t.is_some_and(|t| is_name(t));
    CONNECTORS.contains(&word.as_str())
        || (NAME_CONNECTORS.contains(&word.as_str())
            && (name_like(at.checked_sub(1).map(|i| &tokens[i])) || name_like(tokens.get(at + 1))))
}

/// Whether a word is written as a name: a capital letter or a digit in it ("gRPC", "S3").
fn is_name(word: &str) -> bool {
    word.chars().any(|c| c.is_uppercase() || c.is_ascii_digit())
}

/// Names joined by the connector at `at`: "Redis or Postgres", "React, Vue, or Svelte",
/// "in Redis or in Postgres", "Kafka, or is Postgres enough?"; keeping what exists
/// added where the question implies it (`kept`).
fn names(tokens: &[String], at: usize) -> Option<Reading> {
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
fn left_of(tokens: &[String], at: usize) -> Vec<String> {
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
fn right_of(tokens: &[String], connector: usize) -> Vec<String> {
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
fn item_start(tokens: &[String], mut at: usize) -> usize {
    for skipped in [&["is", "are"][..], &["only", "just"], PREPOSITIONS, ARTICLES] {
        if tokens.get(at).is_some_and(|t| skipped.contains(&t.to_lowercase().as_str())) {
            at += 1;
        }
    }
    at
}

fn is_word(tokens: &[String], at: usize, word: &str) -> bool {
    tokens.get(at).is_some_and(|t| t.eq_ignore_ascii_case(word))
}

/// "Blue-green or canary deployments", "self-hosted or managed Kafka": a lone qualifier
/// before the connector describes the same thing as the other option, so it gets that
/// option's noun ("blue-green deployments"). A capital opening the question says nothing,
/// so there only a joined word counts ("Self-hosted", not "Memcached").
fn share_noun(found: &mut [String], tokens: &[String], at: usize) {
    let [left, right] = found else { return };
    let Some((first, noun)) = right.split_once(' ') else { return };
    let opens_sentence = at < 2 || STOPS.contains(&tokens[at - 2].as_str());
    let lowercase = |w: &str| w.starts_with(|c: char| c.is_lowercase());
    let qualifier = describes(left) && (lowercase(left) || (opens_sentence && left.contains('-')));
    if !left.contains(' ') && qualifier && lowercase(first) {
        *left = format!("{left} {noun}");
    }
}

/// Whether `word` is a qualifier by its form: joined ("blue-green") or with an
/// adjective's ending ("managed", "native").
fn describes(word: &str) -> bool {
    const ENDINGS: &[&str] = &["ed", "ous", "ive", "less", "ful", "able", "ible"];
    let word = word.to_lowercase();
    word.contains('-') || ENDINGS.iter().any(|ending| word.len() > ending.len() + 2 && word.ends_with(ending))
}

fn is_left_boundary(word: &str) -> bool {
    LEFT_BOUNDARIES.iter().any(|language| language.contains(&word))
}

fn is_right_boundary(token: &str) -> bool {
    let word = token.to_lowercase();
    RIGHT_BOUNDARIES.iter().any(|language| language.contains(&word.as_str()))
}

/// Courses of action joined by the connector at `at`, the first of its clause: "split
/// the billing service out of the monolith, or keep billing as a module?", "hire a
/// contractor or train our team?", a list of them ("keep one HashMap, shard the
/// keyspace across several locks, or give each shard its own task?"). The alternative
/// after the connector starts with a verb, or the list's middle ones are courses of
/// action themselves. Each is kept whole, unless every one only chooses a thing (`chosen`).
fn actions(tokens: &[String], at: usize) -> Option<Reading> {
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
fn first_actions(tokens: &[String], clause: usize, at: usize) -> Vec<&[String]> {
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
fn without_purpose(item: &[String]) -> &[String] {
    let own_for = item.first().is_some_and(|verb| FOR_VERBS.contains(&verb.to_lowercase().as_str()));
    let end = (1..item.len())
        .filter(|&i| !(i == 1 && own_for))
        .find(|&i| PHRASE_ENDS.contains(&item[i].to_lowercase().as_str()));
    &item[..end.unwrap_or(item.len())]
}

/// The alternatives after the connector: each past its own asking words ("or *may we*
/// replicate it"), up to the next connector or the clause's end, without what it is for.
fn later_actions(tokens: &[String], connector: usize) -> Vec<&[String]> {
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
fn past_asking(tokens: &[String], mut at: usize) -> usize {
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
fn subject_end(tokens: &[String], clause: usize, at: usize) -> usize {
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
fn starts_with_verb(item: &[String]) -> bool {
    item.first().is_some_and(|word| word.starts_with(char::is_lowercase) && verb(word).is_some())
}

/// A course of action of a list: it starts with a verb, or runs longer than a name.
fn is_action(item: &[String]) -> bool {
    starts_with_verb(item) || item.len() > OPTION_WORDS
}

/// The verb `word` is, in its base form ("rewriting" → "rewrite", "splitting" →
/// "split"), when it is one of `VERBS`.
fn verb(word: &str) -> Option<String> {
    let word = word.to_lowercase();
    if VERBS.contains(&word.as_str()) {
        return Some(word);
    }
    let stem = word.strip_suffix("ing")?;
    let undoubled = stem.char_indices().last().filter(|&(i, c)| stem[..i].ends_with(c)).map(|(i, _)| &stem[..i]);
    [Some(stem.to_string()), Some(format!("{stem}e")), undoubled.map(str::to_string)]
        .into_iter()
        .flatten()
        .find(|base| VERBS.contains(&base.as_str()))
}

/// The things a course of action chooses, when that is all it does: "use Kafka" →
/// Kafka; "move our services to Kubernetes" → Kubernetes; "keep deploying them to VMs
/// with systemd" → VMs with systemd; what is kept by its name ("stay with hand-written
/// CloudFormation" → CloudFormation). With no verb known, the thing after a place ("cache
/// sessions in Elasticsearch") or the names as they are ("Terraform, Pulumi"). `None`
/// for anything else ("keep them with Stripe", "split the monolith").
fn chosen(item: &[String]) -> Option<Vec<String>> {
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
fn object<'a>(verb: &str, words: &'a [String]) -> Option<&'a [String]> {
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
fn by_name(words: &[String]) -> &[String] {
    let qualifiers = words.iter().take_while(|w| w.starts_with(char::is_lowercase) && describes(w)).count();
    match words.get(qualifiers).is_some_and(|w| w.starts_with(char::is_uppercase)) {
        true => &words[qualifiers..],
        false => words,
    }
}

/// The names of a comma list, each short enough to be one and without the preposition
/// it repeats ("in Redis, in Memcached"); `None` otherwise.
fn short_names(words: &[String]) -> Option<Vec<String>> {
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
fn action(item: &[String]) -> String {
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

/// "Between X, Y and Z", with no connector to say the alternatives are elsewhere.
fn between(tokens: &[String]) -> Option<Reading> {
    let at = tokens.iter().position(|t| BETWEEN.contains(&t.to_lowercase().as_str()))?;
    let found = split_list(&tokens[at + 1..]);
    (found.len() >= 2).then(|| Reading::of(found, None))
}

/// Items of a list like "X, Y and Z" up to the first boundary, without their articles.
fn split_list(tokens: &[String]) -> Vec<String> {
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

/// Words joined by spaces, a comma kept against the word before it.
fn phrase<'a>(words: impl Iterator<Item = &'a str>) -> String {
    let mut text = String::new();
    for word in words {
        if !text.is_empty() && word != "," {
            text.push(' ');
        }
        text.push_str(word);
    }
    text
}

/// Words and punctuation marks of the question, original case.
fn tokens(question: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut word = String::new();
    for c in question.chars() {
        if c.is_alphanumeric() || matches!(c, '-' | '.' | '\'' | '+' | '#' | '/') {
            word.push(c);
            continue;
        }
        if !word.is_empty() {
            tokens.push(std::mem::take(&mut word));
        }
        if matches!(c, ',' | '?' | '!' | ';' | ':' | '？' | '！' | '；' | '：' | '、' | '，') {
            tokens.push(fullwidth_to_ascii(c).to_string());
        }
    }
    if !word.is_empty() {
        tokens.push(word);
    }
    // A sentence-final dot belongs to the sentence, not to the last option.
    tokens
        .into_iter()
        .map(|t| match t.len() > 1 && t.ends_with('.') && !t.eq_ignore_ascii_case("vs.") {
            true => t.trim_end_matches('.').to_string(),
            false => t,
        })
        .collect()
}

fn fullwidth_to_ascii(c: char) -> char {
    match c {
        '？' => '?',
        '！' => '!',
        '；' => ';',
        '：' => ':',
        '、' | '，' => ',',
        c => c,
    }
}

/// Japanese "XとYのどちら" (which of X and Y), "XかYか" (X or Y), Chinese "X还是Y" and
/// "X或Y". Words are not spaced, so an option is the run of one script (Latin, kana,
/// Han) that touches the connector, without the particles and verbs around it.
fn cjk_options(question: &str) -> Vec<String> {
    if !question.chars().any(is_cjk) {
        return Vec::new();
    }
    for marker in ["のどちら", "のどっち", "のどれ", "のいずれ"] {
        if let Some(end) = question.find(marker) {
            let items: Vec<&str> = question[..end].split(['と', '、']).collect();
            if let [first, rest @ ..] = items.as_slice()
                && !rest.is_empty()
            {
                let mut found = vec![tail(first)];
                found.extend(rest.iter().map(|item| item.trim().to_string()));
                return found.into_iter().filter(|item| !item.is_empty()).collect();
            }
        }
    }
    for connector in ["还是", "或者", "或", "か"] {
        let found = split_cjk(question, connector);
        if found.len() >= 2 {
            return found;
        }
    }
    Vec::new()
}

/// The options on both sides of the first CJK connector that stands between names
/// ("か" also ends every Japanese question, after a kana: "ですか").
fn split_cjk(question: &str, connector: &str) -> Vec<String> {
    for (at, _) in question.match_indices(connector) {
        let (before, after) = (&question[..at], &question[at + connector.len()..]);
        if after.starts_with('许') {
            continue; // 或许: "perhaps"
        }
        let (left, right) = (tail(before), head(after));
        if !left.is_empty() && !right.is_empty() {
            return vec![left, right];
        }
    }
    Vec::new()
}

/// Chinese verbs and particles that come before or after an option ("用Redis", "是单体").
const CHINESE_CUTS: &[char] =
    &['用', '是', '的', '在', '选', '要', '该', '把', '对', '给', '做', '为', '呢', '吗', '好'];

/// The writing systems an option may be written in; `Other` separates options.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Script {
    Other,
    Katakana,
    Han,
    Latin,
}

fn script(c: char) -> Script {
    match c {
        c if is_hiragana(c) || c.is_whitespace() || c.is_ascii_punctuation() || CHINESE_CUTS.contains(&c) => {
            Script::Other
        }
        c if is_cjk(c) && c as u32 >= 0x3400 => Script::Han,
        c if is_cjk(c) => Script::Katakana,
        c if c.is_alphanumeric() || matches!(c, '-' | '.' | '+' | '#') => Script::Latin,
        _ => Script::Other,
    }
}

/// The run of one script at the end of `text`.
fn tail(text: &str) -> String {
    let text = text.trim_end();
    let Some(last) = text.chars().last().map(script).filter(|&s| s != Script::Other) else { return String::new() };
    let run: Vec<char> = text.chars().rev().take_while(|&c| script(c) == last).collect();
    run.into_iter().rev().collect()
}

/// The run of one script at the start of `text`.
fn head(text: &str) -> String {
    let text = text.trim_start();
    let Some(first) = text.chars().next().map(script).filter(|&s| s != Script::Other) else { return String::new() };
    text.chars().take_while(|&c| script(c) == first).collect()
}

/// Verbs that, with a pronoun after them, put a proposal: "Should we adopt X?".
const PROPOSING: &[&str] = &["should", "shall", "can", "could", "must", "may", "might"];
const PRONOUNS: &[&str] = &["we", "i", "you", "they"];
/// Words that open a yes/no question, in each language the connectors cover.
#[rustfmt::skip]
const ASKING: &[&str] = &[
    "should", "shall", "can", "could", "must", "may", "might", "would", "will", "is", "are", "was", "were", "do",
    "does", "did", "has", "have", "sollen", "sollten", "soll", "sollte", "können", "könnten", "müssen", "brauchen",
    "ist", "sind", "faut-il", "doit-on", "devrions-nous", "devons-nous", "peut-on", "deberíamos", "debemos",
    "debería", "podemos", "devemos", "deveríamos", "dovremmo", "possiamo", "è",
];
/// The way of a yes/no question that changes nothing.
pub const KEEP: &str = "Keep what we have";
/// Longest a proposal may be as an option.
const PROPOSAL_CHARS: usize = 80;

/// A yes/no question's two ways: what it proposes against keeping what we have ("Should
/// we adopt X?"), or yes and no ("Is it safe to …?"). `None` for any other question.
fn yes_no(question: &str) -> Option<Reading> {
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
fn worth(question: &str) -> Option<Reading> {
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
fn proposed(words: &[&str]) -> Reading {
    let base = verb(words[0]).unwrap_or_else(|| words[0].to_string());
    change(&base, &words[1..]).unwrap_or_else(|| {
        let all: Vec<&str> = std::iter::once(base.as_str()).chain(words[1..].iter().copied()).collect();
        Reading::ways(vec![proposal(&all), KEEP.to_string()])
    })
}

/// Verbs of a change away from something: "migrate *from* X to Y or Z".
const LEAVING: &[&str] =
    &["migrate", "move", "switch", "leave", "go", "rewrite", "port", "convert", "upgrade", "change"];
/// Verbs of a change that name what they leave first: "replace X *with* Y".
const REPLACING: &[&str] = &["replace", "swap"];
/// Verbs whose change is made *in* the new thing: "rewrite it in Rust".
const WRITING: &[&str] = &["rewrite", "write", "reimplement"];

/// A change from one thing to another, made against kept: "move the batch jobs from
/// on-demand instances to spot instances" → "Move them to spot instances" · "Keep
/// on-demand instances"; "replace release branches with trunk-based development" →
/// "Replace them with trunk-based development" · "Keep release branches". `None` for a
/// proposal of no such change.
fn change(verb: &str, rest: &[&str]) -> Option<Reading> {
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
fn last_clause(question: &str) -> &str {
    let question = question.trim().trim_end_matches(['?', '？', '!', '.', ' ']);
    let start = question.rfind([';', ':', '?', '!']).map_or(0, |i| i + 1);
    let start = question[start..].rfind(". ").map_or(start, |i| start + i + 2);
    question[start..].trim()
}

/// Words that say how a proposed change would be made: "persist data *with* A or B".
const MEANS: &[&str] = &["with", "using", "via", "through"];

/// Keeping what exists, when the question implies it and names it nowhere among
/// `named`: the change it proposes may be made one of several ways, or not at all
/// ("Should mini-redis persist data with an append-only file or periodic snapshots?"),
/// and what a move leaves stays a way ("Should we migrate from MySQL to Postgres or
/// CockroachDB?": keep MySQL).
fn kept(tokens: &[String], named: &[String]) -> Option<String> {
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

/// "adopt event sourcing for the order service" → "Adopt event sourcing for the order
/// service", cut at a word when it is long.
fn proposal(words: &[&str]) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn options(question: &str) -> Vec<String> {
        read(question).options
    }

    #[test]
    fn the_issues_questions_read_as_a_reader_sees_them() {
        let table: [(&str, &[&str]); 5] = [
            ("Should we cache product pages in Redis or in Postgres?", &["Redis", "Postgres"]),
            ("Should we write the new CLI in Go or in Rust?", &["Go", "Rust"]),
            ("Should we use gRPC or REST between the order service and the inventory service?", &["gRPC", "REST"]),
            ("Is it worth rewriting the image resizer from Python to Rust?", &["rewrite it in Rust", "keep Python"]),
            (
                "Do we adopt Terraform, Pulumi or stay with hand-written CloudFormation?",
                &["Terraform", "Pulumi", "CloudFormation"],
            ),
        ];
        for (question, seen) in table {
            let read = options(question);
            let same = read.len() == seen.len() && read.iter().zip(seen).all(|(a, b)| a.eq_ignore_ascii_case(b));
            assert!(same, "{question}: {read:?}, a reader sees {seen:?}");
        }
    }

    #[test]
    fn binary_questions_name_two_options() {
        assert_eq!(options("Should we use Redis or Postgres for caching?"), ["Redis", "Postgres"]);
        assert_eq!(options("REST vs GraphQL for the public API"), ["REST", "GraphQL"]);
        assert_eq!(options("Monorepo versus polyrepo for our twelve services?"), ["Monorepo", "polyrepo"]);
        assert_eq!(options("Monolith or microservices?"), ["Monolith", "microservices"]);
        assert_eq!(options("Should we choose between Kafka and RabbitMQ?"), ["Kafka", "RabbitMQ"]);
        assert_eq!(options("Go or Rust?"), ["Go", "Rust"], "a boundary word next to the connector is an option");
        assert_eq!(options("Should we write the new ingestion service in Rust or Go?"), ["Rust", "Go"], "Go: a name");
        assert_eq!(
            options("Should we hire two senior engineers or four contractors to hit the deadline?"),
            ["two senior engineers", "four contractors"]
        );
        assert_eq!(options("Should our apps be native or Flutter?"), ["native", "Flutter"]);
        assert_eq!(
            options("Should we deploy on Kubernetes or a managed PaaS like Heroku?"),
            ["Kubernetes", "managed PaaS"]
        );
    }

    #[test]
    fn lists_name_every_option() {
        assert_eq!(options("Should we use React, Vue, or Svelte for the dashboard?"), ["React", "Vue", "Svelte"]);
        assert_eq!(options("GraphQL or REST or gRPC for internal calls?"), ["GraphQL", "REST", "gRPC"]);
        assert_eq!(options("Kafka vs Pulsar vs NATS?"), ["Kafka", "Pulsar", "NATS"]);
        assert_eq!(options("Kafka, Pulsar, or NATS, or SQS?"), ["Kafka", "Pulsar", "NATS", "SQS"]);
        assert_eq!(options("Which queue: Kafka, RabbitMQ or SQS?"), ["Kafka", "RabbitMQ", "SQS"]);
        assert_eq!(
            options("We're choosing between Datadog, Grafana Cloud and self-hosted Prometheus."),
            ["Datadog", "Grafana Cloud", "self-hosted Prometheus"]
        );
    }

    #[test]
    fn between_names_what_the_alternatives_are_for_when_an_or_joins_them() {
        assert_eq!(
            options("Kafka or RabbitMQ for the order events between checkout and fulfilment?"),
            ["Kafka", "RabbitMQ"]
        );
        assert_eq!(
            options("Should we use NATS JetStream or Kafka between the ingest workers and the indexer?"),
            ["NATS JetStream", "Kafka"]
        );
        assert_eq!(
            options(
                "We must choose between append-only Postgres tables and a dedicated event store for the audit log."
            ),
            ["append-only Postgres tables", "dedicated event store"],
            "with no 'or', between names the options"
        );
    }

    #[test]
    fn a_preposition_the_alternatives_share_is_no_part_of_them() {
        assert_eq!(
            options("Should the order service talk to the inventory service over gRPC or over REST?"),
            ["gRPC", "REST"]
        );
        assert_eq!(
            options("Should we cache sessions in Redis, in Memcached or in Postgres?"),
            ["Redis", "Memcached", "Postgres"]
        );
        assert_eq!(
            options("Should we store uploaded files on S3 or on our own MinIO cluster?"),
            ["S3", "our own MinIO cluster"]
        );
        assert_eq!(options("Should we require MFA for every login or only for admins?"), ["every login", "admins"]);
    }

    #[test]
    fn a_lone_qualifier_shares_the_other_options_noun() {
        assert_eq!(
            options("Blue-green or canary deployments for the payments API?"),
            ["Blue-green deployments", "canary deployments"]
        );
        assert_eq!(options("Should we run self-hosted or managed Kafka?"), ["self-hosted Kafka", "managed Kafka"]);
        assert_eq!(options("Self-hosted Kafka or Confluent Cloud?"), ["Self-hosted Kafka", "Confluent Cloud"]);
        assert_eq!(
            options("Should our apps be native or Flutter?"),
            ["native", "Flutter"],
            "a name is no noun to share"
        );
    }

    #[test]
    fn do_we_need_x_or_is_y_enough_weighs_both() {
        assert_eq!(
            options("Do we need Kafka, or is Postgres LISTEN/NOTIFY enough for our job queue?"),
            ["Kafka", "Postgres LISTEN/NOTIFY"]
        );
        assert_eq!(
            options("Do we need a service mesh or are Kubernetes network policies enough?"),
            ["service mesh", "Kubernetes network policies"]
        );
        assert_eq!(
            options("Do we need Elasticsearch or is Postgres full-text search good enough?"),
            ["Elasticsearch", "Postgres full-text search"]
        );
    }

    #[test]
    fn a_named_product_or_technology_is_kept_whole() {
        assert_eq!(
            options("Should product search use Elasticsearch or Postgres full-text search?"),
            ["Elasticsearch", "Postgres full-text search"]
        );
        assert_eq!(
            options("Should we migrate from Jenkins to GitHub Actions or GitLab CI?")[..2],
            ["GitHub Actions", "GitLab CI"]
        );
        assert_eq!(
            options("Should we authenticate partners with API keys, OAuth client credentials or mutual TLS?")[..3],
            ["API keys", "OAuth client credentials", "mutual TLS"]
        );
        assert_eq!(
            options("Terraform, Pulumi, or stay with hand-written CloudFormation?"),
            ["Terraform", "Pulumi", "CloudFormation"]
        );
    }

    #[test]
    fn courses_of_action_stay_whole() {
        assert_eq!(
            options(
                "Should mini-redis keep one Mutex-protected HashMap, shard the keyspace across several locks, or give \
                 each shard its own task with message passing?"
            ),
            [
                "keep one Mutex-protected HashMap",
                "shard the keyspace across several locks",
                "give each shard its own task with message passing"
            ]
        );
        assert_eq!(
            options("Should we rewrite the importer, split it into two jobs, or buy a vendor tool for the sync?"),
            ["rewrite the importer", "split it into two jobs", "buy a vendor tool"]
        );
        assert_eq!(
            options("Should we split the billing service out of the monolith, or keep billing as a module inside it?"),
            ["split the billing service out of the monolith", "keep billing as a module"],
            "'inside it' only points back into the question"
        );
        assert_eq!(
            options("Should we self-host Prometheus, Grafana and Loki, or pay for Datadog?"),
            ["self-host Prometheus, Grafana and Loki", "pay for Datadog"]
        );
        assert_eq!(
            options(
                "Should EU customers' data stay in an EU-only region, or may we replicate it to our US region for failover?"
            ),
            ["stay in an EU-only region", "replicate it to our US region"],
            "who is asked is no part of the first; the second's own asking words none of it"
        );
        assert_eq!(
            options("Should we hire a contractor or train our team in Kubernetes?"),
            ["hire a contractor", "train our team in Kubernetes"]
        );
        assert_eq!(options("Build or buy for the internal admin dashboard?"), ["Build", "buy"]);
        // A list of names stays one.
        assert_eq!(options("Should we use React, Vue, or Svelte for the dashboard?"), ["React", "Vue", "Svelte"]);
    }

    #[test]
    fn courses_of_action_that_only_choose_a_thing_are_the_things() {
        assert_eq!(
            options("Should we move our services to Kubernetes, or keep deploying them to VMs with systemd?"),
            ["Kubernetes", "VMs with systemd"]
        );
        assert_eq!(options("Should we use Kafka or migrate to Pulsar?"), ["Kafka", "Pulsar"]);
        assert_eq!(options("Should we use Redis or keep everything in Postgres?"), ["Redis", "Postgres"]);
        assert_eq!(options("Is it worth moving to Kubernetes or should we stay on VMs?"), ["Kubernetes", "VMs"]);
        assert_eq!(
            options("Should we adopt Argo CD, or stay with push-based deploys from CI?"),
            ["Argo CD", "push-based deploys from CI"],
            "only a qualifier right before a name is left out of what is kept"
        );
        assert_eq!(options("Should we build it ourselves or buy Retool?"), ["build it ourselves", "buy Retool"]);
    }

    #[test]
    fn keeping_what_exists_stays_a_way_when_the_question_implies_it() {
        let kept_in = |question: &str| {
            let read = read(question);
            (read.options.len() > read.named.len()).then(|| read.options.last().cloned()).flatten()
        };
        assert_eq!(
            kept_in("Should mini-redis persist data with an append-only file or periodic snapshots?").as_deref(),
            Some(KEEP)
        );
        assert_eq!(kept_in("Should we migrate from MySQL to Postgres or CockroachDB?").as_deref(), Some("Keep MySQL"));
        assert_eq!(
            kept_in("Should we rewrite the billing engine from Ruby to Go or to Kotlin?").as_deref(),
            Some("Keep Ruby")
        );
        assert_eq!(kept_in("Should we deploy using Kubernetes or Nomad?").as_deref(), Some(KEEP));
        // A choice between things, or one that already keeps what exists, implies nothing more.
        assert_eq!(kept_in("Should we use Redis or Postgres for caching?"), None);
        assert_eq!(kept_in("REST vs GraphQL for the public API"), None);
        assert_eq!(kept_in("Should we keep session tokens in localStorage or httpOnly cookies?"), None);
        assert_eq!(kept_in("Do we adopt Terraform, Pulumi or stay with hand-written CloudFormation?"), None);
        assert_eq!(
            kept_in(
                "Should mini-redis keep one Mutex-protected HashMap, shard the keyspace, or give each shard a task?"
            ),
            None
        );
    }

    #[test]
    fn a_change_weighs_making_it_against_keeping_what_it_leaves() {
        assert_eq!(
            options("Should we move the nightly batch jobs from on-demand EC2 instances to spot instances?"),
            ["Move them to spot instances", "Keep on-demand EC2 instances"]
        );
        assert_eq!(options("Should we move from Scrum to Kanban?"), ["Move to Kanban", "Keep Scrum"]);
        assert_eq!(
            options("Should we replace Jira with Linear for planning?"),
            ["Replace it with Linear", "Keep Jira"]
        );
        assert_eq!(
            options("Should we replace two-week release branches with trunk-based development behind feature flags?"),
            ["Replace them with trunk-based development behind feature flags", "Keep two-week release branches"]
        );
        assert_eq!(read("Should we move from Scrum to Kanban?").named, ["Kanban", "Scrum"], "the things changed");
    }

    #[test]
    fn is_it_worth_weighs_doing_it_against_keeping_what_is() {
        assert_eq!(
            options("Is it worth migrating our session store from Memcached to Redis?"),
            ["Migrate it to Redis", "Keep Memcached"]
        );
        assert_eq!(
            options("Is it worth splitting the frontend into micro-frontends?"),
            ["Split the frontend into micro-frontends", KEEP]
        );
        assert_eq!(
            options("Would it be worth the effort to port the parser to Rust?"),
            ["Port the parser to Rust", KEEP]
        );
        assert_eq!(options("Is it worth it to move from MySQL to Postgres?"), ["Move to Postgres", "Keep MySQL"]);
        assert_eq!(
            options("Is it worth dockerising the old cron jobs?"),
            ["Dockerising the old cron jobs", KEEP],
            "a verb not known is left as written"
        );
    }

    #[test]
    fn other_languages_name_options_too() {
        assert_eq!(options("Sollen wir für das neue Backend Go oder Kotlin nehmen?"), ["Go", "Kotlin"]);
        assert_eq!(options("Monolithe ou microservices ?"), ["Monolithe", "microservices"]);
        assert_eq!(options("¿Deberíamos usar GraphQL, REST o gRPC para la API pública?"), ["GraphQL", "REST", "gRPC"]);
        assert_eq!(options("Meglio usare Kafka o RabbitMQ o NATS?"), ["Kafka", "RabbitMQ", "NATS"]);
        assert_eq!(options("Kubernetes ou máquinas virtuais para uma equipe?"), ["Kubernetes", "máquinas virtuais"]);
        assert!(read("Como fazer deploy sem tirar o serviço do ar?").named.is_empty(), "Portuguese 'o' is 'the'");
        assert_eq!(options("キャッシュにはRedisとMemcachedのどちらを使うべきですか？"), ["Redis", "Memcached"]);
        assert_eq!(options("RedisかMemcachedか、どちらがいいですか？"), ["Redis", "Memcached"]);
        assert_eq!(options("我们应该用Redis还是Memcached？"), ["Redis", "Memcached"]);
        assert_eq!(options("我们应该用单体还是微服务？"), ["单体", "微服务"]);
        assert!(read("个人信息或许需要加密吗？").named.is_empty(), "或许 is 'perhaps'");
        assert!(options("個人情報を含むログはどのくらいの期間保存すべきですか？").is_empty());
    }

    #[test]
    fn no_connector_means_no_options() {
        assert!(options("How should we structure the plugin system?").is_empty());
    }

    #[test]
    fn yes_no_questions_weigh_the_proposal_against_keeping_what_we_have() {
        assert_eq!(options("Should we adopt event sourcing?"), ["Adopt event sourcing", KEEP]);
        assert_eq!(options("Our bill doubled; should we move to spot instances?"), ["Move to spot instances", KEEP]);
        assert_eq!(options("Is it safe to run plugins in-process?"), ["Yes", "No"]);
        assert_eq!(options("Faut-il migrer notre monolithe vers des microservices ?"), ["Yes", "No"]);
        assert!(options("What should we do?").is_empty());
        let long = options(&format!("Should we {}?", "really ".repeat(30)));
        assert!(long[0].chars().count() <= PROPOSAL_CHARS, "{long:?}");
    }

    /// Lowercase words, for comparing an option with the question it came from.
    fn plain(text: &str) -> String {
        text.to_lowercase()
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Pieces of questions: the words the reader looks for, names, and any short word.
    fn question() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            Just("Should we "),
            Just("Is it worth "),
            Just("Do we need "),
            Just("use "),
            Just("keep "),
            Just("stay with "),
            Just("moving "),
            Just(" or "),
            Just(" vs "),
            Just(", "),
            Just(" between "),
            Just(" and "),
            Just(" in "),
            Just(" from "),
            Just(" to "),
            Just(" is "),
            Just(" enough"),
            Just("Redis "),
            Just("NATS JetStream "),
            Just("the order service "),
            Just("?"),
        ]
        .prop_map(str::to_string);
        let word = "[a-zA-Z]{1,8} ".prop_map(|w| w);
        prop::collection::vec(prop_oneof![piece, word], 1..16).prop_map(|pieces| pieces.concat())
    }

    /// Names a question may offer, none holding another.
    const NAMES: &[&str] = &[
        "Redis",
        "Postgres",
        "NATS JetStream",
        "Kafka",
        "Go",
        "Rust",
        "gRPC",
        "REST",
        "Terraform",
        "Pulumi",
        "Elasticsearch",
        "SQLite",
        "GitHub Actions",
        "Memcached",
        "bare metal",
        "spot instances",
    ];

    /// A question offering `names` in one of the shapes the reader knows: an opener and
    /// the preposition it gives each name, a connector before the last name, a tail.
    fn offering() -> impl Strategy<Value = (String, Vec<String>)> {
        let names = prop::sample::subsequence(NAMES, 2..=4).prop_shuffle();
        const OPENERS: &[(&str, &str)] = &[
            ("Should we use ", ""),
            ("Do we adopt ", ""),
            ("", ""),
            ("Which one: ", ""),
            ("Should the API team pick ", ""),
            ("Should we cache sessions ", "in "),
            ("Should we deploy ", "on "),
        ];
        let opener = prop::sample::select(OPENERS);
        let last = prop::sample::select(&[" or ", " vs ", " versus ", ", or ", " or stay with "][..]);
        let tail = prop::sample::select(&["?", " for the new service?", " between the web app and the workers?"][..]);
        (names, opener, last, tail).prop_map(|(names, (opener, preposition), last, tail)| {
            let each: Vec<String> = names.iter().map(|n| format!("{preposition}{n}")).collect();
            let (first, end) = each.split_at(each.len() - 1);
            let end = if last.contains("stay") { names[names.len() - 1] } else { end[0].as_str() };
            let question = format!("{opener}{}{last}{end}{tail}", first.join(", "));
            (question, names.iter().map(|n| n.to_string()).collect())
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn an_option_is_never_the_whole_question(question in question()) {
            let whole = plain(&question);
            for option in options(&question) {
                let option = plain(&option);
                prop_assert!(option != whole, "{question:?} → {option:?}");
                let long = option.split_whitespace().count() > OPTION_WORDS;
                prop_assert!(!(long && option.contains(&whole)), "{question:?} → {option:?}");
            }
        }

        #[test]
        fn each_name_offered_is_an_option_of_its_own((question, names) in offering()) {
            let read = options(&question);
            for name in &names {
                prop_assert!(read.contains(name), "{question:?} → {read:?}: no {name:?}");
            }
            for option in &read {
                let held = names.iter().filter(|n| plain(option).contains(&plain(n))).count();
                prop_assert!(held <= 1, "{question:?} → {option:?} holds {held} of {names:?}");
            }
        }
    }
}
