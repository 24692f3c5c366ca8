//! The database: the embedded SQLite connection or a deadpool pool per server backend (all
//! diesel-async), the migrations run at start, and the example's seeded rows and members.
//!
//! The queries of each concern live beside their handlers (`impl Db` blocks in `rest.rs`,
//! `graphql.rs`, `exports.rs` and `auth.rs`); [`with_conn!`] gives each of them a connection
//! with its backend's concrete Diesel types.

#[cfg(feature = "sqlite")]
use std::sync::Arc;

use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};

use crate::auth::{canonical, grant};
use crate::feed::{self, events, memberships};
use crate::{BoxError, NewEvent};

#[cfg(feature = "sqlite")]
const SQLITE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/sqlite");
#[cfg(feature = "postgres")]
const POSTGRES_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/postgres");
#[cfg(feature = "mysql")]
const MYSQL_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/mysql");

/// A pool of diesel-async connections.
#[cfg(any(feature = "postgres", feature = "mysql"))]
type Pool<C> = diesel_async::pooled_connection::deadpool::Pool<C>;

/// The embedded SQLite connection, as diesel-async runs it.
#[cfg(feature = "sqlite")]
pub(crate) type SqliteAsync =
    diesel_async::sync_connection_wrapper::SyncConnectionWrapper<diesel::SqliteConnection>;

/// The database: the embedded SQLite connection, or a pool of server connections; all of
/// them diesel-async.
#[derive(Clone)]
pub enum Db {
    /// Embedded SQLite (a file, or in memory): one connection (SQLite has one writer), through
    /// diesel-async's `SyncConnectionWrapper`.
    #[cfg(feature = "sqlite")]
    Sqlite(Arc<tokio::sync::Mutex<SqliteAsync>>),
    /// PostgreSQL through a deadpool pool of `AsyncPgConnection`s.
    #[cfg(feature = "postgres")]
    Postgres(Pool<diesel_async::AsyncPgConnection>),
    /// MariaDB / MySQL through a deadpool pool of `AsyncMysqlConnection`s.
    #[cfg(feature = "mysql")]
    Mysql(Pool<diesel_async::AsyncMysqlConnection>),
}

/// Runs `$body` (an expression that may `.await`) with `$conn` bound to a diesel-async
/// connection of `$db`: one arm per backend, so each keeps its concrete Diesel types.
macro_rules! with_conn {
    ($db:expr, |$conn:ident| $body:expr) => {
        match $db {
            #[cfg(feature = "sqlite")]
            $crate::db::Db::Sqlite(conn) => {
                let mut guard = conn.lock().await;
                let $conn: &mut $crate::db::SqliteAsync = &mut guard;
                $body
            }
            #[cfg(feature = "postgres")]
            $crate::db::Db::Postgres(pool) => {
                let mut pooled = pool.get().await?;
                let $conn: &mut diesel_async::AsyncPgConnection = &mut pooled;
                $body
            }
            #[cfg(feature = "mysql")]
            $crate::db::Db::Mysql(pool) => {
                let mut pooled = pool.get().await?;
                let $conn: &mut diesel_async::AsyncMysqlConnection = &mut pooled;
                $body
            }
        }
    };
}
pub(crate) use with_conn;

/// A deadpool pool of `$size` connections of `$conn` to `$url`, after running `$migrations`
/// on one connection of its own (Diesel's harness through `AsyncConnectionWrapper`, on a
/// blocking thread: start-up, not a request). A macro: each backend keeps its concrete types.
#[cfg(any(feature = "postgres", feature = "mysql"))]
macro_rules! migrated_pool {
    ($conn:ty, $url:expr, $size:expr, $migrations:expr) => {{
        let url: String = $url.to_string();
        let owned = url.clone();
        tokio::task::spawn_blocking(move || -> Result<(), BoxError> {
            type Wrapper = diesel_async::async_connection_wrapper::AsyncConnectionWrapper<$conn>;
            let mut conn = <Wrapper as diesel::Connection>::establish(&owned)?;
            conn.run_pending_migrations($migrations)?;
            Ok(())
        })
        .await??;
        let manager =
            diesel_async::pooled_connection::AsyncDieselConnectionManager::<$conn>::new(url);
        Pool::<$conn>::builder(manager)
            .max_size($size as usize)
            .build()?
    }};
}

