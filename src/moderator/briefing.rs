//! What the debaters are told about the project, fitted to a token budget. Pure.
//!
//! Parts go in this order, each taking what it needs of what is left: the project's
//! facts (short by construction), earlier decisions (most relevant to the question
//! first), then `--context` files in the order given. A part that does not fit whole is
//! cut, and says so in the text and in its `ContextSource`; nothing is listed as read
//! that the debaters did not read. Tokens are estimated at four bytes each.

use std::fmt::Write;

use bm25::{Document, Language, SearchEngineBuilder};

use crate::model::{ContextFile, ContextSource, DependencyKind, EarlierDecision, ProjectContext, ProjectFacts};
use crate::text::estimate_tokens;

/// The name the facts go by among the sources.
pub const FACTS: &str = "project facts";

/// The `keep` decisions most relevant to the question (BM25 over title and decision),
/// most relevant first; a superseded one only if nothing better is left. Decisions at
/// a `pinned` path (those this debate supersedes) come first whatever they score.
pub fn rank(question: &str, decisions: Vec<EarlierDecision>, keep: usize, pinned: &[String]) -> Vec<EarlierDecision> {
    if decisions.is_empty() || keep == 0 {
        return Vec::new();
    }
    let documents: Vec<Document<usize>> = decisions
        .iter()
        .enumerate()
        .map(|(id, d)| Document { id, contents: format!("{} {} {}", d.title, d.title, d.decision) })
        .collect();
    let engine = SearchEngineBuilder::<usize>::with_documents(Language::English, documents).build();
    let mut scored: Vec<(f32, usize)> =
        engine.search(question, decisions.len()).into_iter().map(|r| (r.score, r.document.id)).collect();
    let unpinned = |i: usize| !pinned.contains(&decisions[i].path);
    for id in (0..decisions.len()).filter(|&i| !unpinned(i)) {
        if !scored.iter().any(|(_, i)| *i == id) {
            scored.push((0.0, id));
        }
    }
    let superseded = |i: usize| decisions[i].superseded();
    scored.sort_by(|a, b| {
        (unpinned(a.1), superseded(a.1))
            .cmp(&(unpinned(b.1), superseded(b.1)))
            .then(b.0.total_cmp(&a.0))
            .then(a.1.cmp(&b.1))
    });
    let mut decisions: Vec<Option<EarlierDecision>> = decisions.into_iter().map(Some).collect();
    scored.into_iter().take(keep).filter_map(|(_, i)| decisions[i].take()).collect()
}

/// The facts as the debaters read them.
pub fn facts_text(facts: &ProjectFacts) -> String {
    let mut text = String::new();
    if let Some(readme) = &facts.readme {
        let _ = writeln!(text, "From the README:\n{readme}\n");
    }
    let mut manifests: Vec<&str> = facts.stack.iter().map(|d| d.manifest.as_str()).collect();
    manifests.dedup();
    for manifest in manifests {
        let named: Vec<String> = facts
            .stack
            .iter()
            .filter(|d| d.manifest == manifest)
            .map(|d| {
                let version = d.version.as_ref().map(|v| format!(" {v}")).unwrap_or_default();
                let detail = d.detail.as_ref().map(|detail| format!("{detail} ")).unwrap_or_default();
                format!("{}{version} ({detail}{})", d.name, kind_name(d.kind))
            })
            .collect();
        let _ = writeln!(text, "Stack in {manifest}: {}.", named.join(", "));
    }
    if !facts.languages.is_empty() {
        let languages: Vec<String> = facts
            .languages
            .iter()
            .take(8)
            .map(|l| format!("{} ({}, {})", l.language, counted(l.files.into(), "file"), counted(l.lines, "line")))
            .collect();
        let _ = writeln!(text, "Languages: {}.", languages.join(", "));
    }
    for item in &facts.infrastructure {
        let detail = item.detail.as_ref().map(|d| format!(" ({d})")).unwrap_or_default();
        let _ = writeln!(text, "Infrastructure in {}: {} {}{detail}.", item.source, item.kind, item.name);
    }
    if let Some(history) = &facts.history {
        let partial = if history.partial { " (at least)" } else { "" };
        let _ = writeln!(
            text,
            "History: {}{partial} by {} since {}.",
            counted(history.commits.into(), "commit"),
            counted(history.contributors.into(), "contributor"),
            history.since
        );
    }
    text.trim_end().to_string()
}

