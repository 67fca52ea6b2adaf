//! Renderers: they read plans and outcomes and print them; none of them changes anything.

pub mod diff;
pub mod migrate_text;

use anstream::ColorChoice;
use clap::ValueEnum;

/// `--color auto|always|never`; auto means color on a terminal unless NO_COLOR is set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum Color {
    #[default]
    Auto,
    Always,
    Never,
}

impl Color {
    pub fn choice(self) -> ColorChoice {
        match self {
            Color::Auto => ColorChoice::Auto,
            Color::Always => ColorChoice::Always,
            Color::Never => ColorChoice::Never,
        }
    }
}
