//! Capture mode: each legacy statement records what the shell computes at that moment
//! (`__skm_rec KIND <the echo's own arguments>`), and one line after the shebang sources the
//! runtime, a readable POSIX sh file written once per project (`skillmod-runtime.sh`). The
//! runtime moves the script's stdout to stderr and prints one JSON document on the saved stdout
//! from an EXIT trap on every exit path of the main shell: the normal end, `exit N` anywhere, a
//! `set -e` failure, SIGTERM/SIGINT/SIGHUP. The script's own `trap … EXIT` is chained, not lost.
//! A library (a script meant to be sourced) gets no source line: its legacy lines record into
//! the runtime of the script sourcing it.

use crate::codes;
use std::collections::HashMap;
use std::sync::OnceLock;

use minijinja::Environment;
use serde::Serialize;

use super::placement;
use super::plan::{Plan, Reason};
use super::template::{NOW_TOKEN, RUNTIME_SENTINEL, Template};
use crate::analyze::parser::{ancestry, backgrounded};
use crate::analyze::runtime_link::{
    self, BLOCK_END, BLOCK_START, CAUSE_ARGUMENT, FILE_STEM, LineParts, NOW_ARGUMENT,
    RESERVED_PREFIX,
};
use crate::analyze::{Analysis, Form, LegacyKind};
use crate::error::{Error, Result};

const RUNTIME: &str = include_str!("../../templates/capture-runtime.sh.j2");

/// The runtime's version: 1 was 0.1.0's inline line, 2 was 0.2.0's project-wide file; 3 is
/// found from the skill folder and prints a document of its own when it is missing. A file older
/// than this is rewritten.
pub(crate) const RUNTIME_VERSION: u32 = 3;

/// The template whose runtime file is plain `skillmod-runtime.sh`.
const DEFAULT_TEMPLATE: &str = "skill-output-v1";

use crate::analyze::runtime_link::{LIBRARY_RECORDER, LIBRARY_TRAP, LIBRARY_VIA};

/// Shell variables of the runtime that hold each run-time value, by template field.
const FIELDS: &[(&str, &str)] = &[
    ("success", "__skm_ok"),
    ("confidence", "__skm_c"),
    ("deliverables", "__skm_deliverables"),
    ("files_created", "__skm_created"),
    ("files_modified", "__skm_modified"),
    ("execution_time_ms", "__skm_ms"),
    ("errors", "__skm_errors"),
    ("error_member", "__skm_error_member"),
    ("skill_name", "__skm_name"),
];

fn sentinel(field: &str) -> String {
    format!("{RUNTIME_SENTINEL}{field}{RUNTIME_SENTINEL}")
}

/// What the runtime template needs: which fields the JSON template uses, so the generated shell
/// computes nothing it never prints.
#[derive(Serialize)]
struct RuntimeContext<'a> {
    version: u32,
    template: &'a str,
    default_confidence: f64,
    uses_time: bool,
    uses_errors: bool,
    uses_error_member: bool,
    uses_now: bool,
    uses_name: bool,
    body: String,
}

/// The runtime file for one template: its name and its text (the same for every script), and
/// the `printf` format of the document a script prints when it cannot load the runtime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Runtime {
    pub file_name: String,
    pub text: String,
    /// The template's document for a run that could not load the runtime, as a single-quoted
    /// `printf` format: `%s` once for the cause (and once more for the time, where the template
    /// prints it), the skill's name still as `SKILL_TOKEN`.
    pub failure: Failure,
}

/// The document a script prints without its runtime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The `printf` format, single-quoted for the shell.
    pub format: String,
    /// The arguments its `%s` take, in order.
    pub arguments: Vec<&'static str>,
}

/// What one script's source line says: where the runtime lies from the script's folder, and
/// the per-script settings that differ from the runtime's defaults.
#[derive(Debug, Clone)]
pub struct Link<'a> {
    /// The runtime's path relative to the script's folder, `/`-separated.
    pub relative: &'a str,
    pub default_confidence: f64,
    /// Leave the script's other output on stdout (`--stdout keep`).
    pub keep_stdout: bool,
    /// `--runtime inline`: the runtime text, written as a block into the script instead of the
    /// source line.
    pub inline: Option<&'a str>,
    /// The script is a bash script: its source line finds itself through `BASH_SOURCE`, so a
    /// bash harness that sources it loads the right runtime.
    pub bash: bool,
    /// The document printed without the runtime, and the skill's name it carries.
    pub failure: &'a Failure,
    pub skill_name: &'a str,
}

/// How a script takes part in capture mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A script that runs on its own: it gets the runtime.
    Script,
    /// A script meant to be sourced: no runtime and no EXIT trap of its own.
    Library,
    /// A script that runs on its own and that another selected script sources too (a test
    /// harness, a second entry point): its lines record as a library's, into whichever runtime
    /// is loaded, and it gets the runtime line, which does nothing where one is.
    SourcedScript,
}

impl Role {
    /// Whether the script gets the runtime (its line or its block).
    pub fn loads_runtime(self) -> bool {
        self != Role::Library
    }
}

/// The descriptor the runtime keeps the skill's real stdout on (the template's `exec 8>&1`).
const SAVED_STDOUT: &str = "8";

/// Whether a script holds a migrated library's hooks (`${__skm_r:-:}`, `${__skm_t:-trap}`):
/// capture mode migrated it as a library.
pub(crate) fn has_library_hooks(source: &[u8]) -> bool {
    [LIBRARY_RECORDER, LIBRARY_TRAP]
        .iter()
        .any(|hook| memchr::memmem::find(source, hook.as_bytes()).is_some())
}

/// The commands the runtime runs by name, which a function of the script would replace for it
/// (a `printf` that writes to stderr leaves the document empty; a `test` that runs the skill's
/// tests makes the exit trap loop forever).
const RUNTIME_COMMANDS: [&str; 28] = [
    "printf", "command", "awk", "sed", "mktemp", "mkfifo", "rm", "date", "dirname", "readlink",
    "trap", "eval", "set", "exec", "shopt", "alias", "unalias", "test", "[", "echo", "kill",
    "shift", "exit", "return", "true", "false", "break", "continue",
];

