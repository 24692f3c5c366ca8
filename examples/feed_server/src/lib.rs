//! A workspace activity feed over HTTP, paginated by keyset with signed tokens: the
//! `feed_server` example (its `main.rs` only parses the command line and listens), kept as a
//! library so that the integration tests can start it in-process.
//!
//! `GET /workspaces/{workspace}/events?page_size=N&cursor=TOKEN` with
//! `Authorization: Bearer <member token>`:
//! * 200: [`PageResponse`] JSON of [`EventItem`]s with its `links`, and the same URLs as a
//!   `Link` header (RFC 8288): `rel="next"` while there is a next page, `rel="prev"` while
//!   there is a previous one, `rel="first"` always, each the request's URL with only the
//!   cursor changed; pages hold at most `page_size` rows and at most
//!   [`Settings::max_bytes`] bytes of item JSON (at least one row);
//! * 400 `application/problem+json` ([`Problem`]): a refused token (with
//!   `"restart_from_first_page": true`) or page size; the body never echoes the token;
//! * 401: no bearer, or a token no member holds; 404: a workspace the caller may not read
//!   (whether it exists or not); 500: no details.
//!
//! **The authentication is a demo's.** Each seeded member gets a random bearer token at start
//! ([`Db::issue_token`]: 32 random bytes, hex, stored only as its SHA-256), printed once as
//! `member <name> token <token>`. Real deployments authenticate with their own identity
//! provider and keep only the authorization part: the membership check in SQL, the canonical
//! workspace id for the filter and the token scope.
//!
//! `POST /workspaces/{workspace}/exports` stores an export of the workspace's events (the
//! crate's stored export: one consistent snapshot, read page by page over many requests);
//! `GET /workspaces/{workspace}/exports/{id}?page_size=N&cursor=TOKEN` reads a page of it and
//! `DELETE` ends it.
//!
//! The database work is async end to end: diesel-async connections from a deadpool pool
//! (PostgreSQL, MariaDB: `AsyncPgConnection`, `AsyncMysqlConnection`, no libpq or
//! libmysqlclient) or the embedded SQLite connection through `SyncConnectionWrapper`; no
//! blocking connection and no `spawn_blocking` on a request path.

/// The feed's table, model and rows (shared with the `activity_feed` example).
pub use keyset_example_feed as feed;

#[cfg(feature = "sqlite")]
use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::header::{AUTHORIZATION, CACHE_CONTROL, CONTENT_TYPE, LINK, VARY};
use axum::http::{HeaderMap, HeaderValue, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};
use keyset_diesel::async_::{self, LoadBudgetedPage, PaginateDsl};
use keyset_diesel::export::{Export, ExportError};
use keyset_diesel::web::graphql::{self, RelayArgs, RelayConnection, RelayRequest};
use keyset_diesel::web::{
    PageLinks, PageParams, PageRequest, PageRequestError, PageResponse, PageSizePolicy, Problem,
    SortParam,
};
use keyset_diesel::{CursorCodec, Page, SortRow};
use serde::{Deserialize, Serialize};

use crate::feed::{events, memberships};

diesel::table! {
    /// The demo's bearer tokens (migration `*_member_tokens`): one per member, as SHA-256 hex.
    member_tokens (member) {
        member -> Text,
        token_sha256 -> Text,
    }
}

/// The SHA-256 of a bearer token, in hex: what `member_tokens` keeps.
fn token_sha256(token: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
pub use crate::feed::{Event, EventByNewest, EventByOldest, EventSort, NewEvent};

/// An event as the API shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct EventItem {
    /// The event id.
    pub id: String,
    /// When it happened, `YYYY-MM-DDTHH:MM:SS[.ffffff]` (UTC).
    pub occurred_at: String,
    /// What happened.
    pub message: String,
    /// An attached document, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attachment: Option<String>,
}

impl From<Event> for EventItem {
    fn from(e: Event) -> Self {
        EventItem {
            id: e.event_id,
            occurred_at: e.occurred_at.format("%FT%T%.f").to_string(),
            message: e.message,
            attachment: e.attachment,
        }
    }
}

/// An event as a stored export keeps it: the feed's order (`occurred_at`, then `event_id`),
/// stored as the API's [`EventItem`] JSON, so an export page reads back `EventItem`s.
#[derive(Debug, Clone, Queryable, Selectable, keyset_diesel::Keyset)]
#[diesel(table_name = events)]
pub struct ExportedEvent {
    #[keyset(asc)]
    occurred_at: chrono::NaiveDateTime,
    #[keyset(asc, unique)]
    event_id: String,
    message: String,
    attachment: Option<String>,
}

impl Serialize for ExportedEvent {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        EventItem {
            id: self.event_id.clone(),
            occurred_at: self.occurred_at.format("%FT%T%.f").to_string(),
            message: self.message.clone(),
            attachment: self.attachment.clone(),
        }
        .serialize(serializer)
    }
}

