//! `debate serve`'s handlers, called in process (`tower::ServiceExt::oneshot`) with the
//! commands' own launcher behind them: real SQLite files, real git repositories, the
//! scripted provider, and the real binary for debates driven elsewhere. Debates run on
//! the dashboard's driver meanwhile; conditions are awaited by bounded polling.

use std::path::{Path, PathBuf};

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, Request, StatusCode};
use debate::serve::{self, Options};
use futures::StreamExt;
use serde_json::{Value, json};
use tokio::sync::watch;
use tower::ServiceExt;

use crate::common::*;

const HOST: &str = "127.0.0.1:8023";
const ORIGIN: &str = "http://127.0.0.1:8023";

/// A dashboard over the sandbox's database, as `debate serve --config CONFIG` runs it.
struct Dashboard {
    router: Router,
    csrf: String,
    repo: String,
}

impl Dashboard {
    async fn call(&self, request: Request<Body>) -> (StatusCode, HeaderMap, String) {
        let response = self.router.clone().oneshot(request).await.expect("the router answers");
        let (parts, body) = response.into_parts();
        let bytes = axum::body::to_bytes(body, 16 * 1024 * 1024).await.expect("a whole body");
        (parts.status, parts.headers, String::from_utf8_lossy(&bytes).into_owned())
    }

    async fn get(&self, uri: &str) -> (StatusCode, HeaderMap, String) {
        self.call(Request::get(uri).header("host", HOST).body(Body::empty()).unwrap()).await
    }

    async fn json(&self, uri: &str) -> Value {
        let (status, _, body) = self.get(uri).await;
        assert_eq!(status, StatusCode::OK, "GET {uri}: {body}");
        serde_json::from_str(&body).expect("JSON")
    }

    /// A POST as the dashboard's own page sends it.
    async fn post(&self, uri: &str, body: Value) -> (StatusCode, Value) {
        let request = Request::post(uri)
            .header("host", HOST)
            .header("origin", ORIGIN)
            .header("sec-fetch-site", "same-origin")
            .header("x-csrf-token", &self.csrf)
            .header("content-type", "application/json")
            .body(Body::from(body.to_string()))
            .unwrap();
        let (status, _, body) = self.call(request).await;
        (status, serde_json::from_str(&body).unwrap_or(Value::String(body)))
    }

    /// Start a debate here; its id.
    async fn start(&self, question: &str, extra: Value) -> String {
        let mut body = json!({"question": question, "repository": self.repo});
        body.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        let (status, summary) = self.post("/api/debates", body).await;
        assert_eq!(status, StatusCode::CREATED, "{summary}");
        summary["id"].as_str().unwrap().to_string()
    }

    async fn detail(&self, id: &str) -> Value {
        self.json(&format!("/api/debates/{id}")).await
    }

    /// Poll until `done` holds for the debate's page (its live part included).
    async fn page_until(&self, id: &str, what: &str, done: impl Fn(&str) -> bool) -> String {
        wait_for_async(what, async || {
            let (_, _, page) = self.get(&format!("/debates/{id}")).await;
            done(&page).then_some(page)
        })
        .await
    }

    /// Poll until `done` holds for the debate's document; a timeout shows the last one.
    async fn until(&self, id: &str, what: &str, done: impl Fn(&Value) -> bool) -> Value {
        wait_for_async(what, async || {
            let detail = self.detail(id).await;
            if done(&detail) { Ok(detail) } else { Err(detail) }
        })
        .await
    }
}

/// The repository's path as the commands store it.
fn root(sandbox: &Sandbox) -> String {
    sandbox.repo.canonicalize().unwrap().to_string_lossy().into_owned()
}

/// Run `test` against a dashboard on `bind`, its driver running beside it; stop it
/// (as a signal would) when the test is done.
async fn with_dashboard(sandbox: &Sandbox, config: &Path, bind: &str, test: impl AsyncFnOnce(&Dashboard)) {
    let options = Options { bind: bind.parse().unwrap(), port: 8023, db: sandbox.db(), here: Some(root(sandbox)) };
    let launch = debate::app::commands::dashboard::launcher(sandbox.db(), Some(config.to_path_buf()), false);
    let (stop, stopping) = watch::channel(false);
    let built = serve::build(&options, launch, stopping).unwrap();
    let local = tokio::task::LocalSet::new();
    local
        .run_until(async move {
            let driver = tokio::task::spawn_local(built.driver);
            let mut dashboard = Dashboard { router: built.router, csrf: String::new(), repo: root(sandbox) };
            if built.token.is_none() {
                let (_, headers, _) = dashboard.get("/api/debates").await;
                dashboard.csrf = headers["x-csrf-token"].to_str().unwrap().to_string();
            }
            test(&dashboard).await;
            stop.send(true).unwrap();
            driver.await.unwrap();
        })
        .await;
}

