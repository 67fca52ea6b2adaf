//! Unified diffs over raw bytes (CRLF, missing final newline and non-UTF-8 survive) in the form
//! `git apply` accepts, optionally colored.

use std::io::{self, Write};

use anstyle::{AnsiColor, Style};
use std::ops::Range;

use similar::{Algorithm, DiffOp, DiffTag, group_diff_ops};

const CONTEXT: usize = 3;

/// Write a unified diff of `before` → `after` with `a/` and `b/` prefixed to `path`, with ANSI
/// colors when `colored` (none at all otherwise: nothing to strip afterwards). A coloured diff is
/// for a person at a terminal: its lines show control characters (`bytes_text::visible`), so a
/// script's bytes cannot act on the terminal; a plain one keeps every byte, for `git apply`. `edits` are the
/// byte ranges of `before` that were replaced and the length of each replacement (`Plan` edits):
/// only the lines around them are compared, the rest is known to be equal.
pub(crate) fn write_unified(
    out: &mut dyn Write,
    path: &str,
    before: &[u8],
    after: &[u8],
    edits: &[(Range<usize>, usize)],
    colored: bool,
) -> io::Result<()> {
    let old_lines: Vec<&[u8]> = before.split_inclusive(|&b| b == b'\n').collect();
    let new_lines: Vec<&[u8]> = after.split_inclusive(|&b| b == b'\n').collect();
    let groups = group_diff_ops(diff_ops(before, after, edits), CONTEXT);
    if groups.is_empty() {
        return Ok(());
    }
    let paint = |style: Style| if colored { style } else { Style::new() };
    let header = paint(Style::new().bold());
    let hunk = paint(Style::new().fg_color(Some(AnsiColor::Cyan.into())));
    let removed = paint(Style::new().fg_color(Some(AnsiColor::Red.into())));
    let added = paint(Style::new().fg_color(Some(AnsiColor::Green.into())));
    let (old, new) = (
        crate::bytes_text::quote_path(&format!("a/{path}")),
        crate::bytes_text::quote_path(&format!("b/{path}")),
    );
    writeln!(out, "{header}--- {old}{header:#}")?;
    writeln!(out, "{header}+++ {new}{header:#}")?;
    for group in groups {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let old = first.old_range().start..last.old_range().end;
        let new = first.new_range().start..last.new_range().end;
        writeln!(out, "{hunk}@@ -{} +{} @@{hunk:#}", range(old), range(new))?;
        for op in &group {
            let (tag, old, new) = op.as_tag_tuple();
            let deleted = matches!(tag, DiffTag::Delete | DiffTag::Replace);
            let inserted = matches!(tag, DiffTag::Insert | DiffTag::Replace);
            if tag == DiffTag::Equal {
                write_lines(out, (b' ', Style::new()), &old_lines[old], colored)?;
                continue;
            }
            if deleted {
                write_lines(out, (b'-', removed), &old_lines[old], colored)?;
            }
            if inserted {
                write_lines(out, (b'+', added), &new_lines[new], colored)?;
            }
        }
    }
    Ok(())
}

/// Lines with their sign and style; in a coloured diff, with control characters shown.
fn write_lines(
    out: &mut dyn Write,
    (sign, style): (u8, Style),
    lines: &[&[u8]],
    colored: bool,
) -> io::Result<()> {
    let plain = style.is_plain();
    for line in lines {
        if !plain {
            write!(out, "{style}")?;
        }
        out.write_all(&[sign])?;
        let text = line.strip_suffix(b"\n").unwrap_or(line);
        if colored {
            out.write_all(crate::bytes_text::visible_bytes(text).as_bytes())?;
        } else {
            out.write_all(text)?;
        }
        if !plain {
            write!(out, "{style:#}")?;
        }
        out.write_all(b"\n")?;
        if !line.ends_with(b"\n") {
            out.write_all(b"\\ No newline at end of file\n")?;
        }
    }
    Ok(())
}

/// Line starts of `text`, with `text.len()` last (the end of the last line).
fn line_starts(text: &[u8]) -> Vec<usize> {
    let mut starts = vec![0];
    starts.extend(memchr::memchr_iter(b'\n', text).map(|i| i + 1));
    if starts.last() != Some(&text.len()) {
        starts.push(text.len());
    }
    starts
}

