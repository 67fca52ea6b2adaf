//! The skill output contract: JSON Schemas, a parser that extracts a skill's result from its raw
//! stdout by protocol, and validation of the result against a schema.
//!
//! ```
//! use skillmod::contract::{Protocol, Schema, check_output, ParseOptions};
//!
//! let schema = Schema::builtin("skill-output-v1").expect("built-in schema");
//! let stdout = r#"{"success": true, "confidence": 0.9, "deliverables": ["a.ts"], "metrics": {}, "errors": []}"#;
//! let outcome = check_output(stdout, &ParseOptions::new(Protocol::Auto), &schema);
//! assert!(outcome.valid);
//! assert_eq!(outcome.parse_method.map(|p| p.as_str()), Some("json"));
//!
//! let broken = r#"{"success": true, "confidence": 1.5, "deliverables": [], "metrics": {}, "errors": []}"#;
//! let outcome = check_output(broken, &ParseOptions::new(Protocol::Json), &schema);
//! assert_eq!(outcome.errors[0].code, skillmod::codes::VALIDATION_FAILED.code);
//! assert_eq!(outcome.errors[0].pointer.as_deref(), Some("/confidence"));
//! ```

pub mod legacy_text;
pub mod parse;
pub mod run;
pub mod schema;
pub mod validate;

use crate::codes;
use serde::Serialize;
use serde_json::Value;

pub use parse::{ParseOptions, Parsed, Protocol, parse_output};
pub use schema::Schema;

/// A problem with a skill's output: nothing to parse, malformed, or parsed but invalid.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContractError {
    /// `NO_OUTPUT_FOUND` or `PARSE_ERROR` (nothing usable), `VALIDATION_FAILED` (parsed, invalid).
    pub code: &'static str,
    pub message: String,
    /// JSON pointer of the offending value, for validation errors.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pointer: Option<String>,
    #[serde(skip_serializing_if = "Value::is_null")]
    pub context: Value,
}

impl ContractError {
    pub fn new(code: codes::Code, message: impl Into<String>, context: Value) -> Self {
        ContractError {
            code: code.code,
            message: message.into(),
            pointer: None,
            context,
        }
    }

    /// True for "nothing to parse / malformed" (seed 003's ParsingError), false for "parsed but
    /// invalid" (InvalidOutputError).
    pub fn is_parse_error(&self) -> bool {
        self.code != codes::VALIDATION_FAILED.code
    }
}

/// The result of parsing and validating one output.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Outcome {
    pub valid: bool,
    pub parse_method: Option<Protocol>,
    /// The extracted document, when parsing worked.
    pub value: Option<Value>,
    pub errors: Vec<ContractError>,
}

/// Parse `stdout` by protocol, then validate what was found against `schema`.
pub fn check_output(stdout: &str, options: &ParseOptions, schema: &Schema) -> Outcome {
    match parse_output(stdout, options) {
        Err(error) => Outcome {
            valid: false,
            parse_method: None,
            value: None,
            errors: vec![error],
        },
        Ok(parsed) => {
            let errors = schema.validate(&parsed.value);
            Outcome {
                valid: errors.is_empty(),
                parse_method: Some(parsed.method),
                value: Some(parsed.value),
                errors,
            }
        }
    }
}