/// A scripted debate with checkpoints on; the settings file.
fn with_checkpoints(sandbox: &Sandbox, answers: &str) -> PathBuf {
    let config = sandbox.scripted(answers);
    let text = std::fs::read_to_string(&config).unwrap().replace("checkpoints: false", "checkpoints: true");
    std::fs::write(&config, text).unwrap();
    config
}

fn actions(page: &str) -> String {
    let at = page.find("id=\"checkpoint\"").expect("the checkpoint section");
    let rest = &page[at..];
    let start = rest.find("data-actions=\"").unwrap() + "data-actions=\"".len();
    rest[start..start + rest[start..].find('"').unwrap()].to_string()
}

#[tokio::test]
async fn the_list_and_the_documents_are_the_cli_s() {
    let sandbox = Sandbox::new();
    let config = sandbox.scripted(&varied_answers(&PANEL, 1, AGREE));
    sandbox.cmd().arg("--config").arg(&config).args(["-r", "1", "--max-tokens", "500000", QUESTION]).assert().success();
    let id = sandbox.only_id();
    let listed = sandbox.cmd().args(["--list", "--all", "--json"]).output().unwrap();
    let shown = sandbox.cmd().args(["--show", &id, "--json"]).output().unwrap();
    with_dashboard(&sandbox, &config, "127.0.0.1", async |d| {
        assert_eq!(d.json("/api/debates").await, serde_json::from_slice::<Value>(&listed.stdout).unwrap());
        assert_eq!(d.detail(&id).await, serde_json::from_slice::<Value>(&shown.stdout).unwrap());
        assert_eq!(d.detail(&id[..7]).await["id"], id, "a prefix names the debate, as --show takes it");

        let (status, _, page) = d.get("/").await;
        assert_eq!(status, StatusCode::OK);
        // minijinja escapes `/` too.
        let repository = root(&sandbox).replace('/', "&#x2f;");
        assert!(page.contains(&id) && page.contains("status-complete") && page.contains(&repository), "{page}");
        let (_, _, filtered) = d.get("/?status=paused").await;
        // The filter is the debates table's; the repository's decisions are listed below it.
        let filtered = filtered.split("Decisions in this repository").next().unwrap();
        assert!(!filtered.contains(&format!("/debates/{id}")), "{filtered}");
        let repository = format!("/api/debates?repository={}", root(&sandbox).replace('/', "%2F"));
        assert_eq!(d.json(&repository).await.as_array().unwrap().len(), 1);
        assert_eq!(d.json("/api/debates?repository=%2Felsewhere").await, json!([]));
        assert_eq!(d.json("/api/debates?status=complete").await.as_array().unwrap().len(), 1);

        let (status, _, body) = d.get("/api/debates?status=bogus").await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert!(serde_json::from_str::<Value>(&body).unwrap()["error"].as_str().unwrap().contains("bogus"));
        let (status, _, body) = d.get("/api/debates/DEB-zzzzzz").await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
        assert!(serde_json::from_str::<Value>(&body).unwrap()["error"].is_string());
        let (status, _, body) = d.get("/nowhere").await;
        assert_eq!((status, serde_json::from_str::<Value>(&body).is_ok()), (StatusCode::NOT_FOUND, true));
        let (status, _) = d.post(&format!("/api/debates/{id}"), json!({})).await;
        assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);

        let (_, _, page) = d.get(&format!("/debates/{id}")).await;
        assert!(page.contains("id=\"synthesis\"") && page.contains("The decision record"), "{page}");
        assert!(page.contains("Cache in Postgres now"), "the recommendation");
        assert!(
            page.contains("class=\"spent\">cost none (no model was paid for) of a 500000 tokens cap"),
            "what it spent and its cap: {page}"
        );
        let at = |text: &str| page.find(text).unwrap_or_else(|| panic!("{text} in {page}"));
        assert!(
            at("class=\"chosen\">Postgres") < at("id=\"round-1\""),
            "the decision opens the page, the rounds follow"
        );
        assert!(at("one database to run") < at("id=\"round-1\""), "and its consequences");
        assert!(page.contains("<details><summary>Full argument</summary>"), "collapsible full arguments");
        let (status, _, record) = d.get(&format!("/debates/{id}/record")).await;
        assert_eq!(status, StatusCode::OK);
        assert!(record.starts_with("---\nid: "), "{record}");
    })
    .await;
}

