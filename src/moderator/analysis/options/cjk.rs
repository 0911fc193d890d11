//! Japanese "XとYのどちら" and "XかYか", Chinese "X还是Y" and "X或Y".

use crate::moderator::analysis::terms::{is_cjk, is_hiragana};

/// Japanese "XとYのどちら" (which of X and Y), "XかYか" (X or Y), Chinese "X还是Y" and
/// "X或Y". Words are not spaced, so an option is the run of one script (Latin, kana,
/// Han) that touches the connector, without the particles and verbs around it.
pub(super) fn cjk_options(question: &str) -> Vec<String> {
    if !question.chars().any(is_cjk) {
        return Vec::new();
    }
    for marker in ["のどちら", "のどっち", "のどれ", "のいずれ"] {
        if let Some(end) = question.find(marker) {
            let items: Vec<&str> = question[..end].split(['と', '、']).collect();
            if let [first, rest @ ..] = items.as_slice()
                && !rest.is_empty()
            {
                let mut found = vec![tail(first)];
                found.extend(rest.iter().map(|item| item.trim().to_string()));
                return found.into_iter().filter(|item| !item.is_empty()).collect();
            }
        }
    }
    for connector in ["还是", "或者", "或", "か"] {
        let found = split_cjk(question, connector);
        if found.len() >= 2 {
            return found;
        }
    }
    Vec::new()
}

/// The options on both sides of the first CJK connector that stands between names
/// ("か" also ends every Japanese question, after a kana: "ですか").
pub(super) fn split_cjk(question: &str, connector: &str) -> Vec<String> {
    for (at, _) in question.match_indices(connector) {
        let (before, after) = (&question[..at], &question[at + connector.len()..]);
        if after.starts_with('许') {
            continue; // 或许: "perhaps"
        }
        let (left, right) = (tail(before), head(after));
        if !left.is_empty() && !right.is_empty() {
            return vec![left, right];
        }
    }
    Vec::new()
}

/// Chinese verbs and particles that come before or after an option ("用Redis", "是单体").
pub(super) const CHINESE_CUTS: &[char] =
    &['用', '是', '的', '在', '选', '要', '该', '把', '对', '给', '做', '为', '呢', '吗', '好'];

/// The writing systems an option may be written in; `Other` separates options.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Script {
    Other,
    Katakana,
    Han,
    Latin,
}

pub(super) fn script(c: char) -> Script {
    match c {
        c if is_hiragana(c) || c.is_whitespace() || c.is_ascii_punctuation() || CHINESE_CUTS.contains(&c) => {
            Script::Other
        }
        c if is_cjk(c) && c as u32 >= 0x3400 => Script::Han,
        c if is_cjk(c) => Script::Katakana,
        c if c.is_alphanumeric() || matches!(c, '-' | '.' | '+' | '#') => Script::Latin,
        _ => Script::Other,
    }
}

/// The run of one script at the end of `text`.
pub(super) fn tail(text: &str) -> String {
    let text = text.trim_end();
    let Some(last) = text.chars().last().map(script).filter(|&s| s != Script::Other) else { return String::new() };
    let run: Vec<char> = text.chars().rev().take_while(|&c| script(c) == last).collect();
    run.into_iter().rev().collect()
}

/// The run of one script at the start of `text`.
pub(super) fn head(text: &str) -> String {
    let text = text.trim_start();
    let Some(first) = text.chars().next().map(script).filter(|&s| s != Script::Other) else { return String::new() };
    text.chars().take_while(|&c| script(c) == first).collect()
}
