//! Control-flow facts about a whole-file tree that decide where generated code may go: whether
//! the script's last command always exits (a block after it never runs), and whether the script
//! returns at top level (it is meant to be sourced).

use std::collections::HashMap;

use tree_sitter::Node;

use super::context::command_name_bytes;

/// How deep calls and nested groups are followed before giving up (recursive functions, deeply
/// nested scripts: the walk must not overflow a worker's stack). Giving up means "may not exit".
const MAX_DEPTH: usize = 64;

/// The 1-based line of the script's last top-level command when it always exits: `exit`, `exec`
/// of a command, a call to a function whose every path exits, or an `if`/`case`/group whose
/// every branch does.
pub fn last_command_always_exits(root: Node<'_>, source: &[u8]) -> Option<usize> {
    let mut functions = HashMap::new();
    let mut cursor = root.walk();
    let mut last = None;
    for child in root.named_children(&mut cursor) {
        match child.kind() {
            "function_definition" => {
                if let Some(name) = child.child_by_field_name("name") {
                    functions.insert(&source[name.start_byte()..name.end_byte()], child);
                }
            }
            "comment" => {}
            _ => last = Some(child),
        }
    }
    let last = last?;
    always_exits(last, source, &functions, 0).then(|| last.start_position().row + 1)
}

fn always_exits(
    node: Node<'_>,
    source: &[u8],
    functions: &HashMap<&[u8], Node<'_>>,
    depth: usize,
) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    match node.kind() {
        "command" => match command_name_bytes(node, source) {
            Some(b"exit") => true,
            Some(b"exec") => node.child_by_field_name("argument").is_some(),
            Some(name) => functions.get(name).is_some_and(|function| {
                function
                    .child_by_field_name("body")
                    .is_some_and(|body| always_exits(body, source, functions, depth + 1))
            }),
            None => false,
        },
        "redirected_statement" => node
            .child_by_field_name("body")
            .is_some_and(|body| always_exits(body, source, functions, depth + 1)),
        "compound_statement" => last_statement(node)
            .is_some_and(|last| always_exits(last, source, functions, depth + 1)),
        "if_statement" => {
            let mut cursor = node.walk();
            let mut has_else = false;
            let mut all = true;
            let mut body: Option<Node<'_>> = None;
            for child in node.named_children(&mut cursor) {
                match child.kind() {
                    "elif_clause" | "else_clause" => {
                        has_else |= child.kind() == "else_clause";
                        all &= last_statement(child)
                            .is_some_and(|last| always_exits(last, source, functions, depth + 1));
                    }
                    "comment" => {}
                    _ => body = Some(child),
                }
            }
            has_else
                && all
                && body.is_some_and(|last| always_exits(last, source, functions, depth + 1))
        }
        _ => false,
    }
}

/// The last statement of a group or branch (comments aside).
fn last_statement(node: Node<'_>) -> Option<Node<'_>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .filter(|n| n.kind() != "comment")
        .last()
}

/// True when a `return` runs outside every function: the script is meant to be sourced.
pub(crate) fn has_top_level_return(root: Node<'_>, source: &[u8]) -> bool {
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.kind() == "function_definition" {
            continue;
        }
        if node.kind() == "command" && command_name_bytes(node, source) == Some(b"return") {
            return true;
        }
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::BashParser;

    fn exits(source: &str) -> Option<usize> {
        let mut parser = BashParser::new().expect("parser");
        let tree = parser.parse(source.as_bytes()).expect("parse");
        last_command_always_exits(tree.root_node(), source.as_bytes())
    }

    #[test]
    fn main_that_always_exits_is_found() {
        assert_eq!(
            exits("main() {\n  if x; then echo a; exit 1; fi\n  exit 0\n}\nmain \"$@\"\n"),
            Some(5)
        );
        assert_eq!(
            exits("f() { if a; then exit 0; else exit 1; fi; }\nf\n"),
            Some(2)
        );
        assert_eq!(exits("exec ./next.sh\n"), Some(1));
        assert_eq!(exits("g() { exit 0; }\nf() { g; }\nf\n"), Some(3));
    }

    #[test]
    fn a_path_that_returns_is_not_always_exiting() {
        assert_eq!(exits("main() {\n  if x; then exit 1; fi\n}\nmain\n"), None);
        assert_eq!(exits("exec >log\n"), None);
        assert_eq!(exits("f() { f; }\nf\n"), None);
        assert_eq!(exits("echo SUCCESS\n"), None);
    }

    #[test]
    fn top_level_return_marks_a_library() {
        let mut parser = BashParser::new().expect("parser");
        for (source, want) in [
            ("[ -n \"$X\" ] && return 0\nx=1\n", true),
            ("f() { return 1; }\nf\n", false),
        ] {
            let tree = parser.parse(source.as_bytes()).expect("parse");
            assert_eq!(
                has_top_level_return(tree.root_node(), source.as_bytes()),
                want,
                "{source}"
            );
        }
    }
}
