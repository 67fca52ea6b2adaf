//! `skillmod migrate`: discover, migrate (or dry-run), print diffs and the report; inside git,
//! list unrelated dirty files and commit exactly what was migrated when asked.

use std::collections::HashSet;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use super::{Format, MigrateArgs, working_dir};
use crate::config::{PerSettings, Resolver, Settings};
use crate::error::{Error, Result};
use crate::fsio::backup::Backups;
use crate::fsio::display_path;
use crate::migrate::sourcing::Sourcing;
use crate::migrate::{self, Change, FileReport, Options, Profile};
use crate::report::json_stream::Array;
use crate::report::progress::Progress;
use crate::report::{diff, migrate_text};
use crate::rewrite::{Template, capture};

pub fn run(args: &MigrateArgs) -> Result<i32> {
    let started = Instant::now();
    args.common.init_threads()?;
    let targets = args.paths.targets();
    let resolver = args.settings.resolver(&targets.named())?;
    let files = targets.files("migrate", &resolver)?;
    let profiles = profiles(args, resolver)?;
    let used = profiles.prepare(&files)?;
    if args.common.verbose && !args.common.silent {
        for (path, n) in &used {
            eprintln!("settings: {} ({n} scripts)", path.display());
        }
    }
    let base = working_dir()?;
    let repos = migrate::git::repositories(&files, &base);
    if args.commit && repos.is_empty() {
        return Err(Error::new(
            "NOT_A_GIT_REPO",
            "--commit needs the files to be in a git work tree",
        ));
    }
    if args.commit && repos.len() > 1 {
        return Err(Error::new(
            "MULTIPLE_REPOSITORIES",
            format!(
                "--commit makes one commit, but the files lie in {} git work trees; run once per repository (see docs/multi-repo.md)",
                repos.len()
            ),
        ));
    }
    let dirty = if args.dry_run || repos.is_empty() {
        None
    } else {
        let mut all = HashSet::new();
        for repo in &repos {
            all.extend(repo.dirty()?);
        }
        Some(all)
    };
    let backups = Backups::new();
    let removed = if args.dry_run {
        Vec::new()
    } else {
        let mut folders: Vec<&Path> = files.iter().filter_map(|f| f.parent()).collect();
        folders.sort();
        folders.dedup();
        crate::fsio::atomic::remove_stale_temps(folders)
    };
    // Which scripts source which matters in capture mode only.
    let any_capture = files.iter().any(|f| {
        profiles
            .get_prepared(f)
            .is_ok_and(|p| p.mode == migrate::Mode::Capture)
    });
    let sourcing = if any_capture {
        Sourcing::scan(&files, args.max_size, &|path: &Path| {
            profiles.get(path).map(|p| p.vocabulary).unwrap_or_default()
        })
    } else {
        Sourcing::default()
    };
    let options = Options {
        dry_run: args.dry_run,
        force: args.force,
        backup: !args.no_backup,
        max_size: args.max_size,
        profiles,
        stdout_to_stderr: args.stdout_to_stderr,
        base: base.clone(),
        dirty: if args.allow_dirty {
            None
        } else {
            dirty.clone()
        },
        sourcing,
        unstaged: if args.paths.staged {
            let mut all = HashSet::new();
            for repo in &repos {
                all.extend(repo.unstaged()?);
            }
            Some(all)
        } else {
            None
        },
    };
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
    let mut report = migrate::run(&files, &options, &backups, render, |file, rendered| {
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
    // The runtime files come after the scripts that source them, in the diff and on disk.
    for (runtime, change) in migrate::runtime::write_all(runtimes, &options, &backups) {
        if let Some(change) = change.as_ref().filter(|_| text && args.dry_run) {
            let _ = diff::write_unified(
                &mut stdout,
                &runtime.path,
                &change.before,
                &change.after,
                &change.edits,
                colored,
            );
        }
        if !runtime.errors.is_empty() && text && !args.common.silent {
            for e in &runtime.errors {
                let _ = writeln!(stderr, "{}: {}: {}", runtime.path, e.code, e.message);
            }
        }
        if runtime.written() {
            report
                .migrated
                .push((runtime.path.clone(), runtime.abs_path.clone()));
        }
        report.runtime_files.push(runtime);
    }
    report.temp_files_removed = removed.iter().map(|p| display_path(p, &base)).collect();
    report.settings_files = used.iter().map(|(p, _)| p.display().to_string()).collect();
    if !removed.is_empty() && !args.common.quiet && !args.common.silent {
        let _ = writeln!(
            stderr,
            "removed {} temp file(s) that an interrupted skillmod run left beside the scripts",
            removed.len()
        );
    }
    if let Some(dirty) = &dirty {
        report.unrelated_dirty = migrate::git::unrelated_dirty(dirty, &files, &base);
    }
    let commit_error = match (repos.first(), args.commit && !args.dry_run) {
        (Some(repo), true) => migrate::git::commit_migrated(
            repo,
            &mut report,
            args.message.as_deref(),
            args.no_verify,
            &base,
        )
        .err(),
        _ => None,
    };
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
    let runtime_failed = report.runtime_files.iter().any(|r| {
        r.status == migrate::runtime::RuntimeStatus::Failed
            || !r.errors.is_empty() && !matches!(r.status, migrate::runtime::RuntimeStatus::Kept)
    });
    Ok(
        if report.summary.failed > 0 || commit_error.is_some() || runtime_failed {
            1
        } else {
            0
        },
    )
}

/// What each settings file (with the flags winning) makes of a migration: mode, vocabulary,
/// default confidence, and the template with its capture runtime, each loaded once.
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
        let resolved = flags.resolve(config);
        let (spec, path) = config.template(flags.template.as_deref())?;
        let template = Template::load_at(&spec, path.as_deref())?;
        let runtime = match resolved.mode {
            migrate::Mode::Capture => Some(Arc::new(capture::render_runtime(&template)?)),
            migrate::Mode::Comment => None,
        };
        Ok(Profile {
            mode: resolved.mode,
            vocabulary: resolved.vocabulary,
            default_confidence: resolved.default_confidence,
            keep_stdout: resolved.keep_stdout,
            placement: resolved.runtime,
            template,
            runtime,
        })
    }))
}
