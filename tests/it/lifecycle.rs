//! A record's life after it is committed: `debate accept|reject|deprecate <ID|PATH>`
//! changes its status where the record keeps it, adds a line of status history, and
//! commits only that file (and the decisions index) — for any record in the repository,
//! whoever wrote it, with or without its debate in the local database.

use std::path::Path;
use std::process::Stdio;

use crate::common::*;

const TODAY: &str = "2026-11-22";

/// A teammate's MADR 4 record, proposed.
const MADR: &str = "---\nstatus: proposed\ndate: 2026-11-20\ndecision-makers: [Teammate]\n---\n# Use Postgres as the only datastore\n\n## Context and Problem Statement\n\nWe need one store.\n\n## Decision Outcome\n\nChosen option: \"Postgres\", because it is the one we run.\n";
const MADR_PATH: &str = "docs/decisions/0001-use-postgres.md";

const NYGARD: &str = "# 2. Record architecture decisions\n\nDate: 2024-01-01\n\n## Status\n\nProposed\n\n## Context\n\nWe need to record decisions.\n\n## Decision\n\nWe will use ADRs.\n";
const NYGARD_PATH: &str = "doc/adr/0002-record-architecture-decisions.md";

fn status(repo: &Path) -> String {
    git(repo, &["status", "--porcelain", "--untracked-files=all"])
}

fn head(repo: &Path) -> String {
    git(repo, &["rev-parse", "HEAD"]).trim().to_string()
}

/// A repository whose user is Jane Doe, with `files` committed by a teammate.
fn repository(files: &[(&str, &str)]) -> Sandbox {
    let sandbox = Sandbox::new();
    git(&sandbox.repo, &["config", "user.name", "Jane Doe"]);
    git(&sandbox.repo, &["config", "user.email", "jane@example.com"]);
    write(&sandbox.repo, "a.txt", "one\n");
    git(&sandbox.repo, &["add", "a.txt"]);
    for (relative, content) in files {
        write(&sandbox.repo, relative, content);
        git(&sandbox.repo, &["add", relative]);
    }
    git(
        &sandbox.repo,
        &[
            "-c",
            "user.name=Teammate",
            "-c",
            "user.email=mate@example.com",
            "commit",
            "-q",
            "-m",
            "a teammate's records",
        ],
    );
    sandbox
}

/// `debate <args>` on the fixed date, which must succeed; its stdout and stderr.
fn debate(sandbox: &Sandbox, args: &[&str]) -> (String, String) {
    let out = sandbox.cmd().env("DEBATE_TEST_TODAY", TODAY).args(args).output().unwrap();
    assert!(out.status.success(), "debate {args:?} failed ({:?}): {}", out.status, text(&out.stderr));
    (text(&out.stdout), text(&out.stderr))
}

/// `debate <args>`, which must fail with `code`; its stderr.
fn refused(sandbox: &Sandbox, args: &[&str], code: i32) -> String {
    let out = sandbox.cmd().env("DEBATE_TEST_TODAY", TODAY).args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(code), "debate {args:?}: {}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(stderr.starts_with("error: ") && !stderr.contains("panicked"), "{stderr}");
    stderr
}

