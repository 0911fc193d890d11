//! The words the reader knows: connectors, boundaries, articles and the verbs of a
//! choice; the question as tokens, and tokens joined back into a phrase.

use crate::moderator::analysis::lexicon::VERBS;

/// Words for "or" between two options.
pub(super) const CONNECTORS: &[&str] = &["or", "vs", "vs.", "versus", "oder", "ou", "oppure", "ó"];

/// "Or" in Spanish and Italian, but an article in Portuguese ("tirar o serviço"): a
/// connector only next to a name, which has a capital letter or a digit ("REST o gRPC").
pub(super) const NAME_CONNECTORS: &[&str] = &["o"];

/// Words that open a list of options joined by "and" or "or".
pub(super) const BETWEEN: &[&str] = &["between", "zwischen", "entre", "tra", "fra"];

pub(super) const LIST_JOINERS: &[&str] = &["and", "or", "und", "oder", "et", "ou", "y", "o", "e"];

/// Words that end an option on the left: pronouns, verbs of choosing, prepositions and
/// articles; in English, German, French, then Spanish, Portuguese and Italian.
#[rustfmt::skip]
pub(super) const LEFT_BOUNDARIES: &[&[&str]] = &[
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
pub(super) const ROLE_NOUNS: &[&str] = &[
    "backend", "frontend", "service", "app", "api", "database", "datastore", "platform", "stack", "language",
    "framework", "library", "tool", "server", "system", "datenbank", "sprache",
];

/// Words that end an option on the right; in English, German, then French, Spanish,
/// Portuguese and Italian. "Between" opens what the alternatives are for ("gRPC or REST
/// between the order service and …"), "enough" ends "or is Postgres enough?", "like"
/// an example ("a managed PaaS like Heroku").
#[rustfmt::skip]
pub(super) const RIGHT_BOUNDARIES: &[&[&str]] = &[
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

pub(super) const STOPS: &[&str] = &["?", "!", ";", ":"];

/// Prepositions alternatives may each repeat ("in Redis or in Postgres").
#[rustfmt::skip]
pub(super) const PREPOSITIONS: &[&str] = &[
    "in", "on", "with", "for", "through", "via", "to", "into", "onto", "over", "from", "at", "by", "using", "inside",
];

pub(super) const ARTICLES: &[&str] = &["a", "an", "the"];

/// Words before a thing that say whose or which it is, not what it is.
pub(super) const DETERMINERS: &[&str] = &["a", "an", "the", "our", "their", "my", "your", "its"];

/// Words that stand for something the question named before ("keep *them* with Stripe").
pub(super) const OBJECT_PRONOUNS: &[&str] = &["it", "them", "this", "that", "these", "those"];

/// Most words an option has.
pub(super) const OPTION_WORDS: usize = 4;

/// Most words a course of action has.
pub(super) const PHRASE_WORDS: usize = 10;

/// Words that end a course of action on the right: what the choice is for.
pub(super) const PHRASE_ENDS: &[&str] = &["for", "when", "given", "if", "because", "since", "while", "so", "but"];

/// Verbs whose object comes after "for" ("pay for Datadog", "go for Kafka").
pub(super) const FOR_VERBS: &[&str] = &["pay", "go", "opt", "wait", "ask", "settle"];

pub(super) fn is_connector(tokens: &[String], at: usize) -> bool {
    let word = tokens[at].to_lowercase();
    let name_like = |t: Option<&String>| t.is_some_and(|t| is_name(t));
    CONNECTORS.contains(&word.as_str())
        || (NAME_CONNECTORS.contains(&word.as_str())
            && (name_like(at.checked_sub(1).map(|i| &tokens[i])) || name_like(tokens.get(at + 1))))
}

/// Whether a word is written as a name: a capital letter or a digit in it ("gRPC", "S3").
pub(super) fn is_name(word: &str) -> bool {
    word.chars().any(|c| c.is_uppercase() || c.is_ascii_digit())
}

pub(super) fn is_word(tokens: &[String], at: usize, word: &str) -> bool {
    tokens.get(at).is_some_and(|t| t.eq_ignore_ascii_case(word))
}

/// Whether `word` is a qualifier by its form: joined ("blue-green") or with an
/// adjective's ending ("managed", "native").
pub(super) fn describes(word: &str) -> bool {
    const ENDINGS: &[&str] = &["ed", "ous", "ive", "less", "ful", "able", "ible"];
    let word = word.to_lowercase();
    word.contains('-') || ENDINGS.iter().any(|ending| word.len() > ending.len() + 2 && word.ends_with(ending))
}

pub(super) fn is_left_boundary(word: &str) -> bool {
    LEFT_BOUNDARIES.iter().any(|language| language.contains(&word))
}

pub(super) fn is_right_boundary(token: &str) -> bool {
    let word = token.to_lowercase();
    RIGHT_BOUNDARIES.iter().any(|language| language.contains(&word.as_str()))
}

/// The verb `word` is, in its base form ("rewriting" → "rewrite", "splitting" →
/// "split"), when it is one of `VERBS`.
pub(super) fn verb(word: &str) -> Option<String> {
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

/// Words joined by spaces, a comma kept against the word before it.
pub(super) fn phrase<'a>(words: impl Iterator<Item = &'a str>) -> String {
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
pub(super) fn tokens(question: &str) -> Vec<String> {
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

pub(super) fn fullwidth_to_ascii(c: char) -> char {
    match c {
        '？' => '?',
        '！' => '!',
        '；' => ';',
        '：' => ':',
        '、' | '，' => ',',
        c => c,
    }
}

/// Verbs that, with a pronoun after them, put a proposal: "Should we adopt X?".
pub(super) const PROPOSING: &[&str] = &["should", "shall", "can", "could", "must", "may", "might"];

pub(super) const PRONOUNS: &[&str] = &["we", "i", "you", "they"];

/// Words that open a yes/no question, in each language the connectors cover.
#[rustfmt::skip]
pub(super) const ASKING: &[&str] = &[
    "should", "shall", "can", "could", "must", "may", "might", "would", "will", "is", "are", "was", "were", "do",
    "does", "did", "has", "have", "sollen", "sollten", "soll", "sollte", "können", "könnten", "müssen", "brauchen",
    "ist", "sind", "faut-il", "doit-on", "devrions-nous", "devons-nous", "peut-on", "deberíamos", "debemos",
    "debería", "podemos", "devemos", "deveríamos", "dovremmo", "possiamo", "è",
];

/// The way of a yes/no question that changes nothing.
pub(super) const KEEP: &str = "Keep what we have";

/// Verbs of a change away from something: "migrate *from* X to Y or Z".
pub(super) const LEAVING: &[&str] =
    &["migrate", "move", "switch", "leave", "go", "rewrite", "port", "convert", "upgrade", "change"];

/// Words that say how a proposed change would be made: "persist data *with* A or B".
pub(super) const MEANS: &[&str] = &["with", "using", "via", "through"];
