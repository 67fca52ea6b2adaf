//! Human output of `check`: `path:line:column: kind: text`, a fix hint per file, a summary.

use std::io::{self, Write};

use anstyle::{AnsiColor, Style};

use crate::check::{CheckReport, Finding, Warning};

/// The findings and warnings of one file, then how to fix them.
pub fn write_file(
    out: &mut dyn Write,
    findings: &[Finding],
    warnings: &[Warning],
) -> io::Result<()> {
    let path = Style::new().bold();
    let kind = Style::new().fg_color(Some(AnsiColor::Red.into())).bold();
    let help = Style::new().fg_color(Some(AnsiColor::Cyan.into()));
    for f in findings {
        writeln!(
            out,
            "{path}{}:{}:{}{path:#}: {kind}{}{kind:#}: {}",
            super::quote_path(&f.path),
            f.line,
            f.column,
            f.kind.as_str(),
            f.text
        )?;
    }
    let warn = Style::new().fg_color(Some(AnsiColor::Yellow.into())).bold();
    for w in warnings {
        writeln!(
            out,
            "{path}{}:{}:{}{path:#}: {warn}warning{warn:#}: {}: {}",
            super::quote_path(&w.path),
            w.line,
            w.column,
            w.kind,
            w.text
        )?;
    }
    if let Some(first) = findings.first() {
        writeln!(
            out,
            "  {help}help{help:#}: run `skillmod migrate {}` to replace legacy output with the JSON block",
            super::quote_path(&first.path)
        )?;
    }
    Ok(())
}

pub fn write_summary(out: &mut dyn Write, report: &CheckReport) -> io::Result<()> {
    for e in &report.errors {
        writeln!(
            out,
            "error: {}: {}: {}",
            super::quote_path(&e.path),
            e.code,
            e.message
        )?;
    }
    let s = &report.summary;
    let bold = Style::new().bold();
    if s.findings == 0 {
        writeln!(
            out,
            "{bold}All clear{bold:#}: no legacy output in {}",
            plural(s.scripts_checked, "script")
        )
    } else {
        writeln!(
            out,
            "{bold}Found {} in {} of {} checked{bold:#}",
            plural(s.findings, "legacy statement"),
            s.files_with_findings,
            plural(s.scripts_checked, "script")
        )
    }
}

fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}
