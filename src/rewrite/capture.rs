//! Capture mode: each legacy statement records what the shell computes at that moment
//! (`__skm_rec KIND <the echo's own arguments>`), and a POSIX runtime, compacted to one line and
//! put in front of the script's second line (so no line moves), prints one JSON document from an
//! EXIT trap on every exit path of the main shell: the normal end, `exit N` anywhere, a `set -e`
//! failure. Traps are not inherited by subshells or command substitutions, so those print
//! nothing. The script's own `trap … EXIT` is chained, not lost. A library (a script meant to be
//! sourced) gets no runtime: its legacy lines record into the runtime of the script sourcing it.

use std::sync::OnceLock;

use minijinja::Environment;
use serde::Serialize;

use super::placement;
use super::plan::{Plan, Reason};
use super::template::{NOW_TOKEN, RUNTIME_SENTINEL, Template};
use crate::analyze::{Analysis, LegacyKind, RUNTIME_END, RUNTIME_MARKER};
use crate::error::{Error, Result};

const RUNTIME: &str = include_str!("../../templates/capture-runtime.sh.j2");

/// The runtime's names all start with this; a script that uses it itself is refused.
pub const RESERVED_PREFIX: &str = "__skm_";

/// What a library's legacy lines call: the sourcing script's recorder, or `:` without one.
const LIBRARY_RECORDER: &str = "${__skm_r:-:}";

/// What a library's EXIT traps call: the runtime's chaining, or a plain `trap` without one.
const LIBRARY_TRAP: &str = "${__skm_t:-trap}";

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
    template: &'a str,
    uses_time: bool,
    uses_errors: bool,
    uses_error_member: bool,
    uses_now: bool,
    body: String,
}

/// The runtime for one template: the generated line (the same in every file) and whether the
/// template prints the skill's name (then each file sets `__skm_name`).
#[derive(Debug, Clone)]
pub struct Runtime {
    pub line: String,
    uses_name: bool,
}

/// How a script takes part in capture mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A script that runs on its own: it gets the runtime.
    Script,
    /// A script meant to be sourced: no runtime and no EXIT trap of its own.
    Library,
}

