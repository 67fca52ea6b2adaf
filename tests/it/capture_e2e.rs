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
