//! One call per debater turn? A round's rebuttal and the next round's argument asked of
//! a debater in one call would halve its turns' calls and the waves between them; it is
//! adopted only where the record keeps both parts. Measured on the real small model of
//! the laptop case, from the debate it ran: each debater's round-1 rebuttal asked as the
//! debate asks it, and asked together with its round-2 argument, a few times each, and
//! how often an answer keeps what the record needs — a rebuttal, then an argument, each
//! ending with its stance line.

use std::sync::Arc;
use std::time::{Duration, Instant};

use debate::engine::calls::{self, Ask};
use debate::model::{ContributionKind, DebateState};
use debate::moderator::detection::LoopWatch;
use debate::moderator::prompts::Size;
use debate::moderator::stance;
use debate::providers::{self, Cut, Key, Provider, StopAt};

/// Asked of each debater, each way.
const TIMES: usize = 3;

/// What the combined turn adds to the rebuttal's request.
const ALSO_ARGUE: &str = "\n\nThen, in the same answer, write your round-2 argument: on a line of its own \
`ROUND 2 ARGUMENT:`, then the argument, ending with its own stance line as above.";

/// How the answers of one way of asking fared.
#[derive(Default)]
struct Tally {
    asked: usize,
    /// Answers that keep what the record needs.
    kept: usize,
    generated: u64,
    took: Duration,
}

/// Whether a combined answer keeps both parts: a rebuttal with its stance, then an
/// argument with its own.
fn both_parts(text: &str, options: &[String]) -> bool {
    let lower = text.to_lowercase();
    let Some(at) = lower.find("round 2 argument") else { return false };
    let (rebuttal, argument) = text.split_at(at);
    let argument = argument.split_once('\n').map_or("", |(_, rest)| rest);
    stance::split(rebuttal, options).1.is_some() && stance::split(argument, options).1.is_some()
}

/// The experiment on the debaters' provider of `state`, a debate that ran two rounds.
pub async fn turns(state: &DebateState) {
    let role = &state.snapshot.debater;
    let definition = &state.snapshot.providers[&role.provider];
    let key = Key { value: None, source: String::new() };
    let provider: Arc<dyn Provider> =
        providers::build(&role.provider, definition, role.model.clone(), key).expect("the debaters' provider");
    // Round 1 as its rebuttals found it: argued, not yet rebutted.
    let mut argued = state.through(1);
    argued.rounds[0].rebuttals.clear();
    (argued.rounds[0].evaluation, argued.rounds[0].measures) = (None, None);
    let options = &argued.analysis.options;
    let (mut apart, mut together) = (Tally::default(), Tally::default());
    for _ in 0..TIMES {
        for seat in argued.rounds[0].seats.clone() {
            let ask = Ask::Debater { seat, round: 1, kind: ContributionKind::Rebuttal };
            for (combined, tally) in [(false, &mut apart), (true, &mut together)] {
                let mut request = calls::request(&argued, &ask, Size::NORMAL);
                if combined {
                    request.prompt.push_str(ALSO_ARGUE);
                    request.max_tokens = request.max_tokens.map(|limit| limit * 2);
                    // Read past the first stance line: only a loop stops it.
                    let mut watch = LoopWatch::default();
                    request.stop = Some(StopAt::new(move |text| watch.watch(text).map(|at| Cut { at, whole: false })));
                }
                let started = Instant::now();
                let Ok(answer) = provider.complete(&request).await else { continue };
                tally.took += started.elapsed();
                tally.asked += 1;
                tally.generated += answer.usage.completion_tokens;
                let kept = match combined {
                    true => both_parts(&answer.text, options),
                    false => stance::split(&answer.text, options).1.is_some(),
                };
                tally.kept += usize::from(kept);
            }
        }
    }
    let row = |what: &str, t: &Tally| {
        format!(
            "| {what} | {} | {} of {} | {:.0} | {:.1} s |",
            t.asked,
            t.kept,
            t.asked,
            t.generated as f64 / t.asked.max(1) as f64,
            t.took.as_secs_f64() / t.asked.max(1) as f64
        )
    };
    let table = format!(
        "| asked | answers | kept what the record needs | tokens generated, mean | time, mean |\n|---|---|---|---|---|\n{}\n{}\n",
        row("the round-1 rebuttal alone (as the debate asks it)", &apart),
        row("the round-1 rebuttal and the round-2 argument in one call", &together),
    );
    println!("### One call per debater turn?\n\n{table}");
}
