//! Validation of what skills print: one judgement per source (a file, stdin, a JSON Lines line,
//! a skill's own run), each against the schema, and the report on all of them.

use crate::codes;
use std::path::Path;

use serde::Serialize;

use super::run::{Limits, RunResult, read_capped, run_skill};
use super::{ContractError, Outcome, ParseOptions, Protocol, Schema};
use crate::error::{Error, Result};

/// The flag that raises the output limit, named in OUTPUT_TOO_LARGE messages.
const MAX_OUTPUT: &str = "--max-output";

#[derive(Debug, Serialize)]
pub struct Validated {
    pub source: String,
    #[serde(flatten)]
    pub outcome: Outcome,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<RunResult>,
}

#[derive(Debug, Default, Serialize)]
pub struct Summary {
    pub total: usize,
    pub valid: usize,
    pub invalid: usize,
}

#[derive(Debug, Serialize)]
pub struct Report {
    pub schema: String,
    pub results: Vec<Validated>,
    pub summary: Summary,
}

impl Report {
    /// The report on `results`, counted.
    pub fn new(schema: &Schema, results: Vec<Validated>) -> Report {
        let mut summary = Summary::default();
        for r in &results {
            summary.total += 1;
            if r.outcome.valid {
                summary.valid += 1;
            } else {
                summary.invalid += 1;
            }
        }
        Report {
            schema: schema.name.clone(),
            results,
            summary,
        }
    }
}

/// The folder a skill runs in: a new temporary folder (kept alive by the guard returned), the
/// folder given, or the working folder, as a user runs a skill.
pub fn run_folder(
    cwd: Option<&Path>,
    temp: bool,
) -> Result<(std::path::PathBuf, Option<tempfile::TempDir>)> {
    if temp {
        let dir = tempfile::tempdir().map_err(|e| {
            Error::new(
                codes::RUN_FAILED,
                format!("cannot make a temporary folder: {e}"),
            )
        })?;
        return Ok((dir.path().to_path_buf(), Some(dir)));
    }
    match cwd {
        Some(dir) if dir.is_dir() => Ok((dir.to_path_buf(), None)),
        Some(dir) => Err(Error::new(
            codes::INVALID_ARGUMENT,
            format!(
                "--cwd {}: not a folder; pass an existing folder, or --cwd-temp",
                dir.display()
            ),
        )),
        None => Ok((crate::fsio::working_dir()?, None)),
    }
}

/// Whether the script has a success line off its failure paths, read as migrate reads it: then
/// a clean exit that did not print one is no success, as the migrated skill would report.
fn expects_success_line(script: &Path, vocabulary: crate::analyze::Vocabulary) -> bool {
    let Ok(source) = crate::fsio::limited::read(script, crate::fsio::read::DEFAULT_MAX_SIZE, true)
    else {
        return false;
    };
    let Ok(mut parser) = crate::analyze::BashParser::new() else {
        return false;
    };
    crate::analyze::analyze(&mut parser, &source, vocabulary)
        .is_ok_and(|analysis| analysis.expects_success_line())
}

/// Run `script` with `args` in `cwd` and judge its stdout; a run cut at the output limit or the
/// timeout is invalid, with `OUTPUT_TOO_LARGE` or `TIMEOUT`.
pub(crate) fn validate_run(
    script: &Path,
    args: &[String],
    cwd: &Path,
    limits: Limits,
    options: &ParseOptions,
    schema: &Schema,
) -> Result<Validated> {
    let ran = run_skill(script, args, cwd, limits)?;
    let options = ParseOptions {
        exit_status: ran.exit_status,
        expects_success_line: expects_success_line(script, options.vocabulary),
        ..options.clone()
    };
    let mut outcome = check_bytes(&ran.stdout, &options, schema);
    if ran.output_exceeded {
        outcome.valid = false;
        outcome.errors.push(ContractError::new(codes::OUTPUT_TOO_LARGE,
            format!(
                "the skill printed more than {} bytes and was killed; raise the limit with {MAX_OUTPUT}",
                limits.max_output
            ),
            serde_json::Value::Null,
        ));
    }
    if ran.timed_out {
        outcome.valid = false;
        outcome.errors.push(ContractError::new(
            codes::TIMEOUT,
            format!(
                "the skill ran longer than {}s and was stopped (SIGTERM, then SIGKILL 2 s later)",
                limits.timeout.as_secs_f64()
            ),
            serde_json::Value::Null,
        ));
    }
    Ok(Validated {
        source: script.display().to_string(),
        outcome,
        run: Some(ran),
    })
}