#[test]
fn accept_on_a_teammates_record_commits_only_that_file_and_the_index() {
    let sandbox = repository(&[(MADR_PATH, MADR)]);
    let repo = &sandbox.repo;
    // The user's own work in progress: staged, unstaged and untracked.
    write(repo, "staged.txt", "staged\n");
    git(repo, &["add", "staged.txt"]);
    write(repo, "a.txt", "one\nnot staged\n");
    write(repo, "scratch.txt", "untracked\n");
    let before = head(repo);
    let status_before = status(repo);
    let staged_before = git(repo, &["diff", "--cached"]);
    let unstaged_before = git(repo, &["diff"]);

    let (stdout, stderr) = debate(&sandbox, &["accept", MADR_PATH]);
    assert!(!sandbox.db().exists(), "no state database was needed (or made)");
    assert_eq!(stdout.trim(), repo.join(MADR_PATH).canonicalize().unwrap().to_str().unwrap());
    assert!(stderr.contains("is now accepted (was proposed); committed as"), "{stderr}");

    assert_eq!(git(repo, &["rev-parse", "HEAD^"]).trim(), before, "one commit on top");
    let changed = git(repo, &["show", "--name-status", "--format=", "HEAD"]);
    assert_eq!(changed, format!("M\t{MADR_PATH}\nA\tdocs/decisions/README.md\n"), "only the record and the index");
    assert_eq!(
        git(repo, &["log", "-1", "--format=%an <%ae>|%s"]).trim(),
        "Jane Doe <jane@example.com>|docs(decisions): accept Use Postgres as the only datastore"
    );
    let message = git(repo, &["log", "-1", "--format=%B"]);
    assert!(message.contains("Status: accepted (was proposed)") && !message.contains("Debate-Id"), "{message}");

    let expected = MADR
        .replace("status: proposed\n", &format!("status: accepted\nstatus-history: [accepted {TODAY} by Jane Doe]\n"));
    assert_eq!(git(repo, &["show", &format!("HEAD:{MADR_PATH}")]), expected, "the status and its history, no more");
    assert_eq!(std::fs::read_to_string(repo.join(MADR_PATH)).unwrap(), expected);
    let index = git(repo, &["show", "HEAD:docs/decisions/README.md"]);
    assert!(
        index.contains(
            "| 2026-11-20 | [Use Postgres as the only datastore](0001-use-postgres.md) | accepted | Postgres |"
        ),
        "{index}"
    );

    assert_eq!(status(repo), status_before, "the user's changes are as they were");
    assert_eq!(git(repo, &["diff", "--cached"]), staged_before, "staged stays staged");
    assert_eq!(git(repo, &["diff"]), unstaged_before, "unstaged stays unstaged");
    assert_eq!(git(repo, &["show", "HEAD:a.txt"]), "one\n");
    assert!(!git(repo, &["ls-tree", "-r", "--name-only", "HEAD"]).contains("staged.txt"));
}

#[test]
fn a_debates_record_is_found_by_its_id_in_the_database_and_by_a_scan() {
    let sandbox = repository(&[]);
    let (stdout, _) = debate(&sandbox, &["--offline", "-q", QUESTION]);
    let record = std::path::PathBuf::from(stdout.trim());
    let id = sandbox.only_id();

    // Through the database, in any case.
    let (stdout, _) = debate(&sandbox, &["reject", &id.to_lowercase(), "-q"]);
    assert_eq!(Path::new(stdout.trim()), record);
    let content = std::fs::read_to_string(&record).unwrap();
    assert!(content.contains(&format!("status: rejected\nstatus-history: [rejected {TODAY} by Jane Doe]\n")));
    let trailer = git(&sandbox.repo, &["log", "-1", "--format=%(trailers:key=Debate-Id,valueonly)"]);
    assert_eq!(trailer.trim(), id, "the Debate-Id trailer");
    assert!(git(&sandbox.repo, &["log", "-1", "--format=%s"]).starts_with("docs(decisions): reject Should we use"));
    // In every form `show` takes: without `DEB-`, and a unique prefix of it.
    let bare = &id["DEB-".len()..];
    let (_, stderr) = debate(&sandbox, &["deprecate", bare]);
    assert!(stderr.contains("is now deprecated (was rejected)"), "{stderr}");
    let (_, stderr) = debate(&sandbox, &["reject", &bare[..3]]);
    assert!(stderr.contains("is now rejected (was deprecated)"), "{stderr}");

    // Without the database (a teammate's clone): the record whose front matter has the id.
    std::fs::remove_file(sandbox.db()).unwrap();
    let (_, stderr) = debate(&sandbox, &["accept", &id]);
    assert!(stderr.contains("is now accepted (was rejected)"), "{stderr}");
    let content = std::fs::read_to_string(&record).unwrap();
    assert!(
        content.contains(&format!(
            "status: accepted\nstatus-history: [rejected {TODAY} by Jane Doe, deprecated {TODAY} by Jane Doe, rejected {TODAY} by Jane Doe, accepted {TODAY} by Jane Doe]\n"
        )),
        "{content}"
    );
    assert!(content.contains("\n- Status: accepted\n"), "the header list follows the front matter: {content}");
    assert_eq!(status(&sandbox.repo), "");

    // An id nobody carries, and one the database knows only by its start.
    let stderr = refused(&sandbox, &["accept", "DEB-zzzzzz"], 2);
    assert!(stderr.contains("accept DEB-zzzzzz: no decision record here carries that id"), "{stderr}");
    let stderr = refused(&sandbox, &["accept", "deb-zz"], 2);
    assert!(stderr.contains("no debate in the state database has that id"), "{stderr}");
    // A teammate's clone knows the id without `DEB-` too.
    let (_, stderr) = debate(&sandbox, &["reject", &bare.to_uppercase()]);
    assert!(stderr.contains("is now rejected (was accepted)"), "{stderr}");
}

