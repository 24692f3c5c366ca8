//! The async suite lives in `tests/async.rs`; this crate has no library code.
