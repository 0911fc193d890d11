//! A weak model as a laptop runs one (issue 35): an answer that goes round in circles is
//! stopped where it begins to, and one that only gives its prompt back counts as failed;
//! both are named in the record. Against a server of this machine that streams as
//! llama-cpp-python does, one word a chunk.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;
use tokio::io::AsyncWriteExt;

use crate::common::llm::{completion_body, prompt_of, reply, streamed_body};
use crate::common::*;

/// The prose before the loop, and the loop's one turn (a sentence the model then repeats).
const BEFORE: &str = "Latency matters most for the cache: Redis answers in well under a millisecond, and \
    the checkout path reads the same session twenty times a page.";
const TURN: &str = "The cache must be fast because the checkout path reads the session on every request it serves. ";

/// How the test server answers a debater's call, by what the call is.
#[derive(Clone, Copy)]
enum Answer {
    /// `BEFORE`, then `TURN` over and over, a word a chunk.
    Loops,
    /// The prompt's own part given back.
    Echoes,
    /// `BEFORE` and its stance line, then the other debater's part and more, as a small
    /// model goes on after its own.
    GoesOn,
}

/// A server on this machine that lists its model as llama-cpp-python does and streams
/// every answer a word a chunk; the round-1 argument of `perspective` is answered as
/// `answer` says. Counts the words it wrote of that answer before the client left.
async fn server(perspective: &'static str, answer: Answer) -> (String, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    let written = Arc::new(AtomicUsize::new(0));
    let count = written.clone();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let count = count.clone();
            tokio::spawn(async move {
                let Some((head, body)) = crate::providers_wire::read_request(&mut stream).await else { return };
                if head.starts_with("GET") {
                    let models = r#"{"object":"list","data":[{"id":"m","object":"model","owned_by":"me"}]}"#;
                    let reply = format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{models}",
                        models.len()
                    );
                    let _ = stream.write_all(reply.as_bytes()).await;
                    return;
                }
                let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                let prompt = prompt_of(&body);
                let ours = prompt.contains(&format!("You are the debater for \"{perspective}\""))
                    && prompt.contains("Write your round-1 argument");
                let text = match (ours, answer) {
                    (true, Answer::Loops) => format!("{BEFORE} {}", TURN.repeat(200)),
                    (true, Answer::Echoes) => prompt[prompt.find("## Your part").unwrap_or(0)..].to_string(),
                    (true, Answer::GoesOn) => format!(
                        "{BEFORE}\n{GOES_ON_STANCE}\n[Operational Simplicity — argument]\n{}",
                        fresh_words("goes on", 400)
                    ),
                    (false, _) => reply(&body),
                };
                if body["stream"] != true {
                    let json = completion_body(&text).to_string();
                    let reply = format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{json}",
                        json.len()
                    );
                    let _ = stream.write_all(reply.as_bytes()).await;
                    return;
                }
                let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
                if stream.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                // One event a word, as a server that generates token by token sends them.
                let events = streamed_body("m", &text, "stop");
                for event in events.split_inclusive("\n\n") {
                    if stream.write_all(event.as_bytes()).await.is_err() || stream.flush().await.is_err() {
                        return;
                    }
                    if ours {
                        count.fetch_add(1, Ordering::SeqCst);
                        tokio::time::sleep(std::time::Duration::from_millis(2)).await;
                    }
                }
            });
        }
    });
    (base, written)
}

fn debate(sandbox: &Sandbox, base: &str) -> std::process::Output {
    debate_rounds(sandbox, base, "1")
}

fn debate_rounds(sandbox: &Sandbox, base: &str, rounds: &str) -> std::process::Output {
    git(&sandbox.repo, &["config", "user.name", "Test"]);
    git(&sandbox.repo, &["config", "user.email", "test@example.com"]);
    let config = sandbox.openai_compatible(base, "", "");
    sandbox
        .cmd()
        .env("DEBATE_TEST_KEY", "sk-test")
        .arg("--config")
        .arg(&config)
        .args(["-p", "2", "-r", rounds, "--no-checkpoints", QUESTION])
        .output()
        .unwrap()
}

/// A debater that begins to go round in circles is stopped within 300 tokens of where
/// its loop began; what came before is its argument, marked as stopped, and named in the
/// record; it is not asked again for less.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_looping_answer_is_stopped_where_it_begins_to_loop() {
    let (base, written) = server(PANEL[0], Answer::Loops).await;
    let sandbox = Sandbox::new();
    let out = debate(&sandbox, &base);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // The loop's second turn begins after BEFORE and one turn.
    let loop_start = BEFORE.split_whitespace().count() + TURN.split_whitespace().count();
    let words = written.load(Ordering::SeqCst);
    assert!(words > loop_start, "the server got as far as the loop: {words} words");
    assert!(words - loop_start < 200, "stopped {} words (< 300 tokens) after the loop began", words - loop_start);

    let shown = sandbox.shown();
    let argument = shown["transcript"][0]["arguments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["perspective"] == PANEL[0])
        .unwrap()
        .clone();
    assert_eq!(argument["looped"], true, "{argument}");
    let kept = argument["text"].as_str().unwrap();
    assert!(kept.contains(BEFORE) && kept.matches("checkout path reads the session").count() == 1, "{kept}");
    let record = std::fs::read_to_string(&sandbox.records()[0]).unwrap();
    assert!(record.contains("stopped where it began to repeat itself"), "the transcript marks it");
    assert!(record.contains("began to repeat itself and was stopped there"), "the notes name it");
}

/// The stance line the answer that goes on states.
const GOES_ON_STANCE: &str = r#"STANCE: {"option": "Redis", "confidence": "high", "would_change_if": "a {slow} Redis", "concedes": "one more service"}"#;

