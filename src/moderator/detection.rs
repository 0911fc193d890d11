//! Repetition, novelty and stagnation (docs/guide.md, "What a debate does"): pure functions over text.
//!
//! Texts are compared as sets of normalised word 3-shingles, so case, punctuation and
//! whitespace never matter.

use std::collections::HashSet;

use crate::model::RoundMeasures;

/// Lowercase words made of letters and digits; everything else separates words.
pub fn normalised_words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

/// The set of consecutive word triples. A text of one or two words is one shingle.
pub fn shingles(text: &str) -> HashSet<String> {
    let words = normalised_words(text);
    if words.is_empty() {
        return HashSet::new();
    }
    if words.len() < 3 {
        return HashSet::from([words.join(" ")]);
    }
    words.windows(3).map(|w| w.join(" ")).collect()
}

/// A text that goes round in circles: over half of its word triples are repeats of
/// earlier ones in the same text (a model looping until its length limit).
pub fn loops(text: &str) -> bool {
    let words = normalised_words(text);
    if words.len() < 60 {
        return false;
    }
    let triples: Vec<String> = words.windows(3).map(|w| w.join(" ")).collect();
    let distinct: HashSet<&String> = triples.iter().collect();
    (triples.len() - distinct.len()) * 2 > triples.len()
}

/// How many words in a row a text must write again to be taken for a loop: natural prose
/// does not repeat a dozen words of its own verbatim; a model stuck in a loop does.
const LOOP_WORDS: usize = 12;

/// Where a text begins to go round in circles: the start of the first run of
/// `LOOP_WORDS` words it already wrote (the loop's second turn), as a byte offset —
/// the text before it is kept. `None` while it does not.
pub fn loop_start(text: &str) -> Option<usize> {
    LoopWatch::default().read(text, true)
}

/// `loop_start` kept up as a streamed answer grows: each call reads only the words
/// written since the one before, so watching an answer costs what reading it once does
/// (asked again of the whole text at every token, a 500-word answer cost a tenth of a
/// second of the runtime's thread). A text that does not continue the one before — the
/// same call asked again — is watched from its start.
#[derive(Default)]
pub struct LoopWatch {
    /// The text read so far: up to its last whitespace.
    seen: String,
    /// The last `LOOP_WORDS` words read, each with its offset, bare.
    window: std::collections::VecDeque<(usize, String)>,
    runs: HashSet<Vec<String>>,
    found: Option<usize>,
}

impl LoopWatch {
    /// Where `text`, the answer so far, begins to loop. Its last word may be cut
    /// short, so it is read with the next call, unless `whole`.
    pub fn watch(&mut self, text: &str) -> Option<usize> {
        self.read(text, false)
    }

    fn read(&mut self, text: &str, whole: bool) -> Option<usize> {
        // A comparison of bytes per call, which costs next to nothing against reading
        // the words again.
        if !text.starts_with(&self.seen) {
            *self = LoopWatch::default();
        }
        if self.found.is_some() {
            return self.found;
        }
        let read = self.seen.len();
        let end = match whole {
            true => text.len(),
            false => text.rfind(char::is_whitespace).map_or(0, |at| at + 1).max(read),
        };
        let fresh = text.get(read..end)?;
        for word in fresh.split_whitespace() {
            let offset = word.as_ptr() as usize - text.as_ptr() as usize;
            // Bare: a loop that changes only punctuation or case is one.
            let bare: String = word.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect();
            if bare.is_empty() {
                continue;
            }
            self.window.push_back((offset, bare));
            if self.window.len() > LOOP_WORDS {
                self.window.pop_front();
            }
            if self.window.len() == LOOP_WORDS {
                let run: Vec<String> = self.window.iter().map(|(_, word)| word.clone()).collect();
                if !self.runs.insert(run) {
                    self.found = Some(self.window[0].0);
                    break;
                }
            }
        }
        self.seen.push_str(fresh);
        self.found
    }
}

/// Share of `current`'s shingles already present in `previous` (0 when `current` is empty).
pub fn containment(current: &str, previous: &str) -> f64 {
    share_seen(&shingles(current), &shingles(previous))
}

