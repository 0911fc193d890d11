//! What the debaters read about the project.

use serde::Serialize;

use crate::model::{ContextSource, ProjectContext};

/// What the debaters read about the project: `--context-preview --json`, and part of
/// `--show --json`.
#[derive(Debug, Clone, Serialize)]
pub struct ContextView {
    /// Whether the repository was read (not with `--no-repo-context`).
    pub repository: bool,
    /// Tokens are estimated at four bytes each.
    pub budget_tokens: u64,
    /// Every part in the order it was given, with the tokens of the whole part and of
    /// what the debaters read of it.
    pub sources: Vec<SourceView>,
    /// The earlier decisions the debaters read, most relevant first.
    pub decisions: Vec<DecisionView>,
    /// Where the repository keeps decision records, if it does.
    pub convention: Option<ConventionView>,
    /// Files that could not be read, and why.
    pub notes: Vec<String>,
    /// The text, exactly as the debaters read it.
    pub text: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct SourceView {
    pub name: String,
    pub tokens: u64,
    pub read_tokens: u64,
    pub cut: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct DecisionView {
    pub path: String,
    pub title: String,
    pub status: String,
    pub date: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ConventionView {
    pub directory: String,
    pub numbered: bool,
    pub records: u32,
}

impl SourceView {
    /// "`big.md`: first 2,000 of 9,500 tokens", as the record says it.
    pub fn describe(&self) -> String {
        ContextSource { name: self.name.clone(), tokens: self.tokens, read: self.read_tokens }.describe()
    }
}

impl ContextView {
    pub fn of(project: &ProjectContext) -> ContextView {
        ContextView {
            repository: project.repository,
            budget_tokens: project.budget,
            sources: project
                .sources
                .iter()
                .map(|s| SourceView { name: s.name.clone(), tokens: s.tokens, read_tokens: s.read, cut: s.cut() })
                .collect(),
            decisions: project
                .decisions
                .iter()
                .map(|d| DecisionView {
                    path: d.path.clone(),
                    title: d.title.clone(),
                    status: d.status.clone(),
                    date: d.date.clone(),
                })
                .collect(),
            convention: project.convention.as_ref().map(|c| ConventionView {
                directory: c.directory.clone(),
                numbered: c.numbered,
                records: c.records,
            }),
            notes: project.notes.clone(),
            text: project.text.clone(),
        }
    }
}
