//! Keyset (seek) pagination for [Diesel](https://diesel.rs).
//!
//! A deep `OFFSET` page makes the database compute and discard every row before it; keyset
//! pagination resumes strictly *after the last row delivered* instead: the page query carries
//! the previous page's last key in its `WHERE` clause and reads forward from there on an
//! index, at the same cost on page 1 and page 10,000, and without skipping or repeating rows
//! when other rows are inserted or deleted between requests.
//!
//! 1. Put `#[derive(Keyset)]` on a model and mark its sort columns in order:
//!    `#[keyset(asc)]` / `#[keyset(desc)]`, the last one `unique` (the tie-breaker, usually the
//!    primary key) so that a key names exactly one row.
//! 2. Call [`PaginateDsl::paginate_after`] on an ordinary Diesel select query with your own
//!    filters, then [`Paginated::page_size`] and [`Paginated::load_page`].
//! 3. Get a [`Page`]: `items` (at most `page_size` rows), [`Page::has_more`] (exact: the query
//!    fetched `page_size + 1` rows), [`Page::next_cursor`] (the key of the last row delivered,
//!    present iff `has_more()`), and the Relay flags and cursors for paging both ways with
//!    [`PaginateDsl::paginate_before`].
//! 4. Hand clients a signed token, not the cursor: [`CursorCodec`] encodes it bound to your
//!    filters and checks it on the way back in ([`token`]); [`web`] has the request
//!    parameters, the JSON body and the problem responses.
//!
//! Backends: PostgreSQL (feature `postgres`), SQLite (`sqlite`) and MySQL/MariaDB (`mysql`);
//! diesel-async connections with [`async_`] (feature `diesel-async`).
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
//!     cursor = page.next_cursor(); // None: the end of results
//!     seen.extend(page.items.into_iter().map(|e| e.event_id));
//!     if cursor.is_none() {
//!         break;
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
//! | MySQL / MariaDB | `occurred_at >= ? AND (occurred_at > ? OR (occurred_at = ? AND event_id > ?))`, inside a [deferred join](query::PageStatement) | same | `4` |
//!
//! With mixed directions (`score DESC, id ASC`) every backend gets the factored expanded form
//! with a redundant bound on the leading column, which lets the index start the scan at the
//! cursor: `score <= $1 AND (score < $1 OR (score = $1 AND id > $2))` (on SQLite, for two
//! levels on columns that are never NULL, the same rows as `score <= ? AND NOT (score = ? AND
//! id <= ?)`, which SQLite plans for less). Keys are bound as
//! parameters of the column's own SQL type, never cast or formatted as text. [The SQL
//! guide](crate::guide::sql) gives the rules and the measurements behind them.
//!
//! # What a page read promises
//!
//! Each page is an independent, live read; there is no snapshot across pages (for one, see
//! [`with_read_snapshot`] and the [read contracts](crate::guide::read_contracts)). A row inserted after the cursor's
//! position shows up on a later page; a row inserted before it is not revisited; a deleted row
//! stops appearing, and deleting the cursor's own row is harmless because the cursor holds its
//! key values, not its identity. Key columns should be immutable. Authorization is the
//! caller's filter, applied on every request; a cursor grants nothing.
//!
//! # The modules
//!
//! The crate root holds what a handler writes. [`query`]: the types behind the bounds and a
//! hand-written keyset's vocabulary; [`token`]: the codec's parts; [`web`]: request, response
//! and problem; [`async_`]: diesel-async; [`export`]: stored exports; [`plan`]: plan checks.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

extern crate self as keyset_diesel;

#[cfg(feature = "diesel-async")]
pub mod async_;
mod backend;
mod checks;
mod cursor;
mod error;
#[cfg(feature = "export")]
pub mod export;
#[cfg(test)]
mod fixtures;
pub mod guide;
mod key;
mod keyset;
mod load;
mod page;
mod page_size;
mod paginate;
#[cfg(feature = "plan-check")]
pub mod plan;
pub mod query;
mod signature;
mod snapshot;
mod sort;
pub mod token;
mod walk;
pub mod web;

