//! Results passed through a helper: a function of the script whose body prints its arguments
//! (`print_success() { echo -e "${GREEN}✓${NC} $1"; }`). A call that hands it a result line
//! (`print_success "Created: $f"`) prints that line, so the call is a legacy statement. The
//! helper's own `echo` is none: it prints whatever it is given.

use std::collections::HashMap;

use tree_sitter::Node;

use super::context::{Survey, invocation};
use super::parser::node_text;
use super::words::{self, Printed, Segment};
use super::{Dialect, Form, LegacyStatement, Vocabulary, char_column, flow, one_line};

/// Which of a call's arguments a helper prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Passes {
    /// `$1` (or a variable assigned from it).
    First,
    /// `$*` or `$@`.
    All,
}

impl Passes {
    /// How the runtime's `__skm_via` is told.
    pub fn as_arg(self) -> &'static str {
        match self {
            Passes::First => "1",
            Passes::All => "@",
        }
    }
}

/// What a helper prints: the text of its printing statement, one segment of which is the
/// arguments it was given. A library's helpers reach the scripts that source it as these.
#[derive(Debug, Clone)]
pub struct Helper {
    printed: Printed,
    slot: usize,
    passes: Passes,
    /// It prints through `exec`: a call of it ends the shell.
    ends_shell: bool,
}

/// A file's helpers by name, for the scripts that source it (`analyze::with_helpers`).
pub type Definitions = HashMap<Vec<u8>, Helper>;

/// Every helper `survey`'s file defines.
pub(super) fn definitions(
    survey: &Survey<'_, '_>,
    source: &[u8],
    vocabulary: Vocabulary,
    dialect: Dialect,
) -> Definitions {
    helpers(survey, source, vocabulary, dialect, None)
        .into_iter()
        .map(|(name, helper)| (name.to_vec(), helper))
        .collect()
}

/// The calls of the script's helpers that print a legacy line on the script's stdout.
pub(super) fn calls(
    survey: &Survey<'_, '_>,
    source: &[u8],
    vocabulary: Vocabulary,
    dialect: Dialect,
    imported: &Definitions,
) -> Vec<LegacyStatement> {
    // The calls that could be one: of a function the script defines, on stdout, handed a
    // result line. Most scripts have none, and then no helper is looked at.
    let candidates: Vec<(&[u8], Node<'_>)> = survey
        .calls()
        .filter(|(name, site)| {
            (survey.defines(name) || imported.contains_key(*name))
                // A helper calling itself prints what its caller handed it.
                && survey.function_of(site).map(|f| f.0) != Some(*name)
                && survey.reach(site).is_ok()
                && hands_a_result(site.node, source, vocabulary)
        })
        .map(|(name, site)| (name, site.node))
        .collect();
    if candidates.is_empty() {
        return Vec::new();
    }
    let wanted: std::collections::HashSet<&[u8]> = candidates.iter().map(|(n, _)| *n).collect();
    let helpers = helpers(survey, source, vocabulary, dialect, Some(&wanted));
    candidates
        .into_iter()
        .filter_map(|(name, node)| {
            // The script's own definition wins over a sourced file's, as the last one bash read.
            let helper = helpers.get(name).or_else(|| imported.get(name))?;
            statement(survey.root, node, source, helper, vocabulary)
        })
        .collect()
}

/// What a call hands its helper: its first argument, or all of them joined by spaces.
pub(super) fn given(command: Node<'_>, source: &[u8], passes: Passes) -> Printed {
    let mut cursor = command.walk();
    let taken = command
        .children_by_field_name("argument", &mut cursor)
        .take(match passes {
            Passes::First => 1,
            Passes::All => usize::MAX,
        })
        .map(|argument| words::word_value(argument, source));
    joined(taken)
}

/// The values joined by spaces, as `$*` joins them.
fn joined(values: impl Iterator<Item = Printed>) -> Printed {
    let mut given = Printed::default();
    for (i, value) in values.enumerate() {
        if i > 0 {
            given.push_literal(" ");
        }
        given.append(value);
    }
    given
}

/// Whether a call hands a result line to a helper printing its first argument or all of them
/// (each argument's value read once).
fn hands_a_result(command: Node<'_>, source: &[u8], vocabulary: Vocabulary) -> bool {
    let mut cursor = command.walk();
    let values: Vec<Printed> = command
        .children_by_field_name("argument", &mut cursor)
        .map(|argument| words::word_value(argument, source))
        .collect();
    let Some(first) = values.first() else {
        return false;
    };
    vocabulary.classify(first).is_some()
        || (values.len() > 1 && vocabulary.classify(&joined(values.into_iter())).is_some())
}

/// The script's functions that print their arguments on stdout, by name (the first printing
/// statement that does, of the first definition).
fn helpers<'s>(
    survey: &Survey<'s, '_>,
    source: &[u8],
    vocabulary: Vocabulary,
    dialect: Dialect,
    wanted: Option<&std::collections::HashSet<&[u8]>>,
) -> HashMap<&'s [u8], Helper> {
    let mut helpers = HashMap::new();
    // Per function (by node id): the variables it assigns from its arguments, found once.
    let mut copies: HashMap<usize, HashMap<String, Passes>> = HashMap::new();
    for site in survey.echoes.iter().chain(&survey.printfs) {
        let Some((name, function)) = survey.function_of(site) else {
            continue;
        };
        if site.blocked.is_some()
            || helpers.contains_key(name)
            || wanted.is_some_and(|w| !w.contains(name))
        {
            continue;
        }
        let Some(run) = invocation(site.node, source) else {
            continue;
        };
        let printed = match run.name.as_str() {
            "printf" => words::printf_output(site.node, source, dialect),
            _ => Some(words::echo_output(site.node, source, dialect)),
        };
        // A line that is a legacy line by itself is found where it stands.
        let Some(printed) = printed.filter(|p| vocabulary.classify(p).is_none()) else {
            continue;
        };
        let dynamic = || {
            printed
                .segments
                .iter()
                .enumerate()
                .filter_map(|(i, segment)| match segment {
                    Segment::Dynamic(text) => Some((i, text)),
                    Segment::Literal(_) => None,
                })
        };
        let none = HashMap::new();
        let slot = dynamic()
            .find_map(|(i, text)| passes(text, &none).map(|p| (i, p)))
            .or_else(|| {
                let copies = copies
                    .entry(function.id())
                    .or_insert_with(|| argument_copies(function, source));
                dynamic().find_map(|(i, text)| passes(text, copies).map(|p| (i, p)))
            });
        if let Some((slot, passes)) = slot {
            helpers.insert(
                name,
                Helper {
                    printed,
                    slot,
                    passes,
                    ends_shell: run.replaces_shell,
                },
            );
        }
    }
    helpers
}

