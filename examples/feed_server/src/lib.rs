//! A workspace activity feed over HTTP, paginated by keyset with signed tokens: the
//! `feed_server` example (its `main.rs` only parses the command line and listens), kept as a
//! library so that the integration tests can start it in-process.
//!
//! `GET /workspaces/{workspace}/events?page_size=N&cursor=TOKEN` with
//! `Authorization: Bearer <member token>`:
//! * 200: [`PageResponse`](keyset_diesel::web::PageResponse) JSON of [`EventItem`]s with its `links`, and the same URLs as a
//!   `Link` header (RFC 8288): `rel="next"` while there is a next page, `rel="prev"` while
//!   there is a previous one, `rel="first"` always, each the request's URL with only the
//!   cursor changed; pages hold at most `page_size` rows and at most
//!   [`Settings::max_bytes`] bytes of item JSON (at least one row);
//! * 400 `application/problem+json` ([`Problem`](keyset_diesel::web::Problem)): a refused token (with
//!   `"restart_from_first_page": true`) or page size; the body never echoes the token;
//! * 401: no bearer, or a token no member holds; 404: a workspace the caller may not read
//!   (whether it exists or not), or a workspace id that is not canonical
//!   ([`check_identifier`]: no spaces at either end, no control or invisible character,
//!   Unicode NFC; such ids are never stored); 500: no details.
//!
//! **The authentication is a demo's.** Each seeded member gets a random bearer token at start
//! ([`Db::issue_token`]: 32 random bytes, hex, stored only as its SHA-256), printed once as
//! `member <name> token <token>`. Real deployments authenticate with their own identity
//! provider and keep only the authorization part: the membership check in SQL, the canonical
//! workspace id for the filter and the token scope.
//!
//! Identifiers compare exactly on every backend: the MariaDB migrations give identifier columns
//! NO PAD binary collations (`utf8mb4_bin` ignored trailing spaces), and the server stores and
//! looks up only canonical ids ([`check_identifier`]: [`Db::grant`], [`Db::issue_token`] and
//! [`Db::insert_events`] refuse others, [`Db::access`] answers [`Access::NotCanonical`]).
//!
//! `POST /workspaces/{workspace}/exports` stores an export of the workspace's events (the
//! crate's stored export: one consistent snapshot, read page by page over many requests);
//! `GET /workspaces/{workspace}/exports/{id}?page_size=N&cursor=TOKEN` reads a page of it and
//! `DELETE` ends it. An export holds at most [`Settings::max_export_rows`] rows (422
//! `export_too_large` beyond), at most [`Settings::export_creations`] are created at once (503
//! `busy` with `Retry-After` beyond: never queued), and its pages hold at most
//! [`Settings::max_bytes`] bytes of item JSON (at least one row), as the live pages do.
//!
//! `POST /graphql` serves the same events as a Relay connection ([`schema`]). A document is
//! counted before any resolver runs and refused (`query_too_complex`) past
//! [`GRAPHQL_MAX_PAGES`] page reads or [`GRAPHQL_MAX_COUNTS`] total counts; a body over
//! [`GRAPHQL_MAX_BODY`] is a 413 `body_too_large`; a syntax error gives its position, never the
//! document's text; introspection only with [`Settings::graphql_introspection`]
//! (`--graphql-introspection`).
//!
//! The database work is async end to end: diesel-async connections from a deadpool pool
//! (PostgreSQL, MariaDB: `AsyncPgConnection`, `AsyncMysqlConnection`, no libpq or
//! libmysqlclient) or the embedded SQLite connection through `SyncConnectionWrapper`; no
//! blocking connection and no `spawn_blocking` on a request path.
//!
//! The crate by concern: `db.rs` (the connection or pool per backend, migrations, seeding),
//! `auth.rs` (bearer tokens, memberships, [`Access`]), `ident.rs` (the identifier rule),
//! `rest.rs` (the paged REST handlers), `graphql.rs`, `openapi.rs`, `exports.rs` (stored
//! exports); this file holds the shared item types, [`AppState`] and the start-up
//! ([`router`], [`serve`], [`check_bind`]).

/// The feed's table, model and rows (shared with the `activity_feed` example).
pub use keyset_example_feed as feed;

mod auth;
mod db;
mod exports;
mod graphql;
mod ident;
mod openapi;
mod rest;

use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use axum::Router;
use keyset_diesel::async_;
use keyset_diesel::web::PageSizePolicy;
use keyset_diesel::CursorCodec;
use serde::{Deserialize, Serialize};

pub use crate::auth::Access;
pub use crate::db::{attachment_rows, Db, ATTACHMENT_SIZES, MAX_ATTACHMENT_BYTES, MEMBERS};
pub use crate::exports::{ExportParams, ExportedEvent, EXPORT_LIFETIME};
pub use crate::feed::{Event, EventByNewest, EventByOldest, EventSort, NewEvent};
pub use crate::graphql::{
    schema, EventNode, FeedSchema, QueryRoot, GRAPHQL_MAX_BODY, GRAPHQL_MAX_COUNTS,
    GRAPHQL_MAX_PAGES, GRAPHQL_MAX_SELECTIONS,
};
pub use crate::ident::{check_identifier, IdentifierError, MAX_IDENTIFIER_CHARS};
pub use crate::openapi::ApiDoc;

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

