//! JSON Schemas of the contract (schemas/*.schema.json, built in) or a user's file, compiled once
//! with the `jsonschema` crate and reused for every validation.

use crate::codes;
use std::path::Path;

use serde_json::{Value, json};

use super::ContractError;
use crate::error::{Error, Result};

/// A built-in schema: name and source.
pub(crate) struct BuiltinSchema {
    pub name: &'static str,
    pub description: &'static str,
    pub source: &'static str,
}

pub(crate) const BUILTIN_SCHEMAS: &[BuiltinSchema] = &[
    BuiltinSchema {
        name: "skill-output-v1",
        description: "seed 000: success, confidence, deliverables, metrics, errors (all required)",
        source: include_str!("../../schemas/skill-output-v1.schema.json"),
    },
    BuiltinSchema {
        name: "skill-report-envelope",
        description: "seed 001: ok, generatedAt, skillName, data, optional metrics, error when ok is false",
        source: include_str!("../../schemas/skill-report-envelope.schema.json"),
    },
];

/// A compiled schema.
pub struct Schema {
    pub name: String,
    pub document: Value,
    validator: jsonschema::Validator,
}

impl Schema {
    /// A built-in schema by name (`skill-output-v1`, `skill-report-envelope`).
    pub fn builtin(name: &str) -> Result<Schema> {
        let builtin = BUILTIN_SCHEMAS
            .iter()
            .find(|s| s.name == name)
            .ok_or_else(|| unknown(name))?;
        let document: Value = serde_json::from_str(builtin.source).map_err(|e| {
            Error::new(
                codes::SCHEMA_INVALID,
                format!("built-in schema {name} is not JSON: {e}"),
            )
        })?;
        Schema::compile(name, document)
    }

    /// A built-in name (`envelope` is short for `skill-report-envelope`) or a path to a schema file.
    ///
    /// ```
    /// use skillmod::contract::Schema;
    ///
    /// assert_eq!(Schema::load("skill-output-v1").expect("built in").name, "skill-output-v1");
    /// assert_eq!(Schema::load("no-such-schema").map(|_| ()).map_err(|e| e.code), Err(skillmod::codes::SCHEMA_NOT_FOUND));
    /// ```
    pub fn load(spec: &str) -> Result<Schema> {
        let name = if spec == "envelope" {
            "skill-report-envelope"
        } else {
            spec
        };
        if BUILTIN_SCHEMAS.iter().any(|s| s.name == name) {
            return Schema::builtin(name);
        }
        let path = Path::new(spec);
        if !path.is_file() {
            return Err(unknown(spec));
        }
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::io(codes::SCHEMA_UNREADABLE, "cannot read schema", path, &e))?;
        let document: Value = serde_json::from_str(&text).map_err(|e| {
            Error::new(
                codes::SCHEMA_INVALID,
                format!("{} is not JSON: {e}", path.display()),
            )
        })?;
        Schema::compile(spec, document)
    }

    fn compile(name: &str, document: Value) -> Result<Schema> {
        let validator = jsonschema::validator_for(&document).map_err(|e| {
            Error::new(
                codes::SCHEMA_INVALID,
                format!("schema {name} does not compile: {e}"),
            )
        })?;
        Ok(Schema {
            name: name.to_string(),
            document,
            validator,
        })
    }

    /// Every violation, each with the JSON pointer of the offending value.
    pub fn validate(&self, value: &Value) -> Vec<ContractError> {
        self.validator
            .iter_errors(value)
            .map(|e| {
                let pointer = e.instance_path().as_str().to_string();
                let shown = if pointer.is_empty() { "/".to_string() } else { pointer.clone() };
                ContractError {
                    code: codes::VALIDATION_FAILED.code,
                    message: format!("{shown}: {e}"),
                    pointer: Some(pointer),
                    context: json!({ "schema": self.name, "schema_path": e.schema_path().as_str() }),
                }
            })
            .collect()
    }
}

fn unknown(spec: &str) -> Error {
    let names: Vec<&str> = BUILTIN_SCHEMAS.iter().map(|s| s.name).collect();
    Error::new(
        codes::SCHEMA_NOT_FOUND,
        format!(
            "no built-in schema or file named '{spec}'; use one of {} or a path to a .json schema",
            names.join(", ")
        ),
    )
}
