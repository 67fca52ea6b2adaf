//! `skillmod rule CODE` and `skillmod rule --all`: what a rule means, what to do about it, and a
//! script that breaks it, read from the rule registry (as `ruff rule` does).

use std::io::Write;

use serde::Serialize;

use super::{Format, RuleArgs};
use crate::check::{Rule, Severity};
use crate::error::{Error, Result};

#[derive(Serialize)]
struct Entry {
    code: &'static str,
    name: &'static str,
    severity: Severity,
    summary: &'static str,
    explanation: &'static str,
    example: &'static str,
}

pub fn run(args: &RuleArgs) -> Result<i32> {
    let rules: Vec<Rule> = match &args.code {
        Some(code) => vec![Rule::from_code(code.trim()).ok_or_else(|| {
            Error::new(
                "UNKNOWN_RULE",
                format!(
                    "'{code}' is not a rule; the rules are {} (`skillmod rule --all` explains them)",
                    Rule::known_codes()
                ),
            )
        })?],
        None => Rule::ALL.to_vec(),
    };
    let mut out = std::io::stdout().lock();
    let written = match args.format {
        Format::Text => rules.iter().enumerate().try_for_each(|(i, rule)| {
            if i > 0 {
                writeln!(out)?;
            }
            write!(out, "{}", text(*rule))
        }),
        Format::Json => {
            let entries: Vec<Entry> = rules
                .iter()
                .map(|&r| Entry {
                    code: r.code(),
                    name: r.name(),
                    severity: r.severity(),
                    summary: r.summary(),
                    explanation: r.explanation(),
                    example: r.example(),
                })
                .collect();
            let text = match entries.as_slice() {
                [one] if args.code.is_some() => serde_json::to_string_pretty(one),
                all => serde_json::to_string_pretty(all),
            };
            text.map_err(std::io::Error::other)
                .and_then(|text| writeln!(out, "{text}"))
        }
    };
    written.map_err(|e| Error::output("cannot write", &e))?;
    Ok(0)
}

/// One rule as text: heading, summary, explanation, and the example indented.
fn text(rule: Rule) -> String {
    let example: String = rule
        .example()
        .lines()
        .map(|line| format!("    {line}\n"))
        .collect();
    format!(
        "{} {} ({})\n\n{}\n\n{}\n\nExample:\n\n{example}",
        rule.code(),
        rule.name(),
        rule.severity().as_str(),
        rule.summary(),
        rule.explanation()
    )
}
