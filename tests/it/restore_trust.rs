//! Restore undoes only what this user's migrate did (issue 31, point 1): a run git tracks, one
//! that came with a clone, one dated in the future or one the user's journal does not name is
//! never picked; restoring it takes `--run ID --trust`; and whatever the run says, restore never
//! writes under `.git/` or `.skillmod/`, never removes a tracked file for a run it was told to
//! trust, and never touches git's index.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::*;
use serde_json::{Value, json};

const LEGACY: &[u8] = b"#!/bin/bash\necho \"Created: out.txt\"\necho SUCCESS\n";
const README: &[u8] = b"# demo\n";
const EVIL_CONFIG: &[u8] = b"[core]\n\tfsmonitor = touch /tmp/skillmod-pwned\n";
const EVIL_HOOK: &[u8] = b"#!/bin/sh\ntouch /tmp/skillmod-pwned\n";

fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))
}

/// A run id `hours` from now (negative: in the past), as migrate names runs.
fn run_id(hours: i64) -> String {
    (chrono::Utc::now() + chrono::Duration::hours(hours))
        .format("%Y%m%dT%H%M%S%.3fZ")
        .to_string()
}

/// A hand-made backup run under `root`, as a repository could carry one.
fn plant_run(root: &Path, id: &str, entries: &[Value], files: &[(&str, &[u8])]) {
    let dir = root.join(".skillmod/backups").join(id);
    std::fs::create_dir_all(dir.join("files")).expect("mkdir");
    for (name, bytes) in files {
        std::fs::write(dir.join("files").join(name), bytes).expect("backup");
    }
    let text: String = entries.iter().map(|e| format!("{e}\n")).collect();
    std::fs::write(dir.join("manifest.jsonl"), text).expect("manifest");
}

/// A repository with one skill (a legacy script) and a README, committed.
fn origin(dir: &Path) {
    std::fs::create_dir_all(dir).expect("mkdir");
    git_init(dir);
    std::fs::write(dir.join("README.md"), README).expect("readme");
    write_skill_md(dir, "s");
    write_script(dir, "s/execute.sh", LEGACY);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "skill"]);
}

fn clone(from: &Path, to: &Path) {
    let parent = to.parent().expect("parent");
    git(
        parent,
        &[
            "clone",
            "-q",
            from.to_str().expect("utf-8"),
            to.to_str().expect("utf-8"),
        ],
    );
    git(to, &["config", "user.email", "test@example.com"]);
    git(to, &["config", "user.name", "Test"]);
}

/// Every file under `dir` (symlinks as their target), with its bytes and mode.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (Vec<u8>, u32)> {
    fn walk(dir: &Path, out: &mut BTreeMap<PathBuf, (Vec<u8>, u32)>) {
        for entry in std::fs::read_dir(dir).expect("read_dir").flatten() {
            let path = entry.path();
            let meta = std::fs::symlink_metadata(&path).expect("stat");
            if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&path).expect("readlink");
                let bytes = target.as_os_str().as_encoded_bytes().to_vec();
                out.insert(path, (bytes, 0o120000));
            } else if meta.is_dir() {
                walk(&path, out);
            } else {
                use std::os::unix::fs::PermissionsExt;
                let bytes = std::fs::read(&path).expect("read");
                out.insert(path, (bytes, meta.permissions().mode()));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, &mut out);
    out
}

/// Every file HEAD holds is in the work tree with HEAD's bytes (symlinks as links).
fn assert_tracked_files_intact(repo: &Path, what: &str) {
    let files = git(repo, &["ls-tree", "-r", "-z", "--name-only", "HEAD"]);
    for name in files.split('\0').filter(|n| !n.is_empty()) {
        let path = repo.join(name);
        let meta = std::fs::symlink_metadata(&path)
            .unwrap_or_else(|e| panic!("{what}: tracked {name} was removed: {e}"));
        if meta.file_type().is_symlink() {
            continue;
        }
        let head = std::process::Command::new("git")
            .args(["show", &format!("HEAD:{name}")])
            .current_dir(repo)
            .output()
            .expect("git show")
            .stdout;
        if name == "s/execute.sh" {
            continue;
        }
        assert_eq!(
            std::fs::read(&path).expect("read"),
            head,
            "{what}: tracked {name} changed"
        );
    }
}

fn restore(repo: &Path, args: &[&str]) -> Output {
    run(skillmod(repo).arg("restore").args(args))
}

