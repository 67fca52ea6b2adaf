//! Thin wrapper around tree-sitter-bash so callers can reuse one parser per thread.

use crate::codes;
use tree_sitter::{Node, Parser, Tree};

use crate::error::{Error, Result};

/// Make tree-sitter's C code allocate with mimalloc, the allocator the binary uses for Rust (a parse
/// allocates node by node: about 10% faster than libc malloc on realistic skills).
///
/// # Safety
///
/// Call once, before any other tree-sitter call and before other threads start (tree-sitter's rule
/// for `ts_set_allocator`): objects allocated before would be freed by the wrong allocator.
pub unsafe fn use_mimalloc() {
    use std::ffi::c_void;
    // tree-sitter requires non-null results; like its own default allocator, abort when out of memory.
    fn checked(pointer: *mut c_void, size: usize) -> *mut c_void {
        if pointer.is_null() && size > 0 {
            std::process::abort();
        }
        pointer
    }
    unsafe extern "C" fn malloc(size: usize) -> *mut c_void {
        checked(unsafe { libmimalloc_sys::mi_malloc(size) }, size)
    }
    unsafe extern "C" fn calloc(count: usize, size: usize) -> *mut c_void {
        checked(
            unsafe { libmimalloc_sys::mi_calloc(count, size) },
            count.saturating_mul(size),
        )
    }
    unsafe extern "C" fn realloc(pointer: *mut c_void, size: usize) -> *mut c_void {
        checked(unsafe { libmimalloc_sys::mi_realloc(pointer, size) }, size)
    }
    unsafe extern "C" fn free(pointer: *mut c_void) {
        unsafe { libmimalloc_sys::mi_free(pointer) }
    }
    let allocator = tree_sitter::Allocator {
        malloc,
        calloc,
        realloc,
        free,
    };
    // SAFETY: the four functions are one allocator family with malloc's alignment and never return
    // null for a non-zero size; the caller calls this before any tree-sitter object exists.
    unsafe { tree_sitter::set_allocator(Some(allocator)) };
}

/// A bash parser; create one per thread and reuse it (parser setup is not free).
pub struct BashParser {
    parser: Parser,
}

impl BashParser {
    pub fn new() -> Result<Self> {
        let mut parser = Parser::new();
        let language: tree_sitter::Language = tree_sitter_bash::LANGUAGE.into();
        parser.set_language(&language).map_err(|e| {
            Error::new(
                codes::PARSER_INIT_FAILED,
                format!("cannot load the bash grammar: {e}"),
            )
        })?;
        Ok(BashParser { parser })
    }

    /// Parse the whole of `source`. Constructs tree-sitter misreads are masked for the parse
    /// (`misreads`); offsets stay those of `source`.
    pub fn parse(&mut self, source: &[u8]) -> Result<Tree> {
        self.parse_with(source, None)
    }

    /// Parse `source`, reusing the unchanged parts of `old` (already edited to match).
    pub fn reparse(&mut self, source: &[u8], old: &Tree) -> Result<Tree> {
        self.parse_with(source, Some(old))
    }

    fn parse_with(&mut self, source: &[u8], old: Option<&Tree>) -> Result<Tree> {
        self.parser
            .parse(super::misreads::mask(source), old)
            .ok_or_else(|| Error::new(codes::PARSE_FAILED, "tree-sitter returned no tree"))
    }
}

/// Number of ERROR and MISSING nodes in the tree; used to refuse rewrites that add parse errors.
pub(crate) fn error_count(tree: &Tree) -> usize {
    let mut count = 0;
    visit_errors(tree, |_| {
        count += 1;
        true
    });
    count
}

/// The source text of a node with its bytes kept: what is not UTF-8 is marked (see
/// `bytes_text`), for values a JSON block reports.
pub(crate) fn node_text_marked(node: Node<'_>, source: &[u8]) -> String {
    crate::bytes_text::decode_marked(node_bytes(node, source))
}

/// 1-based line and column of the first ERROR or MISSING node, if any.
pub fn first_error(tree: &Tree) -> Option<(usize, usize)> {
    let mut first = None;
    visit_errors(tree, |node| {
        let p = node.start_position();
        first = Some((p.row + 1, p.column + 1));
        false
    });
    first
}

