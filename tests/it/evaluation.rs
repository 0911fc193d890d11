//! `debate eval`: a finished debate's record scored by evaluator models over real HTTP
//! (the mock server on 127.0.0.1), or by the offline provider, which says its marks are
//! no model's judgement; stored and shown; `--write` commits the record alone, and the
//! record still reads back, shows and is reviewed.

use std::process::Output;

use crate::common::llm::{self, MockLlm, ok, prompt_of};
use crate::common::*;
use serde_json::{Value, json};
use wiremock::ResponseTemplate;

const CRITERIA: [&str; 5] = ["decision", "options", "context", "dissent", "follow_through"];

/// `debate <args>` against the mock server, off the async runtime.
pub async fn run(sandbox: &Sandbox, config: &std::path::Path, args: &[&str]) -> Output {
    let mut cmd = sandbox.std_cmd();
    cmd.arg("--config").arg(config).args(args).env("DEBATE_TEST_KEY", "sk-test-eval");
    tokio::task::spawn_blocking(move || cmd.output().expect("debate runs")).await.unwrap()
}

/// A sandbox with one debate against `mock`, complete and committed; its settings file.
pub async fn debated(mock: &MockLlm) -> (Sandbox, std::path::PathBuf) {
    let sandbox = Sandbox::new();
    git(&sandbox.repo, &["config", "user.name", "Test"]);
    git(&sandbox.repo, &["config", "user.email", "test@example.com"]);
    let config = sandbox.openai_compatible(&mock.base_url(), "", "");
    let out = run(&sandbox, &config, &["-p", "2", "-r", "1", QUESTION]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    (sandbox, config)
}

/// The requests that asked the rubric.
pub fn scoring(mock: &MockLlm) -> Vec<Value> {
    mock.requests().into_iter().filter(|r| prompt_of(&r["body"]).contains(llm::RUBRIC)).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_servers_scores_are_stored_and_shown_for_every_criterion() {
    let mock = MockLlm::start().await;
    let (sandbox, config) = debated(&mock).await;
    let id = sandbox.only_id();
    let out = run(&sandbox, &config, &["eval", &id]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let printed = text(&out.stdout);
    for criterion in CRITERIA {
        assert!(printed.contains(&format!("mock-model: {criterion} is marked")), "{criterion}: {printed}");
    }
    let asked = scoring(&mock);
    assert_eq!(asked.len(), 1, "the moderator's model scores once");
    assert_eq!(asked[0]["body"]["response_format"]["json_schema"]["name"], "score_record");
    assert!(prompt_of(&asked[0]["body"]).contains("## Decision Outcome"), "the record is what is scored");
    assert!(!prompt_of(&asked[0]["body"]).contains("debate:state"), "not the debate it carries");

    let evaluation = &sandbox.show(&id)["evaluations"][0];
    assert_eq!((evaluation["number"].as_u64(), evaluation["judged_by_a_model"].as_bool()), (Some(1), Some(true)));
    let stored: Vec<(&str, u64)> = evaluation["criteria"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["criterion"].as_str().unwrap(), c["marks"][0]["score"].as_u64().unwrap()))
        .collect();
    assert_eq!(stored, CRITERIA.iter().map(|c| (*c, if *c == "context" { 7 } else { 8 })).collect::<Vec<_>>());
    assert_eq!(evaluation["checks"].as_array().unwrap().len(), 4, "the checks that need no model ran too");
    let shown = text(&sandbox.cmd().args(["show", &id]).output().unwrap().stdout);
    assert!(
        shown.contains("Evaluations:\n  Evaluation 1 · ") && shown.contains("8  mock-model: decision is marked 8."),
        "{shown}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_evaluators_are_both_asked_and_their_disagreement_is_reported() {
    // The second model finds the context ignored.
    let mock = MockLlm::with_rule(|body, _| {
        (prompt_of(body).contains(llm::RUBRIC) && body["model"] == "other-model").then(|| ok(body, &llm::scores(2)))
    })
    .await;
    let (sandbox, config) = debated(&mock).await;
    let id = sandbox.only_id();
    let out = run(&sandbox, &config, &["eval", &id, "--evaluators", "mock-model,other-model", "--json"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let models: Vec<Value> = scoring(&mock).iter().map(|r| r["body"]["model"].clone()).collect();
    assert_eq!(models.len(), 2);
    assert!(models.contains(&json!("mock-model")) && models.contains(&json!("other-model")), "{models:?}");
    let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        printed["disagreements"],
        json!([{"criterion": "context", "lowest": 2, "lowest_by": "other-model", "highest": 7, "highest_by": "mock-model"}])
    );
    let context = &printed["criteria"][2];
    assert_eq!(context["marks"].as_array().unwrap().len(), 2, "both marks are kept, not only their mean");
    assert_eq!(sandbox.show(&id)["evaluations"][0]["disagreements"], printed["disagreements"]);
    let shown = text(&sandbox.cmd().args(["show", &id]).output().unwrap().stdout);
    assert!(
        shown.contains("The evaluators disagree on \"Arguments use the project's context, none contradicts it\": 2 (other-model) and 7 (mock-model)."),
        "{shown}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_evaluator_model_fails_with_the_servers_word_and_nothing_is_stored() {
    let mock = MockLlm::with_rule(|body, _| {
        (body["model"] == "no-such-model").then(|| {
            ResponseTemplate::new(404)
                .set_body_json(json!({"error": {"message": "The model `no-such-model` does not exist."}}))
        })
    })
    .await;
    let (sandbox, config) = debated(&mock).await;
    let id = sandbox.only_id();
    let out = run(&sandbox, &config, &["eval", &id, "--evaluators", "no-such-model"]).await;
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("no-such-model"), "{}", text(&out.stderr));
    assert_eq!(sandbox.show(&id)["evaluations"], json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_an_evaluator_echoes_is_stored_and_shown_masked() {
    let mock = MockLlm::with_rule(|body, _| {
        prompt_of(body)
            .contains(llm::RUBRIC)
            .then(|| ok(body, &llm::scores(7).replace("is marked 8.", "uses sk-test-eval.")))
    })
    .await;
    let (sandbox, config) = debated(&mock).await;
    let id = sandbox.only_id();
    let out = run(&sandbox, &config, &["eval", &id, "--write"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let shown = sandbox.show(&id).to_string();
    let record = std::fs::read_to_string(&sandbox.records()[0]).unwrap();
    for (place, written) in [("stdout", text(&out.stdout)), ("show", shown), ("record", record)] {
        assert!(written.contains("decision uses "), "{place}: {written}");
        assert!(!written.contains("sk-test-eval"), "the key in {place}: {written}");
    }
}

#[test]
fn offline_scores_say_they_are_no_models_judgement() {
    let sandbox = Sandbox::new();
    sandbox.cmd().args(["--offline", "-q", "--no-checkpoints", "-r", "1", QUESTION]).assert().success();
    let id = sandbox.only_id();
    let out = sandbox.cmd().args(["eval", &id]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let printed = text(&out.stdout);
    assert!(
        printed.contains("composed from the record's text by the offline provider, not a model's judgement"),
        "{printed}"
    );
    let evaluation = &sandbox.shown()["evaluations"][0];
    assert_eq!(evaluation["judged_by_a_model"], false);
    assert_eq!(evaluation["evaluators"][0]["reasoned"], false);
    let scores = |evaluation: &Value| -> Vec<u64> {
        evaluation["criteria"].as_array().unwrap().iter().map(|c| c["marks"][0]["score"].as_u64().unwrap()).collect()
    };
    // The same record gives the same marks: they follow from its text.
    sandbox.cmd().args(["eval", &id, "-q"]).assert().success();
    assert_eq!(scores(&sandbox.shown()["evaluations"][1]), scores(evaluation));
}

#[test]
fn written_scores_are_committed_alone_and_the_record_still_reads_back() {
    let sandbox = Sandbox::new();
    git(&sandbox.repo, &["config", "user.name", "Test"]);
    git(&sandbox.repo, &["config", "user.email", "test@example.com"]);
    sandbox.cmd().args(["--offline", "-q", "--no-checkpoints", "-r", "1", QUESTION]).assert().success();
    let id = sandbox.only_id();
    write(&sandbox.repo, "notes.txt", "unrelated work\n");
    git(&sandbox.repo, &["add", "notes.txt"]);
    let out = sandbox.cmd().args(["eval", &id, "--write"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let record = sandbox.records()[0].clone();
    let relative = record.strip_prefix(&sandbox.repo).unwrap().to_str().unwrap().to_string();
    assert_eq!(git(&sandbox.repo, &["show", "--format=", "--name-only", "HEAD"]).trim(), relative, "the record alone");
    let message = git(&sandbox.repo, &["log", "-1", "--format=%B"]);
    assert!(message.contains(&format!("Debate-Id: {id}")) && message.contains("Debate-Evaluation: 1"), "{message}");
    assert_eq!(git(&sandbox.repo, &["status", "--porcelain"]), "A  notes.txt\n", "what was staged stays staged");
    let text_of = std::fs::read_to_string(&record).unwrap();
    assert!(text_of.contains("### Evaluation\n\nEvaluation 1 of this record"), "{text_of}");
    assert!(text_of.contains("not a model's judgement"), "{text_of}");
    let shown = sandbox.show(&id);
    assert_eq!(shown["evaluations"][0]["written"], true);
    assert_eq!(shown["commit_id"], git(&sandbox.repo, &["rev-parse", "HEAD"]).trim(), "the record's commit now");

    // A clone that never ran it reads the record back, scores and all.
    let clone = sandbox.home.join("clone");
    git(&sandbox.home, &["clone", "-q", sandbox.repo.to_str().unwrap(), clone.to_str().unwrap()]);
    let other_home = sandbox.home.join("other");
    let out = sandbox.std_cmd_as(&clone, &other_home).args(["show", &id, "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let read_back: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(read_back["evaluations"][0]["criteria"], shown["evaluations"][0]["criteria"]);

    // Accepted, then reviewed: the rewrite leaves the last record's scores out.
    sandbox.cmd().args(["accept", &id, "-q"]).assert().success();
    let out = sandbox
        .cmd()
        .args(["review", &id, "--guide", "What does it cost?", "--offline", "-q", "--no-checkpoints"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let revised = std::fs::read_to_string(&record).unwrap();
    assert!(!revised.contains("### Evaluation") && revised.contains("status: accepted"), "{revised}");
    let evaluation = &sandbox.show(&id)["evaluations"][0];
    assert_eq!((evaluation["revision"].as_u64(), evaluation["current"].as_bool()), (Some(0), Some(false)));
}

#[test]
fn scores_are_written_only_into_a_record_as_debate_wrote_it() {
    let sandbox = Sandbox::new();
    git(&sandbox.repo, &["config", "user.name", "Test"]);
    git(&sandbox.repo, &["config", "user.email", "test@example.com"]);
    sandbox.cmd().args(["--offline", "-q", "--no-checkpoints", "-r", "1", QUESTION]).assert().success();
    let id = sandbox.only_id();
    let record = sandbox.records()[0].clone();
    let original = std::fs::read_to_string(&record).unwrap();
    std::fs::write(&record, original.replace("## Question\n", "## Question\n\nEdited.\n")).unwrap();
    let out = sandbox.cmd().args(["eval", &id, "--write"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("edited by hand"), "{}", text(&out.stderr));
    assert_eq!(sandbox.shown()["evaluations"], json!([]), "nothing is stored before the record is found writable");
    std::fs::write(&record, &original).unwrap();
    let head = git(&sandbox.repo, &["rev-parse", "HEAD"]);
    sandbox.cmd().args(["eval", &id, "--write", "-q"]).assert().success();
    assert_ne!(git(&sandbox.repo, &["rev-parse", "HEAD"]), head);
}

#[test]
fn bad_input_is_refused_with_what_to_do() {
    let sandbox = Sandbox::new();
    // A debate not finished has no record to score.
    let config = sandbox.scripted(
        "answers:\n  - {purpose: argument, error: \"overloaded\"}\n  - {purpose: rebuttal, error: \"overloaded\"}\n",
    );
    sandbox.cmd().arg("--config").arg(&config).args(["-q", QUESTION]).assert().failure();
    let unfinished = sandbox.only_id();
    for (args, said) in [
        (&["eval", unfinished.as_str()][..], "no finished record to score"),
        (&["eval", "DEB-zzzzzz"], "no debate"),
        (&["eval", "DEB-zzzzzz", "--offline", "--evaluators", "m"], "cannot be used with"),
        (&["--with", "Cost Control", "eval", "DEB-zzzzzz"], "--with does not go with `debate eval`"),
    ] {
        let out = sandbox.cmd().args(args).output().unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(said) && stderr.contains("hint:"), "{args:?}: {stderr}");
    }
}
