//! One isolated, migrated database per test: an in-memory SQLite database, a fresh PostgreSQL
//! schema, or a fresh MySQL database, dropped again when the [`Fixture`] is dropped. Tests run
//! in parallel processes, so nothing is shared between them.
//!
//! A suite whose server is not reachable fails loudly: it is never skipped.

use std::ops::{Deref, DerefMut};

use chrono::{NaiveDateTime, NaiveTime};
use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::BigInt;
use keyset_diesel::KeysetBackend;

use crate::schema::{events, keyset_groups, keyset_rows, plan_rows};
use crate::values::UserId;

/// A row of `keyset_rows`.
#[derive(Debug, Clone, PartialEq, Insertable)]
#[diesel(table_name = keyset_rows)]
pub struct Row {
    pub id: i64,
    pub tenant: i32,
    pub a: i32,
    pub b: String,
    pub c: NaiveDateTime,
    pub d: bool,
    pub e: i16,
    pub na: Option<i32>,
    pub nb: Option<String>,
    pub f: f64,
    pub g: Vec<u8>,
    pub nh: Option<NaiveTime>,
    /// A newtype key (`#[derive(KeyValue)]`).
    pub k: UserId,
    pub fr: f32,
    pub n: bigdecimal::BigDecimal,
    /// The `time` crate's timestamp, written by its own encoding.
    pub tt: time::PrimitiveDateTime,
    pub ntd: Option<time::Date>,
    /// `BIGINT UNSIGNED`, on MySQL only (written there after the insert).
    #[diesel(skip_insertion)]
    pub u: u64,
    /// `UUID`, on PostgreSQL only (written there after the insert).
    #[diesel(skip_insertion)]
    pub uu: uuid::Uuid,
    /// The enum `stage`, on PostgreSQL only (written there after the insert): an index into
    /// the labels in declaration order, `todo`, `doing`, `done`.
    #[diesel(skip_insertion)]
    pub st: usize,
}

impl Row {
    /// A row with every other column at a default value.
    pub fn new(id: i64) -> Row {
        Row {
            id,
            tenant: 0,
            a: 0,
            b: String::new(),
            c: crate::at(0, 0),
            d: false,
            e: 0,
            na: None,
            nb: None,
            f: 0.0,
            g: Vec::new(),
            nh: None,
            k: UserId(0),
            fr: 0.0,
            n: bigdecimal::BigDecimal::from(0),
            tt: time::PrimitiveDateTime::new(
                time::Date::from_calendar_date(2026, time::Month::October, 10).expect("valid date"),
                time::Time::MIDNIGHT,
            ),
            ntd: None,
            u: 0,
            uu: uuid::Uuid::nil(),
            st: 0,
        }
    }
}

/// A row of `keyset_groups`, joined to `keyset_rows` on `a = group_id`.
#[derive(Debug, Clone, PartialEq, Insertable)]
#[diesel(table_name = keyset_groups)]
pub struct Group {
    pub group_id: i32,
    pub group_name: String,
    pub group_rank: Option<i32>,
}

/// A row of `events`.
#[derive(Debug, Clone, PartialEq, Insertable)]
#[diesel(table_name = events)]
pub struct NewEvent {
    pub event_id: String,
    pub workspace_id: String,
    pub occurred_at: NaiveDateTime,
    pub message: String,
}

/// A row of `plan_rows`.
#[derive(Debug, Clone, PartialEq, Insertable)]
#[diesel(table_name = plan_rows)]
pub struct PlanRow {
    pub id: i64,
    pub tenant: i32,
    pub at: NaiveDateTime,
    pub score: i32,
    pub maybe: Option<i32>,
    pub payload: String,
}

#[derive(QueryableByName)]
struct IdRow {
    #[diesel(sql_type = BigInt)]
    id: i64,
}

