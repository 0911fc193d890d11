//! What runs spend: the ledger priced, the room a month's cap leaves, and the budget a
//! run goes under — its debate's cap, and every request on the ledger, where the month's
//! cap holds across runs.

use chrono::{DateTime, Datelike, TimeZone, Utc};

use crate::error::{Error, Result};
use std::sync::{Arc, Mutex};

use crate::model::{
    Cost, DebateState, Dollars, PriceList, Reckoning, Sending, Snapshot, Usage, dollars, price_from_table,
};
use crate::providers::Budget;
use crate::providers::budget::{Refusal, Till};
use crate::store::{Spent, Store};

/// The rows' cost added up: dollars for the priced ones, and the models without a price.
pub fn priced<'a>(rows: impl IntoIterator<Item = &'a Spent>) -> Cost {
    let mut total = Cost::default();
    for row in rows {
        match row.usd {
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

/// The budget a run of `state` goes under: its cap, over what the debate has spent, and
/// every request it sends on the ledger, each held against `per_month` there.
pub fn budget(store: &Store, state: &DebateState, per_month: Option<Dollars>) -> Result<Budget> {
    let prices = PriceList::of(&state.snapshot);
    let ledger: Vec<(String, Usage)> =
        store.spent_by_debate(&state.id)?.into_iter().map(|spent| (spent.model, spent.usage)).collect();
    // The ledger has every request made here, retries and probes too; a debate read back
    // from its record spent more elsewhere than this machine's ledger knows.
    let tokens =
        |spent: &[(String, Usage)]| spent.iter().map(|(_, u)| u.prompt_tokens + u.completion_tokens).sum::<u64>();
    let spent = match tokens(&ledger) >= tokens(&state.usage_by_model) {
        true => ledger,
        false => state.usage_by_model.clone(),
    };
    let till = LedgerTill::open(store.path(), Some(state.id.clone()), per_month)?;
    Ok(Budget::new(state.snapshot.cap, prices, &spent, Some(Arc::new(till))))
}

/// The state database's ledger as a run's till: a connection of its own (the engine's is
/// busy with the debate), each request held there before it is sent.
pub struct LedgerTill {
    store: Mutex<Store>,
    debate_id: Option<String>,
    per_month: Option<Dollars>,
}

impl LedgerTill {
    pub fn open(path: &std::path::Path, debate_id: Option<String>, per_month: Option<Dollars>) -> Result<LedgerTill> {
        Ok(LedgerTill { store: Mutex::new(Store::open(path)?), debate_id, per_month })
    }
}

impl std::fmt::Debug for LedgerTill {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LedgerTill").field("debate_id", &self.debate_id).field("per_month", &self.per_month).finish()
    }
}

impl Till for LedgerTill {
    fn hold(&self, sending: &Sending) -> std::result::Result<i64, Refusal> {
        let sending = Sending { debate_id: self.debate_id.as_deref(), ..sending.clone() };
        let since = month_start(Utc::now());
        let month = self.per_month.map(|cap| (since.as_str(), cap.get()));
        let mut store = self.store.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        match store.hold_request(&sending, month) {
            Ok(Ok(ticket)) => Ok(ticket),
            Ok(Err(spent)) => Err(Refusal {
                message: format!(
                    "this month's runs have spent {} of budget.per_month_usd {}, and the next call could take {} more",
                    dollars(spent),
                    self.per_month.map(|cap| cap.to_string()).unwrap_or_default(),
                    dollars(sending.worst_usd.unwrap_or(0.0))
                ),
                raise: None,
            }),
            // A ledger that cannot be written cannot keep a cap: nothing is sent.
            Err(err) => {
                Err(Refusal { message: format!("the ledger of requests cannot be written: {err}"), raise: None })
            }
        }
    }

    fn settle(&self, ticket: i64, took: &Usage, usd: Option<f64>, reckoning: Reckoning) {
        let store = self.store.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        // A row left held counts at its worst case: the safe side of any cap.
        let _ = store.settle_request(ticket, took, usd, reckoning);
    }
}
