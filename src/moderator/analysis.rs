//! Question → decision domains, the options named, implicit constraints, vagueness and
//! panel size (SPEC §2.1). A keyword heuristic: deterministic, no model needed.

use crate::model::{Analysis, Constraint};

const DOMAINS: &[(&str, &[&str])] = &[
    (
        "data",
        &[
            "data",
            "database",
            "databases",
            "cache",
            "caching",
            "redis",
            "postgres",
            "postgresql",
            "mysql",
            "sql",
            "nosql",
            "mongodb",
            "schema",
            "storage",
            "index",
            "replication",
            "queue",
            "kafka",
            "sqlite",
            "orm",
        ],
    ),
    (
        "architecture",
        &[
            "architecture",
            "monolith",
            "microservice",
            "microservices",
            "service",
            "services",
            "api",
            "rest",
            "graphql",
            "grpc",
            "plugin",
            "plugins",
            "module",
            "modules",
            "event",
            "framework",
            "system",
            "design",
            "rewrite",
            "serverless",
        ],
    ),
    (
        "security",
        &[
            "security",
            "secure",
            "auth",
            "authentication",
            "authorization",
            "login",
            "password",
            "passwords",
            "token",
            "tokens",
            "jwt",
            "oauth",
            "session",
            "sessions",
            "encryption",
            "secrets",
            "sso",
            "mfa",
            "permissions",
        ],
    ),
    (
        "ux",
        &[
            "ui",
            "ux",
            "user",
            "users",
            "frontend",
            "front-end",
            "react",
            "vue",
            "svelte",
            "angular",
            "mobile",
            "accessibility",
            "onboarding",
            "customers",
        ],
    ),
    (
        "operations",
        &[
            "deploy",
            "deployment",
            "deployments",
            "kubernetes",
            "k8s",
            "monitoring",
            "ops",
            "infrastructure",
            "hosting",
            "observability",
            "oncall",
            "on-call",
            "ci",
            "uptime",
            "outage",
            "incident",
            "backup",
        ],
    ),
    (
        "cost",
        &[
            "cost",
            "costs",
            "budget",
            "cheap",
            "expensive",
            "price",
            "pricing",
            "spend",
            "license",
            "licence",
            "vendor",
            "saas",
            "pay",
            "money",
        ],
    ),
    (
        "process",
        &[
            "team",
            "teams",
            "hiring",
            "hire",
            "process",
            "meeting",
            "meetings",
            "agile",
            "scrum",
            "kanban",
            "review",
            "reviews",
            "remote",
            "culture",
            "pairing",
            "sprint",
            "standup",
            "engineers",
            "contractors",
        ],
    ),
    (
        "compliance",
        &[
            "compliance",
            "gdpr",
            "hipaa",
            "soc2",
            "pci",
            "audit",
            "regulation",
            "regulatory",
            "residency",
            "privacy",
            "retention",
            "legal",
        ],
    ),
];

/// Phrases that imply a constraint, what it means, and who it favours.
const CONSTRAINTS: &[(&[&str], &str, &[&str])] = &[
    (
        &[
            "ship fast",
            "ship quickly",
            "quickly",
            "deadline",
            "asap",
            "mvp",
            "prototype",
            "time to market",
            "this quarter",
            "next week",
        ],
        "delivery speed matters",
        &["Developer Velocity", "Simplicity Advocate"],
    ),
    (
        &["small team", "few engineers", "solo", "one developer", "two developers", "tiny team"],
        "a small team has to run it",
        &["Operational Simplicity", "Team Sustainability", "Simplicity Advocate"],
    ),
    (
        &["scale", "millions", "high traffic", "low latency", "at scale", "heavy load"],
        "scale and speed matter",
        &["Performance Advocate", "Reliability Engineer"],
    ),
    (&["budget", "cheap", "cheaper", "cost", "costs", "expensive", "save money"], "cost matters", &["Cost Control"]),
    (
        &["gdpr", "hipaa", "compliance", "regulated", "soc2", "pci", "audit"],
        "regulatory obligations apply",
        &["Compliance Guardian", "Security Advocate"],
    ),
    (&["sensitive", "personal data", "secure", "security", "breach"], "data must be protected", &["Security Advocate"]),
    (
        &["long term", "long-term", "future", "grow", "growth", "evolve"],
        "the choice must age well",
        &["Future Flexibility"],
    ),
    (
        &["uptime", "high availability", "99.9", "outage", "outages", "downtime"],
        "availability matters",
        &["Reliability Engineer"],
    ),
    (&["lock-in", "lock in", "vendor", "portable", "portability"], "lock-in is a concern", &["Vendor Independence"]),
];

