//! The binary on a pseudo-terminal, answering its questions as a person would.

mod common;

use common::*;

/// Answer a yes/no question once it waits for a key (dialoguer switches the terminal to
/// raw mode after drawing the prompt; a key sent earlier would be discarded).
fn answer(p: &mut rexpect::session::PtySession, key: &str) {
    p.exp_string("Write an issue draft for the follow-up work?").unwrap();
    p.exp_string("[y/N]").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    p.send(key).unwrap();
    p.flush().unwrap();
}

fn session(sandbox: &Sandbox) -> rexpect::session::PtySession {
    let mut cmd = sandbox.std_cmd();
    cmd.args(["--offline", QUESTION]).env("TERM", "dumb");
    rexpect::session::spawn_command(cmd, Some(30_000)).expect("debate starts on a pty")
}

#[test]
fn an_interactive_debate_offers_an_issue_draft_and_writes_it_on_yes() {
    let sandbox = Sandbox::new();
    let mut p = session(&sandbox);
    answer(&mut p, "y");
    p.exp_string("gh issue create --title").unwrap();
    p.exp_eof().unwrap();
    let id = sandbox.only_id();
    assert!(sandbox.repo.join(format!(".debate/issues/{id}.md")).is_file());
}

#[test]
fn answering_no_writes_no_draft() {
    let sandbox = Sandbox::new();
    let mut p = session(&sandbox);
    answer(&mut p, "n");
    p.exp_string("is complete").unwrap();
    p.exp_eof().unwrap();
    assert!(!sandbox.repo.join(".debate/issues").exists());
    assert_eq!(sandbox.records().len(), 1);
}
