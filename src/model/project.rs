//! What the repository tells the debaters: facts about the project, earlier decisions,
//! how decisions are kept there. Gathered when a debate starts and stored with it, so
//! the prompts, `--show` and the record all say exactly what the debaters read.

use serde::{Deserialize, Serialize};

/// The project as its files show it; every part may be empty.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ProjectFacts {
    /// The README's title and opening paragraphs.
    pub readme: Option<String>,
    /// Dependencies worth naming, from the manifests.
    pub stack: Vec<Dependency>,
    /// Languages by files and lines, most lines first.
    pub languages: Vec<LanguageShare>,
    pub infrastructure: Vec<Infrastructure>,
    pub history: Option<History>,
}

/// What kind of thing a dependency is, for the debaters and for grouping.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DependencyKind {
    Framework,
    Database,
    Cache,
    Queue,
    Search,
    Cloud,
    Library,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dependency {
    pub name: String,
    pub version: Option<String>,
    pub kind: DependencyKind,
    /// What it brings that matters here ("postgres" for sqlx with that feature).
    pub detail: Option<String>,
    /// The manifest it is declared in, relative to the repository root.
    pub manifest: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LanguageShare {
    pub language: String,
    pub files: u32,
    pub lines: u64,
}

/// A service, base image or declared resource.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Infrastructure {
    /// `compose service`, `base image`, `kubernetes`, `helm chart`, `terraform`.
    pub kind: String,
    pub name: String,
    pub detail: Option<String>,
    pub source: String,
}

/// The repository's git history, without names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct History {
    pub commits: u32,
    pub contributors: u32,
    /// `YYYY-MM-DD` of the oldest commit seen.
    pub since: String,
    /// The history is longer than was read.
    pub partial: bool,
}

/// A decision record found in the repository.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EarlierDecision {
    /// Relative to the repository root.
    pub path: String,
    pub title: String,
    /// As the record writes it (`accepted`, `proposed`, `superseded by …`).
    pub status: String,
    pub date: Option<String>,
    /// The decision, in its own words (its first sentence or two).
    pub decision: String,
    /// The record that supersedes it, when its status names one.
    pub superseded_by: Option<String>,
}

impl EarlierDecision {
    pub fn superseded(&self) -> bool {
        self.status.to_lowercase().starts_with("superseded")
    }

    pub fn accepted(&self) -> bool {
        self.status.to_lowercase().starts_with("accepted")
    }
}

/// How decisions are already kept in the repository.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Convention {
    /// Relative to the repository root.
    pub directory: String,
    /// Records are named `0001-…`.
    pub numbered: bool,
    pub records: u32,
}

/// One part of what the debaters read, and how much of it they read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextSource {
    /// `project facts`, an earlier decision's path, or a `--context` file.
    pub name: String,
    /// Estimated tokens of the whole part, and of what the debaters read of it.
    pub tokens: u64,
    pub read: u64,
}

impl ContextSource {
    pub fn cut(&self) -> bool {
        self.read < self.tokens
    }

    /// "`big.md`: first 2,000 of 9,500 tokens", as the terminal and the record say it.
    pub fn describe(&self) -> String {
        match self.read {
            _ if !self.cut() => format!("{} ({})", self.name, tokens(self.tokens)),
            0 => format!("{}: not read, {} (the context budget was spent)", self.name, tokens(self.tokens)),
            read => {
                format!("{}: first {read_tokens} of {}", self.name, tokens(self.tokens), read_tokens = grouped(read))
            }
        }
    }
}

/// "9,500 tokens".
pub fn tokens(n: u64) -> String {
    format!("{} tokens", grouped(n))
}

fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut text = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            text.push(',');
        }
        text.push(digit);
    }
    text
}

/// What the debaters are told about the project, as stored with the debate.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ProjectContext {
    /// The text the debaters read about the project, exactly.
    pub text: String,
    /// Every part of it with its size; a part cut to fit the budget says so.
    pub sources: Vec<ContextSource>,
    pub facts: ProjectFacts,
    /// The earlier decisions the debaters read, most relevant first.
    pub decisions: Vec<EarlierDecision>,
    pub convention: Option<Convention>,
    /// What could not be read, and why.
    pub notes: Vec<String>,
    /// The budget the text was fitted to, in estimated tokens (four bytes each).
    pub budget: u64,
    /// Whether the repository itself was read (not with `--no-repo-context`).
    pub repository: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_source_says_how_much_was_read() {
        let source = |read, tokens| ContextSource { name: "big.md".into(), tokens, read };
        assert_eq!(source(9_500, 9_500).describe(), "big.md (9,500 tokens)");
        assert_eq!(source(2_000, 9_500).describe(), "big.md: first 2,000 of 9,500 tokens");
        assert_eq!(
            source(0, 1_234_567).describe(),
            "big.md: not read, 1,234,567 tokens (the context budget was spent)"
        );
        assert_eq!(source(0, 0).describe(), "big.md (0 tokens)");
    }
}
