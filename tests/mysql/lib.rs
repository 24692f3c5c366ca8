//! The mysql suite lives in `tests/mysql.rs`; this crate has no library code.
