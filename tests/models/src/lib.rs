//! The keyset models of keyset-diesel's suites and their pages on every connection: the row
//! models of the oracle matrix ([`models`]: `row_models!`, `impl_walk!`), the one-column key
//! models ([`typed`]), the models of each suite's own queries (joins, expression keys, groups,
//! counts, named sorts, exports) with their Diesel queries written once per backend, and the
//! oracle's checks of one walk ([`oracle`], [`scenario`]). This is the one crate that
//! instantiates `load_page` (hundreds of times per backend): suites call these concrete impls
//! through traits, so editing a suite does not rebuild it.
//!
//! Everything of `keyset-testkit` is re-exported, so `crate::schema::..`, `crate::Row` and
//! `crate::at` read as they did in one crate.

// Each backend's test crate builds this crate with that backend's feature alone, which leaves
// the imports and helpers of the other backends' code unused; lints are read (and denied) on
// the build with every backend, where everything is used.
#![cfg_attr(
    not(all(feature = "sqlite", feature = "postgres", feature = "mysql")),
    allow(unused_imports, unused_macros, dead_code)
)]

pub mod chinook;
pub mod composite;
pub mod count;
pub mod edges;
pub mod expr_keys;
pub mod faults;
pub mod joins;
pub mod loud;
pub mod models;
pub mod named_sorts;
pub mod oracle;
pub mod queries;
pub mod queue;
pub mod read_contracts;
pub mod scenario;
#[cfg(feature = "postgres")]
pub mod shards;
pub mod typed;

pub use keyset_testkit::*;
