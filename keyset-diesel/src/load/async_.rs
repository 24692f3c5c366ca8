//! Pages on diesel-async connections: the async [`LoadPage`], its connection trait and
//! `Paginated::load_page` in the [`Async`] mode, through the blocking path's drivers and bounds
//! (`load/mod.rs`); only the loading is diesel-async's. Public as
//! [`keyset_diesel::async_`](crate::async_).

use std::future::Future;

use diesel::QueryResult;
use diesel_async::methods::LoadQuery;
use diesel_async::{AsyncConnectionCore, RunQueryDsl};

use super::{page_connection_impl, read_page};
use crate::keyset::Keyset;
use crate::page::Page;
use crate::paginate::async_::{Async, PaginateDsl};
use crate::paginate::Paginated;
use crate::query::learn::IndexPart;
use crate::query::shape::decide;
use crate::query::PageSource;

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
// import when the connection is a blocking one.
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

page_connection_impl! {
    AsyncPageConnection for Conn: AsyncConnectionCore, LoadQuery + 'query,
    where { K: Send, K::Key: Send, Q: Send, }
    // The blocking path's decision, statement and assembly; only the loading is diesel-async's.
    #[allow(clippy::manual_async_fn)] // spelled out: the trait promises a `Send` future
    fn load_pages(
        paginated: Paginated<Q, K, Async>,
        conn: &mut Conn,
    ) -> impl Future<Output = QueryResult<Page<K>>> + Send {
        async move {
            let page = decide::<Conn::Backend, _, _, _>(paginated)?;
            Ok(read_page!(
                page,
                Conn::Backend,
                |sql| diesel::sql_query(sql).load::<IndexPart>(conn).await,
                |q| q.load(conn).await
            ))
        }
    }
}
