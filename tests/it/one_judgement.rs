//! check ⇔ migrate (issue 20): over the fixtures, the bench corpora, generated scripts and the
//! shapes found on public repositories, `migrate` (without `--force`) changes only files `check`
//! flags (SKM001) or scripts sourcing a library it flags (named in SOURCES_LIBRARY); every file
//! check flags is migrated or refused with a code check printed (PARSE_ERROR at the SKM003's
//! line:column, the SKM008 refusals with their own code).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use crate::common::*;
use proptest::prelude::*;
use serde_json::Value;

/// What check said of one file: its findings as (code, line, column, message).
type Findings = BTreeMap<String, Vec<(String, u64, u64, String)>>;

fn check_findings(root: &Path, extra: &[&str]) -> Findings {
    let out = run(skillmod(root)
        .args(["check", "--format", "json", "--no-cache", "--exit-zero"])
        .args(extra)
        .arg("."));
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("check json: {}{}", stdout(&out), stderr(&out)));
    let mut findings = Findings::new();
    // SKM003 (a file check could not judge) is listed under `errors`, its place in the message.
    for e in report["errors"].as_array().expect("errors") {
        let path = e["path"].as_str().expect("path");
        let path = path.strip_prefix("./").unwrap_or(path).to_string();
        let message = e["message"].as_str().unwrap_or("").to_string();
        let place = message
            .strip_prefix("line ")
            .and_then(|m| m.split(':').next().zip(m.split(':').nth(1)))
            .and_then(|(l, c)| Some((l.parse().ok()?, c.parse().ok()?)))
            .unwrap_or((0, 0));
        findings
            .entry(path)
            .or_default()
            .push(("SKM003".to_string(), place.0, place.1, message));
    }
    let listed = report["findings"].as_array().into_iter().flatten();
    for f in listed.chain(report["warnings"].as_array().into_iter().flatten()) {
        let path = f["path"].as_str().expect("path");
        let path = path.strip_prefix("./").unwrap_or(path).to_string();
        findings.entry(path).or_default().push((
            f["code"].as_str().unwrap_or("").to_string(),
            f["line"].as_u64().unwrap_or(0),
            f["column"].as_u64().unwrap_or(0),
            f["message"].as_str().unwrap_or("").to_string(),
        ));
    }
    findings
}

/// How many files the judgement compared, and how many of them check flagged.
#[derive(Debug, Default)]
struct Judged {
    files: usize,
    flagged: usize,
}

