//! The decision record meets git (README: "Git", "Issue drafts", "Exit codes"): real
//! repositories in temporary directories, the real binary, and the real `git` command to
//! check what it did.

use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Output};

use crate::common::*;

/// The slug of `QUESTION`'s title.
const SLUG: &str = "should-we-use-redis-or-postgres-for-caching";

// ---------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------

/// `git` in `dir` like `common::git`, but returning the output whatever the status.
fn git_raw(dir: &Path, args: &[&str]) -> Output {
    StdCommand::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .output()
        .expect("git runs")
}

fn set_identity(dir: &Path) {
    git(dir, &["config", "user.name", "Test"]);
    git(dir, &["config", "user.email", "test@example.com"]);
}

/// A repository with an identity and one commit holding `README.md` and `a.txt`.
fn repository() -> Sandbox {
    let sandbox = Sandbox::new();
    set_identity(&sandbox.repo);
    std::fs::write(sandbox.repo.join("README.md"), "# project\n").unwrap();
    std::fs::write(sandbox.repo.join("a.txt"), "one\n").unwrap();
    git(&sandbox.repo, &["add", "README.md", "a.txt"]);
    git(&sandbox.repo, &["commit", "-q", "-m", "initial"]);
    sandbox
}

fn head(dir: &Path) -> String {
    git(dir, &["rev-parse", "HEAD"]).trim().to_string()
}

fn status(dir: &Path) -> String {
    git(dir, &["status", "--porcelain", "--untracked-files=all"])
}

/// Today's date as the record's file name writes it (UTC, like the debate's start).
fn today() -> String {
    chrono::Utc::now().format("%Y-%m-%d").to_string()
}

/// The record's path relative to the work-tree root: the default name, with `suffix`
/// (`""`, or `"-2"` when that name is taken).
fn record_name(suffix: &str) -> String {
    format!("docs/decisions/{}-{SLUG}{suffix}.md", today())
}

/// What a finished run reported.
struct Run {
    id: String,
    json: serde_json::Value,
    stderr: String,
}

impl Run {
    fn commit(&self) -> Option<String> {
        self.json["commit_id"].as_str().map(str::to_string)
    }
}

/// `debate --offline --json <extra> QUESTION` in `dir`, which must succeed.
fn debate_in(sandbox: &Sandbox, dir: &Path, extra: &[&str]) -> Run {
    let out = sandbox.cmd().current_dir(dir).args(["--offline", "--json"]).args(extra).arg(QUESTION).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "debate {extra:?} failed ({:?}): {stderr}\nstdout: {}",
        out.status,
        String::from_utf8_lossy(&out.stdout)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|err| panic!("--json prints JSON ({err}): {}", String::from_utf8_lossy(&out.stdout)));
    let id = json["id"].as_str().expect("the JSON has the id").to_string();
    assert!(id.starts_with("DEB-") && id.len() == 10, "id {id}");
    Run { id, json, stderr }
}

fn debate(sandbox: &Sandbox, extra: &[&str]) -> Run {
    debate_in(sandbox, &sandbox.repo, extra)
}

/// `debate --offline <extra> QUESTION` without `--json`, for
/// what it tells a person. The id is the newest in the database, `json` its
/// `--list --json` row, and `stderr` holds stdout too.
fn debate_for_a_person(sandbox: &Sandbox, extra: &[&str]) -> Run {
    let out = sandbox.cmd().arg("--offline").args(extra).arg(QUESTION).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "debate {extra:?} failed ({:?}): {stderr}", out.status);
    let id = sandbox.newest_id();
    let rows = sandbox.cmd().args(["--list", "--json"]).assert().success().get_output().stdout.clone();
    let rows: serde_json::Value = serde_json::from_slice(&rows).unwrap();
    let json = rows.as_array().unwrap().iter().find(|r| r["id"] == id.as_str()).expect("listed").clone();
    Run { id, json, stderr: format!("{stderr}\n{}", String::from_utf8_lossy(&out.stdout)) }
}

/// A field of the record's front matter (`key: value`), unquoted.
fn front_matter(record: &str, key: &str) -> String {
    let prefix = format!("{key}: ");
    record
        .lines()
        .skip(1)
        .take_while(|l| *l != "---")
        .find_map(|l| l.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("front matter has {key}: {record}"))
        .trim_matches('"')
        .to_string()
}