/// Where the text may define a function or an alias under one of `RUNTIME_COMMANDS` (`printf()`,
/// `function printf`, `alias echo=…`): each place and name, for the tree to confirm.
fn shadow_sites(source: &[u8]) -> impl Iterator<Item = (usize, &'static str)> + '_ {
    RUNTIME_COMMANDS.iter().flat_map(move |&name| {
        memchr::memmem::find_iter(source, name.as_bytes()).filter_map(move |at| {
            let rest = &source[at + name.len()..];
            let after = rest.iter().position(|b| !matches!(b, b' ' | b'\t'))?;
            let keyword = || source[..at].trim_ascii_end().ends_with(b"function");
            // `echo=` on a line that says `alias` (most names met are no definition at all).
            let alias = || {
                let line_start = memchr::memrchr(b'\n', &source[..at]).map_or(0, |i| i + 1);
                rest[0] == b'=' && memchr::memmem::find(&source[line_start..at], b"alias").is_some()
            };
            (rest[after] == b'(' || keyword() || alias()).then_some((at, name))
        })
    })
}

/// Whether the text may define a function or an alias under one of `RUNTIME_COMMANDS`: the cheap
/// test before a file is parsed to know (`shadowed_command`).
pub(crate) fn may_shadow_command(source: &[u8]) -> bool {
    shadow_sites(source).next().is_some()
}

/// A function or an alias the script defines under one of `RUNTIME_COMMANDS`: its line, name and
/// what defines it ("a function named", "an alias named"). An alias changes what the script's
/// own result lines print (`alias echo='echo >&2'`), so the lines the analysis reads would not be
/// what runs. The text is searched first, the tree confirms.
pub(crate) fn shadowed_command(
    root: tree_sitter::Node<'_>,
    source: &[u8],
) -> Option<(usize, &'static str, &'static str)> {
    shadow_sites(source).find_map(|(at, name)| {
        let node = root.descendant_for_byte_range(at, at + name.len())?;
        let definition = node
            .parent()
            .filter(|p| p.kind() == "function_definition")
            .filter(|d| {
                d.child_by_field_name("name")
                    .is_some_and(|n| &source[n.byte_range()] == name.as_bytes())
            });
        if let Some(definition) = definition {
            return Some((
                definition.start_position().row + 1,
                name,
                "a function named",
            ));
        }
        let command = std::iter::successors(Some(node), |n| n.parent())
            .take(4)
            .find(|n| n.kind() == "command")?;
        // `alias`, quoted or escaped, behind `builtin`/`command` and their options (`command -p
        // alias`); an eval'd, computed or `BASH_ALIASES` one is out of reach.
        let word = |n: tree_sitter::Node<'_>| {
            let text = &source[n.byte_range()];
            crate::analyze::context::unquoted_name(text).unwrap_or(text)
        };
        let mut cursor = command.walk();
        let mut words = command
            .child_by_field_name("name")
            .into_iter()
            .chain(command.children_by_field_name("argument", &mut cursor));
        let alias = words
            .by_ref()
            .map(word)
            .find(|w| !matches!(*w, b"builtin" | b"command") && !w.starts_with(b"-"))
            .is_some_and(|w| w == b"alias");
        let argument = words.any(|arg| {
            let start = arg.start_byte();
            start == at || (start + 1 == at && matches!(source[start], b'\'' | b'"'))
        });
        (alias && argument).then(|| (command.start_position().row + 1, name, "an alias named"))
    })
}

