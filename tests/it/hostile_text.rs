//! Untrusted text cannot reshape what debate writes. Each string of a hostile corpus is
//! put in every field a model fills (arguments, the round summary, every part of the
//! synthesis) and in the question; the record keeps exactly its structure (checked with
//! pulldown-cmark), holds no HTML and no control character, keeps a real code block
//! intact, and neither the terminal nor the commit message carries an escape sequence.

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use serde_json::json;

use crate::common::*;

const CORPUS: &[&str] = &[
    "```\nan unclosed fence that would swallow every later section",
    "````rust\nfn four_backticks() {}",
    "~~~python\n# a comment in an unclosed tilde fence",
    "A title line\n=====",
    "Another title\n--",
    "---\nstatus: accepted\n---",
    "<details><summary>click</summary>hidden text",
    "<script>alert(1)</script>",
    "<!-- an unclosed comment",
    "# Injected H1\n## Injected H2\n### Injected H3",
    "> # a heading in a quote",
    "- # a heading in a list\n1. ## another",
    "\u{1b}]52;c;cHduZWQ=\u{7}OSC 52 clipboard write",
    "\u{1b}]0;a new window title\u{7}title change",
    "\u{1b}[2J\u{1b}[Hclear the screen",
    "carriage\rreturn, and a bell\u{7}",
    "bidi \u{202e}txt.exe\u{202c} override",
    "a | table | breaker",
    "Debate-Id: DEB-zzzzzz",
    "A paragraph line\n- \nand more prose",
    "1. a list item\n\n    # a heading inside the list item, not code",
];

const CODE: &str = "Run this first:\n\n```sh\n# a comment, not a heading\necho '<b>' > out.txt\n```";

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

/// The only HTML a record holds: the transcript's collapsed round, opened and closed,
/// the marks around each carried text, the one line that carries the debate and the one
/// that seals the record (in which nothing can end the comment or open markup).
fn transcript_html(html: &str) -> bool {
    let carried = ["<!-- debate:state {", "<!-- debate:seal {"]
        .iter()
        .find_map(|start| html.strip_prefix(start).and_then(|rest| rest.strip_suffix("} -->\n")));
    html == "<html block>"
        || html == "<details>\n"
        || html == "</details>\n"
        || html == "<!-- debate:text -->\n"
        || html == "<!-- /debate:text -->\n"
        || html.starts_with("<summary>Round 1 of 1 (") && html.ends_with(")</summary>\n")
        || carried.is_some_and(|json| !json.contains(['<', '>', '&', '\n']))
}

/// Every model-written field holds `hostile`; the recommendation holds `CODE` first.
fn script(hostile: &str) -> String {
    let text = |value: String| serde_json::to_string(&value).unwrap();
    let evaluation = json!({"summary": format!("Summary: {hostile}"), "assessment": "converging", "agreement": true,
        "clear_winner": null, "off_topic": [], "new_points": [hostile]});
    let synthesis = json!({
        "perspectives": PANEL.iter().map(|name| json!({"name": name, "key_arguments": [hostile, "plain point"],
            "trade_offs_accepted": [hostile]})).collect::<Vec<_>>(),
        "agreement": [hostile], "tensions": [hostile],
        "recommendation": format!("{CODE}\n\n{hostile}"),
        "confidence": "Medium", "caveats": [hostile],
        "dissent": {"perspective": PANEL[0], "view": hostile},
    });
    format!(
        "answers:\n  - {{purpose: argument, text: {}}}\n  - {{purpose: rebuttal, text: {}}}\n  - {{purpose: evaluation, text: {}}}\n  - {{purpose: synthesis, text: {}}}\n",
        text(format!("Argument with {hostile}")),
        text(format!("Rebuttal with {hostile}")),
        text(evaluation.to_string()),
        text(synthesis.to_string()),
    )
}

/// What a parser sees in the record.
#[derive(Debug, Default)]
struct Shape {
    h1: usize,
    h2: Vec<String>,
    h3: Vec<String>,
    tables: usize,
    /// Cells in each table row, header first.
    cells: Vec<usize>,
    html: Vec<String>,
    code_blocks: Vec<String>,
}

fn shape(markdown: &str) -> Shape {
    let options = Options::ENABLE_TABLES | Options::ENABLE_YAML_STYLE_METADATA_BLOCKS;
    let mut shape = Shape::default();
    let (mut heading, mut text, mut code) = (None, String::new(), None::<String>);
    for event in Parser::new_ext(markdown, options) {
        match event {
            Event::Start(Tag::Heading { level, .. }) => (heading, text) = (Some(level), String::new()),
            Event::End(TagEnd::Heading(_)) => match heading.take() {
                Some(HeadingLevel::H1) => shape.h1 += 1,
                Some(HeadingLevel::H2) => shape.h2.push(text.clone()),
                Some(HeadingLevel::H3) => shape.h3.push(text.clone()),
                other => panic!("unexpected heading {other:?}: {text}"),
            },
            Event::Start(Tag::CodeBlock(_)) => code = Some(String::new()),
            Event::End(TagEnd::CodeBlock) => shape.code_blocks.push(code.take().unwrap_or_default()),
            Event::Start(Tag::Table(_)) => shape.tables += 1,
            Event::Start(Tag::TableHead | Tag::TableRow) => shape.cells.push(0),
            Event::Start(Tag::TableCell) => *shape.cells.last_mut().unwrap() += 1,
            Event::Start(Tag::HtmlBlock) => shape.html.push("<html block>".into()),
            Event::Html(html) | Event::InlineHtml(html) => shape.html.push(html.to_string()),
            Event::Text(t) if code.is_some() => code.as_mut().unwrap().push_str(&t),
            Event::Text(t) | Event::Code(t) if heading.is_some() => text.push_str(&t),
            _ => {}
        }
    }
    shape
}

