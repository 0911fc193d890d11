//! `debate usage` as a table: a row per model, provider or repository, the total, and
//! the month against its cap.

use std::fmt::Write;

use crate::model::dollars;
use crate::text::untrusted::for_terminal;
use crate::view::{UsageRow, UsageView};

pub fn table(view: &UsageView) -> String {
    let key = match view.by.as_str() {
        "provider" => "PROVIDER",
        "repository" => "REPOSITORY",
        _ => "MODEL",
    };
    let mut out = String::new();
    let line = |out: &mut String, row: &UsageRow| {
        let usd = match (&row.usd, row.unpriced_models.is_empty()) {
            (Some(usd), true) => dollars(*usd),
            (Some(usd), false) => format!("{} + unpriced", dollars(*usd)),
            (None, _) => "no price".into(),
        };
        let _ = writeln!(
            out,
            "{:<32} {:>6} {:>10} {:>10} {:>10}  {usd}",
            for_terminal(&row.key),
            row.requests,
            row.prompt_tokens,
            row.cached_tokens,
            row.completion_tokens
        );
    };
    let _ = writeln!(out, "Since {}:", view.since);
    let _ = writeln!(out, "{key:<32} {:>6} {:>10} {:>10} {:>10}  COST", "REQS", "PROMPT", "CACHED", "COMPLETION");
    for row in &view.rows {
        line(&mut out, row);
    }
    line(&mut out, &view.total);
    if view.total.not_as_reported > 0 {
        let _ = writeln!(
            out,
            "{} of the requests are counted at their limits, not as their servers reported them (stopped early, \
             left unsettled by a process that died, or reported past what was asked for).",
            view.total.not_as_reported
        );
    }
    let month = &view.month;
    let _ = match (month.per_month_usd, month.room_usd) {
        (Some(cap), Some(room)) => writeln!(
            out,
            "\nThis month: {} of budget.per_month_usd {} spent; {} left.",
            dollars(month.spent_usd),
            dollars(cap),
            dollars(room)
        ),
        _ => writeln!(out, "\nThis month: {} spent (no budget.per_month_usd set).", dollars(month.spent_usd)),
    };
    out
}
