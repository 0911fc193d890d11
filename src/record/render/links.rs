//! Links between records: relative to the record's directory, percent-encoded, so a
//! path from the repository (untrusted) can never end the link or start markup.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

/// What may stay as it is in a link to a file: letters, digits and `-._~/`.
const PATH: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~').remove(b'/');

/// The link from a file in `from_directory` to `to`, both relative to the repository
/// root with `/` between parts.
pub fn relative(from_directory: &str, to: &str) -> String {
    let parts = |path: &str| -> Vec<String> {
        path.split('/').filter(|p| !p.is_empty() && *p != ".").map(str::to_string).collect()
    };
    let (from, to) = (parts(from_directory), parts(to));
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut link: Vec<String> = vec!["..".to_string(); from.len() - common];
    link.extend(to[common..].iter().cloned());
    utf8_percent_encode(&link.join("/"), PATH).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_relative_to_the_record() {
        assert_eq!(relative("docs/decisions", "docs/decisions/0001-use-postgres.md"), "0001-use-postgres.md");
        assert_eq!(relative("docs/decisions", "docs/adr/0001-x.md"), "../adr/0001-x.md");
        assert_eq!(relative("./adr", "docs/adr/0001-x.md"), "../docs/adr/0001-x.md");
        assert_eq!(relative("docs/architecture/decisions", "adr/1.md"), "../../../adr/1.md");
    }

    #[test]
    fn a_hostile_file_name_cannot_leave_the_link() {
        let link = relative("docs/decisions", "docs/decisions/a) [x](javascript:alert(1)\n# b <c>.md");
        assert!(!link.contains([')', '(', ' ', '\n', '<', '>', '[', ']', '#']), "{link}");
        assert_eq!(relative("d", "d/é.md"), "%C3%A9.md");
    }
}
