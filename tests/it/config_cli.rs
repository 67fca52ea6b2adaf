//! The settings file (`skillmod.toml`: found walking up, `--config`, `--isolated`, flags win) and
//! the `original` legacy vocabulary (decorated, any-case markers, `Updated:`, `Generated:`),
//! through the real binary and real shells.

use std::path::Path;
use std::process::Command;

use crate::common::*;
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
fn each_vocabulary_reads_the_decorated_lines_it_names() {
    let dir = fixtures().join("vocabulary");
    let kinds = |report: &Value| -> Vec<String> {
        report["findings"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|f| f["code"] == "SKM001")
            .filter_map(|f| f["kind"].as_str().map(String::from))
            .collect()
    };
    let (code, exact) = check_json(&dir, &["--vocabulary", "exact", "."]);
    assert_eq!(code, 0, "{exact}");
    assert!(findings(&exact).is_empty(), "{exact}");

    // The default reads decorations, upper case or capitalized, and `Updated:`; not lower-case
    // markers or `Generated:`.
    let (code, decorated) = check_json(&dir, &["."]);
    assert_eq!(code, 1, "{decorated}");
    assert_eq!(kinds(&decorated), ["created", "modified", "success"]);
    let fix = decorated["findings"][0]["fix"].as_str().expect("fix");
    assert!(!fix.contains("--vocabulary"), "{fix}");

    let (code, original) = check_json(&dir, &["--vocabulary", "original", "."]);
    assert_eq!(code, 1, "{original}");
    assert_eq!(
        kinds(&original),
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
fn settings_are_found_walking_up_to_the_repository_root() {
    let tmp = copy_fixture("config/project");
    git_init(tmp.path());
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
    // The report names the file it used.
    let used = doc["settings_files"].as_array().expect("settings_files");
    assert_eq!(used.len(), 1, "{doc}");
    assert!(
        used[0]
            .as_str()
            .is_some_and(|p| p.ends_with("skillmod.toml")),
        "{doc}"
    );
}

#[test]
fn outside_a_repository_settings_above_the_named_folder_are_not_read() {
    let tmp = copy_fixture("config/project");
    // No git here: `skills/` is the boundary, so the parent's settings do not apply (exact
    // vocabulary, execute.sh only: run.sh is not even looked at).
    let out = run(skillmod(&tmp.path().join("skills")).args(["check", "--no-cache", "."]));
    assert_eq!(
        out.status.code(),
        Some(2),
        "nothing checked: {}",
        stderr(&out)
    );
    // Named from above, the same: the folder named is the boundary.
    let out = run(skillmod(tmp.path()).args(["check", "--no-cache", "skills"]));
    assert_eq!(
        out.status.code(),
        Some(2),
        "nothing checked: {}",
        stderr(&out)
    );
    // Naming the folder that holds the settings file brings it in.
    let (code, doc) = check_json(tmp.path(), &["."]);
    assert_eq!(code, 1, "{doc}");
}

#[test]
fn settings_apply_the_same_from_any_working_folder() {
    let tmp = copy_fixture("config/project");
    git_init(tmp.path());
    let elsewhere = tempfile::tempdir().expect("tmp");
    let target = tmp.path().join("skills");
    let target = target.to_str().expect("utf-8 path");
    let (_, from_inside) = check_json(tmp.path(), &[target]);
    let (_, from_outside) = check_json(elsewhere.path(), &[target]);
    let codes = |doc: &Value| {
        findings(doc)
            .into_iter()
            .map(|f| (f.0, f.2))
            .collect::<Vec<_>>()
    };
    assert_eq!(codes(&from_inside), codes(&from_outside));
    assert_eq!(codes(&from_inside).len(), 2, "{from_inside}");
}

#[test]
fn each_folder_takes_its_nearest_settings_file() {
    let tmp = tempfile::tempdir().expect("tmp");
    git_init(tmp.path());
    write_script(tmp.path(), "a/execute.sh", b"#!/bin/bash\necho SUCCESS\n");
    write_script(tmp.path(), "b/execute.sh", b"#!/bin/bash\necho SUCCESS\n");
    std::fs::write(tmp.path().join("skillmod.toml"), "ignore = ['SKM001']\n").expect("root");
    std::fs::write(tmp.path().join("b/skillmod.toml"), "select = ['SKM001']\n").expect("b");
    let (code, doc) = check_json(tmp.path(), &["."]);
    assert_eq!(code, 1, "{doc}");
    let paths: Vec<String> = findings(&doc).into_iter().map(|f| f.1).collect();
    assert_eq!(paths, ["b/execute.sh"], "{doc}");
    assert_eq!(
        doc["settings_files"].as_array().map(Vec::len),
        Some(2),
        "{doc}"
    );
}

#[test]
fn excluded_paths_are_left_out_and_the_flag_replaces_the_file_list() {
    let tmp = copy_fixture("config/project");
    git_init(tmp.path());
    let (_, doc) = check_json(tmp.path(), &["."]);
    let legacy = |doc: &Value| -> Vec<String> {
        findings(doc)
            .into_iter()
            .filter(|f| f.0 == "SKM001")
            .map(|f| f.1)
            .collect()
    };
    let paths = legacy(&doc);
    assert!(paths.iter().all(|p| p.starts_with("skills/")), "{paths:?}");
    // The excluded execute.sh is not read, and a settings file cannot pass it: SKM004.
    let unjudged = |doc: &Value| -> Vec<(String, String)> {
        doc["errors"]
            .as_array()
            .into_iter()
            .flatten()
            .chain(doc["findings"].as_array().into_iter().flatten())
            .filter(|f| {
                f["reason"] == "EXCLUDED_BY_SETTINGS" || f["code"] == "EXCLUDED_BY_SETTINGS"
            })
            .map(|f| {
                (
                    f["path"].as_str().unwrap_or_default().to_string(),
                    f["severity"].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect()
    };
    assert_eq!(
        unjudged(&doc),
        [("vendor/tool/execute.sh".to_string(), "error".to_string())],
        "{doc}"
    );
    // Named explicitly, an excluded file is still left out (pre-commit passes files by name),
    // and so still not judged.
    let (code, doc) = check_json(tmp.path(), &["vendor/tool/execute.sh"]);
    assert_eq!(code, 1, "{doc}");
    assert!(legacy(&doc).is_empty(), "{doc}");
    assert_eq!(unjudged(&doc).len(), 1, "{doc}");

    let (_, doc) = check_json(tmp.path(), &["--exclude", "skills/", "."]);
    let paths: Vec<String> = findings(&doc).into_iter().map(|f| f.1).collect();
    assert_eq!(paths, ["vendor/tool/execute.sh"]);
}

#[test]
fn flags_win_over_the_settings_file() {
    let tmp = copy_fixture("config/project");
    // (`--exclude` too: the fixture's settings leave out a vendored execute.sh, which only the
    // user's own flag may.)
    let (code, doc) = check_json(
        tmp.path(),
        &["--vocabulary", "exact", "--exclude", "vendor/", "."],
    );
    assert_eq!(code, 0, "exact markers only: {doc}");

    let (_, doc) = check_json(
        tmp.path(),
        &["--ignore", "SKM001", "--exclude", "vendor/", "."],
    );
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
    // The vendored execute.sh its `exclude` leaves out fails, as check fails it; the rest is
    // migrated.
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("failed vendor/tool/execute.sh")
            && stderr(&out).contains("EXCLUDED_BY_SETTINGS"),
        "{}",
        stderr(&out)
    );
    let script = tmp.path().join("skills/report/run.sh");
    let text = std::fs::read_to_string(&script).expect("read");
    assert!(
        text.contains("EOF_JSON") && !text.contains("skillmod-runtime"),
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

// A repository is untrusted input (a pull request from a fork, checked in CI): its settings file
// and the template it names cannot read outside it, hang the run, or write shell syntax.

/// A git repository holding one legacy skill and the settings file `settings`.
fn hostile_repo(settings: &str) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("tmp");
    git_init(tmp.path());
    write_script(
        tmp.path(),
        "skills/a/execute.sh",
        b"#!/bin/bash\necho \"Created: out.txt\"\necho SUCCESS\n",
    );
    std::fs::write(tmp.path().join("skillmod.toml"), settings).expect("settings");
    tmp
}

fn migrate_refused(dir: &Path, code: &str) {
    let before = std::fs::read(dir.join("skills/a/execute.sh")).expect("script");
    for mode in ["capture", "comment"] {
        let out = run_bounded(
            skillmod(dir).args(["migrate", "--allow-dirty", "--mode", mode, "."]),
            20,
        );
        assert_eq!(out.status.code(), Some(2), "{mode}: {}", stderr(&out));
        assert!(stderr(&out).contains(code), "{mode}: {}", stderr(&out));
        let after = std::fs::read(dir.join("skills/a/execute.sh")).expect("script");
        assert_eq!(before, after, "{mode}: nothing may be written");
    }
}

#[test]
fn a_settings_template_outside_the_repository_is_refused() {
    for template in [
        "/proc/self/environ",
        "../secret.j2",
        ".git/config",
        "a/../../x.j2",
    ] {
        let tmp = hostile_repo(&format!("template = '{template}'\n"));
        migrate_refused(tmp.path(), "TEMPLATE_UNSAFE");
    }
    // A symlink inside the repository that points out of it.
    let tmp = hostile_repo("template = 'block.j2'\n");
    let outside = tempfile::tempdir().expect("tmp");
    std::fs::write(outside.path().join("secret"), "TOKEN=hunter2\n").expect("secret");
    std::os::unix::fs::symlink(outside.path().join("secret"), tmp.path().join("block.j2"))
        .expect("symlink");
    migrate_refused(tmp.path(), "TEMPLATE_UNSAFE");
}

#[test]
fn a_fifo_or_endless_template_cannot_hang_a_dry_run() {
    let tmp = hostile_repo("template = 'block.j2'\n");
    let made = Command::new("mkfifo")
        .arg(tmp.path().join("block.j2"))
        .status()
        .expect("mkfifo");
    assert!(made.success());
    let out = run_bounded(skillmod(tmp.path()).args(["migrate", "--dry-run", "."]), 20);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("TEMPLATE_UNREADABLE"),
        "{}",
        stderr(&out)
    );

    let tmp = hostile_repo("template = 'block.j2'\n");
    std::fs::write(
        tmp.path().join("block.j2"),
        "{% for a in range(100000) %}{% for b in range(100000) %}x{% endfor %}{% endfor %}",
    )
    .expect("template");
    let out = run_bounded(skillmod(tmp.path()).args(["migrate", "--dry-run", "."]), 20);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("TEMPLATE_RENDER_FAILED"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_template_name_cannot_inject_a_line_into_scripts() {
    let tmp = hostile_repo("template = \"t\\ntouch pwned; #.j2\"\n");
    std::fs::write(
        tmp.path().join("t\ntouch pwned; #.j2"),
        include_str!("../../templates/skill-output-v1.json.j2"),
    )
    .expect("template");
    migrate_refused(tmp.path(), "TEMPLATE_NAME_UNSAFE");
}

#[test]
fn a_settings_file_that_is_a_link_out_a_fifo_or_huge_is_refused_without_its_content() {
    let outside = tempfile::tempdir().expect("tmp");
    std::fs::write(
        outside.path().join("credentials"),
        "aws_secret = 'hunter2'\n",
    )
    .expect("secret");
    let tmp = hostile_repo("");
    let settings = tmp.path().join("skillmod.toml");
    std::fs::remove_file(&settings).expect("rm");
    std::os::unix::fs::symlink(outside.path().join("credentials"), &settings).expect("link");
    let out = run_bounded(skillmod(tmp.path()).args(["check", "--no-cache", "."]), 20);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("CONFIG_UNSAFE"), "{}", stderr(&out));
    assert!(!stderr(&out).contains("hunter2") && !stdout(&out).contains("hunter2"));

    std::fs::remove_file(&settings).expect("rm");
    let made = Command::new("mkfifo")
        .arg(&settings)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    let out = run_bounded(skillmod(tmp.path()).args(["check", "--no-cache", "."]), 20);
    assert!(stderr(&out).contains("CONFIG_UNSAFE"), "{}", stderr(&out));

    std::fs::remove_file(&settings).expect("rm");
    let huge = std::fs::File::create(&settings).expect("create");
    huge.set_len(200 << 20).expect("sparse 200 MB");
    let out = run_bounded(skillmod(tmp.path()).args(["check", "--no-cache", "."]), 20);
    assert!(stderr(&out).contains("CONFIG_UNSAFE"), "{}", stderr(&out));
    assert!(
        stderr(&out).len() < 2000,
        "a short message: {}",
        stderr(&out)
    );
}

#[test]
fn a_bad_settings_value_is_reported_without_quoting_the_file() {
    let tmp = hostile_repo("mode = 'comment'\ntoken = 'hunter2'\n");
    let out = run(skillmod(tmp.path()).args(["check", "--no-cache", "."]));
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("CONFIG_INVALID") && err.contains("line 2, column 1"),
        "{err}"
    );
    assert!(!err.contains("hunter2"), "{err}");
}

#[test]
fn rules_cannot_be_emptied_or_ignored_into_a_pass() {
    for settings in [
        "ignore = ['']\n",
        "select = ['']\n",
        "ignore = ['SKM003']\n",
    ] {
        let tmp = hostile_repo(settings);
        let out = run(skillmod(tmp.path()).args(["check", "--no-cache", "."]));
        assert_eq!(out.status.code(), Some(2), "{settings}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("UNKNOWN_RULE") || stderr(&out).contains("RULE_NOT_IGNORABLE"),
            "{settings}: {}",
            stderr(&out)
        );
    }
    let tmp = hostile_repo("");
    let out = run(skillmod(tmp.path()).args(["check", "--no-cache", "--ignore", "", "."]));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));

    // An unreadable folder stays an error whatever the selection; --exit-zero says it hid one.
    let tmp = hostile_repo("ignore = ['SKM00']\n");
    let locked = tmp.path().join("skills/locked");
    std::fs::create_dir_all(&locked).expect("mkdir");
    set_mode(&locked, 0o000);
    let readable = std::fs::read_dir(&locked).is_ok(); // root reads anything
    let out = run(skillmod(tmp.path()).args(["check", "--no-cache", "."]));
    let exit_zero = run(skillmod(tmp.path()).args(["check", "--no-cache", "--exit-zero", "."]));
    set_mode(&locked, 0o755);
    if !readable {
        assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
        assert!(stdout(&out).contains("SKM003"), "{}", stdout(&out));
        assert!(stdout(&out).contains("Not clear"), "{}", stdout(&out));
        assert_eq!(exit_zero.status.code(), Some(0));
        assert!(
            stderr(&exit_zero).contains("--exit-zero"),
            "{}",
            stderr(&exit_zero)
        );
    }
}

#[test]
fn restore_and_validate_take_no_settings_flags() {
    let tmp = tempfile::tempdir().expect("tmp");
    for args in [
        vec!["restore", "--config", "x.toml"],
        vec!["validate", "--config", "x.toml", "-"],
        vec!["restore", "--isolated"],
    ] {
        let out = run(skillmod(tmp.path()).args(&args));
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains("--"), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn stdin_filename_is_matched_against_excludes_and_needs_stdin() {
    let tmp = copy_fixture("config/project");
    git_init(tmp.path());
    let out = run(skillmod(tmp.path()).args(["check", "--stdin-filename", "a.sh", "."]));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("INVALID_ARGUMENT"),
        "{}",
        stderr(&out)
    );
    let script = b"#!/bin/bash\necho SUCCESS\n";
    let excluded = run_with_stdin(
        skillmod(tmp.path()).args([
            "check",
            "--no-cache",
            "-",
            "--stdin-filename",
            "vendor/x.sh",
        ]),
        script,
    );
    assert_eq!(excluded.status.code(), Some(0), "{}", stdout(&excluded));
    assert!(stdout(&excluded).is_empty(), "{}", stdout(&excluded));
    let checked = run_with_stdin(
        skillmod(tmp.path()).args([
            "check",
            "--no-cache",
            "-",
            "--stdin-filename",
            "skills/x.sh",
        ]),
        script,
    );
    assert_eq!(checked.status.code(), Some(1), "{}", stdout(&checked));
    let big = run_with_stdin(
        skillmod(tmp.path()).args(["check", "--max-size", "4", "-"]),
        script,
    );
    assert!(stderr(&big).contains("--max-size"), "{}", stderr(&big));
    assert!(!stderr(&big).contains("--max-output"), "{}", stderr(&big));
}

#[test]
fn only_shell_files_are_rewritten() {
    let tmp = hostile_repo("include = ['*']\n");
    std::fs::write(tmp.path().join("skills/a/README.md"), "echo SUCCESS\n").expect("readme");
    write_script(
        tmp.path(),
        "skills/a/tool.py",
        b"#!/usr/bin/env python3\nprint('SUCCESS')\necho SUCCESS\n",
    );
    write_script(
        tmp.path(),
        "skills/a/run",
        b"#!/usr/bin/env bash\necho SUCCESS\n",
    );
    let out = run(skillmod(tmp.path()).args(["migrate", "--allow-dirty", "--format", "json", "."]));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    let status = |name: &str| {
        doc["files"]
            .as_array()
            .expect("files")
            .iter()
            .find(|f| f["path"].as_str().is_some_and(|p| p.ends_with(name)))
            .map(|f| (f["status"].clone(), f["errors"][0]["code"].clone()))
    };
    for name in ["README.md", "tool.py", "skillmod.toml"] {
        if let Some((status, code)) = status(name) {
            assert_eq!(status, "skipped", "{name}: {doc}");
            assert_eq!(code, "NOT_SHELL", "{name}: {doc}");
        }
    }
    assert_eq!(
        status("README.md").map(|s| s.0),
        Some("skipped".into()),
        "{doc}"
    );
    assert_eq!(
        status("skills/a/run").map(|s| s.0),
        Some("migrated".into()),
        "{doc}"
    );
    assert_eq!(
        status("execute.sh").map(|s| s.0),
        Some("migrated".into()),
        "{doc}"
    );
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("skills/a/README.md")).expect("readme"),
        "echo SUCCESS\n"
    );
    let (_, checked) = check_json(tmp.path(), &["."]);
    let skipped: Vec<&str> = checked["skipped"]
        .as_array()
        .expect("skipped")
        .iter()
        .filter_map(|f| f["path"].as_str())
        .collect();
    assert!(
        skipped.iter().any(|p| p.ends_with("README.md")),
        "{checked}"
    );
}

#[test]
fn an_exclude_in_any_settings_file_or_flag_names_what_it_left_out() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path();
    git_init(dir);
    let legacy = b"#!/bin/bash\necho \"SUCCESS\"\n";
    write_script(dir, "skills/a/SKILL.md", b"# a\n");
    write_script(dir, "skills/a/scripts/run.sh", legacy);
    write_script(dir, "skills/a/scripts/ok.sh", b"#!/bin/bash\necho ok >&2\n");
    write_script(dir, "vendor/x/run.sh", legacy);
    // A settings file inside a skill folder, and one at the root.
    std::fs::write(
        dir.join("skills/a/skillmod.toml"),
        "exclude = [\"scripts/run.sh\"]\n",
    )
    .expect("skill settings");
    std::fs::write(dir.join("skillmod.toml"), "exclude = [\"vendor/\"]\n").expect("settings");
    let out = run(skillmod(dir).args(["check", "--no-cache", "-v", "."]));
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(
        err.contains(
            "note: `exclude` in skills/a/skillmod.toml left out 1 path: skills/a/scripts/run.sh"
        ),
        "{err}"
    );
    assert!(
        err.contains("note: `exclude` in skillmod.toml left out 1 path: vendor/"),
        "{err}"
    );
    // Without -v too: a settings file comes with the repository, so what it hides is said (a
    // trial's pull request added one and the text summary read clean).
    let plain = run(skillmod(dir).args(["check", "--no-cache", "."]));
    assert!(
        stderr(&plain).contains("`exclude` in skills/a/skillmod.toml left out 1 path"),
        "{}",
        stderr(&plain)
    );
    // "All clear" holds without what the settings left out, and says so (a committed settings
    // file excluding a legacy `execute.sh` read as a plain pass).
    assert!(
        stdout(&plain).contains(
            "All clear: no legacy output in 1 script (vocabulary decorated; `exclude` in skillmod.toml leaves out 1 path; `exclude` in skills/a/skillmod.toml leaves out 1 path)"
        ),
        "{}",
        stdout(&plain)
    );
    let (_, report) = json_report(dir, &["check", "--no-cache", "."]);
    assert_eq!(
        report["summary"]["excluded_by_settings"],
        serde_json::json!([
            {"settings": "skillmod.toml", "paths": 1},
            {"settings": "skills/a/skillmod.toml", "paths": 1}
        ]),
        "{report}"
    );
    // The GitHub annotations and the SARIF log carry the notes too.
    let github = run(skillmod(dir).args(["check", "--no-cache", "--format", "github", "."]));
    assert!(
        stdout(&github).contains(
            "::notice title=skillmod::`exclude` in skills/a/skillmod.toml left out 1 path"
        ),
        "{}",
        stdout(&github)
    );
    let sarif = run(skillmod(dir).args(["check", "--no-cache", "--format", "sarif", "."]));
    let log: Value = serde_json::from_slice(&sarif.stdout).expect("sarif");
    let notes = &log["runs"][0]["invocations"][0]["toolExecutionNotifications"];
    assert_eq!(notes.as_array().map(Vec::len), Some(2), "{log}");
    let (_, report) = json_report(dir, &["check", "--no-cache", "."]);
    assert_eq!(
        report["walk_notes"].as_array().map(Vec::len),
        Some(2),
        "{report}"
    );
    // migrate says the same.
    let migrate = run(skillmod(dir).args(["migrate", "--dry-run", "-v", "."]));
    assert!(
        stderr(&migrate).contains("`exclude` in skills/a/skillmod.toml left out 1 path"),
        "{}",
        stderr(&migrate)
    );
    // --exclude (which replaces the files' lists) is named the same way.
    let flag = run(skillmod(dir).args(["check", "--no-cache", "-v", "--exclude", "skills/", "."]));
    assert!(
        stderr(&flag).contains("note: --exclude left out 1 path: skills/"),
        "{}",
        stderr(&flag)
    );
    // A file named and excluded: nothing checked, and the error says an exclude took it.
    let named = run(skillmod(dir).args(["check", "--no-cache", "skills/a/scripts/run.sh"]));
    assert_eq!(named.status.code(), Some(2), "{}", stderr(&named));
    assert!(
        stderr(&named)
            .contains("1 path(s) were left out by --exclude or a settings file's `exclude`"),
        "{}",
        stderr(&named)
    );
}

