//! check ⇔ migrate (issue 20): over the fixtures, the bench corpora, generated scripts and the
//! shapes found on public repositories, `migrate` (without `--force`) changes only files `check`
//! flags (SKM001) or scripts sourcing a library it flags (named in SOURCES_LIBRARY); every file
//! check flags is migrated or refused with a code check printed (PARSE_ERROR at the SKM003's
//! line:column, the SKM008 refusals with their own code).

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use common::*;
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
        let codes: Vec<&str> = file["errors"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|e| e["code"].as_str())
            .collect();
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
                    "PRINTS_JSON" | "NAME_CLASH" | "TRAP_UNSUPPORTED" => findings[path]
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
        // Capture's own refusals.
        (
            "skills/clash/execute.sh",
            "#!/bin/sh\n__skm_mine=1\necho SUCCESS\n",
        ),
        (
            "skills/dynamic-trap/execute.sh",
            "#!/bin/bash\nSIGS=\"EXIT INT\"\ntrap cleanup $SIGS\necho SUCCESS\n",
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
