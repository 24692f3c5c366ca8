//! `.paginate_after(cursor)` / `.paginate_before(cursor)` on Diesel select queries, and the
//! one-query page load.

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use diesel::backend::Backend;
use diesel::connection::Connection;
use diesel::query_builder::{
    AstPass, BoxedSelectStatement, FromClause, LimitOffsetClause, QueryBuilder, QueryFragment,
    QueryId, SelectStatement,
};
use diesel::query_dsl::{LoadQuery, RunQueryDsl};
use diesel::query_source::{AppearsInFromClause, QuerySource};
use diesel::QueryResult;

use crate::backend::{keyset_dialect, BackendKind, KeysetBackend};
use crate::checks::{KeysetTableInQuery, NoDistinctOn, NoLimitYet, NoOffsetYet, NoOrderByYet};
use crate::counted::Counted;
use crate::cursor::{Cursor, Direction};
use crate::detect::{check_rows, column_name};
use crate::error::KeysetError;
use crate::keyset::{Keyset, KeysetSql};
use crate::page::Page;
use crate::predicate::{KeysetOrder, SeekPredicate};
use crate::sql::{self, Dialect};
use crate::statement::{BranchRow, PageStatement};
use crate::static_id::{
    seek_text_is_fixed, StaticPage, StaticShape, AFTER_BACKWARD, AFTER_FORWARD, FIRST_BACKWARD,
    FIRST_FORWARD,
};
use crate::union::UnionPage;
use crate::value::KeyTuple;

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
///
/// // Back: the page before e104, in display order.
/// let back: Page<Event> = events::table
///     .filter(events::workspace_id.eq("W9"))
///     .select(Event::as_select())
///     .paginate_before(next.start_cursor)
///     .page_size(3)
///     .load_page(conn)?;
/// assert_eq!(back.items.iter().map(|e| e.event_id.as_str()).collect::<Vec<_>>(), ["e101", "e102", "e103"]);
/// assert!(!back.has_previous_page && back.has_next_page);
/// # Ok(())
/// # }
/// ```
pub trait PaginateDsl: Sized {
    /// The page after `cursor` in the order of the keyset `K` (`None`: the first page). `K`
    /// must be the type the query loads. Only the cursor's key is used: its direction is
    /// ignored (see [`PaginateDsl::paginate`] to follow it). Nothing runs until
    /// [`Paginated::load_page`].
    fn paginate_after<K: Keyset>(self, cursor: Option<Cursor<K>>) -> Paginated<Self, K> {
        Paginated::new(self, cursor, Direction::Forward)
    }

    /// The page immediately before `cursor` (`None`: the last page), returned in display
    /// order (the keyset's order), like Relay's `last`/`before`. The query reads backward from
    /// the cursor with `LIMIT page_size + 1` and the rows are then reversed, so the page is
    /// the one adjacent to the cursor. Only the cursor's key is used.
    fn paginate_before<K: Keyset>(self, cursor: Option<Cursor<K>>) -> Paginated<Self, K> {
        Paginated::new(self, cursor, Direction::Backward)
    }

    /// The page the cursor points to: after it for a forward cursor (a page's `end_cursor` /
    /// `next_cursor` of a forward walk), before it for a backward one (a `start_cursor`);
    /// `None` is the first page. Use this with cursors decoded from tokens, which record
    /// their direction.
    fn paginate<K: Keyset>(self, cursor: Option<Cursor<K>>) -> Paginated<Self, K> {
        let walk = cursor.as_ref().map_or(Direction::Forward, |c| c.direction);
        Paginated::new(self, cursor, walk)
    }
}

impl<F, S, D, W, O, LOf, G, H, LC> PaginateDsl for SelectStatement<F, S, D, W, O, LOf, G, H, LC> {}

impl<ST, QS, DB, GB> PaginateDsl for BoxedSelectStatement<'_, ST, QS, DB, GB> {}

#[cfg(feature = "diesel-async")]
pub mod async_;

/// A select query with a keyset page attached: set the page size, then [`Paginated::load_page`].
///
/// `M` is how the page loads: [`Blocking`](crate::query::Blocking) (the default, from
/// [`PaginateDsl`], on a Diesel `Connection`) or, with the `diesel-async` feature,
/// [`Async`](crate::async_::Async) (from [`async_::PaginateDsl`](crate::async_::PaginateDsl),
/// on a diesel-async connection). The page size and options are the same for both.
#[must_use = "a paginated query runs only when you call load_page"]
pub struct Paginated<Q, K: Keyset, M = Blocking> {
    mode: PhantomData<M>,
    query: Q,
    cursor: Option<K::Key>,
    /// The window's far end ([`Paginated::until`]).
    until: Option<K::Key>,
    walk: Direction,
    page_size: u32,
    exact: bool,
    deferred: Option<bool>,
    per_level: bool,
    /// [`Paginated::expanded_seek`].
    expanded: bool,
    budget: Option<ByteBudget<K>>,
    total: bool,
    /// [`Paginated::force_index`].
    index: IndexHint,
}

/// The index a page names ([`Paginated::force_index`]).
#[derive(Debug, Clone, Copy)]
enum IndexHint {
    /// The keyset's declared [`Keyset::INDEX`], on a query of its table alone (the default).
    Declared,
    /// The one given to [`Paginated::force_index`].
    Named(&'static str),
    /// None: `force_index(None)`.
    Off,
}

/// A page's byte budget: at most `max` bytes of rows as `measure` counts them
/// ([`Paginated::max_bytes`]).
struct ByteBudget<K> {
    max: usize,
    measure: Arc<dyn Fn(&K) -> usize + Send + Sync>,
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
    /// How many of `rows` (in walk order) the page keeps: the longest prefix whose sizes add
    /// up to at most `max` bytes, but at least one row (a row bigger than the budget is
    /// delivered alone, so a walk never stalls on it).
    fn rows_within(&self, rows: &[K]) -> usize {
        let mut used = 0usize;
        for (i, row) in rows.iter().enumerate() {
            used = used.saturating_add((self.measure)(row));
            if used > self.max {
                return i.max(1);
            }
        }
        rows.len()
    }
}

/// The mode of a [`Paginated`] made by [`PaginateDsl`]: `load_page` runs on a Diesel
/// (blocking) `Connection`.
#[derive(Debug, Clone, Copy)]
pub enum Blocking {}

impl<Q: fmt::Debug, K: Keyset, M> fmt::Debug for Paginated<Q, K, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Paginated")
            .field("query", &self.query)
            .field("cursor", &self.cursor)
            .field("until", &self.until)
            .field("walk", &self.walk)
            .field("page_size", &self.page_size)
            .field("exact", &self.exact)
            .field("deferred", &self.deferred)
            .field("per_level", &self.per_level)
            .field("expanded_seek", &self.expanded)
            .field("max_bytes", &self.budget.as_ref().map(|b| b.max))
            .field("total_count", &self.total)
            .field("force_index", &self.index)
            .finish()
    }
}

impl<Q: Clone, K: Keyset, M> Clone for Paginated<Q, K, M> {
    fn clone(&self) -> Self {
        Paginated {
            mode: PhantomData,
            query: self.query.clone(),
            cursor: self.cursor.clone(),
            until: self.until.clone(),
            walk: self.walk,
            page_size: self.page_size,
            exact: self.exact,
            deferred: self.deferred,
            per_level: self.per_level,
            expanded: self.expanded,
            budget: self.budget.clone(),
            total: self.total,
            index: self.index,
        }
    }
}

impl<Q, K: Keyset, M> Paginated<Q, K, M> {
    fn new(query: Q, cursor: Option<Cursor<K>>, walk: Direction) -> Self {
        Paginated {
            mode: PhantomData,
            query,
            cursor: cursor.map(|c| c.key),
            until: None,
            walk,
            page_size: DEFAULT_PAGE_SIZE,
            exact: false,
            deferred: None,
            per_level: false,
            expanded: false,
            budget: None,
            total: false,
            index: IndexHint::Declared,
        }
    }

    /// Rows per page (at least 1; default [`DEFAULT_PAGE_SIZE`]). The query fetches
    /// `page_size + 1` rows to know whether more rows follow in the walk's direction.
    pub fn page_size(mut self, page_size: u32) -> Self {
        self.page_size = page_size;
        self
    }

    /// A byte budget next to the page size: the page stops before the row that would take the
    /// rows' total size above `max_bytes` (as `measure` counts a row, in bytes: say the length
    /// of the row's JSON), but always holds at least one row, so a row bigger than the budget
    /// is delivered alone and a walk never stalls on it. The page size still caps the rows
    /// (the query is the same `LIMIT page_size + 1`: the budget costs no extra SQL and cuts
    /// among the rows already fetched, in walk order). `has_more` and `next_cursor` stay
    /// exact: a page cut by the budget says `has_more == true` and its cursor is the last row
    /// delivered, so the next page starts with the first row left out. A budget of 0 gives
    /// one row per page.
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
    ///     .max_bytes(25, |e: &Event| e.message.len()) // "event e101": 10 bytes each
    ///     .load_page(conn)?;
    /// assert_eq!(page.items.len(), 2); // a third row would make 30 bytes
    /// assert_eq!(page.next_cursor.unwrap().key.1, "e102");
    /// assert!(page.has_more);
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

