//! `check`: report live legacy output statements without changing anything. Uses the same
//! discovery, prefilter and analyzer as migrate, plus a content-hash cache for repeated runs.

pub mod cache;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::analyze::{self, BashParser, LegacyKind, prefilter};
use crate::error::Error;
use crate::fsio::read::{ReadOutcome, read_script};
use cache::Cache;

/// One live legacy statement, as reported by check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub kind: LegacyKind,
    pub text: String,
}

/// A statement that writes to stdout beside the contract: a warning, not a failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Warning {
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub kind: &'static str,
    pub text: String,
}

/// What checking one file gave.
#[derive(Debug, Clone)]
pub enum FileCheck {
    Checked {
        findings: Vec<Finding>,
        warnings: Vec<Warning>,
    },
    Skipped {
        path: String,
        reason: Error,
    },
    Failed {
        path: String,
        error: Error,
    },
}

/// Settings for one check run.
pub struct Options {
    pub max_size: u64,
    /// Folder report paths are relative to.
    pub base: PathBuf,
}

/// Check one file: read, prefilter, then the cache or the analyzer.
pub fn check_file(
    path: &Path,
    options: &Options,
    cache: &Cache,
    parser: &mut BashParser,
) -> FileCheck {
    let shown = crate::fsio::display_path(path, &options.base);
    let script = match read_script(path, options.max_size) {
        Ok(script) => script,
        Err(ReadOutcome::Skipped(reason)) => {
            return FileCheck::Skipped {
                path: shown,
                reason,
            };
        }
        Err(ReadOutcome::Failed(error)) => return FileCheck::Failed { path: shown, error },
    };
    if !prefilter::may_hold_legacy(&script.body) {
        return FileCheck::Checked {
            findings: Vec::new(),
            warnings: Vec::new(),
        };
    }
    let key = cache.key(&script.body);
    let entry = match cache.get(&key) {
        Some(found) => found,
        None => match analyze::analyze(parser, &script.body) {
            Ok(analysis) => {
                let entry = cache::Entry {
                    parse_error: analysis.legacy_in_parse_error,
                    legacy: analysis
                        .legacy
                        .into_iter()
                        .map(|s| cache::Located {
                            line: s.line,
                            column: s.column,
                            kind: s.kind,
                            text: s.text,
                        })
                        .collect(),
                    stdout_writes: analysis
                        .stdout_writes
                        .into_iter()
                        .map(|w| cache::LocatedWrite {
                            line: w.line,
                            column: w.column,
                            text: w.text,
                        })
                        .collect(),
                };
                cache.put(key, entry.clone());
                entry
            }
            Err(error) => return FileCheck::Failed { path: shown, error },
        },
    };
    if let Some((line, column)) = entry.parse_error.filter(|_| entry.legacy.is_empty()) {
        return FileCheck::Failed {
            path: shown,
            error: Error::new(
                "PARSE_ERROR",
                format!(
                    "line {line}:{column}: a legacy statement lies where tree-sitter-bash cannot parse the script; check it by hand"
                ),
            ),
        };
    }
    let findings = entry
        .legacy
        .into_iter()
        .map(|l| Finding {
            path: shown.clone(),
            line: l.line,
            column: l.column,
            kind: l.kind,
            text: l.text,
        })
        .collect();
    let warnings = entry
        .stdout_writes
        .into_iter()
        .map(|w| Warning {
            path: shown.clone(),
            line: w.line,
            column: w.column,
            kind: "stdout_write",
            text: w.text,
        })
        .collect();
    FileCheck::Checked { findings, warnings }
}

/// Counts of a check run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub scripts_checked: usize,
    pub files_with_findings: usize,
    pub findings: usize,
    pub warnings: usize,
    pub skipped: usize,
    pub errors: usize,
}

/// A file that could not be checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileError {
    pub path: String,
    pub code: &'static str,
    pub message: String,
}

/// What a check run adds up to; the findings and warnings themselves go to `on_file` as they come,
/// so memory stays flat however many files there are.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CheckReport {
    pub summary: Summary,
    pub errors: Vec<FileError>,
}

/// Check `files` in parallel; `on_file` sees each file's findings and warnings in path order
/// (empty for clean, skipped and failed files).
pub fn run(
    files: &[PathBuf],
    options: &Options,
    cache: &Cache,
    mut on_file: impl FnMut(&[Finding], &[Warning]),
) -> crate::error::Result<CheckReport> {
    let mut report = CheckReport::default();
    crate::parallel::for_each_ordered(
        files,
        |path, parser| check_file(path, options, cache, parser),
        |path, error| FileCheck::Failed {
            path: crate::fsio::display_path(path, &options.base),
            error,
        },
        |result| match result {
            FileCheck::Checked { findings, warnings } => {
                report.summary.scripts_checked += 1;
                report.summary.warnings += warnings.len();
                if !findings.is_empty() {
                    report.summary.files_with_findings += 1;
                    report.summary.findings += findings.len();
                }
                on_file(&findings, &warnings);
            }
            FileCheck::Skipped { .. } => {
                report.summary.skipped += 1;
                on_file(&[], &[]);
            }
            FileCheck::Failed { path, error } => {
                on_file(&[], &[]);
                report.summary.errors += 1;
                report.errors.push(FileError {
                    path,
                    code: error.code,
                    message: error.message,
                });
            }
        },
    )?;
    Ok(report)
}
