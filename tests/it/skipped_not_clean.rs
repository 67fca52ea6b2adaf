//! A script check selected but could not judge is never a pass (issue 31, points 2 and 4): an
//! oversize or symlinked `execute.sh` next to a clean script, links leading out of the root or
//! nowhere, skill-folder scripts as warnings, `--staged` symlinks, and migrate agreeing.

use std::path::Path;

use crate::common::*;
use serde_json::Value;

const CLEAN: &[u8] = b"#!/bin/bash\necho building >&2\n";
const LEGACY: &[u8] = b"#!/bin/bash\necho \"SUCCESS\"\n";

/// A repository with a clean skill and `skills/big/execute.sh` padded past the default 1 MiB.
fn repo_with_oversize_execute() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("tmp");
    let repo = tmp.path();
    git_init(repo);
    write_script(repo, "skills/clean/execute.sh", CLEAN);
    let mut big = LEGACY.to_vec();
    big.extend(std::iter::repeat_n(b'#', 1024 * 1024 + 10));
    big.push(b'\n');
    write_script(repo, "skills/big/execute.sh", &big);
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-qm", "skills"]);
    tmp
}

fn check(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = run(skillmod(dir).arg("check").args(args));
    (out.status.code().unwrap_or(-1), stdout(&out))
}

fn sarif(dir: &Path, args: &[&str]) -> Value {
    let out = run(skillmod(dir)
        .args(["check", "--format", "sarif"])
        .args(args));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("sarif");
    if let Some(schema) = crate::rules_cli::official_schema() {
        let validator = jsonschema::validator_for(&schema).expect("schema compiles");
        let errors: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{errors:?}");
    }
    doc
}

/// (ruleId, level, uri) of each SARIF result.
fn results(doc: &Value) -> Vec<(String, String, String)> {
    doc["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            (
                r["ruleId"].as_str().unwrap_or("").to_string(),
                r["level"].as_str().unwrap_or("").to_string(),
                r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                    .as_str()
                    .unwrap_or("")
                    .to_string(),
            )
        })
        .collect()
}

#[test]
fn an_oversize_execute_sh_next_to_a_clean_script_is_an_error_in_every_format() {
    let tmp = repo_with_oversize_execute();
    let repo = tmp.path();
    let (code, text) = check(repo, &["."]);
    assert_eq!(code, 1, "{text}");
    assert!(!text.contains("All clear"), "{text}");
    assert!(
        text.contains("skills/big/execute.sh: SKM004 FILE_TOO_LARGE: could not be checked"),
        "{text}"
    );
    assert!(
        text.contains("Not clear: 1 script could not be checked"),
        "{text}"
    );
    let out = run(skillmod(repo).args(["check", "--format", "github", "."]));
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("::error file=skills/big/execute.sh,title=skillmod SKM004"),
        "{}",
        stdout(&out)
    );
    let doc = sarif(repo, &["."]);
    assert_eq!(
        results(&doc),
        [(
            "SKM004".to_string(),
            "error".to_string(),
            "skills/big/execute.sh".to_string()
        )]
    );
    let (code, report) = json_report(repo, &["check", "."]);
    assert_eq!(code, 1);
    assert_eq!(report["findings"][0]["code"], "SKM004", "{report}");
    assert_eq!(report["findings"][0]["severity"], "error");
    assert_eq!(report["summary"]["not_checked_errors"], 1);
    // Raising the limit judges it: the legacy line it holds is found.
    let (code, text) = check(repo, &["--max-size", "4000000", "."]);
    assert_eq!(code, 1);
    assert!(text.contains("SKM001"), "{text}");
}

#[test]
fn only_exit_zero_hides_an_unjudged_script_and_no_setting_or_comment_can() {
    let tmp = repo_with_oversize_execute();
    let repo = tmp.path();
    let out = run(skillmod(repo).args(["check", "--exit-zero", "."]));
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("SKM004"), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("1 script(s) that could not be checked"),
        "{}",
        stderr(&out)
    );
    // The repository's settings and comments cannot drop it.
    std::fs::write(
        repo.join("skillmod.toml"),
        "ignore = [\"SKM004\"]\nselect = [\"SKM001\"]\n",
    )
    .expect("settings");
    let mut big =
        b"#!/bin/bash\n# skillmod: ignore\necho \"SUCCESS\"  # skillmod: ignore\n".to_vec();
    big.extend(std::iter::repeat_n(b'#', 1024 * 1024 + 10));
    write_script(repo, "skills/big/execute.sh", &big);
    let (code, text) = check(repo, &["."]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("SKM004 FILE_TOO_LARGE"), "{text}");
    let (code, text) = check(repo, &["--ignore", "SKM004", "."]);
    assert_eq!(code, 1, "{text}");
}

