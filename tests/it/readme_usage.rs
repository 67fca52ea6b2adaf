//! The README's usage block names every flag each command takes, and no flag it does not: read
//! against the flag definitions (`skillmod::cli::Cli`, the same ones `--help` prints); its
//! example migration is the real output.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use clap::CommandFactory;

use crate::common::*;

/// Long flags per command in the README's usage block: a `skillmod CMD …` line and its
/// continuation lines; `skillmod {a,b} …` gives its flags to both commands.
fn readme_flags() -> BTreeMap<String, BTreeSet<String>> {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README");
    let usage = readme.split("## Usage\n").nth(1).expect("## Usage");
    let block = usage
        .split("```text\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("usage block");
    let mut flags: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut current: Vec<String> = Vec::new();
    for line in block.lines() {
        if let Some(rest) = line.strip_prefix("skillmod ") {
            let name = rest.split_whitespace().next().expect("command");
            current = name
                .trim_matches(|c| c == '{' || c == '}')
                .split(',')
                .map(str::to_string)
                .collect();
        }
        let text = line.split(" # ").next().unwrap_or("");
        for word in text.split(|c: char| c.is_whitespace() || "[]|".contains(c)) {
            if let Some(flag) = word.strip_prefix("--")
                && !flag.is_empty()
            {
                let name: String = flag
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                    .collect();
                for command in &current {
                    flags
                        .entry(command.clone())
                        .or_default()
                        .insert(name.clone());
                }
            }
        }
        for command in &current {
            flags.entry(command.clone()).or_default();
        }
    }
    flags
}

#[test]
fn readme_usage_lists_exactly_the_flags_each_command_takes() {
    let cli = skillmod::cli::Cli::command();
    let mut problems = Vec::new();
    let documented = readme_flags();
    for sub in cli.get_subcommands() {
        let name = sub.get_name();
        let defined: BTreeSet<String> = sub
            .get_arguments()
            .filter_map(|a| a.get_long())
            .filter(|l| *l != "help" && *l != "version")
            .map(str::to_string)
            .collect();
        let Some(listed) = documented.get(name) else {
            problems.push(format!(
                "{name}: no `skillmod {name}` line in the README's usage block"
            ));
            continue;
        };
        for missing in defined.difference(listed) {
            problems.push(format!(
                "{name}: --{missing} is not in the README's usage block"
            ));
        }
        for extra in listed.difference(&defined) {
            problems.push(format!(
                "{name}: the README lists --{extra}, which {name} does not take"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A run's own parts made alike: the backup run's timestamp, the numbers of its backup files
/// (given in the order the parallel workers reach them) and the seconds it took.
fn run_alike(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let mut line = line.to_string();
        if let Some(at) = line.find("backups/") {
            let stamp = &line[at + 8..];
            let end = stamp.find(['/', ' ']).unwrap_or(stamp.len());
            line.replace_range(at + 8..at + 8 + end, "RUN");
        }
        if let Some(at) = line.find("/files/") {
            let digits = line[at + 7..]
                .bytes()
                .take_while(u8::is_ascii_digit)
                .count();
            line.replace_range(at + 7..at + 7 + digits, "N");
        }
        if let (Some(open), true) = (line.rfind(" ("), line.ends_with("s)"))
            && line[open + 2..line.len() - 2].parse::<f64>().is_ok()
        {
            line.replace_range(open.., " (TIME)");
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

#[test]
fn readme_example_migration_is_the_real_output() {
    // The README's "(real output)" block: `migrate --skill-dir skills -v` on a copy of
    // fixtures/example, outside git.
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    let intro = "`skillmod migrate --skill-dir skills -v` on a copy of `fixtures/example` (real output):\n\n```text\n";
    let start = readme.find(intro).expect("the example block") + intro.len();
    let block = &readme[start..start + readme[start..].find("```").expect("its end")];
    let tmp = tempfile::tempdir().expect("tmp");
    for skill in ["generate-api", "lint-check", "deploy-docs", "already-json"] {
        let rel = format!("skills/{skill}/execute.sh");
        let text = std::fs::read(fixtures().join("example").join(&rel)).expect("read");
        write_script(tmp.path(), &rel, &text);
    }
    let out = run(skillmod(tmp.path()).args(["migrate", "--skill-dir", "skills", "-v"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(run_alike(&stderr(&out)), run_alike(block));
}
