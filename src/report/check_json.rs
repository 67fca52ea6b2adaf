//! `check --format json`: `{"findings": [...], "warnings": [...], "skipped": [...], "summary":
//! {...}, "errors": [...], "vocabularies": [...]}` (with the settings files and walk notes), written as the run goes. Every entry is a typed finding with its rule
//! `code`. Legacy statements (SKM001) stream to the output; warnings and skipped files wait in
//! buffers of their JSON text (their arrays come after), so memory grows with those only.

use std::io::{self, Write};

use super::json_stream::{Array, field};
use crate::check::{CheckReport, Finding};
use crate::check::{Rule, Severity};

pub(crate) struct CheckJsonWriter {
    findings: Array,
    warnings: Array,
    warnings_text: Vec<u8>,
    skipped: Array,
    skipped_text: Vec<u8>,
}

impl CheckJsonWriter {
    pub fn start(out: &mut dyn Write) -> io::Result<CheckJsonWriter> {
        out.write_all(b"{\n  ")?;
        let findings = Array::open(out, Some("findings"), 2)?;
        let mut warnings_text = Vec::new();
        let warnings = Array::open(&mut warnings_text, None, 2)?;
        let mut skipped_text = Vec::new();
        let skipped = Array::open(&mut skipped_text, None, 2)?;
        Ok(CheckJsonWriter {
            findings,
            warnings,
            warnings_text,
            skipped,
            skipped_text,
        })
    }

    pub fn push(&mut self, out: &mut dyn Write, findings: &[Finding]) -> io::Result<()> {
        for finding in findings {
            match finding.severity {
                _ if finding.code == Rule::Unreadable => {}
                Severity::Error => self.findings.push(out, finding)?,
                Severity::Note if finding.code == Rule::Skipped => {
                    self.skipped.push(&mut self.skipped_text, finding)?
                }
                // Other notes (SKM002's one per file) are remarks about a checked file.
                Severity::Warning | Severity::Note => {
                    self.warnings.push(&mut self.warnings_text, finding)?
                }
            }
        }
        Ok(())
    }

    pub fn finish(mut self, out: &mut dyn Write, report: &CheckReport) -> io::Result<()> {
        self.findings.close(out)?;
        self.warnings.close(&mut self.warnings_text)?;
        self.skipped.close(&mut self.skipped_text)?;
        out.write_all(b",\n  \"warnings\": ")?;
        out.write_all(&self.warnings_text)?;
        out.write_all(b",\n  \"skipped\": ")?;
        out.write_all(&self.skipped_text)?;
        field(out, "summary", &report.summary, 2)?;
        field(out, "errors", &report.errors, 2)?;
        field(out, "settings_files", &report.settings_files, 2)?;
        field(out, "vocabularies", &report.vocabularies, 2)?;
        field(out, "walk_notes", &report.walk_notes, 2)?;
        out.write_all(b"\n}\n")
    }
}
