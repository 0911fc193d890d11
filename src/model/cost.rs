//! What a debate's calls are estimated to cost, from the prices the settings give each
//! model. None are built in: a model without a price makes the estimate say so, never
//! guess; the offline and scripted providers cost nothing.

use serde::Serialize;

use super::budget::dollars;
use super::call::Usage;
use super::debate::{DebateState, Snapshot};
use super::provider::{Price, RoleChoice};

/// The estimate for a set of calls.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Cost {
    /// US dollars for the calls whose model has a price (or costs nothing).
    pub usd: f64,
    /// Models called without a price: the estimate leaves their calls out.
    pub unpriced: Vec<String>,
}

impl Cost {
    /// The estimate for every call a debate made, kept or discarded.
    pub fn of(state: &DebateState) -> Cost {
        let calls = state.usage_by_model.iter().map(|(model, usage)| (model.as_str(), usage));
        PriceList::of(&state.snapshot).estimate(calls)
    }

    /// The whole estimate, when every call has a price.
    pub fn known(&self) -> Option<f64> {
        self.unpriced.is_empty().then_some(self.usd)
    }

    /// `≈ $0.0123`, or what is not known and why.
    pub fn describe(&self) -> String {
        let unknown = format!("unknown for {} (no price in the settings)", self.unpriced.join(", "));
        match (self.unpriced.is_empty(), self.usd > 0.0) {
            (true, true) => format!("≈ {}", dollars(self.usd)),
            (true, false) => "none (no model was paid for)".into(),
            (false, true) => format!("≈ {} for the priced calls; {unknown}", dollars(self.usd)),
            (false, false) => unknown,
        }
    }
}

/// The model the offline provider reports: it costs nothing.
const OFFLINE_MODEL: &str = "offline";

/// The prices a debate knows: each provider's, and whether every call is free.
#[derive(Debug, Clone, Default)]
pub struct PriceList {
    priced: Vec<(String, Price)>,
    /// No role calls a model over the network: every call is free.
    all_free: bool,
}

impl PriceList {
    pub fn of(snapshot: &Snapshot) -> PriceList {
        let providers = snapshot.providers.values().flat_map(|d| &d.prices);
        let priced = providers.chain(&snapshot.prices).map(|(m, p)| (m.clone(), *p)).collect();
        let mut roles = std::iter::once(&snapshot.moderator).chain(&snapshot.seat_models).chain([&snapshot.debater]);
        // The scripted provider reports whatever model its script names.
        let all_free = roles.all(|role| !role.kind.over_the_network());
        PriceList { priced, all_free }
    }

    /// The price of one model, and no other.
    pub fn one(model: &str, price: Price) -> PriceList {
        PriceList { priced: vec![(model.to_string(), price)], all_free: false }
    }

    /// A model's price: its own, else that of the longest priced name it starts with
    /// (a server reports `gpt-4o-mini-2024-07-18` for `gpt-4o-mini`).
    pub fn price(&self, model: &str) -> Option<Price> {
        if self.all_free || model == OFFLINE_MODEL {
            return Some(Price { input: 0.0, output: 0.0, cached_input: None });
        }
        self.priced
            .iter()
            .filter(|(name, _)| model == name || model.starts_with(name.as_str()))
            .max_by_key(|(name, _)| name.len())
            .map(|(_, price)| *price)
    }

    /// The estimate for calls, each by the model that answered and its tokens.
    pub fn estimate<'a>(&self, calls: impl IntoIterator<Item = (&'a str, &'a Usage)>) -> Cost {
        let mut cost = Cost::default();
        for (model, usage) in calls {
            match self.price(model) {
                Some(price) => cost.usd += price.of(usage),
                None if !cost.unpriced.iter().any(|m| m == model) => cost.unpriced.push(model.to_string()),
                None => {}
            }
        }
        cost
    }
}

/// Every role's model of `snapshot` priced: the built-in price of each that neither its
/// provider's settings nor the debate already price, kept in the snapshot so that the
/// debate's estimate never moves when the table does. The models still without a price.
pub fn price_from_table(snapshot: &mut Snapshot) -> Vec<String> {
    let roles: Vec<RoleChoice> = std::iter::once(snapshot.moderator.clone()).chain(snapshot.debater_roles()).collect();
    let mut unpriced = Vec::new();
    for role in roles.iter().filter(|role| role.kind.over_the_network()) {
        let Some(model) = snapshot.model_of(role).map(str::to_string) else { continue };
        if PriceList::of(snapshot).price(&model).is_some() {
            continue;
        }
        match super::prices::built_in(&model) {
            Some(price) => {
                snapshot.prices.insert(model, price);
            }
            None if !unpriced.contains(&model) => unpriced.push(model),
            None => {}
        }
    }
    unpriced
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(prompt: u64, cached: u64, completion: u64) -> Usage {
        Usage { prompt_tokens: prompt, cached_tokens: cached, completion_tokens: completion, latency_ms: 0, retries: 0 }
    }

    #[test]
    fn cached_tokens_cost_the_cached_price_and_the_rest_the_input_price() {
        let price = Price { input: 2.0, output: 8.0, cached_input: Some(0.5) };
        // 600k fresh × $2 + 400k cached × $0.5 + 100k out × $8 = 1.2 + 0.2 + 0.8
        assert!((price.of(&usage(1_000_000, 400_000, 100_000)) - 2.2).abs() < 1e-9);
        let uncached = Price { cached_input: None, ..price };
        assert!((uncached.of(&usage(1_000_000, 400_000, 0)) - 2.0).abs() < 1e-9, "cached at the input price");
    }

    #[test]
    fn a_model_without_a_price_is_unknown_never_guessed() {
        let list = PriceList {
            priced: vec![("gpt-4o".into(), Price { input: 2.5, output: 10.0, cached_input: None })],
            all_free: false,
        };
        let (used, other) = (usage(1_000, 0, 1_000), usage(5_000, 0, 0));
        let cost = list.estimate([("gpt-4o-2024-08-06", &used), ("offline", &other)]);
        assert_eq!(cost.known(), Some(0.0125));
        assert_eq!(cost.describe(), "≈ $0.0125");
        let partly = list.estimate([("gpt-4o", &used), ("llama3.1", &other), ("llama3.1", &other)]);
        assert_eq!(partly.known(), None);
        assert_eq!(
            partly.describe(),
            "≈ $0.0125 for the priced calls; unknown for llama3.1 (no price in the settings)"
        );
        assert_eq!(list.estimate([("llama3.1", &other)]).describe(), "unknown for llama3.1 (no price in the settings)");
        assert_eq!(list.estimate([("offline", &other)]).describe(), "none (no model was paid for)");
    }

    #[test]
    fn the_longest_priced_name_wins() {
        let list = PriceList {
            priced: vec![
                ("gpt-4o".into(), Price { input: 2.5, output: 10.0, cached_input: None }),
                ("gpt-4o-mini".into(), Price { input: 0.15, output: 0.6, cached_input: None }),
            ],
            all_free: false,
        };
        assert_eq!(list.price("gpt-4o-mini-2024-07-18").unwrap().input, 0.15);
        assert_eq!(list.price("gpt-4o").unwrap().input, 2.5);
        assert!(list.price("claude-sonnet-4-5").is_none());
    }
}
