//! The OpenAPI 3.1 document of the paged REST routes, served at `GET /openapi.json`.

use axum::http::header::CONTENT_TYPE;
use axum::http::HeaderValue;
use axum::response::{IntoResponse, Response};
use keyset_diesel::web::{PageLinks, PageResponse, Problem};

use crate::rest::{__path_list_events, __path_list_feed};
use crate::EventItem;

/// The OpenAPI 3.1 document of the routes, served at `GET /openapi.json`.
#[derive(utoipa::OpenApi)]
#[openapi(
    info(title = "keyset feed server", description = "A workspace activity feed paginated by keyset with signed tokens."),
    paths(list_events, list_feed),
    components(schemas(PageResponse<EventItem>, EventItem, PageLinks, Problem))
)]
pub struct ApiDoc;

/// `GET /openapi.json`: [`ApiDoc`] as JSON.
pub(crate) async fn openapi_json() -> Response {
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