/// Each non-blank line of JSON Lines input as one JSON document (`stdin:N`).
pub(crate) fn validate_json_lines(
    bytes: &[u8],
    options: &ParseOptions,
    schema: &Schema,
) -> Vec<Validated> {
    let line_options = ParseOptions {
        protocol: Protocol::Json,
        ..options.clone()
    };
    bytes
        .split(|&b| b == b'\n')
        .enumerate()
        .filter(|(_, l)| !l.trim_ascii().is_empty())
        .map(|(i, line)| Validated {
            source: format!("stdin:{}", i + 1),
            outcome: check_bytes(line, &line_options, schema),
            run: None,
        })
        .collect()
}

/// Read stdin, up to `max_output` bytes.
pub(crate) fn read_stdin(max_output: u64) -> Result<Vec<u8>> {
    read_capped(std::io::stdin().lock(), max_output, "stdin", MAX_OUTPUT)
}

/// Read one input file (a regular file, a FIFO or a character device), up to `max_output` bytes.
pub(crate) fn read_input(input: &str, max_output: u64) -> Result<Vec<u8>> {
    let path = Path::new(input);
    let meta = std::fs::metadata(path)
        .map_err(|e| Error::io(codes::INPUT_UNREADABLE, "cannot read", path, &e))?;
    if !meta.is_file() && !is_stream(&meta) {
        return Err(Error::new(
            codes::INPUT_UNREADABLE,
            format!("{input} is not a file; pass a file, or - for stdin"),
        ));
    }
    let file = std::fs::File::open(path)
        .map_err(|e| Error::io(codes::INPUT_UNREADABLE, "cannot read", path, &e))?;
    read_capped(file, max_output, input, MAX_OUTPUT)
}

/// One judgement for every source (file, stdin, a line, a run): output must be UTF-8, and
/// what is not is invalid with `NOT_UTF8` (its text, decoded with replacements, is still parsed
/// so the other errors show too).
///
/// ```
/// use skillmod::contract::validate::{Report, Validated, check_bytes};
/// use skillmod::contract::{ParseOptions, Protocol, Schema};
///
/// let schema = Schema::builtin("skill-output-v1").expect("schema");
/// let strict = ParseOptions { strict: true, ..ParseOptions::new(Protocol::Auto) };
/// let outputs: [(&str, &[u8]); 2] = [
///     ("migrated", br#"{"success": true, "confidence": 0.9, "deliverables": [], "metrics": {}, "errors": []}"#),
///     ("legacy", b"SUCCESS\n"),
/// ];
/// let results = outputs
///     .into_iter()
///     .map(|(source, bytes)| Validated {
///         source: source.into(),
///         outcome: check_bytes(bytes, &strict, &schema),
///         run: None,
///     })
///     .collect();
/// let report = Report::new(&schema, results);
/// // `--strict` refuses legacy lines: only the JSON document passes.
/// assert_eq!((report.summary.valid, report.summary.invalid), (1, 1));
/// ```
pub fn check_bytes(bytes: &[u8], options: &ParseOptions, schema: &Schema) -> Outcome {
    match std::str::from_utf8(bytes) {
        Ok(text) => super::check_output(text, options, schema),
        Err(e) => {
            let text = String::from_utf8_lossy(bytes);
            let mut outcome = super::check_output(&text, options, schema);
            outcome.valid = false;
            outcome.errors.insert(
                0,
                ContractError::new(
                    codes::NOT_UTF8,
                    format!(
                        "the output is not UTF-8 (invalid byte at offset {})",
                        e.valid_up_to()
                    ),
                    serde_json::Value::Null,
                ),
            );
            outcome
        }
    }
}

/// A FIFO or character device (`<(…)`, `/dev/stdin`): read like a file, up to the limit.
fn is_stream(meta: &std::fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        meta.file_type().is_fifo() || meta.file_type().is_char_device()
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        false
    }
}
