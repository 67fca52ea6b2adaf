//! Git-aware migration in temp repositories: dirty files refused, exact commits, history selection.

use std::path::Path;

use crate::common::*;
use serde_json::Value;

const LEGACY: &[u8] = b"#!/bin/bash\necho \"Created: out.txt\"\necho \"SUCCESS\"\n";

fn repo_with_skills(names: &[&str]) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("tmp");
    git_init(tmp.path());
    for name in names {
        write_script(tmp.path(), &format!("skills/{name}/execute.sh"), LEGACY);
    }
    std::fs::write(tmp.path().join("notes.txt"), "v1\n").expect("notes");
    std::fs::write(tmp.path().join("other.txt"), "v1\n").expect("other");
    git(tmp.path(), &["add", "-A"]);
    git(tmp.path(), &["commit", "-q", "-m", "initial"]);
    tmp
}

fn migrate_json(dir: &Path, args: &[&str]) -> (i32, Value) {
    let mut all = vec!["migrate"];
    all.extend_from_slice(args);
    json_report(dir, &all)
}

#[test]
fn dirty_related_file_is_refused_and_untouched() {
    let tmp = repo_with_skills(&["a", "b"]);
    let edited = b"#!/bin/bash\necho \"SUCCESS\"\n# work in progress\n";
    let a = tmp.path().join("skills/a/execute.sh");
    std::fs::write(&a, edited).expect("edit");
    let b = tmp.path().join("skills/b/execute.sh");
    std::fs::write(&b, b"#!/bin/bash\necho \"COMPLETE\"\n").expect("edit");
    git(tmp.path(), &["add", "skills/b/execute.sh"]);
    let (code, report) = migrate_json(tmp.path(), &["skills"]);
    assert_eq!(code, 1);
    for file in report["files"].as_array().expect("files") {
        assert_eq!(file["status"], "failed");
        assert_eq!(file["errors"][0]["code"], "DIRTY_FILE");
    }
    assert_eq!(std::fs::read(&a).expect("read"), edited);
    assert!(
        !tmp.path().join(".skillmod/backups").exists(),
        "refused files were backed up"
    );
    let (code, report) = migrate_json(tmp.path(), &["--allow-dirty", "skills"]);
    assert_eq!(code, 0);
    assert_eq!(report["summary"]["migrated"], 2);
}

#[test]
fn commit_holds_exactly_the_migrated_files_and_leaves_the_rest_alone() {
    let tmp = repo_with_skills(&["a", "b"]);
    std::fs::write(tmp.path().join("notes.txt"), "v2 staged\n").expect("notes");
    git(tmp.path(), &["add", "notes.txt"]);
    std::fs::write(tmp.path().join("other.txt"), "v2 unstaged\n").expect("other");
    std::fs::write(tmp.path().join("untracked.txt"), "new\n").expect("untracked");
    let (code, report) = migrate_json(tmp.path(), &["--commit", "skills"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["commit_created"], true);
    let head = git(tmp.path(), &["rev-parse", "HEAD"]);
    assert_eq!(report["commit_hash"].as_str(), Some(head.trim()));
    // The runtime files capture mode created (one per skill folder) are part of the
    // migration, so of the commit.
    assert_eq!(
        report["files_committed"],
        serde_json::json!([
            "skills/a/execute.sh",
            "skills/a/skillmod-runtime.sh",
            "skills/b/execute.sh",
            "skills/b/skillmod-runtime.sh"
        ])
    );
    let in_commit = git(tmp.path(), &["show", "--name-only", "--format=", "HEAD"]);
    assert_eq!(
        in_commit.lines().collect::<Vec<_>>(),
        [
            "skills/a/execute.sh",
            "skills/a/skillmod-runtime.sh",
            "skills/b/execute.sh",
            "skills/b/skillmod-runtime.sh"
        ]
    );
    let message = git(tmp.path(), &["log", "-1", "--format=%s"]);
    assert_eq!(message.trim(), "skillmod: migrate 2 skills to JSON output");
    assert_eq!(
        git(tmp.path(), &["diff", "--cached", "--name-only"]).trim(),
        "notes.txt",
        "the user's staged change was lost"
    );
    assert_eq!(
        git(tmp.path(), &["diff", "--name-only"]).trim(),
        "other.txt"
    );
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("other.txt")).expect("read"),
        "v2 unstaged\n"
    );
    assert_eq!(
        report["unrelated_dirty"],
        serde_json::json!(["notes.txt", "other.txt", "untracked.txt"])
    );
    let committed = git(tmp.path(), &["show", "HEAD:skills/a/execute.sh"]);
    assert_eq!(
        committed.as_bytes(),
        std::fs::read(tmp.path().join("skills/a/execute.sh")).expect("read")
    );
}