#[tokio::test]
async fn a_debate_started_here_runs_to_a_committed_record() {
    let sandbox = Sandbox::new();
    let config = sandbox.scripted(&varied_answers(&PANEL, 2, CONTINUE));
    with_dashboard(&sandbox, &config, "127.0.0.1", async |d| {
        let (status, error) = d.post("/api/debates", json!({"question": QUESTION, "repository": "/etc"})).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "only repositories the database knows: {error}");
        let (status, error) = d.post("/api/debates", json!({"question": "   ", "repository": d.repo})).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "checked as the command checks it: {error}");
        let (status, error) =
            d.post("/api/debates", json!({"question": QUESTION, "repository": d.repo, "max_rounds": 0})).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "the bound of every round count: {error}");
        assert!(error["error"].as_str().unwrap().contains("rounds must be a whole number from 1 to 20"), "{error}");
        let (status, error) = d.post("/api/debates", json!({"question": QUESTION})).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{error}");
        assert!(error["error"].as_str().unwrap().contains("repository"), "{error}");

        let id = d.start(QUESTION, json!({"max_rounds": 2, "perspectives": 2, "checkpoints": false})).await;
        let done = d.until(&id, "the record", |v| v["status"] == "complete").await;
        assert_eq!(done["rounds"], 2);
        let commit = done["commit_id"].as_str().unwrap();
        let log = git(&sandbox.repo, &["log", "-1", "--format=%H%n%B"]);
        assert!(log.starts_with(commit) && log.contains(&format!("Debate-Id: {id}")), "{log}");
        assert_eq!(git(&sandbox.repo, &["status", "--porcelain"]), "");

        let (status, draft) = d.post(&format!("/api/debates/{id}/issue"), json!({})).await;
        assert_eq!(status, StatusCode::CREATED, "{draft}");
        assert!(draft["command"].as_str().unwrap().starts_with("gh issue create"), "{draft}");
        assert!(sandbox.repo.join(format!(".debate/issues/{id}.md")).is_file());
    })
    .await;
}

#[tokio::test]
async fn the_checkpoint_is_answered_here_with_guidance_then_an_end() {
    let sandbox = Sandbox::new();
    let config = with_checkpoints(&sandbox, &varied_answers(&PANEL, 3, CONTINUE));
    with_dashboard(&sandbox, &config, "127.0.0.1", async |d| {
        let id = d.start(QUESTION, json!({"max_rounds": 3})).await;
        let page = d.page_until(&id, "the first checkpoint", |p| actions(p) == "continue guide end pause").await;
        assert!(page.contains("Driven by this dashboard"), "{page}");
        let at = |text: &str| page.find(text).unwrap_or_else(|| panic!("{text} in {page}"));
        assert!(at("Round 1 is done: the debate waits for your answer.") < at("id=\"live\""), "the checkpoint leads");
        let (status, error) = d.post(&format!("/api/debates/{id}/checkpoint"), json!({"action": "guide"})).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "guidance may not be empty: {error}");
        let guidance = "Weigh our team's <em>PostgreSQL</em> experience";
        let (status, _) =
            d.post(&format!("/api/debates/{id}/checkpoint"), json!({"action": "guide", "guidance": guidance})).await;
        assert_eq!(status, StatusCode::ACCEPTED);
        let detail = d.until(&id, "round 2", |v| v["transcript"][1]["guidance"] == guidance).await;
        assert_eq!(detail["transcript"].as_array().unwrap().len(), 2);
        let page = d.page_until(&id, "the second checkpoint", |p| actions(p).contains("end")).await;
        assert!(page.contains("Weigh our team&#x27;s &lt;em&gt;PostgreSQL&lt;&#x2f;em&gt; experience"), "{page}");
        let (status, _) = d.post(&format!("/api/debates/{id}/checkpoint"), json!({"action": "end"})).await;
        assert_eq!(status, StatusCode::ACCEPTED);
        let done = d.until(&id, "the record", |v| v["status"] == "complete").await;
        assert_eq!((done["ended_by"].as_str(), done["rounds"].as_u64()), (Some("human"), Some(2)));
        let (status, error) = d.post(&format!("/api/debates/{id}/checkpoint"), json!({"action": "continue"})).await;
        assert_eq!(status, StatusCode::CONFLICT, "{error}");
    })
    .await;
}