#[test]
fn a_script_named_on_the_command_line_is_an_error_when_it_cannot_be_judged() {
    let tmp = tempfile::tempdir().expect("tmp");
    let repo = tmp.path();
    git_init(repo);
    std::fs::write(repo.join("SKILL.md"), "---\nname: x\n---\n").expect("skill");
    let mut big = LEGACY.to_vec();
    big.extend(std::iter::repeat_n(b'#', 5000));
    write_script(repo, "tool.sh", &big);
    let (code, text) = check(repo, &["--max-size", "4096", "tool.sh"]);
    assert_eq!(code, 1, "{text}");
    // Found by a walk, the same script is a warning.
    let (code, text) = check(repo, &["--max-size", "4096", "."]);
    assert_eq!(code, 2, "nothing else was checked: {text}");
    assert!(text.contains("tool.sh: SKM004 FILE_TOO_LARGE"), "{text}");
}

#[test]
fn an_oversize_script_in_a_skill_folder_is_a_warning_that_names_it() {
    let tmp = tempfile::tempdir().expect("tmp");
    let repo = tmp.path();
    git_init(repo);
    write_script(repo, "skills/clean/execute.sh", CLEAN);
    write_skill_md(repo, "skills/x");
    let mut big = LEGACY.to_vec();
    big.extend(std::iter::repeat_n(b'#', 1024 * 1024 + 10));
    write_script(repo, "skills/x/scripts/big.sh", &big);
    let (code, text) = check(repo, &["."]);
    assert_eq!(code, 0, "a warning does not fail the run: {text}");
    assert!(
        text.contains("skills/x/scripts/big.sh: SKM004 FILE_TOO_LARGE"),
        "{text}"
    );
    assert!(!text.contains("All clear"), "{text}");
    assert!(
        text.contains("Not clear: 1 script could not be checked"),
        "{text}"
    );
    let out = run(skillmod(repo).args(["check", "--format", "github", "."]));
    assert!(
        stdout(&out).contains("::warning file=skills/x/scripts/big.sh"),
        "{}",
        stdout(&out)
    );
    let doc = sarif(repo, &["."]);
    assert_eq!(
        results(&doc),
        [(
            "SKM004".to_string(),
            "warning".to_string(),
            "skills/x/scripts/big.sh".to_string()
        )]
    );
    // migrate agrees: skipped with a warning, exit 0; named, it fails.
    let (code, report) = json_report(repo, &["migrate", "--dry-run", "."]);
    assert_eq!(code, 0, "{report}");
    let big = report["files"]
        .as_array()
        .expect("files")
        .iter()
        .find(|f| f["path"] == "skills/x/scripts/big.sh")
        .expect("big.sh reported");
    assert_eq!(big["status"], "skipped");
    assert_eq!(big["unjudged"], "warning");
    assert_eq!(report["summary"]["not_checked"], 1);
}

#[test]
fn execute_sh_committed_as_a_symlink_is_judged_at_its_target() {
    let tmp = tempfile::tempdir().expect("tmp");
    let repo = tmp.path();
    git_init(repo);
    write_script(repo, "skills/clean/execute.sh", CLEAN);
    write_script(repo, "lib/real.bash", LEGACY);
    std::fs::create_dir_all(repo.join("skills/linked")).expect("mkdir");
    std::os::unix::fs::symlink("../../lib/real.bash", repo.join("skills/linked/execute.sh"))
        .expect("link");
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-qm", "skills"]);
    let (code, text) = check(repo, &["."]);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("skills/linked/execute.sh:2:1: SKM001 success: echo \"SUCCESS\""),
        "{text}"
    );
    // Read-only: the target is unchanged.
    assert_eq!(
        std::fs::read(repo.join("lib/real.bash")).expect("read"),
        LEGACY
    );
}