/// The size of an event's JSON as the API sends it, in bytes: the byte budget's measure.
pub fn json_len(event: &Event) -> usize {
    serde_json::to_vec(&EventItem::from(event.clone())).map_or(0, |json| json.len())
}

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

/// Paging settings.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// Default and maximum page size.
    pub policy: PageSizePolicy,
    /// The byte budget of a page, in bytes: of its items' JSON (cut in Rust), and of the
    /// stored message and attachment it fetches (measured in SQL, so rows past it are never
    /// loaded; one row more when the first row alone is larger).
    pub max_bytes: usize,
}

impl Default for Settings {
    /// Page size 20 (at most 100), 16 KiB of items.
    fn default() -> Self {
        Settings {
            policy: PageSizePolicy::new(20, 100).expect("0 < 20 <= 100"),
            max_bytes: 16 * 1024,
        }
    }
}

#[cfg(feature = "sqlite")]
const SQLITE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/sqlite");
#[cfg(feature = "postgres")]
const POSTGRES_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/postgres");
#[cfg(feature = "mysql")]
const MYSQL_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/mysql");

/// Errors of starting up or of a request's database work: logged, answered with 500.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A pool of diesel-async connections.
#[cfg(any(feature = "postgres", feature = "mysql"))]
type Pool<C> = diesel_async::pooled_connection::deadpool::Pool<C>;

/// The embedded SQLite connection, as diesel-async runs it.
#[cfg(feature = "sqlite")]
type SqliteAsync =
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
            Db::Sqlite(conn) => {
                let mut guard = conn.lock().await;
                let $conn: &mut SqliteAsync = &mut guard;
                $body
            }
            #[cfg(feature = "postgres")]
            Db::Postgres(pool) => {
                let mut pooled = pool.get().await?;
                let $conn: &mut diesel_async::AsyncPgConnection = &mut pooled;
                $body
            }
            #[cfg(feature = "mysql")]
            Db::Mysql(pool) => {
                let mut pooled = pool.get().await?;
                let $conn: &mut diesel_async::AsyncMysqlConnection = &mut pooled;
                $body
            }
        }
    };
}

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

/// Lets `$member` read `$workspace`.
macro_rules! grant {
    ($conn:expr, $member:expr, $workspace:expr) => {
        diesel::insert_into(memberships::table)
            .values((
                memberships::member.eq($member),
                memberships::workspace_id.eq($workspace),
            ))
            .execute($conn)
            .await
            .map(drop)
    };
}

