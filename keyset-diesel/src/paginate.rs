//! `.paginate_after(cursor)` on Diesel select queries, and the one-query page load.

use std::fmt;

use diesel::backend::Backend;
use diesel::connection::Connection;
use diesel::query_builder::{
    AstPass, BoxedSelectStatement, FromClause, LimitOffsetClause, Query, QueryFragment, QueryId,
    SelectStatement,
};
use diesel::query_dsl::methods::{FilterDsl, LimitDsl, OrderDsl};
use diesel::query_dsl::{LoadQuery, RunQueryDsl};
use diesel::query_source::{AppearsInFromClause, QuerySource};
use diesel::QueryResult;

use crate::backend::KeysetBackend;
use crate::checks::{KeysetTableInQuery, NoLimitYet, NoOffsetYet, NoOrderByYet};
use crate::cursor::{Cursor, Direction};
use crate::error::KeysetError;
use crate::keyset::{Keyset, KeysetSql};
use crate::page::Page;
use crate::predicate::{KeysetOrder, SeekPredicate};

/// The page size used when `.page_size(n)` is not called.
pub const DEFAULT_PAGE_SIZE: u32 = 20;

/// Adds keyset pagination to Diesel select queries (`SelectStatement`, boxed or not).
///
/// ```
/// # include!("doctest_setup.rs");
/// # fn main() -> QueryResult<()> {
/// # let conn = &mut setup();
/// let page: Page<Event> = events::table
///     .filter(events::workspace_id.eq("W9"))
///     .select(Event::as_select())
///     .paginate_after(None) // first page
///     .page_size(3)
///     .load_page(conn)?;
/// assert_eq!(page.items.iter().map(|e| e.event_id.as_str()).collect::<Vec<_>>(), ["e101", "e102", "e103"]);
/// assert!(page.has_more);
///
/// let next: Page<Event> = events::table
///     .filter(events::workspace_id.eq("W9"))
///     .select(Event::as_select())
///     .paginate_after(page.next_cursor)
///     .page_size(3)
///     .load_page(conn)?;
/// assert_eq!(next.items.iter().map(|e| e.event_id.as_str()).collect::<Vec<_>>(), ["e104", "e105", "e106"]);
/// assert!(!next.has_more && next.next_cursor.is_none());
/// # Ok(())
/// # }
/// ```
pub trait PaginateDsl: Sized {
    /// The page after `cursor` (`None`: the first page), in the order of the keyset `K`, which
    /// must be the type the query loads. Nothing runs until [`Paginated::load_page`].
    fn paginate_after<K: Keyset>(self, cursor: Option<Cursor<K>>) -> Paginated<Self, K> {
        Paginated {
            query: self,
            cursor: cursor.map(|c| c.key),
            page_size: DEFAULT_PAGE_SIZE,
        }
    }
}

impl<F, S, D, W, O, LOf, G, H, LC> PaginateDsl for SelectStatement<F, S, D, W, O, LOf, G, H, LC> {}

impl<ST, QS, DB, GB> PaginateDsl for BoxedSelectStatement<'_, ST, QS, DB, GB> {}

/// A select query with a keyset page attached: set the page size, then [`Paginated::load_page`].
#[must_use = "a paginated query runs only when you call load_page"]
pub struct Paginated<Q, K: Keyset> {
    query: Q,
    cursor: Option<K::Key>,
    page_size: u32,
}

impl<Q: fmt::Debug, K: Keyset> fmt::Debug for Paginated<Q, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Paginated")
            .field("query", &self.query)
            .field("cursor", &self.cursor)
            .field("page_size", &self.page_size)
            .finish()
    }
}

impl<Q: Clone, K: Keyset> Clone for Paginated<Q, K> {
    fn clone(&self) -> Self {
        Paginated {
            query: self.query.clone(),
            cursor: self.cursor.clone(),
            page_size: self.page_size,
        }
    }
}

impl<Q, K: Keyset> Paginated<Q, K> {
    /// Rows per page (at least 1; default [`DEFAULT_PAGE_SIZE`]). The query fetches
    /// `page_size + 1` rows to know `has_more` exactly.
    pub fn page_size(mut self, page_size: u32) -> Self {
        self.page_size = page_size;
        self
    }

