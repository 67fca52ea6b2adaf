//! A progress bar on stderr for long runs: drawn only on a terminal, only without --quiet, and
//! only once the run has taken more than a second, so short runs print nothing extra.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

const DELAY: Duration = Duration::from_secs(1);

pub(crate) struct Progress {
    bar: Option<ProgressBar>,
    started: Instant,
    shown: bool,
}

impl Progress {
    pub fn new(total: usize, quiet: bool) -> Progress {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar =
                ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::hidden());
            if let Ok(style) =
                ProgressStyle::with_template("{bar:40} {pos}/{len} files ({elapsed})")
            {
                bar.set_style(style);
            }
            bar
        });
        Progress {
            bar,
            started: Instant::now(),
            shown: false,
        }
    }

    pub fn inc(&mut self) {
        let Some(bar) = &self.bar else {
            return;
        };
        bar.inc(1);
        if !self.shown && self.started.elapsed() > DELAY {
            bar.set_draw_target(ProgressDrawTarget::stderr());
            self.shown = true;
        }
    }

    /// Run `write` with the bar taken off the terminal while it writes, so output never mixes
    /// with the bar (stdout and stderr are usually the same terminal).
    pub fn suspend<R>(&self, write: impl FnOnce() -> R) -> R {
        match &self.bar {
            Some(bar) if self.shown => bar.suspend(write),
            _ => write(),
        }
    }

    pub fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }
}