/// Check the commit `rev` in `dir`: exactly `relative` added, with `content`, and the
/// decisions index beside it listing it; the message the README's "Git" section shows, and
/// the `Debate-Id` trailer for `id`.
fn assert_record_commit(dir: &Path, rev: &str, relative: &str, id: &str) -> String {
    let index = format!("{}/README.md", relative.rsplit_once('/').unwrap().0);
    let changed = git(dir, &["show", "--name-status", "--format=", rev]);
    let index_added = format!("A\t{relative}\nA\t{index}\n");
    let index_changed = format!("A\t{relative}\nM\t{index}\n");
    assert!(changed == index_added || changed == index_changed, "the commit holds the record and the index: {changed}");
    let stat = git(dir, &["show", "--stat", "--format=", rev]);
    assert!(stat.contains("2 files changed"), "git show --stat: {stat}");
    let listed = git(dir, &["show", &format!("{rev}:{index}")]);
    let name = relative.rsplit_once('/').unwrap().1;
    assert!(listed.contains(&format!("]({name}) |")), "the index links the record: {listed}");

    let content = git(dir, &["show", &format!("{rev}:{relative}")]);
    assert_eq!(front_matter(&content, "id"), id, "the committed record is this debate's");
    let title = content
        .lines()
        .find_map(|l| l.strip_prefix("# "))
        .unwrap_or_else(|| panic!("record has a title: {content}"))
        .to_string();
    let perspectives = content
        .lines()
        .find_map(|l| l.strip_prefix("- Perspectives: "))
        .unwrap_or_else(|| panic!("record lists perspectives: {content}"))
        .to_string();

    let message = git(dir, &["log", "-1", "--format=%B", rev]);
    let lines: Vec<&str> = message.lines().collect();
    assert_eq!(lines[0], format!("docs(decisions): {title}"), "subject: {message}");
    assert_eq!(lines.get(1), Some(&""), "a blank line after the subject: {message}");
    for expected in [
        format!("Question: {QUESTION}"),
        format!("Perspectives: {perspectives}"),
        format!("Confidence: {}", front_matter(&content, "confidence")),
        format!("Ended by: {}", front_matter(&content, "ended_by")),
    ] {
        assert!(lines.contains(&expected.as_str()), "message has {expected:?}: {message}");
    }
    let trailer = git(dir, &["log", "-1", "--format=%(trailers:key=Debate-Id,valueonly)", rev]);
    assert_eq!(trailer.trim(), id, "the Debate-Id trailer, as git parses trailers: {message}");
    content
}

/// The parents of `rev`, space-separated (empty for a root commit).
fn parents(dir: &Path, rev: &str) -> String {
    git(dir, &["log", "-1", "--format=%P", rev]).trim().to_string()
}

/// How many commits reachable from `rev` carry a `Debate-Id` trailer line.
fn debate_commits(dir: &Path, rev: &str) -> usize {
    git(dir, &["log", "--format=%B", rev]).lines().filter(|l| l.contains("Debate-Id")).count()
}

fn refs(dir: &Path) -> String {
    git(dir, &["for-each-ref"])
}

/// The index, the checked-out branch, HEAD and the status: what `--branch` must leave
/// exactly as it found.
fn checkout_state(dir: &Path) -> [String; 4] {
    [
        status(dir),
        head(dir),
        String::from_utf8_lossy(&git_raw(dir, &["symbolic-ref", "-q", "HEAD"]).stdout).into_owned(),
        git(dir, &["ls-files", "-s"]),
    ]
}

fn is_detached(dir: &Path) -> bool {
    !git_raw(dir, &["symbolic-ref", "-q", "HEAD"]).status.success()
}

// ---------------------------------------------------------------------------------
// The commit
// ---------------------------------------------------------------------------------

#[test]
fn the_commit_holds_exactly_the_record_on_top_of_head_and_leaves_a_clean_tree() {
    let sandbox = repository();
    let before = head(&sandbox.repo);
    let run = debate(&sandbox, &["-q"]);

    let relative = record_name("");
    let commit = run.commit().expect("--json reports the commit id");
    assert_eq!(head(&sandbox.repo), commit, "HEAD moved to the record's commit");
    assert_eq!(parents(&sandbox.repo, "HEAD"), before, "on top of the old HEAD");
    let committed = assert_record_commit(&sandbox.repo, "HEAD", &relative, &run.id);
    let on_disk = std::fs::read_to_string(sandbox.repo.join(&relative)).unwrap();
    assert_eq!(committed, on_disk, "the commit holds the file as written");
    assert_eq!(run.id, sandbox.only_id());
    assert_eq!(
        git(&sandbox.repo, &["log", "-1", "--format=%an <%ae>|%cn <%ce>"]).trim(),
        "Test <test@example.com>|Test <test@example.com>",
        "author and committer from git config"
    );
    assert_eq!(status(&sandbox.repo), "", "git status is clean afterwards");
    assert_eq!(run.json["record_path"].as_str().map(|p| p.ends_with(&relative)), Some(true), "{}", run.json);
}

