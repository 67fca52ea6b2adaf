//! Renderers: they read plans and outcomes and print them; none of them changes anything.

pub mod check_json;
pub mod check_output;
pub mod check_text;
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
        .map(|p| p.to_string_lossy().replace('\\', "/"))
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

/// A path as one argument of a command a user can paste into a shell: a leading `-` gets `./`
/// (never read as an option), and anything a shell would split or expand is single-quoted; a
/// path whose bytes are not UTF-8 (marked text, see `bytes_text`) is written `$'…'` with octal
/// escapes (bash, zsh, ksh).
pub(crate) fn command_arg(path: &str) -> String {
    let bytes = crate::bytes_text::marked_bytes(path);
    if std::str::from_utf8(&bytes).is_err() {
        let mut out = String::from(if path.starts_with('-') { "$'./" } else { "$'" });
        for &b in bytes.iter() {
            match b {
                b'\\' | b'\'' => out.push_str(&format!("\\{}", char::from(b))),
                0x20..0x7f => out.push(char::from(b)),
                b => out.push_str(&format!("\\{b:03o}")),
            }
        }
        out.push('\'');
        return out;
    }
    let path = if path.starts_with('-') {
        format!("./{path}")
    } else {
        path.to_string()
    };
    let plain = |c: char| {
        c.is_ascii_alphanumeric()
            || matches!(c, '/' | '.' | '_' | '-' | '+' | ',' | ':' | '@' | '%' | '=')
    };
    if !path.is_empty() && path.chars().all(plain) {
        return path;
    }
    format!("'{}'", path.replace('\'', "'\\''"))
}

pub(crate) use crate::bytes_text::{quote_os, quote_path, shown_path, unquote_path};

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
    use super::command_arg;

    #[test]
    fn a_command_argument_is_never_an_option_and_never_split() {
        assert_eq!(command_arg("skills/a/execute.sh"), "skills/a/execute.sh");
        assert_eq!(command_arg("--exit-zero"), "./--exit-zero");
        assert_eq!(command_arg("dir with space/x.sh"), "'dir with space/x.sh'");
        assert_eq!(command_arg("it's $(x).sh"), "'it'\\''s $(x).sh'");
    }

    use super::quote_path;

    #[test]
    fn root_relative_paths_are_clean() {
        assert_eq!(super::root_relative("sub/", "../a:b/x.sh"), "a:b/x.sh");
        assert_eq!(super::root_relative("", "s/x.sh"), "s/x.sh");
    }

    #[test]
    fn paths_are_quoted_the_way_git_quotes_them() {
        assert_eq!(quote_path("skills/a/execute.sh"), "skills/a/execute.sh");
        assert_eq!(quote_path("my skill/x.sh"), "my skill/x.sh");
        assert_eq!(quote_path("a\nb/x.sh"), "\"a\\nb/x.sh\"");
        assert_eq!(quote_path("é.sh"), "\"\\303\\251.sh\"");
        assert_eq!(quote_path("q\"\\.sh"), "\"q\\\"\\\\.sh\"");
    }

    #[test]
    fn bytes_that_are_not_utf8_are_quoted_as_git_quotes_them_and_come_back() {
        let marked = crate::bytes_text::decode_marked(b"skills/caf\xe9/execute.sh");
        assert_eq!(quote_path(&marked), "\"skills/caf\\351/execute.sh\"");
        assert_eq!(command_arg(&marked), "$'skills/caf\\351/execute.sh'");
        for bytes in [
            &b"skills/caf\xe9/execute.sh"[..],
            "é \"q\"\\\t\n.sh".as_bytes(),
            b"plain/x.sh",
            b"\x01\x7f\xff",
        ] {
            assert_eq!(
                super::unquote_path(&crate::bytes_text::quote_bytes(bytes)).as_deref(),
                Some(bytes)
            );
        }
        assert_eq!(super::unquote_path("\"a\\9\""), None);
        assert_eq!(super::unquote_path("\"a\"b\""), None);
        assert_eq!(super::unquote_path("\"open"), None);
    }
}