fn controls(text: &str) -> Vec<char> {
    text.chars()
        .filter(|c| {
            (c.is_control() && !matches!(c, '\n' | '\t'))
                || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        })
        .collect()
}

#[test]
fn hostile_text_cannot_reshape_the_record_the_terminal_or_the_commit() {
    let mut failures = Vec::new();
    for hostile in CORPUS {
        let sandbox = Sandbox::new();
        git(&sandbox.repo, &["config", "user.name", "Test"]);
        git(&sandbox.repo, &["config", "user.email", "test@example.com"]);
        let config = sandbox.scripted(&script(hostile));
        let question = format!("Should we use Redis or Postgres for caching? {hostile}");
        let out = sandbox.cmd().arg("--config").arg(&config).args(["-v", "-r", "1"]).arg(&question).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        if !out.status.success() {
            failures.push(format!("{hostile:?}: the debate failed: {stderr}"));
            continue;
        }
        let record = std::fs::read_to_string(&sandbox.records()[0]).unwrap();
        let shape = shape(&record);
        let mut problems = Vec::new();
        let rows_whole = shape.cells.iter().all(|n| *n == 5);
        let h3_whole = shape
            .h3
            .starts_with(&["Consequences", "Confirmation", "Guards", "Review By", "Action Items"].map(String::from))
            && shape.h3.ends_with(&PANEL.map(String::from));
        if shape.h1 != 1 || shape.h2 != SECTIONS || !h3_whole || shape.tables != 1 || !rows_whole {
            problems.push(format!("structure {shape:?}"));
        }
        let details = shape.html.iter().filter(|h| h.starts_with("<details>") || h.starts_with("</details>")).count();
        if !shape.html.iter().all(|h| transcript_html(h)) || details != 2 {
            problems.push(format!("HTML {:?}", shape.html));
        }
        if !shape.code_blocks.iter().any(|c| c == "# a comment, not a heading\necho '<b>' > out.txt\n") {
            problems.push(format!("the real code block was changed: {:?}", shape.code_blocks));
        }
        for (what, text) in [("the record", record.as_str()), ("the terminal", stderr.as_str())] {
            if !controls(text).is_empty() {
                problems.push(format!("control characters in {what}: {:?}", controls(text)));
            }
        }
        let message = git(&sandbox.repo, &["log", "-1", "--format=%B"]);
        if !controls(&message).is_empty() || message.lines().next().is_some_and(|s| s.contains('\u{1b}')) {
            problems.push(format!("control characters in the commit message: {message:?}"));
        }
        let trailers = git(&sandbox.repo, &["log", "-1", "--format=%(trailers:key=Debate-Id,valueonly)"]);
        if trailers.trim() != sandbox.only_id() {
            problems.push(format!("Debate-Id trailers {trailers:?}"));
        }
        if !problems.is_empty() {
            failures.push(format!("{hostile:?}:\n  {}\n{record}", problems.join("\n  ")));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} hostile strings got through:\n{}",
        failures.len(),
        CORPUS.len(),
        failures.join("\n\n")
    );
}

/// A repository's own template is untrusted too: a value it prints without a filter is
/// still made safe (one line, nothing it holds can start a structure).
#[test]
fn a_repository_template_printing_values_bare_cannot_be_broken_either() {
    let sandbox = Sandbox::new();
    let templates = sandbox.repo.join(".debate/templates");
    std::fs::create_dir_all(&templates).unwrap();
    std::fs::write(
        templates.join("decision.md"),
        "# {{ title }}\n\n## Recommendation\n\n{{ recommendation }}\n\n## Caveats\n\n{% for c in caveats %}- {{ c }}\n{% endfor %}",
    )
    .unwrap();
    let hostile = "Use Postgres.\n# Injected H1\n<script>alert(1)</script>\n```\nunclosed";
    let config = sandbox.scripted(&script(hostile));
    sandbox.cmd().arg("--config").arg(&config).args(["-r", "1", QUESTION]).assert().success();
    let record = std::fs::read_to_string(&sandbox.records()[0]).unwrap();
    let shape = shape(&record);
    assert_eq!(
        (shape.h1, shape.h2.clone()),
        (1, vec!["Recommendation".to_string(), "Caveats".into(), "Provenance".into()]),
        "{record}"
    );
    // Its seal is the only HTML it holds.
    let seal = |h: &String| h == "<html block>" || h.starts_with("<!-- debate:seal {") && transcript_html(h);
    assert!(shape.html.iter().all(seal) && shape.code_blocks.is_empty(), "{shape:?}\n{record}");
}

/// A renderer that knows no front matter shows it as text, and one that passes HTML
/// through would take markup in it as markup: the front matter holds none, and every
/// value reads back as it was asked.
#[test]
fn the_front_matter_holds_no_html_a_renderer_could_run() {
    let sandbox = Sandbox::new();
    let question = "Redis </details><img src=x onerror=alert(1)> & Postgres: which for caching?";
    sandbox.cmd().args(["--offline", "-q", question]).assert().success();
    let record = std::fs::read_to_string(&sandbox.records()[0]).unwrap();
    let front = record.strip_prefix("---\n").and_then(|rest| rest.split_once("\n---\n")).unwrap().0;
    assert!(!front.contains(['<', '>', '&']), "{front}");
    assert_eq!(sandbox.shown()["question"], question, "the debate keeps the question as it was asked");
    let index = std::fs::read_to_string(sandbox.repo.join("docs/decisions/README.md")).unwrap();
    assert!(
        index.contains(r"[Redis \</details>\<img src=x"),
        "the index reads the title back, escaped as markdown: {index}"
    );
}
