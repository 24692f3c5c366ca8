//! The DSL: `.paginate_after(cursor)` / `.paginate_before(cursor)` on Diesel select queries,
//! in both modes ([`PaginateDsl`] and [`Blocking`] here, the async twin and `Async` in
//! `async_.rs`), and the options of a page ([`Paginated`]; the byte budget's in `budget.rs`).
//! An option is a field and a method here; what it makes of the SQL is decided in
//! `query/shape.rs`; how a page is run, in `load/`.

use std::fmt;
use std::marker::PhantomData;

use diesel::query_builder::{BoxedSelectStatement, SelectStatement};

use crate::cursor::{Cursor, Direction};
use crate::keyset::Keyset;

#[cfg(feature = "diesel-async")]
pub(crate) mod async_;
pub(crate) mod budget;

pub(crate) use self::budget::ByteBudget;

/// The page size used when `.page_size(n)` is not called.
pub const DEFAULT_PAGE_SIZE: u32 = 20;

/// Adds keyset pagination to Diesel select queries (`SelectStatement`, boxed or not).
///
/// ```
/// # include!("../doctest_setup.rs");
/// # fn main() -> QueryResult<()> {
/// # let conn = &mut setup();
/// let feed = || events::table.filter(events::workspace_id.eq("W9")).select(Event::as_select());
/// let ids = |page: &Page<Event>| page.items.iter().map(|e| e.event_id.clone()).collect::<Vec<_>>();
///
/// let page = feed().paginate_after(None).page_size(3).load_page(conn)?; // the first page
/// assert_eq!(ids(&page), ["e101", "e102", "e103"]);
/// let next = feed().paginate_after(page.next_cursor()).page_size(3).load_page(conn)?;
/// assert_eq!(ids(&next), ["e104", "e105", "e106"]);
/// assert!(!next.has_more() && next.next_cursor().is_none()); // the end
///
/// // Back: the page before e104, in display order.
/// let back = feed().paginate_before(next.start_cursor).page_size(3).load_page(conn)?;
/// assert_eq!(ids(&back), ["e101", "e102", "e103"]);
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

    /// The page that starts at the row with `key`, reading forward, that row included when it
    /// still exists: "open the list at this item", "resume at the last item read, inclusive"
    /// (`paginate_after` with [`Paginated::inclusive`]).
    ///
    /// ```
    /// # include!("../doctest_setup.rs");
    /// # fn main() -> QueryResult<()> {
    /// # let conn = &mut setup();
    /// let at = chrono::NaiveDateTime::parse_from_str("2026-10-10 12:00:02", "%F %T").unwrap();
    /// let page: Page<Event> = events::table
    ///     .select(Event::as_select())
    ///     .paginate_from((at, "e103".into()))
    ///     .page_size(2)
    ///     .load_page(conn)?;
    /// assert_eq!(page.items.iter().map(|e| e.event_id.as_str()).collect::<Vec<_>>(), ["e103", "e104"]);
    /// # Ok(())
    /// # }
    /// ```
    fn paginate_from<K: Keyset>(self, key: K::Key) -> Paginated<Self, K> {
        Paginated::new(self, Some(Cursor::after(key)), Direction::Forward).inclusive(true)
    }

    /// The page the cursor points to: after it for a forward cursor (a page's `end_cursor` /
    /// `next_cursor()` of a forward walk), before it for a backward one (a `start_cursor`);
    /// `None` is the first page. Use this with cursors decoded from tokens, which record
    /// their direction.
    fn paginate<K: Keyset>(self, cursor: Option<Cursor<K>>) -> Paginated<Self, K> {
        let walk = cursor.as_ref().map_or(Direction::Forward, |c| c.direction);
        Paginated::new(self, cursor, walk)
    }
}

impl<F, S, D, W, O, LOf, G, H, LC> PaginateDsl for SelectStatement<F, S, D, W, O, LOf, G, H, LC> {}

impl<ST, QS, DB, GB> PaginateDsl for BoxedSelectStatement<'_, ST, QS, DB, GB> {}

