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

/// A path as git prints it (`core.quotePath`): as it is when plain, else in double quotes with C
/// escapes and octal bytes (control characters, quotes, backslashes, non-ASCII), so a line holds
/// one path and a diff header that names it still applies. `path` is marked text (see
/// `bytes_text`): bytes that are not UTF-8 are quoted as the bytes they are (`"caf\\351"`).
pub(crate) fn quote_path(path: &str) -> String {
    quote_bytes(&crate::bytes_text::marked_bytes(path))
}

/// A file system path quoted as git quotes it (see [`quote_path`]).
pub(crate) fn quote_os(path: &std::path::Path) -> String {
    quote_bytes(path.as_os_str().as_encoded_bytes())
}

/// A path for a message: as `Path::display` shows it when it is UTF-8, quoted as git quotes it
/// when it is not (a lossy decoding would name a file that does not exist).
pub(crate) fn shown_path(path: &std::path::Path) -> std::borrow::Cow<'_, str> {
    match path.to_str() {
        Some(text) => std::borrow::Cow::Borrowed(text),
        None => std::borrow::Cow::Owned(quote_os(path)),
    }
}

/// Bytes quoted as git quotes a path (see [`quote_path`]).
pub(crate) fn quote_bytes(path: &[u8]) -> String {
    if let Ok(text) = std::str::from_utf8(path)
        && !path
            .iter()
            .any(|&b| !(0x20..0x7f).contains(&b) || b == b'"' || b == b'\\')
    {
        return text.to_string();
    }
    let mut out = String::with_capacity(path.len() + 2);
    out.push('"');
    for &b in path {
        match b {
            b'\x07' => out.push_str("\\a"),
            b'\x08' => out.push_str("\\b"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            b'\x0b' => out.push_str("\\v"),
            b'\x0c' => out.push_str("\\f"),
            b'\r' => out.push_str("\\r"),
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b if !(0x20..0x7f).contains(&b) => out.push_str(&format!("\\{b:03o}")),
            b => out.push(char::from(b)),
        }
    }
    out.push('"');
    out
}

/// The bytes of a path [`quote_bytes`] wrote: a quoted path unquoted (C escapes, octal bytes),
/// a plain one as it is; `None` for a quoted path that is not well formed.
pub(crate) fn unquote_path(text: &str) -> Option<Vec<u8>> {
    let Some(inner) = text.strip_prefix('"') else {
        return Some(text.as_bytes().to_vec());
    };
    let inner = inner.strip_suffix('"')?;
    let mut out = Vec::with_capacity(inner.len());
    let mut bytes = inner.bytes();
    while let Some(b) = bytes.next() {
        match b {
            b'"' => return None,
            b'\\' => {}
            b => {
                out.push(b);
                continue;
            }
        }
        let b = match bytes.next()? {
            b'a' => 0x07,
            b'b' => 0x08,
            b't' => b'\t',
            b'n' => b'\n',
            b'v' => 0x0b,
            b'f' => 0x0c,
            b'r' => b'\r',
            b'"' => b'"',
            b'\\' => b'\\',
            first @ b'0'..=b'3' => {
                let mut value = u32::from(first - b'0');
                for _ in 0..2 {
                    match bytes.next()? {
                        d @ b'0'..=b'7' => value = value * 8 + u32::from(d - b'0'),
                        _ => return None,
                    }
                }
                u8::try_from(value).ok()?
            }
            _ => return None,
        };
        out.push(b);
    }
    Some(out)
}

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
                super::unquote_path(&super::quote_bytes(bytes)).as_deref(),
                Some(bytes)
            );
        }
        assert_eq!(super::unquote_path("\"a\\9\""), None);
        assert_eq!(super::unquote_path("\"a\"b\""), None);
        assert_eq!(super::unquote_path("\"open"), None);
    }
}
