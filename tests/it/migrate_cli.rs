//! The migrate and restore commands driven through the real binary in temp folders.

use std::path::Path;

use crate::common::*;
use serde_json::Value;

const LEGACY: &[u8] = b"#!/bin/bash\necho \"Created: out.txt\"\necho \"SUCCESS\"\n";

fn copy_fixture_tree(dest: &Path) -> Vec<String> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(fixtures().join("migrate"))
        .expect("fixtures")
        .flatten()
    {
        let input = entry.path().join("input.sh");
        if let Ok(bytes) = std::fs::read(&input) {
            // A fixture with no shebang (`bom`) is a comment-mode case: capture mode, the
            // default here, refuses it with NO_SHEBANG (tests/it/no_shebang.rs).
            let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
            if !body.starts_with(b"#!") {
                continue;
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            write_script(dest, &format!("skills/{name}/execute.sh"), &bytes);
            names.push(name);
        }
    }
    names
}

fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = walk(dir)
        .into_iter()
        .map(|p| {
            (
                p.strip_prefix(dir)
                    .expect("under dir")
                    .display()
                    .to_string(),
                std::fs::read(&p).expect("read"),
            )
        })
        .collect();
    files.sort();
    files
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read_dir").flatten() {
        let path = entry.path();
        let kind = entry.file_type().expect("file type");
        if kind.is_dir() {
            if entry.file_name() != ".git" {
                out.extend(walk(&path));
            }
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
fn dry_run_diff_applied_with_git_apply_equals_real_result() {
    let planned = tempfile::tempdir().expect("tmp");
    let real = tempfile::tempdir().expect("tmp");
    copy_fixture_tree(planned.path());
    copy_fixture_tree(real.path());
    git_init(planned.path());

    let dry = run(skillmod(planned.path()).args(["migrate", "--dry-run", "--skill-dir", "skills"]));
    assert_eq!(dry.status.code(), Some(0), "{}", stderr(&dry));
    assert!(stdout(&dry).contains("--- a/skills/one_liner_if/execute.sh"));
    let patch = planned.path().join("../planned.patch");
    std::fs::write(&patch, &dry.stdout).expect("write patch");
    git(
        planned.path(),
        &[
            "apply",
            "--whitespace=nowarn",
            patch.to_str().expect("utf-8 path"),
        ],
    );

    let migrated =
        run(skillmod(real.path()).args(["migrate", "--no-backup", "--skill-dir", "skills"]));
    assert_eq!(migrated.status.code(), Some(0), "{}", stderr(&migrated));
    assert_eq!(snapshot(planned.path()), snapshot(real.path()));
}

#[test]
fn dry_run_writes_nothing() {
    let tmp = tempfile::tempdir().expect("tmp");
    copy_fixture_tree(tmp.path());
    let before = snapshot(tmp.path());
    let (code, report) = json_report(tmp.path(), &["migrate", "--dry-run", "skills"]);
    assert_eq!(code, 0);
    assert_eq!(snapshot(tmp.path()), before);
    assert!(
        !tmp.path().join(".skillmod").exists(),
        "dry run made backups"
    );
    assert!(report["summary"]["would_migrate"].as_u64().unwrap_or(0) > 10);
    assert_eq!(report["summary"]["migrated"], 0);
    assert_eq!(report["backup_run"], Value::Null);
}

#[test]
fn second_run_changes_no_byte() {
    let tmp = tempfile::tempdir().expect("tmp");
    let names = copy_fixture_tree(tmp.path());
    let first = run(skillmod(tmp.path()).args(["migrate", "skills"]));
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let after_first = snapshot(tmp.path());
    let (code, report) = json_report(tmp.path(), &["migrate", "skills"]);
    assert_eq!(code, 0);
    assert_eq!(
        snapshot(tmp.path()),
        after_first,
        "second run changed files"
    );
    assert_eq!(report["summary"]["migrated"], 0);
    assert_eq!(
        report["backup_run"],
        Value::Null,
        "second run took a backup"
    );
    let files = report["files"].as_array().expect("files");
    assert_eq!(files.len(), names.len());
    assert!(
        files
            .iter()
            .all(|f| matches!(f["status"].as_str(), Some("already_migrated" | "no_legacy"))),
        "{report}"
    );
}

#[test]
fn json_report_confirms_what_happened() {
    let tmp = tempfile::tempdir().expect("tmp");
    let script = write_script(tmp.path(), "a/execute.sh", LEGACY);
    write_script(tmp.path(), "b/execute.sh", b"#!/bin/bash\necho hi >&2\n");
    let (code, report) = json_report(tmp.path(), &["migrate", "--skill-dir", "."]);
    assert_eq!(code, 0);
    let files = report["files"].as_array().expect("files");
    assert_eq!(files.len(), 2);
    let a = &files[0];
    assert_eq!(a["path"], "a/execute.sh");
    assert_eq!(a["status"], "migrated");
    assert_eq!(a["legacy"][0]["line"], 2);
    assert_eq!(a["legacy"][0]["kind"], "created");
    assert_eq!(a["legacy"][0]["text"], "echo \"Created: out.txt\"");
    assert_eq!(a["legacy"][1]["kind"], "success");
    assert_eq!(a["errors"], serde_json::json!([]));
    let sha_after = a["sha256_after"].as_str().expect("sha");
    let bytes = std::fs::read(&script).expect("read");
    assert_eq!(sha_after, sha256(&bytes));
    assert_eq!(a["sha256_before"].as_str().expect("sha"), sha256(LEGACY));
    let backup = a["backup"].as_str().expect("backup path");
    assert_eq!(
        std::fs::read(tmp.path().join(backup)).expect("backup file"),
        LEGACY
    );
    assert_eq!(files[1]["status"], "no_legacy");
    assert_eq!(files[1]["backup"], Value::Null);
    let summary = &report["summary"];
    assert_eq!(
        (
            summary["total"].as_u64(),
            summary["migrated"].as_u64(),
            summary["no_legacy"].as_u64()
        ),
        (Some(2), Some(1), Some(1))
    );
    let run_id = report["backup_run"].as_str().expect("run id");
    assert!(
        tmp.path()
            .join(".skillmod/backups")
            .join(run_id)
            .join("manifest.jsonl")
            .is_file()
    );
    assert_eq!(
        std::fs::read_to_string(tmp.path().join(".skillmod/.gitignore"))
            .expect("gitignore")
            .lines()
            .last(),
        Some("*")
    );
}

fn sha256(bytes: &[u8]) -> String {
    skillmod::fsio::sha256_hex(bytes)
}

#[test]
fn restore_round_trip_puts_back_bytes_and_mode() {
    let tmp = tempfile::tempdir().expect("tmp");
    let script = write_script(tmp.path(), "s/execute.sh", LEGACY);
    set_mode(&script, 0o750);
    let out = run(skillmod(tmp.path()).args(["migrate", "s"]));
    assert_eq!(out.status.code(), Some(0));
    assert_ne!(std::fs::read(&script).expect("read"), LEGACY);
    assert_eq!(mode(&script), 0o750, "migration changed the mode");
    // Outside git the backups are the named folder's (s/.skillmod): restore names it too.
    assert!(tmp.path().join("s/.skillmod/backups").is_dir());
    assert!(!tmp.path().join(".skillmod").exists());
    let out = run(skillmod(tmp.path()).args(["restore", "s"]));
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(std::fs::read(&script).expect("read"), LEGACY);
    assert_eq!(mode(&script), 0o750);
}

#[test]
fn restore_refuses_a_file_edited_since_migration_unless_forced() {
    let tmp = tempfile::tempdir().expect("tmp");
    let script = write_script(tmp.path(), "s/execute.sh", LEGACY);
    run(skillmod(tmp.path()).args(["migrate", "s"]));
    std::fs::write(&script, b"#!/bin/bash\necho edited by hand\n").expect("edit");
    let (code, report) = json_report(tmp.path(), &["restore", "s"]);
    assert_eq!(code, 1);
    assert_eq!(report["files"][0]["status"], "refused");
    assert_eq!(
        report["files"][0]["errors"][0]["code"],
        "FILE_CHANGED_SINCE_MIGRATION"
    );
    assert_eq!(
        std::fs::read(&script).expect("read"),
        b"#!/bin/bash\necho edited by hand\n"
    );
    let out = run(skillmod(tmp.path()).args(["restore", "--force", "s"]));
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(std::fs::read(&script).expect("read"), LEGACY);
}

#[test]
fn restore_with_paths_touches_only_those_files() {
    let tmp = tempfile::tempdir().expect("tmp");
    let a = write_script(tmp.path(), "a/execute.sh", LEGACY);
    let b = write_script(tmp.path(), "b/execute.sh", LEGACY);
    run(skillmod(tmp.path()).args(["migrate", "a", "b"]));
    let out = run(skillmod(tmp.path()).args(["restore", "a"]));
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(std::fs::read(&a).expect("read"), LEGACY);
    assert_ne!(std::fs::read(&b).expect("read"), LEGACY);
}

#[test]
fn restore_without_backups_says_there_is_nothing_to_restore() {
    let tmp = tempfile::tempdir().expect("tmp");
    let out = run(skillmod(tmp.path()).args(["restore"]));
    assert_eq!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("NO_BACKUPS"), "{}", stderr(&out));
}