/// Why capture mode cannot rewrite a script as it is, found before any edit (check reports the
/// same as SKM008): the line, and the refusal. `NAME_CLASH` for the runtime's reserved names,
/// `TRAP_UNSUPPORTED` for a trap whose signal list is computed at run time, `DESCRIPTOR_CLASH`
/// for a redirection of descriptor 8 (not a refusal with `--keep-stdout`, which leaves it alone).
pub fn refusal(analysis: &Analysis, source: &[u8]) -> Option<(usize, Error)> {
    // A migrated library's own hooks are skillmod's, not a clash: `--force` runs over it again.
    let own = |at: usize| {
        [LIBRARY_RECORDER, LIBRARY_TRAP]
            .iter()
            .any(|hook| at >= 2 && source[at - 2..].starts_with(hook.as_bytes()))
    };
    // A comment names nothing the shell runs (one may quote skillmod's own source line).
    let root = analysis.tree.root_node();
    let in_comment = |at: usize| {
        root.descendant_for_byte_range(at, at + 1)
            .is_some_and(|n| n.kind() == "comment")
    };
    if let Some(at) = memchr::memmem::find_iter(source, RESERVED_PREFIX.as_bytes())
        .find(|&at| !own(at) && !in_comment(at))
    {
        let line = source[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        return Some((
            line,
            Error::new(
                codes::NAME_CLASH,
                format!(
                    "line {line}: the script uses the name prefix `{RESERVED_PREFIX}`, which capture mode's runtime reserves; rename it, or migrate with --mode comment"
                ),
            ),
        ));
    }
    if let Some((line, name, how)) = shadowed_command(root, source) {
        return Some((
            line,
            Error::new(
                codes::NAME_CLASH,
                format!(
                    "line {line}: the script defines {how} `{name}`, a command capture mode's runtime runs to make the document (an alias also changes what the script's own lines print); rename it, or call the command it stands for"
                ),
            ),
        ));
    }
    if let Some(trap) = analysis
        .taken_traps
        .iter()
        .find(|t| t.dynamic && !t.in_subshell)
    {
        return Some((
            trap.line,
            Error::new(
                codes::TRAP_UNSUPPORTED,
                format!(
                    "line {}: a `trap` whose signal list is computed at run time (or that is set through `eval`) may replace the EXIT trap that prints the JSON; list its signals literally in a plain `trap` command or migrate with --mode comment",
                    trap.line
                ),
            ),
        ));
    }
    if let Some(line) = analysis.captured_and_printed {
        return Some((
            line,
            Error::new(
                codes::CAPTURED_AND_PRINTED,
                format!(
                    "line {line}: this legacy line is in a function the script calls both where its output reaches stdout and where it is captured (`x=$(f)`, a pipe); recording it would change the captured value. Give the captured call a function of its own, or migrate with --mode comment"
                ),
            ),
        ));
    }
    if let Some(refused) = lost_in_a_subshell(analysis, root, source) {
        return Some(refused);
    }
    if let Some(line) = replaces_shell(root, source) {
        return Some((
            line,
            Error::new(
                codes::EXEC_REPLACES_SHELL,
                format!(
                    "line {line}: `exec` runs a command in place of the script's shell (`exec bash \"$0\"`, `exec python3 …`): the runtime's EXIT trap never runs, so no document is printed, and the command's output goes to stderr. Run the command without `exec` (`cmd; exit $?`), or migrate with --mode comment"
                ),
            ),
        ));
    }
    if let Some(line) = redirects_descriptor(analysis.tree.root_node(), source, SAVED_STDOUT) {
        return Some((
            line,
            Error::new(
                codes::DESCRIPTOR_CLASH,
                format!(
                    "line {line}: the script redirects descriptor {SAVED_STDOUT}, where the runtime keeps the real stdout for the document; use another descriptor, or migrate with --keep-stdout or --mode comment"
                ),
            ),
        ));
    }
    None
}

/// `SUBSHELL_RESULT`: a legacy line that runs in a subshell, or a printf whose words change
/// the shell (capture mode records it from `$(printf …)`).
fn lost_in_a_subshell(
    analysis: &Analysis,
    root: tree_sitter::Node<'_>,
    source: &[u8],
) -> Option<(usize, Error)> {
    let subshells = Subshells::new(root, source);
    if let Some(statement) = analysis
        .legacy
        .iter()
        .find(|s| subshells.run_in_one(s.start, s.end))
    {
        let line = statement.line;
        return Some((
            line,
            Error::new(
                codes::SUBSHELL_RESULT,
                format!(
                    "line {line}: this legacy line runs in a subshell (`( … )`, a pipeline, `&`, or a function called in one), and what capture mode records there ends with the subshell: the document would miss it. If the line is data the script prints (a report, a list), not its result, suppress it with # skillmod: ignore[SKM001]; else print it outside the subshell (a `{{ …; }}` group, or a loop fed by `< <(cmd)`), or migrate with --mode comment (which disables the line and appends a JSON block)"
                ),
            ),
        ));
    }
    // A printf is recorded from `$(printf …)`: what its words change in the shell is lost.
    if let Some(statement) = analysis.legacy.iter().find(|s| {
        s.form == Form::Printf && changes_shell(&String::from_utf8_lossy(&source[s.start..s.end]))
    }) {
        let line = statement.line;
        return Some((
            line,
            Error::new(
                codes::SUBSHELL_RESULT,
                format!(
                    "line {line}: this printf's words change the shell (`$((n++))`, `${{X:=…}}`, `${{X:?…}}`), and capture mode runs it in a subshell to record the text it prints: the change, or the exit, would be lost. Compute the value on a line of its own before it, or migrate with --mode comment"
                ),
            ),
        ));
    }
    None
}

/// Whether a statement runs in a subshell of the script's shell: inside `( … )`, as part of a
/// pipeline (each part of which bash and dash run in a subshell; an `echo … | tee FILE`
/// statement is the whole pipeline), in the background (`&`), or in a function some call of
/// which runs so. A function's calls are found where its name occurs in the text (no walk of
/// the whole tree), and each function is judged once.
struct Subshells<'t, 's> {
    root: tree_sitter::Node<'t>,
    source: &'s [u8],
    functions: std::cell::RefCell<HashMap<&'s [u8], bool>>,
}

impl<'t, 's> Subshells<'t, 's> {
    fn new(root: tree_sitter::Node<'t>, source: &'s [u8]) -> Self {
        Subshells {
            root,
            source,
            functions: std::cell::RefCell::new(HashMap::new()),
        }
    }

    /// For the statement at `start..end`.
    fn run_in_one(&self, start: usize, end: usize) -> bool {
        self.root
            .descendant_for_byte_range(start, end)
            .is_some_and(|node| self.in_subshell(node))
    }

    fn in_subshell(&self, node: tree_sitter::Node<'t>) -> bool {
        let path = ancestry(self.root, node);
        for pair in path.windows(2).rev() {
            let (parent, at) = (pair[0], pair[1]);
            if backgrounded(at, self.source) {
                return true;
            }
            match parent.kind() {
                "subshell" | "pipeline" => return true,
                // Captured output is no result line (CAPTURED_AND_PRINTED is that refusal).
                "command_substitution" | "process_substitution" => return false,
                "function_definition" => {
                    return parent
                        .child_by_field_name("name")
                        .is_some_and(|name| self.function(&self.source[name.byte_range()]));
                }
                _ => {}
            }
        }
        false
    }

    /// Whether some call of the function runs in a subshell. A function met again while it is
    /// judged (it calls itself) adds nothing.
    fn function(&self, name: &'s [u8]) -> bool {
        if let Some(known) = self.functions.borrow().get(name) {
            return *known;
        }
        self.functions.borrow_mut().insert(name, false);
        let answer = calls_of(self.root, self.source, name).any(|call| self.in_subshell(call));
        self.functions.borrow_mut().insert(name, answer);
        answer
    }
}

/// Whether words change the shell that expands them: an arithmetic assignment or increment
/// (`$((n++))`, `$((i += 1))`), or an expansion that assigns or exits (`${X:=v}`, `${X=v}`,
/// `${X:?msg}`, `${X?msg}`).
fn changes_shell(text: &str) -> bool {
    let arithmetic = text.match_indices("$((").any(|(at, _)| {
        let inner = &text[at + 3..];
        let inner = &inner[..inner.find("))").unwrap_or(inner.len())];
        let bytes = inner.as_bytes();
        inner.contains("++")
            || inner.contains("--")
            || bytes.iter().enumerate().any(|(i, &b)| {
                b == b'='
                    && !matches!(bytes.get(i + 1), Some(b'='))
                    && !matches!(
                        i.checked_sub(1).map(|j| bytes[j]),
                        Some(b'=' | b'!' | b'<' | b'>')
                    )
            })
    });
    let expansion = text.match_indices("${").any(|(at, _)| {
        let rest = &text[at + 2..];
        let name = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        name > 0
            && ["=", ":=", "?", ":?"]
                .iter()
                .any(|op| rest[name..].starts_with(op))
    });
    arithmetic || expansion
}

/// The line of the first `exec` that runs a command in the script's own shell (not in a
/// subshell, a pipeline's part or a command substitution, where it replaces only that process).
/// `exec` with redirections alone (`exec >log 2>&1`) keeps the shell.
fn replaces_shell(root: tree_sitter::Node<'_>, source: &[u8]) -> Option<usize> {
    // Every command whose words hold `exec` (`command exec`, `builtin exec`, `"exec"`, `\exec`
    // are read as the shell reads them).
    let mut commands: Vec<tree_sitter::Node<'_>> = memchr::memmem::find_iter(source, b"exec")
        .filter_map(|at| {
            let found = root.descendant_for_byte_range(at, at + 4)?;
            std::iter::successors(Some(found), |n| n.parent())
                .take(4)
                .find(|n| n.kind() == "command")
        })
        .collect();
    commands.dedup_by_key(|c| c.id());
    commands
        .into_iter()
        .filter(|command| {
            crate::analyze::context::invocation(*command, source).is_some_and(|run| {
                run.replaces_shell
                    || (run.name == "exec"
                        && !crate::analyze::context::bare_exec_command(*command, source))
            })
        })
        .find(|command| {
            let path = ancestry(root, *command);
            !path.windows(2).any(|pair| {
                matches!(
                    pair[0].kind(),
                    "subshell" | "command_substitution" | "process_substitution"
                ) || (pair[0].kind() == "pipeline" && pair[0].named_child_count() > 1)
                    || backgrounded(pair[1], source)
            })
        })
        .map(|command| command.start_position().row + 1)
}

/// The commands that call `name`: each place the name occurs as a command's whole name.
fn calls_of<'t>(
    root: tree_sitter::Node<'t>,
    source: &[u8],
    name: &[u8],
) -> impl Iterator<Item = tree_sitter::Node<'t>> {
    let range = move |start: usize| start..start + name.len();
    // A name inside a longer word is no call of it: those need no look into the tree.
    let word = |b: Option<&u8>| b.is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_');
    memchr::memmem::find_iter(source, name)
        .filter(|&start| {
            !word(start.checked_sub(1).and_then(|i| source.get(i)))
                && !word(source.get(start + name.len()))
        })
        .collect::<Vec<_>>()
        .into_iter()
        .filter_map(move |start| {
            let found = root.descendant_for_byte_range(start, start + name.len())?;
            let command_name = std::iter::successors(Some(found), |n| n.parent())
                .take_while(|n| n.byte_range() == range(start))
                .find(|n| n.kind() == "command_name")?;
            command_name.parent().filter(|c| c.kind() == "command")
        })
}

