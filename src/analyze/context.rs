//! Where a command's output goes: the script's own stdout, or somewhere that makes it data (a
//! pipe, a file, stderr, a command substitution, a function whose output is captured). One walk
//! of the tree carries each node's output context down from its ancestors, so no node ever has
//! to look upwards.

use std::collections::HashSet;

use tree_sitter::{Node, Tree};

/// Why a command's stdout does not reach the script's stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotStdout {
    Captured,
    Piped,
    Redirected,
    InsideHeredoc,
    ParseError,
}

/// A command of interest and the context the walk found it in.
#[derive(Debug, Clone, Copy)]
pub struct Site<'t> {
    pub node: Node<'t>,
    /// Set when an ancestor (or the command's own redirect) keeps its output off stdout.
    pub blocked: Option<NotStdout>,
    /// The innermost function definition holding the command.
    function: Option<usize>,
}

#[derive(Debug)]
struct Function<'s> {
    name: &'s [u8],
    parent: Option<usize>,
}

#[derive(Debug)]
struct Call<'s, 't> {
    name: &'s [u8],
    site: Site<'t>,
}

/// What one walk collects: `echo` and `cat` commands, calls, function definitions, and whether
/// the block marker comment is present.
#[derive(Debug)]
pub struct Survey<'s, 't> {
    pub echoes: Vec<Site<'t>>,
    pub cats: Vec<Site<'t>>,
    pub marker_comment: bool,
    calls: Vec<Call<'s, 't>>,
    functions: Vec<Function<'s>>,
    captured: Vec<bool>,
}

struct Walk<'s, 't> {
    source: &'s [u8],
    marker: &'s [u8],
    survey: Survey<'s, 't>,
}

impl<'s, 't> Survey<'s, 't> {
    /// Walk the tree once; `marker` is the comment prefix that marks a migrated script.
    pub fn new(tree: &'t Tree, source: &'s [u8], marker: &'s [u8]) -> Survey<'s, 't> {
        let mut walk = Walk {
            source,
            marker,
            survey: Survey {
                echoes: Vec::new(),
                cats: Vec::new(),
                marker_comment: false,
                calls: Vec::new(),
                functions: Vec::new(),
                captured: Vec::new(),
            },
        };
        walk.visit(tree.root_node(), None, None);
        let mut survey = walk.survey;
        survey.captured = survey.captured_functions();
        survey
    }

    /// Functions whose output is captured, piped or redirected at some call site, directly or
    /// through other such functions (a fixpoint over call sites).
    fn captured_functions(&self) -> Vec<bool> {
        let mut captured = vec![false; self.functions.len()];
        if self.functions.is_empty() {
            return captured;
        }
        let defined: HashSet<&[u8]> = self.functions.iter().map(|f| f.name).collect();
        let calls: Vec<&Call<'_, '_>> = self
            .calls
            .iter()
            .filter(|c| defined.contains(c.name))
            .collect();
        let mut names: HashSet<&[u8]> = HashSet::new();
        loop {
            let before = names.len();
            for call in &calls {
                if !names.contains(call.name)
                    && (call.site.blocked.is_some()
                        || self.inside_captured(call.site.function, &captured))
                {
                    names.insert(call.name);
                }
            }
            for (flag, function) in captured.iter_mut().zip(&self.functions) {
                *flag = names.contains(function.name);
            }
            if names.len() == before {
                return captured;
            }
        }
    }

    fn inside_captured(&self, mut function: Option<usize>, captured: &[bool]) -> bool {
        while let Some(id) = function {
            if captured[id] {
                return true;
            }
            function = self.functions[id].parent;
        }
        false
    }

    /// Ok when the site's output is the script's stdout.
    pub fn reach(&self, site: &Site<'_>) -> Result<(), NotStdout> {
        match site.blocked {
            Some(reason) => Err(reason),
            None if self.inside_captured(site.function, &self.captured) => Err(NotStdout::Captured),
            None => Ok(()),
        }
    }
}

