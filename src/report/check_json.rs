//! `check --format json`: `{"findings": [...], "warnings": [...], "summary": {...}, "errors":
//! [...]}`, written as the run goes. Findings stream to the output; warnings wait in a buffer of
//! their JSON text (their array comes second), so memory grows with warnings only.

use std::io::{self, Write};

use super::json_stream::{Array, field};
use crate::check::{CheckReport, Finding, Warning};

pub struct CheckJsonWriter {
    findings: Array,
    warnings: Array,
    warnings_text: Vec<u8>,
}

impl CheckJsonWriter {
    pub fn start(out: &mut dyn Write) -> io::Result<CheckJsonWriter> {
        out.write_all(b"{\n  ")?;
        let findings = Array::open(out, Some("findings"), 2)?;
        let mut warnings_text = Vec::new();
        let warnings = Array::open(&mut warnings_text, None, 2)?;
        Ok(CheckJsonWriter {
            findings,
            warnings,
            warnings_text,
        })
    }

    pub fn push(
        &mut self,
        out: &mut dyn Write,
        findings: &[Finding],
        warnings: &[Warning],
    ) -> io::Result<()> {
        for finding in findings {
            self.findings.push(out, finding)?;
        }
        for warning in warnings {
            self.warnings.push(&mut self.warnings_text, warning)?;
        }
        Ok(())
    }

    pub fn finish(mut self, out: &mut dyn Write, report: &CheckReport) -> io::Result<()> {
        self.findings.close(out)?;
        self.warnings.close(&mut self.warnings_text)?;
        out.write_all(b",\n  \"warnings\": ")?;
        out.write_all(&self.warnings_text)?;
        field(out, "summary", &report.summary, 2)?;
        field(out, "errors", &report.errors, 2)?;
        out.write_all(b"\n}\n")
    }
}
