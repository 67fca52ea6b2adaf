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
    /// `$1` to `$9` (or a variable assigned from one).
    Nth(u8),
    /// `$*` or `$@`.
    All,
}

impl Passes {
    /// How the runtime's `__skm_via` is told: the argument's number, or `@`.
    pub fn as_arg(self) -> &'static str {
        const NUMBERS: [&str; 9] = ["1", "2", "3", "4", "5", "6", "7", "8", "9"];
        match self {
            Passes::Nth(n) => NUMBERS[usize::from(n.clamp(1, 9)) - 1],
            Passes::All => "@",
        }
    }
}

/// What a helper prints: the text of its printing statement, in which some segments are the
/// arguments it was given (`echo "[$1] $2"`: two). A library's helpers reach the scripts that
/// source it as these.
#[derive(Debug, Clone)]
pub struct Helper {
    printed: Printed,
    /// The segments of `printed` that are arguments, each with which.
    slots: Vec<(usize, Passes)>,
    /// It prints through `exec`: a call of it ends the shell.
    ends_shell: bool,
    /// Its statements that print an argument on stdout, in this file.
    printers: Vec<Printer>,
}

/// One statement of a helper that prints an argument on stdout.
#[derive(Debug, Clone)]
struct Printer {
    /// Where the statement starts.
    at: usize,
    /// Its `echo` or `printf` word, when it is a plain one (capture mode may rename it);
    /// None for one named another way (`command echo`) or in another file.
    word: Option<std::ops::Range<usize>>,
    /// Every call of the helper runs it.
    always: bool,
}

impl Helper {
    /// The words to rename to the runtime's printers when not every call prints (`log() { [ -n
    /// "$QUIET" ] && return 0; echo "$1"; }`): then a call records its result only when one of
    /// them prints it. None when every call prints, or when one cannot be renamed.
    fn said_by(&self) -> Option<Vec<std::ops::Range<usize>>> {
        if self.printers.iter().any(|p| p.always) {
            return None;
        }
        self.printers.iter().map(|p| p.word.clone()).collect()
    }
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
    helpers(
        survey,
        source,
        vocabulary,
        dialect,
        None,
        &Definitions::new(),
    )
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
    let helpers = helpers(survey, source, vocabulary, dialect, Some(&wanted), imported);
    candidates
        .into_iter()
        .filter_map(|(name, node)| {
            // The script's own definition wins over a sourced file's, as the last one bash read.
            let (helper, local) = helpers
                .get(name)
                .map(|h| (h, true))
                .or_else(|| imported.get(name).map(|h| (h, false)))?;
            statement(survey.flow(source), node, source, helper, vocabulary).map(|s| {
                LegacyStatement {
                    says: helper.said_by().filter(|_| local).unwrap_or_default(),
                    ..s
                }
            })
        })
        .collect()
}

/// What a call hands its helper: its Nth argument, or all of them joined by spaces.
pub(super) fn given(command: Node<'_>, source: &[u8], passes: Passes) -> Printed {
    let mut cursor = command.walk();
    let (skip, take) = match passes {
        Passes::Nth(n) => (usize::from(n).saturating_sub(1), 1),
        Passes::All => (0, usize::MAX),
    };
    let taken = command
        .children_by_field_name("argument", &mut cursor)
        .skip(skip)
        .take(take)
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

/// Whether a call hands a result line to a helper printing one of its arguments or all of them
/// (each argument's value read once).
fn hands_a_result(command: Node<'_>, source: &[u8], vocabulary: Vocabulary) -> bool {
    let mut cursor = command.walk();
    let values: Vec<Printed> = command
        .children_by_field_name("argument", &mut cursor)
        .map(|argument| words::word_value(argument, source))
        .collect();
    values
        .iter()
        .any(|value| vocabulary.classify(value).is_some())
        || (values.len() > 1 && vocabulary.classify(&joined(values.into_iter())).is_some())
}

/// The script's functions that print their arguments on stdout, by name: the first printing
/// statement that does, of the first definition; then the functions that hand their arguments
/// on to one of those or to `imported`'s (`ok() { print_msg "$GREEN" "$1"; }`).
fn helpers<'s>(
    survey: &Survey<'s, '_>,
    source: &[u8],
    vocabulary: Vocabulary,
    dialect: Dialect,
    wanted: Option<&std::collections::HashSet<&[u8]>>,
    imported: &Definitions,
) -> HashMap<&'s [u8], Helper> {
    // Per function (by node id): the variables it assigns from its arguments, found once.
    let mut copies: HashMap<usize, HashMap<String, Passes>> = HashMap::new();
    let mut helpers = HashMap::new();
    printing(
        survey,
        source,
        (vocabulary, dialect),
        wanted,
        &mut helpers,
        &mut copies,
    );
    // A wanted name that prints through another function: every printing function is needed
    // (those found already are not read again).
    if wanted.is_some_and(|w| w.iter().any(|name| !helpers.contains_key(name))) {
        printing(
            survey,
            source,
            (vocabulary, dialect),
            None,
            &mut helpers,
            &mut copies,
        );
    }
    if wanted.is_none_or(|w| w.iter().any(|name| !helpers.contains_key(name))) {
        handing_on(survey, source, imported, &mut helpers, &mut copies);
    }
    helpers
}

