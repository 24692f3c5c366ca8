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
//! The database work is synchronous Diesel: an r2d2 pool (PostgreSQL, MariaDB) or one
//! connection behind a mutex (embedded SQLite), each request on `spawn_blocking`.

/// The feed's table, model and rows (shared with the `activity_feed` example).
pub use keyset_example_feed as feed;

#[cfg(feature = "sqlite")]
use std::sync::{Arc, Mutex, PoisonError};

use axum::extract::{Path, State};
use axum::http::header::{AUTHORIZATION, CACHE_CONTROL, CONTENT_TYPE, LINK, VARY};
use axum::http::{HeaderMap, HeaderValue, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use diesel::prelude::*;
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};
use keyset_diesel::web::graphql::{self, RelayArgs, RelayConnection, RelayRequest};
use keyset_diesel::web::{
    PageLinks, PageParams, PageRequest, PageRequestError, PageResponse, PageSizePolicy, Problem,
    SortParam,
};
use keyset_diesel::{CursorCodec, LoadBudgetedPage, Page, PaginateDsl, SortRow};
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

/// The database: one SQLite connection behind a mutex, or a pool of server connections.
#[derive(Clone)]
pub enum Db {
    /// Embedded SQLite (a file, or in memory).
    #[cfg(feature = "sqlite")]
    Sqlite(Arc<Mutex<SqliteConnection>>),
    /// PostgreSQL through an r2d2 pool.
    #[cfg(feature = "postgres")]
    Postgres(diesel::r2d2::Pool<diesel::r2d2::ConnectionManager<PgConnection>>),
    /// MariaDB / MySQL through an r2d2 pool.
    #[cfg(feature = "mysql")]
    Mysql(diesel::r2d2::Pool<diesel::r2d2::ConnectionManager<MysqlConnection>>),
}

/// Runs `$body` with `$conn` bound to a connection of `$db`: one arm per backend, so each
/// keeps its concrete Diesel types.
macro_rules! with_conn {
    ($db:expr, |$conn:ident| $body:expr) => {
        match $db {
            #[cfg(feature = "sqlite")]
            Db::Sqlite(conn) => {
                let mut guard = conn.lock().unwrap_or_else(PoisonError::into_inner);
                let $conn: &mut SqliteConnection = &mut guard;
                $body
            }
            #[cfg(feature = "postgres")]
            Db::Postgres(pool) => {
                let mut pooled = pool.get()?;
                let $conn: &mut PgConnection = &mut pooled;
                $body
            }
            #[cfg(feature = "mysql")]
            Db::Mysql(pool) => {
                let mut pooled = pool.get()?;
                let $conn: &mut MysqlConnection = &mut pooled;
                $body
            }
        }
    };
}

/// Inserts `$rows` (a slice of [`NewEvent`]) on `$conn`, in chunks. A macro: each backend's
/// insert keeps its concrete types.
macro_rules! insert_events {
    ($conn:expr, $rows:expr) => {{
        let conn = $conn;
        $rows.chunks(500).try_for_each(|chunk| {
            diesel::insert_into(events::table)
                .values(chunk)
                .execute(&mut *conn)
                .map(drop)
        })
    }};
}

