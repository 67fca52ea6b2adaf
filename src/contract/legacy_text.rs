//! How legacy text reads as a result: one set of rules for `validate`'s legacy protocol, the
//! comment-mode block and (spelled in sh) the capture runtime, so a skill's outcome reads the
//! same before and after migration.
//!
//! - A line is a legacy line when the vocabulary (`exact` or `original`) classifies it as the
//!   analyzer classifies an `echo` printing it; text without one is no result (`NO_OUTPUT_FOUND`),
//!   so arbitrary prose is never accepted.
//! - Success: any legacy line, as the seeds' parser read it. Text from a run whose exit status is
//!   known (`validate --run`) and that holds no success line takes its success from that status,
//!   as a migrated skill without a success line does; a clean exit short of the success line the
//!   script has is `SUCCESS_NOT_REPORTED`, as in the migrated skill (see the outcome table in
//!   docs/runtime.md).
//! - Confidence: the last `Confidence:` value, a number in 0..1 or an integer percentage; anything
//!   else is reported (`CONFIDENCE_INVALID`) and the default is used, never a guess.
//! - Deliverables: values that can be paths (see [`is_deliverable`]), each once, in order.

use crate::codes;
use serde_json::{Value, json};

use super::ContractError;
use crate::analyze::{LegacyKind, LegacyValue, Vocabulary};

/// The one default confidence: what legacy text without a valid `Confidence:` line reads as, in
/// `validate` and in what `migrate` writes (the seeds' parser read legacy output this way).
pub const DEFAULT_CONFIDENCE: f64 = 0.5;

/// How the run that printed the text ended (`validate --run`); None for saved text.
#[derive(Debug, Clone, Copy)]
pub struct RunEnd {
    pub status: i32,
    /// The script has a success line off its failure paths, so a clean exit that did not print
    /// one is no success (`SUCCESS_NOT_REPORTED`), as the migrated skill reports it.
    pub expects_success_line: bool,
}

/// Parse legacy lines; `NO_OUTPUT_FOUND` when no line is a legacy result line and no exit status
/// says how the run ended.
pub fn parse(
    text: &str,
    default_confidence: f64,
    vocabulary: Vocabulary,
    run: Option<RunEnd>,
) -> Result<Value, ContractError> {
    let mut marked = false;
    let mut success_line = false;
    // The last `Confidence:` value, as the runtime keeps it.
    let mut confidence: Option<String> = None;
    let mut deliverables: Vec<String> = Vec::new();
    let (mut created, mut modified) = (0u64, 0u64);
    for line in text.lines() {
        let Some((kind, value)) = vocabulary.classify_line(line) else {
            continue;
        };
        marked = true;
        success_line |= matches!(kind, LegacyKind::Success | LegacyKind::Complete);
        // Colour codes are no part of a value: the runtime records it without them too.
        let value = match value {
            Some(LegacyValue::Literal(v) | LegacyValue::RunTime(v)) => {
                crate::analyze::vocabulary::strip_ansi(&v).into_owned()
            }
            None => String::new(),
        };
        match kind {
            LegacyKind::Confidence => confidence = Some(value),
            LegacyKind::Created | LegacyKind::Modified if is_deliverable(&value) => {
                if kind == LegacyKind::Created {
                    created += 1;
                } else {
                    modified += 1;
                }
                if !deliverables.contains(&value) {
                    deliverables.push(value);
                }
            }
            _ => {}
        }
    }
    if !marked && run.is_none() {
        return Err(ContractError::new(
            codes::NO_OUTPUT_FOUND,
            format!(
                "no JSON document and no legacy result line ({} vocabulary: {})",
                vocabulary.as_str(),
                vocabulary.summary()
            ),
            json!({ "protocol": "legacy" }),
        ));
    }
    let mut errors: Vec<Value> = Vec::new();
    let confidence = match confidence {
        None => default_confidence,
        Some(text) => read_confidence(&text).unwrap_or_else(|| {
            errors.push(json!({
                "code": codes::CONFIDENCE_INVALID.code,
                "message": "confidence is not a number in 0..1; the default was reported",
                "context": { "value": text },
            }));
            default_confidence
        }),
    };
    let success = match run {
        _ if success_line => true,
        None => true,
        Some(RunEnd {
            status: 0,
            expects_success_line: true,
        }) => {
            errors.push(json!({
                "code": codes::SUCCESS_NOT_REPORTED.code,
                "message": "the script exited 0 without reaching its SUCCESS or COMPLETE line",
            }));
            false
        }
        Some(end) => end.status == 0,
    };
    Ok(json!({
        "success": success,
        "confidence": confidence,
        "deliverables": deliverables,
        "metrics": { "files_created": created, "files_modified": modified },
        "errors": errors,
    }))
}

