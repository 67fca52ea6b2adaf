//! Control-flow facts about a whole-file tree that decide where generated code may go: whether
//! the script's last command always exits (a block after it never runs), whether the script
//! returns at top level (it is meant to be sourced), and whether a statement sits on a failure
//! path (what it prints is no success).

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use tree_sitter::Node;

use super::context::command_name_bytes;
use super::parser::Kin;
use super::words::{Printed, Segment, parameter_name, word_value};

/// What the failure-path and line walks of one tree read: its family links (`Kin`), and the
/// failure-path answers found so far, by the node a walk went on after. n legacy lines in one
/// list cost n steps, not n².
#[derive(Debug)]
pub(crate) struct Flow<'t> {
    kin: Kin<'t>,
    after: RefCell<HashMap<usize, bool>>,
    functions: Functions<'t>,
}

impl<'t> Flow<'t> {
    pub(crate) fn of(root: Node<'t>, source: &[u8]) -> Flow<'t> {
        Flow {
            kin: Kin::of(root),
            after: RefCell::new(HashMap::new()),
            functions: top_functions(root, source),
        }
    }
}

/// The bodies of the script's top-level functions, by name (the last definition wins, as in
/// bash).
pub(crate) type Functions<'t> = HashMap<Vec<u8>, Node<'t>>;

pub(crate) fn top_functions<'t>(root: Node<'t>, source: &[u8]) -> Functions<'t> {
    let mut cursor = root.walk();
    root.named_children(&mut cursor)
        .filter(|n| n.kind() == "function_definition")
        .filter_map(|n| {
            let name = n.child_by_field_name("name")?;
            Some((
                source[name.byte_range()].to_vec(),
                n.child_by_field_name("body")?,
            ))
        })
        .collect()
}

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

/// True when every path from `statement` reaches `exit N` or `return N` with a literal non-zero
/// N: the statements after it, in its list and in the lists around it, up to such a command are
/// plain commands (no loop, no branch, no function end, no subshell in between; anything else
/// and the answer is "not known to fail", false).
pub(crate) fn on_failure_path<'t>(flow: &Flow<'t>, statement: Node<'t>, source: &[u8]) -> bool {
    let kin = &flow.kin;
    // In a subshell (`( … )`, `$( … )`, a pipeline's group), an `exit` ends only that subshell.
    let parent = kin.parent(statement);
    let nested = std::iter::successors(parent, |n| kin.parent(*n)).any(|n| {
        matches!(
            n.kind(),
            "subshell" | "command_substitution" | "process_substitution"
        ) || (n.kind() == "pipeline" && parent != Some(n))
    });
    if nested {
        return false;
    }
    // Every statement the walk goes on after shares its answer: kept, so a later walk that
    // reaches one stops there.
    let mut passed = vec![statement];
    let answer = 'answer: {
        let mut node = statement;
        for _ in 0..MAX_DEPTH {
            let mut next = kin.next_named(node);
            while let Some(sibling) = next {
                if let Some(&known) = flow.after.borrow().get(&sibling.id()) {
                    break 'answer known;
                }
                match sibling.kind() {
                    "comment" => {}
                    // The end of an `if` branch: on after the `if`.
                    "elif_clause" | "else_clause" => break,
                    "command" => {
                        if let Some(b"exit" | b"return") = command_name_bytes(sibling, source) {
                            break 'answer fails(sibling, source);
                        }
                    }
                    "redirected_statement"
                    | "variable_assignment"
                    | "declaration_command"
                    | "test_command"
                    | "pipeline" => {}
                    _ => break 'answer false,
                }
                passed.push(sibling);
                next = kin.next_named(sibling);
            }
            let Some(parent) = kin.parent(node) else {
                break 'answer false;
            };
            // Past the end of a list: go on after the construct holding it, when that one runs
            // no further (a group, a branch of an `if` or a `case`, an `&&`/`||` chain).
            node = match parent.kind() {
                "compound_statement" | "list" | "redirected_statement" | "pipeline" => parent,
                "else_clause" | "elif_clause" => match kin.parent(parent) {
                    Some(if_statement) if if_statement.kind() == "if_statement" => if_statement,
                    _ => break 'answer false,
                },
                "if_statement" | "case_statement" => parent,
                "case_item" => match kin.parent(parent) {
                    Some(case) if case.kind() == "case_statement" => case,
                    _ => break 'answer false,
                },
                _ => break 'answer false,
            };
            if let Some(&known) = flow.after.borrow().get(&node.id()) {
                break 'answer known;
            }
            passed.push(node);
        }
        false
    };
    let mut after = flow.after.borrow_mut();
    for node in passed {
        after.insert(node.id(), answer);
    }
    answer
}