/// Lets `$member` read `$workspace`.
macro_rules! grant {
    ($conn:expr, $member:expr, $workspace:expr) => {
        diesel::insert_into(memberships::table)
            .values((
                memberships::member.eq($member),
                memberships::workspace_id.eq($workspace),
            ))
            .execute($conn)
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
    /// the database keeps their SHA-256).
    ///
    /// # Errors
    /// Connecting, migrating or seeding failed, or the backend's feature is off.
    pub fn connect(
        url: Option<&str>,
        pool_size: u32,
    ) -> Result<(Db, Vec<(String, String)>), BoxError> {
        let db = match url {
            #[cfg(feature = "postgres")]
            Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
                let pool = diesel::r2d2::Pool::builder()
                    .max_size(pool_size)
                    .build(diesel::r2d2::ConnectionManager::<PgConnection>::new(url))?;
                pool.get()?.run_pending_migrations(POSTGRES_MIGRATIONS)?;
                Db::Postgres(pool)
            }
            #[cfg(feature = "mysql")]
            Some(url) if url.starts_with("mysql://") => {
                let pool = diesel::r2d2::Pool::builder()
                    .max_size(pool_size)
                    .build(diesel::r2d2::ConnectionManager::<MysqlConnection>::new(url))?;
                pool.get()?.run_pending_migrations(MYSQL_MIGRATIONS)?;
                Db::Mysql(pool)
            }
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
                let mut conn = SqliteConnection::establish(url.unwrap_or(":memory:"))?;
                conn.run_pending_migrations(SQLITE_MIGRATIONS)?;
                Db::Sqlite(Arc::new(Mutex::new(conn)))
            }
            #[cfg(not(feature = "sqlite"))]
            _ => return Err("SQLite: this build has no such backend (feature `sqlite`)".into()),
        };
        let tokens = db.seed()?;
        Ok((db, tokens))
    }

    /// Replaces the example's rows: the feed of W9 and W7, the attachments of W5, the
    /// memberships of [`MEMBERS`] and their bearer tokens (new ones, returned as
    /// `(member, token)`).
    ///
    /// # Errors
    /// Database errors, or no randomness for a token.
    pub fn seed(&self) -> Result<Vec<(String, String)>, BoxError> {
        with_conn!(self, |conn| conn.transaction(|conn| {
            diesel::delete(events::table.filter(events::workspace_id.eq_any(["W9", "W7", "W5"])))
                .execute(conn)?;
            let members: Vec<&str> = MEMBERS.iter().map(|m| m.0).collect();
            diesel::delete(memberships::table.filter(memberships::member.eq_any(members)))
                .execute(conn)?;
            insert_events!(&mut *conn, feed::feed_rows())?;
            insert_events!(&mut *conn, attachment_rows())?;
            for (member, workspaces) in MEMBERS {
                for workspace in *workspaces {
                    grant!(&mut *conn, *member, *workspace)?;
                }
            }
            diesel::QueryResult::Ok(())
        }))?;
        MEMBERS
            .iter()
            .map(|(member, _)| Ok((member.to_string(), self.issue_token(member)?)))
            .collect()
    }

    /// A new random bearer token for `member` (32 random bytes, hex), replacing any it had;
    /// the database keeps only its SHA-256.
    ///
    /// # Errors
    /// Database errors, or no randomness.
    pub fn issue_token(&self, member: &str) -> Result<String, BoxError> {
        let mut bytes = [0u8; 32];
        getrandom::getrandom(&mut bytes).map_err(|e| format!("no randomness for a token: {e}"))?;
        let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let hash = token_sha256(&token);
        with_conn!(self, |conn| conn.transaction(|conn| {
            diesel::delete(member_tokens::table.find(member)).execute(conn)?;
            diesel::insert_into(member_tokens::table)
                .values((
                    member_tokens::member.eq(member),
                    member_tokens::token_sha256.eq(&hash),
                ))
                .execute(conn)
        }))?;
        Ok(token)
    }

    /// The member holding bearer `token`, if any (looked up by its SHA-256).
    ///
    /// # Errors
    /// Database errors.
    pub fn member_of_token(&self, token: &str) -> Result<Option<String>, BoxError> {
        let hash = token_sha256(token);
        Ok(with_conn!(self, |conn| member_tokens::table
            .filter(member_tokens::token_sha256.eq(&hash))
            .select(member_tokens::member)
            .first(conn)
            .optional())?)
    }

    /// Inserts events (in one transaction).
    ///
    /// # Errors
    /// An attachment above [`MAX_ATTACHMENT_BYTES`] (nothing is inserted), database errors.
    pub fn insert_events(&self, rows: &[NewEvent]) -> Result<(), BoxError> {
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
            .transaction(|conn| insert_events!(conn, rows)))?;
        Ok(())
    }

    /// Lets `member` read `workspace`.
    ///
    /// # Errors
    /// Database errors.
    pub fn grant(&self, member: &str, workspace: &str) -> Result<(), BoxError> {
        with_conn!(self, |conn| grant!(conn, member, workspace))?;
        Ok(())
    }

    /// Whether `member` may read `workspace`, decided in SQL by the same comparison the events
    /// filter makes (a Rust comparison next to a SQL filter under a case-insensitive collation
    /// let a member of `w9` read `W9`: docs/SECURITY.md).
    ///
    /// # Errors
    /// Database errors.
    pub fn access(&self, member: &str, workspace: &str) -> Result<Access, BoxError> {
        let granted: Option<String> = with_conn!(self, |conn| memberships::table
            .filter(memberships::member.eq(member))
            .filter(memberships::workspace_id.eq(workspace))
            .select(memberships::workspace_id)
            .first(conn)
            .optional())?;
        if let Some(workspace) = granted {
            return Ok(Access::Granted(workspace));
        }
        let known: i64 = with_conn!(self, |conn| memberships::table
            .filter(memberships::member.eq(member))
            .count()
            .get_result(conn))?;
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
    pub fn page(
        &self,
        workspace: &str,
        request: PageRequest<Event>,
        max_bytes: usize,
    ) -> Result<Page<Event>, BoxError> {
        Ok(with_conn!(self, |conn| events::table
            .filter(events::workspace_id.eq(workspace))
            .select(Event::as_select())
            .paginate(request.cursor.clone())
            .until(request.until.clone())
            .page_size(request.page_size)
            // The response: at most `max_bytes` of item JSON, cut among the rows loaded.
            .max_bytes(max_bytes, json_len)
            // Memory: the rows whose stored text is past `max_bytes` are never fetched.
            .max_bytes_in_sql(max_bytes, events::attachment)
            .measure(events::message)
            .load_page(conn))?)
    }

    /// A page of `workspace`'s events for a GraphQL request, with its total count when asked.
    ///
    /// # Errors
    /// Database errors.
    pub fn relay_page(
        &self,
        workspace: &str,
        request: RelayRequest<Event>,
        total: bool,
        max_bytes: usize,
    ) -> Result<Page<Event>, BoxError> {
        Ok(with_conn!(self, |conn| {
            let paginated = request.clone().paginate(
                events::table
                    .filter(events::workspace_id.eq(workspace))
                    .select(Event::as_select()),
            );
            let paginated = if total {
                paginated.with_total_count()
            } else {
                paginated
            };
            paginated
                .max_bytes_in_sql(max_bytes, events::attachment)
                .measure(events::message)
                .load_page(conn)
        })?)
    }

    /// The body of a page of `workspace`'s events in named sort `sort`, or the refusal of its
    /// parameters.
    ///
    /// # Errors
    /// Database errors, a token that cannot be encoded.
    pub fn sorted_page(
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
            EventSort::Newest => sorted_response::<EventByNewest, _>(conn, app, w, s, p, u),
            EventSort::Oldest => sorted_response::<EventByOldest, _>(conn, app, w, s, p, u),
        })
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
/// `EventByOldest`) on connection `conn`, or the refusal of its parameters: one function for
/// every sort and every backend (the bound is the crate's `SortRow` and `LoadPage`).
///
/// # Errors
/// Database errors, a token that cannot be encoded.
fn sorted_response<K, C>(
    conn: &mut C,
    app: &AppState,
    workspace: &str,
    scope: &(&str, &str),
    params: &PageParams,
    request_url: &str,
) -> Result<Result<PageResponse<EventItem>, PageRequestError>, BoxError>
where
    C: diesel::Connection,
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
        .measure(events::message)
        .load_page(conn)?;
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
}

