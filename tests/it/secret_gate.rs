//! The secret gate at every exit: a server that echoes the key it was sent in every
//! encoding a JSON or HTTP layer can give it — as is, JSON-escaped (`\u0073…`, `\/`),
//! percent-encoded — inside the moderator's JSON (where parsing decodes it) and in the
//! debaters' prose, gets it nowhere: not the database file, the record, git's objects,
//! stdout or stderr, nor the dashboard's pages and API.

use axum::body::Body;
use axum::http::Request;
use serde_json::Value;
use tokio::sync::watch;
use tower::ServiceExt;

use crate::common::llm::{MockLlm, ok_from, reply};
use crate::common::*;

/// A key with a `/`, so that a server writing `\/` matters.
pub const KEY: &str = "sk-live/ECHO-0a1b2c3d4e5f";

/// Every character as a JSON `\uXXXX` escape.
fn json_escaped() -> String {
    KEY.chars().map(|c| format!("\\u{:04x}", c as u32)).collect()
}

fn percent_encoded() -> String {
    KEY.bytes().map(|b| format!("%{b:02X}")).collect()
}

/// The forms the key must not take anywhere debate writes.
fn forms() -> Vec<String> {
    vec![KEY.to_string(), KEY.replace('/', "\\/"), json_escaped(), percent_encoded(), KEY[..12].to_string()]
}

pub async fn echoing_server() -> MockLlm {
    MockLlm::with_rule(|body, _| {
        let answer = reply(body);
        let echoed = match serde_json::from_str::<Value>(&answer) {
            Ok(Value::Object(mut json)) => {
                for field in ["summary", "recommendation"] {
                    if let Some(Value::String(text)) = json.get_mut(field) {
                        text.push_str(" KEYECHO[@U@] KEYECHO[@S@] KEYECHO[@P@] KEYECHO[@L@]");
                    }
                }
                // Written into the JSON text itself, so that parsing it decodes the key.
                Value::Object(json)
                    .to_string()
                    .replace("@U@", &json_escaped())
                    .replace("@S@", &KEY.replace('/', "\\/"))
                    .replace("@P@", &percent_encoded())
                    .replace("@L@", KEY)
            }
            _ => format!(
                "{answer} Keys: {KEY}, {}, {} and {}.",
                percent_encoded(),
                json_escaped(),
                KEY.replace('/', "\\/")
            ),
        };
        Some(ok_from(&format!("mock-{}", percent_encoded()), body, &echoed))
    })
    .await
}

pub fn assert_absent(what: &str, haystack: &str) {
    for form in forms() {
        assert!(!haystack.contains(&form), "{what} holds the key as {form:?}:\n{haystack}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_echoed_in_every_encoding_is_written_nowhere() {
    let mock = echoing_server().await;
    let sandbox = Sandbox::new();
    git(&sandbox.repo, &["config", "user.name", "Test"]);
    git(&sandbox.repo, &["config", "user.email", "test@example.com"]);
    let config = sandbox.openai_compatible(&mock.base_url(), "", "");
    let mut cmd = sandbox.std_cmd();
    cmd.arg("--config").arg(&config).args(["-v", "--issue", "-r", "2", QUESTION]).env("DEBATE_TEST_KEY", KEY);
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap()).await.unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(mock.requests().iter().all(|r| r["authorization"] == format!("Bearer {KEY}")), "the key was sent");
    assert_absent("stdout", &text(&out.stdout));
    assert_absent("stderr", &text(&out.stderr));

    let id = sandbox.only_id();
    for args in [vec!["--show", &id], vec!["--show", &id, "--json"], vec!["--list", "--json"]] {
        let shown = sandbox.cmd().args(&args).output().unwrap();
        assert_absent(&format!("{args:?}"), &text(&shown.stdout));
    }
    for (path, bytes) in sandbox.files() {
        assert_absent(&path.display().to_string(), &String::from_utf8_lossy(&bytes));
    }
    assert_absent("git history", &git(&sandbox.repo, &["log", "--all", "-p", "--format=%H%n%B"]));
    let record = std::fs::read_to_string(&sandbox.records()[0]).unwrap();
    assert!(record.contains("KEYECHO[[redacted key]]"), "masked where it was, not dropped:\n{record}");

    // The dashboard over the same database.
    let root = sandbox.repo.canonicalize().unwrap().to_string_lossy().into_owned();
    let options =
        debate::serve::Options { bind: "127.0.0.1".parse().unwrap(), port: 8023, db: sandbox.db(), here: Some(root) };
    let launch = debate::app::commands::dashboard::launcher(sandbox.db(), Some(config.clone()), false);
    let built = debate::serve::build(&options, launch, watch::channel(false).1).unwrap();
    for uri in
        ["/".to_string(), format!("/debates/{id}"), format!("/debates/{id}/record"), format!("/api/debates/{id}")]
    {
        let request = Request::get(&uri).header("host", "127.0.0.1:8023").body(Body::empty()).unwrap();
        let response = built.router.clone().oneshot(request).await.unwrap();
        let bytes = axum::body::to_bytes(response.into_body(), 16 << 20).await.unwrap();
        assert_absent(&format!("GET {uri}"), &String::from_utf8_lossy(&bytes));
    }
}

/// A short key is masked too: every key of four characters or more.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_short_key_is_masked_too() {
    const SHORT: &str = "k9Zq7x";
    let mock = MockLlm::with_rule(|body, _| {
        let answer = reply(body);
        let echoed = match serde_json::from_str::<Value>(&answer) {
            Ok(_) => answer.replacen('{', &format!("{{\"note\": \"{SHORT}\", "), 1),
            Err(_) => format!("{answer} (key {SHORT})"),
        };
        Some(ok_from("mock-model", body, &echoed))
    })
    .await;
    let sandbox = Sandbox::new();
    let config = sandbox.openai_compatible(&mock.base_url(), "", "");
    let mut cmd = sandbox.std_cmd();
    cmd.arg("--config").arg(&config).args(["--no-commit", "-r", "1", QUESTION]).env("DEBATE_TEST_KEY", SHORT);
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap()).await.unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    for (path, bytes) in sandbox.files() {
        assert!(!String::from_utf8_lossy(&bytes).contains(SHORT), "{} holds the short key", path.display());
    }
}