/// `exit N` or `return N` with a literal N other than 0.
fn fails(command: Node<'_>, source: &[u8]) -> bool {
    command
        .child_by_field_name("argument")
        .is_some_and(|argument| {
            let text = &source[argument.byte_range()];
            !text.is_empty()
                && text.iter().all(u8::is_ascii_digit)
                && text.iter().any(|&b| b != b'0')
        })
}

/// True when a `return` runs outside every function: the script is meant to be sourced. Some do
/// not say so, as the script runs on its own too. A `return` that tests whether the script is
/// sourced: one in a subshell (`(return 0 2>/dev/null)`) or with its errors hidden (`return 0
/// 2>/dev/null || true`, `{ return; } 2>/dev/null`). One in a statement that reads `$0`
/// (`[[ ${BASH_SOURCE[0]} != "$0" ]] && return`, `case ${0##*/} in …) return`). And a conditional
/// one in a script that makes such a test (`[ "$sourced" = 1 ] && return`).
pub(crate) fn has_top_level_return(root: Node<'_>, source: &[u8]) -> bool {
    // Each top-level `return`, and whether it only tests whether the script is sourced.
    let mut returns: Vec<(Node<'_>, bool)> = Vec::new();
    let mut stack = vec![(root, false)];
    while let Some((node, testing)) = stack.pop() {
        if node.kind() == "function_definition" {
            continue;
        }
        let testing = testing
            || matches!(
                node.kind(),
                "subshell" | "command_substitution" | "process_substitution"
            )
            || (node.kind() == "redirected_statement"
                && super::redirects::stderr_moved(node, source));
        if node.kind() == "command" && command_name_bytes(node, source) == Some(b"return") {
            returns.push((node, testing));
        }
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor).map(|n| (n, testing)));
    }
    let tests_if_sourced = returns.iter().any(|&(_, testing)| testing);
    returns.iter().any(|&(node, testing)| {
        let statement = std::iter::successors(Some(node), |n| n.parent())
            .find(|n| n.parent().is_some_and(|p| p.id() == root.id()))
            .unwrap_or(node);
        let text = &source[statement.byte_range()];
        let reads_name = memchr::memmem::find(text, b"$0").is_some()
            || memchr::memmem::find(text, b"${0").is_some();
        let conditional = statement.id() != node.id();
        !(testing || reads_name || (conditional && tests_if_sourced))
    })
}

/// True when running the file reaches a result line: a statement outside every function holds
/// one (at `legacy`, the legacy statements' offsets), or calls a function that reaches one —
/// defined in the file (through its calls), or in a library it sources that holds legacy lines
/// (`imported`, the names those define). A command whose name is computed (`"cmd_$1"`,
/// `${1:-main}`) or that runs another (`eval main`, `time main`) may call any of them. A helper
/// library that only checks its dependencies or makes a folder at top level is no entry point;
/// one that runs `main "$@"` (guarded or not) is (hostile reviews hx26 item 1, hx27).
pub(crate) fn reaches_a_result_when_run(
    root: Node<'_>,
    source: &[u8],
    legacy: &[usize],
    imported: &HashSet<Vec<u8>>,
) -> bool {
    let holds = |n: Node<'_>| legacy.iter().any(|&at| n.byte_range().contains(&at));
    let functions = top_functions(root, source);
    // The functions that reach a result line, grown through their calls until nothing changes.
    let mut printing: HashSet<&[u8]> = functions
        .iter()
        .filter(|(_, body)| holds(**body))
        .map(|(name, _)| name.as_slice())
        .collect();
    let calls: Vec<(&[u8], Vec<Call<'_>>)> = functions
        .iter()
        .map(|(name, body)| (name.as_slice(), called(*body, source)))
        .collect();
    let prints = |call: &Call<'_>, printing: &HashSet<&[u8]>| match *call {
        Call::Name(name) => {
            printing.contains(name) || (!functions.contains_key(name) && imported.contains(name))
        }
        Call::Computed(ref word) => {
            let mut candidates = printing
                .iter()
                .copied()
                .chain(imported.iter().map(Vec::as_slice));
            if is_parameter(word) {
                // `$cmd`: any of them.
                return candidates.next().is_some();
            }
            // `"cmd_$1"`, `${1:-main}`: one its text names or starts.
            let prefix = word.literal_prefix().as_bytes();
            let text = word.render();
            candidates.any(|f| {
                (!prefix.is_empty() && f.starts_with(prefix))
                    || memchr::memmem::find(text.as_bytes(), f).is_some()
            })
        }
    };
    loop {
        let grown: Vec<&[u8]> = calls
            .iter()
            .filter(|(name, called)| {
                !printing.contains(name) && called.iter().any(|c| prints(c, &printing))
            })
            .map(|(name, _)| *name)
            .collect();
        if grown.is_empty() {
            break;
        }
        printing.extend(grown);
    }
    let mut cursor = root.walk();
    let statements: Vec<Node<'_>> = root.named_children(&mut cursor).collect();
    statements
        .into_iter()
        .filter(|n| n.kind() != "function_definition")
        .any(|statement| {
            holds(statement)
                || called(statement, source)
                    .iter()
                    .any(|name| prints(name, &printing))
        })
}