/// "1 commit", "340 commits".
fn counted(n: u64, what: &str) -> String {
    if n == 1 { format!("1 {what}") } else { format!("{n} {what}s") }
}

fn kind_name(kind: DependencyKind) -> &'static str {
    match kind {
        DependencyKind::Framework => "framework",
        DependencyKind::Database => "database",
        DependencyKind::Cache => "cache",
        DependencyKind::Queue => "queue",
        DependencyKind::Search => "search",
        DependencyKind::Cloud => "cloud SDK",
        DependencyKind::Library => "library",
    }
}

/// An earlier decision as the debaters read it.
pub fn decision_text(d: &EarlierDecision) -> String {
    let date = d.date.as_ref().map(|date| format!(", {date}")).unwrap_or_default();
    let superseded = d.superseded_by.as_ref().map(|by| format!(" by {by}")).unwrap_or_default();
    let status = if d.superseded() { format!("superseded{superseded}") } else { d.status.clone() };
    let decision = if d.decision.is_empty() { String::new() } else { format!(": {}", d.decision) };
    format!("- {} — \"{}\" ({status}{date}){decision}", d.path, d.title)
}

/// The facts, decisions and `--context` files fitted to `budget` tokens: the text the
/// debaters read, what each part gave, and the files as read.
pub fn compose(
    facts: &ProjectFacts,
    decisions: Vec<EarlierDecision>,
    files: Vec<ContextFile>,
    budget: u64,
) -> (ProjectContext, Vec<ContextFile>) {
    let mut left = budget;
    let mut sources = Vec::new();
    let mut take = |name: &str, text: &str| -> String {
        let tokens = estimate_tokens(text);
        let read = tokens.min(left);
        left -= read;
        sources.push(ContextSource { name: name.to_string(), tokens, read });
        if read == tokens { text.to_string() } else { cut(text, read, tokens) }
    };
    let mut text = String::new();

    let facts_text = facts_text(facts);
    if !facts_text.is_empty() {
        let read = take(FACTS, &facts_text);
        let _ = write!(text, "## About this project\n\n{read}\n\n");
    }
    let mut kept = Vec::new();
    let mut lines = Vec::new();
    for decision in decisions {
        let line = take(&decision.path, &decision_text(&decision));
        if !line.is_empty() {
            lines.push(line);
            kept.push(decision);
        }
    }
    if !lines.is_empty() {
        let _ =
            write!(text, "## Earlier decisions in this repository (most relevant first)\n\n{}\n\n", lines.join("\n"));
    }
    let mut read_files = Vec::new();
    for file in files {
        let read = take(&file.path, &file.text);
        if !read.is_empty() {
            let _ = write!(text, "## Project context from {}\n\n{read}\n\n", file.path);
        }
        read_files.push(ContextFile { text: read, ..file });
    }
    let context = ProjectContext { text: text.trim_end().to_string(), sources, decisions: kept, ..Default::default() };
    (context, read_files)
}

