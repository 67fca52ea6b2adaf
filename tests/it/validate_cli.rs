//! `skillmod validate`, `schema` and `templates` through the binary, and the promise that a script
//! migrated with each template validates under the matching schema and protocol.

use std::process::Stdio;

use crate::common::*;
use serde_json::Value;

#[test]
fn files_give_one_result_each_and_exit_1_when_any_is_invalid() {
    let outputs = fixtures().join("outputs");
    let good = outputs.join("seed000-basic.json");
    let bad = outputs.join("seed000-confidence-too-high.json");
    let out = run(skillmod(&outputs)
        .args(["validate", "--format", "json"])
        .arg(&good)
        .arg(&bad));
    assert_eq!(out.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(doc["summary"]["total"], 2);
    assert_eq!(doc["results"][0]["valid"], true);
    assert_eq!(doc["results"][0]["parse_method"], "json");
    assert_eq!(doc["results"][1]["errors"][0]["code"], "VALIDATION_FAILED");
    assert_eq!(doc["results"][1]["errors"][0]["pointer"], "/confidence");
    let only_good = run(skillmod(&outputs).args(["validate"]).arg(&good));
    assert_eq!(only_good.status.code(), Some(0), "{}", stdout(&only_good));
}

#[test]
fn json_lines_on_stdin_are_validated_one_by_one() {
    let tmp = tempfile::tempdir().expect("tmp");
    let lines = "{\"success\":true,\"confidence\":0.5,\"deliverables\":[],\"metrics\":{},\"errors\":[]}\n\n{\"success\":true}\n";
    let out = run_with_stdin(
        skillmod(tmp.path()).args(["validate", "--jsonl", "--format", "json"]),
        lines.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(doc["results"][0]["source"], "stdin:1");
    assert_eq!(doc["results"][0]["valid"], true);
    assert_eq!(doc["results"][1]["source"], "stdin:3");
    assert_eq!(doc["results"][1]["valid"], false);
}

#[test]
fn stdin_dash_is_one_output() {
    let tmp = tempfile::tempdir().expect("tmp");
    let out = run_with_stdin(
        skillmod(tmp.path()).args(["validate", "-"]),
        b"SUCCESS\nConfidence: 0.7\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains("parsed as legacy"));
    let strict = run_with_stdin(
        skillmod(tmp.path()).args(["validate", "--strict", "-"]),
        b"SUCCESS\n",
    );
    assert_eq!(strict.status.code(), Some(1));
}

#[test]
fn run_reports_exit_status_stderr_tail_and_duration() {
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(
        tmp.path(),
        "s/execute.sh",
        b"#!/bin/bash\necho \"working in $(basename \"$PWD\") with $1\" >&2\necho '{\"success\":true,\"confidence\":0.9,\"deliverables\":[],\"metrics\":{},\"errors\":[]}'\nexit 3\n",
    );
    let out = run(skillmod(tmp.path()).args([
        "validate",
        "--format",
        "json",
        "--run",
        "s/execute.sh",
        "--",
        "ARG1",
    ]));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    let result = &doc["results"][0];
    assert_eq!(result["valid"], true, "{doc}");
    assert_eq!(result["run"]["exit_status"], 3);
    // The skill runs where the user runs it (the working folder), not in its own folder.
    let here = tmp
        .path()
        .file_name()
        .and_then(|n| n.to_str())
        .expect("name");
    assert_eq!(
        result["run"]["stderr_tail"][0],
        format!("working in {here} with ARG1")
    );
    assert!(result["run"]["duration_ms"].as_u64().is_some());
}

#[test]
fn run_never_writes_into_the_skill_folder_unasked() {
    // A scaffolding skill writes relative to its working folder.
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(
        tmp.path(),
        "skills/scaffold/execute.sh",
        b"#!/bin/bash\necho hi > made.txt\necho '{\"success\":true,\"confidence\":0.9,\"deliverables\":[\"made.txt\"],\"metrics\":{},\"errors\":[]}'\n",
    );
    std::fs::create_dir(tmp.path().join("work")).expect("mkdir");
    let skill_folder_made = || tmp.path().join("skills/scaffold/made.txt").exists();
    // Default: the working folder, as a user runs a skill.
    let out = run(skillmod(&tmp.path().join("work")).args([
        "validate",
        "--run",
        "../skills/scaffold/execute.sh",
    ]));
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(tmp.path().join("work/made.txt").exists());
    assert!(!skill_folder_made());
    // --cwd DIR: there.
    std::fs::create_dir(tmp.path().join("elsewhere")).expect("mkdir");
    let out = run(skillmod(tmp.path()).args([
        "validate",
        "--cwd",
        "elsewhere",
        "--run",
        "skills/scaffold/execute.sh",
    ]));
    assert_eq!(out.status.code(), Some(0));
    assert!(tmp.path().join("elsewhere/made.txt").exists());
    // --cwd-temp: a fresh folder, removed afterwards; nothing lands in the repository.
    std::fs::remove_file(tmp.path().join("work/made.txt")).expect("rm");
    let out = run(skillmod(&tmp.path().join("work")).args([
        "validate",
        "--cwd-temp",
        "--run",
        "../skills/scaffold/execute.sh",
    ]));
    assert_eq!(out.status.code(), Some(0));
    assert!(!tmp.path().join("work/made.txt").exists());
    assert!(!skill_folder_made());
    // A --cwd that is not a folder is a usage error with a code.
    let out = run(skillmod(tmp.path()).args([
        "validate",
        "--cwd",
        "nope",
        "--run",
        "skills/scaffold/execute.sh",
    ]));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("INVALID_ARGUMENT"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn stray_text_around_one_document_is_named_with_its_offset() {
    let tmp = tempfile::tempdir().expect("tmp");
    let doc = r#"{"success":true,"confidence":0.9,"deliverables":[],"metrics":{},"errors":[]}"#;
    for (stdout, offset) in [
        (format!("Generating...\n{doc}\n"), 0),
        (format!("{doc}\ndone\n"), doc.len() + 1),
    ] {
        for extra in [&[][..], &["--strict"][..], &["--protocol", "json"][..]] {
            let out = run_with_stdin(
                skillmod(tmp.path())
                    .args(["validate", "--format", "json", "-"])
                    .args(extra),
                stdout.as_bytes(),
            );
            assert_eq!(out.status.code(), Some(1));
            let report: Value = serde_json::from_slice(&out.stdout).expect("json");
            let error = &report["results"][0]["errors"][0];
            assert_eq!(error["code"], "STRAY_OUTPUT", "{extra:?} {report}");
            assert_eq!(error["context"]["stray_offset"], offset, "{report}");
            assert!(error["message"].as_str().is_some_and(|m| m.contains(">&2")));
        }
    }
}

/// A legacy skill that prints a JSON object among its lines (an API reply, a config it shows) is
/// read as the legacy output check and migrate see, not as a document with stray text; a
/// contract document among the same lines is still stray, and strict reading takes neither.
#[test]
fn legacy_lines_around_a_quoted_json_object_are_legacy_output() {
    let tmp = tempfile::tempdir().expect("tmp");
    let read = |stdout: &str, extra: &[&str]| {
        let out = run_with_stdin(
            skillmod(tmp.path())
                .args(["validate", "--format", "json", "-"])
                .args(extra),
            stdout.as_bytes(),
        );
        let report: Value = serde_json::from_slice(&out.stdout).expect("json");
        (out.status.code(), report["results"][0].clone())
    };
    let quoted = "Created: notes.md\n{\"id\": 7, \"state\": \"open\"}\nSUCCESS\n";
    let (status, result) = read(quoted, &[]);
    assert_eq!(status, Some(0), "{result}");
    assert_eq!(result["parse_method"], "legacy", "{result}");
    assert_eq!(
        result["value"]["deliverables"],
        serde_json::json!(["notes.md"]),
        "{result}"
    );
    let (status, result) = read(quoted, &["--strict"]);
    assert_eq!(status, Some(1), "{result}");
    // The contract's own document among legacy lines: stray text, as before.
    let doc = "Created: notes.md\n{\"success\": true, \"confidence\": 0.9}\nSUCCESS\n";
    for extra in [&[][..], &["--strict"][..]] {
        // Strict reading says so too, not "legacy output" (a migrated skill whose stderr a
        // harness merged into stdout: a new user's trial).
        let (status, result) = read(doc, extra);
        assert_eq!(status, Some(1), "{result}");
        assert_eq!(
            result["errors"][0]["code"], "STRAY_OUTPUT",
            "{extra:?} {result}"
        );
    }
    // No legacy line around the object: still stray.
    let (_, result) = read("Generating...\n{\"id\": 7}\n", &[]);
    assert_eq!(result["errors"][0]["code"], "STRAY_OUTPUT", "{result}");
    // A document that cannot be read (cut off, a colour code before it) is never read past as
    // legacy success (hostile re-test).
    for broken in [
        "SUCCESS\n{\"success\": false, \"confidence\": 0.5, \"deliv",
        "Created: a.txt\nSUCCESS\n\u{1b}[0m{\"success\": false, \"confidence\": 0.5}\n",
        "SUCCESS\n[{\"success\": false}]\n",
    ] {
        let (status, result) = read(broken, &[]);
        assert_eq!(status, Some(1), "{broken:?}: {result}");
        assert_ne!(result["parse_method"], "legacy", "{broken:?}: {result}");
    }
}

#[test]
fn run_kills_a_skill_after_the_timeout() {
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(tmp.path(), "s/execute.sh", b"#!/bin/bash\nsleep 20\n");
    let out = run(skillmod(tmp.path()).args([
        "validate",
        "--format",
        "json",
        "--timeout",
        "0.5",
        "--run",
        "s/execute.sh",
    ]));
    assert_eq!(out.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(doc["results"][0]["run"]["timed_out"], true);
    let codes = error_codes(&doc["results"][0]["errors"]);
    assert!(codes.contains(&"TIMEOUT"), "{codes:?}");
}

#[test]
fn usage_errors_exit_2() {
    let tmp = tempfile::tempdir().expect("tmp");
    for args in [
        vec!["validate"],
        vec!["validate", "--schema", "nope", "-"],
        vec!["validate", "missing.json"],
    ] {
        let out = run(skillmod(tmp.path()).args(&args).stdin(Stdio::null()));
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn migrated_script_validates_under_the_schema_and_protocol_of_its_template() {
    let cases = [
        ("skill-output-v1", "skill-output-v1", "json"),
        ("envelope", "skill-report-envelope", "json"),
        ("final-result", "skill-output-v1", "final-result"),
    ];
    let legacy = b"#!/bin/bash\nset -euo pipefail\necho \"Created: out/it's \\\"x\\\".txt\"\necho \"Confidence: 0.75\"\necho \"SUCCESS\"\n";
    for (template, schema, protocol) in cases {
        let tmp = tempfile::tempdir().expect("tmp");
        write_script(tmp.path(), "my-skill/execute.sh", legacy);
        let migrated = run(skillmod(tmp.path()).args([
            "migrate",
            "--no-backup",
            "--template",
            template,
            "my-skill",
        ]));
        assert_eq!(
            migrated.status.code(),
            Some(0),
            "{template}: {}",
            stderr(&migrated)
        );
        let out = run(skillmod(tmp.path()).args([
            "validate",
            "--strict",
            "--format",
            "json",
            "--schema",
            schema,
            "--protocol",
            protocol,
            "--run",
            "my-skill/execute.sh",
        ]));
        let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
        assert_eq!(out.status.code(), Some(0), "{template}: {doc}");
        let value = &doc["results"][0]["value"];
        match template {
            "envelope" => {
                assert_eq!(value["skillName"], "my-skill");
                assert_eq!(value["data"]["deliverables"][0], "out/it's \"x\".txt");
            }
            _ => {
                assert_eq!(value["confidence"], 0.75);
                assert_eq!(value["deliverables"][0], "out/it's \"x\".txt");
            }
        }
    }
}

#[test]
fn schema_and_templates_commands_list_and_print() {
    let tmp = tempfile::tempdir().expect("tmp");
    let list = stdout(&run(skillmod(tmp.path()).args(["schema"])));
    assert!(list.contains("skill-output-v1") && list.contains("skill-report-envelope"));
    let schema: Value = serde_json::from_slice(
        &run(skillmod(tmp.path()).args(["schema", "skill-output-v1"])).stdout,
    )
    .expect("json");
    assert_eq!(schema["required"].as_array().map(|a| a.len()), Some(5));
    let templates = stdout(&run(skillmod(tmp.path()).args(["templates"])));
    for name in ["skill-output-v1", "envelope", "final-result"] {
        assert!(templates.contains(name), "{templates}");
    }
    let shown = stdout(&run(
        skillmod(tmp.path()).args(["templates", "final-result"])
    ));
    assert!(shown.starts_with("<<<FINAL_RESULT>>>"));
}

/// `validate --run SCRIPT` in `dir` with extra flags; the JSON report's one result.
fn run_report(dir: &std::path::Path, script: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["validate", "--run", script, "--format", "json"];
    args.extend(extra);
    let out = run(skillmod(dir).args(&args));
    let doc: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(&out)));
    doc["results"][0].clone()
}

#[test]
fn a_background_child_left_behind_does_not_hold_the_run() {
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(
        tmp.path(),
        "bg.sh",
        b"#!/bin/sh\nsleep 30 &\necho SUCCESS\n",
    );
    let result = run_report(tmp.path(), "bg.sh", &["--timeout", "10"]);
    assert_eq!(result["valid"], true, "{result}");
    assert!(
        result["run"]["duration_ms"]
            .as_u64()
            .is_some_and(|d| d < 5000),
        "{result}"
    );
    assert_eq!(result["run"]["exit_status"], 0);
}

#[test]
fn the_timeout_covers_children_that_never_end_or_leave_the_group() {
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(
        tmp.path(),
        "forever.sh",
        b"#!/bin/sh\nsleep 1000 &\nsleep 1000\n",
    );
    write_script(
        tmp.path(),
        "escape.sh",
        // The script waits (at most 2 s) until its child has left the session, so the test does
        // not depend on which of the two runs first.
        b"#!/bin/sh\necho SUCCESS\nsetsid sleep 1000 &\nchild=$!\necho $child > escaped.pid\ni=0\nwhile [ $i -lt 40 ] && [ \"$(cut -d' ' -f6 /proc/$child/stat 2>/dev/null)\" != \"$child\" ]; do sleep 0.05; i=$((i + 1)); done\n",
    );
    let result = run_report(tmp.path(), "forever.sh", &["--timeout", "1"]);
    assert_eq!(result["run"]["timed_out"], true, "{result}");
    assert!(
        result["run"]["duration_ms"]
            .as_u64()
            .is_some_and(|d| d < 4000),
        "{result}"
    );
    let result = run_report(tmp.path(), "escape.sh", &["--timeout", "1"]);
    assert!(
        result["run"]["duration_ms"]
            .as_u64()
            .is_some_and(|d| d < 4000),
        "{result}"
    );
    assert!(
        result["run"]["cut"][0]
            .as_str()
            .is_some_and(|c| c.contains("held open")),
        "{result}"
    );
    assert_eq!(
        result["valid"], true,
        "what was printed before the deadline counts: {result}"
    );
    let _ = std::process::Command::new("pkill")
        .args(["-f", "sleep 1000"])
        .status();
}

#[test]
fn output_past_the_limit_ends_the_run_with_a_code() {
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(tmp.path(), "yes.sh", b"#!/bin/sh\nyes\n");
    let result = run_report(
        tmp.path(),
        "yes.sh",
        &["--timeout", "20", "--max-output", "100000"],
    );
    assert_eq!(result["run"]["output_exceeded"], true, "{result}");
    let codes = error_codes(&result["errors"]);
    assert!(codes.contains(&"OUTPUT_TOO_LARGE"), "{codes:?}");
    assert!(
        result["run"]["duration_ms"]
            .as_u64()
            .is_some_and(|d| d < 10000)
    );
}

#[test]
fn files_and_stdin_are_capped_and_judged_alike() {
    let tmp = tempfile::tempdir().expect("tmp");
    let out = run(skillmod(tmp.path()).args(["validate", "--max-output", "1000", "/dev/zero"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("OUTPUT_TOO_LARGE"),
        "{}",
        stderr(&out)
    );
    let big = vec![b'x'; 5000];
    let out = run_with_stdin(
        skillmod(tmp.path()).args(["validate", "--max-output", "1000", "-"]),
        &big,
    );
    assert!(
        stderr(&out).contains("OUTPUT_TOO_LARGE"),
        "{}",
        stderr(&out)
    );
    let not_utf8 = b"SUCCESS\n\xff\xfe\n".to_vec();
    std::fs::write(tmp.path().join("out.txt"), &not_utf8).expect("write");
    let from_file = run(skillmod(tmp.path()).args(["validate", "--format", "json", "out.txt"]));
    let from_stdin = run_with_stdin(
        skillmod(tmp.path()).args(["validate", "--format", "json", "-"]),
        &not_utf8,
    );
    let judge = |out: &std::process::Output| {
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        (
            doc["results"][0]["valid"].clone(),
            doc["results"][0]["errors"][0]["code"].clone(),
        )
    };
    assert_eq!(judge(&from_file), judge(&from_stdin));
    assert_eq!(judge(&from_file).1, "NOT_UTF8");
}

#[test]
fn jsonl_from_stdin_is_read_once() {
    let tmp = tempfile::tempdir().expect("tmp");
    let line =
        r#"{"success": true, "confidence": 1, "deliverables": [], "metrics": {}, "errors": []}"#;
    let input = format!("{line}\n{line}\n{line}\n");
    let out = run_with_stdin(
        skillmod(tmp.path()).args(["validate", "--jsonl", "-", "--format", "json"]),
        input.as_bytes(),
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(doc["summary"]["total"], 3, "{doc}");
    assert_eq!(doc["summary"]["valid"], 3);
}

#[test]
fn a_timeout_sends_sigterm_first_so_a_migrated_skill_reports_it() {
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(
        tmp.path(),
        "s/execute.sh",
        b"#!/bin/bash\necho \"Created: a.md\"\nsleep 20\necho SUCCESS\n",
    );
    let (_, report) = json_report(tmp.path(), &["migrate", "."]);
    assert_eq!(report["files"][0]["status"], "migrated", "{report}");
    let out = run(skillmod(tmp.path()).args([
        "validate",
        "--format",
        "json",
        "--timeout",
        "1",
        "--run",
        "s/execute.sh",
    ]));
    assert_eq!(out.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    let result = &doc["results"][0];
    assert_eq!(result["run"]["timed_out"], true, "{doc}");
    // The document the skill printed on SIGTERM was read; the run is still invalid: it timed out.
    assert_eq!(result["parse_method"], "json", "{doc}");
    let codes = error_codes(&result["errors"]);
    assert_eq!(codes, ["TIMEOUT"], "{doc}");
    assert!(
        result["run"]["duration_ms"]
            .as_u64()
            .is_some_and(|ms| ms < 10_000)
    );
}

#[test]
fn text_report_says_what_the_document_reports_and_prints_no_control_characters() {
    let tmp = tempfile::tempdir().expect("tmp");
    let script = write_script(
        tmp.path(),
        "s/execute.sh",
        b"#!/bin/sh\nprintf '\\033[31mboom\\033[0m\\n' >&2\ncat <<'EOF'\n{\"success\": false, \"confidence\": 0.5, \"deliverables\": [], \"metrics\": {}, \"errors\": [{\"code\": \"EXIT_STATUS\", \"message\": \"the script exited with status 1\"}]}\nEOF\n",
    );
    set_mode(&script, 0o755);
    let out =
        run(skillmod(tmp.path()).args(["validate", "--color", "never", "--run", "s/execute.sh"]));
    let text = stdout(&out);
    assert!(
        text.contains("reports EXIT_STATUS: the script exited with status 1"),
        "{text}"
    );
    assert!(text.contains("stderr: boom"), "{text}");
    assert!(
        !text.contains('\u{1b}'),
        "an escape reached the report: {text:?}"
    );
}