/// The terminal pauses at a checkpoint; the dashboard continues the debate with
/// guidance and pauses it at the next; the terminal finishes it.
#[tokio::test]
async fn a_debate_moves_between_the_terminal_and_the_dashboard() {
    let sandbox = Sandbox::new();
    let config = with_checkpoints(&sandbox, &varied_answers(&PANEL, 3, CONTINUE));
    let mut cmd = sandbox.std_cmd();
    cmd.arg("--config").arg(&config).args(["-r", "3", QUESTION]).env("TERM", "dumb").env("NO_COLOR", "1");
    let mut terminal = rexpect::session::spawn_command(cmd, Some(30_000)).unwrap();
    terminal.exp_string("[C]ontinue  [G]uide  [E]nd early  [P]ause").unwrap();
    let id = sandbox.only_id();
    with_dashboard(&sandbox, &config, "127.0.0.1", async |d| {
        let page = d.page_until(&id, "the terminal's driver", |p| p.contains("Driven by process")).await;
        assert_eq!(actions(&page), "", "{page}");
        let (status, error) = d.post(&format!("/api/debates/{id}/checkpoint"), json!({"action": "continue"})).await;
        assert_eq!(status, StatusCode::CONFLICT, "one driver at a time: {error}");
        terminal.send("p").unwrap();
        terminal.flush().unwrap();
        terminal.exp_eof().unwrap();

        let page = d.page_until(&id, "the paused debate", |p| actions(p) == "continue guide end").await;
        assert!(page.contains("continue it here, or <code>debate resume</code> it"), "a command as code: {page}");
        // Two tabs answer the same checkpoint at once: one takes the debate up, the
        // other is told it is taken; only the first answer is heard.
        let uri = format!("/api/debates/{id}/checkpoint");
        let tabs = ["Only what we can run with two people", "From the second tab"];
        let (a, b) = tokio::join!(
            d.post(&uri, json!({"action": "guide", "guidance": tabs[0], "round": 1})),
            d.post(&uri, json!({"action": "guide", "guidance": tabs[1], "round": 1})),
        );
        let mut statuses = [a.0, b.0];
        statuses.sort();
        assert_eq!(statuses, [StatusCode::ACCEPTED, StatusCode::CONFLICT], "one driver at a time: {} {}", a.1, b.1);
        let heard = if a.0 == StatusCode::ACCEPTED { tabs[0] } else { tabs[1] };
        d.page_until(&id, "the next checkpoint", |p| actions(p) == "continue guide end pause").await;
        let transcript = d.detail(&id).await["transcript"].clone();
        assert_eq!(transcript[1]["guidance"], heard);
        assert!(transcript[2].is_null(), "the other answer reached no later checkpoint: {transcript}");
        let (status, _) = d.post(&format!("/api/debates/{id}/checkpoint"), json!({"action": "pause"})).await;
        assert_eq!(status, StatusCode::ACCEPTED);
        d.until(&id, "the pause", |v| v["status"] == "paused").await;
        d.page_until(&id, "the lease given up", |p| p.contains("Nobody drives it now")).await;
    })
    .await;
    let resumed = sandbox.cmd().args(["--resume", &id, "--no-checkpoints", "--json"]).output().unwrap();
    assert!(resumed.status.success(), "{}", String::from_utf8_lossy(&resumed.stderr));
    let summary: Value = serde_json::from_slice(&resumed.stdout).unwrap();
    assert_eq!((summary["status"].as_str(), summary["rounds"].as_u64()), (Some("complete"), Some(3)));
}