#[test]
fn a_nygard_record_gets_its_status_and_history_in_its_status_section() {
    let sandbox = repository(&[(NYGARD_PATH, NYGARD)]);
    debate(&sandbox, &["accept", NYGARD_PATH]);
    let accepted = std::fs::read_to_string(sandbox.repo.join(NYGARD_PATH)).unwrap();
    assert_eq!(
        accepted,
        NYGARD.replace(
            "## Status\n\nProposed\n",
            &format!("## Status\n\nAccepted\n\nAccepted on {TODAY} by Jane Doe (was Proposed).\n")
        )
    );
    let (_, stderr) = debate(&sandbox, &["deprecate", NYGARD_PATH]);
    assert!(stderr.contains("is now Deprecated (was Accepted)"), "{stderr}");
    let deprecated = std::fs::read_to_string(sandbox.repo.join(NYGARD_PATH)).unwrap();
    assert!(
        deprecated.contains(&format!(
            "## Status\n\nDeprecated\n\nAccepted on {TODAY} by Jane Doe (was Proposed).\nDeprecated on {TODAY} by Jane Doe (was Accepted).\n\n## Context"
        )),
        "{deprecated}"
    );
    let changed = git(&sandbox.repo, &["show", "--name-status", "--format=", "HEAD"]);
    assert_eq!(changed, format!("M\t{NYGARD_PATH}\nM\tdoc/adr/README.md\n"), "the index of its own directory");
    let index = git(&sandbox.repo, &["show", "HEAD:doc/adr/README.md"]);
    assert!(index.contains("| Deprecated |"), "{index}");
    assert_eq!(git(&sandbox.repo, &["rev-list", "--count", "HEAD"]).trim(), "3");
}

#[test]
fn the_same_status_again_commits_nothing_and_the_index_comes_back_byte_identical() {
    let sandbox = repository(&[(MADR_PATH, MADR), (NYGARD_PATH, NYGARD)]);
    debate(&sandbox, &["accept", MADR_PATH]);
    let index = std::fs::read(sandbox.repo.join("docs/decisions/README.md")).unwrap();
    let after_accept = head(&sandbox.repo);
    let files = sandbox.files();

    let (_, stderr) = debate(&sandbox, &["accept", MADR_PATH]);
    assert!(stderr.contains("already is accepted; nothing changed"), "{stderr}");
    assert_eq!(head(&sandbox.repo), after_accept, "no commit");
    assert_eq!(sandbox.files(), files, "nothing written");
    let json: serde_json::Value = serde_json::from_str(&debate(&sandbox, &["accept", MADR_PATH, "--json"]).0).unwrap();
    assert_eq!((json["changed"].as_bool(), json["commit"].as_str()), (Some(false), None), "{json}");

    // Rejected and accepted again: the table is what it was, to the byte.
    debate(&sandbox, &["reject", MADR_PATH]);
    assert_ne!(std::fs::read(sandbox.repo.join("docs/decisions/README.md")).unwrap(), index);
    debate(&sandbox, &["accept", MADR_PATH]);
    assert_eq!(std::fs::read(sandbox.repo.join("docs/decisions/README.md")).unwrap(), index, "byte-identical");
    assert_eq!(status(&sandbox.repo), "");
}

