//! Plan checks for your own tests (feature `plan-check`): run the database's `EXPLAIN` for a
//! page and tell whether it seeks.
//!
//! A keyset page is only as fast as the index under it. [`explain`] builds the page query of a
//! [`Paginated`] (what [`Paginated::load_page`] would run), runs the backend's `EXPLAIN` on it
//! and returns a [`PlanReport`]: the plan as the database wrote it, each read of the keyset's
//! table ([`TableRead`]: access, index, condition), the sorts, and the reasons the page is not
//! a seek ([`NotASeek`]). [`PlanReport::assert_seeks`] panics with those reasons and the index
//! to create: your equality filters' columns first, then the key columns in keyset order and
//! direction.
//!
//! What counts as a seek, per backend:
//!
//! * **PostgreSQL** (`EXPLAIN (FORMAT JSON)`, read with `serde_json`; `VERBOSE` too where the
//!   table or a partition is a foreign table): every read of the table
//!   is an `Index Scan` or `Index Only Scan`; on a later page every such scan's `Index Cond`
//!   names a key column and at least one names the leading key column (the seek predicate is
//!   an index range start, not a `Filter`); no `Sort` or `Incremental Sort` node sorts the
//!   table's rows (a sort above per-arm `Limit`s of a union page is bounded and allowed).
//!   On a partitioned table every partition's scan is a read of the table (the partitions
//!   are listed with `pg_partition_tree`): each must seek, and [`TableRead::relation`] names
//!   the partition. A `Foreign Scan` (a `postgres_fdw` foreign table, or a partition on
//!   another server) counts as a range when the seek went to the remote server: its
//!   `Remote SQL`'s `WHERE` ([`TableRead::condition`]) names the leading key column and its
//!   local `Filter` names no key column ([`NotASeek::SeekNotShipped`] otherwise). Whether the
//!   remote server seeks on its own index is its plan: check it there.
//! * **SQLite** (`EXPLAIN QUERY PLAN`): every read of the table is a `SEARCH` (on a later page,
//!   with a key column in its constraint, the leading one in at least one; a first page may
//!   `SCAN .. USING INDEX` in order), and no `USE TEMP B-TREE FOR ORDER BY` sorts the table's
//!   rows (one over a union's arms, each already limited, is allowed).
//! * **MySQL/MariaDB** (`EXPLAIN FORMAT=JSON`): every read of the table has access type
//!   `range`, `ref`, `eq_ref` or `const` on an index; on a later page at least one `range`
//!   read uses the leading key column (`used_key_parts`): a `ref` read on your filter alone
//!   with the seek in its condition reads from the start of your filtered range; and no
//!   `filesort` covers a read of the table other than a fetch by unique key (`eq_ref`, the
//!   deferred join's outer rows). MariaDB 10.11 leaves the parts after a descending index
//!   part out of `used_key_parts`, so the recipe writes a keyset in one direction as an
//!   ascending index (read backward); for mixed directions bound [`HandlerReads`] instead.
//!
//! [`explain_analyze`] runs the page as well (`EXPLAIN (ANALYZE, FORMAT JSON)` on PostgreSQL,
//! `ANALYZE FORMAT=JSON` on MariaDB, plain `EXPLAIN QUERY PLAN` on SQLite, which has no
//! executed plan) and fills in the rows each read returned and, on MySQL/MariaDB, the
//! session's handler counters for the statement ([`HandlerReads`]): the numbers to bound a
//! page's work by (page size + ties + a few) at any depth. It sums them as
//! [`PlanReport::rows_examined`] against [`PlanReport::fetched`] (page size + 1), and a page
//! that reads more than twice the fetch per key level and one, plus 16, is not a seek
//! ([`NotASeek::ReadsPastThePage`]): an index range that starts before the cursor and filters
//! the rest of the cursor's run of ties, typically a mixed-direction keyset whose leading column
//! has few distinct values (a status, a type). The message names the remedy,
//! [`Paginated::seek_per_level`](crate::Paginated::seek_per_level) ([long runs
//! of ties](crate::guide::sql#long-runs-of-ties)).
//!
//! Plans depend on statistics: run the check on a table with enough rows (thousands) after
//! `ANALYZE`, or the planner may rightly prefer a full scan of a tiny table (on PostgreSQL,
//! `SET enable_seqscan = off` in the test's session shows whether an index *can* serve).
//!
//! ```
//! # include!("../doctest_setup.rs");
//! # fn main() -> Result<(), keyset_diesel::plan::PlanError> {
//! # let conn = &mut setup();
//! use keyset_diesel::plan;
//!
//! // W9's second page, as the handler builds it.
//! let page = |cursor| {
//!     events::table
//!         .filter(events::workspace_id.eq("W9"))
//!         .select(Event::as_select())
//!         .paginate_after(cursor)
//!         .page_size(2)
//! };
//! let first = page(None).load_page(conn)?;
//!
//! // Without an index on the keyset: a scan and a sort; the report names the index.
//! let report = plan::explain(conn, page(first.next_cursor()))?;
//! assert!(!report.seeks());
//! assert_eq!(
//!     report.index_recipe,
//!     r#"CREATE INDEX "events_workspace_id_occurred_at_event_id" ON "events" ("workspace_id", "occurred_at" ASC, "event_id" ASC)"#
//! );
//!
//! diesel::sql_query(&report.index_recipe).execute(conn)?;
//! plan::explain(conn, page(first.next_cursor()))?.assert_seeks();
//! # Ok(())
//! # }
//! ```