#[tokio::test]
async fn model_text_is_shown_and_never_run_and_keys_never_shown() {
    let sandbox = Sandbox::new();
    let key = "sk-dashboardtest0123456789abcdefghij";
    let hostile = format!("<script>alert(1)</script> and </details><b>bold</b> {key}");
    let answers = replace_answers(
        &varied_answers(&PANEL, 1, AGREE),
        "{purpose: argument, round: 1, perspective: \"Performance Advocate\"",
        &format!(
            "{{purpose: argument, round: 1, perspective: \"Performance Advocate\", text: \"{hostile}\\n{STANCE}\"}}"
        ),
    );
    let config = sandbox.scripted(&answers);
    let settings = std::fs::read_to_string(&config).unwrap().replace(
        "providers:\n",
        &format!("providers:\n  unused: {{kind: openai, base_url: \"http://127.0.0.1:9\", api_key: \"{key}\"}}\n"),
    );
    std::fs::write(&config, settings).unwrap();
    with_dashboard(&sandbox, &config, "127.0.0.1", async |d| {
        let id = d.start(QUESTION, json!({"max_rounds": 1, "checkpoints": false})).await;
        d.until(&id, "the record", |v| v["status"] == "complete").await;
        let (_, _, page) = d.get(&format!("/debates/{id}")).await;
        assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "shown as text: {page}");
        assert!(page.contains("&lt;/details&gt;&lt;b&gt;bold&lt;/b&gt;"), "shown as text: {page}");
        assert!(!page.contains("<script>alert"), "never markup");
        assert!(!page.contains("</details><b>"), "never markup");
        let (_, _, list) = d.get("/").await;
        let (_, _, document) = d.get(&format!("/api/debates/{id}")).await;
        for shown in [&page, &list, &document] {
            assert!(!shown.contains(key), "no key on a page or in a response");
        }
    })
    .await;
}

#[tokio::test]
async fn the_event_stream_opens_with_the_debate_as_it_stands() {
    let sandbox = Sandbox::new();
    let config = sandbox.scripted(&varied_answers(&PANEL, 1, AGREE));
    sandbox.cmd().arg("--config").arg(&config).args(["-r", "1", QUESTION]).assert().success();
    let id = sandbox.only_id();
    with_dashboard(&sandbox, &config, "127.0.0.1", async |d| {
        let request = Request::get(format!("/api/debates/{id}/events")).header("host", HOST).body(Body::empty());
        let response = d.router.clone().oneshot(request.unwrap()).await.unwrap();
        assert_eq!(response.headers()["content-type"], "text/event-stream");
        let mut body = response.into_body().into_data_stream();
        let first = body.next().await.unwrap().unwrap();
        let first = String::from_utf8_lossy(&first);
        assert!(first.starts_with("event: state\ndata: {"), "{first}");
        assert!(first.contains("\"status\":\"complete\""), "{first}");
        // The client goes away mid-stream: nothing is left waiting for it.
        drop(body);
    })
    .await;
}

#[tokio::test]
async fn requests_that_do_not_come_from_the_dashboard_are_refused() {
    let sandbox = Sandbox::new();
    let config = sandbox.scripted(&varied_answers(&PANEL, 1, AGREE));
    with_dashboard(&sandbox, &config, "127.0.0.1", async |d| {
        let get = |host: &str| Request::get("/").header("host", host).body(Body::empty()).unwrap();
        for host in ["evil.example:8023", "127.0.0.1:9999", "attacker.localhost:8023"] {
            let (status, _, body) = d.call(get(host)).await;
            assert_eq!(status, StatusCode::FORBIDDEN, "DNS rebinding through {host}");
            assert!(serde_json::from_str::<Value>(&body).unwrap()["error"].is_string());
        }
        let (status, headers, _) = d.call(get("localhost:8023")).await;
        assert_eq!(status, StatusCode::OK);
        let policy = headers["content-security-policy"].to_str().unwrap();
        assert!(policy.contains("script-src 'self'") && !policy.contains("unsafe-inline"), "{policy}");
        assert_eq!(headers["x-frame-options"], "DENY");

        let body = json!({"question": QUESTION, "repository": d.repo}).to_string();
        let post = |origin: Option<&str>, site: Option<&str>, csrf: Option<&str>| {
            let mut request =
                Request::post("/api/debates").header("host", HOST).header("content-type", "application/json");
            for (name, value) in [("origin", origin), ("sec-fetch-site", site), ("x-csrf-token", csrf)] {
                if let Some(value) = value {
                    request = request.header(name, value);
                }
            }
            request.body(Body::from(body.clone())).unwrap()
        };
        let csrf = Some(d.csrf.as_str());
        for (origin, site, token, why) in [
            (Some(ORIGIN), Some("same-origin"), None, "no CSRF token"),
            (Some(ORIGIN), Some("same-origin"), Some("0".repeat(64).as_str()), "a wrong CSRF token"),
            (Some("http://evil.example"), Some("cross-site"), csrf, "another origin"),
            (None, Some("cross-site"), csrf, "a cross-site request without Origin"),
        ] {
            let (status, _, _) = d.call(post(origin, site, token)).await;
            assert_eq!(status, StatusCode::FORBIDDEN, "{why}");
        }
        assert_eq!(d.json("/api/debates").await, json!([]), "nothing was started");
    })
    .await;
}