    /// Also read the total count: how many rows your query has without the page (its filters,
    /// `GROUP BY`/`HAVING` and `DISTINCT` kept; the seek, `ORDER BY` and `LIMIT` dropped), in
    /// [`Page::total_count`] (`Some(n)`, a number of rows; of groups for a grouped query; of
    /// distinct rows for `SELECT DISTINCT`). The same on every page of a walk, forward or
    /// backward, while the data does not change.
    ///
    /// **Same statement, one snapshot, on every backend.** The count is a scalar subquery in
    /// the page statement's select list,
    /// `(SELECT COUNT(*) FROM (SELECT 1 FROM <your from> WHERE <your filters> GROUP BY ..) AS
    /// __keyset_count) AS __keyset_total`, so it is read in the statement's own snapshot:
    /// PostgreSQL's statement snapshot (also under `READ COMMITTED`), InnoDB's consistent read
    /// of the statement, SQLite's read of the statement. No second statement and no
    /// transaction is needed. The first page carries it on each row (an empty first page means
    /// a count of 0); a later page becomes a union page (see
    /// [`UnionPage`](crate::query::UnionPage)) with one more branch, the count row: the first
    /// row of your query, not a page row, carrying the count, so the count arrives even when
    /// the page after the cursor is empty (no count row: your query has no rows, count 0).
    ///
    /// **Cost: O(n), not O(page).** The count reads every row your filters select (every
    /// group's rows for `GROUP BY`), on every page it is asked for; the page itself still
    /// reads `page_size + 1` index entries. Ask for it on the first page only, or cache it,
    /// when the filtered set is large.
    ///
    /// Every query shape the crate pages is counted exactly: boxed or not, joins, `GROUP BY`
    /// (+ `HAVING`), `DISTINCT`. On MySQL/MariaDB a `SELECT DISTINCT` whose select list holds
    /// two columns of the same name (`teams.id`, `members.id`) is refused by the server
    /// (`Duplicate column name`, error 1060: a derived table needs unique names); without
    /// `DISTINCT` the list is not repeated. The count works with every other option
    /// (`exact_flags`, `seek_per_level`, `max_bytes`, deferred joins) and on the async path.
    ///
    /// ```
    /// # include!("doctest_setup.rs");
    /// # fn main() -> QueryResult<()> {
    /// # let conn = &mut setup();
    /// let page: Page<Event> = events::table
    ///     .filter(events::workspace_id.eq("W9"))
    ///     .select(Event::as_select())
    ///     .paginate_after(None)
    ///     .page_size(4)
    ///     .with_total_count()
    ///     .load_page(conn)?;
    /// assert_eq!((page.items.len(), page.total_count), (4, Some(6)));
    /// let next: Page<Event> = events::table
    ///     .filter(events::workspace_id.eq("W9"))
    ///     .select(Event::as_select())
    ///     .paginate_after(page.next_cursor)
    ///     .page_size(4)
    ///     .with_total_count()
    ///     .load_page(conn)?;
    /// assert_eq!((next.items.len(), next.total_count), (2, Some(6)));
    /// # Ok(())
    /// # }
    /// ```
    pub fn with_total_count(mut self) -> Self {
        self.total = true;
        self
    }

    /// Make the flag of the *other* direction exact too (`has_previous_page` on a page read
    /// forward from a cursor, `has_next_page` on one read backward), still in one statement:
    /// the page query becomes a union with a one-row probe of the rows at or before the cursor
    /// (see [`crate::Page`]). Without it that flag is `true` whenever there is a cursor (the
    /// cursor's row was delivered earlier), which is wrong only if every row on the other side
    /// was deleted since. The probe reads at most `page_size + 1` index entries at the far end
    /// of your filtered range.
    pub fn exact_flags(mut self, exact: bool) -> Self {
        self.exact = exact;
        self
    }

    /// Run later pages as a deferred join (the seek on the index alone, then the rows by their
    /// tie-breaker; see [`PageStatement`](crate::query::PageStatement)) or not. Default: the backend's choice
    /// ([`KeysetBackend::DEFERRED_JOIN`]): on for MySQL/MariaDB, off for PostgreSQL and SQLite;
    /// off when the page names an index ([`Paginated::force_index`], or the keyset's declared
    /// [`Keyset::INDEX`] on a query of its table alone), which keeps MariaDB on the range from
    /// the cursor in one statement.
    pub fn deferred_join(mut self, deferred: bool) -> Self {
        self.deferred = Some(deferred);
        self
    }

    /// Read the seek through the index named `index`: the one on your equality filters, then
    /// the key columns in keyset order and direction (for `events` filtered on
    /// `workspace_id` and sorted `occurred_at, event_id`: `(workspace_id, occurred_at,
    /// event_id)`). The page statement names it after its `FROM` (quoted as an identifier):
    /// `FORCE INDEX (<index>)` on MySQL/MariaDB, `INDEXED BY <index>` on SQLite; PostgreSQL
    /// has no index hints and the statement is written without one. It also makes the direct
    /// form the default on MySQL/MariaDB (no deferred join, unless [`Paginated::deferred_join`]`(true)`, which
    /// then names the index in the deferred join's inner seek).
    ///
    /// Why, on MySQL/MariaDB: for a page whose select list the index does not cover, MariaDB
    /// (10.11) may plan the seek as `ref` access on your equality filter with the seek pushed
    /// into the index condition, which reads every index entry from the start of your filtered
    /// range to the cursor: the cost of a page grows with its depth. Whether it does depends on
    /// its row estimates, so the same statement can switch plans between runs, for the direct
    /// form and for the deferred join's inner seek alike (measured on a 1,000,079-row tenant:
    /// 97,000 to 103,000 `Handler_icp_attempts` per page at depth 100,000, 10-13 ms). Naming
    /// the index makes it read the range that starts at the cursor: 21 index entries per
    /// page at every depth, one statement without the deferred join's derived table (0.26-0.31
    /// ms a page, against 0.63-0.70 ms for the deferred join with the same hint). The
    /// hint binds the statement to the index's name: rename or drop the index and the page
    /// fails.
    ///
    /// Give it only for a query on one table: the hint follows the whole `FROM` clause, and
    /// after a join that is not valid SQL.
    ///
    /// Declared once on the model instead (`#[keyset(index = "events_feed")]` on the struct,
    /// or `index = ".."` among a named sort's columns: [`Keyset::INDEX`]), the index is named
    /// by every page of a query on the model's table alone, and left out of a joined query's
    /// page (which then keeps the backend's default form). `force_index(name)` overrides the
    /// declared index for one page; `force_index(None)` leaves any hint out.
    ///
    /// # Errors
    /// None of its own: the database refuses the statement when the index does not exist
    /// (MySQL/MariaDB error 1176, `Key .. doesn't exist in table`; SQLite `no such index`) or,
    /// on SQLite, when the query cannot use it (`no query solution`), as a Diesel
    /// `DatabaseError`. The page is never read through another index instead.
    ///
    /// ```
    /// # include!("doctest_setup.rs");
    /// # fn main() -> QueryResult<()> {
    /// # let conn = &mut setup();
    /// diesel::sql_query(
    ///     "CREATE INDEX events_feed ON events (workspace_id, occurred_at, event_id)",
    /// )
    /// .execute(conn)?;
    /// let first: Page<Event> = events::table
    ///     .filter(events::workspace_id.eq("W9"))
    ///     .select(Event::as_select())
    ///     .paginate_after(None)
    ///     .page_size(4)
    ///     .force_index("events_feed")
    ///     .load_page(conn)?;
    /// let next: Page<Event> = events::table
    ///     .filter(events::workspace_id.eq("W9"))
    ///     .select(Event::as_select())
    ///     .paginate_after(first.next_cursor)
    ///     .page_size(4)
    ///     .force_index("events_feed")
    ///     .load_page(conn)?;
    /// let ids: Vec<&str> = next.items.iter().map(|e| e.event_id.as_str()).collect();
    /// assert_eq!(ids, ["e105", "e106"]);
    /// // An index that does not exist: the database refuses the statement.
    /// let missing = events::table
    ///     .select(Event::as_select())
    ///     .paginate_after(None)
    ///     .force_index("no_such_index")
    ///     .load_page(conn);
    /// assert!(matches!(missing, Err(diesel::result::Error::DatabaseError(..))));
    /// # Ok(())
    /// # }
    /// ```
    pub fn force_index(mut self, index: impl Into<Option<&'static str>>) -> Self {
        self.index = match index.into() {
            Some(name) => IndexHint::Named(name),
            None => IndexHint::Off,
        };
        self
    }

    /// The index the page names: the one [`Paginated::force_index`] gave, else the keyset's
    /// declared [`Keyset::INDEX`] when the query reads the keyset's table alone.
    fn index(&self) -> Option<&'static str>
    where
        Q: PageSource<K>,
    {
        match self.index {
            IndexHint::Named(name) => Some(name),
            IndexHint::Off => None,
            IndexHint::Declared => self.declared_index(),
        }
    }

