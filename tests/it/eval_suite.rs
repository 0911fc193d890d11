//! `debate eval --suite`: a suite of questions debated in throwaway repositories, each
//! record scored, and a markdown and JSON report that compares the models — offline
//! with the shipped suite, and against the mock server with two models in turn.

use std::path::{Path, PathBuf};

use crate::common::llm::{self, MockLlm};
use crate::common::*;
use serde_json::{Value, json};

fn shipped_suite() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/eval/suite.yaml")
}

/// The report's JSON beside its markdown.
fn report_json(markdown: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(markdown.with_extension("json")).unwrap()).unwrap()
}

#[test]
fn the_shipped_suite_completes_every_question_offline_and_writes_the_report() {
    let sandbox = Sandbox::new();
    let report = sandbox.home.join("report.md");
    let out = sandbox
        .cmd()
        .args(["eval", "--suite", shipped_suite().to_str().unwrap(), "--offline", "-r", "1", "--report"])
        .arg(&report)
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let json = report_json(&report);
    let run = &json["runs"][0];
    let questions = run["debates"].as_array().unwrap();
    assert!(questions.len() >= 34, "the fourteen first questions and twenty of the shapes of question at least");
    assert_eq!(run["totals"]["completed"], questions.len(), "{stderr}");
    assert_eq!(run["judged_by_a_model"], false);
    assert!(questions.iter().all(|q| q["rounds"] == 1), "-r 1 for every question");
    let domains: std::collections::BTreeSet<&str> = questions.iter().filter_map(|q| q["domain"].as_str()).collect();
    assert!(domains.len() >= 8, "the catalog's domains: {domains:?}");
    assert!(questions.iter().all(|q| q["scores"].as_object().unwrap().len() == 5), "every record scored");
    // Read one to one, the reader weighs every option a reviewer expects, offline.
    for q in questions {
        let expected = q["expected_options"].as_array().unwrap();
        assert!(!expected.is_empty(), "every question says what it expects: {q}");
        assert_eq!(
            &q["weighed_options"], &q["expected_options"],
            "{}: debated {}",
            q["question"], q["debated_options"]
        );
    }
    assert_eq!(run["totals"]["weighed_options"], run["totals"]["expected_options"]);
    let markdown = std::fs::read_to_string(&report).unwrap();
    let row = format!("| offline | {n}/{n} |", n = questions.len());
    assert!(markdown.contains(&row), "{markdown}");
    assert!(markdown.contains("not a model's judgement"), "{markdown}");
    assert_eq!(text(&out.stdout), format!("{}\n{}\n", report.display(), report.with_extension("json").display()));
    assert!(stderr.contains(&format!("[{n}/{n}] offline · ", n = questions.len())), "a line per debate: {stderr}");
    assert!(sandbox.records().is_empty() && !sandbox.db().exists(), "the debates stayed in their throwaway places");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_model_debates_the_suite_in_turn_and_the_report_compares_them() {
    let mock = MockLlm::start().await;
    let sandbox = Sandbox::new();
    let config = sandbox.openai_compatible(&mock.base_url(), "", "");
    write(&sandbox.home, "suite/notes.md", "We run Postgres 15 and nobody has run Redis.\n");
    write(
        &sandbox.home,
        "suite/suite.yaml",
        "questions:\n  - question: Should we use Redis or Postgres for caching?\n    domain: data\n    context: [notes.md]\n    options: [Redis, Postgres]\n    chosen: Postgres\n  - question: Kafka or RabbitMQ for the order events?\n    options: [Kafka, RabbitMQ]\n",
    );
    let report = sandbox.home.join("compared.md");
    let mut cmd = sandbox.std_cmd();
    cmd.arg("--config")
        .arg(&config)
        .args(["eval", "--suite", "suite/suite.yaml", "--models", "mock-model,other-model", "-r", "1", "--report"])
        .arg(&report)
        .current_dir(&sandbox.home)
        .env("DEBATE_TEST_KEY", "sk-test-suite");
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap()).await.unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let models: Vec<String> =
        mock.requests().iter().filter_map(|r| r["body"]["model"].as_str().map(str::to_string)).collect();
    assert!(models.iter().any(|m| m == "other-model") && models.iter().any(|m| m == "mock-model"), "{models:?}");
    let read_context = mock.requests().iter().any(|r| r.to_string().contains("nobody has run Redis"));
    assert!(read_context, "the question's context file is what the debaters read");
    let json = report_json(&report);
    let runs: Vec<&str> = json["runs"].as_array().unwrap().iter().map(|r| r["model"].as_str().unwrap()).collect();
    assert_eq!(runs, ["mock-model", "other-model"]);
    for run in json["runs"].as_array().unwrap() {
        assert_eq!(run["totals"]["completed"], 2, "{run}");
        assert_eq!(run["judged_by_a_model"], true, "{run}");
        assert_eq!(run["totals"]["team_choices"], 1, "{run}");
        assert!(run["totals"]["tokens"]["prompt_tokens"].as_u64().unwrap() > 0, "{run}");
        assert_eq!(run["debates"][0]["scores"]["context"], 7.0, "the mock evaluator's mark: {run}");
    }
    let markdown = std::fs::read_to_string(&report).unwrap();
    assert!(markdown.contains("| mock-model | 2/2 |") && markdown.contains("| other-model | 2/2 |"), "{markdown}");
}

