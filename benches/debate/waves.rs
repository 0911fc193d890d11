//! Sequential waves: how many a debate's calls fall into, and the share of its prompt
//! bytes a provider's prefix cache could serve from earlier waves.

use std::process::Command;
use std::time::{Duration, Instant};

use crate::Target;
use crate::common::llm::prompt_of;
use crate::runs::{RUNS_PER_CONFIGURATION, Timed, critical_calls, debate_command, sandbox, timed_debate};
use crate::server::{Debaters, Exchange, ONE_AT_A_TIME, PARALLEL, Server};

/// Sequential waves, each as its first request's arrival and its last answer: the
/// requests in order of arrival, a new wave starting with a request that arrives once
/// every request of the current wave has been answered (it could have waited on them);
/// any other request runs alongside the current wave. A debate's wall time cannot be
/// less than its waves × the model's latency.
pub fn waves_of(exchanges: &[Exchange]) -> Vec<(Instant, Instant)> {
    let mut order: Vec<&Exchange> = exchanges.iter().collect();
    order.sort_by_key(|e| e.arrived);
    let mut waves: Vec<(Instant, Instant)> = Vec::new();
    for e in order {
        match waves.last_mut() {
            Some((_, answered)) if e.arrived < *answered => *answered = (*answered).max(e.answered),
            _ => waves.push((e.arrived, e.answered)),
        }
    }
    waves
}

/// Where a debate's wall time beyond waves × latency went, as table cells: before its
/// first request, within its waves (a wave longer than one call: requests sent or
/// answered late), between its waves, and after its last answer. They add up to its
/// wall time less its critical path.
pub fn outside_calls(run: &Timed, latency: Duration) -> String {
    let waves = waves_of(&run.exchanges);
    let within: Duration = waves.iter().map(|(sent, answered)| (*answered - *sent).saturating_sub(latency)).sum();
    let between: Duration = waves.windows(2).map(|w| w[1].0 - w[0].1).sum();
    let (first, last) = (waves[0].0, waves[waves.len() - 1].1);
    let ms = |d: Duration| format!("{:.0} ms", d.as_secs_f64() * 1000.0);
    let after = run.started + run.wall - last;
    format!("{} | {} | {} | {}", ms(first - run.started), ms(within), ms(between), ms(after))
}

/// For each request (in the order given), its prompt's length in bytes (≈ 4 a token)
/// and the longest start it shares with the prompt of a request answered before it
/// arrived: an earlier wave. That is what a provider's prefix cache can serve: requests
/// sent together all miss it, since none has been read when the others arrive, so a
/// prefix shared only within a wave is not counted.
pub fn earlier_wave_prefixes(exchanges: &[Exchange]) -> Vec<(usize, usize)> {
    // What a provider reads, in order: the system message, then the user's.
    let prompts: Vec<String> = exchanges.iter().map(|e| prompt_of(&e.request["body"])).collect();
    let common = |a: &str, b: &str| a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    exchanges
        .iter()
        .zip(&prompts)
        .map(|(e, prompt)| {
            let cached = exchanges
                .iter()
                .zip(&prompts)
                .filter(|(earlier, _)| earlier.answered <= e.arrived)
                .map(|(_, earlier)| common(prompt, earlier))
                .max()
                .unwrap_or(0);
            (prompt.len(), cached)
        })
        .collect()
}

/// What a request asks for, read from its own part of the prompt.
pub fn purpose(prompt: &str) -> &'static str {
    let debater =
        prompt.rsplit_once("Write your round-").map(|(_, rest)| rest.trim_start_matches(|c: char| c.is_ascii_digit()));
    if prompt.contains("First name the options") {
        "analysis"
    } else if prompt.contains("Write the synthesis") {
        "synthesis"
    } else if prompt.contains("Evaluate round ") {
        "evaluation"
    } else if debater.is_some_and(|rest| rest.starts_with(" argument")) {
        "argument"
    } else if debater.is_some_and(|rest| rest.starts_with(" rebuttal")) {
        "rebuttal"
    } else {
        "other"
    }
}

