//! SARIF 2.1.0 for code-scanning tools: one rule per legacy kind, one result per finding with a
//! physical location (path relative to the source root) and a region, written as the run goes.

use std::io::{self, Write};

use serde_json::{Value, json};

use super::json_stream::Array;

use crate::analyze::LegacyKind;
use crate::check::{Finding, Warning};

fn rule_id(kind: LegacyKind) -> String {
    format!("legacy-{}", kind.as_str())
}

/// A SARIF log written as the run goes: the tool and rules first, then one result per finding or
/// warning, then the closing brackets.
pub struct SarifWriter {
    results: Array,
    tail: Vec<u8>,
}

/// Where the results go in the log's text.
const RESULTS_SLOT: &str = "\"results\": []";

impl SarifWriter {
    pub fn start(out: &mut dyn Write) -> io::Result<SarifWriter> {
        let text = serde_json::to_string_pretty(&skeleton()).map_err(io::Error::other)?;
        let at = text
            .find(RESULTS_SLOT)
            .ok_or_else(|| io::Error::other("SARIF skeleton without results"))?;
        let indent = at - text[..at].rfind('\n').map_or(0, |i| i + 1);
        out.write_all(&text.as_bytes()[..at])?;
        let results = Array::open(out, Some("results"), indent)?;
        let tail = text.as_bytes()[at + RESULTS_SLOT.len()..].to_vec();
        Ok(SarifWriter { results, tail })
    }

    pub fn push(
        &mut self,
        out: &mut dyn Write,
        findings: &[Finding],
        warnings: &[Warning],
    ) -> io::Result<()> {
        for f in findings {
            self.results.push(out, &finding_result(f))?;
        }
        for w in warnings {
            self.results.push(out, &warning_result(w))?;
        }
        Ok(())
    }

    pub fn finish(self, out: &mut dyn Write) -> io::Result<()> {
        self.results.close(out)?;
        out.write_all(&self.tail)?;
        out.write_all(b"\n")
    }
}

fn finding_result(f: &Finding) -> Value {
    let index = LegacyKind::ALL
        .iter()
        .position(|&k| k == f.kind)
        .unwrap_or(0);
    json!({
        "ruleId": rule_id(f.kind),
        "ruleIndex": index,
        "level": "error",
        "message": { "text": format!("{}: `{}`", f.kind.description(), f.text) },
        "locations": [{
            "physicalLocation": {
                "artifactLocation": { "uri": f.path, "uriBaseId": "%SRCROOT%" },
                "region": { "startLine": f.line, "startColumn": f.column }
            }
        }]
    })
}

fn warning_result(w: &Warning) -> Value {
    json!({
        "ruleId": "stdout-write",
        "ruleIndex": LegacyKind::ALL.len(),
        "level": "warning",
        "message": { "text": format!("`{}` writes to stdout beside the JSON contract", w.text) },
        "locations": [{
            "physicalLocation": {
                "artifactLocation": { "uri": w.path, "uriBaseId": "%SRCROOT%" },
                "region": { "startLine": w.line, "startColumn": w.column }
            }
        }]
    })
}

/// The log without results: tool, rules, and an empty results array.
fn skeleton() -> Value {
    let mut rules: Vec<Value> = LegacyKind::ALL
        .iter()
        .map(|&kind| {
            json!({
                "id": rule_id(kind),
                "name": format!("Legacy{}Output", capitalized(kind.as_str())),
                "shortDescription": { "text": kind.description() },
                "fullDescription": { "text": format!("{}; callers must parse it with regexes. Emit the JSON output contract instead.", kind.description()) },
                "help": { "text": "Run `skillmod migrate <path>` to replace legacy output with the JSON block." },
                "defaultConfiguration": { "level": "error" }
            })
        })
        .collect();
    rules.push(json!({
        "id": "stdout-write",
        "name": "StdoutWrite",
        "shortDescription": { "text": "statement that writes to stdout beside the JSON contract" },
        "help": { "text": "Send it to stderr (`skillmod migrate --stdout-to-stderr`)." },
        "defaultConfiguration": { "level": "warning" }
    }));
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "skillmod",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://crates.io/crates/skillmod",
                "rules": rules
            }},
            "columnKind": "unicodeCodePoints",
            "results": []
        }]
    })
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
        .unwrap_or_default()
}
