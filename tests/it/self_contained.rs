//! A migrated skill is still a skill (issue 29): each skill folder carries its runtime, runs
//! copied alone from anywhere, fails with a document when its runtime is gone, and trusts only
//! runtimes that are skillmod's byte for byte; a project migrated by 0.2.0 converts in one run.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::*;
use skillmod::contract::{ParseOptions, Protocol, Schema, check_output};

/// The stdout as `skillmod validate --strict` reads it: one document, or a panic saying why not.
fn strict(stdout: &str, what: &str) -> serde_json::Value {
    let schema = Schema::builtin("skill-output-v1").expect("schema");
    let options = ParseOptions {
        strict: true,
        ..ParseOptions::new(Protocol::Json)
    };
    let outcome = check_output(stdout, &options, &schema);
    assert!(outcome.valid, "{what}: {:?}\n{stdout}", outcome.errors);
    outcome.value.expect("document")
}

const SKILL_MD: &str = "---\nname: demo\ndescription: a demo skill\n---\n";
const BASH_SKILL: &[u8] =
    b"#!/bin/bash\nset -eu\ntouch out.txt\necho \"Created: out.txt\"\necho progress >&2\necho SUCCESS\n";
const SH_SKILL: &[u8] = b"#!/bin/sh\necho \"Confidence: 0.8\"\necho SUCCESS\n";

/// A repository with the four layouts: (the script, the skill folder it belongs to, where in
/// that folder its runtime goes: the skill's `scripts/` when it has one).
fn four_layouts(root: &Path) -> Vec<(PathBuf, PathBuf, &'static str)> {
    let mut out = Vec::new();
    for (skill, script, text, runtime) in [
        (
            "skills/one",
            "execute.sh",
            BASH_SKILL,
            "skillmod-runtime.sh",
        ),
        (
            "skills/two",
            "scripts/run.sh",
            SH_SKILL,
            "scripts/skillmod-runtime.sh",
        ),
        (
            "plugins/P/skills/three",
            "scripts/deep/go.sh",
            BASH_SKILL,
            "scripts/skillmod-runtime.sh",
        ),
    ] {
        write_skill_md(root, skill);
        out.push((
            write_script(root, &format!("{skill}/{script}"), text),
            root.join(skill),
            runtime,
        ));
    }
    out.push((
        write_script(root, "tools/x.sh", SH_SKILL),
        root.join("tools"),
        "skillmod-runtime.sh",
    ));
    out
}

