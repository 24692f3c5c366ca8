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
//! page's work by (page size + ties + a few) at any depth.
//!
//! Plans depend on statistics: run the check on a table with enough rows (thousands) after
//! `ANALYZE`, or the planner may rightly prefer a full scan of a tiny table (on PostgreSQL,
//! `SET enable_seqscan = off` in the test's session shows whether an index *can* serve).
//!
//! ```
//! # include!("doctest_setup.rs");
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
//! let report = plan::explain(conn, page(first.next_cursor.clone()))?;
//! assert!(!report.seeks());
//! assert_eq!(
//!     report.index_recipe,
//!     "CREATE INDEX events_workspace_id_occurred_at_event_id ON events \
//!      (workspace_id, occurred_at ASC, event_id ASC)"
//! );
//!
//! diesel::sql_query(&report.index_recipe).execute(conn)?;
//! plan::explain(conn, page(first.next_cursor))?.assert_seeks();
//! # Ok(())
//! # }
//! ```

use std::fmt;

use diesel::backend::Backend;
use diesel::connection::Connection;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::query_dsl::methods::LoadQuery;
use diesel::query_dsl::RunQueryDsl;
use diesel::QueryResult;
use serde_json::Value;

use crate::backend::KeysetBackend;
use crate::keyset::{KeyColumn, Keyset, NullsOrder, SortDirection};
use crate::paginate::{PageQuery, PageSource, Paginated};
use crate::KeysetError;

/// Why a plan check could not run. The check itself never fails on a bad plan: that is
/// [`PlanReport::not_a_seek`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PlanError {
    /// The page could not be built ([`Paginated::into_query`]'s errors).
    #[error("the page query could not be built: {0}")]
    Keyset(#[from] KeysetError),
    /// The database refused the `EXPLAIN` or a status query.
    #[error("EXPLAIN failed: {0}")]
    Database(#[from] diesel::result::Error),
    /// The plan was not the JSON the backend documents.
    #[error("the plan is not JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// The plan was JSON of an unexpected shape (no plan root).
    #[error("unexpected plan shape: {0}")]
    Shape(String),
}

/// One read of the keyset's table (or, on PostgreSQL, of one of its partitions) in the plan.
#[derive(Debug, Clone, PartialEq)]
pub struct TableRead {
    /// The relation read: the keyset's table, or on PostgreSQL one of its partitions
    /// (`events_2026_01`), as the plan names it (last name part, unquoted).
    pub relation: String,
    /// How the table is read: PostgreSQL's node type (`Index Scan`, `Seq Scan`, ...), SQLite's
    /// `SEARCH` / `SCAN`, MySQL's access type (`range`, `ref`, `ALL`, ...).
    pub access: String,
    /// The index read, if any.
    pub index: Option<String>,
    /// What bounds the index range: PostgreSQL's `Index Cond`, SQLite's constraint text
    /// (`tenant=? AND (at,id)>(?,?)`), MySQL's `used_key_parts` joined by `, `. For a
    /// PostgreSQL `Foreign Scan`, the `WHERE` of its remote SQL (what the remote server
    /// filters by; its own index is on the remote).
    pub condition: Option<String>,
    /// Rows read and then discarded by a condition outside the index range: PostgreSQL's
    /// `Filter`, MySQL's `attached_condition`.
    pub filter: Option<String>,
    /// The index is read backward (PostgreSQL's `Scan Direction`).
    pub backward: bool,
    /// Rows the read returned (PostgreSQL's `Actual Rows`, MariaDB's `r_rows`): only from
    /// [`explain_analyze`].
    pub rows: Option<f64>,
    /// Rows the read discarded by its filter (PostgreSQL's `Rows Removed by Filter`): only
    /// from [`explain_analyze`].
    pub rows_removed_by_filter: Option<f64>,
    /// Times the read ran (PostgreSQL's `Actual Loops`: `Some(0.0)` for a partition the page
    /// never reached, `never executed` in the text plan): only from [`explain_analyze`] on
    /// PostgreSQL.
    pub loops: Option<f64>,
    /// The SQL a PostgreSQL `Foreign Scan` (`postgres_fdw`) sends its remote server
    /// (`Remote SQL`); `None` for every other read.
    pub remote_sql: Option<String>,
}

/// Why a page is not a seek.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum NotASeek {
    /// A read of the table that is not an index range: reads every row (`Seq Scan`, `SCAN`,
    /// `ALL`, `index`) or every match before ordering them (`Bitmap Heap Scan`).
    NotAnIndexRange {
        /// The access as the plan names it.
        access: String,
    },
    /// An index read whose range does not carry the seek predicate: it starts at your filter,
    /// not at the cursor, and reads every row before the cursor.
    SeekNotInIndex {
        /// The access as the plan names it.
        access: String,
        /// The index read.
        index: String,
        /// Its range condition (empty: none).
        condition: String,
    },
    /// No read of the table carries the seek's leading key column in its index range.
    NoSeek {
        /// The leading key column.
        column: String,
    },
    /// A sort of the table's rows: every matching row is read before the first is returned.
    Sort {
        /// The sort as the plan names it (node and key).
        sort: String,
    },
    /// A foreign scan (PostgreSQL `postgres_fdw`) that applies the seek as a local `Filter`:
    /// its remote server was not sent the seek, so it sends every row from the start of your
    /// filter's range. postgres_fdw ships no row-value comparison; write the seek in the
    /// expanded form with [`Paginated::expanded_seek`](crate::Paginated::expanded_seek).
    SeekNotShipped {
        /// The foreign table (or foreign partition) read.
        relation: String,
        /// The local filter holding the seek.
        filter: String,
    },
}

