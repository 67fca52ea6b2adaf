//! Rule codes in every format, selection, statistics, `--exit-zero`, inline suppression (check
//! and migrate), and CI output: SARIF valid against the official 2.1.0 schema and GitHub's
//! code-scanning rules, annotations that resolve from the repository root.

use std::path::Path;

use crate::common::*;
use serde_json::Value;

const LEGACY: &[u8] = b"#!/bin/sh\necho \"Building\"\necho SUCCESS\n";

/// A repository with awkward paths, checked from a subfolder.
fn awkward_repo() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("tmp");
    let repo = tmp.path();
    git_init(repo);
    write_script(repo, "my skill/execute.sh", LEGACY);
    write_script(repo, "a:b/execute.sh", b"#!/bin/sh\necho \"Created: x\"\n");
    write_script(repo, "sub/execute.sh", LEGACY);
    // A link out of the repository, found by --include: a script that cannot be judged.
    std::os::unix::fs::symlink("/dev/null", repo.join("sub/link.sh")).expect("link");
    tmp
}

fn sarif_from_subfolder(repo: &Path) -> Value {
    let out = run(skillmod(&repo.join("sub")).args([
        "check",
        "--format",
        "sarif",
        "--include",
        "*.sh",
        "..",
    ]));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(&out)))
}

/// The official SARIF 2.1.0 schema, from the npm package `@microsoft/jest-sarif` that `.ci/run`
/// installs (`SKILLMOD_SARIF_SCHEMA`). Required on CI; elsewhere the test says it was not run.
pub(crate) fn official_schema() -> Option<Value> {
    match std::env::var("SKILLMOD_SARIF_SCHEMA") {
        Ok(path) => {
            // The published schema's `language` patterns have a stray `]`
            // (`^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$`), which the regex engine refuses; their
            // intent is put in their place. skillmod's log has no `language`, so nothing hangs on it.
            let text = std::fs::read_to_string(&path)
                .expect("schema file")
                .replace(
                    r#""^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$""#,
                    r#""^[a-zA-Z]{2}(-[a-zA-Z]{2})?$""#,
                );
            Some(serde_json::from_str(&text).expect("schema"))
        }
        Err(_) if std::env::var_os("CI").is_some() => {
            panic!("CI must set SKILLMOD_SARIF_SCHEMA (see .ci/run)")
        }
        Err(_) => None,
    }
}

