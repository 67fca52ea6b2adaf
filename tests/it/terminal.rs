//! What skillmod draws on a terminal: runs under a pseudo-terminal made by util-linux `script`,
//! so stdout and stderr are ttys as they are for a user.

use std::path::Path;
use std::process::Command;

use crate::common::*;

/// Run skillmod with `args` in `dir` on a pseudo-terminal; everything it wrote there.
fn on_terminal(dir: &Path, args: &str, no_color: bool) -> String {
    let line = format!("{} {args}", env!("CARGO_BIN_EXE_skillmod"));
    let mut cmd = Command::new("script");
    cmd.current_dir(dir)
        .args(["-q", "-e", "-c", &line, "/dev/null"])
        .env("TERM", "xterm")
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE");
    if no_color {
        cmd.env("NO_COLOR", "1");
    }
    let out = cmd
        .output()
        .expect("util-linux `script` runs (package bsdutils)");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Enough skills that checking them one at a time, uncached, takes well over a second.
fn many_skills(dir: &Path, count: usize) {
    let typical = std::fs::read(fixtures().join("bench/typical.sh")).expect("typical.sh");
    for i in 0..count {
        write_script(dir, &format!("s{i:05}/execute.sh"), &typical);
    }
}

const BAR: &str = " files (";

#[test]
fn progress_bar_shows_on_a_terminal_for_long_runs_only() {
    let dir = tempfile::tempdir().expect("tempdir");
    many_skills(dir.path(), 1500);
    let long = on_terminal(dir.path(), "check --no-cache -j1 .", false);
    assert!(long.contains(BAR), "no progress bar on a terminal");
    assert!(
        long.contains("\r\x1b[2K"),
        "the bar is cleared when the run ends"
    );
    let quiet = on_terminal(dir.path(), "check --no-cache -q -j1 .", false);
    assert!(!quiet.contains(BAR), "--quiet still drew a bar");
    let migrate = on_terminal(
        dir.path(),
        "migrate --dry-run --no-backup --format json -j1 .",
        false,
    );
    assert!(migrate.contains(BAR), "no progress bar for a long migrate");
    let quiet_migrate = on_terminal(dir.path(), "migrate --dry-run --no-backup -q -j1 .", false);
    assert!(
        !quiet_migrate.contains(BAR),
        "--quiet migrate still drew a bar"
    );
    let piped = run(skillmod(dir.path()).args(["check", "--no-cache", "-j1", "."]));
    assert!(
        !stderr(&piped).contains(BAR),
        "a bar on a non-terminal stderr"
    );
    let short = tempfile::tempdir().expect("tempdir");
    many_skills(short.path(), 3);
    assert!(!on_terminal(short.path(), "check --no-cache .", false).contains(BAR));
}

#[test]
fn colors_on_a_terminal_unless_no_color() {
    let dir = tempfile::tempdir().expect("tempdir");
    write_script(
        dir.path(),
        "s/execute.sh",
        b"#!/bin/bash\necho \"SUCCESS\"\n",
    );
    let colored = on_terminal(dir.path(), "check .", false);
    assert!(colored.contains("success"), "{colored}");
    assert!(
        colored.contains('\x1b'),
        "no color on a terminal: {colored}"
    );
    let plain = on_terminal(dir.path(), "check .", true);
    assert!(plain.contains("success"), "{plain}");
    assert!(!plain.contains('\x1b'), "NO_COLOR is ignored: {plain}");
    let never = on_terminal(dir.path(), "check --color never .", false);
    assert!(!never.contains('\x1b'), "--color never is ignored: {never}");
    let diff = on_terminal(dir.path(), "migrate --dry-run --mode comment .", false);
    assert!(diff.contains("\x1b[31m-echo"), "diff not colored: {diff}");
}

#[test]
fn a_dry_run_on_a_terminal_shows_each_distinct_runtime_once_and_names_its_copies() {
    let tmp = tempfile::tempdir().expect("tmp");
    for skill in ["a", "b", "c"] {
        std::fs::create_dir_all(tmp.path().join(skill)).expect("mkdir");
        std::fs::write(
            tmp.path().join(skill).join("SKILL.md"),
            "---\nname: x\n---\n",
        )
        .expect("skill");
        write_script(
            tmp.path(),
            &format!("{skill}/execute.sh"),
            b"#!/bin/sh\necho SUCCESS\n",
        );
    }
    let shown = on_terminal(tmp.path(), "migrate --dry-run .", true);
    assert_eq!(
        shown.matches("+# skillmod-runtime 3 ").count(),
        1,
        "{shown}"
    );
    assert_eq!(
        shown
            .matches("identical to a/skillmod-runtime.sh above")
            .count(),
        2,
        "{shown}"
    );
    assert!(shown.contains("3 identical copies"), "{shown}");
    // Piped, every file is in the diff, for `git apply`.
    let piped = run(skillmod(tmp.path()).args(["migrate", "--dry-run", "."]));
    assert_eq!(stdout(&piped).matches("+# skillmod-runtime 3 ").count(), 3);
}