/// Plan capture mode for one script.
pub fn plan_capture_mode(
    analysis: &Analysis,
    source: &[u8],
    runtime: &Runtime,
    role: Role,
    skill_name: &str,
    default_confidence: f64,
    library_success: bool,
) -> Result<Plan> {
    // A migrated library's own hooks are skillmod's, not a clash: `--force` runs over it again.
    let own = |at: usize| {
        [LIBRARY_RECORDER, LIBRARY_TRAP]
            .iter()
            .any(|hook| at >= 2 && source[at - 2..].starts_with(hook.as_bytes()))
    };
    if let Some(at) =
        memchr::memmem::find_iter(source, RESERVED_PREFIX.as_bytes()).find(|&at| !own(at))
    {
        let line = source[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        return Err(Error::new(
            "NAME_CLASH",
            format!(
                "line {line}: the script uses the name prefix `{RESERVED_PREFIX}`, which capture mode's runtime reserves; rename it, or migrate with --mode comment"
            ),
        ));
    }
    if let Some(trap) = analysis
        .exit_traps
        .iter()
        .find(|t| t.dynamic && !t.in_subshell)
    {
        return Err(Error::new(
            "TRAP_UNSUPPORTED",
            format!(
                "line {}: a `trap` whose signal list is computed at run time may replace the EXIT trap that prints the JSON; list its signals literally or migrate with --mode comment",
                trap.line
            ),
        ));
    }
    let mut plan = Plan::default();
    let root = analysis.tree.root_node();
    for statement in &analysis.legacy {
        let name = root
            .descendant_for_byte_range(statement.start, statement.start + 1)
            .and_then(|n| {
                std::iter::successors(Some(n), |n| n.parent())
                    .find(|n| n.kind() == "command" && n.start_byte() == statement.start)
            })
            .and_then(|command| command.child_by_field_name("name"))
            .ok_or_else(|| {
                Error::new("INTERNAL_ERROR", "legacy statement without a command name")
            })?;
        let kind = match statement.kind {
            LegacyKind::Success | LegacyKind::Complete => "success",
            LegacyKind::Confidence => "confidence",
            LegacyKind::Created => "created",
            LegacyKind::Modified => "modified",
        };
        // A library may be sourced by a script without the runtime: `${__skm_r:-:}` is then `:`.
        let recorder = match role {
            Role::Script => "__skm_rec",
            Role::Library => LIBRARY_RECORDER,
        };
        super::place_legacy_comment(&mut plan, analysis, source, statement);
        plan.push(
            name.start_byte(),
            name.end_byte(),
            format!("{recorder} {kind}"),
            Reason::DisableLegacy {
                line: statement.line,
            },
        );
    }
    let chain = match role {
        Role::Script => "__skm_trap",
        Role::Library => LIBRARY_TRAP,
    };
    for trap in analysis.exit_traps.iter().filter(|t| !t.in_subshell) {
        plan.push(
            trap.name_start,
            trap.name_end,
            chain,
            Reason::ChainTrap { line: trap.line },
        );
    }
    if role == Role::Script {
        let needs_marker = library_success
            || analysis
                .legacy
                .iter()
                .any(|s| matches!(s.kind, LegacyKind::Success | LegacyKind::Complete));
        insert_runtime(
            &mut plan,
            source,
            runtime,
            skill_name,
            default_confidence,
            needs_marker,
        );
    }
    Ok(plan)
}

/// Put the runtime in front of the second line (line 1 is the shebang, a comment, so line 2
/// always starts a new statement); the line numbers of the script stay what they were.
fn insert_runtime(
    plan: &mut Plan,
    source: &[u8],
    runtime: &Runtime,
    skill_name: &str,
    default_confidence: f64,
    needs_marker: bool,
) {
    let eol = placement::line_ending(source);
    let confidence = serde_json::Number::from_f64(default_confidence)
        .map_or_else(|| "0.85".to_string(), |n| n.to_string());
    let mut values = format!(
        "__skm_dc={confidence} __skm_need={}",
        u8::from(needs_marker)
    );
    if runtime.uses_name {
        let json = serde_json::Value::from(skill_name).to_string();
        values.push_str(&format!(" __skm_name={}", single_quoted(&json)));
    }
    let line = runtime.line.replacen(
        RUNTIME_MARKER_LINE_END,
        &format!("{RUNTIME_MARKER_LINE_END} {values};"),
        1,
    );
    let first_end = placement::line_end(source, 0);
    let second = memchr::memchr(b'\n', &source[first_end..]).map(|i| first_end + i + 1);
    match second {
        Some(at) if at < source.len() => plan.push(at, at, format!("{line} "), Reason::Runtime),
        Some(at) => plan.push(at, at, format!("{line}{eol}"), Reason::Runtime),
        None => plan.push(
            source.len(),
            source.len(),
            format!("{eol}{line}{eol}"),
            Reason::Runtime,
        ),
    }
}

/// The end of the marker statement, after which each file's own values go.
const RUNTIME_MARKER_LINE_END: &str = "at exit)';";

fn single_quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
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
    // The name is safe to write into the marker's quotes: `Template::load_at` refuses others.
    let context = RuntimeContext {
        template: &template.name,
        uses_time: uses("execution_time_ms"),
        uses_errors: uses("errors"),
        uses_error_member: uses("error_member"),
        uses_now: json.contains(NOW_TOKEN),
        body: args.join(" "),
    };
    let source = runtime_environment()
        .as_ref()
        .map_err(|e| {
            Error::new(
                "TEMPLATE_INVALID",
                format!("capture runtime does not compile: {e}"),
            )
        })?
        .get_template("runtime")
        .and_then(|t| t.render(minijinja::value::Serde(&context)))
        .map_err(|e| {
            Error::new(
                "TEMPLATE_RENDER_FAILED",
                format!("capture runtime failed to render: {e}"),
            )
        })?;
    let line = compact(&source);
    if !line.starts_with(RUNTIME_MARKER)
        || !line.ends_with(RUNTIME_END)
        || !line.contains(RUNTIME_MARKER_LINE_END)
    {
        return Err(Error::new(
            "TEMPLATE_INVALID",
            "capture runtime lost its marker or its final trap",
        ));
    }
    Ok(Runtime {
        line,
        uses_name: uses("skill_name"),
    })
}

/// One line of shell from the runtime's source: comment lines and blank lines dropped, leading
/// blanks trimmed, lines joined with a space (the source is written so that this is valid).
fn compact(source: &str) -> String {
    source
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::{BashParser, parser::error_count};
    use crate::rewrite::template::BUILTINS;

    #[test]
    fn runtime_is_one_clean_line_for_every_template() {
        let mut parser = BashParser::new().expect("parser");
        for builtin in BUILTINS {
            let template = Template::load(builtin.name).expect("template");
            let runtime = render_runtime(&template).expect("render");
            assert!(
                !runtime.line.contains('\n'),
                "{}: not one line",
                builtin.name
            );
            let tree = parser.parse(runtime.line.as_bytes()).expect("parse");
            assert_eq!(
                error_count(&tree),
                0,
                "{}: runtime does not parse cleanly",
                builtin.name
            );
            for shell in ["bash", "dash"] {
                let status = std::process::Command::new(shell)
                    .args(["-n", "-c", &runtime.line])
                    .status()
                    .expect("shell");
                assert!(
                    status.success(),
                    "{}: {shell} -n rejects the runtime",
                    builtin.name
                );
            }
        }
    }

    #[test]
    fn runtime_holds_no_code_for_fields_the_template_does_not_print() {
        let v1 =
            render_runtime(&Template::load("skill-output-v1").expect("template")).expect("render");
        assert!(!v1.line.contains("__skm_error_member"));
        assert!(!v1.line.contains("__skm_now"));
        assert!(!v1.uses_name);
        let envelope =
            render_runtime(&Template::load("envelope").expect("template")).expect("render");
        assert!(!envelope.line.contains("__skm_errors="));
        assert!(envelope.line.contains("__skm_now=$(date"));
        assert!(envelope.uses_name);
    }
}
