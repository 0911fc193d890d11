//! A debate run as a user runs it: the binary, a real git repository, a real SQLite file.

use crate::common::*;
use predicates::prelude::*;

#[test]
fn offline_debate_completes_writes_the_record_and_lists_as_complete() {
    let sandbox = Sandbox::new();
    let run = sandbox.cmd().args(["--offline", QUESTION]).assert().success();
    let out = run.get_output();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);

    // The panel with reasons, each round's assessment, the end reason and the synthesis.
    assert!(stderr.contains("Panel: 2 perspectives"), "{stderr}");
    assert!(stderr.contains("Performance Advocate — The question implies"), "{stderr}");
    assert!(stderr.contains("═══ Round 1 of 5 ═══") && stderr.contains("assessment:"), "{stderr}");
    assert!(
        stderr.contains("Options: Redis · Postgres\nPanel: 2 perspectives"),
        "the options after the analysis: {stderr}"
    );
    assert!(stderr.contains("Debate ended:"), "{stderr}");
    assert!(stderr.contains("Recommendation:") && stderr.contains("Confidence: Low"), "{stderr}");
    assert!(stderr.contains("not reasoned by a model"), "the offline label is shown: {stderr}");

    // stdout holds only the record path, and the record is under docs/decisions.
    let records = sandbox.records();
    assert_eq!(records.len(), 1);
    let shown = std::path::PathBuf::from(stdout.trim());
    assert_eq!(shown.canonicalize().unwrap(), records[0].canonicalize().unwrap());
    let record = std::fs::read_to_string(&records[0]).unwrap();
    assert!(record.contains("## Recommendation") && record.contains("**Offline debate.**"), "{record}");

    let id = sandbox.only_id();
    sandbox
        .cmd()
        .arg("--list")
        .assert()
        .success()
        .stdout(predicate::str::contains(&id).and(predicate::str::contains("complete")));
}

