//! Human output of `check`: `path:line:column: CODE kind: text` per finding, a fix hint per file,
//! then a summary (and, with `--statistics`, the count per rule).

use std::io::{self, Write};

use anstyle::{AnsiColor, Style};

use crate::check::{CheckReport, Finding, Rule, Severity};

/// The styles of the report: all plain when colour is off, so the output holds no escapes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Palette {
    pub colored: bool,
}

impl Palette {
    fn paint(self, style: Style) -> Style {
        if self.colored { style } else { Style::new() }
    }
}

/// The findings of one file, then how to fix them.
pub(crate) fn write_file(
    out: &mut dyn Write,
    findings: &[Finding],
    palette: Palette,
) -> io::Result<()> {
    let bold = palette.paint(Style::new().bold());
    let help = palette.paint(Style::new().fg_color(Some(AnsiColor::Cyan.into())));
    for f in findings {
        let color = match f.severity {
            Severity::Error => AnsiColor::Red,
            Severity::Warning => AnsiColor::Yellow,
            Severity::Note => AnsiColor::Blue,
        };
        let style = palette.paint(Style::new().fg_color(Some(color.into())).bold());
        let place = if f.line > 0 {
            format!(
                "{}:{}:{}",
                crate::bytes_text::quote_path(&f.path),
                f.line,
                f.column
            )
        } else {
            crate::bytes_text::quote_path(&f.path)
        };
        let what = match (f.kind, &f.text, f.reason) {
            (Some(kind), Some(text), _) => format!("{}: {text}", kind.as_str()),
            (None, Some(text), _) if f.code == Rule::StdoutWrite => {
                format!("stdout_write: {text}")
            }
            (_, _, Some(reason)) => format!("{reason}: {}", f.message),
            _ => f.message.clone(),
        };
        // The statement's text and messages quote the script: shown without control characters.
        writeln!(
            out,
            "{bold}{place}{bold:#}: {style}{}{style:#} {}",
            f.code,
            crate::bytes_text::visible(&what)
        )?;
    }
    // No migrate hint where migrate would refuse the file (SKM008 and SKM003 say why).
    let refused = findings
        .iter()
        .any(|f| f.code == Rule::CannotMigrate || f.code == Rule::Unreadable);
    // One hint per file: the migration for legacy lines, else the first other fix (the
    // redirect of other writes, the runtime a migrated skill misses).
    let legacy_fix = findings
        .iter()
        .find(|f| f.code == Rule::LegacyOutput)
        .and_then(|f| f.fix.as_ref())
        .filter(|_| !refused);
    if let Some(fix) = legacy_fix {
        writeln!(
            out,
            "  {help}help{help:#}: run `{}` to replace legacy output with the JSON block",
            crate::bytes_text::visible(fix)
        )?;
    } else if let Some(finding) = findings.iter().find(|f| f.fix.is_some()) {
        let fix = finding.fix.as_deref().unwrap_or_default();
        let what = if finding.code == Rule::StdoutWrite {
            "to send the other stdout writes to stderr"
        } else if fix.starts_with("git add ") {
            "to put the runtime the skill sources in the commit"
        } else {
            "to write or upgrade the runtime the skill sources"
        };
        writeln!(
            out,
            "  {help}help{help:#}: run `{}` {what}",
            crate::bytes_text::visible(fix)
        )?;
    }
    Ok(())
}

