//! What a run may still spend, checked before each call: the call's worst case — its
//! prompt's tokens and its completion limit, at its model's prices — against the cap,
//! less what the debate spent and what the calls in flight with it may spend. A call
//! that could cross the cap is not sent; once it is answered, what it really took
//! replaces its worst case.

use std::sync::{Arc, Mutex};

use super::contract::ProviderError;
use crate::model::{Cap, PriceList, Usage, dollars};

/// A run's budget; the default has no cap.
#[derive(Debug, Clone, Default)]
pub struct Budget(Option<Arc<Mutex<Ledger>>>);

#[derive(Debug)]
struct Ledger {
    cap: Cap,
    prices: PriceList,
    spent: Spent,
    /// The worst cases of the calls in flight.
    reserved: Spent,
}

#[derive(Debug, Clone, Copy, Default)]
struct Spent {
    usd: f64,
    tokens: u64,
}

/// A call's worst case, held until it is answered (`settle`) or fails (dropped).
#[must_use]
pub struct Reservation {
    budget: Budget,
    held: Spent,
}

impl Budget {
    /// `cap` over a debate that has spent `spent` (its tokens, and their cost at `prices`)
    /// before this run; no cap, no budget.
    pub fn new(cap: Cap, prices: PriceList, spent: &[(String, Usage)]) -> Budget {
        if cap.is_none() {
            return Budget::default();
        }
        let before = Spent {
            usd: prices.estimate(spent.iter().map(|(model, usage)| (model.as_str(), usage))).usd,
            tokens: spent.iter().map(|(_, usage)| usage.prompt_tokens + usage.completion_tokens).sum(),
        };
        Budget(Some(Arc::new(Mutex::new(Ledger { cap, prices, spent: before, reserved: Spent::default() }))))
    }

    /// Hold `worst` (a call to `model`'s prompt and completion limit), or refuse the call
    /// when it could cross the cap with what is spent and held.
    pub fn reserve(&self, model: &str, worst: &Usage) -> Result<Reservation, ProviderError> {
        let Some(ledger) = &self.0 else { return Ok(Reservation { budget: self.clone(), held: Spent::default() }) };
        let mut ledger = ledger.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let held = Spent {
            usd: ledger.prices.price(model).map_or(0.0, |price| price.of(worst)),
            tokens: worst.prompt_tokens + worst.completion_tokens,
        };
        let (spent, reserved, cap) = (ledger.spent, ledger.reserved, ledger.cap);
        if let Some(usd) = cap.usd.filter(|usd| spent.usd + reserved.usd + held.usd > usd.get()) {
            let raise = (spent.usd + held.usd).max(usd.get() * 2.0);
            return Err(ProviderError::OverBudget {
                message: format!(
                    "the cost cap of {usd} is reached: {} spent, and the next call could take {} more",
                    dollars(spent.usd),
                    dollars(held.usd + reserved.usd)
                ),
                raise: format!("--max-cost {:.2}", (raise * 100.0).ceil() / 100.0),
            });
        }
        if let Some(tokens) = cap.tokens.filter(|t| spent.tokens + reserved.tokens + held.tokens > t.get()) {
            let raise = (spent.tokens + held.tokens).max(tokens.get() * 2);
            return Err(ProviderError::OverBudget {
                message: format!(
                    "the cap of {} tokens is reached: {} spent, and the next call could take {} more",
                    tokens.get(),
                    spent.tokens,
                    held.tokens + reserved.tokens
                ),
                raise: format!("--max-tokens {raise}"),
            });
        }
        ledger.reserved.usd += held.usd;
        ledger.reserved.tokens += held.tokens;
        Ok(Reservation { budget: self.clone(), held })
    }
}

impl Reservation {
    /// The call was answered: what it took, at `model`'s prices, replaces its worst case.
    pub fn settle(mut self, model: &str, took: &Usage) {
        if let Some(ledger) = &self.budget.0 {
            let mut ledger = ledger.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            ledger.spent.usd += ledger.prices.price(model).map_or(0.0, |price| price.of(took));
            ledger.spent.tokens += took.prompt_tokens + took.completion_tokens;
        }
        self.release();
    }

    fn release(&mut self) {
        let held = std::mem::take(&mut self.held);
        if let Some(ledger) = &self.budget.0 {
            let mut ledger = ledger.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            ledger.reserved.usd = (ledger.reserved.usd - held.usd).max(0.0);
            ledger.reserved.tokens = ledger.reserved.tokens.saturating_sub(held.tokens);
        }
    }
}

/// A call that failed took nothing we can count: its worst case is let go.
impl Drop for Reservation {
    fn drop(&mut self) {
        self.release();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Dollars, Price, Snapshot, Tokens};

    fn prices() -> PriceList {
        let mut snapshot: Snapshot = crate::model::fixture::with_rounds(1).snapshot;
        snapshot.moderator.kind = crate::model::ProviderKind::Openai;
        snapshot.prices.insert("m".into(), Price { input: 1.0, output: 2.0, cached_input: None });
        PriceList::of(&snapshot)
    }

    fn usage(prompt: u64, completion: u64) -> Usage {
        Usage { prompt_tokens: prompt, completion_tokens: completion, ..Usage::default() }
    }

    #[test]
    fn a_call_that_could_cross_the_cost_cap_is_refused_with_the_way_on() {
        // $1 and $2 a million: a call of 100,000 prompt and 100,000 completion tokens is $0.30.
        let cap = Cap { usd: Some(Dollars::try_from(1.0).unwrap()), tokens: None };
        let budget = Budget::new(cap, prices(), &[("m".into(), usage(300_000, 0))]);
        let first = budget.reserve("m", &usage(100_000, 100_000)).expect("$0.30 spent, $0.30 held: room");
        let second = budget.reserve("m", &usage(100_000, 100_000)).expect("$0.60 with both: room");
        let Err(ProviderError::OverBudget { message, raise }) = budget.reserve("m", &usage(100_000, 100_000)) else {
            panic!("three in flight could cross $1");
        };
        assert!(message.contains("the cost cap of $1.00 is reached: $0.3000 spent"), "{message}");
        assert_eq!(raise, "--max-cost 2.00");
        // One answered for less than its worst case: room again.
        first.settle("m", &usage(10_000, 10_000));
        drop(second);
        assert!(budget.reserve("m", &usage(100_000, 100_000)).is_ok());
    }

    #[test]
    fn a_token_cap_counts_what_was_spent_and_what_is_in_flight() {
        let cap = Cap { usd: None, tokens: Some(Tokens::try_from(1_000).unwrap()) };
        let budget = Budget::new(cap, prices(), &[("m".into(), usage(400, 100))]);
        let held = budget.reserve("m", &usage(200, 200)).unwrap();
        assert!(matches!(budget.reserve("m", &usage(50, 60)), Err(ProviderError::OverBudget { .. })));
        held.settle("m", &usage(100, 50));
        assert!(budget.reserve("m", &usage(50, 60)).is_ok(), "650 spent, 110 asked");
    }

    #[test]
    fn no_cap_refuses_nothing() {
        let budget = Budget::new(Cap::default(), prices(), &[]);
        assert!(budget.reserve("unpriced", &usage(u64::MAX / 4, u64::MAX / 4)).is_ok());
    }
}
