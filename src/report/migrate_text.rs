//! The human report of a migrate run: problems always, every file with `--verbose`, then a
//! summary line.

use crate::migrate::remember::SettingsStatus;
use crate::migrate::runtime::RuntimeStatus;
use std::io::{self, Write};
use std::time::Duration;

use anstyle::{AnsiColor, Style};

use crate::analyze::LegacyValue;
use crate::migrate::{FileReport, RunReport, Status};

fn status_style(status: Status) -> Style {
    let color = match status {
        Status::Migrated | Status::WouldMigrate => AnsiColor::Green,
        Status::AlreadyMigrated | Status::NoLegacy => AnsiColor::BrightBlack,
        Status::Skipped => AnsiColor::Yellow,
        Status::Failed => AnsiColor::Red,
    };
    Style::new().fg_color(Some(color.into()))
}

pub(crate) fn status_label(status: Status) -> &'static str {
    match status {
        Status::Migrated => "migrated",
        Status::WouldMigrate => "would migrate",
        Status::AlreadyMigrated => "already migrated",
        Status::NoLegacy => "no legacy",
        Status::Skipped => "skipped",
        Status::Failed => "failed",
    }
}

/// One file's lines: shown for every file when verbose, else only for skipped and failed ones
/// and for files with notes.
pub(crate) fn write_file(out: &mut dyn Write, file: &FileReport, verbose: bool) -> io::Result<()> {
    let shown = matches!(file.status, Status::Skipped | Status::Failed) && !file.is_not_shell();
    if !verbose && !shown && file.notes.is_empty() {
        return Ok(());
    }
    let style = status_style(file.status);
    writeln!(
        out,
        "{style}{:>16}{style:#} {}",
        status_label(file.status),
        crate::bytes_text::quote_path(&file.path)
    )?;
    for entry in file.errors.iter().chain(&file.notes) {
        writeln!(
            out,
            "{:>16} {}: {}",
            "",
            entry.code,
            crate::bytes_text::visible(&entry.message)
        )?;
    }
    if verbose {
        for statement in &file.legacy {
            write!(
                out,
                "{:>16} line {}: {} `{}`",
                "",
                statement.line,
                statement.kind.as_str(),
                crate::bytes_text::visible(&statement.text)
            )?;
            if let Some(LegacyValue::RunTime(expr)) = &statement.value {
                let expr = crate::bytes_text::escape_marked(expr);
                let expr = crate::bytes_text::visible(&expr);
                write!(
                    out,
                    " (value `{expr}` is known only at run time: --mode capture records it, --mode comment leaves it out)"
                )?;
            }
            writeln!(out)?;
        }
        if file.stdout_to_stderr && matches!(file.status, Status::Migrated | Status::WouldMigrate) {
            for write in &file.stdout_writes {
                writeln!(
                    out,
                    "{:>16} line {}: `{}` goes to stderr",
                    "",
                    write.line,
                    crate::bytes_text::visible(&write.text)
                )?;
            }
        }
        if let Some(backup) = &file.backup {
            writeln!(
                out,
                "{:>16} backup: {}",
                "",
                crate::bytes_text::visible(backup)
            )?;
        }
    }
    Ok(())
}

/// What happened to the runtime files; a created one not committed by `--commit` names the
/// `git add` that puts it in the commit beside the skills that source it. `problems_only`
/// (`--quiet`) keeps the files that could not be written.
pub(crate) fn write_runtime_files(
    out: &mut dyn Write,
    report: &RunReport,
    problems_only: bool,
) -> io::Result<()> {
    // Identical files with one fate are one line: a repository of many skills gets one runtime
    // per skill folder, all the same bytes.
    let mut groups: Vec<Vec<&crate::migrate::runtime::RuntimeReport>> = Vec::new();
    let shown = report
        .runtime_files
        .iter()
        .filter(|r| !problems_only || r.status == RuntimeStatus::Failed || !r.errors.is_empty());
    for runtime in shown {
        if runtime.status.writes().is_none() {
            groups.push(vec![runtime]);
            continue;
        }
        match groups.iter_mut().find(|g| {
            g[0].status == runtime.status
                && g[0].text_sha256 == runtime.text_sha256
                && !runtime.text_sha256.is_empty()
                && runtime.errors.is_empty()
                && g[0].errors.is_empty()
        }) {
            Some(group) => group.push(runtime),
            None => groups.push(vec![runtime]),
        }
    }
    for group in groups {
        if group.len() > 1 {
            write_runtime_group(out, report, &group)?;
            continue;
        }
        let runtime = group[0];
        let what = match (runtime.status.writes(), runtime.status) {
            (Some(written), _) => written,
            (None, RuntimeStatus::Kept) => "left as it is: no script was pointed at it",
            (None, RuntimeStatus::Failed) => {
                "could not be written: the scripts that need it are unchanged"
            }
            (None, RuntimeStatus::Removed) => "removed: no script sources it any more",
            (None, RuntimeStatus::WouldRemove) => {
                "would be removed: no script would source it any more"
            }
            (None, _) => continue,
        };
        // A file left as it is is reported with the version it declares, not the one this
        // skillmod writes.
        match (runtime.status, runtime.version_before) {
            (RuntimeStatus::Kept | RuntimeStatus::Failed, Some(v)) if v > 0 => write!(
                out,
                "runtime {} {what} (it declares version {v})",
                crate::bytes_text::quote_path(&runtime.path)
            )?,
            (RuntimeStatus::Kept | RuntimeStatus::Failed, _) => write!(
                out,
                "runtime {} {what}",
                crate::bytes_text::quote_path(&runtime.path)
            )?,
            _ => write!(
                out,
                "runtime {} {what} (version {})",
                crate::bytes_text::quote_path(&runtime.path),
                runtime.version
            )?,
        }
        if runtime.status.writes().is_some() {
            write!(out, "; the migrated skills source it")?;
        }
        if runtime.status == RuntimeStatus::Created
            && runtime.in_work_tree
            && !report.commit_created
        {
            write!(
                out,
                ": add it to your commit (`git add {}`)",
                crate::bytes_text::command_arg(&runtime.path)
            )?;
        }
        writeln!(out)?;
    }
    Ok(())
}

