//! Keyset pages on [diesel-async](https://docs.rs/diesel-async) connections (feature
//! `diesel-async`).
//!
//! Follows diesel-async's own convention: import this module's [`PaginateDsl`] instead of
//! the crate root's, exactly as `diesel_async::RunQueryDsl` replaces `diesel::RunQueryDsl`.
//! The call sites stay the same (`paginate_after`, `paginate_before`, `paginate`, every option
//! of [`Paginated`], `into_query`, `load_page`) and `load_page` returns a future to `.await`. A generic handler's bound is this module's
//! [`LoadPage`] instead of [`crate::LoadPage`]. (Import one `PaginateDsl` per scope: with both
//! in scope the method call is ambiguous, as with Diesel's two `RunQueryDsl`s.)
//!
//! * Every read contract has its async form here, one implementation with the blocking form
//!   (docs/READ_CONTRACTS.md): [`Walk`] (a `Stream` of pages or rows),
//!   [`with_read_snapshot`], `ExportStore` (feature `export`), `explain` and
//!   `explain_analyze` (feature `plan-check`), and [`LoadBudgetedPage`] for
//!   `max_bytes_in_sql`.
//! * Connections: any `diesel_async::AsyncConnection` whose backend this crate's features
//!   enable: `AsyncPgConnection` (diesel-async feature `postgres`, this crate's `postgres`),
//!   `AsyncMysqlConnection` (`mysql`, `mysql`), `SyncConnectionWrapper<SqliteConnection>`
//!   (`sqlite`, `sqlite`), and pooled connections of those (deadpool's `Object`, bb8's
//!   `PooledConnection`, mobc's `Connection`), which diesel-async makes connections through
//!   `DerefMut`: pass `&mut pooled_object`.
//! * The page: the same [`Page`](crate::Page) as the blocking path, from the same statement:
//!   the SQL text is the blocking path's, and what [`Paginated::into_query`] shows, for every
//!   page shape (first page, seek, deferred join, union arms, exact flags, one seek per key
//!   level). Exactly one SQL statement per page, but on MySQL/MariaDB the first later page of a
//!   table in a minute, which first looks the table's indexes up
//!   ([`KeysetBackend::LEARNS_INDEX`](crate::KeysetBackend::LEARNS_INDEX)).
//! * Errors: as the blocking [`Paginated::load_page`](crate::Paginated::load_page): Diesel's
//!   errors from running the query, and the [`KeysetError`](crate::KeysetError)s of
//!   [`Paginated::into_query`] inside `diesel::result::Error::QueryBuilderError` (read them
//!   with [`KeysetError::from_diesel`](crate::KeysetError::from_diesel)), returned before any
//!   SQL runs.
//! * The future is `Send` (it can run in `tokio::spawn` or an axum handler) when the query,
//!   the row and its key are.
//!
//! ```
//! # include!("../doctest_setup.rs");
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

use std::future::Future;

use diesel::query_builder::{BoxedSelectStatement, SelectStatement};
use diesel::QueryResult;
use diesel_async::methods::LoadQuery;
use diesel_async::{AsyncConnectionCore, RunQueryDsl};

use super::learn::{self, IndexPart};
use super::load_page_query;
use crate::backend::KeysetBackend;
use crate::cursor::{Cursor, Direction};
use crate::keyset::{Keyset, KeysetSql};
use crate::page::Page;
use crate::paginate::Paginated;
use crate::query::shape::shape;
use crate::query::typing::{
    TypeKeyed, WithTotal, AFTER_BACKWARD, AFTER_FORWARD, FIRST_BACKWARD, FIRST_FORWARD,
    SPLIT_BACKWARD, SPLIT_FORWARD,
};
use crate::query::{PageSource, PageStatement, SelectParts, UnionPage};

/// The mode of a [`Paginated`] made by this module's [`PaginateDsl`]: `load_page` runs on a
/// diesel-async connection and returns a future.
#[derive(Debug, Clone, Copy)]
pub enum Async {}

