//! The decision document described once (docs/architecture.md, "Adding a section to the
//! decision"): a section added to the declaration — here the debug build's scratch
//! section, `DEBATE_SCRATCH_SECTION` — reaches the record, `show`, `show --json`, MCP's
//! `show_debate` and `export`, and a fresh clone with no database; every section the
//! record carries is shown at each of those doors; a record written before the section
//! existed still reads back as genuine, with the layout it was written in. (The
//! dashboard's page is checked in Chromium by browser.rs.)

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common::*;
use crate::mcp::Session;

const SCRATCH: (&str, &str) = ("DEBATE_SCRATCH_SECTION", "1");
const NOTE: &str = "a note only the scratch section holds";

/// A committed debate, the moderator writing the scratch section too; with `scratch`,
/// the section is declared while it runs. Its id and record.
fn decided(sandbox: &Sandbox, scratch: bool, question: &str) -> (String, PathBuf) {
    let dissent = r#"[{"perspective": "Performance Advocate", "option": "Redis", "reason": "latency"}]"#;
    let synthesis =
        SYNTHESIS.replace(r#""dissents": []"#, &format!(
        r#""dissents": {dissent}, "scratch_notes": ["{NOTE}"], "guards": ["forbid dependency redis"], "review_by": "2027-06-01""#
    ));
    let answers =
        varied_answers(&["Performance Advocate", "Operational Simplicity"], 1, AGREE).replace(SYNTHESIS, &synthesis);
    let config = sandbox.scripted(&answers);
    let mut cmd = sandbox.cmd();
    if scratch {
        cmd.env(SCRATCH.0, SCRATCH.1);
    }
    let panel = ["-p", "2", "--with", "Performance Advocate", "--with", "Operational Simplicity"];
    let out =
        cmd.arg("--config").arg(&config).args(["--no-checkpoints", "-q"]).args(panel).arg(question).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let record = PathBuf::from(text(&out.stdout).trim());
    (sandbox.newest_id(), record)
}

/// The headings of the sections a `show --json` document lists, and those with content.
fn headings(shown: &Value) -> (Vec<String>, Vec<String>) {
    let sections = shown["outcome"]["sections"].as_array().unwrap_or_else(|| panic!("no sections: {shown}"));
    let heading = |s: &Value| s["heading"].as_str().unwrap().to_string();
    let filled = sections.iter().filter(|s| s["empty"] == false).map(heading).collect();
    (sections.iter().map(heading).collect(), filled)
}

fn run(sandbox: &Sandbox, dir: &Path, home: &Path, args: &[&str]) -> std::process::Output {
    let out = sandbox.std_cmd_as(dir, home).env(SCRATCH.0, SCRATCH.1).args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    out
}

#[test]
fn a_section_added_to_the_decision_reaches_every_door_and_older_records_stay_genuine() {
    let sandbox = Sandbox::new();
    keys::alices(&sandbox);
    let (before, before_record) = decided(&sandbox, false, "Should we use Redis or Postgres for caching?");
    let (id, record) = decided(&sandbox, true, "Should we use Redis or Postgres for sessions?");

    // The record: the section under its heading, after the key tensions.
    let written = std::fs::read_to_string(&record).unwrap();
    let at = |needle: &str| written.find(needle).unwrap_or_else(|| panic!("{needle:?} in:\n{written}"));
    assert!(at("## Key Tensions") < at(&format!("## Scratch Notes\n\n- {NOTE}\n")), "{written}");
    assert!(at("## Scratch Notes") < at("## Dissenting View"));
    assert!(!std::fs::read_to_string(&before_record).unwrap().contains("Scratch Notes"), "the earlier one has none");

    // `show` and `show --json`, in this repository.
    let (repo, home) = (sandbox.repo.clone(), sandbox.home.clone());
    let shown = text(&run(&sandbox, &repo, &home, &["show", &id]).stdout);
    assert!(shown.contains(&format!("Scratch Notes:\n  • {NOTE}")), "{shown}");
    let detail: Value = serde_json::from_slice(&run(&sandbox, &repo, &home, &["show", &id, "--json"]).stdout).unwrap();
    let (all, filled) = headings(&detail);
    assert_eq!(filled, all, "every section of this debate has content");
    assert!(all.contains(&"Scratch Notes".to_string()), "{all:?}");
    // Every section the record carries is a heading of the record and a line of `show`.
    for heading in &all {
        assert!(written.contains(&format!("# {heading}")) || written.contains(&format!("**{heading}:**")), "{heading}");
        assert!(shown.contains(&format!("{heading}:")), "{heading} in show:\n{shown}");
    }
    let scratch = detail["outcome"]["sections"].as_array().unwrap().iter().find(|s| s["key"] == "scratch_notes");
    assert_eq!(scratch.unwrap()["value"], json!([NOTE]));

    // `export`: the JSON is the show document, the markdown the record.
    let json = run(&sandbox, &repo, &home, &["export", &id, "--format", "json"]);
    assert_eq!(
        serde_json::from_slice::<Value>(&json.stdout).unwrap()["outcome"]["sections"],
        detail["outcome"]["sections"]
    );
    let md = run(&sandbox, &repo, &home, &["export", &id, "--format", "md"]);
    assert!(text(&md.stdout).contains(&format!("## Scratch Notes\n\n- {NOTE}")));

    // MCP's show_debate: the same sections.
    let mut session = Session::open(&sandbox, &sandbox.repo, &[], &[SCRATCH], json!({}));
    let result = session.call("show_debate", json!({"id": id}));
    assert_eq!(result["structuredContent"]["outcome"]["sections"], detail["outcome"]["sections"], "{result}");
    drop(session);

    // A fresh clone with no database: both records genuine, each shown with its layout.
    let clone = sandbox.home.join("clone");
    git(&sandbox.home, &["clone", "-q", sandbox.repo.to_str().unwrap(), clone.to_str().unwrap()]);
    let fresh_home = sandbox.home.join("fresh-home");
    std::fs::create_dir_all(&fresh_home).unwrap();
    let verified = run(&sandbox, &clone, &fresh_home, &["verify", "--all"]);
    let said = text(&verified.stdout);
    assert_eq!(said.lines().filter(|l| l.starts_with("ok ")).count(), 2, "both genuine:\n{said}");
    let relative = |path: &Path| path.strip_prefix(&sandbox.repo).unwrap().to_str().unwrap().to_string();
    let cloned: Value =
        serde_json::from_slice(&run(&sandbox, &clone, &fresh_home, &["show", &relative(&record), "--json"]).stdout)
            .unwrap();
    assert_eq!(cloned["outcome"]["sections"], detail["outcome"]["sections"]);
    let shown_there = text(&run(&sandbox, &clone, &fresh_home, &["show", &relative(&record)]).stdout);
    assert!(shown_there.contains(&format!("Scratch Notes:\n  • {NOTE}")), "{shown_there}");
    let earlier: Value = serde_json::from_slice(
        &run(&sandbox, &clone, &fresh_home, &["show", &relative(&before_record), "--json"]).stdout,
    )
    .unwrap();
    assert_eq!(earlier["id"], before.as_str());
    let (earlier_sections, _) = headings(&earlier);
    assert!(!earlier_sections.contains(&"Scratch Notes".to_string()), "written before it: {earlier_sections:?}");
    assert_eq!(earlier_sections.len() + 1, all.len());
}
