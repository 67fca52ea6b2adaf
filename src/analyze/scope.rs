//! Which chunks of a script (see `chunks`) get parsed: those holding text the analysis looks for,
//! the last one (where a final `exit` would be), and the call sites of functions whose output
//! matters. Merged into byte ranges for tree-sitter's included ranges.

use std::ops::Range;

/// The most included ranges a scoped parse uses.
const MAX_RANGES: usize = 32;

/// The chunks of one script and which of them are selected.
pub struct Scope {
    starts: Vec<usize>,
    len: usize,
    selected: Vec<bool>,
}

impl Scope {
    /// `starts` as `chunks::chunk_starts` gives them for a source of `len` bytes; nothing selected.
    pub fn new(starts: Vec<usize>, len: usize) -> Self {
        let selected = vec![false; starts.len()];
        Scope {
            starts,
            len,
            selected,
        }
    }

    /// Select the chunks holding any of `offsets`; true when one was not selected before.
    pub fn select_offsets(&mut self, offsets: impl IntoIterator<Item = usize>) -> bool {
        let mut added = false;
        for offset in offsets {
            let chunk = self
                .starts
                .partition_point(|&s| s <= offset)
                .saturating_sub(1);
            if let Some(flag) = self.selected.get_mut(chunk)
                && !*flag
            {
                *flag = true;
                added = true;
            }
        }
        added
    }

    pub fn select_last(&mut self) {
        if let Some(flag) = self.selected.last_mut() {
            *flag = true;
        }
    }

    /// The selected chunks as byte ranges, neighbours merged, and at most `MAX_RANGES` of them:
    /// tree-sitter looks through the range list as it lexes, so thousands of ranges cost more
    /// than parsing what lies between them. The smallest gaps are closed first (a closed gap is
    /// whole statements, so the parse stays right).
    pub fn ranges(&self) -> Vec<Range<usize>> {
        let ranges = self.selected_ranges();
        if ranges.len() <= MAX_RANGES {
            return ranges;
        }
        let mut gaps: Vec<(usize, usize)> = ranges
            .windows(2)
            .enumerate()
            .map(|(i, w)| (w[1].start - w[0].end, i))
            .collect();
        gaps.sort_unstable();
        let mut close = vec![false; ranges.len()];
        for &(_, i) in gaps.iter().take(ranges.len() - MAX_RANGES) {
            close[i] = true;
        }
        let mut merged: Vec<Range<usize>> = Vec::with_capacity(MAX_RANGES);
        let mut join = false;
        for (i, range) in ranges.into_iter().enumerate() {
            match merged.last_mut() {
                Some(last) if join => last.end = range.end,
                _ => merged.push(range),
            }
            join = close[i];
        }
        merged
    }

    fn selected_ranges(&self) -> Vec<Range<usize>> {
        let mut ranges: Vec<Range<usize>> = Vec::new();
        for (i, _) in self.selected.iter().enumerate().filter(|(_, s)| **s) {
            let start = self.starts[i];
            let end = self.starts.get(i + 1).copied().unwrap_or(self.len);
            match ranges.last_mut() {
                Some(last) if last.end == start => last.end = end,
                _ => ranges.push(start..end),
            }
        }
        ranges
    }
}

/// Offsets of `name` where it stands as a whole word (not inside a longer name), as a call does.
pub fn word_occurrences<'a>(source: &'a [u8], name: &'a [u8]) -> impl Iterator<Item = usize> + 'a {
    let is_name_byte = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    memchr::memmem::find_iter(source, name).filter(move |&at| {
        let before = at.checked_sub(1).map(|i| source[i]);
        let after = source.get(at + name.len()).copied();
        !before.is_some_and(is_name_byte) && !after.is_some_and(is_name_byte)
    })
}

/// Byte ranges as tree-sitter ranges, with their row/column points.
pub fn tree_sitter_ranges(source: &[u8], ranges: &[Range<usize>]) -> Vec<tree_sitter::Range> {
    let mut row = 0;
    let mut line_start = 0;
    let mut scanned = 0;
    let mut point = |offset: usize| {
        for newline in memchr::memchr_iter(b'\n', &source[scanned..offset]) {
            row += 1;
            line_start = scanned + newline + 1;
        }
        scanned = offset;
        tree_sitter::Point {
            row,
            column: offset - line_start,
        }
    };
    ranges
        .iter()
        .map(|r| tree_sitter::Range {
            start_byte: r.start,
            start_point: point(r.start),
            end_byte: r.end,
            end_point: point(r.end),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selected_neighbours_merge_into_one_range() {
        let mut scope = Scope::new(vec![0, 4, 9, 15], 20);
        assert!(scope.select_offsets([5, 10]));
        assert!(!scope.select_offsets([12]));
        scope.select_last();
        assert_eq!(scope.ranges(), vec![4..20]);
        let mut apart = Scope::new(vec![0, 4, 9], 12);
        apart.select_offsets([0, 11]);
        assert_eq!(apart.ranges(), vec![0..4, 9..12]);
    }

    #[test]
    fn calls_are_whole_words() {
        let src = b"f\nx=$(f)\nff\nf_x\n\"f\"\n";
        assert_eq!(
            word_occurrences(src, b"f").collect::<Vec<_>>(),
            vec![0, 6, 17]
        );
    }

    #[test]
    fn points_count_rows_and_columns() {
        let src = b"ab\ncd\nef\n";
        let ranges = tree_sitter_ranges(src, &[1..4, 7..9]);
        assert_eq!(
            (ranges[0].start_point.row, ranges[0].start_point.column),
            (0, 1)
        );
        assert_eq!(
            (ranges[0].end_point.row, ranges[0].end_point.column),
            (1, 1)
        );
        assert_eq!(
            (ranges[1].end_point.row, ranges[1].end_point.column),
            (3, 0)
        );
    }
}
