//! The record as an auditable document and its life after the pull request: the full
//! transcript inside it (or beside it), a title that is never cut mid-word, and the
//! review loop — a completed debate reopened with a reviewer's objection runs another
//! round, re-synthesises and rewrites the same file in a commit on the record's branch.

use crate::common::*;

fn identity(sandbox: &Sandbox) {
    git(&sandbox.repo, &["config", "user.name", "Rev Iewer"]);
    git(&sandbox.repo, &["config", "user.email", "reviewer@example.com"]);
    std::fs::write(sandbox.repo.join("README.md"), "# shop\n").unwrap();
    git(&sandbox.repo, &["add", "README.md"]);
    git(&sandbox.repo, &["commit", "-qm", "initial"]);
}

/// Every argument and rebuttal the script gives, for `rounds` rounds.
fn arguments(rounds: u32) -> Vec<String> {
    let mut all = Vec::new();
    for round in 1..=rounds {
        for name in PANEL {
            for purpose in ["argument", "rebuttal"] {
                all.push(format!("{name} says {}", fresh_words(&format!("{name}{round}{purpose}"), 60)));
            }
        }
    }
    all
}

fn run(sandbox: &Sandbox, config: &std::path::Path, args: &[&str]) -> std::process::Output {
    sandbox.cmd().arg("--config").arg(config).args(args).output().unwrap()
}

#[test]
fn every_argument_of_every_round_is_in_the_record_verbatim() {
    let sandbox = Sandbox::new();
    identity(&sandbox);
    let config = sandbox.scripted(&varied_answers(&PANEL, 2, CONTINUE));
    let out = run(&sandbox, &config, &["-r", "2", QUESTION]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let record = std::fs::read_to_string(&sandbox.records()[0]).unwrap();
    for argument in arguments(2) {
        assert!(record.contains(&argument), "missing from the record: {argument}");
    }
    assert_eq!(record.matches("<details>").count(), 2, "one collapsed block per round");
    assert!(record.contains("<summary>Round 2 of 2 (closing)</summary>"), "{record}");
    assert!(record.contains("*Stance:* Postgres (medium)"), "{record}");
}

#[test]
fn a_sidecar_transcript_is_committed_beside_the_record() {
    let sandbox = Sandbox::new();
    identity(&sandbox);
    let config = sandbox.scripted(&varied_answers(&PANEL, 2, CONTINUE));
    let settings = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("{settings}record:\n  transcript: sidecar\n")).unwrap();
    let out = run(&sandbox, &config, &["-r", "2", QUESTION]);
    assert!(out.status.success(), "{}", text(&out.stderr));

    let record_path = sandbox.records().into_iter().find(|p| !p.to_string_lossy().ends_with(".transcript.md")).unwrap();
    let record = std::fs::read_to_string(&record_path).unwrap();
    let stem = record_path.file_stem().unwrap().to_string_lossy().into_owned();
    let sidecar = record_path.with_file_name(format!("{stem}.transcript.md"));
    let transcript = std::fs::read_to_string(&sidecar).expect("the transcript beside the record");
    for argument in arguments(2) {
        assert!(transcript.contains(&argument), "missing from the transcript: {argument}");
        assert!(!record.contains(&argument), "the record itself stays short");
    }
    assert!(record.contains(&format!("]({stem}.transcript.md)")), "the record links its transcript:\n{record}");
    let committed = git(&sandbox.repo, &["show", "--name-only", "--format=", "HEAD"]);
    let mut files: Vec<&str> = committed.lines().collect();
    files.sort();
    let dir = "docs/decisions";
    assert_eq!(
        files,
        [format!("{dir}/{stem}.md"), format!("{dir}/{stem}.transcript.md"), format!("{dir}/README.md")],
        "one commit holds both, and the index"
    );
    let index = std::fs::read_to_string(sandbox.repo.join(dir).join("README.md")).unwrap();
    assert!(!index.contains("transcript"), "a transcript is no record of its own:\n{index}");
    assert_eq!(git(&sandbox.repo, &["status", "--porcelain"]), "");
}