#[test]
fn a_symlink_leading_out_of_the_root_is_an_error_naming_its_target() {
    let outside = tempfile::tempdir().expect("tmp");
    let target = write_script(outside.path(), "real.sh", LEGACY);
    let tmp = tempfile::tempdir().expect("tmp");
    let repo = tmp.path();
    git_init(repo);
    write_script(repo, "skills/clean/execute.sh", CLEAN);
    std::fs::create_dir_all(repo.join("skills/out")).expect("mkdir");
    std::os::unix::fs::symlink(&target, repo.join("skills/out/execute.sh")).expect("link");
    let (code, text) = check(repo, &["."]);
    assert_eq!(code, 1, "{text}");
    let real = std::fs::canonicalize(&target).expect("real");
    assert!(
        text.contains("skills/out/execute.sh: SKM004 OUTSIDE_ROOT")
            && text.contains(&real.display().to_string()),
        "{text}"
    );
    // migrate fails it the same way, and writes nothing there.
    let (code, report) = json_report(repo, &["migrate", "."]);
    assert_eq!(code, 1, "{report}");
    let out = report["files"]
        .as_array()
        .expect("files")
        .iter()
        .find(|f| f["path"] == "skills/out/execute.sh")
        .expect("the link is reported");
    assert_eq!(out["errors"][0]["code"], "OUTSIDE_ROOT", "{report}");
    assert_eq!(out["status"], "failed");
    assert_eq!(std::fs::read(&target).expect("read"), LEGACY);
}

