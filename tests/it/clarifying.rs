//! The moderator asks (issue 33): a vague question gets the questions a model wrote for
//! it, asked on a terminal before the panel is chosen; the answer reaches the next
//! prompts and the record. Without anyone to answer, the record lists them as open.

use rexpect::process::WaitStatus;

use crate::common::llm::{MockLlm, ok, prompt_of};
use crate::common::*;

const VAGUE: &str = "What should we do about caching?";
const ASKED: [&str; 2] = ["Which workload: session data or query results?", "Do you already run Postgres?"];
const ANSWER: &str = "Session data for checkout; we run Postgres 16 already";

/// A stand-in server whose clarification call finds the question vague and asks its own
/// questions; everything else as the mock answers it.
async fn asking_server() -> MockLlm {
    MockLlm::with_rule(|body, _| {
        prompt_of(body)
            .contains("may be too vague to debate")
            .then(|| ok(body, &serde_json::json!({"vague": true, "questions": ASKED}).to_string()))
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_moderators_own_questions_are_asked_and_the_answer_is_debated() {
    let mock = asking_server().await;
    let sandbox = Sandbox::new();
    let config = sandbox.openai_compatible(&mock.base_url(), "", "");
    let mut cmd = sandbox.std_cmd();
    cmd.arg("--config").arg(&config).args(["-p", "2", "-r", "1", VAGUE]);
    cmd.env("DEBATE_TEST_KEY", "sk-test").env("DEBATE_CHECKPOINTS", "true").env("TERM", "dumb").env("NO_COLOR", "1");
    let mut p = rexpect::session::spawn_command(cmd, Some(30_000)).unwrap();
    p.exp_string("The moderator asks:").unwrap();
    p.exp_string(ASKED[0]).unwrap();
    p.exp_string(ASKED[1]).unwrap();
    p.exp_string("Clarification: ").unwrap();
    p.send_line(ANSWER).unwrap();
    p.flush().unwrap();
    p.exp_string("Panel: 2 perspectives").unwrap();
    p.exp_string("Write an issue draft").unwrap();
    p.send("n").unwrap();
    p.flush().unwrap();
    p.exp_eof().unwrap();
    assert!(matches!(p.process().wait().unwrap(), WaitStatus::Exited(_, 0)));

    let requests = mock.requests();
    let asked_at = requests.iter().position(|r| prompt_of(&r["body"]).contains("may be too vague")).unwrap();
    let later: Vec<String> = requests[asked_at + 1..].iter().map(|r| prompt_of(&r["body"])).collect();
    assert!(
        !later.is_empty() && later.iter().all(|prompt| prompt.contains(ANSWER)),
        "the answer in every later prompt"
    );
    let shown = sandbox.shown();
    assert_eq!(shown["clarification"]["questions"], serde_json::json!(ASKED));
    assert_eq!(shown["clarification"]["answer"], ANSWER);
    let record = std::fs::read_to_string(&sandbox.records()[0]).unwrap();
    assert!(record.contains(ASKED[0]) && record.contains(ANSWER), "{record}");
    assert!(!record.contains("Open question"), "{record}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_terminal_the_record_lists_the_open_questions() {
    let mock = asking_server().await;
    let sandbox = Sandbox::new();
    let config = sandbox.openai_compatible(&mock.base_url(), "", "");
    let out = sandbox
        .cmd()
        .arg("--config")
        .arg(&config)
        .args(["-p", "2", "-r", "1", VAGUE])
        .env("DEBATE_TEST_KEY", "sk-test")
        .env("DEBATE_CHECKPOINTS", "true")
        .write_stdin("")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!text(&out.stderr).contains("Clarification:"), "nobody is asked");
    let record = std::fs::read_to_string(&sandbox.records()[0]).unwrap();
    for question in ASKED {
        assert!(record.contains(&format!("Open question: {question}")), "{record}");
    }
    assert!(sandbox.shown()["clarification"]["open"].as_bool().unwrap());
    // The debaters were told what was left open.
    let argued = mock.requests().into_iter().map(|r| prompt_of(&r["body"])).find(|p| p.contains("round-1 argument"));
    assert!(argued.unwrap().contains(ASKED[1]));
}

/// The offline provider asks what the analysis found missing, and a moderator whose
/// answer cannot be read leaves the same questions: never a fixed sentence.
#[test]
fn offline_the_questions_come_from_what_is_missing() {
    let sandbox = Sandbox::new();
    sandbox.cmd().args(["--offline", "-r", "1", "What should we do?"]).write_stdin("").assert().success();
    let questions = sandbox.shown()["clarification"]["questions"].clone();
    let questions: Vec<String> = serde_json::from_value(questions).unwrap();
    assert_eq!(questions.len(), 3, "{questions:?}");
    assert!(questions[0].contains("options") && questions[2].contains("scale"), "{questions:?}");
}
