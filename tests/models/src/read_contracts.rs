//! The read contracts (the guide's read contracts page) under concurrent writers: a walk with a
//! high-water mark, a snapshot export, a stored export. Each test opens one database that
//! several connections share (a WAL-mode SQLite file, a PostgreSQL schema, a MySQL database),
//! runs writer threads on their own connections, and checks what the reader got.
//!
//! Partner: `tests/suites/src/read_contracts.rs` holds the tests of this subject. The split follows
//! the crates' layers (docs/TESTING.md): this file, in the models crate, declares the models and
//! instantiates their pages once per backend; the tests reach them through traits, so editing a
//! test rebuilds no page.
//!
//! Writers are bounded by count and time, and the reader waits (briefly) for them between
//! pages, so every page is read after concurrent changes and each test ends in seconds.

use crate::schema::events;
use crate::{at, TestDb};
use chrono::NaiveDateTime;
use diesel::connection::{AnsiTransactionManager, LoadConnection, SimpleConnection};
use diesel::prelude::*;
use keyset_diesel::export::StoreBackend;
use keyset_diesel::{Keyset, LoadPage};
use serde::{Deserialize, Serialize};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicUsize, Ordering};

/// An event of the feed table, keyed `occurred_at ASC, event_id ASC`.
#[derive(
    Debug, Clone, PartialEq, Queryable, Selectable, Insertable, Keyset, Serialize, Deserialize,
)]
#[diesel(table_name = events)]
pub struct Ev {
    #[keyset(asc)]
    #[serde(with = "micros")]
    pub occurred_at: NaiveDateTime,
    #[keyset(asc, unique)]
    pub event_id: String,
    pub workspace_id: String,
    pub message: String,
}

/// A timestamp as microseconds since 1970 (the tests' chrono has no serde feature).
mod micros {
    use chrono::NaiveDateTime;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(t: &NaiveDateTime, s: S) -> Result<S::Ok, S::Error> {
        t.and_utc().timestamp_micros().serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<NaiveDateTime, D::Error> {
        let micros = i64::deserialize(d)?;
        chrono::DateTime::from_timestamp_micros(micros)
            .map(|t| t.naive_utc())
            .ok_or_else(|| serde::de::Error::custom("timestamp out of range"))
    }
}

/// Event `n` of `workspace` at `secs` seconds (plus `n` microseconds, so times are exact on
/// every backend and ties appear where `secs` repeats).
pub fn ev(workspace: &str, n: u32, secs: i64) -> Ev {
    Ev {
        occurred_at: at(secs, i64::from(n % 7) * 11),
        event_id: format!("{workspace}-{n:06}"),
        workspace_id: workspace.to_string(),
        message: format!("message {n}"),
    }
}

/// A backend whose database several connections (threads) can share, with the feed
/// operations the writers use.
pub trait SharedDb:
    TestDb + LoadConnection<TransactionManager = AnsiTransactionManager, Backend: StoreBackend> + Send
{
    /// The workspace's events as a boxed query (what the walks page).
    type EvQuery: for<'c> LoadPage<'c, Self, Ev>;
    /// A fresh, migrated database that [`Shared::connect`] opens more connections to.
    fn shared() -> Shared<Self>;
    /// The events of `workspace`, boxed, without ORDER BY.
    fn ev_query(workspace: &str) -> Self::EvQuery;
    /// Inserts events.
    ///
    /// # Errors
    /// The database's.
    fn insert_evs(&mut self, rows: &[Ev]) -> QueryResult<usize>;
    /// All events of `workspace` in key order (one statement).
    ///
    /// # Errors
    /// The database's.
    fn load_evs(&mut self, workspace: &str) -> QueryResult<Vec<Ev>>;
    /// Deletes one event.
    ///
    /// # Errors
    /// The database's.
    fn delete_ev(&mut self, id: &str) -> QueryResult<usize>;
    /// Changes a non-key column.
    ///
    /// # Errors
    /// The database's.
    fn set_message(&mut self, id: &str, message: &str) -> QueryResult<usize>;
    /// Changes a key column.
    ///
    /// # Errors
    /// The database's.
    fn set_time(&mut self, id: &str, time: NaiveDateTime) -> QueryResult<usize>;
}

/// One database shared by several connections; dropped (schema, database or file) on drop.
pub struct Shared<C: Connection> {
    url: String,
    setup: String,
    /// `(url, sql)`: the statement that drops the database, and where to run it.
    cleanup: Option<(String, String)>,
    files: Vec<std::path::PathBuf>,
    _conn: PhantomData<fn() -> C>,
}

impl<C: Connection> Shared<C> {
    /// Another connection to the shared database.
    pub fn connect(&self) -> C {
        self.try_connect_to(&self.url)
            .unwrap_or_else(|e| panic!("connect to {}: {e}", self.url))
    }

    /// The URL [`Shared::connect`] connects to.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The statements every connection to the shared database runs first (a busy timeout,
    /// a search path), for connections opened another way (diesel-async).
    pub fn setup_sql(&self) -> &str {
        &self.setup
    }