/// Adds keyset pagination to Diesel select queries (`SelectStatement`, boxed or not), loaded
/// on diesel-async connections: the async twin of [`crate::PaginateDsl`], with the same
/// methods and meaning. Import one of the two.
pub trait PaginateDsl: Sized {
    /// The page after `cursor` (`None`: the first page); see
    /// [`crate::PaginateDsl::paginate_after`].
    fn paginate_after<K: Keyset>(self, cursor: Option<Cursor<K>>) -> Paginated<Self, K, Async> {
        Paginated::new(self, cursor, Direction::Forward)
    }

    /// The page immediately before `cursor` (`None`: the last page), in display order; see
    /// [`crate::PaginateDsl::paginate_before`].
    fn paginate_before<K: Keyset>(self, cursor: Option<Cursor<K>>) -> Paginated<Self, K, Async> {
        Paginated::new(self, cursor, Direction::Backward)
    }

    /// The page the cursor points to, in the cursor's direction (`None`: the first page); see
    /// [`crate::PaginateDsl::paginate`].
    fn paginate<K: Keyset>(self, cursor: Option<Cursor<K>>) -> Paginated<Self, K, Async> {
        let walk = cursor.as_ref().map_or(Direction::Forward, |c| c.direction);
        Paginated::new(self, cursor, walk)
    }
}

impl<F, S, D, W, O, LOf, G, H, LC> PaginateDsl for SelectStatement<F, S, D, W, O, LOf, G, H, LC> {}

impl<ST, QS, DB, GB> PaginateDsl for BoxedSelectStatement<'_, ST, QS, DB, GB> {}

impl<Q, K: Keyset> Paginated<Q, K, Async> {
    /// Runs the page on a diesel-async connection (or a pooled one: `&mut object`): exactly
    /// one SQL statement, the one [`Paginated::into_query`] shows.
    ///
    /// # Errors
    /// Diesel's errors from running the query, and the [`KeysetError`](crate::KeysetError)s
    /// of [`Paginated::into_query`] inside `Error::QueryBuilderError` (before any SQL runs).
    ///
    /// The future is boxed (one allocation per page): a query the keyset cannot page is one
    /// error, at this call, not one more at `.await`.
    pub fn load_page<'conn, 'query, Conn>(
        self,
        conn: &'conn mut Conn,
    ) -> std::pin::Pin<Box<dyn Future<Output = QueryResult<Page<K>>> + Send + 'conn>>
    where
        'query: 'conn,
        Q: LoadPage<'query, Conn, K> + 'conn,
        K: 'conn,
    {
        Box::pin(Q::load_paginated(self, conn))
    }
}

/// A query whose keyset pages of `K` load on the diesel-async connection `Conn`: the one
/// bound a generic async handler needs, the twin of [`crate::LoadPage`]. Implemented for every
/// Diesel select query (boxed or not) that `K` can page on `Conn`'s backend, when the query,
/// `K` and `K::Key` are `Send` (the future is) and `K` is `'static` (as in the blocking
/// bound); `'query` is diesel-async's `LoadQuery`
/// lifetime.
///
/// ```
/// # include!("../doctest_setup.rs");
/// use diesel_async::sync_connection_wrapper::SyncConnectionWrapper;
/// use keyset_diesel::async_::LoadPage;
///
/// /// The first page of any query, any keyset, any diesel-async connection.
/// async fn first_page<'q, Q, K, Conn>(query: Q, conn: &mut Conn) -> QueryResult<Page<K>>
/// where
///     K: Keyset,
///     Q: LoadPage<'q, Conn, K>,
/// {
///     query.paginate_after(None).page_size(2).load_page(conn).await
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> QueryResult<()> {
/// let mut conn = SyncConnectionWrapper::<SqliteConnection>::new(setup());
/// let page: Page<Event> = first_page(events::table.select(Event::as_select()), &mut conn).await?;
/// assert_eq!(page.items.len(), 2);
/// # Ok(())
/// # }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot load keyset pages of `{K}` on `{Conn}`",
    label = "not a select query that `{K}`'s keyset can page on this diesel-async connection",
    note = "paginate a Diesel select query (boxed or not) without ORDER BY, LIMIT or OFFSET, that reads `{K}`'s table and loads `{K}` (e.g. `.select({K}::as_select())`), on a diesel-async connection (or pooled connection) whose backend this crate's features enable; the query, `{K}` and its key must be `Send`"
)]
pub trait LoadPage<'query, Conn, K: Keyset>: PaginateDsl + PageSource<K> {
    /// Builds and runs the page (what [`Paginated::load_page`] calls).
    ///
    /// # Errors
    /// As [`Paginated::load_page`].
    #[doc(hidden)]
    fn load_paginated(
        paginated: Paginated<Self, K, Async>,
        conn: &mut Conn,
    ) -> impl Future<Output = QueryResult<Page<K>>> + Send;
}

