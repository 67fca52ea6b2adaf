//! Inline suppression: `# skillmod: ignore` (every rule) or `# skillmod: ignore[SKM001,SKM002]`
//! in a comment on a statement's line or on the line above it, as `# noqa` and
//! `# shellcheck disable=` work. Found by a scan of the lines, like those.

use std::cell::Cell;

const DIRECTIVE: &[u8] = b"skillmod: ignore";

/// One directive: its line and the codes it names (empty: all).
#[derive(Debug)]
struct Directive {
    line: usize,
    column: usize,
    codes: Vec<String>,
    used: Cell<bool>,
}

/// The directives of one script.
#[derive(Debug, Default)]
pub struct Suppressions {
    directives: Vec<Directive>,
}

impl Suppressions {
    /// Whether `source` can hold a directive at all: a quick test before `parse`.
    pub fn may_occur(source: &[u8]) -> bool {
        memchr::memmem::find(source, DIRECTIVE).is_some()
    }

    pub fn parse(source: &[u8]) -> Suppressions {
        let mut directives = Vec::new();
        for at in memchr::memmem::find_iter(source, DIRECTIVE) {
            let line_start = memchr::memrchr(b'\n', &source[..at]).map_or(0, |i| i + 1);
            let before = &source[line_start..at];
            // In a comment: a `#` before it on the line, with only blanks between.
            let Some(hash) = memchr::memrchr(b'#', before) else {
                continue;
            };
            if !before[hash + 1..].iter().all(|b| matches!(b, b' ' | b'\t')) {
                continue;
            }
            let rest = &source[at + DIRECTIVE.len()..];
            let codes = match rest.strip_prefix(b"[") {
                Some(list) => {
                    let end = list.iter().position(|&b| b == b']' || b == b'\n');
                    let Some(end) = end.filter(|&e| list.get(e) == Some(&b']')) else {
                        continue;
                    };
                    String::from_utf8_lossy(&list[..end])
                        .split(',')
                        .map(|c| c.trim().to_string())
                        .filter(|c| !c.is_empty())
                        .collect()
                }
                None => Vec::new(),
            };
            let line = source[..at].iter().filter(|&&b| b == b'\n').count() + 1;
            directives.push(Directive {
                line,
                column: hash + 1,
                codes,
                used: Cell::new(false),
            });
        }
        Suppressions { directives }
    }

    /// True when a directive on `line` or the line above covers `code` (and marks it used).
    pub fn covers(&self, line: usize, code: &str) -> bool {
        let mut covered = false;
        for d in &self.directives {
            let near = d.line == line || d.line + 1 == line;
            if near && (d.codes.is_empty() || d.codes.iter().any(|c| code.starts_with(c.as_str())))
            {
                d.used.set(true);
                covered = true;
            }
        }
        covered
    }

    /// Line and column of each directive that covered nothing.
    pub fn unused(&self) -> Vec<(usize, usize)> {
        self.directives
            .iter()
            .filter(|d| !d.used.get())
            .map(|d| (d.line, d.column))
            .collect()
    }

    pub fn is_empty(&self) -> bool {
        self.directives.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directives_cover_their_line_and_the_next() {
        let s = Suppressions::parse(
            b"echo SUCCESS # skillmod: ignore\n# skillmod: ignore[SKM002]\necho hi\necho x\n# skillmod: ignore[SKM001]\nls\n",
        );
        assert!(s.covers(1, "SKM001"));
        assert!(s.covers(3, "SKM002"));
        assert!(!s.covers(3, "SKM001"));
        assert!(!s.covers(4, "SKM002"));
        assert_eq!(s.unused(), vec![(5, 1)]);
    }

    #[test]
    fn text_outside_comments_is_not_a_directive() {
        let s = Suppressions::parse(b"echo \"skillmod: ignore\"\necho SUCCESS\n");
        assert!(!s.covers(2, "SKM001"));
    }
}
