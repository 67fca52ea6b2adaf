//! The settings file (`skillmod.toml`: found walking up, `--config`, `--isolated`, flags win) and
//! the `original` legacy vocabulary (decorated, any-case markers, `Updated:`, `Generated:`),
//! through the real binary and real shells.

mod common;

use std::path::Path;
use std::process::Command;

use common::*;
use serde_json::Value;

/// Copy a fixture tree into a fresh temp folder (the fixtures themselves stay untouched).
fn copy_fixture(name: &str) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("tmp");
    let status = Command::new("cp")
        .arg("-R")
        .arg(fixtures().join(name).join("."))
        .arg(tmp.path())
        .status()
        .expect("cp");
    assert!(status.success());
    tmp
}

fn check_json(dir: &Path, args: &[&str]) -> (i32, Value) {
    let mut all = vec!["check", "--no-cache"];
    all.extend(args);
    json_report(dir, &all)
}

/// Errors and warnings alike: (code, path, line).
fn findings(doc: &Value) -> Vec<(String, String, u64)> {
    ["findings", "warnings"]
        .iter()
        .flat_map(|key| doc[key].as_array().expect("findings and warnings"))
        .map(|f| {
            (
                f["code"].as_str().unwrap_or_default().to_string(),
                f["path"].as_str().unwrap_or_default().to_string(),
                f["line"].as_u64().unwrap_or_default(),
            )
        })
        .collect()
}

