//! Legacy text output turned into the v1 structure (seed 000's fallback), without the original
//! parser's weak spots: `Modified 3 files` is not a deliverable (the colon is required), `87%`
//! means 0.87, and `1.5` or `HIGH` fall back to the default with a warning instead of a guess.

use serde_json::{Value, json};

use super::ContractError;

/// The original parser's default confidence for legacy output.
pub const DEFAULT_CONFIDENCE: f64 = 0.5;

/// Parse legacy lines; `NO_OUTPUT_FOUND` when no line is a legacy result line.
pub fn parse(text: &str, default_confidence: f64) -> Result<Value, ContractError> {
    let mut marked = false;
    let mut completed = false;
    let mut confidence = None;
    let mut deliverables: Vec<String> = Vec::new();
    let (mut created, mut modified) = (0u64, 0u64);
    let mut errors: Vec<Value> = Vec::new();
    for raw in text.lines() {
        let line = raw.trim();
        if line == "SUCCESS" || line == "COMPLETE" {
            marked = true;
            completed = true;
        } else if let Some(rest) = line.strip_prefix("Confidence:") {
            marked = true;
            match read_confidence(rest.trim()) {
                Some(value) => confidence = Some(value),
                None => errors.push(json!({
                    "code": "CONFIDENCE_INVALID",
                    "message": format!("confidence '{}' is not a number in 0..1; used {default_confidence}", rest.trim()),
                })),
            }
        } else if let Some(path) = line
            .strip_prefix("Created:")
            .map(str::trim)
            .filter(|p| !p.is_empty())
        {
            marked = true;
            created += 1;
            push_unique(&mut deliverables, path);
        } else if let Some(path) = line
            .strip_prefix("Modified:")
            .map(str::trim)
            .filter(|p| !p.is_empty())
        {
            marked = true;
            modified += 1;
            push_unique(&mut deliverables, path);
        } else if let Some(message) = line.strip_prefix("ERROR:").map(str::trim) {
            marked = true;
            errors.push(json!({ "code": "LEGACY_ERROR", "message": if message.is_empty() { "ERROR" } else { message } }));
        }
    }
    if !marked {
        return Err(ContractError::new(
            "NO_OUTPUT_FOUND",
            "no JSON document and no legacy result line (SUCCESS, COMPLETE, Confidence:, Created:, Modified:)",
            json!({ "protocol": "legacy" }),
        ));
    }
    let failed = errors.iter().any(|e| e["code"] == "LEGACY_ERROR");
    Ok(json!({
        "success": completed && !failed,
        "confidence": confidence.unwrap_or(default_confidence),
        "deliverables": deliverables,
        "metrics": { "files_created": created, "files_modified": modified },
        "errors": errors,
    }))
}

fn push_unique(list: &mut Vec<String>, item: &str) {
    if !list.iter().any(|x| x == item) {
        list.push(item.to_string());
    }
}

/// `0.92`, `1`, `.5`, or a percentage `87%`; None outside 0..1 or when not a number.
fn read_confidence(text: &str) -> Option<f64> {
    let (number, scale) = match text.strip_suffix('%') {
        Some(n) => (n.trim(), 100.0),
        None => (text, 1.0),
    };
    let plain = !number.is_empty() && number.chars().all(|c| c.is_ascii_digit() || c == '.');
    let value = number.parse::<f64>().ok().filter(|_| plain)? / scale;
    (0.0..=1.0).contains(&value).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legacy_lines_become_the_v1_structure() {
        let value = parse(
            "working...\nCreated: src/a.ts\nModified: b.md\nConfidence: 87%\nSUCCESS\n",
            0.5,
        )
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
        let value = parse("Modified 3 files\nConfidence: 1.5\nCOMPLETE\n", 0.5).expect("parsed");
        assert_eq!(value["deliverables"], json!([]));
        assert_eq!(value["confidence"], 0.5);
        assert_eq!(value["errors"][0]["code"], "CONFIDENCE_INVALID");
    }

    #[test]
    fn error_lines_mean_failure() {
        let value = parse("ERROR: disk full\nSUCCESS\n", 0.5).expect("parsed");
        assert_eq!(value["success"], false);
        assert_eq!(value["errors"][0]["code"], "LEGACY_ERROR");
    }

    #[test]
    fn text_without_result_lines_is_no_output() {
        assert_eq!(
            parse("hello\n", 0.5).map_err(|e| e.code),
            Err("NO_OUTPUT_FOUND")
        );
    }
}
