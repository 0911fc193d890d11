//! A suite's progress (`debate eval --suite`): on a terminal a bar over every debate
//! the suite runs, naming the one at work, with a line above it as each ends; without a
//! terminal the lines alone (none with `-q`).

use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::{Layout, Terminal, Verbosity, eprint_line};
use crate::text::untrusted::{for_terminal, one_line};

pub struct SuiteProgress {
    bar: Option<ProgressBar>,
    lines: bool,
}

impl SuiteProgress {
    /// For `total` debates, shown as `terminal` shows progress.
    pub fn new(total: u64, terminal: &Terminal) -> SuiteProgress {
        let lines = terminal.verbosity >= Verbosity::Normal;
        let bar = (lines && terminal.progress.is_some()).then(|| {
            let style = ProgressStyle::with_template("{bar:30} {pos}/{len} · {elapsed} · {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar());
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr()).with_style(style);
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        SuiteProgress { bar, lines }
    }

    /// `what` is being debated now.
    pub fn working(&self, what: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(one_line(what).chars().take(70).collect::<String>());
        }
    }

    /// A debate ended: `line` says how.
    pub fn done(&self, line: &str) {
        let line = for_terminal(line);
        match &self.bar {
            Some(bar) => {
                bar.suspend(|| eprint_line(&line, Layout::Prose));
                bar.inc(1);
            }
            None if self.lines => eprint_line(&line, Layout::Prose),
            None => {}
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