impl fmt::Display for NotASeek {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotASeek::NotAnIndexRange { access } => {
                write!(f, "`{access}` reads the table without an index range")
            }
            NotASeek::SeekNotInIndex {
                access,
                index,
                condition,
            } => write!(
                f,
                "`{access}` on index `{index}` does not start at the cursor (index range: `{condition}`)"
            ),
            NotASeek::NoSeek { column } => write!(
                f,
                "no index range carries the seek's leading key column `{column}`"
            ),
            NotASeek::Sort { sort } => write!(f, "the table's rows are sorted: {sort}"),
            NotASeek::SeekNotShipped { relation, filter } => write!(
                f,
                "the foreign scan of `{relation}` filters the seek locally (`{filter}`), so its \
                 remote server sends every row before the cursor: postgres_fdw ships no \
                 row-value comparison; call `.expanded_seek(true)` on the page"
            ),
        }
    }
}

/// MySQL/MariaDB handler counters of the session (`SHOW SESSION STATUS LIKE 'Handler%'`),
/// after `FLUSH STATUS`: the index and row reads of the statements run since.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HandlerReads {
    /// `Handler_read_key`: index lookups (range starts).
    pub read_key: u64,
    /// `Handler_read_next`: index entries read forward.
    pub read_next: u64,
    /// `Handler_read_prev`: index entries read backward.
    pub read_prev: u64,
    /// `Handler_icp_attempts`: index entries checked by index condition pushdown.
    pub icp_attempts: u64,
    /// `Handler_read_rnd_next`: rows read by full scans (and from temporary tables).
    pub read_rnd_next: u64,
}

impl HandlerReads {
    /// Index entries read: `read_next + read_prev + icp_attempts` (a pushed-down condition
    /// counts the entries it rejected too).
    pub fn index_reads(&self) -> u64 {
        self.read_next + self.read_prev + self.icp_attempts
    }

    /// The session's counters now (`SHOW SESSION STATUS LIKE 'Handler\_%'`). Run
    /// `FLUSH STATUS` before the statement to count it alone.
    ///
    /// # Errors
    /// [`PlanError::Database`] when the status query fails.
    pub fn read<'q, Conn>(conn: &mut Conn) -> Result<HandlerReads, PlanError>
    where
        Conn: Connection,
        diesel::query_builder::SqlQuery: LoadQuery<'q, Conn, StatusRow>,
    {
        let rows: Vec<StatusRow> =
            diesel::sql_query("SHOW SESSION STATUS LIKE 'Handler\\_%'").load(conn)?;
        let get = |name: &str| -> u64 {
            rows.iter()
                .find(|r| r.name == name)
                .and_then(|r| r.value.parse().ok())
                .unwrap_or(0)
        };
        Ok(HandlerReads {
            read_key: get("Handler_read_key"),
            read_next: get("Handler_read_next"),
            read_prev: get("Handler_read_prev"),
            icp_attempts: get("Handler_icp_attempts"),
            read_rnd_next: get("Handler_read_rnd_next"),
        })
    }
}

impl fmt::Display for HandlerReads {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "read_key={} read_next={} read_prev={} icp_attempts={} read_rnd_next={}",
            self.read_key, self.read_next, self.read_prev, self.icp_attempts, self.read_rnd_next
        )
    }
}

/// A name and a value: a row of `SHOW STATUS` for [`HandlerReads::read`], or a partition's
/// name (value empty) for the plan check on PostgreSQL.
#[doc(hidden)]
#[derive(diesel::QueryableByName)]
pub struct StatusRow {
    #[diesel(sql_type = diesel::sql_types::Text)]
    #[diesel(column_name = Variable_name)]
    name: String,
    #[diesel(sql_type = diesel::sql_types::Text)]
    #[diesel(column_name = Value)]
    value: String,
}

/// What the plan of one page shows.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanReport {
    /// The keyset's table, unquoted (`events`, `archive.events`).
    pub table: String,
    /// The page statement as Diesel writes it, with its binds (`diesel::debug_query`).
    pub sql: String,
    /// The plan as the database wrote it: PostgreSQL's and MySQL's JSON, SQLite's
    /// `EXPLAIN QUERY PLAN` lines (`id parent detail`, one a line).
    pub plan: String,
    /// Every read of the keyset's table, in plan order.
    pub reads: Vec<TableRead>,
    /// Every sort in the plan (node and key), bounded or not.
    pub sorts: Vec<String>,
    /// Why the page is not a seek; empty when it is.
    pub not_a_seek: Vec<NotASeek>,
    /// The index the keyset rides on: your equality filters' columns (read from the page
    /// statement: a column of the table compared with `=` to a bound value), then the key
    /// columns in keyset order and declared direction (with the NULL placement on
    /// PostgreSQL). The same recipe whether or not the page seeks.
    pub index_recipe: String,
    /// PostgreSQL's `Execution Time` in ms: only from [`explain_analyze`].
    pub execution_ms: Option<f64>,
    /// MySQL/MariaDB handler counters of the analyzed statement: only from
    /// [`explain_analyze`].
    pub handler_reads: Option<HandlerReads>,
}

impl PlanReport {
    /// Whether the page seeks: [`PlanReport::not_a_seek`] is empty.
    pub fn seeks(&self) -> bool {
        self.not_a_seek.is_empty()
    }

    /// Panics unless the page seeks, with the reasons, the index to create and the plan.
    ///
    /// # Panics
    /// When [`PlanReport::not_a_seek`] is not empty.
    #[track_caller]
    pub fn assert_seeks(&self) {
        if !self.seeks() {
            panic!("{}", self.failure());
        }
    }

    /// The message of [`PlanReport::assert_seeks`].
    pub fn failure(&self) -> String {
        let mut out = format!("the page does not seek on `{}`:\n", self.table);
        for reason in &self.not_a_seek {
            out.push_str(&format!("  - {reason}\n"));
        }
        if self.reads.iter().any(|r| r.remote_sql.is_some()) {
            out.push_str(
                "the table is read through foreign tables: create the index on each remote table\n",
            );
        }
        out.push_str(&format!(
            "create the index the keyset rides on (equality filters, then the key in keyset order and direction):\n  {};\n\
             statement: {}\nplan:\n{}",
            self.index_recipe, self.sql, self.plan
        ));
        out
    }
}