pub(crate) fn write_summary(
    out: &mut dyn Write,
    report: &CheckReport,
    palette: Palette,
    verbose: bool,
) -> io::Result<()> {
    let s = &report.summary;
    // Nothing looked at: the command says why (NOTHING_CHECKED), not "All clear".
    if s.scripts_checked == 0 && s.errors == 0 && s.findings == 0 && s.not_checked == 0 {
        return Ok(());
    }
    let bold = palette.paint(Style::new().bold());
    // What could not be judged comes first: it is never "All clear".
    let mut not_clear = Vec::new();
    if s.errors > 0 {
        not_clear.push(format!(
            "{} could not be checked (SKM003, above)",
            super::plural(s.errors, "file")
        ));
    }
    if s.not_checked > 0 {
        not_clear.push(format!(
            "{} could not be checked (SKM004, above)",
            super::plural(s.not_checked, "script")
        ));
    }
    if s.findings == 0 && !not_clear.is_empty() {
        write!(
            out,
            "{bold}Not clear{bold:#}: {}; no legacy output in {} checked",
            not_clear.join(", "),
            super::plural(s.scripts_checked, "script")
        )?;
        if let Some(off) = narrowed_by_settings(report) {
            write!(out, " ({off})")?;
        }
        if s.notes > 0 {
            write!(out, "; {}", hidden_notes(s.notes, verbose))?;
        }
    } else if s.findings == 0 {
        let readings: Vec<&str> = report.vocabularies.iter().map(|v| v.as_str()).collect();
        write!(
            out,
            "{bold}All clear{bold:#}: no legacy output in {}",
            super::plural(s.scripts_checked, "script"),
        )?;
        // Which lines counted as legacy output, and which rules settings turned off: "All
        // clear" holds for that reading and those rules.
        let mut judged: Vec<String> = Vec::new();
        if !readings.is_empty() {
            judged.push(format!("vocabulary {}", readings.join(", ")));
        }
        judged.extend(narrowed_by_settings(report));
        if !judged.is_empty() {
            write!(out, " ({})", judged.join("; "))?;
        }
        // Notes say what check could not read; "All clear" never hides that there are some.
        if s.notes > 0 {
            write!(out, "; {}", hidden_notes(s.notes, verbose))?;
        }
    } else {
        // Findings are errors: legacy statements, and malformed directives (SKM006).
        let legacy = report
            .statistics
            .get(&Rule::LegacyOutput)
            .copied()
            .unwrap_or(0);
        let found = match (legacy, s.findings - legacy) {
            (legacy, 0) => super::plural(legacy, "legacy statement"),
            (0, other) => super::plural(other, "error"),
            (legacy, other) => format!(
                "{} and {}",
                super::plural(legacy, "legacy statement"),
                super::plural(other, "other error")
            ),
        };
        write!(
            out,
            "{bold}Found {found} in {} of {} checked{bold:#}",
            s.files_with_findings,
            // A file with findings was read even when a parse error left it not clear.
            super::plural(s.scripts_checked.max(s.files_with_findings), "script")
        )?;
        if !not_clear.is_empty() {
            write!(out, "; {}", not_clear.join(", "))?;
        }
        if let Some(off) = narrowed_by_settings(report) {
            write!(out, " ({off})")?;
        }
        if s.notes > 0 {
            write!(out, "; {}", hidden_notes(s.notes, verbose))?;
        }
    }
    if s.suppressed > 0 {
        write!(out, " ({} suppressed)", s.suppressed)?;
    }
    writeln!(out)
}

/// The SKM010 notes the text report shows only with `-v` (`verbose`: shown above), named by
/// their rule: other notes (SKM009) are shown without it.
fn hidden_notes(count: usize, verbose: bool) -> String {
    let notes = super::plural(count, &format!("{} note", Rule::OutOfReach.code()));
    match verbose {
        true => format!("{notes} (above)"),
        false => format!("{notes} (shown with -v)"),
    }
}

/// What the run says beside the findings, for the machine formats that have no summary (GitHub
/// notices, SARIF notifications): which rules settings turn off, and the walk's notes.
pub(crate) fn run_notes(report: &CheckReport) -> Vec<String> {
    rules_off(report)
        .into_iter()
        .chain(report.walk_notes.iter().cloned())
        .collect()
}

/// Which rules settings files turn off, as the summary says it (`settings in skillmod.toml turn
/// off SKM002`).
fn rules_off(report: &CheckReport) -> Vec<String> {
    let off = report.summary.rules_off.iter().map(|off| {
        let codes: Vec<&str> = off.rules.iter().map(|r| r.code()).collect();
        format!(
            "settings in {} turn off {}",
            crate::bytes_text::quote_path(&off.settings),
            codes.join(", ")
        )
    });
    off.collect()
}

/// What settings files take out of a verdict, as the summary says it: the rules they turn off
/// and the paths their `exclude` leaves out (the walk's notes name those); `None` when nothing.
fn narrowed_by_settings(report: &CheckReport) -> Option<String> {
    let excluded = report.summary.excluded_by_settings.iter().map(|left| {
        format!(
            "`exclude` in {} leaves out {}",
            crate::bytes_text::quote_path(&left.settings),
            super::plural(left.paths, "path")
        )
    });
    let parts: Vec<String> = rules_off(report).into_iter().chain(excluded).collect();
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// `--statistics`: how many findings each rule gave, most first.
pub(crate) fn write_statistics(out: &mut dyn Write, report: &CheckReport) -> io::Result<()> {
    let mut counts: Vec<(Rule, usize)> = report
        .statistics
        .iter()
        .map(|(rule, n)| (*rule, *n))
        .collect();
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    for (rule, n) in counts {
        writeln!(out, "{n:>6}\t{rule}\t{}\t{}", rule.name(), rule.summary())?;
    }
    Ok(())
}
