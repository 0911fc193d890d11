//! The README's examples, run: its set-up block pasted whole into a shell, and every
//! ```console block — `$ command` lines, each followed by what it prints — run in a
//! fresh repository and compared with what `debate` prints now. In expected output,
//! `[..]` stands for any text within a line and a line `...` for any number of lines;
//! debate ids, dates and durations are compared by shape. And every completion line the
//! README and the guides give, run in a fresh home.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use crate::common::{Sandbox, git, text};

fn readme() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap()
}

/// The fenced blocks of `markdown` whose info string is `lang`, in order.
fn blocks(markdown: &str, lang: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        match (&mut current, line.trim_end()) {
            (None, fence) if fence.strip_prefix("```") == Some(lang) => current = Some(String::new()),
            (Some(_), "```") => found.extend(current.take()),
            (Some(block), _) => {
                block.push_str(line);
                block.push('\n');
            }
            (None, _) => {}
        }
    }
    found
}

/// A shell in the sandbox's repository whose `debate` is the binary under test.
fn shell(sandbox: &Sandbox, dir: &Path, script: &str) -> std::process::Output {
    sandbox.bash(dir).arg("-c").arg(script).env("COLUMNS", "100").output().unwrap()
}

fn assert_cargo_bin() -> &'static str {
    assert_cmd::cargo::cargo_bin!("debate").to_str().unwrap()
}

/// A line of output with what differs from run to run written as its shape.
fn normalised(line: &str) -> String {
    static SHAPES: LazyLock<Vec<(Regex, &str)>> = LazyLock::new(|| {
        [
            (r"DEB-[a-z0-9]{6}", "DEB-xxxxxx"),
            (r"\b\d{4}-\d{2}-\d{2}\b", "YYYY-MM-DD"),
            (r"\b\d{2}:\d{2}(:\d{2})?\b", "HH:MM"),
            (r"\b\d+(\.\d+)? ?(ms|s|m)\b", "N s"),
        ]
        .into_iter()
        .map(|(pattern, shape)| (Regex::new(pattern).unwrap(), shape))
        .collect()
    });
    SHAPES.iter().fold(line.trim_end().to_string(), |line, (pattern, shape)| pattern.replace_all(&line, *shape).into())
}

/// Whether `actual` lines are what `expected` lines describe.
fn matches(expected: &[String], actual: &[String]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((first, rest)) if first == "..." => (0..=actual.len()).any(|skip| matches(rest, &actual[skip..])),
        Some((first, rest)) => actual.split_first().is_some_and(|(line, others)| {
            let pattern = format!("^{}$", regex::escape(first).replace(r"\[\.\.\]", ".*"));
            Regex::new(&pattern).unwrap().is_match(line) && matches(rest, others)
        }),
    }
}

/// Each `$ command` of a console block with the lines it is said to print.
fn examples(block: &str) -> Vec<(String, Vec<String>)> {
    let mut examples: Vec<(String, Vec<String>)> = Vec::new();
    for line in block.lines() {
        match (line.strip_prefix("$ "), examples.last_mut()) {
            (Some(command), _) => examples.push((command.to_string(), Vec::new())),
            (None, Some((_, output))) => output.push(normalised(line)),
            (None, None) => panic!("a console block starts with a `$ ` line:\n{block}"),
        }
    }
    for (_, output) in &mut examples {
        while output.last().is_some_and(String::is_empty) {
            output.pop();
        }
    }
    examples
}

#[test]
fn every_console_example_prints_what_the_readme_says() {
    let readme = readme();
    let consoles = blocks(&readme, "console");
    assert!(!consoles.is_empty(), "the README shows the tool at work");
    for block in consoles {
        let sandbox = Sandbox::new();
        git(&sandbox.repo, &["config", "user.name", "Jane Doe"]);
        git(&sandbox.repo, &["config", "user.email", "jane@example.com"]);
        for (command, expected) in examples(&block) {
            let out = shell(&sandbox, &sandbox.repo, &format!("{command} 2>&1"));
            let actual: Vec<String> = text(&out.stdout).lines().map(normalised).collect();
            assert!(
                matches(&expected, &actual),
                "README example `$ {command}` printed:\n{}\n\nthe README says:\n{}",
                actual.join("\n"),
                expected.join("\n")
            );
        }
    }
}