/// The attack of issue 31, made by the repository's author and committed: a run dated later
/// today whose manifest names `.git/config` (its "after" hash a fresh clone's config, so the
/// file looks as the run left it), `.git/hooks/pre-commit` (absent: written with `--force`),
/// the same through `.GIT`, `./.git/` and a committed symlink to `.git/hooks`, a tracked README
/// as "created", and `.skillmod/` itself. The user migrated the skill themselves before: their
/// run is the one restore picks; the forged run writes nothing, plain, forced, or trusted by
/// name.
#[test]
fn a_forged_future_dated_run_committed_in_the_repository_writes_nothing() {
    let tmp = tempfile::tempdir().expect("tmp");
    let upstream = tmp.path().join("upstream");
    let victim = tmp.path().join("victim");
    origin(&upstream);
    // The attacker predicts a fresh clone's .git/config.
    clone(&upstream, &victim);
    let clone_config = std::fs::read(victim.join(".git/config")).expect("config");
    std::fs::remove_dir_all(&victim).expect("rm");
    let forged = run_id(12);
    let entry = |path: &str, backup: &str, before: &[u8], after: &str, created: bool| {
        json!({"path": path, "backup": backup, "mode": 0o755, "sha256_before": sha256(before),
               "sha256_after": after, "created": created})
    };
    let config_after = sha256(&clone_config);
    plant_run(
        &upstream,
        &forged,
        &[
            entry(
                ".git/config",
                "files/000001-config",
                EVIL_CONFIG,
                &config_after,
                false,
            ),
            entry(
                ".GIT/config",
                "files/000001-config",
                EVIL_CONFIG,
                &config_after,
                false,
            ),
            entry(
                "./.git/config",
                "files/000001-config",
                EVIL_CONFIG,
                &config_after,
                false,
            ),
            entry(
                ".git/hooks/pre-commit",
                "files/000002-pre-commit",
                EVIL_HOOK,
                "0",
                false,
            ),
            entry(
                "hooks/pre-commit",
                "files/000002-pre-commit",
                EVIL_HOOK,
                "0",
                false,
            ),
            entry(
                "README.md",
                "files/000003-README.md",
                b"",
                &sha256(README),
                true,
            ),
            entry(
                ".skillmod/.gitignore",
                "files/000003-README.md",
                b"",
                &sha256(b"x"),
                true,
            ),
        ],
        &[
            ("000001-config", EVIL_CONFIG),
            ("000002-pre-commit", EVIL_HOOK),
            ("000003-README.md", b""),
        ],
    );
    std::os::unix::fs::symlink(".git/hooks", upstream.join("hooks")).expect("symlink");
    git(&upstream, &["add", "-f", ".skillmod", "hooks"]);
    git(&upstream, &["commit", "-qm", "innocent"]);
    clone(&upstream, &victim);
    assert_eq!(
        std::fs::read(victim.join(".git/config")).expect("config"),
        clone_config,
        "the attacker's prediction holds"
    );
    // The user's own run, older than the forged one.
    let out = run(skillmod(&victim).args(["migrate", "s"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let migrated = std::fs::read(victim.join("s/execute.sh")).expect("read");
    assert_ne!(migrated, LEGACY);
    let git_dir = snapshot(&victim.join(".git"));
    let state = snapshot(&victim.join(".skillmod"));

    // A plain restore undoes the user's run, and names the forged one without picking it.
    let out = restore(&victim, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!(
            "run {forged} is not one this user's migrate recorded"
        )) && stderr(&out).contains("RUN_NOT_RECORDED")
            && stderr(&out).contains(&format!("--run {forged} --trust")),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read(victim.join("s/execute.sh")).expect("read"),
        LEGACY
    );
    assert!(!victim.join("s/skillmod-runtime.sh").exists());
    // --force (the hint an older restore printed) picks nothing else: the user's run is undone.
    let out = restore(&victim, &["--force"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("nothing to restore"),
        "{}",
        stderr(&out)
    );
    // Named without --trust: refused, with the reason and the way.
    let out = restore(&victim, &["--run", &forged]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("RUN_NOT_RECORDED") && stderr(&out).contains("git tracks files"),
        "{}",
        stderr(&out)
    );
    // Named and trusted, forced or not: every entry is refused, nothing written.
    for extra in [&[][..], &["--force"][..]] {
        let mut args = vec!["--run", forged.as_str(), "--trust", "--format", "json"];
        args.extend(extra);
        let out = restore(&victim, &args);
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        let report: Value = serde_json::from_slice(&out.stdout).expect("json");
        let mut codes: Vec<(String, String)> = report["files"]
            .as_array()
            .expect("files")
            .iter()
            .map(|f| {
                (
                    f["path"].as_str().unwrap_or("").to_string(),
                    f["errors"][0]["code"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect();
        codes.sort();
        let expected: Vec<(String, String)> = [
            ("./.git/config", "PATH_PROTECTED"),
            (".GIT/config", "PATH_PROTECTED"),
            (".git/config", "PATH_PROTECTED"),
            (".git/hooks/pre-commit", "PATH_PROTECTED"),
            (".skillmod/.gitignore", "PATH_PROTECTED"),
            ("README.md", "CREATED_NOT_RUNTIME"),
            ("hooks/pre-commit", "PATH_PROTECTED"),
        ]
        .iter()
        .map(|(p, c)| (p.to_string(), c.to_string()))
        .collect();
        assert_eq!(codes, expected, "{extra:?}: {report}");
    }
    assert_eq!(
        snapshot(&victim.join(".git")),
        git_dir,
        "nothing under .git/ was written, created or removed (the index neither)"
    );
    assert_eq!(
        snapshot(&victim.join(".skillmod")),
        state,
        "nothing under .skillmod/"
    );
    assert!(!victim.join(".git/hooks/pre-commit").exists());
    assert_tracked_files_intact(&victim, "after every restore");
}

/// The user migrated and committed the backups with the migration (`git add -f`); whoever
/// clones that repository does not get a run to restore: it is tracked, and their journal
/// does not name it (not even once git stops tracking it).
#[test]
fn a_run_that_came_with_a_clone_is_not_picked() {
    let tmp = tempfile::tempdir().expect("tmp");
    let upstream = tmp.path().join("upstream");
    origin(&upstream);
    let (status, report) = json_report(&upstream, &["migrate", "s"]);
    assert_eq!(status, 0, "{report}");
    let id = report["backup_run"].as_str().expect("run").to_string();
    git(&upstream, &["add", "-A"]);
    git(&upstream, &["add", "-f", ".skillmod"]);
    git(&upstream, &["commit", "-qm", "migrate, backups and all"]);
    // Even where it was made, a run git tracks is not picked: git could have brought it.
    let list = stdout(&restore(&upstream, &["--list"]));
    assert!(
        list.contains(&id) && list.contains("not recorded: tracked by git"),
        "{list}"
    );
    let other = tmp.path().join("other");
    clone(&upstream, &other);
    let migrated = std::fs::read(other.join("s/execute.sh")).expect("read");
    for untrack in [false, true] {
        if untrack {
            git(&other, &["rm", "-r", "-q", "--cached", ".skillmod"]);
            git(&other, &["commit", "-qm", "untrack the backups"]);
        }
        let out = restore(&other, &[]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let why = if untrack {
            "records no run of this project"
        } else {
            "git tracks files in its folder"
        };
        assert!(
            stderr(&out).contains("nothing to restore")
                && stderr(&out).contains(&format!("run {id} is not one"))
                && stderr(&out).contains(why),
            "{untrack}: {}",
            stderr(&out)
        );
        assert_eq!(
            std::fs::read(other.join("s/execute.sh")).expect("read"),
            migrated
        );
        assert!(other.join("s/skillmod-runtime.sh").exists());
    }
}

/// A run made by a skillmod that kept no journal (here: one whose journal is elsewhere) is not
/// picked; a later run this user's migrate recorded is, and the older one says it predates the
/// journal. Named and trusted, it restores as before.
#[test]
fn a_run_older_than_the_journal_is_restored_only_when_named_and_trusted() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path().join("p");
    let elsewhere = tmp.path().join("old-state");
    let journal = tmp.path().join("state");
    let a = write_script(&root, "s/a/execute.sh", LEGACY);
    let b = write_script(&root, "s/b/execute.sh", LEGACY);
    let with =
        |state: &Path, args: &[&str]| run(skillmod(&root).env("XDG_STATE_HOME", state).args(args));
    let out = with(&elsewhere, &["migrate", "--exclude", "s/b/", "s"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // Run ids have millisecond resolution; the second run must sort after the first.
    std::thread::sleep(std::time::Duration::from_millis(20));
    let out = with(&journal, &["migrate", "s"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let list = stdout(&with(&journal, &["restore", "--list", "s"]));
    let ids: Vec<&str> = list.lines().filter_map(|l| l.split('\t').next()).collect();
    let [old, new] = ids[..] else {
        panic!("two runs: {list}")
    };
    assert!(
        list.lines()
            .next()
            .is_some_and(|l| l.ends_with("not recorded: older than the journal")),
        "{list}"
    );
    let out = with(&journal, &["restore", "s"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(&format!("run {new}"))
            && stderr(&out).contains(&format!("run {old} is not one"))
            && stderr(&out).contains("older than every run recorded there"),
        "{}\n{}",
        stdout(&out),
        stderr(&out)
    );
    assert_eq!(std::fs::read(&b).expect("read"), LEGACY);
    assert_ne!(std::fs::read(&a).expect("read"), LEGACY);
    let out = with(&journal, &["restore", "--run", old, "--trust", "s"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("restored on your word"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read(&a).expect("read"), LEGACY);
    assert!(!root.join("s/a/skillmod-runtime.sh").exists());
}

/// A journal the repository carries (the user's state folder set inside the project, the
/// journal committed there) is not believed: the run it names is not picked.
#[test]
fn a_journal_planted_in_the_repository_is_not_believed() {
    let tmp = tempfile::tempdir().expect("tmp");
    let repo = tmp.path().join("repo");
    origin(&repo);
    let current = std::fs::read(repo.join("s/execute.sh")).expect("read");
    let id = run_id(-1);
    plant_run(
        &repo,
        &id,
        &[
            json!({"path": "s/execute.sh", "backup": "files/000001-execute.sh", "mode": 0o755,
                 "sha256_before": sha256(b"#!/bin/sh\nrm -rf ~\n"), "sha256_after": sha256(&current)}),
        ],
        &[("000001-execute.sh", b"#!/bin/sh\nrm -rf ~\n")],
    );
    let state = repo.join("state");
    let key = &sha256(
        std::fs::canonicalize(&repo)
            .expect("real path")
            .as_os_str()
            .as_encoded_bytes(),
    )[..16];
    let journal = state.join("skillmod/journal").join(format!("{key}.jsonl"));
    std::fs::create_dir_all(journal.parent().expect("parent")).expect("mkdir");
    let root_text = std::fs::canonicalize(&repo).expect("real path");
    std::fs::write(
        &journal,
        format!("{}\n", json!({"root": root_text, "run": id})),
    )
    .expect("journal");
    git(&repo, &["add", "state"]);
    git(&repo, &["commit", "-qm", "state"]);
    let out = run(skillmod(&repo)
        .env("XDG_STATE_HOME", &state)
        .args(["restore"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("lies inside the project")
            && stderr(&out).contains("nothing to restore"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read(repo.join("s/execute.sh")).expect("read"),
        current
    );
}

/// Restore removes the runtime file migrate created and marked intent-to-add, and leaves git's
/// index as it is (an index write is a write under .git/): `git status` then shows the file as
/// added in the index and deleted in the work tree.
#[test]
fn restore_leaves_gits_index_alone() {
    let tmp = tempfile::tempdir().expect("tmp");
    let repo = tmp.path().join("repo");
    origin(&repo);
    let out = run(skillmod(&repo).args(["migrate", "s"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let status = git(&repo, &["status", "--porcelain"]);
    assert!(status.contains(" A s/skillmod-runtime.sh"), "{status}");
    let index = std::fs::read(repo.join(".git/index")).expect("index");
    let out = restore(&repo, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!repo.join("s/skillmod-runtime.sh").exists());
    assert_eq!(
        std::fs::read(repo.join("s/execute.sh")).expect("read"),
        LEGACY
    );
    assert_eq!(
        std::fs::read(repo.join(".git/index")).expect("index"),
        index,
        "restore wrote nothing to the index"
    );
}

/// A runtime file migrate created and the user edited since is never removed, `--force` or
/// not: restore removes only the bytes migrate wrote.
#[test]
fn an_edited_runtime_file_is_never_removed() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path();
    write_skill_md(root, "s");
    write_script(root, "s/execute.sh", LEGACY);
    let out = run(skillmod(root).args(["migrate", "s"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let runtime = root.join("s/skillmod-runtime.sh");
    let mut edited = std::fs::read(&runtime).expect("runtime");
    edited.extend_from_slice(b"# mine\n");
    // Edited, or emptied (as `git checkout` leaves an intent-to-add file): changed since, not
    // "not a runtime file".
    for content in [edited.clone(), Vec::new()] {
        std::fs::write(&runtime, &content).expect("edit");
        let (status, report) = json_report(root, &["restore", "--force", "s"]);
        assert_eq!(status, 1, "{report}");
        let refused: Vec<&str> = report["files"]
            .as_array()
            .expect("files")
            .iter()
            .filter(|f| f["status"] == "refused")
            .filter_map(|f| f["errors"][0]["code"].as_str())
            .collect();
        assert_eq!(refused, ["FILE_CHANGED_SINCE_MIGRATION"], "{report}");
        assert_eq!(std::fs::read(&runtime).expect("runtime"), content);
    }
    assert_eq!(
        std::fs::read(root.join("s/execute.sh")).expect("read"),
        LEGACY
    );
}

/// A state folder the tests share keeps the journal: a migrate run is recorded there, one line
/// naming the project's real path and the run, and its seal beside it.
#[test]
fn migrate_records_its_run_in_the_users_journal() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path().join("p");
    let state = tmp.path().join("state");
    write_script(&root, "s/execute.sh", LEGACY);
    let out = run(skillmod(&root)
        .env("XDG_STATE_HOME", &state)
        .args(["migrate", "--format", "json", "s"]));
    let report: Value = serde_json::from_slice(&out.stdout).expect("json");
    let id = report["backup_run"].as_str().expect("run");
    let mut files: Vec<PathBuf> = std::fs::read_dir(state.join("skillmod/journal"))
        .expect("journal folder")
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort_by_key(|f| f.extension().is_some_and(|e| e == "seal"));
    let [journal, seal] = &files[..] else {
        panic!("a journal and a seal: {files:?}")
    };
    assert!(
        seal.to_string_lossy().ends_with(&format!("-{id}.seal")),
        "{files:?}"
    );
    let text = std::fs::read_to_string(journal).expect("journal");
    let line: Value = serde_json::from_str(text.trim_end()).expect("one line");
    assert_eq!(line["run"], id);
    let real = std::fs::canonicalize(root.join("s")).expect("real path");
    assert_eq!(line["root"], real.to_str().expect("utf-8"));
    // The seal names the manifest's length and sha256.
    let manifest = std::fs::read(
        root.join("s/.skillmod/backups")
            .join(id)
            .join("manifest.jsonl"),
    )
    .expect("manifest");
    assert_eq!(
        std::fs::read_to_string(seal).expect("seal"),
        format!("{:020} {}\n", manifest.len(), sha256(&manifest))
    );
    assert!(!root.join("s/.skillmod/journal").exists());
}

/// A run folder that is a symlink, or whose manifest is a FIFO or a symlink, is never picked
/// and, named and trusted, is refused without hanging or being followed.
#[test]
fn a_symlinked_run_or_a_fifo_manifest_is_refused_without_hanging() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path().join("p");
    let script = write_script(&root, "s/execute.sh", b"migrated\n");
    let entry = json!({"path": "s/execute.sh", "backup": "files/000001-execute.sh", "mode": 0o755,
                       "sha256_before": sha256(LEGACY), "sha256_after": sha256(b"migrated\n")});
    // The real run lies outside the project; the project's run folder links to it.
    let outside = tmp.path().join("outside");
    plant_run(
        &outside,
        "20261101T000000.000Z",
        std::slice::from_ref(&entry),
        &[("000001-execute.sh", LEGACY)],
    );
    std::fs::create_dir_all(root.join(".skillmod/backups")).expect("mkdir");
    std::os::unix::fs::symlink(
        outside.join(".skillmod/backups/20261101T000000.000Z"),
        root.join(".skillmod/backups/20261101T000000.000Z"),
    )
    .expect("symlink");
    // A run whose manifest is a FIFO, and one whose manifest links to a real one.
    for (id, how) in [
        ("20261102T000000.000Z", "fifo"),
        ("20261103T000000.000Z", "link"),
    ] {
        let dir = root.join(".skillmod/backups").join(id);
        std::fs::create_dir_all(dir.join("files")).expect("mkdir");
        std::fs::write(dir.join("files/000001-execute.sh"), LEGACY).expect("backup");
        if how == "fifo" {
            let made = std::process::Command::new("mkfifo")
                .arg(dir.join("manifest.jsonl"))
                .status()
                .expect("mkfifo");
            assert!(made.success());
        } else {
            std::os::unix::fs::symlink(
                outside.join(".skillmod/backups/20261101T000000.000Z/manifest.jsonl"),
                dir.join("manifest.jsonl"),
            )
            .expect("symlink");
        }
    }
    for args in [
        vec!["restore", "--list"],
        vec!["restore"],
        vec!["restore", "--force"],
        vec!["restore", "--run", "20261101T000000.000Z", "--trust"],
        vec![
            "restore",
            "--run",
            "20261102T000000.000Z",
            "--trust",
            "--force",
        ],
        vec![
            "restore",
            "--run",
            "20261103T000000.000Z",
            "--trust",
            "--force",
        ],
    ] {
        let out = run_bounded(skillmod(&root).args(&args), 20);
        assert!(
            out.status.code().is_some_and(|c| c == 0 || c == 2),
            "{args:?}: {}",
            stderr(&out)
        );
        assert_eq!(
            std::fs::read(&script).expect("read"),
            b"migrated\n",
            "{args:?}: {}",
            stderr(&out)
        );
    }
}

/// Manifest paths that climb out (`..`), start at `/`, or reach `.git` through a symlinked
/// folder or another spelling are refused in a run named and trusted, with and without
/// `--force`.
#[test]
fn hostile_manifest_paths_are_refused_even_when_trusted() {
    let tmp = tempfile::tempdir().expect("tmp");
    let repo = tmp.path().join("repo");
    origin(&repo);
    std::os::unix::fs::symlink(".git", repo.join("g")).expect("symlink");
    std::os::unix::fs::symlink(".", repo.join("here")).expect("symlink");
    let config = std::fs::read(repo.join(".git/config")).expect("config");
    let outside = tmp.path().join("bashrc");
    std::fs::write(&outside, b"safe\n").expect("write");
    let id = run_id(-1);
    let entry = |path: &str| {
        json!({"path": path, "backup": "files/000001-x", "mode": 0o755,
               "sha256_before": sha256(EVIL_CONFIG), "sha256_after": sha256(&config)})
    };
    let paths = [
        "g/config",
        "here/.git/config",
        "here/g/config",
        "s/../.git/config",
        "../bashrc",
        outside.to_str().expect("utf-8"),
        ".Git/config",
        ".git./config",
    ];
    let entries: Vec<Value> = paths.iter().map(|p| entry(p)).collect();
    plant_run(&repo, &id, &entries, &[("000001-x", EVIL_CONFIG)]);
    let git_dir = snapshot(&repo.join(".git"));
    for force in [false, true] {
        let mut args = vec!["--run", id.as_str(), "--trust", "--format", "json"];
        if force {
            args.push("--force");
        }
        let out = restore(&repo, &args);
        let report: Value = serde_json::from_slice(&out.stdout).expect("json");
        assert_eq!(out.status.code(), Some(1), "{report}");
        let files = report["files"].as_array().expect("files");
        assert_eq!(files.len(), paths.len(), "{report}");
        assert!(
            files.iter().all(|f| f["status"] == "refused"),
            "{force}: {report}"
        );
    }
    assert_eq!(snapshot(&repo.join(".git")), git_dir);
    assert_eq!(std::fs::read(&outside).expect("read"), b"safe\n");
}

/// Outside git, `restore PATH` looks for backups from the path's folder up to the working
/// folder: a `.skillmod` planted nearer the path, holding only runs this user did not make, does
/// not hide the user's own run above it.
#[test]
fn a_planted_state_folder_nearer_the_path_does_not_hide_the_users_run() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path().join("p");
    let script = write_script(&root, "s/a/execute.sh", LEGACY);
    let out = run(skillmod(&root).args(["migrate", "."]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let migrated = std::fs::read(&script).expect("read");
    assert!(root.join(".skillmod/backups").is_dir());
    // The planted run would put something else in the script's place.
    plant_run(
        &root.join("s/a"),
        &run_id(-1),
        &[
            json!({"path": "execute.sh", "backup": "files/000001-execute.sh", "mode": 0o755,
                 "sha256_before": sha256(b"#!/bin/sh\nevil\n"), "sha256_after": sha256(&migrated)}),
        ],
        &[("000001-execute.sh", b"#!/bin/sh\nevil\n")],
    );
    let out = restore(&root, &["s/a"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read(&script).expect("read"), LEGACY);
}

/// When the journal cannot be written (the state folder is a file), migrate still migrates, and
/// says at the end that restore will not pick the run on its own; the run is restored by name
/// with `--trust`. (A worker thread that printed the note itself waited forever on the stderr
/// the printer held.)
#[test]
fn a_run_the_journal_could_not_record_is_named_at_the_end_and_restored_with_trust() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path().join("p");
    let a = write_script(&root, "s/a/execute.sh", LEGACY);
    write_script(&root, "s/b/execute.sh", LEGACY);
    let state = tmp.path().join("state-is-a-file");
    std::fs::write(&state, b"").expect("write");
    let out = run_bounded(
        skillmod(&root)
            .env("XDG_STATE_HOME", &state)
            .args(["migrate", "-j", "2", "s"]),
        30,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stderr(&out).matches("JOURNAL_FAILED").count(),
        1,
        "{}",
        stderr(&out)
    );
    assert_ne!(std::fs::read(&a).expect("read"), LEGACY);
    let out = restore(&root, &["s"]);
    assert!(
        stderr(&out).contains("nothing to restore"),
        "{}",
        stderr(&out)
    );
    let list = stdout(&restore(&root, &["--list", "s"]));
    let id = list.split('\t').next().expect("a run").to_string();
    let out = restore(&root, &["--run", &id, "--trust", "s"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read(&a).expect("read"), LEGACY);
}

/// The user's own run migrated `skills/s`; a pulled commit then turns `skills/s` into a symlink
/// to another skill's folder. Restoring the run, even with --force, would write s's original over
/// t's script and remove t's runtime (another run's file): nothing is written, and restore says
/// which folder is now a link.
#[test]
fn a_run_whose_folder_became_a_symlink_to_another_skill_writes_nothing_even_forced() {
    let tmp = tempfile::tempdir().expect("tmp");
    let repo = tmp.path();
    git_init(repo);
    for skill in ["s", "t"] {
        std::fs::create_dir_all(repo.join("skills").join(skill)).expect("mkdir");
        std::fs::write(
            repo.join("skills").join(skill).join("SKILL.md"),
            "# skill\n",
        )
        .expect("md");
        write_script(
            repo,
            &format!("skills/{skill}/execute.sh"),
            format!("#!/bin/bash\necho \"Created: {skill}.txt\"\necho SUCCESS\n").as_bytes(),
        );
    }
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-qm", "skills"]);
    for skill in ["skills/t", "skills/s"] {
        let out = run(skillmod(repo).args(["migrate", "-q", skill]));
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        git(repo, &["add", "-A"]);
        git(repo, &["commit", "-qm", skill]);
    }
    git(repo, &["rm", "-rq", "skills/s"]);
    std::os::unix::fs::symlink("t", repo.join("skills/s")).expect("link");
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-qm", "s is t"]);
    let before = snapshot(repo);
    for args in [&[][..], &["--force"]] {
        let out = restore(repo, args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        let said = format!("{}{}", stdout(&out), stderr(&out));
        assert!(
            said.contains("reached through a symbolic link"),
            "{args:?}: {said}"
        );
        assert!(
            snapshot(repo) == before,
            "{args:?}: restore wrote something"
        );
    }
}

#[test]
fn a_users_own_run_whose_folder_now_leads_into_git_is_refused_and_not_called_foreign() {
    // Hostile round G11: the run is the user's; a later commit made its folder a symlink into
    // .git/hooks. Restore writes nothing, and says what changed instead of doubting the run.
    let tmp = tempfile::tempdir().expect("tmp");
    let repo = tmp.path();
    git_init(repo);
    write_script(repo, "skills/s/execute.sh", LEGACY);
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-qm", "skill"]);
    let out = run(skillmod(repo).args(["migrate", "skills"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-qm", "migrated"]);
    git(repo, &["rm", "-rqf", "skills/s"]);
    std::fs::create_dir_all(repo.join("skills")).expect("mkdir");
    std::os::unix::fs::symlink("../.git/hooks", repo.join("skills/s")).expect("symlink");
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-qm", "a later pull"]);
    let hooks = snapshot(&repo.join(".git/hooks"));
    let out = restore(repo, &["--force"]);
    let said = format!("{}{}", stdout(&out), stderr(&out));
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("PATH_PROTECTED"), "{said}");
    assert!(said.contains("became a symlink since the run"), "{said}");
    assert!(!said.contains("not skillmod's own"), "{said}");
    assert_eq!(snapshot(&repo.join(".git/hooks")), hooks);
}

/// A run put in the place of one this user's migrate recorded, under the same id, is not taken
/// for it: neither a run folder made anew (as an unpacked archive or a checkout makes it) nor a
/// manifest written over in place (as `cp -r` writes it), whatever inode it gets. The run's
/// seal names the manifest's length and hash.
#[test]
fn a_run_put_in_the_place_of_the_users_own_is_not_picked() {
    for in_place in [false, true] {
        let tmp = tempfile::tempdir().expect("tmp");
        let root = tmp.path().join("p");
        let script = write_script(&root, "s/execute.sh", LEGACY);
        let out = run(skillmod(&root).args(["migrate", "--format", "json", "s"]));
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let report: Value = serde_json::from_slice(&out.stdout).expect("json");
        let id = report["backup_run"].as_str().expect("run").to_string();
        let migrated = std::fs::read(&script).expect("read");
        let dir = root.join("s/.skillmod/backups").join(&id);
        let forged = b"#!/bin/sh\ntouch pwned\n";
        let entry = json!({"path": "execute.sh", "backup": "files/000001-execute.sh",
            "mode": 0o755, "sha256_before": sha256(forged), "sha256_after": sha256(&migrated)});
        if in_place {
            std::fs::write(dir.join("files/000001-execute.sh"), forged).expect("backup");
            std::fs::write(dir.join("manifest.jsonl"), format!("{entry}\n")).expect("manifest");
        } else {
            std::fs::remove_dir_all(&dir).expect("rm run");
            plant_run(
                &root.join("s"),
                &id,
                &[entry],
                &[("000001-execute.sh", forged)],
            );
        }
        let out = restore(&root, &["s"]);
        assert!(
            stderr(&out).contains(&format!("names run {id}, but its manifest does not start"))
                && stderr(&out).contains("nothing to restore"),
            "in place {in_place}: {}",
            stderr(&out)
        );
        assert_eq!(std::fs::read(&script).expect("read"), migrated);
        let list = stdout(&restore(&root, &["--list", "s"]));
        assert!(list.contains("replaced since"), "{list}");
    }
}

/// A line appended to the manifest of the user's own run (or left by a run cut short after the
/// seal's last update) is left out with a warning; the lines migrate sealed are restored.
#[test]
fn lines_appended_after_the_seal_are_left_out() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path().join("p");
    let script = write_script(&root, "s/execute.sh", LEGACY);
    let notes = root.join("s/notes.txt");
    std::fs::write(&notes, "mine\n").expect("notes");
    let out = run(skillmod(&root).args(["migrate", "--format", "json", "s"]));
    let report: Value = serde_json::from_slice(&out.stdout).expect("json");
    let id = report["backup_run"].as_str().expect("run").to_string();
    let dir = root.join("s/.skillmod/backups").join(&id);
    let forged = b"PWNED\n";
    std::fs::write(dir.join("files/999999-x"), forged).expect("backup");
    let entry = json!({"path": "notes.txt", "backup": "files/999999-x", "mode": 0o755,
        "sha256_before": sha256(forged), "sha256_after": sha256(b"mine\n")});
    let mut manifest = std::fs::read(dir.join("manifest.jsonl")).expect("manifest");
    manifest.extend(format!("{entry}\n").bytes());
    std::fs::write(dir.join("manifest.jsonl"), &manifest).expect("append");
    let out = restore(&root, &["s"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("after the lines its migrate sealed"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read(&notes).expect("notes"), b"mine\n");
    assert_eq!(std::fs::read(&script).expect("script"), LEGACY);
}

/// A run planted in a project the journal names no run of is listed with that reason, not as
/// "older than the journal" (a hostile review: a run planted a minute ago was called older).
#[test]
fn a_run_in_a_project_the_journal_never_saw_says_so() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path().join("p");
    write_script(&root, "s/execute.sh", LEGACY);
    let id = run_id(0);
    plant_run(&root.join("s"), &id, &[], &[]);
    let state = tmp.path().join("state");
    let list = stdout(&run(skillmod(&root)
        .env("XDG_STATE_HOME", &state)
        .args(["restore", "--list", "s"])));
    assert!(
        list.lines().any(|l| l.starts_with(&id)
            && l.ends_with("not recorded: no run of this project in the journal")),
        "{list}"
    );
}