/// What every backend suite needs from its connection. Implemented for each backend's
/// connection type with concrete Diesel code.
pub trait TestDb: Connection<Backend: KeysetBackend> + Sized + 'static {
    /// "SQLite", "PostgreSQL" or "MySQL".
    const NAME: &'static str;
    /// A fresh, isolated database with all migrations applied.
    fn open() -> Fixture<Self>;
    /// Runs `sql`, which selects one BIGINT column named `id`.
    fn ids(&mut self, sql: &str) -> Vec<i64>;
    /// Runs statements.
    fn exec(&mut self, sql: &str);
    fn insert_rows(&mut self, rows: &[Row]);
    fn insert_groups(&mut self, groups: &[Group]);
    fn insert_events(&mut self, rows: &[NewEvent]);
    fn insert_plan_rows(&mut self, rows: &[PlanRow]);
    /// Empties `tables` between cases: `DELETE` (cheap on small tables). PostgreSQL overrides
    /// it with `TRUNCATE`: `DELETE` leaves dead rows that every later scan reads until
    /// autovacuum runs, which made long oracle runs slower with every case.
    fn clear(&mut self, tables: &[&str]) {
        for table in tables {
            self.exec(&format!("DELETE FROM {table}"));
        }
    }
    /// Whether `ORDER BY` accepts `NULLS FIRST` / `NULLS LAST`.
    const NULLS_SYNTAX: bool;
    /// Whether a `DOUBLE` column stores the infinities (MySQL refuses them).
    const STORES_INFINITIES: bool;
}

/// Where the oracle's own queries run: a [`TestDb`] itself, or the blocking connection paired
/// with an async one (`crate::async_db::AsyncDb`), so the same checks run on both paths.
pub trait OracleDb {
    /// The blocking connection that set-up and the oracle's plain `ORDER BY` queries use.
    type Db: TestDb;
    fn db(&mut self) -> &mut Self::Db;
}

impl<C: TestDb> OracleDb for C {
    type Db = C;
    fn db(&mut self) -> &mut C {
        self
    }
}

impl<C: TestDb> OracleDb for Fixture<C> {
    type Db = C;
    fn db(&mut self) -> &mut C {
        self
    }
}

/// A connection to an isolated database, cleaned up on drop.
pub struct Fixture<C: Connection> {
    conn: C,
    cleanup: Option<String>,
}

impl<C: Connection> Deref for Fixture<C> {
    type Target = C;
    fn deref(&self) -> &C {
        &self.conn
    }
}

impl<C: Connection> DerefMut for Fixture<C> {
    fn deref_mut(&mut self) -> &mut C {
        &mut self.conn
    }
}

impl<C: Connection> Fixture<C> {
    /// A connection with nothing to clean up (a database that goes away with it).
    pub fn without_cleanup(conn: C) -> Fixture<C> {
        Fixture {
            conn,
            cleanup: None,
        }
    }
}

impl<C: Connection> Drop for Fixture<C> {
    fn drop(&mut self) {
        if let Some(sql) = self.cleanup.take() {
            let _ = self.conn.batch_execute(&sql);
        }
    }
}

