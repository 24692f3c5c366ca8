//! The paged REST handlers: `GET /workspaces/{workspace}/events` (the model's own order; its
//! page is [`events_page`], the one to copy) and `GET /workspaces/{workspace}/feed?sort=..`
//! (a named sort chosen per request), with the page queries they run.

use axum::extract::{Path, State};
use axum::http::header::VARY;
use axum::http::{HeaderMap, HeaderValue, Uri};
use axum::response::{IntoResponse, Response};
use diesel::prelude::*;
use diesel_async::AsyncConnection;
use keyset_diesel::async_::{LoadBudgetedPage, PaginateDsl};
use keyset_diesel::web::{
    PageParams, PageRequest, PageRequestError, PageResponse, Problem, SortParam,
};
use keyset_diesel::{Page, SortRow};

use crate::auth::{bearer, Access};
use crate::db::with_conn;
use crate::feed::events;
use crate::{
    json_len, AppState, BoxError, Db, Event, EventByNewest, EventByOldest, EventItem, EventSort,
};

/// Which list a request reads.
#[derive(Debug, Clone, Copy)]
enum List {
    /// `/events`: the model's own keyset.
    Events,
    /// `/feed`: a named sort, as the request names it (`None`: the token's, else newest).
    Sorted(Option<EventSort>),
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
pub(crate) async fn list_events(
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
pub(crate) async fn list_feed(
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
        // The token named a member: whether it has no membership at all, not this one, or the
        // path names an id no workspace can have (not canonical), the answer is the same 404,
        // which says nothing of other workspaces.
        Access::UnknownCaller | Access::NotAMember | Access::NotCanonical => {
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
    // The crate's page response: the body, `Link`, `Cache-Control: no-store` (the page carries
    // tokens and one member's rows); and never served to another caller by a shared cache.
    let mut response = body.into_response();
    response
        .headers_mut()
        .insert(VARY, HeaderValue::from_static("Authorization"));
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

impl Db {
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
pub(crate) type WorkspaceEvents<K, DB> = diesel::dsl::Select<
    diesel::dsl::Filter<events::table, diesel::dsl::Eq<events::workspace_id, String>>,
    diesel::dsl::AsSelect<K, DB>,
>;

/// [`WorkspaceEvents`].
pub(crate) fn workspace_events<K, DB>(workspace: &str) -> WorkspaceEvents<K, DB>
where
    DB: diesel::backend::Backend,
    K: SortRow<Event, DB>,
{
    events::table
        .filter(events::workspace_id.eq(workspace.to_string()))
        .select(<K as SelectableHelper<DB>>::as_select())
}
