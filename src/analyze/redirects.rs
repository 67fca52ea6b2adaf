//! Where a command's descriptor 1 points once its redirections have run: a small table of
//! descriptors, updated left to right as the shell does (`2>&1 >&2` keeps stdout, `>&2 2>&1`
//! does not, `9>&1 >&9` and `>&1-` keep it). The one place the analysis reads redirections.

use std::collections::HashMap;

use tree_sitter::Node;

/// Where a descriptor points, as far as the command's own text tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Points {
    /// The script's stdout.
    Stdout,
    /// The script's stderr, which an enclosing `2>&1` may send to stdout.
    Stderr,
    /// A file, or nothing (closed).
    Elsewhere,
    /// A descriptor the script may have opened earlier (`exec 3>&1` … `>&3`), or one computed
    /// at run time (`>&$fd`): it may be stdout.
    Unknown,
}

/// What each descriptor points at.
#[derive(Clone)]
struct Table {
    points: HashMap<u32, Points>,
}

impl Table {
    fn new() -> Table {
        Table {
            points: HashMap::new(),
        }
    }

    /// Descriptor 1 starts on the script's stdout, 0 and 2 elsewhere; any other one was opened
    /// before the command, where this table does not look.
    fn get(&self, fd: u32) -> Points {
        self.points.get(&fd).copied().unwrap_or(match fd {
            1 => Points::Stdout,
            2 => Points::Stderr,
            0 => Points::Elsewhere,
            _ => Points::Unknown,
        })
    }

    fn set(&mut self, fd: u32, points: Points) {
        self.points.insert(fd, points);
    }

    /// Apply one `file_redirect` node.
    fn apply(&mut self, redirect: Node<'_>, source: &[u8]) {
        let (descriptor, operator, destination) = parts(redirect, source);
        let literal = destination.and_then(|d| super::words::target_value(d, source).as_literal());
        let input = operator.starts_with('<');
        let fd = descriptor.unwrap_or(if input { 0 } else { 1 });
        match operator {
            // `&>FILE` is `>FILE 2>&1`.
            "&>" | "&>>" => {
                let target = self.file(literal.as_deref());
                self.set(1, target);
                self.set(2, target);
            }
            ">" | ">>" | ">|" => {
                let target = self.file(literal.as_deref());
                self.set(fd, target);
            }
            ">&" | "<&" => self.duplicate(fd, descriptor.is_some(), input, literal.as_deref()),
            // `<FILE`, `>&-`, `<&-`, and whatever else: the descriptor no longer prints here.
            _ => self.set(fd, Points::Elsewhere),
        }
    }

    /// `N>&M` (N becomes a copy of M), `N>&M-` (M moved onto N: M is closed unless it is N
    /// itself), `N>&-` (closed), `>&FILE` (both 1 and 2 to FILE).
    fn duplicate(&mut self, fd: u32, numbered: bool, input: bool, target: Option<&str>) {
        let Some(target) = target else {
            // Computed at run time (`>&$fd`): it may name any descriptor.
            self.set(fd, Points::Unknown);
            return;
        };
        if target == "-" {
            self.set(fd, Points::Elsewhere);
            return;
        }
        let (digits, moved) = match target.strip_suffix('-') {
            Some(digits) => (digits, true),
            None => (target, false),
        };
        match digits.parse::<u32>() {
            Ok(from) if digits.bytes().all(|b| b.is_ascii_digit()) => {
                self.set(fd, self.get(from));
                if moved && from != fd {
                    self.set(from, Points::Elsewhere);
                }
            }
            // bash reads `>&WORD` without a descriptor as `&>WORD`; with one, it is an error.
            _ if !numbered && !input => {
                let to = self.file(Some(target));
                self.set(1, to);
                self.set(2, to);
            }
            _ => self.set(fd, Points::Elsewhere),
        }
    }

    /// Where opening the file `path` writes: where one of the table's descriptors points for
    /// `/dev/stdout`, `/dev/fd/N`, `/proc/self/fd/N` and `/proc/thread-self/fd/N` (however the
    /// path is spelled: `//dev/./stdout`), which name the descriptor as it is now. A path
    /// computed at run time (`> "$OUT"`, `> >(tee log)`, `/proc/$$/fd/1`) may be any of them.
    fn file(&self, path: Option<&str>) -> Points {
        let Some(path) = path else {
            return Points::Unknown;
        };
        let path = lexical(path);
        let fd = match path.as_str() {
            "/dev/stdout" => Some(1),
            "/dev/stderr" => Some(2),
            _ => ["/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/"]
                .iter()
                .find_map(|dir| path.strip_prefix(dir))
                .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|n| n.parse::<u32>().ok()),
        };
        fd.map_or(Points::Elsewhere, |fd| self.get(fd))
    }
}

