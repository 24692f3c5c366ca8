//! A byte budget the database measures ([`Paginated::max_bytes_in_sql`]): the page reads the
//! rows' sizes first, then fetches only the rows that fit, so a page of large rows allocates
//! about the budget (plus one row when the first row alone is larger), not `page_size + 1`
//! whole rows.
//!
//! A page is two statements: the size probe (`query/measure.rs`: the page's seek, order and
//! limit, selecting the key columns and the measured columns' sizes), then the ordinary page
//! statement, its window ended at the last row that fits ([`Paginated::until`], inclusive)
//! and its page size cut to the rows that fit. `has_more` is the probe's: a page the budget
//! cut has more.

use std::fmt::{self, Debug};
use std::sync::Arc;

use diesel::connection::Connection;
use diesel::internal::table_macro::StaticQueryFragment;
use diesel::query_dsl::{LoadQuery, RunQueryDsl};
use diesel::{Column, QueryResult};

use crate::backend::KeysetBackend;
use crate::cursor::Direction;
use crate::error::KeysetError;
use crate::keyset::Keyset;
use crate::load::LoadPage;
use crate::page::Page;
use crate::paginate::{Blocking, Paginated, WindowEnd};
use crate::query::measure::{CountQuery, SizeColumn, SizeProbe};
use crate::query::shape::{other_side_probe, size_probe};
use crate::query::PageSource;
use crate::signature::sql_table_parts;

/// A column whose stored size counts toward [`Paginated::max_bytes_in_sql`]: any column of
/// a Diesel `table!` (`events::body`), text or binary (`octet_length` must accept it).
pub trait MeasuredColumn: Column {}

impl<C: Column> MeasuredColumn for C
where
    C::Table: StaticQueryFragment,
    <C::Table as StaticQueryFragment>::Component: Debug,
{
}

/// The [`SizeColumn`] of column `C`: its table's SQL name in parts and its own.
fn size_column<C>() -> SizeColumn
where
    C: Column,
    C::Table: StaticQueryFragment,
    <C::Table as StaticQueryFragment>::Component: Debug,
{
    SizeColumn {
        table: sql_table_parts::<C::Table>().unwrap_or_default(),
        column: C::NAME,
    }
}

/// A [`Paginated`] page with a byte budget the database measures, made by
/// [`Paginated::max_bytes_in_sql`]; add more measured columns with
/// [`measure`](Self::measure), then `load_page` as usual (blocking, or `.await`ed with
/// [`async_::PaginateDsl`](crate::async_::PaginateDsl)).
#[must_use = "a paginated query runs only when you call load_page"]
pub struct BytesBudgeted<Q, K: Keyset, M> {
    pub(crate) paginated: Paginated<Q, K, M>,
    pub(crate) max: usize,
    pub(crate) columns: Vec<SizeColumn>,
}

impl<Q: Debug, K: Keyset, M> Debug for BytesBudgeted<Q, K, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BytesBudgeted")
            .field("paginated", &self.paginated)
            .field("max_bytes", &self.max)
            .field("columns", &self.columns)
            .finish()
    }
}