    /// The keyset's declared [`Keyset::INDEX`] when the query reads the keyset's table alone:
    /// the index a page names by default.
    fn declared_index(&self) -> Option<&'static str>
    where
        Q: PageSource<K>,
    {
        K::INDEX.filter(|_| self.query.reads_keyset_table_alone())
    }

    /// Write a later page as a union of one seek per key level, each with its own `ORDER BY`
    /// and `LIMIT page_size + 1`, merged by an outer `ORDER BY ... LIMIT`. For `score DESC, id ASC` after `(s, i)`: `score < s` and
    /// `score = s AND id > i`. Every branch is an index range that starts at the cursor, so
    /// a cursor deep inside a long run of rows sharing the leading value costs no more than
    /// any other page; the single seek (default) reads that run from its start to the
    /// cursor and filters it. Pages are identical either way. The union costs more per page
    /// when runs of ties are short: use it for keysets whose leading columns can tie in the
    /// thousands (bulk imports stamped with one timestamp, coarse scores) on PostgreSQL and
    /// SQLite. Not on MySQL/MariaDB: its range optimizer already seeks the expanded `OR` from
    /// the cursor, and the union measured slower there (docs/PERFORMANCE.md). A keyset in one
    /// direction is already one range on PostgreSQL and SQLite (a row value) and is left as
    /// it is; a nullable leading column whose NULL group lies beyond the cursor keeps its own
    /// two-arm split. Default: off.
    pub fn seek_per_level(mut self, per_level: bool) -> Self {
        self.per_level = per_level;
        self
    }

    /// Write the seek predicate in the factored expanded form with its redundant leading
    /// bound on every backend, never as a row-value comparison: for `at ASC, id ASC` after
    /// `(a, i)`, `at >= a AND (at > a OR (at = a AND id > i))` instead of PostgreSQL's and
    /// SQLite's `(at, id) > (a, i)`. Pages are identical either way; the [`Paginated::until`]
    /// bound is written the same way. Default: off (the backend's form, crate docs "The
    /// SQL"); on MySQL/MariaDB, which always gets the expanded form, it changes nothing.
    ///
    /// Turn it on where something between you and the index reads only plain comparisons:
    ///
    /// * **Foreign tables** (PostgreSQL's `postgres_fdw`, and a table partitioned across
    ///   servers, whose partitions are foreign tables): `postgres_fdw` sends a remote server
    ///   only the conditions it can deparse, and a row-value comparison is not one of them.
    ///   The row value then runs as a local filter after each remote has sent every row from
    ///   the start of your filter's range, so a page at depth *d* transfers *d* rows. The
    ///   expanded form ships whole (with the `ORDER BY`), each remote starts its index range at
    ///   the cursor, and no remote sends a row before the cursor (with `fetch_size` = page
    ///   size + 1, one batch per remote per page while more than a page follows;
    ///   docs/SQL.md "Foreign tables and shards").
    /// * **Partitioned tables with many partitions** (PostgreSQL): the planner prunes
    ///   partitions on the leading bound (`at >= a`), not on a row value, so the partitions
    ///   before the cursor are not even opened.
    ///
    /// On a local table a row value is one index range; the expanded form starts the range at
    /// the cursor's leading value and filters the rows that tie with it before the cursor, so
    /// keep the default there. [`plan::explain`](crate::plan) reports a foreign scan whose
    /// seek stayed local as not a seek, and names this option.
    ///
    /// ```
    /// # include!("doctest_setup.rs");
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let after = Cursor::<Event>::after((
    ///     chrono::NaiveDateTime::parse_from_str("2026-10-10 12:00:01", "%F %T")?,
    ///     "e101".to_string(),
    /// ));
    /// let page = events::table
    ///     .filter(events::workspace_id.eq("W9"))
    ///     .select(Event::as_select())
    ///     .paginate_after(Some(after))
    ///     .expanded_seek(true)
    ///     .into_query::<diesel::sqlite::Sqlite>()?;
    /// let sql = diesel::debug_query::<diesel::sqlite::Sqlite, _>(&page).to_string();
    /// assert!(sql.contains(
    ///     "`events`.`occurred_at` >= ? AND (`events`.`occurred_at` > ? OR \
    ///      (`events`.`occurred_at` = ? AND `events`.`event_id` > ?))"
    /// ), "{sql}");
    /// # Ok(())
    /// # }
    /// ```
    pub fn expanded_seek(mut self, expanded: bool) -> Self {
        self.expanded = expanded;
        self
    }

    /// Bound the window on its far side too (Relay's `after` and `before` together): the page
    /// holds only rows strictly before `until`'s key in the walk's direction. Walking forward
    /// (`paginate_after(after).until(before)`, Relay's `first`), the rows after `after` and
    /// before `before`, from the `after` end; walking backward
    /// (`paginate_before(before).until(after)`, Relay's `last`), the same window from the
    /// `before` end. Only the bound's key is used (its direction is the page's); `None`
    /// leaves the window open, as without the call.
    ///
    /// `has_more` (the flag in the walk's direction) and `next_cursor` count only the rows
    /// inside the window: the last page of a window says `has_more == false` even when rows
    /// follow beyond the bound. The flag of the other direction is unchanged (the rows on the
    /// cursor's side; exact with [`Paginated::exact_flags`]), and so is
    /// [`Paginated::with_total_count`] (your query's rows, not the window's). A window whose
    /// bounds cross (`after 8, until 3`) or meet (`after 5, until 5`) is empty, not an error.
    ///
    /// SQL: one more condition next to the seek, `AND (<bound>)`, where `<bound>` is the seek
    /// predicate of the reversed walk from the bound's key, written whole in one condition
    /// (the NULL group of a nullable leading column included; [`SeekPredicate::new`]). It
    /// does not change where the page's index range starts; the bound ends it.
    ///
    /// # Errors
    /// [`KeysetError::InvalidCursorKey`] (from `load_page`, before any SQL) when the bound's
    /// key holds a NaN.
    ///
    /// ```
    /// # include!("doctest_setup.rs");
    /// # fn main() -> QueryResult<()> {
    /// # let conn = &mut setup();
    /// # let at = |s: &str| chrono::NaiveDateTime::parse_from_str(&format!("2026-10-10 {s}"), "%F %T").unwrap();
    /// // W9's feed is e101 .. e106. The window after e101 and before e105:
    /// let after = Cursor::after((at("12:00:01"), "e101".to_string()));
    /// let before = Cursor::before((at("12:00:03"), "e105".to_string()));
    /// let first_two: Page<Event> = events::table
    ///     .filter(events::workspace_id.eq("W9"))
    ///     .select(Event::as_select())
    ///     .paginate_after(Some(after.clone()))
    ///     .until(Some(before.clone()))
    ///     .page_size(2)
    ///     .load_page(conn)?;
    /// assert_eq!(first_two.items.iter().map(|e| e.event_id.as_str()).collect::<Vec<_>>(), ["e102", "e103"]);
    /// assert!(first_two.has_next_page); // e104 is in the window
    /// let last_two: Page<Event> = events::table
    ///     .filter(events::workspace_id.eq("W9"))
    ///     .select(Event::as_select())
    ///     .paginate_before(Some(before))
    ///     .until(Some(after))
    ///     .page_size(2)
    ///     .load_page(conn)?;
    /// assert_eq!(last_two.items.iter().map(|e| e.event_id.as_str()).collect::<Vec<_>>(), ["e103", "e104"]);
    /// assert!(last_two.has_previous_page); // e102 is in the window
    /// # Ok(())
    /// # }
    /// ```
    pub fn until(mut self, until: Option<Cursor<K>>) -> Self {
        self.until = until.map(|c| c.key);
        self
    }

    /// Whether the page starts at a cursor (a later page, with a seek predicate).
    #[cfg_attr(not(feature = "plan-check"), allow(dead_code))]
    pub(crate) fn has_cursor(&self) -> bool {
        self.cursor.is_some()
    }

    /// The SQL query this page runs on backend `DB` (the deferred-join default depends on the
    /// backend), for `diesel::debug_query` or `EXPLAIN`. It is not itself loadable: use
    /// [`Paginated::load_page`].
    ///
    /// # Errors
    /// [`KeysetError::InvalidPageSize`] for a page size of 0;
    /// [`KeysetError::InvalidCursorKey`] for a cursor (or an [`until`](Paginated::until) bound) holding a NaN; for a boxed query,
    /// [`KeysetError::AlreadyOrdered`] / [`KeysetError::AlreadyLimited`] when it already has
    /// `ORDER BY`, `LIMIT` or `OFFSET`, [`KeysetError::DistinctOn`] when it has `DISTINCT ON`.
    pub fn into_query<DB: KeysetBackend>(self) -> Result<PageQuery<Q, K>, KeysetError>
    where
        Q: PageSource<K>,
    {
        Ok(self.build_for::<DB>()?.0)
    }

    /// The page statement on backend `DB` and the shape to assemble its rows with: what
    /// [`Paginated::into_query`] gives and what every `load_page` (blocking or async) runs.
    ///
    /// The shape says whether the page is one of the [`StaticShape`]s, whose SQL its types fix
    /// (the default form of the page, whose index and deferred join are what the keyset and
    /// the backend choose; no `until`, total count, `seek_per_level` or `expanded_seek` that
    /// changes the text; one statement; a cursor
    /// without NULLs): such a page loads with a static query id.
    fn build_for<DB: KeysetBackend>(self) -> Result<(PageQuery<Q, K>, Shape<K>), KeysetError>
    where
        Q: PageSource<K>,
    {
        let index = self.index();
        let deferred = self
            .deferred
            .unwrap_or(DB::DEFERRED_JOIN && index.is_none());
        let declared = self.declared_index();
        let default_form =
            index == declared && deferred == (DB::DEFERRED_JOIN && declared.is_none());
        let mut dialect = keyset_dialect::<DB, K>();
        // `expanded_seek` on a later page of a backend that would write a row value: another
        // text.
        let expands = self.expanded
            && self.cursor.is_some()
            && sql::writes_row_value(&sql::terms(K::COLUMNS, self.walk), dialect);
        dialect.row_values &= !self.expanded;
        let fixed_text = default_form
            && self.until.is_none()
            && !self.total
            && !self.per_level
            && !expands
            && self.cursor.as_ref().is_none_or(seek_text_is_fixed::<K>);
        let (query, mut shape) = self.build(deferred, index, dialect, DB::KIND)?;
        if fixed_text && matches!(query, PageQuery::Statement(_)) {
            shape.fixed = Some(StaticShape::new(shape.had_cursor, shape.walk));
        }
        Ok((query, shape))
    }

    /// Decides the page's shape, once: the first page, one statement after the cursor
    /// (direct or deferred join), or a union of the seek's planned arms and the probe.
    fn build(
        self,
        deferred: bool,
        index: Option<&'static str>,
        dialect: Dialect,
        backend: BackendKind,
    ) -> Result<(PageQuery<Q, K>, Shape<K>), KeysetError>
    where
        Q: PageSource<K>,
    {
        if self.page_size == 0 {
            return Err(KeysetError::InvalidPageSize(0));
        }
        self.query.check_clauses()?;
        // u32 + 1 always fits in i64.
        let limit = i64::from(self.page_size) + 1;
        let order = KeysetOrder::new(self.walk);
        let shape = Shape {
            walk: self.walk,
            page_size: self.page_size,
            had_cursor: self.cursor.is_some(),
            probed: self.exact && self.cursor.is_some(),
            budget: self.budget,
            total: self.total,
            fixed: None,
        };
        let check = |key: &K::Key| {
            key.check_key()
                .and_then(|()| key.check_bind(backend))
                .map_err(|(index, e)| KeysetError::InvalidCursorKey {
                    column: column_name::<K>(index),
                    reason: e.0,
                })
        };
        if let Some(bound) = &self.until {
            check(bound)?;
        }
        // The far end: the rows strictly after the bound, walking the other way.
        let until = self
            .until
            .map(|bound| SeekPredicate::new(bound, self.walk.reversed()).expanded(self.expanded));
        let Some(key) = self.cursor else {
            let first = PageStatement::new(self.query, None, order, limit, false, self.total)
                .until(until)
                .index(index);
            return Ok((PageQuery::Statement(first), shape));
        };
        check(&key)?;
        let seek = SeekPredicate::planned(key, self.walk, dialect, self.per_level);
        // A later page with the total count is a union: its count row carries the count
        // even when the page after the cursor is empty.
        let query = if seek.arms() > 1 || shape.probed || self.total {
            PageQuery::Union(
                UnionPage::new(
                    self.query,
                    seek,
                    order,
                    shape.probed,
                    deferred,
                    limit,
                    self.total,
                )
                .until(until)
                .index(index),
            )
        } else {
            PageQuery::Statement(
                PageStatement::new(self.query, Some(seek), order, limit, deferred, false)
                    .until(until)
                    .index(index),
            )
        };
        Ok((query, shape))
    }
}

impl<Q, K: Keyset> Paginated<Q, K> {
    /// Runs the page: exactly one SQL statement.
    ///
    /// # Errors
    /// Diesel's errors from running the query; the [`KeysetError`]s of
    /// [`Paginated::into_query`] inside `Error::QueryBuilderError` (before any SQL runs); and
    /// inside `Error::DeserializationError` the page check's errors, when the rows read
    /// cannot make a correct page: [`KeysetError::TieBreakerNotUnique`],
    /// [`KeysetError::CursorRowReturned`], [`KeysetError::KeyOutOfOrder`],
    /// [`KeysetError::InvalidRowKey`].
    /// [`KeysetError::from_diesel`] reads either.
    pub fn load_page<'query, Conn>(self, conn: &mut Conn) -> QueryResult<Page<K>>
    where
        Q: LoadPage<'query, Conn, K>,
    {
        Q::load_paginated(self, conn)
    }
}

/// A query whose keyset pages of `K` load on connection `Conn`: the one bound a function
/// generic over queries, keysets or connections needs to call
/// [`paginate_after`](PaginateDsl::paginate_after) (or `paginate_before`, `paginate`) and
/// [`Paginated::load_page`]. Implemented for every Diesel select query (boxed or not) that
/// can be paginated by `K` (a `'static` model type: it is part of a page's statement cache key)
/// on `Conn`'s backend; `'query` is Diesel's
/// [`LoadQuery`] lifetime.
///
/// ```
/// # include!("doctest_setup.rs");
/// use keyset_diesel::LoadPage;
///
/// /// The first page of any query, any keyset, any connection.
/// fn first_page<'q, Q, K, Conn>(query: Q, conn: &mut Conn) -> QueryResult<Page<K>>
/// where
///     K: Keyset,
///     Q: LoadPage<'q, Conn, K>,
/// {
///     query.paginate_after(None).page_size(2).load_page(conn)
/// }
///
/// # fn main() -> QueryResult<()> {
/// # let conn = &mut setup();
/// let page: Page<Event> = first_page(events::table.select(Event::as_select()), conn)?;
/// assert_eq!(page.items.len(), 2);
/// # Ok(())
/// # }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot load keyset pages of `{K}` on `{Conn}`",
    label = "not a select query that `{K}`'s keyset can page on this connection",
    note = "paginate a Diesel select query (boxed or not) without ORDER BY, LIMIT or OFFSET, that reads `{K}`'s table and loads `{K}` (e.g. `.select({K}::as_select())`), on a PostgreSQL, SQLite or MySQL connection enabled by this crate's features"
)]
pub trait LoadPage<'query, Conn, K: Keyset>: PaginateDsl + PageSource<K> {
    /// Builds and runs the page (what [`Paginated::load_page`] calls).
    ///
    /// # Errors
    /// As [`Paginated::load_page`].
    #[doc(hidden)]
    fn load_paginated(paginated: Paginated<Self, K>, conn: &mut Conn) -> QueryResult<Page<K>>;
}

