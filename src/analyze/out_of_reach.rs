//! Legacy-looking text in forms the analysis cannot read as output: a heredoc printed by `cat`, a
//! `printf` whose format is computed or prints several lines, a `trap` action, a variable's value,
//! a line written to a descriptor opened earlier (`>&3`), a pipe into another command, a string
//! run by `eval` or `bash -c`, a coprocess.
//! The script may print it on stdout at run time; check says so in a note (SKM010), so "All
//! clear" is never silent about text it could not judge.

use serde::{Deserialize, Serialize};
use tree_sitter::Node;

use super::context::{Survey, invocation};
use super::parser::ancestry;
use super::redirects::Points;
use super::{LegacyStatement, Vocabulary, opens_json_heredoc, words};

/// Where marker text stands that may be printed in a way the analysis cannot follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Form {
    CatHeredoc,
    Printf,
    TrapAction,
    Variable,
    /// A call of a command the script does not define, in a script that sources other files or
    /// uses `eval`: a helper defined there may print the line it is handed.
    Call,
    /// An `echo` in a function, group or loop whose output the script pipes into a `tee` that
    /// prints it (`main "$@" 2>&1 | tee -a "$LOG"`, `{ …; } | tee log`).
    PipedToTee,
    /// An `echo` or `printf` written to a descriptor the script opened earlier, which may be
    /// stdout (`exec 3>&1 >&2` … `echo SUCCESS >&3`).
    Descriptor,
    /// An `echo` of several lines, results of two kinds or a value among other text
    /// (`echo -e "Created: a\nSUCCESS"`): capture mode records one kind per statement.
    SeveralLines,
    /// An `echo` or `printf` piped into a command other than `tee` whose output reaches stdout
    /// (`echo SUCCESS | cat`, `… | sed …`): what that command prints is known only at run time.
    PipedToCommand,
    /// Text in a string the shell runs as code: `eval "echo SUCCESS"`, `bash -c '…'`, an alias,
    /// a here-string or heredoc fed to `source` or a shell.
    ShellString,
    /// An `echo` or `printf` another program runs (`env echo`, `nice`, `timeout 5 echo`).
    Runner,
    /// A coprocess (`coproc echo SUCCESS`), whose output the script reads back through its
    /// descriptors.
    Coproc,
    /// A heredoc or here-string fed to a command other than `cat`, a shell or `read`, which may
    /// print it (`head <<< SUCCESS`, `sed … <<EOF`).
    Input,
    /// The arguments of a command whose name is computed (`$e SUCCESS`, `${ECHO:-echo} …`),
    /// which may be a printer.
    ComputedName,
    /// An `echo` or `printf` to stderr where stderr goes to stdout: inside a group, loop or
    /// function redirected with `2>&1`, in a function called with `2>&1`, or after `exec 2>&1`.
    StderrToStdout,
    /// An `echo` or `printf` in a command or process substitution (`echo "$(echo SUCCESS)"`,
    /// `cat <(echo SUCCESS)`): the command that reads its output may print it.
    Substitution,
    /// A result handed to a function of the script that is no helper check can follow: it passes
    /// the text on to another function, or prints it beside other arguments (`st OK "Created: x"`
    /// printing `[$1] $2`).
    FunctionArgument,
}

