//! Fuzzing with proptest (it runs in `cargo test`; `PROPTEST_CASES=20000 cargo test --release
//! --test it fuzz::` is the longer run). Over generated and byte-mutated scripts: analysis and
//! plan + apply never panic, and a script that `bash -n` (or `dash -n`, for sh) accepted is still
//! accepted after migration in both modes. The contract
//! parser and the manifest reader never panic on any input. Deep nesting and long lines do not
//! overflow a worker thread's stack.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::common::*;
use proptest::prelude::*;
use skillmod::analyze::Vocabulary;
use skillmod::analyze::{self, BashParser};
use skillmod::rewrite::capture::{self, Role};
use skillmod::rewrite::{self, Template, values};

/// 96 cases per property in `cargo test`; `PROPTEST_CASES` sets more for a longer run.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(96)
}

/// Bytes that shift how bash reads a script, for mutations.
const NOISE: &[u8] = b"\"'`$(){}[];|&<>\\\n\r\t #=!*";

fn shell_accepts(shell: &str, script: &[u8]) -> bool {
    let mut cmd = Command::new(shell);
    if shell == "bash" {
        cmd.args(["-O", "extglob"]);
    }
    let Ok(mut child) = cmd
        .arg("-n")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
    else {
        return false;
    };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(script);
    }
    child.wait().is_ok_and(|s| s.success())
}

/// Migrate in both modes in memory: the rewrites that planning and the re-parse let through.
fn rewrites(parser: &mut BashParser, source: &[u8]) -> Vec<(&'static str, Vec<u8>)> {
    let Ok(analysis) = analyze::analyze(parser, source, Vocabulary::Exact) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if analysis.parse_errors > 0 || analysis.legacy.is_empty() {
        return out;
    }
    let template = Template::load("skill-output-v1").expect("template");
    let context = values::static_values(
        &analysis.legacy,
        skillmod::contract::legacy_text::DEFAULT_CONFIDENCE,
        "s",
    );
    if let Ok(plan) = rewrite::plan_comment_mode(&analysis, source, &template, &context, None)
        && let Ok(bytes) = rewrite::apply_checked(&plan, &analysis, source, parser)
    {
        out.push(("comment", bytes));
    }
    let runtime = capture::render_runtime(&template).expect("runtime");
    let link = capture::Link {
        relative: "skillmod-runtime.sh",
        default_confidence: skillmod::contract::legacy_text::DEFAULT_CONFIDENCE,
        keep_stdout: false,
        inline: None,
        bash: true,
        failure: &runtime.failure,
        skill_name: "s",
    };
    // Capture mode plans only what the one verdict lets migrate rewrite.
    let facts = skillmod::verdict::Facts::of(&analysis, source, true);
    if facts.capture.is_none()
        && let plan = capture::plan_capture_mode(&analysis, source, &link, Role::Script, None)
        && let Ok(bytes) = rewrite::apply_checked(&plan, &analysis, source, parser)
    {
        out.push(("capture", bytes));
    }
    out
}

fn mutate(mut script: Vec<u8>, edits: &[(usize, usize, bool)]) -> Vec<u8> {
    for &(at, noise, delete) in edits {
        if script.is_empty() {
            break;
        }
        let at = at % script.len();
        if delete {
            script.remove(at);
        } else {
            script.insert(at, NOISE[noise % NOISE.len()]);
        }
    }
    script
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn the_manifest_reader_never_panics(lines in proptest::collection::vec(".{0,120}", 0..6)) {
        let tmp = tempfile::tempdir().expect("tmp");
        let run = tmp.path().join(".skillmod/backups/20261120T000000.000Z");
        std::fs::create_dir_all(run.join("files")).expect("mkdir");
        std::fs::write(run.join("manifest.jsonl"), lines.join("\n")).expect("write");
        let _ = skillmod::fsio::backup::load_run(tmp.path(), "20261120T000000.000Z");
    }
}

