//! `keyset-diesel`'s own integration tests, self-contained (no server: SQLite in memory, the
//! other backends' SQL as text), in one binary: the SQL of every page shape, index hints,
//! named sorts, and tokens under hostile input.

mod force_index;
mod named_sorts;
mod page_sql;
mod replan;
mod tokens;
