//! The GraphQL endpoint, `POST /graphql`: a Relay connection of a workspace's events on the
//! same tokens, scopes and page-size policy as the REST routes.

use axum::extract::State;
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE, VARY};
use axum::http::{HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use diesel::prelude::*;
use keyset_diesel::web::graphql::{self, RelayArgs, RelayConnection, RelayRequest};
use keyset_diesel::web::Problem;
use keyset_diesel::Page;

use crate::auth::{bearer, Access};
use crate::db::with_conn;
use crate::feed::events;
use crate::{AppState, BoxError, Db, Event, EventItem};

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

/// `POST /graphql`: authenticates the bearer, then runs the document as its member.
pub(crate) async fn graphql_endpoint(
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
