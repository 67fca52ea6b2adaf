//! `skillmod restore`: put back the originals of a backup run, refusing to overwrite files edited
//! since the migration unless `--force`.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{Format, RestoreArgs, working_dir};
use crate::error::{Error, Result};
use crate::fsio::backup::{self, ManifestEntry};
use crate::fsio::{atomic, display_path, project_root, sha256_hex};
use crate::migrate::ErrorEntry;

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
    path: String,
    status: RestoreStatus,
    errors: Vec<ErrorEntry>,
}

#[derive(Debug, Serialize)]
struct RestoreReport {
    run: String,
    files: Vec<RestoredFile>,
}

pub fn run(args: &RestoreArgs) -> Result<i32> {
    let base = working_dir()?;
    let root = project_root(&base);
    let runs = backup::list_runs(&root);
    let color = args.common.color.choice();
    let mut stdout = anstream::AutoStream::new(std::io::stdout().lock(), color);
    if args.list {
        for run in &runs {
            let count = backup::load_run(&root, run)
                .map(|(_, e)| e.len())
                .unwrap_or(0);
            let _ = writeln!(stdout, "{run}\t{count} files");
        }
        return Ok(0);
    }
    let run = match (&args.run, runs.last()) {
        (Some(id), _) => id.clone(),
        (None, Some(latest)) => latest.clone(),
        (None, None) => {
            return Err(Error::new(
                "NO_BACKUPS",
                format!(
                    "no backup runs under {}; nothing to restore",
                    root.join(crate::fsio::STATE_DIR).display()
                ),
            ));
        }
    };
    let (dir, entries) = backup::load_run(&root, &run)?;
    let filters = filters(args);
    let mut report = RestoreReport {
        run: run.clone(),
        files: Vec::new(),
    };
    for entry in entries.iter().filter(|e| selected(&e.path, &filters)) {
        let (status, error) = restore_one(&dir, entry, args.force);
        report.files.push(RestoredFile {
            path: display_path(&entry.path, &base),
            status,
            errors: error.into_iter().map(ErrorEntry::from).collect(),
        });
    }
    match args.format {
        Format::Json => {
            let json = serde_json::to_string_pretty(&report)
                .map_err(|e| Error::new("IO_ERROR", format!("cannot encode the report: {e}")))?;
            let _ = writeln!(stdout, "{json}");
        }
        Format::Text if !args.common.quiet => {
            for file in &report.files {
                if args.common.verbose || file.status != RestoreStatus::Unchanged {
                    let label = match file.status {
                        RestoreStatus::Restored => "restored",
                        RestoreStatus::Unchanged => "unchanged",
                        RestoreStatus::Refused => "refused",
                        RestoreStatus::Failed => "failed",
                    };
                    let _ = writeln!(stdout, "{label:>10} {}", file.path);
                    for e in &file.errors {
                        let _ = writeln!(stdout, "{:>10} {}: {}", "", e.code, e.message);
                    }
                }
            }
            let restored = report
                .files
                .iter()
                .filter(|f| f.status == RestoreStatus::Restored)
                .count();
            let _ = writeln!(
                stdout,
                "run {run}: {restored} of {} files restored",
                report.files.len()
            );
        }
        Format::Text => {}
    }
    let bad = report
        .files
        .iter()
        .any(|f| matches!(f.status, RestoreStatus::Refused | RestoreStatus::Failed));
    Ok(if bad { 1 } else { 0 })
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

fn restore_one(dir: &Path, entry: &ManifestEntry, force: bool) -> (RestoreStatus, Option<Error>) {
    let current = std::fs::read(&entry.path).ok().map(|b| sha256_hex(&b));
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
    let backup_path = dir.join(&entry.backup);
    let original = match std::fs::read(&backup_path) {
        Ok(bytes) => bytes,
        Err(e) => {
            return (
                RestoreStatus::Failed,
                Some(Error::io(
                    "BACKUP_UNREADABLE",
                    "cannot read the backup",
                    &backup_path,
                    &e,
                )),
            );
        }
    };
    if sha256_hex(&original) != entry.sha256_before {
        return (
            RestoreStatus::Failed,
            Some(Error::new(
                "BACKUP_CORRUPT",
                format!(
                    "{} does not match its recorded sha256",
                    backup_path.display()
                ),
            )),
        );
    }
    match atomic::write_atomic(&entry.path, &original, entry.mode) {
        Ok(()) => (RestoreStatus::Restored, None),
        Err(e) => (RestoreStatus::Failed, Some(e)),
    }
}