/// Writes events on one kind of connection: a multi-row insert per 500 rows. Diesel writes
/// a batch insert on SQLite row by row on the blocking connection only, so the SQLite wrapper
/// runs it there (its own blocking thread, as it runs every statement).
trait EventWriter {
    fn insert_events(
        &mut self,
        rows: &[NewEvent],
    ) -> impl std::future::Future<Output = QueryResult<()>> + Send;
}

#[cfg(feature = "sqlite")]
impl EventWriter for SqliteAsync {
    fn insert_events(
        &mut self,
        rows: &[NewEvent],
    ) -> impl std::future::Future<Output = QueryResult<()>> + Send {
        let rows = rows.to_vec();
        self.spawn_blocking(move |conn| {
            rows.chunks(500).try_for_each(|chunk| {
                diesel::RunQueryDsl::execute(diesel::insert_into(events::table).values(chunk), conn)
                    .map(drop)
            })
        })
    }
}

/// [`EventWriter`] on a server connection: a batch insert per chunk.
#[cfg(any(feature = "postgres", feature = "mysql"))]
macro_rules! server_event_writer {
    ($conn:ty) => {
        impl EventWriter for $conn {
            async fn insert_events(&mut self, rows: &[NewEvent]) -> QueryResult<()> {
                for chunk in rows.chunks(500) {
                    diesel::insert_into(events::table)
                        .values(chunk)
                        .execute(self)
                        .await?;
                }
                Ok(())
            }
        }
    };
}
#[cfg(feature = "postgres")]
server_event_writer!(diesel_async::AsyncPgConnection);
#[cfg(feature = "mysql")]
server_event_writer!(diesel_async::AsyncMysqlConnection);

/// The callers the example seeds and the workspaces each may read.
pub const MEMBERS: &[(&str, &[&str])] = &[
    ("member-w9", &["W9", "W7"]),
    ("member-w7", &["W7"]),
    ("member-w5", &["W5"]),
];

/// The largest attachment [`Db::insert_events`] accepts, in bytes. A page fetches only the
/// rows whose stored message and attachment fit [`Settings::max_bytes`] (measured in SQL,
/// `max_bytes_in_sql`), plus one when the first row alone is larger: this bound at write caps
/// that one row.
///
/// [`Settings::max_bytes`]: crate::Settings::max_bytes
pub const MAX_ATTACHMENT_BYTES: usize = 64 * 1024;

/// Workspace W5: events with attachments of very different sizes, in bytes (the byte budget
/// makes pages of small rows hold more rows than pages of large ones).
pub const ATTACHMENT_SIZES: &[usize] =
    &[10, 20, 30, 9_000, 15, 25, 7_000, 8_000, 40, 12, 6_500, 35];

/// The rows of W5: `e501`, `e502`, ... one second apart, each with an attachment of the size in
/// [`ATTACHMENT_SIZES`].
pub fn attachment_rows() -> Vec<NewEvent> {
    ATTACHMENT_SIZES
        .iter()
        .enumerate()
        .map(|(i, &size)| NewEvent {
            event_id: format!("e{}", 501 + i),
            workspace_id: "W5".to_string(),
            occurred_at: feed::feed_time("13:00:00") + chrono::Duration::seconds(i as i64),
            message: format!("attachment of {size} bytes"),
            attachment: Some("a".repeat(size)),
        })
        .collect()
}

