//! The postgres suite lives in `tests/postgres.rs`; this crate has no library code.
