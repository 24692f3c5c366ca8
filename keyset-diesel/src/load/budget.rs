//! The loads of a byte budget measured in SQL ([`Paginated::max_bytes_in_sql`]): the budget's
//! probe, the other side's probe and the count when asked for, then the page of the rows that
//! fit, through the one driver [`read_budgeted_page!`](super::read_budgeted_page) (blocking
//! here, diesel-async in [`async_`]). What they read is decided in `query/shape.rs`.
//!
//! [`Paginated::max_bytes_in_sql`]: crate::Paginated::max_bytes_in_sql

use diesel::connection::LoadConnection;
use diesel::query_dsl::{LoadQuery, RunQueryDsl};
use diesel::QueryResult;

use super::{page_connection_impl, read_budgeted_page, LoadPage};
use crate::keyset::Keyset;
use crate::page::Page;
use crate::paginate::budget::ByteBudgeted;
use crate::paginate::Blocking;
use crate::query::learn::IndexPart;
use crate::query::{BudgetProbe, CountQuery};

impl<Q, K: Keyset> ByteBudgeted<Q, K, Blocking> {
    /// Runs the budget's probe, then the page of the rows that fit: two SQL statements, and
    /// after a cursor one more for exact flags (a key-only probe of the other side) and one
    /// more for the total count, each when asked for.
    ///
    /// # Errors
    /// As [`Paginated::load_page`](crate::Paginated::load_page), and
    /// [`KeysetError::DistinctByteBudget`](crate::KeysetError::DistinctByteBudget) inside
    /// `Error::QueryBuilderError` for a `SELECT DISTINCT` query.
    pub fn load_page<'query, Conn>(self, conn: &mut Conn) -> QueryResult<Page<K>>
    where
        Q: LoadBudgetedPage<'query, Conn, K>,
    {
        Q::load_budgeted(self, conn)
    }
}

/// A query whose byte-budgeted pages of `K` load on blocking connection `Conn`
/// ([`Paginated::max_bytes_in_sql`](crate::Paginated::max_bytes_in_sql)): the one bound a
/// generic function needs, as [`LoadPage`] is for pages without it. Implemented for every
/// `Clone` query that is `LoadPage` on `Conn` (an unboxed Diesel select statement).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot load byte-budgeted keyset pages of `{K}` on `{Conn}`",
    label = "not a `Clone` select query that `{K}`'s keyset can page on this connection",
    note = "`max_bytes_in_sql` needs a query it can run twice (the byte budget's probe, then the page): an unboxed Diesel select statement; for a boxed query measure in Rust with `max_bytes`"
)]
pub trait LoadBudgetedPage<'query, Conn, K: Keyset>: LoadPage<'query, Conn, K> + Clone {
    /// Runs the budgeted page (what [`ByteBudgeted::load_page`] calls).
    ///
    /// # Errors
    /// As [`ByteBudgeted::load_page`].
    #[doc(hidden)]
    fn load_budgeted(
        budgeted: ByteBudgeted<Self, K, Blocking>,
        conn: &mut Conn,
    ) -> QueryResult<Page<K>>;
}

// The connection's bounds are behind `BlockingBudgetConnection` (its impl is not recommended),
// so a diesel-async connection here gets the crate's message naming the async import, as a
// page without the budget does, not the probe's `LoadConnection` bound.
impl<'query, Conn, K, Q> LoadBudgetedPage<'query, Conn, K> for Q
where
    K: Keyset,
    Q: LoadPage<'query, Conn, K> + Clone,
    Conn: BlockingBudgetConnection<'query, Q, K>,
{
    fn load_budgeted(
        budgeted: ByteBudgeted<Q, K, Blocking>,
        conn: &mut Conn,
    ) -> QueryResult<Page<K>> {
        Conn::load_budgeted_pages(budgeted, conn)
    }
}