/// A name no other test process uses at the same time.
#[cfg(any(feature = "postgres", feature = "mysql", feature = "diesel-async"))]
pub fn unique_name() -> String {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!(
        "keyset_t{}_{}_{}",
        std::process::id(),
        nanos,
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

#[cfg(any(feature = "postgres", feature = "mysql"))]
pub fn server_missing(backend: &str, url: &str, error: &dyn std::fmt::Display) -> ! {
    panic!(
        "{backend} is required by this test suite and is not reachable at {url}: {error}\n\
         Start it (see README, 'Running the tests'), or run the README's test command, which starts it."
    )
}

/// The `TestDb` methods every backend shares; `$after(conn, rows)`, if given, runs after each
/// chunk of `keyset_rows` is inserted (MySQL writes its unsigned column there).
macro_rules! common_impl {
    ($($after:path)?) => {
        fn ids(&mut self, sql: &str) -> Vec<i64> {
            diesel::sql_query(sql)
                .load::<IdRow>(self)
                .unwrap_or_else(|e| panic!("{sql}: {e}"))
                .into_iter()
                .map(|r| r.id)
                .collect()
        }

        fn exec(&mut self, sql: &str) {
            self.batch_execute(sql)
                .unwrap_or_else(|e| panic!("{sql}: {e}"));
        }

        fn insert_rows(&mut self, rows: &[Row]) {
            for chunk in rows.chunks(1000) {
                diesel::insert_into(keyset_rows::table)
                    .values(chunk)
                    .execute(self)
                    .expect("insert keyset_rows");
                $($after(self, chunk);)?
            }
        }

        fn insert_groups(&mut self, groups: &[Group]) {
            diesel::insert_into(keyset_groups::table)
                .values(groups)
                .execute(self)
                .expect("insert keyset_groups");
        }

        fn insert_events(&mut self, rows: &[NewEvent]) {
            for chunk in rows.chunks(1000) {
                diesel::insert_into(events::table)
                    .values(chunk)
                    .execute(self)
                    .expect("insert events");
            }
        }

        fn insert_plan_rows(&mut self, rows: &[PlanRow]) {
            for chunk in rows.chunks(1000) {
                diesel::insert_into(plan_rows::table)
                    .values(chunk)
                    .execute(self)
                    .expect("insert plan_rows");
            }
        }
    };
}

#[cfg(feature = "sqlite")]
pub use sqlite::open_sqlite;

#[cfg(feature = "sqlite")]
mod sqlite {
    use super::*;
    use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};

    const FEED: EmbeddedMigrations = embed_migrations!("../../migrations/sqlite");
    const TESTS: EmbeddedMigrations = embed_migrations!("migrations/sqlite");

    /// A migrated SQLite database at `url` (an in-memory URI with a shared cache reaches the
    /// same database from a second connection).
    pub fn open_sqlite(url: &str) -> Fixture<SqliteConnection> {
        let mut conn = SqliteConnection::establish(url).unwrap_or_else(|e| panic!("{url}: {e}"));
        conn.run_pending_migrations(FEED).expect("feed migrations");
        conn.run_pending_migrations(TESTS).expect("test migrations");
        Fixture::without_cleanup(conn)
    }

    impl TestDb for SqliteConnection {
        const NAME: &'static str = "SQLite";
        const NULLS_SYNTAX: bool = true;
        const STORES_INFINITIES: bool = true;

        fn open() -> Fixture<Self> {
            let mut conn = SqliteConnection::establish(":memory:").expect("in-memory SQLite");
            conn.run_pending_migrations(FEED).expect("feed migrations");
            conn.run_pending_migrations(TESTS).expect("test migrations");
            Fixture {
                conn,
                cleanup: None,
            }
        }

        common_impl!();
    }
}

/// PostgreSQL URL of the test server (`KEYSET_PG_URL`, default the local `test` database).
#[cfg(feature = "postgres")]
pub fn pg_url() -> String {
    std::env::var("KEYSET_PG_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_string())
}

#[cfg(feature = "postgres")]
mod postgres {
    use super::*;
    use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};

    const FEED: EmbeddedMigrations = embed_migrations!("../../migrations/postgres");
    const TESTS: EmbeddedMigrations = embed_migrations!("migrations/postgres");

    impl TestDb for PgConnection {
        const NAME: &'static str = "PostgreSQL";
        const NULLS_SYNTAX: bool = true;
        const STORES_INFINITIES: bool = true;

        fn open() -> Fixture<Self> {
            let url = pg_url();
            let mut conn = PgConnection::establish(&url)
                .unwrap_or_else(|e| server_missing("PostgreSQL", &url, &e));
            let schema = unique_name();
            conn.batch_execute(&format!(
                "CREATE SCHEMA {schema}; SET search_path TO {schema}; SET client_min_messages TO warning"
            ))
            .expect("create test schema");
            let mut fixture = Fixture {
                conn,
                cleanup: Some(format!("DROP SCHEMA {schema} CASCADE")),
            };
            fixture
                .run_pending_migrations(FEED)
                .expect("feed migrations");
            fixture
                .run_pending_migrations(TESTS)
                .expect("test migrations");
            fixture
        }

        fn clear(&mut self, tables: &[&str]) {
            self.exec(&format!("TRUNCATE {}", tables.join(", ")));
        }

        common_impl!(write_pg_only);
    }

    /// Writes each row's `uu` (`UUID`) and `st` (the enum `stage`), which the shared [`Row`]
    /// insert leaves out: one `UPDATE` for the chunk, none when every row has the defaults.
    fn write_pg_only(conn: &mut PgConnection, rows: &[Row]) {
        if rows.iter().all(|r| r.uu.is_nil() && r.st == 0) {
            return;
        }
        const STAGES: [&str; 3] = ["todo", "doing", "done"];
        let (mut uus, mut sts) = (String::new(), String::new());
        for r in rows {
            uus.push_str(&format!(" WHEN {} THEN '{}'::uuid", r.id, r.uu));
            sts.push_str(&format!(" WHEN {} THEN '{}'::stage", r.id, STAGES[r.st]));
        }
        let ids: Vec<String> = rows.iter().map(|r| r.id.to_string()).collect();
        conn.exec(&format!(
            "UPDATE keyset_rows SET uu = CASE id{uus} END, st = CASE id{sts} END WHERE id IN ({})",
            ids.join(", ")
        ));
    }
}

/// MySQL URL of the test server's admin connection (`KEYSET_MYSQL_URL`, default root on the
/// local server); each test creates its own database there.
#[cfg(feature = "mysql")]
pub fn mysql_url() -> String {
    std::env::var("KEYSET_MYSQL_URL").unwrap_or_else(|_| "mysql://root@127.0.0.1:3306".to_string())
}

#[cfg(feature = "mysql")]
mod mysql {
    use super::*;
    use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};

    const FEED: EmbeddedMigrations = embed_migrations!("../../migrations/mysql");
    const TESTS: EmbeddedMigrations = embed_migrations!("migrations/mysql");

    impl TestDb for MysqlConnection {
        const NAME: &'static str = "MySQL";
        const NULLS_SYNTAX: bool = false;
        const STORES_INFINITIES: bool = false;

        fn open() -> Fixture<Self> {
            let admin_url = format!("{}/test", mysql_url().trim_end_matches('/'));
            let mut admin = MysqlConnection::establish(&admin_url)
                .unwrap_or_else(|e| server_missing("MySQL/MariaDB", &admin_url, &e));
            let name = unique_name();
            admin
                .batch_execute(&format!("CREATE DATABASE {name}"))
                .expect("create test database");
            let url = format!("{}/{name}", mysql_url().trim_end_matches('/'));
            let conn = MysqlConnection::establish(&url)
                .unwrap_or_else(|e| server_missing("MySQL/MariaDB", &url, &e));
            let mut fixture = Fixture {
                conn,
                cleanup: Some(format!("DROP DATABASE {name}")),
            };
            fixture
                .run_pending_migrations(FEED)
                .expect("feed migrations");
            fixture
                .run_pending_migrations(TESTS)
                .expect("test migrations");
            fixture
        }

        common_impl!(write_unsigned);
    }

    /// Writes each row's `u` (`BIGINT UNSIGNED`, which the shared [`Row`] insert leaves out):
    /// one `UPDATE` for the chunk, none when every `u` is 0.
    fn write_unsigned(conn: &mut MysqlConnection, rows: &[Row]) {
        if rows.iter().all(|r| r.u == 0) {
            return;
        }
        let cases: String = rows
            .iter()
            .map(|r| format!(" WHEN {} THEN {}", r.id, r.u))
            .collect();
        let ids: Vec<String> = rows.iter().map(|r| r.id.to_string()).collect();
        conn.exec(&format!(
            "UPDATE keyset_rows SET u = CASE id{cases} END WHERE id IN ({})",
            ids.join(", ")
        ));
    }
}
