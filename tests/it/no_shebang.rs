//! A script without a shebang (issue 30, point 7): nothing in it says whether it runs on its own
//! (`bash execute.sh`, as a SKILL.md says) or is sourced. check reports it (SKM008 `NO_SHEBANG`)
//! and migrate leaves it as it is, unless a selected script sources it (a library, as before) or
//! `--skill-path` names it (a script on purpose: migrate writes a shebang). Its result lines are
//! never silenced. A library with nothing to change is reported so, not as already migrated.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::*;

/// Copy the skill folder `fixtures/no_shebang/NAME` (and its subfolders) to `dir/skills/NAME`.
fn copy_skill(name: &str, dir: &Path) -> PathBuf {
    fn copy(from: &Path, dir: &Path, rel: &str) {
        for entry in std::fs::read_dir(from).expect("fixture folder").flatten() {
            let rel = format!("{rel}/{}", entry.file_name().to_string_lossy());
            if entry.path().is_dir() {
                copy(&entry.path(), dir, &rel);
            } else {
                let text = std::fs::read(entry.path()).expect("read fixture");
                write_script(dir, &rel, &text);
            }
        }
    }
    copy(
        &fixtures().join("no_shebang").join(name),
        dir,
        &format!("skills/{name}"),
    );
    dir.join("skills").join(name)
}

/// `bash SCRIPT` run in the script's folder: exit status, stdout, stderr.
fn bash(script: &Path) -> (Option<i32>, String, String) {
    let out = run(Command::new("bash")
        .arg(script.file_name().expect("name"))
        .current_dir(script.parent().expect("folder")));
    (out.status.code(), stdout(&out), stderr(&out))
}

/// check's findings with `code` for the file whose path ends with `path`.
fn findings<'a>(report: &'a Value, code: &str, path: &str) -> Vec<&'a Value> {
    report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["code"] == code && f["path"].as_str().is_some_and(|p| p.ends_with(path)))
        .collect()
}

/// migrate's entry for the file whose path ends with `path`.
fn entry<'a>(report: &'a Value, path: &str) -> &'a Value {
    report["files"]
        .as_array()
        .expect("files")
        .iter()
        .find(|f| f["path"].as_str().is_some_and(|p| p.ends_with(path)))
        .unwrap_or_else(|| panic!("{path} in {report}"))
}

/// Whether an SKM008 finding says `NO_SHEBANG`.
fn says_no_shebang(finding: &Value) -> bool {
    finding["message"]
        .as_str()
        .is_some_and(|m| m.starts_with("NO_SHEBANG: "))
}

