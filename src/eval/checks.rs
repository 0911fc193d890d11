//! What a record's text shows without a model: the part of it an evaluator reads, the
//! checks (the sections a decision needs, placeholders, repeated text, options of the
//! question left out), and the marks those alone give — what the offline provider
//! answers with, which no model judged. Pure.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

use crate::model::{self, Check, CheckKind, Criterion, Mark, Place, Shape};

/// The sections a decision record needs, each by the names it goes by (MADR's first).
const NEEDED: &[&[&str]] = &[
    &["Decision Outcome", "Decision"],
    &["Considered Options"],
    &["Pros and Cons of the Options", "Pros and Cons"],
    &["Consequences"],
    &["Confirmation"],
    &["Action Items"],
    &["Dissenting View", "Dissent"],
];

/// Sections that quote the question: an option named there is not weighed by it.
const QUOTING_THE_QUESTION: &[&str] = &["Question", "Context and Problem Statement"];

/// A sentence shorter than this many words may well recur (a name, a verdict).
const REPEATED_WORDS: usize = 6;

/// The findings a check lists at most.
const FINDINGS: usize = 8;

/// The part of a record an evaluator reads: without its front matter, its provenance
/// (where earlier scores are written), its transcript and the comments debate keeps in it.
pub fn body(record: &str) -> String {
    let record = record.replace("\r\n", "\n");
    let mut lines = record.lines().peekable();
    if lines.peek() == Some(&"---") {
        lines.next();
        lines.by_ref().find(|line| *line == "---");
    }
    let mut kept = Vec::new();
    let mut in_provenance = false;
    for line in lines {
        if line.starts_with("## ") {
            match line.trim_end() {
                "## Transcript" => break,
                "## Provenance" => in_provenance = true,
                _ => in_provenance = false,
            }
        }
        let comment = line.trim_start().starts_with("<!--") && line.trim_end().ends_with("-->");
        if !in_provenance && !comment {
            kept.push(line);
        }
    }
    kept.join("\n").trim().to_string() + "\n"
}

/// Every check on `body` (see `body`); `options` are those the question names.
pub fn run(body: &str, options: &[String]) -> Vec<Check> {
    let sections = sections(body);
    vec![
        Check { kind: CheckKind::Sections, findings: missing_sections(&sections) },
        Check { kind: CheckKind::Placeholders, findings: placeholders(&sections) },
        Check { kind: CheckKind::Repetition, findings: repeated(body) },
        Check { kind: CheckKind::Options, findings: options_left_out(&sections, options) },
    ]
}

