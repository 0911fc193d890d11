//! Debates through a real gateway: LiteLLM's proxy (1.82.6, from PyPI; a third-party
//! implementation of both OpenAI's and Anthropic's wire formats), started by
//! `.ci/litellm-proxy` in front of a stand-in backend on this machine. A debate in each
//! format completes, counts its prompt tokens and commits its record.
//!
//! Runs when `DEBATE_LITELLM` is set (`.ci/run` sets it, having installed the proxy);
//! otherwise it says it is skipped.

use std::path::Path;

use crate::common::llm::MockLlm;
use crate::common::*;

/// The proxy, stopped however the test ends.
struct Proxy {
    script: std::path::PathBuf,
    url: String,
}

impl Proxy {
    fn start(backend: &str) -> Proxy {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/litellm-proxy");
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let out = std::process::Command::new(&script).args(["start", &port.to_string(), backend]).output().unwrap();
        assert!(out.status.success(), "the proxy did not start: {}", text(&out.stderr));
        Proxy { script, url: text(&out.stdout).trim().to_string() }
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = std::process::Command::new(&self.script).arg("stop").status();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn debates_through_litellm_in_both_wire_formats() {
    if std::env::var_os("DEBATE_LITELLM").is_none() {
        eprintln!("skipped: no LiteLLM proxy (.ci/litellm-proxy install; then set DEBATE_LITELLM=1)");
        return;
    }
    let backend = MockLlm::start().await;
    let proxy = Proxy::start(&backend.base_url());
    for (kind, base_url) in [("openai", format!("{}/v1", proxy.url)), ("anthropic", proxy.url.clone())] {
        let sandbox = Sandbox::new();
        git(&sandbox.repo, &["config", "user.name", "Test"]);
        git(&sandbox.repo, &["config", "user.email", "test@example.com"]);
        let config = sandbox.home.join("settings.yaml");
        std::fs::write(
            &config,
            format!(
                "providers:\n  default: gateway\n  gateway: {{kind: {kind}, base_url: \"{base_url}\", api_key_env: DEBATE_TEST_KEY, model: gateway-model, max_retries: 2}}\n"
            ),
        )
        .unwrap();
        let out = sandbox
            .cmd()
            .env("DEBATE_TEST_KEY", "sk-debate-ci")
            .arg("--config")
            .arg(&config)
            .args(["-p", "2", "-r", "2", "--no-checkpoints", QUESTION])
            .output()
            .unwrap();
        assert!(out.status.success(), "{kind}: {}", text(&out.stderr));
        let shown = sandbox.shown();
        assert_eq!(shown["status"], "complete", "{kind}");
        let prompt_tokens = shown["tokens"]["prompt"].as_u64().unwrap_or(0);
        assert!(prompt_tokens > 0, "{kind}: prompt tokens counted: {shown}");
        let log = git(&sandbox.repo, &["log", "-1", "--format=%B"]);
        assert!(log.contains(&format!("Debate-Id: {}", sandbox.only_id())), "{kind}: committed: {log}");
    }
}
