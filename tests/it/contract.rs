//! The output contract through the library: every seed example, each protocol, and properties
//! (round trips, no panics on arbitrary input).

use proptest::prelude::*;
use serde_json::{Value, json};
use skillmod::contract::{ParseOptions, Protocol, Schema, check_output, parse_output};

fn output(name: &str) -> String {
    std::fs::read_to_string(crate::common::fixtures().join("outputs").join(name)).expect("fixture")
}

fn check(name: &str, protocol: Protocol, schema: &str) -> skillmod::contract::Outcome {
    check_output(
        &output(name),
        &ParseOptions::new(protocol),
        &Schema::builtin(schema).expect("schema"),
    )
}

#[test]
fn valid_seed_examples_pass() {
    for name in ["seed000-complete.json", "seed000-basic.json"] {
        let outcome = check(name, Protocol::Auto, "skill-output-v1");
        assert!(outcome.valid, "{name}: {:?}", outcome.errors);
        assert_eq!(outcome.parse_method, Some(Protocol::Json));
    }
    let envelope = check(
        "seed001-envelope.json",
        Protocol::Json,
        "skill-report-envelope",
    );
    assert!(envelope.valid, "{:?}", envelope.errors);
}

#[test]
fn broken_seed_examples_fail_with_the_right_code_and_pointer() {
    let missing = check(
        "seed000-missing-confidence.json",
        Protocol::Json,
        "skill-output-v1",
    );
    assert_eq!(missing.errors[0].code, "VALIDATION_FAILED");
    assert!(
        missing.errors[0].message.contains("confidence"),
        "{:?}",
        missing.errors
    );
    for name in [
        "seed000-confidence-too-high.json",
        "seed000-confidence-negative.json",
    ] {
        let outcome = check(name, Protocol::Json, "skill-output-v1");
        assert!(!outcome.valid);
        assert_eq!(outcome.errors[0].code, "VALIDATION_FAILED");
        assert_eq!(outcome.errors[0].pointer.as_deref(), Some("/confidence"));
    }
    for name in ["seed000-trailing-comma.txt", "seed000-unescaped-quote.txt"] {
        let outcome = check(name, Protocol::Json, "skill-output-v1");
        assert_eq!(outcome.errors[0].code, "PARSE_ERROR", "{name}");
        assert!(outcome.errors[0].is_parse_error());
        assert!(outcome.errors[0].context["line"].as_u64().is_some());
    }
    let no_error = check(
        "seed001-envelope-failed-without-error.json",
        Protocol::Json,
        "skill-report-envelope",
    );
    assert!(!no_error.valid);
    assert!(
        no_error.errors.iter().any(|e| e.message.contains("error")),
        "{:?}",
        no_error.errors
    );
}

#[test]
fn legacy_output_parses_with_the_default_confidence_and_fails_in_strict_mode() {
    let outcome = check("seed000-legacy.txt", Protocol::Auto, "skill-output-v1");
    assert!(outcome.valid, "{:?}", outcome.errors);
    assert_eq!(outcome.parse_method, Some(Protocol::Legacy));
    let value = outcome.value.expect("value");
    assert_eq!(value["confidence"], 0.92);
    assert_eq!(value["deliverables"], json!(["src/file.ts"]));
    let strict = ParseOptions {
        strict: true,
        ..ParseOptions::new(Protocol::Auto)
    };
    let schema = Schema::builtin("skill-output-v1").expect("schema");
    let outcome = check_output(&output("seed000-legacy.txt"), &strict, &schema);
    assert!(!outcome.valid);
    // Said as what it is: legacy lines, which strict mode refuses (not "invalid JSON").
    assert_eq!(outcome.errors[0].code, "NO_OUTPUT_FOUND");
    assert!(
        outcome.errors[0].message.contains("skillmod migrate"),
        "{:?}",
        outcome.errors
    );
    // Text that is neither JSON nor legacy lines is still a JSON parse error.
    let outcome = check_output("hello\n", &strict, &schema);
    assert_eq!(outcome.errors[0].code, "PARSE_ERROR");
}

#[test]
fn fenced_takes_the_last_json_block_only() {
    let outcome = check("seed003-fenced.txt", Protocol::Auto, "skill-output-v1");
    assert!(outcome.valid, "{:?}", outcome.errors);
    assert_eq!(outcome.parse_method, Some(Protocol::Fenced));
    assert_eq!(
        outcome.value.expect("value")["deliverables"],
        json!(["plan.md"])
    );
    let bare = "```\n{\"success\": true}\n```\n";
    let err = parse_output(bare, &ParseOptions::new(Protocol::Fenced)).expect_err("no json fence");
    assert_eq!(err.code, "NO_OUTPUT_FOUND");
}

