//! Spinners on a terminal (indicatif): one per debater at work, showing what it does,
//! how long it has taken, and the tail of its text as it streams in; one for the
//! moderator. Lines printed meanwhile go above the spinners.

use std::collections::BTreeMap;
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::text::untrusted::one_line;

/// The moderator's spinner key; seats use their index.
const MODERATOR: usize = usize::MAX;
/// How much of a streaming answer a spinner line shows.
const TAIL: usize = 60;

pub struct Progress {
    multi: MultiProgress,
    bars: BTreeMap<usize, (ProgressBar, String)>,
}

impl Progress {
    /// Spinners on stderr, or `None` where indicatif would draw nothing (not a terminal,
    /// or one it cannot draw on, such as `TERM=dumb`).
    pub fn on_stderr() -> Option<Progress> {
        let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
        (!multi.is_hidden()).then(|| Progress { multi, bars: BTreeMap::new() })
    }

    fn spinner(&self, label: &str, doing: &str) -> ProgressBar {
        let style = ProgressStyle::with_template("  {spinner} {prefix} {msg} ({elapsed})")
            .unwrap_or_else(|_| ProgressStyle::default_spinner())
            .tick_chars("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏ ");
        let bar = self.multi.add(ProgressBar::new_spinner().with_style(style));
        bar.set_prefix(label.to_string());
        bar.set_message(format!("{doing}…"));
        bar.enable_steady_tick(Duration::from_millis(100));
        bar
    }

    /// Debaters at work, in panel order.
    pub fn debaters(&mut self, seats: &[(usize, String)], doing: &str) {
        self.clear();
        for (seat, name) in seats {
            let bar = self.spinner(&one_line(name), doing);
            self.bars.insert(*seat, (bar, String::new()));
        }
    }

    pub fn moderator(&mut self, doing: &str) {
        self.clear();
        let bar = self.spinner("Moderator", doing);
        self.bars.insert(MODERATOR, (bar, String::new()));
    }

    /// More of a debater's answer arrived: show its latest words.
    pub fn text(&mut self, seat: usize, delta: &str) {
        let Some((bar, streamed)) = self.bars.get_mut(&seat) else { return };
        streamed.push_str(delta);
        let flat = one_line(streamed);
        let skip = flat.chars().count().saturating_sub(TAIL);
        bar.set_message(format!("… {}", flat.chars().skip(skip).collect::<String>()));
    }

    pub fn done(&mut self, seat: usize) {
        if let Some((bar, _)) = self.bars.remove(&seat) {
            bar.finish_and_clear();
        }
    }

    pub fn clear(&mut self) {
        for (_, (bar, _)) in std::mem::take(&mut self.bars) {
            bar.finish_and_clear();
        }
    }

    /// Write above the spinners at once (indicatif's own `println` only queues a line
    /// for the next draw, which never comes once the last spinner is cleared).
    pub fn suspend(&self, write: impl FnOnce()) {
        self.multi.suspend(write);
    }
}
