//! `skillmod restore`: put back the originals of one backup run, or of every run since a given
//! one, newest first. Refuses to overwrite files edited since the migration unless `--force`,
//! and never trusts the manifest: unsafe entries are refused with or without `--force`.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{Format, RestoreArgs, working_dir};
use crate::error::{Error, Result};
use crate::fsio::backup::{self, CheckedEntry};
use crate::fsio::{atomic, display_path, project_root, sha256_hex};
use crate::migrate::ErrorEntry;

/// Permission bits restore may set: setuid, setgid and sticky never come back from a manifest.
const MODE_MASK: u32 = 0o777;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
enum RestoreStatus {
    Restored,
    Unchanged,
    Refused,
    Failed,
}

#[derive(Debug, Serialize)]
struct RestoredFile {
    run: String,
    path: String,
    status: RestoreStatus,
    errors: Vec<ErrorEntry>,
}

#[derive(Debug, Serialize)]
struct RestoreReport {
    /// The runs restored, newest first.
    runs: Vec<String>,
    /// Older runs left as they are.
    older_runs: Vec<String>,
    files: Vec<RestoredFile>,
    warnings: Vec<String>,
}

pub fn run(args: &RestoreArgs) -> Result<i32> {
    let base = working_dir()?;
    let root = project_root(&base);
    let runs = backup::list_runs(&root)?;
    let color = args.common.color.choice();
    let mut stdout = anstream::AutoStream::new(std::io::stdout().lock(), color);
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
            let report = RestoreReport {
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
    let chosen = choose_runs(args, &runs, &root)?;
    let older_runs: Vec<String> = match chosen.last() {
        Some(oldest) => runs.iter().filter(|r| *r < oldest).cloned().collect(),
        None => Vec::new(),
    };
    let filters = filters(args);
    let mut report = RestoreReport {
        runs: chosen.clone(),
        older_runs,
        files: Vec::new(),
        warnings: Vec::new(),
    };
    for run in &chosen {
        let first = report.files.len();
        let loaded = backup::load_run(&root, run)?;
        report.warnings.extend(loaded.warnings);
        for (path, error) in loaded.refused {
            report.files.push(RestoredFile {
                run: run.clone(),
                path,
                status: RestoreStatus::Refused,
                errors: vec![error.into()],
            });
        }
        // Scripts first, then the files the run created (runtime files): one of those stays
        // while a script of the run stays migrated (refused, failed, or not selected), since
        // that script still sources it.
        let (created, scripts): (Vec<&CheckedEntry>, Vec<&CheckedEntry>) =
            loaded.entries.iter().partition(|e| e.entry.created);
        let mut still_migrated = scripts.iter().any(|e| !selected(&e.target, &filters));
        for entry in scripts
            .into_iter()
            .filter(|e| selected(&e.target, &filters))
        {
            let (status, error) = restore_one(entry, args.force);
            still_migrated |= matches!(status, RestoreStatus::Refused | RestoreStatus::Failed);
            report.files.push(RestoredFile {
                run: run.clone(),
                path: display_path(&entry.target, &base),
                status,
                errors: error.into_iter().map(ErrorEntry::from).collect(),
            });
        }
        for entry in created
            .into_iter()
            .filter(|e| selected(&e.target, &filters))
        {
            let (status, error) = if still_migrated {
                (
                    RestoreStatus::Refused,
                    Some(Error::new(
                        "RUNTIME_STILL_USED",
                        "left in place: a script of this run is still migrated and sources it; restore that script (see above), then run restore again",
                    )),
                )
            } else {
                restore_one(entry, args.force)
            };
            report.files.push(RestoredFile {
                run: run.clone(),
                path: display_path(&entry.target, &base),
                status,
                errors: error.into_iter().map(ErrorEntry::from).collect(),
            });
        }
        // Each run's files in path order, as every report prints them.
        report.files[first..].sort_by(|a, b| a.path.cmp(&b.path));
    }
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
            write_text(&mut stdout, &report, args.common.verbose)
        }
        Format::Text => {}
    }
    let bad = report
        .files
        .iter()
        .any(|f| matches!(f.status, RestoreStatus::Refused | RestoreStatus::Failed));
    Ok(if bad { 1 } else { 0 })
}

/// The runs to restore, newest first: `--run ID`, every run since `--since`, or the latest.
fn choose_runs(args: &RestoreArgs, runs: &[String], root: &Path) -> Result<Vec<String>> {
    let none = || {
        Error::new(
            "NO_BACKUPS",
            format!(
                "no backup runs under {}; nothing to restore",
                root.join(crate::fsio::STATE_DIR).display()
            ),
        )
    };
    if let Some(id) = &args.run {
        return Ok(vec![id.clone()]);
    }
    if let Some(since) = &args.since {
        let from = since_key(since)?;
        let mut chosen: Vec<String> = runs.iter().filter(|r| **r >= from).cloned().collect();
        chosen.reverse();
        if chosen.is_empty() {
            return Err(Error::new(
                "NO_BACKUPS",
                format!("no backup run since '{since}'; list runs with `skillmod restore --list`"),
            ));
        }
        return Ok(chosen);
    }
    runs.last().map(|r| vec![r.clone()]).ok_or_else(none)
}

