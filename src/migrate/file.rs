//! Migrating one file: read, analyze, plan, re-parse the result, then back up and write
//! atomically (or only report, in a dry run).

use std::path::Path;

use super::{Change, FileReport, Mode, Options, Status};
use crate::analyze::{self, BLOCK_DELIMITER, BLOCK_MARKER, BashParser, prefilter};
use crate::error::Error;
use crate::fsio::backup::Backups;
use crate::fsio::read::{ReadOutcome, read_script};
use crate::fsio::{atomic, display_path, sha256_hex};
use crate::rewrite::{self, Reason, capture, values};

/// Migrate one file; never panics on bad input, every problem is in the report.
pub fn process_file(
    path: &Path,
    options: &Options,
    backups: &Backups,
    parser: &mut BashParser,
) -> (FileReport, Option<Change>) {
    let mut report = FileReport::new(path, options);
    let script = match read_script(path, options.max_size) {
        Ok(script) => script,
        Err(ReadOutcome::Skipped(reason)) => {
            report.status = Status::Skipped;
            report.errors.push(reason.into());
            return (report, None);
        }
        Err(ReadOutcome::Failed(error)) => return fail(report, error),
    };
    let original = script.bytes();
    let sha_before = sha256_hex(&original);
    report.sha256_before = Some(sha_before.clone());
    report.sha256_after = Some(sha_before.clone());
    if !options.force && !might_need_parse(&script.body) {
        report.status = Status::NoLegacy;
        return (report, None);
    }
    let analysis = match analyze::analyze(parser, &script.body) {
        Ok(a) => a,
        Err(e) => return fail(report, e),
    };
    report.legacy = analysis.legacy.clone();
    report.stdout_writes = analysis.stdout_writes.clone();
    if analysis.already_migrated {
        report.status = Status::AlreadyMigrated;
        return (report, None);
    }
    if analysis.legacy.is_empty() && !options.force {
        report.status = Status::NoLegacy;
        return (report, None);
    }
    if analysis.parse_errors > 0 {
        report.status = Status::Skipped;
        report.errors.push(
            Error::new(
                "PARSE_ERROR",
                format!(
                    "tree-sitter-bash cannot fully parse this script ({} parse errors), so edits could land in the wrong place; migrate it by hand",
                    analysis.parse_errors
                ),
            )
            .into(),
        );
        return (report, None);
    }
    // Refused before any planning: a dirty file is never rewritten, so no work is spent on it.
    if let Some(dirty) = &options.dirty
        && dirty.contains(&crate::vcs::canonical(path))
    {
        let reason = Error::new(
            "DIRTY_FILE",
            "has uncommitted changes (staged, unstaged or untracked); commit or stash them first, or pass --allow-dirty",
        );
        return fail(report, reason);
    }
    let skill_name = skill_name(path);
    let planned = match options.mode {
        Mode::Comment => {
            let context =
                values::static_values(&analysis.legacy, options.default_confidence, &skill_name);
            rewrite::plan_comment_mode(&analysis, &script.body, &options.template, &context)
        }
        Mode::Capture => capture::plan_capture_mode(
            &analysis,
            &script.body,
            &options.template,
            &skill_name,
            options.default_confidence,
        ),
    };
    let mut plan = match planned {
        Ok(plan) => plan,
        Err(e) => return fail(report, e),
    };
    if options.stdout_to_stderr {
        for write in &analysis.stdout_writes {
            plan.push(
                write.end,
                write.end,
                " >&2",
                Reason::StdoutToStderr { line: write.line },
            );
        }
    }
    let body = match rewrite::apply_checked(&plan, &analysis, &script.body, parser) {
        Ok(body) => body,
        Err(e) => return fail(report, e),
    };
    let after = script.with_body(&body);
    let sha_after = sha256_hex(&after);
    let prefix = original.len() - script.body.len();
    let change = Change {
        before: original,
        after,
        edits: plan
            .edits
            .iter()
            .map(|e| (prefix + e.start..prefix + e.end, e.replacement.len()))
            .collect(),
    };
    if options.dry_run {
        report.status = Status::WouldMigrate;
        report.sha256_after = Some(sha_after);
        return (report, Some(change));
    }
    if options.backup {
        match backups.save(path, &change.before, script.mode, &sha_before, &sha_after) {
            Ok(backup) => report.backup = Some(display_path(&backup, &options.base)),
            Err(e) => return fail(report, e),
        }
    }
    if let Err(e) = atomic::write_atomic(path, &change.after, script.mode) {
        return fail(report, e);
    }
    report.status = Status::Migrated;
    report.sha256_after = Some(sha_after);
    (report, Some(change))
}

/// The file failed with `error`; it was not changed, so `sha256_after` still equals the original's.
fn fail(mut report: FileReport, error: Error) -> (FileReport, Option<Change>) {
    report.status = Status::Failed;
    report.errors.push(error.into());
    (report, None)
}

/// False when the file can hold neither a legacy statement nor the JSON block.
fn might_need_parse(body: &[u8]) -> bool {
    prefilter::may_hold_legacy(body)
        || [BLOCK_MARKER, BLOCK_DELIMITER]
            .iter()
            .any(|m| memchr::memmem::find(body, m.as_bytes()).is_some())
}

/// The skill's name: the folder holding its script.
fn skill_name(path: &Path) -> String {
    std::path::absolute(path)
        .ok()
        .and_then(|p| {
            p.parent()
                .and_then(|d| d.file_name())
                .map(|n| n.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "skill".to_string())
}
