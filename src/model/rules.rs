//! The rules a debate runs under and how its record is named: the `debate:` and
//! `record:` settings, stored with every debate so a resumed debate keeps them. Each
//! value type checks its range when it is read, so a bad value is reported with the
//! file, line and key it came from.

use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::PerspectiveDef;

/// How a debate runs. Stored with each debate, so a resumed debate keeps its rules.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct DebateSettings {
    pub max_rounds: Rounds,
    /// Rounds before agreement or a clear winner may end the debate (so every debater
    /// has rebutted at least once); `max_rounds` wins when it is lower.
    pub min_rounds: Rounds,
    pub default_perspectives: PanelSize,
    pub token_budget_per_round: TokenBudget,
    pub repetition_threshold: Fraction,
    pub novelty_threshold: Fraction,
    pub rebuttals: Rebuttals,
    pub checkpoints: bool,
    pub round_timeout_seconds: Seconds,
    pub checkpoint_timeout_seconds: Seconds,
    pub total_timeout_seconds: Seconds,
    #[serde(skip_serializing)]
    pub custom_perspectives: Vec<PerspectiveDef>,
}

impl Default for DebateSettings {
    fn default() -> Self {
        DebateSettings {
            max_rounds: Rounds(5),
            min_rounds: Rounds(2),
            default_perspectives: PanelSize::Auto,
            token_budget_per_round: TokenBudget(Some(2000)),
            repetition_threshold: Fraction(0.6),
            novelty_threshold: Fraction(0.2),
            rebuttals: Rebuttals::Parallel,
            checkpoints: true,
            round_timeout_seconds: Seconds(120),
            checkpoint_timeout_seconds: Seconds(1800),
            total_timeout_seconds: Seconds(1800),
            custom_perspectives: Vec::new(),
        }
    }
}

/// A number of rounds, 1–20: the one place a debate's rounds are bounded. The command
/// line, the settings, the dashboard's form and a suite all read rounds through it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "i64", into = "u8")]
pub struct Rounds(u8);

impl Rounds {
    /// The most rounds a debate may have.
    pub const MAX: Rounds = Rounds(20);

    /// `n` rounds, if a debate may have that many.
    pub const fn new(n: u8) -> Option<Rounds> {
        match n {
            1..=20 => Some(Rounds(n)),
            _ => None,
        }
    }

    pub fn get(self) -> u8 {
        self.0
    }
}

impl TryFrom<i64> for Rounds {
    type Error = String;
    fn try_from(value: i64) -> Result<Self, String> {
        u8::try_from(value)
            .ok()
            .and_then(Rounds::new)
            .ok_or_else(|| format!("rounds must be a whole number from 1 to {}, not {value}", Rounds::MAX.0))
    }
}

impl std::str::FromStr for Rounds {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        let value = text.trim().parse::<i64>().map_err(|_| format!("rounds must be a whole number, not {text:?}"))?;
        Rounds::try_from(value)
    }
}

impl From<Rounds> for u8 {
    fn from(rounds: Rounds) -> u8 {
        rounds.0
    }
}

impl From<Rounds> for u32 {
    fn from(rounds: Rounds) -> u32 {
        rounds.0.into()
    }
}

impl fmt::Display for Rounds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// How many perspectives debate, 2–4: the one place a panel's size is bounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "i64", into = "u8")]
pub struct Seats(u8);

impl Seats {
    pub fn get(self) -> u8 {
        self.0
    }
}

impl TryFrom<i64> for Seats {
    type Error = String;
    fn try_from(value: i64) -> Result<Self, String> {
        match value {
            2..=4 => Ok(Seats(value as u8)),
            _ => Err(format!("a panel has 2, 3 or 4 perspectives, not {value}")),
        }
    }
}

impl std::str::FromStr for Seats {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        let value =
            text.trim().parse::<i64>().map_err(|_| format!("perspectives must be a whole number, not {text:?}"))?;
        Seats::try_from(value)
    }
}

impl From<Seats> for u8 {
    fn from(seats: Seats) -> u8 {
        seats.0
    }
}

/// `auto` or a panel size of 2–4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "Scalar", into = "Scalar")]
pub enum PanelSize {
    Auto,
    Fixed(Seats),
}

/// The completion limit per debater and round; `None` is unlimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "Scalar", into = "Scalar")]
pub struct TokenBudget(pub Option<u32>);

/// A number or a word, as YAML and environment variables give them.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Scalar {
    Number(i64),
    Text(String),
}

impl TryFrom<Scalar> for PanelSize {
    type Error = String;
    fn try_from(value: Scalar) -> Result<Self, String> {
        let wrong = |value: &Scalar| format!("default_perspectives must be `auto` or 2, 3 or 4, not {value}");
        match &value {
            Scalar::Text(text) if text.eq_ignore_ascii_case("auto") => Ok(PanelSize::Auto),
            Scalar::Number(n) => Seats::try_from(*n).map(PanelSize::Fixed).map_err(|_| wrong(&value)),
            Scalar::Text(_) => Err(wrong(&value)),
        }
    }
}

impl From<PanelSize> for Scalar {
    fn from(size: PanelSize) -> Scalar {
        match size {
            PanelSize::Auto => Scalar::Text("auto".into()),
            PanelSize::Fixed(n) => Scalar::Number(n.get().into()),
        }
    }
}

