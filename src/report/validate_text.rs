//! Human output of `validate`: one line per source (valid ones hidden with `-q`), the contract's
//! errors, the errors the document itself reports and the run's details under it, then the
//! counts. Text that comes from the skill (its stderr, a path) is printed without control
//! characters, so it cannot colour or move the terminal.

use std::io::Write;

use crate::contract::validate::Report;

pub fn write(
    out: &mut dyn Write,
    report: &Report,
    quiet: bool,
    colored: bool,
) -> std::io::Result<()> {
    let plain = anstyle::Style::new();
    let (good, bad) = if colored {
        (
            plain.fg_color(Some(anstyle::AnsiColor::Green.into())),
            plain.fg_color(Some(anstyle::AnsiColor::Red.into())).bold(),
        )
    } else {
        (plain, plain)
    };
    for r in &report.results {
        let how = match r.outcome.parse_method {
            Some(p) => format!("parsed as {}, schema {}", p.as_str(), report.schema),
            None => format!("no result found, schema {}", report.schema),
        };
        // What the result says, for the v1 fields (a valid document can report a failure).
        let says = r
            .outcome
            .value
            .as_ref()
            .and_then(|v| Some((v.get("success")?.as_bool()?, v.get("confidence")?.as_f64()?)))
            .map(|(success, confidence)| format!(": success {success}, confidence {confidence}"))
            .unwrap_or_default();
        let source = super::quote_path(&r.source);
        if r.outcome.valid {
            if quiet {
                continue;
            }
            writeln!(out, "{good}valid{good:#}   {source} ({how}){says}")?;
        } else {
            writeln!(out, "{bad}invalid{bad:#} {source} ({how}){says}")?;
            for e in &r.outcome.errors {
                writeln!(out, "        {}: {}", e.code, printable(&e.message))?;
            }
        }
        // Why a document reports a failure: the errors it carries (EXIT_STATUS, …).
        let reported = r
            .outcome
            .value
            .as_ref()
            .and_then(|v| v.get("errors")?.as_array());
        for e in reported.into_iter().flatten() {
            let field = |name: &str| e.get(name).and_then(|v| v.as_str()).unwrap_or("");
            writeln!(
                out,
                "        reports {}: {}",
                printable(field("code")),
                printable(field("message"))
            )?;
        }
        if let Some(run) = &r.run {
            let status = run
                .exit_status
                .map_or("killed".to_string(), |s| s.to_string());
            writeln!(out, "        exit status {status}, {} ms", run.duration_ms)?;
            for cut in &run.cut {
                writeln!(out, "        cut: {cut}")?;
            }
            for line in &run.stderr_tail {
                writeln!(out, "        stderr: {}", printable(line))?;
            }
        }
    }
    let s = &report.summary;
    writeln!(
        out,
        "{} outputs: {} valid, {} invalid",
        s.total, s.valid, s.invalid
    )
}

/// `text` without colour codes, other control characters (but tabs) shown as
/// `bytes_text::visible` shows them.
fn printable(text: &str) -> String {
    crate::bytes_text::visible(&crate::analyze::vocabulary::strip_ansi(text)).into_owned()
}
