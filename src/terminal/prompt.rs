//! Questions for the human, on a terminal only: the checkpoint menu, the clarifying
//! question, a line of guidance, yes/no.
//!
//! Each question runs on a blocking thread in raw mode and reads keys in
//! short slices, so it ends by itself at its deadline, or soon after whoever asked stops
//! waiting: no thread is left behind reading stdin. The terminal's settings come back
//! when the question ends, however it ends. A question is drawn only once raw mode is on,
//! so a key pressed after the question appears is never lost or echoed twice.
//!
//! Keys arrive as the bytes a terminal in raw mode sends (`platform::console`, which
//! hands Windows' console events on in the same form) and are decoded here; a terminal
//! that is gone (hung up, at its end, failing) ends the question at once.

use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::model::{Clarified, Decision, Pending};
use crate::platform::console::{self, RawMode};

/// How long one wait for a key lasts before the deadline and the asker are checked.
const SLICE: Duration = Duration::from_millis(50);

pub const MENU: &str = "[C]ontinue  [G]uide  [E]nd early  [P]ause";

/// Someone can answer: stdin and stderr are both a terminal.
pub fn interactive() -> bool {
    std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

/// Ask `question` on a blocking thread; `fallback` if the thread fails.
pub fn ask<T: Send + 'static>(
    patience: Duration,
    fallback: T,
    question: impl FnOnce(&Asking) -> T + Send + 'static,
) -> Pending<T> {
    let asking = Asking { deadline: Instant::now() + patience, gone: Arc::new(AtomicBool::new(false)) };
    let gone = StopAsking(asking.gone.clone());
    let handle = tokio::task::spawn_blocking(move || question(&asking));
    Box::pin(async move {
        let _gone = gone;
        handle.await.unwrap_or(fallback)
    })
}

/// Tells the question's thread to stop when whoever asked stops waiting.
struct StopAsking(Arc<AtomicBool>);

impl Drop for StopAsking {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// A question in progress: until when it may wait, and whether anyone still waits.
pub struct Asking {
    deadline: Instant,
    gone: Arc<AtomicBool>,
}

/// What the human did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    Char(char),
    Enter,
    Backspace,
    Escape,
    Interrupt,
    /// Ctrl-D.
    EndOfInput,
    /// The terminal went away: hung up, at its end, or failing.
    Gone,
    /// The deadline passed, or nobody waits any more.
    TimedOut,
}

impl Asking {
    fn key(&self, keys: &mut Keys) -> Key {
        loop {
            if let Some(key) = keys.next() {
                return key;
            }
            let left = self.deadline.saturating_duration_since(Instant::now());
            if left.is_zero() || self.gone.load(Ordering::Relaxed) {
                return Key::TimedOut;
            }
            if !keys.fill(left.min(SLICE)) {
                return Key::Gone;
            }
        }
    }
}

/// The bytes typed at stdin, read as they arrive and decoded into keys.
#[derive(Default)]
struct Keys {
    pending: Vec<u8>,
}

impl Keys {
    /// Wait up to `wait` for input and take what arrived; `false` when the terminal is gone.
    fn fill(&mut self, wait: Duration) -> bool {
        console::typed(wait, &mut self.pending)
    }

    /// The next whole key in what was read, if any; escape sequences (arrows, function
    /// keys) and other control characters are passed over.
    fn next(&mut self) -> Option<Key> {
        loop {
            let (key, used) = decode(&self.pending)?;
            self.pending.drain(..used);
            if key.is_some() {
                return key;
            }
        }
    }
}

/// The first key in `bytes` and how many bytes it takes (`None` as the key: bytes passed
/// over); nothing while they hold only part of one.
fn decode(bytes: &[u8]) -> Option<(Option<Key>, usize)> {
    let first = *bytes.first()?;
    let key = match first {
        0x03 => Key::Interrupt,
        0x04 => Key::EndOfInput,
        // A terminal sends CR for Enter in raw mode; pasted text brings LF.
        b'\r' | b'\n' => Key::Enter,
        0x7f | 0x08 => Key::Backspace,
        0x1b => return Some(escape(bytes)),
        0x00..=0x1f => return Some((None, 1)),
        _ => {
            let length = match first {
                0xc0..=0xdf => 2,
                0xe0..=0xef => 3,
                0xf0..=0xf7 => 4,
                0x80..=0xff => return Some((None, 1)),
                _ => 1,
            };
            if bytes.len() < length {
                return None;
            }
            return Some(match std::str::from_utf8(&bytes[..length]).ok().and_then(|c| c.chars().next()) {
                Some(c) => (Some(Key::Char(c)), length),
                None => (None, 1),
            });
        }
    };
    Some((Some(key), 1))
}

/// Escape alone, or a sequence a key sends (`ESC [ … final`, `ESC O x`), passed over.
fn escape(bytes: &[u8]) -> (Option<Key>, usize) {
    match bytes.get(1) {
        Some(b'[') => match bytes[2..].iter().position(|b| (0x40..=0x7e).contains(b)) {
            Some(end) => (None, end + 3),
            None => (None, bytes.len()),
        },
        Some(b'O') => (None, bytes.len().min(3)),
        _ => (Some(Key::Escape), 1),
    }
}

/// Text on stderr; in raw mode a line ends with `\r\n`.
fn say(text: &str) {
    let mut err = std::io::stderr();
    let _ = err.write_all(text.replace('\n', "\r\n").as_bytes());
    let _ = err.flush();
}

