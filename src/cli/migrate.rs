//! `skillmod migrate`: discover, migrate (or dry-run), print diffs and the report.

use std::io::Write;
use std::time::Instant;

use super::{Format, MigrateArgs, working_dir};
use crate::error::{Error, Result};
use crate::fsio::backup::Backups;
use crate::fsio::{discover, project_root};
use crate::migrate::{self, Options};
use crate::report::{diff, migrate_text};
use crate::rewrite::Template;

pub fn run(args: &MigrateArgs) -> Result<i32> {
    let started = Instant::now();
    args.common.init_threads()?;
    if args.paths.is_empty() {
        return Err(Error::new(
            "NO_PATHS",
            "nothing to migrate: pass files or folders, --skill-dir DIR or --skill-path FILE",
        ));
    }
    if !(0.0..=1.0).contains(&args.default_confidence) {
        return Err(Error::new(
            "INVALID_ARGUMENT",
            "--default-confidence must be between 0 and 1",
        ));
    }
    let template = Template::load(&args.template)?;
    let files = discover::discover(&args.paths.selection()?)?;
    let base = working_dir()?;
    let backups = Backups::new(&project_root(&base));
    let options = Options {
        dry_run: args.dry_run,
        force: args.force,
        backup: !args.no_backup,
        default_confidence: args.default_confidence,
        max_size: args.max_size,
        template,
        base,
    };
    let color = args.common.color.choice();
    let mut stdout = anstream::AutoStream::new(std::io::stdout().lock(), color);
    let mut stderr = anstream::AutoStream::new(std::io::stderr().lock(), color);
    let text = args.format == Format::Text;
    let report = migrate::run(&files, &options, &backups, |file, change| {
        if !text {
            return;
        }
        if let (true, Some(change)) = (args.dry_run, change) {
            let _ = diff::write_unified(&mut stdout, &file.path, &change.before, &change.after);
        }
        if !args.common.quiet {
            let _ = migrate_text::write_file(&mut stderr, file, args.common.verbose);
        }
    })?;
    let _ = stdout.flush();
    match args.format {
        Format::Json => {
            let json = serde_json::to_string_pretty(&report)
                .map_err(|e| Error::new("IO_ERROR", format!("cannot encode the report: {e}")))?;
            let _ = writeln!(stdout, "{json}");
        }
        Format::Text if !args.common.quiet => {
            let _ =
                migrate_text::write_summary(&mut stderr, &report, started.elapsed(), args.dry_run);
        }
        Format::Text => {}
    }
    let _ = stdout.flush();
    Ok(if report.summary.failed > 0 { 1 } else { 0 })
}