#[test]
fn staged_changes_stay_staged_and_out_of_the_commit() {
    let sandbox = repository();
    let repo = &sandbox.repo;
    std::fs::write(repo.join("new.txt"), "staged new file\n").unwrap();
    std::fs::write(repo.join("a.txt"), "one\nstaged change\n").unwrap();
    std::fs::create_dir_all(repo.join("docs/decisions")).unwrap();
    std::fs::write(repo.join("docs/decisions/notes.txt"), "staged beside the records\n").unwrap();
    git(repo, &["add", "new.txt", "a.txt", "docs/decisions/notes.txt"]);
    git(repo, &["rm", "-q", "README.md"]);
    let staged_before = git(repo, &["diff", "--cached", "--name-only"]);
    let staged_diff_before = git(repo, &["diff", "--cached"]);
    let before = head(repo);

    let run = debate(&sandbox, &["-q"]);
    let relative = record_name("");
    assert_eq!(parents(repo, "HEAD"), before);
    assert_record_commit(repo, "HEAD", &relative, &run.id);

    assert_eq!(git(repo, &["diff", "--cached", "--name-only"]), staged_before, "the same files are still staged");
    assert_eq!(git(repo, &["diff", "--cached"]), staged_diff_before, "with the same staged content");
    assert_eq!(git(repo, &["show", ":new.txt"]), "staged new file\n");
    assert_eq!(git(repo, &["show", "HEAD:a.txt"]), "one\n", "the staged change is not in the commit");
    assert_eq!(git(repo, &["show", "HEAD:README.md"]), "# project\n", "nor the staged deletion");
    assert!(!git_raw(repo, &["cat-file", "-e", "HEAD:new.txt"]).status.success(), "new.txt is not in the commit");
    assert_eq!(
        status(repo),
        "D  README.md\nM  a.txt\nA  docs/decisions/notes.txt\nA  new.txt\n",
        "only the user's staged changes remain"
    );
}

#[test]
fn unstaged_modifications_are_untouched() {
    let sandbox = repository();
    let repo = &sandbox.repo;
    let modified = b"one\nnot staged \xe2\x9c\x93\r\nno newline at the end".to_vec();
    std::fs::write(repo.join("a.txt"), &modified).unwrap();
    std::fs::write(repo.join("scratch.txt"), "untracked\n").unwrap();
    let diff_before = git(repo, &["diff"]);

    let run = debate(&sandbox, &["-q"]);
    assert_record_commit(repo, "HEAD", &record_name(""), &run.id);
    assert_eq!(std::fs::read(repo.join("a.txt")).unwrap(), modified, "the same bytes");
    assert_eq!(std::fs::read_to_string(repo.join("scratch.txt")).unwrap(), "untracked\n");
    assert_eq!(git(repo, &["diff"]), diff_before, "still the same unstaged change");
    assert_eq!(status(repo), " M a.txt\n?? scratch.txt\n");
    assert_eq!(git(repo, &["show", "HEAD:a.txt"]), "one\n");
}

#[test]
fn on_an_unborn_head_the_record_is_the_root_commit() {
    let sandbox = Sandbox::new();
    set_identity(&sandbox.repo);
    std::fs::write(sandbox.repo.join("staged.txt"), "staged before the first commit\n").unwrap();
    git(&sandbox.repo, &["add", "staged.txt"]);
    let run = debate(&sandbox, &["-q"]);
    let relative = record_name("");
    assert_eq!(git(&sandbox.repo, &["rev-list", "--count", "HEAD"]).trim(), "1");
    assert_eq!(parents(&sandbox.repo, "HEAD"), "", "a root commit has no parents");
    assert_eq!(git(&sandbox.repo, &["symbolic-ref", "HEAD"]).trim(), "refs/heads/main", "on the unborn branch");
    assert_eq!(run.commit(), Some(head(&sandbox.repo)));
    assert_record_commit(&sandbox.repo, "HEAD", &relative, &run.id);
    assert_eq!(status(&sandbox.repo), "A  staged.txt\n", "the staged file is still staged, and only it");
    assert_eq!(git(&sandbox.repo, &["show", ":staged.txt"]), "staged before the first commit\n");
}

