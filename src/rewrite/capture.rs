//! Capture mode: each legacy statement records what the shell computes at that moment
//! (`__skm_rec KIND <the echo's own arguments>`), and a POSIX runtime placed after the shebang
//! prints one JSON document from an EXIT trap on every exit path of the main shell: the normal
//! end, `exit N` anywhere, a `set -e` failure. Traps are not inherited by subshells or command
//! substitutions, so those print nothing. The script's own `trap … EXIT` is chained, not lost.

use std::sync::OnceLock;

use minijinja::Environment;
use serde::Serialize;

use super::placement;
use super::plan::{Plan, Reason};
use super::template::{NOW_TOKEN, RUNTIME_SENTINEL, Template};
use crate::analyze::{Analysis, LegacyKind};
use crate::error::{Error, Result};

const RUNTIME: &str = include_str!("../../templates/capture-runtime.sh.j2");

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
];

fn sentinel(field: &str) -> String {
    format!("{RUNTIME_SENTINEL}{field}{RUNTIME_SENTINEL}")
}

#[derive(Serialize)]
struct RuntimeContext<'a> {
    template: &'a str,
    default_confidence: f64,
    needs_marker: u8,
    body: String,
}

/// Plan capture mode for one script.
pub fn plan_capture_mode(
    analysis: &Analysis,
    source: &[u8],
    template: &Template,
    skill_name: &str,
    default_confidence: f64,
) -> Result<Plan> {
    if let Some(trap) = analysis
        .exit_traps
        .iter()
        .find(|t| t.dynamic && !t.in_subshell)
    {
        return Err(Error::new(
            "TRAP_UNSUPPORTED",
            format!(
                "line {}: a `trap` whose arguments are computed at run time may replace the EXIT trap that prints the JSON; set it with literal arguments or migrate with --mode comment",
                trap.line
            ),
        ));
    }
    let mut plan = Plan::default();
    let eol = placement::line_ending(source);
    let root = analysis.tree.root_node();
    for statement in &analysis.legacy {
        let name = root
            .descendant_for_byte_range(statement.start, statement.end)
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
        super::place_legacy_comment(&mut plan, analysis, source, statement, eol);
        plan.push(
            name.start_byte(),
            name.end_byte(),
            format!("__skm_rec {kind}"),
            Reason::DisableLegacy {
                line: statement.line,
            },
        );
    }
    for trap in analysis.exit_traps.iter().filter(|t| !t.in_subshell) {
        plan.push(
            trap.name_start,
            trap.name_end,
            "__skm_trap",
            Reason::ChainTrap { line: trap.line },
        );
    }
    let needs_marker = analysis
        .legacy
        .iter()
        .any(|s| matches!(s.kind, LegacyKind::Success | LegacyKind::Complete));
    let runtime = render_runtime(template, skill_name, default_confidence, needs_marker)?;
    let at = if source.starts_with(b"#!") {
        let end = placement::line_end(source, 0);
        (end + eol.len()).min(source.len())
    } else {
        0
    };
    let mut text = String::new();
    if at == source.len() && !source.is_empty() && !source.ends_with(b"\n") {
        text.push_str(eol);
    }
    for line in runtime.lines() {
        text.push_str(line);
        text.push_str(eol);
    }
    plan.push(at, at, text, Reason::Runtime);
    Ok(plan)
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

/// The runtime with the template's JSON as the body of an unquoted heredoc: the template's own
/// text is escaped so the shell expands nothing in it, and only the run-time fields become
/// `${…}` expansions of variables that hold JSON-escaped values.
fn render_runtime(
    template: &Template,
    skill_name: &str,
    default_confidence: f64,
    needs_marker: bool,
) -> Result<String> {
    let mut context = serde_json::Map::new();
    for (field, _) in FIELDS {
        context.insert((*field).to_string(), sentinel(field).into());
    }
    context.insert("skill_name".into(), skill_name.into());
    let json = template.render(&serde_json::Value::Object(context))?;
    let mut body = String::with_capacity(json.len());
    for c in json.chars() {
        if matches!(c, '\\' | '$' | '`') {
            body.push('\\');
        }
        body.push(c);
    }
    for (field, variable) in FIELDS {
        body = body.replace(&sentinel(field), &format!("${{{variable}}}"));
    }
    body = body.replace(NOW_TOKEN, "$(date -u +%Y-%m-%dT%H:%M:%SZ)");
    let context = RuntimeContext {
        template: &template.name,
        default_confidence,
        needs_marker: u8::from(needs_marker),
        body,
    };
    runtime_environment()
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
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::{BashParser, parser::error_count};
    use crate::rewrite::template::BUILTINS;

    #[test]
    fn runtime_parses_without_errors_for_every_template() {
        let mut parser = BashParser::new().expect("parser");
        for builtin in BUILTINS {
            let template = Template::load(builtin.name).expect("template");
            for needs_marker in [false, true] {
                let runtime =
                    render_runtime(&template, "it's \"$(x)\"", 0.85, needs_marker).expect("render");
                let tree = parser.parse(runtime.as_bytes()).expect("parse");
                assert_eq!(
                    error_count(&tree),
                    0,
                    "{}: runtime does not parse cleanly",
                    builtin.name
                );
                assert!(runtime.contains("trap '__skm_emit' EXIT"));
            }
        }
    }
}
