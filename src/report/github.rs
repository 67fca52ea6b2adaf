//! GitHub Actions workflow commands: one `::error file=…,line=…,col=…::…` per finding, with the
//! escaping the runner expects (`%`, CR, LF in data; also `:` and `,` in properties).

use std::io::{self, Write};

use crate::check::{Finding, Warning};

pub fn write(out: &mut dyn Write, findings: &[Finding], warnings: &[Warning]) -> io::Result<()> {
    for w in warnings {
        writeln!(
            out,
            "::warning file={},line={},col={},title={}::{}",
            property(&w.path),
            w.line,
            w.column,
            property("skillmod: stdout write"),
            data(&format!(
                "`{}` writes to stdout beside the JSON contract; send it to stderr (`--stdout-to-stderr`)",
                w.text
            ))
        )?;
    }
    for f in findings {
        writeln!(
            out,
            "::error file={},line={},col={},title={}::{}",
            property(&f.path),
            f.line,
            f.column,
            property(&format!("skillmod: legacy {}", f.kind.as_str())),
            data(&format!(
                "{}: `{}`. Run `skillmod migrate {}`",
                f.kind.description(),
                f.text,
                f.path
            ))
        )?;
    }
    Ok(())
}

fn data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::LegacyKind;

    #[test]
    fn annotation_values_are_escaped() {
        let finding = Finding {
            path: "a,b:c/execute.sh".into(),
            line: 3,
            column: 5,
            kind: LegacyKind::Created,
            text: "echo \"Created: 100%\"".into(),
        };
        let mut out = Vec::new();
        write(&mut out, &[finding], &[]).unwrap_or_default();
        let text = String::from_utf8_lossy(&out);
        assert!(
            text.starts_with(
                "::error file=a%2Cb%3Ac/execute.sh,line=3,col=5,title=skillmod%3A legacy created::"
            ),
            "{text}"
        );
        assert!(text.contains("100%25"), "{text}");
    }
}
