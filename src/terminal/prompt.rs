//! Questions for the human, on a terminal only: the checkpoint menu, the clarifying
//! question for a vague question, and yes/no. dialoguer and its console layer do the
//! terminal work.

use std::io::{ErrorKind, IsTerminal};

use dialoguer::console::{Key, Term};

use crate::engine::run::Decision;

/// The terminal's settings as they were before a question switched it to raw mode.
/// A question abandoned by a timeout never restores them itself.
pub struct SavedTerminal(libc::termios);

impl SavedTerminal {
    pub fn save() -> Option<SavedTerminal> {
        // SAFETY: an all-zero termios is a valid buffer for tcgetattr to fill.
        let mut settings: libc::termios = unsafe { std::mem::zeroed() };
        // SAFETY: stdin is a valid descriptor and the pointer is to a live termios.
        (unsafe { libc::tcgetattr(libc::STDIN_FILENO, &mut settings) } == 0).then_some(SavedTerminal(settings))
    }

    pub fn restore(&self) {
        // SAFETY: the settings came from tcgetattr on the same descriptor.
        unsafe { libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, &self.0) };
    }
}

/// Someone can answer: stdin and stderr are both a terminal.
pub fn interactive() -> bool {
    std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

/// `[C]ontinue  [G]uide  [E]nd early  [P]ause`, answered with one key (Enter continues).
pub fn checkpoint() -> Decision {
    let term = Term::stderr();
    loop {
        let _ = term.write_line("[C]ontinue  [G]uide  [E]nd early  [P]ause");
        let key = term.read_key();
        match key {
            Ok(Key::Enter | Key::Char('c' | 'C')) => return Decision::Continue,
            Ok(Key::Char('e' | 'E')) => return Decision::End,
            Ok(Key::Char('p' | 'P')) => return Decision::Pause,
            Ok(Key::Char('\u{4}')) => return Decision::EndOfInput,
            Ok(Key::Char('g' | 'G')) => match guidance(&term) {
                Ok(Some(text)) => return Decision::Guide(text),
                Ok(None) => continue,
                Err(decision) => return decision,
            },
            Ok(_) => continue,
            Err(err) if err.kind() == ErrorKind::Interrupted => return Decision::Interrupted,
            Err(_) => return Decision::EndOfInput,
        }
    }
}

/// The guidance text; `None` when left empty (back to the menu).
fn guidance(term: &Term) -> Result<Option<String>, Decision> {
    let text = dialoguer::Input::<String>::new()
        .with_prompt("Your guidance for the next round")
        .allow_empty(true)
        .interact_text_on(term)
        .map_err(|err| match err {
            dialoguer::Error::IO(io) if io.kind() == ErrorKind::Interrupted => Decision::Interrupted,
            _ => Decision::EndOfInput,
        })?;
    let text = text.trim();
    Ok((!text.is_empty()).then(|| text.to_string()))
}

pub const CLARIFYING_QUESTION: &str =
    "What decision do you need to make — between which options, under which constraints?";

/// What became of the clarifying question.
pub enum Clarified {
    Answer(String),
    /// Left empty, or input ended: debate the question as it is.
    Skipped,
    /// Ctrl-C.
    Interrupted,
}

/// The moderator's clarifying question for a vague question.
pub fn clarify() -> Clarified {
    let term = Term::stderr();
    let _ = term.write_line(&format!("The question is vague. {CLARIFYING_QUESTION}"));
    match dialoguer::Input::<String>::new().with_prompt("Clarification").allow_empty(true).interact_text_on(&term) {
        Ok(text) if !text.trim().is_empty() => Clarified::Answer(text.trim().to_string()),
        Err(dialoguer::Error::IO(io)) if io.kind() == ErrorKind::Interrupted => Clarified::Interrupted,
        _ => Clarified::Skipped,
    }
}

/// A yes/no question, default no; Esc, end of input or Ctrl-C count as no.
pub fn confirm(question: &str) -> bool {
    let answer = dialoguer::Confirm::new().with_prompt(question).default(false).interact_on_opt(&Term::stderr());
    matches!(answer, Ok(Some(true)))
}