#[test]
fn hostile_links_loops_chains_fifos_and_dangling_are_never_a_pass() {
    let outside = tempfile::tempdir().expect("tmp");
    write_script(outside.path(), "real.sh", LEGACY);
    let tmp = tempfile::tempdir().expect("tmp");
    let repo = tmp.path();
    git_init(repo);
    write_script(repo, "skills/clean/execute.sh", CLEAN);
    let link = |from: &str, to: &Path| {
        std::fs::create_dir_all(repo.join(from).parent().expect("parent")).expect("mkdir");
        std::os::unix::fs::symlink(to, repo.join(from)).expect("link");
    };
    // A loop, a dangling link, a chain that leaves the root, a link to a FIFO, into .git.
    link("skills/loop/execute.sh", Path::new("execute.sh"));
    link("skills/dangling/execute.sh", Path::new("../../nowhere.sh"));
    link("hop.sh", &outside.path().join("real.sh"));
    link("skills/chain/execute.sh", Path::new("../../hop.sh"));
    let fifo = repo.join("fifo.sh");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo")
            .success()
    );
    link("skills/fifo/execute.sh", Path::new("../../fifo.sh"));
    write_script(repo, ".git/hooks/legacy.sh", LEGACY);
    link(
        "skills/git/execute.sh",
        Path::new("../../.git/hooks/legacy.sh"),
    );
    let (code, report) = json_report(repo, &["check", "."]);
    assert_eq!(code, 1, "{report}");
    let mut reasons: Vec<(String, String)> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap_or("").to_string(),
                f["reason"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    reasons.sort();
    assert_eq!(
        reasons,
        [
            ("skills/chain/execute.sh", "OUTSIDE_ROOT"),
            ("skills/dangling/execute.sh", "SYMLINK_BROKEN"),
            ("skills/fifo/execute.sh", "NOT_A_FILE"),
            ("skills/git/execute.sh", "OUTSIDE_ROOT"),
            ("skills/loop/execute.sh", "SYMLINK_BROKEN"),
        ]
        .map(|(p, r)| (p.to_string(), r.to_string())),
        "{report}"
    );
    assert_eq!(report["summary"]["not_checked_errors"], 5);
    // migrate gives the same answer and writes nothing through any of them.
    let (code, report) = json_report(repo, &["migrate", "."]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(report["summary"]["not_checked"], 5, "{report}");
    assert_eq!(
        std::fs::read(repo.join(".git/hooks/legacy.sh")).expect("read"),
        LEGACY
    );
    assert_eq!(
        std::fs::read(outside.path().join("real.sh")).expect("read"),
        LEGACY
    );
}

#[test]
fn migrate_follows_two_links_to_one_target_once_and_agrees_with_check() {
    let tmp = tempfile::tempdir().expect("tmp");
    let repo = tmp.path();
    git_init(repo);
    write_script(repo, "lib/real.bash", LEGACY);
    for skill in ["a", "b"] {
        std::fs::create_dir_all(repo.join(format!("skills/{skill}"))).expect("mkdir");
        std::os::unix::fs::symlink(
            "../../lib/real.bash",
            repo.join(format!("skills/{skill}/execute.sh")),
        )
        .expect("link");
    }
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-qm", "skills"]);
    let (check_code, _) = check(repo, &["."]);
    assert_eq!(check_code, 1);
    let (code, report) = json_report(repo, &["migrate", "--mode", "comment", "."]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report_paths(&report), ["lib/real.bash"], "{report}");
    assert_eq!(report["files"][0]["status"], "migrated");
    assert_eq!(report["files"][0]["notes"][0]["code"], "SYMLINK_FOLLOWED");
    let migrated = std::fs::read_to_string(repo.join("lib/real.bash")).expect("read");
    assert_eq!(
        migrated.matches("EOF_JSON").count(),
        2,
        "migrated once: {migrated}"
    );
    for skill in ["a", "b"] {
        assert!(
            std::fs::symlink_metadata(repo.join(format!("skills/{skill}/execute.sh")))
                .expect("stat")
                .file_type()
                .is_symlink()
        );
    }
    git(repo, &["commit", "-qam", "migrated"]);
    // check now passes through both links.
    let (code, text) = check(repo, &["."]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("All clear"), "{text}");
    // An oversize target: check fails and migrate fails, for the same files.
    let mut big = LEGACY.to_vec();
    big.extend(std::iter::repeat_n(b'#', 5000));
    write_script(repo, "lib/real.bash", &big);
    let (check_code, text) = check(repo, &["--max-size", "4096", "."]);
    let (code, report) = json_report(
        repo,
        &["migrate", "--allow-dirty", "--max-size", "4096", "."],
    );
    assert_eq!((check_code, code), (1, 1), "{text}\n{report}");
}

#[test]
fn staged_symlink_is_followed_in_the_index_whatever_the_work_tree_holds() {
    let tmp = tempfile::tempdir().expect("tmp");
    let repo = tmp.path();
    git_init(repo);
    write_script(repo, "skills/clean/execute.sh", CLEAN);
    write_script(repo, "lib/real.bash", LEGACY);
    std::fs::create_dir_all(repo.join("skills/linked")).expect("mkdir");
    std::os::unix::fs::symlink("../../lib/real.bash", repo.join("skills/linked/execute.sh"))
        .expect("link");
    std::fs::create_dir_all(repo.join("skills/out")).expect("mkdir");
    std::os::unix::fs::symlink("/etc/passwd", repo.join("skills/out/execute.sh")).expect("link");
    git(repo, &["add", "-A"]);
    // The work tree then holds a FIFO where the link was, and a clean copy of the target.
    std::fs::remove_file(repo.join("skills/linked/execute.sh")).expect("rm");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(repo.join("skills/linked/execute.sh"))
            .status()
            .expect("mkfifo")
            .success()
    );
    write_script(repo, "lib/real.bash", CLEAN);
    let (code, report) = json_report(repo, &["check", "--staged"]);
    assert_eq!(code, 1, "{report}");
    let findings = report["findings"].as_array().expect("findings");
    assert!(
        findings
            .iter()
            .any(|f| f["path"] == "skills/linked/execute.sh" && f["code"] == "SKM001"),
        "the index's target is judged: {report}"
    );
    assert!(
        findings.iter().any(|f| f["path"] == "skills/out/execute.sh"
            && f["reason"] == "OUTSIDE_ROOT"
            && f["message"]
                .as_str()
                .is_some_and(|m| m.contains("/etc/passwd"))),
        "{report}"
    );
    // A staged regular file whose work-tree copy is a FIFO is read from the index.
    write_script(repo, "skills/fifo/execute.sh", LEGACY);
    git(repo, &["add", "skills/fifo/execute.sh"]);
    std::fs::remove_file(repo.join("skills/fifo/execute.sh")).expect("rm");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(repo.join("skills/fifo/execute.sh"))
            .status()
            .expect("mkfifo")
            .success()
    );
    let out = run_bounded(
        skillmod(repo).args(["check", "--staged", "--format", "json"]),
        30,
    );
    let report: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert!(
        report["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .any(|f| f["path"] == "skills/fifo/execute.sh" && f["code"] == "SKM001"),
        "{report}"
    );
}

