//! Renderers: they read plans and outcomes and print them; none of them changes anything.

pub mod check_json;
pub mod check_text;
pub mod diff;
pub mod github;
pub mod json_stream;
pub mod migrate_text;
pub mod progress;
pub mod sarif;

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