pub const PURPOSES: [&str; 6] = ["analysis", "argument", "rebuttal", "evaluation", "synthesis", "other"];

/// `prompts::Size::NORMAL.account`, and the headings around the rounds it holds.
pub const ACCOUNT_BUDGET: usize = 24_000 + 1_000;

/// One configuration of the waves case.
pub struct WaveRun {
    /// The mock's debaters answered at length, some without their stance.
    realistic: bool,
    perspectives: u32,
    context: bool,
    rounds: u32,
    waves: usize,
    ratio: f64,
    share: f64,
    /// The share of the argument requests alone, over the debate and round by round.
    argument_share: f64,
    argument_shares: Vec<f64>,
}

/// What the waves case measured, for the targets.
pub struct Waves {
    runs: Vec<WaveRun>,
    /// Against a server that says it serves one request at a time: requests and waves.
    one_at_a_time: (usize, usize),
}

impl Waves {
    pub fn targets(&self) -> Vec<Target> {
        let terse = || self.runs.iter().filter(|r| !r.realistic);
        let most_waves = |realistic: bool, perspectives: u32| {
            let runs = self.runs.iter().filter(|r| r.realistic == realistic && r.rounds == 5);
            runs.filter(|r| r.perspectives == perspectives).map(|r| r.waves).max().unwrap_or(usize::MAX)
        };
        // The case: 5 rounds, no project context. The others are in the table.
        let ratio = terse().filter(|r| r.rounds == 5 && !r.context).map(|r| r.ratio).fold(0.0, f64::max);
        let worst_share = |context: bool| terse().filter(|r| r.context == context).map(|r| r.share).fold(1.0, f64::min);
        let (bare, with_context) = (worst_share(false), worst_share(true));
        let arguments = terse().filter(|r| !r.context).map(|r| r.argument_share).fold(1.0, f64::min);
        // Round 2 reads round 1's rebuttals, which no earlier request held, for the first
        // time; from round 3 on the account outgrows its budget and is compacted.
        let compacted = self
            .runs
            .iter()
            .filter(|r| r.realistic && !r.context)
            .flat_map(|r| r.argument_shares.iter().skip(2).copied())
            .fold(1.0, f64::min);
        let long = "answers as long as asked for, one in seven without its stance";
        vec![
            Target::new(
                "3 debaters, 5 rounds, checkpoints off: ≤ 13 sequential waves",
                format!("{} waves", most_waves(false, 3)),
                most_waves(false, 3) <= 13,
            ),
            Target::new(
                &format!("3 and 4 debaters, 5 rounds, checkpoints off, {long}: ≤ 13 sequential waves"),
                format!("{} and {} waves", most_waves(true, 3), most_waves(true, 4)),
                most_waves(true, 3) <= 13 && most_waves(true, 4) <= 13,
            ),
            Target::new(
                "3 debaters, 5 rounds, checkpoints off: wall time ≤ 1.05 × its own critical path",
                format!("{ratio:.3}"),
                ratio <= 1.05,
            ),
            Target::new(
                "prefix share from earlier waves ≥ 65% without project context (worst of R=3,5)",
                format!("{:.0}%", bare * 100.0),
                bare >= 0.65,
            ),
            Target::new(
                "argument requests: prefix share from earlier waves ≥ 50% without project context (worst of R=3,5)",
                format!("{:.0}%", arguments * 100.0),
                arguments >= 0.50,
            ),
            Target::new(
                &format!(
                    "{long}: argument requests' prefix share ≥ 60% at every round the account is compacted in (3–5), 3 and 4 debaters, no project context"
                ),
                format!("{:.0}% (worst round)", compacted * 100.0),
                compacted >= 0.60,
            ),
            Target::new(
                "prefix share from earlier waves ≥ 85% with an 8k-token context (worst of R=3,5)",
                format!("{:.0}%", with_context * 100.0),
                with_context >= 0.85,
            ),
            Target::new(
                "against llama-cpp-python (as its /v1/models says): one request at a time, waves = requests",
                format!("{} waves, {} requests", self.one_at_a_time.1, self.one_at_a_time.0),
                self.one_at_a_time.0 == self.one_at_a_time.1,
            ),
        ]
    }
}