pub use crate::backend::KeysetBackend;
pub use crate::cursor::{Cursor, Direction};
pub use crate::error::KeysetError;
pub use crate::keyset::Keyset;
pub use crate::load::budget::LoadBudgetedPage;
pub use crate::load::locked::LoadLockedPage;
pub use crate::load::LoadPage;
pub use crate::page::Page;
pub use crate::paginate::budget::{BudgetColumn, ByteBudgeted};
pub use crate::paginate::{PaginateDsl, Paginated, DEFAULT_PAGE_SIZE};
pub use crate::query::PageSql;
pub use crate::snapshot::with_read_snapshot;
pub use crate::sort::{SortChoice, SortRow, UnknownSort};
pub use crate::token::CursorCodec;
pub use crate::walk::Walk;

/// Derives [`Keyset`](trait@Keyset) and [`KeysetSql`](query::KeysetSql) for a Diesel model.
///
/// Field attributes, in key order (declaration order):
/// * `#[keyset(asc)]` or `#[keyset(desc)]`: a key column and its direction;
/// * `unique`: the tie-breaker, on the last key column; omit it when the key ends with the
///   table's primary key: its one column last, or every column of a composite key
///   (`order_lines (order_id, line_no)`) as the last key fields, in the order `table!`
///   declares them (a keyset that leaves one out, or swaps them, does not compile);
/// * `nulls_first` / `nulls_last`: where NULLs sort, required on a nullable column.
/// * `exact_text`: the column's collation calls two strings equal only when they are the same
///   (PostgreSQL's deterministic collations, SQLite `BINARY`, MySQL `_nopad_bin`); a named
///   sort's entry takes it too (`name(asc, exact_text)`), each keyset declaring its own. Only
///   a key on an SQL expression or a joined table's column needs it: for a column of the
///   model's table, the page asks the database whether two adjacent rows whose keys differ
///   only in text by case, accents, Unicode normalization or trailing spaces are equal under
///   the column's collation, and refuses them only if so ([`KeysetError::CollationEqualKeys`]);
///   an expression's pair cannot be asked about and is refused unless the key says
///   `exact_text`.
///
/// A key field read through `#[diesel(select_expression = ..)]` may be a function of columns,
/// not an aggregate (`count(..)`, `sum(..)`) or a window function (`row_number()`, `.over()`):
/// the seek compares it in `WHERE`, so those are compile errors; nor the clock or a random value
/// (`now`, `current_timestamp()`, `random()`), which would move rows between pages: a compile
/// error where the derive can see it ([keys and limits](crate::guide::keys_and_limits)).
///
/// Struct attributes:
/// * `#[keyset(version = N)]`: the ordering version ([`Keyset::VERSION`](trait@Keyset), an
///   integer from 1, default 1). Raise it when the order changes in a way the columns, types
///   and directions do not show (a collation migrated): tokens of another version are then
///   refused with [`CursorError::SortMismatch`](token::CursorError::SortMismatch).
/// * `#[keyset(index = "name")]`: the index the model's own keyset's pages read
///   ([`Keyset::INDEX`](trait@Keyset)), named as [`Paginated::force_index`] does on a query of
///   the model's table alone.
/// * `#[keyset(sort(Name(field(options), ..)))]`: a named sort, another keyset of the same
///   model, its key columns each a field with the options a field takes
///   (`sort(Newest(created_at(desc), id(desc), index = "events_newest"))`). Each generates a row
///   type `<Model>By<Name>` (`<Model><Name>` for a name starting `By`: `ByAction` gives
///   `EventByAction`; the model in a transparent wrapper, the sort's keyset), and the
///   model gets one enum `<Model>Sort` of its sorts ([`SortChoice`]); see [`SortRow`].
/// * `#[keyset(graphql_sort)]` (with named sorts): `<Model>Sort` also derives
///   `async_graphql::Enum` (values in GraphQL's case: `NEWEST`), the argument type of a
///   GraphQL field that pages in a named sort, resolved with
///   `web::graphql::RelayArgs::resolve_sort` (the crate using it depends on async-graphql).
///
/// ```
/// # use diesel::prelude::*;
/// # use keyset_diesel::Keyset;
/// diesel::table! { users (id) { id -> BigInt, name -> Text } }
///
/// #[derive(Queryable, Selectable, Keyset)]
/// #[keyset(version = 2)] // `name` moved to the "C" collation: old tokens are refused
/// struct User {
///     #[keyset(asc)]
///     name: String,
///     #[keyset(asc, unique)]
///     id: i64,
/// }
///
/// assert_eq!(User::sort_signature(), r#"users@"users"(name:text asc,id:i64 asc);version=2"#);
/// ```
///
/// A table keyed by two columns ends its keyset with both, in `table!`'s order, and marks
/// neither `unique`:
///
/// ```
/// # use diesel::prelude::*;
/// # use keyset_diesel::{Keyset, PaginateDsl};
/// diesel::table! { order_lines (order_id, line_no) { order_id -> BigInt, line_no -> Integer, qty -> Integer } }
///
/// #[derive(Queryable, Selectable, Keyset)]
/// struct OrderLine {
///     #[keyset(desc)]
///     qty: i32,
///     #[keyset(asc)]
///     order_id: i64,
///     #[keyset(asc)]
///     line_no: i32,
/// }
///
/// let page = order_lines::table
///     .select(<OrderLine as SelectableHelper<diesel::sqlite::Sqlite>>::as_select())
///     .paginate_after(None::<keyset_diesel::Cursor<OrderLine>>)
///     .into_query::<diesel::sqlite::Sqlite>()?;
/// let sql = diesel::debug_query(&page).to_string();
/// assert!(sql.contains("ORDER BY `order_lines`.`qty` DESC, `order_lines`.`order_id` ASC, `order_lines`.`line_no` ASC"), "{sql}");
/// # Ok::<(), keyset_diesel::KeysetError>(())
/// ```
///
/// `#[diesel(table_name = ..)]`, `#[diesel(column_name = ..)]` and
/// `#[diesel(select_expression = ..)]` are honoured as in Diesel's own derives. A keyset that
/// cannot page correctly does not compile; every mistake of a model is reported in one
/// compile, on the field or option concerned, with the fix ([compile errors](crate::guide::compile_errors)).
pub use keyset_derive::Keyset;