#[test]
fn without_a_git_identity_a_fallback_identity_commits_with_a_warning() {
    let sandbox = Sandbox::new();
    let repo = &sandbox.repo;
    std::fs::write(repo.join("README.md"), "# project\n").unwrap();
    git(repo, &["add", "README.md"]);
    git(repo, &["-c", "user.name=Setup", "-c", "user.email=setup@example.com", "commit", "-q", "-m", "initial"]);
    let out = sandbox
        .cmd()
        .env_remove("GIT_AUTHOR_NAME")
        .env_remove("GIT_AUTHOR_EMAIL")
        .env_remove("GIT_COMMITTER_NAME")
        .env_remove("GIT_COMMITTER_EMAIL")
        .env_remove("EMAIL")
        .args(["--offline", "--json", "-q", QUESTION])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["commit_id"].as_str(), Some(head(repo).as_str()), "committed anyway");
    assert_eq!(
        git(repo, &["log", "-1", "--format=%an <%ae>|%cn <%ce>"]).trim(),
        "debate <debate@localhost>|debate <debate@localhost>"
    );
    assert!(stderr.contains("warning") && stderr.contains("user.email"), "a warning about the identity: {stderr}");
    assert_record_commit(repo, "HEAD", &record_name(""), json["id"].as_str().unwrap());
}

// ---------------------------------------------------------------------------------
// Where the repository is, and what kind
// ---------------------------------------------------------------------------------

#[test]
fn outside_a_repository_the_record_is_written_with_a_warning_that_it_was_not_committed() {
    let sandbox = Sandbox::plain();
    let out = sandbox.cmd().args(["--offline", "--json", "-q", QUESTION]).assert().success();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(sandbox.records().len(), 1);
    assert!(sandbox.repo.join(record_name("")).is_file());
    assert!(json["commit_id"].is_null(), "{json}");
    assert!(stderr.contains("warning") && stderr.contains("not committed"), "{stderr}");
    assert!(!sandbox.repo.join(".git").exists());
}

