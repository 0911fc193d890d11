//! What a run may spend: a cap in dollars, in tokens, or both, as `--max-cost`,
//! `--max-tokens` or the settings' `budget:` give it, each number bounded as it is read.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::call::Usage;

/// `$0.0034` below a dollar, `$1.23` above.
pub fn dollars(usd: f64) -> String {
    match usd < 1.0 {
        true => format!("${usd:.4}"),
        false => format!("${usd:.2}"),
    }
}

/// The most a cap may be: a hundred thousand dollars.
const MOST_DOLLARS: f64 = 100_000.0;

/// An amount of US dollars a cap allows: more than nothing, at most `MOST_DOLLARS`.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Serialize, Deserialize)]
#[serde(try_from = "f64", into = "f64")]
pub struct Dollars(f64);

impl Dollars {
    pub fn get(self) -> f64 {
        self.0
    }
}

impl TryFrom<f64> for Dollars {
    type Error = String;
    fn try_from(value: f64) -> Result<Dollars, String> {
        match value > 0.0 && value <= MOST_DOLLARS {
            true => Ok(Dollars(value)),
            false => Err(format!("a cost cap is more than 0 and at most {MOST_DOLLARS} US dollars, not {value}")),
        }
    }
}

impl From<Dollars> for f64 {
    fn from(dollars: Dollars) -> f64 {
        dollars.0
    }
}

impl FromStr for Dollars {
    type Err = String;
    fn from_str(text: &str) -> Result<Dollars, String> {
        let number = text.trim().trim_start_matches('$');
        number.parse::<f64>().map_err(|_| format!("{text:?} is not an amount of US dollars (such as 0.50)"))?.try_into()
    }
}

impl fmt::Display for Dollars {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&dollars(self.0))
    }
}

/// A number of tokens a cap allows: 1 to a billion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "i64", into = "u64")]
pub struct Tokens(u64);

impl Tokens {
    pub fn get(self) -> u64 {
        self.0
    }
}

impl TryFrom<i64> for Tokens {
    type Error = String;
    fn try_from(value: i64) -> Result<Tokens, String> {
        match u64::try_from(value).ok().filter(|n| (1..=Usage::LIMIT).contains(n)) {
            Some(n) => Ok(Tokens(n)),
            None => Err(format!("a token cap is from 1 to {}, not {value}", Usage::LIMIT)),
        }
    }
}

impl From<Tokens> for u64 {
    fn from(tokens: Tokens) -> u64 {
        tokens.0
    }
}

impl FromStr for Tokens {
    type Err = String;
    fn from_str(text: &str) -> Result<Tokens, String> {
        let digits: String = text.trim().chars().filter(|c| *c != '_' && *c != ',').collect();
        digits.parse::<i64>().map_err(|_| format!("{text:?} is not a number of tokens"))?.try_into()
    }
}

/// A run's caps; neither: no cap.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Cap {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usd: Option<Dollars>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<Tokens>,
}

impl Cap {
    pub fn is_none(&self) -> bool {
        self.usd.is_none() && self.tokens.is_none()
    }

    /// "$0.50", "20000 tokens", "$0.50 and 20000 tokens".
    pub fn describe(&self) -> String {
        let parts: Vec<String> =
            [self.usd.map(|usd| usd.to_string()), self.tokens.map(|t| format!("{} tokens", t.get()))]
                .into_iter()
                .flatten()
                .collect();
        parts.join(" and ")
    }

    /// Each figure of this cap, else `other`'s: a cap given now over the one that stood.
    pub fn or(self, other: Cap) -> Cap {
        Cap { usd: self.usd.or(other.usd), tokens: self.tokens.or(other.tokens) }
    }

    /// The lower of each of two caps (a repository's may lower the user's, never raise it).
    pub fn lower(self, other: Cap) -> Cap {
        let least = |a: Option<Dollars>, b: Option<Dollars>| match (a, b) {
            (Some(a), Some(b)) => Some(if a.get() <= b.get() { a } else { b }),
            (a, b) => a.or(b),
        };
        Cap {
            usd: least(self.usd, other.usd),
            tokens: match (self.tokens, other.tokens) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_and_counts_are_read_within_their_bounds() {
        assert_eq!("0.50".parse::<Dollars>().unwrap().get(), 0.5);
        assert_eq!("$2".parse::<Dollars>().unwrap().get(), 2.0);
        for bad in ["0", "-1", "1e9", "NaN", "ten", ""] {
            assert!(bad.parse::<Dollars>().is_err(), "{bad}");
        }
        assert_eq!("20_000".parse::<Tokens>().unwrap().get(), 20_000);
        for bad in ["0", "-5", "99999999999999", "many"] {
            assert!(bad.parse::<Tokens>().is_err(), "{bad}");
        }
    }

    #[test]
    fn the_lower_cap_wins_each_figure() {
        let dollars = |usd: f64| Some(Dollars::try_from(usd).unwrap());
        let tokens = |n: i64| Some(Tokens::try_from(n).unwrap());
        let user = Cap { usd: dollars(1.0), tokens: None };
        let repository = Cap { usd: dollars(5.0), tokens: tokens(1000) };
        assert_eq!(user.lower(repository), Cap { usd: dollars(1.0), tokens: tokens(1000) });
        assert_eq!(Cap::default().lower(user), user);
        assert_eq!(Cap { usd: dollars(0.5), tokens: tokens(20) }.describe(), "$0.5000 and 20 tokens");
    }
}
