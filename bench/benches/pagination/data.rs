//! The data set, loaded once per backend with set-based SQL and reused while it is complete.
//!
//! Rows are numbered `id = 1..=ROWS`; of every 13 consecutive ids, 10 belong to tenant 1 and
//! one each to tenants 2, 3 and 4 (so tenants are interleaved on disk, as in a shared table).
//! `k` numbers a tenant's rows from 0. Then `at = 2026-01-01 + k / 10 seconds` (10 rows per
//! timestamp), `score = k * 7919 % 100000` (about 10 rows per score in tenant 1),
//! `grade = k * 7919 % 100` (about 10,000 rows per grade in tenant 1) and `payload` is about 80
//! characters of text that no index covers.

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};

/// Rows in the table.
pub const ROWS: i64 = 1_300_100;
/// The tenant every depth is measured in, and its size.
pub const BIG_TENANT: i32 = 1;
pub const BIG_TENANT_ROWS: i64 = 1_000_079;
/// A tenant of 100,007 rows, for the walk.
pub const SMALL_TENANT: i32 = 2;
pub const SMALL_TENANT_ROWS: i64 = 100_007;
/// Written last by the load: its presence (with the row count) means the data is complete.
/// Change it when the generator changes.
pub const DATA_VERSION: &str =
    "keyset-bench data v1: 1300100 rows, tenants 1-4 (10:1:1:1), ties 10/10/10000";

#[derive(QueryableByName)]
pub struct Count {
    #[diesel(sql_type = BigInt)]
    pub n: i64,
}

#[derive(QueryableByName)]
pub struct Version {
    #[diesel(sql_type = Text)]
    pub version: String,
}

/// Whether the loaded data is this version's and complete.
pub fn is_complete<C>(conn: &mut C) -> bool
where
    C: Connection,
    diesel::query_builder::SqlQuery: diesel::query_dsl::LoadQuery<'static, C, Version>
        + diesel::query_dsl::LoadQuery<'static, C, Count>,
{
    is_complete_as(conn, ROWS, DATA_VERSION)
}

/// Whether the loaded data is `version` with `rows` rows (the instruction counts load a
/// small table of the same kind).
pub fn is_complete_as<C>(conn: &mut C, rows: i64, version: &str) -> bool
where
    C: Connection,
    diesel::query_builder::SqlQuery: diesel::query_dsl::LoadQuery<'static, C, Version>
        + diesel::query_dsl::LoadQuery<'static, C, Count>,
{
    let found: QueryResult<Vec<Version>> =
        diesel::sql_query("SELECT version FROM bench_meta").load(conn);
    let Ok(found) = found else { return false };
    if found.len() != 1 || found[0].version != version {
        return false;
    }
    let count: QueryResult<Vec<Count>> =
        diesel::sql_query("SELECT COUNT(*) AS n FROM bench_rows").load(conn);
    matches!(count.as_deref(), Ok([c]) if c.n == rows)
}

/// The SQL of `tenant` and `k` from the row number `id` (`div`: integer division).
fn tenant_and_k(div: &str, id: &str) -> (String, String) {
    (
        format!("CASE WHEN ({id} - 1) % 13 < 10 THEN 1 ELSE ({id} - 1) % 13 - 8 END"),
        format!(
            "CASE WHEN ({id} - 1) % 13 < 10 THEN (({id} - 1) {div} 13) * 10 + ({id} - 1) % 13 \
             ELSE ({id} - 1) {div} 13 END"
        ),
    )
}

const PAYLOAD: &str = " lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod";

/// The keysets' indexes on `bench_rows`.
pub const INDEXES: &str = "
CREATE INDEX bench_rows_tenant_at_id ON bench_rows (tenant, at, id);
CREATE INDEX bench_rows_tenant_score_id ON bench_rows (tenant, score DESC, id);
CREATE INDEX bench_rows_tenant_grade_id ON bench_rows (tenant, grade DESC, id);
";

/// PostgreSQL: schema `keyset_bench` (the connection's `search_path` must point there).
pub fn load_postgres(conn: &mut PgConnection) -> QueryResult<()> {
    fill_postgres(conn, ROWS, DATA_VERSION)
}

/// [`load_postgres`] with `rows` rows, marked as `version`.
pub fn fill_postgres(conn: &mut PgConnection, rows: i64, version: &str) -> QueryResult<()> {
    conn.batch_execute(&format!(
        "SET client_min_messages TO warning;
         DROP TABLE IF EXISTS bench_meta;
         DROP TABLE IF EXISTS bench_rows;
         CREATE TABLE bench_rows (
             id BIGINT PRIMARY KEY, tenant INTEGER NOT NULL, at TIMESTAMP NOT NULL,
             score INTEGER NOT NULL, grade INTEGER NOT NULL, payload TEXT NOT NULL);
         INSERT INTO bench_rows {};
         {INDEXES}",
        postgres_rows(rows)
    ))?;
    // Not inside the implicit transaction of a multi-statement batch.
    conn.batch_execute("VACUUM ANALYZE bench_rows")?;
    conn.batch_execute(&format!(
        "CREATE TABLE bench_meta (version TEXT NOT NULL);
         INSERT INTO bench_meta VALUES ('{version}');"
    ))
}