impl Form {
    /// The form, as the note names it.
    pub fn describe(self) -> &'static str {
        match self {
            Form::CatHeredoc => "a heredoc or here-string printed by `cat`",
            Form::Printf => {
                "a `printf` whose output is no literal result line (a computed format, several lines, or text before the marker)"
            }
            Form::TrapAction => "a `trap` action",
            Form::Variable => {
                "a variable's value (assigned, a `for` loop's word, `set --`, read back with `read` or `mapfile`, or a default such as `${x:-…}`)"
            }
            Form::Call => "the arguments of a command defined elsewhere (a sourced file, `eval`)",
            Form::PipedToTee => {
                "a function, group or loop whose output is piped into `tee`, which prints it"
            }
            Form::Descriptor => {
                "a write to a descriptor the script opened earlier (`exec 3>&1` … `>&3`) or to a file named at run time (`> \"$OUT\"`, `> >(tee log)`), which may be stdout"
            }
            Form::SeveralLines => {
                "an `echo` of several lines holding results of two kinds, or a value among other text (print each result on its own line)"
            }
            Form::PipedToCommand => {
                "an `echo` or `printf` piped into a command other than `tee` (`| cat`, `| sed …`), which may print it"
            }
            Form::ShellString => {
                "a string run as code (`eval`, `bash -c`, `sh -c`, an alias, a heredoc or here-string fed to `source` or a shell)"
            }
            Form::Runner => {
                "an `echo` or `printf` run by another program (`env`, `nice`, `timeout`, `setsid`, `xargs`, …)"
            }
            Form::Coproc => "a coprocess, whose output the script reads back",
            Form::Input => {
                "a heredoc or here-string fed to a command that may print it (`head <<< …`, `sed … <<EOF`)"
            }
            Form::ComputedName => {
                "the arguments of a command whose name is computed (`$e SUCCESS`, `${ECHO:-echo} …`), which may print them"
            }
            Form::StderrToStdout => {
                "an `echo` or `printf` to stderr where stderr goes to stdout (`{ …; } 2>&1`, `f 2>&1`, `exec 2>&1`)"
            }
            Form::Substitution => {
                "an `echo` or `printf` in a command or process substitution (`$(echo …)`, `<(echo …)`), whose reader may print it"
            }
            Form::FunctionArgument => {
                "the arguments of a function of the script that check cannot follow to its output (it hands them to another function, or prints them beside other arguments)"
            }
        }
    }
}

/// One place: 1-based line and column of the marker, and the form around it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutOfReach {
    pub line: usize,
    pub column: usize,
    pub form: Form,
}

/// The markers outside the legacy statements found, in a form the analysis cannot read; one per
/// line.
pub(super) fn find(
    survey: &Survey<'_, '_>,
    root: Node<'_>,
    source: &[u8],
    vocabulary: Vocabulary,
    legacy: &[LegacyStatement],
) -> Vec<OutOfReach> {
    let mut out: Vec<OutOfReach> = Vec::new();
    // Whether the script loads code from elsewhere, read only when a call needs the answer.
    let elsewhere = std::cell::OnceCell::new();
    // The statements' ranges by start, searched per marker: a file of n legacy lines has n
    // markers, so a scan of the list per marker would cost n².
    // With each start, the furthest end of the ranges starting there or before: `at` lies in
    // one of them when that end passes it.
    let mut taken: Vec<(usize, usize)> = legacy.iter().map(|s| (s.start, s.end)).collect();
    taken.sort_unstable();
    let mut furthest = 0;
    for range in &mut taken {
        furthest = furthest.max(range.1);
        range.1 = furthest;
    }
    let inside = |at: usize| {
        let after = taken.partition_point(|&(start, _)| start <= at);
        after > 0 && taken[after - 1].1 > at
    };
    for at in vocabulary.marker_offsets(source) {
        if inside(at) {
            continue;
        }
        let Some(form) = root
            .descendant_for_byte_range(at, at + 1)
            .and_then(|node| form_around(node, at, survey, source, vocabulary, &elsewhere))
        else {
            continue;
        };
        let position = super::parser::line_column(source, at);
        if out.last().is_none_or(|last| last.line != position.0) {
            out.push(OutOfReach {
                line: position.0,
                column: position.1,
                form,
            });
        }
    }
    out
}

/// Whether the source line holding `at`, printed as it stands, is a result line.
fn prints_a_result_line(source: &[u8], at: usize, vocabulary: Vocabulary) -> bool {
    let start = memchr::memrchr(b'\n', &source[..at]).map_or(0, |i| i + 1);
    let end = memchr::memchr(b'\n', &source[at..]).map_or(source.len(), |i| at + i);
    let line = String::from_utf8_lossy(&source[start..end]);
    vocabulary
        .classify_line(line.trim_end_matches('\r'))
        .is_some()
}