impl TryFrom<Scalar> for TokenBudget {
    type Error = String;
    fn try_from(value: Scalar) -> Result<Self, String> {
        match value {
            Scalar::Text(text) if text.eq_ignore_ascii_case("unlimited") => Ok(TokenBudget(None)),
            Scalar::Number(0) => Ok(TokenBudget(None)),
            Scalar::Number(n) if (1..=1_000_000).contains(&n) => Ok(TokenBudget(Some(n as u32))),
            other => Err(format!("token_budget_per_round must be a number of tokens, 0 or `unlimited`, not {other}")),
        }
    }
}

impl From<TokenBudget> for Scalar {
    fn from(budget: TokenBudget) -> Scalar {
        match budget.0 {
            None => Scalar::Text("unlimited".into()),
            Some(n) => Scalar::Number(n.into()),
        }
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scalar::Number(n) => write!(f, "{n}"),
            Scalar::Text(text) => write!(f, "`{text}`"),
        }
    }
}

/// A share between 0 and 1.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "f64", into = "f64")]
pub struct Fraction(pub f64);

impl TryFrom<f64> for Fraction {
    type Error = String;
    fn try_from(value: f64) -> Result<Self, String> {
        if (0.0..=1.0).contains(&value) {
            Ok(Fraction(value))
        } else {
            Err(format!("expected a share between 0 and 1, not {value}"))
        }
    }
}

impl From<Fraction> for f64 {
    fn from(fraction: Fraction) -> f64 {
        fraction.0
    }
}

/// A positive number of seconds, a month at most (past it, a clock's deadline would
/// overflow long before anyone waited that long).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "i64", into = "u64")]
pub struct Seconds(pub u64);

impl Seconds {
    pub const MAX: u64 = 31 * 86_400;
}

impl TryFrom<i64> for Seconds {
    type Error = String;
    fn try_from(value: i64) -> Result<Self, String> {
        match u64::try_from(value) {
            Ok(n @ 1..=Seconds::MAX) => Ok(Seconds(n)),
            _ => Err(format!("expected a number of seconds from 1 to {} (31 days), not {value}", Seconds::MAX)),
        }
    }
}

impl From<Seconds> for u64 {
    fn from(seconds: Seconds) -> u64 {
        seconds.0
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Rebuttals {
    /// Every debater rebuts at once, seeing all arguments.
    Parallel,
    /// Each debater also sees the rebuttals written before its own.
    Sequential,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct RecordSettings {
    pub directory: RecordDirectory,
    pub filename: FilenameTemplate,
    pub commit: bool,
    pub issue_draft: bool,
    /// Where every round's full text goes: inside the record, or a file beside it.
    pub transcript: TranscriptPlacement,
    /// Regenerate the decision directory's `README.md` index with every record commit.
    pub index: bool,
}

/// Where a record keeps the debate's full transcript.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TranscriptPlacement {
    /// In collapsed `<details>` blocks at the end of the record.
    #[default]
    Inline,
    /// In `<record>.transcript.md` beside the record, committed with it.
    Sidecar,
}

impl Default for RecordSettings {
    fn default() -> Self {
        RecordSettings {
            directory: RecordDirectory("docs/decisions".into()),
            filename: FilenameTemplate("{date}-{slug}.md".into()),
            commit: true,
            issue_draft: false,
            transcript: TranscriptPlacement::Inline,
            index: true,
        }
    }
}

/// A directory inside the repository: relative, without `..`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct RecordDirectory(pub String);

impl TryFrom<String> for RecordDirectory {
    type Error = String;
    fn try_from(value: String) -> Result<Self, String> {
        let path = Path::new(&value);
        let inside = !value.trim().is_empty()
            && path.is_relative()
            && path.components().all(|c| matches!(c, std::path::Component::Normal(_) | std::path::Component::CurDir));
        // A git directory (the repository's, or a nested one's) is no place for a record:
        // it would never be committed.
        let in_git =
            path.components().any(|c| c.as_os_str().to_str().is_some_and(|name| name.eq_ignore_ascii_case(".git")));
        if !inside {
            Err(format!("record.directory must be a relative path inside the repository without `..`, not {value:?}"))
        } else if in_git {
            Err(format!("record.directory must not be inside .git, not {value:?}"))
        } else {
            Ok(RecordDirectory(value))
        }
    }
}

impl From<RecordDirectory> for String {
    fn from(dir: RecordDirectory) -> String {
        dir.0
    }
}

/// A file-name template using `{date}`, `{slug}`, `{number}` and `{id}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct FilenameTemplate(pub String);

impl TryFrom<String> for FilenameTemplate {
    type Error = String;
    fn try_from(value: String) -> Result<Self, String> {
        let mut rest = value.as_str();
        while let Some(start) = rest.find('{') {
            let end = rest[start..]
                .find('}')
                .map(|e| start + e)
                .ok_or_else(|| format!("unclosed `{{` in record.filename {value:?}"))?;
            let name = &rest[start + 1..end];
            if !["date", "slug", "number", "id"].contains(&name) {
                return Err(format!(
                    "record.filename: unknown placeholder {{{name}}}; use {{date}}, {{slug}}, {{number}} or {{id}}"
                ));
            }
            rest = &rest[end + 1..];
        }
        if value.contains('/') || value.contains('\\') || value.contains("..") || value.trim().is_empty() {
            return Err(format!("record.filename must be a plain file name, not {value:?}"));
        }
        if !value.contains("{slug}") && !value.contains("{id}") && !value.contains("{number}") {
            return Err(format!("record.filename needs {{slug}}, {{id}} or {{number}} so names differ, not {value:?}"));
        }
        Ok(FilenameTemplate(value))
    }
}

impl From<FilenameTemplate> for String {
    fn from(template: FilenameTemplate) -> String {
        template.0
    }
}