use diesel::backend::Backend;
use diesel::connection::Connection;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::query_dsl::methods::LoadQuery;
use diesel::query_dsl::{RunQueryDsl, RunQueryDslSupport};
use diesel::QueryResult;

pub use self::recipe::IndexStyle;
use self::recipe::{equality_columns, index_recipe, names_column, quoted_table, table_names};
pub use self::report::{HandlerReads, NotASeek, PlanError, PlanReport, StatusRow, TableRead};
use crate::backend::KeysetBackend;
use crate::keyset::{KeyColumn, Keyset};
use crate::paginate::Paginated;
use crate::query::filters::filters_sql;
use crate::query::learn::name_known;
use crate::query::shape::decide;
use crate::query::{PageQuery, PageSource, SelectParts};

#[cfg(feature = "diesel-async")]
pub(crate) mod async_;
#[cfg(feature = "diesel-async")]
pub use self::async_::AsyncExplainConnection;

#[cfg(feature = "mysql")]
mod mysql;
#[cfg(feature = "postgres")]
mod pg;
mod recipe;
mod report;
#[cfg(feature = "sqlite")]
mod sqlite;

/// `<prefix> <query>`: `EXPLAIN` (or any prefix) in front of a Diesel query, keeping its bind
/// parameters; `ST` is the SQL type of the rows it returns. What [`explain`] runs on the page
/// query; use it for the plans this module does not read (`EXPLAIN (ANALYZE, BUFFERS)`):
///
/// ```
/// # include!("../doctest_setup.rs");
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let conn = &mut setup();
/// use diesel::sql_types::{Integer, Text};
/// use keyset_diesel::plan::Explain;
///
/// let page = events::table
///     .select(Event::as_select())
///     .paginate_after::<Event>(None)
///     .page_size(2)
///     .into_query::<diesel::sqlite::Sqlite>()?;
/// let lines: Vec<(i32, i32, i32, String)> =
///     Explain::<_, (Integer, Integer, Integer, Text)>::new("EXPLAIN QUERY PLAN", page).load(conn)?;
/// assert!(lines.iter().any(|l| l.3.contains("events")));
/// # Ok(())
/// # }
/// ```
pub struct Explain<Q, ST> {
    prefix: &'static str,
    query: Q,
    rows: std::marker::PhantomData<ST>,
}

impl<Q, ST> Explain<Q, ST> {
    /// `prefix` (`EXPLAIN ...`) before `query`; `ST` is the SQL type of the rows it returns.
    pub fn new(prefix: &'static str, query: Q) -> Self {
        Explain {
            prefix,
            query,
            rows: std::marker::PhantomData,
        }
    }
}

impl<Q, ST> QueryId for Explain<Q, ST> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<Q, ST> Query for Explain<Q, ST> {
    type SqlType = ST;
}

