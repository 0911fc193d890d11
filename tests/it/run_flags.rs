//! Each flag of a run means the same whichever command gives it (issue 40): through `new`,
//! `resume` of a paused debate and `review` of a complete one, the same effect on the
//! rules the debate runs under, or the same refusal where a flag cannot apply to a debate
//! already under way — saying why.

use std::path::PathBuf;

use serde_json::Value;

use crate::common::*;

/// A repository with an identity and a first commit, and a settings file whose scripted
/// provider answers every round of a two-perspective debate; a second provider, `alt`,
/// answers from the same script.
fn sandbox() -> (Sandbox, PathBuf) {
    let sandbox = Sandbox::new();
    git(&sandbox.repo, &["config", "user.name", "Test"]);
    git(&sandbox.repo, &["config", "user.email", "test@example.com"]);
    git(&sandbox.repo, &["commit", "-q", "--allow-empty", "-m", "start"]);
    write(&sandbox.repo, "notes.md", "Peak load is 2,000 reads a second.\n");
    let config = settings(&sandbox, &varied_answers(&PANEL, 4, CONTINUE));
    (sandbox, config)
}

/// The scripted settings with `answers`, and the `alt` provider beside it.
fn settings(sandbox: &Sandbox, answers: &str) -> PathBuf {
    let config = sandbox.scripted(answers);
    let text = std::fs::read_to_string(&config).unwrap();
    let alt = "  alt: {kind: scripted, script: script.yaml}\n";
    std::fs::write(
        &config,
        text.replace(
            "  scripted: {kind: scripted, script: script.yaml}\n",
            &format!("  scripted: {{kind: scripted, script: script.yaml}}\n{alt}"),
        ),
    )
    .unwrap();
    config
}

/// A debate paused in round 2 by a failing debater, its script whole again.
fn paused(sandbox: &Sandbox) -> String {
    let answers = varied_answers(&PANEL, 4, CONTINUE);
    let failing = format!("{{purpose: argument, round: 2, perspective: \"{}\"", PANEL[1]);
    let config = settings(sandbox, &replace_answers(&answers, &failing, &format!("{failing}, error: overloaded}}")));
    let out = sandbox.cmd().arg("--config").arg(&config).args(["-r", "3", QUESTION]).output().unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    settings(sandbox, &answers);
    sandbox.newest_id()
}