/// The form the innermost construct around `node` (the marker at `at`) makes of it, if one that
/// may print it.
fn form_around(
    node: Node<'_>,
    at: usize,
    survey: &Survey<'_, '_>,
    source: &[u8],
    vocabulary: Vocabulary,
    elsewhere: &std::cell::OnceCell<bool>,
) -> Option<Form> {
    let mut child: Option<Node<'_>> = None;
    for ancestor in std::iter::successors(Some(node), |n| n.parent()) {
        let from = child.replace(ancestor);
        match ancestor.kind() {
            "comment" => return None,
            "heredoc_body" => {
                // `cat <<EOF > FILE`: tree-sitter-bash hangs the file redirect on the heredoc.
                let redirect = ancestor.parent()?;
                if super::redirects::redirects_stdout(redirect, source) {
                    return None;
                }
                let command = redirect
                    .parent()
                    .filter(|p| p.kind() == "redirected_statement")?
                    .child_by_field_name("body")?;
                // A line `cat` prints is output as it stands: one the vocabulary reads as no
                // result line (`  - Complete   - mark a task done` in a usage text) is no
                // legacy-looking text.
                return input_form(command, survey, source, true).filter(|form| {
                    *form != Form::CatHeredoc || prints_a_result_line(source, at, vocabulary)
                });
            }
            "herestring_redirect" => {
                // `cat <<< SUCCESS`, `source /dev/stdin <<< "echo SUCCESS"`: tree-sitter-bash
                // hangs the here-string on the command.
                let command = ancestor.parent().filter(|p| p.kind() == "command")?;
                if super::redirects::stdout_after(command, source) != Points::Stdout {
                    return None;
                }
                return input_form(command, survey, source, false);
            }
            "variable_assignment" => {
                let value = ancestor.child_by_field_name("value")?;
                // An array's elements are values each (`declare -A m=([k]=SUCCESS)`).
                let mut cursor = value.walk();
                let elements: Vec<Node<'_>> = match value.kind() {
                    "array" => value.named_children(&mut cursor).collect(),
                    _ => vec![value],
                };
                return elements
                    .into_iter()
                    .any(|v| vocabulary.classify(&element_value(v, source)).is_some())
                    .then_some(Form::Variable);
            }
            // `echo "${x:-SUCCESS}"`, `: "${x:=SUCCESS}"`: a default printed or assigned; the
            // variable's name (`${COMPLETE:=0}`) is neither.
            "expansion" => {
                return from
                    .is_none_or(|from| from.kind() != "variable_name")
                    .then_some(Form::Variable);
            }
            // `for w in SUCCESS …`: each word becomes the loop variable's value.
            "for_statement" => return Some(Form::Variable),
            "command" => return command_form(ancestor, survey, source, vocabulary, elsewhere),
            _ => {}
        }
    }
    None
}

/// An array element's value: `[KEY]=VALUE` gives VALUE (tree-sitter-bash reads it as the words
/// `[`, `KEY`, `]` and `=VALUE`), anything else the element itself.
fn element_value(element: Node<'_>, source: &[u8]) -> words::Printed {
    let mut cursor = element.walk();
    let parts: Vec<Node<'_>> = element.children(&mut cursor).collect();
    let text = |n: &Node<'_>| &source[n.byte_range()];
    let keyed = element.kind() == "concatenation" && parts.first().is_some_and(|p| text(p) == b"[");
    let value_at = parts
        .iter()
        .position(|p| text(p) == b"]")
        .filter(|_| keyed)
        .and_then(|close| parts.get(close + 1).filter(|p| text(p).starts_with(b"=")));
    let Some(first) = value_at else {
        return words::word_value(element, source);
    };
    let mut value = words::Printed::default();
    value.push_literal(&String::from_utf8_lossy(&text(first)[1..]));
    let after = first.end_byte();
    for part in parts.iter().filter(|p| p.start_byte() >= after) {
        value.append(words::word_value(*part, source));
    }
    value
}