/// Hold check ⇔ migrate on the tree at `root`.
fn agree(root: &Path, extra: &[&str]) -> Judged {
    let findings = check_findings(root, extra);
    let mut args = vec!["migrate", "--dry-run"];
    args.extend(extra);
    args.push(".");
    let (_, report) = json_report(root, &args);
    let has = |path: &str, code: &str| {
        findings
            .get(path)
            .is_some_and(|f| f.iter().any(|(c, ..)| c == code))
    };
    let mut judged = Judged::default();
    for file in report["files"].as_array().expect("files") {
        let path = file["path"].as_str().expect("path");
        let path = path.strip_prefix("./").unwrap_or(path);
        let status = file["status"].as_str().expect("status");
        let codes = error_codes(&file["errors"]);
        judged.files += 1;
        let flagged = has(path, "SKM001");
        judged.flagged += usize::from(flagged);
        match status {
            "would_migrate" | "migrated" => {
                let hosted = file["notes"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .find(|n| n["code"] == "SOURCES_LIBRARY");
                let library_flagged = hosted.is_some_and(|note| {
                    let message = note["message"].as_str().unwrap_or("");
                    findings.iter().any(|(p, f)| {
                        let name = Path::new(p).file_name().and_then(|n| n.to_str());
                        name.is_some_and(|n| message.contains(n))
                            && f.iter().any(|(c, ..)| c == "SKM001")
                    })
                });
                // An upgrade of skillmod's own runtime is what SKM007 asks for.
                let upgrade = has(path, "SKM007");
                assert!(
                    flagged || library_flagged || upgrade,
                    "{path}: migrate would change it but check does not flag it (or a library it sources): {file}\n{findings:?}"
                );
            }
            "skipped" | "failed" if flagged => {
                let code = codes.first().copied().unwrap_or("");
                let reported = match code {
                    "PARSE_ERROR" => {
                        let at = file["errors"][0]["message"].as_str().unwrap_or("");
                        findings[path].iter().any(|(c, line, column, _)| {
                            c == "SKM003" && at.contains(&format!("line {line}:{column}"))
                        })
                    }
                    "PRINTS_JSON"
                    | "NAME_CLASH"
                    | "TRAP_UNSUPPORTED"
                    | "DESCRIPTOR_CLASH"
                    | "NO_SHEBANG"
                    | "SUBSHELL_RESULT"
                    | "CAPTURED_AND_PRINTED"
                    | "EXEC_REPLACES_SHELL" => findings[path]
                        .iter()
                        .any(|(c, _, _, m)| c == "SKM008" && m.starts_with(code)),
                    _ => false,
                };
                assert!(
                    reported,
                    "{path}: migrate refuses it with {code}, which check did not print: {file}\n{:?}",
                    findings[path]
                );
            }
            _ => assert!(
                !flagged,
                "{path}: check flags it but migrate says {status}: {file}\n{:?}",
                findings[path]
            ),
        }
        // A parse error migrate refuses at is an SKM003 at the same place, flagged or not.
        if codes.contains(&"PARSE_ERROR") {
            assert!(has(path, "SKM003"), "{path}: PARSE_ERROR without SKM003");
        }
    }
    judged
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).expect("read").flatten() {
        let target = to.join(entry.file_name());
        let kind = entry.file_type().expect("type");
        if kind.is_dir() {
            std::fs::create_dir_all(&target).expect("mkdir");
            copy_tree(&entry.path(), &target);
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

#[test]
fn check_and_migrate_agree_on_the_fixtures() {
    let tmp = tempfile::tempdir().expect("tmp");
    copy_tree(&fixtures(), tmp.path());
    let judged = agree(tmp.path(), &["--include", "*.sh"]);
    assert!(judged.flagged >= 20, "{judged:?}");
}

#[test]
fn check_and_migrate_agree_on_the_bench_corpora() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir().expect("tmp");
    let synthetic = tmp.path().join("synthetic");
    let out = run(Command::new("python3")
        .arg(root.join("bench/gen_corpus.py"))
        .args(["60", synthetic.to_str().expect("utf-8")]));
    assert!(out.status.success(), "{}", stderr(&out));
    let judged = agree(tmp.path(), &[]);
    let generator = root.join("../shared/bench/gen_skills.py");
    if generator.is_file() {
        let realistic = tmp.path().join("realistic");
        let out = run(Command::new("python3")
            .arg(&generator)
            .args(["60", realistic.to_str().expect("utf-8")]));
        assert!(out.status.success(), "{}", stderr(&out));
        let both = agree(tmp.path(), &[]);
        assert!(both.flagged > judged.flagged, "{both:?} {judged:?}");
        // The original vocabulary reads more lines as legacy; the two still agree.
        agree(tmp.path(), &["--vocabulary", "original"]);
    } else {
        assert!(std::env::var_os("CI").is_none(), "CI has ../shared/bench");
    }
    assert!(judged.flagged >= 10, "{judged:?}");
}

#[test]
fn check_and_migrate_agree_on_shapes_found_in_public_repositories() {
    let tmp = tempfile::tempdir().expect("tmp");
    let shapes: &[(&str, &str)] = &[
        // A log helper printing a marker inside a sourced library is no legacy line.
        (
            "lib/log.sh",
            "log_ok() { echo \"[SUCCESS] $1\"; }\nlog_info() { echo \"[INFO] $1\"; }\n",
        ),
        (
            "skills/uses-log/execute.sh",
            "#!/bin/bash\nsource \"$(dirname \"$0\")/../../lib/log.sh\"\nlog_ok done\n",
        ),
        // A library with a real legacy line: the script sourcing it gets the runtime.
        (
            "lib/finish.sh",
            "finish() { echo \"Created: $1\"; echo SUCCESS; }\n",
        ),
        (
            "skills/uses-finish/execute.sh",
            "#!/bin/bash\n. \"$(dirname \"$0\")/../../lib/finish.sh\"\nfinish out.md\n",
        ),
        // Misreads tree-sitter-bash is given masked bytes for.
        (
            "skills/misreads/execute.sh",
            "#!/bin/bash\nx=08\necho $((10#$x))\ngrep -q a >/dev/null <<<\"$s\" || true\necho SUCCESS\n",
        ),
        // Its own --json mode: a second document would follow the first.
        (
            "skills/json-mode/execute.sh",
            "#!/bin/bash\nif [ \"${1:-}\" = --json ]; then\n  echo '{\"success\": true}'\n  exit 0\nfi\necho \"Created: a.md\"\necho SUCCESS\n",
        ),
        (
            "skills/json-heredoc/execute.sh",
            "#!/bin/sh\nif [ -n \"$JSON\" ]; then\ncat <<EOF\n{\n  \"ok\": true\n}\nEOF\nfi\necho COMPLETE\n",
        ),
        // It runs itself again through `exec`: the document would never be printed.
        (
            "skills/reexec/execute.sh",
            "#!/bin/bash\nif [ -z \"${AGAIN:-}\" ]; then AGAIN=1 exec bash \"$0\" \"$@\"; fi\necho SUCCESS\n",
        ),
        // Capture's own refusals.
        (
            "skills/clash/execute.sh",
            "#!/bin/sh\n__skm_mine=1\necho SUCCESS\n",
        ),
        (
            "skills/dynamic-trap/execute.sh",
            "#!/bin/bash\nSIGS=\"EXIT INT\"\ntrap cleanup $SIGS\necho SUCCESS\n",
        ),
        (
            "skills/fd8/execute.sh",
            "#!/bin/bash\nexec 8>\"$HOME/.log\"\necho note >&8\necho SUCCESS\n",
        ),
        // A real parse error near a marker.
        (
            "skills/broken/execute.sh",
            "#!/bin/bash\nif true; then\n  echo SUCCESS\n",
        ),
    ];
    for (rel, text) in shapes {
        write_script(tmp.path(), rel, text.as_bytes());
    }
    let extra = ["--include", "*.sh"];
    agree(tmp.path(), &extra);
    let findings = check_findings(tmp.path(), &extra);
    assert!(!findings.contains_key("lib/log.sh"), "{findings:?}");
    assert!(!findings.contains_key("skills/uses-log/execute.sh"));
    let (_, report) = json_report(
        tmp.path(),
        &["migrate", "--dry-run", "--include", "*.sh", "."],
    );
    let status = |rel: &str| -> (String, Vec<String>) {
        let file = report["files"]
            .as_array()
            .expect("files")
            .iter()
            .find(|f| f["path"].as_str().is_some_and(|p| p.ends_with(rel)))
            .unwrap_or_else(|| panic!("{rel} in {report}"));
        let codes = file["errors"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|e| e["code"].as_str().map(String::from))
            .collect();
        (file["status"].as_str().unwrap_or("").to_string(), codes)
    };
    assert_eq!(status("uses-log/execute.sh").0, "no_legacy");
    assert_eq!(status("uses-finish/execute.sh").0, "would_migrate");
    assert_eq!(status("misreads/execute.sh").0, "would_migrate");
    for (rel, code) in [
        ("json-mode/execute.sh", "PRINTS_JSON"),
        ("json-heredoc/execute.sh", "PRINTS_JSON"),
        ("clash/execute.sh", "NAME_CLASH"),
        ("dynamic-trap/execute.sh", "TRAP_UNSUPPORTED"),
        ("fd8/execute.sh", "DESCRIPTOR_CLASH"),
        ("broken/execute.sh", "PARSE_ERROR"),
    ] {
        // Refused before any edit (skipped) or while planning (failed); never rewritten.
        let (state, codes) = status(rel);
        assert_eq!(codes, [code], "{rel}");
        assert!(state == "skipped" || state == "failed", "{rel}: {state}");
    }
    let codes: BTreeSet<&str> = findings
        .values()
        .flatten()
        .map(|(c, ..)| c.as_str())
        .collect();
    assert!(
        codes.contains("SKM008") && codes.contains("SKM003"),
        "{codes:?}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn check_and_migrate_agree_on_generated_scripts(
        scripts in prop::collection::vec(prop::collection::vec((0usize..64, 0usize..3), 1..12), 4..8),
    ) {
        let tmp = tempfile::tempdir().expect("tmp");
        for (i, picks) in scripts.iter().enumerate() {
            write_script(tmp.path(), &format!("s{i}/execute.sh"), generated_script(picks).as_bytes());
        }
        let judged = agree(tmp.path(), &[]);
        prop_assert_eq!(judged.files, scripts.len());
    }
}

/// Every finding of a check over `root` with a fix command, as (path, code, fix).
fn fixes(root: &Path, extra: &[&str]) -> BTreeSet<(String, String, String)> {
    let out = run(skillmod(root)
        .args(["check", "--format", "json", "--no-cache", "--exit-zero"])
        .args(extra)
        .arg("."));
    let report: Value = serde_json::from_slice(&out.stdout).expect("check json");
    let listed = report["findings"].as_array().into_iter().flatten();
    listed
        .chain(report["warnings"].as_array().into_iter().flatten())
        .filter_map(|f| {
            let path = f["path"].as_str()?;
            Some((
                path.strip_prefix("./").unwrap_or(path).to_string(),
                f["code"].as_str()?.to_string(),
                f["fix"].as_str()?.to_string(),
            ))
        })
        .collect()
}

/// Run a command line as a user would paste it, with this skillmod first on PATH.
fn run_as_printed(root: &Path, line: &str) -> std::process::Output {
    let bin = Path::new(env!("CARGO_BIN_EXE_skillmod"))
        .parent()
        .expect("bin folder")
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    run(Command::new("sh")
        .args(["-c", line])
        .current_dir(root)
        .env("PATH", path)
        .env("NO_COLOR", "1"))
}

#[test]
fn every_fix_check_prints_works_or_meets_an_explained_refusal() {
    let tmp = tempfile::tempdir().expect("tmp");
    copy_tree(&fixtures(), &tmp.path().join("fixtures"));
    // SKM007's fix needs a migrated skill whose runtime file is gone.
    write_script(
        tmp.path(),
        "gone/s/execute.sh",
        b"#!/bin/sh\necho SUCCESS\n",
    );
    let (_, _) = json_report(&tmp.path().join("gone"), &["migrate", "."]);
    std::fs::remove_file(tmp.path().join("gone/s/skillmod-runtime.sh")).expect("rm runtime");
    let generator = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/bench/gen_skills.py");
    if generator.is_file() {
        let out = run(Command::new("python3")
            .arg(&generator)
            .args(["30"])
            .arg(tmp.path().join("realistic")));
        assert!(out.status.success());
    }
    let extra = ["--include", "*.sh"];
    let before = fixes(tmp.path(), &extra);
    let codes: BTreeSet<&str> = before.iter().map(|(_, c, _)| c.as_str()).collect();
    assert!(
        ["SKM001", "SKM002", "SKM007"]
            .iter()
            .all(|c| codes.contains(c)),
        "{codes:?}"
    );
    let commands: BTreeSet<&str> = before.iter().map(|(_, _, f)| f.as_str()).collect();
    for command in &commands {
        assert!(command.starts_with("skillmod migrate "), "{command}");
        run_as_printed(tmp.path(), &format!("{command} --include '*.sh'"));
    }
    // After the fixes, each finding is gone, or the file carries the refusal check printed
    // beside it before (SKM003, SKM008).
    let findings = check_findings(tmp.path(), &extra);
    let before_all = {
        // What check said before, per file: a refusal it had printed.
        let mut refused = BTreeSet::new();
        for (path, found) in &findings {
            if found.iter().any(|(c, ..)| c == "SKM003" || c == "SKM008") {
                refused.insert(path.clone());
            }
        }
        refused
    };
    for (path, code, fix) in &before {
        let left = findings
            .get(path)
            .is_some_and(|f| f.iter().any(|(c, ..)| c == code));
        assert!(
            !left || before_all.contains(path),
            "{path}: {code} is still reported after `{fix}`: {:?}",
            findings.get(path)
        );
    }
}

#[test]
fn refusal_hints_lead_somewhere() {
    let tmp = tempfile::tempdir().expect("tmp");
    // NAME_CLASH and TRAP_UNSUPPORTED say: migrate with --mode comment.
    write_script(
        tmp.path(),
        "a/execute.sh",
        b"#!/bin/sh\n__skm_mine=1\necho SUCCESS\n",
    );
    write_script(
        tmp.path(),
        "b/execute.sh",
        b"#!/bin/bash\nSIGS=\"EXIT INT\"\ntrap 'rm -f x' $SIGS\necho SUCCESS\n",
    );
    for rel in ["a/execute.sh", "b/execute.sh"] {
        let (_, report) = json_report(tmp.path(), &["migrate", "--mode", "comment", rel]);
        assert_eq!(report["files"][0]["status"], "migrated", "{report}");
    }
    // PRINTS_JSON says: suppress the legacy lines.
    let script = b"#!/bin/bash\nif [ \"${1:-}\" = --json ]; then echo '{\"success\": true}'; exit 0; fi\necho SUCCESS\n";
    write_script(tmp.path(), "c/execute.sh", script);
    let (_, report) = json_report(tmp.path(), &["migrate", "c/execute.sh"]);
    assert_eq!(report["files"][0]["errors"][0]["code"], "PRINTS_JSON");
    let message = report["files"][0]["errors"][0]["message"]
        .as_str()
        .unwrap_or("");
    assert!(message.contains("# skillmod: ignore[SKM001]"), "{message}");
    let suppressed = String::from_utf8_lossy(script).replace(
        "echo SUCCESS\n",
        "echo SUCCESS # skillmod: ignore[SKM001]\n",
    );
    write_script(tmp.path(), "c/execute.sh", suppressed.as_bytes());
    let findings = check_findings(tmp.path(), &[]);
    assert!(!findings.contains_key("c/execute.sh"), "{findings:?}");
    let (_, report) = json_report(tmp.path(), &["migrate", "c/execute.sh"]);
    assert_eq!(report["files"][0]["status"], "no_legacy", "{report}");
    // validate's STRAY_OUTPUT says: send the other text to stderr.
    let noisy = b"#!/bin/bash\necho working\necho '{\"success\":true,\"confidence\":0.9,\"deliverables\":[],\"metrics\":{},\"errors\":[]}'\n";
    write_script(tmp.path(), "d/execute.sh", noisy);
    let out = run(skillmod(tmp.path()).args(["validate", "--run", "d/execute.sh"]));
    assert!(stdout(&out).contains("STRAY_OUTPUT"), "{}", stdout(&out));
    let quiet = String::from_utf8_lossy(noisy).replace("echo working\n", "echo working >&2\n");
    write_script(tmp.path(), "d/execute.sh", quiet.as_bytes());
    let out = run(skillmod(tmp.path()).args(["validate", "--strict", "--run", "d/execute.sh"]));
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}

#[test]
fn descriptor_8_is_refused_unless_stdout_is_kept() {
    let tmp = tempfile::tempdir().expect("tmp");
    let script = b"#!/bin/bash\nexec 8>log.txt\necho note >&8\necho SUCCESS\n";
    write_script(tmp.path(), "s/execute.sh", script);
    let findings = check_findings(tmp.path(), &[]);
    assert!(
        findings["s/execute.sh"]
            .iter()
            .any(|(c, line, _, m)| c == "SKM008"
                && *line == 2
                && m.starts_with("DESCRIPTOR_CLASH")),
        "{findings:?}"
    );
    // The `keep-stdout` setting: the runtime leaves descriptor 8 alone, and check agrees.
    std::fs::write(tmp.path().join("skillmod.toml"), "keep-stdout = true\n").expect("settings");
    let findings = check_findings(tmp.path(), &[]);
    assert!(
        findings["s/execute.sh"].iter().all(|(c, ..)| c == "SKM001"),
        "{findings:?}"
    );
    agree(tmp.path(), &[]);
    let (_, report) = json_report(tmp.path(), &["migrate", "."]);
    assert_eq!(report["files"][0]["status"], "migrated", "{report}");
    let migrated = std::fs::read_to_string(tmp.path().join("s/execute.sh")).expect("read");
    assert!(
        migrated
            .lines()
            .nth(1)
            .is_some_and(|l| l.contains("__skm_stdout=keep"))
    );
    let out = run(Command::new("bash")
        .arg(tmp.path().join("s/execute.sh"))
        .current_dir(tmp.path()));
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).trim_end().ends_with('}'), "{}", stdout(&out));
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("log.txt")).expect("log"),
        "note\n"
    );
}

