//! The migrate engine: each discovered file is read, analyzed, planned and (unless dry-run)
//! written with a backup. Files run in parallel; results come back in path order.

mod file;

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;

pub use file::process_file;

use crate::analyze::{BashParser, LegacyStatement};
use crate::error::{Error, Result};
use crate::fsio::backup::Backups;
use crate::rewrite::Template;

/// What happened to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Hash)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Migrated,
    WouldMigrate,
    AlreadyMigrated,
    NoLegacy,
    Skipped,
    Failed,
}

/// An error entry in a file report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ErrorEntry {
    pub code: &'static str,
    pub message: String,
}

impl From<Error> for ErrorEntry {
    fn from(e: Error) -> Self {
        ErrorEntry {
            code: e.code,
            message: e.message,
        }
    }
}

/// The report for one file (the `files[]` entries of `--format json`).
#[derive(Debug, Clone, Serialize)]
pub struct FileReport {
    pub path: String,
    pub status: Status,
    pub legacy: Vec<LegacyStatement>,
    pub backup: Option<String>,
    pub sha256_before: Option<String>,
    pub sha256_after: Option<String>,
    pub errors: Vec<ErrorEntry>,
    #[serde(skip)]
    pub abs_path: PathBuf,
}

/// Old and new bytes of a file that changes (or would), for diffs.
#[derive(Debug, Clone)]
pub struct Change {
    pub before: Vec<u8>,
    pub after: Vec<u8>,
}

/// Settings for one migrate run.
#[derive(Debug, Clone)]
pub struct Options {
    pub dry_run: bool,
    pub force: bool,
    pub backup: bool,
    pub default_confidence: f64,
    pub max_size: u64,
    pub template: Template,
    /// Folder that paths in reports are relative to.
    pub base: PathBuf,
}

/// Counts per status.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub total: usize,
    pub migrated: usize,
    pub would_migrate: usize,
    pub already_migrated: usize,
    pub no_legacy: usize,
    pub skipped: usize,
    pub failed: usize,
}

impl Summary {
    pub fn add(&mut self, status: Status) {
        self.total += 1;
        match status {
            Status::Migrated => self.migrated += 1,
            Status::WouldMigrate => self.would_migrate += 1,
            Status::AlreadyMigrated => self.already_migrated += 1,
            Status::NoLegacy => self.no_legacy += 1,
            Status::Skipped => self.skipped += 1,
            Status::Failed => self.failed += 1,
        }
    }
}

/// The outcome of a whole run.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    pub files: Vec<FileReport>,
    pub summary: Summary,
    pub backup_run: Option<String>,
}

/// Files are handed to threads in chunks so diffs can be printed, in order, while later chunks
/// are still being worked on, and no more than a chunk of file contents is held at once.
const CHUNK: usize = 256;

/// Migrate `files`, calling `on_file` for each result in path order.
pub fn run(
    files: &[PathBuf],
    options: &Options,
    backups: &Backups,
    mut on_file: impl FnMut(&FileReport, Option<&Change>),
) -> Result<RunReport> {
    BashParser::new()?;
    let mut reports = Vec::with_capacity(files.len());
    let mut summary = Summary::default();
    for chunk in files.chunks(CHUNK) {
        let results: Vec<(FileReport, Option<Change>)> = chunk
            .par_iter()
            .map_init(BashParser::new, |parser, path| match parser {
                Ok(parser) => guarded(path, options, backups, parser),
                Err(e) => failed(path, options, e.clone()),
            })
            .collect();
        for (report, change) in results {
            on_file(&report, change.as_ref());
            summary.add(report.status);
            reports.push(report);
        }
    }
    Ok(RunReport {
        files: reports,
        summary,
        backup_run: backups.run_id(),
    })
}

/// One file, with a panic turned into a failed report so the run goes on.
fn guarded(
    path: &Path,
    options: &Options,
    backups: &Backups,
    parser: &mut BashParser,
) -> (FileReport, Option<Change>) {
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        process_file(path, options, backups, parser)
    }));
    match outcome {
        Ok(result) => result,
        Err(panic) => {
            if let Ok(fresh) = BashParser::new() {
                *parser = fresh;
            }
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            failed(
                path,
                options,
                Error::new(
                    "INTERNAL_PANIC",
                    format!(
                        "skillmod crashed on this file ({what}); it was left unchanged. Please report it"
                    ),
                ),
            )
        }
    }
}

fn failed(path: &Path, options: &Options, error: Error) -> (FileReport, Option<Change>) {
    let mut report = FileReport::new(path, options);
    report.status = Status::Failed;
    report.errors.push(error.into());
    (report, None)
}

impl FileReport {
    fn new(path: &Path, options: &Options) -> FileReport {
        FileReport {
            path: crate::fsio::display_path(path, &options.base),
            status: Status::Failed,
            legacy: Vec::new(),
            backup: None,
            sha256_before: None,
            sha256_after: None,
            errors: Vec::new(),
            abs_path: path.to_path_buf(),
        }
    }
}