#[test]
fn json_says_what_became_of_the_record() {
    let sandbox = repository(&[(MADR_PATH, MADR)]);
    let (stdout, _) = debate(&sandbox, &["deprecate", MADR_PATH, "--json"]);
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["status"], "deprecated");
    assert_eq!(json["previous_status"], "proposed");
    assert_eq!(json["changed"], true);
    assert_eq!(json["commit"].as_str(), Some(head(&sandbox.repo).as_str()));
    assert!(json["not_committed"].is_null());
    assert!(json["path"].as_str().unwrap().ends_with(MADR_PATH), "{json}");
}

#[test]
fn bad_targets_are_refused_with_nothing_written() {
    let sandbox = repository(&[(MADR_PATH, MADR)]);
    let repo = &sandbox.repo;
    write(repo, "docs/decisions/0009-no-status.md", "# A record without a status\n\nWe did a thing.\n");
    let superseded =
        MADR.replace("status: proposed", "status: \"superseded by [Cache in Redis](0003-cache-in-redis.md)\"");
    write(repo, "docs/decisions/0002-superseded.md", &superseded);
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-q", "-m", "more records"]);
    // A link within the work tree, into git's own directory.
    let outside = sandbox.repo.join(".git/elsewhere.md");
    std::fs::write(&outside, MADR).unwrap();
    std::os::unix::fs::symlink(&outside, repo.join("docs/decisions/0004-link.md")).unwrap();
    write(repo, ".git/evil.md", MADR);
    let files = sandbox.files();
    let before = head(repo);

    for target in
        ["docs/decisions/0404-missing.md", outside.to_str().unwrap(), "docs/decisions/0004-link.md", ".git/evil.md"]
    {
        let stderr = refused(&sandbox, &["accept", target], 2);
        assert!(stderr.contains(&format!("accept {target}: ")), "{stderr}");
    }
    let stderr = refused(&sandbox, &["accept", "docs/decisions/0009-no-status.md"], 5);
    assert!(stderr.contains("states no status"), "{stderr}");
    for verb in ["accept", "reject", "deprecate"] {
        let stderr = refused(&sandbox, &[verb, "docs/decisions/0002-superseded.md"], 2);
        assert!(stderr.contains("is superseded by [Cache in Redis](0003-cache-in-redis.md)"), "{stderr}");
        assert!(stderr.contains("hint: "), "{stderr}");
    }
    // A record with an edit of the user's own is not committed along.
    std::fs::write(repo.join(MADR_PATH), format!("{MADR}\nMy own note.\n")).unwrap();
    let stderr = refused(&sandbox, &["accept", MADR_PATH], 5);
    assert!(stderr.contains("changes that are not committed") && stderr.contains("--no-commit"), "{stderr}");
    std::fs::write(repo.join(MADR_PATH), MADR).unwrap();

    assert_eq!(sandbox.files(), files, "nothing written");
    assert_eq!(head(repo), before, "nothing committed");
}

#[test]
fn without_a_commit_the_file_is_written_and_the_output_says_why() {
    // Not a repository.
    let sandbox = Sandbox::plain();
    write(&sandbox.repo, NYGARD_PATH, NYGARD);
    let (stdout, stderr) = debate(&sandbox, &["accept", NYGARD_PATH, "--json"]);
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["not_committed"], "not a git repository");
    assert!(json["commit"].is_null());
    assert!(stderr.contains("warning:") && stderr.contains("not committed"), "{stderr}");
    // The name comes from the user's git configuration, if any (none in this sandbox's
    // home; a system-wide one may still name someone).
    let content = std::fs::read_to_string(sandbox.repo.join(NYGARD_PATH)).unwrap();
    let history = content.lines().find(|l| l.starts_with(&format!("Accepted on {TODAY}"))).unwrap_or_default();
    assert!(history.ends_with("(was Proposed)."), "{content}");
    assert!(content.contains(&format!("## Status\n\nAccepted\n\n{history}\n\n## Context")), "{content}");

    // --no-commit, and a detached HEAD.
    let sandbox = repository(&[(MADR_PATH, MADR)]);
    let before = head(&sandbox.repo);
    let (_, stderr) = debate(&sandbox, &["accept", MADR_PATH, "--no-commit"]);
    assert!(stderr.contains("written, not committed (committing is off"), "{stderr}");
    assert_eq!(head(&sandbox.repo), before);
    assert_eq!(
        status(&sandbox.repo),
        format!(" M {MADR_PATH}\n"),
        "only the record changed; no index without a commit"
    );
    git(&sandbox.repo, &["checkout", "-q", "--", MADR_PATH]);
    git(&sandbox.repo, &["checkout", "-q", "--detach"]);
    let (_, stderr) = debate(&sandbox, &["reject", MADR_PATH]);
    assert!(stderr.contains("HEAD is detached") && stderr.contains(&format!("git add {MADR_PATH}")), "{stderr}");
    assert_eq!(head(&sandbox.repo), before);
    assert_eq!(status(&sandbox.repo), format!(" M {MADR_PATH}\n"));
}