/// `<prefix> <query>`: `EXPLAIN` (or any prefix) in front of a Diesel query, keeping its bind
/// parameters; `ST` is the SQL type of the rows it returns. What [`explain`] runs on the page
/// query; use it for the plans this module does not read (`EXPLAIN (ANALYZE, BUFFERS)`):
///
/// ```
/// # include!("doctest_setup.rs");
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

impl<Q, ST, Conn> RunQueryDsl<Conn> for Explain<Q, ST> {}

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
    fn is_table(&self, name: &str) -> bool {
        name == self.relation || self.partitions.iter().any(|p| p == name)
    }

    fn leading(&self) -> &'static str {
        self.columns.first().map_or("", |c| c.name)
    }
    fn names_key_column(&self, condition: &str) -> bool {
        self.columns.iter().any(|c| names_column(condition, c.name))
    }
}

/// Whether a plan's `condition` names key column `name`: the column itself, or for a key on an
/// expression (`lower(users::name)`, named by its Rust text) a column the expression reads
/// (`name`), or SQLite's `<expr>` for an index expression.
fn names_column(condition: &str, name: &str) -> bool {
    if !name.contains("::") && !crate::keyset::is_expression_name(name) {
        return mentions(condition, name);
    }
    condition.contains("<expr>")
        || name
            .split("::")
            .skip(1)
            .filter_map(|part| {
                let end = part
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(part.len());
                (end > 0).then(|| &part[..end])
            })
            .any(|column| mentions(condition, column))
}

/// A backend whose plans [`explain`] reads. Sealed: PostgreSQL, SQLite, MySQL/MariaDB.
pub trait PlanBackend: KeysetBackend + Default {
    /// The SQL type of the rows `EXPLAIN` returns.
    #[doc(hidden)]
    type PlanSql: diesel::sql_types::SqlType + diesel::expression::TypedExpressionType;
    /// One row of `EXPLAIN`.
    #[doc(hidden)]
    type PlanRow;
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
    Conn: Connection,
    Conn::Backend: PlanBackend,
    <Conn::Backend as Backend>::QueryBuilder: Default,
    K: Keyset,
    Q: PageSource<K>,
    PageQuery<Q, K>: QueryFragment<Conn::Backend>,
    Explain<PageQuery<Q, K>, <Conn::Backend as PlanBackend>::PlanSql>:
        LoadQuery<'q, Conn, <Conn::Backend as PlanBackend>::PlanRow>,
    diesel::query_builder::SqlQuery: LoadQuery<'q, Conn, StatusRow>,
{
    run(conn, paginated, false)
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
    Conn: Connection,
    Conn::Backend: PlanBackend,
    <Conn::Backend as Backend>::QueryBuilder: Default,
    K: Keyset,
    Q: PageSource<K>,
    PageQuery<Q, K>: QueryFragment<Conn::Backend>,
    Explain<PageQuery<Q, K>, <Conn::Backend as PlanBackend>::PlanSql>:
        LoadQuery<'q, Conn, <Conn::Backend as PlanBackend>::PlanRow>,
    diesel::query_builder::SqlQuery: LoadQuery<'q, Conn, StatusRow>,
{
    run(conn, paginated, true)
}

fn run<'q, Q, K, Conn>(
    conn: &mut Conn,
    paginated: Paginated<Q, K>,
    analyze: bool,
) -> Result<PlanReport, PlanError>
where
    Conn: Connection,
    Conn::Backend: PlanBackend,
    <Conn::Backend as Backend>::QueryBuilder: Default,
    K: Keyset,
    Q: PageSource<K>,
    PageQuery<Q, K>: QueryFragment<Conn::Backend>,
    Explain<PageQuery<Q, K>, <Conn::Backend as PlanBackend>::PlanSql>:
        LoadQuery<'q, Conn, <Conn::Backend as PlanBackend>::PlanRow>,
    diesel::query_builder::SqlQuery: LoadQuery<'q, Conn, StatusRow>,
{
    let had_cursor = paginated.has_cursor();
    let query = paginated.into_query::<Conn::Backend>()?;
    let sql = diesel::debug_query::<Conn::Backend, _>(&query).to_string();
    let (relation, table) = table_names::<K>();
    let (partitions, foreign) =
        match <Conn::Backend as PlanBackend>::partitions_sql(&quoted_table::<K>()) {
            Some(sql) => {
                let rows: Vec<StatusRow> = diesel::sql_query(sql).load(conn)?;
                let foreign = rows.iter().any(|r| r.value == "f");
                (rows.into_iter().map(|r| r.name).collect(), foreign)
            }
            None => (Vec::new(), false),
        };
    let shape = KeysetShape {
        relation,
        columns: K::COLUMNS,
        had_cursor,
        partitions,
    };
    let counters = analyze && <Conn::Backend as PlanBackend>::HANDLER_COUNTERS;
    if counters {
        conn.batch_execute("FLUSH STATUS")?;
    }
    let prefix = if foreign {
        <Conn::Backend as PlanBackend>::EXPLAIN_FOREIGN
    } else {
        <Conn::Backend as PlanBackend>::EXPLAIN
    }[usize::from(analyze)];
    let rows =
        Explain::<_, <Conn::Backend as PlanBackend>::PlanSql>::new(prefix, query).load(conn)?;
    let handler_reads = if counters {
        Some(HandlerReads::read(conn)?)
    } else {
        None
    };
    let mut report = <Conn::Backend as PlanBackend>::read_plan(rows, &shape)?;
    report.index_recipe = index_recipe(
        &table,
        &shape,
        &equality_columns(&sql, &shape),
        <Conn::Backend as PlanBackend>::INDEX_STYLE,
    );
    report.table = table;
    report.sql = sql;
    report.handler_reads = handler_reads;
    Ok(report)
}

/// The keyset's table as plans name it (its last part) and in full, unquoted.
fn table_names<K: Keyset>() -> (String, String) {
    let parts: Vec<String> = quoted_table::<K>()
        .split("\".\"")
        .map(|p| p.trim_matches('"').replace("\"\"", "\""))
        .collect();
    let last = parts.last().cloned().unwrap_or_default();
    (last, parts.join("."))
}

/// The keyset's table quoted as Diesel writes it (`"archive"."events"`).
fn quoted_table<K: Keyset>() -> String {
    let quoted = K::sql_table_name();
    if quoted.is_empty() {
        K::TABLE_NAME
            .split("::")
            .map(|p| format!("\"{}\"", p.replace('"', "\"\"")))
            .collect::<Vec<_>>()
            .join(".")
    } else {
        quoted
    }
}

/// Whether `text` names `column` as a whole word (not inside a longer identifier).
fn mentions(text: &str, column: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(column).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + column.len()..].chars().next();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

/// The columns of the keyset's table that the page statement compares with `=` to a bound
/// value (`"t"."c" = $1`, `` `t`.`c` = ? ``), in order, without the key columns.
fn equality_columns(sql: &str, shape: &KeysetShape) -> Vec<String> {
    let sql = sql.rsplit_once(" -- binds:").map_or(sql, |(s, _)| s);
    let mut found: Vec<String> = Vec::new();
    for (at, _) in sql.match_indices(" = ") {
        let right = sql[at + 3..].trim_start();
        if !(right.starts_with('?') || right.starts_with('$')) {
            continue;
        }
        let Some((column, rest)) = quoted_before(&sql[..at]) else {
            continue;
        };
        // A qualified column must belong to the keyset's table.
        if let Some(qualifier) = rest.strip_suffix('.') {
            match quoted_before(qualifier) {
                Some((table, _)) if table == shape.relation => {}
                _ => continue,
            }
        }
        if shape.columns.iter().all(|c| c.name != column) && !found.contains(&column) {
            found.push(column);
        }
    }
    found
}

/// The quoted identifier that ends `text` (`"name"` or `` `name` ``), unquoted, and the text
/// before it.
fn quoted_before(text: &str) -> Option<(String, &str)> {
    let quote = text
        .chars()
        .next_back()
        .filter(|q| *q == '"' || *q == '`')?;
    let inner = &text[..text.len() - 1];
    let start = inner.rfind(quote)?;
    Some((inner[start + 1..].to_string(), &inner[..start]))
}

/// How a recipe writes the key columns' order.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexStyle {
    /// `ASC` / `DESC` on every key column (SQLite).
    Directions,
    /// And the NULL placement where it differs from the default (PostgreSQL).
    DirectionsAndNulls,
    /// Ascending columns, read backward for a keyset in one direction; `ASC` / `DESC` only for
    /// a keyset of mixed directions (MySQL/MariaDB: MariaDB 10.11's `EXPLAIN` leaves the parts
    /// after a descending one out of `used_key_parts`, so a descending index in one direction
    /// would hide the seek it serves).
    DescendingOnlyWhenMixed,
}

