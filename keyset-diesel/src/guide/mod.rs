//! The user guide: what the API docs of each item cannot say in one place.
//!
//! The crate's front page shows a first page and the next one; the items' own docs say what
//! each call does. These pages explain the whole: the SQL a page runs and why, what a token
//! carries and guarantees, what "every row" means while others write, which keys page and
//! which do not, what the compiler refuses, and what the crate guarantees against a hostile
//! client. They are modules only so that they are part of these docs; they hold no items.
//!
//! | page | read it for |
//! |---|---|
//! | [`sql`] | the statement of every page shape on each backend, the measurements behind each shape, the options that change it (`exact_flags`, `with_total_count`, `max_bytes_in_sql`, `seek_per_level`, `force_index`, `expanded_seek`), prepared statements, partitioned, foreign and sharded tables |
//! | [`tokens`] | the token format, its guarantees and limits, scopes, keys and rotation, every error code and its HTTP answer, page sizes, the response body |
//! | [`read_contracts`] | live reads, walks, walks with a high-water mark, snapshot exports and stored exports: which one a product promises, on blocking and async connections |
//! | [`keys_and_limits`] | key types, keys on expressions and joined tables, text and collations, values read lossily, and everything the crate cannot page, with what to do instead |
//! | [`compile_errors`] | every mistake the compiler refuses, with its message and its fix |
//! | [`security`] | the threat model: what the crate guarantees and what the application must do |
//!
//! Some pages quote the benchmark report and the reliability report. Both are generated in
//! the source repository (its `reports/` folder) by the benchmark and reliability commands,
//! and are not shipped in this package; the figures quoted here are copied from runs of
//! those commands, on a 2-core machine.

#[doc = include_str!("sql.md")]
pub mod sql {}

#[doc = include_str!("tokens.md")]
pub mod tokens {}

#[doc = include_str!("read_contracts.md")]
pub mod read_contracts {}

#[doc = include_str!("keys_and_limits.md")]
pub mod keys_and_limits {}

#[doc = include_str!("compile_errors.md")]
pub mod compile_errors {}

#[doc = include_str!("security.md")]
pub mod security {}
