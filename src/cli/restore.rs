//! `skillmod restore`: the flags become a `restore::Request`; the engine is `crate::restore`.

use std::io::Write;
use std::path::PathBuf;

use super::{Format, RestoreArgs, working_dir};
use crate::error::{Error, Result};
use crate::fsio::{backup, project_root};
use crate::report::restore_text;
use crate::restore;

pub fn run(args: &RestoreArgs) -> Result<i32> {
    let base = working_dir()?;
    let root = project_root(&base);
    let runs = backup::list_runs(&root)?;
    let color = args.common.color.choice();
    let (mut stdout, _) = crate::report::stdout(color);
    if args.list {
        for run in &runs {
            let count = backup::load_run(&root, run)
                .map(|r| r.entries.len() + r.refused.len())
                .unwrap_or(0);
            let _ = writeln!(stdout, "{run}\t{count} files");
        }
        return Ok(0);
    }
    // Nothing to restore is an answer, not a failure; with --format json it is still a document.
    if runs.is_empty() && args.run.is_none() {
        let why = format!(
            "no backup runs under {}",
            root.join(crate::fsio::STATE_DIR).display()
        );
        if args.format == Format::Json {
            let report = restore::Report {
                runs: Vec::new(),
                older_runs: Vec::new(),
                files: Vec::new(),
                warnings: vec![format!("NO_BACKUPS: {why}")],
            };
            let json = serde_json::to_string_pretty(&report)
                .map_err(|e| Error::new("IO_ERROR", format!("cannot encode the report: {e}")))?;
            let _ = writeln!(stdout, "{json}");
        } else if !args.common.silent {
            eprintln!("nothing to restore (NO_BACKUPS): {why}");
        }
        return Ok(0);
    }
    let request = restore::Request {
        run: args.run.clone(),
        since: args.since.clone(),
        force: args.force,
        filters: filters(args),
    };
    let report = restore::restore(&root, &base, &runs, &request)?;
    for warning in &report.warnings {
        eprintln!("warning: {warning}");
    }
    match args.format {
        Format::Json => {
            let json = serde_json::to_string_pretty(&report)
                .map_err(|e| Error::new("IO_ERROR", format!("cannot encode the report: {e}")))?;
            let _ = writeln!(stdout, "{json}");
        }
        Format::Text if !args.common.quiet && !args.common.silent => {
            restore_text::write(&mut stdout, &report, args.common.verbose)
        }
        Format::Text => {}
    }
    stdout
        .flush()
        .map_err(|e| Error::output("cannot write the report", &e))?;
    Ok(if report.has_problems() { 1 } else { 0 })
}

fn filters(args: &RestoreArgs) -> Vec<PathBuf> {
    let p = &args.paths;
    p.paths
        .iter()
        .chain(&p.skill_dirs)
        .chain(&p.skill_paths)
        .map(|path| std::path::absolute(path).unwrap_or_else(|_| path.clone()))
        .collect()
}