impl<Q: QueryFragment<DB>, ST, DB: Backend> QueryFragment<DB> for Explain<Q, ST> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        out.push_sql(self.prefix);
        out.push_sql(" ");
        self.query.walk_ast(out)
    }
}

impl<Q, ST> RunQueryDslSupport for Explain<Q, ST> {}

/// What the keyset contributes to a plan check.
#[doc(hidden)]
#[derive(Debug, Clone)]
pub struct KeysetShape {
    /// The table's last name part, as plans name it.
    pub relation: String,
    /// The key columns.
    pub columns: &'static [KeyColumn],
    /// A later page (a seek predicate is expected).
    pub had_cursor: bool,
    /// The table and its partitions at every level (PostgreSQL), as plans name them: their reads
    /// are reads of the table.
    pub partitions: Vec<String>,
}

impl KeysetShape {
    /// Whether a plan's relation name is the keyset's table or one of its partitions.
    #[cfg(feature = "postgres")]
    pub(super) fn is_table(&self, name: &str) -> bool {
        name == self.relation || self.partitions.iter().any(|p| p == name)
    }

    pub(super) fn leading(&self) -> &'static str {
        self.columns.first().map_or("", |c| c.name)
    }
    /// Whether `condition` names the leading key column.
    pub(super) fn names_leading(&self, condition: &str) -> bool {
        self.columns
            .first()
            .is_some_and(|c| names_column(condition, c))
    }
    pub(super) fn names_key_column(&self, condition: &str) -> bool {
        self.columns.iter().any(|c| names_column(condition, c))
    }
}

/// A backend whose plans [`explain`] reads. Sealed: PostgreSQL, SQLite, MySQL/MariaDB.
pub trait PlanBackend: KeysetBackend + Default {
    /// The SQL type of the rows `EXPLAIN` returns.
    #[doc(hidden)]
    type PlanSql: diesel::sql_types::SqlType + diesel::expression::TypedExpressionType;
    /// One row of `EXPLAIN`.
    #[doc(hidden)]
    type PlanRow: Send;
    /// The `EXPLAIN` prefix, without and with execution.
    #[doc(hidden)]
    const EXPLAIN: [&'static str; 2];
    /// The prefix where the table or one of its partitions is a foreign table.
    #[doc(hidden)]
    const EXPLAIN_FOREIGN: [&'static str; 2] = Self::EXPLAIN;
    /// Whether handler counters are read around an analyzed plan.
    #[doc(hidden)]
    const HANDLER_COUNTERS: bool = false;
    /// Reads the plan rows into a report (its `sql` and `index_recipe` filled by the caller).
    #[doc(hidden)]
    fn read_plan(rows: Vec<Self::PlanRow>, shape: &KeysetShape) -> Result<PlanReport, PlanError>;
    /// How the recipe writes a key column on this backend.
    #[doc(hidden)]
    const INDEX_STYLE: IndexStyle = IndexStyle::Directions;
    /// How the recipe quotes an identifier on this backend.
    #[doc(hidden)]
    const IDENT_QUOTE: char = '"';
    /// A query whose rows name the partitions of `table` (quoted, as Diesel writes it) in
    /// their `Variable_name` column and their kind in `Value` (`f`: foreign), if the backend
    /// has partitions the plan names.
    #[doc(hidden)]
    fn partitions_sql(_table: &str) -> Option<String> {
        None
    }
}

/// The page's plan: builds the statement `paginated` would run on `conn`'s backend and runs
/// the backend's `EXPLAIN` on it (without running the page). Takes the page by value, as
/// `load_page` does: pass a clone, or build it again.
///
/// # Errors
/// [`PlanError::Keyset`] when the page cannot be built (as [`Paginated::into_query`]),
/// [`PlanError::Database`] when the `EXPLAIN` fails, [`PlanError::Json`] /
/// [`PlanError::Shape`] when the plan is not what the backend documents.
pub fn explain<'q, Q, K, Conn>(
    conn: &mut Conn,
    paginated: Paginated<Q, K>,
) -> Result<PlanReport, PlanError>
where
    K: Keyset,
    Conn: ExplainConnection<'q, Q, K>,
{
    Conn::explain_page(conn, paginated, false)
}

/// [`explain`], running the page too: the rows each read returned ([`TableRead::rows`],
/// [`TableRead::rows_removed_by_filter`]), PostgreSQL's execution time, and on MySQL/MariaDB
/// the statement's [`HandlerReads`] (after `FLUSH STATUS`). SQLite has no executed plan: the
/// same as [`explain`] there. It runs the page's `SELECT` (a locking clause would lock).
///
/// # Errors
/// As [`explain`]; on MySQL, `ANALYZE FORMAT=JSON` needs MariaDB (MySQL has no such
/// statement: [`PlanError::Database`]).
pub fn explain_analyze<'q, Q, K, Conn>(
    conn: &mut Conn,
    paginated: Paginated<Q, K>,
) -> Result<PlanReport, PlanError>
where
    K: Keyset,
    Conn: ExplainConnection<'q, Q, K>,
{
    Conn::explain_page(conn, paginated, true)
}