#[test]
fn outside_git_a_links_root_is_where_the_link_lies_not_where_it_leads() {
    let tmp = tempfile::tempdir().expect("tmp");
    let target = write_script(tmp.path(), "real/legacy.sh", LEGACY);
    std::fs::create_dir_all(tmp.path().join("skill")).expect("mkdir");
    std::os::unix::fs::symlink(&target, tmp.path().join("skill/execute.sh")).expect("link");
    let (code, text) = check(tmp.path(), &["skill"]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("SKM004 OUTSIDE_ROOT"), "{text}");
    // Named from above, the target lies inside the root: judged there.
    let (code, text) = check(tmp.path(), &["."]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("skill/execute.sh:2:1: SKM001"), "{text}");
}

#[test]
fn staged_hostile_links_loop_dangle_or_leave_and_are_never_a_pass() {
    let tmp = tempfile::tempdir().expect("tmp");
    let repo = tmp.path();
    git_init(repo);
    write_script(repo, "skills/clean/execute.sh", CLEAN);
    write_script(repo, "lib/real.bash", LEGACY);
    let link = |from: &str, to: &str| {
        std::fs::create_dir_all(repo.join(from).parent().expect("parent")).expect("mkdir");
        std::os::unix::fs::symlink(to, repo.join(from)).expect("link");
    };
    link("skills/loop/execute.sh", "execute.sh");
    link("skills/dangling/execute.sh", "../../nope.sh");
    link("skills/up/execute.sh", "../../../../../../etc/passwd");
    link("skills/git/execute.sh", "../../.git/config");
    // Through a staged folder link, resolved as a checkout would: lib/real.bash.
    link("skills/via/l", "../../lib");
    link("skills/via/execute.sh", "l/real.bash");
    git(repo, &["add", "-A"]);
    let (code, report) = json_report(repo, &["check", "--staged"]);
    assert_eq!(code, 1, "{report}");
    let mut seen: Vec<(String, String)> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            let what = f["reason"].as_str().or(f["code"].as_str()).unwrap_or("");
            (
                f["path"].as_str().unwrap_or("").to_string(),
                what.to_string(),
            )
        })
        .collect();
    seen.sort();
    assert_eq!(
        seen,
        [
            ("skills/dangling/execute.sh", "SYMLINK_BROKEN"),
            ("skills/git/execute.sh", "OUTSIDE_ROOT"),
            ("skills/loop/execute.sh", "SYMLINK_BROKEN"),
            ("skills/up/execute.sh", "OUTSIDE_ROOT"),
            ("skills/via/execute.sh", "SKM001"),
        ]
        .map(|(p, r)| (p.to_string(), r.to_string())),
        "{report}"
    );
}

#[test]
fn migrate_never_writes_into_git_or_state_folders_through_a_symlinked_folder() {
    let tmp = tempfile::tempdir().expect("tmp");
    let repo = tmp.path();
    git_init(repo);
    write_script(repo, "execute.sh", b"#!/bin/bash\necho hi\n");
    let hooks = repo.join(".git/hooks");
    std::fs::create_dir_all(&hooks).expect("hooks");
    std::fs::write(hooks.join("pre-commit"), b"#!/bin/bash\necho SUCCESS\n").expect("hook");
    std::fs::create_dir_all(repo.join("skills")).expect("skills");
    std::os::unix::fs::symlink("../.git/hooks", repo.join("skills/h")).expect("link");
    let before = std::fs::read(hooks.join("pre-commit")).expect("hook");
    let out = run(skillmod(repo).args([
        "migrate",
        "--force",
        "--no-backup",
        "--skill-path",
        "skills/h/pre-commit",
    ]));
    assert_ne!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("OUTSIDE_ROOT"), "{}", stderr(&out));
    assert_eq!(
        std::fs::read(hooks.join("pre-commit")).expect("hook"),
        before
    );
    assert!(
        !hooks.join("skillmod-runtime.sh").exists(),
        "no runtime in .git"
    );
}

