//! The binary against a local OpenAI-compatible server over real HTTP: a full debate,
//! token accounting, failures that pause and resume, degraded servers, and the key
//! never leaking anywhere.

use std::process::Output;

use crate::common::llm::{self, MockLlm, prompt_of};
use crate::common::*;
use serde_json::{Value, json};
use wiremock::ResponseTemplate;

const KEY: &str = "sk-live-DISTINCTIVE-key-9f8e7d6c5b4a";

/// Run the binary to its end off the async runtime (the mock server keeps serving).
async fn run(sandbox: &Sandbox, config: &std::path::Path, args: &[&str]) -> Output {
    let mut cmd = sandbox.std_cmd();
    cmd.arg("--config").arg(config).args(args).env("DEBATE_TEST_KEY", KEY);
    tokio::task::spawn_blocking(move || cmd.output().expect("debate runs")).await.unwrap()
}

fn identity(sandbox: &Sandbox) {
    git(&sandbox.repo, &["config", "user.name", "Test"]);
    git(&sandbox.repo, &["config", "user.email", "test@example.com"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_three_perspective_debate_completes_records_tokens_and_commits() {
    let mock = MockLlm::start().await;
    let sandbox = Sandbox::new();
    identity(&sandbox);
    let config = sandbox.openai_compatible(&mock.base_url(), "", "");
    let out = run(&sandbox, &config, &["-p", "3", "-r", "2", "--json", QUESTION]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let result: Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    assert_eq!(result["status"], "complete");

    let requests = mock.requests();
    // analysis + 2 rounds × (3 arguments + 3 rebuttals) + round 1's evaluation + the
    // synthesis (which judges round 2)
    assert_eq!(requests.len(), 15, "one HTTP request per call");
    for r in &requests {
        assert_eq!(r["authorization"], format!("Bearer {KEY}"));
        assert_eq!(r["body"]["model"], "mock-model");
    }
    let n = requests.len() as u64;
    assert_eq!(result["tokens"]["prompt"], n * llm::PROMPT_TOKENS, "the server's usage is what is recorded");
    assert_eq!(result["tokens"]["completion"], n * llm::COMPLETION_TOKENS);
    assert_eq!(result["tokens"]["cached"], n * llm::CACHED_TOKENS, "cached prompt tokens are read and kept");

    let listed = sandbox.cmd().args(["--list", "--json"]).assert().success().get_output().stdout.clone();
    let listed: Value = serde_json::from_slice(&listed).unwrap();
    assert_eq!(listed[0]["tokens"]["prompt"], n * llm::PROMPT_TOKENS);
    assert_eq!(listed[0]["tokens"]["cached"], n * llm::CACHED_TOKENS);
    let record = std::fs::read_to_string(result["record_path"].as_str().unwrap()).unwrap();
    let tokens = format!("tokens: {{prompt: {}, cached: {}, completion: {}}}", n * 100, n * 64, n * 40);
    assert!(record.contains(&tokens), "{record}");
    let shown =
        String::from_utf8(sandbox.cmd().args(["--show", result["id"].as_str().unwrap()]).output().unwrap().stdout)
            .unwrap();
    assert!(shown.contains(&format!("{} prompt ({} of them cached)", n * 100, n * 64)), "{shown}");
    assert!(record.contains("models: [mock-model]"), "{record}");
    let log = git(&sandbox.repo, &["log", "--format=%B", "-1"]);
    assert!(log.contains(&format!("Debate-Id: {}", result["id"].as_str().unwrap())), "{log}");
    // Debater calls carry a limit that follows the length asked; moderator calls ask for
    // structured output.
    let argument = requests.iter().find(|r| prompt_of(&r["body"]).contains("Write your round-1 argument")).unwrap();
    assert_eq!(argument["body"]["max_tokens"], 675);
    assert!(argument["body"]["response_format"].is_null());
    let evaluation = requests.iter().find(|r| prompt_of(&r["body"]).contains("Evaluate round 1")).unwrap();
    assert_eq!(evaluation["body"]["response_format"]["type"], "json_schema");
    assert_eq!(argument["body"]["stream"], true, "every call streams, with or without a terminal");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_keeps_failing_pauses_the_debate_and_resume_finishes_it() {
    // Round 2 arguments fail with 503 until the server "recovers".
    let healthy = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = healthy.clone();
    let mock = MockLlm::with_rule(move |body, _| {
        let failing =
            !flag.load(std::sync::atomic::Ordering::SeqCst) && prompt_of(body).contains("Write your round-2 argument");
        failing.then(|| ResponseTemplate::new(503).set_body_string("overloaded"))
    })
    .await;
    let sandbox = Sandbox::new();
    let config = sandbox.openai_compatible(&mock.base_url(), ", max_retries: 1", "");
    let out = run(&sandbox, &config, &["-r", "2", QUESTION]).await;
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    let id = sandbox.only_id();
    assert!(stderr.contains("HTTP 503") && stderr.contains(&format!("debate resume {id}")), "{stderr}");
    assert!(stderr.lines().filter(|l| !l.trim().is_empty()).count() > 2, "progress precedes the error");
    assert_eq!(sandbox.show(&id)["status"], "paused");
    let failed_attempts =
        mock.requests().iter().filter(|r| prompt_of(&r["body"]).contains("Write your round-2 argument")).count();
    assert_eq!(failed_attempts, 4, "two debaters × (1 try + 1 retry)");

    healthy.store(true, std::sync::atomic::Ordering::SeqCst);
    let before = mock.requests().len();
    let out = run(&sandbox, &config, &["--resume", &id]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    // Round 2: 2 arguments, 2 rebuttals; then the synthesis. Nothing from round 1 again.
    assert_eq!(mock.requests().len() - before, 5);
    assert_eq!(sandbox.records().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rejected_key_is_not_retried_and_the_message_names_the_variable_not_the_key() {
    let mock = MockLlm::with_rule(|_, _| {
        // Servers that echo what they got must not leak the key through us.
        Some(
            ResponseTemplate::new(401)
                .set_body_json(json!({"error": {"message": format!("Incorrect API key provided: {KEY}")}})),
        )
    })
    .await;
    let sandbox = Sandbox::new();
    let config = sandbox.openai_compatible(&mock.base_url(), "", "");
    let out = run(&sandbox, &config, &[QUESTION]).await;
    assert_eq!(out.status.code(), Some(3));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("DEBATE_TEST_KEY") && stderr.contains("401"), "{stderr}");
    assert!(!stderr.contains(KEY) && !text(&out.stdout).contains(KEY), "{stderr}");
    assert_eq!(mock.requests().len(), 1, "401 is not retried");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_without_json_schema_support_is_downgraded_once_and_the_debate_completes() {
    let mock = MockLlm::with_rule(|body, _| {
        (body["response_format"]["type"] == "json_schema").then(|| {
            ResponseTemplate::new(400).set_body_json(
                json!({"error": {"message": "response_format json_schema is not supported by this server"}}),
            )
        })
    })
    .await;
    let sandbox = Sandbox::new();
    let config = sandbox.openai_compatible(&mock.base_url(), "", "");
    let out = run(&sandbox, &config, &["-r", "2", QUESTION]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let formats: Vec<Value> =
        mock.requests().iter().map(|r| r["body"]["response_format"]["type"].clone()).filter(|t| !t.is_null()).collect();
    assert_eq!(formats[0], "json_schema");
    assert!(formats[1..].iter().all(|t| t == "json_object"), "the downgrade is remembered: {formats:?}");
    assert_eq!(formats.iter().filter(|t| **t == "json_schema").count(), 1);
    assert_eq!(sandbox.records().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_context_length_error_is_retried_once_with_a_shorter_prompt() {
    // Long round-1 answers make the round-2 prompts too long at normal size.
    let mock = MockLlm::with_rule(|body, _| {
        let prompt = prompt_of(body);
        if prompt.contains("Write your round-1 argument") {
            return Some(llm::ok(body, &fresh_words(&prompt, 600)));
        }
        (prompt.len() > 8_000).then(|| {
            ResponseTemplate::new(400).set_body_json(
                json!({"error": {"message": "This model's maximum context length is 4096 tokens", "code": "context_length_exceeded"}}),
            )
        })
    })
    .await;
    let sandbox = Sandbox::new();
    let config = sandbox.openai_compatible(&mock.base_url(), "", "");
    let out = run(&sandbox, &config, &["-r", "2", QUESTION]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let round2: Vec<usize> = mock
        .requests()
        .iter()
        .map(|r| prompt_of(&r["body"]))
        .filter(|p| p.contains("Write your round-2 argument"))
        .map(|p| p.len())
        .collect();
    assert_eq!(round2.len(), 4, "each round-2 argument: one too long, one compact: {round2:?}");
    assert!(round2.iter().filter(|l| **l > 8_000).count() == 2 && round2.iter().filter(|l| **l <= 8_000).count() == 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_debater_that_keeps_failing_is_dropped_when_two_remain() {
    let mock = MockLlm::with_rule(|body, _| {
        let prompt = prompt_of(body);
        let mine = prompt.contains("as Cost Control") || prompt.contains("\"Cost Control\": a viewpoint");
        mine.then(|| ResponseTemplate::new(500).set_body_string("upstream exploded"))
    })
    .await;
    let sandbox = Sandbox::new();
    let config = sandbox.openai_compatible(&mock.base_url(), ", max_retries: 0", "");
    let out = run(
        &sandbox,
        &config,
        &[
            "-p",
            "3",
            "--with",
            "Performance Advocate",
            "--with",
            "Operational Simplicity",
            "--with",
            "Cost Control",
            "-r",
            "2",
            QUESTION,
        ],
    )
    .await;
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("Cost Control leaves the panel"), "{stderr}");
    let record = std::fs::read_to_string(&sandbox.records()[0]).unwrap();
    assert!(record.contains("Cost Control was dropped from the panel: its argument in round 1 failed"), "{record}");
    assert!(record.contains("confidence: Low"), "max rounds → Low, and a drop cannot raise it: {record}");
    let panel = sandbox.shown()["panel"].clone();
    let seat =
        panel.as_array().unwrap().iter().find(|seat| seat["perspective"] == "Cost Control").expect("on the panel");
    assert!(seat["dropped"].as_str().is_some_and(|why| why.contains("HTTP 500")), "{seat}");
    let later = mock
        .requests()
        .iter()
        .filter(|r| prompt_of(&r["body"]).contains("Write your round-2 argument as Cost Control"))
        .count();
    assert_eq!(later, 0, "a dropped debater is not asked again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_key_appears_nowhere_the_tool_writes() {
    let mock = MockLlm::with_rule(|body, n| {
        // One failure that echoes the key, then normal answers.
        (n == 1).then(|| {
            ResponseTemplate::new(500)
                .set_body_string(format!("echo: Authorization: Bearer {KEY} body={}", body["model"]))
        })
    })
    .await;
    let sandbox = Sandbox::new();
    let config = sandbox.openai_compatible(&mock.base_url(), ", max_retries: 2", "");
    let out = run(&sandbox, &config, &["-v", "--issue", "-r", "1", QUESTION]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let id = sandbox.only_id();
    let shown = sandbox.cmd().args(["--show", &id, "--json"]).assert().success().get_output().stdout.clone();
    let listed = sandbox.cmd().args(["--list", "--json"]).assert().success().get_output().stdout.clone();
    for (what, bytes) in
        [("stdout", out.stdout.clone()), ("stderr", out.stderr.clone()), ("--show", shown), ("--list", listed)]
    {
        assert!(!text(&bytes).contains(KEY), "the key leaked into {what}");
    }
    let files = sandbox.files();
    assert!(files.keys().any(|p| p.ends_with("debates.sqlite3")));
    for (path, bytes) in files {
        let needle = KEY.as_bytes();
        assert!(!bytes.windows(needle.len()).any(|w| w == needle), "the key leaked into {}", path.display());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_terminal_debaters_stream_in_panel_order_without_interleaving() {
    let mock = MockLlm::start().await;
    let sandbox = Sandbox::new();
    let config = sandbox.openai_compatible(&mock.base_url(), "", "");
    let mut cmd = sandbox.std_cmd();
    cmd.arg("--config").arg(&config).args(["-r", "1", "--no-checkpoints", QUESTION]);
    cmd.env("DEBATE_TEST_KEY", KEY).env("NO_COLOR", "1").env("TERM", "xterm-256color");
    // What each debater's live section shows, between its header and its ✓ line.
    let sections = tokio::task::spawn_blocking(move || {
        let mut p = rexpect::session::spawn_command(cmd, Some(30_000)).expect("pty");
        let mut sections = Vec::new();
        // rexpect reads bytes as Latin-1: the needles stay ASCII.
        for name in PANEL {
            p.exp_string(&format!("{name} (argument)")).expect("a header per debater");
            let section = p.exp_string(&format!("{name}: argument (")).expect("its text, then its done line");
            // Up to the header line's end, and without the done line's mark.
            let section = section.split_once('\n').map_or("", |(_, rest)| rest);
            sections.push(section.rsplit_once('\n').map_or(section, |(text, _)| text).to_string());
        }
        p.exp_string("is complete").expect("the debate finishes");
        sections
    })
    .await
    .unwrap();
    let requests = mock.requests();
    let words = |text: &str| text.split_whitespace().map(str::to_string).collect::<Vec<_>>();
    for (name, section) in PANEL.iter().zip(&sections) {
        let request =
            requests.iter().find(|r| prompt_of(&r["body"]).contains(&format!("round-1 argument as {name}"))).unwrap();
        let answer = format!("From my perspective {}", fresh_words(&prompt_of(&request["body"]), 50));
        assert_eq!(words(section), words(&answer), "{name}'s section holds exactly its own streamed answer");
    }
    // Every call streams (a slow model is then never taken for a dead one), structured
    // ones too; only the debaters' text is shown.
    assert!(requests.iter().all(|r| r["body"]["stream"] == true), "every call streams");
}

#[test]
fn an_unreadable_structured_answer_is_asked_for_once_more_with_a_stricter_instruction_and_later_ones_strictly_at_once()
{
    let sandbox = Sandbox::new();
    let answers = varied_answers(&PANEL, 1, AGREE).replacen(
        "answers:\n",
        &format!(
            "answers:\n  - {{purpose: evaluation, text: \"Sure! They agree.\"}}\n  - {{purpose: evaluation, contains: \"could not be read\", text: '{AGREE}'}}\n"
        ),
        1,
    );
    // The plain evaluation entry in varied_answers must not win over the prose one.
    let answers = answers
        .lines()
        .filter(|l| !l.contains(&format!("text: '{AGREE}'}}")) || l.contains("contains"))
        .collect::<Vec<_>>()
        .join("\n");
    let config = sandbox.scripted(&answers);
    sandbox.cmd().arg("--config").arg(&config).arg(QUESTION).assert().success();
    let evaluations: Vec<Value> = sandbox.prompts().into_iter().filter(|p| p["purpose"] == "evaluation").collect();
    assert_eq!(evaluations.len(), 2);
    assert!(evaluations[1]["prompt"].as_str().unwrap().contains("could not be read as the JSON object"));
    // Not asked the same way again: the synthesis is asked strictly at once, and once.
    let syntheses: Vec<Value> = sandbox.prompts().into_iter().filter(|p| p["purpose"] == "synthesis").collect();
    assert_eq!(syntheses.len(), 1);
    let prompt = syntheses[0]["prompt"].as_str().unwrap();
    assert!(prompt.ends_with("Answer with only that JSON object: no prose, no code fences, no comments."), "{prompt}");
    let record = std::fs::read_to_string(&sandbox.records()[0]).unwrap();
    assert!(record.contains("ended_by: agreement") && !record.contains("was unreadable"), "{record}");
}

/// A panel of three where Cost Control's round-1 rebuttal is refused with HTTP 400
/// `times` times.
async fn rebuttal_refused(times: usize) -> (Sandbox, Output, MockLlm) {
    let refused = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mock = MockLlm::with_rule(move |body, _| {
        let prompt = prompt_of(body);
        let mine = prompt.contains("Write your round-1 rebuttal as Cost Control");
        (mine && refused.fetch_add(1, std::sync::atomic::Ordering::SeqCst) < times).then(|| {
            ResponseTemplate::new(400).set_body_json(json!({"error": {"message": "Invalid request: unexpected token"}}))
        })
    })
    .await;
    let sandbox = Sandbox::new();
    let config = sandbox.openai_compatible(&mock.base_url(), ", max_retries: 0", "");
    let panel = ["--with", "Performance Advocate", "--with", "Operational Simplicity", "--with", "Cost Control"];
    let mut args = vec!["-p", "3", "-r", "1", "--no-commit"];
    args.extend(panel);
    args.push(QUESTION);
    let out = run(&sandbox, &config, &args).await;
    (sandbox, out, mock)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_refused_call_is_tried_again_with_a_shorter_prompt_and_nobody_leaves() {
    let (sandbox, out, mock) = rebuttal_refused(1).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!text(&out.stderr).contains("leaves the panel"), "{}", text(&out.stderr));
    let panel = sandbox.shown()["panel"].clone();
    assert!(panel.as_array().unwrap().iter().all(|seat| seat["dropped"].is_null()), "{panel}");
    let tries = mock.requests().iter().filter(|r| prompt_of(&r["body"]).contains("rebuttal as Cost Control")).count();
    assert_eq!(tries, 2, "once refused, once more with a shorter prompt");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_debater_refused_twice_leaves_and_the_record_says_exactly_why() {
    let (sandbox, out, _) = rebuttal_refused(2).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let record = std::fs::read_to_string(&sandbox.records()[0]).unwrap();
    assert!(
        record.contains("Cost Control was dropped from the panel: its rebuttal in round 1 failed: mock: the request was rejected (HTTP 400): Invalid request: unexpected token (twice; the second try had a shorter prompt)"),
        "{record}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_offline_moderator_is_named_as_such_and_the_model_written_arguments_are_not() {
    let mock = MockLlm::start().await;
    let sandbox = Sandbox::new();
    identity(&sandbox);
    let config = sandbox.openai_compatible(&mock.base_url(), "", "");
    let text_of = std::fs::read_to_string(&config).unwrap() + "roles:\n  moderator: {provider: offline}\n";
    std::fs::write(&config, text_of).unwrap();
    let out = run(&sandbox, &config, &["-r", "1", QUESTION]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let record = std::fs::read_to_string(&sandbox.records()[0]).unwrap();
    assert!(
        record.contains("> **Offline debate.** The moderator's summaries and synthesis in this record were composed"),
        "{record}"
    );
    assert!(record.contains("The moderator's judgements came from the offline provider"), "{record}");
    assert!(!record.contains("debaters' arguments came from"), "the arguments came from the model:\n{record}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_cut_off_at_the_limit_is_asked_again_and_never_stored_as_whole() {
    // Performance Advocate's first answers are cut off, its second ones whole;
    // Operational Simplicity's round-1 argument is cut off however it is asked.
    let mock = MockLlm::with_rule(|body, _| {
        let prompt = prompt_of(body);
        let again = prompt.contains("cut off at the length limit");
        let first_of_performance = prompt.contains("round-1 argument as Performance Advocate") && !again;
        let simplicity_argument = prompt.contains("Write your round-1 argument as Operational Simplicity");
        (first_of_performance || simplicity_argument).then(|| llm::cut_off(body, "A thought that stops in the"))
    })
    .await;
    let sandbox = Sandbox::new();
    identity(&sandbox);
    let config = sandbox.openai_compatible(&mock.base_url(), "", "");
    let out = run(&sandbox, &config, &["-r", "1", QUESTION]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let transcript = sandbox.shown()["transcript"].clone();
    let stored: Vec<&serde_json::Value> = transcript
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|round| [&round["arguments"], &round["rebuttals"]])
        .flat_map(|kind| kind.as_array().unwrap())
        .collect();
    let truncated: Vec<_> = stored
        .iter()
        .filter(|c| c["truncated"] == true)
        .map(|c| format!("{} {}", c["perspective"].as_str().unwrap(), c["kind"].as_str().unwrap()))
        .collect();
    assert_eq!(truncated, ["Operational Simplicity argument"], "{transcript}");
    let asked_again =
        mock.requests().iter().filter(|r| prompt_of(&r["body"]).contains("cut off at the length limit")).count();
    assert_eq!(asked_again, 2, "each cut-off answer was asked for once more");

    let shown = String::from_utf8(sandbox.cmd().args(["--show", &sandbox.only_id()]).output().unwrap().stdout).unwrap();
    assert!(shown.contains("[Operational Simplicity — argument (cut off at the length limit)]"), "{shown}");
    let record = std::fs::read_to_string(&sandbox.records()[0]).unwrap();
    assert!(
        record.contains("Operational Simplicity's round-1 argument was cut off at the model's length limit"),
        "{record}"
    );
}

/// A server that names the model it was asked for, as a real one does.
async fn naming_its_model() -> MockLlm {
    MockLlm::with_rule(|body, _| {
        let model = body["model"].as_str().unwrap_or("mock-model").to_string();
        Some(llm::ok_from(&model, body, &llm::reply(body)))
    })
    .await
}

/// `--models a,b`: the seats argue with different models in turn, the moderator keeps
/// its own, and the record and `--show --json` say which model argued which perspective.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_heterogeneous_panel_seats_its_models_in_turn_and_says_who_argued_what() {
    let mock = naming_its_model().await;
    let sandbox = Sandbox::new();
    identity(&sandbox);
    let config = sandbox.openai_compatible(&mock.base_url(), "", "");
    let out =
        run(&sandbox, &config, &["-p", "3", "-r", "1", "--models", "model-a,mock:model-b", "--json", QUESTION]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();

    let shown = sandbox.cmd().args(["--show", result["id"].as_str().unwrap(), "--json"]).output().unwrap();
    let shown: Value = serde_json::from_slice(&shown.stdout).unwrap();
    let panel = shown["panel"].as_array().unwrap();
    let seats: Vec<&str> = panel.iter().map(|s| s["debater"]["model"].as_str().unwrap()).collect();
    assert_eq!(seats, ["model-a", "model-b", "model-a"], "handed out in turn");
    for contribution in shown["transcript"][0]["arguments"].as_array().unwrap() {
        let seat = panel.iter().position(|s| s["perspective"] == contribution["perspective"]).unwrap();
        assert_eq!(contribution["model"], seats[seat], "{contribution}");
    }
    for request in mock.requests() {
        let prompt = prompt_of(&request["body"]);
        let moderator =
            ["First name the options", "Evaluate round", "Write the synthesis"].iter().any(|p| prompt.contains(p));
        if moderator {
            assert_eq!(request["body"]["model"], "mock-model", "the moderator keeps the provider's model");
        }
    }
    let record = std::fs::read_to_string(result["record_path"].as_str().unwrap()).unwrap();
    assert_eq!(record.matches("*Argued by:* model-a").count(), 2, "{record}");
    assert_eq!(record.matches("*Argued by:* model-b").count(), 1, "{record}");
}

/// One model moderates: a list of moderator models is a setup error before any call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moderator_models_are_refused_before_any_call() {
    let mock = MockLlm::start().await;
    let sandbox = Sandbox::new();
    let config = sandbox.openai_compatible(&mock.base_url(), "", "");
    let settings = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("{settings}roles:\n  moderator:\n    models: [a, b]\n")).unwrap();
    let out = run(&sandbox, &config, &[QUESTION]).await;
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("roles.debater.models"), "{}", text(&out.stderr));
    assert!(mock.requests().is_empty());
}

/// The record names every model that answered, the moderator's own when it differs,
/// with each role's provider kind and temperature; `consulted` is left for people.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_record_names_the_moderators_model_when_it_differs() {
    let mock = naming_its_model().await;
    let sandbox = Sandbox::new();
    identity(&sandbox);
    let config = sandbox.openai_compatible(&mock.base_url(), "", "");
    let settings = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("{settings}roles:\n  moderator: {{model: judge-model, temperature: 0.1}}\n"))
        .unwrap();
    let out = run(&sandbox, &config, &["-r", "1", "--json", QUESTION]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    let record = std::fs::read_to_string(result["record_path"].as_str().unwrap()).unwrap();
    let front = record.split("---\n").nth(1).unwrap();
    let front: Value = serde_saphyr::from_str(front).unwrap();
    assert_eq!(front["consulted"], json!([]), "MADR's consulted means people: {record}");
    assert_eq!(front["models"], json!(["judge-model", "mock-model"]), "{record}");
    assert_eq!(front["perspectives"], json!([PANEL[0], PANEL[1]]));
    assert_eq!(front["decision-makers"], json!(["Test"]));
    assert_eq!(front["moderator"]["model"], "judge-model");
    assert_eq!(front["moderator"]["kind"], "openai");
    assert_eq!(front["moderator"]["temperature"], 0.1);
    assert_eq!(front["debaters"][0]["model"], "mock-model");
    assert!(record.contains("- Moderator: judge-model (mock, openai, temperature 0.1)."), "{record}");
}

/// A weak model: the panel's refinement is slow (it times out and the keyword panel
/// stands, asked once), and one debater answers only with the prompt's placeholders
/// (asked once more, then kept as failed, named in the record, confidence lowered).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_weak_model_fails_soft_where_it_can_and_its_weak_answers_read_as_weak() {
    let placeholders = "<your argument, in 150-300 words>\nSTANCE: <option>";
    let mock = MockLlm::with_rule(move |body, _| {
        let prompt = prompt_of(body);
        if prompt.contains("First name the options") {
            return Some(llm::ok(body, "{}").set_delay(std::time::Duration::from_secs(3)));
        }
        prompt.contains("round-1 argument as Performance Advocate").then(|| llm::ok(body, placeholders))
    })
    .await;
    let sandbox = Sandbox::new();
    identity(&sandbox);
    let config = sandbox.openai_compatible(&mock.base_url(), ", first_token_timeout_seconds: 1", "");
    let out = run(&sandbox, &config, &["-p", "2", "-r", "1", QUESTION]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));

    let requests = mock.requests();
    let analyses = requests.iter().filter(|r| prompt_of(&r["body"]).contains("First name the options")).count();
    assert_eq!(analyses, 1, "a timed-out refinement is not asked again");
    let arguments =
        requests.iter().filter(|r| prompt_of(&r["body"]).contains("round-1 argument as Performance Advocate")).count();
    assert_eq!(arguments, 2, "a placeholder answer is asked for once more");

    let record = std::fs::read_to_string(&sandbox.records()[0]).unwrap();
    assert!(record.contains("The panel is the keyword analysis's: the moderator did not answer in time"), "{record}");
    assert!(record.contains("Performance Advocate's round-1 argument said nothing of its own"), "{record}");
    let shown = sandbox.cmd().args(["--show", &sandbox.only_id(), "--json"]).output().unwrap();
    let shown: Value = serde_json::from_slice(&shown.stdout).unwrap();
    assert_ne!(shown["outcome"]["confidence"], "high", "{}", shown["outcome"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_drops_one_answer_in_three_is_retried_and_the_record_counts_it() {
    // A gateway such as LiteLLM answers a backend's failure with an empty, successful answer.
    let mock =
        MockLlm::with_rule(|body, n| (n % 3 == 2).then(|| llm::ok(body, if n % 2 == 0 { "" } else { " \n " }))).await;
    let sandbox = Sandbox::new();
    identity(&sandbox);
    let config = sandbox.openai_compatible(&mock.base_url(), "", "");
    let out = run(&sandbox, &config, &["-v", "-p", "2", "-r", "2", "--json", QUESTION]).await;
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["status"], "complete");
    let sent = mock.requests().len();
    let empty = (0..sent).filter(|n| n % 3 == 2).count();
    assert!(empty >= 3, "{sent} requests");
    let retried: Vec<&str> = stderr.lines().filter(|l| l.contains("retrying ")).collect();
    assert_eq!(retried.len(), empty, "a line per retry with -v: {stderr}");
    assert!(
        retried.iter().all(|l| l.contains("from mock: the model returned an empty answer; trying again in")),
        "{retried:?}"
    );
    assert!(
        retried.iter().any(|l| l.contains("'s round-1 argument") || l.contains("'s round-1 rebuttal")),
        "{retried:?}"
    );
    assert!(retried.iter().all(|l| l.contains("left)")), "how many tries remain: {retried:?}");
    let record = std::fs::read_to_string(result["record_path"].as_str().unwrap()).unwrap();
    let counted = format!("an empty answer): mock-model {empty}.");
    assert!(record.contains(&counted), "the retries counted per model in the provenance: {record}");
    // Without -v the retries are not shown, and the record reads back as written.
    let shown = sandbox.cmd().args(["show", result["id"].as_str().unwrap(), "--json"]).output().unwrap();
    let shown: Value = serde_json::from_slice(&shown.stdout).unwrap();
    assert_eq!(shown["models"][0]["model"], "mock-model");
    assert_eq!(shown["models"][0]["retries"], empty as u64, "{shown}");
    let shown = text(&sandbox.cmd().args(["show", result["id"].as_str().unwrap()]).output().unwrap().stdout);
    assert!(shown.contains(&format!("Retried:    {empty} tries of mock-model's calls")), "{shown}");
    // A clone that never ran it reads the record back, retries and all.
    let clone = sandbox.home.join("clone");
    git(&sandbox.home, &["clone", "-q", sandbox.repo.to_str().unwrap(), clone.to_str().unwrap()]);
    let home = sandbox.home.join("reviewer");
    std::fs::create_dir_all(&home).unwrap();
    let id = result["id"].as_str().unwrap();
    let cloned = sandbox.std_cmd_as(&clone, &home).args(["show", id, "--json"]).output().unwrap();
    assert!(cloned.status.success(), "{}", text(&cloned.stderr));
    let cloned: Value = serde_json::from_slice(&cloned.stdout).unwrap();
    assert_eq!(cloned["models"][0]["retries"], empty as u64, "{cloned}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_only_answers_empty_pauses_the_debate_and_says_a_gateway_may_have_swallowed_an_error() {
    let mock = MockLlm::with_rule(|body, _| Some(llm::ok(body, ""))).await;
    let sandbox = Sandbox::new();
    let config = sandbox.openai_compatible(&mock.base_url(), ", max_retries: 1", "");
    let out = run(&sandbox, &config, &["-r", "1", QUESTION]).await;
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("the model returned an empty answer to every try"), "{stderr}");
    assert!(stderr.contains("a gateway may have swallowed an error"), "{stderr}");
    assert!(stderr.contains("debate resume"), "{stderr}");
}