/// A debater is read no further than its stance line: what a small model writes after it
/// (the other debater's part, and on) the debate never keeps, so the stream is left there,
/// and the answer is whole, not stopped for looping.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_is_read_up_to_its_stance_line_and_no_further() {
    let (base, written) = server(PANEL[0], Answer::GoesOn).await;
    let sandbox = Sandbox::new();
    let out = debate(&sandbox, &base);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stance_end = BEFORE.split_whitespace().count() + GOES_ON_STANCE.split_whitespace().count();
    let words = written.load(Ordering::SeqCst);
    assert!(words < stance_end + 100, "left {} words after the stance line, of 400", words.saturating_sub(stance_end));
    let shown = sandbox.shown();
    let arguments = shown["transcript"][0]["arguments"].as_array().unwrap();
    let argument = arguments.iter().find(|c| c["perspective"] == PANEL[0]).unwrap();
    assert_eq!(argument["text"], BEFORE, "{argument}");
    assert_eq!(argument["looped"], false, "{argument}");
    assert_eq!(argument["stance"]["option"], "Redis");
    assert_eq!(argument["stance"]["would_change_if"], "a {slow} Redis");
    let record = std::fs::read_to_string(&sandbox.records()[0]).unwrap();
    assert!(!record.contains("began to repeat itself"), "not taken for a loop");
}

/// A debater that only gives its prompt back (its own part, headings and instructions)
/// said nothing: its argument counts as failed, is named in the record, and is never
/// quoted as its key argument.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_that_echoes_its_prompt_is_a_failed_contribution() {
    let (base, _) = server(PANEL[1], Answer::Echoes).await;
    let sandbox = Sandbox::new();
    let out = debate(&sandbox, &base);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let shown = sandbox.shown();
    let argument = shown["transcript"][0]["arguments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["perspective"] == PANEL[1])
        .unwrap()
        .clone();
    assert_eq!(argument["failed"], true, "{argument}");
    let record = std::fs::read_to_string(&sandbox.records()[0]).unwrap();
    let named = format!("{}'s round-1 argument said nothing of its own", PANEL[1]);
    assert!(record.contains(&named), "{record}");
    let decision = &record[..record.find("## Transcript").unwrap_or(record.len())];
    assert!(!decision.contains("You are the debater for"), "never quoted as an argument: {decision}");
}

/// Against a server that serves one request at a time, round 2's arguments are not
/// written alongside round 1's evaluation: they would only queue behind it, and be thrown
/// away when it ends the debate. Against one that serves many, they are.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_request_at_a_time_means_no_arguments_written_ahead() {
    use crate::common::llm::{MockLlm, ok};
    for (owned_by, ahead) in [("me", false), ("vllm", true)] {
        // The evaluation of round 1 finds agreement: the debate ends there.
        let mock =
            MockLlm::serving(|body, _| prompt_of(body).contains("Evaluate round 1").then(|| ok(body, AGREE)), owned_by)
                .await;
        let sandbox = Sandbox::new();
        let out = debate_rounds(&sandbox, &mock.base_url(), "3");
        assert!(out.status.success(), "{owned_by}: {}", text(&out.stderr));
        let written_ahead =
            mock.requests().iter().filter(|r| prompt_of(&r["body"]).contains("Write your round-2 argument")).count();
        assert_eq!(written_ahead > 0, ahead, "{owned_by}: {written_ahead} round-2 arguments written");
        assert_eq!(sandbox.shown()["rounds"], 1, "{owned_by}: the evaluation ended it after round 1");
    }
}

/// A model that takes whatever option its request lists first, as a weak one does when a
/// schema holds it to the list: the order rotates from request to request, so its
/// stances name every option in turn. They are read as no signal: named in the record,
/// no "no dissent" claimed, and its clear winner ends nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stances_that_follow_the_list_order_are_no_signal() {
    use crate::common::llm::{MockLlm, ok};
    let first_listed = |prompt: &str| {
        let listed = prompt.rsplit("{\"option\": \"").next()?;
        Some(listed[..listed.find('"')?].to_string())
    };
    let mock = MockLlm::serving(
        move |body, _| {
            let prompt = prompt_of(body);
            if prompt.contains("Evaluate round") {
                let verdict = serde_json::json!({"summary": "Each perspective held its ground.", "assessment": "new_ground",
                    "agreement": false, "clear_winner": PANEL[0], "off_topic": [], "new_points": ["cost"]});
                return Some(ok(body, &verdict.to_string()));
            }
            let option = first_listed(&prompt).filter(|_| prompt.contains("You are the debater"))?;
            let stance = format!(r#"STANCE: {{"option": "{option}", "confidence": "high"}}"#);
            Some(ok(body, &format!("From my perspective {}\n{stance}", fresh_words(&prompt, 50))))
        },
        "vllm",
    )
    .await;
    let sandbox = Sandbox::new();
    let out = debate_rounds(&sandbox, &mock.base_url(), "3");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let shown = sandbox.shown();
    let stances: std::collections::BTreeSet<String> = shown["transcript"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["arguments"].as_array().unwrap().iter().chain(r["rebuttals"].as_array().unwrap()))
        .filter_map(|c| c["stance"]["option"].as_str().map(str::to_string))
        .collect();
    assert_eq!(stances.len(), 2, "the rotated lists led it to name both options: {stances:?}");
    assert_ne!(shown["ended_by"], "clear-winner", "{}", shown["ended_by"]);
    let record = std::fs::read_to_string(&sandbox.records()[0]).unwrap();
    assert!(record.contains("the model followed the list"), "{record}");
    assert!(!record.contains("No perspective dissented"), "{record}");
}
