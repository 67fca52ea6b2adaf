//! The reading remembered (issue 30, point 2): `migrate --vocabulary R`, where the settings file
//! of the scripts does not already say R, writes `vocabulary = "R"` into that file when it is a
//! regular, committed, clean file (minimally, backed up, shown in a dry run, undone by restore),
//! and otherwise prints the one line to add; it never creates a settings file. Then `check` reads
//! later commits as migrate did. Through the real binary, in git repositories.

use std::path::Path;
use std::process::{Command, Output};

use crate::common::*;
use serde_json::Value;

/// The fixture project (a settings file with comments, one skill whose results only the
/// original vocabulary reads) copied into a fresh temp folder.
fn project() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("tmp");
    let status = Command::new("cp")
        .arg("-R")
        .arg(fixtures().join("remembered/project/."))
        .arg(tmp.path())
        .status()
        .expect("cp");
    assert!(status.success());
    tmp
}

/// `project()` committed in a fresh git repository.
fn repository() -> tempfile::TempDir {
    let tmp = project();
    git_init(tmp.path());
    commit_all(tmp.path(), "skills");
    tmp
}

fn commit_all(dir: &Path, message: &str) {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", message]);
}

fn migrate(dir: &Path, args: &[&str]) -> Output {
    run(skillmod(dir).arg("migrate").args(args))
}

fn settings_text(dir: &Path) -> Vec<u8> {
    std::fs::read(dir.join("skillmod.toml")).expect("settings file")
}

fn fixture_settings() -> Vec<u8> {
    std::fs::read(fixtures().join("remembered/project/skillmod.toml")).expect("fixture settings")
}

/// The fixture's settings file with the line migrate appends.
fn remembered(vocabulary: &str) -> Vec<u8> {
    let mut text = fixture_settings();
    text.extend_from_slice(format!("vocabulary = \"{vocabulary}\"\n").as_bytes());
    text
}

/// The lines of stderr about the vocabulary.
fn vocabulary_lines(out: &Output) -> Vec<String> {
    stderr(out)
        .lines()
        .filter(|l| l.starts_with("vocabulary:"))
        .map(String::from)
        .collect()
}

fn updates(report: &Value) -> &Vec<Value> {
    report["settings_updates"]
        .as_array()
        .expect("settings_updates")
}