/// The marks `body`'s text alone gives each criterion, with `checks` (see `run`): how
/// much of what a decision needs is written down, which says nothing of how good it is
/// (whoever shows them says they are no model's judgement).
pub fn composed(body: &str, checks: &[Check]) -> Vec<Mark> {
    let sections = sections(body);
    let mark = |criterion, score: usize, why: String| Mark {
        criterion,
        score: score.clamp(1, 10) as u8,
        reason: format!("{}{}.", why[..1].to_uppercase(), &why[1..]),
    };
    let options_missing = checks.iter().find(|c| c.kind == CheckKind::Options).map_or(0, |c| c.findings.len());
    let decision = match find(&sections, NEEDED[0]) {
        Some(s) if s.lines.iter().any(|l| l.to_lowercase().contains("chosen option")) => {
            mark(Criterion::Decision, 8, "the record names its chosen option".into())
        }
        Some(s) if has_content(s) => {
            mark(Criterion::Decision, 3, "the record states an outcome but no chosen option".into())
        }
        _ => mark(Criterion::Decision, 1, "the record states no decision".into()),
    };
    let weighed = option_sections(&sections);
    let both = weighed.iter().filter(|(pros, cons)| *pros && *cons).count();
    let options = match weighed.len() {
        0 => mark(Criterion::Options, 1, "the record weighs no option".into()),
        n => mark(
            Criterion::Options,
            1 + (9 * both + n / 2) / n,
            format!("{both} of {n} options have both pros and cons"),
        ),
    };
    let context = mark(
        Criterion::Context,
        5usize.saturating_sub(2 * options_missing),
        match options_missing {
            0 => {
                "no model compared the arguments with the project's context, so this is the middle of the scale".into()
            }
            n => format!(
                "no model compared the arguments with the project's context, and {n} option(s) of the question are not weighed"
            ),
        },
    );
    let dissent = match find(&sections, NEEDED[6]) {
        Some(s) if s.lines.iter().any(|l| l.trim_start().starts_with("- ")) => {
            let n = s.lines.iter().filter(|l| l.trim_start().starts_with("- ")).count();
            mark(Criterion::Dissent, 7, format!("the dissenting view names {n} perspective(s) and where they stand"))
        }
        Some(s) if has_content(s) => {
            mark(Criterion::Dissent, 4, "the record states no dissenting perspective by name".into())
        }
        _ => mark(Criterion::Dissent, 1, "the record has no dissenting view".into()),
    };
    // What follows from the decision: the sections it declares under the outcome. Guards
    // and a review date are for decisions that can be checked or dated: none is no gap.
    let following: Vec<String> = model::sections()
        .filter(|s| s.place == Place::Outcome && !matches!(s.shape, Shape::Guards | Shape::Date))
        .map(|s| s.heading.to_lowercase())
        .collect();
    let (written, missing): (Vec<&str>, Vec<&str>) =
        following.iter().map(String::as_str).partition(|name| find(&sections, &[name]).is_some_and(has_content));
    let all = match following.as_slice() {
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
        [] => String::new(),
    };
    let follow_through = mark(
        Criterion::FollowThrough,
        1 + 9 * written.len() / following.len().max(1),
        match (written.is_empty(), missing.is_empty()) {
            (_, true) => format!("{all} are all written"),
            (true, _) => format!("{all} are all missing"),
            _ => format!("written: {}; missing: {}", written.join(", "), missing.join(", ")),
        },
    );
    vec![decision, options, context, dissent, follow_through]
}

/// A heading and the lines under it, up to the next heading.
struct Section<'a> {
    level: usize,
    title: String,
    lines: Vec<&'a str>,
}

fn sections(body: &str) -> Vec<Section<'_>> {
    let mut sections = vec![Section { level: 0, title: String::new(), lines: Vec::new() }];
    for line in body.lines() {
        let hashes = line.chars().take_while(|c| *c == '#').count();
        match (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
            true => {
                sections.push(Section { level: hashes, title: line[hashes..].trim().to_string(), lines: Vec::new() })
            }
            false => sections.last_mut().expect("the section before any heading").lines.push(line),
        }
    }
    sections
}

fn find<'s, 'a>(sections: &'s [Section<'a>], names: &[&str]) -> Option<&'s Section<'a>> {
    sections.iter().find(|s| names.iter().any(|name| s.title.eq_ignore_ascii_case(name)))
}

/// Whether a section says anything but that it is empty.
fn has_content(section: &Section) -> bool {
    section.lines.iter().any(|line| !line.trim().is_empty() && !is_empty_marker(line))
}

static EMPTY_MARKER: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\*\(([^()]*)\)\*").expect("valid"));
/// A prompt's placeholder a model gave back (`<option>`, escaped in the record), or a
/// writer's note that something is still to come.
static PLACEHOLDER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:\\?<|&lt;)([a-z][a-z0-9 ,'/-]{0,60})(?:\\?>|&gt;)|\b(TODO|TBD|FIXME)\b|(?i)\b(lorem ipsum)\b")
        .expect("valid")
});

/// A line that only says its section is empty, as debate writes it: `*(none given)*`.
fn is_empty_marker(line: &str) -> bool {
    let line = line.trim().trim_start_matches("- ");
    EMPTY_MARKER.find(line).is_some_and(|m| m.as_str().len() == line.len())
}

fn missing_sections(sections: &[Section]) -> Vec<String> {
    NEEDED
        .iter()
        .filter(|names| find(sections, names).is_none())
        .map(|names| format!("no \"{}\" section", names[0]))
        .collect()
}

