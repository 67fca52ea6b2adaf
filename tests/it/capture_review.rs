//! A migration a reviewer can accept: no line of the script moves, the diff is small, the real
//! shell judges every rewrite, CRLF scripts keep working, libraries get no runtime, comment mode
//! never writes a block that cannot run, and the runtime costs what the script records.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::common::*;
use serde_json::Value;
use skillmod::contract::{ParseOptions, Protocol, Schema, check_output};
use wait_timeout::ChildExt;

const MODES: [&str; 2] = ["capture", "comment"];

/// Migrate `dir/s` (any script names under it) in `mode`; the JSON report.
fn migrate(dir: &Path, mode: &str, extra: &[&str]) -> Value {
    let mut args = vec!["migrate", "--mode", mode, "--no-backup"];
    args.extend(extra);
    args.push("s");
    json_report(dir, &args).1
}

struct Ran {
    status: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Run `shell script` in `dir`, output to files (a pipe would fill and stall the script).
fn run_script(shell: &str, dir: &Path, script: &Path, limit: Duration) -> Ran {
    let out = tempfile::tempdir().expect("tmp");
    let (out_path, err_path) = (out.path().join("out"), out.path().join("err"));
    let mut child = Command::new(shell)
        .arg(script)
        .current_dir(dir)
        .stdout(std::fs::File::create(&out_path).expect("out"))
        .stderr(std::fs::File::create(&err_path).expect("err"))
        .spawn()
        .expect("shell");
    let status = match child.wait_timeout(limit).expect("wait") {
        Some(status) => status,
        None => {
            let _ = child.kill();
            panic!(
                "{shell} {}: still running after {limit:?}",
                script.display()
            );
        }
    };
    let read = |p: &Path| String::from_utf8_lossy(&std::fs::read(p).expect("read")).into_owned();
    Ran {
        status: status.code(),
        stdout: read(&out_path),
        stderr: read(&err_path).replace(&dir.display().to_string(), "DIR"),
    }
}

/// Run the script before and after migration in `mode` under `shell`, each in a fresh folder
/// (whose path reads `DIR` in stderr).
fn before_and_after(shell: &str, mode: &str, name: &str, text: &[u8]) -> (Ran, Ran) {
    let limit = Duration::from_secs(30);
    let before_dir = tempfile::tempdir().expect("tmp");
    let original = write_script(before_dir.path(), &format!("s/{name}"), text);
    let before = run_script(shell, before_dir.path(), &original, limit);
    let after_dir = tempfile::tempdir().expect("tmp");
    let script = write_script(after_dir.path(), &format!("s/{name}"), text);
    let report = migrate(after_dir.path(), mode, &["--include", "*.sh"]);
    assert_eq!(report["files"][0]["status"], "migrated", "{mode}: {report}");
    let after = run_script(shell, after_dir.path(), &script, limit);
    (before, after)
}

fn valid_document(stdout: &str) -> Value {
    let schema = Schema::builtin("skill-output-v1").expect("schema");
    let json = last_json(stdout).unwrap_or_else(|| panic!("no JSON in {stdout}"));
    let outcome = check_output(
        &json.to_string(),
        &ParseOptions::new(Protocol::Json),
        &schema,
    );
    assert!(outcome.valid, "{:?}\n{stdout}", outcome.errors);
    json
}

/// The migrated run's stderr without the lines the original printed on stdout (capture mode shows
/// them there, recorded result lines included): what is left are the errors.
fn errors_only(stderr: &str, original_stdout: &str) -> String {
    let printed: Vec<&str> = original_stdout
        .lines()
        .map(|l| l.trim_end_matches('\r'))
        .collect();
    stderr
        .split_inclusive('\n')
        .filter(|line| !printed.contains(&line.trim_end_matches(['\n', '\r'])))
        .collect()
}

#[test]
fn error_messages_name_the_same_lines_or_the_next_one_after_migration() {
    let text = b"#!/bin/sh\nset -u\n# line 3\ntouch out.txt\necho \"Created: out.txt\"\necho \"at line ${LINENO:-unknown}\" >&2\necho \"Confidence: 0.9\"\nx=$undefined_on_line_8\necho \"SUCCESS\"\n";
    for shell in ["bash", "dash"] {
        for mode in MODES {
            let (before, after) = before_and_after(shell, mode, "execute.sh", text);
            assert!(
                before.stderr.contains(" 8: ") || before.stderr.contains("line 8:"),
                "{shell}: the original names its lines: {}",
                before.stderr
            );
            // Capture mode adds one line after the shebang: every later line moves down by one.
            let expected = match mode {
                "capture" => before
                    .stderr
                    .replace("line 8", "line 9")
                    .replace(" 8: ", " 9: ")
                    .replace("at line 6", "at line 7"),
                _ => before.stderr.clone(),
            };
            assert_eq!(
                errors_only(&after.stderr, &before.stdout),
                expected,
                "{shell} {mode}: stderr changed"
            );
            assert_eq!(
                after.status, before.status,
                "{shell} {mode}: status changed"
            );
        }
    }
}

#[test]
fn capture_adds_one_short_line_and_changes_only_the_legacy_ones() {
    for mode in MODES {
        let tmp = tempfile::tempdir().expect("tmp");
        let skills = fixtures().join("example/skills");
        let mut copied = Vec::new();
        for entry in std::fs::read_dir(&skills).expect("example").flatten() {
            let script = entry.path().join("execute.sh");
            let text = std::fs::read(&script).expect("read");
            let name = entry.file_name().to_string_lossy().into_owned();
            copied.push((
                write_script(tmp.path(), &format!("s/{name}/execute.sh"), &text),
                text,
            ));
        }
        let report = migrate(tmp.path(), mode, &[]);
        let mut migrated = 0;
        for file in report["files"].as_array().expect("files") {
            if file["status"] != "migrated" {
                continue;
            }
            migrated += 1;
            let path = tmp.path().join(file["path"].as_str().expect("path"));
            let (_, before) = copied
                .iter()
                .find(|(p, _)| *p == path)
                .expect("copied file");
            let after = std::fs::read(&path).expect("read");
            let (old, new): (Vec<&[u8]>, Vec<&[u8]>) = (
                before.split(|&b| b == b'\n').collect(),
                after.split(|&b| b == b'\n').collect(),
            );
            let legacy = file["legacy"].as_array().expect("legacy").len();
            match mode {
                "capture" => {
                    assert_eq!(new.len(), old.len() + 1, "{}: line count", path.display());
                    assert_eq!(new[0], old[0], "{}: the shebang", path.display());
                    // One line, carrying the failure document (see SOURCE_LINE_BUDGET).
                    assert!(
                        new[1].len() <= SOURCE_LINE_BUDGET,
                        "{}: a {}-character source line",
                        path.display(),
                        new[1].len()
                    );
                    let changed = old[1..].iter().zip(&new[2..]).filter(|(a, b)| a != b);
                    let changed = changed.count();
                    assert!(
                        changed <= legacy,
                        "{}: {changed} lines changed for {legacy} legacy statements",
                        path.display()
                    );
                }
                _ => {
                    // The block is added after the last line or on the final exit's line: every
                    // original line keeps its number.
                    assert!(new.len() > old.len());
                    for (i, line) in old.iter().enumerate() {
                        let (was, now) = (
                            String::from_utf8_lossy(line),
                            String::from_utf8_lossy(new[i]),
                        );
                        let same = now.contains(was.as_ref()) || now.contains("LEGACY");
                        assert!(same, "{}: line {} moved", path.display(), i + 1);
                    }
                }
            }
        }
        assert_eq!(migrated, 2, "{mode}: {report}");
    }
}

/// The longest source line skillmod writes for the default template (measured: 868 characters
/// for a bash script at the depth of the example skills, the failure document included; the
/// 300 the issue hoped for cannot hold the document, the symlink resolution, the version check
/// and the guards together).
const SOURCE_LINE_BUDGET: usize = 870;

#[test]
fn every_script_of_a_skill_sources_its_one_runtime_file_and_names_only_its_own_settings() {
    let tmp = tempfile::tempdir().expect("tmp");
    write_skill_md(tmp.path(), "s");
    write_script(tmp.path(), "s/a/execute.sh", b"#!/bin/bash\necho SUCCESS\n");
    write_script(
        tmp.path(),
        "s/b/execute.sh",
        b"#!/bin/sh\nset -e\necho \"Created: x\"\n",
    );
    migrate(tmp.path(), "capture", &["--default-confidence", "0.7"]);
    let line_2 = |rel: &str| -> String {
        let text = std::fs::read_to_string(tmp.path().join(rel)).expect("read");
        text.lines().nth(1).expect("line 2").to_string()
    };
    let a = line_2("s/a/execute.sh");
    assert!(a.contains("${BASH_SOURCE:-$0}"), "{a}");
    assert!(
        a.contains(")/../skillmod-runtime.sh; __skm_dc=0.7 __skm_loaded=3 command . "),
        "{a}"
    );
    let b = line_2("s/b/execute.sh");
    assert!(!b.contains("BASH_SOURCE"), "{b}");
    assert!(
        b.contains(")/../skillmod-runtime.sh; __skm_need=0 __skm_dc=0.7 __skm_loaded=3 command . "),
        "{b}"
    );
    // One runtime file for the skill, none at the root.
    let runtime =
        std::fs::read_to_string(tmp.path().join("s/skillmod-runtime.sh")).expect("runtime");
    assert!(runtime.starts_with("# skillmod-runtime 3 "), "{runtime}");
    assert!(!tmp.path().join("skillmod-runtime.sh").exists());
    assert!(!tmp.path().join("s/a/skillmod-runtime.sh").exists());
}

#[test]
fn a_rewrite_the_real_shell_rejects_is_refused_with_a_code() {
    // A stand-in bash on PATH that rejects any script holding the runtime, as a real shell
    // would reject a rewrite tree-sitter wrongly accepted.
    let tmp = tempfile::tempdir().expect("tmp");
    let bin = tmp.path().join("bin");
    write_script(
        &bin,
        "bash",
        b"#!/bin/sh\nif grep -q __skm_; then echo 'bash: line 2: syntax error' >&2; exit 2; fi\nexit 0\n",
    );
    let text = b"#!/bin/bash\necho SUCCESS\n";
    let script = write_script(tmp.path(), "s/execute.sh", text);
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = run(skillmod(tmp.path()).env("PATH", path).args([
        "migrate",
        "--no-backup",
        "--format",
        "json",
        "s",
    ]));
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(doc["files"][0]["errors"][0]["code"], "REWRITE_SHELL_SYNTAX");
    assert!(
        doc["files"][0]["errors"][0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("syntax error")),
        "{doc}"
    );
    assert_eq!(std::fs::read(script).expect("read"), text);
}

#[test]
fn crlf_scripts_keep_the_shell_verdict_and_print_no_new_errors() {
    for name in ["runs_in_bash.sh", "rejected_by_the_shell.sh"] {
        let text = std::fs::read(fixtures().join("crlf").join(name)).expect("fixture");
        for mode in MODES {
            let tmp = tempfile::tempdir().expect("tmp");
            let script = write_script(tmp.path(), &format!("s/{name}"), &text);
            let original_ok = syntax_ok("bash", &script);
            let report = migrate(tmp.path(), mode, &["--include", "*.sh"]);
            assert_eq!(report["files"][0]["status"], "migrated", "{mode}: {report}");
            assert_eq!(
                syntax_ok("bash", &script),
                original_ok,
                "{name} {mode}: bash -n changed its verdict"
            );
            let migrated = std::fs::read(&script).expect("read");
            let bare_lf = migrated
                .iter()
                .enumerate()
                .filter(|&(i, &b)| b == b'\n' && (i == 0 || migrated[i - 1] != b'\r'))
                .count();
            assert_eq!(bare_lf, 0, "{name} {mode}: a line without CR was written");
        }
        if name == "runs_in_bash.sh" {
            for mode in MODES {
                let (before, after) = before_and_after("bash", mode, name, &text);
                // Capture mode's line after the shebang moves the blank line 3 to line 4.
                let expected = match mode {
                    "capture" => before.stderr.replace("line 3:", "line 4:"),
                    _ => before.stderr.clone(),
                };
                assert_eq!(
                    errors_only(&after.stderr, &before.stdout),
                    expected,
                    "{mode}: stderr changed"
                );
                assert_eq!(after.status, before.status);
                let doc = valid_document(&after.stdout);
                assert_eq!(doc["success"], true, "{mode}");
                if mode == "capture" {
                    assert_eq!(doc["deliverables"], serde_json::json!(["report.md"]));
                    assert_eq!(doc["confidence"], 0.9);
                }
            }
        }
    }
}

#[test]
fn a_sourced_library_gets_no_runtime_and_its_values_reach_the_sourcing_script() {
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(
        tmp.path(),
        "s/execute.sh",
        b"#!/bin/bash\nset -euo pipefail\nHERE=\"$(cd \"$(dirname \"$0\")\" && pwd)\"\nsource \"$HERE/lib/steps.sh\"\ntrap 'echo host-cleanup >&2' EXIT\nbuild\n",
    );
    let library = write_script(
        tmp.path(),
        "s/lib/steps.sh",
        b"#!/bin/bash\nbuild() {\n  touch built.txt\n  echo \"Created: built.txt\"\n  echo \"SUCCESS\"\n}\ntrap 'echo lib-trap >&2' EXIT\n",
    );
    let report = migrate(tmp.path(), "capture", &["--include", "*.sh"]);
    let files = report["files"].as_array().expect("files");
    let entry = |path: &str| {
        files
            .iter()
            .find(|f| f["path"] == path)
            .unwrap_or_else(|| panic!("{path} in {report}"))
    };
    assert_eq!(entry("s/execute.sh")["status"], "migrated");
    assert_eq!(entry("s/execute.sh")["notes"][0]["code"], "SOURCES_LIBRARY");
    assert_eq!(entry("s/lib/steps.sh")["status"], "migrated");
    assert_eq!(
        entry("s/lib/steps.sh")["notes"][0]["code"],
        "SOURCED_LIBRARY"
    );
    let lib_text = std::fs::read_to_string(&library).expect("read");
    assert!(!lib_text.contains("skillmod-runtime.sh"), "{lib_text}");
    assert!(lib_text.contains("${__skm_t:-trap} 'echo lib-trap >&2' EXIT"));
    // The recorded lines are skillmod's: no note of a command whose name is computed.
    let (code, checked) = json_report(tmp.path(), &["check", "-v", "--include", "*.sh", "."]);
    assert_eq!(code, 0, "{checked}");
    assert_eq!(checked["findings"], serde_json::json!([]), "{checked}");
    assert_eq!(checked["warnings"], serde_json::json!([]), "{checked}");
    let ran = run_script(
        "bash",
        tmp.path(),
        &tmp.path().join("s/execute.sh"),
        Duration::from_secs(30),
    );
    assert_eq!(ran.status, Some(0), "{}", ran.stderr);
    let doc = valid_document(&ran.stdout);
    assert_eq!(doc["success"], true);
    assert_eq!(doc["deliverables"], serde_json::json!(["built.txt"]));
    assert!(ran.stderr.contains("host-cleanup"), "{}", ran.stderr);
    assert_eq!(
        ran.stdout.matches("\"success\"").count(),
        1,
        "{}",
        ran.stdout
    );
}

#[test]
fn a_library_sourced_by_a_library_is_checked_and_its_results_reach_the_document() {
    // `execute.sh` sources a.inc, which sources b.inc, the one that prints the results: check
    // said "All clear" (session 20's N6). Each file sourced in turn is followed.
    let tmp = tempfile::tempdir().expect("tmp");
    write_skill_md(tmp.path(), "s");
    write_script(
        tmp.path(),
        "s/execute.sh",
        b"#!/bin/bash
D=$(dirname \"$0\")\n. \"$D/a.inc\"\necho done >&2\n",
    );
    write_script(tmp.path(), "s/a.inc", b"D=${D:-.}\n. \"$D/b.inc\"\n");
    write_script(
        tmp.path(),
        "s/b.inc",
        b"touch x.txt\necho \"Created: x.txt\"\necho SUCCESS\n",
    );
    let (code, report) = json_report(tmp.path(), &["check", "--no-cache", "s"]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(report["findings"][0]["path"], "s/b.inc", "{report}");
    // The hint names the script that gets the runtime, not the library between (hx24 item 5).
    assert_eq!(
        report["findings"][0]["fix"], "skillmod migrate s/execute.sh s/b.inc",
        "{report}"
    );
    let (code, report) = json_report(tmp.path(), &["migrate", "--no-backup", "s"]);
    assert_eq!(code, 0, "{report}");
    let ran = run_script(
        "bash",
        tmp.path(),
        &tmp.path().join("s/execute.sh"),
        Duration::from_secs(30),
    );
    assert_eq!(ran.status, Some(0), "{}", ran.stderr);
    let doc = valid_document(&ran.stdout);
    assert_eq!(doc["success"], true, "{doc}");
    assert_eq!(doc["deliverables"], serde_json::json!(["x.txt"]));
    let (code, report) = json_report(tmp.path(), &["check", "--no-cache", "s"]);
    assert_eq!(code, 0, "{report}");
}

#[test]
fn a_library_path_set_by_the_entry_script_is_read_from_its_folder() {
    // hx25 item 4: `source "$SCRIPT_DIR/lib/report.inc"` in scripts/lib/common.inc, where the entry
    // script set SCRIPT_DIR to scripts/, was read as scripts/lib/lib/report.inc: "All clear", and
    // migrate left the skill printing its legacy lines. The same with `cd` and `./lib/…`.
    for (entry, common) in [
        (
            "#!/bin/bash\nset -eu\nSCRIPT_DIR=$(cd \"$(dirname \"$0\")\" && pwd)\nsource \"$SCRIPT_DIR/lib/common.inc\"\ngenerate report.md\n",
            "source \"$SCRIPT_DIR/lib/report.inc\"\ngenerate() { touch \"$1\"; report_done \"$1\"; }\n",
        ),
        (
            "#!/bin/bash\nset -eu\ncd \"$(dirname \"$0\")\"\nsource ./lib/common.inc\ngenerate report.md\n",
            "source ./lib/report.inc\ngenerate() { touch \"$1\"; report_done \"$1\"; }\n",
        ),
    ] {
        let tmp = tempfile::tempdir().expect("tmp");
        write_skill_md(tmp.path(), "sk");
        let script = write_script(tmp.path(), "sk/scripts/run.sh", entry.as_bytes());
        write_script(tmp.path(), "sk/scripts/lib/common.inc", common.as_bytes());
        write_script(
            tmp.path(),
            "sk/scripts/lib/report.inc",
            b"report_done() { echo \"Created: $1\"; echo \"Confidence: 0.9\"; echo SUCCESS; }\n",
        );
        let (code, checked) = json_report(tmp.path(), &["check", "sk"]);
        assert_eq!(code, 1, "{checked}");
        assert_eq!(
            checked["findings"][0]["path"], "sk/scripts/lib/report.inc",
            "{checked}"
        );
        let (code, report) = json_report(tmp.path(), &["migrate", "--no-backup", "sk"]);
        assert_eq!(code, 0, "{report}");
        let (code, checked) = json_report(tmp.path(), &["check", "sk"]);
        assert_eq!(code, 0, "{checked}");
        let ran = run_script("bash", tmp.path(), &script, Duration::from_secs(30));
        assert_eq!(ran.status, Some(0), "{}", ran.stderr);
        let doc = valid_document(&ran.stdout);
        assert_eq!(
            doc["deliverables"],
            serde_json::json!(["report.md"]),
            "{doc}"
        );
        assert_eq!(doc["confidence"], 0.9, "{doc}");
        assert!(!ran.stdout.contains("Created:"), "{}", ran.stdout);
    }
}

#[test]
fn a_chain_of_libraries_is_followed_to_its_end_and_a_cycle_ends() {
    // The walk stopped after 16 levels: a result line in the 17th passed (hostile review hx24).
    let tmp = tempfile::tempdir().expect("tmp");
    write_skill_md(tmp.path(), "s");
    write_script(
        tmp.path(),
        "s/execute.sh",
        b"#!/bin/bash\nD=$(dirname \"$0\")\n. \"$D/l0.inc\"\n",
    );
    for i in 0..20 {
        // Each sources the next, and the first again (a cycle bash never runs: a guard).
        let text = format!(
            "[ -n \"$L{i}\" ] && return; L{i}=1\n. \"$D/l{}.inc\"\n. \"$D/l0.inc\"\n",
            i + 1
        );
        write_script(tmp.path(), &format!("s/l{i}.inc"), text.as_bytes());
    }
    write_script(tmp.path(), "s/l20.inc", b"echo SUCCESS\n");
    let (code, report) = json_report(tmp.path(), &["check", "--no-cache", "s"]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(report["findings"][0]["path"], "s/l20.inc", "{report}");
}

/// A library (a top-level `return`) that no selected script sources through a path skillmod
/// follows was migrated into records, while the script that sources it, with no legacy line of
/// its own, got no runtime: the skill printed nothing at all (hostile review). It is refused, and
/// check says so; a literal path with blanks or brackets is followed, and then both migrate.
#[test]
fn a_library_sourced_through_a_path_skillmod_cannot_follow_is_refused_not_silenced() {
    let library = b"#!/bin/bash\necho \"Created: r.md\"\ntouch r.md\necho SUCCESS\nreturn 0\n";
    for (source_line, name, followed) in [
        (
            "lib=lib.sh\nsource \"$(dirname \"$0\")/$lib\"",
            "lib.sh",
            false,
        ),
        ("source \"$(dirname \"$0\")/my lib.sh\"", "my lib.sh", true),
        (
            "source \"$(dirname \"$0\")\"/lib\\ \\(1\\).sh",
            "lib (1).sh",
            true,
        ),
    ] {
        let tmp = tempfile::tempdir().expect("tmp");
        let text = format!("#!/bin/bash\n{source_line}\n");
        let script = write_script(tmp.path(), "s/execute.sh", text.as_bytes());
        write_script(tmp.path(), &format!("s/{name}"), library);
        let original = run(Command::new("bash").arg(&script).current_dir(tmp.path()));
        assert_eq!(stdout(&original), "Created: r.md\nSUCCESS\n", "{name}");
        let (code, checked) = json_report(
            tmp.path(),
            &["check", "--no-cache", "--include", "*.sh", "s"],
        );
        assert_eq!(code, 1, "{name}: {checked}");
        assert_eq!(
            checked.to_string().contains("LIBRARY_UNHOSTED"),
            !followed,
            "{name}: {checked}"
        );
        let report = migrate(tmp.path(), "capture", &["--include", "*.sh"]);
        let ran = run_script("bash", tmp.path(), &script, Duration::from_secs(30));
        if followed {
            let doc = valid_document(&ran.stdout);
            assert_eq!(doc["success"], true, "{name}: {report}");
            assert_eq!(doc["deliverables"], serde_json::json!(["r.md"]), "{name}");
        } else {
            assert!(report.to_string().contains("LIBRARY_UNHOSTED"), "{report}");
            assert_eq!(
                ran.stdout, "Created: r.md\nSUCCESS\n",
                "{name}: left as it was"
            );
        }
    }
}

#[test]
fn a_library_sourced_by_an_unmigrated_script_runs_quietly() {
    let tmp = tempfile::tempdir().expect("tmp");
    // Migrated beside the skill that sources it, then sourced by a script that is not migrated.
    write_script(
        tmp.path(),
        "s/execute.sh",
        b"#!/bin/bash\n. \"$(dirname \"$0\")/lib.sh\"\nstep b.txt\n",
    );
    write_script(
        tmp.path(),
        "s/lib.sh",
        b"# no shebang: meant to be sourced\nstep() { echo \"Created: $1\"; echo SUCCESS; }\n",
    );
    let report = migrate(tmp.path(), "capture", &["--include", "*.sh"]);
    assert_eq!(report["files"][1]["path"], "s/lib.sh", "{report}");
    assert_eq!(report["files"][1]["notes"][0]["code"], "SOURCED_LIBRARY");
    write_script(
        tmp.path(),
        "caller.sh",
        b"#!/bin/sh\nset -eu\n. ./s/lib.sh\nstep a.txt\necho done >&2\n",
    );
    for shell in ["bash", "dash"] {
        let ran = run_script(
            shell,
            tmp.path(),
            &tmp.path().join("caller.sh"),
            Duration::from_secs(30),
        );
        assert_eq!(ran.status, Some(0), "{shell}: {}", ran.stderr);
        assert_eq!(ran.stderr, "done\n", "{shell}");
        assert_eq!(ran.stdout, "", "{shell}");
    }
}

#[test]
fn a_script_that_asks_whether_it_is_sourced_runs_on_its_own_after_migration() {
    // `(return 0 2>/dev/null)` and `[[ $BASH_SOURCE != $0 ]] && return` made execute.sh a
    // library: its result lines recorded nothing, and the skill printed nothing (hostile review).
    for guard in [
        "(return 0 2>/dev/null) && echo \"being sourced\" >&2\n",
        "(return 0 2>/dev/null) && sourced=1 || sourced=0\n[ \"$sourced\" = 1 ] && return 0\n",
        "[[ \"${BASH_SOURCE[0]}\" != \"$0\" ]] && return 0\n",
        // The re-test's spellings.
        "return 0 2>/dev/null || true\n",
        "{ return 0; } 2>/dev/null || :\n",
        "case ${0##*/} in execute.sh) ;; *) return 0 ;; esac\n",
    ] {
        let tmp = tempfile::tempdir().expect("tmp");
        let text =
            format!("#!/bin/bash\n{guard}touch out.txt\necho \"Created: out.txt\"\necho SUCCESS\n");
        let script = write_script(tmp.path(), "s/execute.sh", text.as_bytes());
        let report = migrate(tmp.path(), "capture", &[]);
        assert_eq!(
            report["files"][0]["status"], "migrated",
            "{guard}: {report}"
        );
        assert_eq!(
            report["files"][0]["notes"],
            serde_json::json!([]),
            "{guard}: {report}"
        );
        let ran = run_script("bash", tmp.path(), &script, Duration::from_secs(30));
        assert_eq!(ran.status, Some(0), "{guard}: {}", ran.stderr);
        let document: Value = serde_json::from_str(&ran.stdout).expect("one document");
        assert_eq!(document["success"], true, "{guard}");
        assert_eq!(
            document["deliverables"],
            serde_json::json!(["out.txt"]),
            "{guard}"
        );
    }
}

#[test]
fn a_top_level_return_makes_a_script_a_library() {
    let tmp = tempfile::tempdir().expect("tmp");
    let script = write_script(
        tmp.path(),
        "s/execute.sh",
        b"#!/bin/bash\n[ \"${BASH_SOURCE[0]}\" != \"$0\" ] || { echo 'source me' >&2; exit 1; }\necho \"Created: x\"\nreturn 0\n",
    );
    // Alone, nothing says which script hosts it: refused (LIBRARY_UNHOSTED), left as it is.
    let before = std::fs::read(&script).expect("read");
    let report = migrate(tmp.path(), "capture", &[]);
    assert_eq!(
        report["files"][0]["errors"][0]["code"], "LIBRARY_UNHOSTED",
        "{report}"
    );
    assert_eq!(std::fs::read(&script).expect("read"), before);
    // Beside the script that sources it, it is migrated as a library.
    write_script(
        tmp.path(),
        "s/run.sh",
        b"#!/bin/bash\n. \"$(dirname \"$0\")/execute.sh\"\n",
    );
    let report = migrate(tmp.path(), "capture", &["--include", "*.sh"]);
    let library = report["files"]
        .as_array()
        .expect("files")
        .iter()
        .find(|f| f["path"] == "s/execute.sh")
        .cloned()
        .expect("the library");
    assert_eq!(library["notes"][0]["code"], "SOURCED_LIBRARY", "{report}");
    let text = std::fs::read_to_string(script).expect("read");
    assert!(
        text.contains("${__skm_r:-:} created \"Created: x\""),
        "{text}"
    );
    assert!(!text.contains("skillmod-runtime"));
}

#[test]
fn comment_mode_refuses_a_block_after_a_command_that_always_exits() {
    let tmp = tempfile::tempdir().expect("tmp");
    let text = b"#!/bin/bash\nmain() {\n  if [ -n \"${1:-}\" ]; then echo \"ERROR: no\" >&2; exit 1; fi\n  echo \"SUCCESS\"\n  exit 0\n}\nmain \"$@\"\n";
    let script = write_script(tmp.path(), "s/execute.sh", text);
    let (status, report) = json_report(
        tmp.path(),
        &["migrate", "--mode", "comment", "--no-backup", "s"],
    );
    assert_eq!(status, 1);
    assert_eq!(report["files"][0]["errors"][0]["code"], "BLOCK_UNREACHABLE");
    assert!(
        report["files"][0]["errors"][0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("line 7") && m.contains("--mode capture")),
        "{report}"
    );
    assert_eq!(std::fs::read(&script).expect("read"), text);
    // Capture mode prints the JSON from its EXIT trap, so the same script migrates and reports.
    let report = migrate(tmp.path(), "capture", &[]);
    assert_eq!(report["files"][0]["status"], "migrated");
    let ran = run_script("bash", tmp.path(), &script, Duration::from_secs(30));
    assert_eq!(valid_document(&ran.stdout)["success"], true);
}

#[test]
fn comment_mode_reports_a_literal_confidence_it_cannot_use() {
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(
        tmp.path(),
        "s/execute.sh",
        b"#!/bin/sh\necho \"Confidence: 0.85+\"\necho \"Confidence: 1.5\"\necho SUCCESS\n",
    );
    let report = migrate(tmp.path(), "comment", &[]);
    let file = &report["files"][0];
    assert_eq!(file["status"], "migrated");
    let notes: Vec<&str> = file["notes"]
        .as_array()
        .expect("notes")
        .iter()
        .filter_map(|n| n["message"].as_str())
        .collect();
    assert_eq!(notes.len(), 2, "{file}");
    assert!(notes[0].contains("line 2") && notes[0].contains("0.85+"));
    assert!(notes[1].contains("line 3") && notes[1].contains("1.5"));
}

#[test]
fn runtime_cost_is_linear_in_what_it_records() {
    // 4,000-character values, 2,000 `Created:` lines, and a 100,000-character value with
    // quotes and backslashes: linear escaping and de-duplication take well under a second each;
    // a quadratic escaper takes minutes on the last one (the limit below is 30 s).
    let text = br#"#!/bin/sh
long=$(printf '%4000s' '' | tr ' ' 'a')
echo "Created: $long"
special=$(printf '%10000s' '' | sed 's/ /ab"cd\\efg\/ /g')
echo "Created: $special"
i=0
while [ "$i" -lt 2000 ]; do
  echo "Created: out/file-$i.txt"
  echo "Created: out/file-$i.txt"
  i=$((i + 1))
done
echo "SUCCESS"
"#;
    for shell in ["bash", "dash"] {
        let (before, after) = before_and_after(shell, "capture", "execute.sh", text);
        assert_eq!(after.status, before.status, "{shell}");
        let doc = valid_document(&after.stdout);
        let deliverables = doc["deliverables"].as_array().expect("deliverables");
        assert_eq!(
            deliverables.len(),
            2002,
            "{shell}: duplicates are listed once"
        );
        assert_eq!(doc["metrics"]["files_created"], 4002);
        assert_eq!(deliverables[0].as_str().map(str::len), Some(4000));
        // The value is what the shell's echo printed: dash's reads `\e` as ESC, bash's keeps it.
        let printed = if shell == "dash" {
            "ab\"cd\u{1b}fg"
        } else {
            "ab\"cd\\efg"
        };
        assert_eq!(
            deliverables[1].as_str().map(|s| s.matches(printed).count()),
            Some(10000),
            "{shell}: quotes, backslashes and control characters survive escaping"
        );
    }
}

#[test]
fn a_script_using_the_runtime_names_is_refused() {
    let tmp = tempfile::tempdir().expect("tmp");
    let text = b"#!/bin/sh\n__skm_rec() { echo mine; }\necho SUCCESS\n";
    let script = write_script(tmp.path(), "s/execute.sh", text);
    let (status, report) = json_report(tmp.path(), &["migrate", "--no-backup", "s"]);
    assert_eq!(status, 1);
    assert_eq!(report["files"][0]["errors"][0]["code"], "NAME_CLASH");
    assert_eq!(std::fs::read(script).expect("read"), text);
}

#[test]
fn the_time_token_inside_a_value_is_never_replaced() {
    let token = "@@SKILLMOD_NOW@@";
    // Comment mode: a literal deliverable holding the token.
    let tmp = tempfile::tempdir().expect("tmp");
    let text = format!("#!/bin/sh\necho \"Created: out/{token}.txt\"\necho SUCCESS\n");
    let script = write_script(tmp.path(), "s/execute.sh", text.as_bytes());
    migrate(tmp.path(), "comment", &["--template", "envelope"]);
    let ran = run_script("sh", tmp.path(), &script, Duration::from_secs(30));
    let doc = last_json(&ran.stdout).expect("json");
    assert_eq!(doc["data"]["deliverables"][0], format!("out/{token}.txt"));
    assert_ne!(doc["generatedAt"], token);
    // Capture mode: the skill's folder name holds the token and a quote.
    let tmp = tempfile::tempdir().expect("tmp");
    let folder = format!("s/it's {token}");
    let script = write_script(
        tmp.path(),
        &format!("{folder}/execute.sh"),
        b"#!/bin/sh\necho SUCCESS\n",
    );
    migrate(tmp.path(), "capture", &["--template", "envelope"]);
    let ran = run_script("dash", tmp.path(), &script, Duration::from_secs(30));
    let doc: Value = serde_json::from_str(&ran.stdout).expect("one document");
    assert_eq!(doc["skillName"], format!("it's {token}"));
    assert!(
        doc["generatedAt"]
            .as_str()
            .is_some_and(|t| t.ends_with('Z')),
        "{doc}"
    );
}

#[test]
fn a_bom_without_a_shebang_stays_valid() {
    let tmp = tempfile::tempdir().expect("tmp");
    let text = b"\xEF\xBB\xBFecho \"Created: a\"\necho SUCCESS\n";
    let script = write_script(tmp.path(), "s/execute.sh", text);
    // Nothing says it is a script or a library: left as it is.
    let report = migrate(tmp.path(), "capture", &[]);
    assert_eq!(report["files"][0]["errors"][0]["code"], "NO_SHEBANG");
    assert_eq!(std::fs::read(&script).expect("read"), text);
    // Named a script, it gets a shebang, after the BOM it keeps.
    let report = migrate(tmp.path(), "capture", &["--skill-path", "s/execute.sh"]);
    assert_eq!(report["files"][0]["notes"][0]["code"], "SHEBANG_ADDED");
    assert!(syntax_ok("bash", &script));
    assert!(
        std::fs::read(&script)
            .expect("read")
            .starts_with(b"\xEF\xBB\xBF")
    );
}

#[test]
fn a_bare_final_exit_keeps_its_status_in_comment_mode() {
    let text = std::fs::read(fixtures().join("migrate/bare_final_exit/input.sh")).expect("input");
    let (before, after) = before_and_after("bash", "comment", "execute.sh", &text);
    assert_eq!(before.status, Some(1));
    assert_eq!(after.status, before.status);
    assert_eq!(valid_document(&after.stdout)["confidence"], 0.7);
}

#[test]
fn only_a_return_outside_functions_makes_a_library() {
    for (text, library) in [
        (
            &b"#!/bin/bash\nf() { return 1; }\n[ -n \"${X:-}\" ] && return 0\necho SUCCESS\nf || true\n"[..],
            true,
        ),
        (
            &b"#!/bin/bash\nf() {\n  return 1\n}\necho SUCCESS\nf || true\n"[..],
            false,
        ),
    ] {
        let tmp = tempfile::tempdir().expect("tmp");
        let script = write_script(tmp.path(), "s/execute.sh", text);
        let report = migrate(tmp.path(), "capture", &[]);
        let migrated = std::fs::read_to_string(script).expect("read");
        // A library no selected script sources is refused, and left as it is.
        assert_eq!(
            report["files"][0]["errors"][0]["code"] == "LIBRARY_UNHOSTED",
            library,
            "{report}"
        );
        assert_eq!(migrated.as_bytes() == text, library, "{migrated}");
        assert_eq!(migrated.contains("skillmod-runtime.sh"), !library, "{migrated}");
    }
}

/// A legacy line in a subshell (`( … )`, a part of a pipeline) records into a shell that ends
/// with it, so capture mode's document would miss it (a trial's `(cd build && … && echo
/// SUCCESS)` read as a failure): check reports SKM008 `SUBSHELL_RESULT`, migrate refuses it in
/// capture mode and leaves the file; comment mode migrates it; the same lines in a `{ …; }` group
/// or a loop fed by `< <(cmd)` are recorded.
#[test]
fn a_legacy_line_in_a_subshell_is_refused_in_capture_mode() {
    let refused: [&[u8]; 6] = [
        b"#!/bin/bash\nsub() (\n  echo \"COMPLETE\"\n)\nsub\n",
        // A function called in a subshell, in a pipeline, and a line in the background.
        b"#!/bin/bash\nfinish() { echo \"Created: out/a.txt\"; echo SUCCESS; }\nmkdir -p build\n(cd build && finish)\n",
        b"#!/bin/bash\nreport() { echo \"Created: $1\"; }\nprintf 'a.md\\n' | while read -r f; do touch \"$f\"; report \"$f\"; done\necho SUCCESS\n",
        b"#!/bin/bash\ntouch a.txt\necho \"Created: a.txt\" &\nwait\necho SUCCESS\n",
        b"#!/bin/bash\nmkdir -p build\n(cd build && touch app.js && echo \"Created: build/app.js\" && echo SUCCESS)\n",
        b"#!/bin/bash\nprintf 'a.md\\nb.md\\n' | while read -r f; do touch \"$f\"; echo \"Created: $f\"; done\necho SUCCESS\n",
    ];
    for text in refused {
        let tmp = tempfile::tempdir().expect("tmp");
        let script = write_script(tmp.path(), "s/execute.sh", text);
        let check = run(skillmod(tmp.path()).args(["check", "s"]));
        assert_eq!(check.status.code(), Some(1), "{}", stdout(&check));
        assert!(
            stdout(&check).contains("SKM008") && stdout(&check).contains("SUBSHELL_RESULT"),
            "{}",
            stdout(&check)
        );
        let report = migrate(tmp.path(), "capture", &[]);
        assert_eq!(
            error_codes(&report["files"][0]["errors"]),
            ["SUBSHELL_RESULT"],
            "{report}"
        );
        assert_eq!(std::fs::read(&script).expect("read"), text);
        let report = migrate(tmp.path(), "comment", &[]);
        assert_eq!(report["files"][0]["status"], "migrated", "{report}");
    }
    let recorded: [&[u8]; 3] = [
        b"#!/bin/bash\nreport() { touch \"$1\"; echo \"Created: $1\"; }\nreport a.md\necho SUCCESS\n",
        b"#!/bin/bash\nmkdir -p build\n{ cd build && touch app.js && echo \"Created: build/app.js\" && echo SUCCESS; }\n",
        b"#!/bin/bash\nwhile read -r f; do touch \"$f\"; echo \"Created: $f\"; done < <(printf 'a.md\\nb.md\\n')\necho SUCCESS\n",
    ];
    for text in recorded {
        let tmp = tempfile::tempdir().expect("tmp");
        let script = write_script(tmp.path(), "s/execute.sh", text);
        let report = migrate(tmp.path(), "capture", &[]);
        assert_eq!(report["files"][0]["status"], "migrated", "{report}");
        let ran = run_script("bash", tmp.path(), &script, Duration::from_secs(30));
        let doc: Value = serde_json::from_str(ran.stdout.trim()).expect("one document");
        assert_eq!(doc["success"], true, "{doc}");
        assert!(
            doc["deliverables"]
                .as_array()
                .is_some_and(|d| !d.is_empty()),
            "{doc}"
        );
    }
}

/// A legacy line in a subshell that `# skillmod: ignore[SKM001]` keeps as it is refuses nothing:
/// migrate migrates the lines left, and check does not claim it would refuse (the hostile
/// re-test's check said SKM008 where migrate went on).
#[test]
fn a_suppressed_line_in_a_subshell_refuses_nothing() {
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(
        tmp.path(),
        "s/execute.sh",
        b"#!/bin/bash\n(cd /tmp && echo SUCCESS) # skillmod: ignore[SKM001]\necho COMPLETE\n",
    );
    let check = run(skillmod(tmp.path()).args(["check", "--no-cache", "s"]));
    assert!(!stdout(&check).contains("SKM008"), "{}", stdout(&check));
    assert!(stdout(&check).contains("SKM001"), "{}", stdout(&check));
    let report = migrate(tmp.path(), "capture", &[]);
    assert_eq!(report["files"][0]["status"], "migrated", "{report}");
}

/// A trap set through `eval` may replace the runtime's EXIT trap unseen (the hostile re-test's
/// `eval "trap cleanup EXIT"` printed no document): refused as a trap whose signals are known only
/// at run time; an `eval` with no `trap` in it is no trap.
#[test]
fn a_trap_set_through_eval_is_refused() {
    let tmp = tempfile::tempdir().expect("tmp");
    let text = b"#!/bin/bash\ncleanup() { rm -f x; }\neval \"trap cleanup EXIT\"\necho SUCCESS\n";
    let script = write_script(tmp.path(), "s/execute.sh", text);
    let (status, report) = json_report(tmp.path(), &["migrate", "--no-backup", "s"]);
    assert_eq!(status, 1, "{report}");
    assert_eq!(report["files"][0]["errors"][0]["code"], "TRAP_UNSUPPORTED");
    assert_eq!(std::fs::read(&script).expect("read"), text);
    std::fs::write(
        &script,
        b"#!/bin/bash\neval \"echo hi >&2\"\necho SUCCESS\n",
    )
    .expect("write");
    let (status, report) = json_report(tmp.path(), &["migrate", "--no-backup", "s"]);
    assert_eq!(
        (status, &report["files"][0]["status"]),
        (0, &Value::from("migrated")),
        "{report}"
    );
}

#[test]
fn a_library_function_named_like_a_command_the_runtime_runs_is_refused() {
    // `test()` in the lib.sh execute.sh sources replaced the runtime's `test` as surely as one
    // in the script, and the migrated skill never ended (re-test of the hostile fix).
    let tmp = tempfile::tempdir().expect("tmp");
    let text = b"#!/bin/bash\n. \"$(dirname \"$0\")/lib.sh\"\ntest\necho SUCCESS\n";
    let script = write_script(&tmp.path().join("s"), "execute.sh", text);
    write_script(
        &tmp.path().join("s"),
        "lib.sh",
        b"test() { echo tests >&2; return 0; }\n",
    );
    let (code, report) = json_report(tmp.path(), &["migrate", "--no-backup", "s"]);
    assert_eq!(code, 1, "{report}");
    let file = report_file(&report, "s/execute.sh");
    assert_eq!(error_codes(&file["errors"]), ["NAME_CLASH"], "{report}");
    assert_eq!(std::fs::read(&script).expect("read"), text);
    let (code, report) = json_report(tmp.path(), &["check", "--no-cache", "s"]);
    assert_eq!(code, 1, "{report}");
    assert!(report.to_string().contains("NAME_CLASH"), "{report}");
}

#[test]
fn an_alias_of_another_name_or_alias_text_in_a_string_is_no_clash() {
    for definition in [
        "shopt -s expand_aliases\nalias ll='ls -l'\n",
        "echo \"alias echo=x\" >&2\n",
    ] {
        let tmp = tempfile::tempdir().expect("tmp");
        let text = format!("#!/bin/bash\n{definition}echo SUCCESS\n");
        write_script(&tmp.path().join("s"), "execute.sh", text.as_bytes());
        let (code, report) = json_report(tmp.path(), &["migrate", "--no-backup", "s"]);
        assert_eq!(code, 0, "{definition}: {report}");
    }
}

#[test]
fn a_function_named_like_a_command_the_runtime_runs_is_refused() {
    // A skill's own `printf` (to stderr) or `awk` would run in place of the runtime's, and the
    // document came out empty or broken (hostile trial): capture mode refuses such a script, in
    // check and migrate alike; a word `printf` elsewhere is no definition.
    for (definition, name) in [
        ("printf() { builtin printf \"%s\" \"$@\" >&2; }\n", "printf"),
        ("function awk { :; }\n", "awk"),
        ("command () { \"$@\"; }\n", "command"),
        // A skill's `test` (its unit tests) ran in the exit trap, forever (hostile review).
        ("test() { echo tests >&2; return 0; }\ntest\n", "test"),
        // An alias of `echo` sent the result lines to stderr: the original printed no result,
        // the migrated document claimed success (hostile review hx22 item 7).
        ("shopt -s expand_aliases\nalias echo='echo >&2'\n", "echo"),
        ("alias ll='ls -l' printf=\"printf >&2\"\n", "printf"),
        // Spellings that still run the builtin (hostile review hx24 item 8).
        (
            "shopt -s expand_aliases\nbuiltin alias echo='echo >&2'\n",
            "echo",
        ),
        (
            "shopt -s expand_aliases\ncommand alias 'echo=echo >&2'\n",
            "echo",
        ),
        // And more (hostile review hx25).
        ("shopt -s expand_aliases\n'alias' echo='echo >&2'\n", "echo"),
        (
            "shopt -s expand_aliases\ncommand -p alias echo='echo >&2'\n",
            "echo",
        ),
        (
            "shopt -s expand_aliases\nbuiltin -- alias echo='echo >&2'\n",
            "echo",
        ),
    ] {
        let tmp = tempfile::tempdir().expect("tmp");
        let text = format!("#!/bin/bash\n{definition}echo \"printf (x)\" >&2\necho SUCCESS\n");
        let script = write_script(&tmp.path().join("s"), "execute.sh", text.as_bytes());
        let (code, report) = json_report(tmp.path(), &["migrate", "--no-backup", "s"]);
        assert_eq!(code, 1, "{name}: {report}");
        assert_eq!(
            report["files"][0]["errors"][0]["code"], "NAME_CLASH",
            "{name}"
        );
        assert!(
            report["files"][0]["errors"][0]["message"]
                .as_str()
                .is_some_and(|m| m.contains(&format!("`{name}`"))),
            "{name}: {report}"
        );
        assert_eq!(std::fs::read_to_string(&script).expect("read"), text);
        let (_, report) = json_report(tmp.path(), &["check", "--no-cache", "s"]);
        let refused = report["findings"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|f| {
                f["code"] == "SKM008"
                    && f["message"]
                        .as_str()
                        .is_some_and(|m| m.starts_with("NAME_CLASH"))
            });
        assert!(refused, "{name}: {report}");
    }
}