#[test]
fn final_result_takes_the_first_marker_pair() {
    let outcome = check(
        "seed004-final-result.txt",
        Protocol::Auto,
        "skill-output-v1",
    );
    assert!(outcome.valid, "{:?}", outcome.errors);
    assert_eq!(outcome.parse_method, Some(Protocol::FinalResult));
    assert_eq!(outcome.value.expect("value")["confidence"], 0.95);
    let broken = check(
        "seed004-final-result-broken.txt",
        Protocol::FinalResult,
        "skill-output-v1",
    );
    assert_eq!(broken.errors[0].code, "PARSE_ERROR");
    let strict = ParseOptions {
        strict: true,
        ..ParseOptions::new(Protocol::FinalResult)
    };
    let err = parse_output(&output("seed004-final-result.txt"), &strict)
        .expect_err("text around markers");
    assert_eq!(err.code, "PARSE_ERROR");
}

#[test]
fn empty_output_is_no_output_found() {
    for protocol in [
        Protocol::Auto,
        Protocol::Json,
        Protocol::Fenced,
        Protocol::FinalResult,
        Protocol::Legacy,
    ] {
        let err = parse_output("  \n", &ParseOptions::new(protocol)).expect_err("nothing to parse");
        assert_eq!(err.code, "NO_OUTPUT_FOUND", "{protocol:?}");
    }
}

fn v1_value() -> impl Strategy<Value = Value> {
    let path = "[a-zA-Z0-9_./ \"\\\\$()\t\u{e9}\u{4e2d}-]{1,24}";
    let code = "[A-Z]{1,6}(_[A-Z0-9]{1,4}){0,2}";
    (
        any::<bool>(),
        0u32..=1000,
        prop::collection::vec(path, 0..5),
        prop::collection::btree_map("[a-z_]{1,10}", 0u32..100_000, 0..4),
        prop::collection::vec((code, "[^\u{0}]{1,30}"), 0..3),
    )
        .prop_map(|(success, confidence, deliverables, metrics, errors)| {
            json!({
                "success": success,
                "confidence": f64::from(confidence) / 1000.0,
                "deliverables": deliverables,
                "metrics": metrics,
                "errors": errors.into_iter().map(|(code, message)| json!({"code": code, "message": message})).collect::<Vec<_>>(),
            })
        })
}

proptest! {
    #[test]
    fn schema_values_round_trip_through_every_protocol(value in v1_value(), noise in "[a-z .]{0,40}") {
        let schema = Schema::builtin("skill-output-v1").expect("schema");
        prop_assert!(schema.validate(&value).is_empty(), "generator made an invalid value: {value}");
        let pretty = serde_json::to_string_pretty(&value).expect("json");
        let outputs = [
            (Protocol::Json, pretty.clone()),
            (Protocol::Fenced, format!("{noise}\n```json\n{pretty}\n```\n")),
            (Protocol::FinalResult, format!("{noise}\n<<<FINAL_RESULT>>>\n{pretty}\n<<<END_FINAL_RESULT>>>\n")),
        ];
        for (protocol, text) in outputs {
            for chosen in [protocol, Protocol::Auto] {
                let parsed = parse_output(&text, &ParseOptions::new(chosen)).expect("parses");
                prop_assert_eq!(&parsed.value, &value);
                prop_assert_eq!(parsed.method, protocol);
            }
        }
    }

    #[test]
    fn legacy_lines_round_trip_for_what_they_can_express(
        deliverables in prop::collection::btree_set("[a-zA-Z0-9_./-]{1,20}", 0..5),
        confidence in 0u32..=100,
    ) {
        let deliverables: Vec<String> = deliverables.into_iter().collect();
        let value = confidence as f64 / 100.0;
        let mut text = String::from("SUCCESS\n");
        text.push_str(&format!("Confidence: {value}\n"));
        for d in &deliverables {
            text.push_str(&format!("Created: {d}\n"));
        }
        let parsed = parse_output(&text, &ParseOptions::new(Protocol::Legacy)).expect("parses");
        // `_draft_` is markdown emphasis, not a file: the path rule the runtime applies too.
        let paths: Vec<&String> = deliverables
            .iter()
            .filter(|d| skillmod::contract::legacy_text::is_deliverable(d))
            .collect();
        prop_assert_eq!(&parsed.value["deliverables"], &json!(paths));
        prop_assert_eq!(parsed.value["confidence"].as_f64(), Some(value));
        prop_assert_eq!(&parsed.value["success"], &json!(true));
    }

    #[test]
    fn arbitrary_input_never_panics(text in any::<String>(), strict in any::<bool>()) {
        let schema = Schema::builtin("skill-output-v1").expect("schema");
        for protocol in [Protocol::Auto, Protocol::Json, Protocol::Fenced, Protocol::FinalResult, Protocol::Legacy] {
            let options = ParseOptions { strict, ..ParseOptions::new(protocol) };
            let outcome = check_output(&text, &options, &schema);
            prop_assert!(outcome.valid || !outcome.errors.is_empty());
        }
    }
}
