//! What the debaters are told about the project, fitted to a token budget. Pure.
//!
//! Parts take the budget in this order, each what it needs of what is left: the records
//! this debate supersedes, the project's facts (at most half the budget), the other
//! earlier decisions (most relevant to the question first), then `--context` files in
//! the order given. A part that does not fit whole is cut, and says so in the text and
//! in its `ContextSource`, which counts what was kept; nothing is listed as read that
//! the debaters did not read. Tokens are estimated at four bytes each.

use std::fmt::Write;

use super::analysis::terms::{is_cjk, stem};
use crate::model::{
    ContextFile, ContextSource, Dependency, DependencyKind, EarlierDecision, ProjectContext, ProjectFacts,
};
use crate::text::estimate_tokens;
use crate::text::untrusted::one_line;

/// The name the facts go by among the sources.
pub const FACTS: &str = "project facts";

/// The `keep` decisions most relevant to the question (BM25 over title and decision),
/// most relevant first, ties in the order given; a superseded one only if nothing better
/// is left. When fewer than `keep` share a word with the question, the accepted records
/// fill the rest, newest first: a project's standing decisions matter even when worded
/// otherwise.
pub fn rank(question: &str, decisions: Vec<EarlierDecision>, keep: usize) -> Vec<EarlierDecision> {
    if decisions.is_empty() || keep == 0 {
        return Vec::new();
    }
    let scores = relevance(question, &decisions);
    let superseded = |i: usize| decisions[i].superseded();
    let mut scored: Vec<usize> = (0..decisions.len()).filter(|&i| scores[i] > 0.0).collect();
    scored.sort_by(|&a, &b| superseded(a).cmp(&superseded(b)).then(scores[b].total_cmp(&scores[a])).then(a.cmp(&b)));
    let mut unmatched: Vec<usize> =
        (0..decisions.len()).filter(|&i| decisions[i].accepted() && scores[i] <= 0.0).collect();
    let newest = |i: &usize| std::cmp::Reverse((decisions[*i].date.clone(), decisions[*i].path.clone()));
    unmatched.sort_by_key(newest);
    let order: Vec<usize> = scored.into_iter().chain(unmatched).take(keep).collect();
    let mut decisions: Vec<Option<EarlierDecision>> = decisions.into_iter().map(Some).collect();
    order.into_iter().filter_map(|i| decisions[i].take()).collect()
}

/// How relevant each decision is to `question`: its Okapi BM25 score over title and
/// decision (the title counted twice: it names what was decided); 0 when it shares no
/// word with the question.
pub fn relevance(question: &str, decisions: &[EarlierDecision]) -> Vec<f64> {
    let documents: Vec<String> = decisions.iter().map(|d| format!("{} {} {}", d.title, d.title, d.decision)).collect();
    bm25(question, &documents)
}

// ---- Ranking ---------------------------------------------------------------------------
//
// Okapi BM25 is written here rather than taken from a crate: it ranks at most a few dozen
// short records, and the `bm25` crate brought some 41 crates (stemmers and stop words for
// many languages, caches) to do it.

/// How soon a word's repeats in a record stop adding to its score.
const K1: f64 = 1.2;
/// How much a long record is discounted against the average length.
const B: f64 = 0.75;

/// Each document's Okapi BM25 score for the query's words; 0 when it has none of them.
/// A word few documents hold weighs more than one most of them hold.
fn bm25(query: &str, documents: &[String]) -> Vec<f64> {
    let documents: Vec<Vec<String>> = documents.iter().map(|document| words(document)).collect();
    let count = documents.len() as f64;
    let average = documents.iter().map(Vec::len).sum::<usize>() as f64 / count.max(1.0);
    let mut query = words(query);
    query.sort();
    query.dedup();
    let rarity: Vec<f64> = query
        .iter()
        .map(|word| {
            let holding = documents.iter().filter(|document| document.contains(word)).count() as f64;
            (1.0 + (count - holding + 0.5) / (holding + 0.5)).ln()
        })
        .collect();
    documents
        .iter()
        .map(|document| {
            let length = document.len() as f64 / average;
            query
                .iter()
                .zip(&rarity)
                .map(|(word, rarity)| {
                    let repeats = document.iter().filter(|w| *w == word).count() as f64;
                    rarity * repeats * (K1 + 1.0) / (repeats + K1 * (1.0 - B + B * length))
                })
                .sum()
        })
        .collect()
}

