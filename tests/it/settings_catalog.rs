//! Settings precedence and catalog overlays, observed through the binary.

use crate::common::*;
use predicates::prelude::*;

fn stored_max_rounds(sandbox: &Sandbox) -> u64 {
    let id = sandbox.only_id();
    let out = sandbox.cmd().args(["--show", &id, "--json"]).assert().success().get_output().stdout.clone();
    let state: serde_json::Value = serde_json::from_slice(&out).unwrap();
    state["rules"]["max_rounds"].as_u64().unwrap()
}

#[test]
fn each_layer_overrides_the_one_before() {
    // defaults (5) < user file < repository file < --config < environment < flag
    let layers: [(&str, u64); 5] = [("user", 2), ("repo", 3), ("config", 4), ("env", 6), ("flag", 7)];
    for top in 0..layers.len() {
        let sandbox = Sandbox::new();
        let mut cmd = sandbox.cmd();
        cmd.args(["--offline", "-q"]);
        for (layer, rounds) in &layers[..=top] {
            let yaml = format!("debate:\n  max_rounds: {rounds}\n");
            match *layer {
                "user" => {
                    let dir = sandbox.home.join("config/debate");
                    std::fs::create_dir_all(&dir).unwrap();
                    std::fs::write(dir.join("settings.yaml"), yaml).unwrap();
                }
                "repo" => {
                    std::fs::create_dir_all(sandbox.repo.join(".debate")).unwrap();
                    std::fs::write(sandbox.repo.join(".debate/settings.yaml"), yaml).unwrap();
                }
                "config" => {
                    let path = sandbox.home.join("extra.yaml");
                    std::fs::write(&path, yaml).unwrap();
                    cmd.arg("--config").arg(path);
                }
                "env" => {
                    cmd.env("DEBATE_MAX_ROUNDS", rounds.to_string());
                }
                _ => {
                    cmd.args(["--max-rounds", &rounds.to_string()]);
                }
            }
        }
        cmd.arg(QUESTION).assert().success();
        assert_eq!(stored_max_rounds(&sandbox), layers[top].1, "top layer: {}", layers[top].0);
    }
}

#[test]
fn repository_catalog_adds_and_overrides_perspectives() {
    let sandbox = Sandbox::new();
    std::fs::create_dir_all(sandbox.repo.join(".debate")).unwrap();
    std::fs::write(
        sandbox.repo.join(".debate/perspectives.yaml"),
        "perspectives:\n  - name: Accessibility\n    priorities: [screen readers, keyboard use]\n    trade_offs: Will accept slower delivery\n    keywords: [a11y]\n    opposes: [Developer Velocity]\n  - name: cost control\n    priorities: [our own cost priority]\n    trade_offs: Will accept anything cheap\n    opposes: [Performance Advocate]\n",
    )
    .unwrap();
    sandbox
        .cmd()
        .args(["--offline", "--with", "accessibility", "--with", "Cost Control", "-p", "3", QUESTION])
        .assert()
        .success()
        .stderr(predicate::str::contains("Accessibility — requested with --with"));
    let record = std::fs::read_to_string(&sandbox.records()[0]).unwrap();
    assert!(record.contains("### Accessibility") && record.contains("our own cost priority"), "{record}");
}

#[test]
fn custom_perspectives_in_settings_extend_the_catalog() {
    let sandbox = Sandbox::new();
    let config = sandbox.home.join("custom.yaml");
    std::fs::write(
        &config,
        "debate:\n  custom_perspectives:\n    - name: Compliance First\n      priorities: [audit trails, SOC2]\n      trade_offs: Will accept development slowdown\n      opposes: [Developer Velocity]\n",
    )
    .unwrap();
    sandbox
        .cmd()
        .arg("--config")
        .arg(&config)
        .args(["--offline", "--with", "compliance first", QUESTION])
        .assert()
        .success()
        .stderr(predicate::str::contains("Compliance First — requested with --with"));
}

#[test]
fn the_moderator_may_refine_the_panel_with_catalog_entries_only() {
    for (answer, expected) in [
        (
            r#"{"perspectives": [{"name": "Cost Control", "reason": "the bill decides"}, {"name": "Performance Advocate", "reason": "latency"}]}"#,
            "Cost Control — the bill decides",
        ),
        // Not in the catalog: the keyword panel stands.
        (
            r#"{"perspectives": [{"name": "Wizard"}, {"name": "Performance Advocate"}]}"#,
            "Operational Simplicity — The question implies",
        ),
    ] {
        let sandbox = Sandbox::new();
        let answers = varied_answers(&["Cost Control", "Performance Advocate", "Operational Simplicity"], 1, AGREE)
            .replacen("answers:\n", &format!("answers:\n  - {{purpose: analysis, text: '{answer}'}}\n"), 1);
        let config = sandbox.scripted(&answers);
        sandbox
            .cmd()
            .arg("--config")
            .arg(&config)
            .arg(QUESTION)
            .assert()
            .success()
            .stderr(predicate::str::contains(expected));
    }
}