#[test]
fn a_bad_suite_is_refused_with_its_place_before_anything_runs() {
    let sandbox = Sandbox::new();
    for (yaml, said) in [
        ("questions:\n  - question: X or Y?\n    choice: X\n", "suite.yaml:3:"),
        ("questions: []\n", "`questions` is empty"),
        ("questions:\n  - question: X or Y?\n    context: [missing.md]\n", "missing.md: it is not there"),
    ] {
        write(&sandbox.repo, "suite.yaml", yaml);
        let out = sandbox.cmd().args(["eval", "--suite", "suite.yaml", "--offline"]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{yaml}: {}", text(&out.stderr));
        assert!(text(&out.stderr).contains(said), "{yaml}: {}", text(&out.stderr));
    }
    let out = sandbox.cmd().args(["eval", "--suite", "nowhere.yaml", "--offline"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let out = sandbox.cmd().args(["eval", "DEB-abc123", "--models", "m"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "--models goes with --suite: {}", text(&out.stderr));
    assert!(!sandbox.repo.join("eval-report.md").exists() && !sandbox.db().exists());
}

/// A suite is as untrusted as a cloned repository's files: a context file outside its
/// folder (by `..`, an absolute path, `~` or a link) or a hidden or secret one is refused
/// before any model call, and its contents go nowhere.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_suites_context_file_outside_its_folder_is_refused_before_any_call() {
    let mock = MockLlm::start().await;
    let sandbox = Sandbox::new();
    let config = sandbox.openai_compatible(&mock.base_url(), "", "");
    let secret = "SECRET-LINE-7f3a: the outside file's words";
    let outside = sandbox.home.join("notes.txt");
    std::fs::write(&outside, secret).unwrap();
    std::fs::create_dir_all(sandbox.home.join(".ssh")).unwrap();
    std::fs::write(sandbox.home.join(".ssh/id_rsa"), secret).unwrap();
    let suites = sandbox.repo.join("suites");
    std::fs::create_dir_all(&suites).unwrap();
    std::os::unix::fs::symlink(&outside, suites.join("linked.md")).unwrap();
    std::os::unix::fs::symlink(&sandbox.home, suites.join("home")).unwrap();
    std::fs::write(suites.join(".env"), secret).unwrap();
    std::fs::write(suites.join("id_rsa"), secret).unwrap();
    for named in [
        "../../home/notes.txt".to_string(),
        outside.display().to_string(),
        "~/.ssh/id_rsa".into(),
        "linked.md".into(),
        "home/notes.txt".into(),
        ".env".into(),
        "id_rsa".into(),
    ] {
        let yaml = format!("questions:\n  - question: Redis or Postgres?\n    context: [\"{named}\"]\n");
        std::fs::write(suites.join("suite.yaml"), yaml).unwrap();
        let mut cmd = sandbox.std_cmd();
        cmd.arg("--config").arg(&config).args(["eval", "--suite", "suites/suite.yaml"]).env("DEBATE_TEST_KEY", "k");
        let out = tokio::task::spawn_blocking(move || cmd.output().unwrap()).await.unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{named}: {stderr}");
        assert!(stderr.contains("context file"), "{named}: {stderr}");
        assert!(!stderr.contains("SECRET-LINE"), "{named}: {stderr}");
        assert!(mock.requests().is_empty(), "{named}: no model was called");
    }
    assert!(!sandbox.repo.join("eval-report.md").exists());
}

/// Ctrl-C (or SIGTERM) stops a suite as it stops a debate: at once, with the signal's
/// exit code, no call sent after it, and the scratch directory gone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signal_stops_a_suite_and_nothing_is_sent_after_it() {
    for signal_name in ["INT", "TERM"] {
        // The evaluators are slow: the signal comes while a record is being scored,
        // between two debates, where no debate's own handling hears it.
        let mock = MockLlm::with_rule(|body, _| {
            let scoring = llm::prompt_of(body).contains(llm::RUBRIC);
            let delay = std::time::Duration::from_millis(if scoring { 400 } else { 0 });
            Some(llm::ok(body, &llm::reply(body)).set_delay(delay))
        })
        .await;
        let sandbox = Sandbox::new();
        let config = sandbox.openai_compatible(&mock.base_url(), "", "");
        let scratch = sandbox.home.join("tmp");
        std::fs::create_dir_all(&scratch).unwrap();
        let questions: String =
            (0..6).map(|n| format!("  - question: Should service {n} use Redis or Postgres?\n")).collect();
        write(&sandbox.repo, "suite.yaml", &format!("questions:\n{questions}"));
        let mut cmd = sandbox.std_cmd();
        cmd.arg("--config").arg(&config).args(["eval", "--suite", "suite.yaml"]);
        cmd.env("DEBATE_TEST_KEY", "k").env("TMPDIR", &scratch).stdout(std::process::Stdio::null());
        let child = cmd.stderr(std::process::Stdio::piped()).spawn().unwrap();
        let scoring = || mock.requests().iter().any(|r| llm::prompt_of(&r["body"]).contains(llm::RUBRIC));
        wait_for_async("the suite to score a record", async || scoring()).await;
        signal(child.id(), signal_name);
        let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap()).await.unwrap();
        let expected = if signal_name == "INT" { 130 } else { 143 };
        assert_eq!(out.status.code(), Some(expected), "{signal_name}: {}", text(&out.stderr));
        let sent = mock.requests().len();
        tokio::time::sleep(std::time::Duration::from_millis(800)).await;
        assert_eq!(mock.requests().len(), sent, "{signal_name}: no call after the process ended");
        assert_eq!(std::fs::read_dir(&scratch).unwrap().count(), 0, "{signal_name}: the scratch directory is gone");
        assert!(!sandbox.repo.join("eval-report.md").exists());
    }
}

/// An offline suite never waits on a server, and still stops at Ctrl-C: promptly, its
/// scratch directory gone, even with thousands of questions still to go.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_stops_a_long_offline_suite_promptly() {
    let sandbox = Sandbox::new();
    let scratch = sandbox.home.join("tmp");
    std::fs::create_dir_all(&scratch).unwrap();
    let questions: String =
        (0..3_000).map(|n| format!("  - question: Should service {n} use Redis or Postgres?\n")).collect();
    write(&sandbox.repo, "suite.yaml", &format!("questions:\n{questions}"));
    let mut cmd = sandbox.std_cmd();
    cmd.args(["eval", "--suite", "suite.yaml", "--offline", "-r", "1"]);
    cmd.env("TMPDIR", &scratch).stdout(std::process::Stdio::null()).stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    // Under way: its scratch directory holds a debate's repository.
    wait_for("the suite to debate", || {
        std::fs::read_dir(&scratch).unwrap().flatten().any(|dir| dir.path().join("m0-q0").exists())
    });
    signal(child.id(), "INT");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!("the suite went on for 15 s after Ctrl-C");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(130));
    assert_eq!(std::fs::read_dir(&scratch).unwrap().count(), 0, "the scratch directory is gone");
}