/// Whether one of `sites` is `command`, and its output reaches stdout.
fn reaches(survey: &Survey<'_, '_>, sites: &[super::context::Site<'_>], command: Node<'_>) -> bool {
    sites
        .iter()
        .any(|s| s.node.id() == command.id() && survey.reach(s).is_ok())
}

/// The form of text `command` reads from a heredoc or here-string: run as code by a shell or
/// `source`, or printed by `cat` (a heredoc that opens skillmod's own JSON block is none).
fn input_form(
    command: Node<'_>,
    survey: &Survey<'_, '_>,
    source: &[u8],
    heredoc: bool,
) -> Option<Form> {
    if runs_its_input(command, source) {
        return reaches_stdout(survey, command).then_some(Form::ShellString);
    }
    let name = invocation(command, source)?.name;
    match name.as_str() {
        "cat" => (reaches(survey, &survey.cats, command)
            && !(heredoc && opens_json_heredoc(command, source)))
        .then_some(Form::CatHeredoc),
        // The text becomes a variable's value, which the script may print later.
        "read" | "mapfile" | "readarray" => Some(Form::Variable),
        _ => reaches_stdout(survey, command).then_some(Form::Input),
    }
}

/// The form a command around marker text makes of it: a printer the analysis could not read as
/// a statement, or a command that runs or hands on the text.
fn command_form(
    command: Node<'_>,
    survey: &Survey<'_, '_>,
    source: &[u8],
    vocabulary: Vocabulary,
    elsewhere: &std::cell::OnceCell<bool>,
) -> Option<Form> {
    let Some(invocation) = invocation(command, source) else {
        // A migrated library's recorder records the line; it prints nothing.
        let name = command.child_by_field_name("name");
        if name.is_some_and(|n| super::runtime_link::is_library_hook(&source[n.byte_range()])) {
            return None;
        }
        // A name known only at run time (`$e`, `"${a[0]}"`): it may be `echo`.
        return reaches_stdout(survey, command).then_some(Form::ComputedName);
    };
    match invocation.name.as_str() {
        "printf" if reaches(survey, &survey.printfs, command) => Some(Form::Printf),
        // `printf -v m 'SUCCESS'`: the text becomes a variable's value.
        "printf" if super::context::assigns_only(command, source) => Some(Form::Variable),
        "echo" | "printf" => printer_form(command, survey, source, vocabulary),
        "trap" => Some(Form::TrapAction),
        // `set -- SUCCESS`: the words become the positional parameters (`"$1"`, `"$@"`).
        "set" => Some(Form::Variable),
        "eval" => reaches_stdout(survey, command).then_some(Form::ShellString),
        "bash" | "sh" | "dash" | "ksh" | "zsh"
            if runs_a_string(command, source) && reaches_stdout(survey, command) =>
        {
            Some(Form::ShellString)
        }
        "coproc" => Some(Form::Coproc),
        "alias" => Some(Form::ShellString),
        // `env echo`, `/usr/bin/env echo`, `setsid echo`, `flock F echo`: any program handed
        // `echo` or `printf` as a word may run it.
        _ if runs_a_printer(command, source) && reaches_stdout(survey, command) => {
            Some(Form::Runner)
        }
        // The runtime's own functions (an inline block's `__skm_rec created "Created: a"`):
        // a script of its own cannot use the names (NAME_CLASH).
        name if name.starts_with(super::runtime_link::RESERVED_PREFIX) => None,
        // A call of a function of the script that is no helper (its calls would be legacy
        // statements): what it does with a result line is not followed.
        name if survey.defines(name.as_bytes()) => {
            let call = survey.may_print(name.as_bytes())
                && survey
                    .calls()
                    .any(|(_, s)| s.node.id() == command.id() && survey.reach(s).is_ok());
            let result = || {
                invocation
                    .arguments(command, source)
                    .into_iter()
                    .any(|a| vocabulary.classify(&words::word_value(a, source)).is_some())
            };
            (call && result()).then_some(Form::FunctionArgument)
        }
        name if !survey.defines(name.as_bytes())
            && *elsewhere.get_or_init(|| super::prefilter::may_hand_on(source)) =>
        {
            let call = survey
                .calls()
                .any(|(_, s)| s.node.id() == command.id() && survey.reach(s).is_ok());
            let given = super::helpers::given(command, source, super::helpers::Passes::All);
            (call && vocabulary.classify(&given).is_some()).then_some(Form::Call)
        }
        _ => None,
    }
}

/// The form of an `echo` or `printf` the analysis read as no legacy statement: written to a
/// descriptor opened earlier, piped into `tee` or another command, or several lines on stdout.
fn printer_form(
    printer: Node<'_>,
    survey: &Survey<'_, '_>,
    source: &[u8],
    vocabulary: Vocabulary,
) -> Option<Form> {
    use super::context::NotStdout;
    let site = survey
        .echoes
        .iter()
        .chain(&survey.printfs)
        .find(|s| s.node.id() == printer.id())?;
    let points = super::redirects::stdout_after(printer, source);
    // Which descriptor is stdout then is decided where it was opened, at run time: the
    // analysis reads one command's redirections only, its own or a group's around it
    // (`{ echo …; } >&3`).
    let to_a_descriptor = || {
        points == Points::Unknown
            || ancestry(survey.root, printer).iter().any(|n| {
                n.kind() == "redirected_statement"
                    && super::redirects::stdout_after(*n, source) == Points::Unknown
            })
    };
    // What it prints must read as a result line (`## Success Criteria` does not).
    let reads_as_result = || {
        let dialect = super::Dialect::of(survey.root, source);
        let printed = match super::context::invocation(printer, source) {
            Some(run) if run.name == "printf" => words::printf_output(printer, source, dialect),
            _ => Some(words::echo_output(printer, source, dialect)),
        };
        printed.is_none_or(|p| p.lines().iter().any(|l| vocabulary.classify(l).is_some()))
    };
    if survey.reach(site) == Err(NotStdout::Redirected) && to_a_descriptor() && reads_as_result() {
        return Some(Form::Descriptor);
    }
    let in_function = survey.function_of(site).is_some_and(|(function, _)| {
        survey.reach(site) == Err(NotStdout::Captured) && piped_into_tee(survey, source, function)
    });
    if in_function {
        return Some(Form::PipedToTee);
    }
    if in_substitution(survey, printer) {
        return Some(Form::Substitution);
    }
    // `f() { echo …; } >&2` called as `f 2>&1`: the call's redirections apply first, so the
    // definition's `>&2` points at stdout.
    let through_definition = points == Points::Stdout
        && survey.reach(site) == Err(NotStdout::Redirected)
        && ancestry(survey.root, printer)
            .iter()
            .rev()
            .find(|n| n.kind() == "function_definition")
            .is_some_and(|f| super::redirects::stdout_after(*f, source) == Points::Stderr);
    if (points == Points::Stderr || through_definition)
        && stderr_reaches_stdout(survey, printer, source)
    {
        return Some(Form::StderrToStdout);
    }
    if survey.reach(site) == Err(NotStdout::Piped)
        && let Some(last) = pipe_end(printer)
    {
        if prints_through_tee(survey, source, last) {
            return Some(Form::PipedToTee);
        }
        // The pipeline stands where the echo does: only the last part's own redirections may
        // send its output elsewhere.
        if super::redirects::stdout_after(last, source) == Points::Stdout
            && !survey.in_captured_function(site)
        {
            return Some(Form::PipedToCommand);
        }
    }
    // On stdout, a result among its lines that no kind records as a whole.
    let printed = words::echo_output(printer, source, super::Dialect::of(survey.root, source));
    let lines = printed.lines();
    (survey.reach(site).is_ok()
        && lines.len() > 1
        && lines.iter().any(|l| vocabulary.classify(l).is_some()))
    .then_some(Form::SeveralLines)
}

/// The last part of the first pipeline around `echo` (directly or through a group or loop), when
/// `echo` is not in that part itself: what reads the echo's output.
fn pipe_end(echo: Node<'_>) -> Option<Node<'_>> {
    let mut at = echo;
    while let Some(parent) = at.parent() {
        match parent.kind() {
            "pipeline" => {
                let count = parent.named_child_count();
                let last = parent.named_child((count.max(1) - 1) as u32)?;
                return (last.id() != at.id()).then_some(last);
            }
            "function_definition" | "command_substitution" | "process_substitution" => {
                return None;
            }
            _ => at = parent,
        }
    }
    None
}

/// Whether `printer` stands in a command or process substitution of its own function or script
/// (a function's output captured by its caller is not this: its `echo` is its return value).
fn in_substitution(survey: &Survey<'_, '_>, printer: Node<'_>) -> bool {
    ancestry(survey.root, printer)
        .iter()
        .rev()
        .skip(1)
        .take_while(|n| n.kind() != "function_definition")
        .any(|n| matches!(n.kind(), "command_substitution" | "process_substitution"))
}

/// Whether stderr may be the script's stdout where `printer` runs: an enclosing statement or
/// function definition sends it there (`{ …; } 2>&1`), the script runs `exec 2>&1`, or the
/// function holding it is called (directly or through other functions) with `2>&1`.
fn stderr_reaches_stdout(survey: &Survey<'_, '_>, printer: Node<'_>, source: &[u8]) -> bool {
    use super::redirects::stderr_to_stdout;
    let root = survey.root;
    let path = ancestry(root, printer);
    // The printer's own redirections were read with it (`echo x 2>&1 >&2`).
    let enclosing = path.iter().rev().skip(1).enumerate().any(|(i, n)| {
        let own = i == 0 && n.kind() == "redirected_statement";
        !own && matches!(n.kind(), "redirected_statement" | "function_definition")
            && stderr_to_stdout(*n, source)
    });
    let merges = |command: Node<'_>| stderr_to_stdout(command, source);
    if enclosing
        || commands_named(root, source, b"exec")
            .into_iter()
            .any(merges)
    {
        return true;
    }
    fn innermost_function<'t>(path: &[Node<'t>]) -> Option<Node<'t>> {
        path.iter()
            .rev()
            .find(|n| n.kind() == "function_definition")
            .copied()
    }
    // The functions whose calls may carry the echo, each looked at once.
    let mut queue: Vec<Node<'_>> = innermost_function(&path).into_iter().collect();
    let mut seen: Vec<usize> = Vec::new();
    while let Some(function) = queue.pop() {
        if seen.contains(&function.id()) || seen.len() > 64 {
            continue;
        }
        seen.push(function.id());
        let Some(name) = function.child_by_field_name("name") else {
            continue;
        };
        for call in commands_named(root, source, &source[name.byte_range()]) {
            if merges(call) {
                return true;
            }
            queue.extend(innermost_function(&ancestry(root, call)));
        }
    }
    false
}

