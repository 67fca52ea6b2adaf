//! Renderers: they read plans and outcomes and print them; none of them changes anything.

pub mod check_json;
pub mod check_output;
pub mod check_text;
pub mod codes_doc;
pub mod diff;
pub mod github;
pub mod json_stream;
pub mod migrate_output;
pub mod migrate_text;
pub mod progress;
pub mod restore_text;
pub mod rule_text;
pub mod sarif;
pub mod validate_text;

use std::io::{BufWriter, IsTerminal, Write};

use anstream::{AutoStream, ColorChoice};
use clap::ValueEnum;

/// Standard output for a long report in the colour `choice` (as `--color`, NO_COLOR and the
/// terminal decide), and whether it is coloured: buffered unless it is a terminal, where a
/// line-buffered pipe would cost one write per finding. Without colour the stream passes bytes
/// through untouched (stripping escapes costs a scan of every byte), so the caller must then write
/// none.
pub fn stdout(choice: ColorChoice) -> (AutoStream<Box<dyn Write>>, bool) {
    let out = std::io::stdout();
    let choice = match choice {
        ColorChoice::Auto => AutoStream::choice(&out),
        chosen => chosen,
    };
    let raw: Box<dyn Write> = if out.is_terminal() {
        Box::new(out.lock())
    } else {
        Box::new(BufWriter::with_capacity(64 * 1024, out.lock()))
    };
    match choice {
        ColorChoice::Never => (AutoStream::new(raw, ColorChoice::AlwaysAnsi), false),
        colored => (AutoStream::new(raw, colored), true),
    }
}

/// Standard error in the colour `choice`, escapes stripped where it is not coloured. Every
/// command's stderr report goes through this, and its stdout through `stdout`.
pub fn stderr(choice: ColorChoice) -> AutoStream<std::io::StderrLock<'static>> {
    AutoStream::new(std::io::stderr().lock(), choice)
}

/// Where report paths are rooted: the working folder `base` relative to its repository root (with
/// a trailing `/`, empty at the root), and the root as a `file:` URI (SARIF's `%SRCROOT%`).
pub fn roots(base: &std::path::Path) -> (String, String) {
    let root = crate::fsio::project_root(base);
    let prefix = base
        .strip_prefix(&root)
        .ok()
        .map(|p| crate::fsio::forward_slashes(p.to_string_lossy().into_owned()))
        .filter(|p| !p.is_empty())
        .map_or_else(String::new, |p| format!("{p}/"));
    (prefix, sarif::folder_uri(&root))
}

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

/// `prefix` (the working folder, relative to the repository root, with a trailing `/`) joined to
/// a path relative to the working folder, with `.` and `..` resolved: the path relative to the
/// repository root that code scanning and workflow annotations expect.
pub(crate) fn root_relative(prefix: &str, path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in prefix.split('/').chain(path.split('/')) {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            part => parts.push(part),
        }
    }
    parts.join("/")
}

use crate::bytes_text::quote_path;

/// `1 script`, `2 scripts`.
pub(crate) fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn root_relative_paths_are_clean() {
        assert_eq!(super::root_relative("sub/", "../a:b/x.sh"), "a:b/x.sh");
        assert_eq!(super::root_relative("", "s/x.sh"), "s/x.sh");
    }
}
