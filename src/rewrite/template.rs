//! JSON block templates (templates/*.j2, built into the binary, or a user's file) rendered with
//! minijinja. The result goes inside a quoted heredoc, so the shell expands nothing in it.

use crate::codes;
use std::path::Path;
use std::sync::Arc;

use minijinja::{Environment, Value};
use serde::Serialize;

use crate::analyze::BLOCK_DELIMITER;
use crate::error::{Error, Result};
use crate::fsio::limited;

/// A built-in template: its name, the schema its output follows, and its source.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Builtin {
    pub name: &'static str,
    pub description: &'static str,
    pub source: &'static str,
}

pub(crate) const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "skill-output-v1",
        description: "seed 000 shape: success, confidence, deliverables, metrics, errors (schema skill-output-v1, protocol json)",
        source: include_str!("../../templates/skill-output-v1.json.j2"),
    },
    Builtin {
        name: "envelope",
        description: "seed 001 SkillReportEnvelope: ok, generatedAt (at run time), skillName, data, metrics (schema skill-report-envelope, protocol json)",
        source: include_str!("../../templates/envelope.json.j2"),
    },
    Builtin {
        name: "final-result",
        description: "seed 004 markers around the seed 000 document (schema skill-output-v1, protocol final-result)",
        source: include_str!("../../templates/final-result.json.j2"),
    },
];

/// A template may print this token where the run's time belongs; the block replaces it with
/// `date -u` output when the script runs (the only thing the shell computes in the block).
/// The template used when none is named.
pub(crate) const DEFAULT: &str = "skill-output-v1";

pub(crate) const NOW_TOKEN: &str = "@@SKILLMOD_NOW@@";

/// Template files larger than this are refused (the built-in ones are under 1 KiB).
pub(crate) const SIZE_LIMIT: u64 = 64 * 1024;

/// Instructions one rendering may run: the built-in templates need a few hundred, so a loop
/// that would render for ever stops with TEMPLATE_RENDER_FAILED instead.
const FUEL: u64 = 100_000;

/// Rendered blocks larger than this are refused.
const OUTPUT_LIMIT: usize = 64 * 1024;

/// Whether `spec` names a built-in template.
pub(crate) fn is_builtin(spec: &str) -> bool {
    BUILTINS.iter().any(|b| b.name == spec)
}

/// Characters a template name written into a script may hold: no newline, quote, backslash,
/// `$` or backquote, so it can never end the comment or quoted word it is written into.
fn safe_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '.' | '_' | '-' | '/' | '+' | '@' | ':' | ' ' | '=' | ',')
}

/// A loaded template, compiled once and ready to render.
#[derive(Debug, Clone)]
pub struct Template {
    pub name: String,
    env: Arc<Environment<'static>>,
}

impl Template {
    /// A built-in name, or a path to a template file.
    pub fn load(spec: &str) -> Result<Template> {
        Template::load_at(spec, None)
    }

    /// Load `spec`, a built-in name or a file; a file is read at `path` when given (a settings
    /// file's template, resolved against its folder) while the name stays `spec`. A file must be
    /// a regular file under the size limit, and its name is written into scripts, so it may hold
    /// no character a shell comment or quoted word could be broken out of with.
    pub fn load_at(spec: &str, path: Option<&Path>) -> Result<Template> {
        if let Some(builtin) = BUILTINS.iter().find(|b| b.name == spec) {
            return Template::compile(builtin.name.to_string(), builtin.source.to_string());
        }
        if let Some(bad) = spec.chars().find(|&c| !safe_name_char(c)) {
            return Err(Error::new(
                codes::TEMPLATE_NAME_UNSAFE,
                format!(
                    "template name '{}' holds {:?}, which would be written into every migrated script; rename the file (letters, digits, `._-/+@:` and spaces)",
                    spec.escape_default(),
                    bad
                ),
            ));
        }
        let path = path.unwrap_or(Path::new(spec));
        if std::fs::symlink_metadata(path).is_err() {
            let names: Vec<&str> = BUILTINS.iter().map(|b| b.name).collect();
            return Err(Error::new(
                codes::TEMPLATE_NOT_FOUND,
                format!(
                    "no built-in template or file named '{spec}'; use one of {} or a path to a .j2 file",
                    names.join(", ")
                ),
            ));
        }
        let bytes = limited::read(path, SIZE_LIMIT, true).map_err(|refused| {
            Error::new(
                codes::TEMPLATE_UNREADABLE,
                format!(
                    "template {} {}; use a regular .j2 file",
                    path.display(),
                    refused.describe(SIZE_LIMIT)
                ),
            )
        })?;
        let source = String::from_utf8(bytes).map_err(|_| {
            Error::new(
                codes::TEMPLATE_UNREADABLE,
                format!("template {} is not UTF-8 text", path.display()),
            )
        })?;
        Template::compile(spec.to_string(), source)
    }

    fn compile(name: String, source: String) -> Result<Template> {
        let mut env = Environment::new();
        env.set_fuel(Some(FUEL));
        env.add_filter("json", json_filter);
        env.add_template_owned("block", source).map_err(|e| {
            Error::new(
                codes::TEMPLATE_INVALID,
                format!("template '{name}' does not compile: {e}"),
            )
        })?;
        Ok(Template {
            name,
            env: Arc::new(env),
        })
    }

    /// Render with `context`; the text must not hold the heredoc delimiter on a line of its own.
    pub fn render(&self, context: &impl Serialize) -> Result<String> {
        let text = self
            .env
            .get_template("block")
            .and_then(|t| t.render(minijinja::value::Serde(context)))
            .map_err(|e| {
                Error::new(
                    codes::TEMPLATE_RENDER_FAILED,
                    format!("template '{}' failed to render: {e}", self.name),
                )
            })?;
        if text.len() > OUTPUT_LIMIT {
            return Err(Error::new(
                codes::TEMPLATE_RENDER_FAILED,
                format!(
                    "template '{}' rendered {} bytes, over the {OUTPUT_LIMIT}-byte limit for a JSON block",
                    self.name,
                    text.len()
                ),
            ));
        }
        if text
            .lines()
            .any(|line| line.trim_end_matches('\r') == BLOCK_DELIMITER)
        {
            return Err(Error::new(
                codes::TEMPLATE_UNSAFE,
                format!(
                    "template '{}' produced a line '{BLOCK_DELIMITER}', which would end the heredoc early",
                    self.name
                ),
            ));
        }
        Ok(text)
    }
}

/// Marks a placeholder for a value known only at run time (capture mode); the `json` filter
/// passes it through unquoted. JSON-escaped strings never hold a raw U+0001, so it cannot clash.
pub(crate) const RUNTIME_SENTINEL: char = '\u{1}';

/// Compact JSON for any value: strings get every quote, backslash and control character escaped,
/// and the time token inside a value is written with `@` as `\u0040` (the same JSON string), so
/// only the template's own token is ever replaced by the time.
fn json_filter(value: Value) -> std::result::Result<Value, minijinja::Error> {
    if let Some(text) = value.as_str().filter(|t| t.starts_with(RUNTIME_SENTINEL)) {
        return Ok(Value::from_safe_string(text.to_string()));
    }
    serde_json::to_string(&value)
        .map(|json| {
            Value::from_safe_string(json.replace(NOW_TOKEN, &NOW_TOKEN.replacen('@', "\\u0040", 1)))
        })
        .map_err(|e| minijinja::Error::new(minijinja::ErrorKind::InvalidOperation, e.to_string()))
}