/// Whether a caller may read a workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Access {
    /// A member of the workspace: its id as the membership row holds it, which the events
    /// filter and the token scope use (never the request's spelling).
    Granted(String),
    /// A known caller who is not a member: 404.
    NotAMember,
    /// A caller the memberships do not know (a member with no workspace): 404, as for
    /// [`Access::NotAMember`].
    UnknownCaller,
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

    /// A new random bearer token for `member` (32 random bytes, hex), replacing any it had;
    /// the database keeps only its SHA-256.
    ///
    /// # Errors
    /// Database errors, or no randomness.
    pub async fn issue_token(&self, member: &str) -> Result<String, BoxError> {
        let mut bytes = [0u8; 32];
        getrandom::getrandom(&mut bytes).map_err(|e| format!("no randomness for a token: {e}"))?;
        let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let hash = token_sha256(&token);
        with_conn!(self, |conn| conn
            .transaction::<_, diesel::result::Error, _>(async |conn| {
                diesel::delete(member_tokens::table.find(member))
                    .execute(conn)
                    .await?;
                diesel::insert_into(member_tokens::table)
                    .values((
                        member_tokens::member.eq(member),
                        member_tokens::token_sha256.eq(&hash),
                    ))
                    .execute(conn)
                    .await
            })
            .await)?;
        Ok(token)
    }

    /// The member holding bearer `token`, if any (looked up by its SHA-256).
    ///
    /// # Errors
    /// Database errors.
    pub async fn member_of_token(&self, token: &str) -> Result<Option<String>, BoxError> {
        let hash = token_sha256(token);
        Ok(with_conn!(self, |conn| member_tokens::table
            .filter(member_tokens::token_sha256.eq(&hash))
            .select(member_tokens::member)
            .first(conn)
            .await
            .optional())?)
    }

    /// Inserts events (in one transaction).
    ///
    /// # Errors
    /// An attachment above [`MAX_ATTACHMENT_BYTES`] (nothing is inserted), database errors.
    pub async fn insert_events(&self, rows: &[NewEvent]) -> Result<(), BoxError> {
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

    /// Lets `member` read `workspace`.
    ///
    /// # Errors
    /// Database errors.
    pub async fn grant(&self, member: &str, workspace: &str) -> Result<(), BoxError> {
        with_conn!(self, |conn| grant!(conn, member, workspace))?;
        Ok(())
    }

    /// Whether `member` may read `workspace`, decided in SQL by the same comparison the events
    /// filter makes (a Rust comparison next to a SQL filter under a case-insensitive collation
    /// let a member of `w9` read `W9`: keyset-diesel/src/guide/security.md).
    ///
    /// # Errors
    /// Database errors.
    pub async fn access(&self, member: &str, workspace: &str) -> Result<Access, BoxError> {
        let granted: Option<String> = with_conn!(self, |conn| memberships::table
            .filter(memberships::member.eq(member))
            .filter(memberships::workspace_id.eq(workspace))
            .select(memberships::workspace_id)
            .first(conn)
            .await
            .optional())?;
        if let Some(workspace) = granted {
            return Ok(Access::Granted(workspace));
        }
        let known: i64 = with_conn!(self, |conn| memberships::table
            .filter(memberships::member.eq(member))
            .count()
            .get_result(conn)
            .await)?;
        Ok(if known == 0 {
            Access::UnknownCaller
        } else {
            Access::NotAMember
        })
    }

    /// One page of `workspace`'s events.
    ///
    /// # Errors
    /// Database errors.
    pub async fn page(
        &self,
        workspace: &str,
        request: PageRequest<Event>,
        max_bytes: usize,
    ) -> Result<Page<Event>, BoxError> {
        Ok(with_conn!(self, |conn| events::table
            .filter(events::workspace_id.eq(workspace.to_string()))
            .select(Event::as_select())
            .paginate(request.cursor.clone())
            .until(request.until.clone())
            .page_size(request.page_size)
            // The response: at most `max_bytes` of item JSON, cut among the rows loaded.
            .max_bytes(max_bytes, json_len)
            // Memory: the rows whose stored text is past `max_bytes` are never fetched.
            .max_bytes_in_sql(max_bytes, events::attachment)
            .budget_column(events::message)
            .load_page(conn)
            .await)?)
    }

    /// A page of `workspace`'s events for a GraphQL request, with its total count when asked.
    ///
    /// # Errors
    /// Database errors.
    pub async fn relay_page(
        &self,
        workspace: &str,
        request: RelayRequest<Event>,
        total: bool,
        max_bytes: usize,
    ) -> Result<Page<Event>, BoxError> {
        Ok(with_conn!(self, |conn| {
            let paginated = request.clone().paginate_async(
                events::table
                    .filter(events::workspace_id.eq(workspace.to_string()))
                    .select(Event::as_select()),
            );
            let paginated = if total {
                paginated.with_total_count()
            } else {
                paginated
            };
            paginated
                .max_bytes_in_sql(max_bytes, events::attachment)
                .budget_column(events::message)
                .load_page(conn)
                .await
        })?)
    }

    /// The body of a page of `workspace`'s events in named sort `sort`, or the refusal of its
    /// parameters.
    ///
    /// # Errors
    /// Database errors, a token that cannot be encoded.
    pub async fn sorted_page(
        &self,
        sort: EventSort,
        app: &AppState,
        workspace: &str,
        scope: &(&str, &str),
        params: &PageParams,
        request_url: &str,
    ) -> Result<Result<PageResponse<EventItem>, PageRequestError>, BoxError> {
        let (w, s, p, u) = (workspace, scope, params, request_url);
        with_conn!(self, |conn| match sort {
            EventSort::Newest => sorted_response::<EventByNewest, _>(conn, app, w, s, p, u).await,
            EventSort::Oldest => sorted_response::<EventByOldest, _>(conn, app, w, s, p, u).await,
        })
    }

    /// Stores an export of `workspace`'s events (the model's own order) under `scope`.
    ///
    /// # Errors
    /// The store's (a database error inside [`ExportError::Database`]); a pool error.
    pub async fn create_export(
        &self,
        store: &async_::ExportStore,
        workspace: &str,
        scope: &(&str, &str),
    ) -> Result<Result<Export, ExportError>, BoxError> {
        Ok(with_conn!(self, |conn| store
            .create::<ExportedEvent, _, _, _, _>(conn, scope, || {
                events::table
                    .filter(events::workspace_id.eq(workspace.to_string()))
                    .select(ExportedEvent::as_select())
            })
            .await))
    }

    /// A page of a stored export.
    ///
    /// # Errors
    /// A pool error (the store's errors are the inner result).
    pub async fn export_page(
        &self,
        store: &async_::ExportStore,
        id: &str,
        scope: &(&str, &str),
        token: Option<&str>,
        page_size: u32,
    ) -> Result<Result<keyset_diesel::export::ExportPage<EventItem>, ExportError>, BoxError> {
        Ok(with_conn!(self, |conn| store
            .page::<EventItem, _, _>(conn, id, scope, token, page_size)
            .await))
    }

    /// Deletes the expired exports (their rows first); run periodically (`main` does, every
    /// five minutes).
    ///
    /// # Errors
    /// A pool error (the store's errors are the inner result).
    pub async fn purge_exports(
        &self,
        store: &async_::ExportStore,
    ) -> Result<Result<keyset_diesel::export::Purged, ExportError>, BoxError> {
        Ok(with_conn!(self, |conn| store.purge_expired(conn).await))
    }

    /// Ends a stored export now.
    ///
    /// # Errors
    /// A pool error (the store's errors are the inner result).
    pub async fn expire_export(
        &self,
        store: &async_::ExportStore,
        id: &str,
        scope: &(&str, &str),
    ) -> Result<Result<(), ExportError>, BoxError> {
        Ok(with_conn!(self, |conn| store.expire(conn, id, scope).await))
    }
}

