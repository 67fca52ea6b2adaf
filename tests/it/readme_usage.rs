//! The README's usage block names every flag each command takes, and no flag it does not: read
//! against the flag definitions (`skillmod::cli::Cli`, the same ones `--help` prints).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use clap::CommandFactory;

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
