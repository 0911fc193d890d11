//! The records as other ADR tools read them: a real log4brains 1.1.0 build (from npm)
//! and adr-tools' `list` and `generate graph` (Debian's `adr-tools`), over records
//! debate wrote, superseded and accepted, and `adr new -s` superseding one of debate's
//! records through its `## Status` section. Where npm or `adr` is not on PATH when the
//! tests are built (build.rs), their test is ignored, unless `CI` is set: `.ci/run`
//! installs both, so there a missing tool fails.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::{Sandbox, git, npm_package, text};

const FIRST: &str = "Should we use MySQL or Postgres for orders?";
const SECOND: &str = "Should we use Postgres or SQLite for orders?";
const THIRD: &str = "Should we cache sessions in Redis?";

/// Whether `program arg` runs and succeeds.
fn runs(program: &str, arg: &str) -> bool {
    Command::new(program).arg(arg).output().is_ok_and(|out| out.status.success())
}

/// The git identity whose name the records give as their decider.
fn identify(sandbox: &Sandbox) {
    git(&sandbox.repo, &["config", "user.name", "Jane Doe"]);
    git(&sandbox.repo, &["config", "user.email", "jane@example.com"]);
}

/// An offline debate's record, committed; its path relative to the repository.
fn recorded(sandbox: &Sandbox, args: &[&str]) -> String {
    let out = sandbox.cmd().args(["--offline", "-q"]).args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    let path = PathBuf::from(text(&out.stdout).trim());
    path.strip_prefix(&sandbox.repo).unwrap().to_string_lossy().into_owned()
}

/// Three records: the second supersedes the first and is accepted, the third rejected.
/// Returns their paths relative to the repository, in that order.
fn three_records(sandbox: &Sandbox) -> [String; 3] {
    identify(sandbox);
    let run = |args: &[&str]| recorded(sandbox, args);
    let first = run(&[FIRST]);
    let second = run(&["--supersedes", &first, SECOND]);
    let third = run(&[THIRD]);
    for (verb, record) in [("accept", &second), ("reject", &third)] {
        sandbox.cmd().args([verb, record.as_str()]).assert().success();
    }
    [first, second, third]
}

/// The paragraphs under a record's `## Status` heading, up to its next section.
fn status_section(record: &str) -> String {
    let after = record.split_once("\n## Status\n\n").map(|(_, after)| after).expect("a `## Status` section");
    after.split("\n## ").next().unwrap().trim_end().to_string()
}

fn stem(path: &str) -> String {
    Path::new(path).file_stem().unwrap().to_string_lossy().into_owned()
}

/// log4brains 1.1.0, installed once into a cache outside the repository.
fn log4brains() -> PathBuf {
    npm_package("log4brains", "1.1.0").join("node_modules/.bin/log4brains")
}

#[test]
#[cfg_attr(missing_npm, ignore = "npm is not on PATH (apt-get install npm); with CI set this test fails instead")]
fn log4brains_reads_each_records_status_date_deciders_and_superseder() {
    let log4brains = log4brains();
    let sandbox = Sandbox::new();
    let [first, second, third] = three_records(&sandbox);
    let folder = Path::new(&first).parent().unwrap().to_string_lossy().into_owned();
    std::fs::write(
        sandbox.repo.join(".log4brains.yml"),
        format!("---\nproject:\n  name: orders\n  tz: UTC\n  adrFolder: ./{folder}\n"),
    )
    .unwrap();
    let out_dir = sandbox.home.join("site");
    let out = Command::new(&log4brains)
        .args(["build", "--out"])
        .arg(&out_dir)
        .current_dir(&sandbox.repo)
        .env("LOG4BRAINS_CWD", &sandbox.repo)
        .env("HOME", &sandbox.home)
        .output()
        .unwrap();
    assert!(out.status.success(), "log4brains build: {}{}", text(&out.stdout), text(&out.stderr));

    // The build's data for each record's page, as its site shows it.
    let data = std::fs::read_dir(out_dir.join("_next/data")).unwrap().next().unwrap().unwrap().path().join("adr");
    let page = |record: &str| -> Value {
        let json = std::fs::read_to_string(data.join(format!("{}.json", stem(record)))).unwrap();
        serde_json::from_str::<Value>(&json).unwrap()["pageProps"]["currentAdr"].clone()
    };
    let today = chrono::Utc::now().format("%Y-%m-%d").to_string();
    for (record, status, title) in
        [(&first, "superseded", FIRST), (&second, "accepted", SECOND), (&third, "rejected", THIRD)]
    {
        let adr = page(record);
        assert_eq!(adr["status"], status, "{record}: {adr:#}");
        assert_eq!(adr["title"], title.trim_end_matches('?'), "{record}: {adr:#}");
        let date = adr["publicationDate"].as_str().unwrap_or_default();
        assert!(date.starts_with(&today), "{record}: the record's own date, not none: {adr:#}");
        assert_eq!(adr["deciders"], serde_json::json!(["Jane Doe"]), "{record}: {adr:#}");
    }
    assert_eq!(page(&first)["supersededBy"]["slug"], stem(&second), "the superseded record names its successor");
    assert!(page(&second)["supersededBy"].is_null());
}