/// A select query with a keyset page attached: set the page size and options, then
/// [`Paginated::load_page`].
///
/// `M` is how the page loads: [`Blocking`](crate::query::Blocking) (the default, from
/// [`PaginateDsl`], on a Diesel `Connection`) or, with the `diesel-async` feature,
/// [`Async`](crate::async_::Async) (from [`async_::PaginateDsl`](crate::async_::PaginateDsl),
/// on a diesel-async connection). The page size and options are the same for both.
#[must_use = "a paginated query runs only when you call load_page"]
pub struct Paginated<Q, K: Keyset, M = Blocking> {
    pub(crate) mode: PhantomData<M>,
    pub(crate) query: Q,
    pub(crate) cursor: Option<K::Key>,
    /// The window's far end ([`Paginated::until`]; inclusive for a [`Walk`](crate::Walk)'s
    /// high-water mark).
    pub(crate) until: Option<WindowEnd<K>>,
    pub(crate) walk: Direction,
    pub(crate) page_size: u32,
    pub(crate) exact: bool,
    pub(crate) deferred: Option<bool>,
    pub(crate) per_level: bool,
    pub(crate) expanded: bool,
    pub(crate) budget: Option<ByteBudget<K>>,
    pub(crate) total: bool,
    pub(crate) index: IndexHint,
    /// [`Paginated::flags_only`]: the page reads whether a row follows, and delivers none.
    pub(crate) flags_only: bool,
    /// [`Paginated::inclusive`]: the cursor's own row is on the page.
    pub(crate) inclusive: bool,
}

/// The far end of a page's window: the rows before `key` in the walk's order, and the row
/// with `key` itself when `inclusive`.
pub(crate) struct WindowEnd<K: Keyset> {
    pub key: K::Key,
    pub inclusive: bool,
}

impl<K: Keyset> Clone for WindowEnd<K> {
    fn clone(&self) -> Self {
        WindowEnd {
            key: self.key.clone(),
            inclusive: self.inclusive,
        }
    }
}

/// The index a page names ([`Paginated::force_index`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum IndexHint {
    /// The keyset's declared [`Keyset::INDEX`], on a query of its table alone (the default).
    #[default]
    Declared,
    /// The one given to [`Paginated::force_index`].
    Named(&'static str),
    /// None: `force_index(None)`.
    Off,
}

impl IndexHint {
    /// The hint `force_index(index)` gives.
    pub(crate) fn forced(index: Option<&'static str>) -> Self {
        index.map_or(IndexHint::Off, IndexHint::Named)
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
            .field("until", &self.until.as_ref().map(|u| &u.key))
            .field("walk", &self.walk)
            .field("page_size", &self.page_size)
            .field("exact", &self.exact)
            .field("deferred", &self.deferred)
            .field("per_level", &self.per_level)
            .field("expanded_seek", &self.expanded)
            .field("max_bytes", &self.budget.as_ref().map(|b| b.max))
            .field("total_count", &self.total)
            .field("force_index", &self.index)
            .field("flags_only", &self.flags_only)
            .field("inclusive", &self.inclusive)
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
            flags_only: self.flags_only,
            inclusive: self.inclusive,
        }
    }
}

