//! The dashboard in a real browser: `debate serve` run as a user runs it, and Debian's
//! headless Chromium driven over WebDriver (chromedriver, through fantoccini) as a
//! person would use it: start a debate from the form (its repository, untouched, the
//! one `serve` runs in, though another sorts first) with checkpoints on, watch round 1
//! arrive without a reload, add guidance, see round 2 start with it, end the debate and
//! read the decision; the record is checked with `git`. On a laptop's first screen
//! (1280×900) a checkpoint's buttons and a finished debate's chosen option are in view;
//! at a phone's width (420 px) the list does not scroll sideways.
//!
//! Without chromium and chromedriver on PATH when the tests are built (build.rs) the
//! test is ignored, unless `CI` is set: `.ci/run` installs both, so there their absence
//! is a failure.
//!
//! The debate is `browser_debate.yaml`, and it is what the README's screenshots show:
//! `DEBATE_SCREENSHOTS=1 cargo test --test it browser` takes them again into `docs/`,
//! with `docs/screenshots.sha256`, the fingerprint of what they show; a test fails when
//! the dashboard's templates or assets no longer match it.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::error::{CmdError, ErrorStatus};
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::common::*;

/// The question `browser_debate.yaml` answers, and the guidance given at its first
/// checkpoint.
const CHECKOUT: &str = "Should the checkout service store sessions in Redis or Postgres?";
const GUIDANCE: &str = "We have two engineers on call, and neither has run Redis in production.";
/// A laptop's first screen, and a phone's width.
const SCREEN: (u32, u32) = (1280, 900);
const PHONE: u32 = 420;
/// What takes the screenshots again.
const RETAKE: &str = "DEBATE_SCREENSHOTS=1 cargo test --test it browser";
/// What the screenshots show: the dashboard's templates and assets, and the debate.
const SHOWN: [&str; 3] = ["templates/serve", "src/serve/assets", "tests/it/browser_debate.yaml"];

/// A child process ended when the test is done, however it ends; one started in a
/// process group of its own (`in_own_group`) is ended with its group, so a browser the
/// driver started goes with it even when the test fails before closing its session.
struct Running {
    child: Child,
    group: bool,
}

impl Running {
    fn new(child: Child) -> Running {
        Running { child, group: false }
    }

