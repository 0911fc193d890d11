//! The decision travels with the repository (docs/guide.md, "The team workflow"): in a
//! clone that never ran the debate, with an empty `DEBATE_HOME`, the committed record is
//! enough to show it, review it and accept it; a record edited by hand, or one that
//! carries no debate, is refused with the reason and nothing is written.

use std::path::{Path, PathBuf};

use crate::common::*;

const BRANCH: &str = "decisions/cache";

/// The author's debate, committed on its own branch for a pull request; the record's
/// path in the repository and the debate's id.
fn authored(sandbox: &Sandbox) -> (String, String) {
    git(&sandbox.repo, &["config", "user.name", "Ada Author"]);
    git(&sandbox.repo, &["config", "user.email", "ada@example.com"]);
    git(&sandbox.repo, &["commit", "-q", "--allow-empty", "-m", "start"]);
    let out = sandbox
        .cmd()
        .args(["--offline", "--no-checkpoints", "-q", "-r", "2", &format!("--branch={BRANCH}"), QUESTION])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    let relative = shown.trim().split_once(':').expect("branch:path").1.to_string();
    (relative, sandbox.newest_id())
}

/// A reviewer's clone of the pull request's branch, and a home of its own.
fn reviewers_clone(sandbox: &Sandbox) -> (PathBuf, PathBuf) {
    let clone = sandbox.home.join("clone");
    let origin = sandbox.repo.to_str().unwrap();
    git(&sandbox.home, &["clone", "-q", "-b", BRANCH, origin, clone.to_str().unwrap()]);
    git(&clone, &["config", "user.name", "Rui Reviewer"]);
    git(&clone, &["config", "user.email", "rui@example.com"]);
    let home = sandbox.home.join("reviewer");
    std::fs::create_dir_all(&home).unwrap();
    (clone, home)
}

fn in_clone(sandbox: &Sandbox, clone: &Path, home: &Path, args: &[&str]) -> std::process::Output {
    sandbox.std_cmd_as(clone, home).args(args).output().unwrap()
}

