//! What a weak model passes off as content: its prompt's headings and instructions
//! echoed back, the prompt's own words. A contribution made of them says nothing of its
//! own; it counts as failed and is never quoted as an argument. Pure.

use std::collections::HashSet;

/// Fewer words of its own than this, and an answer says nothing.
const OWN_WORDS: usize = 8;
/// Words in a row that count as copied when the prompt has them too.
const COPIED_RUN: usize = 6;

/// Whether the answer `text` to `prompt` says nothing of its own: once its headings, its
/// stance line and every line copied from the prompt are taken away, fewer than eight
/// words are left, or seven in ten of what is left repeat the prompt's own words. The
/// debate so far, quoted in the prompt as `> ` lines, is not the prompt's own: a debater
/// restating it repeats itself, which the round's repetition measure weighs.
pub fn echoes(text: &str, prompt: &str) -> bool {
    let prompt: String = prompt.lines().filter(|line| !line.starts_with('>')).collect::<Vec<_>>().join("\n");
    let prompt_lines: HashSet<String> = prompt.lines().map(plain).filter(|line| !line.is_empty()).collect();
    let own: Vec<String> = text
        .lines()
        .filter(|line| {
            let bare = line.trim_start();
            !bare.starts_with('#') && !bare.to_uppercase().starts_with("STANCE") && !prompt_lines.contains(&plain(line))
        })
        .flat_map(words)
        .collect();
    if own.len() < OWN_WORDS {
        return true;
    }
    let prompt_words = words(&prompt);
    let prompt_runs: HashSet<&[String]> = prompt_words.windows(COPIED_RUN).collect();
    let runs: Vec<&[String]> = own.windows(COPIED_RUN).collect();
    let copied = runs.iter().filter(|run| prompt_runs.contains(*run)).count();
    !runs.is_empty() && copied * 10 >= runs.len() * 7
}

/// `text` without the lines it copied from `prompt`, whole or a sentence of six words or
/// more (the debate so far, quoted as `> ` lines, is not the prompt's own): what a
/// debater said itself, to quote from.
pub fn own_lines(text: &str, prompt: &str) -> String {
    let prompt: Vec<String> = prompt.lines().filter(|line| !line.starts_with('>')).map(plain).collect();
    let lines: HashSet<&String> = prompt.iter().filter(|line| !line.is_empty()).collect();
    let whole = format!(" {} ", prompt.join(" "));
    let copied = |line: &str| {
        let line = plain(line);
        lines.contains(&line) || (line.split(' ').count() >= 6 && whole.contains(&format!(" {line} ")))
    };
    text.lines().filter(|line| !copied(line)).collect::<Vec<_>>().join("\n")
}

/// A line as it reads, whatever its markdown: lowercase, without list, quote or emphasis
/// marks, its spaces collapsed.
fn plain(line: &str) -> String {
    let bare = line.trim().trim_start_matches(['#', '*', '-', '>', '_', ' ', '`']);
    bare.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

/// The words of `text` of two letters or more, lowercase, without punctuation.
fn words(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(|word| word.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect::<String>())
        .filter(|word| word.chars().count() >= 2)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROMPT: &str = "## The question\n\nShould mini-redis persist data with an append-only file or periodic \
        snapshots?\n\n## Your part\n\nYou are the debater for the perspective \"Data Integrity\". Keep each answer \
        under about 450 words.\nWrite your round-1 argument as Data Integrity.\nEnd your answer with one line that \
        starts with `STANCE:` followed by a JSON object.";

    #[test]
    fn headings_and_echoed_instructions_say_nothing() {
        for noise in [
            "## Project material\n\n## What you think\n\nSTANCE: {\"option\": \"snapshots\"}",
            "## Your part\n\nYou are the debater for the perspective \"Data Integrity\". Keep each answer under about \
             450 words.\nWrite your round-1 argument as Data Integrity.\nEnd your answer with one line that starts with \
             `STANCE:` followed by a JSON object.",
            "Should mini-redis persist data with an append-only file or periodic snapshots? Should mini-redis persist \
             data with an append-only file or periodic snapshots?",
        ] {
            assert!(echoes(noise, PROMPT), "{noise}");
        }
    }

    #[test]
    fn an_argument_of_its_own_says_something_even_quoting_the_question() {
        let argument = "An append-only file loses at most one fsync interval of writes, where snapshots lose \
            everything since the last one. For mini-redis, which holds sessions, that difference is the whole \
            point: should mini-redis persist data with an append-only file? Yes, with fsync every second.\n\
            STANCE: {\"option\": \"append-only file\"}";
        assert!(!echoes(argument, PROMPT));
    }

    #[test]
    fn the_lines_copied_from_the_prompt_are_not_the_debaters_own() {
        let answer = "## Your part\nYou are the debater for the perspective \"Data Integrity\". Keep each answer under \
            about 450 words.\nSnapshots lose everything since the last one.";
        assert_eq!(own_lines(answer, PROMPT), "Snapshots lose everything since the last one.");
        let part = "Write your round-1 argument as Data Integrity.\nAn append-only file loses one second.";
        let prompt = PROMPT.replace(
            "Write your round-1 argument as Data Integrity.",
            "Write your round-1 argument as Data Integrity. Be brief.",
        );
        assert_eq!(own_lines(part, &prompt), "An append-only file loses one second.", "a sentence of a longer line");
    }

    #[test]
    fn restating_the_quoted_debate_is_repetition_not_an_echo() {
        let earlier = "Redis is the better fit, because it serves latency most directly. Performance Advocate \
            weighs latency, throughput, resource efficiency and will accept complexity for speed.";
        let prompt = format!("{PROMPT}\n\n## The debate so far\n\n> {earlier}\n");
        assert!(!echoes(earlier, &prompt));
        assert!(echoes(earlier, &format!("{PROMPT}\n\n{earlier}\n")));
    }
}
