//! Extracting a skill's result from its raw stdout, by protocol:
//! - `json`: stdout is one JSON document (surrounding whitespace allowed);
//! - `fenced`: the last ```` ```json ```` block (seed 003's strict mode: nothing else counts);
//! - `final-result`: the JSON between the first `<<<FINAL_RESULT>>>` / `<<<END_FINAL_RESULT>>>` pair;
//! - `legacy`: SUCCESS / COMPLETE / `Confidence:` / `Created:` / `Modified:` lines;
//! - `auto`: json, then final-result, then fenced, then (unless strict) legacy; the first protocol
//!   whose markers are present decides, and `parse_method` says which one it was.

use crate::codes;
use clap::ValueEnum;
use serde::Serialize;
use serde_json::{Value, json};

use super::ContractError;
use super::legacy_text;
use crate::analyze::Vocabulary;

const FINAL_START: &str = "<<<FINAL_RESULT>>>";
const FINAL_END: &str = "<<<END_FINAL_RESULT>>>";

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Protocol {
    Auto,
    Json,
    Fenced,
    FinalResult,
    Legacy,
}

impl Protocol {
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::Auto => "auto",
            Protocol::Json => "json",
            Protocol::Fenced => "fenced",
            Protocol::FinalResult => "final-result",
            Protocol::Legacy => "legacy",
        }
    }
}

/// How to parse.
#[derive(Debug, Clone)]
pub struct ParseOptions {
    pub protocol: Protocol,
    /// No legacy fallback, and nothing but the document (and its markers) on stdout.
    pub strict: bool,
    /// Confidence for legacy output without a valid `Confidence:` line.
    pub default_confidence: f64,
    /// Which lines are legacy result lines (the same vocabulary check and migrate use).
    pub vocabulary: Vocabulary,
    /// The exit status of the run that printed the text (`validate --run`): legacy text with no
    /// success line takes its success from it, as a migrated skill does. None for saved text.
    pub exit_status: Option<i32>,
    /// The script that printed it has a success line off its failure paths
    /// (`Analysis::expects_success_line`): a clean exit without printing it is no success.
    pub expects_success_line: bool,
}

impl ParseOptions {
    pub fn new(protocol: Protocol) -> ParseOptions {
        ParseOptions {
            protocol,
            strict: false,
            default_confidence: legacy_text::DEFAULT_CONFIDENCE,
            vocabulary: Vocabulary::default(),
            exit_status: None,
            expects_success_line: false,
        }
    }
}

/// The extracted document and the protocol that found it.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    pub value: Value,
    pub method: Protocol,
}