/// Run a scripted debate to its end; returns (stdout, stderr).
fn run_scripted(sandbox: &Sandbox, config: &std::path::Path, extra: &[&str]) -> (String, String) {
    let mut cmd = sandbox.cmd();
    cmd.arg("--config").arg(config).args(extra).arg(QUESTION);
    let out = cmd.assert().success().get_output().clone();
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// The only debate's status, end, confidence and rounds, as `--show --json` prints them.
fn debate_row(sandbox: &Sandbox) -> (String, String, Option<String>, u64) {
    let detail = sandbox.shown();
    let text = |key: &str| detail[key].as_str().map(str::to_string);
    (text("status").unwrap(), text("ended_by").unwrap(), text("confidence"), detail["rounds"].as_u64().unwrap())
}

fn purposes(sandbox: &Sandbox) -> Vec<String> {
    sandbox.prompts().iter().map(|p| p["purpose"].as_str().unwrap().to_string()).collect()
}

#[test]
fn agreement_in_round_one_ends_after_one_round_and_still_writes_the_record() {
    let sandbox = Sandbox::new();
    let config = sandbox.scripted(&varied_answers(&PANEL, 5, AGREE));
    let (stdout, stderr) = run_scripted(&sandbox, &config, &[]);
    assert!(stderr.contains("Debate ended: agreement"), "{stderr}");
    assert!(stderr.contains("2 argument(s) written for round 2 while round 1 was judged are discarded"), "{stderr}");
    let (status, reason, confidence, rounds) = debate_row(&sandbox);
    assert_eq!((status.as_str(), reason.as_str(), rounds), ("complete", "agreement", 1));
    assert_eq!(confidence.as_deref(), Some("high"), "an undegraded agreement keeps the model's confidence");
    // Nobody waits between rounds: round 2's arguments ran alongside round 1's
    // evaluation, which then ended the debate. They are kept as discarded, and counted.
    let mut made = purposes(&sandbox);
    made[5..8].sort();
    assert_eq!(
        made,
        ["analysis", "argument", "argument", "rebuttal", "rebuttal", "argument", "argument", "evaluation", "synthesis"]
    );
    let record = std::fs::read_to_string(stdout.trim()).unwrap();
    assert!(record.contains("- 2 arguments written for round 2 were discarded: round 1's evaluation"), "{record}");
    let id = sandbox.only_id();
    let shown = sandbox.cmd().args(["--show", &id]).output().unwrap();
    let shown = String::from_utf8_lossy(&shown.stdout).to_string();
    assert!(shown.contains("Discarded:  2 round-2 argument(s)"), "{shown}");
    assert!(shown.contains(&format!("[{} — argument] ", PANEL[0])) && shown.contains("of them cached"), "{shown}");
    let json = sandbox.cmd().args(["--show", &id, "--json"]).output().unwrap();
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(json["discarded"].as_array().map(Vec::len), Some(1), "{}", json["discarded"]);
    assert_eq!(json["discarded"][0]["round"], 2);
    assert_eq!(json["discarded"][0]["arguments"], 2);
    assert!(record.contains("ended_by: agreement") && record.contains("Cache in Postgres now"), "{record}");
}

#[test]
fn clear_winner_ends_the_debate() {
    let sandbox = Sandbox::new();
    let winner = CONTINUE.replace(r#""clear_winner": null"#, r#""clear_winner": "Operational Simplicity""#);
    let config = sandbox.scripted(&varied_answers(&PANEL, 5, &winner));
    let (_, stderr) = run_scripted(&sandbox, &config, &[]);
    assert!(stderr.contains("clear winner: Operational Simplicity"), "{stderr}");
    let (_, reason, _, rounds) = debate_row(&sandbox);
    assert_eq!((reason.as_str(), rounds), ("clear-winner", 1));
}

#[test]
fn repeating_debaters_stagnate() {
    let sandbox = Sandbox::new();
    // The same words every round: round 2 repeats round 1 entirely.
    let same = fresh_words("same", 60);
    let answers = format!(
        "answers:\n  - {{purpose: argument, text: \"{{perspective}} holds {same}\"}}\n  - {{purpose: rebuttal, text: \"{{perspective}} answers {same}\"}}\n  - {{purpose: evaluation, text: '{CONTINUE}'}}\n  - {{purpose: synthesis, text: '{SYNTHESIS}'}}\n"
    );
    let config = sandbox.scripted(&answers);
    let (_, stderr) = run_scripted(&sandbox, &config, &[]);
    assert!(stderr.contains("repetition: Performance Advocate 100%, Operational Simplicity 100%"), "{stderr}");
    let (_, reason, _, rounds) = debate_row(&sandbox);
    assert_eq!((reason.as_str(), rounds), ("stagnation", 2));
}

#[test]
fn max_rounds_without_convergence_gives_low_confidence_and_lists_tensions() {
    let sandbox = Sandbox::new();
    // Performance Advocate holds out for Redis to the end.
    let answers: Vec<String> = varied_answers(&PANEL, 3, CONTINUE)
        .lines()
        .map(|line| match line.contains(&format!("\"{}\"", PANEL[0])) {
            true => line.replace(r#"\"Postgres\""#, r#"\"Redis\""#),
            false => line.to_string(),
        })
        .collect();
    let config = sandbox.scripted(&answers.join("\n"));
    let (stdout, _) = run_scripted(&sandbox, &config, &["--max-rounds", "3"]);
    let (status, reason, confidence, rounds) = debate_row(&sandbox);
    assert_eq!((status.as_str(), reason.as_str(), rounds), ("complete", "max-rounds", 3));
    assert_eq!(confidence.as_deref(), Some("low"), "the synthesis said High; max rounds forces Low");
    let record = std::fs::read_to_string(stdout.trim()).unwrap();
    assert!(record.contains("confidence: Low") && record.contains("- latency against operations"), "{record}");
    assert_eq!(
        purposes(&sandbox).iter().filter(|p| *p == "evaluation").count(),
        2,
        "one evaluation call per round but the last, which the synthesis judges"
    );
}

#[test]
fn a_round_that_times_out_goes_to_synthesis_with_what_it_has() {
    let sandbox = Sandbox::new();
    let answers = replace_answers(
        &varied_answers(&PANEL, 3, CONTINUE),
        "{purpose: argument, round: 2,",
        "{purpose: argument, round: 2, text: slow, delay_ms: 5000}",
    );
    let config = sandbox.scripted_with(&answers, "  round_timeout_seconds: 1\n");
    let (_, stderr) = run_scripted(&sandbox, &config, &[]);
    assert!(stderr.contains("Debate ended: timeout"), "{stderr}");
    let (status, reason, confidence, rounds) = debate_row(&sandbox);
    assert_eq!((status.as_str(), reason.as_str(), rounds), ("complete", "timeout", 2));
    assert_eq!(confidence.as_deref(), Some("medium"), "a timeout is a degradation: High lowered one step");
}

#[test]
fn debater_prompts_carry_question_perspective_and_the_other_names() {
    let sandbox = Sandbox::new();
    let config = sandbox.scripted(&varied_answers(&PANEL, 2, CONTINUE));
    run_scripted(&sandbox, &config, &["--max-rounds", "2"]);
    let prompts = sandbox.prompts();
    let debater: Vec<_> = prompts.iter().filter(|p| p["perspective"].is_string()).collect();
    assert_eq!(debater.len(), 8);
    for p in &debater {
        let me = p["perspective"].as_str().unwrap();
        let other = PANEL.iter().find(|n| **n != me).unwrap();
        let user = p["prompt"].as_str().unwrap();
        assert!(user.contains(QUESTION), "question missing: {user}");
        let part = &user[user.find("## Your part").expect("the debater's own part comes after the shared context")..];
        assert!(part.contains(&format!("\"{me}\"")) && part.contains(other), "names missing: {part}");
        assert!(part.contains("a perspective of the panel above"), "{part}");
        assert!(user.contains(&format!("- {me}: priorities ")), "the panel, before the call's own part: {user}");
        assert!(user.contains("Keep each answer under about 450 words"), "{user}");
        assert_eq!(
            p["max_tokens"], 675,
            "the completion limit follows the 450 words asked, not the 2,000-token budget"
        );
    }
    // One system prompt for every call, so a provider's prefix cache serves it.
    assert!(prompts.iter().all(|p| p["system"] == prompts[0]["system"]));
    // Every rebuttal sees every argument of its round.
    for p in debater.iter().filter(|p| p["purpose"] == "rebuttal") {
        let round = p["round"].as_u64().unwrap();
        for name in PANEL {
            let argument = fresh_words(&format!("{name}{round}argument"), 60);
            assert!(
                p["prompt"].as_str().unwrap().contains(&argument),
                "rebuttal misses {name}'s round-{round} argument"
            );
        }
    }
    // Nobody waits between rounds: round 2 is argued while round 1 is judged, from
    // round 1 in full.
    let round2 = debater.iter().find(|p| p["round"] == 2).unwrap();
    let prompt = round2["prompt"].as_str().unwrap();
    assert!(prompt.contains("### Round 1\n") && !prompt.contains("Summary of round 1"), "{prompt}");
}

#[test]
fn sequential_rebuttals_see_the_rebuttals_before_them() {
    for (mode, sees) in [("sequential", true), ("parallel", false)] {
        let sandbox = Sandbox::new();
        let config = sandbox.scripted_with(&varied_answers(&PANEL, 1, AGREE), &format!("  rebuttals: {mode}\n"));
        run_scripted(&sandbox, &config, &[]);
        let prompts = sandbox.prompts();
        let second = prompts.iter().find(|p| p["purpose"] == "rebuttal" && p["perspective"] == PANEL[1]).unwrap();
        let first_rebuttal = fresh_words(&format!("{}1rebuttal", PANEL[0]), 60);
        assert_eq!(second["prompt"].as_str().unwrap().contains(&first_rebuttal), sees, "{mode}");
    }
}

#[test]
fn unlimited_budget_sends_no_completion_limit() {
    let sandbox = Sandbox::new();
    let config = sandbox.scripted_with(&varied_answers(&PANEL, 1, AGREE), "  token_budget_per_round: unlimited\n");
    run_scripted(&sandbox, &config, &[]);
    let prompts = sandbox.prompts();
    let argument = prompts.iter().find(|p| p["purpose"] == "argument").unwrap();
    assert!(argument["max_tokens"].is_null());
}

/// The debate so far only grows, round after round: every debater call continues what
/// the calls of the round before sent (a prefix cache serves it), and it stays within
/// its budget (older rounds stand as their summaries once the rounds in full outgrow it).
#[test]
fn the_debate_so_far_grows_round_after_round_within_its_budget() {
    let sandbox = Sandbox::new();
    let config = sandbox.scripted(&varied_answers(&PANEL, 5, CONTINUE));
    run_scripted(&sandbox, &config, &[]);
    let prompts = sandbox.prompts();
    let account = |purpose: &str, round: u64, who: &str| {
        let p =
            prompts.iter().find(|p| p["purpose"] == purpose && p["round"] == round && p["perspective"] == who).unwrap();
        let prompt = p["prompt"].as_str().unwrap();
        prompt[..prompt.find("## Your part").unwrap()].trim_end().to_string()
    };
    for who in PANEL {
        for round in 2..=5 {
            let before = account("rebuttal", round - 1, who);
            let now = account("argument", round, who);
            assert!(now.starts_with(&before), "round {round}'s argument continues round {}'s rebuttals", round - 1);
        }
        assert!(account("argument", 5, who).len() < 24_000 + 8_000, "within the budget");
    }
}

#[test]
fn contributions_are_stored_and_shown_in_panel_order_not_completion_order() {
    let sandbox = Sandbox::new();
    // The first seat answers last.
    let answers = varied_answers(&PANEL, 1, AGREE).replace(
        &format!("perspective: \"{}\", text:", PANEL[0]),
        &format!("perspective: \"{}\", delay_ms: 300, text:", PANEL[0]),
    );
    let config = sandbox.scripted(&answers);
    let (_, stderr) = run_scripted(&sandbox, &config, &[]);
    let first = stderr.find(&format!("✓ {}: argument", PANEL[0])).unwrap();
    let second = stderr.find(&format!("✓ {}: argument", PANEL[1])).unwrap();
    assert!(first < second, "{stderr}");
    let id = sandbox.only_id();
    let shown = sandbox.cmd().args(["--show", &id]).assert().success().get_output().stdout.clone();
    let shown = String::from_utf8(shown).unwrap();
    let a = shown.find(&format!("[{} — argument] ", PANEL[0])).unwrap();
    let b = shown.find(&format!("[{} — argument] ", PANEL[1])).unwrap();
    assert!(a < b, "{shown}");
    // The database itself: the order the arguments were stored in, which --show (in seat
    // order) does not print.
    let completed: Vec<i64> = sandbox
        .sqlite()
        .prepare("SELECT seat FROM contributions WHERE kind = 'argument' ORDER BY created_at")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(completed, [1, 0], "the slow first seat really finished last");
}

/// A moderator that always says "agreement": the debate still runs `min_rounds` (2 by
/// default), and ends by agreement only once every debater's stance names one option.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agreeable_moderator_cannot_end_a_debate_early_or_over_differing_stances() {
    use crate::common::llm::{self, MockLlm, prompt_of};
    for (stances_differ, expected_rounds, expected_end) in [(true, 4, "max-rounds"), (false, 2, "agreement")] {
        let mock = MockLlm::with_rule(move |body, _| {
            let prompt = prompt_of(body);
            if prompt.contains("Evaluate round") {
                let verdict = serde_json::json!({"summary": "They agree.", "assessment": "converging", "agreement": true,
                    "clear_winner": null, "off_topic": [], "new_points": ["x"]});
                return Some(llm::ok(body, &verdict.to_string()));
            }
            let redis = stances_differ && prompt.contains(" as Performance Advocate");
            if prompt.contains("Write your round-") {
                let option = if redis { "Redis" } else { "Postgres" };
                let text = format!("{}\nSTANCE: {{\"option\": \"{option}\"}}", fresh_words(&prompt, 50));
                return Some(llm::ok(body, &text));
            }
            None
        })
        .await;
        let sandbox = Sandbox::new();
        let config = sandbox.home.join("settings.yaml");
        std::fs::write(
            &config,
            format!(
                "providers:\n  default: mock\n  mock: {{kind: openai, base_url: \"{}\", api_key_env: DEBATE_TEST_KEY, model: m}}\ndebate:\n  checkpoints: false\n",
                mock.base_url()
            ),
        )
        .unwrap();
        let mut cmd = sandbox.std_cmd();
        cmd.arg("--config")
            .arg(&config)
            .args(["--json", "-r", "4", "--no-commit", QUESTION])
            .env("DEBATE_TEST_KEY", "k");
        let out = tokio::task::spawn_blocking(move || cmd.output().unwrap()).await.unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let result: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            (result["rounds"].as_u64(), result["ended_by"].as_str()),
            (Some(expected_rounds), Some(expected_end))
        );
    }
}