#[test]
fn a_symlinked_script_out_of_its_project_root_fails_and_its_target_is_untouched() {
    let tmp = tempfile::tempdir().expect("tmp");
    let target = write_script(tmp.path(), "real/legacy.sh", LEGACY);
    std::fs::create_dir_all(tmp.path().join("skill")).expect("mkdir");
    std::os::unix::fs::symlink(&target, tmp.path().join("skill/execute.sh")).expect("symlink");
    // The root is the folder named: the target lies outside it, and execute.sh must be judged.
    let (code, report) = json_report(tmp.path(), &["migrate", "skill"]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(report["files"][0]["status"], "failed");
    assert_eq!(report["files"][0]["errors"][0]["code"], "OUTSIDE_ROOT");
    assert_eq!(std::fs::read(&target).expect("read"), LEGACY);
    assert!(
        std::fs::symlink_metadata(tmp.path().join("skill/execute.sh"))
            .expect("stat")
            .file_type()
            .is_symlink()
    );
}

#[test]
fn a_binary_or_oversized_execute_sh_fails_with_its_reason() {
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(
        tmp.path(),
        "bin/execute.sh",
        b"\x7fELF\x00\x00echo SUCCESS\n",
    );
    let mut big = LEGACY.to_vec();
    big.extend(std::iter::repeat_n(b'#', 5000));
    write_script(tmp.path(), "big/execute.sh", &big);
    let (code, report) = json_report(tmp.path(), &["migrate", "--max-size", "4096", "."]);
    assert_eq!(code, 1, "neither could be judged, as check says: {report}");
    let codes: Vec<&str> = report["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| f["errors"][0]["code"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(codes, ["FILE_TOO_LARGE", "BINARY_FILE"]);
    assert_eq!(report["summary"]["failed"], 2);
    assert_eq!(report["summary"]["not_checked"], 2);
}

#[test]
fn gitignored_files_and_the_backup_folder_are_not_walked() {
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(tmp.path(), "kept/execute.sh", LEGACY);
    write_script(tmp.path(), "vendor/execute.sh", LEGACY);
    write_script(tmp.path(), ".skillmod/backups/x/files/execute.sh", LEGACY);
    std::fs::write(tmp.path().join(".gitignore"), "vendor/\n").expect("gitignore");
    let (_, report) = json_report(tmp.path(), &["migrate", "--dry-run", "."]);
    assert_eq!(report_paths(&report), ["kept/execute.sh"]);
}

#[test]
fn include_glob_widens_the_search_and_skill_path_takes_any_name() {
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(tmp.path(), "s/run.sh", LEGACY);
    write_script(tmp.path(), "s/other.bash", LEGACY);
    let (_, report) = json_report(tmp.path(), &["migrate", "--dry-run", "--skill-dir", "s"]);
    assert_eq!(report["summary"]["total"], 0);
    let (_, report) = json_report(
        tmp.path(),
        &[
            "migrate",
            "--dry-run",
            "--skill-dir",
            "s",
            "--include",
            "*.sh",
        ],
    );
    assert_eq!(report["files"][0]["path"], "s/run.sh");
    assert_eq!(report["summary"]["total"], 1);
    let (_, report) = json_report(
        tmp.path(),
        &["migrate", "--dry-run", "--skill-path", "s/other.bash"],
    );
    assert_eq!(report["files"][0]["status"], "would_migrate");
}

#[test]
fn no_legacy_is_left_alone_unless_forced() {
    let tmp = tempfile::tempdir().expect("tmp");
    let text = b"#!/bin/bash\ntouch done.txt\n";
    let script = write_script(tmp.path(), "s/execute.sh", text);
    let (_, report) = json_report(tmp.path(), &["migrate", "s"]);
    assert_eq!(report["files"][0]["status"], "no_legacy");
    assert_eq!(std::fs::read(&script).expect("read"), text);
    let (_, report) = json_report(
        tmp.path(),
        &["migrate", "--force", "--default-confidence", "0.6", "s"],
    );
    assert_eq!(report["files"][0]["status"], "migrated");
    let out = run(std::process::Command::new("bash")
        .arg(&script)
        .current_dir(tmp.path()));
    let doc = last_json(&stdout(&out)).expect("json");
    assert_eq!(doc["confidence"], 0.6);
    assert_eq!(doc["success"], true);
}

#[test]
fn usage_errors_exit_2_before_any_work() {
    let tmp = tempfile::tempdir().expect("tmp");
    let script = write_script(tmp.path(), "s/execute.sh", LEGACY);
    for args in [
        vec!["migrate"],
        vec!["migrate", "s", "missing-folder"],
        vec!["migrate", "--default-confidence", "1.5", "s"],
        vec!["migrate", "--template", "no-such-template", "s"],
        vec!["migrate", "--bogus-flag", "s"],
    ] {
        let out = run(skillmod(tmp.path()).args(&args));
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("error"), "{args:?}: {}", stderr(&out));
    }
    assert_eq!(
        std::fs::read(&script).expect("read"),
        LEGACY,
        "a usage error changed a file"
    );
}

#[test]
fn one_failing_file_does_not_stop_the_others_and_exits_1() {
    let tmp = tempfile::tempdir().expect("tmp");
    let template = tmp.path().join("bad.j2");
    // Renders for scripts with deliverables only; the other script fails to render.
    std::fs::write(
        &template,
        "{% if deliverables %}{\"ok\": true}{% else %}{{ none_such.field.deeper() }}{% endif %}",
    )
    .expect("template");
    let good = write_script(tmp.path(), "a/execute.sh", LEGACY);
    let bad_text = b"#!/bin/bash\necho SUCCESS\n";
    let bad = write_script(tmp.path(), "b/execute.sh", bad_text);
    let (code, report) = json_report(
        tmp.path(),
        &[
            "migrate",
            "--mode",
            "comment",
            "--template",
            template.to_str().expect("utf-8"),
            "a",
            "b",
        ],
    );
    assert_eq!(code, 1);
    assert_eq!(report["files"][0]["status"], "migrated");
    assert_eq!(report["files"][1]["status"], "failed");
    assert_eq!(
        report["files"][1]["errors"][0]["code"],
        "TEMPLATE_RENDER_FAILED"
    );
    assert_ne!(std::fs::read(&good).expect("read"), LEGACY);
    assert_eq!(std::fs::read(&bad).expect("read"), bad_text);
}

#[test]
fn color_follows_the_color_flag() {
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(tmp.path(), "s/execute.sh", LEGACY);
    let plain = run(skillmod(tmp.path()).args(["migrate", "--dry-run", "s"]));
    assert!(
        !stdout(&plain).contains('\u{1b}'),
        "color without a terminal"
    );
    let colored =
        run(skillmod(tmp.path()).args(["migrate", "--dry-run", "--color", "always", "s"]));
    assert!(
        stdout(&colored).contains("\u{1b}["),
        "no color with --color always"
    );
}

#[test]
fn text_summary_counts_every_status() {
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(tmp.path(), "a/execute.sh", LEGACY);
    write_script(tmp.path(), "b/execute.sh", b"#!/bin/bash\ntrue\n");
    let out = run(skillmod(tmp.path()).args(["migrate", "."]));
    let err = stderr(&out);
    assert!(
        err.contains("2 files: 1 migrated, 0 already migrated, 1 no legacy, 0 skipped, 0 failed"),
        "{err}"
    );
    assert!(err.contains("backups: .skillmod/backups/"), "{err}");
}

#[test]
fn a_parse_error_anywhere_in_a_script_with_legacy_lines_refuses_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    // One parse cannot tell how far a syntax error's damage reaches, so neither a broken line
    // before the legacy line nor one after it lets migrate edit the file. `ls >` NEWLINE is a
    // syntax error for bash that tree-sitter-bash reads as a redirection to a file named `echo`,
    // hiding the legacy line: it counts as a parse error too.
    let before = b"#!/bin/bash\nls >\necho \"SUCCESS\"\n";
    let after = b"#!/bin/bash\nls\necho \"SUCCESS\"; ls >\n";
    let tree_sitter_error = b"#!/bin/bash\nif then; fi\necho \"SUCCESS\"\n";
    write_script(dir.path(), "a/execute.sh", before);
    write_script(dir.path(), "b/execute.sh", after);
    write_script(dir.path(), "c/execute.sh", tree_sitter_error);
    let (code, report) = json_report(dir.path(), &["migrate", "--mode", "comment", "."]);
    assert_eq!(
        code, 1,
        "check's SKM003 is an error: migrate fails these files"
    );
    let files = report["files"].as_array().expect("files");
    let status = |path: &str| {
        files
            .iter()
            .find(|f| f["path"] == path)
            .map(|f| (f["status"].clone(), f["errors"][0]["code"].clone()))
    };
    for (path, bytes) in [
        ("a/execute.sh", &before[..]),
        ("b/execute.sh", &after[..]),
        ("c/execute.sh", &tree_sitter_error[..]),
    ] {
        assert_eq!(
            status(path),
            Some((Value::from("failed"), Value::from("PARSE_ERROR"))),
            "{path}"
        );
        assert_eq!(
            std::fs::read(dir.path().join(path)).expect("read"),
            bytes,
            "{path}"
        );
    }
    // check says the same about each, in the same words, with where the syntax error is (never
    // a silent pass on the hidden line).
    let out = run(skillmod(dir.path()).args(["check", "--format", "json", "."]));
    let findings: Value = serde_json::from_slice(&out.stdout).expect("json");
    for (path, first_error) in [
        ("a/execute.sh", "the first at 2:4"),
        ("b/execute.sh", "the first at 3:21"),
        ("c/execute.sh", "the first at 2:"),
    ] {
        let checked = findings["errors"]
            .as_array()
            .expect("errors")
            .iter()
            .find(|f| f["path"] == path && f["code"] == "PARSE_ERROR")
            .unwrap_or_else(|| panic!("{path}: {findings}"));
        let migrated = files
            .iter()
            .find(|f| f["path"] == path)
            .map(|f| f["errors"][0]["message"].clone());
        assert_eq!(Some(checked["message"].clone()), migrated, "{path}");
        let message = checked["message"].as_str().expect("message");
        assert!(message.contains(first_error), "{path}: {message}");
    }
}