/// Whether a redirection writes to a path that names a folder whatever the file system holds
/// (`/`, `.`, `..`, a path ending in `/`, `/.` or `/..`).
fn opens_a_folder(redirect: Node<'_>, source: &[u8]) -> bool {
    let (_, operator, destination) = parts(redirect, source);
    if !operator.starts_with('>') && !operator.starts_with("&>") {
        return false;
    }
    destination
        .and_then(|d| super::words::target_value(d, source).as_literal())
        .is_some_and(|path| {
            matches!(path.as_str(), "." | "..")
                || path.ends_with('/')
                || path.ends_with("/.")
                || path.ends_with("/..")
        })
}

/// An absolute path with `//`, `/./` and `/NAME/../` taken out, as the kernel reads it (`/dev`
/// holds no symlinked folder); a relative path as it is.
fn lexical(path: &str) -> String {
    if !path.starts_with('/') {
        return path.to_string();
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            _ => parts.push(part),
        }
    }
    format!("/{}", parts.join("/"))
}

fn is_blank(b: u8) -> bool {
    b.is_ascii_whitespace()
}

/// A `file_redirect`'s descriptor, operator and first destination (later ones are words of the
/// command, `swallowed_arguments`).
fn parts<'t>(redirect: Node<'t>, source: &[u8]) -> (Option<u32>, &'t str, Option<Node<'t>>) {
    let mut descriptor: Option<&[u8]> = None;
    let mut operator = "";
    let mut destination = None;
    let mut cursor = redirect.walk();
    for child in redirect.children(&mut cursor) {
        if child.kind() == "file_descriptor" {
            descriptor = Some(&source[child.byte_range()]);
        } else if !child.is_named() && operator.is_empty() {
            operator = child.kind();
        } else if child.is_named() && destination.is_none() {
            destination = Some(child);
        }
    }
    // `echo x 0</dev/null`: tree-sitter-bash can read the descriptor as the command's last
    // argument, written against the operator; bash reads it as the descriptor.
    if descriptor.is_none() {
        // Written against the operator, or across line continuations (`3\⏎>&2`).
        let mut start = redirect.start_byte();
        while start >= 2 && &source[start - 2..start] == b"\\\n" {
            start -= 2;
        }
        let digits = source[..start]
            .iter()
            .rev()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let after_blank = start > digits && source[start - digits - 1].is_ascii_whitespace();
        if digits > 0 && after_blank {
            descriptor = Some(&source[start - digits..start]);
        }
        // `{fd}>&1`: bash opens a new descriptor (10 or above) and stores its number in `fd`;
        // descriptor 1 is left alone.
        let open = source[..start].iter().rposition(|&b| b == b'{');
        // `{fd}` stands as a word of its own (`${x}>/dev/null` is an expansion and `>` fd 1).
        let word_start = |open: usize| open == 0 || is_blank(source[open - 1]);
        if open.is_some_and(|open| {
            word_start(open) && super::context::is_descriptor_variable(&source[open..start])
        }) {
            descriptor = Some(b"{}");
        }
    }
    // A descriptor too large to be one is no stdout either.
    let descriptor = descriptor.map(|d| {
        std::str::from_utf8(d)
            .ok()
            .and_then(|d| d.parse::<u32>().ok())
            .unwrap_or(u32::MAX)
    });
    (descriptor, operator, destination)
}

