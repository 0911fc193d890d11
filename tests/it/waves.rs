//! Fewer waves for the same work, and a prefix every wave can reuse (issue 55): against a
//! stand-in server that answers each call 200 ms after it arrives and batches requests
//! (it says it is vLLM), with nobody between rounds, a debate's calls are read back from
//! the server's log as sequential waves — a new wave starts with a request that arrives
//! once every request of the wave before has been answered — and each debater request is
//! measured against the requests answered before it arrived: what a prefix cache holds.

use std::time::Duration;

use serde_json::Value;

use crate::common::llm::{MockLlm, ok, prompt_of, reply};
use crate::common::*;

const LATENCY: Duration = Duration::from_millis(200);

/// A request as the server saw it.
struct Exchange {
    prompt: String,
    arrived: f64,
    answered: f64,
}

impl Exchange {
    /// A debater's request: its round and `argument` or `rebuttal`.
    fn debater(&self) -> Option<(u32, &str)> {
        let (_, rest) = self.prompt.rsplit_once("Write your round-")?;
        let (round, rest) = rest.split_once(' ')?;
        let kind = rest.split(' ').next()?.trim_end_matches(['.', ':']);
        Some((round.parse().ok()?, kind))
    }
}

fn exchanges(mock: &MockLlm) -> Vec<Exchange> {
    let mut all: Vec<Exchange> = mock
        .requests()
        .iter()
        .map(|r| {
            let arrived = r["arrived_ms"].as_f64().unwrap();
            Exchange { prompt: prompt_of(&r["body"]), arrived, answered: arrived + LATENCY.as_secs_f64() * 1000.0 }
        })
        .collect();
    all.sort_by(|a, b| a.arrived.total_cmp(&b.arrived));
    all
}

/// The requests (indices into `exchanges`, in order of arrival) of each sequential wave.
fn waves(exchanges: &[Exchange]) -> Vec<Vec<usize>> {
    let mut waves: Vec<(f64, Vec<usize>)> = Vec::new();
    for (i, e) in exchanges.iter().enumerate() {
        match waves.last_mut() {
            Some((answered, wave)) if e.arrived < *answered => {
                *answered = answered.max(e.answered);
                wave.push(i);
            }
            _ => waves.push((e.answered, vec![i])),
        }
    }
    waves.into_iter().map(|(_, wave)| wave).collect()
}

/// A 3-debater debate of `rounds` rounds against `mock`, with checkpoints off; with
/// `notes`, a `--context` file of project notes the debaters read.
async fn debate(mock: &MockLlm, rounds: u32, notes: Option<&str>) -> (Sandbox, Value) {
    let sandbox = Sandbox::new();
    let config = sandbox.openai_compatible(&mock.base_url(), "", "");
    let mut cmd = sandbox.std_cmd();
    cmd.env("DEBATE_TEST_KEY", "sk-test").arg("--config").arg(&config);
    cmd.args(["-p", "3", "-r", &rounds.to_string(), "--no-checkpoints", "--json", "-q", QUESTION]);
    if let Some(notes) = notes {
        write(&sandbox.repo, "notes.md", notes);
        cmd.args(["--context", "notes.md"]);
    }
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap()).await.unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let shown = sandbox.show(&sandbox.only_id());
    (sandbox, shown)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_debaters_argue_and_rebut_every_round_in_seven_waves_at_three_rounds_and_eleven_at_five() {
    for (rounds, most) in [(3, 7), (5, 11)] {
        let mock = MockLlm::answering_after(|_, _| None, "vllm", LATENCY).await;
        let (_sandbox, shown) = debate(&mock, rounds, None).await;
        assert_eq!(shown["rounds"], rounds, "{shown}");
        let exchanges = exchanges(&mock);
        // As many debater calls as ever: every debater argues and rebuts every round.
        for kind in ["argument", "rebuttal"] {
            let calls = exchanges.iter().filter(|e| e.debater().is_some_and(|(_, k)| k == kind)).count();
            assert_eq!(calls, 3 * rounds as usize, "{rounds} rounds: {kind}s");
        }
        let waves = waves(&exchanges);
        let described: Vec<String> = waves
            .iter()
            .map(|wave| {
                let kinds: Vec<String> = wave
                    .iter()
                    .map(|&i| match exchanges[i].debater() {
                        Some((round, kind)) => format!("{kind} {round}"),
                        None => "moderator".into(),
                    })
                    .collect();
                kinds.join(", ")
            })
            .collect();
        assert!(waves.len() <= most, "{rounds} rounds: {} waves: {described:#?}", waves.len());
        // The first wave is the moderator's reading with round 1's arguments beside it,
        // and they were kept: its reading (the stand-in's `{}`) changed nothing.
        assert_eq!(described[0], "moderator, argument 1, argument 1, argument 1", "{described:#?}");
        assert_eq!(shown["analysis"]["early"]["kept"].as_array().map(Vec::len), Some(3), "{}", shown["analysis"]);
    }
}

