//! `skillmod migrate`: discover, migrate (or dry-run), print diffs and the report; inside git,
//! list unrelated dirty files and commit exactly what was migrated when asked.

use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

use super::{Format, MigrateArgs, working_dir};
use crate::config::{PerSettings, Resolver, Settings};
use crate::error::{Error, Result};
use crate::fsio::backup::Backups;
use crate::migrate::{self, Change, FileReport, Profile};
use crate::report::json_stream::Array;
use crate::report::progress::Progress;
use crate::report::{diff, migrate_text};

pub fn run(args: &MigrateArgs) -> Result<i32> {
    let started = Instant::now();
    args.common.init_threads()?;
    let targets = args.paths.targets();
    let resolver = args.settings.resolver(&targets.named())?;
    let files = targets.files("migrate", &resolver)?;
    let profiles = profiles(args, resolver)?;
    let used = profiles.prepare(&files)?;
    args.common.show_settings(&used);
    let base = working_dir()?;
    let request = migrate::session::Request {
        dry_run: args.dry_run,
        force: args.force,
        backup: !args.no_backup,
        max_size: args.max_size,
        stdout_to_stderr: args.stdout_to_stderr,
        allow_dirty: args.allow_dirty,
        staged: args.paths.staged,
        commit: args.commit.then(|| (args.message.clone(), args.no_verify)),
    };
    let session = migrate::session::prepare(&files, profiles, &request, &base)?;
    let options = &session.options;
    let backups = Backups::new();
    let color = args.common.color.choice();
    let (mut stdout, colored) = crate::report::stdout(color);
    let mut stderr = crate::report::stderr(color);
    let text = args.format == Format::Text;
    let render = |file: &FileReport, change: &Change| {
        (text && args.dry_run).then(|| {
            let mut out = Vec::new();
            diff::write_unified(
                &mut out,
                &file.path,
                &change.before,
                &change.after,
                &change.edits,
                colored,
            )
            .map(|_| out)
            .unwrap_or_default()
        })
    };
    // The JSON document's `files` array is written as the files come; the rest follows at the end.
    let mut files_json = None;
    if args.format == Format::Json {
        let _ = stdout.write_all(b"{\n  ");
        files_json = Array::open(&mut stdout, Some("files"), 2).ok();
    }
    let mut progress = Progress::new(files.len(), args.common.quiet || args.common.silent);
    let mut runtimes = Vec::new();
    let mut report = migrate::run(&files, options, &backups, render, |file, rendered| {
        progress.inc();
        runtimes.extend(file.runtime.clone());
        progress.suspend(|| {
            if let Some(array) = files_json.as_mut() {
                let _ = array.push(&mut stdout, file);
            }
            if !text {
                return;
            }
            if let Some(bytes) = rendered {
                let _ = stdout.write_all(bytes);
            }
            // Quiet keeps the files with problems (failed, skipped, notes); silent prints nothing.
            if !args.common.silent {
                let verbose = args.common.verbose && !args.common.quiet;
                let _ = migrate_text::write_file(&mut stderr, file, verbose);
            }
        });
    })?;
    progress.finish();
    let commit_error = session.finish(
        &mut report,
        &files,
        runtimes,
        &backups,
        |runtime, change| {
            if let Some(change) = change.filter(|_| text && args.dry_run) {
                let _ = diff::write_unified(
                    &mut stdout,
                    &runtime.path,
                    &change.before,
                    &change.after,
                    &change.edits,
                    colored,
                );
            }
            if text && !args.common.silent {
                for e in &runtime.errors {
                    let _ = writeln!(stderr, "{}: {}: {}", runtime.path, e.code, e.message);
                }
            }
        },
    );
    report.settings_files = used.iter().map(|(p, _)| p.display().to_string()).collect();
    let removed = report.temp_files_removed.len();
    if removed > 0 && !args.common.quiet && !args.common.silent {
        let _ = writeln!(
            stderr,
            "removed {removed} temp file(s) that an interrupted skillmod run left beside the scripts"
        );
    }
    let _ = stdout.flush();
    match args.format {
        Format::Json => {
            if let Some(array) = files_json {
                let _ = array.close(&mut stdout);
            }
            let rest = serde_json::to_string_pretty(&report)
                .map_err(|e| Error::new("IO_ERROR", format!("cannot encode the report: {e}")))?;
            let _ = writeln!(stdout, ",{}", rest.strip_prefix('{').unwrap_or(&rest));
        }
        Format::Text if !args.common.quiet && !args.common.silent => {
            let _ =
                migrate_text::write_summary(&mut stderr, &report, started.elapsed(), args.dry_run);
        }
        Format::Text if !args.common.silent => {
            let _ = migrate_text::write_runtime_files(&mut stderr, &report);
        }
        Format::Text => {}
    }
    let _ = stdout.flush();
    let s = &report.summary;
    if s.total == s.skipped && s.failed == 0 {
        targets.nothing_checked(s.total, s.skipped, args.common.silent)?;
    }
    if let Some(e) = &commit_error {
        let _ = writeln!(stderr, "error[{}]: {}", e.code, e.message);
    }
    Ok(report.exit_code(commit_error.is_some()))
}

/// The flags as settings: each settings file's profile puts them over its own.
fn profiles(args: &MigrateArgs, resolver: Arc<Resolver>) -> Result<PerSettings<Profile>> {
    let flags = Settings::from_flags(Settings {
        mode: args.mode,
        template: args.template.clone(),
        default_confidence: args.default_confidence,
        vocabulary: args.vocabulary,
        keep_stdout: args.keep_stdout.then_some(true),
        runtime: args.runtime,
        ..Settings::default()
    })?;
    Ok(PerSettings::new(resolver, move |config| {
        Profile::new(&flags, config)
    }))
}
