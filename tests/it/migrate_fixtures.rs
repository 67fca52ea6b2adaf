//! Every folder under fixtures/migrate: the migrated bytes equal expected.sh, the result passes
//! `bash -n`/`sh -n` when the input did, and runnable fixtures print the expected JSON last.

use std::path::Path;

use crate::common::*;
use serde_json::Value;

fn cases() -> Vec<std::path::PathBuf> {
    fixture_cases("migrate")
}

fn shell_for(input: &[u8]) -> &'static str {
    if input.starts_with(b"#!/bin/sh") {
        "sh"
    } else {
        "bash"
    }
}

/// Migrate one fixture in a temp folder; returns (temp dir, script path, input bytes).
fn migrate_case(case: &Path) -> (tempfile::TempDir, std::path::PathBuf, Vec<u8>) {
    let input = std::fs::read(case.join("input.sh")).expect("input.sh");
    let tmp = tempfile::tempdir().expect("tempdir");
    let script = write_script(tmp.path(), "skill/execute.sh", &input);
    let out = run(skillmod(tmp.path()).args([
        "migrate",
        "--mode",
        "comment",
        "--no-backup",
        "skill/execute.sh",
    ]));
    assert!(
        out.status.success(),
        "{}: migrate failed: {}",
        case.display(),
        stderr(&out)
    );
    (tmp, script, input)
}

#[test]
fn migrated_bytes_equal_expected() {
    let mut failures = Vec::new();
    for case in cases() {
        let (_tmp, script, input) = migrate_case(&case);
        let actual = std::fs::read(&script).expect("read result");
        let expected_path = case.join("expected.sh");
        // No expected.sh: the script must stay untouched.
        if actual != input || expected_path.exists() {
            failures.extend(golden(&expected_path, &actual).err());
        }
        assert_eq!(mode(&script), 0o755, "{}: mode changed", case.display());
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn migrated_scripts_stay_syntactically_valid() {
    for case in cases() {
        let (_tmp, script, input) = migrate_case(&case);
        let shell = shell_for(&input);
        let original = script.with_file_name("original.sh");
        std::fs::write(&original, &input).expect("write original");
        if syntax_ok(shell, &original) {
            assert!(
                syntax_ok(shell, &script),
                "{}: {shell} -n rejects the migrated script",
                case.display()
            );
        }
        if shell == "sh" && syntax_ok("dash", &original) {
            assert!(
                syntax_ok("dash", &script),
                "{}: dash -n rejects the migrated script",
                case.display()
            );
        }
    }
}

#[test]
fn runnable_fixtures_print_the_json_document_last() {
    let mut ran = 0;
    for case in cases() {
        let Ok(spec) = std::fs::read_to_string(case.join("run.json")) else {
            continue;
        };
        let spec: Value = serde_json::from_str(&spec).expect("run.json is JSON");
        let (tmp, script, input) = migrate_case(&case);
        let shell = spec["shell"].as_str().unwrap_or(shell_for(&input));
        let args: Vec<String> = spec["args"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        let out = run(std::process::Command::new(shell)
            .arg(&script)
            .args(&args)
            .current_dir(tmp.path()));
        let text = stdout(&out);
        let doc = last_json(&text).unwrap_or_else(|| {
            panic!(
                "{}: no JSON document at the end of stdout:\n{text}",
                case.display()
            )
        });
        for field in ["success", "confidence", "deliverables", "metrics", "errors"] {
            assert!(
                doc.get(field).is_some(),
                "{}: missing {field} in {doc}",
                case.display()
            );
        }
        for (key, want) in spec["json"].as_object().expect("json object") {
            assert_eq!(&doc[key], want, "{}: field {key}", case.display());
        }
        for name in spec["absent"].as_array().into_iter().flatten() {
            let name = name.as_str().expect("absent names are strings");
            assert!(
                !tmp.path().join(name).exists(),
                "{}: {name} was created: a value was executed",
                case.display()
            );
        }
        ran += 1;
    }
    assert!(ran >= 10, "only {ran} runnable fixtures ran");
}