fn share_seen(current: &HashSet<String>, seen: &HashSet<String>) -> f64 {
    if current.is_empty() {
        return 0.0;
    }
    current.intersection(seen).count() as f64 / current.len() as f64
}

/// Share of the round's shingles never seen in earlier rounds (1 for the first round,
/// 0 for a round with no text).
pub fn novelty<'a>(round: impl IntoIterator<Item = &'a str>, earlier: impl IntoIterator<Item = &'a str>) -> f64 {
    let current: HashSet<String> = round.into_iter().flat_map(shingles).collect();
    if current.is_empty() {
        return 0.0;
    }
    let seen: HashSet<String> = earlier.into_iter().flat_map(shingles).collect();
    1.0 - share_seen(&current, &seen)
}

/// Every debater that also spoke in the previous round repeated itself above the
/// threshold. A seat without a figure (first round, or muted) does not count.
pub fn all_repetitive(measures: &RoundMeasures, threshold: f64) -> bool {
    let scored: Vec<f64> = measures.repetition.iter().flatten().copied().collect();
    !scored.is_empty() && scored.iter().all(|&r| r > threshold)
}

/// Stagnating: every debater repetitive in the latest round, or novelty under the
/// threshold in the latest two rounds.
pub fn stagnating(history: &[RoundMeasures], repetition_threshold: f64, novelty_threshold: f64) -> bool {
    let Some(latest) = history.last() else { return false };
    if all_repetitive(latest, repetition_threshold) {
        return true;
    }
    history.len() >= 2 && history[history.len() - 2..].iter().all(|m| m.novelty < novelty_threshold)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const TEXT: &str = "Redis keeps hot keys in memory so reads stay under a millisecond at peak load";

    #[test]
    fn identical_text_is_fully_contained() {
        assert_eq!(containment(TEXT, TEXT), 1.0);
    }

    #[test]
    fn disjoint_text_shares_nothing() {
        assert_eq!(containment(TEXT, "Postgres gives us one system to back up, monitor and upgrade"), 0.0);
    }

    #[test]
    fn empty_text_repeats_nothing() {
        assert_eq!(containment("", TEXT), 0.0);
        assert_eq!(containment("  ,,  ", TEXT), 0.0);
        assert_eq!(novelty([""], [TEXT]), 0.0);
    }

    #[test]
    fn short_texts_compare_as_one_shingle() {
        assert_eq!(containment("Use Redis", "use redis!"), 1.0);
        assert_eq!(containment("Use Redis", "use postgres"), 0.0);
    }

    #[test]
    fn threshold_boundary_is_strictly_above_point_six() {
        // 10 words → 8 shingles; sharing the first 7 words shares 5 of them: 0.625.
        let previous = "one two three four five six seven";
        let above = "one two three four five six seven eight nine ten";
        assert_eq!(containment(above, previous), 5.0 / 8.0);
        let at = RoundMeasures { repetition: vec![Some(0.6), Some(0.6)], novelty: 1.0 };
        assert!(!all_repetitive(&at, 0.6));
        let over = RoundMeasures { repetition: vec![Some(0.61), Some(0.7)], novelty: 1.0 };
        assert!(all_repetitive(&over, 0.6));
    }

    #[test]
    fn stagnation_needs_two_low_novelty_rounds() {
        let low = RoundMeasures { repetition: vec![Some(0.1), Some(0.1)], novelty: 0.1 };
        let high = RoundMeasures { repetition: vec![Some(0.1), Some(0.1)], novelty: 0.9 };
        assert!(!stagnating(&[high.clone(), low.clone()], 0.6, 0.2));
        assert!(stagnating(&[high.clone(), low.clone(), low.clone()], 0.6, 0.2));
        assert!(!stagnating(&[low.clone(), high], 0.6, 0.2));
    }

    #[test]
    fn stagnation_when_everyone_repeats() {
        let repeating = RoundMeasures { repetition: vec![Some(0.9), Some(0.8)], novelty: 0.9 };
        assert!(stagnating(&[repeating], 0.6, 0.2));
        let one_fresh = RoundMeasures { repetition: vec![Some(0.9), Some(0.2)], novelty: 0.9 };
        assert!(!stagnating(&[one_fresh], 0.6, 0.2));
        let first_round = RoundMeasures { repetition: vec![None, None], novelty: 1.0 };
        assert!(!stagnating(&[first_round], 0.6, 0.2));
    }

    #[test]
    fn first_round_is_all_new() {
        assert_eq!(novelty([TEXT], []), 1.0);
    }

    fn restyle(text: &str, seed: u64) -> String {
        // Change case, punctuation and whitespace only.
        text.split(' ')
            .enumerate()
            .map(|(i, w)| {
                let w = if (seed >> (i % 60)) & 1 == 1 { w.to_uppercase() } else { w.to_string() };
                match (seed as usize + i) % 4 {
                    0 => format!("{w},  "),
                    1 => format!("{w}.\n"),
                    2 => format!("\t{w} "),
                    _ => format!("{w} "),
                }
            })
            .collect()
    }

    proptest! {
        #[test]
        fn containment_ignores_case_punctuation_and_whitespace(words in prop::collection::vec("[a-z]{1,8}", 1..40), seed in any::<u64>()) {
            let text = words.join(" ");
            prop_assert_eq!(containment(&restyle(&text, seed), &text), 1.0);
            prop_assert_eq!(containment(&text, &restyle(&text, seed.rotate_left(7))), 1.0);
        }

        #[test]
        fn containment_is_a_share(a in "[a-z ]{0,200}", b in "[a-z ]{0,200}") {
            let c = containment(&a, &b);
            prop_assert!((0.0..=1.0).contains(&c));
        }

        #[test]
        fn novelty_is_a_share(a in "[a-z ]{0,200}", b in "[a-z ]{0,200}") {
            let n = novelty([a.as_str()], [b.as_str()]);
            prop_assert!((0.0..=1.0).contains(&n));
        }
    }

    #[test]
    fn a_looping_answer_is_told_from_a_long_one() {
        let looping = "the cache is fast and the cache is fast and ".repeat(20);
        assert!(loops(&looping));
        let long: String = (0..200).map(|i| format!("word{i} ")).collect();
        assert!(!loops(&long));
        assert!(!loops("short and short and short"), "too short to tell");
    }

    #[test]
    fn a_loop_is_found_where_its_second_turn_begins() {
        let prose = "Postgres is already there and the team knows it well. Redis adds a second system to run, \
                     back up and watch, and the cache hit rate we need is modest.";
        assert_eq!(loop_start(prose), None, "prose repeats no dozen words");
        let turn =
            "The cache should live in Postgres because the team already runs it and knows its failure modes well. ";
        let looping = format!("{prose} {turn}{turn}{turn}");
        let at = loop_start(&looping).expect("a loop");
        assert_eq!(&looping[..at], format!("{prose} {turn}").as_str(), "the first turn is kept");
        let stuck = format!("{prose} {}", "the the the the ".repeat(10));
        assert!(loop_start(&stuck).is_some_and(|at| at > prose.len()), "a word stuck is a loop too");
        let cased = format!("{turn}{}", turn.to_uppercase().replace('.', "!"));
        assert_eq!(loop_start(&cased), Some(turn.len()), "case and punctuation do not hide a loop");
        // Watched as it streams in, token by token, cut anywhere: the same place.
        for text in [&looping, &stuck, &cased, &prose.to_string()] {
            let mut watch = LoopWatch::default();
            let mut found = None;
            for end in (1..=text.len()).filter(|end| text.is_char_boundary(*end)) {
                found = found.or(watch.watch(&text[..end]));
            }
            let found = found.or(watch.read(text, true));
            assert_eq!(found, loop_start(text), "{text}");
        }
        let mut again = LoopWatch::default();
        assert!(again.watch(&looping).is_some());
        assert_eq!(again.watch("A new answer, "), None, "a text that does not go on from the last is a new answer");
        let mut retried = LoopWatch::default();
        let opening = &looping[..looping.len() / 2];
        assert_eq!(retried.watch(opening).is_some(), loop_start(opening).is_some());
        let other = format!("Something else entirely. {}", &looping[..looping.len() / 3]);
        assert_eq!(retried.watch(&other), loop_start(&other), "an answer asked again is read from its start");
    }
}
