//! Bytes kept (issue 31, point 6): a legacy value that is not valid UTF-8 gives a document
//! `validate --strict` accepts in both modes, through the one escape (`\xHH` per byte that is not
//! part of valid UTF-8); a skill in a folder, or a script with a name, that is not UTF-8 is
//! migrated and restored byte for byte; messages quote such paths as git does.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::common::*;

/// The deliverable both modes report for `caf<0xE9>.txt`.
const ESCAPED: &str = "caf\\xe9.txt";

fn skill(dir: &Path, folder: &[u8], script: &[u8]) -> PathBuf {
    let folder = dir.join(OsStr::from_bytes(folder));
    std::fs::create_dir_all(&folder).expect("mkdir");
    std::fs::write(folder.join("SKILL.md"), "---\nname: x\n---\n").expect("SKILL.md");
    let path = folder.join("execute.sh");
    std::fs::write(&path, script).expect("script");
    path
}

/// Run `script` with `shell` (and `awk` first on PATH from `awk_dir`, when given): its stdout.
fn run_script(shell: &str, script: &Path, awk_dir: Option<&Path>) -> Vec<u8> {
    let mut cmd = std::process::Command::new(shell);
    cmd.arg(script);
    if let Some(dir) = awk_dir {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut dirs = vec![dir.to_path_buf()];
        dirs.extend(std::env::split_paths(&path));
        cmd.env("PATH", std::env::join_paths(dirs).expect("PATH"));
    }
    let out = run(&mut cmd);
    assert_eq!(out.status.code(), Some(0), "{shell}: {}", stderr(&out));
    out.stdout
}

/// `validate --strict` on `output`: passes, and the document it read.
fn strictly_valid(dir: &Path, output: &[u8]) -> serde_json::Value {
    let out = run_with_stdin(skillmod(dir).args(["validate", "--strict", "-"]), output);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}\n{}",
        stdout(&out),
        stderr(&out),
        String::from_utf8_lossy(output)
    );
    serde_json::from_slice(output).expect("the output is one JSON document")
}

/// The awks to run the runtime with: the default one, and each of mawk and gawk found on this
/// machine (a folder holding it as `awk`).
fn awks(tmp: &Path) -> Vec<Option<PathBuf>> {
    let mut out = vec![None];
    for name in ["mawk", "gawk", "original-awk", "busybox"] {
        let Ok(found) = std::process::Command::new("sh")
            .args(["-c", &format!("command -v {name}")])
            .output()
        else {
            continue;
        };
        let found = String::from_utf8_lossy(&found.stdout).trim().to_string();
        if found.is_empty() {
            continue;
        }
        let dir = tmp.join(format!("awk-{name}"));
        std::fs::create_dir_all(&dir).expect("mkdir");
        let wrapper = if name == "busybox" {
            format!("#!/bin/sh\nexec {found} awk \"$@\"\n")
        } else {
            format!("#!/bin/sh\nexec {found} \"$@\"\n")
        };
        let awk = dir.join("awk");
        std::fs::write(&awk, wrapper).expect("awk wrapper");
        set_mode(&awk, 0o755);
        out.push(Some(dir));
    }
    out
}