#[test]
fn the_set_up_block_pasted_whole_runs_both_commands_from_the_checkout() {
    let readme = readme();
    let first = blocks(&readme, "sh").into_iter().next().expect("the README opens with the set-up block");
    let lines: Vec<&str> = first.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 2, "exactly two commands: {first}");
    assert_eq!(lines[1], "cargo test");
    assert!(lines[0].contains("cargo build --release"), "the first builds: {}", lines[0]);
    // The block as pasted, with the build and the tests stood in for (this test runs
    // inside them) and the demo directory moved into the sandbox: the demo debate runs,
    // and the shell is back in the checkout when `cargo test` starts.
    let sandbox = Sandbox::new();
    let checkout = sandbox.home.join("checkout");
    std::fs::create_dir_all(checkout.join("target/release")).unwrap();
    std::os::unix::fs::symlink(assert_cargo_bin(), checkout.join("target/release/debate")).unwrap();
    let demo = sandbox.home.join("debate-demo");
    let script = first
        .replace("cargo build --release", "true")
        .replace("cargo test", "pwd > cwd-at-cargo-test")
        .replace("/tmp/debate-demo", &demo.to_string_lossy());
    let out = shell(&sandbox, &checkout, &format!("set -e\n{script}"));
    assert!(out.status.success(), "{}{}", text(&out.stdout), text(&out.stderr));
    let cwd =
        std::fs::read_to_string(checkout.join("cwd-at-cargo-test")).expect("the second command ran in the checkout");
    assert_eq!(Path::new(cwd.trim()), checkout.canonicalize().unwrap());
    let records = git(&demo, &["ls-files", "docs/decisions"]);
    assert!(
        records.lines().any(|l| l.ends_with(".md") && !l.ends_with("README.md")),
        "the demo committed a record: {records}"
    );
}

#[test]
fn expected_output_patterns_match_as_documented() {
    let lines = |text: &str| text.lines().map(normalised).collect::<Vec<_>>();
    assert!(matches(&lines("Debate DEB-abc123 [..]\n...\ndone"), &lines("Debate DEB-zz99aa started\na\nb\ndone")));
    assert!(!matches(&lines("Debate [..]\ndone"), &lines("Debate x\nmore\ndone")));
    assert!(matches(&lines("took 1.5 s on 2026-11-25"), &lines("took 12 s on 2027-01-02")));
}

/// Every `debate completions SHELL > FILE` line the README and the guides give, run as
/// given in a fresh home: each makes its directory, so each writes its script there.
#[test]
fn every_completion_line_writes_its_script_in_a_fresh_home() {
    let line = Regex::new(r"(?:mkdir -p [^`\n]*?&& )?debate completions (\w+) > ([^`\s]+)").unwrap();
    let mut shells = std::collections::BTreeSet::new();
    for doc in ["README.md", "docs/guide.md", "docs/reference.md"] {
        let markdown = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(doc)).unwrap();
        for found in line.captures_iter(&markdown) {
            let sandbox = Sandbox::new();
            let out = shell(&sandbox, &sandbox.repo, &found[0]);
            assert!(out.status.success(), "{doc}: `{}` failed: {}", &found[0], text(&out.stderr));
            let file = found[2].replacen('~', &sandbox.home.to_string_lossy(), 1);
            let script = std::fs::read_to_string(&file).unwrap_or_default();
            assert!(script.contains("COMPLETE"), "{doc}: `{}` wrote no script to {file}", &found[0]);
            shells.insert(found[1].to_string());
        }
    }
    assert_eq!(shells, ["bash", "fish", "zsh"].map(String::from).into(), "the documented shells");
}