/// `DESCRIPTOR_CLASH` in a script migrated already (edited since, `f >&8`): a write there goes
/// around the document, onto the real stdout. Not in a runtime that leaves stdout alone
/// (`__skm_stdout=keep`), and never in skillmod's own inline block.
pub fn clash_in_migrated(analysis: &Analysis, source: &[u8]) -> Option<(usize, Error)> {
    let runtime = runtime_link::find(source)?;
    let settings = match &runtime {
        runtime_link::RuntimeLine::Block { range, .. } => {
            runtime_link::block_settings(&source[range.clone()])
        }
        other => &source[other.range()],
    };
    if runtime_link::setting(settings, "__skm_stdout") == Some("keep") {
        return None;
    }
    let skipped = runtime.range();
    let line =
        redirects_descriptor_outside(analysis.tree.root_node(), source, SAVED_STDOUT, &skipped)?;
    Some((
        line,
        Error::new(
            codes::DESCRIPTOR_CLASH,
            format!(
                "line {line}: the migrated script redirects descriptor {SAVED_STDOUT}, where the runtime keeps the real stdout for the document, so what it writes there lands around the document; use another descriptor"
            ),
        ),
    ))
}

/// The line of the first redirection that names descriptor `fd` (`8>x`, `>&8`, `exec 8>&1`).
fn redirects_descriptor(root: tree_sitter::Node<'_>, source: &[u8], fd: &str) -> Option<usize> {
    redirects_descriptor_outside(root, source, fd, &(0..0))
}

/// `redirects_descriptor` for the redirections outside `skipped` (skillmod's inline block).
fn redirects_descriptor_outside(
    root: tree_sitter::Node<'_>,
    source: &[u8],
    fd: &str,
    skipped: &std::ops::Range<usize>,
) -> Option<usize> {
    // Most scripts never name the descriptor: no walk then.
    let named = [format!("{fd}>"), format!("{fd}<"), format!("&{fd}")]
        .iter()
        .any(|n| memchr::memmem::find(source, n.as_bytes()).is_some());
    if !named {
        return None;
    }
    let mut cursor = root.walk();
    let mut stack = vec![root];
    let mut first: Option<usize> = None;
    while let Some(node) = stack.pop() {
        if matches!(
            node.kind(),
            "file_redirect" | "heredoc_redirect" | "herestring_redirect"
        ) {
            let mut inner = node.walk();
            let names_fd = node.children(&mut inner).any(|child| {
                let text = &source[child.byte_range()];
                match child.kind() {
                    "file_descriptor" => text == fd.as_bytes(),
                    _ => {
                        child
                            .prev_sibling()
                            .is_some_and(|op| matches!(&source[op.byte_range()], b">&" | b"<&"))
                            && text.strip_suffix(b"-").unwrap_or(text) == fd.as_bytes()
                    }
                }
            });
            if names_fd && !skipped.contains(&node.start_byte()) {
                let line = node.start_position().row + 1;
                first = Some(first.map_or(line, |f| f.min(line)));
            }
        }
        stack.extend(node.children(&mut cursor));
    }
    first
}

/// Plan capture mode for one script, which the one verdict (`verdict::refusal`) lets migrate
/// rewrite.
pub fn plan_capture_mode(
    analysis: &Analysis,
    source: &[u8],
    link: &Link,
    role: Role,
    library: Option<bool>,
) -> Plan {
    let mut plan = Plan::default();
    record_legacy(&mut plan, analysis, source, role);
    chain_traps(&mut plan, analysis, source, role);
    if role.loads_runtime() {
        // Success means what it meant (`Analysis::expects_success_line`).
        let success_line = library == Some(true) || analysis.expects_success_line();
        let need = if success_line {
            Need::SuccessLine
        } else {
            Need::ExitStatus
        };
        match link.inline {
            Some(text) => insert_block(&mut plan, source, &runtime_block(link, need, text)),
            None => insert_source_line(&mut plan, source, &source_line(link, need)),
        }
    }
    plan
}

