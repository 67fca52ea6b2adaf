//! Capture mode end to end: every fixture under fixtures/capture runs before and after migration,
//! in bash and in dash, in temp folders. Same exit status, same files, stderr lines kept, and the
//! whole stdout is one document that `skillmod validate --strict` accepts, with the expected values.

use std::collections::BTreeSet;
use std::path::Path;

use crate::common::*;
use serde_json::Value;
use skillmod::contract::{ParseOptions, Protocol, Schema, check_output};

struct Run {
    status: Option<i32>,
    stdout: String,
    stderr: String,
    files: BTreeSet<String>,
}

fn cases() -> Vec<std::path::PathBuf> {
    fixture_cases("capture")
}

fn files_in(dir: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for entry in std::fs::read_dir(dir).expect("read_dir").flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.path().is_dir() {
            for inner in files_in(&entry.path()) {
                out.insert(format!("{name}/{inner}"));
            }
        } else if name != "execute.sh" && !name.starts_with("skillmod-runtime") {
            out.insert(name);
        }
    }
    out
}

/// Run `script` as `work/execute.sh` in a fresh folder, with the runtime files migrate wrote in
/// the script's folder `tree` (if any) beside it: the skill folder, copied alone.
fn run_in(shell: &str, script: &[u8], tree: Option<&Path>, args: &[String]) -> Run {
    let tmp = tempfile::tempdir().expect("tmp");
    let work = tmp.path().join("work");
    let path = write_script(&work, "execute.sh", script);
    for entry in tree
        .map(std::fs::read_dir)
        .into_iter()
        .flatten()
        .flatten()
        .flatten()
    {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("skillmod-runtime") {
            std::fs::copy(entry.path(), work.join(&name)).expect("copy runtime");
        }
    }
    let out = run(std::process::Command::new(shell)
        .arg(&path)
        .args(args)
        .current_dir(&work));
    Run {
        status: out.status.code(),
        stdout: stdout(&out),
        stderr: stderr(&out),
        files: files_in(&work),
    }
}

