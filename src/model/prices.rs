//! The prices `debate` knows without settings: the models its built-in providers use and
//! the common ones of OpenAI and Anthropic (through OpenRouter too, as `openai/…` and
//! `anthropic/…`), in US dollars per million tokens.
//!
//! Source: the providers' published price lists (openai.com/api/pricing,
//! anthropic.com/pricing; OpenRouter passes them on), as of [`AS_OF`]. Prices change:
//! `prices:` in a provider's settings wins over this table (docs/guide.md, "Cost"), and a
//! debate keeps the prices it started with, so its record's estimate never moves.

use super::provider::Price;

/// The date the table was checked against the price lists.
pub const AS_OF: &str = "2025-09-01";

/// Input, cached input, output.
#[rustfmt::skip]
const TABLE: &[(&str, f64, f64, f64)] = &[
    ("gpt-5", 1.25, 0.125, 10.0),
    ("gpt-5-mini", 0.25, 0.025, 2.0),
    ("gpt-5-nano", 0.05, 0.005, 0.40),
    ("gpt-4.1", 2.0, 0.50, 8.0),
    ("gpt-4.1-mini", 0.40, 0.10, 1.60),
    ("gpt-4.1-nano", 0.10, 0.025, 0.40),
    ("gpt-4o", 2.50, 1.25, 10.0),
    ("gpt-4o-mini", 0.15, 0.075, 0.60),
    ("o3", 2.0, 0.50, 8.0),
    ("o4-mini", 1.10, 0.275, 4.40),
    ("claude-opus-4-1", 15.0, 1.50, 75.0),
    ("claude-opus-4", 15.0, 1.50, 75.0),
    ("claude-sonnet-4-5", 3.0, 0.30, 15.0),
    ("claude-sonnet-4", 3.0, 0.30, 15.0),
    ("claude-3-7-sonnet", 3.0, 0.30, 15.0),
    ("claude-3-5-sonnet", 3.0, 0.30, 15.0),
    ("claude-haiku-4-5", 1.0, 0.10, 5.0),
    ("claude-3-5-haiku", 0.80, 0.08, 4.0),
    ("claude-3-haiku", 0.25, 0.03, 1.25),
];

/// The built-in price of `model`: the table's entry it names, by its longest match, with
/// OpenRouter's `vendor/` and a dated snapshot's suffix (`gpt-4o-mini-2024-07-18`,
/// `claude-sonnet-4-5-20250929`) set aside.
pub fn built_in(model: &str) -> Option<Price> {
    let name = model.trim().rsplit('/').next().unwrap_or_default().to_lowercase();
    TABLE
        .iter()
        .filter(|(known, ..)| name == *known || name.strip_prefix(known).is_some_and(is_snapshot))
        .max_by_key(|(known, ..)| known.len())
        .map(|(_, input, cached, output)| Price { input: *input, output: *output, cached_input: Some(*cached) })
}

/// What may follow a model's name in a dated snapshot or an alias: `-2024-07-18`,
/// `-20250929`, `-latest`.
fn is_snapshot(rest: &str) -> bool {
    let Some(rest) = rest.strip_prefix('-') else { return false };
    rest == "latest"
        || rest.chars().all(|c| c.is_ascii_digit() || c == '-') && rest.starts_with(|c: char| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_is_priced_by_its_name_with_or_without_vendor_and_date() {
        let mini = built_in("gpt-4o-mini").unwrap();
        assert_eq!((mini.input, mini.output, mini.cached_input), (0.15, 0.60, Some(0.075)));
        assert_eq!(built_in("gpt-4o-mini-2024-07-18"), Some(mini));
        assert_eq!(built_in("openai/gpt-4o-mini"), Some(mini));
        assert_eq!(built_in("gpt-4o").unwrap().input, 2.50, "not gpt-4o-mini's");
        assert_eq!(built_in("claude-sonnet-4-5-20250929").unwrap().output, 15.0);
        assert_eq!(built_in("anthropic/claude-sonnet-4-5").unwrap().input, 3.0);
        assert_eq!(built_in("claude-opus-4-1-20250805").unwrap().input, 15.0);
    }

    #[test]
    fn a_model_not_in_the_table_has_no_price() {
        for model in ["mock-model", "gemma3:270m", "gpt-4o-mini-tts", "gpt-4", "llama-3.1-70b", ""] {
            assert_eq!(built_in(model), None, "{model}");
        }
    }
}