impl<Q, K: Keyset, M> Paginated<Q, K, M> {
    /// A byte budget the database measures: at most `max_bytes` bytes of the measured
    /// columns per page (the sum of their stored sizes, NULL counting 0), and at least one
    /// row, so a walk never stalls on a row bigger than the budget. Unlike
    /// [`max_bytes`](Self::max_bytes), which cuts rows already loaded, the rows past the
    /// budget are **never fetched**: the page first reads each row's key and size (a
    /// second, key-only statement: `octet_length` on PostgreSQL and MySQL/MariaDB,
    /// `length(CAST(col AS BLOB))` on SQLite), then loads only the rows that fit. Memory per
    /// page is then about `max_bytes` plus the unmeasured columns, plus one row when the
    /// first row alone is larger. After a cursor, [`exact_flags`](Self::exact_flags) and
    /// [`with_total_count`](Self::with_total_count) are read in statements of their own (a
    /// key-only probe of the other side, `LIMIT 1`; a `COUNT(*)`), not as the union
    /// branches an unbudgeted page uses, which read whole rows.
    ///
    /// `has_more()` and `next_cursor()` stay exact: a page the budget cut has more, and the
    /// next page starts with the first row left out. Every other option (the cursor, `until`,
    /// exact flags, the total count, index hints) applies as without the budget.
    ///
    /// * Shape: `column` is a column of a `table!` (`events::body`), text or binary; add
    ///   more with [`BytesBudgeted::measure`]. Units: bytes as stored (UTF-8 bytes of text).
    /// * Two statements: run the page inside
    ///   [`with_read_snapshot`](crate::with_read_snapshot) when the two must read one state;
    ///   otherwise a row written between them is still paged correctly (it is inside the
    ///   page's window or after it), but its size is not measured.
    /// * Generic code: bound the query with [`LoadBudgetedPage`] (as [`LoadPage`] for pages
    ///   without the budget).
    /// * Errors: as [`load_page`](Self::load_page), plus
    ///   [`KeysetError::DistinctByteBudget`](crate::KeysetError::DistinctByteBudget) for a
    ///   `SELECT DISTINCT` query, before any SQL runs. The query must be `Clone` (each of the
    ///   two statements owns a copy); a boxed query is not: measure in Rust with
    ///   [`max_bytes`](Self::max_bytes) there, or build the unboxed query.
    ///
    /// ```
    /// # include!("doctest_setup.rs");
    /// # fn main() -> QueryResult<()> {
    /// # let conn = &mut setup();
    /// let page: Page<Event> = events::table
    ///     .filter(events::workspace_id.eq("W9"))
    ///     .select(Event::as_select())
    ///     .paginate_after(None)
    ///     .page_size(5)
    ///     .max_bytes_in_sql(25, events::message) // "event e101": 10 bytes each
    ///     .load_page(conn)?;
    /// assert_eq!(page.items.len(), 2); // a third row would make 30 bytes: never fetched
    /// assert!(page.has_more());
    /// # Ok(())
    /// # }
    /// ```
    pub fn max_bytes_in_sql<C>(self, max_bytes: usize, column: C) -> BytesBudgeted<Q, K, M>
    where
        C: MeasuredColumn,
        C::Table: StaticQueryFragment,
        <C::Table as StaticQueryFragment>::Component: Debug,
    {
        let _ = column;
        BytesBudgeted {
            paginated: self,
            max: max_bytes,
            columns: vec![size_column::<C>()],
        }
    }
}

impl<Q, K: Keyset, M> BytesBudgeted<Q, K, M> {
    /// Also count `column`'s stored size toward the budget (a column of a `table!`, text or
    /// binary).
    pub fn measure<C>(mut self, column: C) -> Self
    where
        C: MeasuredColumn,
        C::Table: StaticQueryFragment,
        <C::Table as StaticQueryFragment>::Component: Debug,
    {
        let _ = column;
        self.columns.push(size_column::<C>());
        self
    }

    /// The measured columns, for the probe.
    pub(crate) fn columns(&self) -> Arc<[SizeColumn]> {
        self.columns.iter().cloned().collect()
    }

    /// The page statement for the probe's `sizes` (keys and sizes in walk order): its window
    /// ended at the last row that fits and its page size cut to the rows that fit, and how
    /// its page is finished. With no row, the page as asked (it is empty or reads what was
    /// written since).
    pub(crate) fn narrow(self, sizes: &[(K::Key, i64)]) -> (Paginated<Q, K, M>, Finish) {
        let mut p = self.paginated;
        let finish = Finish {
            page_size: p.page_size,
            more: false,
            other_side: None,
            total: None,
        };
        // After a cursor, exact flags and the total count would make the page a union whose
        // probe and count branches read whole rows: [`Plan`] reads them key-only instead.
        if p.cursor.is_some() {
            p.exact = false;
            p.total = false;
        }
        let Some(fit) = rows_within(self.max, sizes, p.page_size) else {
            return (p, finish);
        };
        let more = sizes.len() > fit;
        p.until = Some(WindowEnd {
            key: sizes[fit - 1].0.clone(),
            inclusive: true,
        });
        // fit <= page_size, a u32.
        p.page_size = u32::try_from(fit).unwrap_or(p.page_size);
        (p, Finish { more, ..finish })
    }
}

impl<Q, K: Keyset> BytesBudgeted<Q, K, Blocking> {
    /// Runs the size probe, then the page of the rows that fit: two SQL statements, and
    /// after a cursor one more for exact flags (a key-only probe of the other side) and one
    /// more for the total count, each when asked for.
    ///
    /// # Errors
    /// As [`Paginated::load_page`], and [`KeysetError::DistinctByteBudget`] inside
    /// `Error::QueryBuilderError` for a `SELECT DISTINCT` query.
    pub fn load_page<'query, Conn>(self, conn: &mut Conn) -> QueryResult<Page<K>>
    where
        Q: LoadBudgetedPage<'query, Conn, K>,
    {
        Q::load_budgeted(self, conn)
    }
}

