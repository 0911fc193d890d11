//! A dependency as a manifest declares it, before the table of notable packages
//! (`known.rs`) judges it, and the version as the debaters read it. Shared by every
//! ecosystem's reader, so they all hand the table the same thing.

/// A dependency as a manifest declares it.
#[derive(Debug)]
pub struct Declared {
    pub name: String,
    pub version: Option<String>,
    /// Cargo features or Python extras, which may name the backend.
    pub features: Vec<String>,
}

impl Declared {
    pub fn new(name: impl Into<String>, version: Option<String>) -> Declared {
        Declared { name: name.into(), version, features: Vec::new() }
    }
}

/// The version as written, without a leading `^`, `~`, `~>`, `=` or `==` when what
/// follows is one plain version: `^1.2` is "1.2", but `>=1.2, <2` and `~=1.2` stay as
/// written. `None` when nothing is written.
pub fn plain_version(written: &str) -> Option<String> {
    let written = written.trim();
    if written.is_empty() {
        return None;
    }
    let bare = ["==", "~>", "^", "~", "="].iter().find_map(|operator| written.strip_prefix(operator));
    match bare.map(str::trim) {
        Some(bare) if is_plain(bare) => Some(bare.to_string()),
        _ => Some(written.to_string()),
    }
}

fn is_plain(version: &str) -> bool {
    version.starts_with(|c: char| c.is_ascii_digit())
        && !version.contains(|c: char| c.is_whitespace() || matches!(c, ',' | '<' | '>' | '=' | '|'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_lose_an_operator_only_before_one_plain_version() {
        let cases = [
            ("^1.2.3", Some("1.2.3")),
            ("~1.2", Some("1.2")),
            ("==2.0", Some("2.0")),
            ("~> 7.1", Some("7.1")),
            ("=0.12.1", Some("0.12.1")),
            ("1.0", Some("1.0")),
            (">=1.2, <2", Some(">=1.2, <2")),
            ("~=2.0", Some("~=2.0")),
            ("^1 || ^2", Some("^1 || ^2")),
            ("*", Some("*")),
            ("  ", None),
        ];
        for (written, expected) in cases {
            assert_eq!(plain_version(written).as_deref(), expected, "{written}");
        }
    }
}