#[test]
#[cfg_attr(missing_adr, ignore = "adr is not on PATH (apt-get install adr-tools); with CI set this test fails instead")]
fn adr_tools_lists_the_records_and_graphs_the_supersede() {
    assert!(runs("adr", "help"), "adr does not run: .ci/run installs Debian's `adr-tools`");
    let sandbox = Sandbox::new();
    let adr = |args: &[&str]| {
        let out = Command::new("adr").args(args).current_dir(&sandbox.repo).output().unwrap();
        assert!(out.status.success(), "adr {args:?}: {}", text(&out.stderr));
        text(&out.stdout)
    };
    adr(&["init", "doc/adr"]);
    git(&sandbox.repo, &["add", "-A"]);
    git(&sandbox.repo, &["-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-qm", "adr init"]);
    // debate follows the repository: its records go to doc/adr, numbered after 0001.
    let [first, second, third] = three_records(&sandbox);
    assert_eq!(
        [&first, &second, &third].map(|p| p.split('-').next().unwrap().to_string()),
        ["doc/adr/0002", "doc/adr/0003", "doc/adr/0004"]
    );
    let listed = adr(&["list"]);
    for record in [&first, &second, &third] {
        assert!(listed.lines().any(|l| l == record.as_str()), "{record} in:\n{listed}");
    }
    let toc = adr(&["generate", "toc"]);
    for record in [&first, &second, &third] {
        let file = Path::new(record.as_str()).file_name().unwrap().to_string_lossy().into_owned();
        assert!(toc.contains(&format!("]({file})")), "{file} in:\n{toc}");
    }
    let graph = adr(&["generate", "graph"]);
    assert!(graph.contains("_3 -> _2 [label=\"Supersedes\", weight=0]"), "the supersede edge:\n{graph}");
    assert_eq!(graph.matches("label=\"Supersedes\"").count(), 1, "{graph}");
}

#[test]
fn every_record_has_a_status_section_that_follows_its_status() {
    let sandbox = Sandbox::new();
    identify(&sandbox);
    let read = |relative: &str| std::fs::read_to_string(sandbox.repo.join(relative)).unwrap();
    let run = |args: &[&str]| recorded(&sandbox, args);
    let first = run(&[FIRST]);
    assert_eq!(status_section(&read(&first)), "Proposed", "a fresh record, superseding nothing");
    sandbox.cmd().args(["accept", &first]).assert().success();
    assert_eq!(status_section(&read(&first)), "Accepted");

    let second = run(&["--supersedes", &first, SECOND]);
    let name = Path::new(&second).file_name().unwrap().to_string_lossy().into_owned();
    let superseded = read(&first);
    assert_eq!(status_section(&superseded), format!("Superseded by [{}]({name})", stem(&second)));
    assert!(superseded.contains(&format!("\n- Status: superseded by [{}]({name})\n", stem(&second))));
    let earlier = Path::new(&first).file_name().unwrap().to_string_lossy().into_owned();
    let supersedes = format!("Supersedes [{}]({earlier})", stem(&first));
    assert_eq!(status_section(&read(&second)), format!("Proposed\n\n{supersedes}"));

    sandbox.cmd().args(["deprecate", &second]).assert().success();
    let deprecated = read(&second);
    assert_eq!(status_section(&deprecated), format!("Deprecated\n\n{supersedes}"), "the links stay");
    assert!(deprecated.contains("\nstatus: deprecated\n") && deprecated.contains("\n- Status: deprecated\n"));
}