    /// The SQL query this page runs (`ORDER BY` the keyset, the seek predicate when there is a
    /// cursor, `LIMIT page_size + 1`), for `diesel::debug_query` or `EXPLAIN`.
    ///
    /// # Errors
    /// [`KeysetError::InvalidPageSize`] for a page size of 0; for a boxed query,
    /// [`KeysetError::AlreadyOrdered`] / [`KeysetError::AlreadyLimited`] when it already has
    /// `ORDER BY`, `LIMIT` or `OFFSET`.
    pub fn into_query(self) -> Result<PageQuery<Q::First, Q::Seek>, KeysetError>
    where
        Q: PageSource<K>,
    {
        if self.page_size == 0 {
            return Err(KeysetError::InvalidPageSize(0));
        }
        self.query.check_clauses()?;
        // u32 + 1 always fits in i64.
        let limit = i64::from(self.page_size) + 1;
        let order = KeysetOrder::new(Direction::Forward);
        Ok(match self.cursor {
            None => PageQuery::First(self.query.first_page(order, limit)),
            Some(key) => PageQuery::Seek(self.query.seek_page(
                SeekPredicate::new(key, Direction::Forward),
                order,
                limit,
            )),
        })
    }

    /// Runs the page: exactly one SQL query, `LIMIT page_size + 1`.
    ///
    /// # Errors
    /// Diesel's errors from running the query, and the [`KeysetError`]s of
    /// [`Paginated::into_query`] inside `Error::QueryBuilderError` (before any SQL runs).
    pub fn load_page<'query, Conn>(self, conn: &mut Conn) -> QueryResult<Page<K>>
    where
        Conn: Connection,
        Conn::Backend: KeysetBackend,
        K: KeysetSql<Conn::Backend>,
        Q: PageSource<K>,
        PageQuery<Q::First, Q::Seek>: LoadQuery<'query, Conn, K>,
    {
        let page_size = self.page_size;
        let rows: Vec<K> = self.into_query()?.load(conn)?;
        Ok(page_from_rows(rows, page_size))
    }
}

/// Cuts the `LIMIT n + 1` result into a page: the look-ahead row is dropped, never returned,
/// and the cursor is the key of the last row kept (../shared/CASES.md C03).
fn page_from_rows<K: Keyset>(mut items: Vec<K>, page_size: u32) -> Page<K> {
    let keep = usize::try_from(page_size).unwrap_or(usize::MAX);
    let has_more = items.len() > keep;
    items.truncate(keep);
    let next_cursor = if has_more {
        items.last().map(Cursor::after_row)
    } else {
        None
    };
    Page {
        items,
        has_more,
        next_cursor,
        page_size,
    }
}

/// A select query a keyset page can be built on. Implemented for Diesel's `SelectStatement`
/// without `ORDER BY`, `LIMIT` or `OFFSET` (checked by the compiler) and for boxed select
/// statements (checked when the page is built: [`KeysetError::AlreadyOrdered`],
/// [`KeysetError::AlreadyLimited`]).
pub trait PageSource<K: Keyset>: Sized {
    /// The first page's query: `ORDER BY` + `LIMIT`.
    type First;
    /// A later page's query: seek predicate + `ORDER BY` + `LIMIT`.
    type Seek;
    /// Builds the first page's query.
    fn first_page(self, order: KeysetOrder<K>, limit: i64) -> Self::First;
    /// Builds a later page's query.
    fn seek_page(self, seek: SeekPredicate<K>, order: KeysetOrder<K>, limit: i64) -> Self::Seek;
    /// Refuses clauses the type system cannot see (boxed queries).
    ///
    /// # Errors
    /// See the implementors.
    fn check_clauses(&self) -> Result<(), KeysetError> {
        Ok(())
    }
}

/// The query checks are bounds of this impl, each a marker trait of `checks.rs` whose message
/// names the fix: no `ORDER BY`, `LIMIT` or `OFFSET` yet, and the keyset's table in `FROM`.
impl<K, F, S, D, W, O, L, Of, G, H, LC, O1, L1, F2, O2, L2> PageSource<K>
    for SelectStatement<FromClause<F>, S, D, W, O, LimitOffsetClause<L, Of>, G, H, LC>
where
    K: Keyset,
    F: QuerySource + AppearsInFromClause<K::Table>,
    F::Count: KeysetTableInQuery<K, K::Table, F>,
    O: NoOrderByYet,
    L: NoLimitYet,
    Of: NoOffsetYet,
    Self: OrderDsl<KeysetOrder<K>, Output = O1>,
    O1: LimitDsl<Output = L1>,
    Self: FilterDsl<SeekPredicate<K>, Output = F2>,
    F2: OrderDsl<KeysetOrder<K>, Output = O2>,
    O2: LimitDsl<Output = L2>,
{
    type First = L1;
    type Seek = L2;

    fn first_page(self, order: KeysetOrder<K>, limit: i64) -> L1 {
        self.order(order).limit(limit)
    }

    fn seek_page(self, seek: SeekPredicate<K>, order: KeysetOrder<K>, limit: i64) -> L2 {
        self.filter(seek).order(order).limit(limit)
    }
}