/// The names most code needs: `use keyset_diesel::prelude::*;`.
pub mod prelude {
    pub use crate::{Cursor, Direction, Keyset, Page, PaginateDsl};
}

#[doc(hidden)]
pub mod __private {
    pub use crate::checks::*;
    pub use crate::keyset::column_index_error as __index_error;
    #[cfg(feature = "diesel-async")]
    pub use crate::load::async_::AsyncPageConnection;
    #[cfg(feature = "diesel-async")]
    pub use crate::load::budget::async_::AsyncBudgetConnection;
    pub use crate::load::budget::BlockingBudgetConnection;
    #[cfg(feature = "diesel-async")]
    pub use crate::load::locked::async_::AsyncLockedConnection;
    pub use crate::load::locked::BlockingLockedConnection;
    pub use crate::load::BlockingPageConnection;
    pub use crate::query::InvalidKeyValue;
    pub use crate::query::{
        BackendKind, KeyColumn, KeyValue, KeysetSql, NullsOrder, SortDirection,
    };
    pub use crate::signature::{digest as sort_signature_digest, sql_table_name};
    pub use crate::sort::deserialize_sort;
    pub use crate::Keyset;
    pub use crate::{SortChoice, UnknownSort};
    pub use diesel;
    pub use serde;
}

#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