/// The commands under `root` whose name is the word `name`.
fn commands_named<'t>(root: Node<'t>, source: &[u8], name: &[u8]) -> Vec<Node<'t>> {
    super::context::word_occurrences_of_all(source, &[name])
        .into_iter()
        .filter_map(|at| root.descendant_for_byte_range(at, at + name.len()))
        .filter_map(|word| {
            std::iter::successors(Some(word), |n| n.parent())
                .take(3)
                .find(|n| n.kind() == "command")
        })
        .filter(|command| {
            command
                .child_by_field_name("name")
                .is_some_and(|n| &source[n.byte_range()] == name)
        })
        .collect()
}

/// Whether `command`, a command the survey met (one holding marker text), prints on the script's
/// stdout.
fn reaches_stdout(survey: &Survey<'_, '_>, command: Node<'_>) -> bool {
    survey
        .calls()
        .any(|(_, site)| site.node.id() == command.id() && survey.reach(site).is_ok())
}

/// Whether `command` runs what its input holds as code: `source`/`.` (of `/dev/stdin`), or a
/// shell reading its script from stdin (`bash <<EOF`).
fn runs_its_input(command: Node<'_>, source: &[u8]) -> bool {
    invocation(command, source).is_some_and(|i| {
        matches!(
            i.name.as_str(),
            "source" | "." | "bash" | "sh" | "dash" | "ksh" | "zsh"
        )
    })
}