/// Add to `helpers` the functions with a printing statement of their own that prints their
/// arguments.
fn printing<'s>(
    survey: &Survey<'s, '_>,
    source: &[u8],
    (vocabulary, dialect): (Vocabulary, Dialect),
    wanted: Option<&std::collections::HashSet<&[u8]>>,
    helpers: &mut HashMap<&'s [u8], Helper>,
    copies: &mut HashMap<usize, HashMap<String, Passes>>,
) {
    let unsets = memchr::memmem::find(source, b"unset -f").is_some();
    for site in survey.echoes.iter().chain(&survey.printfs) {
        let Some((name, function)) = survey.function_of(site) else {
            continue;
        };
        let at = site.node.start_byte();
        if site.blocked.is_some()
            || wanted.is_some_and(|w| !w.contains(name))
            || helpers
                .get(name)
                .is_some_and(|h| h.printers.iter().any(|p| p.at == at))
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
        let slots = slots(&printed, function, source, copies);
        if !slots.is_empty() {
            // Only a plain `echo` or `printf` word can be renamed to the runtime's printer.
            let plain = site
                .node
                .child_by_field_name("name")
                .is_some_and(|n| n.byte_range() == run.word.byte_range())
                && matches!(&source[run.word.byte_range()], b"echo" | b"printf");
            // Another definition of the name (in a branch, a redefinition) or an `unset -f`
            // may leave a call that prints nothing.
            let only_definition = survey.definitions(name) == 1 && !unsets;
            let printer = Printer {
                at,
                word: plain.then(|| run.word.byte_range()),
                always: only_definition && reached_on_every_call(function, site.node, source),
            };
            match helpers.entry(name) {
                std::collections::hash_map::Entry::Occupied(mut known) => {
                    known.get_mut().printers.push(printer);
                }
                std::collections::hash_map::Entry::Vacant(new) => {
                    new.insert(Helper {
                        printed,
                        slots,
                        ends_shell: run.replaces_shell,
                        printers: vec![printer],
                    });
                }
            }
        }
    }
}

/// Whether every call of `function` runs `statement`: it stands in the function's body itself
/// (first in an `&&`/`||` list at most), and nothing before it there can return or exit.
fn reached_on_every_call(function: Node<'_>, statement: Node<'_>, source: &[u8]) -> bool {
    let Some(body) = function.child_by_field_name("body") else {
        return false;
    };
    let mut node = statement;
    while let Some(parent) = node.parent() {
        if parent.id() == body.id() {
            break;
        }
        let first_of_list = parent.kind() == "list" && parent.named_child(0) == Some(node);
        if !(first_of_list || parent.kind() == "redirected_statement") {
            return false;
        }
        node = parent;
    }
    let mut earlier = node.prev_named_sibling();
    while let Some(sibling) = earlier {
        if ends_early(sibling, source) {
            return false;
        }
        earlier = sibling.prev_named_sibling();
    }
    true
}

/// Whether a statement holds a `return` or an `exit` (which may end the call before what follows).
fn ends_early(statement: Node<'_>, source: &[u8]) -> bool {
    let text = &source[statement.byte_range()];
    if memchr::memmem::find(text, b"return").is_none()
        && memchr::memmem::find(text, b"exit").is_none()
    {
        return false;
    }
    let mut cursor = statement.walk();
    let mut stack = vec![statement];
    while let Some(node) = stack.pop() {
        if node.kind() == "command"
            && super::context::command_name_bytes(node, source)
                .is_some_and(|n| matches!(n, b"return" | b"exit"))
        {
            return true;
        }
        stack.extend(node.named_children(&mut cursor));
    }
    false
}

