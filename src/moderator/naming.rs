//! Names a model writes back — a perspective, an option — matched to the names it was
//! given: the same words ignoring case and punctuation; else the only one it contains
//! or that contains it; else the only one within a typo or two. Pure.

/// The name among `choices` that `named` refers to, if exactly one fits.
pub fn matching(named: &str, choices: &[String]) -> Option<String> {
    let named = plain(named);
    if named.is_empty() {
        return None;
    }
    let plain_choices: Vec<(String, &String)> = choices.iter().map(|c| (plain(c), c)).collect();
    if let Some((_, choice)) = plain_choices.iter().find(|(plain, _)| *plain == named) {
        return Some((*choice).clone());
    }
    let only = |fits: &dyn Fn(&str) -> bool| -> Option<String> {
        let found: Vec<&String> =
            plain_choices.iter().filter(|(plain, _)| !plain.is_empty() && fits(plain)).map(|(_, c)| *c).collect();
        match found.as_slice() {
            [one] => Some((*one).clone()),
            _ => None,
        }
    };
    only(&|plain| named.contains(plain) || plain.contains(named.as_str()))
        .or_else(|| only(&|plain| strsim::normalized_levenshtein(plain, &named) >= 0.8))
}

/// Lowercase words, punctuation dropped, single spaces.
fn plain(text: &str) -> String {
    let kept: String =
        text.chars().map(|c| if c.is_alphanumeric() { c } else { ' ' }).collect::<String>().to_lowercase();
    kept.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn panel() -> Vec<String> {
        vec!["Performance Advocate".into(), "Operational Simplicity".into(), "Cost Control".into()]
    }

    #[test]
    fn names_match_by_their_words_and_through_typos() {
        let panel = panel();
        assert_eq!(matching("performance advocate", &panel).as_deref(), Some("Performance Advocate"));
        assert_eq!(matching("Perfomance Advocat", &panel).as_deref(), Some("Performance Advocate"));
        assert_eq!(matching("**Cost Control** (dissenting)", &panel).as_deref(), Some("Cost Control"));
        assert_eq!(matching("Simplicity", &panel).as_deref(), Some("Operational Simplicity"));
    }

    #[test]
    fn a_name_that_fits_none_or_several_is_no_name() {
        let panel = panel();
        assert_eq!(matching("Wizard of Oz", &panel), None);
        assert_eq!(matching("", &panel), None);
        assert_eq!(matching("Performance Advocate and Cost Control", &panel), None, "two names");
        let options = vec!["Redis".to_string(), "Postgres".into()];
        assert_eq!(matching("Redis or Postgres", &options), None);
        assert_eq!(matching("Option: Postgres (with UNLOGGED tables)", &options).as_deref(), Some("Postgres"));
    }
}
