//! The GraphQL endpoint, `POST /graphql`: a Relay connection of a workspace's events on the
//! same tokens, scopes and page-size policy as the REST routes, with what one document may
//! cost counted before it runs (the library's `CostLimit`).

use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE, VARY};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use diesel::prelude::*;
use keyset_diesel::web::graphql::{self, CostLimit, RelayArgs, RelayConnection, RelayRequest};
use keyset_diesel::web::Problem;
use keyset_diesel::Page;

use diesel_async::AsyncConnection;
use keyset_diesel::async_::LoadBudgetedPage;
use keyset_diesel::SortRow;

use crate::auth::{bearer, Access};
use crate::db::with_conn;
use crate::feed::events;
use crate::rest::{workspace_events, WorkspaceEvents};
use crate::{
    AppState, BoxError, Db, Event, EventByNewest, EventByOldest, EventItem, EventSort, Settings,
};

/// The GraphQL schema served at `POST /graphql`:
///
/// ```graphql
/// events(workspace: String!, first: Int, after: String, last: Int, before: String): EventConnection!
/// feed(workspace: String!, sort: EventSort, first: Int, after: String, last: Int, before: String): EventConnection!
/// enum EventSort { NEWEST OLDEST }
/// EventConnection { edges: [EventEdge!]!, nodes: [Event!]!, pageInfo: PageInfo!, totalCount: Int }
/// EventEdge { cursor: String!, node: Event! }
/// Event { id: String!, occurredAt: String!, message: String! }
/// PageInfo { hasNextPage: Boolean!, hasPreviousPage: Boolean!, startCursor: String, endCursor: String }
/// ```
pub type FeedSchema = async_graphql::Schema<
    QueryRoot,
    async_graphql::EmptyMutation,
    async_graphql::EmptySubscription,
>;

/// The most page reads one document may ask for: each `events` field is one (by its page
/// size: see [`CostLimit`]), so 8 aliased pages at most, never thousands.
pub const GRAPHQL_MAX_PAGES: u64 = 8;

/// The most total counts one document may ask for: each `totalCount` reads every row of its
/// workspace.
pub const GRAPHQL_MAX_COUNTS: u64 = 1;

/// The most selections one document may hold once its fragments are expanded: 8 full `events`
/// selections are about 110.
pub const GRAPHQL_MAX_SELECTIONS: u64 = 200;

/// The largest `POST /graphql` body, in bytes: a document and its variables; a larger one is
/// refused (413 `body_too_large`) before it is parsed.
pub const GRAPHQL_MAX_BODY: usize = 64 * 1024;

/// The schema of a server with `settings`: at most [`GRAPHQL_MAX_PAGES`] page reads (of
/// `settings.policy`'s sizes), [`GRAPHQL_MAX_COUNTS`] total counts and
/// [`GRAPHQL_MAX_SELECTIONS`] selections per document, checked before any resolver runs
/// ([`CostLimit`]); 8 levels deep at most; introspection only with
/// [`Settings::graphql_introspection`].
pub fn schema(settings: &Settings) -> FeedSchema {
    let limit = CostLimit::new(settings.policy, &["events", "feed"])
        .pages(GRAPHQL_MAX_PAGES)
        .counts(GRAPHQL_MAX_COUNTS)
        .selections(GRAPHQL_MAX_SELECTIONS);
    let builder = async_graphql::Schema::build(
        QueryRoot,
        async_graphql::EmptyMutation,
        async_graphql::EmptySubscription,
    )
    .extension(limit)
    .limit_depth(8);
    // The schema describes every type and field to whoever asks: a choice, off by default.
    if settings.graphql_introspection {
        builder.finish()
    } else {
        builder.disable_introspection().finish()
    }
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
        let (app, member, total) = caller(ctx)?;
        let args = RelayArgs {
            first,
            after,
            last,
            before,
        };
        or_internal(graphql_events(&app, &member, &workspace, &args, total).await)
    }

    /// A page of a workspace's events in a named sort (Relay), as `GET
    /// /workspaces/{workspace}/feed?sort=` pages them: `sort` names it; without it, a cursor
    /// continues in its token's sort, else `NEWEST`. A cursor of another sort than the one
    /// named is `sort_mismatch`, as in REST.
    #[allow(clippy::too_many_arguments)] // Relay's four arguments, the workspace and the sort
    async fn feed(
        &self,
        ctx: &async_graphql::Context<'_>,
        workspace: String,
        sort: Option<EventSort>,
        first: Option<i32>,
        after: Option<String>,
        last: Option<i32>,
        before: Option<String>,
    ) -> async_graphql::Result<RelayConnection<EventNode>> {
        let (app, member, total) = caller(ctx)?;
        let args = RelayArgs {
            first,
            after,
            last,
            before,
        };
        or_internal(graphql_feed(&app, &member, &workspace, sort, &args, total).await)
    }
}

