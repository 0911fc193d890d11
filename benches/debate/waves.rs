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
    wave_members(exchanges)
        .iter()
        .map(|wave| {
            let first = wave.iter().map(|&i| exchanges[i].arrived).min().expect("a wave has a request");
            (first, wave.iter().map(|&i| exchanges[i].answered).max().expect("a wave has a request"))
        })
        .collect()
}

/// The requests of each sequential wave (indices into `exchanges`), as `waves_of`
/// counts them.
pub fn wave_members(exchanges: &[Exchange]) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..exchanges.len()).collect();
    order.sort_by_key(|&i| exchanges[i].arrived);
    let mut waves: Vec<(Instant, Vec<usize>)> = Vec::new();
    for i in order {
        let e = &exchanges[i];
        match waves.last_mut() {
            Some((answered, wave)) if e.arrived < *answered => {
                *answered = (*answered).max(e.answered);
                wave.push(i);
            }
            _ => waves.push((e.answered, vec![i])),
        }
    }
    waves.into_iter().map(|(_, wave)| wave).collect()
}

/// What a wave does, from the requests in it: the moderator's reading of the question
/// (with round 1's arguments beside it), a round's arguments (with the evaluation of the
/// round before beside them), its rebuttals, the synthesis, or something else (the
/// stances asked again, an evaluation alone).
pub fn wave_kind(purposes: &[&str]) -> &'static str {
    let has = |kind: &str| purposes.contains(&kind);
    match () {
        _ if has("analysis") => "reading + arguments",
        _ if has("argument") => "arguments",
        _ if has("rebuttal") => "rebuttals",
        _ if has("synthesis") => "synthesis",
        _ => "other",
    }
}