#[test]
fn in_a_bare_repository_nothing_is_written_and_the_exit_code_is_5() {
    let sandbox = Sandbox::plain();
    git(&sandbox.repo, &["init", "-q", "--bare"]);
    let before = sandbox.files();
    let out = sandbox.cmd().args(["--offline", QUESTION]).assert().code(5);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(stderr.contains("bare"), "says what is wrong: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(sandbox.files(), before, "nothing written, in the repository or the state");
    assert_eq!(refs(&sandbox.repo), "");
}

#[test]
fn started_from_a_subdirectory_the_record_is_committed_at_the_root() {
    let sandbox = repository();
    let sub = sandbox.repo.join("src/deep");
    std::fs::create_dir_all(&sub).unwrap();
    let run = debate_in(&sandbox, &sub, &["-q"]);
    let relative = record_name("");
    assert!(sandbox.repo.join(&relative).is_file());
    assert!(!sub.join("docs").exists() && !sandbox.repo.join("src/docs").exists());
    assert_record_commit(&sandbox.repo, "HEAD", &relative, &run.id);
    assert_eq!(status(&sandbox.repo), "");
}

#[test]
fn in_a_linked_worktree_the_commit_lands_on_its_branch_and_the_main_checkout_is_untouched() {
    let sandbox = repository();
    let main = &sandbox.repo;
    git(main, &["worktree", "add", "-q", "../wt", "-b", "wt-branch"]);
    let wt = main.parent().unwrap().join("wt");
    let main_head = head(main);
    let main_status = status(main);
    let main_index = git(main, &["ls-files", "-s"]);

    let run = debate_in(&sandbox, &wt, &["-q"]);
    let relative = record_name("");
    assert!(wt.join(&relative).is_file(), "the record is in the worktree");
    assert!(!main.join("docs").exists(), "and not in the main checkout");
    let tip = git(main, &["rev-parse", "wt-branch"]).trim().to_string();
    assert_eq!(run.commit(), Some(tip.clone()), "the commit is wt-branch's tip");
    assert_eq!(parents(main, "wt-branch"), main_head);
    assert_record_commit(&wt, "HEAD", &relative, &run.id);
    assert_eq!(status(&wt), "", "the worktree is clean");
    assert_eq!(git(&wt, &["symbolic-ref", "HEAD"]).trim(), "refs/heads/wt-branch");

    assert_eq!(head(main), main_head);
    assert_eq!(git(main, &["rev-parse", "main"]).trim(), main_head, "main did not move");
    assert_eq!(git(main, &["symbolic-ref", "HEAD"]).trim(), "refs/heads/main");
    assert_eq!(status(main), main_status);
    assert_eq!(git(main, &["ls-files", "-s"]), main_index);
}

// ---------------------------------------------------------------------------------
// Detached HEAD and --branch
// ---------------------------------------------------------------------------------

#[test]
fn on_a_detached_head_the_record_is_written_but_not_committed() {
    let sandbox = repository();
    let repo = &sandbox.repo;
    git(repo, &["checkout", "-q", "--detach"]);
    let before = head(repo);
    let refs_before = refs(repo);

    let run = debate(&sandbox, &["-q"]);
    let relative = record_name("");
    assert!(repo.join(&relative).is_file(), "the record is written");
    assert!(run.commit().is_none(), "{}", run.json);
    assert!(run.stderr.contains("warning") && run.stderr.contains("detached"), "{}", run.stderr);
    assert_eq!(head(repo), before, "HEAD unchanged");
    assert!(is_detached(repo), "still detached");
    assert_eq!(refs(repo), refs_before, "no ref created or moved");
    assert_eq!(status(repo), format!("?? {relative}\n"));
}

#[test]
fn on_a_detached_head_with_branch_the_record_goes_to_a_new_branch() {
    let sandbox = repository();
    let repo = &sandbox.repo;
    git(repo, &["checkout", "-q", "--detach"]);
    let before = checkout_state(repo);

    let run = debate(&sandbox, &["--branch"]);
    let branch = format!("decisions/{}-{SLUG}", run.id.to_lowercase());
    assert_eq!(run.json["branch"].as_str(), Some(branch.as_str()), "{}", run.json);
    let tip = git(repo, &["rev-parse", &format!("refs/heads/{branch}")]).trim().to_string();
    assert_eq!(run.commit(), Some(tip.clone()));
    assert_eq!(parents(repo, &tip), before[1], "branched from the detached HEAD");
    assert_record_commit(repo, &tip, &record_name(""), &run.id);
    assert!(is_detached(repo), "HEAD is still detached");
    assert_eq!(checkout_state(repo), before, "HEAD, index and working tree unchanged");
    assert!(sandbox.records().is_empty(), "the record is only on the branch");
}

#[test]
fn branch_commits_to_a_new_branch_without_touching_the_checkout() {
    let sandbox = repository();
    let repo = &sandbox.repo;
    std::fs::write(repo.join("staged.txt"), "staged\n").unwrap();
    git(repo, &["add", "staged.txt"]);
    std::fs::write(repo.join("a.txt"), "one\nunstaged\n").unwrap();
    let before = checkout_state(repo);
    let diff_before = git(repo, &["diff"]);

    let run = debate_for_a_person(&sandbox, &["--branch"]);
    let branch = format!("decisions/{}-{SLUG}", run.id.to_lowercase());
    assert_eq!(checkout_state(repo), before, "status, HEAD, checked-out branch and index are byte-identical");
    assert_eq!(git(repo, &["diff"]), diff_before);
    assert!(!repo.join("docs").exists(), "the record is not in the working tree");

    let tip = git(repo, &["rev-parse", &format!("refs/heads/{branch}")]).trim().to_string();
    assert_eq!(run.commit(), Some(tip.clone()));
    assert_eq!(parents(repo, &tip), before[1], "the branch starts at the old HEAD");
    assert_record_commit(repo, &tip, &record_name(""), &run.id);
    assert!(run.stderr.contains(&format!("git push -u origin '{branch}'")), "how to push: {}", run.stderr);
    // stdout names the record as git does, on the branch; `git show` reads it.
    let shown = format!("{branch}:{}", record_name(""));
    assert!(run.stderr.lines().any(|l| l == shown), "stdout names {shown}: {}", run.stderr);
    assert!(git(repo, &["show", &shown]).contains(&format!("id: {}", run.id)));

    // A name of one's own.
    let run = debate(&sandbox, &["-q", "--branch=my/name"]);
    assert_eq!(run.json["branch"].as_str(), Some("my/name"));
    let tip = git(repo, &["rev-parse", "refs/heads/my/name"]).trim().to_string();
    assert_eq!(run.commit(), Some(tip.clone()));
    assert_eq!(parents(repo, &tip), before[1]);
    assert_record_commit(repo, &tip, &record_name(""), &run.id);
    assert_eq!(checkout_state(repo), before);
}

#[test]
fn an_existing_or_invalid_branch_name_is_rejected_before_anything_is_written() {
    let sandbox = repository();
    let repo = &sandbox.repo;
    git(repo, &["branch", "taken"]);
    for flag in ["--branch=taken", "--branch=a..b", "--branch=bad name", "--branch=-x"] {
        let files = sandbox.files();
        let refs_before = refs(repo);
        let out = sandbox.cmd().args(["--offline", flag, QUESTION]).assert().code(2);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(!stderr.trim().is_empty() && !stderr.contains("panicked"), "{flag}: {stderr}");
        assert_eq!(sandbox.files(), files, "{flag}: nothing written");
        assert_eq!(refs(repo), refs_before, "{flag}: no branch created");
        assert!(!sandbox.db().exists(), "{flag}: no debate stored");
    }
}

// ---------------------------------------------------------------------------------
// Names that are taken, and --no-commit
// ---------------------------------------------------------------------------------

#[test]
fn an_existing_file_with_the_same_name_is_never_overwritten() {
    // Untracked, committed, and committed but deleted from the working tree.
    for case in ["untracked", "committed", "deleted"] {
        let sandbox = repository();
        let repo = &sandbox.repo;
        let taken = record_name("");
        let old = format!("hand-written {case} record\n");
        std::fs::create_dir_all(repo.join("docs/decisions")).unwrap();
        std::fs::write(repo.join(&taken), &old).unwrap();
        if case != "untracked" {
            git(repo, &["add", &taken]);
            git(repo, &["commit", "-q", "-m", "an older record"]);
        }
        if case == "deleted" {
            std::fs::remove_file(repo.join(&taken)).unwrap();
        }
        let status_before = status(repo);

        let run = debate(&sandbox, &["-q"]);
        let relative = record_name("-2");
        assert!(run.json["record_path"].as_str().unwrap().ends_with(&relative), "{case}: {}", run.json);
        assert_record_commit(repo, "HEAD", &relative, &run.id);
        match case {
            "deleted" => assert!(!repo.join(&taken).exists(), "{case}: not recreated"),
            _ => assert_eq!(std::fs::read_to_string(repo.join(&taken)).unwrap(), old, "{case}: the old bytes"),
        }
        if case != "untracked" {
            assert_eq!(git(repo, &["show", &format!("HEAD:{taken}")]), old, "{case}: the committed file is kept");
        }
        assert_eq!(status(repo), status_before, "{case}: only the record changed, and it is committed");
    }
}

#[test]
fn no_commit_writes_the_record_and_leaves_it_untracked() {
    let sandbox = repository();
    let before = head(&sandbox.repo);
    let refs_before = refs(&sandbox.repo);
    let run = debate(&sandbox, &["-q", "--no-commit"]);
    let relative = record_name("");
    assert!(sandbox.repo.join(&relative).is_file());
    assert!(run.commit().is_none(), "{}", run.json);
    assert_eq!(head(&sandbox.repo), before, "no new commit");
    assert_eq!(refs(&sandbox.repo), refs_before);
    assert_eq!(status(&sandbox.repo), format!("?? {relative}\n"));
}

// ---------------------------------------------------------------------------------
// Recording is idempotent after a crash
// ---------------------------------------------------------------------------------

fn stored_status(sandbox: &Sandbox) -> String {
    sandbox.shown()["status"].as_str().unwrap().to_string()
}

/// `--list --json`'s row for the only debate.
fn listed(sandbox: &Sandbox) -> serde_json::Value {
    let out = sandbox.cmd().args(["--list", "--json"]).assert().success().get_output().stdout.clone();
    let rows: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(rows.as_array().map(Vec::len), Some(1), "{rows}");
    rows[0].clone()
}

/// Run until the failpoint aborts the process; returns the debate's id.
fn crash_at(sandbox: &Sandbox, failpoint: &str, extra: &[&str]) -> String {
    let out = sandbox
        .cmd()
        .env("DEBATE_FAILPOINT", failpoint)
        .args(["--offline", "-q"])
        .args(extra)
        .arg(QUESTION)
        .output()
        .unwrap();
    assert!(!out.status.success(), "{failpoint}: the process was aborted ({:?})", out.status);
    let id = sandbox.only_id();
    assert_ne!(stored_status(sandbox), "complete", "{failpoint}: the crash came before the state update");
    id
}

fn resume(sandbox: &Sandbox, id: &str) {
    sandbox.cmd().args(["--resume", id, "-q"]).assert().success();
}

fn assert_recorded_once(sandbox: &Sandbox, id: &str, before: &str) {
    let repo = &sandbox.repo;
    assert_eq!(sandbox.records().len(), 1, "exactly one record file: {:?}", sandbox.records());
    assert_eq!(debate_commits(repo, "HEAD"), 1, "exactly one commit with the trailer");
    assert_eq!(parents(repo, "HEAD"), before);
    assert_record_commit(repo, "HEAD", &record_name(""), id);
    assert_eq!(status(repo), "", "clean afterwards");
    let row = listed(sandbox);
    assert_eq!(row["status"], "complete");
    assert_eq!(row["commit_id"].as_str(), Some(head(repo).as_str()), "the commit id is stored");
}

#[test]
fn a_crash_after_the_record_is_written_resumes_into_one_commit() {
    let sandbox = repository();
    let before = head(&sandbox.repo);
    let id = crash_at(&sandbox, "after-record-write", &[]);
    assert_eq!(sandbox.records().len(), 1, "the record was written before the crash");
    assert_eq!(head(&sandbox.repo), before, "and not committed");
    resume(&sandbox, &id);
    assert_recorded_once(&sandbox, &id, &before);
}

#[test]
fn a_crash_after_the_commit_resumes_without_a_second_commit() {
    let sandbox = repository();
    let before = head(&sandbox.repo);
    let id = crash_at(&sandbox, "after-commit", &[]);
    assert_eq!(debate_commits(&sandbox.repo, "HEAD"), 1, "the commit was made before the crash");
    resume(&sandbox, &id);
    assert_recorded_once(&sandbox, &id, &before);
}

#[test]
fn a_crash_after_the_commit_on_a_branch_resumes_without_a_second_commit() {
    let sandbox = repository();
    let repo = &sandbox.repo;
    let before = checkout_state(repo);
    let id = crash_at(&sandbox, "after-commit", &["--branch"]);
    let branch = format!("decisions/{}-{SLUG}", id.to_lowercase());
    assert_eq!(debate_commits(repo, &branch), 1, "the branch commit was made before the crash");
    resume(&sandbox, &id);

    let tip = git(repo, &["rev-parse", &format!("refs/heads/{branch}")]).trim().to_string();
    assert_eq!(debate_commits(repo, &branch), 1, "no second commit on the branch");
    assert_eq!(parents(repo, &tip), before[1]);
    assert_record_commit(repo, &tip, &record_name(""), &id);
    let in_tree = git(repo, &["ls-tree", "-r", "--name-only", &tip, "docs/decisions"]);
    assert_eq!(in_tree.lines().count(), 2, "one record and the index on the branch: {in_tree}");
    assert!(sandbox.records().is_empty(), "none in the working tree");
    assert_eq!(checkout_state(repo), before, "the checkout is untouched");
    assert_eq!(debate_commits(repo, "HEAD"), 0);
    let row = listed(&sandbox);
    assert_eq!(row["status"], "complete");
    assert_eq!(row["commit_id"].as_str(), Some(tip.as_str()));
}

// ---------------------------------------------------------------------------------
// The issue draft, and showing the commit
// ---------------------------------------------------------------------------------

/// The lines of `text` from `heading` up to the next `## ` heading.
fn section<'a>(text: &'a str, heading: &str) -> Vec<&'a str> {
    text.lines().skip_while(|l| l.trim() != heading).skip(1).take_while(|l| !l.starts_with("## ")).collect()
}