impl<'query, Conn, K, Q> LoadPage<'query, Conn, K> for Q
where
    Conn: Connection,
    Conn::Backend: KeysetBackend,
    K: KeysetSql<Conn::Backend>,
    Q: PaginateDsl + PageSource<K>,
    PageStatement<Q, K>: LoadQuery<'query, Conn, K>,
    StaticPage<PageStatement<Q, K>, FIRST_FORWARD>: LoadQuery<'query, Conn, K>,
    StaticPage<PageStatement<Q, K>, FIRST_BACKWARD>: LoadQuery<'query, Conn, K>,
    StaticPage<PageStatement<Q, K>, AFTER_FORWARD>: LoadQuery<'query, Conn, K>,
    StaticPage<PageStatement<Q, K>, AFTER_BACKWARD>: LoadQuery<'query, Conn, K>,
    UnionPage<Q, K>: LoadQuery<'query, Conn, (K, K::Key, i32)>,
    Counted<PageStatement<Q, K>>: LoadQuery<'query, Conn, (K, i64)>,
    Counted<UnionPage<Q, K>>: LoadQuery<'query, Conn, (K, K::Key, i32, i64)>,
{
    fn load_paginated(paginated: Paginated<Q, K>, conn: &mut Conn) -> QueryResult<Page<K>> {
        let cursor = paginated.cursor.clone();
        let (query, shape) = paginated.build_for::<Conn::Backend>()?;
        let loaded = match (query, shape.total) {
            (PageQuery::Statement(q), false) => Loaded::Rows(match shape.fixed {
                None => q.load(conn)?,
                Some(StaticShape::FirstForward) => StaticPage::<_, FIRST_FORWARD>(q).load(conn)?,
                Some(StaticShape::FirstBackward) => {
                    StaticPage::<_, FIRST_BACKWARD>(q).load(conn)?
                }
                Some(StaticShape::AfterForward) => StaticPage::<_, AFTER_FORWARD>(q).load(conn)?,
                Some(StaticShape::AfterBackward) => {
                    StaticPage::<_, AFTER_BACKWARD>(q).load(conn)?
                }
            }),
            (PageQuery::Statement(q), true) => Loaded::CountedRows(Counted(q).load(conn)?),
            (PageQuery::Union(q), false) => Loaded::Union(q.load(conn)?),
            (PageQuery::Union(q), true) => Loaded::CountedUnion(Counted(q).load(conn)?),
        };
        Ok(loaded.into_page(shape, cursor.as_ref())?)
    }
}