/// A connection the plan check runs on, for pages of query `Q` and keyset `K`: the one bound
/// of [`explain`] and [`explain_analyze`]. Implemented for every Diesel connection whose
/// backend is a [`PlanBackend`] and that loads the page's `EXPLAIN` rows (for a query `K`
/// pages on that backend).
pub trait ExplainConnection<'q, Q, K: Keyset>: Sized {
    /// Runs the plan check (what [`explain`] and [`explain_analyze`] call).
    #[doc(hidden)]
    fn explain_page(
        conn: &mut Self,
        paginated: Paginated<Q, K>,
        analyze: bool,
    ) -> Result<PlanReport, PlanError>;
}

/// The blanket impl of a plan check's connection trait (`$Trait`: [`ExplainConnection`], or
/// its async twin) for every `Conn: $Conn` that loads the page's `EXPLAIN` and status rows
/// with the mode's `$Load` (each bound `+ $plus`), plus `$extra`: the plan check's bounds,
/// written once for both modes.
macro_rules! explain_connection_impl {
    (
        $Trait:ident for Conn: $Conn:ident, $Load:ident $(+ $plus:lifetime)?,
        where { $($extra:tt)* }
        $($body:tt)*
    ) => {
        impl<'q, Q, K, Conn> $Trait<'q, Q, K> for Conn
        where
            Conn: $Conn,
            Conn::Backend: PlanBackend,
            <Conn::Backend as diesel::backend::Backend>::QueryBuilder: Default,
            K: Keyset,
            Q: PageSource<K> + SelectParts<Conn::Backend>,
            PageQuery<Q, K>: QueryFragment<Conn::Backend>,
            Explain<PageQuery<Q, K>, <Conn::Backend as PlanBackend>::PlanSql>:
                $Load<'q, Conn, <Conn::Backend as PlanBackend>::PlanRow> $(+ $plus)?,
            diesel::query_builder::SqlQuery: $Load<'q, Conn, StatusRow> $(+ $plus)?,
            $($extra)*
        {
            $($body)*
        }
    };
}
pub(super) use explain_connection_impl;

/// The plan check's statements on connection `$conn` of backend `$db`, in [`PlanRun`]'s order,
/// each followed by `$($await)*` (nothing, or `.await`): the one driver of both modes.
/// Evaluates to the report; returns a statement's error from the enclosing function.
macro_rules! run_plan {
    ($db:ty, $conn:ident, $paginated:expr, $analyze:expr $(, $($await:tt)+)?) => {{
        let (query, mut run) = PlanRun::<$db>::prepare($paginated, $analyze)?;
        if let Some(sql) = run.partitions_sql::<K>() {
            run.partitions(diesel::sql_query(sql).load($conn) $($($await)+)? ?);
        }
        if run.counters {
            $conn.batch_execute("FLUSH STATUS") $($($await)+)? ?;
        }
        let rows = Explain::<_, <$db as PlanBackend>::PlanSql>::new(run.prefix(), query)
            .load($conn) $($($await)+)? ?;
        let status = if run.counters {
            Some(diesel::sql_query(HANDLER_STATUS).load($conn) $($($await)+)? ?)
        } else {
            None
        };
        run.finish::<K>(rows, status)
    }};
}
pub(super) use run_plan;