fn shown(out: &std::process::Output) -> serde_json::Value {
    assert!(out.status.success(), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_fresh_clone_shows_reviews_and_accepts_a_record_committed_elsewhere() {
    let sandbox = Sandbox::new();
    let (relative, id) = authored(&sandbox);
    let (clone, home) = reviewers_clone(&sandbox);
    let authors = sandbox.show(&id);

    // Show, by id and by path: the debate as the author's database has it.
    let detail = shown(&in_clone(&sandbox, &clone, &home, &["show", &id, "--json"]));
    assert_eq!(detail["rounds"], authors["rounds"]);
    assert_eq!(contributions(&detail), contributions(&authors));
    assert_eq!(detail["question"], authors["question"]);
    assert_eq!(shown(&in_clone(&sandbox, &clone, &home, &["show", &relative, "--json"]))["id"], id.as_str());

    // A review: one more round, the same file rewritten, one commit on the checked-out
    // branch, by the provider the record names (here the offline one), from this clone's
    // own settings.
    let before = git(&clone, &["rev-parse", "HEAD"]);
    let out = in_clone(
        &sandbox,
        &clone,
        &home,
        &["review", &id, "--guide", "Reviewer: what about operating cost?", "--no-checkpoints"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(git(&clone, &["rev-parse", "HEAD~1"]), before, "one commit on top of the branch");
    assert_eq!(git(&clone, &["rev-parse", "--abbrev-ref", "HEAD"]).trim(), BRANCH);
    let changed = git(&clone, &["show", "--name-only", "--format=", "HEAD"]);
    assert!(changed.lines().any(|l| l == relative), "{changed}");
    assert!(changed.lines().all(|l| l == relative || l.ends_with("decisions/README.md")), "{changed}");
    assert!(git(&clone, &["log", "-1", "--format=%s"]).starts_with("docs(decisions): revise"));
    assert_eq!(git(&clone, &["status", "--porcelain"]), "");
    let record = std::fs::read_to_string(clone.join(&relative)).unwrap();
    assert!(record.contains("Reviewer: what about operating cost?"), "the objection is in the record");
    let reviewed = shown(&in_clone(&sandbox, &clone, &home, &["show", &id, "--json"]));
    assert_eq!(reviewed["rounds"], authors["rounds"].as_u64().unwrap() + 1);

    // Accept the revised record: its status, in one commit of only it and the index.
    let out = in_clone(&sandbox, &clone, &home, &["accept", &id]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let record = std::fs::read_to_string(clone.join(&relative)).unwrap();
    assert!(record.contains("status: accepted"), "{record}");
    assert!(git(&clone, &["log", "-1", "--format=%s"]).starts_with("docs(decisions): accept"));

    // The author's database was never touched; the author pulls the reviewed branch, and
    // the debate goes on from the record, which now carries more than the database.
    assert_eq!(sandbox.show(&id)["rounds"], authors["rounds"]);
    git(&sandbox.repo, &["fetch", "-q", clone.to_str().unwrap(), &format!("{BRANCH}:{BRANCH}")]);
    git(&sandbox.repo, &["checkout", "-q", BRANCH]);
    let out = sandbox.cmd().args(["show", &id, "--json"]).output().unwrap();
    assert_eq!(shown(&out)["rounds"], reviewed["rounds"]);
    assert!(text(&out.stderr).contains("reviewed elsewhere since this machine ran it"), "{}", text(&out.stderr));
    let out = sandbox
        .cmd()
        .args(["review", &id, "--guide", "Author: the cost is measured", "--no-checkpoints"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(sandbox.show(&id)["rounds"], reviewed["rounds"].as_u64().unwrap() + 1);
    assert_eq!(git(&sandbox.repo, &["status", "--porcelain"]), "");
}

/// The record as a file the reviewer's clone edits and commits, and the state of the
/// clone before the refused command.
fn edit_and_commit(clone: &Path, relative: &str, from: &str, to: &str) -> String {
    let path = clone.join(relative);
    let record = std::fs::read_to_string(&path).unwrap();
    assert!(record.contains(from), "{from} is in the record");
    std::fs::write(&path, record.replacen(from, to, 1)).unwrap();
    git(clone, &["commit", "-q", "-am", "edit the record by hand"]);
    git(clone, &["rev-parse", "HEAD"])
}

#[test]
fn a_record_edited_by_hand_is_not_read_back_and_nothing_is_written() {
    let sandbox = Sandbox::new();
    let (relative, id) = authored(&sandbox);
    let (clone, home) = reviewers_clone(&sandbox);
    let record = std::fs::read_to_string(clone.join(&relative)).unwrap();
    // One edit in the decision's text, one in an argument the transcript carries.
    let argument =
        record.lines().skip_while(|l| *l != "<!-- debate:text -->").nth(1).expect("a carried argument").to_string();
    for (from, to, section) in [
        ("## Decision", "## Decision\n\nWe decided this over lunch.", "Decision"),
        (argument.as_str(), "Postgres, because the reviewer says so.", "Transcript"),
    ] {
        let head = edit_and_commit(&clone, &relative, from, to);
        for args in [vec!["show", id.as_str()], vec!["review", id.as_str(), "--guide", "why?"]] {
            let out = in_clone(&sandbox, &clone, &home, &args);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out.stderr));
            let stderr = text(&out.stderr);
            assert!(stderr.contains("edited by hand") && stderr.contains(section), "{stderr}");
            assert!(stderr.contains(&format!("git log -p -- {relative}")), "{stderr}");
        }
        assert_eq!(git(&clone, &["rev-parse", "HEAD"]), head, "nothing committed");
        assert_eq!(git(&clone, &["status", "--porcelain"]), "", "nothing written");
        let listed = in_clone(&sandbox, &clone, &home, &["list", "--all", "--json"]);
        assert_eq!(shown(&listed), serde_json::json!([]), "nothing imported");
        git(&clone, &["reset", "-q", "--hard", "HEAD~1"]);
    }
}

#[test]
fn a_record_that_carries_no_debate_says_so() {
    let sandbox = Sandbox::new();
    let (relative, id) = authored(&sandbox);
    let (clone, home) = reviewers_clone(&sandbox);
    let path = clone.join(&relative);
    let record = std::fs::read_to_string(&path).unwrap();
    let kept: Vec<&str> = record.lines().filter(|l| !l.starts_with("<!-- debate:state ")).collect();
    std::fs::write(&path, kept.join("\n") + "\n").unwrap();
    git(&clone, &["commit", "-q", "-am", "a record from before records carried their debate"]);
    let out = in_clone(&sandbox, &clone, &home, &["review", &relative, "--guide", "why?"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("cannot be read back as its debate") && stderr.contains("carries no debate"), "{stderr}");
    assert!(stderr.contains("--supersedes"), "the way on: {stderr}");
    let out = in_clone(&sandbox, &clone, &home, &["show", &id]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
}

/// After `--branch`, the lines the terminal prints push the branch and open its pull
/// request with the record's title and a body naming it, pasted as they are into a shell
/// (a `gh` on PATH that keeps its arguments stands in for GitHub).
#[test]
fn the_printed_lines_push_the_branch_and_open_its_pull_request() {
    let sandbox = Sandbox::new();
    git(&sandbox.repo, &["config", "user.name", "Ada Author"]);
    git(&sandbox.repo, &["config", "user.email", "ada@example.com"]);
    git(&sandbox.repo, &["commit", "-q", "--allow-empty", "-m", "start"]);
    let origin = sandbox.home.join("origin.git");
    git(&sandbox.home, &["init", "-q", "--bare", origin.to_str().unwrap()]);
    git(&sandbox.repo, &["remote", "add", "origin", origin.to_str().unwrap()]);
    let out = sandbox
        .cmd()
        .args(["--offline", "--no-checkpoints", "-r", "2", &format!("--branch={BRANCH}"), QUESTION])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    let (_, after) = stderr.split_once("Open its pull request with:\n").expect(&stderr);
    let (lines, _) = after.split_once("\nDebate DEB-").expect(&stderr);
    assert!(
        lines.starts_with(&format!("  git push -u origin '{BRANCH}'\n  gh pr create --head '{BRANCH}'")),
        "{lines}"
    );

    let bin = sandbox.home.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let kept = sandbox.home.join("gh-args");
    let gh = format!("#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done > '{}'\n", kept.display());
    std::fs::write(bin.join("gh"), gh).unwrap();
    std::fs::set_permissions(bin.join("gh"), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let run = std::process::Command::new("sh")
        .args(["-e", "-c", lines])
        .current_dir(&sandbox.repo)
        .env("PATH", path)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}{}", text(&run.stdout), text(&run.stderr));

    assert_eq!(tip(&origin, BRANCH), tip(&sandbox.repo, BRANCH), "the branch was pushed");
    let args = std::fs::read_to_string(&kept).unwrap();
    let args: Vec<&str> = args.split_terminator('\0').collect();
    assert_eq!(args[..4], ["pr", "create", "--head", BRANCH], "{args:?}");
    assert_eq!(args[4], "--title");
    assert_eq!(args[5], "Should we use Redis or Postgres for caching", "the record's title");
    assert_eq!(args[6], "--body");
    let files = git(&sandbox.repo, &["ls-tree", "-r", "--name-only", BRANCH, "docs/decisions"]);
    let record = files.lines().find(|f| !f.ends_with("README.md")).expect("the record on its branch");
    assert!(args[7].contains(&format!("`{record}`")), "the body names the record: {}", args[7]);
    assert!(args[7].contains("debate review DEB-"), "{}", args[7]);
}

/// A reviewer's fresh clone on `main`, with an empty home, finds a record that is only on
/// `origin/decisions/…` (the pull request not merged yet): `show` by id reads it from git;
/// `review` and `accept` name the branch and the `git switch` that brings it, exit 2, and
/// write nothing, in the clone or in the home.
#[test]
fn a_reviewer_on_main_finds_a_record_that_is_only_on_its_branch() {
    let sandbox = Sandbox::new();
    let (relative, id) = authored(&sandbox);
    let clone = sandbox.home.join("on-main");
    git(&sandbox.home, &["clone", "-q", sandbox.repo.to_str().unwrap(), clone.to_str().unwrap()]);
    git(&clone, &["checkout", "-q", "main"]);
    assert!(!clone.join(&relative).exists(), "the record is not on main");
    let home = sandbox.home.join("reviewer-on-main");
    std::fs::create_dir_all(&home).unwrap();

    let out = in_clone(&sandbox, &clone, &home, &["show", &id, "--json"]);
    assert_eq!(shown(&out)["id"], id.as_str());
    assert_eq!(shown(&out)["rounds"], sandbox.show(&id)["rounds"]);
    assert!(text(&out.stderr).contains(&format!("on the branch origin/{BRANCH}")), "{}", text(&out.stderr));
    let out = in_clone(&sandbox, &clone, &home, &["show", &id]);
    assert!(text(&out.stdout).contains("Redis or Postgres"), "{}", text(&out.stdout));

    let before = git(&clone, &["rev-parse", "HEAD"]);
    for args in [&["review", &id, "--guide", "What about cost?", "--no-checkpoints"][..], &["accept", &id]] {
        let out = in_clone(&sandbox, &clone, &home, args);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(&format!("is on the branch origin/{BRANCH}")), "{stderr}");
        assert!(stderr.contains(&format!("git switch '{BRANCH}'")), "{stderr}");
    }
    assert_eq!(git(&clone, &["rev-parse", "HEAD"]), before, "nothing committed");
    assert_eq!(git(&clone, &["status", "--porcelain"]), "", "nothing written");
    assert!(!home.join("debates.sqlite3").exists(), "nothing stored");

    // Switched to the branch as told, the review runs, and says how to push it.
    git(&clone, &["switch", "-q", BRANCH]);
    let out = in_clone(&sandbox, &clone, &home, &["review", &id, "--guide", "What about cost?", "--no-checkpoints"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(stderr.contains(&format!("Update its pull request with:\n  git push 'origin' '{BRANCH}'")), "{stderr}");
}