#[test]
fn a_long_decision_title_is_shortened_at_a_word() {
    let sandbox = Sandbox::new();
    let long =
        "Cache product pages in an UNLOGGED Postgres table now and add Redis only when p99 latency passes fifty ms";
    let synthesis = SYNTHESIS.replacen('{', &format!("{{\"title\": \"{long}\", "), 1);
    let config = sandbox.scripted(&varied_answers(&PANEL, 1, AGREE).replace(SYNTHESIS, &synthesis));
    let out = run(&sandbox, &config, &["--no-commit", QUESTION]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let record = std::fs::read_to_string(&sandbox.records()[0]).unwrap();
    let h1 = record.lines().find_map(|l| l.strip_prefix("# ")).unwrap();
    assert!(h1.chars().count() <= 72, "{h1}");
    assert!(h1.ends_with('…'), "{h1}");
    let kept = h1.trim_end_matches('…');
    assert!(long.starts_with(kept) && long[kept.len()..].starts_with(' '), "cut at a word: {h1}");
    assert!(record.contains(&format!("## Question\n\n{QUESTION}\n")), "the question stays verbatim:\n{record}");
}

/// A one-round debate whose record was committed with `--branch`: the sandbox, its
/// settings, the debate's id and the branch.
fn recorded_on_a_branch() -> (Sandbox, std::path::PathBuf, String, String) {
    let sandbox = Sandbox::new();
    identity(&sandbox);
    let config = sandbox.scripted(&varied_answers(&PANEL, 2, CONTINUE));
    let out = run(&sandbox, &config, &["-r", "1", "--branch", QUESTION]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let id = sandbox.only_id();
    let branch = format!("decisions/{}-should-we-use-redis-or-postgres-for-caching", id.to_lowercase());
    (sandbox, config, id, branch)
}

/// A reviewer's objection reopens a completed debate: one more round with it as
/// guidance, a new synthesis, the same file rewritten with its history, and a commit on
/// the branch the record is on.
#[test]
fn the_review_loop_reopens_reargues_and_rewrites_the_same_record() {
    let (sandbox, config, id, branch) = recorded_on_a_branch();
    let listed = git(&sandbox.repo, &["ls-tree", "-r", "--name-only", &branch, "docs/decisions"]);
    let relative = listed.lines().find(|l| !l.ends_with("README.md")).unwrap().to_string();
    let before = git(&sandbox.repo, &["show", &format!("{branch}:{relative}")]);
    let first_tip = git(&sandbox.repo, &["rev-parse", &branch]).trim().to_string();
    let head_before = git(&sandbox.repo, &["rev-parse", "HEAD"]);

    let objection = "Reviewer: what about operating cost?";
    let out = run(&sandbox, &config, &["--resume", &id, "--guide", objection]);
    assert!(out.status.success(), "{}", text(&out.stderr));

    // One more round, argued with the objection in force.
    assert_eq!(sandbox.show(&id)["rounds"], 2);
    let round_two = sandbox
        .prompts()
        .into_iter()
        .filter(|p| p["purpose"] == "argument" && p["round"] == 2)
        .map(|p| p.to_string())
        .collect::<Vec<_>>();
    assert_eq!(round_two.len(), 2, "both debaters argued round 2");
    assert!(round_two.iter().all(|p| p.contains("operating cost")), "the objection reached the debaters");
    let synthesis = sandbox.prompts().into_iter().rfind(|p| p["purpose"] == "synthesis").unwrap().to_string();
    assert!(synthesis.contains("A reviewer reopened it") && synthesis.contains("operating cost"), "{synthesis}");

    // The same file, rewritten on the record's branch; the checkout untouched.
    let tip = git(&sandbox.repo, &["rev-parse", &branch]).trim().to_string();
    assert_eq!(git(&sandbox.repo, &["rev-parse", &format!("{tip}^")]).trim(), first_tip, "on top of the first");
    let changed = git(&sandbox.repo, &["show", "--name-status", "--format=", &tip]);
    assert!(changed.lines().any(|l| l == format!("M\t{relative}")), "the same file, modified: {changed}");
    assert!(changed.lines().all(|l| l.starts_with("M\t")), "nothing added: {changed}");
    let message = git(&sandbox.repo, &["log", "-1", "--format=%B", &tip]);
    assert!(message.starts_with("docs(decisions): revise "), "{message}");
    assert!(message.contains("Reopened by: Reviewer: what about operating cost?"), "{message}");
    assert!(message.contains("Revision: 1"), "{message}");
    assert_eq!(git(&sandbox.repo, &["rev-parse", "HEAD"]), head_before, "the checkout is untouched");

    let after = git(&sandbox.repo, &["show", &format!("{branch}:{relative}")]);
    assert_ne!(before, after);
    assert!(after.contains("### History"), "{after}");
    assert!(after.contains("after round 1:** chose \"Postgres\""), "{after}");
    assert!(after.contains(&format!("recorded in `{}`", &first_tip[..10])), "the earlier commit: {after}");
    assert!(after.contains(&format!("Reopened by: {objection}")), "{after}");
    assert!(after.contains("**Human guidance:** Reviewer: what about operating cost?"), "{after}");
    assert!(after.contains("rounds: 2\n"), "{after}");
    // The review's round is the last and the synthesis judges it: every stance names
    // Postgres and the moderator is sure, so it ends in agreement (else as a person asked).
    assert!(after.contains("ended_by: agreement\n"), "{after}");

    // Resuming again changes nothing: no second revision commit.
    sandbox.cmd().args(["--resume", &id]).assert().success();
    assert_eq!(git(&sandbox.repo, &["rev-parse", &branch]).trim(), tip);
}

#[test]
fn guide_is_for_completed_debates_and_needs_an_objection() {
    let sandbox = Sandbox::new();
    let config = sandbox.scripted(&varied_answers(&PANEL, 1, AGREE));
    let out = run(&sandbox, &config, &["--no-commit", QUESTION]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let id = sandbox.only_id();
    let out = run(&sandbox, &config, &["--resume", &id, "--guide", "  "]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("the objection is empty"), "{}", text(&out.stderr));
    let out = run(&sandbox, &config, &["--resume", &id, "--guide", "why?", "-r", "1"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let out = run(&sandbox, &config, &["--guide", "why?", QUESTION]);
    assert_eq!(out.status.code(), Some(2), "--guide without --resume is a usage error");
    assert_eq!(sandbox.show(&id)["rounds"], 1, "nothing was reopened");
}

/// A debate that ended early (agreement) still argues the review's round: the ending the
/// review answered does not end it again.
#[test]
fn a_review_after_agreement_argues_another_round() {
    let sandbox = Sandbox::new();
    identity(&sandbox);
    let config = sandbox.scripted(&varied_answers(&PANEL, 2, AGREE));
    let out = run(&sandbox, &config, &["-r", "3", QUESTION]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let id = sandbox.only_id();
    assert_eq!(sandbox.show(&id)["ended_by"], "agreement");
    let out = run(&sandbox, &config, &["--resume", &id, "--guide", "Reviewer: and the cost?"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(sandbox.show(&id)["rounds"], 2, "the review's round was argued");
    let guided =
        sandbox.prompts().iter().filter(|p| p["round"] == 2 && p.to_string().contains("and the cost?")).count();
    assert!(guided >= 2, "both debaters argued with the objection");
}

/// A review rewrites the record where it was committed, or not at all: with the record's
/// commit not on the checked-out branch, or the file edited by hand, it stops before any
/// model is asked anything.
#[test]
fn a_review_refuses_a_record_it_would_commit_elsewhere_or_lose_edits_of() {
    let sandbox = Sandbox::new();
    identity(&sandbox);
    let config = sandbox.scripted(&varied_answers(&PANEL, 2, CONTINUE));
    let out = run(&sandbox, &config, &["-r", "1", QUESTION]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let id = sandbox.only_id();
    let record = sandbox.records()[0].clone();
    let asked = sandbox.prompts().len();

    std::fs::write(&record, std::fs::read_to_string(&record).unwrap() + "\nA note of my own.\n").unwrap();
    let out = run(&sandbox, &config, &["--resume", &id, "--guide", "Reviewer: cost?"]);
    assert_eq!(out.status.code(), Some(5), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("would lose them"), "{}", text(&out.stderr));
    assert!(std::fs::read_to_string(&record).unwrap().ends_with("A note of my own.\n"), "the edit stays");
    git(&sandbox.repo, &["checkout", "-q", "--", "."]);

    git(&sandbox.repo, &["checkout", "-q", "-b", "elsewhere", "HEAD~1"]);
    let out = run(&sandbox, &config, &["--resume", &id, "--guide", "Reviewer: cost?"]);
    assert_eq!(out.status.code(), Some(5), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("git branch --contains"), "{}", text(&out.stderr));
    assert_eq!(sandbox.prompts().len(), asked, "no model was asked anything");
    assert_eq!(sandbox.show(&id)["status"], "complete", "nothing was reopened");
}

/// With the record's own branch checked out, the review's commit lands there and the
/// work tree and index follow it.
#[test]
fn a_review_of_a_branch_record_with_that_branch_checked_out_keeps_the_checkout_clean() {
    let (sandbox, config, id, branch) = recorded_on_a_branch();
    git(&sandbox.repo, &["checkout", "-q", &branch]);
    let out = run(&sandbox, &config, &["--resume", &id, "--guide", "Reviewer: cost?"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let message = git(&sandbox.repo, &["log", "-1", "--format=%B"]);
    assert!(message.contains("Revision: 1"), "{message}");
    assert_eq!(git(&sandbox.repo, &["status", "--porcelain"]), "", "the checkout follows the commit");
}

/// A record that was never committed (`--no-commit`) is rewritten by a review only as
/// the debate wrote it: a hand edit stops the review before any model call.
#[test]
fn a_review_of_an_uncommitted_record_keeps_hand_edits() {
    let sandbox = Sandbox::new();
    let config = sandbox.scripted(&varied_answers(&PANEL, 2, CONTINUE));
    let out = run(&sandbox, &config, &["-r", "1", "--no-commit", QUESTION]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let id = sandbox.only_id();
    let record = sandbox.records()[0].clone();
    let asked = sandbox.prompts().len();
    let edited = std::fs::read_to_string(&record).unwrap() + "\nMy own note.\n";
    std::fs::write(&record, &edited).unwrap();
    let out = run(&sandbox, &config, &["--resume", &id, "--guide", "Reviewer: cost?"]);
    assert_eq!(out.status.code(), Some(5), "{}", text(&out.stderr));
    assert_eq!(std::fs::read_to_string(&record).unwrap(), edited);
    assert_eq!(sandbox.prompts().len(), asked, "no model was asked anything");

    // Untouched, it is rewritten with the review's round.
    let untouched = edited.trim_end_matches("\nMy own note.\n").to_string();
    std::fs::write(&record, untouched).unwrap();
    let out = run(&sandbox, &config, &["--resume", &id, "--guide", "Reviewer: cost?"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(std::fs::read_to_string(&record).unwrap().contains("Reopened by: Reviewer: cost?"));
}

/// `debate review` takes the record's path as well as the id, and the objection from a
/// file or standard input; it needs exactly one objection.
#[test]
fn review_takes_a_record_path_and_an_objection_from_a_file_or_stdin() {
    let sandbox = Sandbox::new();
    identity(&sandbox);
    let config = sandbox.scripted(&varied_answers(&PANEL, 3, CONTINUE));
    let out = run(&sandbox, &config, &["-r", "1", QUESTION]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let id = sandbox.only_id();
    let relative = sandbox.records()[0].strip_prefix(&sandbox.repo).unwrap().to_string_lossy().into_owned();

    let refused = |args: &[&str], why: &str| {
        let out = run(&sandbox, &config, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out.stderr));
        assert!(text(&out.stderr).contains(why), "{args:?}: {}", text(&out.stderr));
    };
    refused(&["review", &relative], "--guide");
    refused(&["review", &relative, "--guide", "a", "--guide-file", "b.txt"], "cannot be used with");
    refused(&["review", "README.md", "--guide", "why?"], "carries no debate");
    refused(&["review", &relative, "--guide-file", "missing.txt"], "cannot read the objection file missing.txt");

    std::fs::write(sandbox.home.join("objection.txt"), "Reviewer: what about operating cost?\n").unwrap();
    let file = sandbox.home.join("objection.txt");
    let out = run(&sandbox, &config, &["review", &relative, "--guide-file", file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(sandbox.show(&id)["rounds"], 2);
    let record = std::fs::read_to_string(sandbox.repo.join(&relative)).unwrap();
    assert!(record.contains("Reopened by: Reviewer: what about operating cost?"), "{record}");

    let out = sandbox
        .cmd()
        .arg("--config")
        .arg(&config)
        .args(["review", &format!("./{relative}"), "--guide-file", "-"])
        .write_stdin("Reviewer: and the migration?")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(sandbox.show(&id)["rounds"], 3);
    let record = std::fs::read_to_string(sandbox.repo.join(&relative)).unwrap();
    assert!(record.contains("Reopened by: Reviewer: and the migration?"), "{record}");
}
