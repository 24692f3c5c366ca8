//! Keyset (seek) pagination for [Diesel](https://diesel.rs).
//!
//! A deep `OFFSET` page makes the database compute and discard every row before it (199 ms at
//! depth 250,000 on PostgreSQL 15 in our measurements, against 0.06 ms for a keyset seek).
//! Keyset pagination resumes strictly *after the last row delivered* instead: the page query
//! carries the previous page's last key in its `WHERE` clause and reads forward from there on an
//! index, at the same cost on page 1 and page 10,000, and without skipping or repeating rows
//! when other rows are inserted or deleted between requests.
//!
//! 1. Put `#[derive(Keyset)]` on a model and mark its sort columns in order:
//!    `#[keyset(asc)]` / `#[keyset(desc)]`, the last one `unique` (the tie-breaker, usually the
//!    primary key) so that a key names exactly one row.
//! 2. Call [`PaginateDsl::paginate_after`] on an ordinary Diesel select query with your own
//!    filters, then [`Paginated::page_size`] and [`Paginated::load_page`].
//! 3. Get a [`Page`]: `items` (at most `page_size` rows), `has_more` (exact: the query fetched
//!    `page_size + 1` rows), and `next_cursor`, the key of the last row delivered, present iff
//!    `has_more`; plus the Relay flags and cursors (`has_previous_page`, `has_next_page`,
//!    `start_cursor`, `end_cursor`) for paging both ways with [`PaginateDsl::paginate_before`].
//! 4. Hand clients a signed token, not the cursor: [`CursorCodec`] encodes it bound to your
//!    filters and checks it on the way back in ([`token`]); [`PageSizePolicy`] validates the
//!    requested page size; [`PageResponse`] is the JSON shape.
//!
//! Backends: PostgreSQL (feature `postgres`), SQLite (`sqlite`) and MySQL/MariaDB (`mysql`).
//! Nullable key columns declare their NULL placement (`#[keyset(asc, nulls_last)]`), which the
//! SQL states on every backend.
//!
//! ```
//! # include!("doctest_setup.rs");
//! # fn main() -> QueryResult<()> {
//! # let conn = &mut setup();
//! // #[derive(Queryable, Selectable, Keyset)]
//! // #[diesel(table_name = events)]
//! // struct Event {
//! //     workspace_id: String,
//! //     #[keyset(asc)] occurred_at: chrono::NaiveDateTime,
//! //     #[keyset(asc, unique)] event_id: String,
//! //     message: String,
//! // }
//! let mut cursor: Option<Cursor<Event>> = None;
//! let mut seen = Vec::new();
//! loop {
//!     let page = events::table
//!         .filter(events::workspace_id.eq("W9")) // your filters, on every request
//!         .select(Event::as_select())
//!         .paginate_after(cursor)
//!         .page_size(4)
//!         .load_page(conn)?;
//!     seen.extend(page.items.into_iter().map(|e| e.event_id));
//!     match page.next_cursor {
//!         Some(next) => cursor = Some(next),
//!         None => break, // end of results
//!     }
//! }
//! assert_eq!(seen, ["e101", "e102", "e103", "e104", "e105", "e106"]);
//! # Ok(())
//! # }
//! ```
//!
//! # The SQL
//!
//! For `occurred_at ASC, event_id ASC` and the page after `(t, id)` with page size 3:
//!
//! | backend | `WHERE` added to your filters | `ORDER BY` | `LIMIT` |
//! |---|---|---|---|
//! | PostgreSQL, SQLite | `("occurred_at", "event_id") > ($1, $2)` | `occurred_at ASC, event_id ASC` | `4` |
//! | MySQL / MariaDB | `occurred_at >= ? AND (occurred_at > ? OR (occurred_at = ? AND event_id > ?))`, inside a [deferred join](DeferredJoin) | same | `4` |
//!
//! With mixed directions (`score DESC, id ASC`) every backend gets the factored expanded form
//! with a redundant bound on the leading column, which is what lets the index start the scan
//! at the cursor: `score <= $1 AND (score < $1 OR (score = $1 AND id > $2))`. Keys are bound
//! as parameters of the column's own SQL type, never cast or formatted as text. The rules and
//! the measurements behind them are in the project's design notes (`shared/DESIGN.md`, beside
//! the repository).
//!
//! # What a page read promises
//!
//! Each page is an independent, live read; there is no snapshot across pages. A row inserted
//! after the cursor's position shows up on a later page; a row inserted (or arriving late)
//! before it is not revisited; a deleted row simply stops appearing, and deleting the cursor's
//! own row is harmless because the cursor holds its key values, not its identity. Key columns
//! should be immutable: a row whose key changes can move across the cursor. Authorization is
//! the caller's filter, applied on every request; a cursor grants nothing.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

extern crate self as keyset_diesel;

mod backend;
mod checks;
mod cursor;
mod deferred;
mod error;
mod keyset;
mod page;
mod page_size;
mod paginate;
mod predicate;
mod sql;
pub mod token;
mod union;
pub mod value;

pub use crate::backend::KeysetBackend;
pub use crate::cursor::{Cursor, Direction};
pub use crate::deferred::{DeferredJoin, SeekQuery, SelectParts};
pub use crate::error::KeysetError;
pub use crate::keyset::{KeyColumn, Keyset, KeysetSql, NullsOrder, SortDirection};
pub use crate::page::Page;
pub use crate::page_size::{PageSizeError, PageSizePolicy};
pub use crate::paginate::{
    PageQuery, PageQueryOf, PageSource, PaginateDsl, Paginated, PlainPage, SeekOf,
    DEFAULT_PAGE_SIZE,
};
pub use crate::predicate::{KeysetOrder, SeekPredicate};
pub use crate::token::{
    scope_digest, Clock, CodecConfigError, CursorCodec, CursorCodecBuilder, CursorError,
    DecodedToken, EncodeError, PageResponse, SecretKey, SystemClock, Unordered,
};
pub use crate::union::UnionPage;
pub use crate::value::{KeyTuple, KeyValue};

/// Derives [`Keyset`](trait@Keyset) and [`KeysetSql`] for a Diesel model.
///
/// Field attributes, in key order (declaration order):
/// * `#[keyset(asc)]` or `#[keyset(desc)]`: a key column and its direction;
/// * `unique`: the tie-breaker, on the last key column (or omit it when the last key column is
///   the table's single-column primary key);
/// * `nulls_first` / `nulls_last`: where NULLs sort, required on a nullable column.
///
/// `#[diesel(table_name = ..)]` on the struct and `#[diesel(column_name = ..)]` on fields are
/// honoured as in Diesel's own derives.
///
/// A keyset that cannot page correctly does not compile: no key column, a last key column that
/// is neither `unique` nor the single-column primary key, `unique` before the last column, a
/// nullable column without a NULL placement (or a placement on a NOT NULL column), a field type
/// that does not match its column, a column the table does not have. Each error is reported on
/// the field or option concerned and names the fix; the README's "Compile-time checks" lists
/// them all.
pub use keyset_derive::Keyset;

/// The names most code needs: `use keyset_diesel::prelude::*;`.
pub mod prelude {
    pub use crate::{Cursor, Direction, Keyset, Page, PaginateDsl};
}

#[doc(hidden)]
pub mod __private {
    pub use crate::checks::*;
    pub use crate::keyset::{__index_error, sort_signature_digest};
    pub use crate::{KeyColumn, KeyValue, Keyset, KeysetSql, NullsOrder, SortDirection};
    pub use diesel;
}

#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
