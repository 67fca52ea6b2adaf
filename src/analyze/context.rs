//! Where a command's output goes: the script's own stdout, or somewhere that makes it data
//! (a pipe, a file, stderr, a command substitution, a function whose output is captured).

use std::collections::{HashMap, HashSet};

use tree_sitter::Node;

use super::parser::node_text;

/// Why a command's stdout does not reach the script's stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotStdout {
    Captured,
    Piped,
    Redirected,
    CapturedFunction,
    InsideHeredoc,
    ParseError,
}

/// Functions defined in the script, and those whose output the script captures.
#[derive(Debug, Default)]
pub struct Functions {
    captured: HashSet<String>,
}

impl Functions {
    /// Find the functions whose output is captured, piped or redirected somewhere, directly or
    /// through other captured functions (a fixpoint over call sites).
    pub fn analyze(root: Node<'_>, source: &[u8]) -> Functions {
        let mut defined: HashMap<String, Vec<Node<'_>>> = HashMap::new();
        let mut calls: Vec<(String, Node<'_>)> = Vec::new();
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            match node.kind() {
                "function_definition" => {
                    if let Some(name) = node.child_by_field_name("name") {
                        defined
                            .entry(node_text(name, source))
                            .or_default()
                            .push(node);
                    }
                }
                "command" => {
                    if let Some(name) = command_name(node, source) {
                        calls.push((name, node));
                    }
                }
                _ => {}
            }
            let mut cursor = node.walk();
            stack.extend(node.named_children(&mut cursor));
        }
        let mut functions = Functions::default();
        if defined.is_empty() {
            return functions;
        }
        calls.retain(|(name, _)| defined.contains_key(name));
        loop {
            let before = functions.captured.len();
            for (name, call) in &calls {
                if !functions.captured.contains(name)
                    && functions.stdout_reach(*call, source).is_err()
                {
                    functions.captured.insert(name.clone());
                }
            }
            if functions.captured.len() == before {
                return functions;
            }
        }
    }

    /// Ok when the command's stdout is the script's stdout.
    pub fn stdout_reach(&self, command: Node<'_>, source: &[u8]) -> Result<(), NotStdout> {
        if redirects_stdout(command, source) {
            return Err(NotStdout::Redirected);
        }
        let mut child = command;
        while let Some(parent) = child.parent() {
            match parent.kind() {
                "command_substitution" | "process_substitution" => return Err(NotStdout::Captured),
                "heredoc_body" => return Err(NotStdout::InsideHeredoc),
                "heredoc_redirect" if !is_right_of(parent, child) => {
                    return Err(NotStdout::InsideHeredoc);
                }
                "ERROR" => return Err(NotStdout::ParseError),
                "pipeline" if !is_last_named_child(parent, child) => return Err(NotStdout::Piped),
                "redirected_statement" | "function_definition"
                    if redirects_stdout(parent, source) =>
                {
                    return Err(NotStdout::Redirected);
                }
                "function_definition" if self.is_captured_function(parent, source) => {
                    return Err(NotStdout::CapturedFunction);
                }
                _ => {}
            }
            child = parent;
        }
        Ok(())
    }

    fn is_captured_function(&self, definition: Node<'_>, source: &[u8]) -> bool {
        definition
            .child_by_field_name("name")
            .is_some_and(|name| self.captured.contains(&node_text(name, source)))
    }
}

fn is_last_named_child(parent: Node<'_>, child: Node<'_>) -> bool {
    let count = parent.named_child_count();
    count > 0 && parent.named_child((count - 1) as u32) == Some(child)
}

fn is_right_of(heredoc_redirect: Node<'_>, child: Node<'_>) -> bool {
    heredoc_redirect.child_by_field_name("right") == Some(child)
}

/// The literal command name, if it is a plain word.
pub fn command_name(command: Node<'_>, source: &[u8]) -> Option<String> {
    let name = command.child_by_field_name("name")?;
    let word = name.named_child(0)?;
    (word.kind() == "word").then(|| node_text(word, source))
}

/// True when one of the node's own redirects sends file descriptor 1 elsewhere.
pub(super) fn redirects_stdout(node: Node<'_>, source: &[u8]) -> bool {
    let mut cursor = node.walk();
    node.children(&mut cursor)
        .any(|child| child.kind() == "file_redirect" && file_redirect_touches_stdout(child, source))
}

fn file_redirect_touches_stdout(redirect: Node<'_>, source: &[u8]) -> bool {
    let mut descriptor = None;
    let mut operator = String::new();
    let mut cursor = redirect.walk();
    for child in redirect.children(&mut cursor) {
        if child.kind() == "file_descriptor" {
            descriptor = Some(node_text(child, source));
        } else if !child.is_named() && operator.is_empty() {
            operator = child.kind().to_string();
        }
    }
    match descriptor.as_deref() {
        Some("1") => true,
        Some(_) => false,
        None => matches!(
            operator.as_str(),
            ">" | ">>" | ">|" | "&>" | "&>>" | ">&" | ">&-"
        ),
    }
}