// As the blocking form: the query's checks and `Send` are bounds here, each with its own
// message; the connection is behind `AsyncPageConnection`, whose message names the blocking
// import when the connection is a blocking one (issue 32, item 4).
impl<'query, Conn, K, Q> LoadPage<'query, Conn, K> for Q
where
    K: Keyset + Send,
    K::Key: Send,
    Q: PaginateDsl + PageSource<K> + Send,
    Conn: AsyncPageConnection<'query, Q, K>,
{
    fn load_paginated(
        paginated: Paginated<Q, K, Async>,
        conn: &mut Conn,
    ) -> impl Future<Output = QueryResult<Page<K>>> + Send {
        Conn::load_pages(paginated, conn)
    }
}

/// A diesel-async connection that loads keyset pages of `K` from query `Q`: the bound behind
/// this module's [`LoadPage`]'s connection. Implemented for every diesel-async connection
/// (pooled ones included) whose backend this crate's features enable and which loads `Q`'s
/// page statements as `K` rows.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot load keyset pages of `{K}` with the async `load_page`",
    label = "not a diesel-async connection, or this query does not load `{K}` on it",
    note = "a blocking Diesel connection (`PgConnection`, `SqliteConnection`, `MysqlConnection`) pages through the blocking form: `use keyset_diesel::prelude::*;` in place of `keyset_diesel::async_::PaginateDsl`, then `.load_page(conn)` without `.await`",
    note = "on a diesel-async connection, the query must load `{K}` (e.g. `.select({K}::as_select())`) and the backend's feature of this crate must be enabled"
)]
pub trait AsyncPageConnection<'query, Q, K: Keyset>: Sized {
    /// Builds and runs the page.
    #[doc(hidden)]
    fn load_pages(
        paginated: Paginated<Q, K, Async>,
        conn: &mut Self,
    ) -> impl Future<Output = QueryResult<Page<K>>> + Send;
}

#[diagnostic::do_not_recommend]
impl<'query, Conn, K, Q> AsyncPageConnection<'query, Q, K> for Conn
where
    Conn: AsyncConnectionCore,
    Conn::Backend: KeysetBackend + Default,
    <Conn::Backend as diesel::backend::Backend>::QueryBuilder: Default,
    K: KeysetSql<Conn::Backend> + Send + 'static,
    K::Key: Send,
    Q: PaginateDsl
        + PageSource<K>
        + SelectParts<Conn::Backend>
        + diesel::query_builder::QueryId
        + Send,
    diesel::query_builder::SqlQuery: LoadQuery<'query, Conn, IndexPart> + 'query,
    PageStatement<Q, K>: LoadQuery<'query, Conn, K> + 'query,
    TypeKeyed<PageStatement<Q, K>, FIRST_FORWARD>: LoadQuery<'query, Conn, K> + 'query,
    TypeKeyed<PageStatement<Q, K>, FIRST_BACKWARD>: LoadQuery<'query, Conn, K> + 'query,
    TypeKeyed<PageStatement<Q, K>, AFTER_FORWARD>: LoadQuery<'query, Conn, K> + 'query,
    TypeKeyed<PageStatement<Q, K>, AFTER_BACKWARD>: LoadQuery<'query, Conn, K> + 'query,
    UnionPage<Q, K>: LoadQuery<'query, Conn, (K, K::Key, i32)> + 'query,
    TypeKeyed<UnionPage<Q, K>, SPLIT_FORWARD>: LoadQuery<'query, Conn, (K, K::Key, i32)> + 'query,
    TypeKeyed<UnionPage<Q, K>, SPLIT_BACKWARD>: LoadQuery<'query, Conn, (K, K::Key, i32)> + 'query,
    WithTotal<PageStatement<Q, K>>: LoadQuery<'query, Conn, (K, i64)> + 'query,
    WithTotal<UnionPage<Q, K>>: LoadQuery<'query, Conn, (K, K::Key, i32, i64)> + 'query,
{
    // The blocking path's build, split and assembly; only the row loading is diesel-async's.
    #[allow(clippy::manual_async_fn)] // spelled out: the trait promises a `Send` future
    fn load_pages(
        paginated: Paginated<Q, K, Async>,
        conn: &mut Conn,
    ) -> impl Future<Output = QueryResult<Page<K>>> + Send {
        async move {
            let mut paginated = paginated;
            // MySQL/MariaDB: the index that serves the seek, when the page names none.
            let named = match learn::lookup_cached::<Conn::Backend, _, _, _>(&paginated) {
                Some(lookup) => {
                    let index = match lookup.known(true) {
                        Some(index) => index,
                        None => {
                            let mut listed = (0, Err(diesel::result::Error::NotFound));
                            for (form, sql) in lookup.catalog_statements() {
                                listed =
                                    (form, diesel::sql_query(sql).load::<IndexPart>(conn).await);
                                if listed.1.is_ok() {
                                    break;
                                }
                            }
                            lookup.learn(listed.0, listed.1)
                        }
                    };
                    lookup.name(index, &mut paginated)
                }
                None => None,
            };
            let (query, assembly) = shape::<Conn::Backend, _, _, _>(paginated)?;
            let loaded = load_page_query!(query, Conn::Backend, assembly.total, |q| q
                .load(conn)
                .await
                .map_err(|e| learn::refused(named.as_ref(), e))?);
            Ok(loaded.into_page(assembly)?)
        }
    }
}