#[test]
fn a_settings_exclude_cannot_pass_an_execute_sh() {
    // Hostile rounds 2 and 3 (G10a, H13): a committed `exclude` hid a legacy execute.sh behind
    // "All clear", walked or named beside a clean script as pre-commit names them.
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path();
    git_init(dir);
    write_script(dir, "skills/bad/execute.sh", b"#!/bin/bash\necho SUCCESS\n");
    write_script(dir, "skills/good/execute.sh", b"#!/bin/bash\necho hi >&2\n");
    std::fs::write(dir.join("skillmod.toml"), "exclude = [\"skills/bad/\"]\n").expect("settings");
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "x"]);
    for args in [
        vec!["check", "--no-cache", "."],
        vec![
            "check",
            "--no-cache",
            "--",
            "skills/bad/execute.sh",
            "skills/good/execute.sh",
        ],
    ] {
        let out = run(skillmod(dir).args(&args));
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stdout(&out));
        let text = stdout(&out);
        assert!(
            text.contains("skills/bad/execute.sh: SKM004 EXCLUDED_BY_SETTINGS"),
            "{text}"
        );
        assert!(
            text.contains("Not clear: 1 script could not be checked"),
            "{text}"
        );
    }
    let github = run(skillmod(dir).args(["check", "--no-cache", "--format", "github", "."]));
    assert!(
        stdout(&github).contains("::error file=skills/bad/execute.sh"),
        "{}",
        stdout(&github)
    );
    // The user's own --exclude is theirs to give; --exit-zero alone hides the error.
    let flag = run(skillmod(dir).args(["check", "--no-cache", "--exclude", "skills/bad/", "."]));
    assert_eq!(flag.status.code(), Some(0), "{}", stdout(&flag));
    let zero = run(skillmod(dir).args(["check", "--no-cache", "--exit-zero", "."]));
    assert_eq!(zero.status.code(), Some(0), "{}", stdout(&zero));
    // Under --staged, only when the commit holds it.
    let staged = run(skillmod(dir).args(["check", "--no-cache", "--staged"]));
    assert_ne!(staged.status.code(), Some(1), "{}", stdout(&staged));
    write_script(
        dir,
        "skills/bad/execute.sh",
        b"#!/bin/bash\necho SUCCESS\necho COMPLETE\n",
    );
    git(dir, &["add", "skills/bad/execute.sh"]);
    let staged = run(skillmod(dir).args(["check", "--no-cache", "--staged"]));
    assert_eq!(staged.status.code(), Some(1), "{}", stdout(&staged));
    assert!(
        stdout(&staged).contains("EXCLUDED_BY_SETTINGS"),
        "{}",
        stdout(&staged)
    );
    // migrate gives the same judgement: the file fails, unread and unchanged; --exclude is the
    // user's way through there too.
    let before = std::fs::read(dir.join("skills/bad/execute.sh")).expect("script");
    let (code, report) = json_report(dir, &["migrate", "--no-backup", "--allow-dirty", "."]);
    assert_eq!(code, 1, "{report}");
    let bad = report_file(&report, "skills/bad/execute.sh");
    assert_eq!(bad["status"], "failed", "{report}");
    assert_eq!(
        error_codes(&bad["errors"]),
        ["EXCLUDED_BY_SETTINGS"],
        "{report}"
    );
    assert_eq!(
        std::fs::read(dir.join("skills/bad/execute.sh")).expect("script"),
        before
    );
    let (_, report) = json_report(
        dir,
        &["migrate", "--dry-run", "--exclude", "skills/bad/", "."],
    );
    assert!(
        !report_paths(&report)
            .iter()
            .any(|p| p.ends_with("bad/execute.sh")),
        "{report}"
    );
}

