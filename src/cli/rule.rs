//! `skillmod rule CODE` and `skillmod rule --all`: what a rule means, what to do about it, and a
//! script that breaks it, read from the rule registry (as `ruff rule` does).

use std::io::Write;

use super::{Format, RuleArgs};
use crate::domain::rules::Rule;
use crate::error::{Error, Result};
use crate::report::rule_text;

pub fn run(args: &RuleArgs) -> Result<i32> {
    let rules: Vec<Rule> = match &args.code {
        Some(code) => vec![Rule::from_code(&code.trim().to_ascii_uppercase()).ok_or_else(|| {
            Error::new(crate::codes::UNKNOWN_RULE,
                format!(
                    "'{code}' is not a rule; the rules are {} (`skillmod rule --all` explains them)",
                    Rule::known_codes()
                ),
            )
        })?],
        None => Rule::ALL.to_vec(),
    };
    let (mut out, _) = crate::report::stdout(anstream::ColorChoice::Never);
    let json = args.format == Format::Json;
    rule_text::write(&mut out, &rules, json, args.code.is_some())
        .and_then(|_| out.flush())
        .map_err(|e| Error::output("cannot write", &e))?;
    Ok(0)
}