/// The arguments a word of the helper's output stands for: `$1`, `$*`, `$@` (braced or not), or
/// a variable the function assigns from one of them (`local msg="$1"`).
fn passes(text: &str, copies: &HashMap<String, Passes>) -> Option<Passes> {
    let text = text.trim_start();
    let name = text
        .strip_prefix("${")
        .and_then(|t| t.strip_suffix('}'))
        .or_else(|| text.strip_prefix('$'))?;
    match name {
        "1" => Some(Passes::First),
        "*" | "@" => Some(Passes::All),
        _ => copies.get(name).copied(),
    }
}

/// Variables the function assigns from its arguments (`local msg="$1"`, `text=$*`).
fn argument_copies(function: Node<'_>, source: &[u8]) -> HashMap<String, Passes> {
    let mut copies = HashMap::new();
    let mut cursor = function.walk();
    let mut stack = vec![function];
    while let Some(node) = stack.pop() {
        if node.kind() == "variable_assignment"
            && let (Some(name), Some(value)) = (
                node.child_by_field_name("name"),
                node.child_by_field_name("value"),
            )
            && let [Segment::Dynamic(text)] = words::word_value(value, source).segments.as_slice()
            && let Some(passes) = passes(text, &HashMap::new())
        {
            copies.insert(node_text(name, source), passes);
        }
        stack.extend(node.named_children(&mut cursor));
    }
    copies
}

/// The call as a legacy statement, when what the helper prints of it is a legacy line whose
/// marker the call's own arguments carry (the runtime reads the value from them).
fn statement<'t>(
    root: Node<'t>,
    command: Node<'t>,
    source: &[u8],
    helper: &Helper,
    vocabulary: Vocabulary,
) -> Option<LegacyStatement> {
    let name = command.child_by_field_name("name")?;
    let given = given(command, source, helper.passes);
    let mut printed = Printed::default();
    for (i, segment) in helper.printed.segments.iter().enumerate() {
        match segment {
            Segment::Dynamic(text) if i == helper.slot => {
                // tree-sitter-bash can give the blanks before an expansion to it (`" $1"`).
                printed.push_literal(&text[..text.len() - text.trim_start().len()]);
                printed.append(given.clone());
            }
            Segment::Literal(text) => printed.push_literal(text),
            Segment::Dynamic(text) => printed.push_dynamic(text.clone()),
        }
    }
    let (kind, value) = vocabulary.classify(&printed)?;
    if vocabulary.classify(&given).map(|(k, _)| k) != Some(kind) {
        return None;
    }
    let position = command.start_position();
    Some(LegacyStatement {
        kind,
        line: position.row + 1,
        column: char_column(source, command.start_byte(), position.column),
        text: String::from_utf8_lossy(&one_line(&source[command.byte_range()])).into_owned(),
        value,
        further_values: Vec::new(),
        start: command.start_byte(),
        end: command.end_byte(),
        printer: name.byte_range(),
        form: Form::Helper(helper.passes),
        on_failure_path: flow::on_failure_path(root, command, source),
        ends_shell: helper.ends_shell,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::{BashParser, analyze};

    fn found(script: &str, vocabulary: Vocabulary) -> Vec<(usize, String)> {
        let mut parser = BashParser::new().expect("parser");
        let analysis = analyze(&mut parser, script.as_bytes(), vocabulary).expect("analysis");
        analysis
            .legacy
            .iter()
            .map(|l| (l.line, l.kind.as_str().to_string()))
            .collect()
    }

    #[test]
    fn a_coloured_helper_prints_a_created_line() {
        let script = "#!/bin/bash\nGREEN='\\033[0;32m'\nNC='\\033[0m'\nok() {\n    echo -e \"${GREEN}✓${NC} $1\"\n}\nok \"Created: $f\"\n";
        assert_eq!(
            found(script, Vocabulary::Decorated),
            vec![(7, "created".to_string())]
        );
    }
}
