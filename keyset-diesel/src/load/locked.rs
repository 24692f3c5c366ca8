//! The loads of a page whose query has a locking clause (`FOR UPDATE`, `SKIP LOCKED`, ..):
//! the page under the lock (`LIMIT page_size`, so it locks exactly the rows it delivers), then
//! without a lock the look-ahead and, when asked for, the other side's probe and the count,
//! through the one driver [`read_locked_page!`](super::read_locked_page) (blocking here,
//! diesel-async in [`async_`]). What they read is decided in `query/shape.rs` (`LockPlan`).

use diesel::connection::LoadConnection;
use diesel::query_dsl::{LoadQuery, RunQueryDsl};
use diesel::QueryResult;

use super::{page_connection_impl, read_locked_page, LoadPage};
use crate::keyset::Keyset;
use crate::page::Page;
use crate::paginate::Paginated;
use crate::query::learn::IndexPart;
use crate::query::shape::decide;
use crate::query::{BudgetProbe, CountQuery};

impl<Q, K: Keyset> Paginated<Q, K> {
    /// Runs a page of a query with a locking clause (`.for_update()`, `.for_no_key_update()`,
    /// `.for_share()`, `.for_key_share()`, each alone, with `.skip_locked()` or with
    /// `.no_wait()`), inside your transaction: the page statement reads `LIMIT page_size` rows
    /// under the lock, so it locks exactly the rows it delivers, never a look-ahead row; then
    /// one statement without a lock asks whether a row follows the last row delivered (or the
    /// cursor, on an empty page). A short page without `SKIP LOCKED` is the last and needs no
    /// such statement. Exact flags and the total count are statements of their own, without a
    /// lock, each when asked for.
    ///
    /// `has_more` (and `has_next_page` forward) says whether a row that matches the query
    /// follows the page's last row, whether another transaction holds it or not: under `SKIP
    /// LOCKED` a page may be short, or empty, with `has_more`, while other workers hold the
    /// rows after it. A work queue's consumer reads the first page again rather than a cursor
    /// ([work queues](crate::guide::read_contracts#work-queues-locking-pages)).
    ///
    /// # Errors
    /// As [`Paginated::load_page`];
    /// [`KeysetError::LockingPageCut`](crate::KeysetError::LockingPageCut) with a byte
    /// budget. A query without a locking clause pages as with `load_page`.
    pub fn load_locked_page<'query, Conn>(self, conn: &mut Conn) -> QueryResult<Page<K>>
    where
        Q: LoadLockedPage<'query, Conn, K>,
    {
        Q::load_locked(self, conn)
    }
}

/// A query whose locking pages of `K` load on blocking connection `Conn`
/// ([`Paginated::load_locked_page`]): the one bound a generic function needs. Implemented for
/// every `Clone` query that is [`LoadPage`] on `Conn` (an unboxed Diesel select statement).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot load locking keyset pages of `{K}` on `{Conn}`",
    label = "not a `Clone` select query that `{K}`'s keyset can page on this connection",
    note = "`load_locked_page` reads whether more rows follow with a copy of the query that takes no lock: every clause must be `Clone` (a `Box<dyn BoxableExpression>` filter is not: write the filter as a Diesel expression)"
)]
pub trait LoadLockedPage<'query, Conn, K: Keyset>: LoadPage<'query, Conn, K> + Clone {
    /// Runs the locking page (what [`Paginated::load_locked_page`] calls).
    ///
    /// # Errors
    /// As [`Paginated::load_locked_page`].
    #[doc(hidden)]
    fn load_locked(paginated: Paginated<Self, K>, conn: &mut Conn) -> QueryResult<Page<K>>;
}

// Not recommended: a query that is not `Clone` gets this trait's message (what to change), not
// the first clause that is not `Clone`.
#[diagnostic::do_not_recommend]
impl<'query, Conn, K, Q> LoadLockedPage<'query, Conn, K> for Q
where
    K: Keyset,
    Q: LoadPage<'query, Conn, K> + Clone,
    Conn: BlockingLockedConnection<'query, Q, K>,
{
    fn load_locked(paginated: Paginated<Q, K>, conn: &mut Conn) -> QueryResult<Page<K>> {
        Conn::load_locked_pages(paginated, conn)
    }
}

/// A blocking Diesel connection that loads locking keyset pages of `K` from query `Q`: the
/// bound behind [`LoadLockedPage`]'s connection (the page, its look-ahead, probe and count).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot load keyset pages of `{K}` with the blocking `load_locked_page`",
    label = "not a blocking Diesel connection, or this query does not load `{K}` on it",
    note = "a diesel-async connection pages through the async form: `use keyset_diesel::async_::PaginateDsl;` in place of the prelude's `PaginateDsl`, then `.load_locked_page(conn).await`"
)]
pub trait BlockingLockedConnection<'query, Q, K: Keyset>: Sized {
    /// Runs the locking page.
    #[doc(hidden)]
    fn load_locked_pages(paginated: Paginated<Q, K>, conn: &mut Self) -> QueryResult<Page<K>>;
}

page_connection_impl! {
    BlockingLockedConnection for Conn: LoadConnection, LoadQuery,
    where {
        Q: Clone,
        BudgetProbe<Q, K>: LoadQuery<'query, Conn, (K::Key, i64)>,
        CountQuery<Q>: LoadQuery<'query, Conn, i64>,
    }
    fn load_locked_pages(paginated: Paginated<Q, K>, conn: &mut Conn) -> QueryResult<Page<K>> {
        let page = decide::<Conn::Backend, _, _, _>(paginated)?;
        Ok(read_locked_page!(
            page,
            Conn::Backend,
            Q::clone,
            |probe| probe.load::<(K::Key, i64)>(conn),
            |count| count.load::<i64>(conn),
            |sql| diesel::sql_query(sql).load::<IndexPart>(conn),
            |q| q.load(conn)
        ))
    }
}

