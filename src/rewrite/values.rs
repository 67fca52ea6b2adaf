//! The values a static (comment-mode) JSON block reports, taken from the legacy statements.

use serde::Serialize;

use crate::analyze::{LegacyKind, LegacyStatement, LegacyValue};
use crate::contract::legacy_text::{is_deliverable, read_confidence};

/// Values for the JSON block, as known before run time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StaticValues {
    /// True: the block sits at the end of the main flow, reached only when the script gets there.
    pub success: bool,
    pub confidence: serde_json::Number,
    pub deliverables: Vec<String>,
    pub files_created: usize,
    pub files_modified: usize,
    /// Name of the skill: the folder that holds the script.
    pub skill_name: String,
    /// Always empty in a static block: nothing has failed when the main flow reaches it.
    pub errors: Vec<serde_json::Value>,
    /// The envelope's `"error"` member, absent on success.
    pub error_member: String,
}

/// Collect the static values: the last valid literal confidence wins, literal paths become
/// deliverables (each once, in order), run-time values are left to `--mode capture`.
pub fn static_values(
    legacy: &[LegacyStatement],
    default_confidence: f64,
    skill_name: &str,
) -> StaticValues {
    let mut confidence = None;
    let mut deliverables: Vec<String> = Vec::new();
    let (mut files_created, mut files_modified) = (0, 0);
    let values = legacy
        .iter()
        .flat_map(|statement| statement.values().map(|value| (statement.kind, value)));
    for (kind, value) in values {
        let LegacyValue::Literal(text) = value else {
            continue;
        };
        match kind {
            LegacyKind::Confidence => {
                if let Some(number) = parse_confidence(text) {
                    confidence = Some(number);
                }
            }
            LegacyKind::Created | LegacyKind::Modified if is_deliverable(text) => {
                if kind == LegacyKind::Created {
                    files_created += 1;
                } else {
                    files_modified += 1;
                }
                // Bytes that are not UTF-8 in the contract's escape, as the runtime writes them.
                let text = crate::bytes_text::escape_marked(text);
                if !deliverables.contains(&text) {
                    deliverables.push(text);
                }
            }
            _ => {}
        }
    }
    let confidence = confidence
        .or_else(|| serde_json::Number::from_f64(default_confidence))
        .unwrap_or_else(|| serde_json::Number::from(0));
    StaticValues {
        success: true,
        confidence,
        deliverables,
        files_created,
        files_modified,
        skill_name: skill_name.to_string(),
        errors: Vec::new(),
        error_member: String::new(),
    }
}

/// `CONFIDENCE_INVALID` for each literal confidence that is not a plain number in 0..1: the
/// block then reports the default (or an earlier valid value), and the report says so.
pub(crate) fn invalid_confidences(legacy: &[LegacyStatement]) -> Vec<crate::error::Error> {
    legacy
        .iter()
        .filter(|s| s.kind == LegacyKind::Confidence)
        .flat_map(|s| s.values().map(move |value| (s, value)))
        .filter_map(|(s, value)| match value {
            LegacyValue::Literal(text) if parse_confidence(text).is_none() => {
                let text = crate::bytes_text::escape_marked(text);
                Some(crate::error::Error::new(crate::codes::CONFIDENCE_INVALID,
                    format!(
                        "line {}: confidence `{text}` is not a number in 0..1, so the JSON block does not use it",
                        s.line
                    ),
                ))
            }
            _ => None,
        })
        .collect()
}

/// A confidence literal as a JSON number, read as `validate` and the runtime read it.
pub(crate) fn parse_confidence(text: &str) -> Option<serde_json::Number> {
    read_confidence(text).and_then(serde_json::Number::from_f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confidence_outside_range_or_not_a_number_is_rejected() {
        assert_eq!(
            parse_confidence("0.92").map(|n| n.to_string()),
            Some("0.92".into())
        );
        assert_eq!(
            parse_confidence("1").map(|n| n.to_string()),
            Some("1.0".into())
        );
        assert_eq!(
            parse_confidence(".5").map(|n| n.to_string()),
            Some("0.5".into())
        );
        assert_eq!(
            parse_confidence("87%").map(|n| n.to_string()),
            Some("0.87".into())
        );
        assert_eq!(parse_confidence("1.5"), None);
        assert_eq!(parse_confidence("HIGH"), None);
        assert_eq!(parse_confidence("-0.1"), None);
    }
}