fn placeholders(sections: &[Section]) -> Vec<String> {
    let mut found = Vec::new();
    for section in sections {
        let place = if section.title.is_empty() { "the header".to_string() } else { section.title.clone() };
        for line in &section.lines {
            // A line that leads with its own label (`**Caveats:** …`) is named by it.
            let place = match line.strip_prefix("**").and_then(|rest| rest.split_once(":**")) {
                Some((label, _)) => format!("{place}, {label}"),
                None => place.clone(),
            };
            if let Some(m) = EMPTY_MARKER.captures(line) {
                found.push(format!("{place}: ({})", &m[1]));
            }
            for m in PLACEHOLDER.captures_iter(line) {
                let text = m.iter().skip(1).flatten().next().map_or("", |g| g.as_str());
                found.push(format!("{place}: {text:?}"));
            }
        }
    }
    found.truncate(FINDINGS);
    found
}

/// Sentences of `REPEATED_WORDS` words or more written more than once.
fn repeated(body: &str) -> Vec<String> {
    let mut seen: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    // Headings, tables and the lines that only say a section is empty (placeholders,
    // counted by their own check) aside.
    let prose = body.lines().filter(|l| !l.starts_with('#') && !l.trim_start().starts_with('|') && !is_empty_marker(l));
    for (order, sentence) in prose.flat_map(sentences).enumerate() {
        let words: Vec<String> = sentence
            .split(|c: char| !c.is_alphanumeric() && !matches!(c, '\'' | '\u{2019}'))
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect();
        if words.len() >= REPEATED_WORDS {
            seen.entry(words.join(" ")).or_insert((order, 0)).1 += 1;
        }
    }
    let mut twice: Vec<(usize, String, usize)> =
        seen.into_iter().filter(|(_, (_, n))| *n > 1).map(|(words, (order, n))| (order, words, n)).collect();
    twice.sort();
    twice
        .into_iter()
        .take(FINDINGS)
        .map(|(_, words, n)| {
            let opening: Vec<&str> = words.split(' ').take(8).collect();
            format!("\"{}…\" is written {n} times", opening.join(" "))
        })
        .collect()
}

/// A line's sentences: split after `.`, `!` or `?` followed by a space.
fn sentences(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = line.as_bytes();
    for (at, c) in line.char_indices() {
        if matches!(c, '.' | '!' | '?') && bytes.get(at + 1).is_none_or(|next| *next == b' ') {
            out.push(&line[start..=at]);
            start = at + 1;
        }
    }
    out.push(&line[start..]);
    out
}

/// The options the question names that no section but those quoting the question names.
fn options_left_out(sections: &[Section], options: &[String]) -> Vec<String> {
    let weighed: String = sections
        .iter()
        .filter(|s| !QUOTING_THE_QUESTION.iter().any(|q| s.title.eq_ignore_ascii_case(q)))
        .map(|s| format!("{}\n{}\n", s.title, s.lines.join("\n")))
        .collect::<String>()
        .to_lowercase();
    options
        .iter()
        .filter(|option| !names(&weighed, &option.to_lowercase()))
        .map(|option| format!("{option:?} is named in the question and weighed nowhere in the record"))
        .collect()
}

/// Whether `text` holds `word` on its own (not inside a longer word).
fn names(text: &str, word: &str) -> bool {
    let word = word.trim();
    !word.is_empty()
        && text.match_indices(word).any(|(at, _)| {
            let before = text[..at].chars().next_back();
            let after = text[at + word.len()..].chars().next();
            !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
        })
}