/// What a run id must sort at or after for `--since`: the id itself, or a date or time turned
/// into the id format.
fn since_key(since: &str) -> Result<String> {
    if backup::is_run_id(since) {
        return Ok(since.to_string());
    }
    let time = chrono::NaiveDateTime::parse_from_str(since, "%Y-%m-%dT%H:%M:%S")
        .or_else(|_| chrono::NaiveDateTime::parse_from_str(since, "%Y-%m-%dT%H:%M"))
        .or_else(|_| {
            chrono::NaiveDate::parse_from_str(since, "%Y-%m-%d")
                .map(|d| d.and_hms_opt(0, 0, 0).unwrap_or_default())
        })
        .map_err(|_| {
            Error::new(
                "INVALID_ARGUMENT",
                format!(
                    "--since takes a run id (like 20261121T223938.761Z) or a UTC date or time (2026-11-21, 2026-11-21T22:00), not '{since}'"
                ),
            )
        })?;
    Ok(time.format("%Y%m%dT%H%M%S").to_string())
}

fn write_text(out: &mut dyn Write, report: &RestoreReport, verbose: bool) {
    for file in &report.files {
        if verbose || file.status != RestoreStatus::Unchanged {
            let label = match file.status {
                RestoreStatus::Restored => "restored",
                RestoreStatus::Unchanged => "unchanged",
                RestoreStatus::Refused => "refused",
                RestoreStatus::Failed => "failed",
            };
            let _ = writeln!(out, "{label:>10} {}", crate::report::quote_path(&file.path));
            for e in &file.errors {
                let _ = writeln!(out, "{:>10} {}: {}", "", e.code, e.message);
            }
        }
    }
    let count = |status| report.files.iter().filter(|f| f.status == status).count();
    let runs = match report.runs.as_slice() {
        [one] => format!("run {one}"),
        many => format!(
            "{} runs ({} to {})",
            many.len(),
            many[many.len() - 1],
            many[0]
        ),
    };
    let _ = writeln!(
        out,
        "{runs}: {} of {} files restored, {} already original, {} refused, {} failed",
        count(RestoreStatus::Restored),
        report.files.len(),
        count(RestoreStatus::Unchanged),
        count(RestoreStatus::Refused),
        count(RestoreStatus::Failed),
    );
    if !report.older_runs.is_empty() {
        let _ = writeln!(
            out,
            "{} older run(s) left as they are (latest {}); undo them too with `skillmod restore --since {}`",
            report.older_runs.len(),
            report.older_runs[report.older_runs.len() - 1],
            report.older_runs[0],
        );
    }
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

fn selected(path: &Path, filters: &[PathBuf]) -> bool {
    filters.is_empty() || filters.iter().any(|f| path.starts_with(f))
}

fn restore_one(checked: &CheckedEntry, force: bool) -> (RestoreStatus, Option<Error>) {
    let entry = &checked.entry;
    let target = &checked.target;
    let current = match std::fs::symlink_metadata(target) {
        Ok(meta) if !meta.is_file() => {
            return (
                RestoreStatus::Refused,
                Some(Error::new(
                    "NOT_A_REGULAR_FILE",
                    "is now a symlink, FIFO, device or folder; restore writes only regular files",
                )),
            );
        }
        Ok(_) => std::fs::read(target).ok().map(|b| sha256_hex(&b)),
        Err(_) => None,
    };
    if entry.created {
        return remove_created(target, current.as_deref(), &entry.sha256_after, force);
    }
    match current.as_deref() {
        Some(sha) if sha == entry.sha256_before => return (RestoreStatus::Unchanged, None),
        Some(sha) if sha == entry.sha256_after || force => {}
        None if force => {}
        Some(_) => {
            return (
                RestoreStatus::Refused,
                Some(Error::new(
                    "FILE_CHANGED_SINCE_MIGRATION",
                    "edited after the migration; restoring would lose those edits. Use --force to restore anyway",
                )),
            );
        }
        None => {
            return (
                RestoreStatus::Refused,
                Some(Error::new(
                    "FILE_MISSING",
                    "the file no longer exists; use --force to recreate it from the backup",
                )),
            );
        }
    }
    let original = match std::fs::read(&checked.backup) {
        Ok(bytes) if sha256_hex(&bytes) == entry.sha256_before => bytes,
        Ok(_) => {
            return (
                RestoreStatus::Failed,
                Some(Error::new(
                    "BACKUP_CORRUPT",
                    format!("{} changed while restoring", checked.backup.display()),
                )),
            );
        }
        Err(e) => {
            return (
                RestoreStatus::Failed,
                Some(Error::io(
                    "BACKUP_UNREADABLE",
                    "cannot read the backup",
                    &checked.backup,
                    &e,
                )),
            );
        }
    };
    match atomic::write_atomic(target, &original, entry.mode & MODE_MASK) {
        Ok(()) => (RestoreStatus::Restored, None),
        Err(e) => (RestoreStatus::Failed, Some(e)),
    }
}

/// Undo the creation of a file (a runtime file the migration wrote): remove it, unless it was
/// edited since (then only with `--force`).
fn remove_created(
    target: &Path,
    current: Option<&str>,
    sha_after: &str,
    force: bool,
) -> (RestoreStatus, Option<Error>) {
    match current {
        None => (RestoreStatus::Unchanged, None),
        Some(sha) if sha != sha_after && !force => (
            RestoreStatus::Refused,
            Some(Error::new(
                "FILE_CHANGED_SINCE_MIGRATION",
                "the migration created this file and it was edited since; removing it would lose those edits. Use --force to remove it anyway",
            )),
        ),
        Some(_) => match std::fs::remove_file(target) {
            Ok(()) => (RestoreStatus::Restored, None),
            Err(e) => (
                RestoreStatus::Failed,
                Some(Error::io("RESTORE_FAILED", "cannot remove", target, &e)),
            ),
        },
    }
}