/// True when a top-level statement is a plain `return` (`return 0` as a library's last line), as
/// opposed to one under a condition (an include guard, `[ -n "$LOADED" ] && return 0`).
pub(crate) fn returns_unconditionally(root: Node<'_>, source: &[u8]) -> bool {
    let mut cursor = root.walk();
    root.named_children(&mut cursor).any(|n| {
        let command = match n.kind() {
            "redirected_statement" => n.named_child(0),
            _ => Some(n),
        };
        command.is_some_and(|c| {
            c.kind() == "command" && command_name_bytes(c, source) == Some(b"return")
        })
    })
}

/// A command a node runs: by name, or by a word computed at run time (its value).
enum Call<'s> {
    Name(&'s [u8]),
    Computed(Printed),
}

/// Whether a computed word is one parameter alone (`$cmd`, `"${cmd}"`), which may name anything.
fn is_parameter(word: &Printed) -> bool {
    matches!(word.segments.as_slice(), [Segment::Dynamic(text)] if parameter_name(text).is_some())
}

/// Commands that run the command their words name.
const RUNNERS: [&[u8]; 10] = [
    b"eval", b"time", b"command", b"builtin", b"exec", b"env", b"nohup", b"timeout", b"nice",
    b"xargs",
];

/// The commands a node runs, outside the functions it defines.
fn called<'s>(node: Node<'_>, source: &'s [u8]) -> Vec<Call<'s>> {
    let mut names = Vec::new();
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if n.kind() == "function_definition" && n.id() != node.id() {
            continue;
        }
        if n.kind() == "command" {
            let mut cursor = n.walk();
            let words: Vec<Call<'s>> = n
                .children_by_field_name("argument", &mut cursor)
                .map(|word| match word.kind() {
                    "word" => Call::Name(&source[word.byte_range()]),
                    _ => Call::Computed(word_value(word, source)),
                })
                .collect();
            match command_name_bytes(n, source) {
                // `command -v NAME` looks a name up and runs nothing.
                Some(b"command") if matches!(words.first(), Some(Call::Name(w)) if w.starts_with(b"-v") || w.starts_with(b"-V")) =>
                    {}
                // The command a runner runs is among its words (`eval main`, `timeout 5 main`).
                Some(name) if RUNNERS.contains(&name) => names.extend(words),
                Some(name) => names.push(Call::Name(name)),
                None => {
                    let name = n
                        .child_by_field_name("name")
                        .and_then(|name| name.named_child(0))
                        .map(|word| word_value(word, source))
                        .unwrap_or_default();
                    match words.into_iter().next() {
                        // `$SUDO cmd`: a prefix command whose word runs `cmd`.
                        Some(word @ Call::Name(_)) if is_parameter(&name) => names.push(word),
                        _ => names.push(Call::Computed(name)),
                    }
                }
            }
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
    names
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

    /// Whether the legacy line (the echo holding `MARK`) is on a failure path.
    fn failing(source: &str) -> bool {
        let mut parser = BashParser::new().expect("parser");
        let tree = parser.parse(source.as_bytes()).expect("parse");
        let at = source.find("MARK").expect("MARK");
        let echo = std::iter::successors(
            tree.root_node().descendant_for_byte_range(at, at + 1),
            |n| n.parent(),
        )
        .find(|n| n.kind() == "command")
        .expect("command");
        on_failure_path(
            &Flow::of(tree.root_node(), source.as_bytes()),
            echo,
            source.as_bytes(),
        )
    }

    #[test]
    fn a_line_followed_only_by_a_failing_exit_is_on_a_failure_path() {
        for source in [
            "echo MARK
exit 1
",
            "if [ -z \"$x\" ]; then
  echo MARK
  rm -f tmp >&2
  exit 2
fi
echo SUCCESS
",
            "f() {
  echo MARK; return 1
}
",
            "[ -f x ] || { echo MARK; exit 1; }
",
            "if a; then b; else
  echo MARK
fi
exit 3
",
            "case $m in
  a) echo MARK ;;
esac
exit 1
",
        ] {
            assert!(failing(source), "{source}");
        }
        for source in [
            "echo MARK
exit 0
",
            "echo MARK
exit
",
            "echo MARK
exit \"$rc\"
",
            "echo MARK
",
            "for f in a; do echo MARK; done
exit 1
",
            "f() { echo MARK; }
exit 1
",
            "( echo MARK; exit 1 )
",
            "echo MARK
if x; then exit 1; fi
",
        ] {
            assert!(!failing(source), "{source}");
        }
    }

    #[test]
    fn a_plain_top_level_return_is_no_include_guard() {
        let mut parser = BashParser::new().expect("parser");
        for (source, want) in [
            ("echo SUCCESS\nreturn 0\n", true),
            ("x=1\nreturn 2>/dev/null\n", true),
            ("[ -n \"${L-}\" ] && return 0\nL=1\nmain\n", false),
            ("f() { return 1; }\nf\n", false),
        ] {
            let tree = parser.parse(source.as_bytes()).expect("parse");
            assert_eq!(
                returns_unconditionally(tree.root_node(), source.as_bytes()),
                want,
                "{source}"
            );
        }
    }

    #[test]
    fn a_file_is_an_entry_point_when_running_it_reaches_a_result_line() {
        let mut parser = BashParser::new().expect("parser");
        for (source, imported, want) in [
            // Definitions and setup, or a dependency check: a library.
            (
                "set -eu\nX=1\nf() { echo SUCCESS; }\ntrap 'f' EXIT\n",
                false,
                false,
            ),
            (
                "command -v awk >/dev/null || { echo need awk >&2; exit 1; }\nmkdir -p x\nok() { echo SUCCESS; }\n",
                false,
                false,
            ),
            ("main() { echo SUCCESS; }\nmain \"$@\"\n", false, true),
            (
                "say() { echo SUCCESS; }\nmain() { say; }\nif [[ \"${BASH_SOURCE[0]}\" == \"$0\" ]]; then main; fi\n",
                false,
                true,
            ),
            (
                "main() { :; }\n[[ \"${BASH_SOURCE[0]}\" == \"$0\" ]] && main\n",
                false,
                false,
            ),
            ("echo SUCCESS\n", false, true),
            // A function a sourced library with legacy lines defines; sourcing it is no call.
            (". ./lib.sh\nbuild\n", true, true),
            (". ./lib.sh\nmkdir -p x\n", true, false),
            // A name computed or run through another command (hx27).
            (
                "main() { echo SUCCESS; }\n\"${1:-main}\" \"$@\"\n",
                false,
                true,
            ),
            ("cmd_go() { echo SUCCESS; }\n\"cmd_$1\"\n", false, true),
            ("main() { echo SUCCESS; }\neval main\n", false, true),
            ("main() { echo SUCCESS; }\ntimeout 5 main\n", false, true),
            ("main() { echo SUCCESS; }\neval \"$cmd\"\n", false, true),
            ("set -eu\n\"$X\"\n", false, false),
            ("main() { echo SUCCESS; }\n$c\n", false, true),
            // Everyday library lines that run none of the file's printers (hx28).
            (
                "ok() { echo SUCCESS; }\n${DEBUG:+set -x}\n$SUDO true\n",
                false,
                false,
            ),
            (
                "ok() { echo SUCCESS; }\ncommand -v ok >/dev/null\n",
                false,
                false,
            ),
            (
                "ok() { echo SUCCESS; }\neval \"$(ssh-agent -s)\"\n",
                false,
                false,
            ),
        ] {
            let tree = parser.parse(source.as_bytes()).expect("parse");
            let legacy: Vec<usize> = source
                .match_indices("echo SUCCESS")
                .map(|(at, _)| at)
                .collect();
            let imported = if imported {
                HashSet::from([b"build".to_vec()])
            } else {
                HashSet::new()
            };
            assert_eq!(
                reaches_a_result_when_run(tree.root_node(), source.as_bytes(), &legacy, &imported),
                want,
                "{source}"
            );
        }
    }

    #[test]
    fn top_level_return_marks_a_library() {
        let mut parser = BashParser::new().expect("parser");
        for (source, want) in [
            ("[ -n \"$X\" ] && return 0\nx=1\n", true),
            ("f() { return 1; }\nf\n", false),
            // Scripts that ask whether they are sourced run on their own as well.
            (
                "(return 0 2>/dev/null) && echo sourced >&2\necho SUCCESS\n",
                false,
            ),
            (
                "(return 0 2>/dev/null) && s=1 || s=0\n[ $s = 1 ] && return\necho SUCCESS\n",
                false,
            ),
            (
                "[[ \"${BASH_SOURCE[0]}\" != \"$0\" ]] && return 0\nmain\n",
                false,
            ),
            ("return 0 2>/dev/null || true\nmain\n", false),
            ("return 2>/dev/null; :\nmain\n", false),
            ("{ return 0; } 2>/dev/null || :\nmain\n", false),
            ("case ${0##*/} in bash|sh) return ;; esac\nmain\n", false),
            ("x=1\nreturn 0\n", true),
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

/// True when the echo or printf `command` prints into a line an earlier statement began without
/// ending it (`echo -n "Testing… "`, then `echo "✓ Success"`): what reaches stdout is one line,
/// "Testing… ✓ Success", which is no result line to `validate` either. The earlier statement is the
/// one that runs just before it on every path: found by walking back over statements that print
/// nothing (assignments, `local`, tests, `grep -q`, commands whose stdout is redirected) and out
/// of an `if` whose conditions print nothing or a `{ … }` group. It leaves the line open when it
/// is an `echo -n` or a `printf` without a newline, a loop whose printing statements all do (a
/// row of dots), or a call of a function of the script whose last printing statement does.
/// Anything else in between (a `case`, a function's start, a command that may print) and the
/// answer is no.
pub(crate) fn continues_line<'t>(flow: &Flow<'t>, command: Node<'t>, source: &[u8]) -> bool {
    let kin = &flow.kin;
    let mut node = match kin.parent(command) {
        Some(p) if p.kind() == "redirected_statement" => p,
        _ => command,
    };
    for _ in 0..MAX_DEPTH {
        let mut previous = kin.prev_named(node);
        while let Some(before) = previous {
            if before.kind() == "comment" || prints_nothing(before, source) {
                previous = kin.prev_named(before);
                continue;
            }
            return line_left_open(before, source, 0, &flow.functions);
        }
        let Some(parent) = kin.parent(node) else {
            return false;
        };
        node = match parent.kind() {
            "compound_statement" => parent,
            "if_statement" | "elif_clause" | "else_clause" => {
                let statement = std::iter::successors(Some(parent), |n| kin.parent(*n))
                    .find(|n| n.kind() == "if_statement")
                    .unwrap_or(parent);
                let mut cursor = statement.walk();
                let conditions_silent = statement
                    .children_by_field_name("condition", &mut cursor)
                    .filter(|c| c.is_named())
                    .all(|c| prints_nothing(c, source));
                if !conditions_silent {
                    return false;
                }
                statement
            }
            _ => return false,
        };
    }
    false
}

/// A statement that writes nothing to stdout whatever it does: an assignment, a declaration
/// (`local x=$(…)`), a test (`[ … ]`, `[[ … ]]`), or a command whose stdout is redirected.
fn prints_nothing(node: Node<'_>, source: &[u8]) -> bool {
    match node.kind() {
        "variable_assignment" | "variable_assignments" | "declaration_command" | "test_command" => {
            true
        }
        "redirected_statement" => super::redirects::redirects_stdout(node, source),
        "command" => match command_name_bytes(node, source) {
            Some(b"[" | b"test" | b":" | b"true") => true,
            Some(b"grep" | b"egrep" | b"fgrep") => is_quiet_grep(node, source),
            Some(_) => false,
            None => node.child_by_field_name("name").is_none(),
        },
        "negated_command" => node
            .named_child(0)
            .is_some_and(|c| prints_nothing(c, source)),
        _ => false,
    }
}

/// `grep -q` (`--quiet`, `--silent`, or `q` among bundled flags): it prints nothing.
fn is_quiet_grep(command: Node<'_>, source: &[u8]) -> bool {
    let mut cursor = command.walk();
    command
        .children_by_field_name("argument", &mut cursor)
        .filter_map(|a| super::words::word_value(a, source).as_literal())
        .take_while(|word| word.starts_with('-') && word != "--")
        .any(|flag| {
            flag == "--quiet"
                || flag == "--silent"
                || (!flag.starts_with("--")
                    && flag[1..].chars().all(|c| c.is_ascii_alphabetic())
                    && flag.contains('q'))
        })
}

/// An `echo -n …` (a flag word holding `n`) or a `printf` whose literal format does not end
/// with a newline, printing on stdout: it leaves its line open. So does a loop whose printing
/// statements all leave it open, and a call of a function of the script whose last printing
/// statement does (`depth` bounds the functions followed).
fn line_left_open<'t>(
    statement: Node<'t>,
    source: &[u8],
    depth: usize,
    functions: &Functions<'t>,
) -> bool {
    if depth > 4 {
        return false;
    }
    if matches!(
        statement.kind(),
        "for_statement" | "c_style_for_statement" | "while_statement"
    ) {
        return statement
            .child_by_field_name("body")
            .is_some_and(|body| only_open_fragments(body, source, depth, functions));
    }
    if statement.kind() != "command" {
        return false;
    }
    let Some(invocation) = super::context::invocation(statement, source) else {
        return false;
    };
    if let Some(body) = functions.get(invocation.name.as_bytes()) {
        return last_print_leaves_line_open(*body, source, depth + 1, functions);
    }
    let arguments = invocation.arguments(statement, source);
    let literal = |n: &Node<'_>| super::words::word_value(*n, source).as_literal();
    match invocation.name.as_str() {
        "echo" => arguments
            .iter()
            .map_while(|a| literal(a).filter(|t| t.len() > 1 && t.starts_with('-')))
            .take_while(|t| t[1..].chars().all(|c| matches!(c, 'n' | 'e' | 'E')))
            .any(|t| t.contains('n')),
        "printf" => arguments.first().and_then(literal).is_some_and(|format| {
            !format.is_empty() && !format.starts_with('-') && !format.ends_with("\\n")
        }),
        _ => false,
    }
}