/// The size of an event's JSON as the API sends it, in bytes: the byte budget's measure.
pub fn json_len(event: &Event) -> usize {
    serde_json::to_vec(&EventItem::from(event.clone())).map_or(0, |json| json.len())
}

/// Paging settings.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// Default and maximum page size.
    pub policy: PageSizePolicy,
    /// The byte budget of a page, in bytes: of its items' JSON (cut in Rust), and of the
    /// stored message and attachment it fetches (measured in SQL, so rows past it are never
    /// loaded; one row more when the first row alone is larger). A stored export's pages
    /// have the same budget, of their stored item JSON.
    pub max_bytes: usize,
    /// Whether `POST /graphql` answers introspection (`__schema`, `__type`): the schema's
    /// every type and field, to every member.
    pub graphql_introspection: bool,
    /// The most rows one stored export may hold: a workspace with more is refused (422
    /// `export_too_large`) before more than this many rows are copied.
    pub max_export_rows: u64,
    /// How many stored exports may be created at once (each copies a workspace in one
    /// transaction, which holds SQLite's write lock meanwhile): one more is answered 503
    /// `busy` with `Retry-After`, never queued.
    pub export_creations: usize,
}

impl Default for Settings {
    /// Page size 20 (at most 100), 16 KiB of items, no GraphQL introspection; exports of at
    /// most 100,000 rows, two created at once.
    fn default() -> Self {
        Settings {
            policy: PageSizePolicy::new(20, 100).expect("0 < 20 <= 100"),
            max_bytes: 16 * 1024,
            graphql_introspection: false,
            max_export_rows: 100_000,
            export_creations: 2,
        }
    }
}

/// Errors of starting up or of a request's database work: logged, answered with 500.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

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
    /// The GraphQL schema of `POST /graphql` ([`schema`] of the settings).
    pub graphql: FeedSchema,
    /// The creations of stored exports that may run now ([`Settings::export_creations`]
    /// permits; a creation holds one until its transaction ends).
    pub export_slots: std::sync::Arc<tokio::sync::Semaphore>,
}

impl AppState {
    /// The state of a server: its database, token codec and settings; stored exports live
    /// for [`EXPORT_LIFETIME`], hold at most [`Settings::max_export_rows`] rows, and their
    /// pages at most [`Settings::max_bytes`] bytes.
    pub fn new(db: Db, codec: CursorCodec, settings: Settings) -> AppState {
        let exports = keyset_diesel::export::ExportStore::new(codec.clone(), EXPORT_LIFETIME)
            .max_rows(settings.max_export_rows)
            .max_page_bytes(settings.max_bytes)
            .into();
        let export_slots =
            std::sync::Arc::new(tokio::sync::Semaphore::new(settings.export_creations));
        AppState {
            db,
            codec,
            settings,
            exports,
            graphql: schema(&settings),
            export_slots,
        }
    }
}

/// The routes: `GET /workspaces/{workspace}/events` (the model's own order), and
/// `GET /workspaces/{workspace}/feed?sort=newest|oldest` (a named sort chosen per request; a
/// request with a cursor and no `sort` continues in its token's sort).
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/workspaces/{workspace}/events", get(rest::list_events))
        .route("/workspaces/{workspace}/feed", get(rest::list_feed))
        .route("/openapi.json", get(openapi::openapi_json))
        .route(
            "/graphql",
            post(graphql::graphql_endpoint).layer(DefaultBodyLimit::max(GRAPHQL_MAX_BODY)),
        )
        .route(
            "/workspaces/{workspace}/exports",
            post(exports::create_export),
        )
        .route(
            "/workspaces/{workspace}/exports/{id}",
            get(exports::export_page).delete(exports::expire_export),
        )
        .with_state(state)
}

/// Whether a server whose tokens `codec` signs may listen on `bind` (`lookup` reads the key
/// variables `codec` was built from, the process environment in `main`): with the public demo
/// secret only on a loopback address, where no one else can forge its tokens. The demo secret
/// is refused elsewhere however it came ([`feed::accepts_demo_secret`]): the variables unset,
/// or one of them set to the demo secret itself.
///
/// # Errors
/// The refusal, naming the fix.
pub fn check_bind(
    bind: std::net::SocketAddr,
    codec: &CursorCodec,
    lookup: impl Fn(&str) -> Option<std::ffi::OsString>,
) -> Result<(), String> {
    if bind.ip().is_loopback() || !feed::accepts_demo_secret(codec, lookup) {
        Ok(())
    } else {
        Err(format!(
            "refusing to listen on {bind} with the public demo token secret: set \
             KEYSET_TOKEN_SECRET (or KEYSET_TOKEN_KEY_IDS) to a secret of your own, or bind \
             to 127.0.0.1"
        ))
    }
}

/// Serves the router on `listener` until the future resolves or fails.
///
/// # Errors
/// I/O errors of the listener.
pub async fn serve(listener: tokio::net::TcpListener, state: AppState) -> std::io::Result<()> {
    axum::serve(listener, router(state)).await
}
