//! The domain types every layer shares, and nothing else: rules and findings, legacy kinds and
//! values, the modes and runtime placements migrate offers, and the refusals check and migrate
//! both give. It imports only `error` and `bytes_text`, so any module may use it.

pub mod legacy;
pub mod modes;
pub mod refusal;
pub mod rules;

/// The script name selected anywhere, inside a skill folder or not.
pub const DEFAULT_NAME: &str = "execute.sh";
