//! The integration tests, one module per area, linked into one test binary (as ripgrep does):
//! they drive the real `skillmod` binary in temp folders, run real shells on what it writes, and
//! call the library where a property is checked over generated inputs.
//! `cargo test --test it NAME` runs a subset (`cargo test --test it migrate_cli::`).
//! A new test goes in the module whose line below names its kind; a new module gets its line.

// Per command: flags, formats, exit statuses and messages, through the binary.

// `check`: findings, output formats, exit codes, ignore rules, the cache; completions, man pages.
mod check_cli;
// check's rule codes: formats, --select, statistics, inline suppression, SARIF, `rule`, docs table.
mod rules_cli;
// `migrate` and `restore`: dry runs, reports, second runs, files walked, refusals, exit codes.
mod migrate_cli;
// migrate in git repositories: dirty files refused, exact commits, history selection.
mod git_cli;
// `validate` (files, stdin, `run` with its timeout and caps), `schema`, `templates`.
mod validate_cli;
// The settings file (skillmod.toml, --config, --isolated, flags win) and the `original` vocabulary.
mod config_cli;
// migrate writes a --vocabulary reading into the settings file, so check reads alike (issue 30).
mod remembered;
// What a command draws on a terminal (progress bar, colors), under a pseudo-terminal.
mod terminal;

// What migrate writes, and how the migrated skill runs.

// Migrate's golden files (fixtures/snapshots/, both modes): bytes, `sh -n`, runnable cases' JSON.
mod snapshots;
// Capture mode end to end on fixtures/capture: same exit status, files, stderr; one valid document.
mod capture_e2e;
// A diff a reviewer can accept: no line moves, CRLF keeps working, libraries get no runtime.
mod capture_review;
// The runtime file: every exit path, a missing runtime, upgrades of 0.1.0, ShellCheck-clean output.
mod runtime_file;
// A migrated skill folder carries its runtime and runs copied alone from anywhere (issue 29).
mod self_contained;
// The outcome does not change: a skill run before and after migrate reports the same (issue 20).
mod outcome;
// Every literal form of stdout output, one fixtures/stdout_forms case each (issue 31, point 3).
mod stdout_forms;
// Bytes that are not UTF-8 in values, folder and file names (issue 31, point 6).
mod non_utf8;
// A script without a shebang: reported and left alone unless sourced or named (issue 30, point 7).
mod no_shebang;

// Analysis and the output contract, through the library and over generated inputs.

// The legacy-statement rules: what counts as a legacy line, what is data, what values it carries.
mod analyze_rules;
// check ⇔ migrate: migrate changes only what check flags, and all it flags (issue 20).
mod one_judgement;
// Analysis work grows linearly with the script (nodes counted, not time).
mod bounded_work;
// proptest: no panic on generated or mutated scripts; a valid script stays valid in both modes.
mod fuzz;
// The output contract: every seed example, each protocol, round trips, no panic on any input.
mod contract;

// Safety: nothing lost, nothing written outside, nothing unjudged called clean.

// Untrusted .skillmod/ state, durable writes, interrupted runs, walk errors, path quoting.
mod safety;
// Restore picks only this user's runs and never writes under .git/ or .skillmod/ (issue 31).
mod restore_trust;
// A script check selected but could not judge is never a pass (issue 31, points 2 and 4).
mod skipped_not_clean;

// The repository around the code: source layout, docs, packages, recipes.

// Layers: src/'s modules import only lower ones, as ARCHITECTURE.md lists them (issue 32).
mod layers;
// The README's usage block lists exactly the flags each command takes; its example migration is real.
mod readme_usage;
// One version across Cargo.toml, npm, pre-commit and the Action; the wheel is the binary alone.
mod packaging;
// docs/multi-repo.md's recipe (scripts/migrate-repos.sh) over temp repositories.
mod multi_repo;

// Shared helpers: the binary, temp skill trees, shells, fixtures, `golden` (every golden file).
mod common;
