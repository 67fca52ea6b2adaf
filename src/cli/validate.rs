//! `skillmod validate`: check captured outputs (files, stdin, JSON Lines) or a skill's own run
//! against a schema.

use std::io::{Read, Write};
use std::time::Duration;

use serde::Serialize;

use super::{Format, ValidateArgs};
use crate::contract::run::{RunResult, run_skill};
use crate::contract::{self, Outcome, ParseOptions, Schema};
use crate::error::{Error, Result};

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
    let options = ParseOptions {
        protocol: args.protocol,
        strict: args.strict,
        default_confidence: args.default_confidence,
    };
    let mut results = Vec::new();
    if let Some(script) = &args.run {
        let ran = run_skill(
            script,
            &args.run_args,
            Duration::from_secs_f64(args.timeout),
        )?;
        let mut outcome = contract::check_output(&ran.stdout, &options, &schema);
        if ran.timed_out {
            outcome.valid = false;
            outcome.errors.push(contract::ContractError::new(
                "TIMEOUT",
                format!("the skill ran longer than {}s and was killed", args.timeout),
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
        let text = read_stdin()?;
        for (i, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let line_options = ParseOptions {
                protocol: contract::Protocol::Json,
                ..options.clone()
            };
            results.push(Validated {
                source: format!("stdin:{}", i + 1),
                outcome: contract::check_output(line, &line_options, &schema),
                run: None,
            });
        }
    }
    for input in &args.inputs {
        let text = if input == "-" {
            read_stdin()?
        } else {
            let bytes = std::fs::read(input).map_err(|e| {
                Error::io(
                    "INPUT_UNREADABLE",
                    "cannot read",
                    std::path::Path::new(input),
                    &e,
                )
            })?;
            String::from_utf8_lossy(&bytes).into_owned()
        };
        results.push(Validated {
            source: input.clone(),
            outcome: contract::check_output(&text, &options, &schema),
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
    written.map_err(|e| Error::new("IO_ERROR", format!("cannot write the report: {e}")))?;
    Ok(if invalid { 1 } else { 0 })
}

fn read_stdin() -> Result<String> {
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .map_err(|e| Error::new("INPUT_UNREADABLE", format!("cannot read stdin: {e}")))?;
    Ok(text)
}

fn write_text(out: &mut dyn Write, report: &Report, quiet: bool) -> std::io::Result<()> {
    let good = anstyle::Style::new().fg_color(Some(anstyle::AnsiColor::Green.into()));
    let bad = anstyle::Style::new()
        .fg_color(Some(anstyle::AnsiColor::Red.into()))
        .bold();
    for r in &report.results {
        let method = r.outcome.parse_method.map_or("-", |p| p.as_str());
        if r.outcome.valid {
            if !quiet {
                writeln!(
                    out,
                    "{good}valid{good:#}   {} (parsed as {method}, schema {})",
                    r.source, report.schema
                )?;
            }
        } else {
            writeln!(
                out,
                "{bad}invalid{bad:#} {} (parsed as {method}, schema {})",
                r.source, report.schema
            )?;
            for e in &r.outcome.errors {
                writeln!(out, "        {}: {}", e.code, e.message)?;
            }
        }
        if let Some(run) = &r.run {
            let status = run
                .exit_status
                .map_or("killed".to_string(), |s| s.to_string());
            writeln!(out, "        exit status {status}, {} ms", run.duration_ms)?;
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