/// How many functions deep a result is followed from the call to the printing statement.
const HANDED_ON: usize = 4;

/// Add the functions that hand their arguments to a helper, on stdout: what they print is the
/// helper's text with the call's arguments in its slots.
fn handing_on<'s>(
    survey: &Survey<'s, '_>,
    source: &[u8],
    imported: &Definitions,
    helpers: &mut HashMap<&'s [u8], Helper>,
    copies: &mut HashMap<usize, HashMap<String, Passes>>,
) {
    for _ in 0..HANDED_ON {
        let mut found = Vec::new();
        for (callee, site) in survey.calls() {
            let Some((name, function)) = survey.function_of(site) else {
                continue;
            };
            if name == callee || helpers.contains_key(name) || survey.reach(site).is_err() {
                continue;
            }
            let Some((inner, local)) = helpers
                .get(callee)
                .map(|h| (h, true))
                .or_else(|| imported.get(callee).map(|h| (h, false)))
            else {
                continue;
            };
            let printed = substituted(inner, site.node, source);
            let slots = slots(&printed, function, source, copies);
            if !slots.is_empty() {
                found.push((
                    name,
                    Helper {
                        printed,
                        slots,
                        ends_shell: inner.ends_shell,
                        printers: inner
                            .printers
                            .iter()
                            .map(|p| Printer {
                                at: p.at,
                                word: p.word.clone().filter(|_| local),
                                always: p.always
                                    && reached_on_every_call(function, site.node, source),
                            })
                            .collect(),
                    },
                ));
            }
        }
        if found.is_empty() {
            return;
        }
        for (name, helper) in found {
            helpers.entry(name).or_insert(helper);
        }
    }
}

/// The segments of a function's output that are its arguments: `$1`, `$*`… written there, or
/// else variables the function assigns from them.
fn slots(
    printed: &Printed,
    function: Node<'_>,
    source: &[u8],
    copies: &mut HashMap<usize, HashMap<String, Passes>>,
) -> Vec<(usize, Passes)> {
    let found = |copies: &HashMap<String, Passes>| -> Vec<(usize, Passes)> {
        printed
            .segments
            .iter()
            .enumerate()
            .filter_map(|(i, segment)| match segment {
                Segment::Dynamic(text) => passes(text, copies).map(|p| (i, p)),
                Segment::Literal(_) => None,
            })
            .collect()
    };
    let direct = found(&HashMap::new());
    if !direct.is_empty() {
        return direct;
    }
    let copies = copies
        .entry(function.id())
        .or_insert_with(|| argument_copies(function, source));
    found(copies)
}

/// What a helper prints for one call: its text with the call's arguments in its slots.
fn substituted(helper: &Helper, command: Node<'_>, source: &[u8]) -> Printed {
    let mut printed = Printed::default();
    for (i, segment) in helper.printed.segments.iter().enumerate() {
        match (segment, helper.slots.iter().find(|(at, _)| *at == i)) {
            (Segment::Dynamic(text), Some((_, passes))) => {
                // tree-sitter-bash can give the blanks before an expansion to it (`" $1"`).
                printed.push_literal(&text[..text.len() - text.trim_start().len()]);
                printed.append(given(command, source, *passes));
            }
            (Segment::Literal(text), _) => printed.push_literal(text),
            (Segment::Dynamic(text), None) => printed.push_dynamic(text.clone()),
        }
    }
    printed
}

