//! Inline suppression, read from the syntax tree's comments (as ShellCheck reads its
//! directives): `# skillmod: ignore` (every rule) or `# skillmod: ignore[SKM001,SKM002]`, then
//! the end of the comment or a blank and any reason. A comment after a statement on its line
//! covers that statement; a comment on a line of its own covers the next statement, a compound
//! one (if, loop, function, group) whole. Text in strings, heredocs and prose that merely
//! mentions the words (`# skillmod: ignored by design`) is not a directive; an empty or unknown
//! code list is an error and suppresses nothing.

use std::cell::Cell;
use std::ops::Range;

use tree_sitter::Node;

use super::parser::{self, BashParser};
use crate::domain::rules::Rule;

const DIRECTIVE: &[u8] = b"skillmod: ignore";

/// One directive: where it stands, the codes it names (empty: all) and the bytes it covers.
#[derive(Debug)]
struct Directive {
    line: usize,
    column: usize,
    codes: Vec<String>,
    covers: Range<usize>,
    used: Cell<bool>,
}

/// A comment that tried to be a directive and is not a valid one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Invalid {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// The directives of one script, sorted by the start of what they cover.
#[derive(Debug, Default)]
pub(crate) struct Suppressions {
    directives: Vec<Directive>,
    /// Directive checks made by `suppresses`, for tests that bound the work.
    pub checks: Cell<usize>,
}

impl Suppressions {
    /// Whether `source` can hold a directive at all: a quick test before `parse`.
    pub fn may_occur(source: &[u8]) -> bool {
        memchr::memmem::find(source, DIRECTIVE).is_some()
    }

    /// The directives in `source`'s comments, and the malformed ones.
    pub fn parse(parser: &mut BashParser, source: &[u8]) -> (Suppressions, Vec<Invalid>) {
        let mut suppressions = Suppressions::default();
        let mut invalid = Vec::new();
        if !Suppressions::may_occur(source) {
            return (suppressions, invalid);
        }
        let Ok(tree) = parser.parse(source) else {
            return (suppressions, invalid);
        };
        // Comments are found from the directive text, not by walking the whole tree.
        for at in memchr::memmem::find_iter(source, DIRECTIVE) {
            let Some(comment) = tree
                .root_node()
                .descendant_for_byte_range(at, at + DIRECTIVE.len())
                .filter(|n| n.kind() == "comment")
            else {
                continue;
            };
            let text = parser::node_bytes(comment, source);
            let body = text.strip_prefix(b"#").unwrap_or(text);
            let lead = body.iter().take_while(|b| b.is_ascii_whitespace()).count();
            let Some(rest) = body[lead..].strip_prefix(DIRECTIVE) else {
                continue; // the words later in a comment: prose, not a directive
            };
            let position = comment.start_position();
            let (line, column) = (position.row + 1, position.column + 1);
            let codes = match parse_codes(rest) {
                Ok(Some(codes)) => codes,
                Ok(None) => continue,
                Err(message) => {
                    invalid.push(Invalid {
                        line,
                        column,
                        message,
                    });
                    continue;
                }
            };
            let covers = covered(comment).map_or(0..0, |n| n.start_byte()..n.end_byte());
            suppressions.directives.push(Directive {
                line,
                column,
                codes,
                covers,
                used: Cell::new(false),
            });
        }
        suppressions.directives.sort_by_key(|d| d.covers.start);
        (suppressions, invalid)
    }

    /// Which of `findings` (byte offset, rule code), sorted by offset, a directive covers; marks
    /// the directives used. Each directive looks only at the findings inside what it covers, so
    /// the work is linear in findings and directives (times the nesting of covered statements).
    /// Keep the `items` (sorted by offset) that the directives do not suppress for rule `code`.
    pub fn retain<T>(&self, items: &mut Vec<T>, rule: Rule, offset: impl Fn(&T) -> usize) {
        let keys: Vec<(usize, &str)> = items
            .iter()
            .map(|item| (offset(item), rule.code()))
            .collect();
        let mut drop = self.suppresses(&keys).into_iter();
        items.retain(|_| !drop.next().unwrap_or(false));
    }

    pub fn suppresses(&self, findings: &[(usize, &str)]) -> Vec<bool> {
        let mut suppressed = vec![false; findings.len()];
        for directive in &self.directives {
            let first = findings.partition_point(|(at, _)| *at < directive.covers.start);
            for (i, (at, code)) in findings[first..].iter().enumerate() {
                let i = first + i;
                if *at >= directive.covers.end {
                    break;
                }
                self.checks.set(self.checks.get() + 1);
                if directive.codes.is_empty()
                    || directive.codes.iter().any(|c| code.starts_with(c.as_str()))
                {
                    directive.used.set(true);
                    suppressed[i] = true;
                }
            }
        }
        suppressed
    }

    /// Line and column of each directive that covered nothing.
    pub fn unused(&self) -> Vec<(usize, usize)> {
        let mut unused: Vec<(usize, usize)> = self
            .directives
            .iter()
            .filter(|d| !d.used.get())
            .map(|d| (d.line, d.column))
            .collect();
        unused.sort_unstable();
        unused
    }

    /// No directive was found (the tests' view of a parse).
    #[cfg(test)]
    fn is_empty(&self) -> bool {
        self.directives.is_empty()
    }
}