/// Whether the server may listen on `bind`: with the public demo secret (`secret_set` false)
/// only on a loopback address, where no one else can forge its tokens.
///
/// # Errors
/// The refusal, naming the fix.
pub fn check_bind(bind: std::net::SocketAddr, secret_set: bool) -> Result<(), String> {
    if secret_set || bind.ip().is_loopback() {
        Ok(())
    } else {
        Err(format!(
            "refusing to listen on {bind} with the public demo token secret: set \
             KEYSET_TOKEN_SECRET (or KEYSET_TOKEN_KEY_IDS), or bind to 127.0.0.1"
        ))
    }
}

/// The body of a page of `workspace`'s events in named sort `K` (`EventByNewest`,
/// `EventByOldest`) on diesel-async connection `conn`, or the refusal of its parameters: one
/// function for every sort and every backend (the bounds are the crate's `SortRow` and
/// `async_::LoadBudgetedPage`).
///
/// # Errors
/// Database errors, a token that cannot be encoded.
async fn sorted_response<K, C>(
    conn: &mut C,
    app: &AppState,
    workspace: &str,
    scope: &(&str, &str),
    params: &PageParams,
    request_url: &str,
) -> Result<Result<PageResponse<EventItem>, PageRequestError>, BoxError>
where
    C: AsyncConnection,
    K: SortRow<Event, C::Backend> + AsRef<Event>,
    WorkspaceEvents<K, C::Backend>: LoadBudgetedPage<'static, C, K>,
{
    let request = match params.resolve::<K>(&app.codec, scope, &app.settings.policy) {
        Ok(request) => request,
        Err(e) => return Ok(Err(e)),
    };
    let page = workspace_events::<K, C::Backend>(workspace)
        .paginate(request.cursor)
        .until(request.until)
        .page_size(request.page_size)
        .max_bytes(app.settings.max_bytes, |row: &K| json_len(row.as_ref()))
        .max_bytes_in_sql(app.settings.max_bytes, events::attachment)
        .budget_column(events::message)
        .load_page(conn)
        .await?;
    Ok(Ok(PageResponse::from_page(
        page,
        &app.codec,
        scope,
        |row| EventItem::from(row.into()),
    )?
    .with_links(request_url)))
}

/// The query of `workspace`'s events selected as `K` on backend `DB`.
type WorkspaceEvents<K, DB> = diesel::dsl::Select<
    diesel::dsl::Filter<events::table, diesel::dsl::Eq<events::workspace_id, String>>,
    diesel::dsl::AsSelect<K, DB>,
>;

/// [`WorkspaceEvents`].
fn workspace_events<K, DB>(workspace: &str) -> WorkspaceEvents<K, DB>
where
    DB: diesel::backend::Backend,
    K: SortRow<Event, DB>,
{
    events::table
        .filter(events::workspace_id.eq(workspace.to_string()))
        .select(<K as SelectableHelper<DB>>::as_select())
}

/// What every request needs.
#[derive(Clone)]
pub struct AppState {
    /// The database.
    pub db: Db,
    /// The token codec.
    pub codec: CursorCodec,
    /// Paging settings.
    pub settings: Settings,
    /// The stored exports of `/exports` (diesel-async; its tokens by the same keys).
    pub exports: async_::ExportStore,
}

impl AppState {
    /// The state of a server: its database, token codec and settings; stored exports live
    /// for [`EXPORT_LIFETIME`].
    pub fn new(db: Db, codec: CursorCodec, settings: Settings) -> AppState {
        let exports = async_::ExportStore::new(codec.clone(), EXPORT_LIFETIME);
        AppState {
            db,
            codec,
            settings,
            exports,
        }
    }
}

/// How long a stored export of `/exports` lives: one hour.
pub const EXPORT_LIFETIME: std::time::Duration = std::time::Duration::from_secs(3600);

