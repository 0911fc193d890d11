//! The decision record as a reader and a parser see it (README: "The decision record",
//! "File names"): sections, front matter, naming. Records come from real debates run
//! through the binary.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::common::*;
use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};

/// Decision first, reasoning after, transcript last: every section of debate's own
/// synthesis document and of MADR 4, in the order a reviewer reads them (the README's
/// "The decision record" lists them).
const SECTIONS: [&str; 14] = [
    "Status",
    "Question",
    "Decision Outcome",
    "Recommendation",
    "Context and Problem Statement",
    "Considered Options",
    "Pros and Cons of the Options",
    "Perspectives Considered",
    "Points of Agreement",
    "Key Tensions",
    "Dissenting View",
    "Debate Log",
    "Provenance",
    "Transcript",
];
const SYNTHESIS_DOCUMENT: [&str; 6] =
    ["Question", "Perspectives Considered", "Points of Agreement", "Key Tensions", "Recommendation", "Dissenting View"];
const MADR_4: [&str; 4] =
    ["Context and Problem Statement", "Considered Options", "Decision Outcome", "Pros and Cons of the Options"];

/// A decision-shaped synthesis naming every perspective on `panel`; the first one
/// dissents.
fn synthesis(panel: &[&str], recommendation: &str) -> String {
    let perspectives: Vec<String> = panel
        .iter()
        .map(|n| format!(r#"{{"name": "{n}", "key_arguments": ["{n} point one", "{n} point two"], "trade_offs_accepted": ["{n} gives up something"]}}"#))
        .collect();
    format!(
        r#"{{"title": "Cache in Postgres until the load says otherwise", "perspectives": [{}], "options": [{{"option": "Redis", "pros": ["fast reads ({first})"], "cons": ["one more service"]}}, {{"option": "Postgres", "pros": ["already run"], "cons": []}}], "chosen_option": "Postgres", "rationale": "the load fits one database", "agreement": ["measure first"], "tensions": ["speed against simplicity"], "recommendation": "{recommendation}", "confidence": "Medium", "caveats": ["traffic grows tenfold"], "consequences": {{"good": ["one database"], "bad": ["slower cache hits"]}}, "confirmation": "p99 under 50 ms for 30 days", "action_items": ["add a cache table"], "dissents": [{{"perspective": "{first}", "option": "Redis", "reason": "it will not scale"}}]}}"#,
        perspectives.join(", "),
        first = panel[0]
    )
}

/// Run a scripted debate with this panel forced; returns the record's text with the id
/// and date replaced by placeholders.
fn record_for(panel: &[&str], recommendation: &str, summary: &str) -> (String, Sandbox) {
    let sandbox = Sandbox::new();
    let evaluation = AGREE.replace("Both now recommend Postgres first.", summary);
    let answers = varied_answers(panel, 1, &evaluation).replace(SYNTHESIS, &synthesis(panel, recommendation));
    let config = sandbox.scripted(&answers);
    let mut cmd = sandbox.cmd();
    cmd.arg("--config").arg(&config).args(["--no-commit", "-p", &panel.len().to_string()]);
    for name in panel {
        cmd.args(["--with", name]);
    }
    cmd.arg(QUESTION).assert().success();
    let records = sandbox.records();
    assert_eq!(records.len(), 1);
    let debate = sandbox.shown();
    let (id, created) = (debate["id"].as_str().unwrap(), debate["created_at"].as_str().unwrap());
    let text =
        std::fs::read_to_string(&records[0]).unwrap().replace(id, "DEB-xxxxxx").replace(&created[..10], "YYYY-MM-DD");
    // The line that carries the debate holds its timestamps; its form is the unit tests'.
    let carried = text.lines().filter(|l| l.starts_with("<!-- debate:state {") && l.ends_with("} -->")).count();
    assert_eq!(carried, 1, "one line carries the debate:\n{text}");
    // The seal holds the digests of the record's parts, timestamps and id among them.
    let text = text
        .lines()
        .map(|l| match l {
            l if l.starts_with("<!-- debate:state {") => "<!-- debate:state {…} -->",
            l if l.starts_with("<!-- debate:seal {") => "<!-- debate:seal {…} -->",
            l => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n";
    (text, sandbox)
}

/// The record as GitHub's parser sees it: headings by level (H3s under their H2),
/// tables, `<details>` blocks opened and closed, and the front matter.
#[derive(Default)]
struct Structure {
    h1: Vec<String>,
    h2: Vec<String>,
    h3: BTreeMap<String, Vec<String>>,
    /// H2 sections that contain a table.
    tables_in: Vec<String>,
    /// `<details>` opened and closed, in order, as HTML the parser saw.
    details: Vec<&'static str>,
    front_matter: String,
}

fn structure(markdown: &str) -> Structure {
    let options = Options::ENABLE_TABLES | Options::ENABLE_YAML_STYLE_METADATA_BLOCKS;
    let mut s = Structure::default();
    let (mut heading, mut text, mut in_meta) = (None, String::new(), false);
    for event in Parser::new_ext(markdown, options) {
        match event {
            Event::Start(Tag::MetadataBlock(_)) => in_meta = true,
            Event::End(TagEnd::MetadataBlock(_)) => in_meta = false,
            Event::Start(Tag::Heading { level, .. }) => {
                heading = Some(level);
                text.clear();
            }
            Event::End(TagEnd::Heading(_)) => match heading.take() {
                Some(HeadingLevel::H1) => s.h1.push(text.clone()),
                Some(HeadingLevel::H2) => s.h2.push(text.clone()),
                Some(HeadingLevel::H3) => {
                    s.h3.entry(s.h2.last().cloned().unwrap_or_default()).or_default().push(text.clone())
                }
                other => panic!("unexpected heading {other:?}: {text}"),
            },
            Event::Start(Tag::Table(_)) => s.tables_in.push(s.h2.last().cloned().unwrap_or_default()),
            Event::Html(html) | Event::InlineHtml(html) => {
                for line in html.lines() {
                    match line.trim() {
                        "<details>" => s.details.push("open"),
                        "</details>" => s.details.push("close"),
                        _ => {}
                    }
                }
            }
            Event::Text(t) if in_meta => s.front_matter.push_str(&t),
            Event::Text(t) | Event::Code(t) if heading.is_some() => text.push_str(&t),
            _ => {}
        }
    }
    s
}

fn assert_structure(markdown: &str, panel: &[&str], rounds: usize) {
    let s = structure(markdown);
    assert_eq!(s.h1.len(), 1, "{markdown}");
    assert!(s.h1[0].chars().count() <= 72, "{:?}", s.h1);
    assert_eq!(s.h2, SECTIONS, "{markdown}");
    for section in SYNTHESIS_DOCUMENT.iter().chain(&MADR_4) {
        assert!(s.h2.iter().any(|h| h == section), "no {section}");
    }
    assert_eq!(
        s.h3["Decision Outcome"][..5],
        ["Consequences", "Confirmation", "Guards", "Review By", "Action Items"],
        "{markdown}"
    );
    assert_eq!(s.h3["Perspectives Considered"], panel, "{markdown}");
    assert_eq!(s.tables_in, ["Debate Log"], "{markdown}");
    assert_eq!(s.details, ["open", "close"].repeat(rounds), "one closed <details> per round: {markdown}");
    let front: serde_json::Value = serde_saphyr::from_str(&s.front_matter).expect("front matter is YAML");
    for key in [
        "id",
        "title",
        "status",
        "date",
        "decision-makers",
        "consulted",
        "perspectives",
        "chosen-option",
        "rounds",
        "ended_by",
        "confidence",
        "moderator",
        "debaters",
        "models",
        "tokens",
        "tool",
    ] {
        assert!(front.as_object().unwrap().contains_key(key), "front matter lacks {key}: {}", s.front_matter);
    }
    assert_eq!(front["status"], "proposed", "MADR tools read status");
    assert_eq!(front["perspectives"].as_array().unwrap().len(), panel.len());
    assert_eq!(front["debaters"].as_array().unwrap().len(), panel.len());
    assert!(front["tokens"]["prompt"].as_u64().unwrap() > 0);
    assert!(front["tool"].as_str().unwrap().starts_with("debate "));
}

#[test]
fn two_perspective_record() {
    let panel = ["Performance Advocate", "Operational Simplicity"];
    let (text, _) = record_for(&panel, "Cache in Postgres now.", "Both now recommend Postgres first.");
    assert_structure(&text, &panel, 1);
    insta::assert_snapshot!(text);
}

#[test]
fn three_perspective_record() {
    let panel = ["Performance Advocate", "Operational Simplicity", "Cost Control"];
    let (text, _) = record_for(&panel, "Cache in Postgres now.", "All three converge on Postgres.");
    assert_structure(&text, &panel, 1);
    insta::assert_snapshot!(text);
}

#[test]
fn four_perspective_record() {
    let panel = ["Performance Advocate", "Operational Simplicity", "Cost Control", "Reliability Engineer"];
    let (text, _) = record_for(&panel, "Cache in Postgres now.", "All four converge on Postgres.");
    assert_structure(&text, &panel, 1);
    insta::assert_snapshot!(text);
}

#[test]
fn model_text_cannot_break_the_record_structure() {
    let panel = ["Performance Advocate", "Operational Simplicity"];
    let (text, _) = record_for(
        &panel,
        "## Injected heading\\nUse Postgres.\\n---\\n# Another\\nMore text\\n===",
        "A | B | C summary\\n## not a heading",
    );
    assert_structure(&text, &panel, 1);
    assert!(text.contains("Use Postgres."), "{text}");
}

#[test]
fn empty_sections_are_stated_not_dropped() {
    let sandbox = Sandbox::new();
    let sparse = r#"{"recommendation": "Use Postgres.", "confidence": "High"}"#;
    let config = sandbox.scripted(&varied_answers(&PANEL, 1, AGREE).replace(SYNTHESIS, sparse));
    sandbox.cmd().arg("--config").arg(&config).args(["--no-commit", QUESTION]).assert().success();
    let text = std::fs::read_to_string(&sandbox.records()[0]).unwrap();
    assert_structure(&text, &PANEL, 1);
    assert!(text.contains("*(the moderator left this empty)*"), "{text}");
    assert!(text.contains("*(the moderator recorded no points of agreement)*"), "{text}");
    assert!(text.contains("*(the moderator recorded no tensions)*"), "{text}");
}

fn record_name(sandbox: &Sandbox, args: &[&str], question: &str) -> PathBuf {
    // After `--`, as a one-word question must be (`../../etc/passwd` is one word).
    let out =
        sandbox.cmd().args(["--offline", "-q", "--no-commit"]).args(args).arg("--").arg(question).assert().success();
    let path = PathBuf::from(String::from_utf8_lossy(&out.get_output().stdout).trim());
    assert_eq!(
        path.parent().unwrap().canonicalize().unwrap(),
        sandbox.repo.join("docs/decisions").canonicalize().unwrap(),
        "never outside record.directory"
    );
    path
}

#[test]
fn hostile_titles_make_safe_names_inside_the_record_directory() {
    let sandbox = Sandbox::new();
    let long = format!("Should we {}or stop?", "really ".repeat(70));
    for (question, expected) in [
        (
            "Sollen wir für das Caching Redis oder Postgres nehmen?",
            "sollen-wir-fur-das-caching-redis-oder-postgres-nehmen",
        ),
        ("🚀 Redis or Postgres? 🔥", "rocket-redis-or-postgres"),
        ("../../etc/passwd", "etc-passwd"),
        ("???", "decision"),
        (long.as_str(), ""),
    ] {
        let path = record_name(&sandbox, &[], question);
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let slug = name[11..].trim_end_matches(".md");
        assert!(name.len() <= 11 + 60 + 3, "{name}");
        assert!(slug.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'), "{name}");
        if !expected.is_empty() {
            assert!(slug.starts_with(expected), "{question:?} → {name}");
        }
    }
}

#[test]
fn a_long_question_keeps_the_options_it_names_in_the_file_name() {
    let sandbox = Sandbox::new();
    let question = "Given the write load on the orders service's primary database: should we migrate from Postgres to CockroachDB?";
    let path = record_name(&sandbox, &[], question);
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    // Cut at a word, with the names of the options past the cut kept at its end.
    assert_eq!(&name[11..], "given-the-write-load-on-the-orders-postgres-cockroachdb.md");
}

#[test]
fn numbered_names_continue_past_every_local_branch() {
    let sandbox = Sandbox::new();
    let repo = &sandbox.repo;
    git(repo, &["config", "user.name", "Test"]);
    git(repo, &["config", "user.email", "test@example.com"]);
    std::fs::create_dir_all(repo.join("docs/decisions")).unwrap();
    std::fs::write(repo.join("docs/decisions/0003-old.md"), "old\n").unwrap();
    git(repo, &["add", "."]);
    git(repo, &["commit", "-qm", "old"]);
    git(repo, &["checkout", "-qb", "elsewhere"]);
    std::fs::write(repo.join("docs/decisions/0007-other-branch.md"), "other\n").unwrap();
    git(repo, &["add", "."]);
    git(repo, &["commit", "-qm", "other"]);
    git(repo, &["checkout", "-q", "main"]);
    std::fs::create_dir_all(repo.join(".debate")).unwrap();
    std::fs::write(repo.join(".debate/settings.yaml"), "record:\n  filename: \"{number}-{slug}.md\"\n").unwrap();

    let first = record_name(&sandbox, &[], QUESTION);
    assert_eq!(first.file_name().unwrap(), "0008-should-we-use-redis-or-postgres-for-caching.md");
    let second = record_name(&sandbox, &[], QUESTION);
    assert_eq!(second.file_name().unwrap(), "0009-should-we-use-redis-or-postgres-for-caching.md");
}

#[test]
fn id_names_use_the_debate_id() {
    let sandbox = Sandbox::new();
    std::fs::create_dir_all(sandbox.repo.join(".debate")).unwrap();
    std::fs::write(sandbox.repo.join(".debate/settings.yaml"), "record:\n  filename: \"{id}.md\"\n").unwrap();
    let path = record_name(&sandbox, &[], QUESTION);
    let id = sandbox.only_id().to_lowercase();
    assert_eq!(path.file_name().unwrap().to_string_lossy(), format!("{id}.md"));
}

#[test]
fn a_repository_template_overrides_the_built_in_one() {
    let sandbox = Sandbox::new();
    std::fs::create_dir_all(sandbox.repo.join(".debate/templates")).unwrap();
    std::fs::write(
        sandbox.repo.join(".debate/templates/decision.md"),
        "---\nid: {{ id }}\n---\n# {{ title }}\n\nOurs: {{ confidence }}\n",
    )
    .unwrap();
    let path = record_name(&sandbox, &[], QUESTION);
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains("Ours: Low"), "{text}");
}

#[test]
fn a_broken_template_is_reported_before_the_debate_starts() {
    let sandbox = Sandbox::new();
    std::fs::create_dir_all(sandbox.repo.join(".debate/templates")).unwrap();
    std::fs::write(sandbox.repo.join(".debate/templates/decision.md"), "{% for x in %}").unwrap();
    let before = sandbox.files();
    sandbox
        .cmd()
        .args(["--offline", QUESTION])
        .assert()
        .code(4)
        .stderr(predicates::str::contains(".debate/templates/decision.md"));
    assert_eq!(before, sandbox.files(), "nothing written");
}

/// A debater the moderator finds off the question twice is muted: the log says when,
/// and the front matter and provenance name it. Nobody waits between rounds, so each
/// round opens while the one before is judged: round 4 is the first to open after two
/// evaluations.
#[test]
fn a_muted_debater_is_visible_in_the_record() {
    let sandbox = Sandbox::new();
    let panel = ["Performance Advocate", "Operational Simplicity", "Cost Control"];
    let drifting = CONTINUE.replace(r#""off_topic": []"#, r#""off_topic": ["Cost Control"]"#);
    let config = sandbox.scripted(&varied_answers(&panel, 4, &drifting));
    let mut cmd = sandbox.cmd();
    cmd.arg("--config").arg(&config).args(["--no-commit", "-p", "3", "-r", "4"]);
    for name in panel {
        cmd.args(["--with", name]);
    }
    cmd.arg(QUESTION).assert().success();
    let record = std::fs::read_to_string(&sandbox.records()[0]).unwrap();
    assert!(record.contains("muted: [Cost Control]\n"), "{record}");
    assert!(record.contains("off the question: Cost Control |"), "{record}");
    assert!(
        record.contains("- Cost Control: scripted-test (scripted, temperature 0.8) · muted as off-topic"),
        "{record}"
    );
}
