//! Questions for the human, on a terminal only: the checkpoint menu, the clarifying
//! question, a line of guidance, yes/no.
//!
//! Each question runs on a blocking thread in raw mode (crossterm) and reads keys in
//! short slices, so it ends by itself at its deadline, or soon after whoever asked stops
//! waiting: no thread is left behind reading stdin. The terminal's settings come back
//! when the question ends, however it ends. A question is drawn only once raw mode is on,
//! so a key pressed after the question appears is never lost or echoed twice.

use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::model::{Clarified, Decision, Pending};

/// How long one wait for a key lasts before the deadline and the asker are checked.
const SLICE: Duration = Duration::from_millis(50);

pub const MENU: &str = "[C]ontinue  [G]uide  [E]nd early  [P]ause";
pub const CLARIFYING_QUESTION: &str =
    "What decision do you need to make — between which options, under which constraints?";

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
    EndOfInput,
    /// The deadline passed, or nobody waits any more.
    TimedOut,
}

impl Asking {
    fn key(&self) -> Key {
        loop {
            let left = self.deadline.saturating_duration_since(Instant::now());
            if left.is_zero() || self.gone.load(Ordering::Relaxed) {
                return Key::TimedOut;
            }
            match event::poll(left.min(SLICE)) {
                Ok(false) => continue,
                Ok(true) => match event::read() {
                    Ok(Event::Key(key)) if key.kind != KeyEventKind::Release => {
                        if let Some(key) = translate(key) {
                            return key;
                        }
                    }
                    Ok(_) => continue,
                    Err(_) => return Key::EndOfInput,
                },
                Err(_) => return Key::EndOfInput,
            }
        }
    }
}

fn translate(key: KeyEvent) -> Option<Key> {
    let control = key.modifiers.contains(KeyModifiers::CONTROL);
    Some(match key.code {
        KeyCode::Char('c') if control => Key::Interrupt,
        KeyCode::Char('d') if control => Key::EndOfInput,
        // A line feed (pasted text, or a terminal that sends it for Enter) reads as Ctrl-J.
        KeyCode::Char('j') if control => Key::Enter,
        KeyCode::Char(_) if control => return None,
        KeyCode::Char(c) => Key::Char(c),
        KeyCode::Enter => Key::Enter,
        KeyCode::Backspace => Key::Backspace,
        KeyCode::Esc => Key::Escape,
        _ => return None,
    })
}

/// Raw mode while it lives; the terminal's settings come back when it is dropped.
struct RawMode;

impl RawMode {
    fn on() -> Option<RawMode> {
        crossterm::terminal::enable_raw_mode().ok().map(|_| RawMode)
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        let _ = crossterm::terminal::disable_raw_mode();
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
    loop {
        match asking.key() {
            Key::Enter | Key::Char('c' | 'C') => return Decision::Continue,
            Key::Char('e' | 'E') => return Decision::End,
            Key::Char('p' | 'P') => return Decision::Pause,
            Key::Char('g' | 'G') => match line(asking, "Your guidance for the next round: ") {
                Line::Text(text) => return Decision::Guide(text),
                Line::Empty => say(&format!("{MENU}\n")),
                Line::Stopped(key) => return stopped(key),
            },
            stop @ (Key::Interrupt | Key::EndOfInput | Key::TimedOut) => return stopped(stop),
            _ => {}
        }
    }
}

/// What stopped a question, as a checkpoint decision.
fn stopped(key: Key) -> Decision {
    match key {
        Key::Interrupt => Decision::Interrupted,
        Key::TimedOut => Decision::TimedOut,
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
fn line(asking: &Asking, prompt: &str) -> Line {
    say(prompt);
    let mut text = String::new();
    loop {
        match asking.key() {
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
            Key::EndOfInput if !text.is_empty() => {}
            stop => {
                say("\n");
                return Line::Stopped(stop);
            }
        }
    }
}

/// The moderator's clarifying question for a vague question.
pub fn clarify(asking: &Asking) -> Clarified {
    let Some(_raw) = RawMode::on() else { return Clarified::Skipped };
    say(&format!("The question is vague. {CLARIFYING_QUESTION}\n"));
    match line(asking, "Clarification: ") {
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
    loop {
        let answer = match asking.key() {
            Key::Char('y' | 'Y') => true,
            Key::Char('n' | 'N') | Key::Enter | Key::Escape => false,
            Key::Char(_) | Key::Backspace => continue,
            Key::Interrupt | Key::EndOfInput | Key::TimedOut => false,
        };
        say(if answer { "yes\n" } else { "no\n" });
        return answer;
    }
}