/// A script check fails with SKM008 fails migrate too: exit 1 and `failed` (a trial's migrate
/// said NOTHING_CHECKED, exit 2, for a lone `PRINTS_JSON` script that check failed with 1).
#[test]
fn a_refused_script_fails_migrate_as_it_fails_check() {
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(
        tmp.path(),
        "s/execute.sh",
        b"#!/bin/bash\nif [ \"${1:-}\" = --json ]; then echo '{\"ok\": true}'; exit 0; fi\necho SUCCESS\n",
    );
    let check = run(skillmod(tmp.path()).args(["check", "s"]));
    assert_eq!(check.status.code(), Some(1), "{}", stdout(&check));
    assert!(
        stdout(&check).contains("SKM008 PRINTS_JSON"),
        "{}",
        stdout(&check)
    );
    let (code, report) = json_report(tmp.path(), &["migrate", "--no-backup", "s"]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(report["files"][0]["status"], "failed", "{report}");
    assert_eq!(error_codes(&report["files"][0]["errors"]), ["PRINTS_JSON"]);
}

#[test]
fn exec_running_a_command_in_the_scripts_shell_is_refused_in_capture_mode() {
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(
        tmp.path(),
        "s/execute.sh",
        b"#!/bin/bash\nif [ -z \"${AGAIN:-}\" ]; then AGAIN=1 exec bash \"$0\" \"$@\"; fi\necho SUCCESS\n",
    );
    // Spelled as the shell still reads it (retrial).
    write_script(
        tmp.path(),
        "u/execute.sh",
        b"#!/bin/bash\n[ -n \"${AGAIN:-}\" ] || AGAIN=1 command exec bash \"$0\"\necho SUCCESS\n",
    );
    write_script(
        tmp.path(),
        "v/execute.sh",
        b"#!/bin/bash\n[ -n \"${AGAIN:-}\" ] || AGAIN=1 \\exec bash \"$0\"\necho SUCCESS\n",
    );
    // `exec` that keeps the shell: redirections alone (after `--` too), or in a subshell, a
    // substitution, a pipe.
    write_script(
        tmp.path(),
        "t/execute.sh",
        b"#!/bin/bash\nexec 2>/dev/null\nexec -- 2>/dev/null\ncommand exec 3>&1\n( exec true )\nx=$(exec date)\nexec cat </dev/null | cat\necho \"$x\" >&2\necho SUCCESS\n",
    );
    let check = run(skillmod(tmp.path()).args(["check", "s", "t", "u", "v"]));
    assert_eq!(check.status.code(), Some(1), "{}", stdout(&check));
    let text = stdout(&check);
    for refused in ["s", "u", "v"] {
        assert!(
            text.contains(&format!(
                "{refused}/execute.sh:2:1: SKM008 EXEC_REPLACES_SHELL"
            )),
            "{text}"
        );
    }
    assert!(
        !text
            .lines()
            .any(|l| l.starts_with("t/execute.sh") && l.contains("SKM008")),
        "{text}"
    );
    let (code, report) = json_report(tmp.path(), &["migrate", "--no-backup", "s", "t"]);
    assert_eq!(code, 1, "{report}");
    let status = |name: &str| report_file(&report, name);
    assert_eq!(status("s/execute.sh")["status"], "failed", "{report}");
    assert_eq!(
        error_codes(&status("s/execute.sh")["errors"]),
        ["EXEC_REPLACES_SHELL"]
    );
    assert_eq!(status("t/execute.sh")["status"], "migrated", "{report}");
}

#[test]
fn a_script_whose_stdout_another_script_of_its_skill_reads_is_refused() {
    // `run.sh` parses `list.sh`'s result lines: migrated, `list.sh` would print a document there
    // (user trial). Both commands refuse it; the caller itself migrates.
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(
        tmp.path(),
        "skills/todo/SKILL.md",
        b"---\nname: todo\n---\n",
    );
    write_script(
        tmp.path(),
        "skills/todo/scripts/list.sh",
        b"#!/bin/bash\nfor i in 1 2; do touch \"item$i\"; echo \"Created: item$i\"; done\n",
    );
    write_script(
        tmp.path(),
        "skills/todo/scripts/run.sh",
        b"#!/bin/bash\nDIR=\"$(dirname \"$0\")\"\nfiles=$(bash \"$DIR/list.sh\" | sed -n 's/^Created: //p')\necho \"$files\" >&2\necho SUCCESS\n",
    );
    let check = run(skillmod(tmp.path()).args(["check", "skills"]));
    assert_eq!(check.status.code(), Some(1), "{}", stdout(&check));
    let text = stdout(&check);
    assert!(
        text.contains("skills/todo/scripts/list.sh:1:1: SKM008 STDOUT_ANSWER")
            && text.contains("run.sh:3, which runs it"),
        "{text}"
    );
    let (code, report) = json_report(tmp.path(), &["migrate", "--no-backup", "skills"]);
    assert_eq!(code, 1, "{report}");
    let file = |name: &str| report_file(&report, name);
    assert_eq!(file("list.sh")["status"], "failed", "{report}");
    assert_eq!(error_codes(&file("list.sh")["errors"]), ["STDOUT_ANSWER"]);
    assert_eq!(file("run.sh")["status"], "migrated", "{report}");
    // The caller still reads the lines it parses, and ends with one document.
    let out = run(std::process::Command::new("bash")
        .arg(tmp.path().join("skills/todo/scripts/run.sh"))
        .current_dir(tmp.path()));
    assert_eq!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("item1\nitem2"), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("one document");
    assert_eq!(doc["success"], true);
}

#[test]
fn a_script_another_script_of_its_skill_runs_plainly_is_refused() {
    // Hostile review: `execute.sh` runs `scripts/a.sh` and `scripts/b.sh` plainly, so their
    // result lines are its output; each migrated on its own printed a document of its own (two
    // on stdout, and check passed). Both commands refuse them (PASSED_ON), wherever the skill
    // folder puts them; one run with its stdout sent away is no such run.
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(tmp.path(), "skill/SKILL.md", b"---\nname: skill\n---\n");
    write_script(
        tmp.path(),
        "skill/scripts/a.sh",
        b"#!/bin/bash\necho \"Created: a.md\"\ntouch a.md\n",
    );
    write_script(
        tmp.path(),
        "skill/scripts/b.sh",
        b"#!/bin/bash\necho \"Confidence: 0.7\"\necho SUCCESS\n",
    );
    write_script(
        tmp.path(),
        "skill/scripts/quiet.sh",
        b"#!/bin/bash\necho \"Created: q.md\"\n",
    );
    let entry = write_script(
        tmp.path(),
        "skill/execute.sh",
        b"#!/bin/bash\nd=$(dirname \"$0\")\nbash \"$d/scripts/a.sh\"\nbash \"$d/scripts/b.sh\"\nbash \"$d/scripts/quiet.sh\" >/dev/null\n",
    );
    let original = run(std::process::Command::new("bash")
        .arg(&entry)
        .current_dir(tmp.path()));
    let (code, check) = json_report(tmp.path(), &["check", "--no-cache", "."]);
    assert_eq!(code, 1, "{check}");
    let passed_on: Vec<&str> = check["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| {
            f["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("PASSED_ON"))
        })
        .filter_map(|f| f["path"].as_str())
        .collect();
    assert_eq!(
        passed_on,
        ["skill/scripts/a.sh", "skill/scripts/b.sh"],
        "{check}"
    );
    let (code, report) = json_report(tmp.path(), &["migrate", "--no-backup", "."]);
    assert_eq!(code, 1, "{report}");
    for name in ["scripts/a.sh", "scripts/b.sh"] {
        assert_eq!(
            error_codes(&report_file(&report, name)["errors"]),
            ["PASSED_ON"],
            "{report}"
        );
    }
    assert_eq!(
        report_file(&report, "quiet.sh")["status"],
        "migrated",
        "{report}"
    );
    // The entry has no legacy line of its own: it prints what it printed, with no document.
    let after = run(std::process::Command::new("bash")
        .arg(&entry)
        .current_dir(tmp.path()));
    assert_eq!(stdout(&after), stdout(&original));
}

#[test]
fn a_script_sourcing_a_library_migrate_refuses_hosts_nothing_of_it() {
    // A new user's trial: `test.sh` sources `tool.sh` and reads its stdout, so `tool.sh` is
    // refused (STDOUT_ANSWER) and records nothing; migrate rewrote `test.sh` anyway, "to host
    // its lines", though check reported nothing there.
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(tmp.path(), "sk/SKILL.md", b"---\nname: sk\n---\n");
    write_script(
        tmp.path(),
        "sk/tool.sh",
        b"#!/usr/bin/env bash\nhelper() { :; }\nif [ \"${1:-}\" = make ]; then touch out.txt; echo \"Created: out.txt\"; fi\n",
    );
    let test = write_script(
        tmp.path(),
        "sk/test.sh",
        b"#!/usr/bin/env bash\nsource \"$(dirname \"$0\")/tool.sh\" help\nR=$(bash \"$(dirname \"$0\")/tool.sh\" make)\necho \"tool said: $R\"\n",
    );
    let before = std::fs::read(&test).expect("test.sh");
    let (_, check) = json_report(tmp.path(), &["check", "--no-cache", "."]);
    let flagged: Vec<&str> = check["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter_map(|f| f["path"].as_str())
        .collect();
    assert!(flagged.iter().all(|p| p.ends_with("tool.sh")), "{check}");
    let (code, report) = json_report(tmp.path(), &["migrate", "--no-backup", "."]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(
        report_file(&report, "tool.sh")["status"],
        "failed",
        "{report}"
    );
    assert_eq!(
        report_file(&report, "test.sh")["status"],
        "no_legacy",
        "{report}"
    );
    assert_eq!(std::fs::read(&test).expect("test.sh"), before);
}

#[test]
fn a_library_outside_the_skill_folder_is_followed_by_check_and_migrate() {
    // User trial: `finish 0.75` prints its confidence through lib/common.sh, which no walk
    // selects (no skill folder holds it): check said "All clear" and the document lost 0.75.
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(tmp.path(), "skills/a/SKILL.md", b"---\nname: a\n---\n");
    write_script(
        tmp.path(),
        "lib/common.sh",
        b"finish() { echo \"Confidence: ${1:-0.8}\"; echo SUCCESS; }\n",
    );
    write_script(
        tmp.path(),
        "skills/a/scripts/run.sh",
        b"#!/bin/bash\nsource \"$(dirname \"$0\")/../../../lib/common.sh\"\nfinish 0.75\n",
    );
    // An excluded library stays out.
    let excluded = run(skillmod(tmp.path()).args(["check", "--exclude", "lib", "."]));
    assert_eq!(excluded.status.code(), Some(0), "{}", stdout(&excluded));
    let check = run(skillmod(tmp.path()).args(["check", "."]));
    assert_eq!(check.status.code(), Some(1), "{}", stdout(&check));
    assert!(
        stdout(&check)
            .lines()
            .any(|l| l.starts_with("lib/common.sh:1:12: SKM001 confidence")),
        "{}",
        stdout(&check)
    );
    let (code, report) = json_report(tmp.path(), &["migrate", "--no-backup", "."]);
    assert_eq!(code, 0, "{report}");
    let out = run(std::process::Command::new("bash")
        .arg(tmp.path().join("skills/a/scripts/run.sh"))
        .current_dir(tmp.path()));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("one document");
    assert_eq!(doc["confidence"], 0.75, "{doc}");
    assert_eq!(doc["success"], true, "{doc}");
}

#[test]
fn a_printf_whose_words_change_the_shell_is_refused_in_capture_mode() {
    // Retrial: `$(printf … "$((n++))")` lost the increment, `${OUT:=…}` the assignment.
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(
        tmp.path(),
        "s/execute.sh",
        b"#!/bin/bash\nn=1\nprintf 'Created: file%d.txt\\n' \"$((n++))\"\ntouch \"file$n.txt\"\necho SUCCESS\n",
    );
    write_script(
        tmp.path(),
        "t/execute.sh",
        b"#!/bin/sh\nprintf 'Created: %s\\n' \"${OUT:=out.txt}\"\ntouch \"$OUT\"\necho SUCCESS\n",
    );
    // Reading alone changes nothing.
    write_script(
        tmp.path(),
        "u/execute.sh",
        b"#!/bin/sh\nprintf 'Created: %s\\n' \"${OUT:-out.txt}\" \"$((1 == 1))\"\necho SUCCESS\n",
    );
    let check = run(skillmod(tmp.path()).args(["check", "s", "t", "u"]));
    let text = stdout(&check);
    for refused in ["s/execute.sh:3:1", "t/execute.sh:2:1"] {
        assert!(
            text.contains(&format!("{refused}: SKM008 SUBSHELL_RESULT")),
            "{text}"
        );
    }
    assert!(!text.contains("u/execute.sh:2:1: SKM008"), "{text}");
    let (code, report) = json_report(tmp.path(), &["migrate", "--no-backup", "s", "t", "u"]);
    assert_eq!(code, 1, "{report}");
    let statuses: Vec<_> = report["files"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| f["status"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(statuses, ["failed", "failed", "migrated"], "{report}");
}

#[test]
fn a_printer_spelled_with_quotes_or_a_backslash_is_migrated_as_check_reports_it() {
    // `e"ch"o SUCCESS` holds no `echo` for the byte scan: check parsed it for its marker and
    // reported it, migrate skipped it as "no legacy", so check could never pass (hostile review).
    for line in [
        "e\"ch\"o SUCCESS",
        "e\\cho SUCCESS",
        "/bin/ech\"o\" SUCCESS",
    ] {
        let tmp = tempfile::tempdir().expect("tmp");
        let text = format!("#!/bin/bash\n{line}\n");
        let script = write_script(tmp.path(), "s/execute.sh", text.as_bytes());
        let (code, _) = json_report(tmp.path(), &["check", "--no-cache", "s"]);
        assert_eq!(code, 1, "{line}");
        let (code, report) = json_report(tmp.path(), &["migrate", "--no-backup", "s"]);
        assert_eq!(code, 0, "{line}: {report}");
        assert_eq!(report["files"][0]["status"], "migrated", "{line}: {report}");
        let (code, report) = json_report(tmp.path(), &["check", "--no-cache", "s"]);
        assert_eq!(code, 0, "{line}: {report}");
        let ran = run(std::process::Command::new("bash").arg(&script));
        let document: serde_json::Value =
            serde_json::from_str(&stdout(&ran)).expect("one document");
        assert_eq!(document["success"], true, "{line}");
    }
}
