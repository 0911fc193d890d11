//! Who a commit is by, as git works it out (git-commit-tree(1), "COMMIT INFORMATION"):
//! `GIT_AUTHOR_NAME`, `GIT_AUTHOR_EMAIL` and `GIT_AUTHOR_DATE` first (the committer's
//! likewise), then `author.name` or `committer.name` and `user.name` in git's
//! configuration, then `EMAIL` for the address; the dates in the forms git takes.

use chrono::{DateTime, FixedOffset, Local, NaiveDateTime, TimeZone};
use git2::{Signature, Time};

use super::config::GitConfig;
use crate::text::untrusted::one_line;

/// The two people a commit names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Author,
    Committer,
}

impl Role {
    fn word(self) -> &'static str {
        match self {
            Role::Author => "author",
            Role::Committer => "committer",
        }
    }

    fn variable(self, what: &str) -> String {
        format!("GIT_{}_{what}", self.word().to_uppercase())
    }
}

/// A person as git would name them: their name and address, when git would find both.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Person {
    pub name: Option<String>,
    pub email: Option<String>,
}

/// `role`'s name and address from the environment and `config`, as git looks for them.
pub fn person(config: &GitConfig, role: Role) -> Person {
    let from_env = |what: &str| std::env::var(role.variable(what)).ok();
    let clean = |value: String| Some(one_line(&value)).filter(|v| !v.is_empty());
    let name = from_env("NAME")
        .or_else(|| config.string(&format!("{}.name", role.word())))
        .or_else(|| config.string("user.name"))
        .and_then(clean);
    let email = from_env("EMAIL")
        .or_else(|| config.string(&format!("{}.email", role.word())))
        .or_else(|| config.string("user.email"))
        .or_else(|| std::env::var("EMAIL").ok())
        .and_then(clean);
    Person { name, email }
}

/// When `role` acts: `GIT_AUTHOR_DATE` or `GIT_COMMITTER_DATE` when set, else now.
pub fn when(role: Role) -> Result<Time, String> {
    let variable = role.variable("DATE");
    match std::env::var(&variable) {
        Ok(text) if !text.trim().is_empty() => parse_date(&text).ok_or_else(|| {
            format!(
                "{variable}={text:?} is no date git reads: give `@SECONDS +HHMM`, RFC 2822 (`Thu, 07 Apr 2005 22:13:13 +0200`) or ISO 8601 (`2005-04-07T22:13:13+02:00`)"
            )
        }),
        _ => {
            let now = Local::now();
            Ok(Time::new(now.timestamp(), now.offset().local_minus_utc() / 60))
        }
    }
}

/// The signature of `person` at `time`, when git would find both their name and address.
pub fn signature(person: &Person, time: &Time) -> Option<Signature<'static>> {
    Signature::new(person.name.as_deref()?, person.email.as_deref()?, time).ok()
}

/// A date in the forms git's own tests and scripts give it: its internal `SECONDS
/// +HHMM` (with or without `@`), RFC 2822, and ISO 8601 with `T` or a space, an offset
/// or `Z` (none: the local time zone, as git reads it).
fn parse_date(text: &str) -> Option<Time> {
    let text = text.trim();
    let at = |when: DateTime<FixedOffset>| Time::new(when.timestamp(), when.offset().local_minus_utc() / 60);
    if let Some(time) = internal(text.strip_prefix('@').unwrap_or(text)) {
        return Some(time);
    }
    if let Ok(when) = DateTime::parse_from_rfc2822(text) {
        return Some(at(when));
    }
    let iso = text.replacen(' ', "T", 1);
    for format in ["%Y-%m-%dT%H:%M:%S%.f%:z", "%Y-%m-%dT%H:%M:%S%.f%z", "%Y-%m-%dT%H:%M:%S%.f %z"] {
        if let Ok(when) = DateTime::parse_from_str(&iso, format) {
            return Some(at(when));
        }
    }
    if let Some(utc) = iso.strip_suffix('Z')
        && let Ok(naive) = NaiveDateTime::parse_from_str(utc, "%Y-%m-%dT%H:%M:%S%.f")
    {
        return Some(Time::new(naive.and_utc().timestamp(), 0));
    }
    let naive = NaiveDateTime::parse_from_str(&iso, "%Y-%m-%dT%H:%M:%S%.f").ok()?;
    Local.from_local_datetime(&naive).earliest().map(|local| at(local.fixed_offset()))
}

/// `SECONDS +HHMM` (the zone may be left out: UTC).
fn internal(text: &str) -> Option<Time> {
    let mut words = text.split_whitespace();
    let seconds: i64 = words.next()?.parse().ok()?;
    let offset = match words.next() {
        None => 0,
        Some(zone) => {
            let (sign, digits) = match zone.as_bytes().first()? {
                b'+' => (1, &zone[1..]),
                b'-' => (-1, &zone[1..]),
                _ => return None,
            };
            if digits.len() != 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            let (hours, minutes): (i32, i32) = (digits[..2].parse().ok()?, digits[2..].parse().ok()?);
            sign * (hours * 60 + minutes)
        }
    };
    words.next().is_none().then(|| Time::new(seconds, offset))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> (i64, i32) {
        let time = parse_date(text).unwrap_or_else(|| panic!("{text}"));
        (time.seconds(), time.offset_minutes())
    }

    #[test]
    fn the_dates_git_takes_are_read() {
        assert_eq!(read("@1112911993 +0200"), (1112911993, 120));
        assert_eq!(read("1112911993 -0130"), (1112911993, -90));
        assert_eq!(read("1112911993"), (1112911993, 0));
        assert_eq!(read("Thu, 07 Apr 2005 22:13:13 +0200"), (1112904793, 120));
        assert_eq!(read("2005-04-07T22:13:13+02:00"), (1112904793, 120));
        assert_eq!(read("2005-04-07 22:13:13 +0200"), (1112904793, 120));
        assert_eq!(read("2005-04-07T20:13:13Z"), (1112904793, 0));
        for bad in ["yesterday", "1112911993 +2", "2005-13-45T00:00:00Z", ""] {
            assert!(parse_date(bad).is_none(), "{bad}");
        }
    }
}