/// `[C]ontinue  [G]uide  [E]nd early  [P]ause`, answered with one key (Enter continues).
pub fn checkpoint(asking: &Asking) -> Decision {
    let Some(_raw) = RawMode::on() else { return Decision::EndOfInput };
    say(&format!("{MENU}\n"));
    let keys = &mut Keys::default();
    loop {
        match asking.key(keys) {
            Key::Enter | Key::Char('c' | 'C') => return Decision::Continue,
            Key::Char('e' | 'E') => return Decision::End,
            Key::Char('p' | 'P') => return Decision::Pause,
            Key::Char('g' | 'G') => match line(asking, keys, "Your guidance for the next round: ") {
                Line::Text(text) => return Decision::Guide(text),
                Line::Empty => say(&format!("{MENU}\n")),
                Line::Stopped(key) => return stopped(key),
            },
            stop @ (Key::Interrupt | Key::EndOfInput | Key::Gone | Key::TimedOut) => return stopped(stop),
            _ => {}
        }
    }
}

/// What stopped a question, as a checkpoint decision.
fn stopped(key: Key) -> Decision {
    match key {
        Key::Interrupt => Decision::Interrupted,
        Key::TimedOut => Decision::TimedOut,
        Key::Gone => Decision::HungUp,
        _ => Decision::EndOfInput,
    }
}

/// A line typed at a prompt.
enum Line {
    Text(String),
    /// Enter on an empty line, or Escape.
    Empty,
    /// Ctrl-C, end of input, or no answer in time.
    Stopped(Key),
}

/// Read a line with simple editing (typing, Backspace, Enter, Escape). Raw mode is on.
fn line(asking: &Asking, keys: &mut Keys, prompt: &str) -> Line {
    say(prompt);
    let mut text = String::new();
    loop {
        match asking.key(keys) {
            Key::Char(c) => {
                text.push(c);
                say(&c.to_string());
            }
            Key::Backspace => {
                if text.pop().is_some() {
                    say("\u{8} \u{8}");
                }
            }
            Key::Enter => {
                say("\n");
                let text = text.trim();
                let shown = crate::text::untrusted::shows_anything(text);
                return if shown { Line::Text(text.to_string()) } else { Line::Empty };
            }
            Key::Escape => {
                say("\n");
                return Line::Empty;
            }
            // Ctrl-D on a line with text does nothing, as in a shell; a terminal that is
            // gone ends the line whatever it holds.
            Key::EndOfInput if !text.is_empty() => {}
            stop => {
                say("\n");
                return Line::Stopped(stop);
            }
        }
    }
}

/// The moderator's clarifying questions for a vague question (each on one line already),
/// answered in one line; Enter alone debates the question as it is.
pub fn clarify(asking: &Asking, questions: &[String]) -> Clarified {
    let Some(_raw) = RawMode::on() else { return Clarified::Skipped };
    let mut asked = String::from("The question is vague. The moderator asks:\n");
    for (n, question) in questions.iter().enumerate() {
        asked.push_str(&format!("  {}. {question}\n", n + 1));
    }
    asked.push_str("Answer in one line (Enter alone debates the question as it is).\n");
    say(&asked);
    match line(asking, &mut Keys::default(), "Clarification: ") {
        Line::Text(text) => Clarified::Answer(text),
        Line::Stopped(Key::Interrupt) => Clarified::Interrupted,
        _ => Clarified::Skipped,
    }
}

/// A yes/no question, default no; Escape, Ctrl-C, end of input or no answer in time
/// count as no.
pub fn confirm(asking: &Asking, question: &str) -> bool {
    let Some(_raw) = RawMode::on() else { return false };
    say(&format!("{question} [y/N] "));
    let keys = &mut Keys::default();
    loop {
        let answer = match asking.key(keys) {
            Key::Char('y' | 'Y') => true,
            Key::Char('n' | 'N') | Key::Enter | Key::Escape => false,
            Key::Char(_) | Key::Backspace => continue,
            Key::Interrupt | Key::EndOfInput | Key::Gone | Key::TimedOut => false,
        };
        say(if answer { "yes\n" } else { "no\n" });
        return answer;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(bytes: &[u8]) -> Vec<Key> {
        let mut keys = Keys { pending: bytes.to_vec() };
        std::iter::from_fn(|| keys.next()).collect()
    }

    #[test]
    fn bytes_typed_in_raw_mode_read_as_keys() {
        assert_eq!(keys(b"gA\r"), [Key::Char('g'), Key::Char('A'), Key::Enter]);
        assert_eq!(keys("é🚀\x7f\n".as_bytes()), [Key::Char('é'), Key::Char('🚀'), Key::Backspace, Key::Enter]);
        assert_eq!(keys(b"\x03\x04"), [Key::Interrupt, Key::EndOfInput]);
        assert_eq!(keys(b"\x1b[A\x1b[1;5Cx\x1bOPy\x1b"), [Key::Char('x'), Key::Char('y'), Key::Escape]);
        assert_eq!(keys(b"\x01\xffz"), [Key::Char('z')], "other controls and stray bytes pass");
    }

    #[test]
    fn part_of_a_character_waits_for_the_rest() {
        let mut keys = Keys { pending: "漢".as_bytes()[..2].to_vec() };
        assert_eq!(keys.next(), None);
        keys.pending.push("漢".as_bytes()[2]);
        assert_eq!(keys.next(), Some(Key::Char('漢')));
    }
}