/// Words that say nothing about what a record decided; a question is full of them.
const STOP_WORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "an", "and", "any", "are", "as", "at", "be", "because", "been", "before",
    "being", "between", "both", "but", "by", "can", "could", "did", "do", "does", "each", "either", "for", "from",
    "had", "has", "have", "how", "i", "if", "in", "into", "is", "it", "its", "just", "make", "may", "me", "might",
    "more", "most", "must", "my", "need", "new", "no", "nor", "not", "now", "of", "on", "one", "only", "or", "other",
    "our", "over", "s", "same", "shall", "should", "so", "some", "such", "t", "than", "that", "the", "their", "them",
    "then", "there", "these", "they", "this", "those", "to", "too", "under", "up", "us", "use", "used", "uses",
    "using", "very", "was", "we", "were", "what", "when", "where", "whether", "which", "while", "who", "why", "will",
    "with", "would", "you", "your",
];

/// Whether `word` (lowercase) says nothing about what a record decided.
pub fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.contains(&word)
}

/// Lowercase words without stop words, each cut to its stem. Chinese and Japanese are
/// written without spaces, so each of their characters is a word of its own.
fn words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() && !is_cjk(c) {
            word.push(c);
            continue;
        }
        words.push(std::mem::take(&mut word));
        if is_cjk(c) {
            words.push(c.to_string());
        }
    }
    words.push(word);
    words
        .into_iter()
        .filter(|word| !word.is_empty() && !STOP_WORDS.contains(&word.as_str()))
        .map(|w| stem(&w))
        .collect()
}

/// Manifests whose stack is listed one by one; the rest are summed up in one line.
const MANIFESTS_LISTED: usize = 10;
/// Infrastructure lines (identical items across files are one line).
const INFRASTRUCTURE_LISTED: usize = 20;

