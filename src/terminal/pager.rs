//! A long result through a pager on a terminal, as git pages one: `$PAGER`, else `less`,
//! with `LESS=FRX` unless `LESS` is set (quit at once when it fits the screen, keep
//! colour, leave the screen as it was). `PAGER` empty or `cat` means no pager; so does
//! stdout that is not a terminal.

use std::io::{IsTerminal, Write};
use std::process::{Command, Stdio};

use super::OutputError;
use crate::text::secrets;

/// `text` on stdout: through the pager when `wanted`, stdout is a terminal and a pager
/// runs; printed as it is otherwise.
pub fn print(text: &str, wanted: bool) -> Result<(), OutputError> {
    let pager = if wanted && std::io::stdout().is_terminal() { chosen(std::env::var("PAGER").ok()) } else { None };
    match pager {
        Some(pager) if ran(&pager, &secrets::gate(text)) => Ok(()),
        _ => super::print_out(text),
    }
}

/// The pager `PAGER` names, `less` without it; none when it is empty or `cat`.
fn chosen(pager: Option<String>) -> Option<String> {
    let pager = pager.unwrap_or_else(|| "less".to_string());
    let pager = pager.trim();
    (!pager.is_empty() && pager != "cat").then(|| pager.to_string())
}

/// Whether `pager` ran and was given `text`: not when it could not start (no `less`
/// installed, a `PAGER` the shell cannot find), so the text is printed instead.
fn ran(pager: &str, text: &str) -> bool {
    let Ok(mut child) = command(pager).stdin(Stdio::piped()).spawn() else { return false };
    // Ctrl-C belongs to the pager while it runs (less stops a search with it); this
    // process waits for it instead of dying and leaving the terminal to two readers.
    let _interrupts = crate::platform::signals::leave_interrupts();
    if let Some(mut stdin) = child.stdin.take() {
        // A pager quit before the end (`q` in less) closed its input: not an error.
        let _ = stdin.write_all(text.as_bytes());
    }
    // 126 and 127: the shell could not run the command.
    child.wait().is_ok_and(|status| !matches!(status.code(), Some(126 | 127)))
}

/// As git runs a pager: a bare name directly (so a missing `less` is a failure to
/// start, said by nobody), anything with spaces or shell syntax through `sh -c`.
fn command(pager: &str) -> Command {
    let shell = pager.contains(|c: char| c.is_whitespace() || "|&;<>()$`\\\"'*?[#~=%".contains(c));
    let mut command = match shell {
        true => {
            let mut sh = Command::new("sh");
            sh.arg("-c").arg(pager);
            sh
        }
        false => Command::new(pager),
    };
    if std::env::var_os("LESS").is_none() {
        command.env("LESS", "FRX");
    }
    command
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pager_is_less_unless_named_and_none_when_empty_or_cat() {
        assert_eq!(chosen(None).as_deref(), Some("less"));
        assert_eq!(chosen(Some("most -s".into())).as_deref(), Some("most -s"));
        for none in ["", "  ", "cat"] {
            assert_eq!(chosen(Some(none.into())), None, "{none:?}");
        }
    }

    // In a runtime, as every command runs: the pager's Ctrl-C is listened for in it.
    #[tokio::test]
    async fn a_pager_that_cannot_start_has_not_run() {
        assert!(!ran("/nonexistent/pager", "text"), "a bare name that is not there");
        assert!(!ran("/nonexistent/pager -R", "text"), "through the shell, which cannot find it");
        assert!(ran("true", "text"), "a pager that quits before reading is still a pager that ran");
    }
}