#[test]
fn decorated_lines_are_found_only_with_the_original_vocabulary() {
    let dir = fixtures().join("vocabulary");
    let (code, exact) = check_json(&dir, &["."]);
    assert_eq!(code, 0, "{exact}");
    assert!(findings(&exact).is_empty(), "{exact}");

    let (code, original) = check_json(&dir, &["--vocabulary", "original", "."]);
    assert_eq!(code, 1, "{original}");
    let kinds: Vec<&str> = original["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["code"] == "SKM001")
        .filter_map(|f| f["kind"].as_str())
        .collect();
    assert_eq!(
        kinds,
        ["created", "modified", "created", "confidence", "success"]
    );
    let fix = original["findings"][0]["fix"].as_str().expect("fix");
    assert!(fix.contains("--vocabulary original"), "{fix}");
}

#[test]
fn decorated_deliverables_reach_the_json_in_capture_mode() {
    let tmp = copy_fixture("vocabulary");
    let out = run(skillmod(tmp.path()).args([
        "migrate",
        "--vocabulary",
        "original",
        "--stdout-to-stderr",
        "--no-backup",
        ".",
    ]));
    assert!(out.status.success(), "{}", stderr(&out));
    let script = tmp.path().join("decorated/execute.sh");
    for shell in ["bash", "dash"] {
        assert!(syntax_ok(shell, &script), "{shell} -n refuses the rewrite");
        let ran = Command::new(shell)
            .arg(&script)
            .env("TMPDIR", "/work-tmp")
            .output()
            .expect("shell");
        assert!(ran.status.success(), "{shell}: {}", stderr(&ran));
        let doc: Value = serde_json::from_slice(&ran.stdout).unwrap_or_else(|e| {
            panic!(
                "{shell}: stdout is not one JSON document ({e}): {}",
                stdout(&ran)
            )
        });
        assert_eq!(doc["success"], true, "{shell}: {doc}");
        assert_eq!(doc["confidence"], 0.7, "{shell}: {doc}");
        assert_eq!(
            doc["deliverables"],
            serde_json::json!(["/work-tmp/decorated-report.md", "notes.md", "index.html"]),
            "{shell}: {doc}"
        );
        assert_eq!(doc["metrics"]["files_created"], 2, "{shell}: {doc}");
        assert_eq!(doc["metrics"]["files_modified"], 1, "{shell}: {doc}");
        assert!(
            stderr(&ran).contains("Writing the report"),
            "other output goes to stderr"
        );
    }
}

#[test]
fn settings_are_found_walking_up_from_the_working_folder() {
    let tmp = copy_fixture("config/project");
    // From a subfolder: include '*.sh', the original vocabulary and ignore SKM002 all apply.
    let (code, doc) = check_json(&tmp.path().join("skills"), &["."]);
    assert_eq!(code, 1, "{doc}");
    assert_eq!(
        findings(&doc),
        [
            ("SKM001".into(), "report/run.sh".into(), 3),
            ("SKM001".into(), "report/run.sh".into(), 4),
        ]
    );
}

#[test]
fn excluded_paths_are_left_out_and_the_flag_replaces_the_file_list() {
    let tmp = copy_fixture("config/project");
    let (_, doc) = check_json(tmp.path(), &["."]);
    let paths: Vec<String> = findings(&doc).into_iter().map(|f| f.1).collect();
    assert!(paths.iter().all(|p| p.starts_with("skills/")), "{paths:?}");
    // Named explicitly, an excluded file is still left out (pre-commit passes files by name).
    let (code, doc) = check_json(tmp.path(), &["vendor/tool/execute.sh"]);
    assert_eq!(code, 2, "nothing checked: {doc}");

    let (_, doc) = check_json(tmp.path(), &["--exclude", "skills/", "."]);
    let paths: Vec<String> = findings(&doc).into_iter().map(|f| f.1).collect();
    assert_eq!(paths, ["vendor/tool/execute.sh"]);
}

#[test]
fn flags_win_over_the_settings_file() {
    let tmp = copy_fixture("config/project");
    let (code, doc) = check_json(tmp.path(), &["--vocabulary", "exact", "."]);
    assert_eq!(code, 0, "exact markers only: {doc}");

    let (_, doc) = check_json(tmp.path(), &["--ignore", "SKM001", "."]);
    assert_eq!(
        findings(&doc),
        [("SKM002".into(), "skills/report/run.sh".into(), 2)],
        "--ignore replaces the file's list"
    );
}

#[test]
fn isolated_and_config_choose_which_settings_count() {
    let tmp = copy_fixture("config/project");
    let (_, doc) = check_json(tmp.path(), &["--isolated", "."]);
    assert_eq!(
        findings(&doc),
        [("SKM001".into(), "vendor/tool/execute.sh".into(), 2)],
        "no include, no exclude, exact vocabulary"
    );

    std::fs::write(
        tmp.path().join("other.toml"),
        "ignore = ['SKM001']\nvocabulary = 'original'\n",
    )
    .expect("write");
    let (_, doc) = check_json(
        tmp.path(),
        &["--config", "other.toml", "--include", "*.sh", "."],
    );
    let codes: Vec<String> = findings(&doc).into_iter().map(|f| f.0).collect();
    assert!(
        !codes.is_empty() && codes.iter().all(|c| c == "SKM002"),
        "{doc}"
    );
}

#[test]
fn a_bad_settings_file_stops_with_a_clear_error() {
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(tmp.path(), "s/execute.sh", b"#!/bin/sh\necho SUCCESS\n");
    std::fs::write(tmp.path().join("skillmod.toml"), "selcet = ['SKM001']\n").expect("write");
    let out = run(skillmod(tmp.path()).args(["check", "."]));
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("CONFIG_INVALID") && err.contains("selcet"),
        "{err}"
    );
    assert!(err.contains("--isolated"), "says how to go on: {err}");

    let out = run(skillmod(tmp.path()).args(["check", "--isolated", "."]));
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));

    let out = run(skillmod(tmp.path()).args(["check", "--config", "missing.toml", "."]));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("CONFIG_NOT_FOUND"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn migrate_takes_mode_template_and_confidence_from_settings() {
    let tmp = copy_fixture("config/project");
    let out = run(skillmod(tmp.path()).args(["migrate", "--no-backup", "."]));
    assert!(out.status.success(), "{}", stderr(&out));
    let script = tmp.path().join("skills/report/run.sh");
    let text = std::fs::read_to_string(&script).expect("read");
    assert!(
        text.contains("EOF_JSON") && !text.contains("__skm_emit"),
        "comment mode: {text}"
    );
    assert_eq!(
        std::fs::read(tmp.path().join("vendor/tool/execute.sh")).expect("vendor"),
        b"#!/bin/sh\necho SUCCESS\n",
        "excluded files are not touched"
    );
    let ran = Command::new("sh").arg(&script).output().expect("sh");
    let doc = last_json(&stdout(&ran)).expect("JSON block");
    assert_eq!(
        doc["project_template"], true,
        "template path relative to the file: {doc}"
    );
    assert_eq!(doc["confidence"], 0.6, "{doc}");
    assert_eq!(doc["deliverables"], serde_json::json!(["report.md"]));
}
