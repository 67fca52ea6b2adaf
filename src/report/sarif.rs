//! SARIF 2.1.0 for code scanning, built from typed structures (no spliced text): one reporting
//! descriptor per rule (id, name, short and full description, help and helpUri), one result per
//! finding, with the path's bytes percent-encoded and relative to the repository root (`%SRCROOT%`).
//! Results are written as the run goes; skipped files become tool notifications at the end.

use std::io::{self, Write};

use serde::Serialize;

use super::json_stream::{Array, field};
use crate::bytes_text::percent_encode;
use crate::check::{Finding, Rule, Severity};
use crate::domain::rules::{DOCS_URL, RULES_URL};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Log {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
}

#[derive(Serialize)]
struct Text {
    text: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    name: &'static str,
    version: &'static str,
    information_uri: &'static str,
    rules: Vec<Descriptor>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Descriptor {
    id: &'static str,
    name: String,
    short_description: Text,
    full_description: Text,
    help: Text,
    help_uri: String,
    default_configuration: Configuration,
}

#[derive(Serialize)]
struct Configuration {
    level: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResultEntry {
    rule_id: &'static str,
    rule_index: usize,
    level: &'static str,
    message: Text,
    locations: Vec<Location>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location {
    physical_location: PhysicalLocation,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<Region>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactLocation {
    uri: String,
    uri_base_id: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: usize,
    start_column: usize,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Notification {
    level: &'static str,
    message: Text,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    locations: Vec<Location>,
    #[serde(skip_serializing_if = "Option::is_none")]
    descriptor: Option<DescriptorReference>,
}

#[derive(Serialize)]
struct DescriptorReference {
    id: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Invocation {
    execution_successful: bool,
    tool_execution_notifications: Vec<Notification>,
}

/// A SARIF log written as the run goes.
pub(crate) struct SarifWriter {
    results: Array,
    notifications: Vec<Notification>,
    root_prefix: String,
}

const BASE_ID: &str = "%SRCROOT%";

impl SarifWriter {
    /// Start the log. `root_prefix` makes a path relative to the working folder relative to the
    /// repository root; `root_uri` is that root as a `file://` URI ending in `/`.
    pub fn start(out: &mut dyn Write, root_prefix: &str, root_uri: &str) -> io::Result<Self> {
        let head = serde_json::to_string_pretty(&Log {
            schema: "https://json.schemastore.org/sarif-2.1.0.json",
            version: "2.1.0",
        })
        .map_err(io::Error::other)?;
        out.write_all(head.trim_end_matches(['\n', '}']).trim_end().as_bytes())?;
        out.write_all(b",\n  \"runs\": [\n    {")?;
        let driver = Driver {
            name: "skillmod",
            version: env!("CARGO_PKG_VERSION"),
            information_uri: DOCS_URL,
            rules: Rule::ALL
                .iter()
                .map(|r| Descriptor {
                    id: r.code(),
                    name: r.name().to_string(),
                    short_description: Text {
                        text: r.summary().to_string(),
                    },
                    full_description: Text {
                        text: r.explanation().to_string(),
                    },
                    help: Text {
                        text: r.explanation().to_string(),
                    },
                    help_uri: RULES_URL.to_string(),
                    default_configuration: Configuration {
                        level: level(r.severity()),
                    },
                })
                .collect(),
        };
        let mut tool = Vec::new();
        field(
            &mut tool,
            "tool",
            &serde_json::json!({ "driver": driver }),
            6,
        )?;
        // `field` writes ",\n<indent>"key": value"; the first member of the run has no comma.
        out.write_all(&tool[1..])?;
        let mut bases = Vec::new();
        field(
            &mut bases,
            "originalUriBaseIds",
            &serde_json::json!({ BASE_ID: { "uri": root_uri } }),
            6,
        )?;
        out.write_all(&bases)?;
        out.write_all(b",\n      \"columnKind\": \"unicodeCodePoints\",\n      ")?;
        let results = Array::open(out, Some("results"), 6)?;
        Ok(SarifWriter {
            results,
            notifications: Vec::new(),
            root_prefix: root_prefix.to_string(),
        })
    }

    pub fn push(&mut self, out: &mut dyn Write, findings: &[Finding]) -> io::Result<()> {
        for f in findings {
            let location = Location {
                physical_location: PhysicalLocation {
                    artifact_location: ArtifactLocation {
                        uri: percent_encode(&super::root_relative(&self.root_prefix, &f.path)),
                        uri_base_id: BASE_ID,
                    },
                    region: (f.line > 0).then_some(Region {
                        start_line: f.line,
                        start_column: f.column.max(1),
                    }),
                },
            };
            // A skipped file is a notification; one that had to be judged and could not be is
            // a result at its level, as in every other format.
            if f.code == Rule::Skipped && f.severity == Severity::Note {
                self.notifications.push(Notification {
                    level: "note",
                    message: Text {
                        text: format!("skipped: {}", f.message),
                    },
                    locations: vec![location],
                    descriptor: Some(DescriptorReference { id: f.code.code() }),
                });
                continue;
            }
            let entry = ResultEntry {
                rule_id: f.code.code(),
                rule_index: f.code.index(),
                level: level(f.severity),
                message: Text {
                    text: match &f.fix {
                        Some(fix) => format!("{}. Fix: `{fix}`", f.message),
                        None => f.message.clone(),
                    },
                },
                locations: vec![location],
            };
            self.results.push(out, &entry)?;
        }
        Ok(())
    }

    /// Close the log; `notes` (rules settings turn off, the walk's notes) become notifications
    /// with no location.
    pub fn finish(mut self, out: &mut dyn Write, notes: &[String]) -> io::Result<()> {
        self.results.close(out)?;
        self.notifications
            .extend(notes.iter().map(|note| Notification {
                level: "note",
                message: Text { text: note.clone() },
                locations: Vec::new(),
                descriptor: None,
            }));
        let invocation = Invocation {
            execution_successful: true,
            tool_execution_notifications: self.notifications,
        };
        field(out, "invocations", &[invocation], 6)?;
        out.write_all(b"\n    }\n  ]\n}\n")
    }
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

/// A folder as a `file://` URI ending in `/`.
pub(crate) fn folder_uri(dir: &std::path::Path) -> String {
    let text = crate::bytes_text::os_marked(dir.as_os_str());
    let mut uri = String::from("file://");
    if !text.starts_with('/') {
        uri.push('/');
    }
    uri.push_str(&percent_encode(&crate::fsio::forward_slashes(
        text.to_string(),
    )));
    if !uri.ends_with('/') {
        uri.push('/');
    }
    uri
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_are_percent_encoded() {
        assert_eq!(
            percent_encode("my skill/a:b/é.sh"),
            "my%20skill/a%3Ab/%C3%A9.sh"
        );
        assert_eq!(
            folder_uri(std::path::Path::new("/r/x y")),
            "file:///r/x%20y/"
        );
    }
}
