//! The axum glue (feature `axum`): [`PageParams`] as an extractor, [`PageResponse`],
//! [`Problem`] and [`PageRequestError`] as responses.

use axum::extract::{FromRequestParts, Query};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE, LINK};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use super::{PageParams, PageRequestError, PageResponse, Problem};
use crate::sort::SortChoice;

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
        for (name, value) in &self.headers {
            // A name or value that is not a valid header is dropped, never a panic.
            if let (Ok(name), Ok(value)) = (
                axum::http::HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(value),
            ) {
                response.headers_mut().insert(name, value);
            }
        }
        response
    }
}

/// A page's answer: 200 with the JSON body, `Content-Type: application/json`,
/// `Cache-Control: no-store` (a page carries tokens and one caller's rows: no cache keeps it,
/// for this caller or another) and, when the body has [`links`](PageResponse::links)
/// ([`with_links`](PageResponse::with_links)), the `Link` header of the same URLs (RFC 8288:
/// `<..>; rel="next", <..>; rel="prev", <..>; rel="first"`). The one place these headers are
/// written; add your own (`Vary`) to the response. A body that does not serialize is
/// [`Problem::internal`], never a panic.
///
/// ```
/// use axum::response::IntoResponse;
/// use keyset_diesel::web::PageResponse;
///
/// let body = PageResponse::<String> {
///     items: vec!["e101".into()],
///     next_cursor: Some("AbC".into()),
///     has_more: true,
///     page_size: 1,
///     start_cursor: Some("XyZ".into()),
///     end_cursor: Some("AbC".into()),
///     has_previous_page: false,
///     has_next_page: true,
///     item_cursors: None,
///     total_count: None,
///     links: None,
/// }
/// .with_links("/feed?page_size=1");
/// let response = body.into_response();
/// assert_eq!(response.headers()["cache-control"], "no-store");
/// assert_eq!(
///     response.headers()["link"],
///     "</feed?page_size=1&cursor=AbC>; rel=\"next\", </feed?page_size=1>; rel=\"first\""
/// );
/// ```
impl<T: serde::Serialize> IntoResponse for PageResponse<T> {
    fn into_response(self) -> Response {
        let Ok(body) = serde_json::to_vec(&self) else {
            return Problem::internal().into_response();
        };
        let mut response = body.into_response();
        let headers = response.headers_mut();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
        // URLs built from the request's own URL: a value that is not a valid header (it never
        // is) is left out, never a panic.
        if let Some(Ok(link)) = self
            .links
            .as_ref()
            .map(|links| HeaderValue::from_str(&links.header_value()))
        {
            headers.insert(LINK, link);
        }
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

/// `?sort=<name>` of a request, read as the named sort `S` (a `<Model>Sort`): `None` when the
/// query string has no `sort`. Other parameters are ignored.
///
/// Rejection: a 400 problem+json, `sort_invalid` with the names it expected in `detail` for a
/// name `S` does not have ([`UnknownSort`](crate::UnknownSort)), `query_invalid` for a query
/// string that does not parse. The name given is never echoed (axum's own `Query` rejection of
/// a serde enum repeats it in `text/plain`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SortParam<S>(pub Option<S>);

impl<S: SortChoice, St: Send + Sync> FromRequestParts<St> for SortParam<S> {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, state: &St) -> Result<Self, Problem> {
        #[derive(serde::Deserialize)]
        struct Raw {
            sort: Option<String>,
        }
        let Query(raw) = Query::<Raw>::from_request_parts(parts, state)
            .await
            .map_err(|_| Problem::invalid_query())?;
        match raw.sort {
            None => Ok(SortParam(None)),
            Some(name) => S::from_name(&name)
                .map(|sort| SortParam(Some(sort)))
                .map_err(|e| Problem::from(&e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    diesel::table! { posts (id) { id -> BigInt, likes -> Integer } }

    #[derive(diesel::Queryable, diesel::Selectable, keyset_derive::Keyset)]
    #[diesel(table_name = posts)]
    #[keyset(sort(Newest(id(desc)), MostLiked(likes(desc), id(desc))))]
    #[allow(dead_code)]
    struct Post {
        id: i64,
        likes: i32,
    }

    async fn extract(uri: &str) -> Result<SortParam<PostSort>, Problem> {
        let (mut parts, ()) = axum::http::Request::builder()
            .uri(uri)
            .body(())
            .expect("request")
            .into_parts();
        SortParam::<PostSort>::from_request_parts(&mut parts, &()).await
    }

    /// A sort name the model does not have is the crate's problem, which names
    /// the choices and never the text given.
    #[tokio::test]
    async fn sort_param_reads_a_name_and_never_echoes_a_wrong_one() {
        assert_eq!(extract("/?page_size=2").await.unwrap(), SortParam(None));
        assert_eq!(
            extract("/?sort=most_liked&cursor=x").await.unwrap(),
            SortParam(Some(PostSort::MostLiked))
        );
        let refused = extract("/?sort=%3Cscript%3Ealert(1)%3C%2Fscript%3E")
            .await
            .expect_err("no such sort");
        assert_eq!(
            (refused.status, refused.code.as_str()),
            (400, "sort_invalid")
        );
        let body = serde_json::to_string(&refused).unwrap();
        assert!(!body.contains("script"), "{body}");
        assert!(body.contains("most_liked"), "{body}");
        let twice = extract("/?sort=newest&sort=newest")
            .await
            .expect_err("twice");
        assert_eq!(twice.status, 400);
    }
}