/// The routes: `GET /workspaces/{workspace}/events` (the model's own order), and
/// `GET /workspaces/{workspace}/feed?sort=newest|oldest` (a named sort chosen per request; a
/// request with a cursor and no `sort` continues in its token's sort).
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/workspaces/{workspace}/events", get(list_events))
        .route("/workspaces/{workspace}/feed", get(list_feed))
        .route("/openapi.json", get(openapi_json))
        .route("/graphql", post(graphql))
        .route("/workspaces/{workspace}/exports", post(create_export))
        .route(
            "/workspaces/{workspace}/exports/{id}",
            get(export_page).delete(expire_export),
        )
        .with_state(state)
}

/// The GraphQL schema served at `POST /graphql`:
///
/// ```graphql
/// events(workspace: String!, first: Int, after: String, last: Int, before: String): EventConnection!
/// EventConnection { edges: [EventEdge!]!, pageInfo: PageInfo!, totalCount: Int }
/// EventEdge { cursor: String!, node: Event! }
/// Event { id: String!, occurredAt: String!, message: String! }
/// PageInfo { hasNextPage: Boolean!, hasPreviousPage: Boolean!, startCursor: String, endCursor: String }
/// ```
pub type FeedSchema = async_graphql::Schema<
    QueryRoot,
    async_graphql::EmptyMutation,
    async_graphql::EmptySubscription,
>;

/// The most a GraphQL document may cost (async-graphql's complexity: one per field selected):
/// a few `events` pages per request, never thousands of aliased ones.
pub const GRAPHQL_MAX_COMPLEXITY: usize = 64;

/// The schema, built once.
pub fn schema() -> &'static FeedSchema {
    static SCHEMA: std::sync::OnceLock<FeedSchema> = std::sync::OnceLock::new();
    SCHEMA.get_or_init(|| {
        async_graphql::Schema::build(
            QueryRoot,
            async_graphql::EmptyMutation,
            async_graphql::EmptySubscription,
        )
        // Each `events` field is a page query of its own: a document may hold a few
        // (aliases), not thousands. One full `events` selection costs about 12.
        .limit_complexity(GRAPHQL_MAX_COMPLEXITY)
        .limit_depth(8)
        .finish()
    })
}

/// An event as GraphQL shows it.
#[derive(Debug, Clone, async_graphql::SimpleObject)]
#[graphql(name = "Event")]
pub struct EventNode {
    /// The event id.
    pub id: String,
    /// When it happened, as in [`EventItem::occurred_at`].
    pub occurred_at: String,
    /// What happened.
    pub message: String,
}

impl From<Event> for EventNode {
    fn from(e: Event) -> Self {
        let item = EventItem::from(e);
        EventNode {
            id: item.id,
            occurred_at: item.occurred_at,
            message: item.message,
        }
    }
}

/// The member a GraphQL request runs as (its bearer token's).
struct Member(String);

/// The GraphQL query root.
pub struct QueryRoot;

#[async_graphql::Object]
impl QueryRoot {
    /// A page of a workspace's events (Relay): `first`/`after` forward, `last`/`before`
    /// backward; the same tokens, scope and page-size policy as the REST routes.
    async fn events(
        &self,
        ctx: &async_graphql::Context<'_>,
        workspace: String,
        first: Option<i32>,
        after: Option<String>,
        last: Option<i32>,
        before: Option<String>,
    ) -> async_graphql::Result<RelayConnection<EventNode>> {
        let app = ctx.data::<AppState>()?.clone();
        let member = ctx.data::<Member>()?.0.clone();
        let args = RelayArgs {
            first,
            after,
            last,
            before,
        };
        // The count costs O(n): only when the document asks for it.
        let total = ctx.look_ahead().field("totalCount").exists();
        graphql_events(&app, &member, &workspace, &args, total)
            .await
            .unwrap_or_else(|e| {
                eprintln!("feed_server: graphql request failed: {e}");
                Err(graphql::error(&Problem::internal()))
            })
    }
}

/// The connection of `events(..)`; the outer error is the server's.
async fn graphql_events(
    app: &AppState,
    member: &str,
    workspace: &str,
    args: &RelayArgs,
    total: bool,
) -> Result<async_graphql::Result<RelayConnection<EventNode>>, BoxError> {
    let workspace = match app.db.access(member, workspace).await? {
        Access::UnknownCaller | Access::NotAMember => {
            return Ok(Err(graphql::error(&Problem::not_found())))
        }
        Access::Granted(workspace) => workspace,
    };
    let scope = ("events", workspace.as_str());
    let request = match args.resolve::<Event>(&app.codec, &scope, &app.settings.policy) {
        Ok(request) => request,
        Err(e) => return Ok(Err(e)),
    };
    let page = app
        .db
        .relay_page(&workspace, request, total, app.settings.max_bytes)
        .await?;
    Ok(graphql::connection(
        page,
        &app.codec,
        &scope,
        EventNode::from,
    ))
}

