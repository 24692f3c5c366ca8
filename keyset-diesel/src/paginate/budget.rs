//! The byte budget of a page, its two options: [`Paginated::max_bytes`] cuts among the rows
//! loaded ([`ByteBudget`], a Rust function measures each row), and
//! [`Paginated::max_bytes_in_sql`] has the database measure the rows first so that the rows
//! past the budget are never fetched ([`ByteBudgeted`], the columns are [`BudgetColumn`]s).
//! Both keep the same rule, [`fitting`]. What the SQL-measured budget reads is decided in
//! `query/shape.rs` (its probe in `query/budget.rs`); how it loads, in `load/budget.rs`.

use std::fmt::{self, Debug};
use std::sync::Arc;

use diesel::internal::table_macro::StaticQueryFragment;
use diesel::Column;

use super::Paginated;
use crate::keyset::Keyset;
use crate::signature::sql_table_parts;

/// How many rows of sizes `sizes` (in walk order, bytes) a byte budget of `max` bytes keeps:
/// the longest prefix whose sizes add up to at most `max`, but at least one row (a row bigger
/// than the budget is delivered alone, so a walk never stalls on it); 0 for no rows.
pub(crate) fn fitting(max: usize, sizes: impl IntoIterator<Item = usize>) -> usize {
    let mut used = 0usize;
    let mut kept = 0;
    for (i, size) in sizes.into_iter().enumerate() {
        used = used.saturating_add(size);
        if used > max {
            return i.max(1);
        }
        kept = i + 1;
    }
    kept
}

/// A page's byte budget cut in Rust: at most `max` bytes of rows as `measure` counts them
/// ([`Paginated::max_bytes`]).
pub(crate) struct ByteBudget<K> {
    pub max: usize,
    pub measure: Arc<dyn Fn(&K) -> usize + Send + Sync>,
}

impl<K> Clone for ByteBudget<K> {
    fn clone(&self) -> Self {
        ByteBudget {
            max: self.max,
            measure: Arc::clone(&self.measure),
        }
    }
}

impl<K> ByteBudget<K> {
    /// How many of `rows` (in walk order) the page keeps ([`fitting`]).
    pub(crate) fn rows_within(&self, rows: &[K]) -> usize {
        fitting(self.max, rows.iter().map(|row| (self.measure)(row)))
    }
}

/// A column whose stored size counts toward [`Paginated::max_bytes_in_sql`]'s byte budget:
/// any column of a Diesel `table!` (`events::body`), text or binary (`octet_length` must
/// accept it).
pub trait BudgetColumn: Column {}

impl<C: Column> BudgetColumn for C
where
    C::Table: StaticQueryFragment,
    <C::Table as StaticQueryFragment>::Component: Debug,
{
}

/// A column's SQL name: its table's name in parts (schema first) and its own, as Diesel
/// writes them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SqlColumn {
    pub table: Vec<String>,
    pub column: &'static str,
}

impl SqlColumn {
    /// The SQL name of column `C`.
    fn of<C>() -> Self
    where
        C: Column,
        C::Table: StaticQueryFragment,
        <C::Table as StaticQueryFragment>::Component: Debug,
    {
        SqlColumn {
            table: sql_table_parts::<C::Table>().unwrap_or_default(),
            column: C::NAME,
        }
    }
}

/// A [`Paginated`] page with a byte budget the database measures, made by
/// [`Paginated::max_bytes_in_sql`]; count more columns toward it with
/// [`budget_column`](Self::budget_column), then `load_page` as usual (blocking, or `.await`ed
/// with [`async_::PaginateDsl`](crate::async_::PaginateDsl)).
#[must_use = "a paginated query runs only when you call load_page"]
pub struct ByteBudgeted<Q, K: Keyset, M> {
    pub(crate) paginated: Paginated<Q, K, M>,
    pub(crate) max: usize,
    pub(crate) columns: Vec<SqlColumn>,
}

impl<Q: Debug, K: Keyset, M> Debug for ByteBudgeted<Q, K, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ByteBudgeted")
            .field("paginated", &self.paginated)
            .field("max_bytes", &self.max)
            .field("columns", &self.columns)
            .finish()
    }
}

impl<Q, K: Keyset, M> Paginated<Q, K, M> {
    /// A byte budget next to the page size: the page stops before the row that would take the
    /// rows' total size above `max_bytes` (as `measure` counts a row, in bytes), but always
    /// holds at least one row, so a walk never stalls on a row bigger than the budget. The
    /// query is unchanged (`LIMIT page_size + 1`): the budget cuts among the rows fetched, in
    /// walk order, and `has_more()` / `next_cursor()` stay exact (a cut page has more, and the
    /// next page starts with the first row left out). A budget of 0 gives one row per page.
    ///
    /// **It bounds the response, not memory:** the page still loads `page_size + 1` whole rows
    /// before it cuts, so a request allocates about (page size + 1) × the largest row (one
    /// request of page size 100 over 2 MB rows raised a server's peak memory by 208 MiB). Bound
    /// large columns where they are written (a `CHECK (length(col) <= n)`), keep them out of the
    /// page's `select` (load them per row), or keep page sizes small where rows are large.
    ///
    /// ```
    /// # include!("../doctest_setup.rs");
    /// # fn main() -> QueryResult<()> {
    /// # let conn = &mut setup();
    /// let page: Page<Event> = events::table
    ///     .select(Event::as_select())
    ///     .paginate_after(None)
    ///     .page_size(5)
    ///     .max_bytes(25, |e: &Event| e.message.len()) // "event e101": 10 bytes each
    ///     .load_page(conn)?;
    /// assert_eq!(page.items.len(), 2); // a third row would make 30 bytes
    /// assert!(page.has_more());
    /// # Ok(())
    /// # }
    /// ```
    pub fn max_bytes(
        mut self,
        max_bytes: usize,
        measure: impl Fn(&K) -> usize + Send + Sync + 'static,
    ) -> Self {
        self.budget = Some(ByteBudget {
            max: max_bytes,
            measure: Arc::new(measure),
        });
        self
    }

