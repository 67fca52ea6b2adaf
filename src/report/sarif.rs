//! SARIF 2.1.0 for code-scanning tools: one rule per legacy kind, one result per finding with a
//! physical location (path relative to the source root) and a region.

use serde_json::{Value, json};

use crate::analyze::LegacyKind;
use crate::check::{Finding, Warning};

fn rule_id(kind: LegacyKind) -> String {
    format!("legacy-{}", kind.as_str())
}

/// The SARIF log of a check run.
pub fn log(findings: &[Finding], warnings: &[Warning]) -> Value {
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
    let mut results: Vec<Value> = findings
        .iter()
        .map(|f| {
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
        })
        .collect();
    results.extend(warnings.iter().map(|w| {
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
            "results": results
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
