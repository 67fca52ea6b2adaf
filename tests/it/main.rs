//! The integration tests, one module per area, linked into one test binary (as ripgrep does):
//! they drive the real `skillmod` binary in temp folders, run real shells on what it writes, and
//! call the library where a property is checked over generated inputs.
//! `cargo test --test it NAME` runs a subset (`cargo test --test it migrate_cli::`).

mod common;

mod analyze_rules;
mod bounded_work;
mod capture_e2e;
mod capture_review;
mod check_cli;
mod config_cli;
mod contract;
mod fuzz;
mod git_cli;
// Layers: src/'s modules import only lower ones, as ARCHITECTURE.md lists them (issue 32).
mod layers;
mod migrate_cli;
mod migrate_fixtures;
mod multi_repo;
// A script without a shebang: reported and left alone unless sourced or named (issue 30, point 7).
mod no_shebang;
mod one_judgement;
mod outcome;
mod packaging;
mod readme_usage;
// migrate remembers a --vocabulary in the settings file, so check reads the same (issue 30, point 2).
mod remembered;
// Restore picks only this user's runs and never writes under .git/ or .skillmod/ (issue 31).
mod restore_trust;
mod rules_cli;
mod runtime_file;
mod safety;
mod self_contained;
// A script check selected but could not judge is never a pass (issue 31, points 2 and 4).
mod skipped_not_clean;
// Bytes that are not UTF-8 in values, folder and file names (issue 31, point 6).
mod non_utf8;
mod snapshots;
mod stdout_forms;
mod terminal;
mod validate_cli;
