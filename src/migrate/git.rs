//! migrate inside git: the work trees the scripts lie in, the dirty files a run did not select,
//! and the commit of exactly what was migrated (`--commit`).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::RunReport;
use super::runtime::RuntimeStatus;
use crate::error::Result;
use crate::fsio::{Roots, canonical, display_path};
use crate::vcs::Repo;

/// The git work trees the files lie in (each file's own, not the working folder's), once each.
pub fn repositories(files: &[PathBuf], base: &Path) -> Vec<Repo> {
    let mut finder = Roots::new(base);
    let mut roots: Vec<PathBuf> = files.iter().map(|f| finder.root(f)).collect();
    roots.sort();
    roots.dedup();
    roots.retain(|root| root.join(".git").exists());
    let mut repos: Vec<Repo> = roots.iter().filter_map(|r| Repo::discover(r)).collect();
    repos.sort_by(|a, b| a.root.cmp(&b.root));
    repos.dedup_by(|a, b| a.root == b.root);
    repos
}

/// Dirty files in the work tree that this run did not select, relative to `base`, sorted.
pub fn unrelated_dirty(dirty: &HashSet<PathBuf>, selected: &[PathBuf], base: &Path) -> Vec<String> {
    let selected: HashSet<PathBuf> = selected.iter().map(|f| canonical(f)).collect();
    let base = canonical(base);
    let mut unrelated: Vec<String> = dirty
        .iter()
        .filter(|d| !selected.contains(*d))
        .map(|d| display_path(d, &base))
        .collect();
    unrelated.sort();
    unrelated
}

/// Commit exactly the migrated files and record the confirmation in the report; nothing
/// migrated means no commit.
pub(crate) fn commit_migrated(
    repo: &Repo,
    report: &mut RunReport,
    message: Option<&str>,
    no_verify: bool,
    base: &Path,
) -> Result<()> {
    let migrated = &report.migrated;
    if migrated.is_empty() {
        return Ok(());
    }
    let paths: Vec<PathBuf> = migrated
        .iter()
        .map(|(_, abs_path)| canonical(abs_path))
        .collect();
    let message = message.map(str::to_string).unwrap_or_else(|| {
        let n = migrated.len()
            - report
                .runtime_files
                .iter()
                .filter(|r| {
                    r.backup.is_some()
                        || matches!(r.status, RuntimeStatus::Created | RuntimeStatus::Upgraded)
                })
                .count();
        format!(
            "skillmod: migrate {n} skill{} to JSON output",
            if n == 1 { "" } else { "s" }
        )
    });
    let created: Vec<PathBuf> = report
        .runtime_files
        .iter()
        .filter(|r| r.status == RuntimeStatus::Created)
        .map(|r| canonical(&r.abs_path))
        .collect();
    repo.intend_to_add(&created)?;
    let hash = repo.commit_only(&paths, &message, no_verify)?;
    // What the commit holds, as git recorded it: a hook may have staged more.
    let base = canonical(base);
    report.files_committed = repo
        .files_in_commit(&hash)?
        .into_iter()
        .map(|p| display_path(&repo.root.join(p), &base))
        .collect();
    report.commit_created = true;
    report.commit_hash = Some(hash);
    Ok(())
}
