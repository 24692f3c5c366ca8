//! One isolated, migrated database per test: an in-memory SQLite database, a fresh PostgreSQL
//! schema, or a fresh MySQL database, dropped again when the [`Fixture`] is dropped. Tests run
//! in parallel processes, so nothing is shared between them.
//!
//! A suite whose server is not reachable fails loudly: it is never skipped.

use std::ops::{Deref, DerefMut};

use chrono::NaiveDateTime;
use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::BigInt;
use keyset_diesel::KeysetBackend;

use crate::schema::{events, keyset_rows, plan_rows};

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
        }
    }
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
    fn insert_events(&mut self, rows: &[NewEvent]);
    fn insert_plan_rows(&mut self, rows: &[PlanRow]);
    /// Whether `ORDER BY` accepts `NULLS FIRST` / `NULLS LAST`.
    const NULLS_SYNTAX: bool;
    /// Runs the property scenario on row model `index` of [`crate::models::ROW_MODELS`].
    ///
    /// # Errors
    /// The first difference from the oracle.
    fn run_row_model(
        &mut self,
        index: usize,
        scenario: &crate::property::Scenario,
    ) -> Result<(), String>;
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

impl<C: Connection> Drop for Fixture<C> {
    fn drop(&mut self) {
        if let Some(sql) = self.cleanup.take() {
            let _ = self.conn.batch_execute(&sql);
        }
    }
}

/// A name no other test process uses at the same time.
#[cfg(any(feature = "postgres", feature = "mysql"))]
pub(crate) fn unique_name() -> String {
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
pub(crate) fn server_missing(backend: &str, url: &str, error: &dyn std::fmt::Display) -> ! {
    panic!(
        "{backend} is required by this test suite and is not reachable at {url}: {error}\n\
         Start it (see README, 'Running the tests'), or run the README's test command, which starts it."
    )
}

macro_rules! common_impl {
    () => {
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
            }
        }

        fn insert_events(&mut self, rows: &[NewEvent]) {
            for chunk in rows.chunks(1000) {
                diesel::insert_into(events::table)
                    .values(chunk)
                    .execute(self)
                    .expect("insert events");
            }
        }

        fn run_row_model(
            &mut self,
            index: usize,
            scenario: &crate::property::Scenario,
        ) -> Result<(), String> {
            crate::models::run_row_model::<Self>(index, self, scenario)
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
mod sqlite {
    use super::*;
    use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};

    const FEED: EmbeddedMigrations = embed_migrations!("../migrations/sqlite");
    const TESTS: EmbeddedMigrations = embed_migrations!("migrations/sqlite");

    impl TestDb for SqliteConnection {
        const NAME: &'static str = "SQLite";
        const NULLS_SYNTAX: bool = true;

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

    const FEED: EmbeddedMigrations = embed_migrations!("../migrations/postgres");
    const TESTS: EmbeddedMigrations = embed_migrations!("migrations/postgres");

    impl TestDb for PgConnection {
        const NAME: &'static str = "PostgreSQL";
        const NULLS_SYNTAX: bool = true;

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

        common_impl!();
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

    const FEED: EmbeddedMigrations = embed_migrations!("../migrations/mysql");
    const TESTS: EmbeddedMigrations = embed_migrations!("migrations/mysql");

    impl TestDb for MysqlConnection {
        const NAME: &'static str = "MySQL";
        const NULLS_SYNTAX: bool = false;

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

        common_impl!();
    }
}
