//! A run's options, described once (issue 50, item 2): a flag means the same before the
//! command and after it — a cap given before `eval` caps the scores as one given after it
//! does — and every door refuses what the command line refuses, with the same words: the
//! MCP server's `start_debate` as `debate new`.

use serde_json::{Value, json};

use crate::common::llm::MockLlm;
use crate::common::*;
use crate::evaluation::{debated, run};
use crate::mcp::{Session, text_of};

/// How many requests asked the rubric.
fn scoring(mock: &MockLlm) -> usize {
    crate::evaluation::scoring(mock).len()
}

/// The error line a command printed, without `error: `.
fn error_line(stderr: &str) -> String {
    let line = stderr.lines().find_map(|line| line.strip_prefix("error: "));
    line.unwrap_or_else(|| panic!("no error line in {stderr}")).to_string()
}

/// A cost cap needs a price for every model: the mock's model has none, so a capped eval
/// refuses before it sends anything — wherever the cap stands on the line. (Before, the
/// cap given before `eval` was dropped, and the scores were asked for and paid.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cap_before_eval_caps_the_scores_as_one_after_it_does() {
    let mock = MockLlm::start().await;
    let (sandbox, config) = debated(&mock).await;
    let id = sandbox.only_id();

    let mut said = Vec::new();
    for args in [["--max-cost", "1", "eval", id.as_str()], ["eval", id.as_str(), "--max-cost", "1"]] {
        let out = run(&sandbox, &config, &args).await;
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("a cost cap of $1.00 needs a price for every model"), "{args:?}: {stderr}");
        assert_eq!(scoring(&mock), 0, "{args:?}: nothing was asked of a model");
        said.push(stderr);
    }
    assert_eq!(said[0], said[1], "the same refusal either way");

    // A token cap likewise, and without a cap the scores are asked for: the cap was the difference.
    for args in [["--max-tokens", "10", "eval", id.as_str()], ["eval", id.as_str(), "--max-tokens", "10"]] {
        let out = run(&sandbox, &config, &args).await;
        assert!(!out.status.success(), "{args:?}: {}", text(&out.stderr));
        assert_eq!(scoring(&mock), 0, "{args:?}: no call could fit in ten tokens");
    }
    let out = run(&sandbox, &config, &["eval", &id]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(scoring(&mock), 1);
}

/// A run option a command does not take is refused, before the command or after it.
#[test]
fn a_run_option_a_command_does_not_take_is_refused_wherever_it_stands() {
    let sandbox = Sandbox::new();
    for args in [
        &["--max-cost", "1", "list"][..],
        &["list", "--max-cost", "1"],
        &["--offline", "show", "DEB-000000"],
        &["show", "DEB-000000", "--offline"],
        &["--list", "--provider", "openai"],
        &["config", "-r", "2"],
        &["eval", "DEB-000000", "--provider", "openai"],
        &["--perspectives", "3", "eval", "DEB-000000"],
    ] {
        let out = sandbox.cmd().args(args).output().unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("does not go with `debate "), "{args:?}: {stderr}");
    }
    // Given on both sides, it is refused rather than one of them dropped.
    let out = sandbox.cmd().args(["--with", "Cost Control", "new", "--with", "Security Advocate", QUESTION]).output();
    let out = out.unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("--with is given both before and after the command"), "{}", text(&out.stderr));
    assert!(sandbox.try_listed().unwrap_or_default().is_empty(), "nothing ran");
}

/// What the command line refuses, `start_debate` refuses with the same words, and writes
/// nothing: a provider with the offline debater, seated models with it, a branch with no
/// commit, rounds out of bounds.
#[test]
fn start_debate_refuses_what_the_command_line_refuses_with_the_same_words() {
    let sandbox = Sandbox::new();
    git(&sandbox.repo, &["config", "user.name", "Test"]);
    git(&sandbox.repo, &["config", "user.email", "test@example.com"]);
    let before = sandbox.files();
    let mut session = Session::open(&sandbox, &sandbox.repo, &[], &[], json!({}));
    let cases: [(&[&str], Value); 4] = [
        (&["--offline", "--provider", "openai"], json!({"offline": true, "provider": "openai"})),
        (&["--offline", "--models", "openai:gpt-4.1"], json!({"offline": true, "models": ["openai:gpt-4.1"]})),
        (&["--no-commit", "--branch=decide"], json!({"no_commit": true, "branch": "decide", "offline": true})),
        (&["--offline", "-r", "0"], json!({"offline": true, "max_rounds": 0})),
    ];
    for (flags, arguments) in cases {
        let out = sandbox.cmd().args(flags).arg(QUESTION).output().unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flags:?}: {stderr}");
        let refusal = error_line(&stderr);
        let refusal = refusal.rsplit(": ").next().unwrap().to_string();

        let mut arguments = arguments;
        arguments["question"] = json!(QUESTION);
        let result = session.call("start_debate", arguments.clone());
        assert_eq!(result["isError"], true, "{arguments}: {result}");
        assert!(text_of(&result).contains(&refusal), "{arguments}: {} lacks {refusal:?}", text_of(&result));
    }
    assert_eq!(sandbox.files(), before, "nothing was written");
    assert!(sandbox.try_listed().unwrap_or_default().is_empty(), "nothing was stored");
    let (status, _) = session.close();
    assert!(status.success());
}

/// The options `start_debate` takes are the command line's, by the same names: a record
/// on a branch of its own with an issue draft, and no repository context; `resume_debate`
/// refuses what a debate fixes when it starts, as `debate resume` does.
#[test]
fn start_debate_takes_the_command_lines_options_by_their_names() {
    let sandbox = Sandbox::new();
    git(&sandbox.repo, &["config", "user.name", "Test"]);
    git(&sandbox.repo, &["config", "user.email", "test@example.com"]);
    git(&sandbox.repo, &["commit", "-q", "--allow-empty", "-m", "start"]);
    let mut session = Session::open(&sandbox, &sandbox.repo, &[], &[], json!({}));
    let arguments = json!({"question": QUESTION, "offline": true, "max_rounds": 1, "branch": " decisions/cache ",
                           "issue": true, "no_repo_context": true});
    let result = session.call("start_debate", arguments);
    assert_ne!(result["isError"], true, "{result}");
    let debate = &result["structuredContent"];
    assert_eq!(debate["branch"], "decisions/cache", "trimmed as the flag is: {debate}");
    assert!(git(&sandbox.repo, &["branch", "--list", "decisions/cache"]).contains("decisions/cache"));
    assert_eq!(git(&sandbox.repo, &["rev-parse", "--abbrev-ref", "HEAD"]).trim(), "main", "the checkout stays");
    assert!(debate["issue_draft"]["path"].as_str().is_some_and(|path| path.ends_with(".md")), "{debate}");
    assert_eq!(debate["context"]["repository"], false, "{debate}");

    let id = debate["id"].as_str().unwrap();
    let refused = session.call("resume_debate", json!({"id": id, "perspectives": 3}));
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(text_of(&refused).contains("--perspectives is fixed when a debate starts"), "{}", text_of(&refused));
    let out = sandbox.cmd().args(["resume", id, "-p", "3"]).output().unwrap();
    assert!(text(&out.stderr).contains("--perspectives is fixed when a debate starts"), "{}", text(&out.stderr));
    let (status, _) = session.close();
    assert!(status.success());
}