/// A debater's answer as long as the prompts ask for (about 420 words), with its stance:
/// the account of the debate so far outgrows its budget from round 4 and is compacted.
fn at_length(body: &Value, n: usize) -> Option<wiremock::ResponseTemplate> {
    let said = reply(body);
    let stance = said.strip_prefix("From my perspective ")?.lines().last()?.to_string();
    let words = fresh_words(&format!("{n}{}", prompt_of(body)), 420);
    Some(ok(body, &format!("From my perspective {words}\n{stance}")))
}

/// Each debater wave after the first, as (which wave, whether its account was compacted,
/// the share of its prompt bytes that requests answered before it sent, and how much of
/// it they could have sent: everything before what the wave reads for the first time).
fn reuse_by_wave(exchanges: &[Exchange]) -> Vec<(String, bool, f64, f64)> {
    let common = |a: &str, b: &str| a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    // What a prefix cache holds when a request arrives: the requests answered before.
    let reused = |e: &Exchange| {
        let before = exchanges.iter().filter(|b| b.answered <= e.arrived);
        before.map(|b| common(&e.prompt, &b.prompt)).max().unwrap_or(0)
    };
    let mut measured = Vec::new();
    // The first wave has nothing before it.
    for wave in waves(exchanges).iter().skip(1) {
        let debaters: Vec<&Exchange> = wave.iter().map(|&i| &exchanges[i]).filter(|e| e.debater().is_some()).collect();
        let Some(&first) = debaters.first() else { continue };
        let (round, kind) = first.debater().unwrap();
        // A wave's rebuttals read its round's arguments, which no request sent before.
        let unread = |e: &Exchange| match kind {
            "rebuttal" => e.prompt.rfind("\nArguments:\n").map_or(0, |at| at + 1),
            _ => e.prompt.len(),
        };
        let sent: usize = debaters.iter().map(|e| e.prompt.len()).sum();
        let served: usize = debaters.iter().map(|e| reused(e)).sum();
        let could: usize = debaters.iter().map(|e| unread(e)).sum();
        let compacted = first.prompt.contains("Earlier rounds, as the moderator summarised them");
        let share = |bytes: usize| bytes as f64 / sent as f64;
        measured.push((format!("{kind}s of round {round}"), compacted, share(served), share(could)));
    }
    measured
}

/// About 8,000 bytes (2,000 tokens) of project notes: a quarter of what debate reads of a
/// project by default.
fn notes() -> String {
    (0..130).map(|i| format!("Note {i}: the checkout path peaks at lunch and on Fridays.\n")).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_wave_of_debater_calls_reuses_two_fifths_of_its_prompt_before_and_after_compaction() {
    let mock = MockLlm::answering_after(at_length, "vllm", LATENCY).await;
    debate(&mock, 5, Some(&notes())).await;
    let measured = reuse_by_wave(&exchanges(&mock));
    assert_eq!(measured.len(), 9, "every debater wave after the first: {measured:?}");
    let compacted = measured.iter().filter(|(_, compacted, _, _)| *compacted).count();
    assert_eq!(compacted, 4, "compacted from round 4 (arguments and rebuttals of 4 and 5): {measured:?}");
    for (wave, _, share, _) in &measured {
        assert!(*share >= 0.40, "{wave}: {:.0}% of its prompt from earlier requests: {measured:?}", share * 100.0);
    }
}

/// Without any project material, round 1's rebuttals read three fresh arguments after a
/// start of two thousand bytes: all of that start is served, and every later wave keeps
/// two fifths.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_project_material_each_wave_reuses_all_an_earlier_request_could_hold() {
    let mock = MockLlm::answering_after(at_length, "vllm", LATENCY).await;
    debate(&mock, 5, None).await;
    let measured = reuse_by_wave(&exchanges(&mock));
    assert_eq!(measured.len(), 9, "{measured:?}");
    let (first, later) = measured.split_first().unwrap();
    assert_eq!(first.0, "rebuttals of round 1");
    assert!((first.2 - first.3).abs() < 1e-9, "all it could: {first:?}");
    for (wave, _, share, _) in later {
        assert!(*share >= 0.40, "{wave}: {:.0}% of its prompt from earlier requests: {measured:?}", share * 100.0);
    }
}