/// Each legacy statement becomes a recording one: the echo's name turns into the recorder
/// (`__skm_rec KIND …`), a `printf` or `tee` runs inside its argument, a helper's call inside
/// `__skm_via`.
fn record_legacy(plan: &mut Plan, analysis: &Analysis, source: &[u8], role: Role) {
    // What goes at a statement's end is pushed before any LEGACY comment, which may go at the
    // same place (the line's end) for an earlier statement on the line.
    for statement in &analysis.legacy {
        let line = statement.line;
        if matches!(statement.form, Form::Printf | Form::Tee) {
            let end = statement.end;
            plan.push(
                end,
                end,
                captured_close(role, kind_of(statement.kind), statement.leaves_line_open),
                Reason::DisableLegacy { line },
            );
        }
        // A helper's call keeps its place and its status; no recorder ends the list.
        if matches!(statement.form, Form::Helper(_)) {
            continue;
        }
        if let Some(at) = super::placement::ends_and_or_list(&analysis.tree, statement.start) {
            plan.push(at, at, " || :", Reason::DisableLegacy { line });
        }
    }
    // A helper's printer renamed once, however many calls hand it a result.
    let mut renamed = std::collections::HashSet::new();
    for statement in &analysis.legacy {
        let kind = kind_of(statement.kind);
        // A library may be sourced by a script without the runtime: `${__skm_r:-:}` is then `:`.
        let recorder = match role {
            Role::Script => "__skm_rec",
            Role::Library | Role::SourcedScript => LIBRARY_RECORDER,
        };
        let line = statement.line;
        if let Form::Helper(passes) = statement.form {
            let via = helper_call(plan, source, statement, role, passes.as_arg(), &mut renamed);
            let at = statement.printer.start;
            plan.push(at, at, via, Reason::DisableLegacy { line });
            continue;
        }
        if statement.form != Form::Echo {
            // `printf …` or `echo … | tee FILE` runs whole inside the recorder's argument: the
            // value is the text it printed, its words are expanded once (in a subshell, as a
            // pipeline's are; printf changes nothing else) and tee's FILE is written as before.
            super::place_legacy_comment(plan, analysis, source, statement);
            let open = match role {
                // The text is taken in an assignment, whose status is the statement's: the
                // recorder returns it, so set -e stops on a printf or tee that fails, as it
                // did, once the line is recorded.
                Role::Script => "{ __skm_o=$(".to_string(),
                Role::Library | Role::SourcedScript if statement.leaves_line_open => {
                    format!("{recorder} {kind} -n \"$(")
                }
                Role::Library | Role::SourcedScript => format!("{recorder} {kind} \"$("),
            };
            plan.push(
                statement.start,
                statement.start,
                open,
                Reason::DisableLegacy { line },
            );
            continue;
        }
        super::place_legacy_comment(plan, analysis, source, statement);
        // A name a line continuation runs through (`ec\⏎ho`) keeps its line breaks: no line
        // of the script moves.
        let printer = &source[statement.printer.clone()];
        let breaks = memchr::memmem::find_iter(printer, b"\\\n").count();
        plan.push(
            statement.printer.start,
            statement.printer.end,
            format!("{recorder} {kind}{}", " \\\n".repeat(breaks)),
            Reason::DisableLegacy { line },
        );
    }
}

/// What a helper's call that hands it a result runs inside. The call runs inside the recorder,
/// which reads the value from the arguments it passes on: they are expanded once. Without the
/// runtime, a library's call is as it was (`${__skm_r:+…}` expands to nothing).
fn helper_call(
    plan: &mut Plan,
    source: &[u8],
    statement: &crate::analyze::LegacyStatement,
    role: Role,
    passes: &str,
    renamed: &mut std::collections::HashSet<usize>,
) -> String {
    let kind = kind_of(statement.kind);
    let line = statement.line;
    match role {
        // The helper does not print on every call: its printers become the runtime's, which
        // record the result handed to the call when they print it.
        Role::Script if !statement.says.is_empty() => {
            for printer in &statement.says {
                if renamed.insert(printer.start) {
                    let said = match &source[printer.clone()] {
                        b"printf" => "__skm_sayf",
                        _ => "__skm_say",
                    };
                    plan.push(
                        printer.start,
                        printer.end,
                        said,
                        Reason::DisableLegacy { line },
                    );
                }
            }
            format!("__skm_via {kind} {passes}s ")
        }
        Role::Script => format!("__skm_via {kind} {passes} "),
        Role::Library | Role::SourcedScript => format!("{LIBRARY_VIA}{kind} {passes}}} "),
    }
}

/// The runtime's name for a legacy kind.
fn kind_of(kind: LegacyKind) -> &'static str {
    match kind {
        LegacyKind::Success | LegacyKind::Complete => "success",
        LegacyKind::Confidence => "confidence",
        LegacyKind::Created => "created",
        LegacyKind::Modified => "modified",
    }
}

/// What closes a `printf` or `tee` statement recorded from its text: in a script, the recorder
/// that returns the statement's status (`__skm_out`); a library's recorder may be `:`.
fn captured_close(role: Role, kind: &str, open_line: bool) -> String {
    let flag = if open_line { "-n " } else { "" };
    match role {
        Role::Script => format!(") || __skm_q=$?; __skm_out {kind} {flag}\"${{__skm_o}}\"; }}"),
        Role::Library | Role::SourcedScript => ")\"".to_string(),
    }
}

/// The script's own `trap … EXIT` commands run before the document is printed instead of
/// replacing the runtime's trap. In a script the command stays and `__skm_took` follows it, taking
/// the action it set back from the shell (ShellCheck still reads the action as code: a variable
/// used only there is used). A reset of a signal the runtime guards, and any trap in a library
/// (whose runtime may be missing), is renamed to the runtime's chaining function instead.
fn chain_traps(plan: &mut Plan, analysis: &Analysis, source: &[u8], role: Role) {
    let root = analysis.tree.root_node();
    let chain = match role {
        Role::Script => "__skm_trap",
        Role::Library | Role::SourcedScript => LIBRARY_TRAP,
    };
    for trap in analysis.taken_traps.iter().filter(|t| !t.in_subshell) {
        if role == Role::Script && !trap.resets_guarded {
            plan.push(
                trap.command_start,
                trap.command_start,
                "{ ",
                Reason::ChainTrap { line: trap.line },
            );
            plan.push(
                trap.command_end,
                trap.command_end,
                " && __skm_took; }",
                Reason::ChainTrap { line: trap.line },
            );
            continue;
        }
        plan.push(
            trap.name_start,
            trap.name_end,
            chain,
            Reason::ChainTrap { line: trap.line },
        );
        // ShellCheck exempts `trap '… $X …'` from SC2016 but not a function: the same string,
        // double-quoted, keeps its value and the linter green.
        let command = root
            .descendant_for_byte_range(trap.name_start, trap.name_end)
            .and_then(|n| {
                std::iter::successors(Some(n), |n| n.parent()).find(|n| n.kind() == "command")
            });
        let mut cursor = root.walk();
        for argument in command
            .iter()
            .flat_map(|c| {
                c.children_by_field_name("argument", &mut cursor)
                    .collect::<Vec<_>>()
            })
            .filter(|a| a.kind() == "raw_string")
        {
            let text = &source[argument.byte_range()];
            let inner = text
                .get(1..text.len().saturating_sub(1))
                .and_then(|t| std::str::from_utf8(t).ok());
            if let Some(inner) = inner.filter(|t| t.contains(['$', '`'])) {
                plan.push(
                    argument.start_byte(),
                    argument.end_byte(),
                    double_quoted(inner),
                    Reason::ChainTrap { line: trap.line },
                );
            }
        }
    }
}

