//! `check`'s output in each `--format`: text, GitHub annotations, JSON or SARIF, fed file by file
//! as the check goes and finished once.

use std::io::{self, Write};

use clap::ValueEnum;

use super::check_json::CheckJsonWriter;
use super::check_text::{self, Palette};
use super::github;
use super::sarif::SarifWriter;
use crate::check::{CheckReport, Finding};

/// Output format of `check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum CheckFormat {
    #[default]
    Text,
    Json,
    /// GitHub Actions workflow annotations.
    Github,
    /// SARIF 2.1.0, for code scanning.
    Sarif,
}

/// The output of one `--format`, fed file by file and finished once.
pub(crate) enum Renderer {
    /// Quiet drops the summary; silent prints nothing; verbose shows the SKM010 notes.
    Text {
        quiet: bool,
        silent: bool,
        verbose: bool,
        palette: Palette,
    },
    Github {
        root_prefix: String,
        verbose: bool,
    },
    Json(CheckJsonWriter),
    Sarif(SarifWriter),
}

impl Renderer {
    pub fn start(
        format: CheckFormat,
        (quiet, silent, verbose): (bool, bool, bool),
        palette: Palette,
        root_prefix: &str,
        root_uri: &str,
        out: &mut dyn Write,
    ) -> io::Result<Renderer> {
        Ok(match format {
            CheckFormat::Text => Renderer::Text {
                quiet,
                silent,
                verbose,
                palette,
            },
            CheckFormat::Github => Renderer::Github {
                root_prefix: root_prefix.to_string(),
                verbose,
            },
            CheckFormat::Json => Renderer::Json(CheckJsonWriter::start(out)?),
            CheckFormat::Sarif => Renderer::Sarif(SarifWriter::start(out, root_prefix, root_uri)?),
        })
    }

    pub fn file(&mut self, out: &mut dyn Write, findings: &[Finding]) -> io::Result<()> {
        match self {
            Renderer::Text {
                silent: false,
                verbose,
                palette,
                ..
            } => check_text::write_file(out, &shown(findings, *verbose), *palette),
            Renderer::Text { silent: true, .. } => Ok(()),
            Renderer::Github {
                root_prefix,
                verbose,
            } => github::write(out, &shown(findings, *verbose), root_prefix),
            Renderer::Json(writer) => writer.push(out, findings),
            Renderer::Sarif(writer) => writer.push(out, findings),
        }
    }

    pub fn finish(self, out: &mut dyn Write, report: &CheckReport) -> io::Result<()> {
        match self {
            Renderer::Text {
                quiet: false,
                silent: false,
                palette,
                verbose,
            } => check_text::write_summary(out, report, palette, verbose),
            Renderer::Text { .. } => Ok(()),
            Renderer::Github { .. } => {
                super::github::write_notes(out, &check_text::run_notes(report))
            }
            Renderer::Json(writer) => writer.finish(out, report),
            Renderer::Sarif(writer) => writer.finish(out, &check_text::run_notes(report)),
        }
    }
}

/// The findings a person reads (text, GitHub annotations): SKM010's notes on text out of the
/// analysis's reach only on request (`--verbose`); machine formats carry them all.
fn shown(findings: &[Finding], verbose: bool) -> Vec<Finding> {
    findings
        .iter()
        .filter(|f| verbose || f.code != crate::domain::rules::Rule::OutOfReach)
        .cloned()
        .collect()
}