/// The redirections that apply to `node`, in the order the shell runs them. tree-sitter-bash
/// splits a simple command's list: the ones before or among its words belong to the `command`,
/// the ones after it to the `redirected_statement` around it, and a heredoc's own (`cat <<EOF
/// >&2`) to the `heredoc_redirect`. Either node of the pair gets the whole list.
fn redirect_list<'t>(node: Node<'t>, parent: Option<Node<'t>>) -> Vec<Node<'t>> {
    fn own<'t>(node: Node<'t>, list: &mut Vec<Node<'t>>) {
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            match child.kind() {
                "file_redirect" => list.push(child),
                "heredoc_redirect" => own(child, list),
                _ => {}
            }
        }
    }
    let mut list = Vec::new();
    let body = |n: Node<'_>| n.child_by_field_name("body").map(|b| b.id());
    // A function definition's redirections written after its body go the same way: its
    // `function_definition` holds the first, the `redirected_statement` around it the rest
    // (`f() { …; } 2>&1 >&2`).
    let split = |kind: &str| matches!(kind, "command" | "function_definition");
    match node.kind() {
        kind if split(kind) => {
            own(node, &mut list);
            if let Some(parent) =
                parent.filter(|p| p.kind() == "redirected_statement" && body(*p) == Some(node.id()))
            {
                own(parent, &mut list);
            }
        }
        "redirected_statement" => {
            if let Some(command) = node.child_by_field_name("body").filter(|b| split(b.kind())) {
                own(command, &mut list);
            }
            own(node, &mut list);
        }
        _ => own(node, &mut list),
    }
    list.sort_by_key(|r| r.start_byte());
    list
}

/// Where descriptor 1 points after the node's redirections.
pub(crate) fn stdout_after(node: Node<'_>, source: &[u8]) -> Points {
    stdout_after_under(node, command_parent(node), source)
}

/// The parent a command's (or a function definition's) redirections may hang on (its
/// `redirected_statement`).
fn command_parent(node: Node<'_>) -> Option<Node<'_>> {
    matches!(node.kind(), "command" | "function_definition")
        .then(|| node.parent())
        .flatten()
}

/// `stdout_after` of a node whose parent the caller knows (a walk's frame: tree-sitter finds a
/// node's parent by descending from the root again).
pub(crate) fn stdout_after_under<'t>(
    node: Node<'t>,
    parent: Option<Node<'t>>,
    source: &[u8],
) -> Points {
    descriptor_after(node, parent, source, 1)
}

/// Where descriptor `fd` points after the node's redirections.
fn descriptor_after<'t>(
    node: Node<'t>,
    parent: Option<Node<'t>>,
    source: &[u8],
    fd: u32,
) -> Points {
    let mut table = Table::new();
    for redirect in redirect_list(node, parent) {
        table.apply(redirect, source);
    }
    table.get(fd)
}

/// The descriptors of the main shell as its top-level `exec`s leave them, one after the other:
/// `exec 3>&1 >/dev/null` then `exec 2>&3; exec >&2` gives stdout back.
#[derive(Clone)]
pub(crate) struct ShellDescriptors(Table);

impl ShellDescriptors {
    pub(crate) fn new() -> ShellDescriptors {
        ShellDescriptors(Table::new())
    }

    /// Run a bare `exec`'s redirections (a `redirected_statement`) on the table.
    pub(crate) fn exec(&mut self, statement: Node<'_>, source: &[u8]) {
        for redirect in redirect_list(statement, None) {
            // A file that cannot be opened for writing (a folder: `exec >/`) fails the
            // redirection, and bash goes on with the descriptors as they were.
            if opens_a_folder(redirect, source) {
                return;
            }
            self.0.apply(redirect, source);
        }
    }

    /// Where descriptor 1 points now.
    pub(crate) fn stdout(&self) -> Points {
        self.0.get(1)
    }
}

/// Whether the node's redirections send its stderr to the script's stdout (`2>&1`,
/// `2>/dev/stdout`, `exec 2>&1`).
pub(crate) fn stderr_to_stdout(node: Node<'_>, source: &[u8]) -> bool {
    descriptor_after(node, command_parent(node), source, 2) == Points::Stdout
}

/// Whether the node's redirections send its stderr anywhere but the script's stderr
/// (`2>/dev/null`, `&>/dev/null`, `2>&1`).
pub(crate) fn stderr_moved(node: Node<'_>, source: &[u8]) -> bool {
    descriptor_after(node, command_parent(node), source, 2) != Points::Stderr
}

