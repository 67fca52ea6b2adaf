//! `skillmod validate`: check captured outputs (files, stdin, JSON Lines) or a skill's own run
//! against a schema.

use std::io::Write;
use std::time::Duration;

use serde::Serialize;

use super::{Format, ValidateArgs};
use crate::contract::run::{Limits, RunResult, read_capped, run_skill};
use crate::contract::{self, Outcome, ParseOptions, Schema};
use crate::error::{Error, Result};

/// The flag that raises the output limit, named in OUTPUT_TOO_LARGE messages.
const MAX_OUTPUT: &str = "--max-output";

#[derive(Debug, Serialize)]
struct Validated {
    source: String,
    #[serde(flatten)]
    outcome: Outcome,
    #[serde(skip_serializing_if = "Option::is_none")]
    run: Option<RunResult>,
}

#[derive(Debug, Default, Serialize)]
struct Summary {
    total: usize,
    valid: usize,
    invalid: usize,
}

#[derive(Debug, Serialize)]
struct Report {
    schema: String,
    results: Vec<Validated>,
    summary: Summary,
}

pub fn run(args: &ValidateArgs) -> Result<i32> {
    let schema = Schema::load(&args.schema)?;
    let options = parse_options(args)?;
    let mut results = Vec::new();
    if let Some(script) = &args.run {
        let limits = Limits {
            timeout: Duration::from_secs_f64(args.timeout),
            max_output: args.max_output,
        };
        let temp = if args.cwd_temp {
            Some(tempfile::tempdir().map_err(|e| {
                Error::new("RUN_FAILED", format!("cannot make a temporary folder: {e}"))
            })?)
        } else {
            None
        };
        let cwd = match (&temp, &args.cwd) {
            (Some(dir), _) => dir.path().to_path_buf(),
            (None, Some(dir)) if dir.is_dir() => dir.clone(),
            (None, Some(dir)) => {
                return Err(Error::new(
                    "INVALID_ARGUMENT",
                    format!(
                        "--cwd {}: not a folder; pass an existing folder, or --cwd-temp",
                        dir.display()
                    ),
                ));
            }
            (None, None) => super::working_dir()?,
        };
        let ran = run_skill(script, &args.run_args, &cwd, limits)?;
        let mut outcome = check_bytes(&ran.stdout, &options, &schema);
        if ran.output_exceeded {
            outcome.valid = false;
            outcome.errors.push(contract::ContractError::new(
                "OUTPUT_TOO_LARGE",
                format!(
                    "the skill printed more than {} bytes and was killed; raise the limit with --max-output",
                    args.max_output
                ),
                serde_json::Value::Null,
            ));
        }
        if ran.timed_out {
            outcome.valid = false;
            outcome.errors.push(contract::ContractError::new(
                "TIMEOUT",
                format!(
                    "the skill ran longer than {}s and was stopped (SIGTERM, then SIGKILL 2 s later)",
                    args.timeout
                ),
                serde_json::Value::Null,
            ));
        }
        results.push(Validated {
            source: script.display().to_string(),
            outcome,
            run: Some(ran),
        });
    }
    if args.jsonl {
        let bytes = read_capped(
            std::io::stdin().lock(),
            args.max_output,
            "stdin",
            MAX_OUTPUT,
        )?;
        let line_options = ParseOptions {
            protocol: contract::Protocol::Json,
            ..options.clone()
        };
        for (i, line) in bytes
            .split(|&b| b == b'\n')
            .enumerate()
            .filter(|(_, l)| !l.trim_ascii().is_empty())
        {
            results.push(Validated {
                source: format!("stdin:{}", i + 1),
                outcome: check_bytes(line, &line_options, &schema),
                run: None,
            });
        }
    }
    // With --jsonl, stdin is the JSON Lines input: `-` does not read it a second time.
    for input in args.inputs.iter().filter(|i| !(args.jsonl && *i == "-")) {
        let bytes = if input == "-" {
            read_capped(
                std::io::stdin().lock(),
                args.max_output,
                "stdin",
                MAX_OUTPUT,
            )?
        } else {
            let path = std::path::Path::new(input);
            let meta = std::fs::metadata(path)
                .map_err(|e| Error::io("INPUT_UNREADABLE", "cannot read", path, &e))?;
            if !meta.is_file() && !is_stream(&meta) {
                return Err(Error::new(
                    "INPUT_UNREADABLE",
                    format!("{input} is not a file; pass a file, or - for stdin"),
                ));
            }
            let file = std::fs::File::open(path)
                .map_err(|e| Error::io("INPUT_UNREADABLE", "cannot read", path, &e))?;
            read_capped(file, args.max_output, input, MAX_OUTPUT)?
        };
        results.push(Validated {
            source: input.clone(),
            outcome: check_bytes(&bytes, &options, &schema),
            run: None,
        });
    }
    if results.is_empty() {
        return Err(Error::new(
            "NO_INPUT",
            "nothing to validate: pass files (or - for stdin), --jsonl, or --run SCRIPT",
        ));
    }
    let mut summary = Summary::default();
    for r in &results {
        summary.total += 1;
        if r.outcome.valid {
            summary.valid += 1;
        } else {
            summary.invalid += 1;
        }
    }
    let invalid = summary.invalid > 0;
    let report = Report {
        schema: schema.name.clone(),
        results,
        summary,
    };
    let color = args.common.color.choice();
    let mut out = anstream::AutoStream::new(std::io::stdout().lock(), color);
    let written = match args.format {
        Format::Json => serde_json::to_string_pretty(&report)
            .map_err(std::io::Error::other)
            .and_then(|json| writeln!(out, "{json}")),
        Format::Text => write_text(&mut out, &report, args.common.quiet),
    };
    written.map_err(|e| Error::output("cannot write the report", &e))?;
    Ok(if invalid { 1 } else { 0 })
}