/// PostgreSQL: the `SELECT` of the data set's first `rows` rows, in `bench_rows`' column order.
pub fn postgres_rows(rows: i64) -> String {
    postgres_rows_from(rows, "2026-01-01 00:00:00", "1 second")
}

/// [`postgres_rows`] with `at` starting at `start` and `step` apart per run of 10 ties.
pub fn postgres_rows_from(rows: i64, start: &str, step: &str) -> String {
    let (tenant, k) = tenant_and_k("/", "id");
    format!(
        "SELECT id, tenant, TIMESTAMP '{start}' + (k / 10) * INTERVAL '{step}',
                (k * 7919) % 100000, (k * 7919) % 100, 'event ' || id || '{PAYLOAD}'
         FROM (SELECT id, {tenant} AS tenant, {k} AS k
               FROM generate_series(1::BIGINT, {rows}::BIGINT) AS id) AS s"
    )
}

/// SQLite: the connection's main database file.
pub fn load_sqlite(conn: &mut SqliteConnection) -> QueryResult<()> {
    fill_sqlite(conn, ROWS, DATA_VERSION)
}

/// [`load_sqlite`] with `rows` rows, marked as `version`.
pub fn fill_sqlite(conn: &mut SqliteConnection, rows: i64, version: &str) -> QueryResult<()> {
    let (tenant, k) = tenant_and_k("/", "id");
    conn.batch_execute(&format!(
        "PRAGMA journal_mode = OFF;
         PRAGMA synchronous = OFF;
         DROP TABLE IF EXISTS bench_meta;
         DROP TABLE IF EXISTS bench_rows;
         CREATE TABLE bench_rows (
             id BIGINT NOT NULL PRIMARY KEY, tenant INTEGER NOT NULL, at TIMESTAMP NOT NULL,
             score INTEGER NOT NULL, grade INTEGER NOT NULL, payload TEXT NOT NULL);
         INSERT INTO bench_rows
         WITH RECURSIVE seq(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM seq WHERE id < {rows})
         SELECT id, tenant, datetime('2026-01-01 00:00:00', (k / 10) || ' seconds'),
                (k * 7919) % 100000, (k * 7919) % 100, 'event ' || id || '{PAYLOAD}'
         FROM (SELECT id, {tenant} AS tenant, {k} AS k FROM seq);
         {INDEXES}
         ANALYZE;
         CREATE TABLE bench_meta (version TEXT NOT NULL);
         INSERT INTO bench_meta VALUES ('{version}');
         PRAGMA journal_mode = DELETE;
         PRAGMA synchronous = FULL;"
    ))
}

/// MariaDB/MySQL: database `keyset_bench` (the connection's default database).
pub fn load_mysql(conn: &mut MysqlConnection) -> QueryResult<()> {
    fill_mysql(conn, ROWS, DATA_VERSION)
}

/// [`load_mysql`] with `rows` rows, marked as `version`.
pub fn fill_mysql(conn: &mut MysqlConnection, rows: i64, version: &str) -> QueryResult<()> {
    let (tenant, k) = tenant_and_k("DIV", "seq");
    conn.batch_execute(&format!(
        "DROP TABLE IF EXISTS bench_meta;
         DROP TABLE IF EXISTS bench_rows;
         CREATE TABLE bench_rows (
             id BIGINT NOT NULL PRIMARY KEY, tenant INTEGER NOT NULL, at DATETIME(6) NOT NULL,
             score INTEGER NOT NULL, grade INTEGER NOT NULL, payload TEXT NOT NULL
         ) ENGINE = InnoDB;
         INSERT INTO bench_rows
         SELECT id, tenant, TIMESTAMPADD(SECOND, k DIV 10, '2026-01-01 00:00:00'),
                (k * 7919) % 100000, (k * 7919) % 100, CONCAT('event ', id, '{PAYLOAD}')
         FROM (SELECT seq AS id, {tenant} AS tenant, {k} AS k FROM seq_1_to_{rows}) AS s;
         {INDEXES}
         ANALYZE TABLE bench_rows;
         CREATE TABLE bench_meta (version TEXT NOT NULL);
         INSERT INTO bench_meta VALUES ('{version}');"
    ))
}
