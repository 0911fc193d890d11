//! The options a question names — "X or Y", "X vs Y", "A, B or C", "A or B or C",
//! "Which queue: A, B or C?", "between X and Y", the same in German, French, Spanish,
//! Italian and Portuguese, Japanese "XとYのどちら" and "XかYか", Chinese "X还是Y" and
//! "X或Y" — and the two ways of a yes/no question.

use super::terms::{is_cjk, is_hiragana};

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
        "about", "hire", "write", "run", "store", "put", "try", "want", "need", "a", "an", "the",
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
/// What an option is for ("the new backend Go or Kotlin"): ends an option on the left,
/// unless it is the option's last word ("a Postgres database or MySQL").
#[rustfmt::skip]
const ROLE_NOUNS: &[&str] = &[
    "backend", "frontend", "service", "app", "api", "database", "datastore", "platform", "stack", "language",
    "framework", "library", "tool", "server", "system", "datenbank", "sprache",
];
/// Words that end an option on the right; in English, German, then French, Spanish,
/// Portuguese and Italian.
#[rustfmt::skip]
const RIGHT_BOUNDARIES: &[&[&str]] = &[
    &[
        "for", "when", "given", "if", "because", "since", "as", "in", "with", "at", "before", "after", "while", "so",
        "and", "but", "now", "here", "there", "today", "to",
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

/// Most words an option has.
const OPTION_WORDS: usize = 4;

/// The options the question names, in order; none unless it names at least two.
pub fn named(question: &str) -> Vec<String> {
    let cjk = cjk_options(question);
    if cjk.len() >= 2 {
        return cjk;
    }
    let tokens = tokens(question);
    let phrases = phrase_list(&tokens);
    if phrases.len() >= 2 {
        return phrases;
    }
    let lower: Vec<String> = tokens.iter().map(|t| t.to_lowercase()).collect();
    if let Some(at) = lower.iter().position(|t| BETWEEN.contains(&t.as_str())) {
        let found = split_list(&tokens[at + 1..]);
        if found.len() >= 2 {
            return found;
        }
    }
    (0..tokens.len())
        .filter(|&at| is_connector(&tokens, at))
        .map(|at| around(&tokens, at))
        .find(|found| found.len() >= 2)
        .unwrap_or_default()
}

fn is_connector(tokens: &[String], at: usize) -> bool {
    let word = tokens[at].to_lowercase();
    let name_like = |t: Option<&String>| t.is_some_and(|t| t.chars().any(|c| c.is_uppercase() || c.is_ascii_digit()));
    CONNECTORS.contains(&word.as_str())
        || (NAME_CONNECTORS.contains(&word.as_str())
            && (name_like(at.checked_sub(1).map(|i| &tokens[i])) || name_like(tokens.get(at + 1))))
}

/// The options on both sides of the connector at `at`.
fn around(tokens: &[String], at: usize) -> Vec<String> {
    let mut found = left_of(&tokens[..at]);
    found.extend(right_of(tokens, at));
    found
}

/// Comma-separated options before the connector, up to a boundary word. A boundary
/// word written as a name right before a comma or the connector is an option itself
/// ("Go or Rust").
fn left_of(tokens: &[String]) -> Vec<String> {
    let mut items: Vec<Vec<&str>> = vec![Vec::new()];
    for token in tokens.iter().rev() {
        let low = token.to_lowercase();
        let item_len = items.last().map_or(0, Vec::len);
        let capitalised = token.starts_with(char::is_uppercase);
        let boundary = match item_len {
            0 => is_left_boundary(&low) && !capitalised,
            _ => is_left_boundary(&low) || ROLE_NOUNS.contains(&low.as_str()),
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
        let len = (at..tokens.len()).take_while(|&i| !ends_item(i)).take(OPTION_WORDS).count();
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

/// Most words an option of a list of phrases has.
const PHRASE_WORDS: usize = 10;
/// Words that end the first phrase of a list on the left: who is asked, and how.
const SUBJECTS: &[&str] = &[
    "should", "shall", "would", "could", "can", "will", "must", "do", "does", "we", "i", "you", "they", "our", "us",
    "which", "what", "whether", "either",
];
/// Words that end the last phrase of a list on the right: what the choice is for.
const PHRASE_ENDS: &[&str] = &["for", "when", "given", "if", "because", "since", "while", "so", "but"];

/// A list of whole phrases, "keep one Mutex-protected HashMap, shard the keyspace across
/// several locks, or give each shard its own task?": items between commas, one of them
/// longer than a name runs (`OPTION_WORDS`), so the list is of courses of action, each
/// kept whole. The first item starts after who is asked ("should mini-redis"), the last
/// runs to the end of the sentence or what the choice is for. None for a list of names.
fn phrase_list(tokens: &[String]) -> Vec<String> {
    let Some(at) = (0..tokens.len()).find(|&at| is_connector(tokens, at) && at > 0 && tokens[at - 1] == ",") else {
        return Vec::new();
    };
    let clause = tokens[..at].iter().rposition(|t| STOPS.contains(&t.as_str())).map_or(0, |i| i + 1);
    let items: Vec<&[String]> = tokens[clause..at - 1].split(|t| t == ",").collect();
    let Some((first, middle)) = items.split_first() else { return Vec::new() };
    if middle.is_empty()
        || middle.iter().all(|s| s.len() <= OPTION_WORDS)
        || middle.iter().any(|s| s.is_empty() || s.len() > PHRASE_WORDS)
    {
        return Vec::new();
    }
    // Who is asked: the asking word and the word after it ("should mini-redis"), or a pronoun.
    let lower: Vec<String> = first.iter().map(|t| t.to_lowercase()).collect();
    let start = (0..lower.len())
        .rev()
        .find(|&i| SUBJECTS.contains(&lower[i].as_str()) || i > 0 && PROPOSING.contains(&lower[i - 1].as_str()))
        .map_or(0, |i| i + 1);
    let first = &first[start..];
    let last: Vec<&str> = tokens[at + 1..]
        .iter()
        .take_while(|t| !STOPS.contains(&t.as_str()) && !PHRASE_ENDS.contains(&t.to_lowercase().as_str()))
        .map(String::as_str)
        .collect();
    if first.is_empty() || first.len() > PHRASE_WORDS || last.is_empty() || last.len() > PHRASE_WORDS {
        return Vec::new();
    }
    let mut found = vec![phrase(first.iter().map(String::as_str))];
    found.extend(middle.iter().map(|s| phrase(s.iter().map(String::as_str))));
    found.push(phrase(last.into_iter()));
    found
}

fn is_left_boundary(word: &str) -> bool {
    LEFT_BOUNDARIES.iter().any(|language| language.contains(&word))
}

fn is_right_boundary(token: &str) -> bool {
    let word = token.to_lowercase();
    RIGHT_BOUNDARIES.iter().any(|language| language.contains(&word.as_str()))
}

/// Items of a list like "X, Y and Z" up to the first boundary.
fn split_list(tokens: &[String]) -> Vec<String> {
    let mut items: Vec<Vec<&str>> = vec![Vec::new()];
    for token in tokens {
        let low = token.to_lowercase();
        if token == "," || LIST_JOINERS.contains(&low.as_str()) {
            items.push(Vec::new());
        } else if STOPS.contains(&token.as_str()) || is_right_boundary(&low) {
            break;
        } else if let Some(item) = items.last_mut() {
            item.push(token);
        }
    }
    items.into_iter().map(|item| phrase(item.into_iter())).filter(|item| !item.is_empty()).collect()
}

fn phrase<'a>(words: impl Iterator<Item = &'a str>) -> String {
    words.collect::<Vec<_>>().join(" ")
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

/// A yes/no question's two ways: what it proposes and keeping what we have ("Should
/// we adopt X?"), or yes and no ("Is it safe to …?"). `None` for any other question.
pub fn yes_no(question: &str) -> Option<Vec<String>> {
    let clause = last_clause(question);
    let words: Vec<&str> = clause.split_whitespace().collect();
    let first = words.first()?.trim_start_matches(['¿', '¡']).to_lowercase();
    if !ASKING.contains(&first.as_str()) {
        return None;
    }
    let proposes = PROPOSING.contains(&first.as_str())
        && words.get(1).is_some_and(|w| PRONOUNS.contains(&w.to_lowercase().as_str()))
        && words.len() > 2;
    match proposes {
        true => Some(vec![proposal(&words[2..]), KEEP.to_string()]),
        false => Some(vec!["Yes".to_string(), "No".to_string()]),
    }
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
/// Words of a change away from something: "migrate *from* X to Y or Z".
const LEAVING: &[&str] = &["migrate", "move", "switch", "replace", "leave", "go"];

/// Keeping what exists, when the question implies it and names it nowhere among
/// `named`: the change it proposes may be made one of several ways, or not at all
/// ("Should mini-redis persist data with an append-only file or periodic snapshots?"),
/// and what a move leaves stays a way ("Should we migrate from MySQL to Postgres or
/// CockroachDB?": keep MySQL).
pub fn kept(question: &str, named: &[String]) -> Option<String> {
    let tokens = tokens(question);
    let lower: Vec<String> = tokens.iter().map(|t| t.to_lowercase()).collect();
    let keeps = |option: &String| {
        let first = option.split_whitespace().next().unwrap_or("").to_lowercase();
        ["keep", "stay", "stick", "remain"].contains(&first.as_str()) || option.eq_ignore_ascii_case(KEEP)
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

    #[test]
    fn binary_questions_name_two_options() {
        assert_eq!(named("Should we use Redis or Postgres for caching?"), ["Redis", "Postgres"]);
        assert_eq!(named("REST vs GraphQL for the public API"), ["REST", "GraphQL"]);
        assert_eq!(named("Monolith or microservices?"), ["Monolith", "microservices"]);
        assert_eq!(named("Should we choose between Kafka and RabbitMQ?"), ["Kafka", "RabbitMQ"]);
        assert_eq!(named("Go or Rust?"), ["Go", "Rust"], "a boundary word next to the connector is an option");
        assert_eq!(
            named("Should we hire two senior engineers or four contractors to hit the deadline?"),
            ["two senior engineers", "four contractors"]
        );
        assert_eq!(named("Should our apps be native or Flutter?"), ["native", "Flutter"]);
    }

    #[test]
    fn lists_name_every_option() {
        assert_eq!(named("Should we use React, Vue, or Svelte for the dashboard?"), ["React", "Vue", "Svelte"]);
        assert_eq!(named("GraphQL or REST or gRPC for internal calls?"), ["GraphQL", "REST", "gRPC"]);
        assert_eq!(named("Kafka vs Pulsar vs NATS?"), ["Kafka", "Pulsar", "NATS"]);
        assert_eq!(named("Kafka, Pulsar, or NATS, or SQS?"), ["Kafka", "Pulsar", "NATS", "SQS"]);
        assert_eq!(named("Which queue: Kafka, RabbitMQ or SQS?"), ["Kafka", "RabbitMQ", "SQS"]);
        assert_eq!(
            named("We're choosing between Datadog, Grafana Cloud and self-hosted Prometheus."),
            ["Datadog", "Grafana Cloud", "self-hosted Prometheus"]
        );
    }

    #[test]
    fn a_list_of_courses_of_action_keeps_each_whole() {
        assert_eq!(
            named(
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
            named("Should we rewrite the importer, split it into two jobs, or buy a vendor tool for the sync?"),
            ["rewrite the importer", "split it into two jobs", "buy a vendor tool"]
        );
        // A list of names stays one.
        assert_eq!(named("Should we use React, Vue, or Svelte for the dashboard?"), ["React", "Vue", "Svelte"]);
    }

    #[test]
    fn keeping_what_exists_stays_a_way_when_the_question_implies_it() {
        let kept_in = |question: &str| kept(question, &named(question));
        assert_eq!(
            kept_in("Should mini-redis persist data with an append-only file or periodic snapshots?").as_deref(),
            Some(KEEP)
        );
        assert_eq!(kept_in("Should we migrate from MySQL to Postgres or CockroachDB?").as_deref(), Some("Keep MySQL"));
        assert_eq!(kept_in("Should we deploy using Kubernetes or Nomad?").as_deref(), Some(KEEP));
        // A choice between things, or one that already keeps what exists, implies nothing more.
        assert_eq!(kept_in("Should we use Redis or Postgres for caching?"), None);
        assert_eq!(kept_in("REST vs GraphQL for the public API"), None);
        assert_eq!(
            kept_in(
                "Should mini-redis keep one Mutex-protected HashMap, shard the keyspace, or give each shard a task?"
            ),
            None
        );
    }

    #[test]
    fn other_languages_name_options_too() {
        assert_eq!(named("Sollen wir für das neue Backend Go oder Kotlin nehmen?"), ["Go", "Kotlin"]);
        assert_eq!(named("Monolithe ou microservices ?"), ["Monolithe", "microservices"]);
        assert_eq!(named("¿Deberíamos usar GraphQL, REST o gRPC para la API pública?"), ["GraphQL", "REST", "gRPC"]);
        assert_eq!(named("Meglio usare Kafka o RabbitMQ o NATS?"), ["Kafka", "RabbitMQ", "NATS"]);
        assert_eq!(named("Kubernetes ou máquinas virtuais para uma equipe?"), ["Kubernetes", "máquinas virtuais"]);
        assert!(named("Como fazer deploy sem tirar o serviço do ar?").is_empty(), "Portuguese 'o' is 'the'");
        assert_eq!(named("キャッシュにはRedisとMemcachedのどちらを使うべきですか？"), ["Redis", "Memcached"]);
        assert_eq!(named("RedisかMemcachedか、どちらがいいですか？"), ["Redis", "Memcached"]);
        assert_eq!(named("我们应该用Redis还是Memcached？"), ["Redis", "Memcached"]);
        assert_eq!(named("我们应该用单体还是微服务？"), ["单体", "微服务"]);
        assert!(named("个人信息或许需要加密吗？").is_empty(), "或许 is 'perhaps'");
        assert!(named("個人情報を含むログはどのくらいの期間保存すべきですか？").is_empty());
    }

    #[test]
    fn no_connector_means_no_options() {
        assert!(named("How should we structure the plugin system?").is_empty());
    }

    #[test]
    fn yes_no_questions_weigh_the_proposal_against_keeping_what_we_have() {
        assert_eq!(yes_no("Should we adopt event sourcing?").unwrap(), ["Adopt event sourcing", KEEP]);
        assert_eq!(
            yes_no("Our bill doubled; should we move to spot instances?").unwrap(),
            ["Move to spot instances", KEEP]
        );
        assert_eq!(yes_no("Is it safe to run plugins in-process?").unwrap(), ["Yes", "No"]);
        assert_eq!(yes_no("Faut-il migrer notre monolithe vers des microservices ?").unwrap(), ["Yes", "No"]);
        assert!(yes_no("How should we structure the plugin system?").is_none());
        assert!(yes_no("What should we do?").is_none());
        let long = yes_no(&format!("Should we {}?", "really ".repeat(30))).unwrap();
        assert!(long[0].chars().count() <= PROPOSAL_CHARS, "{long:?}");
    }
}
