//! skillmod: migrate legacy bash skills to a JSON output contract, check repositories for
//! unmigrated skills, and validate what skills print.

pub mod analyze;
pub mod bytes_text;
pub mod check;
pub mod cli;
pub mod codes;
pub mod config;
pub mod contract;
pub mod domain;
pub mod error;
pub mod fsio;
pub mod migrate;
pub mod parallel;
pub mod report;
pub mod restore;
pub mod rewrite;
pub mod unit;
pub mod vcs;
pub mod verdict;
