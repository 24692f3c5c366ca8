//! What a plan check reports: [`PlanReport`], its reads of the table ([`TableRead`]), the
//! reasons a page is not a seek ([`NotASeek`]), MySQL's [`HandlerReads`], and [`PlanError`].

use std::fmt;

use diesel::connection::Connection;
use diesel::query_dsl::methods::LoadQuery;
use diesel::query_dsl::RunQueryDsl;

use crate::error::KeysetError;

/// Why a plan check could not run. The check itself never fails on a bad plan: that is
/// [`PlanReport::not_a_seek`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PlanError {
    /// The page could not be built ([`Paginated::into_query`](crate::Paginated::into_query)'s errors).
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
    /// [`explain_analyze`](super::explain_analyze).
    pub rows: Option<f64>,
    /// Rows the read discarded by its filter (PostgreSQL's `Rows Removed by Filter`): only
    /// from [`explain_analyze`](super::explain_analyze).
    pub rows_removed_by_filter: Option<f64>,
    /// Times the read ran (PostgreSQL's `Actual Loops`: `Some(0.0)` for a partition the page
    /// never reached, `never executed` in the text plan): only from [`explain_analyze`](super::explain_analyze) on
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
    /// The page is an index range but read far more index entries or rows than it fetched
    /// (only from [`explain_analyze`](super::explain_analyze), which counts them:
    /// PostgreSQL's actual rows plus rows removed by filter, MariaDB's handler reads). The
    /// usual cause: a mixed-direction keyset whose leading column has few distinct values
    /// (a status, a type). The expanded form's leading bound (`kind >= $1`) is the index
    /// range, and the rest of the cursor's group before the cursor is read and filtered.
    /// Remedy: [`Paginated::seek_per_level`](crate::Paginated::seek_per_level) (one index
    /// range per key level, each starting at the cursor), or an index whose column directions
    /// match the keyset's so the seek is one row-value range.
    ReadsPastThePage {
        /// Index entries and rows the statement read.
        examined: u64,
        /// Rows the page fetches (`page_size + 1`).
        fetched: u64,
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
            NotASeek::ReadsPastThePage { examined, fetched } => write!(
                f,
                "the page read {examined} index entries or rows to fetch {fetched}: its index \
                 range starts before the cursor, or a filter outside the index discards rows; \
                 for a mixed-direction keyset whose leading column has few distinct values (a \
                 status, a type) call `.seek_per_level(true)` on the page; otherwise create \
                 the index of the recipe (your equality filters, then the keyset in its \
                 directions)"
            ),
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
        let rows: Vec<StatusRow> = diesel::sql_query(super::HANDLER_STATUS).load(conn)?;
        Ok(HandlerReads::from_status(&rows))
    }

    /// The counters from the rows of `SHOW SESSION STATUS LIKE 'Handler\\_%'`.
    pub(crate) fn from_status(rows: &[StatusRow]) -> HandlerReads {
        let get = |name: &str| -> u64 {
            rows.iter()
                .find(|r| r.name == name)
                .and_then(|r| r.value.parse().ok())
                .unwrap_or(0)
        };
        HandlerReads {
            read_key: get("Handler_read_key"),
            read_next: get("Handler_read_next"),
            read_prev: get("Handler_read_prev"),
            icp_attempts: get("Handler_icp_attempts"),
            read_rnd_next: get("Handler_read_rnd_next"),
        }
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
    pub(super) name: String,
    #[diesel(sql_type = diesel::sql_types::Text)]
    #[diesel(column_name = Value)]
    pub(super) value: String,
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
    /// PostgreSQL). The same recipe whether or not the page seeks. Every identifier is quoted
    /// with the backend's quoting (`"name"`, `` `name` ``). Empty when a filter column's name
    /// (which the query's SQL chose, a raw SQL filter included) is not a plain identifier
    /// (ASCII letters, digits, `_`, at most 63 bytes): a recipe is meant to be run.
    pub index_recipe: String,
    /// PostgreSQL's `Execution Time` in ms: only from [`explain_analyze`](super::explain_analyze).
    pub execution_ms: Option<f64>,
    /// MySQL/MariaDB handler counters of the analyzed statement: only from
    /// [`explain_analyze`](super::explain_analyze).
    pub handler_reads: Option<HandlerReads>,
    /// Index entries and rows the statement read (PostgreSQL: each read's actual rows plus
    /// rows removed by filter, times its loops; MariaDB: [`HandlerReads::index_reads`] plus
    /// `read_rnd_next`), to set against [`PlanReport::fetched`]: only from
    /// [`explain_analyze`](super::explain_analyze), never on SQLite (no executed plan). With
    /// a total count (`with_total_count`) it includes the count's reads, and the check does
    /// not judge it.
    pub rows_examined: Option<u64>,
    /// Rows the page fetches: `page_size + 1`.
    pub fetched: u64,
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
        if self.index_recipe.is_empty() {
            out.push_str(
                "no index recipe: a filter column's name is not a plain identifier; index your \
                 equality filters' columns, then the key in keyset order and direction\n",
            );
        } else {
            out.push_str(&format!(
                "create the index the keyset rides on (equality filters, then the key in keyset order and direction):\n  {};\n",
                self.index_recipe
            ));
        }
        out.push_str(&format!("statement: {}\nplan:\n{}", self.sql, self.plan));
        out
    }
}

pub(super) fn empty_report(plan: String, reads: Vec<TableRead>, sorts: Vec<String>) -> PlanReport {
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
        rows_examined: None,
        fetched: 0,
    }
}