const LEFT_BOUNDARIES: &[&str] = &[
    "should", "shall", "would", "could", "can", "we", "i", "you", "they", "our", "use", "using", "choose", "pick",
    "adopt", "between", "is", "are", "it", "do", "does", "for", "with", "of", "in", "on", "go", "prefer", "which",
    "what", "whether", "better", "keep", "stick", "switch", "move", "migrate", "to", "either", "via", "about",
];
const RIGHT_BOUNDARIES: &[&str] = &[
    "for", "when", "given", "if", "because", "since", "as", "in", "with", "at", "before", "after", "while", "so",
    "and", "but", "now", "here", "there", "today",
];
const STOP_WORDS: &[&str] = &[
    "a", "an", "the", "and", "or", "but", "we", "i", "you", "they", "it", "our", "us", "my", "me", "your", "is", "are",
    "was", "be", "to", "of", "in", "on", "for", "with", "at", "by", "from", "what", "which", "who", "how", "why",
    "when", "should", "would", "could", "can", "do", "does", "did", "this", "that", "these", "those", "there", "here",
    "now", "next", "some", "any", "all", "it's", "its", "go", "get", "make", "thing", "things", "stuff", "about",
    "do?", "best", "good", "better", "way", "ok", "okay", "yes", "no", "not", "so", "if", "then", "than", "just",
    "really", "very", "shall", "will", "done",
];
const CONNECTORS: &[&str] = &["or", "vs", "vs.", "versus"];

/// Words of the question: lowercase, split on anything but letters, digits, `-` and `.`
/// inside a word; trailing dots dropped.
pub fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '.' || c == '\''))
        .map(|w| w.trim_matches(|c: char| c == '.' || c == '-' || c == '\'').to_lowercase())
        .filter(|w| !w.is_empty())
        .collect()
}

/// The question's words with plural forms added, for keyword matching.
pub fn match_terms(question: &str) -> Vec<String> {
    let mut terms = words(question);
    let singulars: Vec<String> = terms
        .iter()
        .filter(|w| w.len() > 3 && w.ends_with('s') && !w.ends_with("ss"))
        .map(|w| w[..w.len() - 1].to_string())
        .collect();
    terms.extend(singulars);
    terms
}

pub fn analyse(question: &str) -> Analysis {
    let terms = match_terms(question);
    let lowered = format!(" {} ", words(question).join(" "));

    let mut domains: Vec<(usize, &str)> = DOMAINS
        .iter()
        .enumerate()
        .filter_map(|(order, (name, keys))| {
            let hits = keys.iter().filter(|k| terms.iter().any(|t| t == *k)).count();
            (hits > 0).then_some((hits * 100 + (DOMAINS.len() - order), *name))
        })
        .collect();
    domains.sort_by_key(|d| std::cmp::Reverse(d.0));
    let domains: Vec<String> = domains.into_iter().map(|(_, n)| n.to_string()).collect();

    let constraints = CONSTRAINTS
        .iter()
        .filter_map(|(phrases, meaning, favours)| {
            let phrase = phrases.iter().find(|p| lowered.contains(&format!(" {p} ")))?;
            Some(Constraint {
                phrase: phrase.to_string(),
                meaning: meaning.to_string(),
                favours: favours.iter().map(|f| f.to_string()).collect(),
            })
        })
        .collect();

    let options = options(question);
    let content_words = words(question).iter().filter(|w| w.len() > 2 && !STOP_WORDS.contains(&w.as_str())).count();
    let vague = options.len() < 2 && (content_words < 3 || question.split_whitespace().count() < 4);
    let panel_size = match options.len() {
        2 => 2,
        n if n >= 3 || domains.len() >= 3 => 4,
        _ => 3,
    };
    Analysis { domains, options, constraints, vague, panel_size }
}