/// The line-level diff: equal runs between the edited windows, a Myers diff inside each window
/// (the whole lines an edit touches, neighbouring windows merged).
fn diff_ops(before: &[u8], after: &[u8], edits: &[(Range<usize>, usize)]) -> Vec<DiffOp> {
    let old_starts = line_starts(before);
    let new_starts = line_starts(after);
    let line_of = |starts: &[usize], pos: usize| starts.partition_point(|&s| s <= pos) - 1;
    let old_line_count = old_starts.len() - 1;
    let mut sorted: Vec<&(Range<usize>, usize)> = edits.iter().collect();
    sorted.sort_by_key(|(r, _)| (r.start, r.end));
    // Windows as old line ranges with their byte growth.
    let mut windows: Vec<(Range<usize>, isize)> = Vec::new();
    for (old, new_len) in sorted {
        // Text added at the end of a last line without a newline changes that line.
        let at = if old.start == before.len() && !before.is_empty() && !before.ends_with(b"\n") {
            old.start - 1
        } else {
            old.start
        };
        let first = line_of(&old_starts, at).min(old_line_count);
        let last = if old.end > old.start {
            line_of(&old_starts, old.end - 1) + 1
        } else {
            first + 1
        }
        .min(old_line_count);
        let growth = *new_len as isize - old.len() as isize;
        match windows.last_mut() {
            Some((lines, grown)) if first <= lines.end => {
                lines.end = lines.end.max(last);
                *grown += growth;
            }
            _ => windows.push((first..last, growth)),
        }
    }
    let mut ops = Vec::new();
    let (mut old_line, mut new_line) = (0, 0);
    let mut shift = 0isize;
    let mut queue = windows.into_iter().peekable();
    while let Some((mut lines, mut growth)) = queue.next() {
        let old_start = old_starts[lines.start];
        let new_start = old_start.saturating_add_signed(shift);
        // The window must end at a line start of both texts: an edit can take away a line's
        // newline and join it with the (unchanged) lines after it.
        let new_end = loop {
            let new_end = old_starts[lines.end]
                .saturating_add_signed(shift + growth)
                .min(after.len());
            let joined = new_end > 0 && new_end < after.len() && after[new_end - 1] != b'\n';
            if !joined || lines.end >= old_line_count {
                break new_end;
            }
            lines.end += 1;
            if let Some((next, next_growth)) = queue.next_if(|(next, _)| next.start <= lines.end) {
                lines.end = lines.end.max(next.end);
                growth += next_growth;
            }
        };
        shift += growth;
        if lines.start > old_line {
            ops.push(DiffOp::Equal {
                old_index: old_line,
                new_index: new_line,
                len: lines.start - old_line,
            });
        }
        let window_new_line = line_of(&new_starts, new_start.min(after.len()));
        // Lines split at `\n` only, as everywhere here: `similar`'s own line splitting also cuts
        // at a lone `\r`, and its line numbers would then not be these.
        let old_window: Vec<&[u8]> = before[old_start..old_starts[lines.end]]
            .split_inclusive(|&b| b == b'\n')
            .collect();
        let new_window: Vec<&[u8]> = after[new_start.min(after.len())..new_end]
            .split_inclusive(|&b| b == b'\n')
            .collect();
        for op in similar::capture_diff_slices(Algorithm::Myers, &old_window, &new_window) {
            ops.push(offset(&op, lines.start, window_new_line));
        }
        old_line = lines.end;
        new_line = line_of(&new_starts, new_end);
    }
    if old_line < old_line_count {
        ops.push(DiffOp::Equal {
            old_index: old_line,
            new_index: new_line,
            len: old_line_count - old_line,
        });
    }
    ops
}

