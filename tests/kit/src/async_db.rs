//! The async path (`keyset_diesel::async_`, feature `diesel-async`): [`AsyncDb`] pairs a
//! test's blocking connection (set-up, data loads and the oracle's plain `ORDER BY` queries)
//! with a diesel-async connection to the same database, through which every page loads. The
//! shared checks (the oracle property, the seed feed, the Chinook walks) then run unchanged on
//! the pair: [`crate::models::Walk`] is implemented for it by `impl_walk!`.
//!
//! A server that is down fails the suite, as for the blocking suites.

use crate::db::{Fixture, OracleDb};
use crate::TestDb;
use diesel::connection::{Instrumentation, InstrumentationEvent};
use diesel_async::AsyncConnection;
use std::future::Future;
use std::sync::{Arc, Mutex};

/// A blocking connection and an async connection to the same database, and the runtime the
/// async one runs on. Fields drop in this order: the async connection and its runtime first
/// (closing its session, so a test that failed inside a transaction leaves no lock behind),
/// then the blocking fixture, whose clean-up drops the database and would wait for such locks.
pub struct AsyncDb<C: TestDb, A> {
    conn: A,
    runtime: tokio::runtime::Runtime,
    sync: Fixture<C>,
    url: String,
}

/// SQLite: the blocking connection and `SyncConnectionWrapper<SqliteConnection>`.
#[cfg(feature = "sqlite")]
pub type AsyncSqlite = AsyncDb<
    diesel::SqliteConnection,
    diesel_async::sync_connection_wrapper::SyncConnectionWrapper<diesel::SqliteConnection>,
>;
/// PostgreSQL: the blocking connection and `AsyncPgConnection`.
#[cfg(feature = "postgres")]
pub type AsyncPg = AsyncDb<diesel::PgConnection, diesel_async::AsyncPgConnection>;
/// MySQL/MariaDB: the blocking connection and `AsyncMysqlConnection`.
#[cfg(feature = "mysql")]
pub type AsyncMysql = AsyncDb<diesel::MysqlConnection, diesel_async::AsyncMysqlConnection>;

impl<C: TestDb, A> OracleDb for AsyncDb<C, A> {
    type Db = C;
    fn db(&mut self) -> &mut C {
        &mut self.sync
    }
}

/// A current-thread tokio runtime with I/O and timers.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime")
}

/// Async oracle cases per backend: `KEYSET_ASYNC_ORACLE_CASES`, default 64.
pub fn async_oracle_cases() -> u32 {
    std::env::var("KEYSET_ASYNC_ORACLE_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64)
}

/// A backend whose test database an async connection can reach.
pub trait AsyncBackend: TestDb {
    /// The diesel-async connection type.
    type Async: AsyncConnection<Backend = Self::Backend> + 'static;
    /// A fresh migrated database ([`TestDb::open`]) and the URL at which a second
    /// connection reaches that same database.
    fn open_shared() -> (Fixture<Self>, String);
}

impl<C: AsyncBackend> AsyncDb<C, C::Async> {
    /// A fresh migrated database with both connections.
    pub fn open() -> Self {
        let (sync, url) = C::open_shared();
        Self::connect(sync, url)
    }

    /// Pairs `sync` with an async connection to `url` (the same database).
    pub fn connect(sync: Fixture<C>, url: String) -> Self {
        let runtime = runtime();
        let conn = runtime
            .block_on(C::Async::establish(&url))
            .unwrap_or_else(|e| {
                panic!(
                    "{}: the async connection to the test database at {url} failed: {e}",
                    C::NAME
                )
            });
        AsyncDb {
            sync,
            conn,
            url,
            runtime,
        }
    }
}

impl<C: TestDb, A> AsyncDb<C, A> {
    /// The runtime and the async connection, to run a page with `runtime.block_on(..)`.
    pub fn runtime_and_conn(&mut self) -> (&tokio::runtime::Runtime, &mut A) {
        (&self.runtime, &mut self.conn)
    }

    /// The URL of the database (for a pool).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Runs `future` to completion on the pair's runtime.
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.runtime.block_on(future)
    }
}

/// The SQL (with binds) of each statement a connection runs, as Diesel's instrumentation
/// reports it: `debug_query`'s text.
#[derive(Clone, Default)]
pub struct Statements(Arc<Mutex<Vec<String>>>);

impl Statements {
    /// An instrumentation that records into `self`.
    pub fn recorder(&self) -> impl Instrumentation {
        let log = Arc::clone(&self.0);
        move |event: InstrumentationEvent<'_>| {
            if let InstrumentationEvent::StartQuery { query, .. } = event {
                let query = query.to_string();
                // Not a page's statement: the look-up of a table's indexes that a MySQL later
                // page runs first when the process has not in the last minute (`LEARNS_INDEX`),
                // so only whichever of the two paths pages first runs it.
                if !query.contains("information_schema.STATISTICS") {
                    log.lock().expect("statement log").push(query);
                }
            }
        }
    }

    /// The statements recorded since the last call.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().expect("statement log"))
    }
}

impl<C: TestDb, A: AsyncConnection> AsyncDb<C, A> {
    /// Records the statements of both connections into `blocking` and `async_`.
    pub fn record(&mut self, blocking: &Statements, async_: &Statements) {
        self.sync.set_instrumentation(blocking.recorder());
        self.conn.set_instrumentation(async_.recorder());
    }
}

#[cfg(feature = "sqlite")]
impl AsyncBackend for diesel::SqliteConnection {
    type Async =
        diesel_async::sync_connection_wrapper::SyncConnectionWrapper<diesel::SqliteConnection>;
    fn open_shared() -> (Fixture<Self>, String) {
        // A named in-memory database with a shared cache: one database for every connection
        // of this process that opens the same name, gone when the last one closes.
        let url = format!("file:{}?mode=memory&cache=shared", crate::db::unique_name());
        (crate::db::open_sqlite(&url), url)
    }
}

#[cfg(feature = "postgres")]
impl AsyncBackend for diesel::PgConnection {
    type Async = diesel_async::AsyncPgConnection;
    fn open_shared() -> (Fixture<Self>, String) {
        use diesel::RunQueryDsl;
        let mut sync = <Self as TestDb>::open();
        let schema: String = diesel::select(diesel::dsl::sql::<diesel::sql_types::Text>(
            "current_schema()",
        ))
        .get_result(&mut *sync)
        .expect("current_schema()");
        // The test schema as the session's search path (libpq's `options` parameter).
        let url = crate::db::pg_url();
        let sep = if url.contains('?') { '&' } else { '?' };
        (
            sync,
            format!("{url}{sep}options=-c%20search_path%3D{schema}"),
        )
    }
}

#[cfg(feature = "mysql")]
impl AsyncBackend for diesel::MysqlConnection {
    type Async = diesel_async::AsyncMysqlConnection;
    fn open_shared() -> (Fixture<Self>, String) {
        use diesel::RunQueryDsl;
        let mut sync = <Self as TestDb>::open();
        let name: Option<String> = diesel::select(diesel::dsl::sql::<
            diesel::sql_types::Nullable<diesel::sql_types::Text>,
        >("DATABASE()"))
        .get_result(&mut *sync)
        .expect("DATABASE()");
        let name = name.expect("the test connection has a database");
        let url = format!("{}/{name}", crate::db::mysql_url().trim_end_matches('/'));
        (sync, url)
    }
}