/// A blocking Diesel connection that loads byte-budgeted keyset pages of `K` from query `Q`:
/// the bound behind [`LoadBudgetedPage`]'s connection (its probes and count, and the page), as
/// [`BlockingPageConnection`](crate::__private::BlockingPageConnection) is behind `LoadPage`'s.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot load keyset pages of `{K}` with the blocking `load_page`",
    label = "not a blocking Diesel connection, or this query does not load `{K}` on it",
    note = "a diesel-async connection (`AsyncPgConnection`, `AsyncMysqlConnection`, `SyncConnectionWrapper<SqliteConnection>`, or a pooled one) pages through the async form: `use keyset_diesel::async_::PaginateDsl;` in place of the prelude's `PaginateDsl`, then `.load_page(conn).await`",
    note = "on a blocking connection (`PgConnection`, `SqliteConnection`, `MysqlConnection`), the query must load `{K}` (e.g. `.select({K}::as_select())`) and the backend's feature of this crate must be enabled"
)]
pub trait BlockingBudgetConnection<'query, Q, K: Keyset>: Sized {
    /// Runs the budgeted page.
    #[doc(hidden)]
    fn load_budgeted_pages(
        budgeted: ByteBudgeted<Q, K, Blocking>,
        conn: &mut Self,
    ) -> QueryResult<Page<K>>;
}

page_connection_impl! {
    BlockingBudgetConnection for Conn: LoadConnection, LoadQuery,
    where {
        Q: Clone,
        BudgetProbe<Q, K>: LoadQuery<'query, Conn, (K::Key, i64)>,
        CountQuery<Q>: LoadQuery<'query, Conn, i64>,
    }
    fn load_budgeted_pages(
        budgeted: ByteBudgeted<Q, K, Blocking>,
        conn: &mut Conn,
    ) -> QueryResult<Page<K>> {
        Ok(read_budgeted_page!(
            budgeted,
            Conn::Backend,
            |probe| probe.load::<(K::Key, i64)>(conn),
            |count| count.load::<i64>(conn),
            |sql| diesel::sql_query(sql).load::<IndexPart>(conn),
            |q| q.load(conn)
        ))
    }
}

/// The loads of a byte budget measured in SQL on diesel-async connections: the same driver,
/// `.await`ed.
#[cfg(feature = "diesel-async")]
pub(crate) mod async_ {
    use std::future::Future;

    use diesel::QueryResult;
    use diesel_async::methods::LoadQuery;
    use diesel_async::{AsyncConnectionCore, RunQueryDsl};

    use crate::keyset::Keyset;
    use crate::load::async_::LoadPage;
    use crate::load::{page_connection_impl, read_budgeted_page};
    use crate::page::Page;
    use crate::paginate::async_::Async;
    use crate::paginate::budget::ByteBudgeted;
    use crate::query::learn::IndexPart;
    use crate::query::{BudgetProbe, CountQuery};

    impl<Q, K: Keyset> ByteBudgeted<Q, K, Async> {
        /// Runs the budget's probe, then the page of the rows that fit (two SQL statements),
        /// on a diesel-async connection.
        ///
        /// # Errors
        /// As the blocking [`load_page`](ByteBudgeted::load_page).
        ///
        /// ```
        /// # include!("../doctest_setup.rs");
        /// use diesel_async::sync_connection_wrapper::SyncConnectionWrapper;
        /// use keyset_diesel::async_::PaginateDsl;
        ///
        /// # #[tokio::main(flavor = "current_thread")]
        /// # async fn main() -> QueryResult<()> {
        /// let mut conn = SyncConnectionWrapper::<SqliteConnection>::new(setup());
        /// let feed = || events::table.filter(events::workspace_id.eq("W9")).select(Event::as_select());
        /// let page: Page<Event> = feed()
        ///     .paginate_after(None)
        ///     .page_size(5)
        ///     .max_bytes_in_sql(35, events::message) // "event e101": 10 bytes each
        ///     .load_page(&mut conn)
        ///     .await?;
        /// assert_eq!(page.items.len(), 3);
        /// let rest: Page<Event> = feed()
        ///     .paginate_after(page.next_cursor())
        ///     .page_size(5)
        ///     .max_bytes_in_sql(35, events::message)
        ///     .load_page(&mut conn)
        ///     .await?;
        /// assert_eq!(rest.items.iter().map(|e| e.event_id.as_str()).collect::<Vec<_>>(), ["e104", "e105", "e106"]);
        /// assert!(!rest.has_more());
        /// # Ok(())
        /// # }
        /// ```
        ///
        /// The future is boxed, as the page's without the budget: a query that cannot be
        /// budgeted is one error, at this call.
        pub fn load_page<'conn, 'query, Conn>(
            self,
            conn: &'conn mut Conn,
        ) -> std::pin::Pin<Box<dyn Future<Output = QueryResult<Page<K>>> + Send + 'conn>>
        where
            'query: 'conn,
            Q: LoadBudgetedPage<'query, Conn, K> + 'conn,
            K: 'conn,
        {
            Box::pin(Q::load_budgeted(self, conn))
        }
    }