#[cfg(feature = "diesel-async")]
impl<Q, K: Keyset> BytesBudgeted<Q, K, crate::async_::Async> {
    /// Runs the size probe, then the page of the rows that fit (two SQL statements), on a
    /// diesel-async connection.
    ///
    /// # Errors
    /// As the blocking [`load_page`](BytesBudgeted::load_page).
    ///
    /// ```
    /// # include!("doctest_setup.rs");
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
    /// The future is boxed, as the unbudgeted page's: a query that cannot be budgeted is one
    /// error, at this call.
    pub fn load_page<'conn, 'query, Conn>(
        self,
        conn: &'conn mut Conn,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = QueryResult<Page<K>>> + Send + 'conn>>
    where
        'query: 'conn,
        Q: crate::async_::LoadBudgetedPage<'query, Conn, K> + 'conn,
        K: 'conn,
    {
        Box::pin(Q::load_budgeted(self, conn))
    }
}

/// The async twin of [`LoadBudgetedPage`]: a query whose byte-budgeted pages of `K` load on
/// the diesel-async connection `Conn`, the one bound a generic async function needs for
/// [`BytesBudgeted::load_page`]. Implemented for every `Clone` query that is
/// [`async_::LoadPage`](crate::async_::LoadPage) on `Conn` (an unboxed Diesel select
/// statement).
#[cfg(feature = "diesel-async")]
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot load byte-budgeted keyset pages of `{K}` on `{Conn}`",
    label = "not a `Clone` select query that `{K}`'s keyset can page on this diesel-async connection",
    note = "`max_bytes_in_sql` needs a query it can run twice (the size probe, then the page): an unboxed Diesel select statement; for a boxed query measure in Rust with `max_bytes`"
)]
pub trait AsyncLoadBudgetedPage<'query, Conn, K: Keyset>:
    crate::async_::LoadPage<'query, Conn, K> + Clone
{
    /// Runs the budgeted page (what the async [`BytesBudgeted::load_page`] calls).
    ///
    /// # Errors
    /// As [`BytesBudgeted::load_page`].
    #[doc(hidden)]
    fn load_budgeted(
        budgeted: BytesBudgeted<Self, K, crate::async_::Async>,
        conn: &mut Conn,
    ) -> impl std::future::Future<Output = QueryResult<Page<K>>> + Send;
}

// As the blocking form: the connection's bounds behind `AsyncBudgetConnection`.
#[cfg(feature = "diesel-async")]
impl<'query, Conn, K, Q> AsyncLoadBudgetedPage<'query, Conn, K> for Q
where
    K: Keyset,
    Q: crate::async_::LoadPage<'query, Conn, K> + Clone,
    Conn: AsyncBudgetConnection<'query, Q, K>,
{
    fn load_budgeted(
        budgeted: BytesBudgeted<Q, K, crate::async_::Async>,
        conn: &mut Conn,
    ) -> impl std::future::Future<Output = QueryResult<Page<K>>> + Send {
        Conn::load_budgeted_pages(budgeted, conn)
    }
}

/// A diesel-async connection that loads byte-budgeted keyset pages of `K` from query `Q`: the
/// bound behind [`AsyncLoadBudgetedPage`]'s connection (its size probe and count).
#[cfg(feature = "diesel-async")]
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
        budgeted: BytesBudgeted<Q, K, crate::async_::Async>,
        conn: &mut Self,
    ) -> impl std::future::Future<Output = QueryResult<Page<K>>> + Send;
}