/// About 8,000 tokens of project notes, for the runs with project context.
fn notes() -> String {
    (0..700).map(|i| format!("Load note {i}: the checkout path peaks at lunch and on Fridays.\n")).collect()
}

/// Per purpose: requests, prompt bytes, and bytes served from earlier waves.
type ByPurpose = [(usize, usize, usize); PURPOSES.len()];

/// What a set of configurations measured, as table rows.
#[derive(Default)]
struct Measured {
    runs: Vec<WaveRun>,
    rows: Vec<String>,
    by_purpose: Vec<(String, ByPurpose)>,
    by_round: Vec<(String, Vec<f64>)>,
    spent: Vec<String>,
    context_bytes: usize,
}

/// Each configuration (debaters, project context, rounds) debated
/// `RUNS_PER_CONFIGURATION` times against `mock`, with checkpoints off (`--json -q`, no
/// terminal: nobody waits between rounds).
async fn measure(mock: &Server, realistic: bool, configurations: &[(u32, bool, u32)], latency: Duration) -> Measured {
    let mut measured = Measured::default();
    for &(perspectives, context, rounds) in configurations {
        let mut walls = Vec::new();
        let mut last = None;
        for _ in 0..RUNS_PER_CONFIGURATION {
            let (sandbox, config) = sandbox(mock, "parallel");
            let mut cmd = debate_command(&sandbox, &config, perspectives, rounds);
            if context {
                std::fs::write(sandbox.repo.join("notes.md"), notes()).expect("notes");
                cmd.args(["--context", "notes.md"]);
            }
            let run = timed_debate(mock, cmd).await;
            walls.push(run.wall);
            last = Some(run);
        }
        walls.sort();
        let wall = walls[walls.len() / 2];
        let last = last.expect("a run");
        let exchanges = &last.exchanges;
        let label = format!("{perspectives} | {}", if context { "~8k tokens" } else { "none" });
        let waves = waves_of(exchanges).len();
        measured.spent.push(format!("| {label} | {rounds} | {} |", outside_calls(&last, latency)));
        let critical = latency * waves as u32;
        let ratio = wall.as_secs_f64() / critical.as_secs_f64();
        let request_bytes: usize =
            exchanges.iter().map(|e| serde_json::to_string(&e.request["body"]).unwrap().len()).sum();
        let prefixes = earlier_wave_prefixes(exchanges);
        let (prompt_bytes, cached) = prefixes.iter().fold((0, 0), |(t, c), (len, shared)| (t + len, c + shared));
        let share = cached as f64 / prompt_bytes as f64;
        if context {
            measured.context_bytes = exchanges
                .iter()
                .filter_map(|e| prompt_of(&e.request["body"]).find("## The question"))
                .min()
                .unwrap_or(0);
        }
        measured.rows.push(format!(
            "| {label} | {rounds} | {} | {waves} | {} | {request_bytes} | {:.0}% ({cached} of {prompt_bytes}) | {:.2} s | {:.2} s | {ratio:.3} |",
            exchanges.len(),
            critical_calls(perspectives, rounds, false),
            share * 100.0,
            wall.as_secs_f64(),
            critical.as_secs_f64(),
        ));
        let mut purposes: ByPurpose = [(0, 0, 0); PURPOSES.len()];
        let mut rounds_of_arguments = vec![(0usize, 0usize); rounds as usize];
        for (e, (len, shared)) in exchanges.iter().zip(&prefixes) {
            let prompt = prompt_of(&e.request["body"]);
            let kind = purpose(&prompt);
            let slot = &mut purposes[PURPOSES.iter().position(|p| *p == kind).unwrap()];
            *slot = (slot.0 + 1, slot.1 + len, slot.2 + shared);
            if let Some(round) = argued_in(&prompt).filter(|_| kind == "argument") {
                let slot = &mut rounds_of_arguments[round as usize - 1];
                *slot = (slot.0 + len, slot.1 + shared);
            }
        }
        let share_of = |(total, shared): (usize, usize)| shared as f64 / total.max(1) as f64;
        let argument_shares: Vec<f64> = rounds_of_arguments.iter().copied().map(share_of).collect();
        let (_, argument_bytes, argument_shared) = purposes[PURPOSES.iter().position(|p| *p == "argument").unwrap()];
        let argument_share = share_of((argument_bytes, argument_shared));
        let context_label = if context { "context" } else { "none" };
        measured.by_purpose.push((format!("{perspectives}×{rounds}, {context_label}"), purposes));
        measured.by_round.push((format!("| {label} | {rounds} |"), argument_shares.clone()));
        measured.runs.push(WaveRun {
            realistic,
            perspectives,
            context,
            rounds,
            waves,
            ratio,
            share,
            argument_share,
            argument_shares,
        });
    }
    measured
}

