//! Question → decision domains, the options named, implicit constraints, vagueness and
//! panel size (docs/guide.md, "What a debate does"). A keyword heuristic: deterministic, no model needed.

// The word tables read better packed than one word a line.
#[rustfmt::skip]
mod lexicon;
mod options;
pub(crate) mod terms;

pub use terms::Terms;

use crate::model::{Analysis, Constraint};
use lexicon::{CHOICES, CONSTRAINTS, Choice, DOMAINS, SMALL_NUMBERS, SMALL_TEAM, TEAM_WORDS};

/// Words that carry no subject: a question made of them and little else is vague.
const STOP_WORDS: &[&str] = &[
    "a", "an", "the", "and", "or", "but", "we", "i", "you", "they", "it", "our", "us", "my", "me", "your", "is", "are",
    "was", "be", "to", "of", "in", "on", "for", "with", "at", "by", "from", "what", "which", "who", "how", "why",
    "when", "should", "would", "could", "can", "do", "does", "did", "this", "that", "these", "those", "there", "here",
    "now", "next", "some", "any", "all", "it's", "its", "go", "get", "make", "thing", "things", "stuff", "about",
    "best", "good", "better", "way", "ok", "okay", "yes", "no", "not", "so", "if", "then", "than", "just", "really",
    "very", "shall", "will", "done",
];
/// Fewer content words than this, or fewer words in all than `MIN_WORDS`, and no
/// options named: too vague to debate.
const MIN_CONTENT_WORDS: usize = 3;
const MIN_WORDS: usize = 4;
/// How far a small number may stand from a team word ("team of three").
const TEAM_NUMBER_DISTANCE: usize = 3;

/// What the question asks: its domains, its options (`options::read`), the constraints
/// it implies, whether it is vague, and how many debaters it wants (two for a choice of
/// two).
pub fn analyse(question: &str) -> Analysis {
    let reading = options::read(question);
    let named = &reading.named;
    let terms = Terms::new(question, &[]).reserving(lexicon_words());
    let domains = domains(&terms);
    let mut constraints = implied(&terms);
    if let Some(team) = small_team(question).filter(|t| !constraints.iter().any(|c| c.meaning == t.meaning)) {
        constraints.push(team);
    }
    constraints.extend(kind_of_choice(named, &Terms::new(question, reading.names())));
    let vague = named.len() < 2 && vague(question);
    let options = reading.options;
    let panel_size = match options.len() {
        2 => 2,
        n if n >= 3 || domains.len() >= 3 => 4,
        _ => 3,
    };
    Analysis { domains, options, constraints, vague, panel_size, unrefined: None, reading: None, early: None }
}

/// The question's terms for choosing perspectives. The names of the options it weighs
/// do not count: "Redis or Postgres?" is no vote for what Redis is known for.
pub fn keyword_terms(question: &str) -> Terms {
    Terms::new(question, options::read(question).names())
}

/// Every word the domains and constraints look for: each means itself only.
fn lexicon_words() -> impl Iterator<Item = &'static str> {
    let domains = DOMAINS.iter().flat_map(|(_, keys)| keys.iter().copied());
    domains.chain(CONSTRAINTS.iter().flat_map(|(phrases, _, _)| phrases.iter().copied()))
}

/// The domains the question's words point to, most hits first; ties keep table order.
fn domains(terms: &Terms) -> Vec<String> {
    let mut found: Vec<(usize, &str)> = DOMAINS
        .iter()
        .filter_map(|(name, keys)| {
            let hits = terms.hits(keys).len();
            (hits > 0).then_some((hits, *name))
        })
        .collect();
    found.sort_by_key(|d| std::cmp::Reverse(d.0));
    found.into_iter().map(|(_, name)| name.to_string()).collect()
}

/// The constraints whose phrases the question uses, each named by its first phrase found.
fn implied(terms: &Terms) -> Vec<Constraint> {
    CONSTRAINTS
        .iter()
        .filter_map(|(phrases, meaning, favours)| {
            let phrase = phrases.iter().find(|p| terms.matches(p))?;
            Some(constraint(phrase, meaning, favours))
        })
        .collect()
}

/// "A team of three", "a three-person team", "uma equipe de três pessoas": a small team
/// runs what is chosen, whatever the words around it.
fn small_team(question: &str) -> Option<Constraint> {
    let words = terms::words(question);
    let is_team = |w: &String| TEAM_WORDS.iter().any(|t| Terms::new(w, &[]).matches(t));
    let team = words.iter().position(is_team)?;
    let near = words.iter().enumerate().find(|(at, w)| {
        at.abs_diff(team) <= TEAM_NUMBER_DISTANCE && w.split('-').any(|part| SMALL_NUMBERS.contains(&part))
    })?;
    let (from, to) = (team.min(near.0), team.max(near.0));
    Some(constraint(&words[from..=to].join(" "), SMALL_TEAM.0, SMALL_TEAM.1))
}