#[cfg(feature = "diesel-async")]
#[diagnostic::do_not_recommend]
impl<'query, Conn, K, Q> AsyncBudgetConnection<'query, Q, K> for Conn
where
    Conn: diesel_async::AsyncConnectionCore + Send,
    Conn::Backend: KeysetBackend,
    K: Keyset + Send,
    K::Key: Send,
    Q: crate::async_::LoadPage<'query, Conn, K> + Clone + Send,
    SizeProbe<Q, K>: diesel_async::methods::LoadQuery<'query, Conn, (K::Key, i64)> + 'query,
    CountQuery<Q>: diesel_async::methods::LoadQuery<'query, Conn, i64> + 'query,
{
    #[allow(clippy::manual_async_fn)] // spelled out: the trait promises a `Send` future
    fn load_budgeted_pages(
        budgeted: BytesBudgeted<Q, K, crate::async_::Async>,
        conn: &mut Conn,
    ) -> impl std::future::Future<Output = QueryResult<Page<K>>> + Send {
        async move {
            use diesel_async::RunQueryDsl as Run;
            let plan = budgeted.plan::<Conn::Backend>()?;
            let sizes: Vec<(K::Key, i64)> = Run::load(plan.probe, conn).await?;
            let other_side = match plan.other_side {
                Some(probe) => {
                    let rows: Vec<(K::Key, i64)> = Run::load(probe, conn).await?;
                    Some(!rows.is_empty())
                }
                None => None,
            };
            let total = match plan.count {
                Some(count) => {
                    let counts: Vec<i64> = Run::load(count, conn).await?;
                    counts.first().copied()
                }
                None => None,
            };
            let (page, mut finish) = budgeted.narrow(&sizes);
            finish.other_side = other_side;
            finish.total = total;
            Ok(finish.apply(page.load_page(conn).await?))
        }
    }
}

/// How many of the rows whose sizes are `sizes` (in walk order) a page of at most
/// `page_size` rows keeps within `max` bytes: the longest prefix that fits, at least one;
/// `None` for no rows.
fn rows_within<T>(max: usize, sizes: &[(T, i64)], page_size: u32) -> Option<usize> {
    if sizes.is_empty() {
        return None;
    }
    let cap = usize::try_from(page_size)
        .unwrap_or(usize::MAX)
        .min(sizes.len());
    let mut used = 0usize;
    for (i, (_, size)) in sizes.iter().take(cap).enumerate() {
        used = used.saturating_add(usize::try_from(*size).unwrap_or(0));
        if used > max {
            return Some(i.max(1));
        }
    }
    Some(cap)
}

/// What the probes know that the narrowed page does not: the page size asked for, that rows
/// past the budget follow, and (after a cursor) the exact flag of the other side and the
/// total count, when asked for.
pub(crate) struct Finish {
    page_size: u32,
    more: bool,
    other_side: Option<bool>,
    total: Option<i64>,
}

impl Finish {
    /// The page as asked: its page size, the flag of the walk's direction set when the
    /// budget cut it, the other side's exact flag and the total count from their own
    /// statements.
    pub(crate) fn apply<K: Keyset>(self, mut page: Page<K>) -> Page<K> {
        page.page_size = self.page_size;
        let (ahead, behind) = match page.direction {
            Direction::Forward => (&mut page.has_next_page, &mut page.has_previous_page),
            Direction::Backward => (&mut page.has_previous_page, &mut page.has_next_page),
        };
        if self.more {
            *ahead = true;
        }
        if let Some(exists) = self.other_side {
            *behind = exists;
        }
        if self.total.is_some() {
            page.total_count = self.total;
        }
        page
    }
}

/// The statements of a budgeted page besides the page itself: the size probe, and after a
/// cursor the key-only probe of the other side (exact flags) and the count (total count).
pub(crate) struct Plan<Q, K: Keyset> {
    pub probe: SizeProbe<Q, K>,
    pub other_side: Option<SizeProbe<Q, K>>,
    pub count: Option<CountQuery<Q>>,
}

impl<Q: Clone, K: Keyset, M> BytesBudgeted<Q, K, M> {
    /// The plan of this page on backend `DB`.
    pub(crate) fn plan<DB: KeysetBackend>(&self) -> Result<Plan<Q, K>, KeysetError>
    where
        Q: PageSource<K>,
    {
        let p = &self.paginated;
        let after_cursor = p.cursor.is_some();
        Ok(Plan {
            probe: size_probe::<DB, _, _, _>(p, self.columns())?,
            other_side: if p.exact {
                other_side_probe::<DB, _, _, _>(p)?
            } else {
                None
            },
            count: (p.total && after_cursor).then(|| CountQuery {
                query: p.query.clone(),
            }),
        })
    }
}