const TWO_QUESTIONS: &str = "questions:\n  - question: Should we use Redis or Postgres for caching?\n    options: [Redis, Postgres]\n    chosen: Postgres\n  - question: Kafka or RabbitMQ for the order events?\n    options: [Kafka, RabbitMQ]\n";

#[test]
fn a_single_answer_baseline_is_written_and_scored_beside_each_debate_offline() {
    let sandbox = Sandbox::new();
    write(&sandbox.home, "suite.yaml", TWO_QUESTIONS);
    let report = sandbox.home.join("baseline.md");
    let out = sandbox
        .cmd()
        .args(["eval", "--suite", "suite.yaml", "--offline", "-r", "1", "--baseline", "single", "--report"])
        .arg(&report)
        .current_dir(&sandbox.home)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let json = report_json(&report);
    assert_eq!(json["baseline"], "single");
    let run = &json["runs"][0];
    for debate in run["debates"].as_array().unwrap() {
        let baseline = &debate["baseline"];
        assert_eq!(baseline["completed"], true, "{baseline}");
        assert_eq!(baseline["votes"].as_array().unwrap().len(), 1, "one answer: {baseline}");
        assert_eq!(baseline["scores"].as_object().unwrap().len(), 5, "scored as the debate was: {baseline}");
        assert_eq!(baseline["winners"].as_object().unwrap().len(), 5, "every criterion compared: {baseline}");
        let spent = |d: &Value| {
            d["tokens"]["prompt_tokens"].as_u64().unwrap() + d["tokens"]["completion_tokens"].as_u64().unwrap()
        };
        assert!(spent(baseline) > 0 && spent(baseline) < spent(debate), "one call costs less than a debate: {debate}");
    }
    let totals = &run["baseline"];
    assert_eq!(totals["completed"], 2, "{totals}");
    let wins = totals["wins"]["decision"].clone();
    let counted = ["debate", "baseline", "tie"].iter().map(|k| wins[k].as_u64().unwrap()).sum::<u64>();
    assert_eq!(counted, 2, "each question's decision won by one side or tied: {wins}");
    let markdown = std::fs::read_to_string(&report).unwrap();
    assert!(markdown.contains("## Debate against one answer of the same model (`single`)"), "{markdown}");
    assert!(markdown.contains("Without a debate:"), "{markdown}");
    assert!(!markdown.contains("judged by the debaters' own model family"), "offline marks are no model's: {markdown}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_vote_baseline_against_a_stand_in_server_samples_within_the_debates_tokens() {
    let mock = MockLlm::start().await;
    let sandbox = Sandbox::new();
    let config = sandbox.openai_compatible(&mock.base_url(), "", "");
    write(&sandbox.home, "suite.yaml", TWO_QUESTIONS);
    let report = sandbox.home.join("vote.md");
    let mut cmd = sandbox.std_cmd();
    cmd.arg("--config")
        .arg(&config)
        .args(["eval", "--suite", "suite.yaml", "-r", "1", "--baseline", "vote", "--report"])
        .arg(&report)
        .current_dir(&sandbox.home)
        .env("DEBATE_TEST_KEY", "sk-test-suite");
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap()).await.unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let json = report_json(&report);
    assert_eq!(json["baseline"], "vote");
    let run = &json["runs"][0];
    let asked = mock.requests().iter().filter(|r| llm::prompt_of(&r["body"]).contains(llm::SINGLE_ANSWER)).count();
    let mut votes = 0;
    // The stand-in always answers Postgres: an option of the first question only.
    for (debate, chosen) in run["debates"].as_array().unwrap().iter().zip([json!("Postgres"), Value::Null]) {
        let baseline = &debate["baseline"];
        let cast = baseline["votes"].as_array().unwrap();
        assert!(cast.len() % 2 == 1 && cast.len() <= 9, "an odd vote, bounded: {baseline}");
        assert!(cast.iter().all(|v| *v == chosen), "the stand-in's answer: {baseline}");
        assert_eq!(baseline["chosen_option"], chosen);
        let spent = |d: &Value| {
            d["tokens"]["prompt_tokens"].as_u64().unwrap() + d["tokens"]["completion_tokens"].as_u64().unwrap()
        };
        assert!(spent(baseline) <= spent(debate), "within the debate's tokens: {debate}");
        votes += cast.len();
    }
    assert_eq!(asked, votes, "every vote is one request to the server");
    assert!(votes > 2, "the debate's tokens pay for more than one answer");
    assert_eq!(run["debates"][0]["baseline"]["matches_team"], true);
    assert_eq!(run["judged_by_its_family"], true, "each debate's moderator judged");
    let markdown = std::fs::read_to_string(&report).unwrap();
    assert!(markdown.contains("judged by the debaters' own model family"), "{markdown}");
    assert!(markdown.contains("`--evaluators`"), "{markdown}");
}