/// Boxed queries erase their clauses from the type, so the rule is checked at run time: a
/// boxed query that already has `ORDER BY`, `LIMIT` or `OFFSET` is refused with a
/// [`KeysetError`] before any SQL runs.
impl<'a, K, ST, QS, DB, GB> PageSource<K> for BoxedSelectStatement<'a, ST, FromClause<QS>, DB, GB>
where
    K: Keyset,
    QS: QuerySource + AppearsInFromClause<K::Table>,
    QS::Count: KeysetTableInQuery<K, K::Table, QS>,
    DB: Backend + Default,
    Self: FilterDsl<SeekPredicate<K>, Output = Self>
        + OrderDsl<KeysetOrder<K>, Output = Self>
        + LimitDsl<Output = Self>,
{
    type First = Self;
    type Seek = Self;

    fn first_page(self, order: KeysetOrder<K>, limit: i64) -> Self {
        self.order(order).limit(limit)
    }

    fn seek_page(self, seek: SeekPredicate<K>, order: KeysetOrder<K>, limit: i64) -> Self {
        self.filter(seek).order(order).limit(limit)
    }

    fn check_clauses(&self) -> Result<(), KeysetError> {
        // A boxed clause may be present and still write nothing (PostgreSQL boxes an absent
        // LIMIT as `Some(NoLimitClause)`), so ask each one whether it writes SQL.
        let backend = DB::default();
        let writes_sql = |clause: &Option<Box<dyn QueryFragment<DB> + Send + 'a>>| {
            clause
                .as_ref()
                .is_some_and(|c| !c.is_noop(&backend).unwrap_or(false))
        };
        if writes_sql(&self.order) {
            return Err(KeysetError::AlreadyOrdered);
        }
        if writes_sql(&self.limit_offset.limit) || writes_sql(&self.limit_offset.offset) {
            return Err(KeysetError::AlreadyLimited);
        }
        Ok(())
    }
}

/// The query of one page: the first page's or a later page's (they differ in type because
/// only a later page has a seek predicate). Runs like any Diesel query.
#[derive(Debug, Clone)]
pub enum PageQuery<A, B> {
    /// First page: `ORDER BY` + `LIMIT`, no seek predicate.
    First(A),
    /// Later page: seek predicate + `ORDER BY` + `LIMIT`.
    Seek(B),
}

impl<A, B> Query for PageQuery<A, B>
where
    A: Query,
    B: Query<SqlType = A::SqlType>,
{
    type SqlType = A::SqlType;
}

impl<A, B> QueryId for PageQuery<A, B> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<A, B, DB> QueryFragment<DB> for PageQuery<A, B>
where
    DB: Backend,
    A: QueryFragment<DB>,
    B: QueryFragment<DB>,
{
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        match self {
            PageQuery::First(q) => q.walk_ast(out),
            PageQuery::Seek(q) => q.walk_ast(out),
        }
    }
}

impl<A, B, Conn> RunQueryDsl<Conn> for PageQuery<A, B> {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keyset::{KeyColumn, SortDirection};

    #[derive(Debug, Clone, PartialEq)]
    struct Row(i64);

    diesel::table! { rows (id) { id -> BigInt } }

    impl Keyset for Row {
        type Table = rows::table;
        type Columns = (rows::id,);
        type Key = (i64,);
        const COLUMNS: &'static [KeyColumn] = &[KeyColumn {
            name: "id",
            field: "0",
            direction: SortDirection::Asc,
            nulls: None,
        }];
        const TABLE_NAME: &'static str = "rows";
        fn key(&self) -> (i64,) {
            (self.0,)
        }
    }

    #[test]
    fn look_ahead_row_is_dropped_and_cursor_is_last_delivered() {
        // CASES.md C03: LIMIT 4 returned 4 rows for page size 3.
        let page = page_from_rows((1..=4).map(Row).collect(), 3);
        assert_eq!(page.items, vec![Row(1), Row(2), Row(3)]);
        assert!(page.has_more);
        assert_eq!(page.next_cursor.unwrap().key, (3,));
        // Exactly page_size rows: no look-ahead, so no cursor.
        let page = page_from_rows((4..=6).map(Row).collect(), 3);
        assert_eq!(page.items.len(), 3);
        assert!(!page.has_more);
        assert!(page.next_cursor.is_none());
        // Empty.
        let page = page_from_rows(Vec::<Row>::new(), 3);
        assert!(page.is_empty() && !page.has_more && page.next_cursor.is_none());
    }
}