fn index_recipe(
    table: &str,
    shape: &KeysetShape,
    equality: &[String],
    style: IndexStyle,
) -> String {
    let mut names: Vec<String> = equality.to_vec();
    names.extend(shape.columns.iter().map(|c| recipe_name(c.name)));
    let mut parts: Vec<String> = equality.to_vec();
    let mixed = shape
        .columns
        .iter()
        .any(|c| Some(c.direction) != shape.columns.first().map(|f| f.direction));
    for c in shape.columns {
        let direction = match style {
            IndexStyle::DescendingOnlyWhenMixed if !mixed => String::new(),
            _ => format!(" {}", c.direction.keyword()),
        };
        let mut part = format!("{}{direction}", recipe_column(c.name));
        if style == IndexStyle::DirectionsAndNulls {
            // PostgreSQL's default placement (ASC: NULLS LAST, DESC: NULLS FIRST) is written
            // only when the keyset's differs.
            let default = match c.direction {
                SortDirection::Asc => NullsOrder::Last,
                SortDirection::Desc => NullsOrder::First,
            };
            match c.nulls {
                Some(n) if n != default => part.push_str(match n {
                    NullsOrder::First => " NULLS FIRST",
                    NullsOrder::Last => " NULLS LAST",
                }),
                _ => {}
            }
        }
        parts.push(part);
    }
    format!(
        "CREATE INDEX {}_{} ON {table} ({})",
        shape.relation,
        names.join("_"),
        parts.join(", ")
    )
}

/// A key column as a recipe writes it: the column, or for a key on an expression (named by
/// its Rust text) that text without table paths, `lower(users::name)` -> `lower(name)` (the
/// SQL of a function call; a sketch for other Rust expressions).
fn recipe_column(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(at) = rest.find("::") {
        let head = &rest[..at];
        // Drop the identifier just before `::` (the table, or a schema module).
        let keep = head.trim_end_matches(|c: char| c.is_alphanumeric() || c == '_');
        out.push_str(keep);
        rest = &rest[at + 2..];
    }
    out.push_str(rest);
    out
}

