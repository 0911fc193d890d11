//! What a run may still spend, and where every request it sends is written down, both
//! asked before each request goes out — each attempt of a call, a retry, a probe: its
//! worst case (its prompt's tokens and its completion limit, at its model's prices)
//! against the run's cap, less what the debate spent and what the requests in flight may
//! spend, and against the month's room in the ledger (`Till`), which holds it under the
//! database's lock so two runs cannot both take the same room. Once answered, what the
//! request really took replaces its worst case in both.

use std::sync::{Arc, Mutex};

use crate::model::{Cap, PriceList, Reckoning, Sending, Usage, dollars};

/// A run's budget and its ledger; the default has neither (nothing capped, nothing kept).
#[derive(Debug, Clone, Default)]
pub struct Budget {
    capped: Option<Arc<Mutex<Capped>>>,
    till: Option<Arc<dyn Till>>,
    prices: Option<Arc<PriceList>>,
}

/// Where every request is written down before it is sent (its worst case held) and
/// settled once answered: the state database's ledger. It refuses a request that could
/// take the month past its cap, with why.
pub trait Till: Send + Sync + std::fmt::Debug {
    fn hold(&self, sending: &Sending) -> Result<i64, Refusal>;
    fn settle(&self, ticket: i64, took: &Usage, usd: Option<f64>, reckoning: Reckoning);
}

/// A request the budget will not send, and the flag that would let it.
#[derive(Debug, Clone)]
pub struct Refusal {
    pub message: String,
    /// The flag with a cap that has room (`--max-cost 2.00`); none for the month's cap,
    /// which only the settings or the calendar raise.
    pub raise: Option<String>,
}

#[derive(Debug)]
struct Capped {
    cap: Cap,
    spent: Spent,
    /// The worst cases of the requests in flight.
    reserved: Spent,
}

#[derive(Debug, Clone, Copy, Default)]
struct Spent {
    usd: f64,
    tokens: u64,
}

/// A request's worst case, held until it is answered (`settle`) or fails (dropped: it is
/// settled as having taken nothing).
#[must_use]
pub struct Reservation {
    budget: Budget,
    model: String,
    held: Spent,
    ticket: Option<i64>,
}

impl Budget {
    /// `cap` over a debate that has spent `spent` (its tokens, and their cost at `prices`)
    /// before this run, every request written to `till`.
    pub fn new(cap: Cap, prices: PriceList, spent: &[(String, Usage)], till: Option<Arc<dyn Till>>) -> Budget {
        let capped = (!cap.is_none()).then(|| {
            let before = Spent {
                usd: prices.estimate(spent.iter().map(|(model, usage)| (model.as_str(), usage))).usd,
                tokens: spent.iter().map(|(_, usage)| usage.prompt_tokens + usage.completion_tokens).sum(),
            };
            Arc::new(Mutex::new(Capped { cap, spent: before, reserved: Spent::default() }))
        });
        Budget { capped, till, prices: Some(Arc::new(prices)) }
    }

    /// What `usage` of `model` costs at the run's prices; `None` without a price.
    fn price(&self, model: &str, usage: &Usage) -> Option<f64> {
        self.prices.as_ref()?.price(model).map(|price| price.of(usage))
    }

    /// Hold `worst` (a request to `model` through `provider`, for `purpose`), or refuse
    /// it when it could cross the run's cap with what is spent and held, or the month's.
    pub fn reserve(&self, provider: &str, model: &str, purpose: &str, worst: &Usage) -> Result<Reservation, Refusal> {
        let held = Spent {
            usd: self.price(model, worst).unwrap_or(0.0),
            tokens: worst.prompt_tokens + worst.completion_tokens,
        };
        let mut reservation =
            Reservation { budget: self.clone(), model: model.to_string(), held: Spent::default(), ticket: None };
        if let Some(capped) = &self.capped {
            let mut capped = capped.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            capped.refuse(held)?;
            capped.reserved.usd += held.usd;
            capped.reserved.tokens += held.tokens;
            reservation.held = held;
        }
        if let Some(till) = &self.till {
            let sending = Sending {
                debate_id: None,
                provider,
                model,
                purpose,
                worst: *worst,
                worst_usd: self.price(model, worst),
            };
            reservation.ticket = Some(till.hold(&sending)?);
        }
        Ok(reservation)
    }
}

impl Capped {
    fn refuse(&self, held: Spent) -> Result<(), Refusal> {
        let (spent, reserved, cap) = (self.spent, self.reserved, self.cap);
        if let Some(usd) = cap.usd.filter(|usd| spent.usd + reserved.usd + held.usd > usd.get()) {
            let raise = (spent.usd + held.usd).max(usd.get() * 2.0);
            return Err(Refusal {
                message: format!(
                    "the cost cap of {usd} is reached: {} spent, and the next call could take {} more",
                    dollars(spent.usd),
                    dollars(held.usd + reserved.usd)
                ),
                raise: Some(format!("--max-cost {:.2}", (raise * 100.0).ceil() / 100.0)),
            });
        }
        if let Some(tokens) = cap.tokens.filter(|t| spent.tokens + reserved.tokens + held.tokens > t.get()) {
            let raise = (spent.tokens + held.tokens).max(tokens.get() * 2);
            return Err(Refusal {
                message: format!(
                    "the cap of {} tokens is reached: {} spent, and the next call could take {} more",
                    tokens.get(),
                    spent.tokens,
                    held.tokens + reserved.tokens
                ),
                raise: Some(format!("--max-tokens {raise}")),
            });
        }
        Ok(())
    }
}