    /// `command` started in a process group of its own.
    fn in_own_group(command: &mut Command) -> Running {
        use std::os::unix::process::CommandExt;
        Running { child: command.process_group(0).spawn().unwrap(), group: true }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if self.group {
            // `--` first: without it procps reads `-PID` as an option (and `-1…` as
            // every process there is).
            let group = format!("-{}", self.child.id());
            let _ = Command::new("kill").args(["-s", "KILL", "--", &group]).stderr(Stdio::null()).status();
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The browser and its driver, from Debian's `chromium` and `chromium-driver`.
fn browser_tools() -> (PathBuf, PathBuf) {
    let find = |names: &[&str]| {
        let path = std::env::var_os("PATH").unwrap_or_default();
        names.iter().find_map(|name| {
            std::env::split_paths(&path).map(|dir| dir.join(name)).find(|candidate| candidate.is_file())
        })
    };
    let missing = "chromium or chromedriver is missing: .ci/run installs `chromium chromium-driver`";
    (find(&["chromium", "chromium-browser"]).expect(missing), find(&["chromedriver"]).expect(missing))
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// The text of every element `css` selects that is shown.
async fn texts(client: &Client, css: &str) -> Vec<String> {
    let mut found = Vec::new();
    for element in client.find_all(Locator::Css(css)).await.unwrap_or_default() {
        if element.is_displayed().await.unwrap_or(false) {
            found.push(element.text().await.unwrap_or_default());
        }
    }
    found
}

/// Click `css`; the live page may re-render it between finding and clicking, so a stale
/// element is found again (for at most five seconds).
async fn click(client: &Client, css: &str) {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let found = client.find(Locator::Css(css)).await.unwrap_or_else(|err| panic!("{css}: {err}"));
        match found.click().await {
            Ok(_) => return,
            Err(CmdError::Standard(err))
                if err.error == ErrorStatus::StaleElementReference && Instant::now() < deadline =>
            {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(err) => panic!("click {css}: {err}"),
        }
    }
}

/// Run `script` in the page with `args`; what it returns.
async fn run(client: &Client, script: &str, args: Vec<Value>) -> Value {
    client.execute(script, args).await.unwrap_or_else(|err| panic!("{script}: {err}"))
}

/// `css` is shown, and whole within the window as it is scrolled now; its text. One
/// script reads it all: the live part of a page is replaced as the debate changes.
async fn assert_in_view(client: &Client, css: &str, what: &str) -> String {
    let script = "const e = document.querySelector(arguments[0]); const r = e.getBoundingClientRect(); \
                  return [e.checkVisibility(), r.top, r.bottom, window.innerHeight, window.scrollY, e.innerText];";
    let placed = run(client, script, vec![json!(css)]).await;
    assert_eq!(placed[0], Value::Bool(true), "{what}: {css} is hidden");
    let [top, bottom, height, scrolled] = [1, 2, 3, 4].map(|i| placed[i].as_f64().unwrap());
    assert!(
        top >= 0.0 && bottom <= height,
        "{what}: {css} spans {top}..{bottom} px of a {height} px window scrolled by {scrolled}"
    );
    placed[5].as_str().unwrap_or_default().to_string()
}

/// The page's viewport made `width`×`height`: the window is larger by what the browser
/// draws around the page.
async fn viewport(client: &Client, (width, height): (u32, u32)) {
    let around = "return [window.outerWidth - window.innerWidth, window.outerHeight - window.innerHeight];";
    let around = run(client, around, Vec::new()).await;
    let [x, y] = [0, 1].map(|i| u32::try_from(around[i].as_u64().unwrap()).unwrap());
    client.set_window_size(width + x, height + y).await.unwrap();
    let inner = run(client, "return [window.innerWidth, window.innerHeight];", Vec::new()).await;
    assert_eq!(inner, json!([width, height]), "the viewport");
}

/// `css` in view on the page's first screen; its text.
async fn assert_on_first_screen(client: &Client, css: &str, what: &str) -> String {
    run(client, "window.scrollTo(0, 0);", Vec::new()).await;
    assert_in_view(client, css, what).await
}

/// The page at `url` does not scroll sideways at a phone's width.
async fn assert_fits_a_phone(client: &Client, url: &str) {
    client.goto(url).await.unwrap();
    let widths =
        run(client, "const e = document.documentElement; return [e.scrollWidth, e.clientWidth];", Vec::new()).await;
    let [scroll, client_width] = [0, 1].map(|i| widths[i].as_u64().unwrap());
    // What reaches past the edge, innermost first, to say what to fix.
    let wide = "const w = document.documentElement.clientWidth; return [...document.querySelectorAll('body *')] \
        .filter(e => e.getBoundingClientRect().right > w + 1).reverse().slice(0, 3) \
        .map(e => e.tagName + '.' + e.className + ': ' + (e.textContent || '').slice(0, 60));";
    let wide = run(client, wide, Vec::new()).await;
    assert!(scroll <= client_width, "{url} scrolls sideways at {client_width} px: {scroll} px wide: {wide}");
}

fn regenerating() -> bool {
    std::env::var_os("DEBATE_SCREENSHOTS").is_some()
}

fn docs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs")
}

/// The window as it is now, as `docs/NAME` for the README, with `DEBATE_SCREENSHOTS` set.
async fn screenshot(client: &Client, name: &str) {
    if regenerating() {
        std::fs::write(docs().join(name), client.screenshot().await.unwrap()).unwrap();
    }
}

/// What the screenshots show, each file's SHA-256 as `sha256sum` lists it (so `sha256sum
/// -c docs/screenshots.sha256` checks it too).
fn fingerprint() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = Vec::new();
    for shown in SHOWN.map(|shown| root.join(shown)) {
        match shown.is_dir() {
            true => files.extend(std::fs::read_dir(&shown).unwrap().map(|entry| entry.unwrap().path())),
            false => files.push(shown),
        }
    }
    files.sort();
    let line = |file: &PathBuf| {
        let digest: String = Sha256::digest(std::fs::read(file).unwrap()).iter().map(|b| format!("{b:02x}")).collect();
        format!("{digest}  {}\n", file.strip_prefix(root).unwrap().display())
    };
    files.iter().map(line).collect()
}

#[test]
fn the_screenshots_show_the_dashboard_as_it_is() {
    // Taking them writes the fingerprint, after the screenshots.
    if regenerating() {
        return;
    }
    let (stored, now) = (std::fs::read_to_string(docs().join("screenshots.sha256")).unwrap_or_default(), fingerprint());
    assert!(
        stored == now,
        "the dashboard changed since the screenshots in docs/ were taken: run `{RETAKE}`\n\
         --- docs/screenshots.sha256\n{stored}+++ now\n{now}"
    );
}

#[tokio::test]
#[cfg_attr(
    missing_chromium,
    ignore = "chromium or chromedriver is not on PATH (apt-get install chromium chromium-driver); with CI set this test fails instead"
)]
async fn a_debate_runs_from_the_form_to_a_committed_record_in_a_real_browser() {
    let (chromium, chromedriver) = browser_tools();
    let sandbox = Sandbox::new();
    let config = sandbox.scripted(include_str!("browser_debate.yaml"));
    let text = std::fs::read_to_string(&config).unwrap().replace("checkpoints: false", "checkpoints: true");
    std::fs::write(&config, text).unwrap();
    // A debate from the terminal first, so the list has more than the new one: in
    // another repository, A, whose path sorts before this one's, B.
    let other = sandbox.repo.parent().unwrap().join("app");
    std::fs::create_dir_all(&other).unwrap();
    git(&other, &["init", "-q", "-b", "main"]);
    let earlier = "Should the nightly order export move from cron to a queue consumer?";
    sandbox.cmd().current_dir(&other).args(["--offline", "-r", "1", "--no-checkpoints", earlier]).assert().success();

    let mut serve = sandbox.std_cmd();
    serve.arg("serve").args(["--port", "0", "--config"]).arg(&config).stdout(Stdio::piped()).stderr(Stdio::null());
    let mut server = Running::new(serve.spawn().unwrap());
    let mut first = String::new();
    BufReader::new(server.child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    let url = first.trim().strip_prefix("Listening on ").unwrap_or_else(|| panic!("{first:?}")).to_string();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");

    let driver_port = free_port();
    let _driver = Running::in_own_group(
        Command::new(&chromedriver).arg(format!("--port={driver_port}")).stdout(Stdio::null()).stderr(Stdio::null()),
    );
    let profile = tempfile::tempdir().unwrap();
    let args = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        &format!("--user-data-dir={}", profile.path().display()),
    ];
    let mut capabilities = serde_json::Map::new();
    capabilities.insert("goog:chromeOptions".into(), json!({"binary": chromium, "args": args}));
    let webdriver = format!("http://127.0.0.1:{driver_port}");
    let client = wait_for_async("chromedriver", async || {
        ClientBuilder::rustls().ok()?.capabilities(capabilities.clone()).connect(&webdriver).await.ok()
    })
    .await;

    client.goto(&url).await.unwrap();
    viewport(&client, SCREEN).await;
    assert_eq!(texts(&client, "table.debates:not(.decisions) tbody tr").await.len(), 1);
    // The form runs the debate where `debate serve` runs, and says so, untouched.
    let here = sandbox.repo.canonicalize().unwrap().to_string_lossy().into_owned();
    let chosen = run(&client, "return document.querySelector('#new-debate select[name=repository]').value;", vec![]);
    assert_eq!(chosen.await, Value::String(here.clone()));
    assert_eq!(texts(&client, "#new-debate-target").await, [here]);
    client.find(Locator::Css("textarea[name=question]")).await.unwrap().send_keys(CHECKOUT).await.unwrap();
    click(&client, "select[name=perspectives] option[value='4']").await;
    let rounds = client.find(Locator::Css("input[name=max_rounds]")).await.unwrap();
    rounds.clear().await.unwrap();
    rounds.send_keys("3").await.unwrap();
    click(&client, "#new-debate button[type=submit]").await;
    let id = wait_for_async("the debate's page", async || {
        let at = client.current_url().await.ok()?;
        at.path().strip_prefix("/debates/").map(str::to_string)
    })
    .await;

    // Round 1's cards appear in the page as it is: the marker would not survive a reload.
    client.execute("window.notReloaded = true;", Vec::new()).await.unwrap();
    wait_for_async("round 1's arguments", async || texts(&client, "#round-1 .card.argument").await.len() == 4).await;
    wait_for_async("the checkpoint", async || texts(&client, "#checkpoint button[data-action=guide]").await.pop())
        .await;
    assert_eq!(client.execute("return window.notReloaded === true;", Vec::new()).await.unwrap(), Value::Bool(true));
    let bar = assert_on_first_screen(&client, "#checkpoint", "a checkpoint's buttons").await;
    assert!(bar.starts_with("Round 1 is done") && bar.contains("Add guidance"), "{bar}");
    // Below the panel, the first round's arguments under the checkpoint's bar.
    run(&client, "document.getElementById('round-1').scrollIntoView();", Vec::new()).await;
    screenshot(&client, "dashboard-debate.png").await;

    click(&client, "#checkpoint button[data-action=guide]").await;
    client.find(Locator::Css("#guidance textarea")).await.unwrap().send_keys(GUIDANCE).await.unwrap();
    click(&client, "#guidance button[type=submit]").await;
    let shown =
        wait_for_async("round 2 with the guidance", async || texts(&client, "#round-2 .guidance").await.pop()).await;
    assert!(shown.contains(GUIDANCE), "{shown}");

    wait_for_async("the second checkpoint", async || texts(&client, "#checkpoint button[data-action=end]").await.pop())
        .await;
    // The bar stays in reach however far down one reads.
    run(&client, "window.scrollTo(0, document.body.scrollHeight);", Vec::new()).await;
    assert_in_view(&client, "#checkpoint", "a checkpoint's buttons at the page's end").await;
    click(&client, "#checkpoint button[data-action=end]").await;
    let commit =
        wait_for_async("the decision and its commit", async || texts(&client, "#synthesis code.commit").await.pop())
            .await;
    assert!(!texts(&client, "#synthesis .record-text").await.is_empty(), "the record, rendered");

    let log = git(&sandbox.repo, &["log", "-1", "--format=%H%n%B"]);
    assert!(log.starts_with(&commit), "{log}");
    assert!(log.contains(&format!("Debate-Id: {id}")), "{log}");
    let committed = git(&sandbox.repo, &["show", "--name-only", "--format=", "HEAD"]);
    let record = committed.lines().find(|l| !l.ends_with("/README.md")).unwrap_or_default();
    assert!(record.starts_with("docs/decisions/") && record.ends_with(".md"), "{committed}");
    let record = std::fs::read_to_string(sandbox.repo.join(record)).unwrap();
    assert!(record.contains(GUIDANCE), "the guidance is in the record's context");

    // A finished debate opens on its decision.
    let page = format!("{url}debates/{id}");
    client.goto(&page).await.unwrap();
    let chosen = assert_on_first_screen(&client, "#synthesis .chosen", "the chosen option").await;
    assert!(chosen.starts_with("Postgres"), "{chosen}");
    // Every section of the decision that has something in it, in the record's order.
    let filled: Vec<String> = sandbox.show(&id)["outcome"]["sections"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["empty"] == false)
        .map(|s| s["heading"].as_str().unwrap().to_string())
        .collect();
    assert!(filled.len() >= 8, "{filled:?}");
    // The live page may render again while it is read: read until it holds still.
    let css = "#synthesis .section > h3, #synthesis details.section > summary";
    wait_for_async("every section of the decision", async || texts(&client, css).await == filled).await;
    screenshot(&client, "dashboard-synthesis.png").await;
    click(&client, "#issue-draft").await;
    let shown = wait_for_async("the issue draft's notice", async || texts(&client, "#notice code").await.pop()).await;
    assert!(shown.starts_with("gh issue create"), "the command to file it, as code: {shown}");

    client.goto(&url).await.unwrap();
    assert_eq!(texts(&client, "table.debates:not(.decisions) tbody tr").await.len(), 2);
    screenshot(&client, "dashboard-list.png").await;

    viewport(&client, (PHONE, SCREEN.1)).await;
    assert_fits_a_phone(&client, &url).await;
    screenshot(&client, "dashboard-phone.png").await;
    assert_fits_a_phone(&client, &page).await;
    client.close().await.unwrap();
    if regenerating() {
        std::fs::write(docs().join("screenshots.sha256"), fingerprint()).unwrap();
    }

    // SIGTERM stops the server cleanly.
    let pid = server.child.id().to_string();
    assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    let status = server.child.wait().unwrap();
    assert!(status.success(), "{status:?}");
}