pub const WAVE_KINDS: [&str; 5] = ["reading + arguments", "arguments", "rebuttals", "synthesis", "other"];

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
    /// The share of the argument requests alone.
    argument_share: f64,
    /// The least share of a wave of debater calls after the first, and after round 1's
    /// rebuttals (the wave that reads round 1's arguments, which nothing sent before).
    worst_wave: f64,
    worst_wave_after_round_one: f64,
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
        let realistic = || self.runs.iter().filter(|r| r.realistic);
        let most_waves = |realistic: bool, perspectives: u32, rounds: u32| {
            let runs = self.runs.iter().filter(|r| r.realistic == realistic && r.rounds == rounds);
            runs.filter(|r| r.perspectives == perspectives).map(|r| r.waves).max().unwrap_or(usize::MAX)
        };
        // The case: 5 rounds, no project context. The others are in the table.
        let ratio = terse().filter(|r| r.rounds == 5 && !r.context).map(|r| r.ratio).fold(0.0, f64::max);
        let worst_share = |context: bool| terse().filter(|r| r.context == context).map(|r| r.share).fold(1.0, f64::min);
        let (bare, with_context) = (worst_share(false), worst_share(true));
        let arguments = terse().filter(|r| !r.context).map(|r| r.argument_share).fold(1.0, f64::min);
        let least = |runs: &mut dyn Iterator<Item = f64>| runs.fold(1.0, f64::min);
        let every_wave = least(&mut realistic().filter(|r| r.context).map(|r| r.worst_wave));
        let after_round_one = least(&mut realistic().filter(|r| !r.context).map(|r| r.worst_wave_after_round_one));
        let long = "answers as long as asked for, one in seven without its stance";
        let (three, five) = (most_waves(false, 3, 3), most_waves(false, 3, 5));
        vec![
            Target::new(
                "3 debaters, checkpoints off, every debater arguing and rebutting every round: ≤ 7 sequential waves at 3 rounds, ≤ 11 at 5",
                format!("{three} and {five} waves"),
                three <= 7 && five <= 11,
            ),
            Target::new(
                &format!("3 and 4 debaters, 5 rounds, checkpoints off, {long}: ≤ 12 sequential waves"),
                format!("{} and {} waves", most_waves(true, 3, 5), most_waves(true, 4, 5)),
                most_waves(true, 3, 5) <= 12 && most_waves(true, 4, 5) <= 12,
            ),
            Target::new(
                "3 debaters, 5 rounds, checkpoints off: wall time ≤ 1.05 × its own critical path",
                format!("{ratio:.3}"),
                ratio <= 1.05,
            ),
            Target::new(
                &format!(
                    "{long}, ~8k tokens of context: every wave of debater calls after the first reuses ≥ 40% of its prompt from requests answered before it, before and after compaction"
                ),
                format!("{:.0}% (worst wave)", every_wave * 100.0),
                every_wave >= 0.40,
            ),
            Target::new(
                &format!(
                    "{long}, no project context: every wave of debater calls after round 1's rebuttals (which read round 1's arguments, sent by nobody before) reuses ≥ 40%"
                ),
                format!("{:.0}% (worst wave)", after_round_one * 100.0),
                after_round_one >= 0.40,
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

/// Per wave kind: waves, prompt bytes, and bytes served from earlier waves.
type ByWave = [(usize, usize, usize); WAVE_KINDS.len()];

/// What a set of configurations measured, as table rows.
#[derive(Default)]
struct Measured {
    runs: Vec<WaveRun>,
    rows: Vec<String>,
    by_purpose: Vec<(String, ByPurpose)>,
    by_wave: Vec<(String, ByWave)>,
    by_round: Vec<(String, Vec<f64>)>,
    spent: Vec<String>,
    context_bytes: usize,
}

/// The price a decision is reckoned at: gpt-4.1-mini's, from the built-in table (its
/// cached input at a quarter of the input).
const PRICED_AS: &str = "gpt-4.1-mini";

/// A debate's cost at `PRICED_AS`, its tokens estimated at four bytes each: with the
/// prompt bytes earlier waves sent priced as cached input, and with none cached.
fn cost_of(prompt: usize, cached: usize, completion: usize) -> (f64, f64) {
    let price = debate::model::prices::built_in(PRICED_AS).expect("a built-in price");
    let tokens = |bytes: usize| (bytes / 4) as u64;
    let usage = |cached: usize| debate::model::Usage {
        prompt_tokens: tokens(prompt),
        cached_tokens: tokens(cached),
        completion_tokens: tokens(completion),
        ..Default::default()
    };
    (price.of(&usage(cached)), price.of(&usage(0)))
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
        let members = wave_members(exchanges);
        let waves = members.len();
        measured.spent.push(format!("| {label} | {rounds} | {} |", outside_calls(&last, latency)));
        let critical = latency * waves as u32;
        let ratio = wall.as_secs_f64() / critical.as_secs_f64();
        let prefixes = earlier_wave_prefixes(exchanges);
        let (prompt_bytes, cached) = prefixes.iter().fold((0, 0), |(t, c), (len, shared)| (t + len, c + shared));
        let share = cached as f64 / prompt_bytes as f64;
        let answered: usize = exchanges.iter().map(|e| e.answer_bytes).sum();
        let (cost, uncached) = cost_of(prompt_bytes, cached, answered);
        if context {
            measured.context_bytes = exchanges
                .iter()
                .filter_map(|e| prompt_of(&e.request["body"]).find("## The question"))
                .min()
                .unwrap_or(0);
        }
        let kinds: Vec<&str> = exchanges.iter().map(|e| purpose(&prompt_of(&e.request["body"]))).collect();
        let debaters = exchanges.iter().zip(&kinds).filter(|(_, k)| matches!(**k, "argument" | "rebuttal")).count();
        measured.rows.push(format!(
            "| {label} | {rounds} | {} | {debaters} | {waves} | {} | {:.0}% ({cached} of {prompt_bytes}) | ${cost:.4} | ${uncached:.4} | {:.2} s | {:.2} s | {ratio:.3} |",
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
        // Per wave kind, and each wave of debater calls on its own.
        let mut by_wave: ByWave = [(0, 0, 0); WAVE_KINDS.len()];
        let mut wave_shares: Vec<(bool, f64)> = Vec::new();
        for wave in &members {
            let purposes: Vec<&str> = wave.iter().map(|&i| kinds[i]).collect();
            let kind = wave_kind(&purposes);
            let (len, shared) = wave.iter().fold((0, 0), |(t, c), &i| (t + prefixes[i].0, c + prefixes[i].1));
            let slot = &mut by_wave[WAVE_KINDS.iter().position(|k| *k == kind).unwrap()];
            *slot = (slot.0 + 1, slot.1 + len, slot.2 + shared);
            let debaters: Vec<usize> =
                wave.iter().copied().filter(|&i| matches!(kinds[i], "argument" | "rebuttal")).collect();
            if kind != "reading + arguments" && !debaters.is_empty() {
                let (len, shared) = debaters.iter().fold((0, 0), |(t, c), &i| (t + prefixes[i].0, c + prefixes[i].1));
                let first_rebuttals = kind == "rebuttals" && wave_shares.is_empty();
                wave_shares.push((first_rebuttals, shared as f64 / len.max(1) as f64));
            }
        }
        let share_of = |(total, shared): (usize, usize)| shared as f64 / total.max(1) as f64;
        let argument_shares: Vec<f64> = rounds_of_arguments.iter().copied().map(share_of).collect();
        let (_, argument_bytes, argument_shared) = purposes[PURPOSES.iter().position(|p| *p == "argument").unwrap()];
        let argument_share = share_of((argument_bytes, argument_shared));
        let context_label = if context { "context" } else { "none" };
        measured.by_purpose.push((format!("{perspectives}×{rounds}, {context_label}"), purposes));
        measured.by_wave.push((format!("{perspectives}×{rounds}, {context_label}"), by_wave));
        measured.by_round.push((format!("| {label} | {rounds} |"), argument_shares));
        let least = |shares: &mut dyn Iterator<Item = f64>| shares.fold(1.0, f64::min);
        measured.runs.push(WaveRun {
            realistic,
            perspectives,
            context,
            rounds,
            waves,
            ratio,
            share,
            argument_share,
            worst_wave: least(&mut wave_shares.iter().map(|(_, share)| *share)),
            worst_wave_after_round_one: least(&mut wave_shares.iter().filter(|(first, _)| !first).map(|(_, s)| *s)),
        });
    }
    measured
}

/// The waves table of `measured`.
fn print_waves(measured: &Measured) {
    println!(
        "| debaters | context | rounds | calls | debater calls | waves | expected waves | prefix share (earlier waves) | cost per decision, cached priced | without a cache | wall | critical path | ratio |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for row in &measured.rows {
        println!("{row}");
    }
}

/// How much of each kind of wave a prefix cache serves, in `measured`.
fn print_by_wave(measured: &Measured) {
    println!("\nPrefix share from earlier waves by wave kind: share (waves, bytes not served).\n");
    let header: Vec<&str> = measured.by_wave.iter().map(|(label, _)| label.as_str()).collect();
    println!("| wave | {} |\n|---|{}", header.join(" | "), "---|".repeat(header.len()));
    for (i, name) in WAVE_KINDS.iter().enumerate() {
        if measured.by_wave.iter().all(|(_, w)| w[i].0 == 0) {
            continue;
        }
        let cells: Vec<String> = measured
            .by_wave
            .iter()
            .map(|(_, w)| {
                let (count, total, shared) = w[i];
                match count {
                    0 => "–".to_string(),
                    _ => format!("{:.0}% ({count}, {})", shared as f64 * 100.0 / total as f64, total - shared),
                }
            })
            .collect();
        println!("| {name} | {} |", cells.join(" | "));
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
         the critical path is waves × {} ms. Expected from the schedule: the moderator's reading of the question with \
         round 1's arguments beside it, round 1's rebuttals, per later round its arguments then its rebuttals, the \
         synthesis (each round's evaluation runs alongside the next round's arguments). Prefix share: the bytes of each \
         prompt's start that a request answered before it arrived also sent, over all prompt bytes. Cost per decision: \
         the debate's tokens (at 4 bytes each; the answers' too) at {PRICED_AS}'s prices, the prompt bytes earlier waves \
         sent priced as cached input, then all of them as input. With context, {} bytes (≈{} tokens) of every prompt \
         come before the question.\n",
        latency.as_millis(),
        short.context_bytes,
        short.context_bytes / 4,
    );
    print_waves(&short);
    print_by_wave(&short);
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
    let configurations = [(3, false, 3), (3, false, 5), (4, false, 5), (3, true, 3), (3, true, 5), (4, true, 5)];
    let long = measure(&at_length, true, &configurations, latency).await;
    println!(
        "\n### Answers as long as asked for: 3×3, 3×5 and 4×5\n\nThe mock's debaters answer with about {} words (as \
         long as the prompts ask for), and one answer in {} stops before its stance line, which the debater is asked \
         for again alongside the next wave (in the last round, in a wave of its own before the synthesis). From round \
         4 on the rounds in full outgrow the account's budget (24,000 bytes), and the \
         rounds between round 1 and the one before stand as their summaries, from that round's arguments on.\n",
        Debaters::REALISTIC.words,
        Debaters::REALISTIC.cut,
    );
    print_waves(&long);
    print_by_wave(&long);
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