fn offset(op: &DiffOp, old: usize, new: usize) -> DiffOp {
    match *op {
        DiffOp::Equal {
            old_index,
            new_index,
            len,
        } => DiffOp::Equal {
            old_index: old_index + old,
            new_index: new_index + new,
            len,
        },
        DiffOp::Delete {
            old_index,
            old_len,
            new_index,
        } => DiffOp::Delete {
            old_index: old_index + old,
            old_len,
            new_index: new_index + new,
        },
        DiffOp::Insert {
            old_index,
            new_index,
            new_len,
        } => DiffOp::Insert {
            old_index: old_index + old,
            new_index: new_index + new,
            new_len,
        },
        DiffOp::Replace {
            old_index,
            old_len,
            new_index,
            new_len,
        } => DiffOp::Replace {
            old_index: old_index + old,
            old_len,
            new_index: new_index + new,
            new_len,
        },
    }
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
        write_unified(&mut out, "x.sh", b"a\nb", b"a\nc", &[(2..3, 1)], false).unwrap_or_default();
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
        write_unified(&mut out, "x.sh", b"a\n", b"a\n", &[], true).unwrap_or_default();
        assert!(out.is_empty());
    }

    #[test]
    fn colors_only_when_asked() {
        let mut plain = Vec::new();
        write_unified(&mut plain, "x.sh", b"a\n", b"b\n", &[(0..1, 1)], false).unwrap_or_default();
        assert!(!plain.contains(&0x1b));
        let mut colored = Vec::new();
        write_unified(&mut colored, "x.sh", b"a\n", b"b\n", &[(0..1, 1)], true).unwrap_or_default();
        assert!(colored.contains(&0x1b));
    }

    #[test]
    fn a_coloured_diff_shows_control_bytes_and_a_plain_one_keeps_them() {
        let before = b"x\n\x1b]0;T\x07\n";
        let after = b"y\n\x1b]0;T\x07\n";
        let mut plain = Vec::new();
        write_unified(&mut plain, "x.sh", before, after, &[(0..1, 1)], false).unwrap_or_default();
        assert!(plain.ends_with(b"\n \x1b]0;T\x07\n"), "{plain:?}");
        let mut colored = Vec::new();
        write_unified(&mut colored, "x.sh", before, after, &[(0..1, 1)], true).unwrap_or_default();
        let text = String::from_utf8_lossy(&colored);
        assert!(text.contains(" \\033]0;T\\a"), "{text}");
        assert!(!colored.contains(&0x07), "{text}");
        // The only escapes left are the colours.
        assert!(
            text.split('\x1b').skip(1).all(|s| s.starts_with('[')),
            "{text}"
        );
    }

    /// Rebuild both texts from the ops: equal runs must really be equal, and every line of both
    /// texts must be covered once, in order.
    fn rebuild(before: &[u8], after: &[u8], ops: &[DiffOp]) -> (Vec<u8>, Vec<u8>) {
        let old: Vec<&[u8]> = before.split_inclusive(|&b| b == b'\n').collect();
        let new: Vec<&[u8]> = after.split_inclusive(|&b| b == b'\n').collect();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let (mut next_old, mut next_new) = (0, 0);
        for op in ops {
            let (tag, o, n) = op.as_tag_tuple();
            assert_eq!((o.start, n.start), (next_old, next_new), "{ops:?}");
            if tag == DiffTag::Equal {
                assert_eq!(old[o.clone()], new[n.clone()]);
            }
            a.extend(old[o.clone()].concat());
            b.extend(new[n.clone()].concat());
            (next_old, next_new) = (o.end, n.end);
        }
        (a, b)
    }

    proptest::proptest! {
        #[test]
        fn windowed_ops_cover_both_texts_exactly(
            lines in proptest::collection::vec("[a-c\r]{0,3}", 0..12),
            final_newline: bool,
            raw in proptest::collection::vec((0usize..40, 0usize..4, "[a-c\r\n]{0,6}"), 0..5),
        ) {
            let mut before = lines.join("\n").into_bytes();
            if final_newline && !before.is_empty() {
                before.push(b'\n');
            }
            // Non-overlapping edits, as a plan has them.
            let mut edits: Vec<(Range<usize>, Vec<u8>)> = Vec::new();
            let mut taken = 0;
            let mut points: Vec<(usize, usize, String)> = raw;
            points.sort();
            for (start, len, text) in points {
                let start = start.min(before.len()).max(taken);
                let end = (start + len).min(before.len());
                edits.push((start..end, text.into_bytes()));
                taken = end.max(start);
            }
            let mut after = Vec::new();
            let mut cursor = 0;
            for (r, text) in &edits {
                after.extend_from_slice(&before[cursor..r.start]);
                after.extend_from_slice(text);
                cursor = r.end;
            }
            after.extend_from_slice(&before[cursor..]);
            let spans: Vec<(Range<usize>, usize)> =
                edits.iter().map(|(r, t)| (r.clone(), t.len())).collect();
            let ops = diff_ops(&before, &after, &spans);
            let (a, b) = rebuild(&before, &after, &ops);
            proptest::prop_assert_eq!(a, before);
            proptest::prop_assert_eq!(b, after);
        }
    }
}