impl<'s, 't> Walk<'s, 't> {
    fn visit(&mut self, node: Node<'t>, blocked: Option<NotStdout>, function: Option<usize>) {
        let mut function = function;
        let kind = node.kind();
        match kind {
            "command" => {
                let site = Site {
                    node,
                    blocked: blocked.or_else(|| {
                        redirects_stdout(node, self.source).then_some(NotStdout::Redirected)
                    }),
                    function,
                };
                match command_name_bytes(node, self.source) {
                    Some(b"echo") => self.survey.echoes.push(site),
                    Some(b"cat") => self.survey.cats.push(site),
                    Some(name) => self.survey.calls.push(Call { name, site }),
                    None => {}
                }
            }
            "comment" => {
                if self.source[node.start_byte()..node.end_byte()].starts_with(self.marker) {
                    self.survey.marker_comment = true;
                }
                return;
            }
            "function_definition" => {
                if let Some(name) = node.child_by_field_name("name") {
                    self.survey.functions.push(Function {
                        name: &self.source[name.start_byte()..name.end_byte()],
                        parent: function,
                    });
                    function = Some(self.survey.functions.len() - 1);
                }
            }
            _ => {}
        }
        if node.child_count() == 0 {
            return;
        }
        let own = match kind {
            "command_substitution" | "process_substitution" => Some(NotStdout::Captured),
            "heredoc_body" => Some(NotStdout::InsideHeredoc),
            "ERROR" => Some(NotStdout::ParseError),
            "redirected_statement" | "function_definition"
                if redirects_stdout(node, self.source) =>
            {
                Some(NotStdout::Redirected)
            }
            _ => None,
        };
        let inherited = blocked.or(own);
        let last_named = if kind == "pipeline" {
            last_named_child(node)
        } else {
            None
        };
        let mut cursor = node.walk();
        if !cursor.goto_first_child() {
            return;
        }
        loop {
            let child = cursor.node();
            let extra = match kind {
                "pipeline" if child.is_named() && Some(child) != last_named => {
                    Some(NotStdout::Piped)
                }
                "heredoc_redirect" if cursor.field_name() != Some("right") => {
                    Some(NotStdout::InsideHeredoc)
                }
                _ => None,
            };
            self.visit(child, inherited.or(extra), function);
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }
}

fn last_named_child(node: Node<'_>) -> Option<Node<'_>> {
    let count = node.named_child_count();
    if count == 0 {
        None
    } else {
        node.named_child((count - 1) as u32)
    }
}

/// The literal command name, if it is a plain word.
pub fn command_name_bytes<'s>(command: Node<'_>, source: &'s [u8]) -> Option<&'s [u8]> {
    let name = command.child_by_field_name("name")?;
    let word = name.named_child(0)?;
    (word.kind() == "word").then(|| &source[word.start_byte()..word.end_byte()])
}

/// True when one of the node's own redirects sends file descriptor 1 elsewhere.
pub(super) fn redirects_stdout(node: Node<'_>, source: &[u8]) -> bool {
    let mut cursor = node.walk();
    node.children(&mut cursor)
        .any(|child| child.kind() == "file_redirect" && file_redirect_touches_stdout(child, source))
}

fn file_redirect_touches_stdout(redirect: Node<'_>, source: &[u8]) -> bool {
    let mut descriptor: Option<&[u8]> = None;
    let mut operator = "";
    let mut cursor = redirect.walk();
    for child in redirect.children(&mut cursor) {
        if child.kind() == "file_descriptor" {
            descriptor = Some(&source[child.start_byte()..child.end_byte()]);
        } else if !child.is_named() && operator.is_empty() {
            operator = child.kind();
        }
    }
    match descriptor {
        Some(b"1") => true,
        Some(_) => false,
        None => matches!(operator, ">" | ">>" | ">|" | "&>" | "&>>" | ">&" | ">&-"),
    }
}