/// Extract the result from `stdout`: by the chosen protocol, or (`Auto`) the first that finds
/// one of raw JSON, a fenced ```json block, FINAL_RESULT markers, legacy lines.
///
/// ```
/// use skillmod::contract::{ParseOptions, Protocol, parse_output};
///
/// // A legacy skill's lines read as the contract's fields (0.5 is the default confidence).
/// let legacy = "Building...\nCreated: src/api.ts\nSUCCESS\n";
/// let parsed = parse_output(legacy, &ParseOptions::new(Protocol::Auto)).expect("a result");
/// assert_eq!(parsed.method, Protocol::Legacy);
/// assert_eq!(parsed.value["success"], true);
/// assert_eq!(parsed.value["confidence"], 0.5);
/// assert_eq!(parsed.value["deliverables"][0], "src/api.ts");
///
/// // An agent's reply with the document in a fenced block.
/// let fenced = "Done.\n```json\n{\"success\": false}\n```\n";
/// let parsed = parse_output(fenced, &ParseOptions::new(Protocol::Auto)).expect("a result");
/// assert_eq!(parsed.method, Protocol::Fenced);
///
/// // Nothing to read is an error with a code.
/// let none = parse_output("hello\n", &ParseOptions::new(Protocol::Auto));
/// assert_eq!(none.map_err(|e| e.code), Err(skillmod::codes::NO_OUTPUT_FOUND.code));
/// ```
pub fn parse_output(stdout: &str, options: &ParseOptions) -> Result<Parsed, ContractError> {
    let found = |value, method| Ok(Parsed { value, method });
    match options.protocol {
        Protocol::Json => found(json_document(stdout)?, Protocol::Json),
        Protocol::Fenced => found(fenced(stdout, options.strict)?, Protocol::Fenced),
        Protocol::FinalResult => {
            found(final_result(stdout, options.strict)?, Protocol::FinalResult)
        }
        Protocol::Legacy if options.strict => Err(ContractError::new(
            codes::NO_OUTPUT_FOUND,
            "legacy output is not accepted in strict mode",
            Value::Null,
        )),
        Protocol::Legacy => found(legacy(stdout, options)?, Protocol::Legacy),
        Protocol::Auto => {
            // Strict keeps each protocol strict (nothing but the document and its markers) and
            // allows no legacy fallback; it never narrows auto to plain JSON.
            let trimmed = stdout.trim();
            if trimmed.starts_with('{') {
                return found(json_document(stdout)?, Protocol::Json);
            }
            // `[` opens a JSON array, or a log line (`[info] start`): only a whole array counts.
            if trimmed.starts_with('[')
                && let Ok(value) = serde_json::from_str(trimmed)
            {
                return found(value, Protocol::Json);
            }
            if stdout.contains(FINAL_START) {
                return found(final_result(stdout, options.strict)?, Protocol::FinalResult);
            }
            if last_fence(stdout).is_some() {
                return found(fenced(stdout, options.strict)?, Protocol::Fenced);
            }
            // The contract's document among other text: the text is stray, whatever it holds (a
            // migrated skill whose stderr a harness merged into stdout).
            let contract_document =
                first_object(stdout).is_some_and(|(_, _, object)| object.contains_key("success"));
            if options.strict {
                if let Some(stray) = stray_document(stdout).filter(|_| contract_document) {
                    return Err(stray);
                }
                // Text a legacy skill prints: say so, rather than that it is not JSON.
                if legacy(stdout, options).is_ok() {
                    return Err(ContractError::new(
                        codes::NO_OUTPUT_FOUND,
                        "legacy output is not accepted in strict mode: the skill prints legacy lines (SUCCESS, Confidence: …) instead of the JSON document; migrate it with `skillmod migrate`",
                        Value::Null,
                    ));
                }
                return found(json_document(stdout)?, Protocol::Json);
            }
            if let Some(stray) = stray_document(stdout) {
                // Legacy lines around an object that is no contract document (an API reply, a
                // config a log quotes) are a legacy skill's output, as check and migrate read it.
                let quoted = !contract_document
                    && legacy_text::parse(stdout, 0.0, options.vocabulary, None).is_ok();
                if !quoted {
                    return Err(stray);
                }
            } else if stdout.contains("\"success\"") {
                // A contract document that cannot be read (cut off, a colour code or a BOM before
                // it on its line) is never read past as legacy text around it.
                return Err(ContractError::new(
                    codes::PARSE_ERROR,
                    "stdout holds a JSON document's \"success\" key, but no document could be read: it is cut off, or other text stands before it on its line; print only the document on stdout",
                    json!({ "protocol": "auto" }),
                ));
            }
            found(legacy(stdout, options)?, Protocol::Legacy)
        }
    }
}

fn json_document(text: &str) -> Result<Value, ContractError> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(ContractError::new(
            codes::NO_OUTPUT_FOUND,
            "stdout is empty: expected one JSON document",
            Value::Null,
        ));
    }
    serde_json::from_str(trimmed)
        .map_err(|e| stray_document(text).unwrap_or_else(|| malformed(&e, "json")))
}

fn legacy(stdout: &str, options: &ParseOptions) -> Result<Value, ContractError> {
    legacy_text::parse(
        stdout,
        options.default_confidence,
        options.vocabulary,
        options.exit_status.map(|status| legacy_text::RunEnd {
            status,
            expects_success_line: options.expects_success_line,
        }),
    )
}

/// The first JSON object that starts a line (after indentation): its byte range and fields.
fn first_object(text: &str) -> Option<(usize, usize, serde_json::Map<String, Value>)> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let indent = line.len() - line.trim_start().len();
        if line.trim_start().starts_with('{') {
            let start = offset + indent;
            let mut documents =
                serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
            if let Some(Ok(Value::Object(object))) = documents.next() {
                return Some((start, start + documents.byte_offset(), object));
            }
        }
        offset += line.len();
    }
    None
}

