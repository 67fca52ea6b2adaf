//! Unified diffs over raw bytes (CRLF, missing final newline and non-UTF-8 survive) in the form
//! `git apply` accepts, optionally colored.

use std::io::{self, Write};

use anstyle::{AnsiColor, Style};
use similar::{ChangeTag, TextDiff};

const CONTEXT: usize = 3;

/// Write a unified diff of `before` → `after` with `a/` and `b/` prefixed to `path`, with ANSI
/// colors when `colored` (none at all otherwise: nothing to strip afterwards).
pub fn write_unified(
    out: &mut dyn Write,
    path: &str,
    before: &[u8],
    after: &[u8],
    colored: bool,
) -> io::Result<()> {
    let diff = TextDiff::configure().diff_lines(before, after);
    let groups = diff.grouped_ops(CONTEXT);
    if groups.is_empty() {
        return Ok(());
    }
    let paint = |style: Style| if colored { style } else { Style::new() };
    let header = paint(Style::new().bold());
    let hunk = paint(Style::new().fg_color(Some(AnsiColor::Cyan.into())));
    let removed = paint(Style::new().fg_color(Some(AnsiColor::Red.into())));
    let added = paint(Style::new().fg_color(Some(AnsiColor::Green.into())));
    writeln!(out, "{header}--- a/{path}{header:#}")?;
    writeln!(out, "{header}+++ b/{path}{header:#}")?;
    for group in groups {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let old = first.old_range().start..last.old_range().end;
        let new = first.new_range().start..last.new_range().end;
        writeln!(out, "{hunk}@@ -{} +{} @@{hunk:#}", range(old), range(new))?;
        for op in &group {
            for change in diff.iter_changes(op) {
                let (sign, style) = match change.tag() {
                    ChangeTag::Equal => (b' ', Style::new()),
                    ChangeTag::Delete => (b'-', removed),
                    ChangeTag::Insert => (b'+', added),
                };
                let line = change.value();
                write!(out, "{style}")?;
                out.write_all(&[sign])?;
                let text = line.strip_suffix(b"\n").unwrap_or(line);
                out.write_all(text)?;
                write!(out, "{style:#}")?;
                out.write_all(b"\n")?;
                if !line.ends_with(b"\n") {
                    out.write_all(b"\\ No newline at end of file\n")?;
                }
            }
        }
    }
    Ok(())
}

/// Hunk range: `start,len` with 1-based start; an empty range names the line before it.
fn range(r: std::ops::Range<usize>) -> String {
    let len = r.end - r.start;
    let start = if len == 0 { r.start } else { r.start + 1 };
    format!("{start},{len}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_final_newline_is_marked() {
        let mut out = Vec::new();
        write_unified(&mut out, "x.sh", b"a\nb", b"a\nc", false).unwrap_or_default();
        let text = String::from_utf8_lossy(&out).into_owned();
        assert!(
            text.contains("-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"),
            "{text}"
        );
        assert!(
            text.starts_with("--- a/x.sh\n+++ b/x.sh\n@@ -1,2 +1,2 @@\n"),
            "{text}"
        );
    }

    #[test]
    fn identical_inputs_print_nothing() {
        let mut out = Vec::new();
        write_unified(&mut out, "x.sh", b"a\n", b"a\n", true).unwrap_or_default();
        assert!(out.is_empty());
    }

    #[test]
    fn colors_only_when_asked() {
        let mut plain = Vec::new();
        write_unified(&mut plain, "x.sh", b"a\n", b"b\n", false).unwrap_or_default();
        assert!(!plain.contains(&0x1b));
        let mut colored = Vec::new();
        write_unified(&mut colored, "x.sh", b"a\n", b"b\n", true).unwrap_or_default();
        assert!(colored.contains(&0x1b));
    }
}
