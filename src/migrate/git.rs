//! migrate inside git: the work trees the scripts lie in, the dirty files a run did not select,
//! and the commit of exactly what was migrated (`--commit`).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::RunReport;
use super::runtime::{RuntimeReport, RuntimeStatus};
use crate::error::{Error, Result};
use crate::fsio::{Roots, canonical, display_path};
use crate::vcs::Repo;

/// The git work trees the files lie in (each file's own, not the working folder's), once each.
pub fn repositories(files: &[PathBuf], named: &[PathBuf]) -> Vec<Repo> {
    let mut finder = Roots::new(named);
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

/// Mark files that migrate created inside `repo`'s work tree as intended to be added (`git add
/// --intent-to-add -- PATHS`): `git diff` shows them and `git commit -a` takes them, as
/// all-repos commits (docs/multi-repo.md). Paths outside the work tree are left out.
pub fn intent_to_add(repo: &Repo, paths: &[PathBuf]) -> Result<()> {
    let inside: Vec<PathBuf> = paths
        .iter()
        .map(|p| canonical(p))
        .filter(|p| p.starts_with(&repo.root))
        .collect();
    repo.intend_to_add(&inside)
        .map_err(|e| Error::new(crate::codes::GIT_FAILED, e.message))
}

/// `intent_to_add` for each runtime file this run created, in the work tree holding it (one of
/// `repos`, else the one found above it). A file git refuses (an ignored one, say) is a note
/// on stderr, not a failure: the file is written, only git does not know about it yet.
pub(crate) fn mark_created(repos: &[Repo], runtimes: &[RuntimeReport]) {
    for runtime in runtimes
        .iter()
        .filter(|r| r.status == RuntimeStatus::Created)
    {
        let path = canonical(&runtime.abs_path);
        let repo = repos
            .iter()
            .find(|r| path.starts_with(&r.root))
            .cloned()
            .or_else(|| path.parent().and_then(Repo::discover));
        if let Some(repo) = repo
            && let Err(e) = intent_to_add(&repo, std::slice::from_ref(&path))
        {
            eprintln!(
                "note: {}: not marked for git (`git add --intent-to-add`): {}: {}; add it yourself with `git add`",
                crate::bytes_text::quote_path(&runtime.path),
                e.code,
                crate::bytes_text::visible(&e.message)
            );
        }
    }
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
        let runtimes = report
            .runtime_files
            .iter()
            .filter(|r| {
                r.backup.is_some()
                    || matches!(r.status, RuntimeStatus::Created | RuntimeStatus::Upgraded)
            })
            .count();
        let settings = report
            .settings_updates
            .iter()
            .filter(|u| u.status == super::remember::SettingsStatus::Written)
            .count();
        let n = migrated.len().saturating_sub(runtimes + settings);
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