impl Db {
    /// Connects to `url` (`postgres://`, `mysql://`, anything else a SQLite file; `None` an
    /// in-memory SQLite database), applies the migrations and seeds the example's rows; returns
    /// the database and the seeded members' new bearer tokens (`(member, token)`, the only copy:
    /// the database keeps their SHA-256). Runs on a multi-threaded tokio runtime (the
    /// migrations take a blocking thread).
    ///
    /// # Errors
    /// Connecting, migrating or seeding failed, or the backend's feature is off.
    pub async fn connect(
        url: Option<&str>,
        pool_size: u32,
    ) -> Result<(Db, Vec<(String, String)>), BoxError> {
        let db = match url {
            #[cfg(feature = "postgres")]
            Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
                Db::Postgres(migrated_pool!(
                    diesel_async::AsyncPgConnection,
                    url,
                    pool_size,
                    POSTGRES_MIGRATIONS
                ))
            }
            #[cfg(feature = "mysql")]
            Some(url) if url.starts_with("mysql://") => Db::Mysql(migrated_pool!(
                diesel_async::AsyncMysqlConnection,
                url,
                pool_size,
                MYSQL_MIGRATIONS
            )),
            Some(url) if url.contains("://") => {
                return Err(format!(
                    "{}: this build has no such backend (features `postgres`, `mysql`)",
                    url.split("://").next().unwrap_or(url)
                )
                .into())
            }
            #[cfg(feature = "sqlite")]
            url => {
                let _ = pool_size;
                let mut conn = SqliteAsync::establish(url.unwrap_or(":memory:")).await?;
                conn.spawn_blocking(|conn| {
                    conn.run_pending_migrations(SQLITE_MIGRATIONS)
                        .map(drop)
                        .map_err(diesel::result::Error::QueryBuilderError)
                })
                .await?;
                Db::Sqlite(Arc::new(tokio::sync::Mutex::new(conn)))
            }
            #[cfg(not(feature = "sqlite"))]
            _ => return Err("SQLite: this build has no such backend (feature `sqlite`)".into()),
        };
        let tokens = db.seed().await?;
        Ok((db, tokens))
    }

    /// Replaces the example's rows: the feed of W9 and W7, the attachments of W5, the
    /// memberships of [`MEMBERS`] and their bearer tokens (new ones, returned as
    /// `(member, token)`).
    ///
    /// # Errors
    /// Database errors, or no randomness for a token.
    pub async fn seed(&self) -> Result<Vec<(String, String)>, BoxError> {
        with_conn!(self, |conn| conn
            .transaction::<_, diesel::result::Error, _>(async |conn| {
                diesel::delete(
                    events::table.filter(events::workspace_id.eq_any(["W9", "W7", "W5"])),
                )
                .execute(conn)
                .await?;
                let members: Vec<&str> = MEMBERS.iter().map(|m| m.0).collect();
                diesel::delete(memberships::table.filter(memberships::member.eq_any(members)))
                    .execute(conn)
                    .await?;
                conn.insert_events(&feed::feed_rows()).await?;
                conn.insert_events(&attachment_rows()).await?;
                for (member, workspaces) in MEMBERS {
                    for workspace in *workspaces {
                        grant!(&mut *conn, *member, *workspace)?;
                    }
                }
                Ok(())
            })
            .await)?;
        let mut tokens = Vec::new();
        for (member, _) in MEMBERS {
            tokens.push((member.to_string(), self.issue_token(member).await?));
        }
        Ok(tokens)
    }

    /// Inserts events (in one transaction).
    ///
    /// # Errors
    /// An event or workspace id that is not canonical ([`check_identifier`]) or an attachment
    /// above [`MAX_ATTACHMENT_BYTES`] (nothing is inserted), database errors.
    ///
    /// [`check_identifier`]: crate::check_identifier
    pub async fn insert_events(&self, rows: &[NewEvent]) -> Result<(), BoxError> {
        for row in rows {
            canonical("event id", &row.event_id)?;
            canonical("workspace id", &row.workspace_id)?;
        }
        if let Some(big) = rows
            .iter()
            .filter_map(|r| r.attachment.as_ref())
            .find(|a| a.len() > MAX_ATTACHMENT_BYTES)
        {
            return Err(format!(
                "an attachment of {} bytes is over the limit of {MAX_ATTACHMENT_BYTES}",
                big.len()
            )
            .into());
        }
        with_conn!(self, |conn| conn
            .transaction::<_, diesel::result::Error, _>(async |conn| {
                conn.insert_events(rows).await
            })
            .await)?;
        Ok(())
    }
}