async fn graphql(
    State(app): State<AppState>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    let Some(token) = bearer(&headers) else {
        return Problem::unauthorized().into_response();
    };
    let member = match app.db.member_of_token(&token).await {
        Ok(Some(member)) => member,
        Ok(None) => return Problem::unauthorized().into_response(),
        Err(e) => {
            eprintln!("feed_server: request failed: {e}");
            return Problem::internal().into_response();
        }
    };
    let Ok(request) = serde_json::from_slice::<async_graphql::Request>(&body) else {
        return Problem::invalid_query().into_response();
    };
    let response = schema()
        .execute(request.data(app).data(Member(member)))
        .await;
    match serde_json::to_vec(&response) {
        Ok(json) => (
            [
                (CONTENT_TYPE, HeaderValue::from_static("application/json")),
                (CACHE_CONTROL, HeaderValue::from_static("no-store")),
                (VARY, HeaderValue::from_static("Authorization")),
            ],
            json,
        )
            .into_response(),
        Err(_) => Problem::internal().into_response(),
    }
}

/// The OpenAPI 3.1 document of the routes, served at `GET /openapi.json`.
#[derive(utoipa::OpenApi)]
#[openapi(
    info(title = "keyset feed server", description = "A workspace activity feed paginated by keyset with signed tokens."),
    paths(list_events, list_feed),
    components(schemas(PageResponse<EventItem>, EventItem, PageLinks, Problem))
)]
pub struct ApiDoc;

async fn openapi_json() -> Response {
    use utoipa::OpenApi as _;
    match ApiDoc::openapi().to_json() {
        Ok(json) => (
            [(CONTENT_TYPE, HeaderValue::from_static("application/json"))],
            json,
        )
            .into_response(),
        Err(_) => Problem::internal().into_response(),
    }
}

/// Which list a request reads.
#[derive(Debug, Clone, Copy)]
enum List {
    /// `/events`: the model's own keyset.
    Events,
    /// `/feed`: a named sort, as the request names it (`None`: the token's, else newest).
    Sorted(Option<EventSort>),
}

/// The token of `Authorization: Bearer <token>`.
fn bearer(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(AUTHORIZATION)?.to_str().ok()?;
    let (scheme, name) = value.split_once(' ')?;
    let name = name.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !name.is_empty()).then(|| name.to_string())
}

/// A page of a workspace's events in the model's own order (`occurred_at`, then `event_id`).
#[utoipa::path(
    get,
    path = "/workspaces/{workspace}/events",
    params(("workspace" = String, Path, description = "The workspace id"), PageParams),
    responses(
        (status = 200, description = "A page", body = PageResponse<EventItem>,
            headers(("Link" = String, description = "RFC 8288 links: rel=\"next\", rel=\"prev\", rel=\"first\""))),
        (status = 400, description = "A refused cursor or page size", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No or an unknown bearer token", body = Problem, content_type = "application/problem+json",
            headers(("WWW-Authenticate" = String, description = "Bearer"))),
        (status = 404, description = "A workspace the caller may not read", body = Problem, content_type = "application/problem+json"),
    )
)]
async fn list_events(
    State(app): State<AppState>,
    Path(workspace): Path<String>,
    // The request's path and query (the router is not nested, so this is the client's).
    uri: Uri,
    headers: HeaderMap,
    params: PageParams,
) -> Response {
    respond(app, workspace, uri, headers, params, List::Events).await
}

/// A page of a workspace's events in a named sort; a cursor without `sort` continues in its
/// token's sort.
#[utoipa::path(
    get,
    path = "/workspaces/{workspace}/feed",
    params(
        ("workspace" = String, Path, description = "The workspace id"),
        ("sort" = Option<String>, Query, description = "newest (the default) or oldest"),
        PageParams,
    ),
    responses(
        (status = 200, description = "A page", body = PageResponse<EventItem>,
            headers(("Link" = String, description = "RFC 8288 links: rel=\"next\", rel=\"prev\", rel=\"first\""))),
        (status = 400, description = "A refused cursor, page size or sort (sort_invalid, sort_mismatch)", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No or an unknown bearer token", body = Problem, content_type = "application/problem+json",
            headers(("WWW-Authenticate" = String, description = "Bearer"))),
        (status = 404, description = "A workspace the caller may not read", body = Problem, content_type = "application/problem+json"),
    )
)]
async fn list_feed(
    State(app): State<AppState>,
    Path(workspace): Path<String>,
    uri: Uri,
    headers: HeaderMap,
    SortParam(sort): SortParam<EventSort>,
    params: PageParams,
) -> Response {
    respond(app, workspace, uri, headers, params, List::Sorted(sort)).await
}