/// A key column's part of a recipe's index name: [`recipe_column`] with every run of other
/// characters than letters, digits and `_` made one `_` (`lower(name)` -> `lower_name`).
fn recipe_name(name: &str) -> String {
    let column = recipe_column(name);
    let mut out = String::with_capacity(column.len());
    for c in column.chars() {
        if c.is_alphanumeric() || c == '_' {
            out.push(c);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_matches('_').to_string()
}

fn empty_report(plan: String, reads: Vec<TableRead>, sorts: Vec<String>) -> PlanReport {
    PlanReport {
        table: String::new(),
        sql: String::new(),
        plan,
        reads,
        sorts,
        not_a_seek: Vec::new(),
        index_recipe: String::new(),
        execution_ms: None,
        handler_reads: None,
    }
}

/// The checks every backend shares, on the reads of the table: each is an index range
/// (`is_range`), and on a later page each range names a key column and one names the leading
/// key column (`carries_leading`).
fn check_reads(
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

#[cfg(feature = "postgres")]
impl PlanBackend for diesel::pg::Pg {
    type PlanSql = diesel::sql_types::Text;
    type PlanRow = String;
    const EXPLAIN: [&'static str; 2] = ["EXPLAIN (FORMAT JSON)", "EXPLAIN (ANALYZE, FORMAT JSON)"];
    /// `VERBOSE` for the `Remote SQL` of foreign scans (it also qualifies the column names in
    /// every condition, so only where a foreign table is read).
    const EXPLAIN_FOREIGN: [&'static str; 2] = [
        "EXPLAIN (VERBOSE, FORMAT JSON)",
        "EXPLAIN (ANALYZE, VERBOSE, FORMAT JSON)",
    ];
    const INDEX_STYLE: IndexStyle = IndexStyle::DirectionsAndNulls;

    /// The table and every partition below it (`pg_partition_tree`, PostgreSQL 12+), each
    /// with its `relkind` (`f`: a foreign table); none for a table not found (`to_regclass`
    /// is NULL).
    fn partitions_sql(table: &str) -> Option<String> {
        let table = table.replace('\'', "''");
        Some(format!(
            "SELECT c.relname::text AS \"Variable_name\", c.relkind::text AS \"Value\" \
             FROM (SELECT relid FROM pg_partition_tree(to_regclass('{table}')) \
             UNION SELECT to_regclass('{table}')) t JOIN pg_class c ON c.oid = t.relid \
             ORDER BY c.relname"
        ))
    }

    fn read_plan(rows: Vec<String>, shape: &KeysetShape) -> Result<PlanReport, PlanError> {
        let plan = rows.concat();
        let parsed: Value = serde_json::from_str(&plan)?;
        let root = parsed
            .get(0)
            .ok_or_else(|| PlanError::Shape("no plan in the EXPLAIN output".into()))?;
        let top = root
            .get("Plan")
            .ok_or_else(|| PlanError::Shape("no \"Plan\" in the EXPLAIN output".into()))?;
        let mut reads = Vec::new();
        let mut sorts = Vec::new();
        let mut unbounded_sorts = Vec::new();
        pg_walk(top, shape, &mut reads, &mut sorts, &mut unbounded_sorts);
        // A foreign scan is a range when its remote server is sent the seek; on a later page
        // one whose local filter holds the row-value seek was not (`SeekNotShipped`, in place
        // of the generic reasons for that scan). Another local filter on a key column (one of
        // yours postgres_fdw cannot send, `at < now()`) is not the seek.
        let unshipped: Vec<NotASeek> = reads
            .iter()
            .filter(|r| shape.had_cursor && r.remote_sql.is_some())
            .filter_map(|r| {
                let filter = r.filter.as_deref()?;
                (filter.contains("ROW(") && shape.names_key_column(filter)).then(|| {
                    NotASeek::SeekNotShipped {
                        relation: r.relation.clone(),
                        filter: filter.to_string(),
                    }
                })
            })
            .collect();
        let shipped: Vec<TableRead> = reads
            .iter()
            .filter(|r| {
                !unshipped.iter().any(|u| {
                    matches!(u, NotASeek::SeekNotShipped { relation, .. } if *relation == r.relation)
                })
            })
            .cloned()
            .collect();
        let is_index = |r: &TableRead| {
            matches!(
                r.access.as_str(),
                "Index Scan" | "Index Only Scan" | "Foreign Scan"
            )
        };
        let mut not_a_seek = unshipped;
        if !shipped.is_empty() || not_a_seek.is_empty() {
            not_a_seek.extend(check_reads(&shipped, shape, is_index, |r| {
                r.condition
                    .as_deref()
                    .is_some_and(|c| names_column(c, shape.leading()))
            }));
        }
        not_a_seek.extend(
            unbounded_sorts
                .into_iter()
                .map(|sort| NotASeek::Sort { sort }),
        );
        let mut report = empty_report(plan, reads, sorts);
        report.not_a_seek = not_a_seek;
        report.execution_ms = root.get("Execution Time").and_then(Value::as_f64);
        Ok(report)
    }
}

/// PostgreSQL's plan tree: the reads of the table, every sort, and the sorts with a read of
/// the table below them and no `Limit` in between.
#[cfg(feature = "postgres")]
fn pg_walk(
    node: &Value,
    shape: &KeysetShape,
    reads: &mut Vec<TableRead>,
    sorts: &mut Vec<String>,
    unbounded: &mut Vec<String>,
) {
    let text = |key: &str| node.get(key).and_then(Value::as_str).map(str::to_string);
    let node_type = text("Node Type").unwrap_or_default();
    let relation = node.get("Relation Name").and_then(Value::as_str);
    if let Some(relation) = relation.filter(|r| shape.is_table(r)) {
        let remote_sql = text("Remote SQL");
        let condition = match &remote_sql {
            Some(remote) => remote_where(remote),
            None => text("Index Cond"),
        };
        reads.push(TableRead {
            relation: relation.to_string(),
            access: node_type.clone(),
            index: text("Index Name"),
            condition,
            filter: text("Filter"),
            backward: node.get("Scan Direction").and_then(Value::as_str) == Some("Backward"),
            rows: node.get("Actual Rows").and_then(Value::as_f64),
            rows_removed_by_filter: node.get("Rows Removed by Filter").and_then(Value::as_f64),
            loops: node.get("Actual Loops").and_then(Value::as_f64),
            remote_sql,
        });
    }
    if node_type.ends_with("Sort") {
        let key = node
            .get("Sort Key")
            .map(Value::to_string)
            .unwrap_or_default();
        let sort = format!("{node_type} on {key}");
        sorts.push(sort.clone());
        if pg_reads_below_without_limit(node, shape) {
            unbounded.push(sort);
        }
    }
    for child in node
        .get("Plans")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        pg_walk(child, shape, reads, sorts, unbounded);
    }
}

/// The `WHERE` of postgres_fdw's remote SQL (`SELECT .. FROM t WHERE .. ORDER BY ..`): the
/// conditions the remote server was sent, without the `ORDER BY`, `LIMIT` or `FOR` after.
#[cfg(feature = "postgres")]
fn remote_where(remote: &str) -> Option<String> {
    let (_, rest) = remote.split_once(" WHERE ")?;
    let end = [" ORDER BY ", " LIMIT ", " FOR UPDATE", " FOR SHARE"]
        .iter()
        .filter_map(|tail| rest.find(tail))
        .min()
        .unwrap_or(rest.len());
    Some(rest[..end].to_string())
}

#[cfg(feature = "postgres")]
fn pg_reads_below_without_limit(node: &Value, shape: &KeysetShape) -> bool {
    node.get("Plans")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|child| {
            if child.get("Node Type").and_then(Value::as_str) == Some("Limit") {
                return false;
            }
            child
                .get("Relation Name")
                .and_then(Value::as_str)
                .is_some_and(|r| shape.is_table(r))
                || pg_reads_below_without_limit(child, shape)
        })
}

#[cfg(feature = "sqlite")]
impl PlanBackend for diesel::sqlite::Sqlite {
    type PlanSql = (
        diesel::sql_types::Integer,
        diesel::sql_types::Integer,
        diesel::sql_types::Integer,
        diesel::sql_types::Text,
    );
    type PlanRow = (i32, i32, i32, String);
    const EXPLAIN: [&'static str; 2] = ["EXPLAIN QUERY PLAN", "EXPLAIN QUERY PLAN"];

    fn read_plan(
        rows: Vec<(i32, i32, i32, String)>,
        shape: &KeysetShape,
    ) -> Result<PlanReport, PlanError> {
        let plan = rows
            .iter()
            .map(|(id, parent, _, detail)| format!("{id} {parent} {detail}"))
            .collect::<Vec<_>>()
            .join("\n");
        // `SEARCH t USING [COVERING] INDEX i (constraint)`, `SCAN t [USING [COVERING] INDEX i]`.
        let read_of = |detail: &str| -> Option<TableRead> {
            let (access, rest) = detail.split_once(' ')?;
            if !matches!(access, "SEARCH" | "SCAN") {
                return None;
            }
            let rest = rest.strip_prefix(shape.relation.as_str())?;
            if !(rest.is_empty() || rest.starts_with(' ')) {
                return None;
            }
            let using = rest.trim_start();
            let index = ["USING COVERING INDEX ", "USING INDEX "]
                .iter()
                .find_map(|p| using.strip_prefix(p))
                .map(|i| i.split(' ').next().unwrap_or_default().to_string())
                .or_else(|| {
                    using
                        .contains("PRIMARY KEY")
                        .then(|| "PRIMARY KEY".to_string())
                });
            let condition = using
                .find('(')
                .map(|at| using[at + 1..using.len().saturating_sub(1)].to_string());
            Some(TableRead {
                relation: shape.relation.clone(),
                access: access.to_string(),
                index,
                // SQLite names an INTEGER PRIMARY KEY `rowid` in the constraint.
                condition: condition.map(|c| match shape.columns {
                    [only] => c.replace("rowid", only.name),
                    _ => c,
                }),
                filter: None,
                backward: false,
                rows: None,
                loops: None,
                remote_sql: None,
                rows_removed_by_filter: None,
            })
        };
        let mut reads = Vec::new();
        let mut sorts = Vec::new();
        let mut not_a_seek = Vec::new();
        for (_, parent, _, detail) in &rows {
            if let Some(read) = read_of(detail) {
                reads.push(read);
            }
            if detail.contains("TEMP B-TREE") && detail.contains("ORDER BY") {
                sorts.push(detail.clone());
                // The sort's siblings are what it sorts: the table itself, or a limited arm.
                let sorts_table = rows
                    .iter()
                    .any(|(_, p, _, d)| p == parent && read_of(d).is_some());
                if sorts_table {
                    not_a_seek.push(NotASeek::Sort {
                        sort: detail.clone(),
                    });
                }
            }
        }
        let first_page = !shape.had_cursor;
        let mut reasons = check_reads(
            &reads,
            shape,
            |r| r.access == "SEARCH" || (first_page && r.index.is_some()),
            |r| {
                r.condition
                    .as_deref()
                    .is_some_and(|c| names_column(c, shape.leading()))
            },
        );
        reasons.append(&mut not_a_seek);
        let mut report = empty_report(plan, reads, sorts);
        report.not_a_seek = reasons;
        Ok(report)
    }
}

#[cfg(feature = "mysql")]
impl PlanBackend for diesel::mysql::Mysql {
    type PlanSql = diesel::sql_types::Text;
    type PlanRow = String;
    const EXPLAIN: [&'static str; 2] = ["EXPLAIN FORMAT=JSON", "ANALYZE FORMAT=JSON"];
    const HANDLER_COUNTERS: bool = true;
    const INDEX_STYLE: IndexStyle = IndexStyle::DescendingOnlyWhenMixed;

    fn read_plan(rows: Vec<String>, shape: &KeysetShape) -> Result<PlanReport, PlanError> {
        let plan = rows.concat();
        let parsed: Value = serde_json::from_str(&plan)?;
        if parsed.get("query_block").is_none() {
            return Err(PlanError::Shape(
                "no \"query_block\" in the EXPLAIN output".into(),
            ));
        }
        let mut reads = Vec::new();
        let mut sorts = Vec::new();
        let mut unbounded = Vec::new();
        my_walk(&parsed, shape, None, &mut reads, &mut sorts, &mut unbounded);
        let is_range = |r: &TableRead| {
            r.index.is_some() && matches!(r.access.as_str(), "range" | "ref" | "eq_ref" | "const")
        };
        let mut not_a_seek = check_reads(&reads, shape, is_range, |r| {
            r.access == "range"
                && r.condition
                    .as_deref()
                    .is_some_and(|c| c.split(", ").any(|p| p == shape.leading()))
        });
        not_a_seek.extend(unbounded.into_iter().map(|sort| NotASeek::Sort { sort }));
        let mut report = empty_report(plan, reads, sorts);
        report.not_a_seek = not_a_seek;
        Ok(report)
    }
}

/// MySQL/MariaDB's JSON plan: every `"table"` object naming the keyset's table is a read;
/// every `"filesort"` a sort, unbounded when it covers a read of the table that is not a fetch
/// by unique key (`inside`: the innermost filesort above, within the same query block).
#[cfg(feature = "mysql")]
fn my_walk(
    value: &Value,
    shape: &KeysetShape,
    inside: Option<&str>,
    reads: &mut Vec<TableRead>,
    sorts: &mut Vec<String>,
    unbounded: &mut Vec<String>,
) {
    match value {
        Value::Object(map) => {
            if let Some(Value::Object(table)) = map.get("table") {
                let text = |key: &str| table.get(key).and_then(Value::as_str).map(str::to_string);
                if text("table_name").as_deref() == Some(shape.relation.as_str()) {
                    let access = text("access_type").unwrap_or_default();
                    if let Some(sort) = inside {
                        if !matches!(access.as_str(), "eq_ref" | "const" | "system")
                            && !unbounded.iter().any(|u| u == sort)
                        {
                            unbounded.push(sort.to_string());
                        }
                    }
                    let parts = table
                        .get("used_key_parts")
                        .and_then(Value::as_array)
                        .map(|p| {
                            p.iter()
                                .filter_map(Value::as_str)
                                .collect::<Vec<_>>()
                                .join(", ")
                        });
                    reads.push(TableRead {
                        relation: shape.relation.clone(),
                        access,
                        index: text("key"),
                        condition: parts,
                        filter: text("attached_condition"),
                        backward: false,
                        rows: table.get("r_rows").and_then(Value::as_f64),
                        rows_removed_by_filter: None,
                        loops: None,
                        remote_sql: None,
                    });
                }
            }
            for (key, child) in map {
                if key == "filesort" {
                    let sort_key = child.get("sort_key").and_then(Value::as_str).unwrap_or("");
                    let sort = format!("filesort on {sort_key}");
                    sorts.push(sort.clone());
                    my_walk(child, shape, Some(&sort), reads, sorts, unbounded);
                } else if key == "query_block" {
                    // A nested query block (a derived table, a subquery) has its own LIMIT.
                    my_walk(child, shape, None, reads, sorts, unbounded);
                } else {
                    my_walk(child, shape, inside, reads, sorts, unbounded);
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                my_walk(item, shape, inside, reads, sorts, unbounded);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keyset::{KeyColumn, SortDirection};

    const KEY: &[KeyColumn] = &[
        KeyColumn {
            name: "occurred_at",
            field: "occurred_at",
            direction: SortDirection::Desc,
            nulls: None,
        },
        KeyColumn {
            name: "event_id",
            field: "event_id",
            direction: SortDirection::Desc,
            nulls: None,
        },
    ];

    fn shape() -> KeysetShape {
        KeysetShape {
            relation: "events".into(),
            columns: KEY,
            had_cursor: true,
            partitions: Vec::new(),
        }
    }

    /// PostgreSQL names a partitioned table's reads by partition: they count as the table's
    /// (relation and `Actual Loops` kept), and an unknown relation does not.
    #[cfg(feature = "postgres")]
    #[test]
    fn partition_reads_are_reads_of_the_table() {
        use diesel::pg::Pg;
        let scan = |relation: &str, loops: u32| {
            format!(
                r#"{{"Node Type": "Index Scan", "Relation Name": "{relation}",
                   "Index Name": "{relation}_idx", "Scan Direction": "Forward",
                   "Index Cond": "(ROW(occurred_at, event_id) > ROW($1, $2))",
                   "Actual Rows": {rows}, "Actual Loops": {loops}}}"#,
                rows = loops * 3
            )
        };
        let plan = format!(
            r#"[{{"Plan": {{"Node Type": "Limit", "Plans": [{{"Node Type": "Append",
               "Plans": [{}, {}, {}]}}]}}}}]"#,
            scan("events_1", 1),
            scan("events_2", 0),
            scan("other", 1)
        );
        let parted = KeysetShape {
            partitions: vec!["events_1".into(), "events_2".into()],
            ..shape()
        };
        let report = <Pg as PlanBackend>::read_plan(vec![plan.clone()], &parted).unwrap();
        assert!(report.seeks(), "{:?}", report.not_a_seek);
        let reads: Vec<_> = report
            .reads
            .iter()
            .map(|r| (r.relation.as_str(), r.loops, r.rows))
            .collect();
        assert_eq!(
            reads,
            [
                ("events_1", Some(1.0), Some(3.0)),
                ("events_2", Some(0.0), Some(0.0))
            ]
        );
        // Without the partition list, the table is never read: not a seek.
        let report = <Pg as PlanBackend>::read_plan(vec![plan], &shape()).unwrap();
        assert!(report.reads.is_empty());
        assert!(!report.seeks());
        let sql = <Pg as PlanBackend>::partitions_sql("\"a'b\".\"events\"").unwrap();
        assert!(sql.contains("to_regclass('\"a''b\".\"events\"')"), "{sql}");
    }

    /// A foreign partition is a read of the table; it seeks when its remote SQL carries the
    /// seek, and a seek left in its local filter is `SeekNotShipped`, not a generic reason.
    #[cfg(feature = "postgres")]
    #[test]
    fn foreign_scans_seek_when_the_remote_is_sent_the_seek() {
        use diesel::pg::Pg;
        let plan = |filter: &str, remote_where: &str| {
            let filter = if filter.is_empty() {
                String::new()
            } else {
                format!(r#""Filter": "{filter}","#)
            };
            let scan = |relation: &str| {
                format!(
                    r#"{{"Node Type": "Foreign Scan", "Relation Name": "{relation}", {filter}
                       "Remote SQL": "SELECT occurred_at, event_id FROM public.rows WHERE {remote_where} ORDER BY occurred_at ASC NULLS LAST, event_id ASC NULLS LAST"}}"#
                )
            };
            format!(
                r#"[{{"Plan": {{"Node Type": "Limit", "Plans": [{{"Node Type": "Merge Append",
                   "Sort Key": ["occurred_at", "event_id"], "Plans": [{}, {}]}}]}}}}]"#,
                scan("events_0"),
                scan("events_1")
            )
        };
        let parted = KeysetShape {
            partitions: vec!["events_0".into(), "events_1".into()],
            ..shape()
        };
        let shipped = plan(
            "",
            "((occurred_at >= $1)) AND ((workspace_id = $3)) AND (((occurred_at > $1) OR ((occurred_at = $1) AND (event_id > $2))))",
        );
        let report = <Pg as PlanBackend>::read_plan(vec![shipped], &parted).unwrap();
        assert!(report.seeks(), "{:?}", report.not_a_seek);
        // A filter of the caller's that stays local (postgres_fdw does not send `now()`) is
        // not the seek: still a seek.
        let own_filter = plan(
            "(events_0.occurred_at < now())",
            "((occurred_at >= $1)) AND (((occurred_at > $1) OR ((occurred_at = $1) AND (event_id > $2))))",
        );
        let report = <Pg as PlanBackend>::read_plan(vec![own_filter], &parted).unwrap();
        assert!(report.seeks(), "{:?}", report.not_a_seek);
        assert_eq!(report.reads.len(), 2);
        assert!(report.reads[0]
            .condition
            .as_deref()
            .is_some_and(|c| c.starts_with("((occurred_at >= $1))") && !c.contains("ORDER BY")));
        assert!(report.reads[0].remote_sql.is_some());

        // The row value stays local: the remote WHERE has only the filter (the ORDER BY names
        // the key columns, and must not count).
        let local = plan(
            "(ROW(events_0.occurred_at, events_0.event_id) > ROW($1, $2))",
            "((workspace_id = $3))",
        );
        let report = <Pg as PlanBackend>::read_plan(vec![local], &parted).unwrap();
        assert!(!report.seeks());
        assert!(
            matches!(&report.not_a_seek[0], NotASeek::SeekNotShipped { relation, .. } if relation == "events_0"),
            "{:?}",
            report.not_a_seek
        );
        assert!(report
            .not_a_seek
            .iter()
            .all(|r| !matches!(r, NotASeek::SeekNotInIndex { .. })));
        assert_eq!(report.not_a_seek.len(), 2, "{:?}", report.not_a_seek);
        assert!(report.failure().contains(".expanded_seek(true)"));
        assert!(report.failure().contains("on each remote table"));
        assert_eq!(
            remote_where("SELECT a FROM t WHERE ((a > 1)) ORDER BY a ASC LIMIT 3").as_deref(),
            Some("((a > 1))")
        );
        assert_eq!(remote_where("SELECT a FROM t ORDER BY a"), None);
    }

    /// A key on an expression is named by its Rust text: plans name the column it reads
    /// (PostgreSQL) or `<expr>` (SQLite), and a recipe writes it without table paths.
    #[test]
    fn expression_keys_in_plans_and_recipes() {
        let pg = "(ROW(lower((name)::text), id) > ROW('bob'::text, '10371'::bigint))";
        assert!(names_column(pg, "lower(users::name)"));
        assert!(!names_column(pg, "lower(users::nick)"));
        assert!(names_column("(<expr>>?)", "lower(users::name)"));
        assert!(!names_column("(<expr>>?)", "name"));
        assert!(names_column("(name > $1)", "authors::name"));
        assert!(!names_column("(surname > $1)", "authors::name"));
        assert_eq!(recipe_column("lower(users::name)"), "lower(name)");
        assert_eq!(
            recipe_column("coalesce(app::users::nick,users::name)"),
            "coalesce(nick,name)"
        );
        assert_eq!(recipe_column("occurred_at"), "occurred_at");
        assert_eq!(recipe_name("lower(users::name)"), "lower_name");
        assert_eq!(
            recipe_name("coalesce(users::nick,users::name)"),
            "coalesce_nick_name"
        );
        const EXPR: &[KeyColumn] = &[
            KeyColumn {
                name: "lower(people::name)",
                field: "folded",
                direction: SortDirection::Asc,
                nulls: None,
            },
            KeyColumn {
                name: "id",
                field: "id",
                direction: SortDirection::Asc,
                nulls: None,
            },
        ];
        let shape = KeysetShape {
            relation: "people".into(),
            columns: EXPR,
            had_cursor: true,
            partitions: Vec::new(),
        };
        assert_eq!(
            index_recipe("people", &shape, &[], IndexStyle::Directions),
            "CREATE INDEX people_lower_name_id ON people (lower(name) ASC, id ASC)"
        );
    }

    #[test]
    fn equality_columns_are_the_tables_columns_compared_to_a_bind() {
        let pg = r#"SELECT "events"."message" FROM "events" WHERE (("events"."workspace_id" = $1) AND ("events"."kind" = $2)) AND ("other"."x" = $3) AND ("events"."n" > $4) AND ("events"."occurred_at" = $5) ORDER BY 1 -- binds: ["a = $9"]"#;
        assert_eq!(equality_columns(pg, &shape()), ["workspace_id", "kind"]);
        let my = "SELECT `events`.`message` FROM `events` WHERE (`events`.`workspace_id` = ?) AND `workspace_id` = ? -- binds: []";
        assert_eq!(equality_columns(my, &shape()), ["workspace_id"]);
    }

    #[test]
    fn the_recipe_lists_equality_columns_then_the_key_in_order_and_direction() {
        let recipe = |style| index_recipe("events", &shape(), &["workspace_id".into()], style);
        assert_eq!(
            recipe(IndexStyle::Directions),
            "CREATE INDEX events_workspace_id_occurred_at_event_id ON events \
             (workspace_id, occurred_at DESC, event_id DESC)"
        );
        // One direction on MySQL: ascending, read backward.
        assert_eq!(
            recipe(IndexStyle::DescendingOnlyWhenMixed),
            "CREATE INDEX events_workspace_id_occurred_at_event_id ON events \
             (workspace_id, occurred_at, event_id)"
        );
    }

    #[test]
    fn columns_are_matched_as_whole_words() {
        assert!(mentions("ROW(at, id) > ROW($1)", "at"));
        assert!(!mentions("'2020'::timestamp", "at"));
        assert!(!mentions("created_at > 1", "at"));
    }
}