#[test]
#[cfg_attr(missing_adr, ignore = "adr is not on PATH (apt-get install adr-tools); with CI set this test fails instead")]
fn adr_tools_supersedes_a_debate_record_in_its_status_section() {
    let sandbox = Sandbox::new();
    identify(&sandbox);
    let adr = |args: &[&str]| adr_new(&sandbox, args);
    adr(&["init", "doc/adr"]);
    git(&sandbox.repo, &["add", "-A"]);
    git(&sandbox.repo, &["commit", "-qm", "adr init"]);
    let out = sandbox.cmd().args(["--offline", "-q", FIRST]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let record = PathBuf::from(text(&out.stdout).trim());
    let relative = record.strip_prefix(&sandbox.repo).unwrap().to_string_lossy().into_owned();
    sandbox.cmd().args(["accept", &relative]).assert().success();
    let number = stem(&relative)[..4].to_string();
    assert_eq!(number, "0002");

    // adr-tools adds its link to the section and takes the line `Accepted` out of it.
    let new = adr(&["new", "-s", &number, "Use SQLite for orders"]);
    assert_eq!(new.trim(), "doc/adr/0003-use-sqlite-for-orders.md");
    let superseded = std::fs::read_to_string(&record).unwrap();
    assert_eq!(status_section(&superseded), "Superseded by [3. Use SQLite for orders](0003-use-sqlite-for-orders.md)");
    let graph = adr(&["generate", "graph"]);
    assert!(graph.contains("_3 -> _2 [label=\"Supersedes\", weight=0]"), "{graph}");

    // debate reads the record as adr-tools left it: superseded, so no longer accepted.
    git(&sandbox.repo, &["add", "-A"]);
    git(&sandbox.repo, &["commit", "-qm", "adr new -s"]);
    let out = sandbox.cmd().args(["deprecate", &relative]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("is Superseded by [3. Use SQLite for orders](0003-use-sqlite-for-orders.md)"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_renderer_without_front_matter_shows_the_title_first_and_no_heading_from_it() {
    let sandbox = Sandbox::new();
    identify(&sandbox);
    let out = sandbox.cmd().args(["--offline", "-q", FIRST]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let record = std::fs::read_to_string(text(&out.stdout).trim()).unwrap();
    // CommonMark without front matter support, as cmark-gfm and log4brains read it.
    let html = {
        let mut html = String::new();
        pulldown_cmark::html::push_html(&mut html, pulldown_cmark::Parser::new(&record));
        html
    };
    let first_heading = html
        .match_indices("<h")
        .map(|(at, _)| &html[at..at + 3])
        .find(|tag| tag.ends_with(|c: char| c.is_ascii_digit()));
    assert_eq!(first_heading, Some("<h1"), "the front matter is a paragraph, never a heading:\n{html}");
    let h1 = html.find("<h1").unwrap();
    let first_list = html.find("<ul").unwrap();
    let first_h2 = html.find("<h2").unwrap();
    assert!(h1 < first_list && first_list < first_h2, "the header list is the first list, before any section");
    let header = &html[first_list..html[first_list..].find("</ul>").unwrap() + first_list];
    for item in ["<li>Status: proposed</li>", "<li>Date: ", "<li>Deciders: Jane Doe</li>"] {
        assert!(header.contains(item), "{item} in {header}");
    }
}

/// adr-tools' `adr <args>` in the repository, its editor one that changes nothing: stdout.
fn adr_new(sandbox: &Sandbox, args: &[&str]) -> String {
    let out = Command::new("adr")
        .args(args)
        .current_dir(&sandbox.repo)
        .env("EDITOR", "true")
        .env_remove("VISUAL")
        .output()
        .unwrap();
    assert!(out.status.success(), "adr {args:?}: {}", text(&out.stderr));
    text(&out.stdout)
}

/// `debate verify` in the repository: exit code, stdout, stderr.
fn verify(sandbox: &Sandbox, args: &[&str]) -> (i32, String, String) {
    let out = sandbox.cmd().arg("verify").args(args).output().unwrap();
    (out.status.code().unwrap(), text(&out.stdout), text(&out.stderr))
}

/// adr-tools' routine supersede of a signed debate record is a change of its status, not
/// a forgery: `verify --all` passes, saying what changed; an edit of its decision fails,
/// naming the section.
#[test]
#[cfg_attr(missing_adr, ignore = "adr is not on PATH (apt-get install adr-tools); with CI set this test fails instead")]
fn after_adr_new_s_verify_passes_with_a_note_and_an_edit_of_the_decision_fails() {
    let sandbox = Sandbox::new();
    crate::common::keys::alices(&sandbox);
    let adr = |args: &[&str]| {
        adr_new(&sandbox, args);
    };
    adr(&["init", "doc/adr"]);
    git(&sandbox.repo, &["add", "-A"]);
    git(&sandbox.repo, &["commit", "-q", "--no-gpg-sign", "-m", "adr init"]);
    let record = recorded(&sandbox, &["--no-checkpoints", "-r", "1", FIRST]);
    adr(&["new", "-s", "2", "Cache in Memcached"]);
    git(&sandbox.repo, &["add", "-A"]);
    git(&sandbox.repo, &["commit", "-q", "--no-gpg-sign", "-m", "adr new -s 2"]);

    let (code, stdout, stderr) = verify(&sandbox, &["--all"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let line = stdout.lines().find(|l| l.contains(&record)).unwrap();
    assert!(line.starts_with("ok     ") && line.contains("signed by alice@example.org when it was recorded"), "{line}");
    assert!(
        line.contains("its status was changed since it was signed (in: Status), by another ADR tool or by hand: it now reads \"Superseded by [3. Cache in Memcached](0003-cache-in-memcached.md)\""),
        "{line}"
    );
    let (_, document, _) = verify(&sandbox, &[&record, "--json"]);
    let document: Value = serde_json::from_str(&document).unwrap();
    assert_eq!(document["records"][0]["verdict"], "verified");
    assert_eq!(document["records"][0]["status_changed"], serde_json::json!(["Status"]));

    // Its decision edited as well: that is no change of status.
    let path = sandbox.repo.join(&record);
    let text_now = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text_now.replacen("## Decision Outcome\n\n", "## Decision Outcome\n\nUse MySQL. ", 1))
        .unwrap();
    let (code, stdout, _) = verify(&sandbox, &["--all"]);
    assert_eq!(code, 1, "{stdout}");
    let line = stdout.lines().find(|l| l.contains(&record)).unwrap();
    assert!(
        line.starts_with("FAILED") && line.contains("edited since it was sealed, in: Status, Decision Outcome"),
        "{line}"
    );
}

/// A person (or log4brains, which edits the header's `- Status:` line) moves the status
/// lines: verify passes with a note; `debate accept` asked for the status the record now
/// states signs it again, the first signature kept.
#[test]
fn a_status_line_moved_by_hand_passes_and_accept_signs_it_again_on_request() {
    let sandbox = Sandbox::new();
    crate::common::keys::alices(&sandbox);
    let record = recorded(&sandbox, &["--no-checkpoints", "-r", "1", FIRST]);
    let path = sandbox.repo.join(&record);
    let text_now = std::fs::read_to_string(&path).unwrap();
    let by_hand = text_now.replacen("\nstatus: proposed\n", "\nstatus: accepted\n", 1).replacen(
        "\n- Status: proposed\n",
        "\n- Status: accepted\n",
        1,
    );
    assert_ne!(by_hand, text_now);
    std::fs::write(&path, &by_hand).unwrap();
    git(&sandbox.repo, &["commit", "-q", "-a", "--no-gpg-sign", "-m", "accepted in the meeting"]);
    let (code, stdout, _) = verify(&sandbox, &[&record]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("(in: the status lines)") && stdout.contains("it now reads \"accepted\""), "{stdout}");

    let out = sandbox.cmd().args(["accept", &record]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("signed again as it is"), "{}", text(&out.stderr));
    assert_eq!(git(&sandbox.repo, &["status", "--porcelain"]), "", "committed");
    let (code, document, _) = verify(&sandbox, &[&record, "--json"]);
    let document: Value = serde_json::from_str(&document).unwrap();
    assert_eq!(code, 0);
    let checked = &document["records"][0];
    assert_eq!((checked["signature"]["act"].as_str(), checked["note"].as_str()), (Some("accepted"), None));
    assert_eq!(checked["earlier"][0]["signer"], "alice@example.org");

    // log4brains' supersede writes the header's line alone.
    let text_now = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        text_now.replacen("\n- Status: accepted\n", "\n- Status: superseded by [ADR-0009](0009-x.md)\n", 1),
    )
    .unwrap();
    let (code, stdout, _) = verify(&sandbox, &[&record]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("its status was changed since it was signed (in: the status lines)"), "{stdout}");
}