/// Where a redirection's target stands on the next line (`ls >` NEWLINE `echo SUCCESS`): bash stops
/// there with a syntax error, but tree-sitter-bash reads one command writing to a file named `echo`,
/// with no error, hiding the next statement. The start of each such redirection, in order.
pub fn redirects_across_lines(tree: &Tree, source: &[u8]) -> Vec<usize> {
    let root = tree.root_node();
    let mut found = Vec::new();
    for newline in memchr::memchr_iter(b'\n', source) {
        let end = source[..newline]
            .iter()
            .rposition(|&b| b != b' ' && b != b'\t')
            .map_or(0, |i| i + 1);
        let operator = match source[..end] {
            [.., b'>', b'|'] => end - 2,
            [.., b'>' | b'<'] => end - 1,
            _ => continue,
        };
        let mut node = root.descendant_for_byte_range(operator, operator + 1);
        for _ in 0..3 {
            let Some(current) = node else { break };
            if current.kind() == "file_redirect" {
                if current
                    .child_by_field_name("destination")
                    .is_some_and(|target| target.start_byte() > newline)
                {
                    found.push(current.start_byte());
                }
                break;
            }
            node = current.parent();
        }
    }
    found
}

/// Where tree-sitter-bash starts a comment right after an escaped blank (`echo x\ # note`): for
/// bash the `#` is inside the word, which goes on (`x #`, then `note`), so the line means
/// something else than the tree says. Read as parse errors, as `redirects_across_lines` are.
pub fn comments_after_escaped_blanks(tree: &Tree, source: &[u8]) -> Vec<usize> {
    let root = tree.root_node();
    let mut found = Vec::new();
    let comment_at = |hash: usize| {
        root.descendant_for_byte_range(hash, hash + 1)
            .is_some_and(|n| n.kind() == "comment" && n.start_byte() == hash)
    };
    for hash in memchr::memchr_iter(b'#', source) {
        // A CR, form feed or vertical tab is no blank to bash: `x=1\r# ; echo SUCCESS` runs the
        // echo (hostile review hx28).
        if hash >= 1 && matches!(source[hash - 1], b'\r' | 0x0b | 0x0c) && comment_at(hash) {
            found.push(hash);
            continue;
        }
        if hash < 2 || !matches!(source[hash - 1], b' ' | b'\t') || source[hash - 2] != b'\\' {
            continue;
        }
        // An escaped backslash before the blank (`\\ #`) leaves the blank unescaped.
        let backslashes = source[..hash - 1]
            .iter()
            .rev()
            .take_while(|&&b| b == b'\\')
            .count();
        if backslashes % 2 == 1 && comment_at(hash) {
            found.push(hash);
        }
    }
    found
}

/// The nodes from `root` down to `node`, both included. tree-sitter finds a node's parent by
/// descending from the root again, so a walk up through `parent()` costs the depth squared; this
/// descends once.
pub fn ancestry<'t>(root: Node<'t>, node: Node<'t>) -> Vec<Node<'t>> {
    let mut path = vec![root];
    let mut at = root;
    while at.id() != node.id() {
        match at.child_with_descendant(node) {
            Some(child) if child.id() != at.id() => {
                path.push(child);
                at = child;
            }
            _ => break,
        }
    }
    path
}

/// The parent and the named siblings of every node of a tree, read in one walk. tree-sitter's
/// `parent`, `next_named_sibling` and `prev_named_sibling` look the parent up again from the
/// root each time, so walking a list of n statements with them costs n² (a script of 2,000
/// legacy lines took seconds).
#[derive(Debug)]
pub(crate) struct Kin<'t> {
    /// Each named node's parent and its index among the parent's named children, by node id.
    place: std::collections::HashMap<usize, (Node<'t>, usize)>,
    /// Each parent's named children, by parent id.
    named: std::collections::HashMap<usize, Vec<Node<'t>>>,
}

impl<'t> Kin<'t> {
    pub(crate) fn of(root: Node<'t>) -> Kin<'t> {
        let mut kin = Kin {
            place: std::collections::HashMap::new(),
            named: std::collections::HashMap::new(),
        };
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            let mut cursor = node.walk();
            let children: Vec<Node<'t>> = node.named_children(&mut cursor).collect();
            if children.is_empty() {
                continue;
            }
            for (i, child) in children.iter().enumerate() {
                kin.place.insert(child.id(), (node, i));
                stack.push(*child);
            }
            kin.named.insert(node.id(), children);
        }
        kin
    }