    /// A byte budget the database measures: at most `max_bytes` bytes of the budget's columns
    /// per page (the sum of their stored sizes, NULL counting 0), and at least one row, so a
    /// walk never stalls on a row bigger than the budget. Unlike
    /// [`max_bytes`](Self::max_bytes), which cuts rows already loaded, the rows past the
    /// budget are **never fetched**: the page first reads each row's key and size (a
    /// second, key-only statement: `octet_length` on PostgreSQL and MySQL/MariaDB,
    /// `length(CAST(col AS BLOB))` on SQLite), then loads only the rows that fit. Memory per
    /// page is then about `max_bytes` plus the columns outside the budget, plus one row when
    /// the first row alone is larger. After a cursor, [`exact_flags`](Self::exact_flags) and
    /// [`with_total_count`](Self::with_total_count) are read in statements of their own (a
    /// key-only probe of the other side, `LIMIT 1`; a `COUNT(*)`), not as the union
    /// branches a page without this budget uses, which read whole rows.
    ///
    /// `has_more()` and `next_cursor()` stay exact: a page the budget cut has more, and the
    /// next page starts with the first row left out. Every other option (the cursor, `until`,
    /// exact flags, the total count, index hints) applies as without the budget.
    ///
    /// * Shape: `column` is a column of a `table!` (`events::body`), text or binary; count
    ///   more with [`ByteBudgeted::budget_column`]. Units: bytes as stored (UTF-8 bytes of
    ///   text).
    /// * Two statements: run the page inside
    ///   [`with_read_snapshot`](crate::with_read_snapshot) when the two must read one state;
    ///   otherwise a row written between them is still paged correctly (it is inside the
    ///   page's window or after it), but its size is not measured.
    /// * Generic code: bound the query with [`LoadBudgetedPage`](crate::LoadBudgetedPage) (as
    ///   [`LoadPage`](crate::LoadPage) for pages without the budget).
    /// * Errors: as [`load_page`](Self::load_page), plus
    ///   [`KeysetError::DistinctByteBudget`](crate::KeysetError::DistinctByteBudget) for a
    ///   `SELECT DISTINCT` query, before any SQL runs. The query must be `Clone` (each of the
    ///   two statements owns a copy); a boxed query is not: measure in Rust with
    ///   [`max_bytes`](Self::max_bytes) there, or build the unboxed query.
    ///
    /// ```
    /// # include!("../doctest_setup.rs");
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
    pub fn max_bytes_in_sql<C>(self, max_bytes: usize, column: C) -> ByteBudgeted<Q, K, M>
    where
        C: BudgetColumn,
        C::Table: StaticQueryFragment,
        <C::Table as StaticQueryFragment>::Component: Debug,
    {
        let _ = column;
        ByteBudgeted {
            paginated: self,
            max: max_bytes,
            columns: vec![SqlColumn::of::<C>()],
        }
    }
}

impl<Q, K: Keyset, M> ByteBudgeted<Q, K, M> {
    /// Also count `column`'s stored size toward the byte budget (a column of a `table!`, text
    /// or binary).
    pub fn budget_column<C>(mut self, column: C) -> Self
    where
        C: BudgetColumn,
        C::Table: StaticQueryFragment,
        <C::Table as StaticQueryFragment>::Component: Debug,
    {
        let _ = column;
        self.columns.push(SqlColumn::of::<C>());
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fitting_keeps_the_longest_prefix_within_the_budget_and_at_least_one_row() {
        assert_eq!(fitting(25, []), 0);
        assert_eq!(fitting(25, [10, 10, 10]), 2);
        assert_eq!(fitting(30, [10, 10, 10]), 3);
        assert_eq!(fitting(5, [10, 1]), 1);
        assert_eq!(fitting(0, [0, 0, 1]), 2);
        assert_eq!(fitting(6, [1, 2, 3, 4]), 3);
        assert_eq!(fitting(usize::MAX, [usize::MAX, usize::MAX]), 2);
    }

    #[test]
    fn a_budget_in_rust_measures_each_row_with_its_function() {
        let budget = ByteBudget::<i64> {
            max: 6,
            measure: Arc::new(|r: &i64| usize::try_from(*r).unwrap()),
        };
        assert_eq!(budget.rows_within(&[1, 2, 3, 4]), 3);
        assert_eq!(budget.rows_within(&[1, 2]), 2);
        assert_eq!(budget.rows_within(&[50, 1]), 1);
        assert_eq!(budget.rows_within(&[]), 0);
    }
}