/// The text of a single-quoted word as a double-quoted word with the same value.
fn double_quoted(inner: &str) -> String {
    let mut out = String::from("\"");
    for c in inner.chars() {
        if matches!(c, '\\' | '"' | '$' | '`') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// What a run must reach to report success besides exit status 0 (`__skm_need`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Need {
    /// The script's SUCCESS/COMPLETE line (the default).
    SuccessLine,
    /// Nothing but a clean exit (`__skm_need=0`): the script has no success line off its
    /// failure paths (or no legacy line at all, given the runtime by `--force`).
    ExitStatus,
}

/// The line that loads the runtime (runtime 3): nothing when a runtime is loaded already; else
/// the runtime beside the skill's SKILL.md, from the script's real path, loaded with the
/// per-script settings and the version the line wants (`command .`: a missing file is an error
/// the script survives in every shell). When that fails, the script prints the template's
/// document with `RUNTIME_MISSING`, `RUNTIME_UNREADABLE` or `RUNTIME_VERSION`, says on stderr
/// that the skill folder is incomplete, and exits 70.
pub(crate) fn source_line(link: &Link, need: Need) -> String {
    let format = link
        .failure
        .format
        .replace(SKILL_TOKEN, &shell_json_text(link.skill_name));
    LineParts {
        bash: link.bash,
        relative: link.relative,
        settings: &settings(link, need),
        version: RUNTIME_VERSION,
        format: &format,
        arguments: link.failure.arguments.clone(),
    }
    .text()
}

/// Stands for the skill's name in a failure document's format until a script's line is written.
const SKILL_TOKEN: &str = "@@SKILLMOD_SKILL@@";
/// Stands for the cause in a failure document until its format is written.
const CAUSE_TOKEN: &str = "@@SKILLMOD_CAUSE@@";

/// `text` JSON-escaped (without the quotes) and made safe inside a single-quoted `printf`
/// format.
fn shell_json_text(text: &str) -> String {
    let json = serde_json::to_string(text).unwrap_or_else(|_| "\"\"".into());
    printf_quoted_body(&json[1..json.len() - 1])
}

/// Text made literal inside a single-quoted `printf` format.
fn printf_quoted_body(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('%', "%%")
        .replace('\'', "'\\''")
}

/// The template's document for a run without its runtime: success false, confidence 0, nothing
/// delivered, one error whose code names the cause. JSON spans are written without blanks so
/// the source line stays one line; lines outside them (FINAL_RESULT markers) stay lines.
fn failure_document(template: &Template) -> Result<Failure> {
    let error = serde_json::json!({
        "code": format!("RUNTIME_{CAUSE_TOKEN}"),
        "message": "reinstall the whole skill folder",
    });
    let context = serde_json::json!({
        "success": false,
        "confidence": 0,
        "deliverables": [],
        "files_created": 0,
        "files_modified": 0,
        "errors": [error.clone()],
        "error_member": format!(", \"error\": {error}"),
        "skill_name": SKILL_TOKEN,
    });
    let text = template.render(&context)?;
    let compact = match (text.find('{'), text.rfind('}')) {
        (Some(open), Some(close)) if open < close => format!(
            "{}{}{}",
            &text[..open],
            without_blanks(&text[open..=close]),
            &text[close + 1..]
        ),
        _ => text,
    };
    let mut format = String::from("'");
    let mut arguments = Vec::new();
    let lines: Vec<&str> = compact.trim_end().lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let mut rest = *line;
        while let Some(at) = [CAUSE_TOKEN, NOW_TOKEN]
            .iter()
            .filter_map(|t| rest.find(t).map(|at| (at, *t)))
            .min()
        {
            format.push_str(&printf_quoted_body(&rest[..at.0]));
            format.push_str("%s");
            arguments.push(if at.1 == CAUSE_TOKEN {
                CAUSE_ARGUMENT
            } else {
                NOW_ARGUMENT
            });
            rest = &rest[at.0 + at.1.len()..];
        }
        format.push_str(&printf_quoted_body(rest));
        if i + 1 < lines.len() {
            format.push_str("\\n");
        }
    }
    format.push_str("\\n'");
    Ok(Failure { format, arguments })
}

/// JSON text without the blanks outside its strings.
fn without_blanks(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in json.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !c.is_whitespace() {
            out.push(c);
        }
    }
    out
}

/// `--runtime inline`'s block: a start marker naming the version, the per-script settings as
/// assignments, the runtime as the runtime file has it (less its ShellCheck directive, which
/// belongs at the top of a file), an end marker. Lines end in `\n` even in a CRLF file, which
/// the shell reads fine, and they would not (`fi\r`).
pub(crate) fn runtime_block(link: &Link, need: Need, text: &str) -> String {
    block_text(settings(link, need).trim_end(), text)
}

fn block_text(settings: &str, text: &str) -> String {
    let mut block = format!(
        "{BLOCK_START}{RUNTIME_VERSION} inline: written by `skillmod migrate --runtime inline`; migrate upgrades it, do not edit\n"
    );
    if !settings.is_empty() {
        block.push_str(settings);
        block.push('\n');
    }
    for line in text
        .lines()
        .filter(|l| !l.starts_with("# shellcheck shell="))
    {
        block.push_str(line);
        block.push('\n');
    }
    block.push_str(BLOCK_END);
    block.push('\n');
    block
}

/// The shebang written first in a script that has none (one named with `--skill-path`), so
/// the runtime goes on line 2 as in every other script. Bash, as such a script is read.
use crate::domain::refusal::ADDED_SHEBANG;

/// Put the runtime block after the shebang (and the ShellCheck directives that open the script):
/// every later line moves down by the block's lines.
/// A script without one gets `ADDED_SHEBANG` in front of the block.
fn insert_block(plan: &mut Plan, source: &[u8], block: &str) {
    if !source.starts_with(b"#!") {
        plan.push(0, 0, format!("{ADDED_SHEBANG}\n{block}"), Reason::Runtime);
        return;
    }
    match runtime_link::runtime_start(source) {
        Some(at) => plan.push(at, at, block.to_string(), Reason::Runtime),
        None => plan.push(
            source.len(),
            source.len(),
            format!("\n{block}"),
            Reason::Runtime,
        ),
    }
}

