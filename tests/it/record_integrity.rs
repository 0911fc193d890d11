//! A review changes only what it reviews (issue 34): a record is bound to its
//! repository, a supersede is applied once, and no input crashes a command.

use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Output, Stdio};

use crate::common::*;

const SESSIONS: &str = "Should we use Memcached or Redis for sessions?";

/// A git repository at `dir` with an identity and a first commit.
fn init(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "-q", "-b", "main"]);
    git(dir, &["config", "user.name", "Ada Author"]);
    git(dir, &["config", "user.email", "ada@example.com"]);
    git(dir, &["commit", "-q", "--allow-empty", "-m", "start"]);
}

/// The sandbox's repository, initialised as `init` does.
fn authors_repository() -> Sandbox {
    let sandbox = Sandbox::plain();
    init(&sandbox.repo);
    sandbox
}

/// `debate <args>` run in `dir` with the sandbox's home (its state database).
fn run_in(sandbox: &Sandbox, dir: &Path, args: &[&str]) -> Output {
    sandbox.cmd().current_dir(dir).args(args).output().unwrap()
}

/// `debate <args>` run in `dir` with `home` as its own, empty, home.
fn run_as(sandbox: &Sandbox, dir: &Path, home: &Path, args: &[&str]) -> Output {
    sandbox.std_cmd_as(dir, home).args(args).output().unwrap()
}

