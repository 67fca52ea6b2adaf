//! `skillmod validate`: the flags choose the sources (files, stdin, JSON Lines, a skill's run), the
//! working folder of a run and the reading of legacy lines; `contract::validate` judges them.

use std::io::Write;
use std::time::Duration;

use super::{Format, ValidateArgs};
use crate::config::Settings;
use crate::contract::run::Limits;
use crate::contract::validate::{self, Report};
use crate::contract::{ParseOptions, Schema};
use crate::error::{Error, Result};
use crate::report::validate_text;

pub fn run(args: &ValidateArgs) -> Result<i32> {
    let schema = Schema::load(&args.schema)?;
    let options = parse_options(args)?;
    let mut results = Vec::new();
    if let Some(script) = &args.run {
        let limits = Limits {
            timeout: Duration::from_secs_f64(args.timeout),
            max_output: args.max_output,
        };
        // The temporary folder lives until the run is judged.
        let (cwd, _temp) = validate::run_folder(args.cwd.as_deref(), args.cwd_temp)?;
        results.push(validate::validate_run(
            script,
            &args.run_args,
            &cwd,
            limits,
            &options,
            &schema,
        )?);
    }
    if args.jsonl {
        let bytes = validate::read_stdin(args.max_output)?;
        results.extend(validate::validate_json_lines(&bytes, &options, &schema));
    }
    // With --jsonl, stdin is the JSON Lines input: `-` does not read it a second time.
    for input in args.inputs.iter().filter(|i| !(args.jsonl && *i == "-")) {
        let bytes = if input == "-" {
            validate::read_stdin(args.max_output)?
        } else {
            validate::read_input(input, args.max_output)?
        };
        results.push(validate::Validated {
            source: input.clone(),
            outcome: validate::check_bytes(&bytes, &options, &schema),
            run: None,
        });
    }
    if results.is_empty() {
        return Err(Error::new(
            crate::codes::NO_INPUT,
            "nothing to validate: pass files (or - for stdin), --jsonl, or --run SCRIPT",
        ));
    }
    let report = Report::new(&schema, results);
    let color = args.common.color.choice();
    let (mut out, colored) = crate::report::stdout(color);
    let written = match args.format {
        Format::Json => serde_json::to_string_pretty(&report)
            .map_err(std::io::Error::other)
            .and_then(|json| writeln!(out, "{json}")),
        Format::Text => validate_text::write(&mut out, &report, args.common.quiet, colored),
    };
    let written = written.and_then(|_| out.flush());
    written.map_err(|e| Error::output("cannot write the report", &e))?;
    Ok(if report.summary.invalid > 0 { 1 } else { 0 })
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
    let flags = Settings::from_flags(Settings {
        default_confidence: args.default_confidence,
        vocabulary: args.settings.vocabulary,
        ..Settings::default()
    })?;
    let config = args.settings.resolver(&named)?.for_path(&place)?;
    let resolved = flags.resolve(&config);
    Ok(ParseOptions {
        protocol: args.protocol,
        strict: args.strict,
        default_confidence: resolved.default_confidence,
        vocabulary: resolved.vocabulary,
        exit_status: None,
        expects_success_line: false,
    })
}