/// Whether the last of the node's redirections that moves descriptor 1 makes it a copy of
/// another descriptor (`exec >&3`, `1>&$saved`), not a file (`exec >"$LOG"`).
pub(crate) fn stdout_duplicated(node: Node<'_>, source: &[u8]) -> bool {
    let mut duplicated = false;
    for redirect in redirect_list(node, command_parent(node)) {
        let (descriptor, operator, destination) = parts(redirect, source);
        let literal = destination.and_then(|d| super::words::target_value(d, source).as_literal());
        let moves_stdout = match operator {
            "&>" | "&>>" => true,
            _ => descriptor.unwrap_or(if operator.starts_with('<') { 0 } else { 1 }) == 1,
        };
        if moves_stdout {
            let from_descriptor = literal.as_deref().is_none_or(|t| {
                let digits = t.strip_suffix('-').unwrap_or(t);
                !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
            });
            duplicated = matches!(operator, ">&" | "<&") && from_descriptor;
        }
    }
    duplicated
}

/// True when, after the node's redirections, descriptor 1 may no longer point at the script's
/// stdout.
pub(crate) fn redirects_stdout(node: Node<'_>, source: &[u8]) -> bool {
    stdout_after(node, source) != Points::Stdout
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the first statement of `script` keeps descriptor 1 on stdout.
    fn keeps_stdout(script: &str) -> bool {
        let mut parser = crate::analyze::BashParser::new().expect("parser");
        let tree = parser.parse(script.as_bytes()).expect("parse");
        let statement = tree.root_node().named_child(0).expect("a statement");
        let command = match statement.child_by_field_name("body") {
            Some(body) if body.kind() == "command" => body,
            _ => statement,
        };
        let by_statement = !redirects_stdout(statement, script.as_bytes());
        let by_command = !redirects_stdout(command, script.as_bytes());
        assert_eq!(by_statement, by_command, "{script}: both nodes agree");
        by_statement
    }

    #[test]
    fn redirections_are_read_left_to_right_as_the_shell_runs_them() {
        for kept in [
            "echo x",
            "echo x >&1",
            "echo x 1>&1",
            "echo x >&1-",
            "echo x 9>&1 >&9",
            "echo x 2>&1 >&2",
            "echo x 2>/dev/null",
            "echo x >/dev/stdout",
            "echo x >>/proc/self/fd/1",
            "echo x 2>&1 >/dev/stderr",
            "echo x 3>&1 >/dev/fd/3",
            "echo x 0</dev/null",
            "2>&1 echo x >&2",
            "echo x {fd}>&1",
            "echo x 9>&1- >&9-",
            "echo x 3>&1 1>&2 >&3-",
            "echo x 2>&1- >&2",
            "echo x >/dev/./stdout",
            "echo x >//dev/stdout",
            "echo x >/dev/../dev/stdout",
            "echo x >/proc/thread-self/fd/1",
        ] {
            assert!(keeps_stdout(kept), "{kept} prints on stdout");
        }
        for moved in [
            // An expansion written against `>` is a word; the redirection is descriptor 1's.
            "echo x ${x}>/dev/null",
            "echo x >&2",
            "echo x 1>&2",
            "echo x >&2 2>&1",
            "echo x >log",
            "echo x &>log",
            "echo x >&log",
            "echo x >&-",
            "echo x 1>&-",
            "echo x >&$fd",
            "echo x 1</dev/null",
            ">&2 echo x",
            "echo x >/dev/stderr",
        ] {
            assert!(!keeps_stdout(moved), "{moved} does not print on stdout");
        }
    }

    #[test]
    fn a_descriptor_opened_before_the_command_may_be_stdout() {
        let mut parser = crate::analyze::BashParser::new().expect("parser");
        for (script, points) in [
            ("echo x >&3", Points::Unknown),
            ("echo x >&$fd", Points::Unknown),
            ("echo x >/dev/fd/4", Points::Unknown),
            ("echo x 3>/dev/null >&3", Points::Elsewhere),
            ("echo x 3>&1 >&3", Points::Stdout),
            ("echo x > \"$OUT\"", Points::Unknown),
            ("echo x > >(tee run.log)", Points::Unknown),
            ("echo x >/proc/$$/fd/1", Points::Unknown),
            ("echo x >/dev/./null", Points::Elsewhere),
        ] {
            let tree = parser.parse(script.as_bytes()).expect("parse");
            let statement = tree.root_node().named_child(0).expect("a statement");
            assert_eq!(
                stdout_after(statement, script.as_bytes()),
                points,
                "{script}"
            );
        }
    }
}