#[test]
fn a_run_time_value_that_is_not_utf8_is_escaped_by_the_runtime_in_bash_and_dash() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("repo");
    std::fs::create_dir(&dir).expect("mkdir");
    // One value computed at run time, one printed by printf with an octal escape.
    let script = skill(
        &dir,
        b"skills/a",
        b"#!/bin/sh\nf=$(printf 'caf\\351.txt')\necho \"Created: $f\"\nprintf 'Modified: caf\\351.txt\\n'\nskillmod_error X \"$f\" 2>/dev/null || :\necho \"SUCCESS\"\n",
    );
    let out = run(skillmod(&dir).args(["migrate", "--mode", "capture", "skills"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for awk in awks(tmp.path()) {
        for shell in ["bash", "dash"] {
            let output = run_script(shell, &script, awk.as_deref());
            assert!(
                std::str::from_utf8(&output).is_ok(),
                "{shell} {awk:?}: {output:?}"
            );
            let doc = strictly_valid(&dir, &output);
            assert_eq!(
                doc["deliverables"],
                serde_json::json!([ESCAPED]),
                "{shell} {awk:?}"
            );
        }
    }
}

#[test]
fn a_printf_on_line_two_with_a_value_that_is_not_utf8_is_recorded_after_the_runtime_loads() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("repo");
    std::fs::create_dir(&dir).expect("mkdir");
    // The recorder wraps line 2, where the runtime's source line goes too: the line comes first.
    let script = skill(
        &dir,
        b"skills/a",
        b"#!/bin/sh\nprintf 'Created: caf\\351.txt\\n'\necho SUCCESS\n",
    );
    let out = run(skillmod(&dir).args(["migrate", "--mode", "capture", "skills"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for shell in ["bash", "dash"] {
        let doc = strictly_valid(&dir, &run_script(shell, &script, None));
        assert_eq!(doc["deliverables"], serde_json::json!([ESCAPED]), "{shell}");
    }
}

#[test]
fn the_runtime_escape_keeps_valid_utf8_and_escapes_each_other_byte_as_the_library_does() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("repo");
    std::fs::create_dir(&dir).expect("mkdir");
    // Valid UTF-8 (2, 3 and 4 bytes), a cut sequence, a lone continuation byte, an overlong
    // form, a surrogate, a code point above U+10FFFF, and quotes and a backslash beside them.
    let values: [&[u8]; 8] = [
        "café/naïve €.txt".as_bytes(),
        b"\xf0\x9f\x98\x80.txt",
        b"a\xe2\x82.txt",
        b"b\x80\xbf.txt",
        b"c\xc0\xaf.txt",
        b"d\xed\xa0\x80.txt",
        b"e\xf4\x90\x80\x80.txt",
        b"f\"\\\xff.txt",
    ];
    let mut script = b"#!/bin/sh\n".to_vec();
    for value in values {
        script.extend(b"f=$(printf '");
        for b in value {
            script.extend(format!("\\{b:03o}").as_bytes());
        }
        script.extend(b"')\necho \"Created: $f\"\n");
    }
    script.extend(b"echo SUCCESS\n");
    let path = skill(&dir, b"skills/a", &script);
    let out = run(skillmod(&dir).args(["migrate", "--mode", "capture", "skills"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let wanted: Vec<String> = values
        .iter()
        .map(|v| skillmod::bytes_text::escape(v).into_owned())
        .collect();
    for awk in awks(tmp.path()) {
        for shell in ["bash", "dash"] {
            let doc = strictly_valid(&dir, &run_script(shell, &path, awk.as_deref()));
            assert_eq!(
                doc["deliverables"],
                serde_json::json!(wanted),
                "{shell} {awk:?}"
            );
        }
    }
}

#[test]
fn comment_mode_writes_the_same_escape_for_a_literal_value_that_is_not_utf8() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("repo");
    std::fs::create_dir(&dir).expect("mkdir");
    let literal = skill(
        &dir,
        b"skills/a",
        b"#!/bin/bash\necho \"Created: caf\xe9.txt\"\necho \"SUCCESS\"\n",
    );
    let escaped = skill(
        &dir,
        b"skills/b",
        b"#!/bin/bash\nprintf 'Created: caf\\351.txt\\n'\necho \"SUCCESS\"\n",
    );
    let out = run(skillmod(&dir).args(["migrate", "--mode", "comment", "skills"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for script in [&literal, &escaped] {
        let text = std::fs::read(script).expect("migrated");
        // The disabled line keeps the original bytes.
        assert!(
            text.windows(4).any(|w| w == b"caf\xe9") || text.windows(4).any(|w| w == b"\\351"),
            "{}",
            String::from_utf8_lossy(&text)
        );
        for shell in ["bash", "dash"] {
            let doc = strictly_valid(&dir, &run_script(shell, script, None));
            assert_eq!(doc["deliverables"], serde_json::json!([ESCAPED]), "{shell}");
        }
    }
    // The JSON report shows the value in the same escape.
    let (_, report) = json_report(&dir, &["migrate", "--dry-run", "--force", "skills"]);
    let text = report.to_string();
    assert!(!text.contains('\u{fffd}'), "{text}");
}

#[test]
fn a_skill_in_a_folder_whose_name_is_not_utf8_is_migrated_and_restored_byte_for_byte() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path();
    git_init(dir);
    let original = b"#!/bin/bash\necho \"Created: out.txt\"\necho \"SUCCESS\"\n";
    let script = skill(dir, b"skills/caf\xe9", original);
    let other = script.with_file_name(OsStr::from_bytes(b"r\xe9.sh"));
    std::fs::write(&other, original).expect("second script");
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "skills"]);

    let out = run(skillmod(dir).args(["migrate", "skills"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stderr(&out) + &stdout(&out);
    // Paths are quoted as git quotes them, never shown lossily.
    assert!(
        text.contains("\"skills/caf\\351/skillmod-runtime.sh\""),
        "{text}"
    );
    assert!(!text.contains('\u{fffd}'), "{text}");
    assert_ne!(std::fs::read(&script).expect("migrated"), original);
    let doc = strictly_valid(dir, &run_script("bash", &script, None));
    assert_eq!(doc["deliverables"], serde_json::json!(["out.txt"]));

    // The manifest names the files as git quotes them.
    let manifest = walk_manifests(&dir.join(".skillmod/backups"));
    assert!(
        manifest.contains(r#""path":"\"skills/caf\\351/execute.sh\"""#),
        "{manifest}"
    );
    assert!(
        manifest.contains(r#""path":"\"skills/caf\\351/r\\351.sh\"""#),
        "{manifest}"
    );

    let out = run(skillmod(dir).args(["restore"]));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    let text = stdout(&out) + &stderr(&out);
    assert!(
        text.contains("restored \"skills/caf\\351/execute.sh\""),
        "{text}"
    );
    assert!(
        text.contains("restored \"skills/caf\\351/r\\351.sh\""),
        "{text}"
    );
    assert_eq!(std::fs::read(&script).expect("restored"), original);
    assert_eq!(std::fs::read(&other).expect("restored"), original);
    assert!(!script.with_file_name("skillmod-runtime.sh").exists());
}

#[test]
fn check_names_a_script_whose_path_is_not_utf8_as_git_quotes_it() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path();
    skill(dir, b"caf\xe9", b"#!/bin/bash\necho \"SUCCESS\"\n");
    let out = run(skillmod(dir).args(["check", "."]));
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("\"caf\\351/execute.sh\":2:1: SKM001"),
        "{text}"
    );
    assert!(
        text.contains("skillmod migrate $'caf\\351/execute.sh'"),
        "{text}"
    );
}

#[test]
fn every_check_format_names_a_path_that_is_not_utf8_as_git_quotes_it_and_sarif_encodes_its_bytes() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path();
    skill(dir, b"caf\xe9", b"#!/bin/bash\necho \"SUCCESS\"\n");
    let quoted = "\"caf\\351/execute.sh\"";
    // Text, JSON and GitHub give the one string git would print; no private-use or
    // replacement character anywhere.
    let text = stdout(&run(skillmod(dir).args(["check", "--no-cache", "."])));
    assert!(text.contains(&format!("{quoted}:2:1: SKM001")), "{text}");
    let (code, report) = json_report(dir, &["check", "--no-cache", "."]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(report["findings"][0]["path"], quoted, "{report}");
    let github = stdout(&run(skillmod(dir).args([
        "check",
        "--no-cache",
        "--format",
        "github",
        ".",
    ])));
    assert!(
        github.starts_with(&format!("::error file={quoted},line=2,col=1,")),
        "{github}"
    );
    // SARIF's URI is a URI: the file's own bytes, percent-encoded.
    let sarif = stdout(&run(skillmod(dir).args([
        "check",
        "--no-cache",
        "--format",
        "sarif",
        ".",
    ])));
    let log: serde_json::Value = serde_json::from_str(&sarif).expect("sarif");
    let location = &log["runs"][0]["results"][0]["locations"][0]["physicalLocation"];
    assert_eq!(
        location["artifactLocation"]["uri"], "caf%E9/execute.sh",
        "{sarif}"
    );
    // migrate's JSON names the script and its runtime the same way.
    let (_, migrated) = json_report(dir, &["migrate", "--dry-run", "."]);
    assert_eq!(migrated["files"][0]["path"], quoted, "{migrated}");
    assert_eq!(
        migrated["runtime_files"][0]["path"], "\"caf\\351/skillmod-runtime.sh\"",
        "{migrated}"
    );
    for out in [
        text,
        report.to_string(),
        github,
        sarif,
        migrated.to_string(),
    ] {
        assert!(
            !out.contains('\u{fffd}') && !out.chars().any(|c| ('\u{10ff80}'..).contains(&c)),
            "{out}"
        );
    }
}

/// Every manifest under `backups`, concatenated.
fn walk_manifests(backups: &Path) -> String {
    let mut text = String::new();
    for run in std::fs::read_dir(backups).expect("backups").flatten() {
        text.push_str(
            &std::fs::read_to_string(run.path().join("manifest.jsonl")).unwrap_or_default(),
        );
    }
    text
}
