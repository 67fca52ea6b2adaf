//! `skillmod rule`'s output: per rule its heading, summary, explanation and example (indented),
//! or the registry's entries as JSON.

use std::io::{self, Write};

use crate::domain::rules::Rule;

/// `rules` as text, or as JSON (one object when `single`, else an array).
pub fn write(out: &mut dyn Write, rules: &[Rule], json: bool, single: bool) -> io::Result<()> {
    if json {
        let specs: Vec<_> = rules.iter().map(|r| r.spec()).collect();
        let text = match specs.as_slice() {
            [one] if single => serde_json::to_string_pretty(one),
            all => serde_json::to_string_pretty(all),
        };
        return writeln!(out, "{}", text.map_err(io::Error::other)?);
    }
    for (i, rule) in rules.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        write!(out, "{}", text(*rule))?;
    }
    Ok(())
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
