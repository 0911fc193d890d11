//! The console: its width, raw mode while a question is asked, and the keys typed,
//! waited for in slices so a question ends at its deadline. Keys come from the console
//! API as events (through crossterm) and are handed on as the bytes a Unix terminal in
//! raw mode sends for them, so one reader decodes both. A console that goes away ends
//! the process with a console event, which pauses the debate (`signals`).

use std::time::Duration;

use crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// What a stream needs for its console to be asked its width.
pub use std::os::windows::io::AsHandle as Terminal;

/// The columns of the console `stream` is, if it is one.
pub fn columns(stream: &impl Terminal) -> Option<u16> {
    terminal_size::terminal_size_of(stream).map(|(width, _)| width.0)
}

/// Raw mode on the console's input while it lives (no line editing, no echo, Ctrl-C a
/// key rather than an event); its mode comes back when it is dropped.
pub struct RawMode(());

impl RawMode {
    pub fn on() -> Option<RawMode> {
        crossterm::terminal::enable_raw_mode().ok()?;
        Some(RawMode(()))
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        let _ = crossterm::terminal::disable_raw_mode();
    }
}

/// Wait up to `wait` for keys at the console and add them to `pending` as a terminal in
/// raw mode sends them; `false` when the console is gone.
pub fn typed(wait: Duration, pending: &mut Vec<u8>) -> bool {
    match event::poll(wait) {
        Ok(false) => return true,
        Ok(true) => {}
        Err(_) => return false,
    }
    match event::read() {
        Ok(Event::Key(key)) => {
            pending.extend_from_slice(&bytes_of(key));
            true
        }
        Ok(_) => true,
        Err(_) => false,
    }
}

/// The bytes a Unix terminal sends for `key`: text as UTF-8, Enter as CR, Backspace as
/// DEL, Escape alone, Ctrl-C as ETX, Ctrl-D or Ctrl-Z (Windows' end of input) as EOT;
/// nothing for a key let go or one that types nothing.
fn bytes_of(key: KeyEvent) -> Vec<u8> {
    if key.kind == KeyEventKind::Release {
        return Vec::new();
    }
    // Ctrl with Alt is AltGr, which types a character (`@` on a German keyboard).
    let control = key.modifiers.contains(KeyModifiers::CONTROL) && !key.modifiers.contains(KeyModifiers::ALT);
    match key.code {
        KeyCode::Char('c' | 'C') if control => vec![0x03],
        KeyCode::Char('d' | 'D' | 'z' | 'Z') if control => vec![0x04],
        KeyCode::Char(_) if control => Vec::new(),
        KeyCode::Char(c) => c.to_string().into_bytes(),
        KeyCode::Enter => vec![b'\r'],
        KeyCode::Backspace => vec![0x7f],
        KeyCode::Esc => vec![0x1b],
        _ => Vec::new(),
    }
}