/// The facts as the debaters read them: bounded however large the repository, with
/// what repeats across files said once.
pub fn facts_text(facts: &ProjectFacts) -> String {
    let mut text = String::new();
    if let Some(readme) = &facts.readme {
        let _ = writeln!(text, "From the README:\n{readme}\n");
    }
    let mut manifests: Vec<&str> = facts.stack.iter().map(|d| d.manifest.as_str()).collect();
    manifests.dedup();
    let named = |d: &Dependency| {
        let version = d.version.as_ref().map(|v| format!(" {v}")).unwrap_or_default();
        let detail = d.detail.as_ref().map(|detail| format!("{detail} ")).unwrap_or_default();
        one_line(&format!("{}{version} ({detail}{})", d.name, kind_name(d.kind)))
    };
    for manifest in manifests.iter().take(MANIFESTS_LISTED) {
        let listed: Vec<String> = facts.stack.iter().filter(|d| d.manifest == *manifest).map(named).collect();
        let _ = writeln!(text, "Stack in {}: {}.", one_line(manifest), listed.join(", "));
    }
    if manifests.len() > MANIFESTS_LISTED {
        let rest = &manifests[MANIFESTS_LISTED..];
        let mut names: Vec<String> =
            facts.stack.iter().filter(|d| rest.contains(&d.manifest.as_str())).map(|d| one_line(&d.name)).collect();
        names.sort();
        names.dedup();
        let shown = names.iter().take(30).cloned().collect::<Vec<_>>().join(", ");
        let more = if names.len() > 30 { format!(" and {} more", names.len() - 30) } else { String::new() };
        let _ = writeln!(text, "Stack in {} more manifests: {shown}{more}.", rest.len());
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
    let mut items: Vec<(String, Vec<&str>)> = Vec::new();
    for item in &facts.infrastructure {
        let detail = item.detail.as_ref().map(|d| format!(" ({d})")).unwrap_or_default();
        let line = one_line(&format!("{} {}{detail}", item.kind, item.name));
        match items.iter_mut().find(|(l, _)| *l == line) {
            Some((_, sources)) => sources.push(&item.source),
            None => items.push((line, vec![&item.source])),
        }
    }
    for (line, sources) in items.iter().take(INFRASTRUCTURE_LISTED) {
        let place = match sources.as_slice() {
            [one] => one_line(one),
            [first, ..] => format!("{} files ({}, …)", sources.len(), one_line(first)),
            [] => String::new(),
        };
        let _ = writeln!(text, "Infrastructure in {place}: {line}.");
    }
    if items.len() > INFRASTRUCTURE_LISTED {
        let _ = writeln!(text, "Infrastructure: {} more kinds of item.", items.len() - INFRASTRUCTURE_LISTED);
    }
    if let Some(history) = &facts.history {
        let partial = if history.partial { " (the latest; there are more)" } else { "" };
        let since = if history.partial { "the oldest of them from" } else { "the first from" };
        let _ = writeln!(
            text,
            "History: {}{partial} by {}, {since} {}.",
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

/// An earlier decision as the debaters read it: one line, whatever its file holds.
pub fn decision_text(d: &EarlierDecision) -> String {
    let date = d.date.as_ref().map(|date| format!(", {date}")).unwrap_or_default();
    let superseded = d.superseded_by.as_ref().map(|by| format!(" by {by}")).unwrap_or_default();
    let status = if d.superseded() { format!("superseded{superseded}") } else { d.status.clone() };
    let decision = if d.decision.is_empty() { String::new() } else { format!(": {}", d.decision) };
    one_line(&format!("- {} — \"{}\" ({status}{date}){decision}", d.path, d.title))
}

/// What the debaters are to read about the project, before it is fitted to a budget.
pub struct Parts {
    pub facts: ProjectFacts,
    /// The records this debate supersedes: read first, whatever they score.
    pub superseded: Vec<EarlierDecision>,
    /// The other earlier decisions, most relevant first.
    pub decisions: Vec<EarlierDecision>,
    pub files: Vec<ContextFile>,
}

/// The parts fitted to `budget` tokens: the text the debaters read, what each part
/// gave, and the files as read.
pub fn compose(parts: Parts, budget: u64) -> (ProjectContext, Vec<ContextFile>) {
    let mut budget = Budget { left: budget, sources: Vec::new() };
    let superseded: Vec<(EarlierDecision, String)> = parts
        .superseded
        .into_iter()
        .map(|d| {
            let line = budget.take(&d.path, &decision_text(&d), u64::MAX);
            (d, line)
        })
        .collect();
    let facts_text = facts_text(&parts.facts);
    let facts = match facts_text.is_empty() {
        true => String::new(),
        false => budget.take(FACTS, &facts_text, budget.left / 2 + budget.left % 2),
    };
    let others: Vec<(EarlierDecision, String)> = parts
        .decisions
        .into_iter()
        .map(|d| {
            let line = budget.take(&d.path, &decision_text(&d), u64::MAX);
            (d, line)
        })
        .collect();
    let files: Vec<ContextFile> = parts
        .files
        .into_iter()
        .map(|file| ContextFile { text: budget.take(&file.path, &file.text, u64::MAX), ..file })
        .collect();

    let mut text = String::new();
    if !facts.is_empty() {
        let _ = write!(text, "## About this project\n\n{facts}\n\n");
    }
    let read: Vec<(EarlierDecision, String)> =
        superseded.into_iter().chain(others).filter(|(_, line)| !line.is_empty()).collect();
    if !read.is_empty() {
        let lines: Vec<&str> = read.iter().map(|(_, line)| line.as_str()).collect();
        let _ =
            write!(text, "## Earlier decisions in this repository (most relevant first)\n\n{}\n\n", lines.join("\n"));
    }
    for file in files.iter().filter(|f| !f.text.is_empty()) {
        let _ = write!(text, "## Project context from {}\n\n{}\n\n", one_line(&file.path), file.text);
    }
    let decisions = read.into_iter().map(|(d, _)| d).collect();
    let sources = budget.sources;
    (ProjectContext { text: text.trim_end().to_string(), sources, decisions, ..Default::default() }, files)
}

/// Tokens left, and what each part took.
struct Budget {
    left: u64,
    sources: Vec<ContextSource>,
}

impl Budget {
    /// As much of `text` as fits, at most `cap` tokens, cut at a line or word where one
    /// is near and marked; what a cut leaves out is given back to the budget.
    fn take(&mut self, name: &str, text: &str, cap: u64) -> String {
        let tokens = estimate_tokens(text);
        // A sliver of a part says nothing: below this, a part that does not fit is not read.
        const SMALLEST_CUT: u64 = 64;
        let allowed = match tokens.min(self.left).min(cap) {
            allowed if allowed < tokens && allowed < SMALLEST_CUT => 0,
            allowed => allowed,
        };
        let (kept, read) = match allowed == tokens {
            true => (text.to_string(), tokens),
            false => {
                let kept = cut(text, allowed);
                let read = estimate_tokens(&kept);
                let marked = match kept.is_empty() {
                    true => kept,
                    false => format!("{kept}\n[… cut here: the first {read} of {tokens} tokens]"),
                };
                (marked, read)
            }
        };
        self.left -= read.min(self.left);
        self.sources.push(ContextSource { name: one_line(name), tokens, read });
        kept
    }
}

/// At most `tokens` estimated tokens of `text`, ending at a line or word where one is
/// near (never inside a character).
fn cut(text: &str, tokens: u64) -> String {
    let mut end = (tokens as usize).saturating_mul(4).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let kept = &text[..end];
    let kept = kept.rfind('\n').or_else(|| kept.rfind(' ')).filter(|&at| at > end / 2).map_or(kept, |at| &kept[..at]);
    kept.trim_end().to_string()
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
            rank("Redis or Postgres for caching?", decisions.clone(), 3).into_iter().map(|d| d.path).collect();
        assert_eq!(ranked, ["docs/adr/0004-caching.md", "docs/adr/0002-postgres.md", "docs/adr/0003-cache.md"]);
        let ranked: Vec<String> = rank("Should we add Memcached?", decisions, 2).into_iter().map(|d| d.path).collect();
        assert_eq!(
            ranked,
            ["docs/adr/0004-caching.md", "docs/adr/0002-postgres.md"],
            "no word in common: the accepted records, newest first (same date: by path)"
        );
    }

    fn paths(ranked: Vec<EarlierDecision>) -> Vec<String> {
        ranked.into_iter().map(|d| d.path).collect()
    }

    #[test]
    fn a_record_sharing_the_rare_words_ranks_above_one_sharing_only_common_ones() {
        let decisions = vec![
            decision("adr/0001.md", "Order service owns the orders", "accepted", "The order service owns order data."),
            decision("adr/0002.md", "Order service deploys daily", "accepted", "The order service deploys each day."),
            decision("adr/0003.md", "Order service logs to stdout", "accepted", "The order service logs as JSON."),
            decision("adr/0004.md", "Kafka for messaging", "accepted", "Messages go through Kafka."),
        ];
        let ranked = paths(rank("Kafka or RabbitMQ between the order service and billing?", decisions, 4));
        assert_eq!(ranked[0], "adr/0004.md", "{ranked:?}");
        let scores = bm25("kafka order service", &["kafka".into(), "order service".into(), "order service".into()]);
        assert!(scores[0] > scores[1] && scores[1] == scores[2], "one rare word outweighs two common: {scores:?}");
        assert!(bm25("kafka", &["order service".into()])[0] == 0.0, "no word in common scores nothing");
    }

    #[test]
    fn equal_scores_keep_the_order_given() {
        let twin = |path: &str| decision(path, "Cache sessions in Redis", "accepted", "Redis holds sessions.");
        let other = decision("adr/0009.md", "Use React", "accepted", "React for the UI.");
        let given = vec![twin("adr/0005.md"), other, twin("adr/0002.md"), twin("adr/0007.md")];
        assert_eq!(
            paths(rank("Redis?", given.clone(), 4)),
            ["adr/0005.md", "adr/0002.md", "adr/0007.md", "adr/0009.md"]
        );
        let reversed: Vec<EarlierDecision> = given.into_iter().rev().collect();
        assert_eq!(paths(rank("Redis?", reversed, 3)), ["adr/0007.md", "adr/0002.md", "adr/0005.md"]);
    }

    #[test]
    fn words_are_lowercase_stems_without_stop_words() {
        assert_eq!(words("Should we use Redis for CACHING?"), ["redi", "cach"]);
        assert_eq!(words("cache, caches, cached"), ["cach", "cach", "cach"]);
        assert_eq!(words("process processes processing"), ["process", "process", "process"]);
        assert_eq!(words("go bus is ok"), ["go", "bus", "ok"], "short words keep their endings");
        assert_eq!(words("Datenbank für Sitzungen"), ["datenbank", "für", "sitzungen"]);
        assert_eq!(words("用Redis缓存"), ["用", "redi", "缓", "存"]);
    }

    fn parts(decisions: Vec<EarlierDecision>, files: Vec<ContextFile>) -> Parts {
        Parts { facts: facts(), superseded: Vec::new(), decisions, files }
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
        History: 340 commits by 4 contributors, the first from 2023-05-01.
        ");
    }

    #[test]
    fn everything_fits_a_generous_budget_and_is_listed_whole() {
        let decisions = vec![decision("docs/adr/0001-postgres.md", "Use Postgres", "accepted", "One database.")];
        let files = vec![ContextFile { path: "notes.md".into(), text: "Peak load is 2,000 reads a second.".into() }];
        let (context, read) = compose(parts(decisions, files.clone()), 10_000);
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
        let (context, read) = compose(parts(Vec::new(), vec![big, unread]), facts_tokens + 500);
        let big = &context.sources[1];
        assert_eq!((big.name.as_str(), big.tokens), ("big.md", 5_000));
        assert!(big.read <= 500 && big.read >= 490, "what was kept, counted: {}", big.read);
        assert_eq!(
            estimate_tokens(read[0].text.lines().next().unwrap_or("")),
            big.read,
            "the text read is what is counted"
        );
        assert!(
            context.text.contains(&format!("[… cut here: the first {} of 5000 tokens]", big.read)),
            "{}",
            context.text
        );
        assert_eq!((context.sources[2].read, read[1].text.as_str()), (0, ""), "nothing of it was read");
        assert!(!context.text.contains("later.md"), "an unread file is not in the text");
    }

    #[test]
    fn a_cut_that_keeps_less_gives_the_rest_back() {
        // Long lines: the cut backs up to a line end, and what it left out goes on.
        let lines = ContextFile { path: "lines.md".into(), text: format!("{}\n", "x".repeat(2_400)).repeat(5) };
        let next = ContextFile { path: "next.md".into(), text: "y ".repeat(400) };
        let (context, _) = compose(
            Parts {
                facts: ProjectFacts::default(),
                superseded: Vec::new(),
                decisions: Vec::new(),
                files: vec![lines, next],
            },
            1_000,
        );
        let (first, second) = (&context.sources[0], &context.sources[1]);
        assert_eq!(first.read, 600, "one whole line of 2,400 bytes, not the 1,000 tokens allowed");
        assert_eq!(second.read, 200, "the next file gets what the cut left");
    }

    #[test]
    fn superseded_records_come_first_and_facts_take_at_most_half() {
        let mut facts = facts();
        facts.readme = Some("word ".repeat(10_000));
        let old = decision("design/records/0001-pg.md", "Use Postgres", "accepted", "One database.");
        let other = decision("docs/adr/0002-x.md", "Something else", "accepted", "X.");
        let parts = Parts { facts, superseded: vec![old], decisions: vec![other], files: Vec::new() };
        let (context, _) = compose(parts, 1_000);
        let names: Vec<(&str, bool)> = context.sources.iter().map(|s| (s.name.as_str(), s.read > 0)).collect();
        assert_eq!(
            names,
            [("design/records/0001-pg.md", true), (FACTS, true), ("docs/adr/0002-x.md", true)],
            "{:?}",
            context.sources
        );
        let facts = &context.sources[1];
        assert!(facts.cut() && facts.read <= 500, "the facts took at most half: {facts:?}");
        assert_eq!(context.decisions.len(), 2);
    }

    #[test]
    fn facts_stay_bounded_however_many_files_repeat_them() {
        let mut facts = ProjectFacts::default();
        for n in 0..150 {
            facts.infrastructure.push(Infrastructure {
                kind: "base image".into(),
                name: "rust:1.80".into(),
                detail: None,
                source: format!("services/s{n}/Dockerfile"),
            });
            facts.stack.push(Dependency {
                name: format!("crate{n}"),
                version: None,
                kind: DependencyKind::Library,
                detail: None,
                manifest: format!("services/s{n}/Cargo.toml"),
            });
        }
        let text = facts_text(&facts);
        assert!(
            text.contains("Infrastructure in 150 files (services/s0/Dockerfile, …): base image rust:1.80."),
            "{text}"
        );
        assert_eq!(text.matches("Stack in services/").count(), 10, "{text}");
        assert!(text.contains("Stack in 140 more manifests:") && text.contains("and 110 more"), "{text}");
        assert!(text.len() < 3_000, "{} bytes", text.len());
    }

    #[test]
    fn what_a_record_holds_cannot_add_lines_to_the_prompt() {
        let hostile = decision("docs/adr/0001-x.md", "Multi\n# Heading injected", "accepted\n## Status", "One.\nTwo.");
        assert_eq!(decision_text(&hostile).lines().count(), 1);
    }
}