/// The per-script settings that differ from the runtime's defaults, as `NAME=value ` words.
fn settings(link: &Link, need: Need) -> String {
    let mut settings = String::new();
    match need {
        Need::SuccessLine => {}
        // `0`, not a word like `exit`: ShellCheck reads `X=exit cmd` as a mistyped `$(exit)`.
        Need::ExitStatus => settings.push_str("__skm_need=0 "),
    }
    if (link.default_confidence - DEFAULT_CONFIDENCE).abs() > f64::EPSILON {
        let confidence = serde_json::Number::from_f64(link.default_confidence)
            .map_or_else(|| DEFAULT_CONFIDENCE.to_string(), |n| n.to_string());
        settings.push_str(&format!("__skm_dc={confidence} "));
    }
    if link.keep_stdout {
        settings.push_str("__skm_stdout=keep ");
    }
    settings
}

/// The default confidence of a migration: what the runtime reports when neither the skill, its
/// source line nor the settings give one; the same one `validate` reads legacy text with.
pub use crate::contract::legacy_text::DEFAULT_CONFIDENCE;

/// Put the source line after the shebang (and the ShellCheck directives that open the script).
/// Every later line moves down by exactly one; a script without a shebang (named with
/// `--skill-path`) gets `ADDED_SHEBANG` and the line in front of its first line, which moves down
/// by two.
fn insert_source_line(plan: &mut Plan, source: &[u8], line: &str) {
    let eol = placement::line_ending(source);
    // In a CRLF file the shell reads the `\r` as part of the last word (`}\r` closes nothing):
    // a comment takes it instead.
    let line = if eol == "\r\n" {
        format!("{line} #")
    } else {
        line.to_string()
    };
    // The shebang ends in `\n` alone: the kernel would read a `\r` into the program's name.
    if !source.starts_with(b"#!") {
        plan.push(
            0,
            0,
            format!("{ADDED_SHEBANG}\n{line}{eol}"),
            Reason::Runtime,
        );
        return;
    }
    match runtime_link::runtime_start(source) {
        Some(at) => plan.push(at, at, format!("{line}{eol}"), Reason::Runtime),
        None => plan.push(
            source.len(),
            source.len(),
            format!("{eol}{line}{eol}"),
            Reason::Runtime,
        ),
    }
}

/// The per-script settings an already-migrated script's runtime holds (its source line, its
/// block's settings line, or 0.1.0's inline runtime), kept when its form changes.
pub(crate) fn kept_settings(text: &[u8], default_confidence: f64) -> (Need, f64, bool) {
    let need = match runtime_link::setting(text, "__skm_need") {
        // 0.2.0's `__skm_need=0` (any result line) and `exit` are a clean exit now.
        Some("0" | "exit") => Need::ExitStatus,
        _ => Need::SuccessLine,
    };
    let confidence = runtime_link::setting(text, "__skm_dc")
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or(default_confidence);
    let keep = runtime_link::setting(text, "__skm_stdout") == Some("keep");
    (need, confidence, keep)
}

/// Bring an already-migrated script's runtime to `link`'s form (the source line this skillmod
/// writes, or its inline block when `link.inline`), keeping the per-script settings: runtime 2's
/// line or a line naming another folder, an older block, 0.1.0's inline runtime, or a form the
/// settings no longer ask for. None when the script already has it. Legacy statements were
/// rewritten before and stay as they are; the script still gains one line (or the block). A
/// script that records a success line (`recorded_success`) needs one, whatever its line says.
pub(crate) fn plan_convert(
    source: &[u8],
    current: &runtime_link::RuntimeLine,
    link: &Link,
    recorded_success: bool,
) -> Option<Plan> {
    use runtime_link::RuntimeLine;
    let (settings_text, mut range) = match current {
        RuntimeLine::Sourced { line, .. } => (&source[line.clone()], line.clone()),
        RuntimeLine::Block { range, .. } => (
            runtime_link::block_settings(&source[range.clone()]),
            range.clone(),
        ),
        RuntimeLine::Inline { range } => (&source[range.clone()], range.clone()),
    };
    let (need, default_confidence, keep_stdout) =
        kept_settings(settings_text, link.default_confidence);
    let need = if recorded_success {
        Need::SuccessLine
    } else {
        need
    };
    let link = Link {
        default_confidence,
        keep_stdout,
        ..link.clone()
    };
    let eol = placement::line_ending(source);
    let wanted = match link.inline {
        Some(text) => runtime_block(&link, need, text),
        None if eol == "\r\n" => format!("{} #\r\n", source_line(&link, need)),
        None => format!("{}\n", source_line(&link, need)),
    };
    if let RuntimeLine::Inline { .. } = current {
        // 0.1.0's runtime sat in front of the original line 2, followed by one space (or by the
        // line end when line 2 was empty): the new form goes before that line instead.
        let mut end = range.end;
        if source.get(end) == Some(&b' ') {
            end += 1;
        } else if source[end..].starts_with(b"\r\n") {
            end += 2;
        } else if source.get(end) == Some(&b'\n') {
            end += 1;
        }
        range = range.start..end;
    } else if source[range.clone()] == *wanted.as_bytes() {
        return None;
    }
    let mut plan = Plan::default();
    plan.push(range.start, range.end, wanted, Reason::Runtime);
    Some(plan)
}

/// The runtime file's name for a template: `skillmod-runtime.sh` for the default, else the
/// template's file stem in it (`skillmod-runtime.envelope.sh`).
pub(crate) fn runtime_file_name(template: &str) -> String {
    if template == DEFAULT_TEMPLATE {
        return format!("{FILE_STEM}.sh");
    }
    let stem = template.rsplit('/').next().unwrap_or(template);
    let stem = stem.split('.').next().unwrap_or(stem);
    let slug: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    format!("{FILE_STEM}.{slug}.sh")
}

/// The version a runtime file's first line declares (`# skillmod-runtime 2 …`).
pub(crate) fn version_of(text: &[u8]) -> Option<u32> {
    let rest = text.strip_prefix(format!("# {FILE_STEM} ").as_bytes())?;
    let end = rest.iter().position(|b| !b.is_ascii_digit())?;
    std::str::from_utf8(&rest[..end]).ok()?.parse().ok()
}

/// Render the runtime of every built-in template once, so their texts are known runtimes
/// wherever a script or a runtime file is judged.
pub(crate) fn trust_builtins() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        for builtin in super::template::BUILTINS {
            if let Ok(template) = Template::load(builtin.name) {
                let _ = render_runtime(&template);
            }
        }
    });
}