#[test]
fn staged_check_reads_the_settings_the_commit_holds() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path();
    git_init(dir);
    write_script(dir, "skills/a/execute.sh", b"#!/bin/bash\necho hi >&2\n");
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "init"]);
    write_script(
        dir,
        "skills/a/execute.sh",
        b"#!/bin/bash\necho \"SUCCESS\"\n",
    );
    git(dir, &["add", "skills/a/execute.sh"]);
    // A settings file the commit will not hold does not mute the staged legacy line.
    std::fs::write(dir.join("skillmod.toml"), "ignore = [\"SKM001\"]\n").expect("settings");
    let out = run(skillmod(dir).args(["check", "--no-cache", "--staged"]));
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(stdout(&out).contains("SKM001"), "{}", stdout(&out));
    // Staged, it does (the commit carries it), even once the work tree's copy is gone.
    git(dir, &["add", "skillmod.toml"]);
    std::fs::remove_file(dir.join("skillmod.toml")).expect("remove");
    let out = run(skillmod(dir).args(["check", "--no-cache", "--staged"]));
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("settings in skillmod.toml turn off SKM001"),
        "{}",
        stdout(&out)
    );
    // The work tree's settings still count for a plain check.
    let out = run(skillmod(dir).args(["check", "--no-cache", "."]));
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    // A settings file staged as a symlink is refused: the commit holds a link, not settings.
    git(dir, &["rm", "-q", "--cached", "skillmod.toml"]);
    std::fs::write(dir.join("real.toml"), "ignore = [\"SKM001\"]\n").expect("real");
    std::os::unix::fs::symlink("real.toml", dir.join(".skillmod.toml")).expect("link");
    git(dir, &["add", "real.toml", ".skillmod.toml"]);
    let out = run(skillmod(dir).args(["check", "--no-cache", "--staged"]));
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(stderr(&out).contains("CONFIG_UNSAFE"), "{}", stderr(&out));
}

