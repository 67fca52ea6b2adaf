//! The multi-repo recipe in docs/multi-repo.md: scripts/migrate-repos.sh over temp repositories.

use crate::common::*;
use serde_json::Value;

#[test]
fn migrate_repos_script_commits_each_repo_and_reports_json_lines() {
    let with_legacy = tempfile::tempdir().expect("tmp");
    let clean = tempfile::tempdir().expect("tmp");
    for (dir, body) in [
        (
            with_legacy.path(),
            b"#!/bin/bash\necho \"SUCCESS\"\n".as_slice(),
        ),
        (clean.path(), b"#!/bin/bash\ntrue\n".as_slice()),
    ] {
        git_init(dir);
        write_script(dir, "skills/s/execute.sh", body);
        git(dir, &["add", "-A"]);
        git(dir, &["commit", "-q", "-m", "init"]);
    }
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/migrate-repos.sh");
    let out = run(std::process::Command::new("bash")
        .arg(script)
        .arg(with_legacy.path())
        .arg(clean.path())
        .env("SKILLMOD", env!("CARGO_BIN_EXE_skillmod"))
        .env("XDG_STATE_HOME", state_home()));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lines: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["exit_status"], 0);
    assert_eq!(lines[0]["report"]["commit_created"], true);
    let head = git(with_legacy.path(), &["rev-parse", "HEAD"]);
    assert_eq!(
        lines[0]["report"]["commit_hash"].as_str(),
        Some(head.trim())
    );
    assert_eq!(lines[1]["report"]["commit_created"], false);
    assert_eq!(git(clean.path(), &["log", "--format=%s"]).trim(), "init");
}

/// A legacy skill committed in a fresh repository; migrate (capture mode, `--format json`) run in
/// it: its exit status, report, stderr, and the paths of the runtime files it reports created.
fn migrate_in_repo(dir: &std::path::Path, extra: &[&str]) -> (i32, Value, String, Vec<String>) {
    git_init(dir);
    write_script(
        dir,
        "skills/demo/execute.sh",
        b"#!/bin/bash\necho \"Created: out.txt\"\necho \"SUCCESS\"\n",
    );
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "legacy skill"]);
    let mut args = vec!["migrate", "--no-backup"];
    args.extend_from_slice(extra);
    args.push(".");
    let out = run(skillmod(dir).args(&args).args(["--format", "json"]));
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {} {}", stdout(&out), stderr(&out)));
    let created = report["runtime_files"]
        .as_array()
        .expect("runtime_files")
        .iter()
        .filter(|r| r["status"] == "created")
        .map(|r| r["path"].as_str().expect("path").to_string())
        .collect();
    (
        out.status.code().unwrap_or(-1),
        report,
        stderr(&out),
        created,
    )
}

#[test]
fn migrate_marks_a_created_runtime_file_intent_to_add_so_commit_all_takes_it() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path();
    let (code, report, err, created) = migrate_in_repo(dir, &[]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(created.len(), 1, "{report}");
    assert!(!err.contains("not marked for git"), "{err}");
    let runtime = &created[0];
    // Known to git, content not staged: `git diff` and `git ls-files` show it, status says " A".
    let diff = git(dir, &["diff", "--name-only"]);
    assert!(
        diff.lines().any(|l| l == runtime),
        "{runtime} not in git diff: {diff}"
    );
    let listed = git(dir, &["ls-files", "--", runtime]);
    assert_eq!(listed.trim(), runtime.as_str());
    let status = git(dir, &["status", "--porcelain=v1", "--", runtime]);
    assert_eq!(status.trim_end(), format!(" A {runtime}"));
    // What all-repos does: `git commit -a` takes the runtime file with the migrated script.
    git(dir, &["commit", "-q", "-a", "-m", "migrated"]);
    let committed = git(dir, &["show", &format!("HEAD:{runtime}")]);
    let on_disk = std::fs::read_to_string(dir.join(runtime)).expect("runtime file");
    assert_eq!(committed, on_disk);
    assert_eq!(git(dir, &["status", "--porcelain=v1"]), "");
}

#[test]
fn a_dry_run_marks_nothing_and_an_ignored_runtime_file_is_a_note_not_a_failure() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (code, report, _, _) = migrate_in_repo(tmp.path(), &["--dry-run"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(git(tmp.path(), &["status", "--porcelain=v1"]), "");

    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path();
    std::fs::write(dir.join(".gitignore"), "skillmod-runtime*\n").expect("write .gitignore");
    let (code, report, err, created) = migrate_in_repo(dir, &[]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(created.len(), 1, "{report}");
    let runtime = &created[0];
    assert!(dir.join(runtime).is_file());
    assert_eq!(git(dir, &["ls-files", "--", runtime]), "");
    assert!(
        err.contains(&format!("note: {runtime}: not marked for git")),
        "{err}"
    );
}