/// The migrated script and the folder migrate ran in (holding the runtime file).
fn migrated(input: &[u8]) -> (Vec<u8>, tempfile::TempDir) {
    let tmp = tempfile::tempdir().expect("tmp");
    let path = write_script(tmp.path(), "s/execute.sh", input);
    let out = run(skillmod(tmp.path()).args(["migrate", "--mode", "capture", "--no-backup", "s"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    (std::fs::read(path).expect("migrated"), tmp)
}

#[test]
fn migrated_skills_report_what_actually_happened_in_bash_and_dash() {
    let schema = Schema::builtin("skill-output-v1").expect("schema");
    let strict = ParseOptions {
        strict: true,
        ..ParseOptions::new(Protocol::Json)
    };
    let mut checked = 0;
    for case in cases() {
        let input = std::fs::read(case.join("input.sh")).expect("input");
        let spec: Value = serde_json::from_str(
            &std::fs::read_to_string(case.join("case.json")).expect("case.json"),
        )
        .expect("json");
        let args: Vec<String> = spec["args"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|a| a.as_str().map(String::from))
            .collect();
        let (after, tree) = migrated(&input);
        for shell in ["bash", "dash"] {
            let name = format!(
                "{} ({shell})",
                case.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default()
            );
            let before = run_in(shell, &input, None, &args);
            let now = run_in(shell, &after, Some(&tree.path().join("s")), &args);
            assert_eq!(
                now.status, before.status,
                "{name}: exit status changed; stderr: {}",
                now.stderr
            );
            assert_eq!(
                now.status,
                spec["exit"].as_i64().map(|s| s as i32),
                "{name}: exit status"
            );
            assert_eq!(now.files, before.files, "{name}: files created differ");
            for line in before.stderr.lines() {
                assert!(
                    now.stderr.contains(line),
                    "{name}: stderr line lost: {line}\nnow: {}",
                    now.stderr
                );
            }
            for wanted in spec["stderr_contains"].as_array().into_iter().flatten() {
                let wanted = wanted.as_str().expect("string");
                assert!(
                    now.stderr.contains(wanted),
                    "{name}: stderr lacks {wanted}: {}",
                    now.stderr
                );
            }
            let outcome = check_output(&now.stdout, &strict, &schema);
            assert!(
                outcome.valid,
                "{name}: stdout is not one valid document: {:?}\n{}",
                outcome.errors, now.stdout
            );
            let doc = outcome.value.expect("value");
            for (key, want) in spec["json"].as_object().into_iter().flatten() {
                assert_eq!(&doc[key], want, "{name}: field {key}\n{doc}");
            }
            for (key, want) in spec["metrics"].as_object().into_iter().flatten() {
                assert_eq!(&doc["metrics"][key], want, "{name}: metric {key}");
            }
            assert!(
                doc["metrics"]["execution_time_ms"].as_u64().is_some(),
                "{name}: no execution time"
            );
            let codes = error_codes(&doc["errors"]);
            let want_codes: Vec<&str> = spec["error_codes"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|c| c.as_str())
                .collect();
            assert_eq!(codes, want_codes, "{name}: error codes");
            if let Some(status) = now.status.filter(|s| *s != 0) {
                assert_eq!(
                    doc["errors"][0]["context"]["status"], status,
                    "{name}: status in context"
                );
            }
            for absent in spec["absent"].as_array().into_iter().flatten() {
                let absent = absent.as_str().expect("string");
                assert!(!now.files.contains(absent), "{name}: {absent} exists");
            }
            checked += 1;
        }
    }
    assert!(checked >= 34, "only {checked} runs checked");
}

#[test]
fn capture_works_with_every_template() {
    let input =
        std::fs::read(fixtures().join("capture/early_exit_with_status/input.sh")).expect("input");
    for (template, schema, protocol) in [
        ("skill-output-v1", "skill-output-v1", Protocol::Json),
        ("envelope", "skill-report-envelope", Protocol::Json),
        ("final-result", "skill-output-v1", Protocol::FinalResult),
    ] {
        let tmp = tempfile::tempdir().expect("tmp");
        let path = write_script(tmp.path(), "my-skill/execute.sh", &input);
        let out = run(skillmod(tmp.path()).args([
            "migrate",
            "--mode",
            "capture",
            "--no-backup",
            "--template",
            template,
            "my-skill",
        ]));
        assert_eq!(out.status.code(), Some(0), "{template}: {}", stderr(&out));
        let after = std::fs::read(&path).expect("migrated");
        let schema = Schema::builtin(schema).expect("schema");
        let options = ParseOptions {
            strict: true,
            ..ParseOptions::new(protocol)
        };
        for (args, ok) in [(vec![], true), (vec!["fail".to_string()], false)] {
            let ran = run_in("bash", &after, Some(&tmp.path().join("my-skill")), &args);
            let outcome = check_output(&ran.stdout, &options, &schema);
            assert!(
                outcome.valid,
                "{template} {args:?}: {:?}\n{}",
                outcome.errors, ran.stdout
            );
            let doc = outcome.value.expect("value");
            let success = if template == "envelope" {
                &doc["ok"]
            } else {
                &doc["success"]
            };
            assert_eq!(success, &Value::Bool(ok), "{template} {args:?}: {doc}");
            if template == "envelope" && !ok {
                assert_eq!(doc["error"]["code"], "EXIT_STATUS");
            }
        }
    }
}

#[test]
fn dynamic_exit_trap_is_refused_with_a_reason() {
    let tmp = tempfile::tempdir().expect("tmp");
    let text = b"#!/bin/sh\nsig=EXIT\ntrap 'echo bye' $sig\necho SUCCESS\n";
    let path = write_script(tmp.path(), "s/execute.sh", text);
    let out =
        run(skillmod(tmp.path()).args(["migrate", "--mode", "capture", "--format", "json", "s"]));
    assert_eq!(out.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(doc["files"][0]["errors"][0]["code"], "TRAP_UNSUPPORTED");
    assert_eq!(std::fs::read(path).expect("read"), text);
}

#[test]
fn migrated_capture_scripts_pass_syntax_checks_and_stay_idempotent() {
    for case in cases() {
        let input = std::fs::read(case.join("input.sh")).expect("input");
        let tmp = tempfile::tempdir().expect("tmp");
        let path = write_script(tmp.path(), "s/execute.sh", &input);
        run(skillmod(tmp.path()).args(["migrate", "--mode", "capture", "--no-backup", "s"]));
        assert!(syntax_ok("bash", &path), "{}: bash -n", case.display());
        assert!(syntax_ok("dash", &path), "{}: dash -n", case.display());
        let once = std::fs::read(&path).expect("read");
        let again = run(skillmod(tmp.path()).args([
            "migrate",
            "--mode",
            "capture",
            "--format",
            "json",
            "--no-backup",
            "s",
        ]));
        let doc: Value = serde_json::from_slice(&again.stdout).expect("json");
        assert_eq!(doc["files"][0]["status"], "already_migrated");
        assert_eq!(std::fs::read(&path).expect("read"), once);
    }
}

#[test]
fn stdout_writes_are_reported_and_captured_output_is_untouched() {
    let tmp = tempfile::tempdir().expect("tmp");
    let text = b"#!/bin/sh\necho \"Processing...\"\nx=$(printf 'data')\nprintf '%s\\n' \"$x\" > out.txt\ncat out.txt\necho SUCCESS\n";
    write_script(tmp.path(), "s/execute.sh", text);
    let out = run(skillmod(tmp.path()).args(["migrate", "--dry-run", "--format", "json", "s"]));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    let writes: Vec<(u64, &str)> = doc["files"][0]["stdout_writes"]
        .as_array()
        .expect("stdout_writes")
        .iter()
        .map(|w| {
            (
                w["line"].as_u64().unwrap_or(0),
                w["kind"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(writes, [(2, "stdout_write"), (5, "stdout_write")]);
    // Before migration: one note naming both lines, not a warning each.
    let check = run(skillmod(tmp.path()).args(["check", "s"]));
    assert!(
        stdout(&check).contains("s/execute.sh:2:1: SKM002 2 other stdout write(s) (line 2, 5)"),
        "{}",
        stdout(&check)
    );
    // Once migrated, the runtime sends them to stderr: check has nothing to say about them.
    run(skillmod(tmp.path()).args(["migrate", "--no-backup", "s"]));
    let check = run(skillmod(tmp.path()).args(["check", "s"]));
    assert_eq!(check.status.code(), Some(0), "{}", stdout(&check));
    assert!(!stdout(&check).contains("SKM002"), "{}", stdout(&check));
}

#[test]
fn every_template_output_is_judged_the_same_by_every_protocol_and_strictness() {
    let input = b"#!/bin/sh\necho \"Created: a.txt\"\nif [ \"${1:-}\" = fail ]; then exit 3; fi\necho SUCCESS\n";
    for (template, schema, own) in [
        ("skill-output-v1", "skill-output-v1", Protocol::Json),
        ("envelope", "skill-report-envelope", Protocol::Json),
        ("final-result", "skill-output-v1", Protocol::FinalResult),
    ] {
        let schema = Schema::builtin(schema).expect("schema");
        for mode in ["capture", "comment"] {
            let tmp = tempfile::tempdir().expect("tmp");
            let path = write_script(tmp.path(), "my-skill/execute.sh", input);
            let out = run(skillmod(tmp.path()).args([
                "migrate",
                "--mode",
                mode,
                "--no-backup",
                "--template",
                template,
                "my-skill",
            ]));
            assert_eq!(
                out.status.code(),
                Some(0),
                "{template} {mode}: {}",
                stderr(&out)
            );
            let after = std::fs::read(&path).expect("migrated");
            let runs: Vec<Vec<String>> = match mode {
                "capture" => vec![vec![], vec!["fail".to_string()]],
                _ => vec![vec![]],
            };
            for args in runs {
                let printed =
                    run_in("sh", &after, Some(&tmp.path().join("my-skill")), &args).stdout;
                for protocol in [
                    Protocol::Auto,
                    Protocol::Json,
                    Protocol::Fenced,
                    Protocol::FinalResult,
                ] {
                    for strict in [false, true] {
                        let options = ParseOptions {
                            strict,
                            ..ParseOptions::new(protocol)
                        };
                        let outcome = check_output(&printed, &options, &schema);
                        let accepts = protocol == Protocol::Auto || protocol == own;
                        assert_eq!(
                            outcome.value.is_some() && outcome.errors.iter().all(|e| e.code != "PARSE_ERROR" && e.code != "NO_OUTPUT_FOUND"),
                            accepts,
                            "{template} {mode} {args:?} {protocol:?} strict={strict}: {:?}\n{printed}",
                            outcome.errors
                        );
                        if accepts {
                            assert!(
                                outcome.valid,
                                "{template} {mode} {args:?} {protocol:?} strict={strict}: {:?}",
                                outcome.errors
                            );
                        }
                    }
                }
            }
        }
    }
}

// No held stdout (issue 29, point 5): a job the skill leaves running inherits the FIFO the
// runtime's relay reads, not the caller's stdout, so the caller reads the document to its end
// as soon as the skill's main shell is done. Every run gets a process group of its own (a skill's
// `kill 0` must reach nothing of the test's) that is killed afterwards (the jobs left running).

/// A skill migrated in a fresh folder: the folder and the script (its runtime file beside it).
fn migrated_skill(text: &str, extra: &[&str]) -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().expect("tmp");
    let path = write_script(tmp.path(), "s/execute.sh", text.as_bytes());
    let mut args = vec!["migrate", "--mode", "capture", "--no-backup"];
    args.extend(extra);
    args.push("s");
    let out = run(skillmod(tmp.path()).args(args));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    (tmp, path)
}

/// The whole stdout, read as `skillmod validate --strict` reads it: exactly one document.
fn one_document(name: &str, stdout: &str) -> Value {
    let schema = Schema::builtin("skill-output-v1").expect("schema");
    let strict = ParseOptions {
        strict: true,
        ..ParseOptions::new(Protocol::Json)
    };
    let outcome = check_output(stdout, &strict, &schema);
    assert!(
        outcome.valid,
        "{name}: stdout is not one valid document: {:?}\n{stdout}",
        outcome.errors
    );
    outcome.value.expect("value")
}

/// `shell script` run in its own process group, stdin empty and stderr discarded (the jobs hold
/// stderr: that is theirs to keep), with `env` set; the group is killed when dropped.
struct Spawned {
    child: std::process::Child,
}

impl Spawned {
    fn new(shell: &str, script: &Path, env: &[(&str, &str)], stdout: std::process::Stdio) -> Self {
        use std::os::unix::process::CommandExt;
        let mut cmd = std::process::Command::new(shell);
        cmd.arg(script)
            .current_dir(script.parent().expect("folder"))
            .stdin(std::process::Stdio::null())
            .stdout(stdout)
            .stderr(std::process::Stdio::null())
            .process_group(0);
        for (key, value) in env {
            cmd.env(key, value);
        }
        Spawned {
            child: cmd.spawn().expect("spawn"),
        }
    }

    fn signal(&self, signal: &str) {
        let sent = std::process::Command::new("kill")
            .args([signal, &self.child.id().to_string()])
            .status()
            .expect("kill");
        assert!(sent.success());
    }

    /// The main shell's exit status, within 20 s.
    fn status(&mut self, name: &str) -> Option<i32> {
        use wait_timeout::ChildExt;
        let done = self
            .child
            .wait_timeout(std::time::Duration::from_secs(20))
            .expect("wait");
        done.unwrap_or_else(|| panic!("{name}: the skill is still running after 20 s"))
            .code()
    }
}

impl Drop for Spawned {
    fn drop(&mut self) {
        // The jobs the skill left running (the main shell is gone or going: no matter).
        let group = format!("-{}", self.child.id());
        let _ = std::process::Command::new("kill")
            .args(["-KILL", "--", &group])
            .stderr(std::process::Stdio::null())
            .status();
        let _ = self.child.wait();
    }
}

/// Read the skill's stdout to its end, as `out=$(bash skill.sh)` does (sending the main shell
/// `signal_after.0` after `signal_after.1` ms, if given): the time that took, what it read and
/// the exit status.
fn read_to_eof(
    name: &str,
    shell: &str,
    script: &Path,
    env: &[(&str, &str)],
    signal_after: Option<(&str, u64)>,
) -> (std::time::Duration, String, Option<i32>) {
    use std::io::Read;
    // A TMPDIR of its own (unless given), where the relay's folder must not stay behind.
    let temp = tempfile::tempdir().expect("TMPDIR");
    let temp_dir = temp.path().display().to_string();
    let mut env = env.to_vec();
    if !env.iter().any(|(key, _)| *key == "TMPDIR") {
        env.push(("TMPDIR", &temp_dir));
    }
    let started = std::time::Instant::now();
    let mut run = Spawned::new(shell, script, &env, std::process::Stdio::piped());
    let mut pipe = run.child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        pipe.read_to_end(&mut text).expect("read");
        (started.elapsed(), text)
    });
    if let Some((signal, after)) = signal_after {
        std::thread::sleep(std::time::Duration::from_millis(after));
        run.signal(signal);
    }
    let status = run.status(name);
    // EOF must come with the main shell, not with the jobs: a bounded wait for the reader.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !reader.is_finished() {
        assert!(
            std::time::Instant::now() < deadline,
            "{name}: stdout still open 20 s after the skill ended"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let (took, text) = reader.join().expect("reader");
    drop(run);
    assert_eq!(
        left_in(temp.path()),
        Vec::<String>::new(),
        "{name}: left in TMPDIR"
    );
    (took, String::from_utf8_lossy(&text).into_owned(), status)
}

/// Generous: the jobs run 5 s, a skill alone well under 1 s; timed tests must not flake.
const SOON: std::time::Duration = std::time::Duration::from_secs(3);

#[test]
fn jobs_left_running_do_not_hold_the_callers_stdout() {
    let skills = [
        (
            "sleep in the background",
            "#!/bin/sh\nsleep 5 &\necho \"Created: a.txt\"\necho SUCCESS\n",
        ),
        (
            "a subshell job and a nohup daemon that redirects nothing",
            "#!/bin/sh\n( sleep 5 ) &\nnohup sleep 5 &\necho working\necho \"Created: a.txt\"\necho SUCCESS\n",
        ),
    ];
    for (what, text) in skills {
        let (_tmp, script) = migrated_skill(text, &[]);
        for shell in ["bash", "dash"] {
            let name = format!("{what} ({shell})");
            let (took, stdout, status) = read_to_eof(&name, shell, &script, &[], None);
            assert!(took < SOON, "{name}: stdout reached EOF after {took:?}");
            assert_eq!(status, Some(0), "{name}");
            let doc = one_document(&name, &stdout);
            assert_eq!(doc["success"], true, "{name}: {doc}");
            assert_eq!(doc["deliverables"], serde_json::json!(["a.txt"]), "{name}");
        }
    }
}

#[test]
fn stdout_to_a_file_holds_the_whole_document_when_the_shell_exits() {
    // `bash skill.sh > out.json; cat out.json`: the relay has written the document before the
    // main shell exits, every time.
    let text = "#!/bin/sh\nsleep 5 &\necho noise\necho \"Created: a.txt\"\necho SUCCESS\n";
    let (tmp, script) = migrated_skill(text, &[]);
    let out = tmp.path().join("out.json");
    for shell in ["bash", "dash"] {
        for round in 0..50 {
            let name = format!("{shell} round {round}");
            let file = std::fs::File::create(&out).expect("out");
            let status = Spawned::new(shell, &script, &[], file.into()).status(&name);
            assert_eq!(status, Some(0), "{name}");
            let printed = std::fs::read_to_string(&out).expect("read");
            let doc = one_document(&name, &printed);
            assert_eq!(doc["deliverables"], serde_json::json!(["a.txt"]), "{name}");
        }
    }
}

#[test]
fn a_skill_that_waits_for_its_jobs_still_finishes() {
    // The relay is no job of the skill: a bare `wait` does not wait for it (which would never end).
    let text = "#!/bin/sh\nsleep 0.2 &\n( echo from a job ) &\nwait\necho \"Created: a.txt\"\necho SUCCESS\n";
    let (_tmp, script) = migrated_skill(text, &[]);
    for shell in ["bash", "dash"] {
        let (took, stdout, status) = read_to_eof(shell, shell, &script, &[], None);
        assert!(took < SOON, "{shell}: took {took:?}");
        assert_eq!(status, Some(0), "{shell}");
        assert_eq!(one_document(shell, &stdout)["success"], true, "{shell}");
    }
}

#[test]
fn an_exit_trap_that_kills_the_jobs_or_the_group_still_gets_its_document() {
    // `kill $(jobs -p)` and `kill 0` (which reaches the relay and the shell too) in the skill's
    // own EXIT trap, at once after the job started (a job bash has forked but not yet started its
    // command runs the traps it inherited: it prints no document). `kill 0` ends the original
    // script with SIGTERM: status 143, and the document says so. The widely copied cleanup that
    // resets TERM first and kills the group, set for INT and TERM too, ended the shell before the
    // document (a trial's empty stdout): the runtime's own signal traps guard it while the EXIT
    // trap runs, and the trap's `trap - TERM` keeps them. (dash's `trap` takes no `SIG` names:
    // that form is bash's.)
    let both: &[&str] = &["bash", "dash"];
    let cases = [
        ("kill $(jobs -p) 2>/dev/null", "EXIT", 0, true, both),
        ("kill 0", "EXIT", 143, false, both),
        ("trap - TERM && kill -- -$$", "EXIT", 143, false, both),
        (
            "trap - TERM && kill -- -$$",
            "INT TERM EXIT",
            143,
            false,
            both,
        ),
        (
            "trap - SIGTERM && kill -- -$$",
            "SIGINT SIGTERM EXIT",
            143,
            false,
            &["bash"],
        ),
    ];
    for (cleanup, signals, want_status, want_success, shells) in cases {
        let text = format!(
            "#!/bin/sh\ntrap '{cleanup}' {signals}\nsleep 5 &\nsleep 5 &\necho \"Created: a.txt\"\necho SUCCESS\n"
        );
        let (_tmp, script) = migrated_skill(&text, &[]);
        for &shell in shells {
            for round in 0..10 {
                let name = format!("{cleanup} ({shell}, round {round})");
                let (took, stdout, status) = read_to_eof(&name, shell, &script, &[], None);
                assert!(took < SOON, "{name}: took {took:?}");
                assert_eq!(status, Some(want_status), "{name}");
                let doc = one_document(&name, &stdout);
                assert_eq!(doc["success"], want_success, "{name}: {doc}");
                assert_eq!(doc["deliverables"], serde_json::json!(["a.txt"]), "{name}");
                if !want_success {
                    assert_eq!(doc["errors"][0]["code"], "SIGNAL", "{name}: {doc}");
                    assert_eq!(doc["errors"][0]["context"]["status"], 143, "{name}");
                }
            }
        }
    }
}

#[test]
fn sigterm_with_jobs_running_still_ends_with_the_signal_document() {
    // A loop of builtins takes the signal at once (a foreground command would delay it).
    let text =
        "#!/bin/sh\nsleep 30 &\necho \"Created: a.txt\"\nwhile :; do :; done\necho SUCCESS\n";
    let (_tmp, script) = migrated_skill(text, &[]);
    for shell in ["bash", "dash"] {
        let (took, stdout, status) = read_to_eof(shell, shell, &script, &[], Some(("-TERM", 300)));
        assert!(took < SOON, "{shell}: took {took:?}");
        assert_eq!(status, Some(143), "{shell}");
        let doc = one_document(shell, &stdout);
        assert_eq!(doc["success"], false, "{shell}");
        assert_eq!(doc["errors"][0]["code"], "SIGNAL", "{shell}: {doc}");
        assert_eq!(doc["errors"][0]["context"]["signal"], "TERM", "{shell}");
        assert_eq!(doc["deliverables"], serde_json::json!(["a.txt"]), "{shell}");
    }
}

/// The entries of `dir`, once the relay has had time to remove its folder.
fn left_in(dir: &Path) -> Vec<String> {
    let list = || -> Vec<String> {
        std::fs::read_dir(dir)
            .expect("read_dir")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect()
    };
    for _ in 0..200 {
        if list().is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    list()
}

#[test]
fn the_relay_leaves_no_folder_and_without_a_fifo_the_runtime_works_as_before() {
    let text = "#!/bin/sh\necho noise\necho \"Created: a.txt\"\necho SUCCESS\n";
    let (tmp, script) = migrated_skill(text, &[]);
    // A fake mkfifo that fails, as on a file system without FIFOs.
    let shim = tmp.path().join("shim");
    write_script(&shim, "mkfifo", b"#!/bin/sh\nexit 1\n");
    let path = format!(
        "{}:{}",
        shim.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let temp = tempfile::tempdir().expect("TMPDIR");
    let temp_dir = temp.path().display().to_string();
    let missing = tmp.path().join("no-such-folder").display().to_string();
    for shell in ["bash", "dash"] {
        for (what, env) in [
            ("the relay", vec![("TMPDIR", temp_dir.as_str())]),
            ("no TMPDIR", vec![("TMPDIR", missing.as_str())]),
            (
                "no mkfifo",
                vec![("TMPDIR", temp_dir.as_str()), ("PATH", path.as_str())],
            ),
        ] {
            let name = format!("{what} ({shell})");
            let (_, stdout, status) = read_to_eof(&name, shell, &script, &env, None);
            assert_eq!(status, Some(0), "{name}");
            let doc = one_document(&name, &stdout);
            assert_eq!(doc["deliverables"], serde_json::json!(["a.txt"]), "{name}");
            assert_eq!(left_in(temp.path()), Vec::<String>::new(), "{name}");
        }
    }
    // --keep-stdout keeps 0.1.0's output and starts no relay.
    let (_keep, script) = migrated_skill(text, &["--keep-stdout"]);
    for shell in ["bash", "dash"] {
        let env = [("TMPDIR", temp_dir.as_str())];
        let (_, stdout, status) = read_to_eof(shell, shell, &script, &env, None);
        assert_eq!(status, Some(0), "{shell}");
        assert!(stdout.starts_with("noise\n{"), "{shell}: {stdout}");
        assert_eq!(left_in(temp.path()), Vec::<String>::new(), "{shell}");
    }
}

/// The same cleanup written as a function (its `trap - TERM` is code the runtime's alias does not
/// reach: migrate takes every `trap` of TERM, INT or HUP over too), and an EXIT trap that ignores
/// TERM before signalling itself: the first ends with the SIGNAL document (status 143, as the
/// original), the second with its success (status 0, as the original, which ignored the signal).
#[test]
fn a_cleanup_function_resetting_term_and_an_exit_trap_ignoring_it_keep_the_original_outcome() {
    let cases = [
        (
            "#!/bin/sh\ncleanup() { trap - TERM; rm -f tmp.x; kill -- -$$; }\ntrap cleanup INT TERM EXIT\ntouch a.txt\necho \"Created: a.txt\"\necho SUCCESS\n",
            143,
            false,
        ),
        (
            "#!/bin/sh\ntrap 'trap \"\" INT HUP TERM; kill -TERM $$' EXIT\ntouch a.txt\necho \"Created: a.txt\"\necho SUCCESS\n",
            0,
            true,
        ),
    ];
    for (text, want_status, want_success) in cases {
        let (_tmp, script) = migrated_skill(text, &[]);
        for shell in ["bash", "dash"] {
            let name = format!("{shell}: {text}");
            let (took, stdout, status) = read_to_eof(&name, shell, &script, &[], None);
            assert!(took < SOON, "{name}: took {took:?}");
            assert_eq!(status, Some(want_status), "{name}");
            let doc = one_document(&name, &stdout);
            assert_eq!(doc["success"], want_success, "{name}: {doc}");
            assert_eq!(doc["deliverables"], serde_json::json!(["a.txt"]), "{name}");
        }
    }
}

#[test]
fn a_closed_stdout_keeps_the_original_status_and_never_hangs() {
    // The caller closed stdout (`bash skill.sh >&-`): the runtime cannot save it, prints no
    // document, and the result lines fail as the original's echo did (status 1 for the last).
    let text = "#!/bin/sh\ntouch made.txt\necho \"Created: made.txt\"\necho SUCCESS\n";
    for (shell, extra) in [
        ("bash", None),
        ("dash", None),
        ("bash", Some("--keep-stdout")),
        ("dash", Some("--keep-stdout")),
    ] {
        let (tmp, script) = migrated_skill(text, &extra.into_iter().collect::<Vec<_>>());
        let original = tmp.path().join("original.sh");
        std::fs::write(&original, text).expect("write original");
        let mut statuses = Vec::new();
        for path in [&original, &script] {
            let folder = tempfile::tempdir().expect("tmp");
            // A skill that never ends fails the test here (run_bounded's deadline).
            let out = run_bounded(
                std::process::Command::new("sh")
                    .args(["-c", "\"$0\" \"$1\" >&-", shell])
                    .arg(path)
                    .current_dir(folder.path()),
                20,
            );
            assert_eq!(stdout(&out), "", "{shell}: nothing reaches a closed stdout");
            assert!(
                folder.path().join("made.txt").exists(),
                "{shell}: files kept"
            );
            statuses.push(out.status.code());
        }
        assert_eq!(
            statuses[0], statuses[1],
            "{shell}: the original's exit status"
        );
        assert_eq!(statuses[1], Some(1), "{shell}: the last echo failed");
    }
}

#[test]
fn a_traced_skill_shows_its_own_commands_not_the_runtimes() {
    // User trial: `set -x` made a three-line stderr about 150 lines of the runtime's internals.
    let text =
        "#!/bin/bash\nset -x\ntouch traced.txt\necho \"Created: traced.txt\"\necho SUCCESS\n";
    let (_tmp, script) = migrated_skill(text, &[]);
    for shell in ["bash", "dash"] {
        let folder = tempfile::tempdir().expect("tmp");
        let out = run(std::process::Command::new(shell)
            .arg(&script)
            .current_dir(folder.path()));
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let traced = stderr(&out);
        assert!(traced.contains("+ touch traced.txt"), "{shell}: {traced}");
        let internal = traced
            .lines()
            .filter(|l| l.starts_with('+') && l.contains("__skm_"))
            .filter(|l| !l.starts_with("+ __skm_rec ") && !l.starts_with("+ __skm_emit"))
            .count();
        assert!(
            internal <= 1,
            "{shell}: the runtime's own lines traced:\n{traced}"
        );
        one_document(shell, &stdout(&out));
    }
}
