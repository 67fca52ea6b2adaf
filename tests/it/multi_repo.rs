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
        .env("SKILLMOD", env!("CARGO_BIN_EXE_skillmod")));
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