#[test]
fn issue_writes_an_uncommitted_draft_and_prints_a_gh_command() {
    let sandbox = repository();
    let repo = &sandbox.repo;
    let run = debate_for_a_person(&sandbox, &["--issue"]);
    let relative = record_name("");
    let draft_relative = format!(".debate/issues/{}.md", run.id);
    let draft = std::fs::read_to_string(repo.join(&draft_relative)).expect("the draft is written");

    let shown = sandbox.cmd().args(["--show", &run.id, "--json"]).assert().success().get_output().stdout.clone();
    let shown: serde_json::Value = serde_json::from_slice(&shown).unwrap();
    let recommendation = shown["outcome"]["synthesis"]["recommendation"].as_str().expect("a recommendation");
    let words = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    let decision = section(&draft, "## Decision").join("\n");
    assert!(words(&decision).contains(&words(recommendation)), "the recommendation under ## Decision:\n{draft}");
    assert!(draft.lines().any(|l| l.trim() == "## Context"), "{draft}");
    let actions = section(&draft, "## Action items");
    let items: Vec<&&str> = actions.iter().filter(|l| !l.trim().is_empty()).collect();
    assert!(!items.is_empty() && items.iter().all(|l| l.starts_with("- [ ] ")), "a task list:\n{draft}");
    assert!(draft.contains(&relative), "links the record by its repository path:\n{draft}");

    let gh = run
        .stderr
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("gh issue create --title '"))
        .unwrap_or_else(|| panic!("a gh issue create line: {}", run.stderr));
    // The body file resolves from any directory of the work tree, as a shell reads it.
    let body_file = gh.split_once("--body-file ").map(|(_, rest)| rest.trim()).expect("--body-file");
    std::fs::create_dir_all(repo.join("src/deep")).unwrap();
    let resolved = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("printf %s {body_file}"))
        .current_dir(repo.join("src/deep"))
        .output()
        .unwrap();
    let resolved = PathBuf::from(String::from_utf8(resolved.stdout).unwrap());
    assert_eq!(resolved.canonicalize().unwrap(), repo.join(&draft_relative).canonicalize().unwrap(), "{gh}");
    // A work item: titled by the decision; linking the record relative to the draft;
    // the confirmation check a task; no pull request to review on the current branch.
    let title = shown["title"].as_str().unwrap();
    assert!(gh.starts_with(&format!("gh issue create --title '{title}'")), "{gh}");
    let link = format!("(../../{relative})");
    assert!(draft.contains(&link), "a relative link from .debate/issues/ to the record:\n{draft}");
    assert!(!draft.contains("pull request"), "the record is on the current branch:\n{draft}");

    assert_record_commit(repo, "HEAD", &relative, &run.id);
    let tree = git(repo, &["ls-tree", "-r", "--name-only", "HEAD"]);
    assert!(!tree.contains(".debate"), "the draft is not committed: {tree}");
    let exclude = std::fs::read_to_string(repo.join(".git/info/exclude")).unwrap();
    assert!(exclude.lines().any(|l| l == ".debate/"), "{exclude}");
    assert_eq!(status(repo), "", "the draft is ignored by this clone, not left untracked");
}

