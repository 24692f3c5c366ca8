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
use crate::keyset::Keyset;
use crate::load::LoadPage;
use crate::page::Page;
use crate::paginate::{Blocking, Paginated, WindowEnd};
use crate::query::measure::{SizeColumn, SizeProbe};
use crate::query::shape::size_probe;
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
    /// first row alone is larger. One exception: a later page with
    /// [`exact_flags`](Self::exact_flags) or [`with_total_count`](Self::with_total_count) is
    /// a union whose probe and count branches each read one whole row the budget does not
    /// measure (the row at the cursor, your query's first row), so up to two rows more.
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
        };
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

impl<Q: Clone, K: Keyset> BytesBudgeted<Q, K, Blocking> {
    /// Runs the size probe, then the page of the rows that fit (two SQL statements).
    ///
    /// # Errors
    /// As [`Paginated::load_page`], and [`KeysetError::DistinctByteBudget`] inside
    /// `Error::QueryBuilderError` for a `SELECT DISTINCT` query.
    ///
    /// [`KeysetError::DistinctByteBudget`]: crate::KeysetError::DistinctByteBudget
    pub fn load_page<'query, Conn>(self, conn: &mut Conn) -> QueryResult<Page<K>>
    where
        Conn: Connection,
        Conn::Backend: KeysetBackend,
        Q: LoadPage<'query, Conn, K>,
        SizeProbe<Q, K>: LoadQuery<'query, Conn, (K::Key, i64)>,
    {
        let probe = size_probe::<Conn::Backend, _, _, _>(&self.paginated, self.columns())?;
        let sizes: Vec<(K::Key, i64)> = probe.load(conn)?;
        let (page, finish) = self.narrow(&sizes);
        Ok(finish.apply(page.load_page(conn)?))
    }
}

#[cfg(feature = "diesel-async")]
impl<Q: Clone, K: Keyset> BytesBudgeted<Q, K, crate::async_::Async> {
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
    #[allow(clippy::manual_async_fn)] // spelled out: the future is promised `Send`
    pub fn load_page<'conn, 'query, Conn>(
        self,
        conn: &'conn mut Conn,
    ) -> impl std::future::Future<Output = QueryResult<Page<K>>> + Send + use<'conn, 'query, Q, K, Conn>
    where
        Conn: diesel_async::AsyncConnectionCore + Send,
        Conn::Backend: KeysetBackend,
        K: Send,
        K::Key: Send,
        Q: crate::async_::LoadPage<'query, Conn, K> + Send,
        SizeProbe<Q, K>: diesel_async::methods::LoadQuery<'query, Conn, (K::Key, i64)> + 'query,
    {
        async move {
            let probe = size_probe::<Conn::Backend, _, _, _>(&self.paginated, self.columns())?;
            let sizes: Vec<(K::Key, i64)> = diesel_async::RunQueryDsl::load(probe, conn).await?;
            let (page, finish) = self.narrow(&sizes);
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

/// What the probe knows that the narrowed page does not: the page size asked for, and that
/// rows past the budget follow.
pub(crate) struct Finish {
    page_size: u32,
    more: bool,
}

impl Finish {
    /// The page as asked: its page size, and the flag of the walk's direction set when the
    /// budget cut it.
    pub(crate) fn apply<K: Keyset>(self, mut page: Page<K>) -> Page<K> {
        page.page_size = self.page_size;
        if self.more {
            match page.direction {
                Direction::Forward => page.has_next_page = true,
                Direction::Backward => page.has_previous_page = true,
            }
        }
        page
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
