//! A guard: one machine-checkable rule a decision keeps the code to, written the same
//! way in the record, on the command line and in the moderator's answer —
//! `forbid dependency redis`, `require dependency postgres`, `forbid path **/ormconfig.*`.
//! A guard is data: its target names what a dependency brings (as the manifests' table
//! names it) or a path pattern, never anything run. docs/reference.md, "Guards".

use std::fmt;
use std::str::FromStr;

use globset::{GlobBuilder, GlobMatcher};
use serde::Serialize;

/// Whether the guarded thing must be absent or present.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Rule {
    Forbid,
    Require,
}

/// What a guard looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Subject {
    /// A dependency a manifest declares: by what it brings (`redis`) or its package name.
    Dependency,
    /// A file of the work tree, by a glob over its path from the repository root.
    Path,
}

/// One guard.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Guard {
    pub rule: Rule,
    pub subject: Subject,
    pub target: String,
}

/// A target's length at most: a package name or a path pattern, never prose.
const TARGET_LIMIT: usize = 200;

/// What the services a dependency can bring are called: the manifests' table names a
/// package's backend with one of these, and an option naming one brings it.
/// `context/manifests/known.rs` tests that the table uses no other.
pub const SERVICES: &[&str] = &[
    "postgres",
    "mysql",
    "sqlite",
    "mssql",
    "mongodb",
    "cassandra",
    "dynamodb",
    "redis",
    "memcached",
    "kafka",
    "rabbitmq",
    "nats",
    "sqs",
    "elasticsearch",
    "opensearch",
    "meilisearch",
    "tantivy",
    "aws",
    "azure",
];

/// Other names an option may give a service by.
const ALIASES: &[(&str, &str)] =
    &[("postgresql", "postgres"), ("pg", "postgres"), ("mongo", "mongodb"), ("elastic", "elasticsearch")];

impl FromStr for Guard {
    type Err = String;

    fn from_str(text: &str) -> Result<Guard, String> {
        const FORM: &str = "a guard is `forbid dependency NAME`, `require dependency NAME`, \
                            `forbid path GLOB` or `require path GLOB`";
        let words: Vec<&str> = text.trim().trim_matches('`').split_whitespace().collect();
        let [rule, subject, target] = words[..] else {
            return Err(format!("`{}` is not a guard: {FORM}", shown(text)));
        };
        let rule = match rule.to_ascii_lowercase().as_str() {
            "forbid" => Rule::Forbid,
            "require" => Rule::Require,
            other => return Err(format!("`{other}` is no guard's rule: {FORM}")),
        };
        let subject = match subject.to_ascii_lowercase().as_str() {
            "dependency" => Subject::Dependency,
            "path" => Subject::Path,
            other => return Err(format!("`{other}` is nothing a guard looks at: {FORM}")),
        };
        if target.chars().count() > TARGET_LIMIT || target.contains(|c: char| c == '`' || c.is_control()) {
            return Err(format!("a guard's target is at most {TARGET_LIMIT} characters, without backticks"));
        }
        let guard = Guard { rule, subject, target: target.to_string() };
        match subject {
            Subject::Dependency if !target.chars().all(|c| c.is_alphanumeric() || "._-/:@*".contains(c)) => {
                Err(format!("`{target}` is no dependency name: letters, digits and . _ - / : @ * only"))
            }
            Subject::Path => guard.matcher().map(|_| guard),
            Subject::Dependency => Ok(guard),
        }
    }
}

impl fmt::Display for Guard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rule = match self.rule {
            Rule::Forbid => "forbid",
            Rule::Require => "require",
        };
        let subject = match self.subject {
            Subject::Dependency => "dependency",
            Subject::Path => "path",
        };
        write!(f, "{rule} {subject} {}", self.target)
    }
}

impl Guard {
    pub fn forbid_dependency(target: &str) -> Guard {
        Guard { rule: Rule::Forbid, subject: Subject::Dependency, target: target.to_string() }
    }

    pub fn require_dependency(target: &str) -> Guard {
        Guard { rule: Rule::Require, subject: Subject::Dependency, target: target.to_string() }
    }

    /// A path guard's pattern: a glob over the path from the repository root, `/` the
    /// separator (`*` stays within a directory, `**` crosses them); a pattern with no
    /// `/` matches the file's name in any directory, as `.gitignore` does.
    pub fn matcher(&self) -> Result<GlobMatcher, String> {
        let pattern = self.target.trim_start_matches('/');
        let pattern = if pattern.contains('/') { pattern.to_string() } else { format!("**/{pattern}") };
        GlobBuilder::new(&pattern)
            .literal_separator(true)
            .build()
            .map(|glob| glob.compile_matcher())
            .map_err(|err| format!("`{}` is no path pattern: {}", self.target, err.kind()))
    }

