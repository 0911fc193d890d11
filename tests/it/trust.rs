//! A cloned repository's `.debate/settings.yaml` is untrusted input: what it says about
//! where keys and questions go, or what runs, takes effect only once the user trusts
//! that exact file with `debate trust`.

use std::path::Path;
use std::process::Output;

use crate::common::llm::MockLlm;
use crate::common::*;

const KEY: &str = "sk-users-own-key-5f3a9c7b1d";

fn repository_settings(sandbox: &Sandbox, yaml: &str) {
    let dir = sandbox.repo.join(".debate");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("settings.yaml"), yaml).unwrap();
}

/// `debate <args>` with the user's key in the environment, off the async runtime.
async fn run(sandbox: &Sandbox, args: &[&str]) -> Output {
    let mut cmd = sandbox.std_cmd();
    cmd.args(args).env("OPENAI_API_KEY", KEY);
    tokio::task::spawn_blocking(move || cmd.output().unwrap()).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cloned_repository_cannot_send_the_key_elsewhere_until_its_file_is_trusted() {
    let collector = MockLlm::start().await;
    let sandbox = Sandbox::new();
    repository_settings(
        &sandbox,
        &format!(
            "debate:\n  checkpoints: false\n  max_rounds: 1\nproviders:\n  openai:\n    base_url: \"{}\"\n    model: m\n",
            collector.base_url()
        ),
    );
    let before = sandbox.files();
    let refused = run(&sandbox, &[QUESTION]).await;
    assert_eq!(refused.status.code(), Some(4), "{}", text(&refused.stderr));
    let stderr = text(&refused.stderr);
    assert!(stderr.contains("is not trusted") && stderr.contains("providers.openai.base_url"), "{stderr}");
    assert!(stderr.contains(&collector.base_url()) && stderr.contains("debate trust"), "{stderr}");
    assert_eq!(stderr.lines().count(), 2, "{stderr}");
    assert!(collector.requests().is_empty(), "not one request went to the repository's endpoint");
    assert_eq!(before, sandbox.files(), "nothing was written");

    let trusted = run(&sandbox, &["trust"]).await;
    assert!(trusted.status.success(), "{}", text(&trusted.stderr));
    assert!(text(&trusted.stderr).contains(&format!("providers.openai.base_url = \"{}\"", collector.base_url())));
    let ran = run(&sandbox, &[QUESTION]).await;
    assert!(ran.status.success(), "{}", text(&ran.stderr));
    assert!(!collector.requests().is_empty());
    assert!(
        collector.requests().iter().all(|r| r["authorization"] == format!("Bearer {KEY}")),
        "trusted: the user agreed"
    );

    // Any change needs trust again, and trust can be taken back.
    let settings = sandbox.repo.join(".debate/settings.yaml");
    std::fs::write(&settings, std::fs::read_to_string(&settings).unwrap() + "# one more line\n").unwrap();
    assert_eq!(run(&sandbox, &[QUESTION]).await.status.code(), Some(4), "a changed file is no longer trusted");
    run(&sandbox, &["trust"]).await;
    assert!(run(&sandbox, &["--no-commit", QUESTION]).await.status.success());
    let revoked = run(&sandbox, &["trust", "--revoke"]).await;
    assert!(text(&revoked.stderr).contains("is no longer trusted"), "{}", text(&revoked.stderr));
    assert_eq!(run(&sandbox, &[QUESTION]).await.status.code(), Some(4));
}

#[test]
fn a_repository_cannot_switch_to_canned_answers_silently() {
    let sandbox = Sandbox::new();
    std::fs::create_dir_all(sandbox.repo.join(".debate")).unwrap();
    std::fs::write(sandbox.repo.join(".debate/script.yaml"), varied_answers(&PANEL, 1, AGREE)).unwrap();
    repository_settings(
        &sandbox,
        "debate:\n  checkpoints: false\n  min_rounds: 1\nproviders:\n  default: demo\n  demo: {kind: scripted, script: script.yaml}\n",
    );
    let refused = sandbox.cmd().arg(QUESTION).output().unwrap();
    assert_eq!(refused.status.code(), Some(4));
    let stderr = text(&refused.stderr);
    assert!(
        stderr.contains("providers.default = \"demo\"") && stderr.contains("providers.demo.kind = \"scripted\""),
        "{stderr}"
    );

    sandbox.cmd().arg("trust").assert().success();
    let ran = sandbox.cmd().arg(QUESTION).output().unwrap();
    assert!(ran.status.success(), "{}", text(&ran.stderr));
    assert!(
        text(&ran.stderr).contains("Provider: the scripted provider"),
        "named on the terminal: {}",
        text(&ran.stderr)
    );
    let record = std::fs::read_to_string(&sandbox.records()[0]).unwrap();
    assert!(record.contains("**Scripted debate.**"), "named in the record:\n{record}");

    // Trust covers the script too: a pull that changes it needs trust again.
    let script = sandbox.repo.join(".debate/script.yaml");
    let changed = std::fs::read_to_string(&script).unwrap().replace("Both now recommend", "All now recommend");
    std::fs::write(&script, changed).unwrap();
    let refused = sandbox.cmd().arg("Monolith or microservices?").output().unwrap();
    assert_eq!(refused.status.code(), Some(4), "{}", text(&refused.stderr));
}

#[test]
fn settings_that_only_shape_the_debate_need_no_trust() {
    let sandbox = Sandbox::new();
    repository_settings(
        &sandbox,
        "debate:\n  max_rounds: 2\n  checkpoints: false\nrecord:\n  directory: docs/adr\n  filename: \"{number}-{slug}.md\"\nproviders:\n  openai:\n    model: gpt-4o\n",
    );
    let out = sandbox.cmd().args(["--offline", QUESTION]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(sandbox.repo.join("docs/adr/0001-should-we-use-redis-or-postgres-for-caching.md").is_file());
}

#[test]
fn a_file_that_does_not_parse_is_not_trusted() {
    let sandbox = Sandbox::new();
    repository_settings(&sandbox, "providers:\n  openai: [not, a, mapping\n");
    let out = sandbox.cmd().arg("trust").output().unwrap();
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("settings.yaml:"), "{}", text(&out.stderr));
    assert!(!sandbox.home.join("trusted.json").exists());
}

#[test]
fn a_script_cannot_write_its_log_outside_its_directory() {
    let sandbox = Sandbox::new();
    let config = sandbox.scripted(&varied_answers(&PANEL, 1, AGREE));
    let script = sandbox.home.join("script.yaml");
    let text_of_script =
        std::fs::read_to_string(&script).unwrap().replace("log: prompts.jsonl", "log: ../../escaped.jsonl");
    std::fs::write(&script, text_of_script).unwrap();
    let out = sandbox.cmd().arg("--config").arg(&config).arg(QUESTION).output().unwrap();
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("`log` must be a file name beside the script"), "{}", text(&out.stderr));
    let escaped = Path::new(&sandbox.home).join("../../escaped.jsonl");
    assert!(!escaped.exists(), "the log was written outside: {}", escaped.display());
}

#[test]
fn a_script_log_that_is_a_link_is_not_followed() {
    let sandbox = Sandbox::new();
    let config = sandbox.scripted(&varied_answers(&PANEL, 1, AGREE));
    let target = sandbox.repo.join("victim.txt");
    std::fs::write(&target, "precious\n").unwrap();
    std::os::unix::fs::symlink(&target, sandbox.home.join("prompts.jsonl")).unwrap();
    let out = sandbox.cmd().arg("--config").arg(&config).arg(QUESTION).output().unwrap();
    assert!(!out.status.success(), "{}", text(&out.stderr));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious\n", "nothing was appended through the link");
}
