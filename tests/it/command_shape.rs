//! The command shape git and cargo users expect: subcommands with the flag forms kept as
//! aliases, options anywhere on the line, and a mistyped command refused before anything
//! is written or any model is called; `debate config`.

use crate::common::*;
use predicates::prelude::*;

#[test]
fn commands_are_subcommands_and_the_flags_stay_aliases() {
    let sandbox = Sandbox::new();
    sandbox.cmd().args(["--offline", "-q", QUESTION]).assert().success();
    let id = sandbox.only_id();

    sandbox.cmd().arg("list").assert().success().stdout(predicate::str::contains(&id));
    sandbox.cmd().arg("--list").assert().success().stdout(predicate::str::contains(&id));
    let db = sandbox.db();
    let db = db.to_str().unwrap();
    // Options before the command, as git and cargo take them.
    sandbox.cmd().args(["--db", db, "list", "--all"]).assert().success().stdout(predicate::str::contains(&id));
    sandbox.cmd().args(["list", "--db", db, "--json"]).assert().success().stdout(predicate::str::starts_with("["));

    let shown = sandbox.cmd().args(["show", &id, "--json"]).assert().success().get_output().stdout.clone();
    let shown: serde_json::Value = serde_json::from_slice(&shown).unwrap();
    assert_eq!(shown, sandbox.show(&id), "`show ID` prints what `--show ID` prints");

    sandbox.cmd().args(["resume", &id]).assert().success().stderr(predicate::str::contains("already complete"));
    sandbox.cmd().args(["--all"]).assert().code(2).stderr(predicate::str::contains("debate list --all"));
}

/// A typo followed by its arguments (issue 32) gets the did-you-mean, with the line meant
/// to copy, not clap's complaint about the words after it.
#[test]
fn a_mistyped_command_with_arguments_is_named_with_the_line_meant() {
    let sandbox = Sandbox::new();
    for (args, said, meant) in [
        (&["shwo", "DEB-abc123"][..], "did you mean `debate show`?", "debate show DEB-abc123"),
        (
            &["acept", "docs/decisions/my record.md"],
            "did you mean `debate accept`?",
            "debate accept 'docs/decisions/my record.md'",
        ),
    ] {
        let out = sandbox.cmd().args(args).output().unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(said) && stderr.contains(meant), "{stderr}");
        assert!(!stderr.contains("unexpected argument"), "{stderr}");
    }
    assert!(!sandbox.db().exists(), "no state database");
}

#[test]
fn a_mistyped_command_is_refused_before_anything_is_written() {
    let sandbox = Sandbox::new();
    let before = sandbox.files();
    for (args, said) in [
        (&["--offline", "acept"][..], "did you mean `debate accept`?"),
        (&["list-all"], "did you mean `debate list`?"),
        (&["--offline", "shw"], "did you mean `debate show`?"),
        (&["--offline", "Kafka"], "one word"),
    ] {
        sandbox
            .cmd()
            .args(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(said).and(predicate::str::contains("debate new")));
    }
    assert_eq!(sandbox.files(), before, "nothing written in the repository or the home");
    assert!(!sandbox.db().exists(), "no state database");
    assert!(git(&sandbox.repo, &["log", "--oneline", "--all"]).is_empty(), "no commit");
}

#[test]
fn a_one_word_question_runs_after_new_or_a_separator() {
    let sandbox = Sandbox::new();
    sandbox.cmd().args(["new", "--offline", "-q", "--no-checkpoints", "Kafka"]).assert().success();
    sandbox.cmd().args(["--offline", "-q", "--", "Pulsar"]).assert().success();
    let titles: Vec<String> = sandbox.listed().iter().map(|d| d["title"].as_str().unwrap().to_string()).collect();
    assert_eq!(titles, ["Pulsar", "Kafka"]);
    assert_eq!(sandbox.records().len(), 2);
}

#[test]
fn config_says_where_each_setting_came_from() {
    let sandbox = Sandbox::new();
    write(&sandbox.repo, "team.yaml", "debate:\n  min_rounds: 3\nrecord:\n  directory: docs/adr\n");
    let out = sandbox
        .cmd()
        .args(["config", "--json"])
        .env("DEBATE_CONFIG", "team.yaml")
        .env("DEBATE_MAX_ROUNDS", "4")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let report: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let setting = |key: &str| {
        let found = report["settings"].as_array().unwrap().iter().find(|s| s["key"] == key);
        found.unwrap_or_else(|| panic!("{key} in {report}")).clone()
    };
    assert_eq!(
        (setting("debate.max_rounds")["value"].clone(), setting("debate.max_rounds")["from"].clone()),
        (4.into(), "DEBATE_MAX_ROUNDS".into())
    );
    assert_eq!(setting("debate.min_rounds")["from"], "team.yaml", "DEBATE_CONFIG names the settings file");
    assert_eq!(setting("record.directory")["value"], "docs/adr");
    assert_eq!(setting("record.commit")["from"], "default");
    let paths = report["paths"].as_array().unwrap();
    let file = paths.iter().find(|p| p["what"] == "settings file").expect("the settings file");
    assert_eq!(file["from"], "DEBATE_CONFIG");
    let db = paths.iter().find(|p| p["what"] == "state database").unwrap();
    assert_eq!(
        (db["path"].as_str().unwrap(), db["from"].as_str().unwrap()),
        (sandbox.db().to_str().unwrap(), "DEBATE_HOME")
    );

    sandbox
        .cmd()
        .args(["config"])
        .assert()
        .success()
        .stdout(predicate::str::contains("record.directory").and(predicate::str::contains("default")));
}

/// Flags before the subcommand are the subcommand's: a user who typed `--offline` is
/// never sent to the configured provider, whichever side of `new` it stood on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flags_before_new_are_taken_and_offline_calls_no_provider() {
    let mock = crate::common::llm::MockLlm::start().await;
    let sandbox = Sandbox::new();
    let config = sandbox.openai_compatible(&mock.base_url(), "", "");
    let config = config.to_str().unwrap().to_string();
    let out = sandbox
        .cmd()
        .env("DEBATE_TEST_KEY", "sk-test")
        .args(["--config", &config, "--offline", "--no-checkpoints", "-r", "1", "new", QUESTION, "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(mock.requests().len(), 0, "--offline before `new` sends nothing to the configured provider");
    let shown = sandbox.shown();
    assert_eq!(shown["rounds"], 1, "-r 1 before `new` is the debate's cap");
    sandbox
        .cmd()
        .args(["--offline", "show", shown["id"].as_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--offline does not go with `debate show`"));
}

/// Hints teach the subcommand forms (issue 32), never the old flags.
#[test]
fn hints_use_the_subcommand_forms() {
    let sandbox = Sandbox::new();
    sandbox.cmd().args(["--offline", "-r", "2", "--no-checkpoints", QUESTION]).assert().success();
    for (args, hint) in [(&["show", "DEB-zzzzzz"][..], "`debate list --all`"), (&["show", "DEB-z"], "`debate list`")] {
        let out = sandbox.cmd().args(args).output().unwrap();
        let stderr = text(&out.stderr);
        assert!(stderr.contains(hint), "{stderr}");
        assert!(!stderr.contains("debate --"), "an old form in: {stderr}");
    }
}