/// The protocol and legacy reading: flags first, then the settings file that check and migrate
/// read for the same script (for --run, the script's; otherwise the working folder's), so the
/// three commands read legacy lines with one vocabulary and one default confidence.
fn parse_options(args: &ValidateArgs) -> Result<ParseOptions> {
    let place = match &args.run {
        Some(script) => script.clone(),
        None => super::working_dir()?.join("-"),
    };
    let named: Vec<std::path::PathBuf> = place
        .parent()
        .map(|p| p.to_path_buf())
        .into_iter()
        .collect();
    let config = args.settings.resolver(&named)?.for_path(&place)?;
    let settings = &config.settings;
    let default_confidence = args
        .default_confidence
        .or(settings.default_confidence)
        .unwrap_or(contract::legacy_text::DEFAULT_CONFIDENCE);
    if !(0.0..=1.0).contains(&default_confidence) {
        return Err(Error::new(
            "INVALID_ARGUMENT",
            format!("default confidence {default_confidence} is not in 0..1"),
        ));
    }
    Ok(ParseOptions {
        protocol: args.protocol,
        strict: args.strict,
        default_confidence,
        vocabulary: args.vocabulary.or(settings.vocabulary).unwrap_or_default(),
    })
}

/// One judgement for every source (file, stdin, a line, a run): output must be UTF-8, and
/// what is not is invalid with `NOT_UTF8` (its text, decoded with replacements, is still parsed
/// so the other errors show too).
fn check_bytes(bytes: &[u8], options: &ParseOptions, schema: &Schema) -> Outcome {
    match std::str::from_utf8(bytes) {
        Ok(text) => contract::check_output(text, options, schema),
        Err(e) => {
            let text = String::from_utf8_lossy(bytes);
            let mut outcome = contract::check_output(&text, options, schema);
            outcome.valid = false;
            outcome.errors.insert(
                0,
                contract::ContractError::new(
                    "NOT_UTF8",
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

fn write_text(out: &mut dyn Write, report: &Report, quiet: bool) -> std::io::Result<()> {
    let good = anstyle::Style::new().fg_color(Some(anstyle::AnsiColor::Green.into()));
    let bad = anstyle::Style::new()
        .fg_color(Some(anstyle::AnsiColor::Red.into()))
        .bold();
    for r in &report.results {
        let how = match r.outcome.parse_method {
            Some(p) => format!("parsed as {}, schema {}", p.as_str(), report.schema),
            None => format!("no result found, schema {}", report.schema),
        };
        // What the result says, for the v1 fields (a valid document can report a failure).
        let says = r
            .outcome
            .value
            .as_ref()
            .and_then(|v| Some((v.get("success")?.as_bool()?, v.get("confidence")?.as_f64()?)))
            .map(|(success, confidence)| format!(": success {success}, confidence {confidence}"))
            .unwrap_or_default();
        if r.outcome.valid {
            if !quiet {
                writeln!(out, "{good}valid{good:#}   {} ({how}){says}", r.source)?;
            }
        } else {
            writeln!(out, "{bad}invalid{bad:#} {} ({how}){says}", r.source)?;
            for e in &r.outcome.errors {
                writeln!(out, "        {}: {}", e.code, e.message)?;
            }
        }
        if let Some(run) = &r.run {
            let status = run
                .exit_status
                .map_or("killed".to_string(), |s| s.to_string());
            writeln!(out, "        exit status {status}, {} ms", run.duration_ms)?;
            for cut in &run.cut {
                writeln!(out, "        cut: {cut}")?;
            }
            for line in &run.stderr_tail {
                writeln!(out, "        stderr: {line}")?;
            }
        }
    }
    let s = &report.summary;
    writeln!(
        out,
        "{} outputs: {} valid, {} invalid",
        s.total, s.valid, s.invalid
    )
}
