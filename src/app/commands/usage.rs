//! `debate usage [--since WHEN] [--by model|provider|repository]`: what debates cost,
//! from the ledger in the state database — every request this machine sent, in debates,
//! their evaluations and doctor's checks — and this month against `budget.per_month_usd`.

use std::collections::BTreeMap;
use std::path::Path;

use chrono::{DateTime, Duration, NaiveDate, Utc};

use crate::app::shared::spending::{self, month_start};
use crate::error::{Error, Result};
use crate::settings;
use crate::store::{Spent, Store};
use crate::terminal;
use crate::view::{MonthView, UsageRow, UsageView};

pub fn run(since: Option<&str>, by: &str, config: Option<&Path>, db_path: &Path, json: bool) -> Result<()> {
    let now = Utc::now();
    let since = match since {
        Some(when) => moment(when, now)?,
        None => month_start(now),
    };
    let here = crate::repo::around_working_directory().unwrap_or_else(|_| Path::new(".").to_path_buf());
    let per_month = settings::load(&here, config)?.settings.budget.per_month_usd;
    let (rows, month) = match Store::open_existing(db_path)? {
        Some(store) => (store.spent_since(&since)?, store.spent_since(&month_start(now))?),
        None => (Vec::new(), Vec::new()),
    };
    let spent = spending::priced(&month).usd;
    let view = UsageView {
        since,
        by: by.to_string(),
        total: row("total", rows.iter()),
        rows: grouped(&rows, by).into_iter().map(|(key, rows)| row(&key, rows.into_iter())).collect(),
        month: MonthView {
            spent_usd: spent,
            per_month_usd: per_month.map(|cap| cap.get()),
            room_usd: per_month.map(|cap| (cap.get() - spent).max(0.0)),
        },
    };
    match json {
        true => terminal::print_json(&view)?,
        false => terminal::print_out(&terminal::usage::table(&view))?,
    }
    Ok(())
}

/// `7d`, `30d`, `24h` back from `now`, or a day (`2026-11-01`), as the ledger's times are written.
fn moment(when: &str, now: DateTime<Utc>) -> Result<String> {
    let when = when.trim();
    let back = |unit: &str, per: fn(i64) -> Duration| {
        when.strip_suffix(unit).and_then(|n| n.parse::<i64>().ok()).filter(|n| (1..=36_500).contains(n)).map(per)
    };
    let start = match back("d", Duration::days).or_else(|| back("h", Duration::hours)) {
        Some(ago) => now - ago,
        None => match NaiveDate::parse_from_str(when, "%Y-%m-%d") {
            Ok(day) => day.and_hms_opt(0, 0, 0).map(|at| at.and_utc()).unwrap_or(now),
            Err(_) => {
                return Err(Error::input(format!("--since {when:?} is not a time"))
                    .with_hint("give 7d, 30d, 24h or a date such as 2026-11-01"));
            }
        },
    };
    Ok(start.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
}

/// The rows under each key, keys in order.
fn grouped<'a>(rows: &'a [Spent], by: &str) -> BTreeMap<String, Vec<&'a Spent>> {
    let mut groups: BTreeMap<String, Vec<&Spent>> = BTreeMap::new();
    for spent in rows {
        let key = match by {
            "provider" => provider_of(spent),
            "repository" if spent.debate_id.is_none() => "(no debate: doctor's checks)".to_string(),
            "repository" => spent.repository.clone(),
            _ => spent.model.clone(),
        };
        groups.entry(key).or_default().push(spent);
    }
    groups
}

/// The provider the request went through; for a call stored before the ledger named it,
/// the provider whose role asked for the model that answered (a server may name it with
/// a date after it).
fn provider_of(spent: &Spent) -> String {
    if let Some(provider) = &spent.provider {
        return provider.clone();
    }
    let Some(snapshot) = &spent.snapshot else { return "unknown".to_string() };
    let roles = std::iter::once(snapshot.moderator.clone()).chain(snapshot.debater_roles());
    let provider = roles
        .filter_map(|role| Some((snapshot.model_of(&role)?.to_string(), role.provider)))
        .filter(|(model, _)| spent.model.starts_with(model.as_str()))
        .max_by_key(|(model, _)| model.len());
    provider.map_or_else(|| "unknown".to_string(), |(_, provider)| provider)
}

fn row<'a>(key: &str, rows: impl Iterator<Item = &'a Spent> + Clone) -> UsageRow {
    let cost = spending::priced(rows.clone());
    let any_priced = rows.clone().any(|spent| spent.usd.is_some());
    let mut total = UsageRow {
        key: key.to_string(),
        usd: any_priced.then_some(cost.usd),
        unpriced_models: cost.unpriced,
        ..UsageRow::default()
    };
    for spent in rows {
        total.requests += spent.requests;
        total.not_as_reported += spent.not_as_reported;
        total.prompt_tokens += spent.usage.prompt_tokens;
        total.cached_tokens += spent.usage.cached_tokens;
        total.completion_tokens += spent.usage.completion_tokens;
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_moment_is_days_or_hours_back_or_a_date() {
        let now = DateTime::parse_from_rfc3339("2026-11-29T10:00:00Z").unwrap().with_timezone(&Utc);
        assert_eq!(moment("7d", now).unwrap(), "2026-11-22T10:00:00.000Z");
        assert_eq!(moment("24h", now).unwrap(), "2026-11-28T10:00:00.000Z");
        assert_eq!(moment("2026-11-01", now).unwrap(), "2026-11-01T00:00:00.000Z");
        for bad in ["7", "0d", "-3d", "yesterday", "2026-13-01"] {
            assert!(moment(bad, now).is_err(), "{bad}");
        }
        assert_eq!(month_start(now), "2026-11-01T00:00:00.000Z");
    }
}
