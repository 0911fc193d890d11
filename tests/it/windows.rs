//! The Windows build, run under Wine as a user on Windows runs it: a whole offline debate
//! in a repository Linux git made, its record committed and read back by Linux git with
//! a clean work tree; the record signed there verified here and the other way round;
//! Ctrl-C pausing a debate and `resume` finishing it; `list`, `show` and `verify --all`;
//! the dashboard answering on 127.0.0.1; `debate mcp` answering a client.
//!
//! Runs when `DEBATE_WINDOWS_EXE` names a cross-built `debate.exe` (Wine 8 also needs the
//! `bcryptprimitives.dll` shim beside it) and `DEBATE_WINE` the `wine64` loader; `.ci/run`
//! builds both and sets them, with `WINEPREFIX`. Otherwise each test says it is skipped.
//! Wine cannot make links or junctions (its `CreateSymbolicLink` does nothing, and it
//! follows Unix links as if they were not there), so refusing them on Windows is not
//! tested here: see the guide's "Platforms".

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Output, Stdio};

use serde_json::{Value, json};

use crate::common::keys::alices;
use crate::common::*;

/// The Windows binary and the Wine that runs it.
struct Wine {
    loader: PathBuf,
    exe: PathBuf,
}

/// The Windows build to test, or `None` after saying the test is skipped.
fn windows() -> Option<Wine> {
    let (Some(exe), Some(loader)) = (std::env::var_os("DEBATE_WINDOWS_EXE"), std::env::var_os("DEBATE_WINE")) else {
        eprintln!(
            "skipped: no Windows build to run under Wine (.ci/run cross-builds debate.exe and sets DEBATE_WINDOWS_EXE and DEBATE_WINE)"
        );
        return None;
    };
    Some(Wine { loader: loader.into(), exe: exe.into() })
}

/// `path` as Windows under Wine names it: the Unix root is drive `Z:`.
fn windows_path(path: &Path) -> String {
    format!("Z:{}", path.display()).replace('/', "\\")
}

impl Wine {
    /// `debate.exe` in `dir`, its home the sandbox's (as a Windows path), nothing of the
    /// user's ssh-agent or settings in reach.
    fn cmd(&self, sandbox: &Sandbox, dir: &Path) -> StdCommand {
        let mut cmd = StdCommand::new(&self.loader);
        cmd.arg(&self.exe).current_dir(dir);
        for (key, _) in std::env::vars() {
            if key.starts_with("DEBATE_") || key == "NO_COLOR" || key == "SSH_AUTH_SOCK" {
                cmd.env_remove(key);
            }
        }
        cmd.env("DEBATE_HOME", windows_path(&sandbox.home)).env("WINEDEBUG", "-all");
        cmd
    }

    /// `debate.exe ARGS` in the sandbox's repository, run to its end.
    fn run(&self, sandbox: &Sandbox, args: &[&str]) -> Output {
        self.cmd(sandbox, &sandbox.repo).args(args).stdin(Stdio::null()).output().expect("wine runs debate.exe")
    }

    /// `run`, which must succeed; its stdout.
    fn ok(&self, sandbox: &Sandbox, args: &[&str]) -> String {
        let out = self.run(sandbox, args);
        assert!(out.status.success(), "debate.exe {args:?} under Wine ({:?}): {}", out.status, text(&out.stderr));
        text(&out.stdout)
    }
}

/// The debate ids `debate.exe list --json` lists, with their status.
fn listed(wine: &Wine, sandbox: &Sandbox) -> Vec<(String, String)> {
    let rows: Value = serde_json::from_str(&wine.ok(sandbox, &["list", "--json"])).expect("list --json is JSON");
    rows.as_array()
        .unwrap()
        .iter()
        .map(|r| (r["id"].as_str().unwrap().into(), r["status"].as_str().unwrap().into()))
        .collect()
}

