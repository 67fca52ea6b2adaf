//! `skillmod check`: report live legacy statements; exit 1 when any is found, 2 on errors.

use std::io::Write;

use super::{CheckArgs, CheckFormat, working_dir};
use crate::check::cache::Cache;
use crate::check::{self, Options};
use crate::error::{Error, Result};
use crate::fsio::project_root;
use crate::report::progress::Progress;
use crate::report::{check_text, github, sarif};

pub fn run(args: &CheckArgs) -> Result<i32> {
    args.common.init_threads()?;
    let files = args.paths.files("check")?;
    let base = working_dir()?;
    let cache = if args.no_cache {
        Cache::disabled()
    } else {
        Cache::load(&project_root(&base))
    };
    let options = Options {
        max_size: args.max_size,
        base,
    };
    let color = args.common.color.choice();
    let mut stdout = anstream::AutoStream::new(std::io::stdout().lock(), color);
    let mut progress = Progress::new(files.len(), args.common.quiet);
    let keep = matches!(args.format, CheckFormat::Json | CheckFormat::Sarif);
    let report = check::run(&files, &options, &cache, keep, |findings, warnings| {
        progress.inc();
        let _ = match args.format {
            CheckFormat::Text if !args.common.quiet => {
                check_text::write_file(&mut stdout, findings, warnings)
            }
            CheckFormat::Github => github::write(&mut stdout, findings, warnings),
            _ => Ok(()),
        };
    })?;
    progress.finish();
    cache.save();
    let written = match args.format {
        CheckFormat::Text => check_text::write_summary(&mut stdout, &report),
        CheckFormat::Json => serde_json::to_string_pretty(&report)
            .map_err(std::io::Error::other)
            .and_then(|json| writeln!(stdout, "{json}")),
        CheckFormat::Github => Ok(()),
        CheckFormat::Sarif => {
            serde_json::to_string_pretty(&sarif::log(&report.findings, &report.warnings))
                .map_err(std::io::Error::other)
                .and_then(|json| writeln!(stdout, "{json}"))
        }
    };
    written
        .and_then(|_| stdout.flush())
        .map_err(|e| Error::new("IO_ERROR", format!("cannot write the report: {e}")))?;
    if args.format != CheckFormat::Text {
        let mut stderr = anstream::AutoStream::new(std::io::stderr().lock(), color);
        for e in &report.errors {
            let _ = writeln!(stderr, "error: {}: {}: {}", e.path, e.code, e.message);
        }
    }
    Ok(if report.summary.errors > 0 {
        2
    } else if report.summary.findings > 0 {
        1
    } else {
        0
    })
}