/// A query whose budgeted pages of `K` load on blocking connection `Conn`
/// ([`Paginated::max_bytes_in_sql`]): the one bound a generic function needs, as
/// [`LoadPage`] is for pages without it. Implemented for every `Clone` query that is
/// `LoadPage` on `Conn` (an unboxed Diesel select statement).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot load byte-budgeted keyset pages of `{K}` on `{Conn}`",
    label = "not a `Clone` select query that `{K}`'s keyset can page on this connection",
    note = "`max_bytes_in_sql` needs a query it can run twice (the size probe, then the page): an unboxed Diesel select statement; for a boxed query measure in Rust with `max_bytes`"
)]
pub trait LoadBudgetedPage<'query, Conn, K: Keyset>: LoadPage<'query, Conn, K> + Clone {
    /// Runs the budgeted page (what [`BytesBudgeted::load_page`] calls).
    ///
    /// # Errors
    /// As [`BytesBudgeted::load_page`].
    #[doc(hidden)]
    fn load_budgeted(
        budgeted: BytesBudgeted<Self, K, Blocking>,
        conn: &mut Conn,
    ) -> QueryResult<Page<K>>;
}

// The connection's bounds are behind `BlockingBudgetConnection` (its impl is not recommended),
// so a diesel-async connection here gets the crate's message naming the async import, as an
// unbudgeted page does (issue 32, item 4), not the size probe's `LoadConnection` bound.
impl<'query, Conn, K, Q> LoadBudgetedPage<'query, Conn, K> for Q
where
    K: Keyset,
    Q: LoadPage<'query, Conn, K> + Clone,
    Conn: BlockingBudgetConnection<'query, Q, K>,
{
    fn load_budgeted(
        budgeted: BytesBudgeted<Q, K, Blocking>,
        conn: &mut Conn,
    ) -> QueryResult<Page<K>> {
        Conn::load_budgeted_pages(budgeted, conn)
    }
}

/// A blocking Diesel connection that loads byte-budgeted keyset pages of `K` from query `Q`:
/// the bound behind [`LoadBudgetedPage`]'s connection (its size probe and count), as
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
        budgeted: BytesBudgeted<Q, K, Blocking>,
        conn: &mut Self,
    ) -> QueryResult<Page<K>>;
}

#[diagnostic::do_not_recommend]
impl<'query, Conn, K, Q> BlockingBudgetConnection<'query, Q, K> for Conn
where
    Conn: Connection,
    Conn::Backend: KeysetBackend,
    K: Keyset,
    Q: LoadPage<'query, Conn, K> + Clone,
    SizeProbe<Q, K>: LoadQuery<'query, Conn, (K::Key, i64)>,
    CountQuery<Q>: LoadQuery<'query, Conn, i64>,
{
    fn load_budgeted_pages(
        budgeted: BytesBudgeted<Q, K, Blocking>,
        conn: &mut Conn,
    ) -> QueryResult<Page<K>> {
        let plan = budgeted.plan::<Conn::Backend>()?;
        let sizes: Vec<(K::Key, i64)> = plan.probe.load(conn)?;
        let other_side = match plan.other_side {
            Some(probe) => Some(!probe.load::<(K::Key, i64)>(conn)?.is_empty()),
            None => None,
        };
        let total = match plan.count {
            Some(count) => count.load::<i64>(conn)?.first().copied(),
            None => None,
        };
        let (page, mut finish) = budgeted.narrow(&sizes);
        finish.other_side = other_side;
        finish.total = total;
        Ok(finish.apply(page.load_page(conn)?))
    }
}

#[cfg(test)]
mod tests {
    use super::rows_within;

    #[test]
    fn rows_within_keeps_the_longest_prefix_that_fits_and_at_least_one() {
        let rows = |sizes: &[i64]| sizes.iter().map(|s| ((), *s)).collect::<Vec<_>>();
        assert_eq!(rows_within(25, &rows(&[]), 5), None);
        assert_eq!(rows_within(25, &rows(&[10, 10, 10]), 5), Some(2));
        assert_eq!(rows_within(30, &rows(&[10, 10, 10]), 5), Some(3));
        assert_eq!(rows_within(30, &rows(&[10, 10, 10, 10]), 3), Some(3));
        assert_eq!(rows_within(5, &rows(&[10, 1]), 5), Some(1));
        assert_eq!(rows_within(0, &rows(&[0, 0, 1]), 5), Some(2));
        assert_eq!(
            rows_within(usize::MAX, &rows(&[i64::MAX, i64::MAX]), 5),
            Some(2)
        );
    }
}