/// The rows a page statement loaded, by its shape ([`PageQuery`], with or without the total
/// count): what the blocking and the async `load_page` hand to [`assemble`].
enum Loaded<K: Keyset> {
    Rows(Vec<K>),
    CountedRows(Vec<(K, i64)>),
    Union(Vec<(K, K::Key, i32)>),
    CountedUnion(Vec<(K, K::Key, i32, i64)>),
}

impl<K: Keyset> Loaded<K> {
    /// The page: the page rows split from the probe and count rows, then [`assemble`]d.
    fn into_page(self, shape: Shape<K>, cursor: Option<&K::Key>) -> Result<Page<K>, KeysetError> {
        let (rows, probe, total) = match self {
            Loaded::Rows(rows) => (rows, None, None),
            // The first page (or a later one written as one statement): every row carries the
            // count; no row, no rows in the query (a first page reads from its start).
            Loaded::CountedRows(rows) => {
                let total = rows.first().map_or(0, |(_, n)| *n);
                (
                    rows.into_iter().map(|(row, _)| row).collect(),
                    None,
                    Some(total),
                )
            }
            Loaded::Union(rows) => {
                let (rows, probe, _) = split_union(rows.into_iter().map(|(r, _, a)| (r, a, 0)));
                (rows, shape.probed.then_some(probe), None)
            }
            Loaded::CountedUnion(rows) => {
                let (rows, probe, total) =
                    split_union(rows.into_iter().map(|(r, _, a, n)| (r, a, n)));
                (rows, shape.probed.then_some(probe), Some(total))
            }
        };
        assemble(rows, probe, total, shape, cursor)
    }
}

/// A union page's `(row, arm, total)` rows: the page rows, whether the probe found a row, and
/// the count row's total (0 without a count row: the query has no rows).
fn split_union<K>(loaded: impl Iterator<Item = (K, i32, i64)>) -> (Vec<K>, bool, i64) {
    let mut found = false;
    let mut total = 0;
    let mut rows = Vec::new();
    for (row, arm, n) in loaded {
        match arm {
            BranchRow::PROBE => found = true,
            BranchRow::COUNT => total = n,
            _ => rows.push(row),
        }
    }
    (rows, found, total)
}

/// What the page query was, for assembling the page.
struct Shape<K> {
    walk: Direction,
    page_size: u32,
    had_cursor: bool,
    probed: bool,
    /// The byte budget, if any ([`Paginated::max_bytes`]).
    budget: Option<ByteBudget<K>>,
    /// The total count was asked for ([`Paginated::with_total_count`]).
    total: bool,
    /// The page is one statement of this shape, whose SQL its types fix: it loads as a
    /// [`StaticPage`] ([`Paginated::build_for`]).
    fixed: Option<StaticShape>,
}

/// Cuts the `LIMIT n + 1` result (in walk order) into a page: the look-ahead row is dropped,
/// never returned (docs/CASES.md C03); a backward page is reversed into display order;
/// flags and cursors follow the Relay connection spec's words (see [`Page`]). First the page
/// check (`detect.rs`): the rows against each other and the first against the request's
/// `cursor`. A byte budget cuts the page further, in walk order (the rows nearest the cursor
/// stay), and a cut page has more in the walk's direction: at least the row it left out.
fn assemble<K: Keyset>(
    mut items: Vec<K>,
    probe: Option<bool>,
    total_count: Option<i64>,
    shape: Shape<K>,
    cursor: Option<&K::Key>,
) -> Result<Page<K>, KeysetError> {
    check_rows(&items, cursor, shape.walk)?;
    let mut keep = usize::try_from(shape.page_size).unwrap_or(usize::MAX);
    if let Some(budget) = &shape.budget {
        let upto = keep.min(items.len());
        keep = budget.rows_within(&items[..upto]);
    }
    let more_in_walk = items.len() > keep;
    items.truncate(keep);
    // The other side: exact with a probe; otherwise "there was a cursor" (its row was
    // delivered before). The first page (no cursor) has nothing on the other side.
    let other_side = probe.unwrap_or(shape.had_cursor);
    let (has_previous_page, has_next_page) = match shape.walk {
        Direction::Forward => (other_side, more_in_walk),
        Direction::Backward => {
            items.reverse();
            (more_in_walk, other_side)
        }
    };
    // Relay (C29): a page with rows has both cursors, whatever the flags say; they are the
    // resume positions of a live list. No edges, no cursors. (A cursor made from the
    // request's key would be off by one: the page before an empty page ends *at* the
    // request's row, which `before` excludes.)
    let start_cursor = items.first().map(|row| Cursor::before(row.key()));
    let end_cursor = items.last().map(|row| Cursor::after(row.key()));
    // The walk's continuation: only while there is more (`None` ends the walk).
    let (has_more, next_cursor) = match shape.walk {
        Direction::Forward => (has_next_page, end_cursor.clone()),
        Direction::Backward => (has_previous_page, start_cursor.clone()),
    };
    let next_cursor = next_cursor.filter(|_| has_more);
    Ok(Page {
        items,
        has_more,
        next_cursor,
        page_size: shape.page_size,
        direction: shape.walk,
        has_previous_page,
        has_next_page,
        start_cursor,
        end_cursor,
        total_count,
    })
}

/// A select query a keyset page of `K` can be built on: Diesel's `SelectStatement` without
/// `ORDER BY`, `LIMIT` or `OFFSET` whose `FROM` reads `K`'s table once (checked by the
/// compiler, each rule with its own message), and boxed select statements (the table checked
/// by the compiler; the clauses when the page is built: [`KeysetError::AlreadyOrdered`],
/// [`KeysetError::AlreadyLimited`], [`KeysetError::DistinctOn`]). A query with PostgreSQL's
/// `DISTINCT ON` is refused (at compile time unboxed), since the seek would re-admit the rest
/// of the cursor's group (docs/CASES.md C33). The page statement is written from the query's parts
/// ([`SelectParts`](crate::query::SelectParts)).
pub trait PageSource<K: Keyset>: Sized {
    /// Refuses clauses the type system cannot see (boxed queries).
    ///
    /// # Errors
    /// See the implementors.
    fn check_clauses(&self) -> Result<(), KeysetError> {
        Ok(())
    }

    /// Whether the query's `FROM` is the keyset's table alone (no join, no alias): only then
    /// does a page name the keyset's declared [`Keyset::INDEX`].
    fn reads_keyset_table_alone(&self) -> bool {
        false
    }
}

/// Whether `source` is `T` itself. The names of two types are equal when the types are (a
/// table's name is its path; a join's names the join and every table in it, so it never
/// equals a table's), which needs no `'static` bound as `TypeId` would.
fn same_source<Source, T>() -> bool {
    std::any::type_name::<Source>() == std::any::type_name::<T>()
}

/// The query checks are bounds of this impl, each a marker trait of `checks.rs` whose message
/// names the fix: no `ORDER BY`, `LIMIT` or `OFFSET` yet, and the keyset's table in `FROM`.
impl<K, F, S, D, W, O, L, Of, G, H, LC> PageSource<K>
    for SelectStatement<FromClause<F>, S, D, W, O, LimitOffsetClause<L, Of>, G, H, LC>
where
    K: Keyset,
    F: QuerySource + AppearsInFromClause<K::Table>,
    F::Count: KeysetTableInQuery<K, K::Table, F>,
    D: NoDistinctOn,
    O: NoOrderByYet,
    L: NoLimitYet,
    Of: NoOffsetYet,
{
    fn reads_keyset_table_alone(&self) -> bool {
        same_source::<F, K::Table>()
    }
}

/// Boxed queries erase their clauses from the type, so the rule is checked at run time: a
/// boxed query that already has `ORDER BY`, `LIMIT` or `OFFSET`, or has `DISTINCT ON`, is
/// refused with a [`KeysetError`] before any SQL runs.
impl<'a, K, ST, QS, DB, GB> PageSource<K> for BoxedSelectStatement<'a, ST, FromClause<QS>, DB, GB>
where
    K: Keyset,
    QS: QuerySource + AppearsInFromClause<K::Table>,
    QS::Count: KeysetTableInQuery<K, K::Table, QS>,
    DB: Backend + Default,
    DB::QueryBuilder: Default,
{
    fn reads_keyset_table_alone(&self) -> bool {
        same_source::<QS, K::Table>()
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
        // The distinct clause is boxed too: its SQL tells `DISTINCT ON (..)` (PostgreSQL's
        // only spelling of it) from plain `DISTINCT` and nothing.
        let mut distinct = DB::QueryBuilder::default();
        if self.distinct.to_sql(&mut distinct, &backend).is_ok()
            && distinct.finish().trim_start().starts_with("DISTINCT ON")
        {
            return Err(KeysetError::DistinctOn);
        }
        Ok(())
    }
}

