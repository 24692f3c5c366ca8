//! The sqlite suite lives in `tests/sqlite.rs`; this crate has no library code.