/// Per option under the pros and cons: whether it has a pro, and a con.
fn option_sections(sections: &[Section]) -> Vec<(bool, bool)> {
    let Some(at) = sections.iter().position(|s| NEEDED[2].iter().any(|n| s.title.eq_ignore_ascii_case(n))) else {
        return Vec::new();
    };
    let level = sections[at].level;
    sections[at + 1..]
        .iter()
        .take_while(|s| s.level > level)
        .map(|s| {
            let starts = |word: &str| s.lines.iter().any(|l| l.trim_start().trim_start_matches("- ").starts_with(word));
            (starts("Good"), starts("Bad"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::model::fixture;
    use crate::record::Templates;

    fn record(state: &crate::model::DebateState) -> String {
        Templates::built_in().decision(state, Path::new("/repo/docs/decisions/x.md")).unwrap().decision
    }

    fn options() -> Vec<String> {
        vec!["Redis".into(), "Postgres".into()]
    }

    #[test]
    fn the_body_leaves_out_front_matter_provenance_and_transcript() {
        let body = body(&record(&fixture::complete(2)));
        assert!(body.starts_with("# Cache in Postgres"), "{body}");
        assert!(body.contains("## Dissenting View") && body.contains("## Debate Log"), "{body}");
        for gone in ["## Provenance", "## Transcript", "debate:state", "id: DEB-abc123"] {
            assert!(!body.contains(gone), "{gone} in {body}");
        }
    }

    #[test]
    fn a_whole_record_passes_every_check() {
        let body = body(&record(&fixture::complete(2)));
        for check in run(&body, &options()) {
            assert!(check.passed(), "{check:?}\n{body}");
        }
    }

    #[test]
    fn each_check_names_what_it_found() {
        let mut state = fixture::complete(1);
        let synthesis = &mut state.outcome.as_mut().unwrap().synthesis;
        synthesis.consequences = Default::default();
        synthesis.action_items.clear();
        synthesis.options.retain(|o| o.option == "Postgres");
        synthesis.agreement = vec!["Both agree that the cache must be measured before anything else.".into()];
        synthesis.tensions = vec!["Both agree that the cache must be measured before anything else.".into()];
        synthesis.rationale = "<why, in one sentence>".into();
        let body = body(&record(&state)).replace("## Confirmation", "## Verification");
        let checks = run(&body, &["Redis".into(), "Postgres".into(), "Memcached".into()]);
        let found = |kind: CheckKind| checks.iter().find(|c| c.kind == kind).unwrap().findings.clone();
        assert_eq!(found(CheckKind::Sections), ["no \"Confirmation\" section"]);
        let placeholders = found(CheckKind::Placeholders);
        assert!(placeholders.contains(&"Consequences: (none given)".to_string()), "{placeholders:?}");
        assert!(placeholders.contains(&"Action Items: (none given)".to_string()), "{placeholders:?}");
        assert!(placeholders.iter().any(|p| p.contains("why, in one sentence")), "{placeholders:?}");
        assert_eq!(
            found(CheckKind::Repetition),
            ["\"both agree that the cache must be measured…\" is written 2 times"]
        );
        assert_eq!(
            found(CheckKind::Options),
            ["\"Memcached\" is named in the question and weighed nowhere in the record"]
        );
    }

    #[test]
    fn an_option_inside_a_longer_word_is_not_named() {
        assert!(names("we use postgres now", "postgres"));
        assert!(!names("we use postgresql now", "postgres"));
        assert!(names("c++ and rust", "c++"));
    }

    #[test]
    fn composed_marks_follow_what_is_written() {
        let whole = body(&record(&fixture::complete(1)));
        let marks = composed(&whole, &run(&whole, &options()));
        let scores: Vec<u8> = marks.iter().map(|m| m.score).collect();
        assert_eq!(scores, [8, 10, 5, 7, 10], "{marks:?}");
        assert_eq!(marks[1].reason, "2 of 2 options have both pros and cons.");
        let mut state = fixture::complete(1);
        let synthesis = &mut state.outcome.as_mut().unwrap().synthesis;
        synthesis.chosen_option = None;
        synthesis.options[0].cons.clear();
        synthesis.action_items.clear();
        synthesis.confirmation.clear();
        let thin = body(&record(&state));
        let scores: Vec<u8> = composed(&thin, &run(&thin, &options())).iter().map(|m| m.score).collect();
        assert_eq!(scores, [3, 6, 5, 7, 4]);
    }
}