#[test]
fn an_oversize_script_the_hooks_name_is_an_error_beside_a_clean_one() {
    // The hooks name every staged file and `--force-select` picks the scripts among them: one
    // padded past the limit is named, so it fails the commit as a named file does, even with a
    // clean script staged beside it (the hostile trial's commit passed: it was only a warning).
    let tmp = tempfile::tempdir().expect("tmp");
    let repo = tmp.path();
    git_init(repo);
    write_skill_md(repo, "skills/x");
    write_script(repo, "skills/x/scripts/clean.sh", CLEAN);
    let mut big = LEGACY.to_vec();
    big.extend(std::iter::repeat_n(b'#', 5000));
    write_script(repo, "skills/x/scripts/run.sh", &big);
    let names = [
        "--max-size",
        "4096",
        "--force-select",
        "--",
        "skills/x/SKILL.md",
        "skills/x/scripts/clean.sh",
        "skills/x/scripts/run.sh",
    ];
    let (code, text) = check(repo, &names);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("skills/x/scripts/run.sh: SKM004 FILE_TOO_LARGE"),
        "{text}"
    );
    let mut migrate = vec!["migrate", "--quiet", "--allow-dirty"];
    migrate.extend(names);
    let out = run(skillmod(repo).args(&migrate));
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("FILE_TOO_LARGE") || stdout(&out).contains("FILE_TOO_LARGE"),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
}

#[test]
fn a_named_link_out_of_the_root_is_an_error_with_force_select_too() {
    // The hook's list picks a script in a skill folder that is a symlink to a file outside the
    // repository: it is placed where it stands, so it is taken, and judged as a link out of the
    // root (it was dropped without a word).
    let outside = tempfile::tempdir().expect("outside");
    std::fs::write(outside.path().join("run.sh"), LEGACY).expect("outside script");
    let tmp = tempfile::tempdir().expect("tmp");
    let repo = tmp.path();
    git_init(repo);
    std::fs::create_dir_all(repo.join("skills/x/scripts")).expect("mkdir");
    write_skill_md(repo, "skills/x");
    write_script(repo, "skills/x/scripts/clean.sh", CLEAN);
    std::os::unix::fs::symlink(
        outside.path().join("run.sh"),
        repo.join("skills/x/scripts/run.sh"),
    )
    .expect("link");
    let (code, text) = check(
        repo,
        &[
            "--force-select",
            "--",
            "skills/x/scripts/clean.sh",
            "skills/x/scripts/run.sh",
        ],
    );
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("skills/x/scripts/run.sh: SKM004 OUTSIDE_ROOT"),
        "{text}"
    );
}

#[test]
fn a_file_named_dash_is_a_file_for_the_hooks_not_stdin() {
    let tmp = tempfile::tempdir().expect("tmp");
    // A skill at the root (SKILL.md beside it), so the hook's selection takes the script.
    std::fs::write(
        tmp.path().join("SKILL.md"),
        b"---\nname: x\ndescription: y\n---\n",
    )
    .expect("skill");
    write_script(tmp.path(), "-", b"#!/bin/bash\necho SUCCESS\n");
    // What the check hook runs for a staged file named `-`, with nothing on stdin.
    let out = run(skillmod(tmp.path()).args(["check", "--force-select", "--", "-"]));
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(stdout(&out).contains("SKM001"), "{}", stdout(&out));
    // After `--`, `-` is the file too (hostile round 3: it read an empty stdin, "All clear").
    let out = run(skillmod(tmp.path()).args(["check", "--no-cache", "--", "-"]));
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(stdout(&out).contains("SKM001"), "{}", stdout(&out));
    // Without `--`, `-` alone is stdin, as `check -` is documented.
    let out = run(skillmod(tmp.path()).args(["check", "--no-cache", "-"]));
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}