/// The reading remembered in the settings files, one line each: what was written, or the line
/// to add where nothing could be. `problems_only` (`--quiet`) keeps the lines to act on: the
/// settings files not written or that failed.
pub(crate) fn write_settings_updates(
    out: &mut dyn Write,
    report: &RunReport,
    problems_only: bool,
) -> io::Result<()> {
    for update in &report.settings_updates {
        let done = matches!(
            update.status,
            SettingsStatus::Written | SettingsStatus::WouldWrite
        );
        if problems_only && done {
            continue;
        }
        writeln!(out, "{}", crate::bytes_text::visible(&update.sentence()))?;
    }
    Ok(())
}

/// One line for identical runtime files that met the same fate: how many, their lines, where.
fn write_runtime_group(
    out: &mut dyn Write,
    report: &RunReport,
    group: &[&crate::migrate::runtime::RuntimeReport],
) -> io::Result<()> {
    let first = group[0];
    // Only written files group: copies with an error, or none written, are lines of their own.
    let Some(what) = first.status.writes() else {
        return Ok(());
    };
    const SHOWN: usize = 5;
    let mut paths: Vec<String> = group
        .iter()
        .take(SHOWN)
        .map(|r| crate::bytes_text::quote_path(&r.path))
        .collect();
    if group.len() > SHOWN {
        paths.push(format!("and {} more", group.len() - SHOWN));
    }
    write!(
        out,
        "runtime files {what}: {} identical copies (version {}, {} lines each, {} in all), one per skill folder: {}",
        group.len(),
        first.version,
        first.lines,
        first.lines * group.len(),
        paths.join(", ")
    )?;
    if first.status == RuntimeStatus::Created && first.in_work_tree && !report.commit_created {
        write!(out, "; add them to your commit with the scripts")?;
    }
    writeln!(out)
}

/// The closing summary.
pub(crate) fn write_summary(
    out: &mut dyn Write,
    report: &RunReport,
    elapsed: Duration,
    dry_run: bool,
) -> io::Result<()> {
    let s = &report.summary;
    let bold = Style::new().bold();
    let changed = if dry_run {
        format!("{} would migrate", s.would_migrate)
    } else {
        format!("{} migrated", s.migrated)
    };
    let not_shell = match s.not_shell {
        0 => String::new(),
        n => format!(" ({n} not shell scripts, shown with -v)"),
    };
    writeln!(
        out,
        "{bold}{}{bold:#}: {changed}, {} already migrated, {} no legacy, {} skipped{not_shell}, {} failed ({:.2}s)",
        super::plural(s.total, "file"),
        s.already_migrated,
        s.no_legacy,
        s.skipped,
        s.failed,
        elapsed.as_secs_f64()
    )?;
    if s.not_checked > 0 {
        writeln!(
            out,
            "{} could not be checked (listed above; failed when named or called execute.sh, else skipped): not clear",
            super::plural(s.not_checked, "script")
        )?;
    }
    if s.stdout_to_stderr > 0 {
        let one = s.stdout_to_stderr == 1;
        let (print, go) = match (dry_run, one) {
            (true, _) => ("would print", "would go"),
            (false, true) => ("prints", "goes"),
            (false, false) => ("print", "go"),
        };
        let their = if one { "its" } else { "their" };
        writeln!(
            out,
            "stdout: {} {print} the JSON document alone; {their} other output ({}, and what {their} commands print) {go} to stderr (--keep-stdout keeps it on stdout)",
            super::plural(s.stdout_to_stderr, "script"),
            super::plural(s.stdout_writes_moved, "echo/printf/cat write"),
        )?;
    }
    if s.stdout_kept > 0 {
        writeln!(
            out,
            "stdout: {} {} {} beside the JSON block, so stdout is not the document alone (`validate --strict` refuses it); --stdout-to-stderr moves them",
            super::plural(s.stdout_kept, "script"),
            if s.stdout_kept == 1 { "keeps" } else { "keep" },
            super::plural(s.stdout_writes_kept, "other echo/printf/cat write"),
        )?;
    }
    write_runtime_files(out, report, false)?;
    write_settings_updates(out, report, false)?;
    if !report.unrelated_dirty.is_empty() {
        writeln!(
            out,
            "{} unrelated dirty files left alone",
            report.unrelated_dirty.len()
        )?;
    }
    if let Some(hash) = &report.commit_hash {
        let short = &hash[..hash.len().min(12)];
        writeln!(
            out,
            "committed {short}: {} files",
            report.files_committed.len()
        )?;
    }
    if let (Some(first), Some(command)) = (report.backup_dirs.first(), &report.restore_command) {
        let more = match report.backup_dirs.len() {
            1 => String::new(),
            n => format!(" and {} more", n - 1),
        };
        writeln!(
            out,
            "backups: {}{more} (undo with `{}`)",
            crate::bytes_text::visible(first),
            crate::bytes_text::visible(command)
        )?;
    }
    Ok(())
}
