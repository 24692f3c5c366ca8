//! Keyset pages on [diesel-async](https://docs.rs/diesel-async) connections (feature
//! `diesel-async`).
//!
//! Follows diesel-async's own convention: import this module's [`PaginateDsl`] instead of
//! the crate root's, exactly as `diesel_async::RunQueryDsl` replaces `diesel::RunQueryDsl`.
//! The call sites stay the same (`paginate_after`, `paginate_before`, `paginate`, every option
//! of [`Paginated`](crate::Paginated), `into_query`, `load_page`) and `load_page` returns a future to `.await`. A generic handler's bound is this module's
//! [`LoadPage`] instead of [`crate::LoadPage`]. (Import one `PaginateDsl` per scope: with both
//! in scope the method call is ambiguous, as with Diesel's two `RunQueryDsl`s.)
//!
//! * Every read contract has its async form here, one implementation with the blocking form
//!   ([read contracts](crate::guide::read_contracts)): [`Walk`] (a `Stream` of pages or rows),
//!   [`with_read_snapshot`], `ExportStore` (feature `export`), `explain` and
//!   `explain_analyze` (feature `plan-check`), and [`LoadBudgetedPage`] for
//!   `max_bytes_in_sql`.
//!
//! This module only names them: each async form lives beside its blocking form, in a child
//! `async_` of the module that holds it (the DSL in `paginate/`, the loads in `load/`, the walk,
//! the snapshot, the export store and the plan check each in their own room).
//! * Connections: any `diesel_async::AsyncConnection` whose backend this crate's features
//!   enable: `AsyncPgConnection` (diesel-async feature `postgres`, this crate's `postgres`),
//!   `AsyncMysqlConnection` (`mysql`, `mysql`), `SyncConnectionWrapper<SqliteConnection>`
//!   (`sqlite`, `sqlite`), and pooled connections of those (deadpool's `Object`, bb8's
//!   `PooledConnection`, mobc's `Connection`), which diesel-async makes connections through
//!   `DerefMut`: pass `&mut pooled_object`.
//! * The page: the same [`Page`](crate::Page) as the blocking path, from the same statement:
//!   the SQL text is the blocking path's, and what [`Paginated::into_query`](crate::Paginated::into_query) shows, for every
//!   page shape (first page, seek, deferred join, union arms, exact flags, one seek per key
//!   level). Exactly one SQL statement per page, but on MySQL/MariaDB the first later page of a
//!   table in a minute, which first looks the table's indexes up
//!   ([`KeysetBackend::LEARNS_INDEX`](crate::KeysetBackend::LEARNS_INDEX)).
//! * Errors: as the blocking [`Paginated::load_page`](crate::Paginated::load_page): Diesel's
//!   errors from running the query, and the [`KeysetError`](crate::KeysetError)s of
//!   [`Paginated::into_query`](crate::Paginated::into_query) inside `diesel::result::Error::QueryBuilderError` (read them
//!   with [`KeysetError::from_diesel`](crate::KeysetError::from_diesel)), returned before any
//!   SQL runs.
//! * The future is `Send` (it can run in `tokio::spawn` or an axum handler) when the query,
//!   the row and its key are.
//!
//! ```
//! # include!("doctest_setup.rs");
//! use diesel_async::sync_connection_wrapper::SyncConnectionWrapper;
//! // Instead of `keyset_diesel::PaginateDsl` (and `keyset_diesel::prelude::*`):
//! use keyset_diesel::async_::PaginateDsl;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> QueryResult<()> {
//! // Any diesel-async connection: AsyncPgConnection, AsyncMysqlConnection, a pooled object.
//! let mut conn = SyncConnectionWrapper::<SqliteConnection>::new(setup());
//! let page: Page<Event> = events::table
//!     .filter(events::workspace_id.eq("W9"))
//!     .select(Event::as_select())
//!     .paginate_after(None)
//!     .page_size(3)
//!     .load_page(&mut conn)
//!     .await?;
//! assert_eq!(page.items.iter().map(|e| e.event_id.as_str()).collect::<Vec<_>>(), ["e101", "e102", "e103"]);
//!
//! let next: Page<Event> = events::table
//!     .filter(events::workspace_id.eq("W9"))
//!     .select(Event::as_select())
//!     .paginate_after(page.next_cursor())
//!     .page_size(3)
//!     .load_page(&mut conn)
//!     .await?;
//! assert_eq!(next.items.iter().map(|e| e.event_id.as_str()).collect::<Vec<_>>(), ["e104", "e105", "e106"]);
//! assert!(!next.has_more() && next.next_cursor().is_none());
//!
//! // A page size of 0 is refused before any SQL runs.
//! let error = events::table
//!     .select(Event::as_select())
//!     .paginate_after(None)
//!     .page_size(0)
//!     .load_page(&mut conn)
//!     .await
//!     .unwrap_err();
//! assert!(matches!(
//!     keyset_diesel::KeysetError::from_diesel(&error),
//!     Some(keyset_diesel::KeysetError::InvalidPageSize(0))
//! ));
//! # Ok(())
//! # }
//! ```

pub use crate::load::async_::LoadPage;
pub use crate::load::budget::async_::LoadBudgetedPage;
pub use crate::load::locked::async_::LoadLockedPage;
pub use crate::paginate::async_::{Async, PaginateDsl};
pub use crate::snapshot::async_::{with_read_snapshot, SendAsyncFn, TransactionConnection};
pub use crate::walk::async_::Walk;

#[cfg(feature = "export")]
pub use crate::export::async_::ExportStore;
#[cfg(feature = "plan-check")]
pub use crate::plan::async_::{explain, explain_analyze};