/// Authenticates the bearer, then answers.
async fn respond(
    app: AppState,
    workspace: String,
    uri: Uri,
    headers: HeaderMap,
    params: PageParams,
    list: List,
) -> Response {
    let Some(token) = bearer(&headers) else {
        return Problem::unauthorized().into_response();
    };
    let work = async {
        match app.db.member_of_token(&token).await? {
            // The path and query only: links never name a host the request line chose.
            Some(member) => {
                let path = uri.path_and_query().map_or("/", |p| p.as_str());
                answer(&app, &member, &workspace, &params, path, list).await
            }
            None => Ok(Problem::unauthorized().into_response()),
        }
    };
    match work.await {
        Ok(response) => response,
        Err(e) => {
            eprintln!("feed_server: request failed: {e}");
            Problem::internal().into_response()
        }
    }
}

/// The response to one request.
async fn answer(
    app: &AppState,
    member: &str,
    workspace: &str,
    params: &PageParams,
    request_url: &str,
    list: List,
) -> Result<Response, BoxError> {
    // Authorization first: a caller who may not read the workspace learns nothing more, not
    // even whether its token is good.
    // From here on the workspace is the one the membership names.
    let workspace = match app.db.access(member, workspace).await? {
        // The token named a member: whether it has no membership at all or not this one, the
        // answer is the same 404, which says nothing of other workspaces.
        Access::UnknownCaller | Access::NotAMember => {
            return Ok(Problem::not_found().into_response())
        }
        Access::Granted(workspace) => workspace,
    };
    let workspace = workspace.as_str();
    // What a token is bound to: this list and this workspace (and, by its sort signature, the
    // sort it was made in).
    let scope = ("events", workspace);
    let body = match list {
        List::Events => events_page(app, workspace, &scope, params, request_url).await?,
        List::Sorted(sort) => {
            match params.resolve_sort(sort, EventSort::Newest, &app.codec, &scope) {
                Ok(sort) => {
                    app.db
                        .sorted_page(sort, app, workspace, &scope, params, request_url)
                        .await?
                }
                Err(e) => Err(e),
            }
        }
    };
    let body = match body {
        Ok(body) => body,
        Err(e) => {
            eprintln!("feed_server: refused {workspace} request: {e}");
            return Ok(e.into_response());
        }
    };
    let link = body.links.as_ref().map(|links| links.header_value());
    // The page carries tokens and one member's rows: never cached, and never served to
    // another caller by a shared cache.
    let mut response = (
        [
            (CONTENT_TYPE, HeaderValue::from_static("application/json")),
            (CACHE_CONTROL, HeaderValue::from_static("no-store")),
            (VARY, HeaderValue::from_static("Authorization")),
        ],
        serde_json::to_vec(&body)?,
    )
        .into_response();
    if let Some(link) = link {
        response
            .headers_mut()
            .insert(LINK, HeaderValue::from_str(&link)?);
    }
    Ok(response)
}

/// The body of a page of `/events`, or the refusal of its parameters.
async fn events_page(
    app: &AppState,
    workspace: &str,
    scope: &(&str, &str),
    params: &PageParams,
    request_url: &str,
) -> Result<Result<PageResponse<EventItem>, PageRequestError>, BoxError> {
    let request = match params.resolve::<Event>(&app.codec, scope, &app.settings.policy) {
        Ok(request) => request,
        Err(e) => return Ok(Err(e)),
    };
    let page = app
        .db
        .page(workspace, request, app.settings.max_bytes)
        .await?;
    // The links keep the request's own parameters (its page size, and whatever else it
    // sent), only the cursor changed.
    Ok(Ok(PageResponse::from_page(
        page.map(EventItem::from),
        &app.codec,
        scope,
        |e| e,
    )?
    .with_links(request_url)))
}

/// The workspace a request may read: the bearer's member, then the membership (the
/// workspace as the membership names it), or the answer to send instead (401, 404).
async fn authorized(
    app: &AppState,
    headers: &HeaderMap,
    workspace: &str,
) -> Result<Result<String, Response>, BoxError> {
    let Some(token) = bearer(headers) else {
        return Ok(Err(Problem::unauthorized().into_response()));
    };
    let Some(member) = app.db.member_of_token(&token).await? else {
        return Ok(Err(Problem::unauthorized().into_response()));
    };
    Ok(match app.db.access(&member, workspace).await? {
        Access::UnknownCaller | Access::NotAMember => Err(Problem::not_found().into_response()),
        Access::Granted(workspace) => Ok(workspace),
    })
}

/// The scope of a workspace's stored exports: what an export is bound to. Any member of the
/// workspace may read or end any of its exports (add the member to the scope to make them
/// personal).
fn export_scope(workspace: &str) -> (&'static str, &str) {
    ("exports", workspace)
}

/// The query of `GET /workspaces/{workspace}/exports/{id}`.
#[derive(Debug, Deserialize)]
pub struct ExportParams {
    /// Rows per page (default 100, at most 1,000).
    pub page_size: Option<u32>,
    /// The previous page's `next_token`.
    pub cursor: Option<String>,
}

