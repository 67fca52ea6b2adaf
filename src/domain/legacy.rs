//! The legacy output rules: which printed texts are legacy result lines, and what value they carry.

use serde::{Deserialize, Serialize};

/// The kind of legacy output line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum LegacyKind {
    Success,
    Complete,
    Confidence,
    Created,
    Modified,
}

impl LegacyKind {
    pub const ALL: [LegacyKind; 5] = [
        LegacyKind::Success,
        LegacyKind::Complete,
        LegacyKind::Confidence,
        LegacyKind::Created,
        LegacyKind::Modified,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            LegacyKind::Success => "success",
            LegacyKind::Complete => "complete",
            LegacyKind::Confidence => "confidence",
            LegacyKind::Created => "created",
            LegacyKind::Modified => "modified",
        }
    }

    /// The text that marks this kind: the whole line for SUCCESS/COMPLETE, a prefix for the others.
    pub fn marker(self) -> &'static str {
        match self {
            LegacyKind::Success => "SUCCESS",
            LegacyKind::Complete => "COMPLETE",
            LegacyKind::Confidence => "Confidence:",
            LegacyKind::Created => "Created:",
            LegacyKind::Modified => "Modified:",
        }
    }

    /// What a user reads about this kind (used by SARIF rules and help).
    pub fn description(self) -> &'static str {
        match self {
            LegacyKind::Success => "legacy `SUCCESS` line on stdout",
            LegacyKind::Complete => "legacy `COMPLETE` line on stdout",
            LegacyKind::Confidence => "legacy `Confidence:` line on stdout",
            LegacyKind::Created => "legacy `Created:` line on stdout",
            LegacyKind::Modified => "legacy `Modified:` line on stdout",
        }
    }
}

/// The value a legacy line carries: known statically, or computed by the shell at run time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", content = "text", rename_all = "snake_case")]
pub enum LegacyValue {
    /// The text, with the bytes that are not UTF-8 marked (see `bytes_text`); reports show it in
    /// the contract's escape (`\xHH`).
    #[serde(serialize_with = "escaped")]
    Literal(String),
    #[serde(serialize_with = "escaped")]
    RunTime(String),
}

/// A value in a report: marked bytes in the contract's escape, as the JSON block shows them.
fn escaped<S: serde::Serializer>(text: &str, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&crate::bytes_text::escape_marked(text))
}
