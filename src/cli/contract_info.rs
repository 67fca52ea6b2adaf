//! `skillmod schema` and `skillmod templates`: list the built-in schemas and JSON block templates,
//! or print one of them, so users can see what the contract is.

use std::io::Write;

use super::{SchemaArgs, TemplatesArgs};
use crate::contract::Schema;
use crate::contract::schema::BUILTIN_SCHEMAS;
use crate::error::{Error, Result};
use crate::rewrite::template::BUILTINS;

pub fn schema(args: &SchemaArgs) -> Result<i32> {
    let mut out = std::io::stdout().lock();
    let written = match &args.name {
        None => BUILTIN_SCHEMAS
            .iter()
            .try_for_each(|s| writeln!(out, "{:<24} {}", s.name, s.description)),
        Some(name) => {
            let schema = Schema::load(name)?;
            serde_json::to_string_pretty(&schema.document)
                .map_err(std::io::Error::other)
                .and_then(|text| writeln!(out, "{text}"))
        }
    };
    written.map_err(|e| Error::output("cannot write", &e))?;
    Ok(0)
}

pub fn templates(args: &TemplatesArgs) -> Result<i32> {
    let mut out = std::io::stdout().lock();
    let written = match &args.name {
        None => BUILTINS
            .iter()
            .try_for_each(|t| writeln!(out, "{:<16} {}", t.name, t.description)),
        Some(name) => match BUILTINS.iter().find(|t| t.name == name) {
            Some(t) => write!(out, "{}", t.source),
            None => {
                return Err(Error::new(
                    crate::codes::TEMPLATE_NOT_FOUND,
                    format!("no built-in template '{name}'; `skillmod templates` lists them"),
                ));
            }
        },
    };
    written.map_err(|e| Error::output("cannot write", &e))?;
    Ok(0)
}