#[test]
fn a_forced_run_that_changes_nothing_records_nothing_and_restore_undoes_the_first() {
    let tmp = tempfile::tempdir().expect("tmp");
    let main = b"#!/bin/bash\n. \"$(dirname \"$0\")/lib.sh\"\nlog_ok\necho SUCCESS\n";
    let lib = b"log_ok() {\n  echo \"Created: report.md\"\n}\n";
    write_script(tmp.path(), "s/execute.sh", main);
    write_script(tmp.path(), "s/lib.sh", lib);
    let first = run(skillmod(tmp.path()).args(["migrate", "--force", "--include", "*.sh", "s"]));
    assert!(first.status.success(), "{}", stderr(&first));
    let migrated_lib = std::fs::read(tmp.path().join("s/lib.sh")).expect("lib");
    assert_ne!(migrated_lib, lib, "the library was rewritten");
    let (code, second) = json_report(
        tmp.path(),
        &["migrate", "--force", "--include", "*.sh", "s"],
    );
    assert_eq!(code, 0, "{second}");
    assert_eq!(
        second["backup_run"],
        Value::Null,
        "nothing recorded: {second}"
    );
    for file in second["files"].as_array().expect("files") {
        assert_eq!(file["status"], "already_migrated", "{file}");
        assert!(file["backup"].is_null(), "{file}");
    }
    assert!(second.to_string().contains("NOTHING_TO_CHANGE"), "{second}");
    let restored = run(skillmod(tmp.path()).args(["restore", "s"]));
    assert!(restored.status.success(), "{}", stderr(&restored));
    assert_eq!(
        std::fs::read(tmp.path().join("s/lib.sh")).expect("lib"),
        lib
    );
    assert_eq!(
        std::fs::read(tmp.path().join("s/execute.sh")).expect("main"),
        main
    );
}