/// What a connection field reads from its context: the app, the member the request runs as,
/// and whether the document asks for `totalCount` (the count costs O(n): only then).
fn caller(ctx: &async_graphql::Context<'_>) -> async_graphql::Result<(AppState, String, bool)> {
    let app = ctx.data::<AppState>()?.clone();
    let member = ctx.data::<Member>()?.0.clone();
    Ok((app, member, ctx.look_ahead().field("totalCount").exists()))
}

/// A connection field's answer: the server's own errors (the outer one) logged and answered
/// `internal_error`, never shown.
fn or_internal<T>(result: Result<async_graphql::Result<T>, BoxError>) -> async_graphql::Result<T> {
    result.unwrap_or_else(|e| {
        eprintln!("feed_server: graphql request failed: {e}");
        Err(graphql::error(&Problem::internal()))
    })
}

/// The connection of `feed(..)`; the outer error is the server's.
async fn graphql_feed(
    app: &AppState,
    member: &str,
    workspace: &str,
    sort: Option<EventSort>,
    args: &RelayArgs,
    total: bool,
) -> Result<async_graphql::Result<RelayConnection<EventNode>>, BoxError> {
    let workspace = match app.db.access(member, workspace).await? {
        Access::UnknownCaller | Access::NotAMember | Access::NotCanonical => {
            return Ok(Err(graphql::error(&Problem::not_found())))
        }
        Access::Granted(workspace) => workspace,
    };
    // The REST feed's scope: its tokens and these are the same.
    let scope = ("events", workspace.as_str());
    let sort = match args.resolve_sort(sort, EventSort::Newest, &app.codec, &scope) {
        Ok(sort) => sort,
        Err(e) => return Ok(Err(e)),
    };
    let (w, s) = (workspace.as_str(), &scope);
    with_conn!(&app.db, |conn| match sort {
        EventSort::Newest =>
            sorted_connection::<EventByNewest, _>(conn, app, w, s, args, total).await,
        EventSort::Oldest =>
            sorted_connection::<EventByOldest, _>(conn, app, w, s, args, total).await,
    })
}

/// The connection of a page of `workspace`'s events in named sort `K` on diesel-async
/// connection `conn`: one function for every sort and every backend, as the REST feed's.
async fn sorted_connection<K, C>(
    conn: &mut C,
    app: &AppState,
    workspace: &str,
    scope: &(&str, &str),
    args: &RelayArgs,
    total: bool,
) -> Result<async_graphql::Result<RelayConnection<EventNode>>, BoxError>
where
    C: AsyncConnection,
    K: SortRow<Event, C::Backend>,
    WorkspaceEvents<K, C::Backend>: LoadBudgetedPage<'static, C, K>,
{
    let request = match args.resolve::<K>(&app.codec, scope, &app.settings.policy) {
        Ok(request) => request,
        Err(e) => return Ok(Err(e)),
    };
    let paginated = request.paginate_async(workspace_events::<K, C::Backend>(workspace));
    let paginated = if total {
        paginated.with_total_count()
    } else {
        paginated
    };
    let page = paginated
        .max_bytes_in_sql(app.settings.max_bytes, events::attachment)
        .budget_column(events::message)
        .load_page(conn)
        .await?;
    Ok(graphql::connection(page, &app.codec, scope, |row| {
        EventNode::from(row.into())
    }))
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
        Access::UnknownCaller | Access::NotAMember | Access::NotCanonical => {
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

impl Db {
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
}

/// 400 `query_invalid` for a body that is not a GraphQL request (JSON with a `query`), in
/// GraphQL's words rather than REST's "query string".
fn not_a_graphql_request() -> Problem {
    Problem::new(400, "query_invalid", "the body is not a GraphQL request")
}

/// `POST /graphql`: authenticates the bearer, then runs the document as its member. A body
/// over [`GRAPHQL_MAX_BODY`] (the route's limit) is a 413 `body_too_large`, not parsed.
pub(crate) async fn graphql_endpoint(
    State(app): State<AppState>,
    headers: HeaderMap,
    body: Result<axum::body::Bytes, BytesRejection>,
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
    let body = match body {
        Ok(body) => body,
        Err(e) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            return Problem::new(413, "body_too_large", "request body too large").into_response()
        }
        Err(_) => return not_a_graphql_request().into_response(),
    };
    let Ok(request) = serde_json::from_slice::<async_graphql::Request>(&body) else {
        return not_a_graphql_request().into_response();
    };
    let schema = app.graphql.clone();
    let response = schema.execute(request.data(app).data(Member(member))).await;
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
