//! The axum glue (feature `axum`): [`PageParams`] as an extractor, [`Problem`] and
//! [`PageRequestError`] as responses.

use axum::extract::{FromRequestParts, Query};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use super::{PageParams, PageRequestError, Problem};

/// The status, `Content-Type: application/problem+json`, `Cache-Control: no-store` and the
/// JSON body.
impl IntoResponse for Problem {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let body = serde_json::to_vec(&self).unwrap_or_default();
        let mut response = (status, body).into_response();
        response.headers_mut().insert(
            CONTENT_TYPE,
            HeaderValue::from_static(Problem::CONTENT_TYPE),
        );
        // A problem answers one caller's request (its token, its authorization): no cache
        // keeps it for another.
        response
            .headers_mut()
            .insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
        response
    }
}

/// The [`Problem`] of the error.
impl IntoResponse for PageRequestError {
    fn into_response(self) -> Response {
        Problem::from(&self).into_response()
    }
}

/// Reads `cursor` and `page_size` from the query string (other parameters are ignored).
/// Rejection: [`Problem::invalid_query`], a 400 problem+json, when the query string does
/// not parse (a parameter given twice, bad percent-encoding).
impl<S: Send + Sync> FromRequestParts<S> for PageParams {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Problem> {
        match Query::<PageParams>::from_request_parts(parts, state).await {
            Ok(Query(params)) => Ok(params),
            Err(_) => Err(Problem::invalid_query()),
        }
    }
}
