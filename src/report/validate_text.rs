//! Human output of `validate`: one line per source (valid ones hidden with `-q`), its errors and
//! run details under it, then the counts.

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
        if r.outcome.valid {
            if !quiet {
                writeln!(out, "{good}valid{good:#}   {} ({how}){says}", r.source)?;
            }
        } else {
            writeln!(out, "{bad}invalid{bad:#} {} ({how}){says}", r.source)?;
            for e in &r.outcome.errors {
                writeln!(out, "        {}: {}", e.code, e.message)?;
            }
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
                writeln!(out, "        stderr: {line}")?;
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
