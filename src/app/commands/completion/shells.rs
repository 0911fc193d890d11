//! What each shell does with a word, both ways. A value with a space must reach
//! `debate` as one word: zsh, fish and elvish quote a candidate as they insert it; bash
//! does when told the candidates are file names (readline then quotes each for where the
//! cursor is: `Performance\ Advocate`, or inside the quote the word opened); PowerShell
//! inserts a candidate as it is, so it gets it quoted. And bash, zsh and fish pass the
//! word being completed as it stands on the line, quoting and all.

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::path::Path;

use clap_complete::env::{Bash, Elvish, EnvCompleter, Fish, Powershell, Shells, Zsh};

/// clap_complete's shells, bash and PowerShell made to keep a value one word.
pub const SHELLS: Shells<'static> = Shells(&[&FileNamesBash, &Elvish, &Fish, &QuotingPowershell, &Zsh]);

/// The word being completed as the user means it: `Performance\ A`, `'Perf` and
/// `"Perf` all mean what they say without their quoting.
pub fn typed(current: &OsStr) -> String {
    let word = current.to_string_lossy();
    let mut meant = String::new();
    let mut quote = None;
    let mut chars = word.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(open), c) if c == open => quote = None,
            (None | Some('"'), '\\') => meant.extend(chars.next()),
            (_, c) => meant.push(c),
        }
    }
    meant
}

/// clap_complete's bash script, with `complete -o filenames`.
struct FileNamesBash;

impl EnvCompleter for FileNamesBash {
    fn name(&self) -> &'static str {
        Bash.name()
    }

    fn is(&self, name: &str) -> bool {
        Bash.is(name)
    }

    fn write_registration(
        &self,
        var: &str,
        name: &str,
        bin: &str,
        completer: &str,
        buf: &mut dyn Write,
    ) -> std::io::Result<()> {
        let mut script = Vec::new();
        Bash.write_registration(var, name, bin, completer, &mut script)?;
        let script =
            String::from_utf8_lossy(&script).replace("complete -o nospace", "complete -o filenames -o nospace");
        buf.write_all(script.as_bytes())
    }

    fn write_complete(
        &self,
        cmd: &mut clap::Command,
        args: Vec<OsString>,
        current_dir: Option<&Path>,
        buf: &mut dyn Write,
    ) -> std::io::Result<()> {
        Bash.write_complete(cmd, args, current_dir, buf)
    }
}

/// clap_complete's PowerShell completer, each value quoted as one PowerShell word.
struct QuotingPowershell;

impl EnvCompleter for QuotingPowershell {
    fn name(&self) -> &'static str {
        Powershell.name()
    }

    fn is(&self, name: &str) -> bool {
        Powershell.is(name)
    }

    fn write_registration(
        &self,
        var: &str,
        name: &str,
        bin: &str,
        completer: &str,
        buf: &mut dyn Write,
    ) -> std::io::Result<()> {
        Powershell.write_registration(var, name, bin, completer, buf)
    }

    /// Each line is a value, then a tab and its help where it has one.
    fn write_complete(
        &self,
        cmd: &mut clap::Command,
        args: Vec<OsString>,
        current_dir: Option<&Path>,
        buf: &mut dyn Write,
    ) -> std::io::Result<()> {
        let mut lines = Vec::new();
        Powershell.write_complete(cmd, args, current_dir, &mut lines)?;
        for line in String::from_utf8_lossy(&lines).lines() {
            let (value, help) = line.split_once('\t').map_or((line, None), |(value, help)| (value, Some(help)));
            write!(buf, "{}", powershell_word(value))?;
            if let Some(help) = help {
                write!(buf, "\t{help}")?;
            }
            writeln!(buf)?;
        }
        Ok(())
    }
}

/// `value` as one PowerShell word: in single quotes (a quote doubled) where it has
/// anything but letters, digits and `-_./:`.
fn powershell_word(value: &str) -> String {
    if value.chars().all(|c| c.is_alphanumeric() || "-_./:".contains(c)) {
        return value.to_string();
    }
    format!("'{}'", value.replace('\'', "''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_typed_word_loses_its_quoting() {
        for (word, meant) in [
            ("Perf", "Perf"),
            ("Performance\\ A", "Performance A"),
            ("'Performance A", "Performance A"),
            ("\"Performance A\"", "Performance A"),
            ("'a\\b'", "a\\b"),
            ("\"say \\\"hi", "say \"hi"),
            ("don\\'t", "don't"),
        ] {
            assert_eq!(typed(OsStr::new(word)), meant, "{word}");
        }
    }

    #[test]
    fn a_powershell_value_with_a_space_is_quoted() {
        assert_eq!(powershell_word("DEB-k3x9q2"), "DEB-k3x9q2");
        assert_eq!(powershell_word("docs/decisions/0001-a.md"), "docs/decisions/0001-a.md");
        assert_eq!(powershell_word("Performance Advocate"), "'Performance Advocate'");
        assert_eq!(powershell_word("Ops' Friend"), "'Ops'' Friend'");
    }
}