/// An offline one-round debate of `question` in `dir`, committed: its record's path in
/// the repository.
fn debated(sandbox: &Sandbox, dir: &Path, question: &str, extra: &[&str]) -> String {
    let mut args = vec!["--offline", "--no-checkpoints", "-q", "-r", "1"];
    args.extend_from_slice(extra);
    args.push(question);
    let out = run_in(sandbox, dir, &args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let printed = text(&out.stdout);
    let name = Path::new(printed.trim()).file_name().expect("the record's path is printed").to_string_lossy();
    let relative = format!("docs/decisions/{name}");
    assert!(dir.join(&relative).is_file(), "{relative}");
    relative
}

/// The id a record's front matter names.
fn id_of_record(path: &Path) -> String {
    let record = std::fs::read_to_string(path).unwrap();
    let id = record.lines().find_map(|l| l.strip_prefix("id: ")).expect("an id in the front matter");
    id.trim().to_string()
}

/// A clone of the author's repository beside it (`git clone <options>`) with an
/// identity, and an empty home of its own.
fn fresh_clone(sandbox: &Sandbox, name: &str, options: &[&str]) -> (PathBuf, PathBuf) {
    let clone = sandbox.repo.with_file_name(name);
    let home = sandbox.repo.with_file_name(format!("{name}-home"));
    std::fs::create_dir_all(&home).unwrap();
    let mut args = vec!["clone", "-q"];
    args.extend_from_slice(options);
    args.extend([sandbox.repo.to_str().unwrap(), clone.to_str().unwrap()]);
    git(sandbox.repo.parent().unwrap(), &args);
    git(&clone, &["config", "user.name", "Rui Reviewer"]);
    git(&clone, &["config", "user.email", "rui@example.com"]);
    (clone, home)
}

fn head(dir: &Path) -> String {
    git(dir, &["rev-parse", "HEAD"]).trim().to_string()
}

fn status(dir: &Path) -> String {
    git(dir, &["status", "--porcelain"])
}

/// The record at `relative` in `dir` with `edit` done to its text, committed.
fn forge(dir: &Path, relative: &str, edit: impl FnOnce(String) -> String) {
    let path = dir.join(relative);
    let record = std::fs::read_to_string(&path).unwrap();
    let forged = edit(record.clone());
    assert_ne!(forged, record, "the forge changed the record");
    std::fs::write(&path, forged).unwrap();
    git(dir, &["commit", "-q", "-am", "forge the record"]);
}

/// Both `root` as given and as the file system resolves it, for messages that may name
/// either.
fn names_root(stderr: &str, root: &Path) -> bool {
    let canonical = root.canonicalize().unwrap();
    stderr.contains(&root.display().to_string()) || stderr.contains(&canonical.display().to_string())
}

/// Repository A's debate, and repository C beside it (sharing A's state database) that
/// committed a copy of A's record: the sandbox, A, C, the record's path and its id.
fn copied_to_another_repository() -> (Sandbox, PathBuf, PathBuf, String, String) {
    let sandbox = authors_repository();
    let a = sandbox.repo.clone();
    let relative = debated(&sandbox, &a, QUESTION, &[]);
    let id = id_of_record(&a.join(&relative));
    let c = a.with_file_name("c");
    init(&c);
    write(&c, &relative, &std::fs::read_to_string(a.join(&relative)).unwrap());
    git(&c, &["add", "-A"]);
    git(&c, &["commit", "-q", "-m", "a copy of A's record"]);
    (sandbox, a, c, relative, id)
}

// ── 1. A review binds to the repository ────────────────────────────────────────

/// Repository C, beside A and sharing A's state database, commits a copy of A's
/// record: a review there, by path or by id, is refused naming both places, and
/// neither repository changes.
#[test]
fn a_review_in_another_repository_of_a_debate_run_elsewhere_is_refused() {
    let (sandbox, a, c, relative, id) = copied_to_another_repository();
    let (a_head, c_head) = (head(&a), head(&c));

    let out = run_in(&sandbox, &c, &["review", &relative, "--guide", "x", "--no-checkpoints"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(names_root(&stderr, &a), "A's repository is named: {stderr}");
    assert!(stderr.contains(&relative), "C's record is named: {stderr}");

    let out = run_in(&sandbox, &c, &["review", &id, "--guide", "x", "--no-checkpoints"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("was debated in") && names_root(&stderr, &a), "{stderr}");
    assert!(names_root(&stderr, &c), "this repository is named too: {stderr}");

    assert_eq!(head(&a), a_head, "nothing committed in A");
    assert_eq!(head(&c), c_head, "nothing committed in C");
    assert_eq!(status(&a), "");
    assert_eq!(status(&c), "");
    assert_eq!(sandbox.show(&id)["rounds"], 1, "A's debate was not reopened");
}

/// `accept` in C of the copy needs no debate: C's file gets its status, committed in C,
/// by path or by id; A's record, repository and debate are left as they were.
#[test]
fn accept_in_another_repository_changes_only_its_own_copy() {
    let (sandbox, a, c, relative, id) = copied_to_another_repository();
    let a_head = head(&a);
    for target in [relative.as_str(), id.as_str()] {
        let out = run_in(&sandbox, &c, &["accept", target, "-q"]);
        assert!(out.status.success(), "accept {target}: {}", text(&out.stderr));
    }
    assert!(std::fs::read_to_string(c.join(&relative)).unwrap().contains("status: accepted"));
    assert!(git(&c, &["log", "-1", "--format=%s"]).starts_with("docs(decisions): accept"));
    assert_eq!(status(&c), "");
    assert_eq!(head(&a), a_head, "nothing committed in A");
    assert!(std::fs::read_to_string(a.join(&relative)).unwrap().contains("status: proposed"));
    assert_eq!(sandbox.show(&id)["record_status"], "proposed", "A's record keeps its status");
}

/// `show` of a record in C reads that record, never the debate this database ran in A
/// under its id: an exact copy is shown from the record there, a forged record that
/// names A's id and carries no debate is refused.
#[test]
fn show_in_another_repository_reads_the_record_there() {
    let (sandbox, _, c, relative, id) = copied_to_another_repository();

    let out = run_in(&sandbox, &c, &["show", &relative, "--json"]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let shown: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(shown["id"], id.as_str());
    assert!(stderr.contains("from its record") && stderr.contains(&relative), "read from the record here: {stderr}");
    assert_eq!(sandbox.listed().len(), 1, "nothing imported");

    let forged = format!(
        "---\nid: {id}\ntitle: Use Memcached\nstatus: accepted\ndate: 2026-01-01\n---\n# Use Memcached\n\n- Status: accepted\n\nWe use Memcached.\n"
    );
    write(&c, &relative, &forged);
    git(&c, &["commit", "-q", "-am", "a record of C's own that names A's id"]);
    let c_head = head(&c);
    let out = run_in(&sandbox, &c, &["show", &relative]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("cannot be read back") && stderr.contains("carries no debate"), "{stderr}");
    assert!(!text(&out.stdout).contains(QUESTION), "A's debate is not shown: {}", text(&out.stdout));
    assert_eq!(head(&c), c_head);
    assert_eq!(status(&c), "");
}

/// A record moved with `git mv` (the move committed) is found by its id: a review by
/// its new path, then one by id, each commit a revision of the new path.
#[test]
fn a_moved_record_is_reviewed_at_its_new_path() {
    let sandbox = authors_repository();
    let relative = debated(&sandbox, &sandbox.repo, QUESTION, &[]);
    let id = id_of_record(&sandbox.repo.join(&relative));
    let moved = "docs/decisions/0001-cache.md";
    git(&sandbox.repo, &["mv", &relative, moved]);
    git(&sandbox.repo, &["commit", "-q", "-m", "number the record"]);

    for (target, guide) in [(moved, "Reviewer: what about operating cost?"), (id.as_str(), "Reviewer: and backups?")] {
        let before = head(&sandbox.repo);
        let out = run_in(&sandbox, &sandbox.repo, &["review", target, "--guide", guide, "--no-checkpoints"]);
        assert!(out.status.success(), "review {target}: {}", text(&out.stderr));
        assert_eq!(git(&sandbox.repo, &["rev-parse", "HEAD~1"]).trim(), before, "one commit on top");
        let changed = git(&sandbox.repo, &["show", "--name-status", "--format=", "HEAD"]);
        assert!(changed.lines().any(|l| l == format!("M\t{moved}")), "the new path is revised: {changed}");
        assert!(!changed.contains(&relative), "the old path is not brought back: {changed}");
        assert!(std::fs::read_to_string(sandbox.repo.join(moved)).unwrap().contains(guide));
        assert!(!sandbox.repo.join(&relative).exists(), "the old path is not written again");
        assert_eq!(status(&sandbox.repo), "");
    }
    assert_eq!(sandbox.show(&id)["rounds"], 3);
}

// ── 2. A supersede is applied once ─────────────────────────────────────────────

/// Record 2 superseded record 1; the team set record 1 back to accepted and committed:
/// a review of record 2 leaves record 1 as the team left it.
#[test]
fn a_review_never_applies_its_supersedes_again() {
    let sandbox = authors_repository();
    let repo = sandbox.repo.clone();
    let first = debated(&sandbox, &repo, QUESTION, &[]);
    let out = run_in(&sandbox, &repo, &["accept", &first]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let second = debated(&sandbox, &repo, SESSIONS, &["--supersedes", &first]);
    let superseded = std::fs::read_to_string(repo.join(&first)).unwrap();
    assert!(superseded.contains("status: \"superseded by"), "{superseded}");

    // The team restores record 1 as it was before record 2.
    git(&repo, &["checkout", "HEAD~1", "--", &first]);
    git(&repo, &["commit", "-q", "-m", "record 1 stands after all"]);
    let restored = std::fs::read(repo.join(&first)).unwrap();
    assert!(text(&restored).contains("status: accepted"));

    let before = head(&repo);
    let out = run_in(&sandbox, &repo, &["review", &second, "--guide", "still needed?", "--no-checkpoints"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(git(&repo, &["rev-parse", "HEAD~1"]).trim(), before, "one commit on top");
    assert_eq!(std::fs::read(repo.join(&first)).unwrap(), restored, "record 1 is byte for byte as the team left it");
    let changed = git(&repo, &["show", "--name-only", "--format=", "HEAD"]);
    assert!(changed.lines().any(|l| l == second), "{changed}");
    assert!(!changed.lines().any(|l| l == first), "the review's commit leaves record 1 alone: {changed}");
    let message = git(&repo, &["log", "-1", "--format=%B"]);
    assert!(!message.contains("Supersedes:"), "{message}");
    assert_eq!(status(&repo), "");
}

// ── 3. A model's answer never crashes the debate ───────────────────────────────

#[test]
fn a_debaters_line_with_a_dash_where_the_stance_marker_would_end_is_prose() {
    let sandbox = Sandbox::new();
    git(&sandbox.repo, &["config", "user.name", "Ada Author"]);
    git(&sandbox.repo, &["config", "user.email", "ada@example.com"]);
    let answer = format!(
        "{{purpose: argument, round: 1, perspective: \"Performance Advocate\", text: \"Yes – Redis wins.\\nCost — it is cheaper.\\n{STANCE}\"}}"
    );
    let answers = replace_answers(
        &varied_answers(&PANEL, 1, AGREE),
        "{purpose: argument, round: 1, perspective: \"Performance Advocate\"",
        &answer,
    );
    let config = sandbox.scripted(&answers);
    let out = sandbox.cmd().arg("--config").arg(&config).args(["-r", "1", QUESTION]).output().unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let record = std::fs::read_to_string(&sandbox.records()[0]).unwrap();
    assert!(record.contains("Yes – Redis wins.") && record.contains("Cost — it is cheaper."), "{record}");
    assert_eq!(sandbox.shown()["status"], "complete");
}

// ── 4. A carried path is checked before anything is written ────────────────────

/// A record whose carried state says it supersedes `.git/x.md`, forged consistently so
/// that the record otherwise reads back, is refused by a review in a fresh clone before
/// any round is argued; `.git/x.md` and the work tree are left as they were.
#[test]
fn a_carried_supersedes_path_inside_git_is_refused_and_nothing_is_written() {
    let sandbox = authors_repository();
    let first = debated(&sandbox, &sandbox.repo, QUESTION, &[]);
    let second = debated(&sandbox, &sandbox.repo, SESSIONS, &["--supersedes", &first]);
    let (clone, home) = fresh_clone(&sandbox, "clone", &[]);
    let name = Path::new(&first).file_name().unwrap().to_string_lossy().into_owned();
    let stem = name.trim_end_matches(".md").to_string();
    forge(&clone, &second, |record| {
        let record = record.replace(&format!("\"path\":\"{first}\""), "\"path\":\".git/x.md\"");
        assert!(record.contains("\"path\":\".git/x.md\""), "the carried path is forged");
        record
            .replace(&format!("[{stem}]({name})"), "[x](../../.git/x.md)")
            .replace(&format!("]({name}) — "), "](../../.git/x.md) — ")
    });
    let target = clone.join(".git/x.md");
    let earlier = "---\nstatus: accepted\n---\n# X\n\n- Status: accepted\n";
    std::fs::write(&target, earlier).unwrap();
    let before = head(&clone);

    let out = run_as(&sandbox, &clone, &home, &["review", &second, "--guide", "x", "--no-checkpoints"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(".git/x.md"), "the reason names the path: {stderr}");
    assert!(!stderr.contains("═══ Round"), "refused before any round was argued: {stderr}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), earlier, ".git/x.md is not touched");
    assert_eq!(head(&clone), before, "nothing committed");
    assert_eq!(status(&clone), "", "nothing written");
}

// ── 5. A carried length is checked, never trusted ──────────────────────────────

#[test]
fn a_forged_line_count_is_refused_not_a_crash() {
    let sandbox = authors_repository();
    let relative = debated(&sandbox, &sandbox.repo, QUESTION, &[]);
    let (clone, home) = fresh_clone(&sandbox, "clone", &[]);
    forge(&clone, &relative, |record| {
        let at = record.find("\"lines\":[").expect("a carried lines array") + "\"lines\":[".len();
        let end = at + record[at..].find([',', ']']).unwrap();
        format!("{}18446744073709551615{}", &record[..at], &record[end..])
    });
    let before = head(&clone);
    for args in [vec!["show", relative.as_str()], vec!["review", relative.as_str(), "--guide", "x", "--no-checkpoints"]]
    {
        let out = run_as(&sandbox, &clone, &home, &args);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(stderr.contains("cannot be read back"), "{args:?}: {stderr}");
    }
    assert_eq!(head(&clone), before);
    assert_eq!(status(&clone), "");
}

/// A carried figure no debate has (2^63−1 tokens, a latency of 292 million years), in
/// a field the record does not render: `show` refuses the record, stores nothing, and
/// `list --all` and `delete` of other debates go on working.
#[test]
fn a_forged_count_is_refused_and_the_history_stays_readable() {
    let sandbox = authors_repository();
    let relative = debated(&sandbox, &sandbox.repo, QUESTION, &[]);
    let id = id_of_record(&sandbox.repo.join(&relative));
    for field in ["\"latency_ms\":", "\"completion_tokens\":", "\"prompt_tokens\":"] {
        let (clone, home) = fresh_clone(&sandbox, &format!("clone-{}", field.len()), &[]);
        forge(&clone, &relative, |record| {
            let state = record.find("<!-- debate:state ").unwrap();
            let at = state + record[state..].find(field).expect("a carried figure") + field.len();
            let end = at + record[at..].find([',', '}']).unwrap();
            format!("{}9223372036854775807{}", &record[..at], &record[end..])
        });
        let out = run_as(&sandbox, &clone, &home, &["show", &relative]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{field}: {stderr}");
        assert!(stderr.contains("9223372036854775807") && stderr.contains("no debate has"), "{field}: {stderr}");
        let listed = run_as(&sandbox, &clone, &home, &["list", "--all", "--json"]);
        assert!(listed.status.success(), "{field}: {}", text(&listed.stderr));
        assert_eq!(text(&listed.stdout).trim(), "[]", "{field}: nothing was imported");
        let deleted = run_as(&sandbox, &clone, &home, &["delete", &id]);
        assert_eq!(deleted.status.code(), Some(2), "{field}: no such debate here: {}", text(&deleted.stderr));
        assert_eq!(status(&clone), "", "{field}");
    }
}

/// A record shows only its latest scores: an earlier scorecard forged into the line it
/// carries (another model, other marks) is never read back as the record's own.
#[test]
fn a_forged_scorecard_the_record_does_not_show_is_not_imported() {
    let sandbox = authors_repository();
    let relative = debated(&sandbox, &sandbox.repo, QUESTION, &[]);
    let id = id_of_record(&sandbox.repo.join(&relative));
    let out = run_in(&sandbox, &sandbox.repo, &["eval", &id, "--write", "-q"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let (clone, home) = fresh_clone(&sandbox, "clone", &[]);
    forge(&clone, &relative, |record| {
        let at = record.find("\"scorecards\":[{").expect("the record's scores travel") + "\"scorecards\":[".len();
        let card = &record[at..at + json_value_length(&record[at..])];
        let invented =
            card.replacen("\"number\":1", "\"number\":7", 1).replace("\"model\":\"", "\"model\":\"gpt-fabricated-");
        assert!(invented.contains("gpt-fabricated") && invented.contains("\"number\":7"), "{card}");
        format!("{}{invented},{}", &record[..at], &record[at..])
    });
    let out = run_as(&sandbox, &clone, &home, &["show", &id, "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let shown: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let evaluations = shown["evaluations"].as_array().unwrap();
    assert_eq!(evaluations.len(), 1, "{evaluations:?}");
    assert!(!out.stdout.windows(14).any(|w| w == b"gpt-fabricated"), "{}", text(&out.stdout));
}

// ── 6. A CRLF checkout is the same record ──────────────────────────────────────

/// The record checked out with `core.autocrlf=true`, in a fresh clone.
fn crlf_clone(sandbox: &Sandbox, relative: &str) -> (PathBuf, PathBuf) {
    let (clone, home) = fresh_clone(sandbox, "crlf", &["-c", "core.autocrlf=true"]);
    let on_disk = std::fs::read(clone.join(relative)).unwrap();
    assert!(on_disk.windows(2).any(|w| w == b"\r\n"), "the record is checked out with CRLF");
    assert_eq!(status(&clone), "", "git sees no change");
    (clone, home)
}

#[test]
fn a_record_checked_out_with_crlf_is_shown_and_accepted() {
    let sandbox = authors_repository();
    let relative = debated(&sandbox, &sandbox.repo, QUESTION, &[]);
    let id = id_of_record(&sandbox.repo.join(&relative));
    let (clone, home) = crlf_clone(&sandbox, &relative);

    let out = run_as(&sandbox, &clone, &home, &["show", &relative, "--json"]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("edited by hand"), "{stderr}");
    let shown: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(shown["id"], id.as_str());

    let before = head(&clone);
    let out = run_as(&sandbox, &clone, &home, &["accept", &relative]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(git(&clone, &["rev-parse", "HEAD~1"]).trim(), before, "one commit");
    let committed = git(&clone, &["show", &format!("HEAD:{relative}")]);
    assert!(committed.contains("status: accepted"), "{committed}");
    assert_eq!(status(&clone), "", "git sees no change after accept");
}

/// The decisions index of a CRLF checkout is debate's own too: `accept` writes it again.
#[test]
fn the_index_of_a_crlf_checkout_is_written_again() {
    let sandbox = authors_repository();
    let relative = debated(&sandbox, &sandbox.repo, QUESTION, &[]);
    let (clone, home) = crlf_clone(&sandbox, &relative);
    let out = run_as(&sandbox, &clone, &home, &["accept", &relative]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("has changes that are not committed"), "{stderr}");
    let index = git(&clone, &["show", "HEAD:docs/decisions/README.md"]);
    let name = Path::new(&relative).file_name().unwrap().to_string_lossy().into_owned();
    let row = index.lines().find(|l| l.contains(&format!("]({name})"))).expect("the record's row");
    assert!(row.contains("| accepted |"), "{row}");
    assert_eq!(status(&clone), "");
}

// ── 8. A review takes the provider it is given ─────────────────────────────────

#[test]
fn a_review_takes_provider_and_offline() {
    let sandbox = authors_repository();
    let relative = debated(&sandbox, &sandbox.repo, QUESTION, &[]);
    let id = id_of_record(&sandbox.repo.join(&relative));
    for (flags, revision) in [(vec!["--provider", "offline"], 1), (vec!["--offline"], 2)] {
        let before = head(&sandbox.repo);
        let guide = format!("Reviewer: asked with {}", flags.join(" "));
        let mut args = vec!["review", id.as_str()];
        args.extend_from_slice(&flags);
        args.extend(["--guide", guide.as_str(), "--no-checkpoints"]);
        let out = run_in(&sandbox, &sandbox.repo, &args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", text(&out.stderr));
        assert_eq!(git(&sandbox.repo, &["rev-parse", "HEAD~1"]).trim(), before, "one commit on top");
        let message = git(&sandbox.repo, &["log", "-1", "--format=%B"]);
        assert!(message.starts_with("docs(decisions): revise"), "{message}");
        assert!(message.contains(&format!("Revision: {revision}")), "{message}");
        let changed = git(&sandbox.repo, &["show", "--name-only", "--format=", "HEAD"]);
        assert!(changed.lines().any(|l| l == relative), "{changed}");
        assert!(std::fs::read_to_string(sandbox.repo.join(&relative)).unwrap().contains(&guide));
    }
    assert_eq!(status(&sandbox.repo), "");
}

// ── 10. Concurrent imports of one record agree ─────────────────────────────────

#[test]
fn three_shows_at_once_in_a_fresh_clone_all_succeed() {
    let sandbox = authors_repository();
    let relative = debated(&sandbox, &sandbox.repo, QUESTION, &[]);
    let id = id_of_record(&sandbox.repo.join(&relative));
    let (clone, home) = fresh_clone(&sandbox, "clone", &[]);
    let children: Vec<_> = (0..3)
        .map(|_| {
            sandbox
                .std_cmd()
                .current_dir(&clone)
                .env("DEBATE_HOME", &home)
                .env("HOME", &home)
                .env("XDG_DATA_HOME", home.join("data"))
                .env("XDG_CONFIG_HOME", home.join("config"))
                .args(["show", &id, "--json"])
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let shown: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(shown["id"], id.as_str());
    }
    let listed = run_as(&sandbox, &clone, &home, &["list", "--all", "--json"]);
    assert!(listed.status.success(), "{}", text(&listed.stderr));
    let listed: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(listed.as_array().map(Vec::len), Some(1), "imported once: {listed}");
}

// ── 11. Inputs read whole are capped ───────────────────────────────────────────

/// `/dev/zero` as the event: refused at the cap. The process runs under a 4 GiB
/// address-space limit, so code without the cap fails the test instead of the machine.
#[test]
fn an_endless_github_event_is_refused_at_its_size_cap() {
    let sandbox = Sandbox::new();
    let debate = sandbox.std_cmd();
    let mut cmd = StdCommand::new("sh");
    cmd.args(["-c", "ulimit -v 4194304 && exec \"$0\" \"$@\""])
        .arg(debate.get_program())
        .args(["review", "--github-event", "/dev/zero"])
        .current_dir(&sandbox.repo)
        .env("MALLOC_ARENA_MAX", "2")
        .stdin(Stdio::null());
    for (key, value) in debate.get_envs() {
        match value {
            Some(value) => cmd.env(key, value),
            None => cmd.env_remove(key),
        };
    }
    let out = cmd.output().unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("/dev/zero") && stderr.contains("larger than 25 MiB"), "{stderr}");
}

#[test]
fn a_record_larger_than_the_file_cap_is_refused_by_show() {
    let sandbox = authors_repository();
    let relative = debated(&sandbox, &sandbox.repo, QUESTION, &[]);
    let (clone, home) = fresh_clone(&sandbox, "clone", &[]);
    forge(&clone, &relative, |record| {
        let padding = " ".repeat(20 << 20);
        record.replacen("<!-- debate:state {", &format!("<!-- debate:state {{{padding}"), 1)
    });
    assert!(std::fs::metadata(clone.join(&relative)).unwrap().len() > 16 << 20);
    let out = run_as(&sandbox, &clone, &home, &["show", &relative]);
    let stderr = text(&out.stderr);
    assert!(!out.status.success() && out.status.code() != Some(101), "{stderr}");
    assert!(stderr.contains("larger than"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(status(&clone), "");
}

// ── 12. Text that shows nothing is empty ───────────────────────────────────────

#[test]
fn a_question_or_guidance_of_invisible_characters_is_empty() {
    let sandbox = authors_repository();
    let relative = debated(&sandbox, &sandbox.repo, QUESTION, &[]);
    let id = id_of_record(&sandbox.repo.join(&relative));
    let before = head(&sandbox.repo);

    for blank in ["\u{200b}\u{202e}\u{200b}", "\u{2800}\u{2800}\u{2800}", "\u{1b}[31m\u{1b}]0;x\u{7}\u{1b}[0m"] {
        let out = run_in(&sandbox, &sandbox.repo, &["new", "--offline", "--no-checkpoints", "-r", "1", blank]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{blank:?}: {stderr}");
        assert!(stderr.contains("is empty"), "{blank:?}: {stderr}");
    }

    let out = run_in(&sandbox, &sandbox.repo, &["review", &id, "--guide", "\u{200b}", "--no-checkpoints"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("is empty"), "{stderr}");

    assert_eq!(head(&sandbox.repo), before, "nothing committed");
    assert_eq!(status(&sandbox.repo), "");
    assert_eq!(sandbox.listed().len(), 1, "no debate started");
    assert_eq!(sandbox.show(&id)["rounds"], 1, "the debate was not reopened");
}

// ── 14. `show` says why it cannot read a record ────────────────────────────────

#[test]
fn show_says_why_a_record_cannot_be_read() {
    let sandbox = authors_repository();
    let relative = debated(&sandbox, &sandbox.repo, QUESTION, &[]);
    let id = id_of_record(&sandbox.repo.join(&relative));
    let (clone, home) = fresh_clone(&sandbox, "clone", &[]);

    // Bytes that are no UTF-8 in the record's body.
    let path = clone.join(&relative);
    let record = std::fs::read(&path).unwrap();
    let at = record.windows(11).position(|w| w == b"## Question").expect("a Question section") + 11;
    let mut damaged = record[..at].to_vec();
    damaged.extend_from_slice(b" \xff\xfe");
    damaged.extend_from_slice(&record[at..]);
    std::fs::write(&path, damaged).unwrap();
    git(&clone, &["commit", "-q", "-am", "bytes that are no text"]);
    for target in [id.as_str(), relative.as_str()] {
        let out = run_as(&sandbox, &clone, &home, &["show", target]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "show {target}: {stderr}");
        assert!(!stderr.contains("no debate with id"), "show {target}: {stderr}");
        assert!(stderr.contains("not UTF-8"), "show {target}: {stderr}");
    }

    // The record as it was, and a copy of it under a second name: one id, two records.
    git(&clone, &["reset", "-q", "--hard", "HEAD~1"]);
    let copy = "docs/decisions/copy-of-the-cache-decision.md";
    std::fs::copy(&path, clone.join(copy)).unwrap();
    git(&clone, &["add", "-A"]);
    git(&clone, &["commit", "-q", "-m", "one id, two records"]);
    let home = empty_home(&sandbox, "clone-2");
    let out = run_as(&sandbox, &clone, &home, &["show", &id]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(!stderr.contains("no debate with id"), "{stderr}");
    assert!(stderr.contains("several records carry"), "{stderr}");
    assert!(stderr.contains(&relative) && stderr.contains(copy), "both are named: {stderr}");
}

/// An empty home beside the repository, for a second command that must find nothing
/// stored.
fn empty_home(sandbox: &Sandbox, name: &str) -> PathBuf {
    let home = sandbox.repo.with_file_name(format!("{name}-home"));
    std::fs::create_dir_all(&home).unwrap();
    home
}