/// What kind of thing is being chosen ("Go or Rust?": a programming language; "Redis
/// or Postgres for caching?": a cache), as constraints that say what such a choice
/// turns on. `rest` is the question without the options' names.
fn kind_of_choice(named: &[String], rest: &Terms) -> Vec<Constraint> {
    if named.len() < 2 {
        return Vec::new();
    }
    let options: Vec<Terms> = named.iter().map(|o| Terms::new(o, &[])).collect();
    let is_kind = |option: &Terms, kind: &Choice| kind.names.iter().any(|name| option.matches(name));
    CHOICES
        .iter()
        .filter(|kind| {
            let every = options.iter().all(|option| is_kind(option, kind));
            let role = kind.roles.iter().any(|r| rest.matches(r)) && options.iter().any(|o| is_kind(o, kind));
            every || role
        })
        .map(|kind| constraint(&named.join(", "), kind.meaning, kind.favours))
        .collect()
}

fn constraint(phrase: &str, meaning: &str, favours: &[&str]) -> Constraint {
    Constraint {
        phrase: phrase.to_string(),
        meaning: meaning.to_string(),
        favours: favours.iter().map(|f| f.to_string()).collect(),
    }
}

/// Too few words, or too few that carry a subject ("Should we refactor?", "Is this
/// secure?"). Text without spaces (Chinese, Japanese) counts two characters a word.
fn vague(question: &str) -> bool {
    let words = terms::words(question);
    let content: Vec<String> =
        words.iter().filter(|w| w.chars().count() > 2 && !STOP_WORDS.contains(&w.as_str())).cloned().collect();
    terms::word_count(&content) < MIN_CONTENT_WORDS || terms::word_count(&words) < MIN_WORDS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_choice_wants_two_debaters() {
        let a = analyse("Should we use Redis or Postgres for caching?");
        assert_eq!(a.options, ["Redis", "Postgres"]);
        assert_eq!(a.panel_size, 2);
        assert_eq!(a.domains.first().map(String::as_str), Some("data"));
        assert!(!a.vague);
    }

    #[test]
    fn yes_no_questions_weigh_two_ways() {
        let a = analyse("Should we adopt event sourcing for the order service?");
        assert_eq!(a.options, ["Adopt event sourcing for the order service", "Keep what we have"]);
        assert_eq!(a.panel_size, 2);
        assert_eq!(analyse("Is it safe to run plugins in-process?").options, ["Yes", "No"]);
    }

    #[test]
    fn implicit_constraints_are_found() {
        let a = analyse("We need to ship fast with a small team: which queue should we use?");
        let meanings: Vec<&str> = a.constraints.iter().map(|c| c.meaning.as_str()).collect();
        assert!(meanings.contains(&"delivery speed matters"), "{meanings:?}");
        assert!(meanings.contains(&"a small team has to run it"), "{meanings:?}");
        let team = analyse("Kubernetes or VMs for a team of three?");
        assert!(team.constraints.iter().any(|c| c.phrase == "team of three"), "{:?}", team.constraints);
    }

    #[test]
    fn the_kind_of_choice_is_a_constraint() {
        let a = analyse("Go or Rust?");
        assert!(a.constraints.iter().any(|c| c.meaning.starts_with("a programming language")), "{a:?}");
        let mixed = analyse("Rust or Kubernetes?");
        assert!(mixed.constraints.is_empty(), "options of different kinds say nothing: {mixed:?}");
        let cache = analyse("Redis or Postgres for caching?");
        assert!(cache.constraints.iter().any(|c| c.meaning.starts_with("a cache")), "the role named: {cache:?}");
    }

    #[test]
    fn option_names_are_no_keywords() {
        let terms = keyword_terms("Should we use Redis or Postgres as the queue?");
        assert!(!terms.matches("redis") && terms.matches("queue"));
        let acting = keyword_terms("Should we hire a contractor or train our team in Kubernetes?");
        assert!(acting.matches("hire") && acting.matches("team"), "a course of action's words are what it is about");
    }

    #[test]
    fn vague_questions_are_flagged() {
        assert!(analyse("What should we do?").vague);
        assert!(analyse("Thoughts?").vague);
        assert!(analyse("Should we refactor?").vague);
        assert!(analyse("Is this secure?").vague);
        assert!(!analyse("How should we structure the plugin system for third-party extensions?").vague);
        assert!(!analyse("Go or Rust?").vague, "two named options are a clear choice");
        assert!(!analyse("個人情報を含むログはどのくらいの期間保存すべきですか？").vague, "CJK has no spaces");
    }
}