#[tokio::test]
async fn beyond_loopback_every_request_needs_the_token() {
    let sandbox = Sandbox::new();
    let config = sandbox.scripted(&varied_answers(&PANEL, 1, AGREE));
    let options = Options { bind: "0.0.0.0".parse().unwrap(), port: 8023, db: sandbox.db(), here: None };
    let launch = debate::app::commands::dashboard::launcher(sandbox.db(), Some(config), false);
    let built = serve::build(&options, launch, watch::channel(false).1).unwrap();
    let token = built.token.expect("a token beyond loopback");
    let d = Dashboard { router: built.router, csrf: String::new(), repo: String::new() };
    let request = |uri: &str, header: Option<(&str, String)>| {
        let mut request = Request::get(uri).header("host", "192.168.1.20:8023");
        if let Some((name, value)) = header {
            request = request.header(name, value);
        }
        request.body(Body::empty()).unwrap()
    };
    assert_eq!(d.call(request("/", None)).await.0, StatusCode::UNAUTHORIZED);
    assert_eq!(d.call(request("/assets/app.js", None)).await.0, StatusCode::UNAUTHORIZED);
    assert_eq!(d.call(request("/?token=wrong", None)).await.0, StatusCode::UNAUTHORIZED);
    let (status, headers, _) = d.call(request(&format!("/?token={token}"), None)).await;
    assert_eq!(status, StatusCode::OK);
    let cookie = headers["set-cookie"].to_str().unwrap().split(';').next().unwrap().to_string();
    assert!(headers["set-cookie"].to_str().unwrap().contains("HttpOnly"));
    assert_eq!(d.call(request("/api/debates", Some(("cookie", cookie.clone())))).await.0, StatusCode::OK);
    let bearer = Some(("authorization", format!("Bearer {token}")));
    assert_eq!(d.call(request("/api/debates", bearer)).await.0, StatusCode::OK);
    // A stale cookie (an earlier run on this host) does not hide the fresh link's token.
    let stale = Some(("cookie", cookie.replace(&token, "0123456789abcdef")));
    assert_eq!(d.call(request(&format!("/?token={token}"), stale.clone())).await.0, StatusCode::OK);
    assert_eq!(d.call(request("/", stale)).await.0, StatusCode::UNAUTHORIZED);
}

/// A page that cannot be shown is a page saying why, with the way back; a record
/// committed on its own branch (no work tree holds it) is shown from its commit, its
/// rounds collapsed as GitHub shows them.
#[tokio::test]
async fn pages_fail_as_pages_and_a_branch_record_is_shown_from_its_commit() {
    let sandbox = Sandbox::new();
    git(&sandbox.repo, &["config", "user.name", "Test"]);
    git(&sandbox.repo, &["config", "user.email", "test@example.com"]);
    let config = sandbox.scripted(&varied_answers(&PANEL, 1, AGREE));
    sandbox.cmd().arg("--config").arg(&config).args(["-r", "1", "--branch", QUESTION]).assert().success();
    let id = sandbox.only_id();
    assert!(sandbox.records().is_empty(), "the record is only on its branch");
    with_dashboard(&sandbox, &config, "127.0.0.1", async |d| {
        let (status, headers, page) = d.get("/debates/DEB-zzzzzz").await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert!(headers["content-type"].to_str().unwrap().starts_with("text/html"), "{headers:?}");
        assert!(page.contains("DEB-zzzzzz") && page.contains("href=\"/\""), "{page}");
        assert!(page.contains("<code>debate ") && !page.contains('`'), "the hint's command as code: {page}");

        let (_, _, page) = d.get(&format!("/debates/{id}")).await;
        assert!(page.contains("Cache in Postgres now"), "the record, from its commit: {page}");
        assert!(page.contains("<summary>Round 1 of 1 (opening and closing)</summary>"), "{page}");
        let (status, _, record) = d.get(&format!("/debates/{id}/record")).await;
        assert_eq!(status, StatusCode::OK);
        assert!(record.starts_with("---\nid: "), "{record}");
    })
    .await;
}

