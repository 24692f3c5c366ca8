//! Stored exports of a workspace's events (the crate's stored export: one consistent
//! snapshot, read page by page over many requests): `POST /workspaces/{workspace}/exports`
//! stores one, `GET /workspaces/{workspace}/exports/{id}` reads a page of it and `DELETE`
//! ends it.

use axum::extract::{Path, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE, VARY};
use axum::http::{HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use diesel::prelude::*;
use keyset_diesel::async_;
use keyset_diesel::export::{Export, ExportError};
use keyset_diesel::web::Problem;
use serde::{Deserialize, Serialize};

use crate::auth::authorized;
use crate::db::with_conn;
use crate::feed::events;
use crate::{AppState, BoxError, Db, EventItem};

/// How long a stored export of `/exports` lives: one hour.
pub const EXPORT_LIFETIME: std::time::Duration = std::time::Duration::from_secs(3600);

/// The `Retry-After` of a creation refused because [`Settings::export_creations`] are
/// running, in seconds.
///
/// [`Settings::export_creations`]: crate::Settings::export_creations
pub const EXPORT_RETRY_AFTER_SECS: u64 = 5;

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

impl Db {
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
/// consistent snapshot); 201 `{"id", "rows", "created_at", "expires_at"}` (Unix seconds); 422
/// `export_too_large` for a workspace of more than [`Settings::max_export_rows`] rows; 503
/// `busy` with `Retry-After` while [`Settings::export_creations`] creations run (the request
/// is refused, not queued).
///
/// [`Settings::max_export_rows`]: crate::Settings::max_export_rows
/// [`Settings::export_creations`]: crate::Settings::export_creations
pub(crate) async fn create_export(
    State(app): State<AppState>,
    Path(workspace): Path<String>,
    headers: HeaderMap,
) -> Response {
    or_internal(async {
        let workspace = match authorized(&app, &headers, &workspace).await? {
            Ok(workspace) => workspace,
            Err(response) => return Ok(response),
        };
        // At most `export_creations` at once: each copies the workspace in one transaction
        // (SQLite's write lock for all of it). One more is refused at once, never queued.
        let Ok(slot) = app.export_slots.clone().try_acquire_owned() else {
            return Ok(busy());
        };
        // The creation runs in a task of its own: a client that goes away must not leave the
        // store's transaction half-way on the connection (SQLite's one connection above all).
        // It keeps its slot until the transaction ends.
        let (db, store) = (app.db.clone(), app.exports.clone());
        let created = tokio::spawn(async move {
            let scope = export_scope(&workspace);
            let created = db.create_export(&store, &workspace, &scope).await;
            drop(slot);
            created
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

/// 503 `busy`: every creation slot is taken; retry after [`EXPORT_RETRY_AFTER_SECS`].
fn busy() -> Response {
    Problem::new(
        503,
        "busy",
        "too many exports are being created; retry later",
    )
    .with_header("Retry-After", &EXPORT_RETRY_AFTER_SECS.to_string())
    .into_response()
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
pub(crate) async fn export_page(
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
pub(crate) async fn expire_export(
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
