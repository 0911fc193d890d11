//! What runs spend: the ledger priced, the room a month's cap leaves, and the budget a
//! run goes under — its debate's cap, lowered to what the month has room for.

use chrono::{DateTime, Datelike, TimeZone, Utc};

use crate::error::{Error, Result};
use crate::model::{Cap, Cost, DebateState, Dollars, PriceList, Snapshot, dollars, price_from_table};
use crate::providers::Budget;
use crate::store::{Spent, Store};

/// A ledger row's cost, at its debate's prices; `None` without one.
pub fn cost_of(spent: &Spent) -> Option<f64> {
    PriceList::of(&spent.snapshot).price(&spent.model).map(|price| price.of(&spent.usage))
}

/// The rows' cost added up: dollars for the priced ones, and the models without a price.
pub fn priced<'a>(rows: impl IntoIterator<Item = &'a Spent>) -> Cost {
    let mut total = Cost::default();
    for row in rows {
        match cost_of(row) {
            Some(usd) => total.usd += usd,
            None if !total.unpriced.contains(&row.model) => total.unpriced.push(row.model.clone()),
            None => {}
        }
    }
    total
}

/// The first moment of `now`'s calendar month (UTC), as the ledger's times are written.
pub fn month_start(now: DateTime<Utc>) -> String {
    let first = Utc.with_ymd_and_hms(now.year(), now.month(), 1, 0, 0, 0).single().unwrap_or(now);
    first.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// A cost cap prices every call: a role whose model has no price (neither in the
/// settings nor in the built-in table) is refused before anything is sent.
pub fn check_priced(snapshot: &mut Snapshot, per_month: Option<Dollars>) -> Result<()> {
    let unpriced = price_from_table(snapshot);
    let capped = match (snapshot.cap.usd, per_month) {
        (Some(usd), _) => format!("a cost cap of {usd}"),
        (None, Some(month)) => format!("budget.per_month_usd of {month}"),
        (None, None) => return Ok(()),
    };
    match unpriced.first() {
        None => Ok(()),
        Some(model) => Err(Error::input(format!("{capped} needs a price for every model, and {model} has none"))
            .with_hint(format!(
                "give it one in the provider's settings (prices: {{{model}: {{input: 0.15, output: 0.60}}}}, dollars a \
                 million tokens), or cap tokens with --max-tokens instead"
            ))),
    }
}

/// What `per_month` leaves this month, in dollars; a month without room refuses the run
/// before anything is sent.
pub fn month_room(per_month: Option<Dollars>, store: &Store) -> Result<Option<f64>> {
    let Some(month) = per_month else { return Ok(None) };
    let spent = priced(&store.spent_since(&month_start(Utc::now()))?);
    let room = month.get() - spent.usd;
    if room <= 0.0 {
        return Err(Error::config(format!(
            "this month's runs have spent {} of budget.per_month_usd {month}: no room for another",
            dollars(spent.usd)
        ))
        .with_hint("wait for next month, or raise budget.per_month_usd in your settings"));
    }
    Ok(Some(room))
}

/// The budget a run of `state` goes under: its cap, lowered to the month's `room`.
pub fn budget(state: &DebateState, room: Option<f64>) -> Budget {
    let prices = PriceList::of(&state.snapshot);
    let mut cap = state.snapshot.cap;
    // The cap counts the debate's own spending too: the month's room comes on top.
    let debate_spent = prices.estimate(state.usage_by_model.iter().map(|(m, u)| (m.as_str(), u))).usd;
    if let Some(room) = room.and_then(|room| Dollars::try_from(debate_spent + room).ok()) {
        cap = cap.lower(Cap { usd: Some(room), tokens: None });
    }
    Budget::new(cap, prices, &state.usage_by_model)
}