/// The SQL of one page, as [`Paginated::into_query`] gives it: for `diesel::debug_query` and
/// `EXPLAIN`. Load pages with [`Paginated::load_page`].
#[derive(Debug)]
pub enum PageQuery<Q, K: Keyset> {
    /// One statement: the first page (`ORDER BY` + `LIMIT`), or a later page (seek predicate
    /// + `ORDER BY` + `LIMIT`, directly or as a deferred join).
    Statement(PageStatement<Q, K>),
    /// A later page whose seek needs a union (a leading nullable column with its NULL group on
    /// the far side of the cursor, or one seek per key level) or carries a probe (exact
    /// flags): see [`UnionPage`](crate::query::UnionPage).
    Union(UnionPage<Q, K>),
}

impl<Q, K: Keyset> QueryId for PageQuery<Q, K> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<Q, K: Keyset, DB> QueryFragment<DB> for PageQuery<Q, K>
where
    DB: Backend,
    PageStatement<Q, K>: QueryFragment<DB>,
    UnionPage<Q, K>: QueryFragment<DB>,
{
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        match self {
            PageQuery::Statement(q) => q.walk_ast(out),
            PageQuery::Union(q) => q.walk_ast(out),
        }
    }
}

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

    fn forward(page_size: u32, had_cursor: bool) -> Shape<Row> {
        Shape {
            walk: Direction::Forward,
            page_size,
            had_cursor,
            probed: false,
            budget: None,
            total: false,
            fixed: None,
        }
    }

    fn page_from_rows(rows: Vec<Row>, page_size: u32) -> Page<Row> {
        assemble(rows, None, None, forward(page_size, false), None).expect("rows in keyset order")
    }

    diesel::table! { pairs (id) { id -> BigInt, score -> Integer } }

    /// `score DESC, id ASC`: two key levels.
    #[derive(Debug, Clone, PartialEq)]
    struct Pair(i32, i64);

    impl Keyset for Pair {
        type Table = pairs::table;
        type Columns = (pairs::score, pairs::id);
        type Key = (i32, i64);
        const COLUMNS: &'static [KeyColumn] = &[
            KeyColumn {
                name: "score",
                field: "0",
                direction: SortDirection::Desc,
                nulls: None,
            },
            KeyColumn {
                name: "id",
                field: "1",
                direction: SortDirection::Asc,
                nulls: None,
            },
        ];
        const TABLE_NAME: &'static str = "pairs";
        fn key(&self) -> (i32, i64) {
            (self.0, self.1)
        }
    }

    const ROW_VALUES: Dialect = Dialect {
        row_values: true,
        nulls_order_syntax: true,
    };

    /// The page query `paginated` builds: one statement or a union, its `Debug` text, and
    /// whether the other side is probed.
    fn built<K, Q>(paginated: Paginated<Q, K>) -> (&'static str, String, bool)
    where
        K: Keyset + fmt::Debug,
        Q: PageSource<K> + fmt::Debug,
    {
        let (query, shape) = paginated
            .build(false, None, ROW_VALUES, BackendKind::Postgres)
            .expect("a page query");
        let kind = match &query {
            PageQuery::Statement(_) => "statement",
            PageQuery::Union(_) => "union",
        };
        (kind, format!("{query:?}"), shape.probed)
    }

    #[test]
    fn build_picks_one_statement_unless_the_page_needs_a_union() {
        use diesel::QueryDsl;
        let rows = || rows::table.select(rows::id);
        let after = || Some(Cursor::<Row>::after((3,)));
        // Page size 0 is refused before anything is built; 1 is a page.
        assert!(matches!(
            rows().paginate_after(after()).page_size(0).build(
                false,
                None,
                ROW_VALUES,
                BackendKind::Postgres
            ),
            Err(KeysetError::InvalidPageSize(0))
        ));
        assert!(rows()
            .paginate_after(after())
            .page_size(1)
            .build(false, None, ROW_VALUES, BackendKind::Postgres)
            .is_ok());
        // A later page: one statement, `LIMIT page_size + 1`.
        let (kind, text, probed) = built(rows().paginate_after(after()).page_size(3));
        assert_eq!((kind, probed), ("statement", false));
        assert!(text.contains("limit: 4"), "{text}");
        // Exact flags probe only when there is a cursor (a first page has no other side).
        let (kind, _, probed) = built(rows().paginate_after::<Row>(None).exact_flags(true));
        assert_eq!((kind, probed), ("statement", false));
        let (kind, _, probed) = built(rows().paginate_after(after()).exact_flags(true));
        assert_eq!((kind, probed), ("union", true));
        // The total count on a later page is a union (its count row).
        let (kind, text, _) = built(rows().paginate_after(after()).with_total_count());
        assert_eq!(kind, "union", "{text}");
        assert!(text.contains("count: true"), "{text}");
        // A seek of one arm is one statement; per level, two levels are two arms.
        let pairs = || pairs::table.select(pairs::id);
        let pair = || Some(Cursor::<Pair>::after((5, 3)));
        assert_eq!(built(pairs().paginate_after(pair())).0, "statement");
        assert_eq!(
            built(pairs().paginate_after(pair()).seek_per_level(true)).0,
            "union"
        );
    }

    diesel::table! { maybes (id) { id -> BigInt, m -> Nullable<Integer> } }

    /// `m ASC NULLS LAST, id ASC` with its index declared: a nullable key column.
    #[derive(Debug, Clone, PartialEq)]
    struct Maybe(Option<i32>, i64);

    impl Keyset for Maybe {
        type Table = maybes::table;
        type Columns = (maybes::m, maybes::id);
        type Key = (Option<i32>, i64);
        const COLUMNS: &'static [KeyColumn] = &[
            KeyColumn {
                name: "m",
                field: "0",
                direction: SortDirection::Asc,
                nulls: Some(crate::keyset::NullsOrder::Last),
            },
            KeyColumn {
                name: "id",
                field: "1",
                direction: SortDirection::Asc,
                nulls: None,
            },
        ];
        const TABLE_NAME: &'static str = "maybes";
        const INDEX: Option<&'static str> = Some("maybes_m_id");
        fn key(&self) -> (Option<i32>, i64) {
            (self.0, self.1)
        }
    }

    diesel::table! { mids (id) { id -> BigInt, a -> Integer, m -> Nullable<Integer> } }

    /// `a ASC, m ASC NULLS FIRST, id ASC`: a nullable column after the leading one.
    #[derive(Debug, Clone, PartialEq)]
    struct Mid(i32, Option<i32>, i64);

    impl Keyset for Mid {
        type Table = mids::table;
        type Columns = (mids::a, mids::m, mids::id);
        type Key = (i32, Option<i32>, i64);
        const COLUMNS: &'static [KeyColumn] = &[
            KeyColumn {
                name: "a",
                field: "0",
                direction: SortDirection::Asc,
                nulls: None,
            },
            KeyColumn {
                name: "m",
                field: "1",
                direction: SortDirection::Asc,
                nulls: Some(crate::keyset::NullsOrder::First),
            },
            KeyColumn {
                name: "id",
                field: "2",
                direction: SortDirection::Asc,
                nulls: None,
            },
        ];
        const TABLE_NAME: &'static str = "mids";
        fn key(&self) -> (i32, Option<i32>, i64) {
            (self.0, self.1, self.2)
        }
    }

    /// The static shape `build_for::<DB>` gives the page, if any.
    #[cfg(any(feature = "sqlite", feature = "mysql"))]
    fn fixed<DB, K, Q>(paginated: Paginated<Q, K>) -> Option<StaticShape>
    where
        DB: KeysetBackend,
        K: Keyset,
        Q: PageSource<K>,
    {
        paginated.build_for::<DB>().expect("a page query").1.fixed
    }

    #[cfg(feature = "sqlite")]
    #[test]
    fn pages_in_the_default_form_have_a_static_shape_and_every_other_page_none() {
        use diesel::sqlite::Sqlite;
        use diesel::QueryDsl;
        let rows = || rows::table.select(rows::id);
        let after = || Some(Cursor::<Row>::after((3,)));
        let shape = |p: Paginated<_, Row>| fixed::<Sqlite, Row, _>(p);
        // The four shapes: first and later pages, either way.
        assert_eq!(
            shape(rows().paginate_after(None).page_size(7)),
            Some(StaticShape::FirstForward)
        );
        assert_eq!(
            shape(rows().paginate_before(None)),
            Some(StaticShape::FirstBackward)
        );
        assert_eq!(
            shape(rows().paginate_after(after()).exact_flags(false)),
            Some(StaticShape::AfterForward)
        );
        assert_eq!(
            shape(rows().paginate_before(Some(Cursor::before((3,))))),
            Some(StaticShape::AfterBackward)
        );
        // A byte budget and exact flags on a first page do not change the SQL.
        assert_eq!(
            shape(
                rows()
                    .paginate_after(None)
                    .max_bytes(10, |_| 1)
                    .exact_flags(true)
            ),
            Some(StaticShape::FirstForward)
        );
        // Options that change the SQL, or a page that is a union: no static shape.
        assert_eq!(shape(rows().paginate_after(after()).until(after())), None);
        assert_eq!(shape(rows().paginate_after(None).with_total_count()), None);
        assert_eq!(
            shape(rows().paginate_after(after()).exact_flags(true)),
            None
        );
        assert_eq!(
            shape(rows().paginate_after(after()).deferred_join(true)),
            None
        );
        assert_eq!(
            shape(rows().paginate_after(after()).force_index("ix")),
            None
        );
        let pairs = || pairs::table.select(pairs::id);
        let pair = || Some(Cursor::<Pair>::after((5, 3)));
        assert_eq!(
            fixed::<Sqlite, Pair, _>(pairs().paginate_after(pair())),
            Some(StaticShape::AfterForward)
        );
        assert_eq!(
            fixed::<Sqlite, Pair, _>(pairs().paginate_after(pair()).seek_per_level(true)),
            None
        );
        // Choosing what the default already is keeps the shape.
        assert_eq!(
            shape(
                rows()
                    .paginate_after(after())
                    .deferred_join(false)
                    .force_index(None)
            ),
            Some(StaticShape::AfterForward)
        );
        // A nullable leading column: the first page is fixed; a later page is a union around
        // the NULL group, or (NULL cursor, NULLs last) writes `IS NULL` arms.
        let maybes = || maybes::table.select(maybes::id);
        let maybe = |p: Paginated<_, Maybe>| fixed::<Sqlite, Maybe, _>(p);
        assert_eq!(
            maybe(maybes().paginate_after(None)),
            Some(StaticShape::FirstForward)
        );
        assert_eq!(
            maybe(maybes().paginate_after(Some(Cursor::after((Some(1), 2))))),
            None
        );
        assert_eq!(
            maybe(maybes().paginate_after(Some(Cursor::after((None, 2))))),
            None
        );
        // A nullable column after the first: fixed after a cursor without NULL, not after one
        // with a NULL (one bind fewer, other text).
        let mids = || mids::table.select(mids::id);
        let mid = |p: Paginated<_, Mid>| fixed::<Sqlite, Mid, _>(p);
        assert_eq!(
            mid(mids().paginate_after(Some(Cursor::after((3, Some(1), 2))))),
            Some(StaticShape::AfterForward)
        );
        assert_eq!(
            mid(mids().paginate_after(Some(Cursor::after((3, None, 2))))),
            None
        );
        assert_eq!(
            mid(mids().paginate_before(Some(Cursor::before((3, None, 2))))),
            None
        );
        // The declared index: naming it is the default; another name or none is not.
        assert_eq!(
            maybe(maybes().paginate_after(None).force_index("maybes_m_id")),
            Some(StaticShape::FirstForward)
        );
        assert_eq!(
            maybe(maybes().paginate_after(None).force_index("other")),
            None
        );
        assert_eq!(maybe(maybes().paginate_after(None).force_index(None)), None);
    }

    /// `score ASC, id ASC` on `pairs`: two key levels in one direction (a row value where the
    /// backend has one).
    #[derive(Debug, Clone, PartialEq)]
    struct Ascending(i32, i64);

    impl Keyset for Ascending {
        type Table = pairs::table;
        type Columns = (pairs::score, pairs::id);
        type Key = (i32, i64);
        const COLUMNS: &'static [KeyColumn] = &[
            KeyColumn {
                name: "score",
                field: "0",
                direction: SortDirection::Asc,
                nulls: None,
            },
            KeyColumn {
                name: "id",
                field: "1",
                direction: SortDirection::Asc,
                nulls: None,
            },
        ];
        const TABLE_NAME: &'static str = "pairs";
        fn key(&self) -> (i32, i64) {
            (self.0, self.1)
        }
    }

    #[cfg(feature = "sqlite")]
    impl crate::keyset::KeysetSql<diesel::sqlite::Sqlite> for Ascending {
        fn walk_column(
            index: usize,
            out: diesel::query_builder::AstPass<'_, '_, diesel::sqlite::Sqlite>,
        ) -> QueryResult<()> {
            use diesel::query_builder::QueryFragment;
            match index {
                0 => pairs::score.walk_ast(out),
                1 => pairs::id.walk_ast(out),
                _ => Err(crate::keyset::column_index_error(index)),
            }
        }
        fn walk_value<'b>(
            key: &'b (i32, i64),
            index: usize,
            mut out: diesel::query_builder::AstPass<'_, 'b, diesel::sqlite::Sqlite>,
        ) -> QueryResult<()> {
            match index {
                0 => out.push_bind_param::<diesel::sql_types::Integer, _>(&key.0),
                1 => out.push_bind_param::<diesel::sql_types::BigInt, _>(&key.1),
                _ => Err(crate::keyset::column_index_error(index)),
            }
        }
    }

    /// `expanded_seek(true)` writes the expanded form (with the leading bound) for the seek and
    /// the `until` bound where the backend would write a row value, and only a later page that
    /// changes text loses its static shape.
    #[cfg(feature = "sqlite")]
    #[test]
    fn expanded_seek_writes_the_expanded_form_instead_of_a_row_value() {
        use diesel::sqlite::Sqlite;
        use diesel::QueryDsl;
        let page = |expanded: bool, until: bool| {
            let p = pairs::table
                .select(pairs::id)
                .paginate_after(Some(Cursor::<Ascending>::after((5, 3))))
                .expanded_seek(expanded);
            let p = if until {
                p.until(Some(Cursor::before((9, 1))))
            } else {
                p
            };
            let q = p.into_query::<Sqlite>().expect("a page query");
            diesel::debug_query::<Sqlite, _>(&q).to_string()
        };
        let row_value = page(false, false);
        assert!(
            row_value.contains("(`pairs`.`score`, `pairs`.`id`) > (?, ?)"),
            "{row_value}"
        );
        let expanded = page(true, false);
        assert!(
            expanded.contains(
                "`pairs`.`score` >= ? AND (`pairs`.`score` > ? OR (`pairs`.`score` = ? AND `pairs`.`id` > ?))"
            ),
            "{expanded}"
        );
        assert!(!expanded.contains(") > ("), "{expanded}");
        // The far bound too: no row value left anywhere.
        let window = page(true, true);
        assert!(
            !window.contains(") > (") && !window.contains(") < ("),
            "{window}"
        );
        assert!(window.contains("`pairs`.`score` <= ?"), "{window}");

        let ascending = || pairs::table.select(pairs::id);
        let shape = |p: Paginated<_, Ascending>| fixed::<Sqlite, Ascending, _>(p);
        assert_eq!(
            shape(
                ascending()
                    .paginate_after(Some(Cursor::after((5, 3))))
                    .expanded_seek(true)
            ),
            None
        );
        assert_eq!(
            shape(ascending().paginate_after(None).expanded_seek(true)),
            Some(StaticShape::FirstForward)
        );
        // Directions that alternate are already expanded: the option changes nothing.
        let mixed = || pairs::table.select(pairs::id);
        assert_eq!(
            fixed::<Sqlite, Pair, _>(
                mixed()
                    .paginate_after(Some(Cursor::after((5, 3))))
                    .expanded_seek(true)
            ),
            Some(StaticShape::AfterForward)
        );
    }

    #[cfg(feature = "mysql")]
    #[test]
    fn on_mysql_the_deferred_join_is_the_default_form_with_a_static_shape() {
        use diesel::mysql::Mysql;
        use diesel::QueryDsl;
        let rows = || rows::table.select(rows::id);
        let after = || Some(Cursor::<Row>::after((3,)));
        let shape = |p: Paginated<_, Row>| fixed::<Mysql, Row, _>(p);
        assert_eq!(
            shape(rows().paginate_after(after())),
            Some(StaticShape::AfterForward)
        );
        assert_eq!(
            shape(rows().paginate_after(after()).deferred_join(true)),
            Some(StaticShape::AfterForward)
        );
        // The direct form, chosen or by naming an index: not the default, no static shape.
        assert_eq!(
            shape(rows().paginate_after(after()).deferred_join(false)),
            None
        );
        assert_eq!(
            shape(rows().paginate_after(after()).force_index("ix")),
            None
        );
        // A declared index: the direct form naming it is the default; the deferred join is not.
        let maybes = || maybes::table.select(maybes::id);
        let maybe = |p: Paginated<_, Maybe>| fixed::<Mysql, Maybe, _>(p);
        assert_eq!(
            maybe(maybes().paginate_after(None)),
            Some(StaticShape::FirstForward)
        );
        assert_eq!(
            maybe(maybes().paginate_after(None).deferred_join(false)),
            Some(StaticShape::FirstForward)
        );
        assert_eq!(
            maybe(maybes().paginate_after(None).deferred_join(true)),
            None
        );
    }

    #[test]
    fn a_static_page_id_names_the_query_the_keyset_and_the_shape() {
        use crate::static_id::{
            StaticPage, AFTER_BACKWARD, AFTER_FORWARD, FIRST_BACKWARD, FIRST_FORWARD,
        };
        type Rows = diesel::dsl::Select<rows::table, rows::id>;
        type Id<Q, K, const S: u8> = StaticPage<PageStatement<Q, K>, S>;
        let ids = [
            <Id<Rows, Row, FIRST_FORWARD> as QueryId>::query_id(),
            <Id<Rows, Row, FIRST_BACKWARD> as QueryId>::query_id(),
            <Id<Rows, Row, AFTER_FORWARD> as QueryId>::query_id(),
            <Id<Rows, Row, AFTER_BACKWARD> as QueryId>::query_id(),
            // The same query and shape, another keyset: another statement.
            <Id<Rows, Maybe, AFTER_FORWARD> as QueryId>::query_id(),
            // Another query.
            <Id<diesel::dsl::Filter<Rows, diesel::dsl::Eq<rows::id, i64>>, Row, AFTER_FORWARD>
                as QueryId>::query_id(),
        ];
        for (i, id) in ids.iter().enumerate() {
            assert!(id.is_some(), "{i}");
            for (j, other) in ids.iter().enumerate().skip(i + 1) {
                assert_ne!(id, other, "{i} and {j}");
            }
        }
        // A boxed query has no static id, nor has the page loaded from it.
        #[cfg(feature = "sqlite")]
        assert_eq!(
            <Id<
                rows::BoxedQuery<'static, diesel::sqlite::Sqlite, diesel::sql_types::BigInt>,
                Row,
                AFTER_FORWARD,
            > as QueryId>::query_id(),
            None
        );
    }

    #[test]
    fn a_union_splits_into_page_rows_the_probe_and_the_count() {
        let loaded = vec![
            (Row(1), 0, 0),
            (Row(9), BranchRow::PROBE, 0),
            (Row(2), 0, 0),
            (Row(0), BranchRow::COUNT, 7),
        ];
        assert_eq!(
            split_union(loaded.into_iter()),
            (vec![Row(1), Row(2)], true, 7)
        );
        let pages_only = vec![(Row(1), 0, 0), (Row(2), 0, 0)];
        assert_eq!(
            split_union(pages_only.into_iter()),
            (vec![Row(1), Row(2)], false, 0)
        );
    }

    #[cfg(feature = "sqlite")]
    #[test]
    fn boxed_queries_with_order_limit_or_offset_are_refused() {
        use diesel::sqlite::Sqlite;
        use diesel::QueryDsl;
        let boxed = || rows::table.select(rows::id).into_boxed::<Sqlite>();
        let check = |q: &rows::BoxedQuery<'_, Sqlite, diesel::sql_types::BigInt>| {
            PageSource::<Row>::check_clauses(q)
        };
        assert!(check(&boxed()).is_ok());
        assert!(
            check(&boxed().filter(diesel::dsl::sql::<diesel::sql_types::Bool>("1 = 1"))).is_ok()
        );
        assert!(matches!(
            check(&boxed().order(rows::id)),
            Err(KeysetError::AlreadyOrdered)
        ));
        assert!(matches!(
            check(&boxed().limit(3)),
            Err(KeysetError::AlreadyLimited)
        ));
        assert!(matches!(
            check(&boxed().offset(3)),
            Err(KeysetError::AlreadyLimited)
        ));
    }

    #[test]
    fn has_cursor_says_whether_a_seek_is_written() {
        use diesel::QueryDsl;
        let rows = || rows::table.select(rows::id);
        assert!(rows()
            .paginate_after(Some(Cursor::<Row>::after((3,))))
            .has_cursor());
        assert!(!rows().paginate_after::<Row>(None).has_cursor());
    }

    #[test]
    fn debug_shows_every_page_setting() {
        let paginated: Paginated<(), Row> =
            Paginated::new((), Some(Cursor::after((3,))), Direction::Backward)
                .until(Some(Cursor::before((9,))))
                .page_size(5)
                .exact_flags(true)
                .seek_per_level(true)
                .deferred_join(false)
                .max_bytes(100, |_| 1)
                .with_total_count()
                .force_index("rows_idx");
        let text = format!("{paginated:?}");
        for field in [
            "Paginated { query: ()",
            "cursor: Some((3,))",
            "until: Some((9,))",
            "walk: Backward",
            "page_size: 5",
            "exact: true",
            "deferred: Some(false)",
            "per_level: true",
            "max_bytes: Some(100)",
            "total_count: true",
            "force_index: Named(\"rows_idx\")",
        ] {
            assert!(text.contains(field), "{field} in {text}");
        }
    }

    #[test]
    fn look_ahead_row_is_dropped_and_cursor_is_last_delivered() {
        // docs/CASES.md C03: LIMIT 4 returned 4 rows for page size 3.
        let page = page_from_rows((1..=4).map(Row).collect(), 3);
        assert_eq!(page.items, vec![Row(1), Row(2), Row(3)]);
        assert!(page.has_more);
        assert_eq!(page.next_cursor.unwrap().key, (3,));
        // Exactly page_size rows: no look-ahead, so no next cursor; the end cursor (the
        // resume position, C29) is still there.
        let page = page_from_rows((4..=6).map(Row).collect(), 3);
        assert_eq!(page.items.len(), 3);
        assert!(!page.has_more && !page.has_next_page);
        assert!(page.next_cursor.is_none());
        assert_eq!(page.end_cursor, Some(Cursor::after((6,))));
        assert_eq!(page.start_cursor, Some(Cursor::before((4,))));
        // Empty: no cursors at all.
        let page = page_from_rows(Vec::<Row>::new(), 3);
        assert!(page.is_empty() && !page.has_more && page.next_cursor.is_none());
        assert!(page.start_cursor.is_none() && page.end_cursor.is_none());
    }

    /// C29 (b): read backward to the start, the page still has its start cursor ("load
    /// newer" on a newest-first list); the walk's own cursor is absent.
    #[test]
    fn c29_backward_page_at_the_start_keeps_its_start_cursor() {
        let shape = Shape {
            walk: Direction::Backward,
            ..forward(2, true)
        };
        // Walk order (backward): 2, 1; no look-ahead row.
        let page = assemble(vec![Row(2), Row(1)], None, None, shape, None).unwrap();
        assert_eq!(page.items, [Row(1), Row(2)]);
        assert!(!page.has_previous_page && page.has_next_page && !page.has_more);
        assert_eq!(page.next_cursor, None);
        assert_eq!(page.start_cursor, Some(Cursor::before((1,))));
        assert_eq!(page.end_cursor, Some(Cursor::after((2,))));
    }

    fn budgeted(max: usize, walk: Direction) -> Shape<Row> {
        Shape {
            walk,
            budget: Some(ByteBudget {
                max,
                // Row(n) weighs n bytes.
                measure: Arc::new(|r: &Row| usize::try_from(r.0).unwrap()),
            }),
            ..forward(4, true)
        }
    }

    #[test]
    fn the_byte_budget_stops_before_the_row_that_crosses_it() {
        // 1 + 2 + 3 = 6 fits, + 4 crosses 6.
        let page = assemble(
            (1..=5).map(Row).collect(),
            None,
            None,
            budgeted(6, Direction::Forward),
            None,
        )
        .unwrap();
        assert_eq!(page.items, [Row(1), Row(2), Row(3)]);
        assert!(page.has_more);
        assert_eq!(page.next_cursor, Some(Cursor::after((3,))));
        // The budget never adds rows beyond the page size; the look-ahead still decides.
        let page = assemble(
            (1..=4).map(Row).collect(),
            None,
            None,
            budgeted(100, Direction::Forward),
            None,
        )
        .unwrap();
        assert_eq!(page.items.len(), 4);
        assert!(!page.has_more && page.next_cursor.is_none());
        // The last rows fit exactly and no look-ahead row: the end.
        let page = assemble(
            vec![Row(1), Row(2)],
            None,
            None,
            budgeted(3, Direction::Forward),
            None,
        )
        .unwrap();
        assert_eq!(page.items.len(), 2);
        assert!(!page.has_more);
    }

    #[test]
    fn a_row_bigger_than_the_budget_is_delivered_alone() {
        let page = assemble(
            vec![Row(50), Row(51)],
            None,
            None,
            budgeted(10, Direction::Forward),
            None,
        )
        .unwrap();
        assert_eq!(page.items, [Row(50)]);
        assert!(page.has_more);
        assert_eq!(page.next_cursor, Some(Cursor::after((50,))));
        // The only row left, too big: delivered, and the walk ends.
        let page = assemble(
            vec![Row(50)],
            None,
            None,
            budgeted(10, Direction::Forward),
            None,
        )
        .unwrap();
        assert_eq!(page.items, [Row(50)]);
        assert!(!page.has_more && page.next_cursor.is_none());
        // A budget of 0: one row per page.
        let page = assemble(
            vec![Row(1), Row(2)],
            None,
            None,
            budgeted(0, Direction::Forward),
            None,
        )
        .unwrap();
        assert_eq!(page.items, [Row(1)]);
        assert!(page.has_more);
    }

    #[test]
    fn read_backward_the_budget_keeps_the_rows_nearest_the_cursor() {
        // Walk order 5, 4, 3, 2, 1 (before the cursor 6): 5 fits in 9, + 4 = 9, + 3 crosses.
        let page = assemble(
            (1..=5).rev().map(Row).collect(),
            None,
            None,
            budgeted(9, Direction::Backward),
            None,
        )
        .unwrap();
        assert_eq!(page.items, [Row(4), Row(5)]);
        assert!(page.has_more && page.has_previous_page);
        assert_eq!(page.next_cursor, Some(Cursor::before((4,))));
    }
}
