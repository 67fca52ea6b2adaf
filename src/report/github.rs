//! GitHub Actions workflow commands: one `::error|warning|notice file=…,line=…,col=…,title=…::…`
//! per finding, with the escaping the runner expects (`%` and LF in data, other control
//! characters shown as `bytes_text::visible` shows them; also `:` and `,` in properties). Paths are relative to the repository root, which is where the runner resolves
//! them, whatever folder the command ran in.

use std::io::{self, Write};

use crate::check::{Finding, Severity};

/// Write the findings of one file; `root_prefix` turns a path relative to the working folder into
/// one relative to the repository root.
pub fn write(out: &mut dyn Write, findings: &[Finding], root_prefix: &str) -> io::Result<()> {
    for f in findings {
        let level = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "notice",
        };
        let mut properties = format!(
            "file={}",
            property(&crate::bytes_text::annotation_path(&super::root_relative(
                root_prefix,
                &f.path
            )))
        );
        if f.line > 0 {
            properties.push_str(&format!(",line={},col={}", f.line, f.column));
        }
        let title = format!("skillmod {} ({})", f.code, f.code.name());
        let mut message = f.message.clone();
        if let Some(fix) = &f.fix {
            message.push_str(&format!(". Fix: `{fix}`"));
        }
        writeln!(
            out,
            "::{level} {properties},title={}::{}",
            property(&title),
            data(&message)
        )?;
    }
    Ok(())
}

/// The run's notes (rules settings turn off, the walk's notes), one notice each: a settings file
/// that mutes a rule is said where the annotations are read.
pub fn write_notes(out: &mut dyn Write, notes: &[String]) -> io::Result<()> {
    for note in notes {
        writeln!(out, "::notice title=skillmod::{}", data(note))?;
    }
    Ok(())
}

/// A value of a workflow command: its lines joined with the runner's `%0A`, other control
/// characters shown (see `bytes_text::visible`: a CI log renders colour codes), `%` escaped.
fn data(text: &str) -> String {
    text.split('\n')
        .map(|line| crate::bytes_text::visible(line).replace('%', "%25"))
        .collect::<Vec<_>>()
        .join("%0A")
}

fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::LegacyKind;
    use crate::domain::rules::Rule;

    #[test]
    fn annotation_values_are_escaped_and_rooted() {
        let finding = Finding {
            code: Rule::LegacyOutput,
            severity: Rule::LegacyOutput.severity(),
            path: "a,b:c/execute.sh".into(),
            line: 3,
            column: 5,
            message: "Created: 100%".into(),
            kind: Some(LegacyKind::Created),
            text: None,
            fix: None,
            reason: None,
        };
        let mut out = Vec::new();
        write(&mut out, &[finding], "sub/").unwrap_or_default();
        let text = String::from_utf8_lossy(&out);
        assert!(
            text.starts_with(
                "::error file=sub/a%2Cb%3Ac/execute.sh,line=3,col=5,title=skillmod SKM001 (legacy-output)::"
            ),
            "{text}"
        );
        assert!(text.contains("100%25"), "{text}");
    }
}