/// A JSON answer that is never cached.
fn json_response(status: axum::http::StatusCode, body: &serde_json::Value) -> Response {
    (
        status,
        [
            (CONTENT_TYPE, HeaderValue::from_static("application/json")),
            (CACHE_CONTROL, HeaderValue::from_static("no-store")),
            (VARY, HeaderValue::from_static("Authorization")),
        ],
        body.to_string(),
    )
        .into_response()
}

/// Runs a request's work: its response, or 500 (logged) for a server error.
async fn or_internal(
    work: impl std::future::Future<Output = Result<Response, BoxError>>,
) -> Response {
    work.await.unwrap_or_else(|e| {
        eprintln!("feed_server: request failed: {e}");
        Problem::internal().into_response()
    })
}

/// `POST /workspaces/{workspace}/exports`: stores an export of the workspace's events (one
/// consistent snapshot); 201 `{"id", "rows", "created_at", "expires_at"}` (Unix seconds).
async fn create_export(
    State(app): State<AppState>,
    Path(workspace): Path<String>,
    headers: HeaderMap,
) -> Response {
    or_internal(async {
        let workspace = match authorized(&app, &headers, &workspace).await? {
            Ok(workspace) => workspace,
            Err(response) => return Ok(response),
        };
        // The creation runs in a task of its own: a client that goes away must not leave the
        // store's transaction half-way on the connection (SQLite's one connection above all).
        let (db, store) = (app.db.clone(), app.exports.clone());
        let created = tokio::spawn(async move {
            let scope = export_scope(&workspace);
            db.create_export(&store, &workspace, &scope).await
        })
        .await??;
        Ok(match created {
            Ok(export) => json_response(
                axum::http::StatusCode::CREATED,
                &serde_json::json!({
                    "id": export.id,
                    "rows": export.rows,
                    "created_at": export.created_at,
                    "expires_at": export.expires_at,
                }),
            ),
            Err(e) => export_problem(&e),
        })
    })
    .await
}

/// The answer to a refused export request; a server-side failure (500) is logged.
fn export_problem(error: &ExportError) -> Response {
    let problem = Problem::from(error);
    if problem.status >= 500 {
        eprintln!("feed_server: export request failed: {error}");
    }
    problem.into_response()
}

/// `GET /workspaces/{workspace}/exports/{id}?page_size=N&cursor=TOKEN`: a page of a stored
/// export, `{"items", "next_token", "first_position", "total", "expires_at"}`; 404 for an
/// export of another workspace (or none), 410 once it expired.
async fn export_page(
    State(app): State<AppState>,
    Path((workspace, id)): Path<(String, String)>,
    headers: HeaderMap,
    query: Result<axum::extract::Query<ExportParams>, axum::extract::rejection::QueryRejection>,
) -> Response {
    or_internal(async {
        // Authentication and authorization first: a caller who may not read the workspace
        // learns nothing of its query string either (401 / 404 before 400).
        let workspace = match authorized(&app, &headers, &workspace).await? {
            Ok(workspace) => workspace,
            Err(response) => return Ok(response),
        };
        // A query string that does not parse (`page_size=-1`) is a problem+json 400.
        let Ok(query) = query else {
            return Ok(Problem::invalid_query().into_response());
        };
        let scope = export_scope(&workspace);
        let page_size = query
            .page_size
            .unwrap_or(keyset_diesel::export::EXPORT_PAGE_SIZES.default_size());
        let page = app
            .db
            .export_page(
                &app.exports,
                &id,
                &scope,
                query.cursor.as_deref(),
                page_size,
            )
            .await?;
        Ok(match page {
            Ok(page) => json_response(
                axum::http::StatusCode::OK,
                &serde_json::json!({
                    "items": page.items,
                    "next_token": page.next_token,
                    "first_position": page.first_position,
                    "total": page.total,
                    "expires_at": page.expires_at,
                }),
            ),
            Err(e) => export_problem(&e),
        })
    })
    .await
}

/// `DELETE /workspaces/{workspace}/exports/{id}`: ends a stored export now (204); reading it
/// is 410 from then on.
async fn expire_export(
    State(app): State<AppState>,
    Path((workspace, id)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    or_internal(async {
        let workspace = match authorized(&app, &headers, &workspace).await? {
            Ok(workspace) => workspace,
            Err(response) => return Ok(response),
        };
        let scope = export_scope(&workspace);
        Ok(
            match app.db.expire_export(&app.exports, &id, &scope).await? {
                Ok(()) => axum::http::StatusCode::NO_CONTENT.into_response(),
                Err(e) => export_problem(&e),
            },
        )
    })
    .await
}

/// Serves the router on `listener` until the future resolves or fails.
///
/// # Errors
/// I/O errors of the listener.
pub async fn serve(listener: tokio::net::TcpListener, state: AppState) -> std::io::Result<()> {
    axum::serve(listener, router(state)).await
}