#[test]
fn commit_takes_a_folder_named_like_git_pathspec_magic_literally() {
    // A skill folder named `:(glob)x`: git read the path as a pattern, the commit failed with
    // the scripts rewritten (hostile review hx23 item 7).
    let tmp = repo_with_skills(&[":(glob)x", "plain"]);
    let (code, report) = migrate_json(tmp.path(), &["--commit", "skills"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["commit_created"], true, "{report}");
    let in_commit = git(tmp.path(), &["show", "--name-only", "--format=", "HEAD"]);
    assert!(
        in_commit.contains("skills/:(glob)x/execute.sh"),
        "{in_commit}"
    );
    assert!(
        git(tmp.path(), &["status", "--porcelain"])
            .lines()
            .all(|l| !l.contains("x/"))
    );
}

#[test]
fn second_run_creates_no_commit() {
    let tmp = repo_with_skills(&["a"]);
    let (_, first) = migrate_json(tmp.path(), &["--commit", "-m", "migrate skills", "skills"]);
    assert_eq!(first["commit_created"], true);
    assert_eq!(
        git(tmp.path(), &["log", "-1", "--format=%s"]).trim(),
        "migrate skills"
    );
    let head = git(tmp.path(), &["rev-parse", "HEAD"]);
    let (code, second) = migrate_json(tmp.path(), &["--commit", "skills"]);
    assert_eq!(code, 0);
    assert_eq!(second["commit_created"], false);
    assert_eq!(second["commit_hash"], Value::Null);
    assert_eq!(second["files_committed"], serde_json::json!([]));
    assert_eq!(git(tmp.path(), &["rev-parse", "HEAD"]), head);
}

#[test]
fn text_summary_prints_the_short_hash() {
    let tmp = repo_with_skills(&["a"]);
    let out = run(skillmod(tmp.path()).args(["migrate", "--commit", "skills"]));
    let head = git(tmp.path(), &["rev-parse", "--short=12", "HEAD"]);
    assert!(
        stderr(&out).contains(&format!("committed {}: 2 files", head.trim())),
        "{}",
        stderr(&out)
    );
}

#[test]
fn git_hooks_run_and_no_verify_passes_through() {
    let tmp = repo_with_skills(&["a"]);
    let hook = tmp.path().join(".git/hooks/pre-commit");
    std::fs::write(&hook, "#!/bin/sh\necho 'hook says no' >&2\nexit 1\n").expect("hook");
    set_mode(&hook, 0o755);
    let (code, report) = migrate_json(tmp.path(), &["--commit", "skills"]);
    assert_eq!(code, 1);
    assert_eq!(report["commit_created"], false);
    run(skillmod(tmp.path()).args(["restore"]));
    let (code, report) = migrate_json(tmp.path(), &["--commit", "--no-verify", "skills"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["commit_created"], true);
}

#[test]
fn restore_works_after_a_commit() {
    let tmp = repo_with_skills(&["a"]);
    migrate_json(tmp.path(), &["--commit", "skills"]);
    let out = run(skillmod(tmp.path()).args(["restore"]));
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(
        std::fs::read(tmp.path().join("skills/a/execute.sh")).expect("read"),
        LEGACY
    );
}

#[test]
fn changed_since_and_staged_pick_exactly_those_skills() {
    let tmp = repo_with_skills(&["a", "b", "c"]);
    std::fs::write(
        tmp.path().join("skills/b/execute.sh"),
        b"#!/bin/bash\necho \"Created: b.txt\"\necho \"SUCCESS\"\n",
    )
    .expect("edit");
    git(tmp.path(), &["commit", "-q", "-am", "change b"]);
    let (_, report) = migrate_json(tmp.path(), &["--dry-run", "--changed-since", "HEAD~1"]);
    assert_eq!(report_paths(&report), ["skills/b/execute.sh"]);
    std::fs::write(
        tmp.path().join("skills/c/execute.sh"),
        b"#!/bin/bash\necho \"COMPLETE\"\n",
    )
    .expect("edit");
    git(tmp.path(), &["add", "skills/c/execute.sh"]);
    let out = run(skillmod(tmp.path()).args(["check", "--staged", "--format", "json"]));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(doc["summary"]["scripts_checked"], 1);
    assert_eq!(doc["findings"][0]["path"], "skills/c/execute.sh");
}

#[test]
fn commit_and_history_flags_need_git() {
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(tmp.path(), "s/execute.sh", LEGACY);
    for args in [
        vec!["migrate", "--commit", "s"],
        vec!["check", "--changed-since", "HEAD"],
    ] {
        let out = run(skillmod(tmp.path()).args(&args));
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains("NOT_A_GIT_REPO"), "{}", stderr(&out));
    }
}

#[test]
fn files_committed_is_read_from_the_commit_made() {
    let tmp = repo_with_skills(&["a"]);
    // A repository hook that stages another file into the commit.
    let hook = tmp.path().join(".git/hooks/pre-commit");
    std::fs::write(&hook, "#!/bin/sh\necho v2 > notes.txt\ngit add notes.txt\n").expect("hook");
    set_mode(&hook, 0o755);
    let (code, report) = migrate_json(tmp.path(), &["--commit", "skills"]);
    assert_eq!(code, 0, "{report}");
    let in_commit = git(
        tmp.path(),
        &[
            "diff-tree",
            "--root",
            "--no-commit-id",
            "--name-only",
            "-r",
            "HEAD",
        ],
    );
    let listed: Vec<&str> = report["files_committed"]
        .as_array()
        .expect("files_committed")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let expected: Vec<&str> = in_commit.lines().collect();
    assert_eq!(listed, expected, "{report}");
    assert!(listed.contains(&"notes.txt"), "{report}");
}

#[test]
fn check_staged_reads_the_index_and_migrate_staged_refuses_unstaged_changes() {
    let tmp = repo_with_skills(&["a"]);
    let script = tmp.path().join("skills/a/execute.sh");
    // Staged: a legacy line; the work tree alone is fixed.
    std::fs::write(
        &script,
        b"#!/bin/bash\necho SUCCESS\necho \"Confidence: 1\"\n",
    )
    .expect("edit");
    git(tmp.path(), &["add", "skills/a/execute.sh"]);
    std::fs::write(&script, b"#!/bin/bash\necho done >&2\n").expect("fix");
    let out = run(skillmod(tmp.path()).args(["check", "--staged", "--no-cache"]));
    assert_eq!(
        out.status.code(),
        Some(1),
        "the staged legacy line: {}",
        stdout(&out)
    );
    assert!(
        stdout(&out).contains("skills/a/execute.sh:2:1: SKM001"),
        "{}",
        stdout(&out)
    );
    let (code, report) = migrate_json(tmp.path(), &["--staged", "--allow-dirty"]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(
        report["files"][0]["errors"][0]["code"], "STAGED_DIFFERS",
        "{report}"
    );
    assert_eq!(
        std::fs::read(&script).expect("read"),
        b"#!/bin/bash\necho done >&2\n",
        "untouched"
    );
}

#[test]
fn git_add_advice_is_given_inside_git_only() {
    for in_git in [false, true] {
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = tmp.path();
        write_script(dir, "skills/a/execute.sh", LEGACY);
        std::fs::write(dir.join("skills/a/SKILL.md"), "# a\n").expect("SKILL.md");
        if in_git {
            git_init(dir);
            git(dir, &["add", "-A"]);
            git(dir, &["commit", "-q", "-m", "initial"]);
        }
        let migrate = run(skillmod(dir).args(["migrate", "."]));
        assert_eq!(migrate.status.code(), Some(0), "{}", stderr(&migrate));
        let said = stderr(&migrate);
        assert!(
            said.contains("runtime skills/a/skillmod-runtime.sh created"),
            "{said}"
        );
        assert_eq!(
            said.contains("git add skills/a/skillmod-runtime.sh"),
            in_git,
            "in git: {in_git}: {said}"
        );
        // check: the runtime git does not track yet is SKM007, fixed by `git add`; outside git
        // there is nothing to add, and nothing to report.
        for format in ["text", "json"] {
            let check = run(skillmod(dir).args(["check", "--format", format, "."]));
            let all = format!("{}{}", stdout(&check), stderr(&check));
            assert_eq!(check.status.code(), Some(i32::from(in_git)), "{all}");
            assert_eq!(all.contains("git add"), in_git, "in git: {in_git}: {all}");
        }
    }
}

#[test]
fn under_staged_a_skill_folder_is_one_whose_skill_md_the_index_holds() {
    let tmp = tempfile::tempdir().expect("tmp");
    git_init(tmp.path());
    let script = b"#!/bin/bash\necho SUCCESS\n";
    // `staged/` holds SKILL.md in the index only (deleted from the work tree); `untracked/`
    // in the work tree only. A commit makes the first a skill folder, not the second.
    for skill in ["staged", "untracked"] {
        let dir = tmp.path().join("skills").join(skill);
        std::fs::create_dir_all(dir.join("scripts")).expect("skill");
        std::fs::write(dir.join("SKILL.md"), "---\nname: s\ndescription: s\n---\n")
            .expect("SKILL.md");
        write_script(&dir.join("scripts"), "run.sh", script);
    }
    git(
        tmp.path(),
        &["add", "skills/staged", "skills/untracked/scripts/run.sh"],
    );
    std::fs::remove_file(tmp.path().join("skills/staged/SKILL.md")).expect("rm");
    let (code, report) = json_report(tmp.path(), &["check", "--staged", "--no-cache"]);
    assert_eq!(code, 1, "{report}");
    let paths: Vec<&str> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter_map(|f| f["path"].as_str())
        .collect();
    assert_eq!(paths, ["skills/staged/scripts/run.sh"], "{report}");
}

#[test]
fn staging_skill_md_alone_checks_the_scripts_it_makes_skill_scripts() {
    // Hostile round 3 (H09): `tools/deploy/run.sh` is committed; a commit of SKILL.md alone makes
    // it a skill script, and check --staged judged nothing ("no script found").
    let tmp = tempfile::tempdir().expect("tmp");
    let repo = tmp.path();
    git_init(repo);
    write_script(repo, "tools/deploy/run.sh", b"#!/bin/bash\necho SUCCESS\n");
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-qm", "tool"]);
    std::fs::write(repo.join("tools/deploy/SKILL.md"), "# deploy\n").expect("skill");
    git(repo, &["add", "tools/deploy/SKILL.md"]);
    let out = run(skillmod(repo).args(["check", "--no-cache", "--staged"]));
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("tools/deploy/run.sh:2:1: SKM001"),
        "{}",
        stdout(&out)
    );
}