/// The record's latest scores on its page, every evaluator's mark and the checks.
#[tokio::test]
async fn a_debates_page_shows_its_records_scores() {
    let sandbox = Sandbox::new();
    let config = sandbox.scripted(&varied_answers(&PANEL, 1, AGREE));
    sandbox.cmd().arg("--config").arg(&config).args(["-r", "1", QUESTION]).assert().success();
    let id = sandbox.only_id();
    sandbox.cmd().args(["eval", &id, "--offline", "-q"]).assert().success();
    with_dashboard(&sandbox, &config, "127.0.0.1", async |d| {
        let (_, _, page) = d.get(&format!("/debates/{id}")).await;
        assert!(page.contains("<p class=\"eyebrow\">Evaluation 1</p>"), "{page}");
        assert!(page.contains("<td>Every option has pros and cons</td><td><p><strong>10</strong> offline: 2 of 2 options have both pros and cons.</p></td>"), "{page}");
        assert!(page.contains("not a model&#x27;s judgement") || page.contains("not a model's judgement"), "{page}");
        assert!(page.contains("✓ the sections a decision needs are there"), "{page}");
        assert_eq!(d.detail(&id).await["evaluations"][0]["number"], 1, "the API's document has them too");
    })
    .await;
}

/// A record a pull replaced by a link (to a file of keys, say) is not shown.
#[tokio::test]
async fn a_record_replaced_by_a_link_is_not_served() {
    let sandbox = Sandbox::new();
    let config = sandbox.scripted(&varied_answers(&PANEL, 1, AGREE));
    sandbox.cmd().arg("--config").arg(&config).args(["-r", "1", "--no-commit", QUESTION]).assert().success();
    let id = sandbox.only_id();
    let record = sandbox.records()[0].clone();
    let secret = sandbox.home.join("keys.txt");
    std::fs::write(&secret, "OPENAI_API_KEY=sk-not-for-pages\n").unwrap();
    std::fs::remove_file(&record).unwrap();
    std::os::unix::fs::symlink(&secret, &record).unwrap();
    with_dashboard(&sandbox, &config, "127.0.0.1", async |d| {
        let (status, _, body) = d.get(&format!("/debates/{id}/record")).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
        let (_, _, page) = d.get(&format!("/debates/{id}")).await;
        assert!(!page.contains("sk-not-for-pages") && !body.contains("sk-not-for-pages"));
    })
    .await;
}

/// The list shows the repository's decisions — the checked-out branch's and a
/// `decisions/*` branch's — beside the database's debates, and opens a record this
/// database never ran from its branch.
#[tokio::test]
async fn the_repositorys_decisions_are_listed_and_open_whoever_ran_them() {
    let sandbox = Sandbox::new();
    git(&sandbox.repo, &["config", "user.name", "Ada Author"]);
    git(&sandbox.repo, &["config", "user.email", "ada@example.com"]);
    let ours = sandbox.cmd().args(["--offline", "--no-checkpoints", "-q", "-r", "1", QUESTION]).output().unwrap();
    assert!(ours.status.success(), "{}", text(&ours.stderr));
    let our_id = sandbox.newest_id();
    // A teammate's debate, on its own branch, from another database.
    let teammate = sandbox.home.join("teammate");
    let question = "Should we queue emails in Postgres or RabbitMQ?";
    let theirs = sandbox
        .cmd()
        .env("DEBATE_HOME", &teammate)
        .args(["--offline", "--no-checkpoints", "-q", "-r", "1", "--branch=decisions/queue", question])
        .output()
        .unwrap();
    assert!(theirs.status.success(), "{}", text(&theirs.stderr));
    let their_record = text(&theirs.stdout).trim().split_once(':').unwrap().1.to_string();
    let config = sandbox.scripted(&varied_answers(&PANEL, 1, AGREE));

    with_dashboard(&sandbox, &config, "127.0.0.1", async |d| {
        let (status, _, page) = d.get("/").await;
        assert_eq!(status, StatusCode::OK, "{page}");
        let section = &page[page.find("Decisions in this repository").expect("the section")..];
        assert!(
            section.contains(&format!("<a href=\"/debates/{our_id}\">Should we use Redis or Postgres for caching</a>")),
            "{section}"
        );
        // As the page's HTML escapes the link; a browser reads `&#x2f;` as `/`.
        let url = format!("/records?branch=decisions/queue&path={their_record}");
        let opens = url.replace('&', "&amp;").replace('/', "&#x2f;").replacen("&#x2f;records", "/records", 1);
        assert!(section.contains(&format!("<a href=\"{opens}\">")), "{section}");
        assert!(section.contains("(not in this database)"), "{section}");

        let (status, _, record) = d.get(&url).await;
        assert_eq!(status, StatusCode::OK, "{record}");
        assert!(record.contains("<h1>Should we queue emails in Postgres or RabbitMQ</h1>"), "{record}");
        assert!(record.contains(&format!("debate show {}", their_record.replace('/', "&#x2f;"))), "{record}");
        assert!(!record.contains("debate:state") && !record.contains("debate:text"), "carried lines are not shown");

        for wanted in [
            "/records?branch=main&path=..%2F..%2Fetc%2Fpasswd",
            "/records?branch=nowhere&path=docs%2Fdecisions%2Fx.md",
            &format!("/records?branch=main&path={}", their_record.replace('/', "%2F")),
        ] {
            let (status, _, _) = d.get(wanted).await;
            assert_eq!(status, StatusCode::NOT_FOUND, "{wanted}");
        }
    })
    .await;
}