/// `STRAY_OUTPUT` when the text holds one JSON object (starting a line) with other text before
/// or after it: the skill printed its document and something else on stdout.
fn stray_document(text: &str) -> Option<ContractError> {
    let (start, end, _) = first_object(text)?;
    let before = !text[..start].trim().is_empty();
    let after = !text[end..].trim().is_empty();
    if !(before || after) {
        return None;
    }
    let (stray_at, place) = if before {
        (text.len() - text.trim_start().len(), "before")
    } else {
        (
            end + (text[end..].len() - text[end..].trim_start().len()),
            "after",
        )
    };
    Some(ContractError::new(
        codes::STRAY_OUTPUT,
        format!(
            "stdout holds one JSON document (bytes {start}..{end}) and other text {place} it, from byte {stray_at}; \
             print only the document on stdout: send the other text to stderr (>&2)"
        ),
        json!({ "document_start": start, "document_end": end, "stray_offset": stray_at }),
    ))
}

fn malformed(e: &serde_json::Error, protocol: &str) -> ContractError {
    ContractError::new(
        codes::PARSE_ERROR,
        format!("invalid JSON ({protocol}): {e}"),
        json!({ "protocol": protocol, "line": e.line(), "column": e.column() }),
    )
}

/// Byte range of the body of the last ```json block, and whether anything but blanks surrounds it.
fn last_fence(text: &str) -> Option<(usize, usize)> {
    let mut body = None;
    let mut offset = 0;
    let mut open: Option<usize> = None;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end();
        match open {
            None if bare.trim_start() == "```json" => open = Some(offset + line.len()),
            Some(start) if bare.trim_start() == "```" => {
                body = Some((start, offset));
                open = None;
            }
            _ => {}
        }
        offset += line.len();
    }
    body
}

fn fenced(text: &str, strict: bool) -> Result<Value, ContractError> {
    let Some((start, end)) = last_fence(text) else {
        return Err(ContractError::new(
            codes::NO_OUTPUT_FOUND,
            "no ```json block in the output",
            json!({ "protocol": "fenced" }),
        ));
    };
    if strict && !outside_is_blank(text, start, end, "```json", "```") {
        return Err(ContractError::new(
            codes::PARSE_ERROR,
            "strict mode: text outside the ```json block",
            json!({ "protocol": "fenced" }),
        ));
    }
    serde_json::from_str(text[start..end].trim()).map_err(|e| malformed(&e, "fenced"))
}

fn final_result(text: &str, strict: bool) -> Result<Value, ContractError> {
    let Some(open) = text.find(FINAL_START) else {
        return Err(ContractError::new(
            codes::NO_OUTPUT_FOUND,
            format!("no {FINAL_START} marker in the output"),
            json!({ "protocol": "final-result" }),
        ));
    };
    let start = open + FINAL_START.len();
    let Some(close) = text[start..].find(FINAL_END).map(|i| start + i) else {
        return Err(ContractError::new(
            codes::PARSE_ERROR,
            format!("{FINAL_START} without {FINAL_END}"),
            json!({ "protocol": "final-result" }),
        ));
    };
    if strict && !outside_is_blank(text, start, close, FINAL_START, FINAL_END) {
        return Err(ContractError::new(
            codes::PARSE_ERROR,
            "strict mode: text outside the FINAL_RESULT markers",
            json!({ "protocol": "final-result" }),
        ));
    }
    serde_json::from_str(text[start..close].trim()).map_err(|e| malformed(&e, "final-result"))
}

/// True when only whitespace surrounds `open`+body+`close` in `text`.
fn outside_is_blank(
    text: &str,
    body_start: usize,
    body_end: usize,
    open: &str,
    close: &str,
) -> bool {
    let before = text[..body_start].trim_end();
    let before = before.strip_suffix(open).unwrap_or(before);
    let after = text[body_end..].trim_start();
    let after = after.strip_prefix(close).unwrap_or(after);
    before.trim().is_empty() && after.trim().is_empty()
}