/// The waves table of `measured`.
fn print_waves(measured: &Measured) {
    println!(
        "| debaters | context | rounds | requests | waves | expected waves | request bytes | prefix share (earlier waves) | wall | critical path | ratio |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for row in &measured.rows {
        println!("{row}");
    }
}

/// How much of each kind of request a prefix cache serves, in `measured`.
fn print_by_purpose(measured: &Measured) {
    println!("\nPrefix share from earlier waves by purpose: share (requests, bytes not served).\n");
    let header: Vec<&str> = measured.by_purpose.iter().map(|(label, _)| label.as_str()).collect();
    println!("| purpose | {} |\n|---|{}", header.join(" | "), "---|".repeat(header.len()));
    for (i, name) in PURPOSES.iter().enumerate() {
        if measured.by_purpose.iter().all(|(_, p)| p[i].0 == 0) {
            continue;
        }
        let cells: Vec<String> = measured
            .by_purpose
            .iter()
            .map(|(_, p)| {
                let (count, total, shared) = p[i];
                match count {
                    0 => "–".to_string(),
                    _ => format!("{:.0}% ({count}, {})", shared as f64 * 100.0 / total as f64, total - shared),
                }
            })
            .collect();
        println!("| {name} | {} |", cells.join(" | "));
    }
}