/// The runtime template, compiled once per process.
fn runtime_environment() -> &'static std::result::Result<Environment<'static>, minijinja::Error> {
    static ENVIRONMENT: OnceLock<std::result::Result<Environment<'static>, minijinja::Error>> =
        OnceLock::new();
    ENVIRONMENT.get_or_init(|| {
        let mut env = Environment::new();
        env.add_template("runtime", RUNTIME).map(|_| env)
    })
}

/// Render the runtime for `template`: the template's JSON lines become the double-quoted
/// arguments of one `printf`, with the shell's special characters escaped so only the run-time
/// fields expand (`${…}` of variables holding JSON text). No value of any script passes through
/// the template: every field is a placeholder here.
pub fn render_runtime(template: &Template) -> Result<Runtime> {
    let mut context = serde_json::Map::new();
    for (field, _) in FIELDS {
        context.insert((*field).to_string(), sentinel(field).into());
    }
    let json = template.render(&serde_json::Value::Object(context))?;
    let uses = |field: &str| json.contains(&sentinel(field));
    let mut args = Vec::new();
    for line in json.lines() {
        let mut arg = String::from("\"");
        for c in line.trim_end_matches('\r').chars() {
            if matches!(c, '\\' | '$' | '`' | '"') {
                arg.push('\\');
            }
            arg.push(c);
        }
        arg.push('"');
        for (field, variable) in FIELDS {
            arg = arg.replace(&sentinel(field), &format!("${{{variable}}}"));
        }
        args.push(arg.replace(NOW_TOKEN, "${__skm_now}"));
    }
    let context = RuntimeContext {
        version: RUNTIME_VERSION,
        template: &template.name,
        default_confidence: DEFAULT_CONFIDENCE,
        uses_time: uses("execution_time_ms"),
        uses_errors: uses("errors"),
        uses_error_member: uses("error_member"),
        uses_now: json.contains(NOW_TOKEN),
        uses_name: uses("skill_name"),
        body: args.join(" \\\n    "),
    };
    let text = runtime_environment()
        .as_ref()
        .map_err(|e| {
            Error::new(
                codes::TEMPLATE_INVALID,
                format!("capture runtime does not compile: {e}"),
            )
        })?
        .get_template("runtime")
        .and_then(|t| t.render(minijinja::value::Serde(&context)))
        .map_err(|e| {
            Error::new(
                codes::TEMPLATE_RENDER_FAILED,
                format!("capture runtime failed to render: {e}"),
            )
        })?;
    let text = text + "\n";
    // This skillmod's own renderings are known runtimes: as a file, and as a block (less its
    // settings line, as blocks are compared).
    runtime_link::trust(text.as_bytes(), RUNTIME_VERSION);
    runtime_link::trust(block_text("", &text).as_bytes(), RUNTIME_VERSION);
    Ok(Runtime {
        file_name: runtime_file_name(&template.name),
        text,
        failure: failure_document(template)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::{BashParser, parser::error_count};
    use crate::rewrite::template::BUILTINS;

    const LINE_START_FOR_TESTS: &str = runtime_link::LINE_START;

    #[test]
    fn runtime_file_is_clean_short_lined_shell_for_every_template() {
        let mut parser = BashParser::new().expect("parser");
        for builtin in BUILTINS {
            let template = Template::load(builtin.name).expect("template");
            let runtime = render_runtime(&template).expect("render");
            assert_eq!(version_of(runtime.text.as_bytes()), Some(RUNTIME_VERSION));
            let long: Vec<&str> = runtime.text.lines().filter(|l| l.len() > 120).collect();
            assert!(long.is_empty(), "{}: long lines {long:?}", builtin.name);
            let tree = parser.parse(runtime.text.as_bytes()).expect("parse");
            assert_eq!(error_count(&tree), 0, "{}: parse errors", builtin.name);
            for shell in ["bash", "dash"] {
                let status = std::process::Command::new(shell)
                    .args(["-n", "-c", &runtime.text])
                    .status()
                    .expect("shell");
                assert!(status.success(), "{}: {shell} -n rejects it", builtin.name);
            }
        }
    }

    #[test]
    fn runtime_holds_no_code_for_fields_the_template_does_not_print() {
        let v1 =
            render_runtime(&Template::load("skill-output-v1").expect("template")).expect("render");
        assert_eq!(v1.file_name, "skillmod-runtime.sh");
        assert!(!v1.text.contains("__skm_error_member"));
        assert!(!v1.text.contains("__skm_now"));
        assert!(!v1.text.contains("__skm_name"));
        let envelope =
            render_runtime(&Template::load("envelope").expect("template")).expect("render");
        assert_eq!(envelope.file_name, "skillmod-runtime.envelope.sh");
        assert!(!envelope.text.contains("__skm_errors="));
        assert!(envelope.text.contains("__skm_now=$(date"));
        assert!(envelope.text.contains("__skm_name="));
    }

    #[test]
    fn source_line_reads_back_and_names_only_what_differs() {
        let runtime =
            render_runtime(&Template::load("skill-output-v1").expect("template")).expect("render");
        let link = Link {
            relative: "../../skillmod-runtime.sh",
            default_confidence: DEFAULT_CONFIDENCE,
            keep_stdout: false,
            inline: None,
            bash: true,
            failure: &runtime.failure,
            skill_name: "it's 100% \"odd\"",
        };
        let line = source_line(&link, Need::SuccessLine);
        assert!(line.starts_with(LINE_START_FOR_TESTS), "{line}");
        let parts = LineParts::parse(&line).expect("reads back");
        assert_eq!(parts.text(), line);
        assert_eq!(parts.relative, "../../skillmod-runtime.sh");
        assert_eq!(parts.settings, "");
        assert!(!line.contains('\n'));
        let other = Link {
            default_confidence: 0.9,
            keep_stdout: true,
            bash: false,
            ..link
        };
        let line = source_line(&other, Need::ExitStatus);
        assert!(
            line.contains(
                "; __skm_need=0 __skm_dc=0.9 __skm_stdout=keep __skm_loaded=3 command . "
            ),
            "{line}"
        );
        assert!(!line.contains("BASH_SOURCE"), "{line}");
        assert_eq!(LineParts::parse(&line).expect("reads back").text(), line);
    }

    #[test]
    fn every_template_has_a_one_line_failure_document() {
        for builtin in BUILTINS {
            let runtime =
                render_runtime(&Template::load(builtin.name).expect("template")).expect("render");
            let failure = &runtime.failure;
            assert!(failure.format.starts_with('\'') && failure.format.ends_with('\''));
            assert!(!failure.format.contains('\n'), "{}", failure.format);
            assert!(
                failure.arguments.contains(&CAUSE_ARGUMENT),
                "{}",
                builtin.name
            );
        }
    }
}