impl Reservation {
    /// The request was answered: what it took (`reckoning` says how it was counted), at
    /// its model's prices, replaces its worst case.
    pub fn settle(mut self, took: &Usage, reckoning: Reckoning) {
        self.close(took, reckoning);
    }

    fn close(&mut self, took: &Usage, reckoning: Reckoning) {
        let usd = self.budget.price(&self.model, took);
        let held = std::mem::take(&mut self.held);
        if let Some(capped) = &self.budget.capped {
            let mut capped = capped.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            capped.reserved.usd = (capped.reserved.usd - held.usd).max(0.0);
            capped.reserved.tokens = capped.reserved.tokens.saturating_sub(held.tokens);
            capped.spent.usd += usd.unwrap_or(0.0);
            capped.spent.tokens += took.prompt_tokens + took.completion_tokens;
        }
        if let (Some(till), Some(ticket)) = (&self.budget.till, self.ticket.take()) {
            till.settle(ticket, took, usd, reckoning);
        }
    }
}

/// A request that failed without an answer took nothing we can count.
impl Drop for Reservation {
    fn drop(&mut self) {
        if self.ticket.is_some() || self.held.tokens > 0 || self.held.usd > 0.0 {
            self.close(&Usage::default(), Reckoning::Failed);
        }
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

    fn reserve(budget: &Budget, worst: Usage) -> Result<Reservation, Refusal> {
        budget.reserve("p", "m", "argument", &worst)
    }

    #[test]
    fn a_call_that_could_cross_the_cost_cap_is_refused_with_the_way_on() {
        // $1 and $2 a million: a call of 100,000 prompt and 100,000 completion tokens is $0.30.
        let cap = Cap { usd: Some(Dollars::try_from(1.0).unwrap()), tokens: None };
        let budget = Budget::new(cap, prices(), &[("m".into(), usage(300_000, 0))], None);
        let first = reserve(&budget, usage(100_000, 100_000)).expect("$0.30 spent, $0.30 held: room");
        let second = reserve(&budget, usage(100_000, 100_000)).expect("$0.60 with both: room");
        let Err(Refusal { message, raise }) = reserve(&budget, usage(100_000, 100_000)) else {
            panic!("three in flight could cross $1");
        };
        assert!(message.contains("the cost cap of $1.00 is reached: $0.3000 spent"), "{message}");
        assert_eq!(raise.as_deref(), Some("--max-cost 2.00"));
        // One answered for less than its worst case: room again.
        first.settle(&usage(10_000, 10_000), Reckoning::Server);
        drop(second);
        assert!(reserve(&budget, usage(100_000, 100_000)).is_ok());
    }

    #[test]
    fn a_token_cap_counts_what_was_spent_and_what_is_in_flight() {
        let cap = Cap { usd: None, tokens: Some(Tokens::try_from(1_000).unwrap()) };
        let budget = Budget::new(cap, prices(), &[("m".into(), usage(400, 100))], None);
        let held = reserve(&budget, usage(200, 200)).unwrap();
        assert!(reserve(&budget, usage(50, 60)).is_err());
        held.settle(&usage(100, 50), Reckoning::Server);
        assert!(reserve(&budget, usage(50, 60)).is_ok(), "650 spent, 110 asked");
    }

    #[test]
    fn no_cap_refuses_nothing() {
        let budget = Budget::new(Cap::default(), prices(), &[], None);
        assert!(budget.reserve("p", "unpriced", "argument", &usage(u64::MAX / 4, u64::MAX / 4)).is_ok());
    }

    /// What a till was told of one request: its ticket, tokens, dollars and reckoning.
    type Told = (i64, Usage, Option<f64>, Reckoning);

    /// A till that keeps what it is told.
    #[derive(Debug, Default)]
    struct Kept(Mutex<Vec<Told>>);

    impl Till for Kept {
        fn hold(&self, sending: &Sending) -> Result<i64, Refusal> {
            assert_eq!((sending.provider, sending.model, sending.purpose), ("p", "m", "argument"));
            let mut kept = self.0.lock().unwrap();
            let ticket = kept.len() as i64;
            kept.push((ticket, sending.worst, sending.worst_usd, Reckoning::Limit));
            Ok(ticket)
        }
        fn settle(&self, ticket: i64, took: &Usage, usd: Option<f64>, reckoning: Reckoning) {
            self.0.lock().unwrap()[ticket as usize] = (ticket, *took, usd, reckoning);
        }
    }

    #[test]
    fn every_request_reaches_the_till_answered_or_not() {
        let till = Arc::new(Kept::default());
        let budget = Budget::new(Cap::default(), prices(), &[], Some(till.clone()));
        reserve(&budget, usage(1_000, 100)).unwrap().settle(&usage(500_000, 0), Reckoning::Server);
        drop(reserve(&budget, usage(1_000, 100)).unwrap());
        let kept = till.0.lock().unwrap();
        assert_eq!((kept[0].1.prompt_tokens, kept[0].2, kept[0].3), (500_000, Some(0.5), Reckoning::Server));
        assert_eq!((kept[1].1, kept[1].2, kept[1].3), (Usage::default(), Some(0.0), Reckoning::Failed));
    }
}