#[test]
fn the_reading_is_written_into_a_clean_settings_file_keeping_its_comments() {
    let tmp = repository();
    let dir = tmp.path();
    let out = migrate(dir, &["--vocabulary", "original", "."]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(settings_text(dir), remembered("original"));
    assert_eq!(
        vocabulary_lines(&out),
        [
            "vocabulary: wrote `vocabulary = \"original\"` into skillmod.toml, so check reads later commits the same way"
        ]
    );
    // Backed up in the run's manifest, as a script is.
    let manifests = std::fs::read_dir(dir.join(".skillmod/backups"))
        .expect("backups")
        .flatten()
        .map(|run| std::fs::read_to_string(run.path().join("manifest.jsonl")).expect("manifest"))
        .collect::<String>();
    assert!(
        manifests.contains("\"path\":\"skillmod.toml\""),
        "{manifests}"
    );
}

#[test]
fn another_reading_in_the_file_is_replaced_where_it_stands() {
    let tmp = repository();
    let dir = tmp.path();
    let text = "vocabulary = 'exact'   # read strictly, for now\nmode = \"capture\"\n";
    std::fs::write(dir.join("skillmod.toml"), text).expect("settings");
    commit_all(dir, "exact");
    let (code, report) = json_report(dir, &["migrate", "--vocabulary", "original", "."]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(
        String::from_utf8_lossy(&settings_text(dir)),
        "vocabulary = \"original\"   # read strictly, for now\nmode = \"capture\"\n"
    );
    let update = &updates(&report)[0];
    assert_eq!(update["status"], "written", "{report}");
    assert_eq!(update["vocabulary_before"], "exact", "{report}");
    assert_eq!(update["vocabulary"], "original", "{report}");
    assert!(update["backup"].is_string(), "{report}");
}

#[test]
fn a_dry_run_shows_the_settings_diff_and_writes_nothing() {
    let planned = repository();
    let dir = planned.path();
    let out = migrate(dir, &["--dry-run", "--vocabulary", "original", "."]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let diff = stdout(&out);
    assert!(
        diff.contains(
            "--- a/skillmod.toml\n+++ b/skillmod.toml\n@@ -3,3 +3,4 @@\n \n # Paths every walk leaves out.\n exclude = ['vendor/']\n+vocabulary = \"original\"\n"
        ),
        "{diff}"
    );
    assert_eq!(
        vocabulary_lines(&out),
        [
            "vocabulary: would write `vocabulary = \"original\"` into skillmod.toml, so check reads later commits the same way"
        ]
    );
    assert_eq!(settings_text(dir), fixture_settings());
    assert_eq!(git(dir, &["status", "--porcelain"]), "");
    assert!(!dir.join(".skillmod").exists(), "a dry run made backups");

    // The JSON report says the same, and the diff applied is what a real run writes.
    let (code, report) = json_report(
        dir,
        &["migrate", "--dry-run", "--vocabulary", "original", "."],
    );
    assert_eq!(code, 0, "{report}");
    let update = &updates(&report)[0];
    assert_eq!(update["path"], "skillmod.toml", "{report}");
    assert_eq!(update["status"], "would_write", "{report}");
    assert_eq!(update["line"], "vocabulary = \"original\"", "{report}");
    let patch = dir.join("../remembered.patch");
    std::fs::write(&patch, &out.stdout).expect("patch");
    git(
        dir,
        &[
            "apply",
            "--whitespace=nowarn",
            patch.to_str().expect("utf-8 path"),
        ],
    );
    let real = repository();
    let done = migrate(real.path(), &["--vocabulary", "original", "."]);
    assert_eq!(done.status.code(), Some(0), "{}", stderr(&done));
    assert_eq!(settings_text(dir), settings_text(real.path()));
}

#[test]
fn restore_brings_the_settings_file_back_byte_for_byte() {
    let tmp = repository();
    let dir = tmp.path();
    let out = migrate(dir, &["--vocabulary", "original", "."]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(settings_text(dir), remembered("original"));
    let out = run(skillmod(dir).arg("restore"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("restored skillmod.toml"),
        "{}",
        stdout(&out)
    );
    assert_eq!(settings_text(dir), fixture_settings());
    assert_eq!(
        git(dir, &["status", "--porcelain", "--", "skillmod.toml"]),
        ""
    );
}

#[test]
fn without_a_settings_file_migrate_prints_the_line_to_add_and_creates_none() {
    let tmp = repository();
    let dir = tmp.path();
    git(dir, &["rm", "-q", "skillmod.toml"]);
    git(dir, &["commit", "-q", "-m", "no settings"]);
    // In JSON: the file that would govern the scripts, which does not exist.
    let (code, report) = json_report(
        dir,
        &["migrate", "--dry-run", "--vocabulary", "original", "."],
    );
    assert_eq!(code, 0, "{report}");
    let update = &updates(&report)[0];
    assert_eq!(update["status"], "not_written", "{report}");
    assert_eq!(update["exists"], false, "{report}");
    assert_eq!(update["path"], "skillmod.toml", "{report}");
    assert_eq!(error_codes(&update["errors"]), ["NO_SETTINGS_FILE"]);

    let out = migrate(dir, &["--vocabulary", "original", "."]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        vocabulary_lines(&out),
        [
            "vocabulary: add `vocabulary = \"original\"` to a new skillmod.toml so check reads later commits the same way (no settings file governs these scripts, and migrate never creates one)"
        ]
    );
    for name in ["skillmod.toml", ".skillmod.toml"] {
        for folder in ["", "skills", "skills/report"] {
            assert!(!dir.join(folder).join(name).exists(), "{folder}/{name}");
        }
    }
}

#[test]
fn a_dirty_settings_file_is_refused_with_the_line_to_add() {
    let tmp = repository();
    let dir = tmp.path();
    let mut edited = fixture_settings();
    edited.extend_from_slice(b"# an edit not committed yet\n");
    std::fs::write(dir.join("skillmod.toml"), &edited).expect("edit");
    let out = migrate(dir, &["-q", "--vocabulary", "original", "."]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // Advice to act on: shown with -q too.
    assert_eq!(
        vocabulary_lines(&out),
        [
            "vocabulary: add `vocabulary = \"original\"` to skillmod.toml so check reads later commits the same way; not written, since skillmod.toml has uncommitted changes (staged or unstaged); migrate writes only a committed, clean settings file (or pass --allow-dirty)"
        ]
    );
    assert_eq!(settings_text(dir), edited);
    // Staged is not committed either.
    git(dir, &["add", "skillmod.toml"]);
    let (_, report) = json_report(
        dir,
        &["migrate", "--dry-run", "--vocabulary", "original", "."],
    );
    assert_eq!(
        error_codes(&updates(&report)[0]["errors"]),
        ["SETTINGS_DIRTY"]
    );
    // --allow-dirty, which lets migrate rewrite dirty scripts, lets it write the file too.
    let tmp = repository();
    let dir = tmp.path();
    std::fs::write(dir.join("skillmod.toml"), &edited).expect("edit");
    let out = migrate(dir, &["--allow-dirty", "--vocabulary", "original", "."]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mut written = edited.clone();
    written.extend_from_slice(b"vocabulary = \"original\"\n");
    assert_eq!(settings_text(dir), written);
}

#[test]
fn an_uncommitted_settings_file_is_refused() {
    let tmp = project();
    let dir = tmp.path();
    git_init(dir);
    git(dir, &["add", "skills"]);
    git(dir, &["commit", "-q", "-m", "skills only"]);
    let out = migrate(dir, &["--vocabulary", "original", "."]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lines = vocabulary_lines(&out);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].contains("skillmod.toml is not committed (git does not track it)"),
        "{lines:?}"
    );
    assert_eq!(settings_text(dir), fixture_settings());
}

#[test]
fn a_symlinked_settings_file_is_refused_with_the_line_to_add() {
    let tmp = project();
    let dir = tmp.path();
    std::fs::rename(dir.join("skillmod.toml"), dir.join("shared.toml")).expect("move");
    std::os::unix::fs::symlink("shared.toml", dir.join("skillmod.toml")).expect("symlink");
    git_init(dir);
    commit_all(dir, "linked settings");
    // The text report gives the line and the reason; the diff has no settings file.
    let out = migrate(dir, &["--dry-run", "--vocabulary", "original", "."]);
    let lines = vocabulary_lines(&out);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with("vocabulary: add `vocabulary = \"original\"` to skillmod.toml")
            && lines[0].contains("is a symbolic link"),
        "{lines:?}"
    );
    assert!(!stdout(&out).contains("skillmod.toml"), "{}", stdout(&out));

    let (code, report) = json_report(dir, &["migrate", "--vocabulary", "original", "."]);
    assert_eq!(code, 0, "{report}");
    let update = &updates(&report)[0];
    assert_eq!(update["status"], "not_written", "{report}");
    assert_eq!(error_codes(&update["errors"]), ["SETTINGS_NOT_REGULAR"]);
    let meta = std::fs::symlink_metadata(dir.join("skillmod.toml")).expect("link");
    assert!(meta.file_type().is_symlink());
    assert_eq!(
        std::fs::read(dir.join("shared.toml")).expect("target"),
        fixture_settings()
    );
}

#[test]
fn a_file_that_already_says_the_reading_is_left_alone() {
    let tmp = repository();
    let dir = tmp.path();
    std::fs::write(dir.join("skillmod.toml"), remembered("original")).expect("settings");
    commit_all(dir, "original");
    let out = migrate(dir, &["--vocabulary", "original", "."]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(vocabulary_lines(&out), Vec::<String>::new());
    assert_eq!(settings_text(dir), remembered("original"));
    assert_eq!(
        git(dir, &["status", "--porcelain", "--", "skillmod.toml"]),
        ""
    );
    let (_, report) = json_report(dir, &["migrate", "--vocabulary", "original", "."]);
    assert_eq!(updates(&report).len(), 0, "{report}");
}

#[test]
fn the_default_reading_changes_no_settings_file() {
    for args in [&["."][..], &["--vocabulary", "decorated", "."]] {
        let tmp = repository();
        let dir = tmp.path();
        let out = migrate(dir, args);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert_eq!(vocabulary_lines(&out), Vec::<String>::new(), "{args:?}");
        assert_eq!(settings_text(dir), fixture_settings(), "{args:?}");

        // Nor does it ask for one where there is none.
        git(dir, &["rm", "-q", "skillmod.toml"]);
        git(dir, &["commit", "-q", "-m", "no settings"]);
        let (_, report) = json_report(dir, &["migrate", "--dry-run", "."]);
        assert_eq!(updates(&report).len(), 0, "{report}");
    }
}

#[test]
fn each_settings_file_is_handled_once_in_a_bulk_run() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path();
    let script = std::fs::read(fixtures().join("remembered/project/skills/report/execute.sh"))
        .expect("fixture script");
    for skill in ["a/one", "a/two", "b/three", "c/four"] {
        write_script(dir, &format!("{skill}/execute.sh"), &script);
    }
    std::fs::write(dir.join("a/skillmod.toml"), "# a\n").expect("a");
    std::fs::write(dir.join("b/.skillmod.toml"), "mode = \"capture\"\n").expect("b");
    git_init(dir);
    commit_all(dir, "three folders");
    let (code, report) = json_report(dir, &["migrate", "--vocabulary", "original", "a", "b", "c"]);
    assert_eq!(code, 0, "{report}");
    let seen: Vec<(&str, &str)> = updates(&report)
        .iter()
        .map(|u| {
            (
                u["path"].as_str().unwrap_or_default(),
                u["status"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("a/skillmod.toml", "written"),
            ("b/.skillmod.toml", "written"),
            ("skillmod.toml", "not_written"),
        ],
        "{report}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("a/skillmod.toml")).expect("a"),
        "# a\nvocabulary = \"original\"\n"
    );
    assert!(!dir.join("skillmod.toml").exists());
    assert!(!dir.join("c/skillmod.toml").exists());
}

#[test]
fn commit_takes_the_settings_file_with_the_scripts() {
    let tmp = repository();
    let dir = tmp.path();
    let (code, report) = json_report(
        dir,
        &["migrate", "--commit", "--vocabulary", "original", "."],
    );
    assert_eq!(code, 0, "{report}");
    let committed: Vec<&str> = report["files_committed"]
        .as_array()
        .expect("files_committed")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(committed.contains(&"skillmod.toml"), "{report}");
    assert_eq!(
        git(dir, &["log", "-1", "--format=%s"]).trim(),
        "skillmod: migrate 1 skill to JSON output"
    );
    assert_eq!(
        git(dir, &["status", "--porcelain", "--", "skillmod.toml"]),
        ""
    );
}

#[test]
fn check_judges_later_commits_with_the_reading_migrate_remembered() {
    let tmp = repository();
    let dir = tmp.path();
    // Read with the default vocabulary, the skill has no legacy line at all.
    let (code, before) = json_report(dir, &["check", "--no-cache", "."]);
    assert_eq!(code, 0, "{before}");

    let out = migrate(dir, &["--vocabulary", "original", "."]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    commit_all(dir, "migrate");
    let (code, migrated) = json_report(dir, &["check", "--no-cache", "."]);
    assert_eq!(code, 0, "{migrated}");

    // A later commit brings a legacy line back that only the original vocabulary reads.
    let script = dir.join("skills/report/execute.sh");
    let mut text = std::fs::read(&script).expect("script");
    text.extend_from_slice(b"echo \"[OK] success\"\n");
    std::fs::write(&script, &text).expect("edit");
    commit_all(dir, "a legacy line comes back");
    let (code, after) = json_report(dir, &["check", "--no-cache", "."]);
    assert_eq!(code, 1, "{after}");
    let found: Vec<(&str, u64)> = after["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap_or_default(),
                f["line"].as_u64().unwrap_or_default(),
            )
        })
        .collect();
    let last = text.iter().filter(|&&b| b == b'\n').count() as u64;
    assert_eq!(found, [("SKM001", last)], "{after}");
    // The default reading would have let it through.
    let (code, default) = json_report(
        dir,
        &["check", "--no-cache", "--vocabulary", "decorated", "."],
    );
    assert_eq!(code, 0, "{default}");
}