#[test]
fn docs_state_the_example_dry_run_as_it_is() {
    // The "Capture's diff" paragraph of docs/runtime.md: a copy of fixtures/example outside git.
    let tmp = tempfile::tempdir().expect("tmp");
    for skill in ["generate-api", "lint-check", "deploy-docs", "already-json"] {
        let from = fixtures().join(format!("example/skills/{skill}/execute.sh"));
        let text = std::fs::read(&from).expect("read");
        write_script(tmp.path(), &format!("skills/{skill}/execute.sh"), &text);
    }
    let out = run(skillmod(tmp.path()).args(["migrate", "--dry-run", "--color", "never", "."]));
    let diff = stdout(&out);
    let runtime_lines = diff
        .lines()
        .find_map(|l| l.strip_prefix("@@ -0,0 +1,"))
        .and_then(|l| l.strip_suffix(" @@"))
        .expect("the runtime file's hunk");
    let page =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/runtime.md"))
            .expect("docs/runtime.md");
    let said = format!(
        "{} lines of diff on stdout, of which {runtime_lines} are the",
        diff.lines().count()
    );
    assert!(page.contains(&said), "docs/runtime.md should say: {said}");
    let summary = format!(
        "and {} summary lines on stderr",
        stderr(&out).lines().count()
    );
    assert!(
        page.contains(&summary),
        "docs/runtime.md should say: {summary}"
    );
    // The page's excerpt of the added source line is the line's start, as the diff shows it.
    let excerpt = page
        .lines()
        .find(|l| l.starts_with("+test -n"))
        .and_then(|l| l.split(" … ").next())
        .expect("docs/runtime.md shows the added source line");
    assert!(diff.contains(excerpt), "{excerpt}");
}

