//! Secrets never leave through debate: a key a server echoes back, or a credential typed
//! into the question, is masked before anything is stored, shown, written or committed.

use std::process::Output;

use serde_json::Value;

use crate::common::llm::{MockLlm, ok_from, reply};
use crate::common::*;

const KEY: &str = "sk-live-ECHOED-key-0a1b2c3d4e5f";

/// A server that puts the key it was sent into every answer: in a debater's prose, in
/// the moderator's JSON and in the model name it reports, streamed or not.
async fn echoing_server() -> MockLlm {
    MockLlm::with_rule(|body, _| {
        let answer = reply(body);
        let echoed = match serde_json::from_str::<Value>(&answer) {
            Ok(Value::Object(mut json)) => {
                for field in ["summary", "recommendation"] {
                    if let Some(Value::String(text)) = json.get_mut(field) {
                        text.push_str(&format!(" (key {KEY})"));
                    }
                }
                json.insert("caveats".into(), Value::from(vec![format!("rotate {KEY}")]));
                Value::Object(json).to_string()
            }
            _ => format!("{answer} My key is {KEY}, and again: {KEY}."),
        };
        Some(ok_from(&format!("mock-{KEY}"), body, &echoed))
    })
    .await
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// Every place debate writes: its output, `--show`/`--list`, every file in the
/// repository and home (the database included), and every object git holds.
fn assert_nowhere(sandbox: &Sandbox, outputs: &[&Output], secret: &str) {
    for output in outputs {
        assert!(!contains(&output.stdout, secret), "stdout: {}", text(&output.stdout));
        assert!(!contains(&output.stderr, secret), "stderr: {}", text(&output.stderr));
    }
    let id = sandbox.only_id();
    for args in [vec!["--show", &id], vec!["--show", &id, "--json"], vec!["--list", "--json"]] {
        let out = sandbox.cmd().args(&args).output().unwrap();
        assert!(!contains(&out.stdout, secret), "{args:?}: {}", text(&out.stdout));
    }
    for (path, bytes) in sandbox.files() {
        assert!(!contains(&bytes, secret), "{} holds the secret", path.display());
    }
    let history = git(&sandbox.repo, &["log", "--all", "-p", "--format=%H%n%B"]);
    assert!(!history.contains(secret), "git history holds the secret:\n{history}");
}

// The key echoed back in a whole answer, in every encoding: `secret_gate.rs`.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streamed_echo_never_shows_on_the_terminal() {
    let mock = echoing_server().await;
    let sandbox = Sandbox::new();
    let config = sandbox.openai_compatible(&mock.base_url(), "", "");
    let mut cmd = sandbox.std_cmd();
    cmd.arg("--config").arg(&config).args(["--no-commit", "-r", "1", QUESTION]);
    cmd.env("DEBATE_TEST_KEY", KEY).env("TERM", "xterm-256color");
    let screen = tokio::task::spawn_blocking(move || {
        let mut p = rexpect::session::spawn_command(cmd, Some(30_000)).expect("debate starts on a pty");
        p.exp_eof().expect("debate ends")
    })
    .await
    .unwrap();
    assert!(mock.requests().iter().any(|r| r["body"]["stream"] == true), "the debaters streamed");
    // rexpect reads bytes as Latin-1; the key is ASCII, so any trace of it shows as is.
    assert!(!screen.contains(&KEY[..12]), "a part of the key reached the terminal:\n{screen}");
    assert!(screen.contains("[redacted key]"), "{screen}");
}

#[test]
fn secrets_typed_into_the_question_are_warned_about_and_masked() {
    let sandbox = Sandbox::new();
    git(&sandbox.repo, &["config", "user.name", "Test"]);
    git(&sandbox.repo, &["config", "user.email", "test@example.com"]);
    let aws = "AKIAIOSFODNN7EXAMPLE";
    let openai = "sk-proj-TyPeDiNtOtHeQuEsTiOn1234";
    let question = format!("Should we cache in Redis ({openai}) or Postgres, given AWS key {aws}?");
    let out = sandbox.cmd().args(["--offline", "--issue", &question]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("warning: the question holds what looks like an AWS access key id"), "{stderr}");
    assert!(stderr.contains("warning: the question holds what looks like an OpenAI-style API key"), "{stderr}");
    for secret in [aws, openai] {
        assert_nowhere(&sandbox, &[&out], secret);
    }
    // The database itself: --show masks what it prints, so only the stored column shows
    // what was stored.
    let stored: String = sandbox.sqlite().query_row("SELECT question FROM debates", [], |r| r.get(0)).unwrap();
    assert!(stored.contains("Redis ([redacted]) or Postgres"), "{stored}");
    let name = sandbox.records()[0].file_name().unwrap().to_string_lossy().into_owned();
    assert!(!name.to_lowercase().contains("akia") && !name.contains("sk-proj"), "{name}");
}

#[test]
fn a_private_key_pasted_into_the_question_is_masked_whole() {
    let sandbox = Sandbox::new();
    let question = "Where should we keep this key?\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nQUFBQUJBQUFBQUJB\n-----END OPENSSH PRIVATE KEY-----\nVault or SOPS?";
    let out = sandbox.cmd().args(["--offline", "--no-commit", "-"]).write_stdin(question).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("looks like a private key block"), "{}", text(&out.stderr));
    for part in ["b3BlbnNzaC1rZXktdjEAAAAA", "QUFBQUJBQUFBQUJB"] {
        assert_nowhere(&sandbox, &[&out], part);
    }
}
