//! `skillmod check`: report live legacy statements; exit 1 when any is found, 2 on errors.

use std::io::Write;

use super::{CheckArgs, CheckFormat, working_dir};
use crate::check::cache::Cache;
use crate::check::{self, Options};
use crate::error::{Error, Result};
use crate::fsio::project_root;
use crate::report::check_json::CheckJsonWriter;
use crate::report::progress::Progress;
use crate::report::sarif::SarifWriter;
use crate::report::{check_text, github};

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
    let mut json = None;
    let mut sarif = None;
    let started = match args.format {
        CheckFormat::Json => CheckJsonWriter::start(&mut stdout).map(|w| json = Some(w)),
        CheckFormat::Sarif => SarifWriter::start(&mut stdout).map(|w| sarif = Some(w)),
        _ => Ok(()),
    };
    started.map_err(write_error)?;
    let mut failed_write = None;
    let report = check::run(&files, &options, &cache, |findings, warnings| {
        progress.inc();
        let written = progress.suspend(|| match args.format {
            CheckFormat::Text if !args.common.quiet => {
                check_text::write_file(&mut stdout, findings, warnings)
            }
            CheckFormat::Github => github::write(&mut stdout, findings, warnings),
            CheckFormat::Json => json
                .as_mut()
                .map_or(Ok(()), |w| w.push(&mut stdout, findings, warnings)),
            CheckFormat::Sarif => sarif
                .as_mut()
                .map_or(Ok(()), |w| w.push(&mut stdout, findings, warnings)),
            CheckFormat::Text => Ok(()),
        });
        if let Err(e) = written {
            failed_write.get_or_insert(e);
        }
    })?;
    progress.finish();
    cache.save();
    if let Some(e) = failed_write {
        return Err(write_error(e));
    }
    let written = match (args.format, json, sarif) {
        (CheckFormat::Text, _, _) => check_text::write_summary(&mut stdout, &report),
        (CheckFormat::Json, Some(w), _) => w.finish(&mut stdout, &report),
        (CheckFormat::Sarif, _, Some(w)) => w.finish(&mut stdout),
        _ => Ok(()),
    };
    written.and_then(|_| stdout.flush()).map_err(write_error)?;
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

fn write_error(e: std::io::Error) -> Error {
    Error::new("IO_ERROR", format!("cannot write the report: {e}"))
}