/// With a remote on a known forge and `--branch`, the draft links the record's web page
/// on its branch and asks for the pull request.
#[test]
fn an_issue_draft_links_the_records_web_page_on_its_branch() {
    let sandbox = repository();
    let repo = &sandbox.repo;
    git(repo, &["remote", "add", "origin", "git@github.com:acme/shop.git"]);
    let run = debate_for_a_person(&sandbox, &["--issue", "--branch"]);
    let draft = std::fs::read_to_string(repo.join(format!(".debate/issues/{}.md", run.id))).unwrap();
    let branch = format!("decisions/{}-{SLUG}", run.id.to_lowercase());
    let url = format!("https://github.com/acme/shop/blob/{branch}/{}", record_name(""));
    assert!(draft.contains(&format!("]({url})")), "{url} in:\n{draft}");
    assert!(draft.contains("- [ ] Review and merge the decision record"), "{draft}");
}

#[test]
fn show_and_list_display_the_commit() {
    let sandbox = repository();
    let run = debate(&sandbox, &["-q"]);
    let commit = head(&sandbox.repo);
    assert_eq!(run.commit(), Some(commit.clone()));

    let shown = sandbox.cmd().args(["--show", &run.id]).assert().success().get_output().stdout.clone();
    let shown = String::from_utf8(shown).unwrap();
    let line =
        shown.lines().find_map(|l| l.strip_prefix("Commit:")).unwrap_or_else(|| panic!("a Commit: line: {shown}"));
    assert_eq!(line.trim(), commit, "the full commit id");

    let table = sandbox.cmd().arg("--list").assert().success().get_output().stdout.clone();
    let table = String::from_utf8(table).unwrap();
    let mut lines = table.lines();
    let header = lines.next().unwrap();
    let column = header.find("COMMIT").unwrap_or_else(|| panic!("a COMMIT column: {table}"));
    let row = lines.find(|l| l.starts_with(&run.id)).unwrap_or_else(|| panic!("the debate is listed: {table}"));
    let cell: String = row.chars().skip(column).take_while(|c| !c.is_whitespace()).collect();
    assert_eq!(cell, commit[..7], "{table}");

    let row = listed(&sandbox);
    assert_eq!(row["commit_id"].as_str(), Some(commit.as_str()));
}