#[test]
fn sarif_passes_the_official_schema_and_githubs_rules() {
    let tmp = awkward_repo();
    let doc = sarif_from_subfolder(tmp.path());
    match official_schema() {
        Some(schema) => {
            let validator = jsonschema::validator_for(&schema).expect("schema compiles");
            let errors: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
            assert!(errors.is_empty(), "{errors:?}");
        }
        None => eprintln!("SKILLMOD_SARIF_SCHEMA not set: schema validation not run here"),
    }
    let run0 = &doc["runs"][0];
    let rules = run0["tool"]["driver"]["rules"].as_array().expect("rules");
    for rule in rules {
        // GH2012: every rule has a full description; help and helpUri for the alert page.
        assert!(
            rule["fullDescription"]["text"]
                .as_str()
                .is_some_and(|t| t.len() > 20),
            "{rule}"
        );
        assert!(rule["help"]["text"].as_str().is_some_and(|t| !t.is_empty()));
        assert!(
            rule["helpUri"]
                .as_str()
                .is_some_and(|u| u.starts_with("https://"))
        );
    }
    let bases = &run0["originalUriBaseIds"]["%SRCROOT%"]["uri"];
    assert!(
        bases
            .as_str()
            .is_some_and(|u| u.starts_with("file:///") && u.ends_with('/'))
    );
    let mut uris = Vec::new();
    for result in run0["results"].as_array().expect("results") {
        let index = result["ruleIndex"].as_u64().expect("index") as usize;
        assert_eq!(rules[index]["id"], result["ruleId"]);
        let location = &result["locations"][0]["physicalLocation"];
        assert_eq!(location["artifactLocation"]["uriBaseId"], "%SRCROOT%");
        // A file that could not be judged is a result about the whole file, with no region.
        assert!(
            result["ruleId"] == "SKM004"
                || location["region"]["startLine"]
                    .as_u64()
                    .is_some_and(|l| l >= 1)
        );
        uris.push(
            location["artifactLocation"]["uri"]
                .as_str()
                .expect("uri")
                .to_string(),
        );
    }
    uris.sort();
    uris.dedup();
    assert_eq!(
        uris,
        [
            "a%3Ab/execute.sh",
            "my%20skill/execute.sh",
            "sub/execute.sh",
            "sub/link.sh"
        ]
    );
    // A script that could not be judged is a result at the level every format gives it.
    let link = run0["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|r| r["ruleId"] == "SKM004")
        .expect("the link is a result");
    assert_eq!(link["level"], "warning", "{link}");
}

#[test]
fn github_annotations_resolve_from_the_repository_root() {
    let tmp = awkward_repo();
    let out = run(skillmod(&tmp.path().join("sub")).args([
        "check",
        "--format",
        "github",
        "--include",
        "*.sh",
        "..",
    ]));
    let text = stdout(&out);
    assert!(
        text.contains(
            "::error file=my skill/execute.sh,line=3,col=1,title=skillmod SKM001 (legacy-output)::"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "::notice file=sub/execute.sh,line=2,col=1,title=skillmod SKM002 (stdout-write)::"
        ),
        "{text}"
    );
    assert!(
        text.contains("::warning file=sub/link.sh,title=skillmod SKM004 (skipped)::"),
        "{text}"
    );
}

#[test]
fn select_ignore_statistics_and_exit_zero() {
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(tmp.path(), "s/execute.sh", LEGACY);
    let only_warnings = run(skillmod(tmp.path()).args(["check", "--select", "SKM002", "s"]));
    let text = stdout(&only_warnings);
    assert!(
        text.contains("SKM002") && !text.contains("SKM001 "),
        "{text}"
    );
    assert_eq!(only_warnings.status.code(), Some(0));
    let ignored = run(skillmod(tmp.path()).args(["check", "--ignore", "SKM001,SKM002", "s"]));
    assert_eq!(ignored.status.code(), Some(0));
    assert!(stdout(&ignored).contains("All clear"));
    let stats = run(skillmod(tmp.path()).args(["check", "--statistics", "s"]));
    let text = stdout(&stats);
    assert!(text.contains("     1\tSKM001\tlegacy-output"), "{text}");
    assert!(text.contains("     1\tSKM002\tstdout-write"), "{text}");
    assert_eq!(stats.status.code(), Some(1));
    let zero = run(skillmod(tmp.path()).args(["check", "--exit-zero", "s"]));
    assert_eq!(zero.status.code(), Some(0));
    assert!(stdout(&zero).contains("SKM001"));
    let typo = run(skillmod(tmp.path()).args(["check", "--select", "SKM9", "s"]));
    assert_eq!(typo.status.code(), Some(2));
    assert!(stderr(&typo).contains("UNKNOWN_RULE"));
}

#[test]
fn inline_suppression_is_honoured_by_check_and_migrate() {
    let tmp = tempfile::tempdir().expect("tmp");
    let text = b"#!/bin/sh\necho \"Building\" # skillmod: ignore[SKM002]\n# skillmod: ignore\necho \"Confidence: 0.5\"\necho SUCCESS\necho done # skillmod: ignore[SKM001]\n";
    let script = write_script(tmp.path(), "s/execute.sh", text);
    let out = run(skillmod(tmp.path()).args(["check", "--report-unused-suppressions", "s"]));
    let report = stdout(&out);
    assert!(
        report.contains("s/execute.sh:5:1: SKM001 success"),
        "{report}"
    );
    assert!(!report.contains(":4:1: SKM001"), "{report}");
    assert!(!report.contains(":2:1: SKM002"), "{report}");
    assert!(report.contains("s/execute.sh:6:11: SKM005"), "{report}");
    assert!(report.contains("(2 suppressed)"), "{report}");
    let (status, doc) = json_report(
        tmp.path(),
        &["migrate", "--mode", "comment", "--no-backup", "s"],
    );
    assert_eq!(status, 0, "{doc}");
    let migrated = String::from_utf8(std::fs::read(&script).expect("read")).expect("utf8");
    assert!(
        migrated.contains("\necho \"Confidence: 0.5\"\n"),
        "suppressed line kept: {migrated}"
    );
    assert!(
        migrated.contains(": # LEGACY (replaced with JSON): echo SUCCESS"),
        "{migrated}"
    );
}

#[test]
fn nothing_checked_is_never_a_silent_pass() {
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(tmp.path(), "s/run.sh", LEGACY);
    let out = run(skillmod(tmp.path()).args(["check", "s"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("NOTHING_CHECKED") && stderr(&out).contains("--include '*.sh'"),
        "{}",
        stderr(&out)
    );
    let migrate = run(skillmod(tmp.path()).args(["migrate", "--dry-run", "s"]));
    assert_eq!(migrate.status.code(), Some(2), "{}", stderr(&migrate));
    // A named script that could not be judged is the answer (exit 1), not "nothing checked".
    std::os::unix::fs::symlink("nowhere.sh", tmp.path().join("s/execute.sh")).expect("link");
    let out = run(skillmod(tmp.path()).args(["check", "s/execute.sh"]));
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("SKM004 SYMLINK_BROKEN") && stdout(&out).contains("Not clear"),
        "{}",
        stdout(&out)
    );
    // A skill-folder script that could not be judged, and nothing else: nothing was checked.
    std::fs::remove_file(tmp.path().join("s/execute.sh")).expect("rm");
    std::fs::write(tmp.path().join("s/SKILL.md"), "---\nname: s\n---\n").expect("skill");
    std::os::unix::fs::symlink("nowhere.sh", tmp.path().join("s/tool.sh")).expect("link");
    std::fs::remove_file(tmp.path().join("s/run.sh")).expect("rm");
    let out = run(skillmod(tmp.path()).args(["check", "s"]));
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(stderr(&out).contains("were skipped"), "{}", stderr(&out));
}

#[test]
fn quiet_keeps_findings_and_errors_and_silent_prints_nothing() {
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(tmp.path(), "s/execute.sh", LEGACY);
    write_script(
        tmp.path(),
        "s/clash/execute.sh",
        b"#!/bin/sh\n__skm_x=1\necho SUCCESS\n",
    );
    let quiet = run(skillmod(tmp.path()).args(["check", "-q", "s"]));
    assert!(
        stdout(&quiet).contains("SKM001") && !stdout(&quiet).contains("Found"),
        "{}",
        stdout(&quiet)
    );
    let silent = run(skillmod(tmp.path()).args(["check", "--silent", "s"]));
    assert_eq!(
        (stdout(&silent), stderr(&silent)),
        (String::new(), String::new())
    );
    assert_eq!(silent.status.code(), Some(1));
    let migrate = run(skillmod(tmp.path()).args(["migrate", "-q", "--no-backup", "s"]));
    assert!(
        stderr(&migrate).contains("NAME_CLASH"),
        "{}",
        stderr(&migrate)
    );
    assert!(!stderr(&migrate).contains("files:"), "{}", stderr(&migrate));
    let restore =
        run(skillmod(tempfile::tempdir().expect("empty").path())
            .args(["restore", "--format", "json"]));
    assert_eq!(restore.status.code(), Some(0));
    let doc: Value = serde_json::from_slice(&restore.stdout).expect("a JSON document");
    assert!(
        doc["warnings"][0]
            .as_str()
            .is_some_and(|w| w.starts_with("NO_BACKUPS"))
    );
}

#[test]
fn quiet_migrate_check_and_restore_print_nothing_when_all_goes_well() {
    let tmp = tempfile::tempdir().expect("tmp");
    let script = write_script(tmp.path(), "skills/a/execute.sh", LEGACY);
    std::fs::write(tmp.path().join("skills/a/SKILL.md"), "# a\n").expect("SKILL.md");
    // A migration that creates the skill's runtime and a backup run: nothing to say with -q.
    for args in [
        &["migrate", "-q", "."][..],
        &["check", "-q", "."],
        &["restore", "-q"],
    ] {
        let out = run(skillmod(tmp.path()).args(args));
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        assert_eq!(
            (stdout(&out), stderr(&out)),
            (String::new(), String::new()),
            "{args:?}"
        );
    }
    assert!(tmp.path().join(".skillmod/backups").is_dir());
    assert!(!tmp.path().join("skills/a/skillmod-runtime.sh").exists());
    assert_eq!(std::fs::read(&script).expect("read"), LEGACY);
}

#[test]
fn check_reads_a_script_from_stdin_under_the_name_given() {
    let tmp = tempfile::tempdir().expect("tmp");
    let out = run_with_stdin(
        skillmod(tmp.path()).args(["check", "-", "--stdin-filename", "skills/x/execute.sh"]),
        b"#!/bin/sh\necho SUCCESS\n",
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("skills/x/execute.sh:2:1: SKM001 success: echo SUCCESS"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_trailing_directive_does_not_cover_the_next_line() {
    let tmp = tempfile::tempdir().expect("tmp");
    let text = b"#!/bin/bash\necho \"Created: a\" # skillmod: ignore[SKM001]\necho SUCCESS\n";
    let script = write_script(tmp.path(), "s/execute.sh", text);
    let out = run(skillmod(tmp.path()).args(["check", "--no-cache", "s"]));
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("s/execute.sh:3:1: SKM001"),
        "{}",
        stdout(&out)
    );
    let out = run(skillmod(tmp.path()).args(["migrate", "--mode", "comment", "--no-backup", "s"]));
    assert!(out.status.success(), "{}", stderr(&out));
    let migrated = std::fs::read_to_string(&script).expect("read");
    assert!(
        migrated.contains("echo \"Created: a\" # skillmod"),
        "{migrated}"
    );
    assert!(
        !migrated.contains("\necho SUCCESS\n"),
        "the next line is migrated: {migrated}"
    );
}

#[test]
fn prose_strings_and_empty_lists_suppress_nothing() {
    let tmp = tempfile::tempdir().expect("tmp");
    let text = b"#!/bin/bash\n# skillmod: ignored by design\necho SUCCESS\nmsg=\"# skillmod: ignore\"; echo \"Confidence: 0.5\"\necho \"Created: x\" # skillmod: ignore[]\n";
    write_script(tmp.path(), "s/execute.sh", text);
    let out = run(skillmod(tmp.path()).args(["check", "--no-cache", "s"]));
    let report = stdout(&out);
    assert_eq!(report.matches(": SKM001 ").count(), 3, "{report}");
    assert!(report.contains("s/execute.sh:5:19: SKM006"), "{report}");
    assert!(
        report.contains("Found 3 legacy statements and 1 other error"),
        "{report}"
    );
    assert!(!report.contains("suppressed"), "{report}");
}

#[test]
fn a_directive_above_an_if_covers_the_whole_if() {
    let tmp = tempfile::tempdir().expect("tmp");
    let text = b"#!/bin/bash\n# skillmod: ignore[SKM001] printed for the old runner\nif true; then\n  echo SUCCESS\n  echo \"Confidence: 1\"\nfi\necho COMPLETE\n";
    write_script(tmp.path(), "s/execute.sh", text);
    let out = run(skillmod(tmp.path()).args(["check", "--no-cache", "s"]));
    let report = stdout(&out);
    assert_eq!(report.matches(": SKM001 ").count(), 1, "{report}");
    assert!(report.contains(":7:1: SKM001"), "{report}");
    assert!(report.contains("(2 suppressed)"), "{report}");
}

#[test]
fn an_unused_directive_is_reported_in_a_file_without_markers() {
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(
        tmp.path(),
        "s/execute.sh",
        b"#!/bin/bash\nls # skillmod: ignore\necho hi # skillmod: ignore[SKM00X]\n",
    );
    let out = run(skillmod(tmp.path()).args([
        "check",
        "--no-cache",
        "--report-unused-suppressions",
        "s",
    ]));
    let report = stdout(&out);
    assert!(report.contains("s/execute.sh:2:4: SKM005"), "{report}");
    assert!(report.contains("s/execute.sh:3:9: SKM006"), "{report}");
    assert_eq!(
        out.status.code(),
        Some(1),
        "an invalid directive fails: {report}"
    );
}

/// The rules table of docs/check.md is the registry's, byte for byte (a golden file:
/// `SKILLMOD_BLESS=1` rewrites the table after a rule changes).
#[test]
fn docs_rules_table_is_generated_from_the_registry() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/check.md");
    let page = std::fs::read_to_string(&path).expect("docs/check.md");
    let start = "<!-- rules table: generated from src/domain/rules.rs; `cargo test` fails when it drifts -->\n";
    let end = "<!-- end of rules table -->\n";
    let from = page.find(start).expect("table start") + start.len();
    let to = page[from..].find(end).expect("table end") + from;
    let table = skillmod::check::Rule::markdown_table();
    let generated = format!("{}{table}{}", &page[..from], &page[to..]);
    golden(&path, generated.as_bytes())
        .unwrap_or_else(|e| panic!("the rules table drifted from src/domain/rules.rs: {e}"));
}

/// Each rule's example, checked as a skill, gives that rule's finding (SKM004's example is a
/// symlink out of the project root, made here as the example says).
#[test]
fn every_rule_example_gives_its_finding() {
    for rule in skillmod::check::Rule::ALL {
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = tmp.path();
        git_init(dir);
        let outside = tempfile::tempdir().expect("tmp");
        if rule.code() == "SKM004" {
            let target = write_script(outside.path(), "deploy.sh", b"#!/bin/bash\necho hi >&2\n");
            std::fs::create_dir_all(dir.join("skills/deploy")).expect("mkdir");
            std::os::unix::fs::symlink(&target, dir.join("skills/deploy/execute.sh"))
                .expect("link");
        } else {
            write_script(dir, "skill/execute.sh", rule.example().as_bytes());
        }
        if rule.code() == "SKM009" {
            // A skill folder, and the file outside it that its script sources.
            std::fs::write(dir.join("skill/SKILL.md"), "---\nname: skill\n---\n").expect("skill");
            write_script(dir, "lib/common.sh", b"log() { echo \"$@\" >&2; }\n");
        }
        let out = run(skillmod(dir).args([
            "check",
            "--format",
            "sarif",
            "--report-unused-suppressions",
            ".",
        ]));
        let log: Value = serde_json::from_slice(&out.stdout).expect("sarif");
        let run0 = &log["runs"][0];
        let mut codes: Vec<String> = run0["results"]
            .as_array()
            .expect("results")
            .iter()
            .map(|r| r["ruleId"].as_str().expect("ruleId").to_string())
            .collect();
        codes.extend(
            run0["invocations"][0]["toolExecutionNotifications"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|n| n["descriptor"]["id"].as_str().map(str::to_string)),
        );
        assert!(
            codes.iter().any(|c| c == rule.code()),
            "{}: example gives {codes:?}\n{}",
            rule.code(),
            rule.example()
        );
    }
}

#[test]
fn rule_command_explains_one_rule_or_all() {
    let tmp = tempfile::tempdir().expect("tmp");
    let one = run(skillmod(tmp.path()).args(["rule", "SKM001"]));
    assert_eq!(one.status.code(), Some(0));
    let text = stdout(&one);
    assert!(text.starts_with("SKM001 legacy-output (error)\n"), "{text}");
    assert!(text.contains("Example:\n\n    #!/bin/bash\n"), "{text}");
    let all = run(skillmod(tmp.path()).args(["rule", "--all", "--format", "json"]));
    let rules: Value = serde_json::from_slice(&all.stdout).expect("json");
    let codes: Vec<&str> = rules
        .as_array()
        .expect("array")
        .iter()
        .map(|r| r["code"].as_str().expect("code"))
        .collect();
    let registry: Vec<&str> = skillmod::check::Rule::ALL
        .iter()
        .map(|r| r.code())
        .collect();
    assert_eq!(codes, registry);
    let unknown = run(skillmod(tmp.path()).args(["rule", "SKM9"]));
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        stderr(&unknown).contains("error[UNKNOWN_RULE]"),
        "{}",
        stderr(&unknown)
    );
}