#[test]
fn all_clear_says_which_rules_settings_turn_off_and_in_which_file() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path();
    git_init(dir);
    write_script(dir, "skills/a/SKILL.md", b"# a\n");
    write_script(
        dir,
        "skills/a/scripts/run.sh",
        b"#!/bin/bash\necho hi\necho \"SUCCESS\"\n",
    );
    // No settings: a plain verdict, and nothing turned off in JSON.
    let out = run(skillmod(dir).args(["check", "--no-cache", "--ignore", "SKM001", "."]));
    assert!(!stdout(&out).contains("turn off"), "{}", stdout(&out));
    let (_, report) = json_report(dir, &["check", "--no-cache", "."]);
    assert_eq!(
        report["summary"]["rules_off"],
        serde_json::json!([]),
        "{report}"
    );

    // A settings file in the skill folder mutes the legacy line: "All clear" says so.
    std::fs::write(
        dir.join("skills/a/.skillmod.toml"),
        "ignore = [\"SKM001\"]\n",
    )
    .expect("settings");
    let out = run(skillmod(dir).args(["check", "--no-cache", "."]));
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(
        stdout(&out).contains(
            "All clear: no legacy output in 1 script (vocabulary decorated; settings in skills/a/.skillmod.toml turn off SKM001)"
        ),
        "{}",
        stdout(&out)
    );
    let (code, report) = json_report(dir, &["check", "--no-cache", "."]);
    assert_eq!(code, 0);
    assert_eq!(
        report["summary"]["rules_off"],
        serde_json::json!([{"settings": "skills/a/.skillmod.toml", "rules": ["SKM001"]}]),
        "{report}"
    );
    // So do the GitHub annotations (the Action's format) and the SARIF log.
    let github = run(skillmod(dir).args(["check", "--no-cache", "--format", "github", "."]));
    assert!(
        stdout(&github).contains(
            "::notice title=skillmod::settings in skills/a/.skillmod.toml turn off SKM001\n"
        ),
        "{}",
        stdout(&github)
    );
    let sarif = run(skillmod(dir).args(["check", "--no-cache", "--format", "sarif", "."]));
    let log: Value = serde_json::from_slice(&sarif.stdout).expect("sarif");
    assert_eq!(
        log["runs"][0]["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"],
        "settings in skills/a/.skillmod.toml turn off SKM001",
        "{log}"
    );
    // `select` deselects too; a --select flag replaces the file's list, so nothing is the
    // settings' doing then.
    std::fs::write(
        dir.join("skills/a/.skillmod.toml"),
        "select = [\"SKM002\"]\n",
    )
    .expect("settings");
    let out = run(skillmod(dir).args(["check", "--no-cache", "."]));
    assert!(
        stdout(&out).contains("settings in skills/a/.skillmod.toml turn off SKM001, SKM004"),
        "{}",
        stdout(&out)
    );
    let out = run(skillmod(dir).args(["check", "--no-cache", "--select", "SKM001", "."]));
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(!stdout(&out).contains("turn off"), "{}", stdout(&out));
}
