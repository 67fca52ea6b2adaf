//! Where text can be inserted without changing what the shell parses: the end of a line, before
//! an existing comment, or a comment line of its own; and where the JSON block goes.

use tree_sitter::Tree;

/// Node kinds a comment may sit inside when it spans a line end (statement containers).
const COMMENT_SAFE_CONTAINERS: &[&str] = &[
    "program",
    "compound_statement",
    "if_statement",
    "elif_clause",
    "else_clause",
    "while_statement",
    "for_statement",
    "c_style_for_statement",
    "do_group",
    "case_statement",
    "case_item",
    "function_definition",
    "subshell",
    "list",
    "pipeline",
];

/// Where the statement starting at `start` ends when it ends an `A && B || STATEMENT` list. There
/// ShellCheck (SC2015) takes any command but `echo`, `printf`, `:`, `true` or `exit` for one that
/// may fail, so a recorder in that place gets ` || :` after it: the same status (the recorder
/// returns 0), no new finding.
pub(crate) fn ends_and_or_list(tree: &Tree, start: usize) -> Option<usize> {
    let mut node = tree
        .root_node()
        .descendant_for_byte_range(start, start + 1)?;
    while let Some(parent) = node.parent().filter(|p| p.kind() != "list") {
        if parent.start_byte() != start {
            return None;
        }
        node = parent;
    }
    let list = node.parent()?;
    let operator = |n: tree_sitter::Node<'_>| {
        let mut cursor = n.walk();
        n.children(&mut cursor)
            .find(|c| !c.is_named())
            .map(|c| c.kind().to_string())
    };
    let left = list.named_child(0)?;
    let shape = list
        .named_child(1)
        .is_some_and(|right| right.id() == node.id())
        && operator(list).as_deref() == Some("||")
        && left.kind() == "list"
        && operator(left).as_deref() == Some("&&");
    // `A && B || C >&2`: tree-sitter-bash hangs the redirection on the list, bash on C; the
    // ` || :` goes after it, so it stays C's.
    let end = list
        .parent()
        .filter(|p| p.kind() == "redirected_statement")
        .filter(|p| p.child_by_field_name("body").map(|b| b.id()) == Some(list.id()))
        .map_or(node.end_byte(), |p| p.end_byte());
    shape.then_some(end)
}

/// The line ending a file uses (from its first line break).
pub(crate) fn line_ending(source: &[u8]) -> &'static str {
    match memchr::memchr(b'\n', source) {
        Some(i) if i > 0 && source[i - 1] == b'\r' => "\r\n",
        _ => "\n",
    }
}

/// Byte offset of the end of the line holding `pos` (before `\r\n` or `\n`, or the file end).
pub(crate) fn line_end(source: &[u8], pos: usize) -> usize {
    let end = memchr::memchr(b'\n', &source[pos..]).map_or(source.len(), |i| pos + i);
    if end > pos && source[end - 1] == b'\r' {
        end - 1
    } else {
        end
    }
}

/// True when a comment could start at `pos`: not inside a word, string, heredoc or substitution,
/// and not on a line continued with a backslash.
pub(crate) fn comment_can_start_at(tree: &Tree, source: &[u8], pos: usize) -> bool {
    let before = source[..pos].trim_ascii_end();
    if before.ends_with(b"\\") {
        return false;
    }
    let root = tree.root_node();
    let Some(mut node) = root.descendant_for_byte_range(pos, pos) else {
        return true;
    };
    loop {
        if node.start_byte() < pos
            && node.end_byte() > pos
            && !COMMENT_SAFE_CONTAINERS.contains(&node.kind())
        {
            return false;
        }
        match node.parent() {
            Some(parent) => node = parent,
            None => return true,
        }
    }
}

/// Start of a comment that ends the line holding `after` and starts after it, if any.
pub(crate) fn trailing_comment(tree: &Tree, source: &[u8], after: usize) -> Option<usize> {
    let eol = line_end(source, after);
    if eol <= after {
        return None;
    }
    let node = tree.root_node().descendant_for_byte_range(eol - 1, eol)?;
    (node.kind() == "comment" && node.start_byte() >= after).then(|| node.start_byte())
}