/// What follows `skillmod: ignore`: `None` when it is not a directive after all (more letters,
/// as in `ignored`), the codes (empty: all rules), or why the code list is wrong.
fn parse_codes(rest: &[u8]) -> Result<Option<Vec<String>>, String> {
    let ends_word = |b: Option<&u8>| b.is_none_or(|b| b.is_ascii_whitespace());
    if ends_word(rest.first()) {
        return Ok(Some(Vec::new()));
    }
    let Some(list) = rest.strip_prefix(b"[") else {
        return Ok(None);
    };
    let Some(end) = list.iter().position(|&b| b == b']') else {
        return Err(
            "`# skillmod: ignore[` has no closing `]`; write `# skillmod: ignore[SKM001]`".into(),
        );
    };
    if !ends_word(list.get(end + 1)) {
        return Err("text right after `]`; put a blank before any reason".into());
    }
    let codes: Vec<String> = String::from_utf8_lossy(&list[..end])
        .split(',')
        .map(|c| c.trim().to_string())
        .collect();
    if codes.iter().all(String::is_empty) {
        return Err("`ignore[]` names no rule; name codes (`ignore[SKM001]`) or drop the brackets to ignore every rule".into());
    }
    if let Some(bad) = codes
        .iter()
        .find(|c| c.is_empty() || Rule::matching(c).next().is_none())
    {
        return Err(format!(
            "'{bad}' matches no rule; the rules are {}",
            Rule::known_codes()
        ));
    }
    Ok(Some(codes))
}

/// The statement a directive comment covers: the one it trails on its line, else the next one.
fn covered(comment: Node<'_>) -> Option<Node<'_>> {
    let row = comment.start_position().row;
    if let Some(before) = comment.prev_named_sibling()
        && before.kind() != "comment"
        && before.end_position().row == row
    {
        return Some(before);
    }
    let mut next = comment.next_named_sibling();
    while let Some(node) = next {
        if node.kind() != "comment" {
            return Some(node);
        }
        next = node.next_named_sibling();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(source: &str) -> (Suppressions, Vec<Invalid>) {
        let mut parser = BashParser::new().expect("parser");
        Suppressions::parse(&mut parser, source.as_bytes())
    }

    fn offset(source: &str, needle: &str) -> usize {
        source.find(needle).expect("needle")
    }

    #[test]
    fn a_trailing_directive_covers_its_statement_only() {
        let src = "echo SUCCESS # skillmod: ignore[SKM001]\necho SUCCESS\n";
        let (s, invalid) = parse(src);
        assert!(invalid.is_empty());
        let second = src.rfind("echo SUCCESS").expect("second");
        assert_eq!(
            s.suppresses(&[(0, "SKM001"), (second, "SKM001")]),
            [true, false]
        );
    }

    #[test]
    fn a_directive_on_its_own_line_covers_the_next_statement_whole() {
        let src = "# skillmod: ignore[SKM002] reason\nif true; then\n  echo hi\n  printf x\nfi\necho after\n";
        let (s, _) = parse(src);
        let found = [
            (offset(src, "echo hi"), "SKM002"),
            (offset(src, "printf"), "SKM002"),
            (offset(src, "echo after"), "SKM002"),
        ];
        assert_eq!(s.suppresses(&found), [true, true, false]);
        assert!(s.unused().is_empty());
    }

    #[test]
    fn prose_strings_and_heredocs_are_not_directives() {
        let src = "# skillmod: ignored by design\necho \"# skillmod: ignore\"\ncat <<EOF\n# skillmod: ignore\nEOF\necho SUCCESS\n";
        let (s, invalid) = parse(src);
        assert!(s.is_empty() && invalid.is_empty(), "{s:?} {invalid:?}");
    }

    #[test]
    fn empty_and_unknown_code_lists_are_errors() {
        for src in [
            "echo SUCCESS # skillmod: ignore[]\n",
            "echo SUCCESS # skillmod: ignore[SKM999]\n",
            "echo SUCCESS # skillmod: ignore[SKM001\n",
        ] {
            let (s, invalid) = parse(src);
            assert!(s.is_empty(), "{src}");
            assert_eq!(invalid.len(), 1, "{src}");
            assert_eq!(s.suppresses(&[(0, "SKM001")]), [false], "{src}");
        }
    }

    #[test]
    fn unused_directives_are_listed() {
        let (s, _) = parse("ls # skillmod: ignore\necho x\n");
        assert_eq!(
            s.suppresses(&[(offset("ls # skillmod: ignore\necho x\n", "echo"), "SKM002")]),
            [false]
        );
        assert_eq!(s.unused(), vec![(1, 4)]);
    }

    #[test]
    fn work_is_linear_in_directives_and_findings() {
        let mut parser = BashParser::new().expect("parser");
        for n in [200, 2000] {
            let line = "echo SUCCESS # skillmod: ignore\n";
            let src = line.repeat(n);
            let (s, _) = Suppressions::parse(&mut parser, src.as_bytes());
            let findings: Vec<(usize, &str)> = (0..n).map(|i| (i * line.len(), "SKM001")).collect();
            assert!(s.suppresses(&findings).iter().all(|&x| x));
            assert_eq!(s.checks.get(), n, "one check per finding");
        }
    }
}