/// Whether one of the command's words names `echo` or `printf` (a program it runs).
fn runs_a_printer(command: Node<'_>, source: &[u8]) -> bool {
    invocation(command, source).is_some_and(|i| {
        i.arguments(command, source).into_iter().any(|a| {
            words::word_value(a, source)
                .as_literal()
                .is_some_and(|w| matches!(w.rsplit('/').next(), Some("echo" | "printf")))
        })
    })
}

/// Whether a shell's arguments hold `-c` (or a flag group with `c`, `-ec`) before any operand:
/// its first operand is then code.
fn runs_a_string(command: Node<'_>, source: &[u8]) -> bool {
    let Some(invocation) = invocation(command, source) else {
        return false;
    };
    invocation
        .arguments(command, source)
        .into_iter()
        .map(|a| words::word_value(a, source).as_literal())
        .take_while(|a| a.as_deref().is_some_and(|t| t.starts_with('-')))
        .any(|a| a.is_some_and(|t| !t.starts_with("--") && t.contains('c')))
}

/// Whether `last`, a pipeline's last part, is a `tee` whose output reaches the script's stdout.
fn prints_through_tee(survey: &Survey<'_, '_>, source: &[u8], last: Node<'_>) -> bool {
    survey.calls().any(|(_, tee)| {
        tee.node.id() == last.id()
            && invocation(tee.node, source).is_some_and(|i| i.name == "tee")
            && survey.reach(tee).is_ok()
    })
}

/// Whether the script calls `function` with its output piped into a `tee` that prints it on the
/// script's stdout (`main "$@" 2>&1 | tee -a "$LOG"`).
fn piped_into_tee(survey: &Survey<'_, '_>, source: &[u8], function: &[u8]) -> bool {
    survey
        .calls()
        .filter(|(name, _)| *name == function)
        .any(|(_, site)| {
            let statement = match site.node.parent() {
                Some(p) if p.kind() == "redirected_statement" => p,
                _ => site.node,
            };
            let Some(pipeline) = statement.parent().filter(|p| p.kind() == "pipeline") else {
                return false;
            };
            let count = pipeline.named_child_count();
            let Some(last) = pipeline.named_child((count.max(1) - 1) as u32) else {
                return false;
            };
            last.id() != statement.id() && prints_through_tee(survey, source, last)
        })
}