#[test]
fn outside_git_the_named_folder_is_the_root_whatever_the_working_folder() {
    let script = b"#!/bin/bash\necho \"Created: x\"\necho SUCCESS\n";
    let skill_md = b"---\nname: a\ndescription: a test skill\n---\n";
    // The tree's files, skills/.skillmod (the backups) aside, relative to the copy's parent.
    let tree = |parent: &Path| -> Vec<(String, Vec<u8>)> {
        snapshot(parent)
            .into_iter()
            .filter(|(path, _)| !path.starts_with("skills/.skillmod/"))
            .collect()
    };
    // From the parent naming `skills`, from an unrelated folder naming it by its absolute path,
    // and from inside the tree naming the same folder as `../..`.
    let mut results = Vec::new();
    for how in ["parent", "unrelated", "inside"] {
        let tmp = tempfile::tempdir().expect("tmp");
        let parent = tmp.path();
        std::fs::create_dir_all(parent.join("skills/a")).expect("mkdir");
        std::fs::write(parent.join("skills/a/SKILL.md"), skill_md).expect("SKILL.md");
        write_script(parent, "skills/a/scripts/run.sh", script);
        let before = tree(parent);
        let unrelated = tempfile::tempdir().expect("unrelated");
        let home = tempfile::tempdir().expect("home");
        let named = parent.join("skills");
        let (dir, path) = match how {
            "parent" => (parent.to_path_buf(), "skills".to_string()),
            "inside" => (parent.join("skills/a/scripts"), "../..".to_string()),
            _ => (
                unrelated.path().to_path_buf(),
                named.to_str().expect("utf-8").to_string(),
            ),
        };
        let out = run(skillmod(&dir)
            .env("HOME", home.path())
            .env("XDG_STATE_HOME", home.path())
            .env("XDG_CACHE_HOME", home.path())
            .args(["migrate", "--include", "*.sh", "--format", "json", &path]));
        let report: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{how}: not JSON ({e}): {}", stderr(&out)));
        assert_eq!(out.status.code(), Some(0), "{how}: {report}");
        assert_eq!(report["summary"]["migrated"], 1, "{how}: {report}");
        let after = tree(parent);
        let names: Vec<&str> = after.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(
            names,
            [
                "skills/a/SKILL.md",
                "skills/a/scripts/run.sh",
                "skills/a/scripts/skillmod-runtime.sh"
            ],
            "{how}: only the runtime file is new, in the skill's scripts/"
        );
        assert_eq!(after[0], before[0], "{how}: SKILL.md untouched");
        assert_ne!(after[1].1, script, "{how}: the script was migrated");
        // The backups: in the named folder's .skillmod (it is not a skill folder), recording
        // the paths relative to it, with the script's original bytes.
        let backups = named.join(".skillmod/backups");
        let run_id = report["backup_run"].as_str().expect("run id");
        let manifest = std::fs::read_to_string(backups.join(run_id).join("manifest.jsonl"))
            .unwrap_or_else(|e| panic!("{how}: no manifest in {}: {e}", backups.display()));
        let mut recorded: Vec<String> = manifest
            .lines()
            .map(|l| {
                let entry: Value = serde_json::from_str(l).expect("manifest line");
                entry["path"].as_str().expect("path").to_string()
            })
            .collect();
        recorded.sort();
        assert_eq!(
            recorded,
            ["a/scripts/run.sh", "a/scripts/skillmod-runtime.sh"],
            "{how}"
        );
        let kept = std::fs::read_dir(backups.join(run_id).join("files"))
            .expect("backup files")
            .flatten()
            .any(|f| std::fs::read(f.path()).is_ok_and(|b| b == script));
        assert!(kept, "{how}: the original is backed up");
        // Nothing else anywhere: not in the parent, the working folder or the user's folders.
        assert_eq!(
            std::fs::read_dir(parent)
                .expect("ls")
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect::<Vec<_>>(),
            ["skills"],
            "{how}"
        );
        assert_eq!(
            std::fs::read_dir(unrelated.path()).expect("ls").count(),
            0,
            "{how}"
        );
        // In the user's folders, only the journal of backup runs (restore picks only those).
        let journal = home.path().join("skillmod/journal");
        assert_eq!(
            std::fs::read_dir(home.path())
                .expect("ls")
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect::<Vec<_>>(),
            ["skillmod"],
            "{how}"
        );
        assert_eq!(
            std::fs::read_dir(home.path().join("skillmod"))
                .expect("ls")
                .count(),
            1,
            "{how}"
        );
        // The journal and the run's seal.
        assert_eq!(
            std::fs::read_dir(&journal).expect("journal").count(),
            2,
            "{how}"
        );
        results.push((how, after));
    }
    for (how, files) in &results[1..] {
        assert_eq!(
            files, &results[0].1,
            "{how}: other bytes than migrating from the parent"
        );
    }
}

