//! The bounds of the numbers a settings file gives a provider or a role, each checked as
//! the file is read (so an error names the file, line and key): a number the program
//! cannot act on — a semaphore of 2^62 permits, a timeout past the clock's range — is a
//! setting to fix, never a crash later. And the most a person may write at once.

use serde::{Deserialize, Deserializer};

/// Requests in flight at once to one server, as settings or the server itself say it.
pub const MOST_AT_ONCE: usize = 64;
/// Retries of one failed request.
pub const MOST_RETRIES: u32 = 20;
/// A call's own limits (whole call, first token, silence), in seconds: a day.
pub const MOST_CALL_SECONDS: u64 = 86_400;
/// US dollars per million tokens.
pub const MOST_PRICE: f64 = 100_000.0;
/// A sampling temperature, as the APIs take it.
pub const MOST_TEMPERATURE: f32 = 2.0;
/// What a person writes at once — a question, an objection, a checkpoint's guidance, the
/// answer to a clarifying question — in bytes, at whichever door it comes in.
pub const MOST_SAID_BYTES: usize = 16 * 1024;

/// An optional whole number from `LOW` to `HIGH`.
pub fn whole<'de, D, T, const LOW: u64, const HIGH: u64>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: TryFrom<u64>,
{
    let Some(value) = Option::<i128>::deserialize(deserializer)? else { return Ok(None) };
    let fits = u64::try_from(value).ok().filter(|n| (LOW..=HIGH).contains(n));
    fits.and_then(|n| T::try_from(n).ok())
        .map(Some)
        .ok_or_else(|| serde::de::Error::custom(format!("expected a whole number from {LOW} to {HIGH}, not {value}")))
}

/// `value` when it is a number from 0 to `high`, else why not.
pub fn share<E: serde::de::Error>(value: f64, high: f64) -> Result<f64, E> {
    match (0.0..=high).contains(&value) {
        true => Ok(value),
        false => Err(E::custom(format!("expected a number from 0 to {high}, not {value}"))),
    }
}

/// A price: from 0 to `MOST_PRICE` dollars per million tokens.
pub fn price<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
    share(f64::deserialize(deserializer)?, MOST_PRICE)
}

/// An optional price.
pub fn optional_price<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<f64>, D::Error> {
    Option::<f64>::deserialize(deserializer)?.map(|value| share(value, MOST_PRICE)).transpose()
}

/// An optional temperature: from 0 to `MOST_TEMPERATURE`.
pub fn temperature<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<f32>, D::Error> {
    let value = Option::<f64>::deserialize(deserializer)?;
    value.map(|value| share(value, f64::from(MOST_TEMPERATURE)).map(|t| t as f32)).transpose()
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    #[derive(Deserialize, Debug)]
    struct Limits {
        #[serde(default, deserialize_with = "super::whole::<_, _, 1, 64>")]
        at_once: Option<usize>,
        #[serde(default, deserialize_with = "super::temperature")]
        temperature: Option<f32>,
    }

    #[test]
    fn a_number_past_its_bound_is_refused_with_the_bound() {
        let read = |json: &str| serde_json::from_str::<Limits>(json).map_err(|e| e.to_string());
        assert_eq!(read(r#"{"at_once": 8}"#).unwrap().at_once, Some(8));
        assert_eq!(read("{}").unwrap().at_once, None);
        for json in [
            r#"{"at_once": 4611686018427387904}"#,
            r#"{"at_once": 18446744073709551615}"#,
            r#"{"at_once": 0}"#,
            r#"{"at_once": -1}"#,
        ] {
            let err = read(json).unwrap_err();
            assert!(err.contains("from 1 to 64"), "{json}: {err}");
        }
        assert!(read(r#"{"temperature": 1e30}"#).unwrap_err().contains("from 0 to 2"));
        assert_eq!(read(r#"{"temperature": 0.7}"#).unwrap().temperature, Some(0.7));
    }
}