#[test]
fn every_layout_copied_alone_runs_from_anywhere_in_every_way() {
    let tmp = tempfile::tempdir().expect("tmp");
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(&repo).expect("repo");
    git_init(&repo);
    let layouts = four_layouts(&repo);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-qm", "skills"]);
    let (code, report) = json_report(&repo, &["migrate", "--no-backup", "--include", "*.sh", "."]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["summary"]["migrated"], 4, "{report}");
    let scratch = tempfile::tempdir().expect("scratch");
    let installed = tempfile::tempdir().expect("installed");
    for (i, (script, skill, runtime)) in layouts.iter().enumerate() {
        // Each skill folder holds its runtime; nothing at the repository root.
        assert!(skill.join(runtime).is_file(), "{}", skill.display());
        let copy = installed.path().join(format!("skill{i}"));
        copy_tree(skill, &copy);
        // A build that copies SKILL.md and scripts/ alone (a dist/ or a plugin: a new user's
        // trial) keeps the runtime of a skill that has scripts/.
        if runtime.starts_with("scripts/") {
            let built = installed.path().join(format!("built{i}"));
            copy_tree(&skill.join("scripts"), &built.join("scripts"));
            std::fs::copy(skill.join("SKILL.md"), built.join("SKILL.md")).expect("copy");
            let inside = script.strip_prefix(skill).expect("inside");
            let out = run(Command::new("bash")
                .arg(built.join(inside))
                .current_dir(scratch.path()));
            assert_eq!(out.status.code(), Some(0), "built: {}", stderr(&out));
            assert_eq!(strict(&stdout(&out), "built")["success"], true);
        }
        let inside = script.strip_prefix(skill).expect("inside");
        let copied = copy.join(inside);
        set_mode(&copied, 0o755);
        std::os::unix::fs::symlink(&copy, installed.path().join(format!("link{i}")))
            .expect("folder link");
        std::os::unix::fs::symlink(&copied, installed.path().join(format!("tool{i}")))
            .expect("script link");
        let through_folder = installed.path().join(format!("link{i}")).join(inside);
        let through_script = installed.path().join(format!("tool{i}"));
        let mut ways: Vec<Command> = Vec::new();
        for shell in ["bash", "sh"] {
            let mut c = Command::new(shell);
            c.arg(&copied);
            ways.push(c);
        }
        ways.push(Command::new(&copied));
        ways.push(Command::new(&through_folder));
        ways.push(Command::new(&through_script));
        for mut way in ways {
            let what = format!("{way:?}");
            let out = run(way.current_dir(scratch.path()));
            assert_eq!(out.status.code(), Some(0), "{what}: {}", stderr(&out));
            let doc = strict(&stdout(&out), &what);
            assert_eq!(doc["success"], true, "{what}: {doc}");
        }
    }
    assert!(!repo.join("skillmod-runtime.sh").exists());
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir").flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

#[test]
fn a_skill_moved_deeper_keeps_running_and_migrate_fixes_nothing_it_need_not() {
    let tmp = tempfile::tempdir().expect("tmp");
    let layouts = four_layouts(tmp.path());
    json_report(
        tmp.path(),
        &["migrate", "--no-backup", "--include", "*.sh", "."],
    );
    let deeper = tmp.path().join("more/levels/down");
    std::fs::create_dir_all(&deeper).expect("mkdir");
    std::fs::rename(&layouts[1].1, deeper.join("two")).expect("move");
    let out = run(Command::new("sh")
        .arg(deeper.join("two/scripts/run.sh"))
        .current_dir(tmp.path()));
    assert_eq!(strict(&stdout(&out), "moved")["confidence"], 0.8);
    let (code, report) = json_report(tmp.path(), &["check", "--include", "*.sh", "."]);
    assert_eq!(code, 0, "{report}");
}

#[test]
fn the_text_of_a_runtime_anywhere_but_line_two_hides_nothing_and_writes_nothing_outside() {
    let tmp = tempfile::tempdir().expect("tmp");
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(&repo).expect("repo");
    git_init(&repo);
    let source = "command . \"$(dirname -- \"$0\")/../../../skillmod-runtime.sh\" || { echo \"run: skillmod migrate $0\" >&2; exit 70; }";
    // And runtime 3's own line, as skillmod writes it, quoted in a comment.
    let sample = tempfile::tempdir().expect("sample");
    let migrated = write_script(sample.path(), "s/execute.sh", SH_SKILL);
    json_report(sample.path(), &["migrate", "--no-backup", "s"]);
    let v3 = std::fs::read_to_string(&migrated).expect("migrated");
    let v3 = v3.lines().nth(1).expect("line 2").to_string();
    let text = format!(
        "#!/bin/sh\n# {source}\necho \"SUCCESS\"\n# {v3}\n# >>> skillmod-runtime 2 inline\necho \"Created: x\"\n# <<< skillmod-runtime\n"
    );
    write_script(&repo, "skills/x/execute.sh", text.as_bytes());
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-qm", "x"]);
    let (code, report) = json_report(&repo, &["check", "."]);
    assert_eq!(code, 1, "the live lines are found: {report}");
    assert_eq!(
        report["findings"].as_array().map(Vec::len),
        Some(2),
        "{report}"
    );
    let (code, report) = json_report(&repo, &["migrate", "--no-backup", "."]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["files"][0]["status"], "migrated", "{report}");
    assert!(!tmp.path().join("skillmod-runtime.sh").exists());
    assert!(!tmp.path().join(".skillmod").exists());
    let out = run(Command::new("sh")
        .arg(repo.join("skills/x/execute.sh"))
        .current_dir(tmp.path()));
    assert_eq!(
        strict(&stdout(&out), "migrated")["deliverables"],
        serde_json::json!(["x"])
    );
}

#[test]
fn a_planted_or_edited_runtime_is_an_error_and_no_script_is_pointed_at_it() {
    let tmp = tempfile::tempdir().expect("tmp");
    write_skill_md(tmp.path(), "s");
    let script = write_script(tmp.path(), "s/execute.sh", SH_SKILL);
    // Planted: claims a future version.
    let planted = b"# skillmod-runtime 9 for template skill-output-v1: written by skillmod, do not edit.\n__skm_rt=3\nprintf '{\"success\":true}\\n'\n";
    std::fs::write(tmp.path().join("s/skillmod-runtime.sh"), planted).expect("plant");
    let (code, report) = json_report(tmp.path(), &["migrate", "--no-backup", "s"]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(report["files"][0]["status"], "failed", "{report}");
    assert_eq!(
        report["files"][0]["errors"][0]["code"], "RUNTIME_FOREIGN",
        "{report}"
    );
    assert_eq!(
        std::fs::read(&script).expect("read"),
        SH_SKILL,
        "no script pointed at it"
    );
    assert_eq!(
        std::fs::read(tmp.path().join("s/skillmod-runtime.sh")).expect("read"),
        planted
    );
    // Asked for, it is replaced with a backup; then the skill works.
    let (code, report) = json_report(tmp.path(), &["migrate", "--replace-runtime", "s"]);
    assert_eq!(code, 0, "{report}");
    assert!(report["runtime_files"][0]["backup"].is_string(), "{report}");
    // Edited afterwards, keeping its version line: check fails, so does the next migrate.
    let runtime = tmp.path().join("s/skillmod-runtime.sh");
    let good = std::fs::read_to_string(&runtime).expect("runtime");
    let edited = good.replacen("__skm_ok=false", "__skm_ok=true", 1);
    assert_ne!(edited, good);
    std::fs::write(&runtime, &edited).expect("edit");
    let (code, report) = json_report(tmp.path(), &["check", "s"]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(
        report["findings"][0]["reason"], "RUNTIME_FOREIGN",
        "{report}"
    );
    // CRLF line ends are the same runtime.
    std::fs::write(&runtime, good.replace('\n', "\r\n")).expect("crlf");
    let (code, report) = json_report(tmp.path(), &["check", "s"]);
    assert_eq!(code, 0, "{report}");
}

#[test]
fn a_project_migrated_by_0_2_0_becomes_self_contained_in_one_run_and_restore_brings_it_back() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path();
    git_init(root);
    let v2 = fixtures().join("upgrade/v2");
    std::fs::copy(
        v2.join("skillmod-runtime.sh"),
        root.join("skillmod-runtime.sh"),
    )
    .expect("v2");
    std::fs::create_dir_all(root.join("skills/a/scripts")).expect("mkdir");
    write_skill_md(root, "skills/a");
    // The script as 0.2.0 wrote it, three folders below the root.
    let old = std::fs::read_to_string(v2.join("sourced-skill-output-v1.sh"))
        .expect("script")
        .replace("/../skillmod-runtime.sh", "/../../../skillmod-runtime.sh");
    let script = write_script(root, "skills/a/scripts/run.sh", old.as_bytes());
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "0.2.0"]);
    let (code, report) = json_report(root, &["check", "--include", "*.sh", "."]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(
        report["warnings"][0]["reason"], "RUNTIME_OUTDATED",
        "{report}"
    );
    let (code, report) = json_report(root, &["migrate", "--include", "*.sh", "."]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["files"][0]["status"], "migrated", "{report}");
    assert!(root.join("skills/a/scripts/skillmod-runtime.sh").is_file());
    assert!(!root.join("skillmod-runtime.sh").exists(), "{report}");
    let copy = tempfile::tempdir().expect("copy");
    copy_tree(&root.join("skills/a"), &copy.path().join("a"));
    let out = run(Command::new("bash").arg(copy.path().join("a/scripts/run.sh")));
    assert_eq!(
        strict(&stdout(&out), "copied")["deliverables"],
        serde_json::json!(["a.txt"])
    );
    // Until the new runtime is committed, check says the commit would leave it out.
    let (code, report) = json_report(root, &["check", "--include", "*.sh", "."]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(
        report["findings"][0]["reason"], "RUNTIME_UNTRACKED",
        "{report}"
    );
    // Its fix is the `git add` that stages the runtime (migrate has nothing left to do).
    let fix = report["findings"][0]["fix"].as_str().expect("fix");
    assert!(fix.starts_with("git add skills/a/"), "{fix}");
    git(root, &["add", "-A"]);
    let (code, report) = json_report(root, &["check", "--include", "*.sh", "."]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["warnings"], serde_json::json!([]), "{report}");
    // restore brings 0.2.0's layout back, byte for byte.
    let out = run(skillmod(root).args(["restore"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&script).expect("read"), old);
    assert_eq!(
        std::fs::read(root.join("skillmod-runtime.sh")).expect("v2 back"),
        std::fs::read(v2.join("skillmod-runtime.sh")).expect("v2")
    );
    assert!(!root.join("skills/a/scripts/skillmod-runtime.sh").exists());
}

#[test]
fn a_file_named_through_a_symlinked_folder_out_of_the_repository_is_refused_and_nothing_is_written_there()
 {
    let tmp = tempfile::tempdir().expect("tmp");
    let repo = tmp.path().join("repo");
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(&repo).expect("repo");
    git_init(&repo);
    let target = write_script(&outside, "execute.sh", SH_SKILL);
    std::os::unix::fs::symlink(&outside, repo.join("linked")).expect("link");
    let (code, report) = json_report(
        &repo,
        &[
            "migrate",
            "--no-backup",
            "--allow-dirty",
            "linked/execute.sh",
        ],
    );
    assert_eq!(code, 1, "{report}");
    assert_eq!(
        report["files"][0]["errors"][0]["code"], "OUTSIDE_ROOT",
        "{report}"
    );
    assert_eq!(std::fs::read(&target).expect("read"), SH_SKILL);
    let written: Vec<_> = std::fs::read_dir(&outside).expect("ls").flatten().collect();
    assert_eq!(written.len(), 1, "only the script: {written:?}");
}

#[test]
fn an_installed_skill_outside_git_keeps_state_out_of_the_skill_and_the_working_folder() {
    let home = tempfile::tempdir().expect("home");
    let skill = home.path().join(".claude/skills/demo");
    std::fs::create_dir_all(skill.join("scripts")).expect("mkdir");
    std::fs::write(skill.join("SKILL.md"), SKILL_MD).expect("skill");
    write_script(&skill, "scripts/run.sh", BASH_SKILL);
    let state = home.path().join("state");
    let cache = home.path().join("cache");
    for command in [
        vec!["migrate", "--include", "*.sh", ".claude/skills/demo"],
        vec!["check", "--include", "*.sh", ".claude/skills/demo"],
    ] {
        let out = run(skillmod(home.path())
            .env("HOME", home.path())
            .env("XDG_STATE_HOME", &state)
            .env("XDG_CACHE_HOME", &cache)
            .args(&command));
        assert!(
            out.status.code().is_some_and(|c| c <= 1),
            "{}",
            stderr(&out)
        );
    }
    assert!(
        !home.path().join(".skillmod").exists(),
        "nothing in the working folder"
    );
    assert!(!home.path().join("skillmod-runtime.sh").exists());
    assert!(
        !skill.join(".skillmod").exists(),
        "nothing ships with the skill"
    );
    assert!(skill.join("scripts/skillmod-runtime.sh").is_file());
    let runs = std::fs::read_dir(state.join("skillmod/skills"))
        .expect("state folder")
        .count();
    assert_eq!(runs, 1);
    assert!(
        cache.join("skillmod/skills").is_dir(),
        "check's cache in the user's cache folder"
    );
    // restore with the path finds that run.
    let out = run(skillmod(home.path())
        .env("HOME", home.path())
        .env("XDG_STATE_HOME", &state)
        .args(["restore", ".claude/skills/demo"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        std::fs::read(skill.join("scripts/run.sh")).expect("read"),
        BASH_SKILL
    );
    // Asked again, it says where the runs are: the user's state folder, not the skill's.
    let out = run(skillmod(home.path())
        .env("HOME", home.path())
        .env("XDG_STATE_HOME", &state)
        .args(["restore", ".claude/skills/demo"]));
    let said = stderr(&out);
    assert!(said.contains("NO_BACKUPS"), "{said}");
    assert!(
        said.contains(&*state.join("skillmod/skills").to_string_lossy()),
        "{said}"
    );
    assert!(!said.contains("demo/.skillmod"), "{said}");
}

#[test]
fn check_staged_reports_a_migrated_script_whose_runtime_is_not_in_the_commit() {
    let tmp = tempfile::tempdir().expect("tmp");
    let repo = tmp.path();
    git_init(repo);
    write_skill_md(repo, "s");
    write_script(repo, "s/execute.sh", SH_SKILL);
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-qm", "legacy"]);
    json_report(repo, &["migrate", "--no-backup", "s"]);
    // In the work tree, the runtime migrate marked intent-to-add is not yet in git.
    let (code, report) = json_report(repo, &["check", "s"]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(
        report["findings"][0]["reason"], "RUNTIME_UNTRACKED",
        "{report}"
    );
    // The summary counts the script with the error (a new user read "in 0 of 1 script").
    assert_eq!(report["summary"]["files_with_findings"], 1, "{report}");
    let text = stdout(&run(skillmod(repo).args(["check", "s"])));
    assert!(
        text.contains("Found 1 error in 1 of 1 script checked"),
        "{text}"
    );
    // The script is staged, its new runtime is not (intent-to-add only).
    git(repo, &["add", "s/execute.sh"]);
    let (code, report) = json_report(repo, &["check", "--staged"]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(
        report["findings"][0]["reason"], "RUNTIME_MISSING",
        "{report}"
    );
    assert!(
        report["findings"][0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("not staged")),
        "{report}"
    );
    git(repo, &["add", "s/skillmod-runtime.sh"]);
    let (code, report) = json_report(repo, &["check", "--staged"]);
    assert_eq!(code, 0, "{report}");
    let (code, report) = json_report(repo, &["check", "s"]);
    assert_eq!(code, 0, "{report}");
}

#[test]
fn reports_say_how_many_runtime_files_their_lines_and_that_they_are_identical() {
    let tmp = tempfile::tempdir().expect("tmp");
    for skill in ["a", "b"] {
        write_skill_md(tmp.path(), skill);
        write_script(tmp.path(), &format!("{skill}/execute.sh"), SH_SKILL);
    }
    let (_, report) = json_report(tmp.path(), &["migrate", "--dry-run", "."]);
    let lines = report["runtime_files"][0]["lines"].as_u64().expect("lines");
    assert!(lines > 100, "{report}");
    assert_eq!(
        report["runtime_summary"],
        serde_json::json!({"written": 2, "lines": 2 * lines, "identical": true})
    );
    let out = run(skillmod(tmp.path()).args(["migrate", "--no-backup", "."]));
    assert!(
        stderr(&out).contains(&format!(
            "runtime files created: 2 identical copies (version 3, {lines} lines each, {} in all)",
            2 * lines
        )),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_warm_check_knows_each_unchanged_runtime_from_the_cache_and_sees_an_edit() {
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(tmp.path(), "s/execute.sh", SH_SKILL);
    json_report(tmp.path(), &["migrate", "--no-backup", "s"]);
    let runtime = tmp.path().join("s/skillmod-runtime.sh");
    // Settled, so its place (path and stat) can stand for its bytes.
    std::thread::sleep(std::time::Duration::from_millis(2500));
    let (code, first) = json_report(tmp.path(), &["check", "s"]);
    assert_eq!(code, 0, "{first}");
    let cache = read_cache(&tmp.path().join("s/.skillmod/cache/check.bin"));
    assert_eq!(
        cache.runtimes.values().collect::<Vec<_>>(),
        [&3],
        "{:?}",
        cache.runtimes
    );
    let (_, second) = json_report(tmp.path(), &["check", "s"]);
    assert_eq!(first, second);
    // An edit changes the file's stat: the cache cannot vouch for it.
    let text = std::fs::read_to_string(&runtime).expect("runtime");
    std::fs::write(
        &runtime,
        text.replacen("__skm_ok=false", "__skm_ok=true", 1),
    )
    .expect("edit");
    let (code, edited) = json_report(tmp.path(), &["check", "s"]);
    assert_eq!(code, 1, "{edited}");
    assert_eq!(
        edited["findings"][0]["reason"], "RUNTIME_FOREIGN",
        "{edited}"
    );
}

#[test]
fn outside_git_restore_finds_the_run_by_the_paths_and_the_summary_names_the_command() {
    let tmp = tempfile::tempdir().expect("tmp");
    for skill in ["a", "b"] {
        write_script(tmp.path(), &format!("{skill}/execute.sh"), SH_SKILL);
    }
    // migrate . from the parent; restore one folder of it.
    let out = run(skillmod(tmp.path()).args(["migrate", "."]));
    assert!(
        stderr(&out).contains("(undo with `skillmod restore`)"),
        "{}",
        stderr(&out)
    );
    let out = run(skillmod(tmp.path()).args(["restore", "a"]));
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(
        std::fs::read(tmp.path().join("a/execute.sh")).expect("a"),
        SH_SKILL
    );
    assert!(
        !tmp.path().join("a/skillmod-runtime.sh").exists(),
        "a's runtime goes with it"
    );
    assert!(
        tmp.path().join("b/skillmod-runtime.sh").exists(),
        "b stays migrated"
    );
    // migrate a names its folder; the summary says how to undo it, and that works from inside.
    let out = run(skillmod(tmp.path()).args(["migrate", "a"]));
    assert!(
        stderr(&out).contains("backups: a/.skillmod/backups/")
            && stderr(&out).contains("(undo with `skillmod restore a`)"),
        "{}",
        stderr(&out)
    );
    let inside = tmp.path().join("a/x");
    std::fs::create_dir_all(&inside).expect("mkdir");
    let out = run(skillmod(&inside).args(["restore", ".."]));
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(
        std::fs::read(tmp.path().join("a/execute.sh")).expect("a"),
        SH_SKILL
    );
}

/// Two skill folders named outside git are two projects: the undo command migrate prints runs as
/// written (it gave one `restore` naming both, which refuses them as MULTIPLE_ROOTS; a new
/// user's trial).
#[test]
fn the_undo_command_for_two_skill_folders_outside_git_runs_as_printed() {
    let tmp = tempfile::tempdir().expect("tmp");
    for skill in ["one", "two"] {
        write_skill_md(tmp.path(), skill);
        write_script(tmp.path(), &format!("{skill}/run.sh"), SH_SKILL);
    }
    let out = run(skillmod(tmp.path()).args(["migrate", "one", "two"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stderr(&out);
    let command = text
        .split("(undo with `")
        .nth(1)
        .and_then(|rest| rest.split('`').next())
        .unwrap_or_else(|| panic!("no undo command: {text}"));
    assert_eq!(command, "skillmod restore one; skillmod restore two");
    for part in command.split("; ") {
        let words: Vec<&str> = part.split(' ').skip(1).collect();
        let out = run(skillmod(tmp.path()).args(&words));
        assert_eq!(out.status.code(), Some(0), "{part}: {}", stderr(&out));
    }
    for skill in ["one", "two"] {
        let path = tmp.path().join(format!("{skill}/run.sh"));
        assert_eq!(std::fs::read(path).expect("script"), SH_SKILL, "{skill}");
    }
}

/// The npm package `skills` (what `npx skills add` runs), installed by `.ci/run`; without it
/// (and outside CI) the test says so and checks nothing.
fn skills_cli() -> Option<PathBuf> {
    match std::env::var_os("SKILLMOD_SKILLS_CLI") {
        Some(path) => Some(PathBuf::from(path)),
        None if std::env::var_os("CI").is_none() => {
            eprintln!("SKILLMOD_SKILLS_CLI is not set: the `skills add` install is not tried");
            None
        }
        None => panic!("CI must install the npm package skills and set SKILLMOD_SKILLS_CLI"),
    }
}

#[test]
fn skills_installed_with_npx_skills_add_run_in_the_project_they_were_copied_to() {
    let Some(cli) = skills_cli() else {
        return;
    };
    let tmp = tempfile::tempdir().expect("tmp");
    let repo = tmp.path().join("repo");
    for (name, script, text) in [
        ("one", "execute.sh", BASH_SKILL),
        ("two", "scripts/run.sh", SH_SKILL),
        ("three", "scripts/deep/go.sh", BASH_SKILL),
    ] {
        let folder = if name == "three" {
            format!("plugins/P/skills/{name}")
        } else {
            format!("skills/{name}")
        };
        std::fs::create_dir_all(repo.join(&folder)).expect("mkdir");
        std::fs::write(
            repo.join(&folder).join("SKILL.md"),
            format!("---\nname: {name}\ndescription: the {name} skill\n---\n"),
        )
        .expect("SKILL.md");
        write_script(&repo, &format!("{folder}/{script}"), text);
    }
    git_init(&repo);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-qm", "skills"]);
    let (code, report) = json_report(&repo, &["migrate", "--include", "*.sh", "."]);
    assert_eq!(code, 0, "{report}");
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-qm", "migrated"]);
    let project = tmp.path().join("project");
    std::fs::create_dir_all(&project).expect("project");
    let elsewhere = tempfile::tempdir().expect("cwd");
    for (name, script, runtime) in [
        ("one", "execute.sh", "skillmod-runtime.sh"),
        ("two", "scripts/run.sh", "scripts/skillmod-runtime.sh"),
        ("three", "scripts/deep/go.sh", "scripts/skillmod-runtime.sh"),
    ] {
        let out = run(Command::new(&cli)
            .args(["add"])
            .arg(&repo)
            // --full-depth: the plugin's skill lies below a `skills/` folder the CLI reads first.
            .args([
                "--skill",
                name,
                "-a",
                "claude-code",
                "-y",
                "--copy",
                "--full-depth",
            ])
            .env("DISABLE_TELEMETRY", "1")
            .env("DO_NOT_TRACK", "1")
            .current_dir(&project));
        assert!(
            out.status.success(),
            "skills add {name}: {}{}",
            stdout(&out),
            stderr(&out)
        );
        let installed = project.join(".claude/skills").join(name);
        assert!(installed.join(runtime).is_file(), "{name}: runtime copied");
        let out = run(Command::new("bash")
            .arg(installed.join(script))
            .current_dir(elsewhere.path()));
        assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
        assert_eq!(strict(&stdout(&out), name)["success"], true, "{name}");
    }
}

#[test]
fn a_dry_run_from_any_folder_names_paths_from_the_project_root_for_git_apply() {
    let tmp = tempfile::tempdir().expect("tmp");
    let repo = tmp.path();
    git_init(repo);
    four_layouts(repo);
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-qm", "skills"]);
    let mut diffs = Vec::new();
    for folder in [
        repo.to_path_buf(),
        repo.join("skills"),
        repo.join("skills/two/scripts"),
    ] {
        let named = if folder == repo {
            ".".to_string()
        } else {
            repo.display().to_string()
        };
        let out = run(skillmod(&folder).args([
            "migrate",
            "--dry-run",
            "--color",
            "never",
            "--include",
            "*.sh",
            &named,
        ]));
        diffs.push(stdout(&out));
    }
    assert!(
        diffs[0].contains("+++ b/skills/two/scripts/run.sh"),
        "{}",
        diffs[0]
    );
    assert_eq!(diffs[0], diffs[1]);
    assert_eq!(diffs[0], diffs[2]);
    let outside = tempfile::tempdir().expect("patch folder");
    let patch = outside.path().join("patch.diff");
    std::fs::write(&patch, &diffs[2]).expect("patch");
    let out = run(Command::new("git")
        .args(["apply", "--check"])
        .arg(&patch)
        .current_dir(repo));
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn check_notes_a_skill_whose_script_sources_a_file_outside_its_folder() {
    let tmp = tempfile::tempdir().expect("tmp");
    std::fs::create_dir_all(tmp.path().join("skills/a/scripts")).expect("mkdir");
    write_skill_md(tmp.path(), "skills/a");
    write_script(tmp.path(), "lib/common.sh", b"log() { echo \"$@\" >&2; }\n");
    write_script(
        tmp.path(),
        "skills/a/scripts/helpers.sh",
        b"say() { echo \"$@\" >&2; }\n",
    );
    write_script(
        tmp.path(),
        "skills/a/scripts/run.sh",
        b"#!/bin/bash\n. \"$(dirname \"$0\")/helpers.sh\"\nsource \"$(dirname \"$0\")/../../../lib/common.sh\"\nlog hi\n",
    );
    for _ in 0..2 {
        // Cold, then from the cache: the same note.
        let (code, report) = json_report(tmp.path(), &["check", "skills"]);
        assert_eq!(code, 0, "a note: {report}");
        let notes: Vec<(&str, u64)> = report["warnings"]
            .as_array()
            .expect("warnings")
            .iter()
            .filter(|w| w["code"] == "SKM009")
            .map(|w| {
                (
                    w["path"].as_str().unwrap_or(""),
                    w["line"].as_u64().unwrap_or(0),
                )
            })
            .collect();
        assert_eq!(notes, [("skills/a/scripts/run.sh", 3)], "{report}");
    }
}

#[test]
fn check_staged_reads_the_index_whatever_the_work_tree_holds() {
    let tmp = tempfile::tempdir().expect("tmp");
    let repo = tmp.path();
    git_init(repo);
    write_script(
        repo,
        "skills/a/execute.sh",
        b"#!/bin/sh\necho \"SUCCESS\"\n",
    );
    write_script(
        repo,
        "skills/b/execute.sh",
        b"#!/bin/sh\necho \"SUCCESS\"\n",
    );
    write_script(repo, "real.sh", b"#!/bin/sh\necho hi >&2\n");
    git(repo, &["add", "-A"]);
    // The work tree's copies go away after staging: one deleted, one replaced by a symlink.
    std::fs::remove_file(repo.join("skills/a/execute.sh")).expect("rm");
    std::fs::remove_file(repo.join("skills/b/execute.sh")).expect("rm");
    std::os::unix::fs::symlink("../../real.sh", repo.join("skills/b/execute.sh")).expect("link");
    let (code, report) = json_report(repo, &["check", "--staged"]);
    assert_eq!(
        code, 1,
        "what the commit records is legacy output: {report}"
    );
    let mut paths: Vec<&str> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter_map(|f| f["path"].as_str())
        .collect();
    paths.sort_unstable();
    assert_eq!(
        paths,
        ["skills/a/execute.sh", "skills/b/execute.sh"],
        "{report}"
    );
}

#[test]
fn check_staged_reads_the_index_when_a_skill_folder_became_a_symlink() {
    // The index holds a legacy scripts/run.sh; in the work tree the skill's folder is now a
    // symlink to another folder holding a clean file of that name (inside the repository, or
    // outside it). The commit records the legacy script: that is what --staged judges.
    for outside in [false, true] {
        let tmp = tempfile::tempdir().expect("tmp");
        let elsewhere = tempfile::tempdir().expect("elsewhere");
        let repo = tmp.path();
        git_init(repo);
        write_skill_md(repo, "skills/s");
        write_script(
            repo,
            "skills/s/scripts/run.sh",
            b"#!/bin/bash\necho hi >&2\n",
        );
        git(repo, &["add", "-A"]);
        git(repo, &["commit", "-qm", "skill"]);
        write_script(repo, "skills/s/scripts/run.sh", SH_SKILL);
        git(repo, &["add", "-A"]);
        std::fs::rename(repo.join("skills/s"), repo.join("moved")).expect("move");
        let target = if outside {
            elsewhere.path().to_path_buf()
        } else {
            repo.join("other")
        };
        write_script(&target, "scripts/run.sh", b"#!/bin/bash\necho hi >&2\n");
        std::os::unix::fs::symlink(&target, repo.join("skills/s")).expect("link");
        let (code, report) = json_report(repo, &["check", "--staged"]);
        assert_eq!(code, 1, "outside={outside}: {report}");
        assert_eq!(
            report["findings"][0]["path"], "skills/s/scripts/run.sh",
            "outside={outside}: {report}"
        );
        assert_eq!(report["findings"][0]["code"], "SKM001", "{report}");
    }
}

#[test]
fn code_edited_into_an_old_layout_runtime_is_an_error_not_an_outdated_warning() {
    // 0.2.0's project-root runtime with a line appended, and 0.1.0's one-line inline runtime with
    // a command put in: each runs with the skill, so each fails check (a hostile trial's planted
    // `touch` passed as a RUNTIME_OUTDATED warning).
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path();
    git_init(root);
    let v2 = fixtures().join("upgrade/v2");
    let mut runtime = std::fs::read(v2.join("skillmod-runtime.sh")).expect("v2");
    runtime.extend_from_slice(b"touch planted\n");
    std::fs::write(root.join("skillmod-runtime.sh"), &runtime).expect("runtime");
    std::fs::copy(
        v2.join("sourced-skill-output-v1.sh"),
        write_script(root, "s/execute.sh", b""),
    )
    .expect("script");
    let (code, report) = json_report(root, &["check", "s"]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(
        report["findings"][0]["reason"], "RUNTIME_FOREIGN",
        "{report}"
    );
    // The released bytes are only outdated.
    std::fs::copy(
        v2.join("skillmod-runtime.sh"),
        root.join("skillmod-runtime.sh"),
    )
    .expect("v2");
    let (code, report) = json_report(root, &["check", "s"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(
        report["warnings"][0]["reason"], "RUNTIME_OUTDATED",
        "{report}"
    );

    let old =
        std::fs::read_to_string(fixtures().join("upgrade/migrated-by-0.1.0.sh")).expect("0.1.0");
    let marker = "prints one JSON document at exit)'; ";
    assert!(old.contains(marker));
    write_script(
        root,
        "t/execute.sh",
        old.replacen(marker, &format!("{marker}touch planted; "), 1)
            .as_bytes(),
    );
    let (code, report) = json_report(root, &["check", "t"]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(
        report["findings"][0]["reason"], "RUNTIME_OUTDATED",
        "{report}"
    );
    assert_eq!(report["findings"][0]["severity"], "error", "{report}");
}

#[test]
fn a_runtime_edited_alone_fails_the_hooks_staged_and_changed_since_checks() {
    // A change that touches only a skill's runtime file, which no walk selects as a script: every
    // narrowed check (the hook's named files, --staged, --changed-since) verifies it.
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path();
    git_init(root);
    write_skill_md(root, "s");
    write_script(root, "s/execute.sh", SH_SKILL);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "skill"]);
    let out = run(skillmod(root).args(["migrate", "--no-backup", "s"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "migrated"]);
    let runtime = root.join("s/skillmod-runtime.sh");
    // `--format json` before the `--` that ends the options.
    let checked = |args: &[&str]| {
        let out = run(skillmod(root)
            .args(["check", "--format", "json"])
            .args(args));
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        (out.status.code(), report)
    };
    // Named alone, as it is, the runtime is clean.
    let (code, report) = checked(&["--force-select", "--", "s/skillmod-runtime.sh"]);
    assert_eq!(code, Some(0), "{report}");
    let mut bytes = std::fs::read(&runtime).expect("runtime");
    bytes.extend_from_slice(b"touch planted\n");
    std::fs::write(&runtime, bytes).expect("edit");
    git(root, &["add", "-A"]);
    for args in [
        &["--force-select", "--", "s/skillmod-runtime.sh"][..],
        &["--", "s/skillmod-runtime.sh"],
        &["--staged"],
        &["--changed-since", "HEAD"],
    ] {
        let (code, report) = checked(args);
        assert_eq!(code, Some(1), "{args:?}: {report}");
        // The runtime itself (and, in the narrowed runs, the script that loads it).
        let foreign: Vec<&str> = report["findings"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|f| f["reason"] == "RUNTIME_FOREIGN")
            .filter_map(|f| f["path"].as_str())
            .collect();
        assert!(
            foreign.contains(&"s/skillmod-runtime.sh"),
            "{args:?}: {report}"
        );
    }
}

#[test]
fn a_runtime_deleted_or_swapped_for_an_older_one_fails_narrowed_and_full_checks() {
    // The skill's line asks for this skillmod's runtime: a commit deleting the file, or putting
    // 0.2.0's released runtime in its place, leaves every run exiting 70. Both are errors, in
    // the narrowed checks too (a deletion touches no script).
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path();
    git_init(root);
    write_skill_md(root, "s");
    write_script(root, "s/execute.sh", SH_SKILL);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "skill"]);
    let out = run(skillmod(root).args(["migrate", "--no-backup", "s"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "migrated"]);
    git(root, &["rm", "-q", "s/skillmod-runtime.sh"]);
    for args in [
        &["check", "--staged"][..],
        &["check", "--changed-since", "HEAD"],
    ] {
        let (code, report) = json_report(root, args);
        assert_eq!(code, 1, "{args:?}: {report}");
        assert_eq!(
            report["findings"][0]["reason"], "RUNTIME_MISSING",
            "{args:?}"
        );
    }
    std::fs::copy(
        fixtures().join("upgrade/v2/skillmod-runtime.sh"),
        root.join("s/skillmod-runtime.sh"),
    )
    .expect("v2");
    git(root, &["add", "-A"]);
    let out = run(Command::new("bash").arg(root.join("s/execute.sh")));
    assert_eq!(out.status.code(), Some(70));
    for args in [&["check", "s"][..], &["check", "--staged"]] {
        let (code, report) = json_report(root, args);
        assert_eq!(code, 1, "{args:?}: {report}");
        assert_eq!(
            report["findings"][0]["reason"], "RUNTIME_OUTDATED",
            "{args:?}"
        );
        assert_eq!(report["findings"][0]["severity"], "error", "{args:?}");
    }
}

#[test]
fn check_staged_knows_an_extensionless_script_by_its_staged_shebang() {
    // `scripts/deploy`, a script by its shebang only: the index holds it with legacy lines; the
    // work tree's copy is then deleted, made plain text, or made binary. The commit records the
    // script, so --staged judges it (it was dropped as "no script found").
    for variant in ["deleted", "plain text", "binary"] {
        let tmp = tempfile::tempdir().expect("tmp");
        let repo = tmp.path();
        git_init(repo);
        std::fs::create_dir_all(repo.join("skills/s/scripts")).expect("mkdir");
        write_skill_md(repo, "skills/s");
        let deploy = repo.join("skills/s/scripts/deploy");
        std::fs::write(&deploy, SH_SKILL).expect("script");
        git(repo, &["add", "-A"]);
        match variant {
            "deleted" => std::fs::remove_file(&deploy).expect("rm"),
            "plain text" => std::fs::write(&deploy, "plain text\n").expect("text"),
            _ => std::fs::write(&deploy, b"\0\x01binary").expect("binary"),
        }
        let (code, report) = json_report(repo, &["check", "--staged"]);
        assert_eq!(code, 1, "{variant}: {report}");
        assert_eq!(
            report["findings"][0]["path"], "skills/s/scripts/deploy",
            "{variant}: {report}"
        );
    }
}

#[test]
fn check_staged_counts_an_empty_skill_md_that_head_holds() {
    // An empty SKILL.md shows git's empty blob, as an intent-to-add entry does: one HEAD holds is
    // real, so a staged skill script whose work-tree copy was deleted is still judged (hostile
    // round G08: "no script found", exit 0, and the commit recorded `echo SUCCESS`).
    let tmp = tempfile::tempdir().expect("tmp");
    let repo = tmp.path();
    git_init(repo);
    std::fs::create_dir_all(repo.join("skills/s/scripts")).expect("mkdir");
    std::fs::write(repo.join("skills/s/SKILL.md"), "").expect("skill");
    std::fs::write(
        repo.join("skills/s/execute.sh"),
        "#!/bin/bash\necho hi >&2\n",
    )
    .expect("x");
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-qm", "skill"]);
    let run = repo.join("skills/s/scripts/run.sh");
    std::fs::write(&run, SH_SKILL).expect("script");
    git(repo, &["add", "-A"]);
    std::fs::remove_file(&run).expect("rm");
    let (code, report) = json_report(repo, &["check", "--staged"]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(
        report["findings"][0]["path"], "skills/s/scripts/run.sh",
        "{report}"
    );
    // An intent-to-add SKILL.md makes no skill folder of the commit.
    let other = repo.join("other");
    std::fs::create_dir_all(&other).expect("mkdir");
    std::fs::write(other.join("SKILL.md"), "").expect("skill");
    std::fs::write(other.join("run.sh"), SH_SKILL).expect("script");
    git(repo, &["add", "-N", "other/SKILL.md"]);
    git(repo, &["add", "other/run.sh"]);
    let (_, report) = json_report(repo, &["check", "--staged", "other"]);
    assert_eq!(report["summary"]["scripts_checked"], 0, "{report}");
}

#[test]
fn a_skill_that_gains_scripts_keeps_one_runtime_and_check_says_what_migrate_will_move() {
    // The runtime goes in a skill's scripts/ when it has one (builds that copy SKILL.md and
    // scripts/ alone keep it: a new user's trial). A skill migrated before it had scripts/ keeps
    // running; check warns, and migrate moves the runtime so the skill's scripts share one.
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path();
    git_init(root);
    write_skill_md(root, "skills/a");
    write_script(root, "skills/a/execute.sh", BASH_SKILL);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "skill"]);
    let (code, report) = json_report(root, &["migrate", "."]);
    assert_eq!(code, 0, "{report}");
    assert!(root.join("skills/a/skillmod-runtime.sh").is_file());
    write_script(root, "skills/a/scripts/more.sh", SH_SKILL);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "more"]);
    let (code, report) = json_report(root, &["check", "."]);
    assert_eq!(code, 1, "more.sh's legacy lines: {report}");
    let warning = &report["warnings"][0];
    assert_eq!(warning["reason"], "RUNTIME_OUTDATED", "{report}");
    assert_eq!(warning["path"], "skills/a/execute.sh", "{report}");
    let (code, report) = json_report(root, &["migrate", "."]);
    assert_eq!(code, 0, "{report}");
    assert!(root.join("skills/a/scripts/skillmod-runtime.sh").is_file());
    assert!(
        !root.join("skills/a/skillmod-runtime.sh").exists(),
        "{report}"
    );
    git(root, &["add", "-A"]);
    let (code, report) = json_report(root, &["check", "."]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["warnings"], serde_json::json!([]), "{report}");
    // Both scripts run from a build that copied SKILL.md and scripts/ (and execute.sh).
    let built = tempfile::tempdir().expect("built");
    copy_tree(&root.join("skills/a"), built.path());
    for script in ["execute.sh", "scripts/more.sh"] {
        let out = run(Command::new("bash")
            .arg(built.path().join(script))
            .current_dir(built.path()));
        assert_eq!(out.status.code(), Some(0), "{script}: {}", stderr(&out));
        assert_eq!(strict(&stdout(&out), script)["success"], true);
    }
}

#[test]
fn an_inline_runtime_the_settings_do_not_ask_for_is_a_warning_migrate_acts_on() {
    // `migrate --runtime inline` once, then plain commands: migrate would convert the block to a
    // runtime file, so check says so; with `runtime = "inline"` both leave it. The block's own
    // `__skm_rec created "Created: …"` calls are no SKM010 notes.
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path();
    write_skill_md(root, "s");
    write_script(root, "s/execute.sh", BASH_SKILL);
    let (code, report) = json_report(
        root,
        &["migrate", "--no-backup", "--runtime", "inline", "s"],
    );
    assert_eq!(code, 0, "{report}");
    let (code, report) = json_report(root, &["check", "-v", "s"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(
        report["warnings"][0]["reason"], "RUNTIME_OUTDATED",
        "{report}"
    );
    assert_eq!(report["summary"]["notes"], 0, "{report}");
    let (_, report) = json_report(root, &["migrate", "--dry-run", "s"]);
    assert_eq!(report["summary"]["would_migrate"], 1, "{report}");
    std::fs::write(root.join("s/skillmod.toml"), "runtime = \"inline\"\n").expect("settings");
    let (code, report) = json_report(root, &["check", "-v", "s"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["warnings"], serde_json::json!([]), "{report}");
    let (_, report) = json_report(root, &["migrate", "--dry-run", "s"]);
    assert_eq!(report["summary"]["already_migrated"], 1, "{report}");
}

#[test]
fn a_skill_read_from_stdin_or_a_c_string_never_loads_a_runtime_from_the_working_folder() {
    // `bash < execute.sh`: `$0` is `bash`, and the line sourced `$PWD/skillmod-runtime.sh`, code a
    // repository the run stands in could plant (hostile review hx23 item 2).
    let tmp = tempfile::tempdir().expect("tmp");
    write_skill_md(tmp.path(), "s");
    write_script(tmp.path(), "s/execute.sh", b"#!/bin/bash\necho SUCCESS\n");
    write_script(tmp.path(), "s/two.sh", b"#!/bin/sh\necho SUCCESS\n");
    let (code, report) = json_report(tmp.path(), &["migrate", "--no-backup", "s"]);
    assert_eq!(code, 0, "{report}");
    let here = tmp.path().join("here");
    for planted in [
        "skillmod-runtime.sh",
        "scripts/skillmod-runtime.sh",
        "bash",
        "sh",
    ] {
        write_script(&here, planted, b"touch pwned; __skm_rt=3\n");
    }
    for (shell, script) in [
        ("bash", "s/execute.sh"),
        ("sh", "s/two.sh"),
        ("bash", "s/two.sh"),
    ] {
        let text = std::fs::read(tmp.path().join(script)).expect("read");
        let piped = run_with_stdin(Command::new(shell).current_dir(&here), &text);
        let c_string = |name: Option<&str>| {
            run(Command::new(shell)
                .current_dir(&here)
                .arg("-c")
                .arg(String::from_utf8_lossy(&text).as_ref())
                .args(name))
        };
        // dash leaves `$-` empty under -c, and `NAME` is `$0` (hostile review hx24 item 1).
        for out in [
            piped,
            c_string(None),
            c_string(Some("_")),
            c_string(Some("")),
        ] {
            assert_eq!(
                out.status.code(),
                Some(70),
                "{shell} {script}: {}",
                stderr(&out)
            );
            let doc = strict(&stdout(&out), script);
            assert_eq!(doc["errors"][0]["code"], "RUNTIME_MISSING", "{doc}");
        }
        assert!(!here.join("pwned").exists(), "{shell} {script}");
    }
    // `bash two.sh` from another folder, bash finding two.sh on PATH: `$0` names no file there.
    let path = format!(
        "{}:{}",
        tmp.path().join("s").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = run(Command::new("bash")
        .arg("two.sh")
        .env("PATH", path)
        .current_dir(&here));
    assert_eq!(out.status.code(), Some(70), "{}", stderr(&out));
    assert!(!here.join("pwned").exists());
    // Run from its file, from that folder, it still finds its own runtime.
    let out = run(Command::new("bash")
        .arg(tmp.path().join("s/execute.sh"))
        .current_dir(&here));
    assert_eq!(strict(&stdout(&out), "execute.sh")["success"], true);
    assert!(!here.join("pwned").exists());
}

#[test]
fn an_entry_point_another_script_sources_still_prints_its_document_run_on_its_own() {
    // hx25 item 3: a test harness that sources the entry point for its functions, a dead
    // `source` line in another script, or another skill sourcing this one made the entry point
    // a library: run as the skill, it printed nothing. Each case, under bash and sh, in place
    // and copied alone.
    let tmp = tempfile::tempdir().expect("tmp");
    let guarded = b"#!/bin/bash\nmain() { touch a.txt; echo \"Created: a.txt\"; echo \"Confidence: 0.9\"; echo SUCCESS; }\nif [[ \"${BASH_SOURCE[0]}\" == \"$0\" ]]; then main \"$@\"; fi\n";
    let plain_sh = b"#!/bin/sh\ntouch a.txt\necho \"Created: a.txt\"\necho SUCCESS\n";
    for skill in ["harness", "dead", "other", "lib", "guard"] {
        write_skill_md(tmp.path(), skill);
    }
    // An include guard returns only when the file is sourced twice (hx26 item 3).
    write_script(
        tmp.path(),
        "guard/execute.sh",
        b"#!/bin/bash\n[ -n \"${RUN_LOADED-}\" ] && return 0\nRUN_LOADED=1\nmain() { touch a.txt; echo \"Created: a.txt\"; echo \"Confidence: 0.9\"; echo SUCCESS; }\nif [[ \"${BASH_SOURCE[0]}\" == \"$0\" ]]; then main \"$@\"; fi\n",
    );
    write_script(
        tmp.path(),
        "guard/tests/t.sh",
        b"#!/bin/bash\nsource \"$(dirname \"$0\")/../execute.sh\"\n",
    );
    write_script(tmp.path(), "harness/execute.sh", guarded);
    write_script(
        tmp.path(),
        "harness/tests/test.sh",
        b"#!/bin/bash\nsource \"$(dirname \"$0\")/../execute.sh\"\ntype main >/dev/null && echo ok >&2\n",
    );
    write_script(tmp.path(), "dead/scripts/run.sh", plain_sh);
    write_script(
        tmp.path(),
        "dead/scripts/zz.sh",
        b"#!/bin/sh\nif false; then . \"$(dirname \"$0\")/run.sh\"; fi\n",
    );
    write_script(
        tmp.path(),
        "other/scripts/run.sh",
        b"#!/bin/bash\nsource \"$(dirname \"$0\")/../../dead/scripts/run.sh\"\n",
    );
    // A file of definitions alone stays a library, shebang or not: no runtime line.
    write_script(
        tmp.path(),
        "lib/run.sh",
        b"#!/bin/bash\nset -eu\nD=$(dirname \"$0\")\n. \"$D/steps.sh\"\nbuild\n",
    );
    let steps = write_script(
        tmp.path(),
        "lib/steps.sh",
        b"#!/bin/bash\nbuild() { touch b.txt; echo \"Created: b.txt\"; echo SUCCESS; }\ntrap 'echo bye >&2' EXIT\n",
    );
    let (code, report) = json_report(
        tmp.path(),
        &["migrate", "--no-backup", "--include", "*.sh", "."],
    );
    assert_eq!(code, 0, "{report}");
    for entry in [
        "harness/execute.sh",
        "dead/scripts/run.sh",
        "guard/execute.sh",
    ] {
        assert_eq!(
            report_file(&report, entry)["notes"][0]["code"],
            "SOURCED_SCRIPT",
            "{report}"
        );
    }
    assert_eq!(
        report_file(&report, "lib/steps.sh")["notes"][0]["code"],
        "SOURCED_LIBRARY"
    );
    let steps_text = std::fs::read_to_string(&steps).expect("steps");
    assert!(!steps_text.contains("skillmod-runtime"), "{steps_text}");
    let (code, checked) = json_report(tmp.path(), &["check", "--include", "*.sh", "."]);
    assert_eq!(code, 0, "{checked}");
    let installed = tempfile::tempdir().expect("installed");
    for skill in ["harness", "dead", "guard"] {
        copy_tree(&tmp.path().join(skill), &installed.path().join(skill));
    }
    let scratch = tempfile::tempdir().expect("scratch");
    for (shell, script, confidence) in [
        ("bash", "harness/execute.sh", serde_json::json!(0.9)),
        ("bash", "guard/execute.sh", serde_json::json!(0.9)),
        ("bash", "dead/scripts/run.sh", serde_json::json!(0.5)),
        ("sh", "dead/scripts/run.sh", serde_json::json!(0.5)),
    ] {
        for root in [tmp.path(), installed.path()] {
            let what = format!("{shell} {}", root.join(script).display());
            let out = run(Command::new(shell)
                .arg(root.join(script))
                .current_dir(scratch.path()));
            assert_eq!(out.status.code(), Some(0), "{what}: {}", stderr(&out));
            let doc = strict(&stdout(&out), &what);
            assert_eq!(doc["success"], true, "{what}: {doc}");
            assert_eq!(doc["confidence"], confidence, "{what}: {doc}");
            assert_eq!(
                doc["deliverables"],
                serde_json::json!(["a.txt"]),
                "{what}: {doc}"
            );
        }
    }
    // Sourced by a migrated script, the entry point's line does nothing: its results reach
    // that script's one document.
    let out = run(Command::new("bash")
        .arg(tmp.path().join("other/scripts/run.sh"))
        .current_dir(scratch.path()));
    let doc = strict(&stdout(&out), "other");
    assert_eq!(doc["deliverables"], serde_json::json!(["a.txt"]), "{doc}");
    assert_eq!(
        stdout(&out).matches("\"success\"").count(),
        1,
        "{}",
        stdout(&out)
    );
    // The library's results reach its host's document, as before.
    let out = run(Command::new("bash")
        .arg(tmp.path().join("lib/run.sh"))
        .current_dir(scratch.path()));
    let doc = strict(&stdout(&out), "lib host");
    assert_eq!(doc["deliverables"], serde_json::json!(["b.txt"]), "{doc}");
    assert!(stderr(&out).contains("bye"), "{}", stderr(&out));
}

#[test]
fn a_harness_that_sources_a_copy_of_a_bash_skill_goes_on_without_its_runtime() {
    // nu26 item 1 (loki-mode's tests): the harness sources a filtered copy of the script made in
    // a temp folder, with no runtime beside it. The copy's line ran `exit 70` in the harness.
    let tmp = tempfile::tempdir().expect("tmp");
    write_skill_md(tmp.path(), "s");
    let tool = write_script(
        tmp.path(),
        "s/scripts/tool.sh",
        b"#!/usr/bin/env bash\nset -euo pipefail\nis_allowed() { [[ \"$1\" == /ok/* ]]; }\nmain() { is_allowed \"${1:-/ok/x}\" && echo \"SUCCESS\"; }\nmain \"$@\"\n",
    );
    let harness = write_script(
        tmp.path(),
        "s/tests/test-tool.sh",
        b"#!/usr/bin/env bash\nW=$(mktemp -d); trap 'rm -rf \"$W\"' EXIT\ngrep -v '^main \"\\$@\"$' \"$(dirname \"$0\")/../scripts/tool.sh\" > \"$W/tool_src.sh\"\nsource \"$W/tool_src.sh\"\nset +e\nis_allowed /ok/a && echo \"PASS 1\" || echo \"FAIL 1\"\n",
    );
    let (code, report) = json_report(tmp.path(), &["migrate", "--no-backup", "s"]);
    assert_eq!(code, 0, "{report}");
    let out = run(Command::new("bash").arg(&harness).current_dir(tmp.path()));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "PASS 1\n", "{}", stderr(&out));
    // Run on its own without its runtime, the script still fails with the document.
    std::fs::remove_file(tmp.path().join("s/scripts/skillmod-runtime.sh")).expect("rm");
    for shell in ["bash", "sh"] {
        let out = run(Command::new(shell).arg(&tool).current_dir(tmp.path()));
        assert_eq!(out.status.code(), Some(70), "{shell}: {}", stderr(&out));
        let doc = strict(&stdout(&out), shell);
        assert_eq!(
            doc["errors"][0]["code"], "RUNTIME_MISSING",
            "{shell}: {doc}"
        );
    }
}

#[test]
fn a_shared_helper_that_checks_its_dependencies_stays_a_library_for_every_caller() {
    // hx26 item 1: a helper library with a shebang and a dependency check at top level got a
    // runtime line once a skill sourced it, and repository tooling that sources it too (never
    // selected) then died with RUNTIME_MISSING (sh) or printed a document (bash).
    let tmp = tempfile::tempdir().expect("tmp");
    write_skill_md(tmp.path(), "skills/s1");
    let helper = write_script(
        tmp.path(),
        "skills/s1/scripts/common.sh",
        b"#!/bin/sh\ncommand -v awk >/dev/null || { echo \"need awk\" >&2; exit 1; }\nreport_ok() { echo \"SUCCESS\"; }\ngreet() { echo \"hello from common\"; }\n",
    );
    let entry = write_script(
        tmp.path(),
        "skills/s1/scripts/execute.sh",
        b"#!/bin/sh\n. \"$(dirname \"$0\")/common.sh\"\ntouch out.txt\necho \"Created: out.txt\"\nreport_ok\n",
    );
    let tool = write_script(
        tmp.path(),
        "tools/ci.sh",
        b"#!/bin/sh\n. \"$(dirname \"$0\")/../skills/s1/scripts/common.sh\"\ngreet\necho \"ci done\"\n",
    );
    let (code, report) = json_report(tmp.path(), &["migrate", "--no-backup", "skills"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(
        report_file(&report, "skills/s1/scripts/common.sh")["notes"][0]["code"],
        "SOURCED_LIBRARY",
        "{report}"
    );
    let helper_text = std::fs::read_to_string(&helper).expect("helper");
    assert!(!helper_text.contains("skillmod-runtime"), "{helper_text}");
    for shell in ["sh", "bash"] {
        let out = run(Command::new(shell).arg(&tool).current_dir(tmp.path()));
        assert_eq!(out.status.code(), Some(0), "{shell}: {}", stderr(&out));
        assert_eq!(stdout(&out), "hello from common\nci done\n", "{shell}");
        let out = run(Command::new(shell).arg(&entry).current_dir(tmp.path()));
        let doc = strict(&stdout(&out), shell);
        assert_eq!(doc["success"], true, "{shell}: {doc}");
    }
}

#[test]
fn a_script_that_only_hosts_a_library_converts_when_the_runtime_setting_changes() {
    // hx26 item 10: a migrated script with no legacy line of its own (it sources a library that
    // has them) was "no legacy" to migrate when `runtime` changed, while check reported its line
    // as RUNTIME_OUTDATED with a fix that did nothing.
    let tmp = tempfile::tempdir().expect("tmp");
    write_skill_md(tmp.path(), "s");
    let host = write_script(
        tmp.path(),
        "s/execute.sh",
        b"#!/bin/bash\nsource \"$(dirname \"$0\")/lib/steps.sh\"\nbuild\n",
    );
    write_script(
        tmp.path(),
        "s/lib/steps.sh",
        b"build() { touch b.txt; echo \"Created: b.txt\"; echo SUCCESS; }\n",
    );
    let (code, report) = json_report(
        tmp.path(),
        &["migrate", "--no-backup", "--include", "*.sh", "s"],
    );
    assert_eq!(code, 0, "{report}");
    std::fs::write(tmp.path().join("s/skillmod.toml"), "runtime = \"inline\"\n").expect("settings");
    let (code, checked) = json_report(tmp.path(), &["check", "--include", "*.sh", "s"]);
    assert_eq!(code, 0, "{checked}");
    assert_eq!(
        checked["warnings"][0]["reason"], "RUNTIME_OUTDATED",
        "{checked}"
    );
    let (code, report) = json_report(
        tmp.path(),
        &["migrate", "--no-backup", "--include", "*.sh", "s"],
    );
    assert_eq!(code, 0, "{report}");
    assert_eq!(
        report_file(&report, "s/execute.sh")["status"],
        "migrated",
        "{report}"
    );
    let (code, checked) = json_report(tmp.path(), &["check", "--include", "*.sh", "s"]);
    assert_eq!(code, 0, "{checked}");
    assert_eq!(checked["warnings"], serde_json::json!([]), "{checked}");
    let text = std::fs::read_to_string(&host).expect("host");
    assert!(text.contains("# >>> skillmod-runtime"), "{text}");
    let out = run(Command::new("bash").arg(&host).current_dir(tmp.path()));
    let doc = strict(&stdout(&out), "inline host");
    assert_eq!(doc["deliverables"], serde_json::json!(["b.txt"]), "{doc}");
}

#[test]
fn entry_points_and_helpers_hostile_review_hx27_found_keep_their_roles() {
    let tmp = tempfile::tempdir().expect("tmp");
    for skill in ["dispatch", "nested", "libdir", "twolibs"] {
        write_skill_md(tmp.path(), skill);
    }
    // 1. A main called through a computed name, sourced by a harness: still an entry point.
    write_script(
        tmp.path(),
        "dispatch/run.sh",
        b"#!/bin/bash\ncmd_go() { touch a.txt; echo \"Created: a.txt\"; echo SUCCESS; }\nif [[ \"${BASH_SOURCE[0]}\" == \"$0\" ]]; then \"cmd_${1:-go}\"; fi\n",
    );
    write_script(
        tmp.path(),
        "dispatch/tests/t.sh",
        b"#!/bin/bash\nsource \"$(dirname \"$0\")/../run.sh\"\n",
    );
    // 2. A helper of definitions that sources the library holding the result lines: a library,
    // which a caller outside the skills sources unchanged.
    write_script(
        tmp.path(),
        "nested/run.sh",
        b"#!/bin/bash\nsource \"$(dirname \"$0\")/lib/common.sh\"\ntouch a.txt\nreport a.txt\n",
    );
    let common = write_script(
        tmp.path(),
        "nested/lib/common.sh",
        b"#!/bin/bash\nsource \"$(dirname \"${BASH_SOURCE[0]}\")/report.inc\"\ngreet() { echo hello; }\n",
    );
    write_script(
        tmp.path(),
        "nested/lib/report.inc",
        b"report() { echo \"Created: $1\"; echo SUCCESS; }\n",
    );
    let tool = write_script(
        tmp.path(),
        "tools/ci.sh",
        b"#!/bin/bash\nsource \"$(dirname \"$0\")/../nested/lib/common.sh\"\ngreet\n",
    );
    // 3. sh: `LIB_DIR="$(dirname "$0")/lib"; . "$LIB_DIR/common.sh"`.
    write_script(
        tmp.path(),
        "libdir/run.sh",
        b"#!/bin/sh\nLIB_DIR=\"$(dirname \"$0\")/lib\"\n. \"$LIB_DIR/common.sh\"\ntouch a.txt\nreport a.txt\n",
    );
    write_script(
        tmp.path(),
        "libdir/lib/common.sh",
        b"#!/bin/sh\nreport() { echo \"Created: $1\"; echo SUCCESS; }\n",
    );
    // 4. `main` defined in a library with no legacy line that sources the one printing them
    // (hx28), the entry point sourced by a harness.
    write_script(
        tmp.path(),
        "twolibs/run.sh",
        b"#!/bin/bash\nsource \"$(dirname \"${BASH_SOURCE[0]}\")/lib/app.sh\"\nif [[ \"${BASH_SOURCE[0]}\" == \"$0\" ]]; then main \"$@\"; fi\n",
    );
    write_script(
        tmp.path(),
        "twolibs/lib/app.sh",
        b"source \"$(dirname \"${BASH_SOURCE[0]}\")/report.sh\"\nmain() { touch a.txt; report a.txt; }\n",
    );
    write_script(
        tmp.path(),
        "twolibs/lib/report.sh",
        b"report() { echo \"Created: $1\"; echo SUCCESS; }\n",
    );
    write_script(
        tmp.path(),
        "twolibs/tests/t.sh",
        b"#!/bin/bash\nsource \"$(dirname \"$0\")/../run.sh\"\n",
    );
    let (code, report) = json_report(
        tmp.path(),
        &[
            "migrate",
            "--no-backup",
            "dispatch",
            "nested",
            "libdir",
            "twolibs",
        ],
    );
    assert_eq!(code, 0, "{report}");
    assert_eq!(
        report_file(&report, "dispatch/run.sh")["notes"][0]["code"],
        "SOURCED_SCRIPT"
    );
    assert_eq!(
        report_file(&report, "libdir/lib/common.sh")["notes"][0]["code"],
        "SOURCED_LIBRARY"
    );
    assert!(
        !std::fs::read_to_string(&common)
            .expect("common")
            .contains("skillmod-runtime")
    );
    let out = run(Command::new("bash").arg(&tool).current_dir(tmp.path()));
    assert_eq!(
        (out.status.code(), stdout(&out)),
        (Some(0), "hello\n".to_string())
    );
    for (shell, script) in [
        ("bash", "dispatch/run.sh"),
        ("bash", "nested/run.sh"),
        ("sh", "libdir/run.sh"),
        ("bash", "libdir/run.sh"),
        ("bash", "twolibs/run.sh"),
    ] {
        let out = run(Command::new(shell)
            .arg(tmp.path().join(script))
            .current_dir(tmp.path()));
        assert_eq!(
            out.status.code(),
            Some(0),
            "{shell} {script}: {}",
            stderr(&out)
        );
        let doc = strict(&stdout(&out), script);
        assert_eq!(
            doc["deliverables"],
            serde_json::json!(["a.txt"]),
            "{script}: {doc}"
        );
    }
}