    /// A connection to the shared database at `url` (the same database, reached another way,
    /// e.g. through a proxy), with the per-connection setup applied.
    ///
    /// # Errors
    /// The connection's or the setup's error, as text.
    pub fn try_connect_to(&self, url: &str) -> Result<C, String> {
        let mut conn = C::establish(url).map_err(|e| e.to_string())?;
        conn.batch_execute(&self.setup)
            .map_err(|e| format!("{}: {e}", self.setup))?;
        Ok(conn)
    }
}

impl<C: Connection> Drop for Shared<C> {
    fn drop(&mut self) {
        if let Some((url, sql)) = self.cleanup.take() {
            if let Ok(mut conn) = C::establish(&url) {
                let _ = conn.batch_execute(&sql);
            }
        }
        for file in &self.files {
            let _ = std::fs::remove_file(file);
        }
    }
}

fn unique_name() -> String {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!(
        "keyset_rc{}_{}_{}",
        std::process::id(),
        nanos,
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

macro_rules! shared_ops {
    ($backend:ty) => {
        type EvQuery = events::BoxedQuery<
            'static,
            $backend,
            diesel::dsl::SqlTypeOf<diesel::dsl::AsSelect<Ev, $backend>>,
        >;

        fn ev_query(workspace: &str) -> Self::EvQuery {
            events::table
                .filter(events::workspace_id.eq(workspace.to_string()))
                .select(Ev::as_select())
                .into_boxed()
        }

        fn insert_evs(&mut self, rows: &[Ev]) -> QueryResult<usize> {
            let mut n = 0;
            for chunk in rows.chunks(500) {
                n += diesel::insert_into(events::table)
                    .values(chunk)
                    .execute(self)?;
            }
            Ok(n)
        }

        fn load_evs(&mut self, workspace: &str) -> QueryResult<Vec<Ev>> {
            events::table
                .filter(events::workspace_id.eq(workspace))
                .select(Ev::as_select())
                .order((events::occurred_at.asc(), events::event_id.asc()))
                .load(self)
        }

        fn delete_ev(&mut self, id: &str) -> QueryResult<usize> {
            diesel::delete(events::table.find(id)).execute(self)
        }

        fn set_message(&mut self, id: &str, message: &str) -> QueryResult<usize> {
            diesel::update(events::table.find(id))
                .set(events::message.eq(message))
                .execute(self)
        }

        fn set_time(&mut self, id: &str, time: NaiveDateTime) -> QueryResult<usize> {
            diesel::update(events::table.find(id))
                .set(events::occurred_at.eq(time))
                .execute(self)
        }
    };
}

#[cfg(feature = "sqlite")]
mod sqlite {
    use super::*;
    use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};

    const MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/sqlite");

    impl SharedDb for SqliteConnection {
        /// A WAL-mode database file in the temp directory (readers keep their snapshot while
        /// writers commit), removed on drop.
        fn shared() -> Shared<Self> {
            let path = std::env::temp_dir().join(format!("{}.sqlite", unique_name()));
            let url = path.display().to_string();
            let setup = "PRAGMA busy_timeout = 10000;".to_string();
            let mut conn = SqliteConnection::establish(&url).expect("create SQLite file");
            conn.batch_execute("PRAGMA journal_mode = WAL;")
                .expect("WAL mode");
            conn.batch_execute(&setup).expect("busy timeout");
            conn.run_pending_migrations(MIGRATIONS).expect("migrations");
            let files = ["", "-wal", "-shm"]
                .iter()
                .map(|s| std::path::PathBuf::from(format!("{url}{s}")))
                .collect();
            Shared {
                url,
                setup,
                cleanup: None,
                files,
                _conn: PhantomData,
            }
        }

        shared_ops!(diesel::sqlite::Sqlite);
    }
}

#[cfg(feature = "postgres")]
mod postgres {
    use super::*;
    use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};

    const MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/postgres");

    impl SharedDb for PgConnection {
        fn shared() -> Shared<Self> {
            let url = crate::db::pg_url();
            let schema = unique_name();
            let mut admin = PgConnection::establish(&url).unwrap_or_else(|e| {
                panic!(
                    "PostgreSQL is required by this test suite and is not reachable at {url}: {e}"
                )
            });
            admin
                .batch_execute(&format!("CREATE SCHEMA {schema}"))
                .expect("create schema");
            let shared: Shared<Self> = Shared {
                url: url.clone(),
                setup: format!("SET search_path TO {schema}; SET client_min_messages TO warning"),
                cleanup: Some((url, format!("DROP SCHEMA {schema} CASCADE"))),
                files: Vec::new(),
                _conn: PhantomData,
            };
            shared
                .connect()
                .run_pending_migrations(MIGRATIONS)
                .expect("migrations");
            shared
        }

        shared_ops!(diesel::pg::Pg);
    }
}

#[cfg(feature = "mysql")]
mod mysql {
    use super::*;
    use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};

    const MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/mysql");

    impl SharedDb for MysqlConnection {
        fn shared() -> Shared<Self> {
            let base = crate::db::mysql_url().trim_end_matches('/').to_string();
            let admin_url = format!("{base}/test");
            let name = unique_name();
            let mut admin = MysqlConnection::establish(&admin_url).unwrap_or_else(|e| {
                panic!("MySQL/MariaDB is required by this test suite and is not reachable at {admin_url}: {e}")
            });
            admin
                .batch_execute(&format!("CREATE DATABASE {name}"))
                .expect("create database");
            let shared: Shared<Self> = Shared {
                url: format!("{base}/{name}"),
                setup: "SET SESSION innodb_lock_wait_timeout = 10".to_string(),
                cleanup: Some((admin_url, format!("DROP DATABASE {name}"))),
                files: Vec::new(),
                _conn: PhantomData,
            };
            shared
                .connect()
                .run_pending_migrations(MIGRATIONS)
                .expect("migrations");
            shared
        }

        shared_ops!(diesel::mysql::Mysql);
    }
}