/// The arguments a word of the helper's output stands for: `$1`, `$*`, `$@` (braced or not), or
/// a variable the function assigns from one of them (`local msg="$1"`).
fn passes(text: &str, copies: &HashMap<String, Passes>) -> Option<Passes> {
    let text = text.trim_start();
    let name = text
        .strip_prefix("${")
        .and_then(|t| t.strip_suffix('}'))
        .or_else(|| text.strip_prefix('$'))?;
    match name.as_bytes() {
        [digit @ b'1'..=b'9'] => Some(Passes::Nth(digit - b'0')),
        b"*" | b"@" => Some(Passes::All),
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
    flow: &flow::Flow<'t>,
    command: Node<'t>,
    source: &[u8],
    helper: &Helper,
    vocabulary: Vocabulary,
) -> Option<LegacyStatement> {
    let name = command.child_by_field_name("name")?;
    let printed = substituted(helper, command, source);
    let (kind, value) = vocabulary.classify(&printed)?;
    // The runtime reads the value from the argument that carries the marker; so nothing but
    // blanks and colour variables may follow it (`echo "$1 done"` prints another value).
    let (slot, passes) = helper.slots.iter().copied().find(|(_, p)| {
        vocabulary
            .classify(&given(command, source, *p))
            .map(|(k, _)| k)
            == Some(kind)
    })?;
    let mut after = helper.printed.segments.iter().enumerate().skip(slot + 1);
    let ends_the_line = after.all(|(i, segment)| match segment {
        Segment::Literal(text) => text.trim().is_empty(),
        // Another argument, unless the call gives none there.
        Segment::Dynamic(_) => helper
            .slots
            .iter()
            .all(|(at, p)| *at != i || given(command, source, *p).segments.is_empty()),
    });
    if !ends_the_line {
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
        form: Form::Helper(passes),
        on_failure_path: flow::on_failure_path(flow, command, source),
        ends_shell: helper.ends_shell,
        leaves_line_open: false,
        says: Vec::new(),
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

    /// The words renamed for each call, as text.
    fn says(script: &str) -> Vec<(usize, Vec<String>)> {
        let mut parser = BashParser::new().expect("parser");
        let analysis =
            analyze(&mut parser, script.as_bytes(), Vocabulary::Decorated).expect("analysis");
        analysis
            .legacy
            .iter()
            .map(|l| {
                let words = l
                    .says
                    .iter()
                    .map(|r| format!("{}@{}", &script[r.clone()], r.start));
                (l.line, words.collect())
            })
            .collect()
    }

    #[test]
    fn a_helper_that_not_every_call_makes_print_has_its_printers_named() {
        // Every call prints: nothing to rename.
        let always = "#!/bin/bash\nlog() { echo \"$1\"; }\nlog SUCCESS\n";
        assert_eq!(says(always), vec![(3, vec![])]);
        let first_of_list = "#!/bin/bash\nlog() { echo \"$1\" || true; }\nlog SUCCESS\n";
        assert_eq!(says(first_of_list), vec![(3, vec![])]);
        // A return before it, or a branch: the printer is named.
        let quiet = "#!/bin/bash\nlog() { [ -n \"$Q\" ] && return 0; echo \"$1\"; }\nlog SUCCESS\n";
        let at = quiet.find("echo").expect("echo");
        assert_eq!(says(quiet), vec![(3, vec![format!("echo@{at}")])]);
        let guarded = "#!/bin/bash\nlog() { [ -z \"$Q\" ] && echo \"$1\"; }\nlog SUCCESS\n";
        let at = guarded.find("echo").expect("echo");
        assert_eq!(says(guarded), vec![(3, vec![format!("echo@{at}")])]);
        // Both branches' printers, for a call that either may print.
        let branches = "#!/bin/bash\nst() { if [ \"$2\" = ok ]; then echo \"$1\"; else printf '%s\\n' \"$1\"; fi; }\nst SUCCESS ok\n";
        let found = says(branches);
        assert_eq!(found.len(), 1);
        let mut words: Vec<&str> = found[0]
            .1
            .iter()
            .map(|w| &w[..w.find('@').unwrap_or(0)])
            .collect();
        words.sort_unstable();
        assert_eq!(words, vec!["echo", "printf"]);
        // Another definition that prints nothing (in a branch, or later), or an `unset -f`.
        let defined_twice = "#!/bin/bash\nif [ -n \"$V\" ]; then say() { echo \"$1\"; }; else say() { :; }; fi\nsay SUCCESS\n";
        let at = defined_twice.find("echo").expect("echo");
        assert_eq!(says(defined_twice), vec![(3, vec![format!("echo@{at}")])]);
        let unset =
            "#!/bin/bash\nsay() { echo \"$1\"; }\n[ -n \"$Q\" ] && unset -f say\nsay SUCCESS\n";
        let at = unset.find("echo").expect("echo");
        assert_eq!(says(unset), vec![(4, vec![format!("echo@{at}")])]);
        // A branch that prints with a word that cannot be renamed: recorded on every call.
        let command =
            "#!/bin/bash\nlog() { [ -n \"$Q\" ] && return 0; command echo \"$1\"; }\nlog SUCCESS\n";
        assert_eq!(says(command), vec![(3, vec![])]);
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