/// The options a question names: "X or Y", "X vs Y", "A, B, or C", "between X and Y".
pub fn options(question: &str) -> Vec<String> {
    let tokens = tokens(question);
    let lower: Vec<String> = tokens.iter().map(|t| t.to_lowercase()).collect();
    if let Some(at) = lower.iter().position(|t| t == "between") {
        let found = split_list(&tokens[at + 1..], &["and", "or"]);
        if found.len() >= 2 {
            return found;
        }
    }
    let Some(connector) = lower.iter().position(|t| CONNECTORS.contains(&t.as_str())) else { return Vec::new() };

    // Walk left from the connector: comma-separated items until a boundary word.
    let mut left: Vec<Vec<&str>> = vec![Vec::new()];
    for token in tokens[..connector].iter().rev() {
        let low = token.to_lowercase();
        if token == "," {
            left.push(Vec::new());
        } else if LEFT_BOUNDARIES.contains(&low.as_str()) || left.last().is_some_and(|item| item.len() >= 4) {
            break;
        } else if let Some(item) = left.last_mut() {
            item.push(token);
        }
    }
    let mut found: Vec<String> = left
        .into_iter()
        .rev()
        .map(|mut item| {
            item.reverse();
            item.join(" ")
        })
        .filter(|item| !item.is_empty())
        .collect();

    let right: Vec<&str> = tokens[connector + 1..]
        .iter()
        .take_while(|t| {
            !matches!(t.as_str(), "," | "?" | "!" | ";" | ":") && !RIGHT_BOUNDARIES.contains(&t.to_lowercase().as_str())
        })
        .take(4)
        .map(String::as_str)
        .collect();
    if !right.is_empty() {
        found.push(right.join(" "));
    }
    if found.len() < 2 { Vec::new() } else { found }
}

/// Items of a list like "X, Y and Z" up to the first boundary.
fn split_list(tokens: &[String], joiners: &[&str]) -> Vec<String> {
    let mut items: Vec<Vec<&str>> = vec![Vec::new()];
    for token in tokens {
        let low = token.to_lowercase();
        if token == "," || joiners.contains(&low.as_str()) {
            items.push(Vec::new());
        } else if matches!(token.as_str(), "?" | "!" | ";" | ":")
            || (low != "and" && RIGHT_BOUNDARIES.contains(&low.as_str()))
        {
            break;
        } else if let Some(item) = items.last_mut() {
            item.push(token);
        }
    }
    items.into_iter().map(|i| i.join(" ")).filter(|i| !i.is_empty()).collect()
}

/// Words and punctuation marks of the question, original case.
fn tokens(question: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut word = String::new();
    for c in question.chars() {
        if c.is_alphanumeric() || matches!(c, '-' | '.' | '\'' | '+' | '#' | '/') {
            word.push(c);
        } else {
            if !word.is_empty() {
                tokens.push(std::mem::take(&mut word));
            }
            if matches!(c, ',' | '?' | '!' | ';' | ':') {
                tokens.push(c.to_string());
            }
        }
    }
    if !word.is_empty() {
        tokens.push(word);
    }
    // A sentence-final dot belongs to the sentence, not to the last option.
    tokens
        .into_iter()
        .map(|t| {
            if t.len() > 1 && t.ends_with('.') && !t.eq_ignore_ascii_case("vs.") {
                t.trim_end_matches('.').to_string()
            } else {
                t
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_questions_name_two_options() {
        assert_eq!(options("Should we use Redis or Postgres for caching?"), ["Redis", "Postgres"]);
        assert_eq!(options("REST vs GraphQL for the public API"), ["REST", "GraphQL"]);
        assert_eq!(options("Monolith or microservices?"), ["Monolith", "microservices"]);
        assert_eq!(options("Should we choose between Kafka and RabbitMQ?"), ["Kafka", "RabbitMQ"]);
    }

    #[test]
    fn lists_name_every_option() {
        assert_eq!(options("Should we use React, Vue, or Svelte for the dashboard?"), ["React", "Vue", "Svelte"]);
    }

    #[test]
    fn no_connector_means_no_options() {
        assert!(options("How should we structure the plugin system?").is_empty());
    }

    #[test]
    fn binary_choice_wants_two_debaters() {
        let a = analyse("Should we use Redis or Postgres for caching?");
        assert_eq!(a.panel_size, 2);
        assert_eq!(a.domains.first().map(String::as_str), Some("data"));
        assert!(!a.vague);
    }

    #[test]
    fn implicit_constraints_are_found() {
        let a = analyse("We need to ship fast with a small team: which queue should we use?");
        let meanings: Vec<&str> = a.constraints.iter().map(|c| c.meaning.as_str()).collect();
        assert!(meanings.contains(&"delivery speed matters"), "{meanings:?}");
        assert!(meanings.contains(&"a small team has to run it"), "{meanings:?}");
    }

    #[test]
    fn vague_questions_are_flagged() {
        assert!(analyse("What should we do?").vague);
        assert!(analyse("Thoughts?").vague);
        assert!(!analyse("How should we structure the plugin system for third-party extensions?").vague);
    }
}