    /// A dependency guard matches a dependency that brings its target or is named so
    /// (`redis` matches `ioredis`, which brings redis; `ioredis` matches it by name).
    pub fn matches_dependency(&self, name: &str, brings: Option<&str>) -> bool {
        let target = service(&self.target).unwrap_or(&self.target);
        brings.is_some_and(|b| b.eq_ignore_ascii_case(target)) || name.eq_ignore_ascii_case(&self.target)
    }
}

/// Some of what was given, for an error: one line, at most 60 characters.
fn shown(text: &str) -> String {
    let line: String = text.trim().chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    match line.char_indices().nth(60) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line,
    }
}

/// The service a word names (`PostgreSQL` is postgres), if it names one.
fn service(word: &str) -> Option<&'static str> {
    let word = word.to_ascii_lowercase();
    SERVICES.iter().copied().find(|s| *s == word).or_else(|| ALIASES.iter().find(|(a, _)| *a == word).map(|p| p.1))
}

/// The services an option's name brings (`Redis Streams` brings redis).
pub fn services_of(option: &str) -> Vec<&'static str> {
    let mut found: Vec<&'static str> = Vec::new();
    for word in option.split(|c: char| !c.is_alphanumeric()).filter_map(service) {
        if !found.contains(&word) {
            found.push(word);
        }
    }
    found
}

/// The dependency guards a choice implies: forbid what each set-aside option brings
/// and the chosen one does not, require what the chosen one brings where the
/// repository already declares it (`declared`, what its manifests bring).
pub fn derive(chosen: &str, set_aside: &[&str], declared: &[&str]) -> Vec<Guard> {
    let kept = services_of(chosen);
    let mut guards: Vec<Guard> = kept
        .iter()
        .filter(|s| declared.iter().any(|d| d.eq_ignore_ascii_case(s)))
        .map(|s| Guard::require_dependency(s))
        .collect();
    for service in set_aside.iter().flat_map(|o| services_of(o)) {
        let guard = Guard::forbid_dependency(service);
        if !kept.contains(&service) && !guards.contains(&guard) {
            guards.push(guard);
        }
    }
    guards
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_guard_reads_back_as_it_is_written() {
        for text in ["forbid dependency redis", "require dependency postgres", "forbid path **/ormconfig.*"] {
            let guard: Guard = text.parse().unwrap();
            assert_eq!(guard.to_string(), text);
        }
        let guard: Guard = "  `Forbid  Dependency ioredis`  ".parse().unwrap();
        assert_eq!(guard, Guard::forbid_dependency("ioredis"));
    }

    #[test]
    fn anything_else_is_refused_with_the_forms() {
        for (text, says) in [
            ("", "is not a guard"),
            ("forbid redis", "is not a guard"),
            ("forbid dependency redis now", "is not a guard"),
            ("allow dependency redis", "no guard's rule"),
            ("forbid command rm", "nothing a guard looks at"),
            ("forbid dependency $(rm -rf ~)", "is not a guard"),
            ("forbid dependency a;b", "no dependency name"),
            ("forbid path a/[b", "no path pattern"),
            ("forbid path a`b", "without backticks"),
        ] {
            let err = text.parse::<Guard>().unwrap_err();
            assert!(err.contains(says), "{text}: {err}");
        }
        let long = format!("forbid dependency {}", "a".repeat(201));
        assert!(long.parse::<Guard>().is_err());
    }

    #[test]
    fn a_path_pattern_matches_as_gitignore_would() {
        let anywhere: Guard = "forbid path ormconfig.*".parse().unwrap();
        let matcher = anywhere.matcher().unwrap();
        assert!(matcher.is_match("ormconfig.json") && matcher.is_match("api/src/ormconfig.ts"));
        let rooted: Guard = "forbid path src/*.sql".parse().unwrap();
        let matcher = rooted.matcher().unwrap();
        assert!(
            matcher.is_match("src/a.sql") && !matcher.is_match("src/deep/a.sql") && !matcher.is_match("x/src/a.sql")
        );
    }

    #[test]
    fn a_dependency_matches_by_what_it_brings_or_its_name() {
        let redis = Guard::forbid_dependency("redis");
        assert!(redis.matches_dependency("ioredis", Some("redis")));
        assert!(redis.matches_dependency("redis", None));
        assert!(!redis.matches_dependency("pg", Some("postgres")));
        let postgres = Guard::require_dependency("PostgreSQL");
        assert!(postgres.matches_dependency("psycopg2", Some("postgres")));
        assert!(Guard::forbid_dependency("ioredis").matches_dependency("ioredis", Some("redis")));
    }

    #[test]
    fn a_choice_forbids_what_was_set_aside_and_requires_what_is_already_there() {
        let guards = derive("PostgreSQL", &["Redis", "Redis Streams", "Postgres with Redis"], &["postgres"]);
        let written: Vec<String> = guards.iter().map(Guard::to_string).collect();
        assert_eq!(written, ["require dependency postgres", "forbid dependency redis"]);
        assert_eq!(derive("Postgres", &["Redis"], &[]), [Guard::forbid_dependency("redis")]);
        assert!(derive("Keep it simple", &["Do nothing"], &[]).is_empty());
    }
}