    pub(crate) fn parent(&self, node: Node<'t>) -> Option<Node<'t>> {
        self.place.get(&node.id()).map(|(parent, _)| *parent)
    }

    pub(crate) fn next_named(&self, node: Node<'t>) -> Option<Node<'t>> {
        let (parent, i) = self.place.get(&node.id())?;
        self.named.get(&parent.id())?.get(i + 1).copied()
    }

    pub(crate) fn prev_named(&self, node: Node<'t>) -> Option<Node<'t>> {
        let (parent, i) = self.place.get(&node.id())?;
        self.named
            .get(&parent.id())?
            .get(i.checked_sub(1)?)
            .copied()
    }
}

/// Whether `node` runs in the background: `&` follows it (not `&&`, nor the redirection `&>`).
/// Read from the text, as `next_sibling` would look for the parent again.
pub fn backgrounded(node: Node<'_>, source: &[u8]) -> bool {
    let rest = source.get(node.end_byte()..).unwrap_or_default();
    let next = rest.iter().position(|b| !matches!(b, b' ' | b'\t'));
    next.is_some_and(|i| rest[i] == b'&' && !matches!(rest.get(i + 1), Some(b'&' | b'>')))
}

/// Call `visit` on each ERROR or MISSING node in document order, going only into subtrees that
/// hold one, until it returns false.
fn visit_errors(tree: &Tree, mut visit: impl FnMut(Node<'_>) -> bool) {
    if !tree.root_node().has_error() {
        return;
    }
    let mut cursor = tree.walk();
    loop {
        let node = cursor.node();
        if (node.is_error() || node.is_missing()) && !visit(node) {
            return;
        }
        if node.has_error() && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

/// The source bytes of a node.
pub(crate) fn node_bytes<'s>(node: Node<'_>, source: &'s [u8]) -> &'s [u8] {
    &source[node.start_byte()..node.end_byte()]
}

/// The source text of a node, lossily decoded for reports.
pub(crate) fn node_text(node: Node<'_>, source: &[u8]) -> String {
    String::from_utf8_lossy(node_bytes(node, source)).into_owned()
}

/// 1-based line and column (in bytes, as tree-sitter counts) of byte `at`.
pub(crate) fn line_column(source: &[u8], at: usize) -> (usize, usize) {
    let before = &source[..at.min(source.len())];
    let line_start = memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
    (
        memchr::memchr_iter(b'\n', before).count() + 1,
        before.len() - line_start + 1,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn misread(source: &str) -> Vec<usize> {
        let mut parser = BashParser::new().expect("parser");
        let tree = parser.parse(source.as_bytes()).expect("parse");
        redirects_across_lines(&tree, source.as_bytes())
    }

    #[test]
    fn a_comment_after_an_escaped_blank_is_a_parse_error() {
        // bash reads `\ #` as part of the word; an escaped backslash leaves the blank plain.
        let mut parser = BashParser::new().expect("parser");
        for (source, want) in [
            ("echo \"Confidence: 0.0\"\\ # note\n", vec![24]),
            ("echo a\\\\ # comment\n", vec![]),
            ("echo SUCCESS # comment\n", vec![]),
            // A CR, form feed or vertical tab is no blank to bash either (hx28).
            ("x=1\r# ; echo SUCCESS\n", vec![4]),
            ("x=1\x0c# ; echo SUCCESS\n", vec![4]),
            ("echo a # note\r\n", vec![]),
        ] {
            let tree = parser.parse(source.as_bytes()).expect("parse");
            assert_eq!(
                comments_after_escaped_blanks(&tree, source.as_bytes()),
                want,
                "{source}"
            );
        }
    }

    #[test]
    fn a_redirection_target_on_the_next_line_is_a_parse_error() {
        assert_eq!(misread("ls >\necho SUCCESS\n"), [3]);
        assert_eq!(misread("true\nls 2>>  \necho SUCCESS\n"), [8]);
        assert_eq!(misread("ls >|\t\necho SUCCESS\n"), [3]);
    }

    #[test]
    fn a_greater_than_sign_at_a_line_end_elsewhere_is_not() {
        for source in [
            "x=$(( 1 >\n 2 ))\n",
            "cat <<E\na >\nE\n",
            "echo \"a >\nb\"\n",
            "ls > \\\n  out.txt\n",
            "# a comment >\nls\n",
            "ls >out.txt\n",
        ] {
            assert_eq!(misread(source), Vec::<usize>::new(), "{source:?}");
        }
    }
}