/// Generated and byte-mutated scripts that the shell accepts are still accepted after migration
/// in both modes. Cases the shell rejects, or with nothing to migrate, are not judged; they are
/// counted, and the run fails when fewer than a quarter of its cases were judged.
#[test]
fn migration_keeps_the_shell_verdict() {
    use proptest::test_runner::{Config, TestRunner};
    let cases = cases();
    let judged = std::cell::Cell::new(0u32);
    let mut runner = TestRunner::new(Config {
        cases,
        source_file: Some(file!()),
        ..Config::default()
    });
    let inputs = (
        proptest::collection::vec((0usize..64, 0usize..3), 1..10),
        proptest::collection::vec((0usize..10_000, 0usize..64, any::<bool>()), 0..4),
        any::<bool>(),
    );
    let result = runner.run(&inputs, |(picks, edits, posix)| {
        let mut script = generated_script(&picks).into_bytes();
        if posix {
            script.splice(0..11, b"#!/bin/sh".iter().copied());
        }
        let script = mutate(script, &edits);
        let mut parser = BashParser::new().expect("parser");
        let shell = if posix { "dash" } else { "bash" };
        let rewritten = rewrites(&mut parser, &script);
        if rewritten.is_empty() || !shell_accepts(shell, &script) {
            return Ok(());
        }
        judged.set(judged.get() + 1);
        for (mode, bytes) in rewritten {
            prop_assert!(
                shell_accepts(shell, &bytes),
                "{shell} -n rejects the {mode} rewrite of:\n{}\n---\n{}",
                String::from_utf8_lossy(&script),
                String::from_utf8_lossy(&bytes)
            );
        }
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
    assert!(
        judged.get() >= cases / 4,
        "only {} of {cases} cases reached the shell check",
        judged.get()
    );
}

/// Run `f` on a thread with the stack a worker thread gets (2 MiB).
fn on_worker_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(f)
        .expect("thread")
        .join()
        .expect("no stack overflow or panic");
}

#[test]
fn deep_nesting_and_long_lines_do_not_overflow_the_stack() {
    let n = 20_000;
    let scripts = [
        format!(
            "#!/bin/bash\n{}echo SUCCESS; exit 0; {}\n",
            "{ ".repeat(n),
            "} ".repeat(n)
        ),
        format!(
            "#!/bin/bash\n{}echo SUCCESS; exit 0; {}\n",
            "if true; then ".repeat(n),
            "else exit 1; fi; ".repeat(n)
        ),
        format!(
            "#!/bin/bash\necho \"Created: {}x{}\"\necho SUCCESS\n",
            "$(echo \"".repeat(n),
            "\")".repeat(n)
        ),
        format!(
            "#!/bin/bash\nx=$(({}1{}))\necho SUCCESS\n",
            "(".repeat(n),
            ")".repeat(n)
        ),
        format!(
            "#!/bin/bash\necho \"Created: {}\"\necho SUCCESS\n",
            "a".repeat(900_000)
        ),
    ];
    for script in scripts {
        on_worker_stack(move || {
            let mut parser = BashParser::new().expect("parser");
            let analysis = analyze::analyze(&mut parser, script.as_bytes(), Vocabulary::Exact)
                .expect("analysis");
            let _ = analyze::flow::last_command_always_exits(
                parser.parse(script.as_bytes()).expect("parse").root_node(),
                script.as_bytes(),
            );
            let visible = !analysis.legacy.is_empty() || analysis.legacy_in_parse_error.is_some();
            assert!(visible, "the legacy line is found or reported");
            let _ = rewrites(&mut parser, script.as_bytes());
        });
    }
}

/// Constructs tree-sitter-bash misreads, common in real scripts: some are masked for the parse
/// (`analyze::misreads`), the others must make a file with a marker an error, never a pass.
const MISREADS: &[&str] = &[
    "[ \"$BASH_VERSION\" \\< \"$req\" ] && echo \"old bash\" >&2\n",
    "if [ \"$a\" \\> \"$b\" ]; then echo hi; fi\n",
    "n=$((10#$v + 1))\n",
    "grep -q x >/dev/null <<<\"$s\"\n",
    "read -r a 2>/dev/null <<< \"$line\"\n",
    "[[ $a == @(x|y ]] && echo hi\n",
    "for x do echo \"$x\"; done\n",
    "url=\"${line#*](}\"\n",
    "c=${a:$i:1}\n",
    "case $x in\n",
    "echo \"unclosed\n",
];

#[test]
fn misread_constructs_never_hide_a_legacy_line() {
    use proptest::test_runner::{Config, TestRunner};
    let mut runner = TestRunner::new(Config::with_cases(cases()));
    let parser = std::cell::RefCell::new(BashParser::new().expect("parser"));
    let judged = std::cell::Cell::new(0u32);
    let masked_clean = std::cell::Cell::new(0u32);
    let strategy = (
        prop::collection::vec((0usize..64, 0usize..3), 0..10),
        prop::collection::vec((0usize..MISREADS.len(), 0usize..32), 1..4),
        prop::bool::ANY,
    );
    runner
        .run(&strategy, |(picks, inserts, at_end)| {
            let mut lines: Vec<String> = generated_script(&picks)
                .lines()
                .map(|l| format!("{l}\n"))
                .collect();
            for (which, at) in inserts {
                let at = 1 + at % lines.len();
                lines.insert(at, MISREADS[which].to_string());
            }
            let legacy = "echo \"Created: out.txt\"\necho SUCCESS\n".to_string();
            if at_end {
                lines.push(legacy);
            } else {
                lines.insert(1, legacy);
            }
            let script = lines.concat();
            let analysis = analyze::analyze(
                &mut parser.borrow_mut(),
                script.as_bytes(),
                Vocabulary::Exact,
            )
            .expect("analysis");
            judged.set(judged.get() + 1);
            if analysis.parse_errors == 0 {
                masked_clean.set(masked_clean.get() + 1);
            }
            prop_assert!(
                !analysis.legacy.is_empty() || analysis.legacy_in_parse_error.is_some(),
                "a legacy line passed unseen in:\n{script}"
            );
            Ok(())
        })
        .expect("no false pass");
    assert!(
        judged.get() >= cases(),
        "only {} cases judged",
        judged.get()
    );
    assert!(
        masked_clean.get() > 0,
        "no case parsed cleanly: the masks did nothing"
    );
}