/// The loads of a locking page on diesel-async connections: the same driver, `.await`ed.
#[cfg(feature = "diesel-async")]
pub(crate) mod async_ {
    use std::future::Future;

    use diesel::QueryResult;
    use diesel_async::methods::LoadQuery;
    use diesel_async::{AsyncConnectionCore, RunQueryDsl};

    use crate::keyset::Keyset;
    use crate::load::async_::LoadPage;
    use crate::load::{page_connection_impl, read_locked_page};
    use crate::page::Page;
    use crate::paginate::async_::Async;
    use crate::paginate::Paginated;
    use crate::query::learn::IndexPart;
    use crate::query::shape::decide;
    use crate::query::{BudgetProbe, CountQuery};

    impl<Q, K: Keyset> Paginated<Q, K, Async> {
        /// The blocking [`load_locked_page`](Paginated::load_locked_page) on a diesel-async
        /// connection: the page under the lock, then the statements without one.
        ///
        /// # Errors
        /// As the blocking [`load_locked_page`](Paginated::load_locked_page).
        pub fn load_locked_page<'conn, 'query, Conn>(
            self,
            conn: &'conn mut Conn,
        ) -> std::pin::Pin<Box<dyn Future<Output = QueryResult<Page<K>>> + Send + 'conn>>
        where
            'query: 'conn,
            Q: LoadLockedPage<'query, Conn, K> + 'conn,
            K: 'conn,
        {
            Box::pin(Q::load_locked(self, conn))
        }
    }

    /// The async twin of [`LoadLockedPage`](crate::LoadLockedPage): a query whose locking
    /// pages of `K` load on the diesel-async connection `Conn`.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot load locking keyset pages of `{K}` on `{Conn}`",
        label = "not a `Clone` select query that `{K}`'s keyset can page on this diesel-async connection",
        note = "`load_locked_page` reads whether more rows follow with a copy of the query that takes no lock: every clause must be `Clone` (a `Box<dyn BoxableExpression>` filter is not: write the filter as a Diesel expression)"
    )]
    pub trait LoadLockedPage<'query, Conn, K: Keyset>: LoadPage<'query, Conn, K> + Clone {
        /// Runs the locking page (what the async [`Paginated::load_locked_page`] calls).
        ///
        /// # Errors
        /// As [`Paginated::load_locked_page`].
        #[doc(hidden)]
        fn load_locked(
            paginated: Paginated<Self, K, Async>,
            conn: &mut Conn,
        ) -> impl Future<Output = QueryResult<Page<K>>> + Send;
    }

    #[diagnostic::do_not_recommend]
    impl<'query, Conn, K, Q> LoadLockedPage<'query, Conn, K> for Q
    where
        K: Keyset,
        Q: LoadPage<'query, Conn, K> + Clone,
        Conn: AsyncLockedConnection<'query, Q, K>,
    {
        fn load_locked(
            paginated: Paginated<Q, K, Async>,
            conn: &mut Conn,
        ) -> impl Future<Output = QueryResult<Page<K>>> + Send {
            Conn::load_locked_pages(paginated, conn)
        }
    }

    /// A diesel-async connection that loads locking keyset pages of `K` from query `Q`: the
    /// bound behind [`LoadLockedPage`]'s connection.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot load keyset pages of `{K}` with the async `load_locked_page`",
        label = "not a diesel-async connection, or this query does not load `{K}` on it",
        note = "a blocking Diesel connection pages through the blocking form: `use keyset_diesel::prelude::*;` in place of `keyset_diesel::async_::PaginateDsl`, then `.load_locked_page(conn)` without `.await`"
    )]
    pub trait AsyncLockedConnection<'query, Q, K: Keyset>: Sized {
        /// Runs the locking page.
        #[doc(hidden)]
        fn load_locked_pages(
            paginated: Paginated<Q, K, Async>,
            conn: &mut Self,
        ) -> impl Future<Output = QueryResult<Page<K>>> + Send;
    }

    page_connection_impl! {
        AsyncLockedConnection for Conn: AsyncConnectionCore, LoadQuery + 'query,
        where {
            K: Send,
            K::Key: Send,
            Q: Clone + Send,
            BudgetProbe<Q, K>: LoadQuery<'query, Conn, (K::Key, i64)> + 'query,
            CountQuery<Q>: LoadQuery<'query, Conn, i64> + 'query,
        }
        #[allow(clippy::manual_async_fn)] // spelled out: the trait promises a `Send` future
        fn load_locked_pages(
            paginated: Paginated<Q, K, Async>,
            conn: &mut Conn,
        ) -> impl Future<Output = QueryResult<Page<K>>> + Send {
            async move {
                let page = decide::<Conn::Backend, _, _, _>(paginated)?;
                Ok(read_locked_page!(
                    page,
                    Conn::Backend,
                    Q::clone,
                    |probe| RunQueryDsl::load::<(K::Key, i64)>(probe, conn).await,
                    |count| RunQueryDsl::load::<i64>(count, conn).await,
                    |sql| diesel::sql_query(sql).load::<IndexPart>(conn).await,
                    |q| q.load(conn).await
                ))
            }
        }
    }
}