/// The first `read` of `tokens` estimated tokens, cut at a line or word where one is
/// near, and marked.
fn cut(text: &str, read: u64, tokens: u64) -> String {
    if read == 0 {
        return String::new();
    }
    let mut end = (read as usize * 4).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let kept = &text[..end];
    let kept = kept.rfind('\n').or_else(|| kept.rfind(' ')).filter(|&at| at > end / 2).map_or(kept, |at| &kept[..at]);
    format!("{}\n[… cut here: the first {read} of {tokens} tokens]", kept.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Dependency, History, Infrastructure, LanguageShare};

    fn decision(path: &str, title: &str, status: &str, text: &str) -> EarlierDecision {
        EarlierDecision {
            path: path.into(),
            title: title.into(),
            status: status.into(),
            date: Some("2025-01-01".into()),
            decision: text.into(),
            superseded_by: None,
        }
    }

    fn facts() -> ProjectFacts {
        ProjectFacts {
            readme: Some("shop-api\n\nThe API behind our web shop.".into()),
            stack: vec![Dependency {
                name: "sqlx".into(),
                version: Some("0.8".into()),
                kind: DependencyKind::Database,
                detail: Some("postgres".into()),
                manifest: "Cargo.toml".into(),
            }],
            languages: vec![LanguageShare { language: "Rust".into(), files: 12, lines: 3400 }],
            infrastructure: vec![Infrastructure {
                kind: "compose service".into(),
                name: "postgres".into(),
                detail: Some("postgres:16".into()),
                source: "docker-compose.yml".into(),
            }],
            history: Some(History { commits: 340, contributors: 4, since: "2023-05-01".into(), partial: false }),
        }
    }

    #[test]
    fn decisions_are_ranked_by_relevance_and_superseded_ones_last() {
        let decisions = vec![
            decision("docs/adr/0001-react.md", "Use React for the dashboard", "accepted", "We use React."),
            decision(
                "docs/adr/0002-postgres.md",
                "Use Postgres as the only datastore",
                "accepted",
                "One database for everything.",
            ),
            decision("docs/adr/0003-cache.md", "Cache pages with a CDN", "superseded", "Cache at the edge."),
            decision("docs/adr/0004-caching.md", "Caching in Redis", "accepted", "Cache sessions in Redis."),
        ];
        let ranked: Vec<String> =
            rank("Redis or Postgres for caching?", decisions.clone(), 3, &[]).into_iter().map(|d| d.path).collect();
        assert_eq!(ranked, ["docs/adr/0004-caching.md", "docs/adr/0002-postgres.md", "docs/adr/0003-cache.md"]);

        let pinned = ["docs/adr/0001-react.md".to_string()];
        let ranked: Vec<String> =
            rank("Redis or Postgres for caching?", decisions, 2, &pinned).into_iter().map(|d| d.path).collect();
        assert_eq!(
            ranked,
            ["docs/adr/0001-react.md", "docs/adr/0004-caching.md"],
            "a decision superseded now comes first"
        );
    }

    #[test]
    fn the_facts_read_as_sentences() {
        insta::assert_snapshot!(facts_text(&facts()), @r"
        From the README:
        shop-api

        The API behind our web shop.

        Stack in Cargo.toml: sqlx 0.8 (postgres database).
        Languages: Rust (12 files, 3400 lines).
        Infrastructure in docker-compose.yml: compose service postgres (postgres:16).
        History: 340 commits by 4 contributors since 2023-05-01.
        ");
    }

    #[test]
    fn everything_fits_a_generous_budget_and_is_listed_whole() {
        let decisions = vec![decision("docs/adr/0001-postgres.md", "Use Postgres", "accepted", "One database.")];
        let files = vec![ContextFile { path: "notes.md".into(), text: "Peak load is 2,000 reads a second.".into() }];
        let (context, read) = compose(&facts(), decisions, files.clone(), 10_000);
        assert!(context.sources.iter().all(|s| !s.cut()), "{:?}", context.sources);
        assert_eq!(read, files);
        assert!(
            context.text.contains("## About this project") && context.text.contains("sqlx 0.8 (postgres database)")
        );
        assert!(
            context.text.contains("docs/adr/0001-postgres.md — \"Use Postgres\" (accepted, 2025-01-01): One database.")
        );
        assert!(context.text.contains("## Project context from notes.md\n\nPeak load"));
        assert_eq!(context.decisions.len(), 1);
    }

    #[test]
    fn a_tight_budget_cuts_the_last_parts_and_says_so() {
        let big = ContextFile { path: "big.md".into(), text: "word ".repeat(4_000) };
        let unread = ContextFile { path: "later.md".into(), text: "never read".into() };
        let facts_tokens = estimate_tokens(&facts_text(&facts()));
        let (context, read) = compose(&facts(), Vec::new(), vec![big, unread], facts_tokens + 500);
        let big = &context.sources[1];
        assert_eq!((big.name.as_str(), big.read, big.tokens), ("big.md", 500, 5_000));
        assert!(context.text.contains("[… cut here: the first 500 of 5000 tokens]"), "{}", context.text);
        assert_eq!((context.sources[2].read, read[1].text.as_str()), (0, ""), "nothing of it was read");
        assert!(!context.text.contains("later.md"), "an unread file is not in the text");
        assert!(estimate_tokens(&read[0].text) <= 520, "the kept text is the budget's worth");
    }
}