#[test]
fn a_plain_restore_skips_runs_already_undone_and_the_list_says_which() {
    let tmp = tempfile::tempdir().expect("tmp");
    let script = write_script(tmp.path(), "s/execute.sh", LEGACY);
    run(skillmod(tmp.path()).args(["migrate", "s"]));
    let first = std::fs::read(&script).expect("migrated");
    // A second run changes the migrated file again (a new runtime setting), then both are undone
    // one by one: the first restore takes the newest run, the second the older one.
    run(skillmod(tmp.path()).args(["migrate", "--runtime", "inline", "s"]));
    assert_ne!(std::fs::read(&script).expect("inline"), first);
    let out = run(skillmod(tmp.path()).args(["restore", "s"]));
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(std::fs::read(&script).expect("back"), first);
    let out = run(skillmod(tmp.path()).args(["restore", "s"]));
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(std::fs::read(&script).expect("original"), LEGACY);
    // Both runs are undone now: nothing to restore, and the list marks them.
    let out = run(skillmod(tmp.path()).args(["restore", "s"]));
    assert_eq!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("undone already"), "{}", stderr(&out));
    let out = run(skillmod(tmp.path()).args(["restore", "--list", "s"]));
    assert_eq!(
        stdout(&out).matches("\tundone").count(),
        2,
        "{}",
        stdout(&out)
    );
}