/// [`crate::Walk`] on a diesel-async connection: every page of a query, from a cursor (or the
/// first page) to the end, with the same options (`after`, `page_size`, `force_index`,
/// `high_water_mark`) and the same rules, one page in memory at a time. Read it with
/// [`next_page`](crate::Walk::next_page)`.await`, or as a `Stream` of pages
/// ([`pages`](crate::Walk::pages)) or of rows ([`rows`](crate::Walk::rows)). The closure's
/// query needs this module's [`LoadPage`].
///
/// ```
/// # include!("../doctest_setup.rs");
/// use diesel_async::futures_util::{StreamExt, TryStreamExt};
/// use diesel_async::sync_connection_wrapper::SyncConnectionWrapper;
/// use keyset_diesel::async_;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> QueryResult<()> {
/// let mut conn = SyncConnectionWrapper::<SqliteConnection>::new(setup());
/// let query = || events::table.filter(events::workspace_id.eq("W9")).select(Event::as_select());
///
/// // Pages, as the blocking walk yields them.
/// let sizes: Vec<usize> = async_::Walk::<Event, _, _>::new(&mut conn, query)
///     .page_size(4)
///     .pages()
///     .map_ok(|page| page.len())
///     .try_collect()
///     .await?;
/// assert_eq!(sizes, [4, 2]);
///
/// // Rows, one page in memory at a time.
/// let ids: Vec<String> = async_::Walk::<Event, _, _>::new(&mut conn, query)
///     .page_size(4)
///     .rows()
///     .map_ok(|event| event.event_id)
///     .try_collect()
///     .await?;
/// assert_eq!(ids, ["e101", "e102", "e103", "e104", "e105", "e106"]);
///
/// // Or page by page, keeping the walk (its cursor, its connection).
/// let mut walk = async_::Walk::<Event, _, _>::new(&mut conn, query).page_size(5);
/// let first = walk.next_page().await.expect("a page")?;
/// assert_eq!(first.len(), 5);
/// assert_eq!(walk.cursor().map(|c| c.key.1.as_str()), Some("e105"));
/// # Ok(())
/// # }
/// ```
pub type Walk<'c, 'q, K, Conn, F> = crate::walk::Walk<'c, 'q, K, Conn, F, Async>;

pub use crate::bounded::AsyncLoadBudgetedPage as LoadBudgetedPage;
#[cfg(feature = "export")]
pub use crate::export::async_::ExportStore;
#[cfg(feature = "plan-check")]
pub use crate::plan::async_::{explain, explain_analyze};
pub use crate::snapshot::async_::{with_read_snapshot, SendAsyncFn, TransactionConnection};