    /// The async twin of [`LoadBudgetedPage`](crate::LoadBudgetedPage): a query whose
    /// byte-budgeted pages of `K` load on the diesel-async connection `Conn`, the one bound a
    /// generic async function needs for [`ByteBudgeted::load_page`]. Implemented for every
    /// `Clone` query that is [`async_::LoadPage`](crate::async_::LoadPage) on `Conn` (an
    /// unboxed Diesel select statement).
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot load byte-budgeted keyset pages of `{K}` on `{Conn}`",
        label = "not a `Clone` select query that `{K}`'s keyset can page on this diesel-async connection",
        note = "`max_bytes_in_sql` needs a query it can run twice (the byte budget's probe, then the page): an unboxed Diesel select statement; for a boxed query measure in Rust with `max_bytes`"
    )]
    pub trait LoadBudgetedPage<'query, Conn, K: Keyset>: LoadPage<'query, Conn, K> + Clone {
        /// Runs the budgeted page (what the async [`ByteBudgeted::load_page`] calls).
        ///
        /// # Errors
        /// As [`ByteBudgeted::load_page`].
        #[doc(hidden)]
        fn load_budgeted(
            budgeted: ByteBudgeted<Self, K, Async>,
            conn: &mut Conn,
        ) -> impl Future<Output = QueryResult<Page<K>>> + Send;
    }

    // As the blocking form: the connection's bounds behind `AsyncBudgetConnection`.
    impl<'query, Conn, K, Q> LoadBudgetedPage<'query, Conn, K> for Q
    where
        K: Keyset,
        Q: LoadPage<'query, Conn, K> + Clone,
        Conn: AsyncBudgetConnection<'query, Q, K>,
    {
        fn load_budgeted(
            budgeted: ByteBudgeted<Q, K, Async>,
            conn: &mut Conn,
        ) -> impl Future<Output = QueryResult<Page<K>>> + Send {
            Conn::load_budgeted_pages(budgeted, conn)
        }
    }

    /// A diesel-async connection that loads byte-budgeted keyset pages of `K` from query `Q`:
    /// the bound behind [`LoadBudgetedPage`]'s connection (its probes and count, and the page).
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot load keyset pages of `{K}` with the async `load_page`",
        label = "not a diesel-async connection, or this query does not load `{K}` on it",
        note = "a blocking Diesel connection (`PgConnection`, `SqliteConnection`, `MysqlConnection`) pages through the blocking form: `use keyset_diesel::prelude::*;` in place of `keyset_diesel::async_::PaginateDsl`, then `.load_page(conn)` without `.await`",
        note = "on a diesel-async connection, the query must load `{K}` (e.g. `.select({K}::as_select())`) and the backend's feature of this crate must be enabled"
    )]
    pub trait AsyncBudgetConnection<'query, Q, K: Keyset>: Sized {
        /// Runs the budgeted page.
        #[doc(hidden)]
        fn load_budgeted_pages(
            budgeted: ByteBudgeted<Q, K, Async>,
            conn: &mut Self,
        ) -> impl Future<Output = QueryResult<Page<K>>> + Send;
    }

    page_connection_impl! {
        AsyncBudgetConnection for Conn: AsyncConnectionCore, LoadQuery + 'query,
        where {
            K: Send,
            K::Key: Send,
            Q: Clone + Send,
            BudgetProbe<Q, K>: LoadQuery<'query, Conn, (K::Key, i64)> + 'query,
            CountQuery<Q>: LoadQuery<'query, Conn, i64> + 'query,
        }
        #[allow(clippy::manual_async_fn)] // spelled out: the trait promises a `Send` future
        fn load_budgeted_pages(
            budgeted: ByteBudgeted<Q, K, Async>,
            conn: &mut Conn,
        ) -> impl Future<Output = QueryResult<Page<K>>> + Send {
            async move {
                Ok(read_budgeted_page!(
                    budgeted,
                    Conn::Backend,
                    |probe| RunQueryDsl::load::<(K::Key, i64)>(probe, conn).await,
                    |count| RunQueryDsl::load::<i64>(count, conn).await,
                    |sql| diesel::sql_query(sql).load::<IndexPart>(conn).await,
                    |q| q.load(conn).await
                ))
            }
        }
    }
}