impl<Q, K: Keyset, M> Paginated<Q, K, M> {
    pub(crate) fn new(query: Q, cursor: Option<Cursor<K>>, walk: Direction) -> Self {
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
            flags_only: false,
            inclusive: false,
        }
    }

    /// Include the cursor's own row (when it still exists): the page starts *at* the cursor's
    /// key rather than after it (before it, reading backward: the page ends at it). For
    /// "resume at the last item read, inclusive" and "open the list at this item"
    /// ([`PaginateDsl::paginate_from`] is `paginate_after` with it; [`Page::around`] joins
    /// the page before an item and the page from it). The seek is one condition, `>=` / `<=`
    /// on the last key column ([the SQL](crate::guide::sql)); the flag of the other side with
    /// [`exact_flags`](Self::exact_flags) probes the rows strictly before the key. The page's
    /// cursors are as on any page: its `end_cursor` continues after its last row. Without a
    /// cursor it changes nothing.
    ///
    /// [`Page::around`]: crate::Page::around
    pub fn inclusive(mut self, inclusive: bool) -> Self {
        self.inclusive = inclusive;
        self
    }

    /// Deliver no row, only the flags (and the total count, when asked for with
    /// [`with_total_count`](Self::with_total_count)): [`has_more`](crate::Page::has_more) says
    /// whether a row follows the cursor (or exists at all, on a first page) in the walk's
    /// direction, the other flag is as on any page, and the page has no items and no cursors.
    /// The page size is ignored: the statement reads one row (`LIMIT 2`, as a page of one
    /// would). This is Relay's `first: 0` / `last: 0`, asked by clients that read only
    /// `totalCount` or `pageInfo` ([`web::graphql`](crate::web::graphql) sets it for them).
    ///
    /// ```
    /// # include!("../doctest_setup.rs");
    /// # fn main() -> QueryResult<()> {
    /// # let conn = &mut setup();
    /// let feed = || events::table.filter(events::workspace_id.eq("W9")).select(Event::as_select());
    /// let page: Page<Event> = feed().paginate_after(None).flags_only().with_total_count().load_page(conn)?;
    /// assert!(page.items.is_empty() && page.has_next_page && !page.has_previous_page);
    /// assert_eq!((page.total_count, page.end_cursor), (Some(6), None));
    /// // After the last row: nothing follows.
    /// let last = feed().paginate_before(None).page_size(1).load_page(conn)?;
    /// let page: Page<Event> = feed().paginate_after(last.end_cursor).flags_only().load_page(conn)?;
    /// assert!(!page.has_next_page);
    /// # Ok(())
    /// # }
    /// ```
    pub fn flags_only(mut self) -> Self {
        self.flags_only = true;
        self
    }

    /// Rows per page (at least 1; default [`DEFAULT_PAGE_SIZE`]). The query fetches
    /// `page_size + 1` rows to know whether more rows follow in the walk's direction.
    pub fn page_size(mut self, page_size: u32) -> Self {
        self.page_size = page_size;
        self
    }

    /// Also read the total count into [`Page::total_count`](crate::Page::total_count): the
    /// rows of your query without the page (its filters, `GROUP BY`/`HAVING` and `DISTINCT`
    /// kept; the seek, `ORDER BY` and `LIMIT` dropped), in rows (groups for `GROUP BY`,
    /// distinct rows for `SELECT DISTINCT`). It is a scalar subquery of the page statement,
    /// read in the statement's own snapshot on every backend; a later page becomes a union
    /// with a count row, so the count arrives even when the page is empty. It costs O(n) per
    /// page, not O(page): ask for it on the first page only when the filtered set is large
    /// ([total count](crate::guide::sql#total-count)).
    ///
    /// ```
    /// # include!("../doctest_setup.rs");
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
    /// (see [`Page`](crate::Page)). Without it that flag is `true` whenever there is a cursor
    /// (the cursor's row was delivered earlier), which is wrong only if every row on the
    /// other side was deleted since. The probe reads at most `page_size + 1` index entries.
    pub fn exact_flags(mut self, exact: bool) -> Self {
        self.exact = exact;
        self
    }

    /// Run later pages as a deferred join (the seek on the index alone, then the rows by their
    /// tie-breaker; see [`PageStatement`](crate::query::PageStatement)) or not. Default: the
    /// backend's choice ([`KeysetBackend::DEFERRED_JOIN`](crate::KeysetBackend::DEFERRED_JOIN):
    /// on for MySQL/MariaDB), off when the page names an index ([`Paginated::force_index`],
    /// or the keyset's declared [`Keyset::INDEX`] on a query of its table alone).
    pub fn deferred_join(mut self, deferred: bool) -> Self {
        self.deferred = Some(deferred);
        self
    }

    /// Read the seek through the index named `index` (your equality filters' columns, then
    /// the key columns in keyset order and direction), named after the page's `FROM`:
    /// `FORCE INDEX (..)` on MySQL/MariaDB, `INDEXED BY ..` on SQLite, nothing on PostgreSQL.
    /// It makes the direct form the default on MySQL/MariaDB, whose planner may otherwise read
    /// from the start of your filtered range ([naming the index](crate::guide::sql#naming-the-index)). Give it only for a
    /// query on one table. It overrides the keyset's declared [`Keyset::INDEX`];
    /// `force_index(None)` leaves any hint out.
    ///
    /// # Errors
    /// None of its own: the database refuses a statement naming an index that does not exist
    /// (MySQL/MariaDB error 1176, SQLite `no such index`) or, on SQLite, one the query cannot
    /// use (`no query solution`), as a Diesel `DatabaseError`.
    ///
    /// ```
    /// # include!("../doctest_setup.rs");
    /// # fn main() -> QueryResult<()> {
    /// # let conn = &mut setup();
    /// diesel::sql_query("CREATE INDEX events_feed ON events (workspace_id, occurred_at, event_id)")
    ///     .execute(conn)?;
    /// let page: Page<Event> = events::table
    ///     .filter(events::workspace_id.eq("W9"))
    ///     .select(Event::as_select())
    ///     .paginate_after(None)
    ///     .force_index("events_feed")
    ///     .load_page(conn)?;
    /// assert_eq!(page.items.len(), 6);
    /// let missing = events::table.select(Event::as_select()).paginate_after(None)
    ///     .force_index("no_such_index").load_page(conn);
    /// assert!(matches!(missing, Err(diesel::result::Error::DatabaseError(..))));
    /// # Ok(())
    /// # }
    /// ```
    pub fn force_index(mut self, index: impl Into<Option<&'static str>>) -> Self {
        self.index = IndexHint::forced(index.into());
        self
    }

    /// Write a later page as a union of one seek per key level, each an index range that
    /// starts at the cursor with its own `ORDER BY` and `LIMIT page_size + 1`, merged by an
    /// outer `ORDER BY ... LIMIT`: for `score DESC, id ASC` after `(s, i)`, `score < s` and
    /// `score = s AND id > i`. A cursor deep inside a long run of rows sharing the leading
    /// value then costs no more than any other page (the single seek reads that run from its
    /// start). Pages are identical either way; the union costs more when ties are short.
    /// Use it on PostgreSQL and SQLite for leading columns that tie in the thousands (a
    /// bulk import's timestamp, or a mixed-direction keyset led by a status or a type), not on
    /// MySQL/MariaDB ([long runs of ties](crate::guide::sql#long-runs-of-ties)). The plan check tells such a page:
    /// `plan::explain_analyze` (feature `plan-check`) reports it as
    /// `NotASeek::ReadsPastThePage` with this remedy. A run of columns in one direction is
    /// one level on PostgreSQL (a row value, already a range from the cursor); on SQLite
    /// every column is a level, since SQLite ranges a row value ending in the rowid (`id
    /// INTEGER PRIMARY KEY`) only from its leading column. Where the leading column is
    /// nullable and its NULL group follows the cursor, the values before it are split into
    /// levels and the NULL group stays one arm. Default: off.
    pub fn seek_per_level(mut self, per_level: bool) -> Self {
        self.per_level = per_level;
        self
    }

    /// Write the seek (and the [`Paginated::until`] bound) in the factored expanded form with
    /// its redundant leading bound on every backend, never as a row-value comparison:
    /// `at >= a AND (at > a OR (at = a AND id > i))` instead of `(at, id) > (a, i)`. Pages
    /// are identical either way. Turn it on where something between you and the index reads
    /// only plain comparisons: `postgres_fdw` foreign tables and tables partitioned across
    /// servers (a row value is not sent to the remote, which then sends every row before the
    /// cursor), and partition pruning on the leading bound ([foreign tables and
    /// shards](crate::guide::sql#foreign-tables-and-shards-postgresql-postgres_fdw)). Default: off; on MySQL/MariaDB it changes nothing.
    ///
    /// ```
    /// # include!("../doctest_setup.rs");
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let at = chrono::NaiveDateTime::parse_from_str("2026-10-10 12:00:01", "%F %T")?;
    /// let page = events::table
    ///     .select(Event::as_select())
    ///     .paginate_after(Some(Cursor::<Event>::after((at, "e101".to_string()))))
    ///     .expanded_seek(true)
    ///     .into_query::<diesel::sqlite::Sqlite>()?;
    /// let sql = diesel::debug_query::<diesel::sqlite::Sqlite, _>(&page).to_string();
    /// assert!(sql.contains("`events`.`occurred_at` >= +? AND (`events`.`occurred_at` > +? OR"), "{sql}");
    /// # Ok(())
    /// # }
    /// ```
    pub fn expanded_seek(mut self, expanded: bool) -> Self {
        self.expanded = expanded;
        self
    }

    /// Bound the window on its far side too (Relay's `after` and `before` together): the page
    /// holds only rows strictly before `until`'s key in the walk's direction. Forward,
    /// `paginate_after(after).until(before)` (Relay's `first`); backward,
    /// `paginate_before(before).until(after)` (Relay's `last`). Only the bound's key is used;
    /// `None` leaves the window open. `has_more()` and `next_cursor()` count only the rows
    /// inside the window; the other flag and the total count are unchanged. A window whose
    /// bounds cross or meet is empty, not an error. SQL: one more condition next to the seek,
    /// the seek of the reversed walk from the bound's key.
    ///
    /// # Errors
    /// [`KeysetError::InvalidCursorKey`](crate::KeysetError::InvalidCursorKey) (from
    /// `load_page`, before any SQL) when the bound's key holds a NaN.
    ///
    /// ```
    /// # include!("../doctest_setup.rs");
    /// # fn main() -> QueryResult<()> {
    /// # let conn = &mut setup();
    /// # let at = |s: &str| chrono::NaiveDateTime::parse_from_str(&format!("2026-10-10 {s}"), "%F %T").unwrap();
    /// // W9's feed is e101 .. e106. The window after e101 and before e105:
    /// let page: Page<Event> = events::table
    ///     .filter(events::workspace_id.eq("W9"))
    ///     .select(Event::as_select())
    ///     .paginate_after(Some(Cursor::after((at("12:00:01"), "e101".to_string()))))
    ///     .until(Some(Cursor::before((at("12:00:03"), "e105".to_string()))))
    ///     .page_size(2)
    ///     .load_page(conn)?;
    /// assert_eq!(page.items.iter().map(|e| e.event_id.as_str()).collect::<Vec<_>>(), ["e102", "e103"]);
    /// assert!(page.has_next_page); // e104 is in the window
    /// # Ok(())
    /// # }
    /// ```
    pub fn until(mut self, until: Option<Cursor<K>>) -> Self {
        self.until = until.map(|c| WindowEnd {
            key: c.key,
            inclusive: false,
        });
        self
    }

    /// The window ends with the row of `key`, included (a [`Walk`](crate::Walk)'s
    /// high-water mark): the bound [`Paginated::until`] writes, made inclusive.
    pub(crate) fn through(mut self, key: Option<K::Key>) -> Self {
        self.until = key.map(|key| WindowEnd {
            key,
            inclusive: true,
        });
        self
    }

    /// The index hint as a [`Walk`](crate::Walk) chose it for all its pages.
    pub(crate) fn index_hint(mut self, index: IndexHint) -> Self {
        self.index = index;
        self
    }

    /// Whether the page starts at a cursor (a later page, with a seek predicate).
    #[cfg_attr(not(feature = "plan-check"), allow(dead_code))]
    pub(crate) fn has_cursor(&self) -> bool {
        self.cursor.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(
        Debug, Clone, PartialEq, diesel::Queryable, diesel::Selectable, keyset_derive::Keyset,
    )]
    #[diesel(table_name = rows)]
    struct Row {
        #[keyset(asc, unique)]
        id: i64,
    }

    diesel::table! { rows (id) { id -> BigInt } }

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
    fn has_cursor_says_whether_a_seek_is_written() {
        use diesel::QueryDsl;
        let rows = || rows::table.select(rows::id);
        assert!(rows()
            .paginate_after(Some(Cursor::<Row>::after((3,))))
            .has_cursor());
        assert!(!rows().paginate_after::<Row>(None).has_cursor());
    }
}