/// A complete one-round debate.
fn complete(sandbox: &Sandbox, config: &PathBuf) -> String {
    let out = sandbox.cmd().arg("--config").arg(config).args(["-r", "1", QUESTION]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    sandbox.newest_id()
}

/// The rules the debate `id` runs under, as stored.
fn snapshot(sandbox: &Sandbox, id: &str) -> Value {
    let stored: String =
        sandbox.sqlite().query_row("SELECT snapshot FROM debates WHERE id = ?1", [id], |row| row.get(0)).unwrap();
    serde_json::from_str(&stored).unwrap()
}

/// What a flag must have done to the stored rules.
type Effect = fn(&Value) -> bool;

/// Each flag, and what it does to a debate that takes it; `None`: fixed when a debate
/// starts, refused for one under way.
fn flags() -> Vec<(Vec<&'static str>, Option<Effect>)> {
    vec![
        (vec!["--no-checkpoints"], Some(|s| s["debate"]["checkpoints"] == false)),
        (vec!["--provider", "alt"], Some(|s| s["moderator"]["provider"] == "alt" && s["debater"]["provider"] == "alt")),
        (vec!["--model", "m2"], Some(|s| s["moderator"]["model"] == "m2" && s["debater"]["model"] == "m2")),
        (vec!["--offline"], Some(|s| s["moderator"]["kind"] == "offline" && s["debater"]["kind"] == "offline")),
        (vec!["-p", "3"], None),
        (vec!["--with", "Cost Control"], None),
        (vec!["--context", "notes.md"], None),
    ]
}

#[test]
fn every_flag_means_the_same_for_a_new_resumed_and_reviewed_debate() {
    let (sandbox, config) = sandbox();
    for (flag, effect) in flags() {
        // New: the flag takes effect, whatever it is.
        let new_args: Vec<&str> = match flag[0] {
            // A panel other than the script's is debated offline.
            "-p" | "--with" => vec!["--offline"],
            _ => Vec::new(),
        };
        let out = sandbox
            .cmd()
            .arg("--config")
            .arg(&config)
            .args(&new_args)
            .args(["-r", "1"])
            .args(&flag)
            .arg(QUESTION)
            .output()
            .unwrap();
        assert!(out.status.success(), "new {flag:?}: {}", text(&out.stderr));
        let id = sandbox.newest_id();
        let rules = snapshot(&sandbox, &id);
        match flag[0] {
            "-p" => assert_eq!(rules["requested_size"], 3, "new {flag:?}"),
            "--with" => assert_eq!(rules["forced"][0], "Cost Control", "new {flag:?}"),
            "--context" => assert_eq!(rules["context"][0]["path"], "notes.md", "new {flag:?}"),
            _ => assert!(effect.unwrap()(&rules), "new {flag:?}: {rules}"),
        }

        // Resumed and reviewed: the same effect, or the same refusal with its reason.
        let resumed = paused(&sandbox);
        let reviewed = complete(&sandbox, &config);
        let through = [
            (vec!["resume", resumed.as_str()], resumed.as_str()),
            (vec!["review", reviewed.as_str(), "--guide", "What about cost?"], reviewed.as_str()),
        ];
        let mut refusals = Vec::new();
        for (command, id) in through {
            let out = sandbox.cmd().arg("--config").arg(&config).args(&command).args(&flag).output().unwrap();
            let stderr = text(&out.stderr);
            match effect {
                Some(effect) => {
                    assert!(out.status.success(), "{command:?} {flag:?}: {stderr}");
                    assert!(effect(&snapshot(&sandbox, id)), "{command:?} {flag:?}: {}", snapshot(&sandbox, id));
                }
                None => {
                    assert_eq!(out.status.code(), Some(2), "{command:?} {flag:?}: {stderr}");
                    assert!(stderr.contains("is fixed when a debate starts"), "{command:?} {flag:?}: {stderr}");
                    refusals.push(stderr.lines().next().unwrap_or_default().replace(id, "ID"));
                }
            }
        }
        if let [resume, review] = refusals.as_slice() {
            assert_eq!(resume, review, "{flag:?}: the same refusal");
        }
    }
}

/// `-r` is the cap on rounds in all, whatever command gives it: a new debate's, a paused
/// one's (it argues on to it), a review's (which must add a round).
#[test]
fn max_rounds_caps_the_rounds_in_all_wherever_it_is_given() {
    let (sandbox, config) = sandbox();
    let out = sandbox.cmd().arg("--config").arg(&config).args(["-r", "2", QUESTION]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(sandbox.show(&sandbox.newest_id())["rounds"], 2);

    let resumed = paused(&sandbox);
    let out = sandbox.cmd().arg("--config").arg(&config).args(["resume", &resumed, "-r", "4"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(sandbox.show(&resumed)["rounds"], 4, "the paused debate argues on to the new cap");

    let reviewed = complete(&sandbox, &config);
    let review = ["review", reviewed.as_str(), "--guide", "What about cost?"];
    let out = sandbox.cmd().arg("--config").arg(&config).args(review).args(["-r", "1"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "a review's cap must add a round: {}", text(&out.stderr));
    assert!(text(&out.stderr).contains("--max-rounds 1 adds none"), "{}", text(&out.stderr));
    let out = sandbox.cmd().arg("--config").arg(&config).args(review).args(["-r", "3"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(sandbox.show(&reviewed)["rounds"], 3);
}