#[test]
fn a_script_without_a_shebang_that_nothing_sources_is_reported_and_left_as_it_is() {
    let tmp = tempfile::tempdir().expect("tmp");
    let script = copy_skill("run-alone", tmp.path()).join("execute.sh");
    let original = std::fs::read(&script).expect("read");
    let before = bash(&script);
    assert_eq!(before.0, Some(0), "{}", before.2);
    assert_eq!(before.1, "Created: report.txt\nSUCCESS\n");

    let (code, report) = json_report(tmp.path(), &["check", "."]);
    assert_eq!(code, 1, "{report}");
    let refusals = findings(&report, "SKM008", "execute.sh");
    assert!(
        refusals.len() == 1 && says_no_shebang(refusals[0]),
        "{report}"
    );
    assert_eq!(refusals[0]["line"], 1);
    // Migrate would refuse it: a legacy line's fix is no fix.
    let legacy = findings(&report, "SKM001", "execute.sh");
    assert_eq!(legacy.len(), 2, "{report}");
    assert!(legacy.iter().all(|f| f["fix"].is_null()), "{report}");

    let (code, report) = json_report(tmp.path(), &["migrate", "."]);
    // Refused, with its legacy lines left: it fails, as check fails it (exit 1).
    assert_eq!(code, 1, "{report}");
    let file = entry(&report, "execute.sh");
    assert_eq!(file["status"], "failed", "{report}");
    assert_eq!(error_codes(&file["errors"]), ["NO_SHEBANG"], "{report}");
    assert_eq!(std::fs::read(&script).expect("read"), original);
    assert!(!script.with_file_name("skillmod-runtime.sh").exists());

    // Never silenced: it still prints its lines, and check still does not pass it.
    assert_eq!(bash(&script), before);
    let (code, report) = json_report(tmp.path(), &["check", "."]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(findings(&report, "SKM008", "execute.sh").len(), 1);
}

#[test]
fn check_and_migrate_agree_on_which_ways_of_naming_it_make_it_a_script() {
    // How the script is selected, and whether that takes it for a script on purpose.
    let cases: [(&[&str], bool); 5] = [
        // A folder walk (execute.sh in a skill folder).
        (&["."], false),
        // A positional file: `skillmod migrate lib.sh` names libraries too.
        (&["skills/run-alone/execute.sh"], false),
        // An --include glob: `--include '*.sh'` matches libraries too.
        (&["--include", "*.sh", "tools"], false),
        // --skill-path: one script, whatever its name.
        (&["--skill-path", "skills/run-alone/execute.sh"], true),
        (&["--skill-path", "tools/build.sh"], true),
    ];
    for (selection, script) in cases {
        let tmp = tempfile::tempdir().expect("tmp");
        let skill = copy_skill("run-alone", tmp.path());
        let text = std::fs::read(skill.join("execute.sh")).expect("read");
        write_script(tmp.path(), "tools/build.sh", &text);
        let (_, check) = json_report(tmp.path(), &[&["check"], selection].concat());
        let reported = findings(&check, "SKM008", ".sh");
        assert_eq!(
            reported.iter().any(|f| says_no_shebang(f)),
            !script,
            "{selection:?}: {check}"
        );
        assert_eq!(
            findings(&check, "SKM001", ".sh").len(),
            2,
            "{selection:?}: {check}"
        );
        let (_, migrate) =
            json_report(tmp.path(), &[&["migrate", "--dry-run"], selection].concat());
        let files = migrate["files"].as_array().expect("files");
        assert_eq!(files.len(), 1, "{selection:?}: {migrate}");
        let (status, codes) = if script {
            ("would_migrate", vec![])
        } else {
            ("failed", vec!["NO_SHEBANG"])
        };
        assert_eq!(files[0]["status"], status, "{selection:?}: {migrate}");
        assert_eq!(
            error_codes(&files[0]["errors"]),
            codes,
            "{selection:?}: {migrate}"
        );
    }
}

#[test]
fn comment_mode_migrates_it_since_it_gives_it_no_runtime() {
    let tmp = tempfile::tempdir().expect("tmp");
    let script = copy_skill("run-alone", tmp.path()).join("execute.sh");
    std::fs::write(tmp.path().join("skillmod.toml"), "mode = \"comment\"\n").expect("settings");
    let (_, check) = json_report(tmp.path(), &["check", "."]);
    assert!(
        findings(&check, "SKM008", "execute.sh").is_empty(),
        "{check}"
    );
    let (code, report) = json_report(tmp.path(), &["migrate", "."]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(
        entry(&report, "execute.sh")["status"],
        "migrated",
        "{report}"
    );
    // The static block prints where the legacy lines printed: on stdout, run alone.
    let (status, out, _) = bash(&script);
    assert_eq!(status, Some(0));
    let doc: Value = serde_json::from_str(out.trim()).expect("one document");
    assert_eq!(doc["success"], true, "{out}");
}

#[test]
fn named_with_skill_path_it_is_migrated_as_a_script_with_a_shebang_and_runs_alone() {
    let tmp = tempfile::tempdir().expect("tmp");
    let script = copy_skill("run-alone", tmp.path()).join("execute.sh");
    let original = std::fs::read_to_string(&script).expect("read");
    let named = ["--skill-path", "skills/run-alone/execute.sh"];

    // check names the fix that migrates it as a script.
    let (code, check) = json_report(tmp.path(), &[&["check"][..], &named].concat());
    assert_eq!(code, 1, "{check}");
    let legacy = findings(&check, "SKM001", "execute.sh");
    assert!(
        legacy
            .iter()
            .all(|f| f["fix"] == "skillmod migrate --skill-path skills/run-alone/execute.sh"),
        "{check}"
    );

    let (code, report) = json_report(tmp.path(), &[&["migrate"][..], &named].concat());
    assert_eq!(code, 0, "{report}");
    let file = entry(&report, "execute.sh");
    assert_eq!(file["status"], "migrated", "{report}");
    assert_eq!(error_codes(&file["notes"]), ["SHEBANG_ADDED"], "{report}");
    let migrated = std::fs::read_to_string(&script).expect("read");
    let mut lines = migrated.lines();
    assert_eq!(lines.next(), Some("#!/usr/bin/env bash"));
    assert!(
        lines
            .next()
            .is_some_and(|l| l.contains("skillmod-runtime.sh")),
        "{migrated}"
    );
    // Every original line follows, the legacy ones rewritten.
    assert_eq!(migrated.lines().count(), original.lines().count() + 2);
    assert!(syntax_ok("bash", &script));

    // Run as SKILL.md runs it, and as a program now that it has a shebang: one document, and
    // every line the original printed is on stderr.
    for ran in [bash(&script), {
        let out = run(Command::new("./execute.sh").current_dir(script.parent().expect("dir")));
        (out.status.code(), stdout(&out), stderr(&out))
    }] {
        assert_eq!(ran.0, Some(0), "{}", ran.2);
        let doc: Value = serde_json::from_str(ran.1.trim()).expect("one document");
        assert_eq!(doc["success"], true, "{}", ran.1);
        assert_eq!(doc["deliverables"], serde_json::json!(["report.txt"]));
        assert_eq!(
            ran.2, "writing report.txt\nCreated: report.txt\nSUCCESS\n",
            "{}",
            ran.2
        );
    }
    // It has a shebang now: a plain walk passes it.
    let (code, check) = json_report(tmp.path(), &["check", "."]);
    assert_eq!(code, 0, "{check}");
}

#[test]
fn a_library_without_a_shebang_is_still_a_library_beside_the_script_that_sources_it() {
    let tmp = tempfile::tempdir().expect("tmp");
    let skill = copy_skill("with-library", tmp.path());
    let (host, library) = (skill.join("execute.sh"), skill.join("lib.sh"));
    let library_text = std::fs::read(&library).expect("read");

    // Checked alone, nothing says it is a library: NO_SHEBANG, and migrate agrees.
    let alone = ["skills/with-library/lib.sh"];
    let (_, check) = json_report(tmp.path(), &[&["check"][..], &alone].concat());
    assert!(
        findings(&check, "SKM008", "lib.sh")
            .iter()
            .any(|f| says_no_shebang(f)),
        "{check}"
    );
    let (_, report) = json_report(tmp.path(), &[&["migrate"][..], &alone].concat());
    assert_eq!(
        error_codes(&entry(&report, "lib.sh")["errors"]),
        ["NO_SHEBANG"]
    );
    assert_eq!(std::fs::read(&library).expect("read"), library_text);

    // Beside the script that sources it: a library, and check's fix names both.
    let (code, check) = json_report(tmp.path(), &["check", "."]);
    assert_eq!(code, 1, "{check}");
    assert!(findings(&check, "SKM008", ".sh").is_empty(), "{check}");
    let legacy = findings(&check, "SKM001", "lib.sh");
    assert_eq!(legacy.len(), 2, "{check}");
    let fix = legacy[0]["fix"].as_str().expect("a fix");
    assert_eq!(
        fix,
        "skillmod migrate skills/with-library/execute.sh skills/with-library/lib.sh"
    );
    let args: Vec<&str> = fix.split(' ').skip(1).collect();
    let (code, report) = json_report(tmp.path(), &args);
    assert_eq!(code, 0, "{report}");
    assert_eq!(
        error_codes(&entry(&report, "lib.sh")["notes"]),
        ["SOURCED_LIBRARY"]
    );
    assert_eq!(
        error_codes(&entry(&report, "execute.sh")["notes"]),
        ["SOURCES_LIBRARY"]
    );
    let migrated = std::fs::read_to_string(&library).expect("read");
    assert!(!migrated.starts_with("#!"), "{migrated}");
    assert!(!migrated.contains("skillmod-runtime.sh"), "{migrated}");
    // The library's lines reach the document the sourcing script prints.
    let (status, out, err) = bash(&host);
    assert_eq!(status, Some(0), "{err}");
    let doc: Value = serde_json::from_str(out.trim()).expect("one document");
    assert_eq!(doc["success"], true, "{out}");
    assert_eq!(doc["deliverables"], serde_json::json!(["artefact.txt"]));
    let (code, check) = json_report(tmp.path(), &["check", "."]);
    assert_eq!(code, 0, "{check}");
}

#[test]
fn a_library_with_nothing_to_change_is_not_called_already_migrated() {
    let tmp = tempfile::tempdir().expect("tmp");
    let skill = copy_skill("library-chain", tmp.path());
    // common.sh has no legacy line; it sources report.sh, which has one.
    let common = skill.join("lib/common.sh");
    let common_text = std::fs::read(&common).expect("read");

    let out = run(skillmod(tmp.path()).args(["migrate", "."]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stderr(&out);
    let line = text
        .lines()
        .find(|l| l.ends_with("lib/common.sh"))
        .unwrap_or_else(|| panic!("{text}"));
    assert_eq!(
        line.trim_start(),
        "no legacy skills/library-chain/lib/common.sh"
    );
    assert!(!text.contains("already migrated skills"), "{text}");
    assert!(
        text.contains("2 migrated, 0 already migrated, 1 no legacy"),
        "{text}"
    );
    assert_eq!(std::fs::read(&common).expect("read"), common_text);
    // report.sh's line reaches the document execute.sh prints.
    let (status, out, err) = bash(&skill.join("execute.sh"));
    assert_eq!(status, Some(0), "{err}");
    let doc: Value = serde_json::from_str(out.trim()).expect("one document");
    assert_eq!(
        doc["deliverables"],
        serde_json::json!(["build.txt", "done.flag"])
    );

    // Again with --force: the files migrated are already migrated; common.sh never was.
    let (code, report) = json_report(tmp.path(), &["migrate", "--force", "."]);
    assert_eq!(code, 0, "{report}");
    for (path, status) in [
        ("execute.sh", "already_migrated"),
        ("lib/report.sh", "already_migrated"),
        ("lib/common.sh", "no_legacy"),
    ] {
        assert_eq!(entry(&report, path)["status"], status, "{path}: {report}");
    }
    let common_entry = entry(&report, "lib/common.sh");
    assert_eq!(error_codes(&common_entry["notes"]), ["NOTHING_TO_CHANGE"]);
    assert!(
        common_entry["notes"][0]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("a library (is sourced by another selected script)")),
        "{report}"
    );
    assert!(common_entry["backup"].is_null(), "{report}");
    assert_eq!(report["summary"]["already_migrated"], 2, "{report}");
    assert_eq!(report["summary"]["no_legacy"], 1, "{report}");
    assert_eq!(std::fs::read(&common).expect("read"), common_text);
}

#[test]
fn a_sourced_library_without_a_shell_name_is_checked_as_migrate_reads_it() {
    // `helpers.inc` sourced by execute.sh was NOT_SHELL in check ("no selected script sources
    // it"), while migrate took it for the library it is (hostile review).
    let tmp = tempfile::tempdir().expect("tmp");
    write_skill_md(tmp.path(), "s");
    write_script(
        tmp.path(),
        "s/execute.sh",
        b"#!/bin/bash\n. \"$(dirname \"$0\")/helpers.inc\"\necho SUCCESS\n",
    );
    write_script(
        tmp.path(),
        "s/helpers.inc",
        b"touch out.txt\necho \"Created: out.txt\"\n",
    );
    let out = run(skillmod(tmp.path()).args(["check", "--no-cache", "s"]));
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("s/helpers.inc:2:1: SKM001 created"),
        "{}",
        stdout(&out)
    );
    assert!(!stdout(&out).contains("NOT_SHELL"), "{}", stdout(&out));
    let (code, report) = json_report(tmp.path(), &["migrate", "--no-backup", "s"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["summary"]["migrated"], 2, "{report}");
    let out = run(skillmod(tmp.path()).args(["check", "--no-cache", "s"]));
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}
