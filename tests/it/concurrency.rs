//! Several processes at once, and processes stopped from outside: nothing lost, nothing
//! paid for twice, nothing committed that the index does not know about.

use std::process::{Child, Command, Output, Stdio};

use crate::common::*;

fn identity(dir: &std::path::Path) {
    git(dir, &["config", "user.name", "Test"]);
    git(dir, &["config", "user.email", "test@example.com"]);
}

/// A scripted debate whose every call takes a while, so it is still running when the
/// test acts.
fn slow(sandbox: &Sandbox) -> std::path::PathBuf {
    sandbox.scripted(&format!("delay_ms: 250\n{}", varied_answers(&PANEL, 2, CONTINUE)))
}

fn spawn(sandbox: &Sandbox, config: &std::path::Path, args: &[&str]) -> Child {
    sandbox
        .std_cmd()
        .arg("--config")
        .arg(config)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Wait until the debate has stored `n` contributions.
fn wait_for_contributions(sandbox: &Sandbox, child: &mut Child, n: usize) {
    wait_for(&format!("{n} contributions stored"), || {
        assert!(child.try_wait().unwrap().is_none(), "the debate ended early");
        let stored = contributions(&sandbox.try_shown()?);
        (stored >= n).then_some(()).ok_or(format!("{stored} stored"))
    });
}

#[test]
fn debates_started_together_on_a_fresh_database_all_complete() {
    const DEBATES: usize = 8;
    let sandbox = Sandbox::new();
    let others: Vec<std::path::PathBuf> = (0..DEBATES)
        .map(|n| {
            let dir = sandbox.repo.parent().unwrap().join(format!("repo-{n}"));
            std::fs::create_dir_all(&dir).unwrap();
            git(&dir, &["init", "-q"]);
            identity(&dir);
            dir
        })
        .collect();
    // Every process says it is ready and waits at a barrier, so they all open the new
    // database at once.
    let go = sandbox.home.join("go");
    let ready = |n: usize| sandbox.home.join(format!("ready-{n}"));
    let children: Vec<Child> = others
        .iter()
        .enumerate()
        .map(|(n, dir)| {
            let debate = sandbox.std_cmd();
            let mut cmd = Command::new("sh");
            cmd.arg("-c").arg(format!(
                ": > '{}'; while [ ! -e '{}' ]; do :; done; exec '{}' --offline -q '{QUESTION}'",
                ready(n).display(),
                go.display(),
                debate.get_program().to_string_lossy()
            ));
            for (key, value) in debate.get_envs() {
                match value {
                    Some(value) => cmd.env(key, value),
                    None => cmd.env_remove(key),
                };
            }
            cmd.current_dir(dir).stdout(Stdio::null()).stderr(Stdio::piped());
            cmd.spawn().unwrap()
        })
        .collect();
    wait_for("every process at the barrier", || (0..DEBATES).all(|n| ready(n).exists()));
    assert!(!sandbox.db().exists(), "no process opened the database before the barrier");
    std::fs::write(&go, "").unwrap();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    let listed = sandbox.listed();
    assert_eq!(listed.iter().filter(|debate| debate["status"] == "complete").count(), DEBATES, "{listed:?}");
}

#[test]
fn a_debate_is_driven_by_one_process_at_a_time() {
    let sandbox = Sandbox::new();
    let config = slow(&sandbox);
    let mut first = spawn(&sandbox, &config, &["-r", "2", QUESTION]);
    wait_for_contributions(&sandbox, &mut first, 1);
    let id = sandbox.only_id();
    // The database itself: the stored snapshot holds settings --show does not print
    // (committing, for one).
    let snapshot =
        || -> String { sandbox.sqlite().query_row("SELECT snapshot FROM debates", [], |r| r.get(0)).unwrap() };
    let before = snapshot();
    // Flags that would change the debate change nothing while another process drives it.
    let args = ["--resume", &id, "--no-commit", "-r", "1"];
    let second = sandbox.cmd().arg("--config").arg(&config).args(args).output().unwrap();
    assert_eq!(second.status.code(), Some(75), "{}", text(&second.stderr));
    let stderr = text(&second.stderr);
    assert!(stderr.contains(&format!("{id} is running in process {}", first.id())), "{stderr}");
    assert_eq!(snapshot(), before, "the second process changed the debate's settings");
    assert!(first.wait().unwrap().success());
    assert_eq!(sandbox.show(&id)["rounds"], 2, "the first process ran its two rounds");
    assert!(!git(&sandbox.repo, &["log", "--format=%B"]).is_empty(), "and committed");
    // Every call was made once: analysis, 2 × (2 + 2), round 1's evaluation, the
    // synthesis (which judges round 2).
    assert_eq!(sandbox.prompts().len(), 11);
    // The database itself: leases are the store's own bookkeeping, which --show does not
    // print.
    let leases: i64 = sandbox.sqlite().query_row("SELECT COUNT(*) FROM leases", [], |r| r.get(0)).unwrap();
    assert_eq!(leases, 0, "the lease is given up at the end");
}

#[test]
fn the_lease_of_a_killed_process_is_taken_over_at_once() {
    let sandbox = Sandbox::new();
    let config = slow(&sandbox);
    let mut first = spawn(&sandbox, &config, &["-r", "2", QUESTION]);
    wait_for_contributions(&sandbox, &mut first, 2);
    first.kill().unwrap();
    first.wait().unwrap();
    let id = sandbox.only_id();
    let resumed = sandbox.cmd().arg("--config").arg(&config).args(["--resume", &id]).output().unwrap();
    assert!(resumed.status.success(), "{}", text(&resumed.stderr));
}

#[test]
fn sigterm_and_sighup_pause_the_debate_like_ctrl_c() {
    for (name, code) in [("TERM", 143), ("HUP", 129)] {
        let sandbox = Sandbox::new();
        let config = slow(&sandbox);
        let mut child = spawn(&sandbox, &config, &["-r", "2", QUESTION]);
        wait_for_contributions(&sandbox, &mut child, 1);
        signal(child.id(), name);
        let out: Output = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(code), "SIG{name}: {}", text(&out.stderr));
        let id = sandbox.only_id();
        let stderr = text(&out.stderr);
        assert!(stderr.contains(&format!("SIG{name}")) && stderr.contains(&format!("debate resume {id}")), "{stderr}");
        assert_eq!(sandbox.show(&id)["status"], "paused", "SIG{name}");
        sandbox.cmd().arg("--config").arg(&config).args(["--resume", &id]).assert().success();
    }
}