#[test]
fn a_record_written_but_not_committed_yet_can_be_committed_with_its_new_status() {
    let sandbox = repository(&[]);
    debate(&sandbox, &["--offline", "-q", "--no-commit", QUESTION]);
    let id = sandbox.only_id();
    let (_, stderr) = debate(&sandbox, &["accept", &id]);
    assert!(stderr.contains("committed as"), "{stderr}");
    let changed = git(&sandbox.repo, &["show", "--name-status", "--format=", "HEAD"]);
    assert!(
        changed.starts_with("A\tdocs/decisions/") && changed.lines().count() == 2,
        "the record and the index: {changed}"
    );
    assert_eq!(status(&sandbox.repo), "");
}

/// The path the database stored gets the checks a path on the command line gets: a
/// record that became a link (a pull can do that) is not rewritten through it.
#[test]
fn a_record_found_by_id_that_became_a_link_is_refused() {
    let sandbox = repository(&[]);
    let (stdout, _) = debate(&sandbox, &["--offline", "-q", QUESTION]);
    let record = std::path::PathBuf::from(stdout.trim());
    let id = sandbox.only_id();
    // A link within the work tree, into git's own directory.
    let outside = sandbox.repo.join(".git/elsewhere.md");
    std::fs::write(&outside, "---\nstatus: proposed\n---\n# Not a record here\n").unwrap();
    std::fs::remove_file(&record).unwrap();
    std::os::unix::fs::symlink(&outside, &record).unwrap();
    refused(&sandbox, &["accept", &id], 2);
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "---\nstatus: proposed\n---\n# Not a record here\n");
}