/// A confidence as the runtime reads it: `0`, `0.x`, `.x`, `1`, `1.0…` (digits and one dot), or
/// an integer percentage `0%`..`100%`; None for anything else (`HIGH`, `1.5`, `0.85+`, `87.5%`).
pub(crate) fn read_confidence(text: &str) -> Option<f64> {
    if let Some(percent) = text.strip_suffix('%') {
        let digits = !percent.is_empty() && percent.len() <= 3;
        if !digits || !percent.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let value: u32 = percent.parse().ok()?;
        return (value <= 100).then(|| f64::from(value) / 100.0);
    }
    let plain = text.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && text.bytes().filter(|&b| b == b'.').count() <= 1
        && text != "."
        && !text.is_empty();
    let shaped = match text.as_bytes() {
        [b'0'] | [b'1'] => true,
        [b'0', b'.', ..] | [b'.', ..] => true,
        [b'1', b'.', rest @ ..] => rest.iter().all(|&b| b == b'0'),
        _ => false,
    };
    if !(plain && shaped) {
        return None;
    }
    let padded = if text.ends_with('.') {
        format!("{text}0")
    } else {
        text.to_string()
    };
    padded.parse().ok()
}

/// Whether a `Created:`/`Modified:` value can name a file: not empty, not a timestamp
/// (`2026-11-24…`), not a digit followed somewhere by a blank (`3 spec directories`,
/// `6/13/2025, 8:00 PM`), not a date of digits and slashes (`27/11/2026`), not an empty value's
/// name (`null`, `none`, `nil`, `undefined`, `N/A`: what `jq` and friends print for a missing
/// key; `unknown`, a fallback info lines print), not markdown emphasis (`**Generated:** …`,
/// `_draft_`), not words with neither a `/` nor a `.` (`Example notes database`). The runtime
/// spells the same rule in sh (`__skm_is_path`).
pub fn is_deliverable(value: &str) -> bool {
    let b = value.as_bytes();
    if b.is_empty() {
        return false;
    }
    let date = b.len() >= 8
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b[5..7].iter().all(u8::is_ascii_digit)
        && b[7] == b'-';
    let blank = value.contains(char::is_whitespace);
    let count = b[0].is_ascii_digit() && blank;
    let emphasis = b[0] == b'*' || (b.len() >= 2 && b[0] == b'_' && b[b.len() - 1] == b'_');
    let prose = blank && !value.contains(['/', '.']);
    let slashed_date = b.iter().all(|c| c.is_ascii_digit() || *c == b'/')
        && b.iter().filter(|c| **c == b'/').count() >= 2
        && b[0].is_ascii_digit()
        && b[b.len() - 1].is_ascii_digit();
    let nothing = ["null", "none", "nil", "undefined", "n/a", "unknown"]
        .iter()
        .any(|word| value.eq_ignore_ascii_case(word));
    !(date || count || emphasis || prose || slashed_date || nothing)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exact(text: &str) -> Result<Value, ContractError> {
        parse(text, DEFAULT_CONFIDENCE, Vocabulary::Exact, None)
    }

    #[test]
    fn colour_codes_in_values_are_read_as_the_runtime_records_them() {
        let value = exact(
            "Created: \u{1b}[0;32mfoo.txt\u{1b}[0m\nConfidence: \u{1b}[1m0.8\u{1b}[0m\nSUCCESS\n",
        )
        .expect("parsed");
        assert_eq!(value["deliverables"], json!(["foo.txt"]));
        assert_eq!(value["confidence"], 0.8);
        assert_eq!(value["errors"], json!([]));
    }

    #[test]
    fn legacy_lines_become_the_v1_structure() {
        let value =
            exact("working...\nCreated: src/a.ts\nModified: b.md\nConfidence: 87%\nSUCCESS\n")
                .expect("parsed");
        assert_eq!(value["success"], true);
        assert_eq!(value["confidence"], 0.87);
        assert_eq!(value["deliverables"], json!(["src/a.ts", "b.md"]));
        assert_eq!(
            value["metrics"],
            json!({"files_created": 1, "files_modified": 1})
        );
    }

    #[test]
    fn weak_spots_of_the_original_parser_are_fixed() {
        let value = exact("Modified 3 files\nConfidence: 1.5\nCOMPLETE\n").expect("parsed");
        assert_eq!(value["deliverables"], json!([]));
        assert_eq!(value["confidence"], 0.5);
        assert_eq!(value["errors"][0]["code"], codes::CONFIDENCE_INVALID.code);
        assert_eq!(value["errors"][0]["context"]["value"], "1.5");
    }

    #[test]
    fn the_last_confidence_line_counts_as_in_the_runtime() {
        let value = exact("Confidence: low\nConfidence: 0.7\nSUCCESS\n").expect("parsed");
        assert_eq!(value["confidence"], 0.7);
        assert_eq!(value["errors"], json!([]));
        let value = exact("Confidence: 0.7\nConfidence: 0.85+\n").expect("parsed");
        assert_eq!(value["confidence"], 0.5);
        assert_eq!(value["errors"][0]["context"]["value"], "0.85+");
    }

    #[test]
    fn a_run_without_a_success_line_takes_its_success_from_its_exit_status() {
        let end = |status| RunEnd {
            status,
            expects_success_line: false,
        };
        let run = |text: &str, status| parse(text, 0.5, Vocabulary::Exact, Some(end(status)));
        assert_eq!(run("Created: a.md\n", 0).expect("parsed")["success"], true);
        assert_eq!(run("Created: a.md\n", 1).expect("parsed")["success"], false);
        assert_eq!(run("usage: x\n", 0).expect("parsed")["success"], true);
        assert_eq!(
            run("No polluter found\n", 2).expect("parsed")["success"],
            false
        );
        assert_eq!(run("SUCCESS\n", 1).expect("parsed")["success"], true);
        // Saved text has no exit status: prose is still no result.
        assert!(exact("usage: x\n").is_err());
    }

    #[test]
    fn a_clean_exit_short_of_the_scripts_success_line_is_no_success() {
        let expected = Some(RunEnd {
            status: 0,
            expects_success_line: true,
        });
        for text in ["working\n", "Created: a.md\n"] {
            let value = parse(text, 0.5, Vocabulary::Exact, expected).expect("parsed");
            assert_eq!(value["success"], false, "{text}");
            assert_eq!(value["errors"][0]["code"], "SUCCESS_NOT_REPORTED", "{text}");
        }
        let reached = parse("SUCCESS\n", 0.5, Vocabulary::Exact, expected).expect("parsed");
        assert_eq!(reached["success"], true);
    }

    #[test]
    fn any_legacy_line_reads_as_success_and_prose_is_no_result() {
        assert_eq!(exact("Created: a.md\n").expect("parsed")["success"], true);
        assert_eq!(
            exact("hello\nall done\n").map_err(|e| e.code),
            Err(codes::NO_OUTPUT_FOUND.code)
        );
        // `ERROR:` is not in the vocabulary: the exit status tells a failure, as after migration.
        assert_eq!(
            exact("ERROR: disk full\n").map_err(|e| e.code),
            Err(codes::NO_OUTPUT_FOUND.code)
        );
    }

    #[test]
    fn exact_reads_lines_as_the_analyzer_reads_echo() {
        assert!(exact("  SUCCESS\n").is_err());
        assert!(exact("Success\n").is_err());
        assert!(parse("✅ Success!\n", 0.5, Vocabulary::Original, None).is_ok());
    }

    #[test]
    fn confidence_shapes_follow_the_runtime() {
        for (text, want) in [
            ("0.92", Some(0.92)),
            ("1", Some(1.0)),
            ("1.00", Some(1.0)),
            (".5", Some(0.5)),
            ("0.", Some(0.0)),
            ("87%", Some(0.87)),
            ("100%", Some(1.0)),
            ("5%", Some(0.05)),
        ] {
            assert_eq!(read_confidence(text), want, "{text}");
        }
        for text in [
            "", ".", "1.5", "HIGH", "low", "0.85+", "87.5%", "101%", "-0.1", "00.5", "1.01",
        ] {
            assert_eq!(read_confidence(text), None, "{text}");
        }
    }

    #[test]
    fn values_that_cannot_be_paths_are_not_deliverables() {
        for value in [
            "src/a.ts",
            "report.md",
            "3/notes.md",
            "2026-report.md",
            "_build/x",
            "My Notes/a.md",
            "release notes.md",
            "null.txt",
            "2026/11/report.md",
        ] {
            assert!(is_deliverable(value), "{value}");
        }
        for value in [
            "",
            "3 spec directories",
            "2026-11-24T10:00:00Z",
            "2026-11-24",
            "** $(date)",
            "**Generated:** today",
            "_draft_",
            "6/13/2025, 8:00:00 PM",
            "Example notes database",
            "27/11/2026",
            "null",
            "None",
            "N/A",
            "unknown",
        ] {
            assert!(!is_deliverable(value), "{value}");
        }
    }
}