#[test]
fn a_debate_on_windows_is_committed_for_linux_git_and_each_side_verifies_the_others_signed_record() {
    let Some(wine) = windows() else { return };
    let sandbox = Sandbox::new();
    // Linux git makes the repository, the key and the allowed signers; Windows reads
    // git's config as it finds it (a rooted path is on the current drive, Z:).
    let (_key, _allowed) = alices(&sandbox);
    let question = "Should the nightly export move from cron to a queue consumer?";
    let out = wine.run(&sandbox, &["--offline", "-r", "1", question]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));

    assert_eq!(git(&sandbox.repo, &["status", "--porcelain"]), "", "the work tree is clean for Linux git");
    let committed = git(&sandbox.repo, &["show", "--name-only", "--format=%B", "HEAD"]);
    assert!(committed.contains("Debate-Id: DEB-"), "{committed}");
    let record = committed.lines().find(|l| l.starts_with("docs/decisions/") && l.ends_with(".md")).unwrap();
    assert!(!record.contains('\\'), "git holds the record at a path of plain names: {record}");
    let bytes = std::fs::read(sandbox.repo.join(record)).unwrap();
    assert!(!bytes.contains(&b'\r'), "the record's lines end as on Linux");

    // Written and signed on Windows, verified on Linux.
    let verified = sandbox.cmd().args(["verify", "--all", "--require-signature"]).output().unwrap();
    assert_eq!(verified.status.code(), Some(0), "{}{}", text(&verified.stdout), text(&verified.stderr));
    assert!(text(&verified.stdout).contains("alice@example.org"), "{}", text(&verified.stdout));

    // Written and signed on Linux, verified on Windows, with the first.
    sandbox.cmd().args(["--offline", "-r", "1", "--no-checkpoints", QUESTION]).assert().success();
    let out = wine.run(&sandbox, &["verify", "--all", "--require-signature"]);
    let shown = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{shown}{}", text(&out.stderr));
    assert_eq!(shown.matches("alice@example.org").count(), 2, "both records, each by its signer: {shown}");

    let ids = listed(&wine, &sandbox);
    assert_eq!(ids.len(), 1, "the Windows debate in its own state database: {ids:?}");
    assert_eq!(ids[0].1, "complete");
    let show: Value = serde_json::from_str(&wine.ok(&sandbox, &["show", &ids[0].0, "--json"])).unwrap();
    assert_eq!(show["question"], question);
    assert_eq!(show["status"], "complete");
    let repository = show["repository"].as_str().unwrap();
    assert!(
        repository.starts_with("Z:\\") && !repository.starts_with("\\\\?\\"),
        "a path as users write it: {repository}"
    );
}

#[test]
fn ctrl_c_pauses_a_debate_on_windows_and_resume_finishes_it_repeating_nothing() {
    let Some(wine) = windows() else { return };
    let sandbox = Sandbox::new();
    git(&sandbox.repo, &["config", "user.name", "Test"]);
    git(&sandbox.repo, &["config", "user.email", "test@example.com"]);
    // Every call takes a while, so Ctrl-C lands with a round under way.
    let config = sandbox.scripted(&format!("delay_ms: 400\n{}", varied_answers(&PANEL, 1, CONTINUE)));
    let config = windows_path(&config);
    let mut child = wine
        .cmd(&sandbox, &sandbox.repo)
        .args(["--config", &config, "-r", "1", QUESTION])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("wine runs debate.exe");
    wait_for("the first argument stored", || {
        assert!(child.try_wait().unwrap().is_none(), "the debate ended before Ctrl-C");
        sandbox.prompts().iter().filter(|p| p["purpose"] == "argument").count() >= 1
    });
    // Wine hands SIGINT to the program as Windows does Ctrl-C: a console control event.
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).unwrap();
    let status = wait_for("debate.exe to stop", || child.try_wait().unwrap());
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("stopped by Ctrl-C") && stderr.contains("debate resume DEB-"), "{stderr}");
    let ids = listed(&wine, &sandbox);
    assert_eq!(ids.len(), 1);
    assert_eq!(ids[0].1, "paused", "{ids:?}");
    let arguments = |show: &Value| show["transcript"][0]["arguments"].as_array().map_or(0, Vec::len);
    let kept = arguments(&serde_json::from_str(&wine.ok(&sandbox, &["show", &ids[0].0, "--json"])).unwrap());
    let asked_before = sandbox.prompts().len();

    wine.ok(&sandbox, &["--config", &config, "resume", &ids[0].0]);
    assert_eq!(listed(&wine, &sandbox)[0].1, "complete");
    let show: Value = serde_json::from_str(&wine.ok(&sandbox, &["show", &ids[0].0, "--json"])).unwrap();
    assert_eq!(arguments(&show), 2, "{show}");
    let asked_again = sandbox.prompts()[asked_before..].iter().filter(|p| p["purpose"] == "argument").count();
    assert_eq!(asked_again, 2 - kept, "only the arguments not stored at Ctrl-C are asked again");
    assert_eq!(git(&sandbox.repo, &["status", "--porcelain"]), "");
    assert!(git(&sandbox.repo, &["log", "-1", "--format=%B"]).contains(&format!("Debate-Id: {}", ids[0].0)));
}

