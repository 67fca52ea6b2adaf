//! Edits as data: byte ranges with replacement text and the reason for each. Renderers read
//! plans; `apply` turns one into bytes; nothing here touches the file system.

use crate::codes;
use serde::Serialize;

use crate::error::{Error, Result};

/// Why an edit exists; shown in reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum Reason {
    /// A legacy statement replaced by a no-op (`:`) or a recording statement.
    DisableLegacy { line: usize },
    /// The `# LEGACY (replaced with JSON): …` text for a disabled statement.
    LegacyComment { line: usize },
    /// The JSON block (heredoc, or run-time emitter) that replaces the legacy lines.
    JsonBlock,
    /// Capture mode's runtime (state, functions, EXIT trap): one line of complete statements put
    /// in front of the script's second line, a top-level statement start. It is fixed text,
    /// checked once by tests, so the per-file re-parse leaves it out.
    Runtime,
    /// A `trap … EXIT` renamed to the runtime's chaining `__skm_trap`.
    ChainTrap { line: usize },
    /// A stdout write sent to stderr by `--stdout-to-stderr`.
    StdoutToStderr { line: usize },
}

/// Replace `start..end` of the source with `replacement` (an insertion when start == end).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Edit {
    pub start: usize,
    pub end: usize,
    #[serde(skip)]
    pub replacement: Vec<u8>,
    #[serde(flatten)]
    pub reason: Reason,
}

/// All edits for one file. Insertions at the same offset keep the order they were added in.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Plan {
    pub edits: Vec<Edit>,
}

impl Plan {
    pub fn push(
        &mut self,
        start: usize,
        end: usize,
        replacement: impl Into<Vec<u8>>,
        reason: Reason,
    ) {
        self.edits.push(Edit {
            start,
            end,
            replacement: replacement.into(),
            reason,
        });
    }

    /// The edits as tree-sitter `InputEdit`s, last first, so each one's positions are still those
    /// of the original source when it is applied to the old tree.
    pub fn input_edits(&self, source: &[u8]) -> Vec<tree_sitter::InputEdit> {
        let mut edits: Vec<&Edit> = self.edits.iter().collect();
        edits.sort_by_key(|e| std::cmp::Reverse((e.start, e.end)));
        // Positions from one index of line starts: counting newlines from the top for every
        // edit made 40,000 legacy lines quadratic.
        let lines: Vec<usize> = std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', source).map(|i| i + 1))
            .collect();
        let point_at = |offset: usize| {
            let row = lines.partition_point(|&start| start <= offset) - 1;
            tree_sitter::Point {
                row,
                column: offset - lines[row],
            }
        };
        edits
            .into_iter()
            .map(|e| {
                let start_position = point_at(e.start);
                tree_sitter::InputEdit {
                    start_byte: e.start,
                    old_end_byte: e.end,
                    new_end_byte: e.start + e.replacement.len(),
                    start_position,
                    old_end_position: point_at(e.end),
                    new_end_position: advance(start_position, &e.replacement),
                }
            })
            .collect()
    }

    /// The same plan without the capture runtime's insertion.
    pub fn without_runtime(&self) -> Plan {
        Plan {
            edits: self
                .edits
                .iter()
                .filter(|e| e.reason != Reason::Runtime)
                .cloned()
                .collect(),
        }
    }

    /// The source with every edit applied. Overlapping replacements are a bug in the planner
    /// and reported as an error rather than producing mangled output.
    pub fn apply(&self, source: &[u8]) -> Result<Vec<u8>> {
        let mut order: Vec<usize> = (0..self.edits.len()).collect();
        // Stable sort keeps insertion order for edits at the same offset; the runtime's line (a
        // whole line in front of line 2) goes first, then insertions, then a replacement.
        order.sort_by_key(|&i| {
            (
                self.edits[i].start,
                self.edits[i].reason != Reason::Runtime,
                self.edits[i].end != self.edits[i].start,
            )
        });
        let extra: usize = self.edits.iter().map(|e| e.replacement.len()).sum();
        let mut out = Vec::with_capacity(source.len() + extra);
        let mut cursor = 0;
        for i in order {
            let edit = &self.edits[i];
            if edit.start < cursor || edit.end < edit.start || edit.end > source.len() {
                return Err(Error::new(
                    codes::OVERLAPPING_EDITS,
                    format!(
                        "internal planner error: edit {}..{} overlaps another; the file was left unchanged (please report this)",
                        edit.start, edit.end
                    ),
                ));
            }
            out.extend_from_slice(&source[cursor..edit.start]);
            out.extend_from_slice(&edit.replacement);
            cursor = edit.end;
        }
        out.extend_from_slice(&source[cursor..]);
        Ok(out)
    }
}

fn advance(mut point: tree_sitter::Point, text: &[u8]) -> tree_sitter::Point {
    match memchr::memrchr(b'\n', text) {
        Some(last) => {
            point.row += memchr::memchr_iter(b'\n', text).count();
            point.column = text.len() - last - 1;
        }
        None => point.column += text.len(),
    }
    point
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insertions_at_one_offset_keep_their_order() {
        let mut plan = Plan::default();
        plan.push(3, 3, "A", Reason::JsonBlock);
        plan.push(0, 1, "x", Reason::DisableLegacy { line: 1 });
        plan.push(3, 3, "B", Reason::JsonBlock);
        assert_eq!(plan.apply(b"abcdef").unwrap_or_default(), b"xbcABdef");
    }

    #[test]
    fn overlapping_edits_are_refused() {
        let mut plan = Plan::default();
        plan.push(0, 4, "x", Reason::JsonBlock);
        plan.push(2, 5, "y", Reason::JsonBlock);
        assert_eq!(
            plan.apply(b"abcdef").map_err(|e| e.code),
            Err(codes::OVERLAPPING_EDITS)
        );
    }
}