/// Two debates recording in one repository at once commit one after the other: the
/// second waits for the first's commit (held here before it moves the branch), then
/// commits on top of it, and the index each writes lists every record.
#[test]
fn two_debates_committing_to_one_branch_both_land() {
    let sandbox = Sandbox::new();
    identity(&sandbox.repo);
    let known = commit_objects(&sandbox.repo);
    let mut first = sandbox.std_cmd();
    let gate = sandbox.home.join("gate");
    first.env("DEBATE_FAILPOINT", Held::failpoint(&gate));
    first
        .args(["--offline", "-q", "Should we use Redis or Postgres for caching?"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut first = first.spawn().unwrap();
    let held = Held::before_ref_update(&mut first, &sandbox.repo, "main", &known, &gate);
    let mut second = sandbox.std_cmd();
    second.args(["--offline", "-q", "Monolith or microservices for billing?"]).stdout(Stdio::null());
    let second = second.stderr(Stdio::piped()).spawn().unwrap();
    let built = held.commit.clone();
    held.release();
    let first = first.wait_with_output().unwrap();
    assert!(first.status.success(), "{}", text(&first.stderr));
    let second = second.wait_with_output().unwrap();
    assert!(second.status.success(), "the second waited for the first: {}", text(&second.stderr));
    let trailers = git(&sandbox.repo, &["log", "--format=%(trailers:key=Debate-Id,valueonly)"]);
    assert_eq!(trailers.lines().filter(|l| l.starts_with("DEB-")).count(), 2, "{trailers}");
    // Nobody committed in between: the first's commit, built before the second began to
    // record, is the one on the branch, and the second's is on top of it.
    let history = git(&sandbox.repo, &["log", "--format=%H"]);
    assert!(history.contains(&built), "the first's commit stands: {history}");
    let subjects = git(&sandbox.repo, &["log", "--format=%s"]);
    let subjects: Vec<&str> = subjects.lines().collect();
    assert!(subjects[0].contains("Monolith") && subjects[1].contains("Redis or Postgres"), "{subjects:?}");
    assert_eq!(git(&sandbox.repo, &["status", "--porcelain"]), "", "both records are committed and staged");
    let index = git(&sandbox.repo, &["show", "HEAD:docs/decisions/README.md"]);
    assert!(index.contains("Monolith or microservices for billing") && index.contains("Redis or Postgres"), "{index}");
    assert_eq!(std::fs::read_to_string(sandbox.repo.join("docs/decisions/README.md")).unwrap(), index);
}

/// Debates, status changes and scores started together in one repository all land, one
/// after another: every record in the committed index, HEAD, the work tree and the
/// database agreeing on each record's status, nothing left modified or staged.
#[test]
fn debates_status_changes_and_scores_at_once_all_land() {
    let sandbox = Sandbox::new();
    identity(&sandbox.repo);
    git(&sandbox.repo, &["commit", "-q", "--allow-empty", "-m", "start"]);
    let recorded = sandbox.cmd().args(["--offline", "-q", "-r", "1", QUESTION]).output().unwrap();
    assert!(recorded.status.success(), "{}", text(&recorded.stderr));
    let id = sandbox.only_id();
    let questions =
        ["Monolith or microservices for billing?", "Kafka or RabbitMQ for order events?", "Go or Rust for the CLI?"];
    let spawn =
        |args: &[&str]| sandbox.std_cmd().args(args).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let mut running: Vec<(String, Child)> =
        questions.iter().map(|q| (q.to_string(), spawn(&["--offline", "-q", "-r", "1", q]))).collect();
    running.push(("accept".into(), spawn(&["accept", &id, "-q"])));
    running.push(("reject".into(), spawn(&["reject", &id, "-q"])));
    running.push(("eval 1".into(), spawn(&["eval", &id, "--write", "-q"])));
    running.push(("eval 2".into(), spawn(&["eval", &id, "--write", "-q"])));
    for (what, child) in running {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{what}: {}", text(&out.stderr));
    }
    assert_eq!(git(&sandbox.repo, &["status", "--porcelain"]), "", "nothing left modified or staged");
    let index = git(&sandbox.repo, &["show", "HEAD:docs/decisions/README.md"]);
    for question in
        questions.iter().map(|q| q.trim_end_matches('?')).chain(["Should we use Redis or Postgres for caching"])
    {
        assert!(index.contains(question), "{question} is in the index: {index}");
    }
    let record = sandbox.show(&id)["record_path"].as_str().unwrap().to_string();
    let relative = record.strip_prefix(&format!("{}/", sandbox.repo.display())).unwrap_or(&record).to_string();
    let at_head = git(&sandbox.repo, &["show", &format!("HEAD:{relative}")]);
    assert_eq!(std::fs::read_to_string(&record).unwrap(), at_head, "the work tree holds what HEAD holds");
    let status = at_head.lines().find_map(|l| l.strip_prefix("status: ")).unwrap().to_string();
    assert!(["accepted", "rejected"].contains(&status.as_str()), "{status}");
    assert_eq!(sandbox.listed().iter().find(|d| d["id"] == id.as_str()).unwrap()["record_status"], status.as_str());
    assert_eq!(sandbox.show(&id)["evaluations"].as_array().unwrap().len(), 2, "both evaluations are stored");
}

#[test]
fn a_locked_index_stops_the_commit_before_it_is_made() {
    let sandbox = Sandbox::new();
    identity(&sandbox.repo);
    std::fs::write(sandbox.repo.join("a.txt"), "a\n").unwrap();
    git(&sandbox.repo, &["add", "a.txt"]);
    git(&sandbox.repo, &["commit", "-q", "-m", "initial"]);
    let lock = sandbox.repo.join(".git/index.lock");
    std::fs::write(&lock, "").unwrap();
    let out = sandbox.cmd().args(["--offline", QUESTION]).output().unwrap();
    assert_eq!(out.status.code(), Some(5), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("index.lock"), "{}", text(&out.stderr));
    assert_eq!(git(&sandbox.repo, &["rev-list", "--count", "HEAD"]).trim(), "1", "no commit was made");

    std::fs::remove_file(&lock).unwrap();
    let id = sandbox.only_id();
    sandbox.cmd().args(["--resume", &id]).assert().success();
    assert_eq!(git(&sandbox.repo, &["status", "--porcelain"]), "");
}

#[test]
fn a_commit_the_index_never_heard_of_is_repaired_on_resume() {
    let sandbox = Sandbox::new();
    identity(&sandbox.repo);
    std::fs::write(sandbox.repo.join("a.txt"), "a\n").unwrap();
    git(&sandbox.repo, &["add", "a.txt"]);
    git(&sandbox.repo, &["commit", "-q", "-m", "initial"]);
    // Killed between committing and staging: the commit holds the record, the index not.
    let out = sandbox
        .cmd()
        .env("DEBATE_FAILPOINT", "after-commit-before-index")
        .args(["--offline", QUESTION])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let status = git(&sandbox.repo, &["status", "--porcelain"]);
    assert!(status.starts_with("D ") || status.contains("?? docs/"), "the index is behind the commit: {status}");

    let id = sandbox.only_id();
    sandbox.cmd().args(["--resume", &id]).assert().success();
    assert_eq!(git(&sandbox.repo, &["status", "--porcelain"]), "", "resume repaired the index");
    // The user's next `git commit -a` keeps the record.
    std::fs::write(sandbox.repo.join("a.txt"), "changed\n").unwrap();
    git(&sandbox.repo, &["commit", "-q", "-a", "-m", "user's change"]);
    let files = git(&sandbox.repo, &["ls-tree", "-r", "--name-only", "HEAD"]);
    assert!(files.contains("docs/decisions/"), "{files}");
}