explain_connection_impl! {
    ExplainConnection for Conn: Connection, LoadQuery,
    where {}
    fn explain_page(
        conn: &mut Conn,
        paginated: Paginated<Q, K>,
        analyze: bool,
    ) -> Result<PlanReport, PlanError> {
        run_plan!(Conn::Backend, conn, paginated, analyze)
    }
}

/// `SHOW SESSION STATUS LIKE 'Handler\_%'`: the handler counters ([`HandlerReads`]).
pub(crate) const HANDLER_STATUS: &str = "SHOW SESSION STATUS LIKE 'Handler\\_%'";

/// One plan check between its statements: what [`explain`] and its async twin
/// ([`async_::explain`](crate::async_::explain)) know before and after each, so both run the
/// one logic ([`run_plan!`]) and differ only in how a statement runs. The statements, in order: the
/// partitions ([`PlanRun::partitions_sql`], if any), `FLUSH STATUS` (if
/// [`PlanRun::counters`]), the `EXPLAIN` ([`PlanRun::prefix`]), the handler counters (if
/// `counters`), then [`PlanRun::finish`].
pub(crate) struct PlanRun<DB> {
    analyze: bool,
    pub(crate) counters: bool,
    foreign: bool,
    counted: bool,
    page_size: u32,
    filters: String,
    sql: String,
    shape: KeysetShape,
    table: String,
    backend: std::marker::PhantomData<DB>,
}

impl<DB> PlanRun<DB>
where
    DB: PlanBackend,
    DB::QueryBuilder: Default,
{
    /// The page's statement and the plan check's state.
    pub(crate) fn prepare<Q, K, M>(
        paginated: Paginated<Q, K, M>,
        analyze: bool,
    ) -> Result<(PageQuery<Q, K>, Self), PlanError>
    where
        K: Keyset,
        Q: PageSource<K> + SelectParts<DB>,
        PageQuery<Q, K>: QueryFragment<DB>,
    {
        let had_cursor = paginated.has_cursor();
        let page_size = paginated.page_size;
        let counted = paginated.total;
        let filters = filters_sql::<DB, Q>(&paginated.query)?;
        let mut page = decide::<DB, _, _, _>(paginated)?;
        // The index a MySQL page names by itself, once this process has learned it.
        name_known::<DB, _, _>(&mut page);
        let (query, _) = page.statement::<DB>();
        let sql = diesel::debug_query::<DB, _>(&query).to_string();
        let (relation, table) = table_names::<K>();
        let run = PlanRun {
            analyze,
            counters: analyze && DB::HANDLER_COUNTERS,
            foreign: false,
            counted,
            page_size,
            filters,
            sql,
            shape: KeysetShape {
                relation,
                columns: K::COLUMNS,
                had_cursor,
                partitions: Vec::new(),
            },
            table,
            backend: std::marker::PhantomData,
        };
        Ok((query, run))
    }

    /// The statement listing the table's partitions, if the backend has partitions.
    pub(crate) fn partitions_sql<K: Keyset>(&self) -> Option<String> {
        DB::partitions_sql(&quoted_table::<K>())
    }

    /// Takes the partitions' rows.
    pub(crate) fn partitions(&mut self, rows: Vec<StatusRow>) {
        self.foreign = rows.iter().any(|r| r.value == "f");
        self.shape.partitions = rows.into_iter().map(|r| r.name).collect();
    }

    /// The `EXPLAIN` prefix.
    pub(crate) fn prefix(&self) -> &'static str {
        let prefixes = if self.foreign {
            DB::EXPLAIN_FOREIGN
        } else {
            DB::EXPLAIN
        };
        prefixes[usize::from(self.analyze)]
    }

    /// The report from the plan's rows and the handler counters' status rows.
    pub(crate) fn finish<K: Keyset>(
        self,
        rows: Vec<DB::PlanRow>,
        status: Option<Vec<StatusRow>>,
    ) -> Result<PlanReport, PlanError> {
        let handler_reads = status.map(|rows| HandlerReads::from_status(&rows));
        let shape = self.shape;
        let mut report = DB::read_plan(rows, &shape)?;
        report.index_recipe = index_recipe(
            &self.table,
            &shape,
            &equality_columns(&self.filters, &shape.relation, shape.columns),
            DB::INDEX_STYLE,
            DB::IDENT_QUOTE,
        );
        report.table = self.table;
        report.sql = self.sql;
        report.fetched = u64::from(self.page_size) + 1;
        report.rows_examined = self
            .analyze
            .then(|| rows_examined(&report.reads, handler_reads))
            .flatten();
        // A total count reads every row of the query in the same statement: its reads are no
        // page's, so the check does not judge them (`rows_examined` still reports them).
        if let (Some(examined), false) = (report.rows_examined, self.counted) {
            if examined > examined_limit(report.fetched, K::COLUMNS.len()) {
                report.not_a_seek.push(NotASeek::ReadsPastThePage {
                    examined,
                    fetched: report.fetched,
                });
            }
        }
        report.handler_reads = handler_reads;
        Ok(report)
    }
}

