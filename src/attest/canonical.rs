//! RFC 8785 JSON canonicalisation (JCS) and the SHA-256 digest of its bytes: the one
//! form of a JSON value that a signer and a verifier in another language hash alike,
//! whatever the order of keys, the spacing or the spelling of numbers in a file.
//!
//! The canonical form comes from `serde_json_canonicalizer` rather than being written
//! here: it sorts keys by UTF-16 code units, escapes strings as RFC 8785 says and
//! writes every float in ECMAScript's `Number::toString` form (ryu-js), and it passes
//! RFC 8785's own examples, tested below. It writes an integer as an integer, as
//! aragora-verify (Python) does; RFC 8785 would first make it a double, which differs
//! only beyond 2^53, a size no receipt's counts reach.

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::error::{AttestError, Result};

/// The RFC 8785 canonical bytes of `value`.
pub fn canonical(value: &Value) -> Result<Vec<u8>> {
    serde_json_canonicalizer::to_vec(value).map_err(|err| AttestError::Canonical(err.to_string()))
}

/// The SHA-256 digest of `bytes` in lowercase hex, the form receipts carry digests in.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// `bytes` in lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(value: &Value) -> String {
        String::from_utf8(canonical(value).unwrap()).unwrap()
    }

    /// RFC 8785 section 3.2.2's example: numbers, string escapes and literals.
    #[test]
    fn the_rfc_example_is_canonical() {
        let input = r#"{
          "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
          "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
          "literals": [null, true, false]
        }"#;
        let value: Value = serde_json::from_str(input).unwrap();
        assert_eq!(
            text(&value),
            r#"{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}"#
        );
    }

    /// RFC 8785 section 3.2.3: keys sorted by their UTF-16 code units, so the emoji
    /// (a surrogate pair, 0xD83D) comes before U+FB33, unlike in UTF-8 byte order.
    #[test]
    fn keys_sort_by_utf16_code_units() {
        let input = r#"{
          "\u20ac": "Euro Sign",
          "\r": "Carriage Return",
          "\ufb33": "Hebrew Letter Dalet With Dagesh",
          "1": "One",
          "\ud83d\ude00": "Emoji: Grinning Face",
          "\u0080": "Control",
          "\u00f6": "Latin Small Letter O With Diaeresis"
        }"#;
        let value: Value = serde_json::from_str(input).unwrap();
        // `\r` is escaped; U+0080 and above are written as they are.
        let expected = concat!(
            r#"{"\r":"Carriage Return","1":"One","#,
            "\"\u{80}\":\"Control\",\"\u{f6}\":\"Latin Small Letter O With Diaeresis\",",
            "\"\u{20ac}\":\"Euro Sign\",\"\u{1f600}\":\"Emoji: Grinning Face\",",
            "\"\u{fb33}\":\"Hebrew Letter Dalet With Dagesh\"}"
        );
        assert_eq!(text(&value), expected);
    }

    /// RFC 8785 appendix B: IEEE 754 doubles by their bits and their canonical form,
    /// ECMAScript's `Number::toString` (shortest round trip; an exponent only below
    /// 1e-6 and from 1e21 on; no `.0`; negative zero is `0`).
    #[test]
    fn numbers_are_written_as_ecmascript_writes_them() {
        let table: &[(u64, &str)] = &[
            (0x0000000000000000, "0"),
            (0x8000000000000000, "0"),
            (0x0000000000000001, "5e-324"),
            (0x8000000000000001, "-5e-324"),
            (0x7fefffffffffffff, "1.7976931348623157e+308"),
            (0xffefffffffffffff, "-1.7976931348623157e+308"),
            (0x4340000000000000, "9007199254740992"),
            (0xc340000000000000, "-9007199254740992"),
            (0x4430000000000000, "295147905179352830000"),
            (0x44b52d02c7e14af5, "9.999999999999997e+22"),
            (0x44b52d02c7e14af6, "1e+23"),
            (0x44b52d02c7e14af7, "1.0000000000000001e+23"),
            (0x444b1ae4d6e2ef4e, "999999999999999700000"),
            (0x444b1ae4d6e2ef4f, "999999999999999900000"),
            (0x444b1ae4d6e2ef50, "1e+21"),
            (0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"),
            (0x3eb0c6f7a0b5ed8d, "0.000001"),
            (0x41b3de4355555553, "333333333.3333332"),
            (0x41b3de4355555554, "333333333.33333325"),
            (0x41b3de4355555555, "333333333.3333333"),
            (0x41b3de4355555556, "333333333.3333334"),
            (0x41b3de4355555557, "333333333.33333343"),
            (0xbecbf647612f3696, "-0.0000033333333333333333"),
            (0x43143ff3c1cb0959, "1424953923781206.2"),
        ];
        for (bits, expected) in table {
            let value = Value::from(f64::from_bits(*bits));
            assert_eq!(&text(&value), expected, "{bits:016x}");
        }
        // The forms a receipt's confidence takes, and integers as integers.
        for (value, expected) in [(Value::from(1.0), "1"), (Value::from(0.6), "0.6"), (Value::from(3u64), "3")] {
            assert_eq!(text(&value), expected);
        }
    }

    /// The same value, however it is spelled, has one digest.
    #[test]
    fn spelling_does_not_change_the_digest() {
        let a: Value = serde_json::from_str(r#"{"b": 6e-1, "a": [1, "x"]}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{"a":[1,"x"],"b":0.60}"#).unwrap();
        assert_eq!(sha256_hex(&canonical(&a).unwrap()), sha256_hex(&canonical(&b).unwrap()));
        assert_eq!(text(&a), r#"{"a":[1,"x"],"b":0.6}"#);
        // FIPS 180-2's "abc".
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}