/// A commit that lands first and changes the same record is never undone: the slower
/// status change stops (exit 5) instead of making its commit again on top of it.
#[test]
fn a_status_change_that_lost_the_race_for_its_record_stops() {
    let sandbox = repository(&[(MADR_PATH, MADR)]);
    let known = commit_objects(&sandbox.repo);
    let mut slow = sandbox.std_cmd();
    let gate = sandbox.home.join("gate");
    slow.env("DEBATE_TEST_TODAY", TODAY).env("DEBATE_FAILPOINT", Held::failpoint(&gate));
    let mut slow = slow.args(["reject", MADR_PATH]).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    // Held once it built its commit on the branch's tip, before it moves the branch.
    let held = Held::before_ref_update(&mut slow, &sandbox.repo, "main", &known, &gate);
    // Meanwhile a teammate's change to the same record lands on the branch (made with
    // git's plumbing and a separate index, as another clone's push would arrive).
    let theirs = format!("{MADR}\nA teammate's note.\n");
    let index = sandbox.home.join("their-index");
    let plumbing = |args: &[&str], input: Option<&str>| -> String {
        let mut command = std::process::Command::new("git");
        command.args(args).current_dir(&sandbox.repo).env("GIT_INDEX_FILE", &index);
        command.stdin(Stdio::piped()).stdout(Stdio::piped());
        let mut child = command.spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        if let Some(input) = input {
            std::io::Write::write_all(&mut stdin, input.as_bytes()).unwrap();
        }
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "git {args:?}");
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    };
    let blob = plumbing(&["hash-object", "-w", "--stdin"], Some(&theirs));
    plumbing(&["read-tree", "HEAD"], None);
    plumbing(&["update-index", "--cacheinfo", &format!("100644,{blob},{MADR_PATH}")], None);
    let tree = plumbing(&["write-tree"], None);
    let commit = plumbing(
        &[
            "-c",
            "user.name=Teammate",
            "-c",
            "user.email=mate@example.com",
            "commit-tree",
            &tree,
            "-p",
            "HEAD",
            "-m",
            "their note",
        ],
        None,
    );
    plumbing(&["update-ref", "refs/heads/main", &commit], None);

    held.release();
    let out = slow.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(75), "try again: {}", text(&out.stderr));
    assert!(text(&out.stderr).contains("kept moving"), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("try again"), "{}", text(&out.stderr));
    assert_eq!(head(&sandbox.repo), commit, "their commit stands, not undone by ours");
    assert_eq!(git(&sandbox.repo, &["show", &format!("HEAD:{MADR_PATH}")]), theirs);
    // The work tree and the index as the command found them: its rejection is nowhere.
    assert_eq!(std::fs::read_to_string(sandbox.repo.join(MADR_PATH)).unwrap(), MADR);
    let staged = git(&sandbox.repo, &["show", &format!(":{MADR_PATH}")]);
    assert_eq!(staged, MADR, "the index holds what it held");
    let index = sandbox.repo.join("docs/decisions/README.md");
    assert!(!index.exists(), "the index it wrote for its commit is gone with it");
}

/// Issue 32: `list`, `show` and their `--json` carry the record's lifecycle status beside
/// the debate's, as the record states it now, on the work tree or on the record's branch.
#[test]
fn list_and_show_carry_the_records_status() {
    let sandbox = repository(&[]);
    let (path, _) = debate(&sandbox, &["--offline", "-q", "-r", "1", QUESTION]);
    let id = sandbox.only_id();
    let record_status = |args: &[&str]| -> serde_json::Value {
        let (out, _) = debate(&sandbox, args);
        let json: serde_json::Value = serde_json::from_str(&out).unwrap();
        let summary = if json.is_array() { json[0].clone() } else { json };
        assert_eq!(summary["status"], "complete", "the debate's own status stays");
        summary["record_status"].clone()
    };
    assert_eq!(record_status(&["list", "--json"]), "proposed");
    debate(&sandbox, &["accept", path.trim()]);
    assert_eq!(record_status(&["list", "--json"]), "accepted");
    assert_eq!(record_status(&["show", &id, "--json"]), "accepted");
    let (table, _) = debate(&sandbox, &["list"]);
    let lines: Vec<&str> = table.lines().collect();
    let column = lines[0].find("DECISION").expect("a DECISION column");
    assert_eq!(lines[1].find("accepted"), Some(column), "{table}");

    // A record only on its branch is read from there.
    debate(&sandbox, &["--offline", "-q", "-r", "1", "--branch", "Kafka or RabbitMQ for the order events?"]);
    let (out, _) = debate(&sandbox, &["list", "--json"]);
    let listed: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(listed[0]["branch"].as_str().map(|b| b.starts_with("decisions/")), Some(true), "{listed}");
    assert_eq!(listed[0]["record_status"], "proposed", "{listed}");
}

/// A record a pull replaced by a link is not read for its status: the link could point
/// at any file of the machine.
#[test]
fn a_record_replaced_by_a_link_has_no_status_read() {
    let sandbox = repository(&[]);
    let (path, _) = debate(&sandbox, &["--offline", "-q", "-r", "1", QUESTION]);
    let outside = sandbox.home.join("elsewhere.md");
    std::fs::write(&outside, "---\nstatus: secret-word\n---\n# x\n").unwrap();
    std::fs::remove_file(path.trim()).unwrap();
    std::os::unix::fs::symlink(&outside, path.trim()).unwrap();
    let (out, _) = debate(&sandbox, &["list", "--json"]);
    let listed: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(listed[0]["record_status"], serde_json::Value::Null, "{listed}");
}