#[test]
fn the_dashboard_answers_on_localhost_and_debate_mcp_answers_a_client() {
    let Some(wine) = windows() else { return };
    let sandbox = Sandbox::new();
    git(&sandbox.repo, &["config", "user.name", "Test"]);
    git(&sandbox.repo, &["config", "user.email", "test@example.com"]);
    wine.ok(&sandbox, &["--offline", "-r", "1", "--no-checkpoints", QUESTION]);

    let mut serve = wine.cmd(&sandbox, &sandbox.repo);
    serve.args(["serve", "--port", "0"]).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::null());
    let mut server = Stopped(serve.spawn().expect("wine runs debate.exe serve"));
    let mut first = String::new();
    BufReader::new(server.0.stdout.take().unwrap()).read_line(&mut first).unwrap();
    let url = first.trim().strip_prefix("Listening on ").unwrap_or_else(|| panic!("{first:?}")).to_string();
    let rest = url.strip_prefix("http://").unwrap_or_else(|| panic!("{url}"));
    let (host, path) = rest.split_once('/').map_or((rest, "/".to_string()), |(h, p)| (h, format!("/{p}")));
    assert!(host.starts_with("127.0.0.1:"), "{url}");
    let page = get(host, &path);
    assert!(page.starts_with("HTTP/1.1 200") || page.starts_with("HTTP/1.1 303"), "{page}");
    drop(server);

    let mut mcp = wine.cmd(&sandbox, &sandbox.repo);
    mcp.arg("mcp").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
    let mut client = Stopped(mcp.spawn().expect("wine runs debate.exe mcp"));
    let mut stdin = client.0.stdin.take().unwrap();
    let mut lines = BufReader::new(client.0.stdout.take().unwrap()).lines();
    let mut send = |message: Value| writeln!(stdin, "{message}").and_then(|_| stdin.flush()).unwrap();
    let mut answer = || -> Value {
        let line = lines.next().expect("an answer").unwrap();
        serde_json::from_str(&line).unwrap_or_else(|err| panic!("stdout holds only protocol messages ({err}): {line}"))
    };
    send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "wine-test", "version": "1"}}}));
    let opened = answer();
    assert_eq!(opened["result"]["protocolVersion"], "2025-11-25", "{opened}");
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "list_debates", "arguments": {}}}),
    );
    let listed = answer();
    assert_eq!(listed["id"], 2, "{listed}");
    assert!(listed["result"]["structuredContent"].to_string().contains(QUESTION), "{listed}");
}

/// A process killed (and waited for) when the test is done with it, however it ends.
struct Stopped(std::process::Child);

impl Drop for Stopped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A plain HTTP/1.1 GET of `path` at `host`: the status line, headers and body.
fn get(host: &str, path: &str) -> String {
    let mut stream = TcpStream::connect(host).expect("the dashboard accepts a connection");
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n").unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer
}