/// Whether the echo or printf `command` leaves its line open (`echo -n`, a `printf` whose
/// literal format does not end with a newline).
pub(crate) fn leaves_line_open<'t>(flow: &Flow<'t>, command: Node<'t>, source: &[u8]) -> bool {
    line_left_open(command, source, 0, &flow.functions)
}

/// Whether a loop's body prints something, and only fragments that leave the line open.
fn only_open_fragments<'t>(
    body: Node<'t>,
    source: &[u8],
    depth: usize,
    functions: &Functions<'t>,
) -> bool {
    let mut cursor = body.walk();
    let printing: Vec<Node<'_>> = body
        .named_children(&mut cursor)
        .filter(|n| n.kind() != "comment" && !prints_nothing(*n, source))
        .collect();
    !printing.is_empty()
        && printing
            .iter()
            .all(|n| line_left_open(*n, source, depth, functions))
}

/// Whether the last statement of a function's body that prints leaves the line open.
fn last_print_leaves_line_open<'t>(
    body: Node<'t>,
    source: &[u8],
    depth: usize,
    functions: &Functions<'t>,
) -> bool {
    let mut cursor = body.walk();
    let last = body
        .named_children(&mut cursor)
        .filter(|n| n.kind() != "comment" && !prints_nothing(*n, source))
        .last();
    last.is_some_and(|n| line_left_open(n, source, depth, functions))
}

#[cfg(test)]
mod continuation_tests {
    use crate::analyze::{BashParser, Vocabulary, analyze};

    fn legacy_lines(script: &str) -> Vec<usize> {
        let mut parser = BashParser::new().expect("parser");
        let analysis = analyze(&mut parser, script.as_bytes(), Vocabulary::Decorated).expect("a");
        analysis.legacy.iter().map(|l| l.line).collect()
    }

    #[test]
    fn a_result_after_an_echo_n_fragment_is_no_line_of_its_own() {
        let script = "#!/bin/bash\necho -n \"Testing PUT... \"\nif wrangler put k v &> /dev/null; then\n  echo -e \"${GREEN}✓ Success${NC}\"\nelse\n  echo FAILED\nfi\nx=$(date)\necho SUCCESS\n";
        assert_eq!(legacy_lines(script), vec![9]);
    }
}