#[test]
fn a_repositorys_settings_cannot_ignore_a_foreign_runtime() {
    let tmp = tempfile::tempdir().expect("tmp");
    let repo = tmp.path();
    write_script(repo, "s/execute.sh", b"#!/bin/bash\necho SUCCESS\n");
    let out = run(skillmod(repo).args(["migrate", "--no-backup", "s"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    std::fs::write(
        repo.join("s/skillmod-runtime.sh"),
        b"__skm_rt=3; __skm_rec() { echo SUCCESS; }\n",
    )
    .expect("plant");
    std::fs::write(repo.join("skillmod.toml"), b"ignore = [\"SKM007\"]\n").expect("settings");
    let (code, report) = json_report(repo, &["check", "--no-cache", "s"]);
    assert_eq!(code, 1, "{report}");
    assert!(report.to_string().contains("RUNTIME_FOREIGN"), "{report}");
}

#[test]
fn a_symlink_to_an_oversize_script_is_called_a_symlink() {
    let tmp = tempfile::tempdir().expect("tmp");
    git_init(tmp.path());
    let mut big = b"#!/bin/bash\necho SUCCESS\n".to_vec();
    big.resize(2 << 20, b'#');
    write_script(tmp.path(), "lib/real.bash", &big);
    std::fs::create_dir_all(tmp.path().join("s")).expect("s");
    std::os::unix::fs::symlink("../lib/real.bash", tmp.path().join("s/execute.sh")).expect("link");
    let out = run(skillmod(tmp.path()).args(["check", "--no-cache", "s/execute.sh"]));
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("is a symbolic link to") && stdout(&out).contains("FILE_TOO_LARGE"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_committed_gitignore_cannot_hide_a_tracked_skill_script() {
    let tmp = tempfile::tempdir().expect("tmp");
    let repo = tmp.path();
    git_init(repo);
    std::fs::create_dir_all(repo.join("skills/x")).expect("skill");
    std::fs::write(
        repo.join("skills/x/SKILL.md"),
        b"---\nname: x\ndescription: y\n---\n",
    )
    .expect("SKILL.md");
    write_script(repo, "skills/x/execute.sh", b"#!/bin/bash\necho SUCCESS\n");
    write_script(
        repo,
        "skills/x/scripts/run.sh",
        b"#!/bin/bash\necho \"Created: a\"\n",
    );
    write_script(repo, "execute.sh", b"#!/bin/bash\necho hi\n");
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-qm", "skills"]);
    std::fs::write(repo.join(".gitignore"), b"skills/\nbuild/\n").expect("gitignore");
    std::fs::write(repo.join(".ignore"), b"skills/\n").expect("ignore");
    // An ignored file git does not track stays ignored.
    write_script(repo, "build/execute.sh", b"#!/bin/bash\necho SUCCESS\n");
    git(repo, &["add", ".gitignore", ".ignore"]);
    git(repo, &["commit", "-qm", "hide them"]);
    let (code, report) = json_report(repo, &["check", "--no-cache", "."]);
    assert_eq!(code, 1, "{report}");
    let mut paths: Vec<&str> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter_map(|f| f["path"].as_str())
        .collect();
    paths.dedup();
    assert_eq!(
        paths,
        ["skills/x/execute.sh", "skills/x/scripts/run.sh"],
        "{report}"
    );
}

#[test]
fn a_not_clear_summary_counts_its_hidden_notes_too() {
    // A hostile review: "Not clear" left out the SKM010 notes the other summaries count.
    let tmp = repo_with_oversize_execute();
    write_script(
        tmp.path(),
        "skills/clean/note.sh",
        b"#!/bin/bash\nmsg=\"Created: x\"\n",
    );
    let (code, text) = check(tmp.path(), &["--include", "*.sh", "."]);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("Not clear: 1 script could not be checked")
            && text.contains("; 1 SKM010 note (shown with -v)"),
        "{text}"
    );
}

#[test]
fn an_oversize_library_is_not_clean_wherever_it_lies_and_whatever_its_name() {
    // A library outside the skill folder, over --max-size, was dropped from the run without a
    // word: "All clear" while bash runs its `echo SUCCESS` (hostile review). `lib.inc` beside the
    // script was "not a shell script … no selected script sources it" (hostile review hx23).
    for (library, sourced) in [
        ("lib/big.sh", "../../lib/big.sh"),
        ("skills/s/lib.inc", "lib.inc"),
    ] {
        let tmp = tempfile::tempdir().expect("tmp");
        write_skill_md(tmp.path(), "skills/s");
        let script = format!("#!/bin/bash\n. \"$(dirname \"$0\")/{sourced}\"\n");
        write_script(tmp.path(), "skills/s/execute.sh", script.as_bytes());
        let mut big = b"echo SUCCESS\n".to_vec();
        big.extend(std::iter::repeat_n(b'#', 2000));
        big.push(b'\n');
        write_script(tmp.path(), library, &big);
        let out =
            run(skillmod(tmp.path()).args(["check", "--no-cache", "--max-size", "1000", "."]));
        let said = stdout(&out);
        assert!(
            said.contains(&format!("{library}: SKM004 FILE_TOO_LARGE")),
            "{said}"
        );
        assert!(!said.contains("All clear"), "{said}");
        let out =
            run(skillmod(tmp.path()).args(["migrate", "--dry-run", "--max-size", "1000", "."]));
        assert!(
            stderr(&out).contains("could not be checked"),
            "{}",
            stderr(&out)
        );
    }
}
