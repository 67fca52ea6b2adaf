//! `skillmod migrate`: discover, migrate (or dry-run), print diffs and the report; inside git,
//! list unrelated dirty files and commit exactly what was migrated when asked.

use std::sync::Arc;
use std::time::Instant;

use super::{Format, MigrateArgs, working_dir};
use crate::config::{PerSettings, Resolver, Settings};
use crate::error::Result;
use crate::fsio::backup::Backups;
use crate::migrate::session::Done;
use crate::migrate::{self, Change, FileReport, Profile};
use crate::report::migrate_output::{MigratePrinter, Verbosity};
use crate::report::progress::Progress;

pub fn run(args: &MigrateArgs) -> Result<i32> {
    let started = Instant::now();
    args.common.init_threads()?;
    let targets = &args.paths;
    let resolver = args.settings.resolver(&targets.named())?;
    let base = working_dir()?;
    // Symlinks to files inside their project root are followed, each real path migrated once.
    let named = match targets.named() {
        named if named.is_empty() => vec![base.clone()],
        named => named,
    };
    let sources_of =
        |path: &std::path::Path| crate::unit::sourcing::sourced_targets(path, args.max_size);
    let files = targets.with_libraries(
        targets.files("migrate", &resolver)?,
        |files, named| {
            crate::unit::sourcing::unselected_libraries(files, named, args.max_size, &sources_of)
        },
        &resolver,
    )?;
    let files = targets.with_sourcers(files, &sources_of, &resolver)?;
    let mut selected = migrate::Selected::new(&files, &named, &targets.explicit_files(), &base);
    selected.named_scripts = targets.named_scripts();
    let files = selected.files.clone();
    let profiles = profiles(args, resolver)?;
    let used = profiles.prepare(&files)?;
    args.common.show_settings(&used);
    let request = migrate::session::Request {
        dry_run: args.dry_run,
        force: args.force,
        replace_runtime: args.replace_runtime,
        backup: !args.no_backup,
        max_size: args.max_size,
        stdout_to_stderr: args.stdout_to_stderr,
        allow_dirty: args.allow_dirty,
        staged: args.paths.staged,
        commit: args.commit.then(|| (args.message.clone(), args.no_verify)),
        vocabulary: args.settings.vocabulary,
    };
    let mut session =
        migrate::session::prepare(&files, profiles, &request, &base, &targets.named())?;
    session.options.selected = selected;
    // An execute.sh a settings file's `exclude` left out fails, as check fails it.
    let mut reported = files.clone();
    session.options.excluded = targets.with_excluded_entry_points(&mut reported)?;
    let options = &session.options;
    let backups = Backups::new();
    let verbosity = Verbosity {
        verbose: args.common.verbose,
        quiet: args.common.quiet,
        silent: args.common.silent,
    };
    let json = args.format == Format::Json;
    let mut printer =
        MigratePrinter::start(json, args.dry_run, args.common.color.choice(), verbosity);
    let diffs = printer.diffs();
    let render = |file: &FileReport, change: &Change| diffs.render(&file.diff_path, change);
    let mut progress = Progress::new(reported.len(), args.common.quiet || args.common.silent);
    let mut report = migrate::run(&reported, options, &backups, render, |file, rendered| {
        progress.inc();
        progress.suspend(|| printer.file(file, rendered));
    })?;
    progress.finish();
    let commit_error = session.finish(&mut report, &files, &backups, |done, change| match done {
        Done::Runtime(runtime) => printer.runtime(runtime, change),
        Done::Settings(update) => printer.settings(update, change),
    });
    report.settings_files = used
        .iter()
        .map(|(p, _)| crate::bytes_text::os_marked(p.as_os_str()))
        .collect();
    let notes = targets.walk_notes(&base);
    report.walk_notes = notes.iter().map(|n| n.text.clone()).collect();
    printer.finish(&report, started.elapsed(), commit_error.as_ref());
    targets.print_walk_notes(
        &notes,
        (args.common.quiet || args.common.silent, args.common.verbose),
    );
    let s = &report.summary;
    if s.total == s.skipped && s.failed == 0 {
        targets.nothing_checked(s.total, s.skipped, args.common.silent)?;
    }
    Ok(report.exit_code(commit_error.is_some()))
}

/// The flags as settings: each settings file's profile puts them over its own.
fn profiles(args: &MigrateArgs, resolver: Arc<Resolver>) -> Result<PerSettings<Profile>> {
    let flags = Settings::from_flags(Settings {
        mode: args.mode,
        template: args.template.clone(),
        default_confidence: args.default_confidence,
        vocabulary: args.settings.vocabulary,
        keep_stdout: args.keep_stdout.then_some(true),
        runtime: args.runtime,
        ..Settings::default()
    })?;
    Ok(PerSettings::new(resolver, move |config| {
        Profile::new(&flags, config)
    }))
}