/// Sequential waves and prefix caching, twice: with the mock's short answers (the calls
/// and the schedule alone: 3 debaters at 3 and 5 rounds, without project context and
/// with about 8,000 tokens of it), then with answers as long as the prompts ask for,
/// some without their stance line (3 and 4 debaters, 5 rounds), where the account of the
/// debate so far outgrows its budget and is compacted: how many sequential waves the
/// calls take, the wall time against waves × latency, and the share of the prompt bytes
/// a prefix cache can serve from earlier waves, the arguments' round by round. Then
/// whether a peer tool is installed to compare with.
pub async fn waves(latency: Duration) -> Waves {
    println!("## Sequential waves and prefix caching (checkpoints off)\n");
    let terse = Server::start(latency, PARALLEL).await;
    let short = measure(&terse, false, &[(3, false, 3), (3, false, 5), (3, true, 3), (3, true, 5)], latency).await;
    println!(
        "### Short answers, 3 debaters\n\nWall time: median of {RUNS_PER_CONFIGURATION} runs; the rest from the requests \
         of one run. A wave starts with a request that arrives once every request of the wave before has been answered; \
         the critical path is waves × {} ms. Expected from the schedule: analysis, per round the arguments then the \
         rebuttals, the synthesis (each round's evaluation runs alongside the next round's arguments). Prefix share: \
         the bytes of each prompt's start that a request answered before it arrived also sent, over all prompt bytes. \
         With context, {} bytes (≈{} tokens) of every prompt come before the question.\n",
        latency.as_millis(),
        short.context_bytes,
        short.context_bytes / 4,
    );
    print_waves(&short);
    print_by_purpose(&short);
    println!(
        "\nWhere the wall time beyond the critical path goes, in the run the requests are from (against its own wall \
         time): from the start of the process to the first request, a wave's span beyond one call's latency, the gaps \
         between one wave's last answer and the next wave's first request, and from the last answer to the end of the \
         process.\n"
    );
    println!(
        "| debaters | context | rounds | before the first request | within waves | between waves | after the last answer |\n|---|---|---|---|---|---|---|"
    );
    for row in &short.spent {
        println!("{row}");
    }

    let at_length = Server::answering(latency, PARALLEL, Debaters::REALISTIC).await;
    let long = measure(&at_length, true, &[(3, false, 5), (4, false, 5), (3, true, 5), (4, true, 5)], latency).await;
    println!(
        "\n### Answers as long as asked for, 3 and 4 debaters\n\nThe mock's debaters answer with about {} words (as long \
         as the prompts ask for), and one answer in {} stops before its stance line, which the debater is asked for \
         again alongside the next wave. From round 3 on the rounds in full outgrow the account's budget (24,000 bytes), \
         and the oldest stand as their summaries from that round's rebuttals on.\n",
        Debaters::REALISTIC.words,
        Debaters::REALISTIC.cut,
    );
    print_waves(&long);
    println!("\nArgument requests, prefix share from earlier waves round by round.\n");
    println!(
        "| debaters | context | rounds | {} |",
        (1..=5).map(|r| format!("round {r}")).collect::<Vec<_>>().join(" | ")
    );
    println!("|---|---|---|{}", "---|".repeat(5));
    for (label, shares) in &long.by_round {
        let cells: Vec<String> =
            (0..5).map(|r| shares.get(r).map_or("–".to_string(), |share| format!("{:.0}%", share * 100.0))).collect();
        println!("{label} {} |", cells.join(" | "));
    }
    print_by_purpose(&long);

    // The same debate against a server that says it is llama-cpp-python.
    let serial = Server::start(latency, ONE_AT_A_TIME).await;
    let (sandbox, config) = sandbox(&serial, "parallel");
    let run = timed_debate(&serial, debate_command(&sandbox, &config, 3, 5)).await;
    let one_at_a_time = (run.exchanges.len(), waves_of(&run.exchanges).len());
    println!(
        "\nAgainst a server that lists its model as llama-cpp-python does (`owned_by: me`), a 3-debater 5-round debate: \
         {} requests in {} waves, {:.2} s.\n",
        one_at_a_time.0,
        one_at_a_time.1,
        run.wall.as_secs_f64()
    );
    peer();
    let runs = short.runs.into_iter().chain(long.runs).collect();
    Waves { runs, one_at_a_time }
}

/// The round an argument request is for.
fn argued_in(prompt: &str) -> Option<u32> {
    let (_, rest) = prompt.rsplit_once("Write your round-")?;
    rest.split_once(' ')?.0.parse().ok()
}

/// A peer tool, when one is installed: it cannot be pointed at this mock without its
/// own configuration, so it is named, not measured.
pub fn peer() {
    use std::os::unix::fs::PermissionsExt;
    let on_path = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join("dialectic"))
            .find(|file| file.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0))
    });
    match on_path {
        Some(file) => {
            let version = Command::new(&file)
                .arg("--version")
                .output()
                .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
                .unwrap_or_else(|e| format!("{} (--version failed: {e})", file.display()));
            println!("Peer found: {version}; comparison needs its own mock configuration (not automated).\n");
        }
        None => println!("No peer installed (`dialectic` not on PATH): the peer comparison is skipped.\n"),
    }
}
