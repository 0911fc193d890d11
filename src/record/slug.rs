//! Safe file-name slugs: ASCII, lowercase, at most 60 characters, never a path.

const MAX: usize = 60;

/// `"Redis or Postgres? (für Caching)"` → `"redis-or-postgres-fur-caching"`.
pub fn slug(title: &str) -> String {
    let ascii = deunicode::deunicode(title).to_lowercase();
    let mut slug = String::with_capacity(ascii.len());
    for c in ascii.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c);
        } else if !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let mut slug = slug.trim_matches('-').to_string();
    if slug.len() > MAX {
        let cut = slug[..=MAX].rfind('-').filter(|&i| i >= MAX / 2).unwrap_or(MAX);
        slug.truncate(cut);
        slug = slug.trim_end_matches('-').to_string();
    }
    if slug.is_empty() { "decision".into() } else { slug }
}

#[cfg(test)]
mod tests {
    use super::slug;
    use proptest::prelude::*;

    #[test]
    fn typical_titles() {
        assert_eq!(slug("Should we use Redis or Postgres for caching"), "should-we-use-redis-or-postgres-for-caching");
        assert_eq!(slug("Ünïcödé — café & crème"), "unicode-cafe-creme");
        assert_eq!(slug("../../etc/passwd"), "etc-passwd");
        assert_eq!(slug("🚀🔥"), "rocket-fire");
        assert_eq!(slug("???"), "decision");
        assert_eq!(slug(""), "decision");
    }

    #[test]
    fn long_titles_are_cut_at_a_word() {
        let s = slug(&"word ".repeat(100));
        assert!(s.len() <= 60 && !s.ends_with('-'), "{s}");
    }

    proptest! {
        #[test]
        fn always_safe(title in "\\PC{0,500}") {
            let s = slug(&title);
            prop_assert!(!s.is_empty() && s.len() <= 60);
            prop_assert!(s.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'));
            prop_assert!(!s.contains("..") && !s.starts_with('-') && !s.ends_with('-'));
        }
    }
}