/// The routes: `GET /workspaces/{workspace}/events` (the model's own order), and
/// `GET /workspaces/{workspace}/feed?sort=newest|oldest` (a named sort chosen per request; a
/// request with a cursor and no `sort` continues in its token's sort).
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/workspaces/{workspace}/events", get(list_events))
        .route("/workspaces/{workspace}/feed", get(list_feed))
        .route("/openapi.json", get(openapi_json))
        .route("/graphql", axum::routing::post(graphql))
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
        tokio::task::spawn_blocking(move || {
            graphql_events(&app, &member, &workspace, &args, total).unwrap_or_else(|e| {
                eprintln!("feed_server: graphql request failed: {e}");
                Err(graphql::error(&Problem::internal()))
            })
        })
        .await
        .map_err(|_| graphql::error(&Problem::internal()))?
    }
}

/// The connection of `events(..)` (blocking: database work); the outer error is the server's.
fn graphql_events(
    app: &AppState,
    member: &str,
    workspace: &str,
    args: &RelayArgs,
    total: bool,
) -> Result<async_graphql::Result<RelayConnection<EventNode>>, BoxError> {
    let workspace = match app.db.access(member, workspace)? {
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
        .relay_page(&workspace, request, total, app.settings.max_bytes)?;
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
    let db = app.db.clone();
    let member = match tokio::task::spawn_blocking(move || db.member_of_token(&token)).await {
        Ok(Ok(Some(member))) => member,
        Ok(Ok(None)) => return Problem::unauthorized().into_response(),
        Ok(Err(e)) => {
            eprintln!("feed_server: request failed: {e}");
            return Problem::internal().into_response();
        }
        Err(_) => return Problem::internal().into_response(),
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

/// Authenticates the bearer, then answers on a blocking thread (database work).
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
    let work = tokio::task::spawn_blocking(move || match app.db.member_of_token(&token)? {
        // The path and query only: links never name a host the request line chose.
        Some(member) => {
            let path = uri.path_and_query().map_or("/", |p| p.as_str()).to_string();
            answer(&app, &member, &workspace, &params, &path, list)
        }
        None => Ok(Problem::unauthorized().into_response()),
    });
    match work.await {
        Ok(Ok(response)) => response,
        Ok(Err(e)) => {
            eprintln!("feed_server: request failed: {e}");
            Problem::internal().into_response()
        }
        Err(e) => {
            eprintln!("feed_server: request task failed: {e}");
            Problem::internal().into_response()
        }
    }
}

/// The response to one request (blocking: database work).
fn answer(
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
    let workspace = match app.db.access(member, workspace)? {
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
        List::Events => events_page(app, workspace, &scope, params, request_url)?,
        List::Sorted(sort) => {
            match params.resolve_sort(sort, EventSort::Newest, &app.codec, &scope) {
                Ok(sort) => {
                    app.db
                        .sorted_page(sort, app, workspace, &scope, params, request_url)?
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
fn events_page(
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
    let page = app.db.page(workspace, request, app.settings.max_bytes)?;
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

/// Serves the router on `listener` until the future resolves or fails.
///
/// # Errors
/// I/O errors of the listener.
pub async fn serve(listener: tokio::net::TcpListener, state: AppState) -> std::io::Result<()> {
    axum::serve(listener, router(state)).await
}