#[test]
fn restore_never_offers_or_counts_a_run_already_undone() {
    let tmp = tempfile::tempdir().expect("tmp");
    let script = write_script(tmp.path(), "s/execute.sh", LEGACY);
    let bash = |dir: &Path| {
        let out = run(std::process::Command::new("bash")
            .arg("execute.sh")
            .current_dir(dir.join("s")));
        (out.status.code(), stdout(&out))
    };
    let original = bash(tmp.path());
    let list = |dir: &Path| stdout(&run(skillmod(dir).args(["restore", "--list", "s"])));
    // Migrated, undone, migrated again: the first run is undone (the second found the script
    // as the first had), though the script is migrated again.
    run(skillmod(tmp.path()).args(["migrate", "s"]));
    run(skillmod(tmp.path()).args(["restore", "s"]));
    std::thread::sleep(std::time::Duration::from_millis(20));
    run(skillmod(tmp.path()).args(["migrate", "s"]));
    let runs: Vec<String> = list(tmp.path())
        .lines()
        .map(|l| l.split('\t').next().expect("id").to_string())
        .collect();
    assert_eq!(runs.len(), 2);
    assert_eq!(
        list(tmp.path()).matches("\tundone").count(),
        1,
        "{}",
        list(tmp.path())
    );
    // restore undoes the second run, and offers no older run: the first is undone.
    let out = run(skillmod(tmp.path()).args(["restore", "s"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let said = stdout(&out);
    assert!(
        said.contains(&format!(
            "run {}: 2 of 2 files restored, 0 already original",
            runs[1]
        )),
        "{said}"
    );
    assert!(!said.contains("older run"), "{said}");
    assert_eq!(std::fs::read(&script).expect("read"), LEGACY);
    assert_eq!(bash(tmp.path()), original);
    assert_eq!(list(tmp.path()).matches("\tundone").count(), 2);
    // Nothing is left to undo, however it is asked: nothing restored, nothing counted.
    for args in [
        vec!["restore", "s"],
        vec!["restore", "--since", &runs[0], "s"],
        vec!["restore", "--run", &runs[0], "s"],
        vec!["restore", "--run", &runs[1], "s"],
    ] {
        let out = run(skillmod(tmp.path()).args(&args));
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        assert_eq!(stdout(&out), "", "{args:?}");
        assert!(
            stderr(&out).contains("undone already"),
            "{args:?}: {}",
            stderr(&out)
        );
        let (_, report) = json_report(tmp.path(), &args);
        assert_eq!(report["runs"], serde_json::json!([]), "{args:?}: {report}");
        assert_eq!(report["files"], serde_json::json!([]), "{args:?}: {report}");
    }
    assert_eq!(std::fs::read(&script).expect("read"), LEGACY);
}

#[test]
fn force_refuses_to_move_a_scripts_answer_off_stdout_unless_it_is_kept() {
    let tmp = tempfile::tempdir().expect("tmp");
    // A skill whose stdout is its answer: the caller reads it (`TYPE=$(bash detect.sh)`).
    let script = write_script(
        tmp.path(),
        "s/detect.sh",
        b"#!/bin/bash\nif [ -f next.config.js ]; then\n  echo nextjs\nelse\n  echo node\nfi\n",
    );
    let before = std::fs::read(&script).expect("script");
    let out = run(skillmod(tmp.path()).args(["migrate", "--force", "--no-backup", "s/detect.sh"]));
    assert_ne!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("STDOUT_ANSWER"), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("2 write(s), the first at line 3"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read(&script).expect("script"),
        before,
        "left as it is"
    );
    // --keep-stdout is the way through: the answer stays on stdout, before the document, and
    // the summary counts its writes.
    let out = run(skillmod(tmp.path()).args([
        "migrate",
        "--force",
        "--keep-stdout",
        "--no-backup",
        "s/detect.sh",
    ]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let ran = run(std::process::Command::new("bash")
        .arg(&script)
        .current_dir(tmp.path()));
    let stdout = stdout(&ran);
    assert!(stdout.starts_with("node\n{"), "{stdout}");
}

#[test]
fn force_refuses_an_answer_printed_through_a_sourced_librarys_function() {
    // The issue 30 audit: the answer is printed by `log`, defined in the library it sources.
    let tmp = tempfile::tempdir().expect("tmp");
    std::fs::create_dir_all(tmp.path().join("s")).expect("skill folder");
    std::fs::write(tmp.path().join("s/SKILL.md"), "# s\n").expect("SKILL.md");
    write_script(tmp.path(), "s/common.sh", b"log() { echo \"$*\"; }\n");
    let script = write_script(
        tmp.path(),
        "s/other.sh",
        b"#!/bin/bash\nsource \"$(dirname \"$0\")/common.sh\"\nlog \"hello\"\n",
    );
    let before = std::fs::read(&script).expect("script");
    let out = run(skillmod(tmp.path()).args(["migrate", "--force", "--no-backup", "s"]));
    assert!(
        stderr(&out).contains("STDOUT_ANSWER")
            && stderr(&out).contains("the first at line 3: `log \"hello\"`"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read(&script).expect("script"), before);
    let ran = run(std::process::Command::new("bash")
        .arg(&script)
        .current_dir(tmp.path()));
    assert_eq!(stdout(&ran), "hello\n");
}

#[test]
fn restore_says_what_it_removed_lists_as_json_and_refuses_a_missing_path() {
    let tmp = tempfile::tempdir().expect("tmp");
    git_init(tmp.path());
    write_script(tmp.path(), "s/execute.sh", LEGACY);
    git(tmp.path(), &["add", "-A"]);
    git(tmp.path(), &["commit", "-qm", "skill"]);
    let out = run(skillmod(tmp.path()).args(["migrate", "s"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let (code, listed) = json_report(tmp.path(), &["restore", "--list", "s"]);
    assert_eq!(code, 0, "{listed}");
    assert_eq!(listed["runs"].as_array().map(Vec::len), Some(1), "{listed}");
    assert_eq!(listed["runs"][0]["state"], "pending", "{listed}");
    let missing = run(skillmod(tmp.path()).args(["restore", "no/such/path"]));
    assert_eq!(missing.status.code(), Some(2), "{}", stderr(&missing));
    assert!(
        stderr(&missing).contains("PATH_NOT_FOUND"),
        "{}",
        stderr(&missing)
    );
    let out = run(skillmod(tmp.path()).args(["restore", "s"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let said = stdout(&out);
    assert!(said.contains("   removed s/skillmod-runtime.sh"), "{said}");
    assert!(
        said.contains("`git rm --cached --quiet --ignore-unmatch -- s/skillmod-runtime.sh`"),
        "{said}"
    );
    // The hint is what drops it: the tree is clean afterwards.
    git(
        tmp.path(),
        &["rm", "--cached", "--quiet", "s/skillmod-runtime.sh"],
    );
    assert_eq!(git(tmp.path(), &["status", "--porcelain"]).trim(), "");
}

#[test]
fn quiet_migrate_keeps_only_the_files_to_act_on() {
    // User trial: `-q` still printed the SOURCED_LIBRARY/SOURCES_LIBRARY notes of files migrated.
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(
        tmp.path(),
        "s/run.sh",
        b"#!/bin/bash\nsource \"$(dirname \"$0\")/lib.sh\"\nfinish\n",
    );
    write_script(tmp.path(), "s/lib.sh", b"finish() { echo SUCCESS; }\n");
    write_script(tmp.path(), "s/SKILL.md", b"---\nname: s\n---\n");
    write_script(
        tmp.path(),
        "t/execute.sh",
        b"#!/bin/bash\necho '{\"a\": 1}'\necho SUCCESS\n",
    );
    let out = run(skillmod(tmp.path()).args(["migrate", "-q", "--no-backup", "s", "t"]));
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(
        !said.contains("SOURCED_LIBRARY") && !said.contains("SOURCES_LIBRARY"),
        "{said}"
    );
    assert!(
        said.contains("failed t/execute.sh") && said.contains("PRINTS_JSON"),
        "{said}"
    );
}

#[test]
fn comment_mode_keeps_set_u_stopping_at_an_unset_variable() {
    // The disabled line read $OUT_DIR, unset: under `set -u` the original stops there (status 1).
    // Its `:` keeps the line's words, so the migrated script stops too instead of reporting
    // success; a read through an operator (`${M:-x}`) never failed and still does not.
    let tmp = tempfile::tempdir().expect("tmp");
    let script = write_script(
        &tmp.path().join("s"),
        "execute.sh",
        b"#!/bin/bash\nset -u\necho \"Modified: ${M:-x}\"\necho \"Created: $OUT_DIR/a.txt\"\necho SUCCESS\n",
    );
    let before = run(std::process::Command::new("bash")
        .arg(&script)
        .current_dir(tmp.path()));
    assert_eq!(before.status.code(), Some(1));
    let out = run(skillmod(tmp.path()).args(["migrate", "--mode", "comment", "--no-backup", "s"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(&script).expect("read");
    assert!(text.contains(": \"Modified: ${M:-x}\" # LEGACY"), "{text}");
    assert!(
        text.contains(": \"Created: $OUT_DIR/a.txt\" # LEGACY"),
        "{text}"
    );
    assert!(
        text.contains(": # LEGACY (replaced with JSON): echo SUCCESS"),
        "{text}"
    );
    let after = run(std::process::Command::new("bash")
        .arg(&script)
        .current_dir(tmp.path()));
    assert_eq!(after.status.code(), Some(1), "{}", stdout(&after));
    assert!(
        stderr(&after).contains("OUT_DIR: unbound variable"),
        "{}",
        stderr(&after)
    );
    assert!(
        !stdout(&after).contains("\"success\": true"),
        "{}",
        stdout(&after)
    );
}

#[test]
fn comment_mode_keeps_the_side_effects_and_failures_of_a_disabled_lines_words() {
    // `echo "Created: $(gen)"` ran gen; `${f:=notes.md}` assigned; `${X:?msg}` stopped the
    // script: the disabled line's `:` expands the same words, so each still happens.
    let tmp = tempfile::tempdir().expect("tmp");
    let script = write_script(
        &tmp.path().join("s"),
        "execute.sh",
        b"#!/bin/bash\ngen() { touch report.txt; echo report.txt; }\necho \"Created: $(gen)\"\necho \"Modified: ${f:=notes.md}\"\necho \"f=$f\" >&2\necho \"Created: ${OUT:?OUT not set}\"\necho SUCCESS\n",
    );
    let out = run(skillmod(tmp.path()).args(["migrate", "--mode", "comment", "--no-backup", "s"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let after = run(std::process::Command::new("bash")
        .arg(&script)
        .current_dir(tmp.path()));
    assert!(tmp.path().join("report.txt").is_file(), "gen ran");
    assert!(stderr(&after).contains("f=notes.md"), "{}", stderr(&after));
    assert!(stderr(&after).contains("OUT not set"), "{}", stderr(&after));
    assert_eq!(after.status.code(), Some(1));
}

#[test]
fn restores_hint_for_many_removed_runtimes_is_one_path_a_line_names_those_already_gone_and_pastes_whole()
 {
    // A new user's trial: 76 runtime paths made one 8 KB line.
    let tmp = tempfile::tempdir().expect("tmp");
    git_init(tmp.path());
    for skill in ["a", "b", "c", "d"] {
        write_skill_md(tmp.path(), skill);
        write_script(tmp.path(), &format!("{skill}/execute.sh"), LEGACY);
    }
    git(tmp.path(), &["add", "-A"]);
    git(tmp.path(), &["commit", "-qm", "skills"]);
    let out = run(skillmod(tmp.path()).args(["migrate", "."]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // A build deleted one runtime before the restore: the index still lists it, so the hint
    // names it too (a new user's trial).
    std::fs::remove_file(tmp.path().join("d/skillmod-runtime.sh")).expect("rm");
    let out = run(skillmod(tmp.path()).args(["restore"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let said = stdout(&out);
    assert!(said.contains("the 4 removed files"), "{said}");
    let command: Vec<&str> = said
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("git rm --cached"))
        .take(5)
        .collect();
    assert_eq!(command.len(), 5, "{said}");
    assert!(command.iter().all(|l| l.len() < 60), "{said}");
    let pasted = std::process::Command::new("bash")
        .arg("-c")
        .arg(command.join("\n"))
        .current_dir(tmp.path())
        .output()
        .expect("bash");
    assert!(pasted.status.success(), "{}", stderr(&pasted));
    let status = std::process::Command::new("git")
        .args(["status", "--porcelain"])
        .current_dir(tmp.path())
        .output()
        .expect("git status");
    assert_eq!(stdout(&status), "", "{said}");
}

#[test]
fn files_skipped_as_no_shell_script_are_counted_and_listed_with_verbose_only() {
    // A new user's trial: `--include '*.sh'` over a repository with Python `.sh` files printed
    // 48 two-line skip blocks before the summary.
    let tmp = tempfile::tempdir().expect("tmp");
    for name in ["p1.sh", "p2.sh"] {
        write_script(
            tmp.path(),
            &format!("s/{name}"),
            b"#!/usr/bin/env python3\nprint('SUCCESS')\n",
        );
    }
    write_script(tmp.path(), "s/execute.sh", LEGACY);
    let args = ["migrate", "--dry-run", "--include", "*.sh", "s"];
    let out = run(skillmod(tmp.path()).args(args));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let said = format!("{}{}", stdout(&out), stderr(&out));
    assert!(!said.contains("NOT_SHELL"), "{said}");
    assert!(
        said.contains("2 skipped (2 not shell scripts, shown with -v)"),
        "{said}"
    );
    let out = run(skillmod(tmp.path()).args(args).arg("-v"));
    let said = format!("{}{}", stdout(&out), stderr(&out));
    assert_eq!(said.matches("NOT_SHELL").count(), 2, "{said}");
    let (_, report) = json_report(
        tmp.path(),
        &["migrate", "--dry-run", "--include", "*.sh", "s"],
    );
    assert_eq!(report["summary"]["not_shell"], 2, "{report}");
}