/// What an executed plan says the statement read: MariaDB's handler counters, or the sum of
/// PostgreSQL's reads (rows returned and removed by filter, per loop). `None` when the plan
/// counts nothing (SQLite).
fn rows_examined(reads: &[TableRead], handler: Option<HandlerReads>) -> Option<u64> {
    if let Some(h) = handler {
        return Some(h.index_reads() + h.read_rnd_next);
    }
    let mut any = false;
    let mut total = 0.0;
    for read in reads {
        if let Some(rows) = read.rows {
            any = true;
            let removed = read.rows_removed_by_filter.unwrap_or(0.0);
            total += (rows + removed) * read.loops.unwrap_or(1.0).max(1.0);
        }
    }
    // Whole rows: the plan's per-loop averages are rounded.
    any.then(|| total.round() as u64)
}

/// How much a page may read before the check calls it more than a seek: every key level a
/// union arm of its own, each fetching the page and reading as many again for its fetch by
/// key (the deferred join), plus a few probes and ties.
fn examined_limit(fetched: u64, levels: usize) -> u64 {
    2 * fetched * (levels as u64 + 1) + 16
}

/// The checks every backend shares, on the reads of the table: each is an index range
/// (`is_range`), and on a later page each range names a key column and one names the leading
/// key column (`carries_leading`).
pub(super) fn check_reads(
    reads: &[TableRead],
    shape: &KeysetShape,
    is_range: impl Fn(&TableRead) -> bool,
    carries_leading: impl Fn(&TableRead) -> bool,
) -> Vec<NotASeek> {
    let mut reasons = Vec::new();
    for read in reads {
        if !is_range(read) {
            reasons.push(NotASeek::NotAnIndexRange {
                access: read.access.clone(),
            });
        } else if shape.had_cursor {
            let condition = read.condition.clone().unwrap_or_default();
            if !shape.names_key_column(&condition) {
                reasons.push(NotASeek::SeekNotInIndex {
                    access: read.access.clone(),
                    index: read.index.clone().unwrap_or_default(),
                    condition,
                });
            }
        }
    }
    if shape.had_cursor && reasons.is_empty() && !reads.iter().any(carries_leading) {
        reasons.push(NotASeek::NoSeek {
            column: shape.leading().to_string(),
        });
    }
    if reads.is_empty() {
        reasons.push(NotASeek::NoSeek {
            column: shape.leading().to_string(),
        });
    }
    reasons
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keyset::SortDirection;

    const KEY: &[KeyColumn] = &[
        KeyColumn {
            name: "occurred_at",
            field: "occurred_at",
            direction: SortDirection::Desc,
            nulls: None,
            expression: false,
            exact_text: false,
        },
        KeyColumn {
            name: "event_id",
            field: "event_id",
            direction: SortDirection::Desc,
            nulls: None,
            expression: false,
            exact_text: false,
        },
    ];

    pub(super) fn shape() -> KeysetShape {
        KeysetShape {
            relation: "events".into(),
            columns: KEY,
            had_cursor: true,
            partitions: Vec::new(),
        }
    }
}