/// Issue 32: with a debate of repository A (whose path sorts first) in the database, the
/// form served in repository B defaults to B, says so by its button, and stands above
/// the list; the list names its column for what it holds and shows the record's status.
#[tokio::test]
async fn the_form_defaults_to_the_repository_serve_runs_in() {
    let sandbox = Sandbox::new();
    let other = sandbox.repo.parent().unwrap().join("app");
    std::fs::create_dir_all(&other).unwrap();
    git(&other, &["init", "-q", "-b", "main"]);
    let out = sandbox.cmd().current_dir(&other).args(["--offline", "-q", "-r", "1", QUESTION]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let config = sandbox.scripted(&varied_answers(&PANEL, 1, AGREE));
    with_dashboard(&sandbox, &config, "127.0.0.1", async |d| {
        let (_, _, page) = d.get("/").await;
        let here = root(&sandbox).replace('/', "&#x2f;");
        let elsewhere = other.canonicalize().unwrap().to_string_lossy().replace('/', "&#x2f;");
        assert!(elsewhere < here, "A sorts before B");
        assert!(page.contains(&format!("<option value=\"{here}\" selected>")), "{page}");
        assert!(!page.contains(&format!("<option value=\"{elsewhere}\" selected>")), "{page}");
        assert!(page.contains(&format!("the debate in <code id=\"new-debate-target\">{here}</code>")), "{page}");
        let at = |text: &str| page.find(text).unwrap_or_else(|| panic!("{text} in {page}"));
        assert!(at("id=\"new-debate\"") < at("<table class=\"debates\">"), "the form above the list");
        assert!(page.contains("<th>Decision</th><th>Record</th>") && !page.contains("<th>Question</th>"), "{page}");
        assert!(page.contains("<span class=\"badge\">proposed</span>"), "the record's status: {page}");
    })
    .await;
}

/// Issue 33: a vague question started here waits on its page for the answer to the
/// moderator's questions before the panel is chosen; the answer is debated and recorded.
#[tokio::test]
async fn the_moderators_questions_are_answered_on_the_page() {
    let sandbox = Sandbox::new();
    let config = with_checkpoints(&sandbox, &varied_answers(&PANEL, 1, AGREE));
    with_dashboard(&sandbox, &config, "127.0.0.1", async |d| {
        let id = d.start("What should we do?", json!({"max_rounds": 1})).await;
        let page = d.page_until(&id, "the questions", |p| actions(p) == "answer continue").await;
        assert!(page.contains("The moderator asks: 1. Which options are you choosing between"), "{page}");
        let detail = d.detail(&id).await;
        assert_eq!(detail["panel"].as_array().map(Vec::len), Some(3), "the keyword panel, not yet refined");
        assert_eq!(detail["rounds"], 0, "asked before any round");
        let answer = "Redis or Postgres for caching product pages";
        let (status, _) = d
            .post(&format!("/api/debates/{id}/checkpoint"), json!({"action": "guide", "guidance": answer, "round": 0}))
            .await;
        assert_eq!(status, StatusCode::ACCEPTED);
        let done = d.until(&id, "the record", |v| v["status"] == "complete").await;
        assert_eq!(done["clarification"]["answer"], answer);
        let record = std::fs::read_to_string(&sandbox.records()[0]).unwrap();
        assert!(record.contains(&format!("the answer before the debate: {answer}")), "{record}");
    })
    .await;
}
