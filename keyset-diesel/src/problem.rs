//! A paging request's parameters ([`PageParams`]) and its errors as RFC 9457 problem details
//! ([`Problem`]); with the feature `axum`, the extractor and the responses.

use serde::{Deserialize, Serialize};

use crate::cursor::Cursor;
use crate::keyset::Keyset;
use crate::page_size::{PageSizeError, PageSizePolicy};
use crate::token::{CursorCodec, CursorError, EncodeError};

/// An RFC 9457 problem details body (`application/problem+json`), for the errors of a paging
/// request:
///
/// ```json
/// { "type": "tag:keyset-diesel,2026:problem/cursor_invalid",
///   "title": "invalid or expired cursor; restart from the first page",
///   "status": 400, "code": "cursor_invalid", "restart_from_first_page": true }
/// ```
///
/// * `type`: a stable identifier (a `tag:` URI, RFC 4151; not a link), one per `code`:
///   `tag:keyset-diesel,2026:problem/<code>`. Never changed.
/// * `title`, `status`: the HTTP status and a short text that does not vary with the cause.
/// * `detail` (optional): for a page size, which rule (`"page size must be at most 100"`).
///   Never the token, nor why a token was refused (that is for your logs: the
///   [`CursorError`] variant).
/// * `code`: the crate's stable code ([`CursorError::code`], [`PageSizeError::code`]).
/// * `restart_from_first_page`: `true` for every refused token (drop it and request the first
///   page); absent otherwise.
///
/// | cause | status | code |
/// |---|---|---|
/// | a refused token ([`CursorError`]) | 400 | `cursor_invalid` / `cursor_expired` (restart) |
/// | a refused page size ([`PageSizeError`]) | 400 | `page_size_invalid` |
/// | a query string that does not parse (a parameter twice, bad percent-encoding) | 400 | `query_invalid` |
/// | no or unknown credentials ([`Problem::unauthorized`]) | 401 | `unauthorized` |
/// | not found, or not yours to read ([`Problem::not_found`]) | 404 | `not_found` |
/// | a server failure ([`EncodeError`], [`Problem::internal`]) | 500 | `internal_error` |
///
/// With the feature `axum`, `Problem` is an `IntoResponse` (the status, `Content-Type:
/// application/problem+json`, the body).
///
/// ```
/// use keyset_diesel::{CursorError, PageSizeError, Problem};
/// let p = Problem::from(&CursorError::BadSignature);
/// assert_eq!((p.status, p.code.as_str(), p.restart_from_first_page), (400, "cursor_invalid", true));
/// assert_eq!(p.type_uri, "tag:keyset-diesel,2026:problem/cursor_invalid");
/// let p = Problem::from(&PageSizeError::TooLarge { max: 100 });
/// assert_eq!(p.detail.as_deref(), Some("page size must be at most 100"));
/// let json = serde_json::to_value(&p).unwrap();
/// assert_eq!(json["type"], "tag:keyset-diesel,2026:problem/page_size_invalid");
/// assert!(json.get("restart_from_first_page").is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Problem {
    /// The problem type: `tag:keyset-diesel,2026:problem/<code>`.
    #[serde(rename = "type")]
    pub type_uri: String,
    /// A short text of the problem type.
    pub title: String,
    /// The HTTP status code.
    pub status: u16,
    /// What exactly is wrong, when it helps the client and reveals nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// The stable machine-readable code.
    pub code: String,
    /// `true`: drop the token and request the first page (every refused token).
    #[serde(default, skip_serializing_if = "is_false")]
    pub restart_from_first_page: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl Problem {
    /// The media type of the body: `application/problem+json`.
    pub const CONTENT_TYPE: &'static str = "application/problem+json";
    /// What every `type` starts with; the code follows.
    pub const TYPE_PREFIX: &'static str = "tag:keyset-diesel,2026:problem/";

    /// A problem with `status`, `code` (its type is [`Problem::TYPE_PREFIX`] + `code`) and
    /// `title`; no detail, no restart.
    pub fn new(status: u16, code: &str, title: &str) -> Self {
        Problem {
            type_uri: format!("{}{code}", Self::TYPE_PREFIX),
            title: title.to_string(),
            status,
            detail: None,
            code: code.to_string(),
            restart_from_first_page: false,
        }
    }

    /// The same problem with a `detail`.
    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }

    /// 401 `unauthorized`: no credentials, or credentials the server does not know.
    pub fn unauthorized() -> Self {
        Problem::new(401, "unauthorized", "missing or unknown credentials")
    }

    /// 404 `not_found`: also what a caller gets for a resource it may not read, so that the
    /// answer does not tell whether it exists.
    pub fn not_found() -> Self {
        Problem::new(404, "not_found", "not found")
    }

    /// 500 `internal_error`, without details.
    pub fn internal() -> Self {
        Problem::new(500, "internal_error", "internal server error")
    }

    /// 400 `query_invalid`: the query string does not parse.
    pub fn invalid_query() -> Self {
        Problem::new(400, "query_invalid", "the query string does not parse")
    }
}

/// 400 with `restart_from_first_page` for every refusal of the token; 500 `internal_error`
/// for [`CursorError::ScopeNotSerializable`]. The title is [`CursorError::client_message`]:
/// nothing of the cause, nothing of the token.
impl From<&CursorError> for Problem {
    fn from(e: &CursorError) -> Self {
        let mut p = Problem::new(e.http_status(), e.code(), e.client_message());
        p.restart_from_first_page = e.restart_from_first_page();
        p
    }
}

/// 400 `page_size_invalid`, the rule broken in `detail`.
impl From<&PageSizeError> for Problem {
    fn from(e: &PageSizeError) -> Self {
        Problem::new(e.http_status(), e.code(), "invalid page size").with_detail(e.to_string())
    }
}

/// 500 `internal_error`: nothing of the cause.
impl From<&EncodeError> for Problem {
    fn from(e: &EncodeError) -> Self {
        Problem::new(e.http_status(), e.code(), e.client_message())
    }
}

/// The paging parameters of a request's query string, `?cursor=<token>&page_size=<n>` (and
/// `&until=<token>` for a window bounded on both sides), as the client sent them: no
/// framework rejects `page_size=abc` before your policy sees it.
/// [`PageParams::resolve`] checks them. Any framework's query extractor reads it
/// (`Deserialize`); with the feature `axum` it is an extractor itself, whose only rejection
/// (a query string that does not parse) is a [`Problem`] 400 `query_invalid`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
pub struct PageParams {
    /// The token of the page to read (`None`: the first page).
    pub cursor: Option<String>,
    /// A second token, the window's far end (Relay's `before` next to `after`, or `after`
    /// next to `before`; `None`: an open window). Pass the resolved cursor to
    /// [`Paginated::until`](crate::Paginated::until); only its key is used.
    #[serde(default)]
    pub until: Option<String>,
    /// The requested page size, as text (`None`: the token's, else the policy's default).
    pub page_size: Option<String>,
}

/// What a checked [`PageParams`] gives: where to read and how many rows.
#[derive(Debug, Clone, PartialEq)]
pub struct PageRequest<K: Keyset> {
    /// The decoded cursor; `None` for the first page. Page with
    /// [`PaginateDsl::paginate`](crate::PaginateDsl::paginate), which follows its direction.
    pub cursor: Option<Cursor<K>>,
    /// The decoded far end of the window ([`PageParams::until`]); `None`: an open window.
    /// Pass it to [`Paginated::until`](crate::Paginated::until).
    pub until: Option<Cursor<K>>,
    /// The page size: the request's, else the one the token was made with, else the default.
    pub page_size: u32,
}

/// Why [`PageParams::resolve`] refused a request. Log the variant; answer the client with
/// [`Problem::from`] (with the feature `axum` it is an `IntoResponse` that does so).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PageRequestError {
    /// The token: restart from the first page (400, or 500 for a server-side scope failure).
    #[error(transparent)]
    Cursor(CursorError),
    /// The page size (400).
    #[error(transparent)]
    PageSize(PageSizeError),
}

impl From<&PageRequestError> for Problem {
    fn from(e: &PageRequestError) -> Self {
        match e {
            PageRequestError::Cursor(e) => e.into(),
            PageRequestError::PageSize(e) => e.into(),
        }
    }
}

impl PageParams {
    /// Checks the parameters: the token with `codec` for keyset `K` and `scope` (the request's
    /// filters), the page size with `policy`. A request without a page size gets the one the
    /// token was made with ([`PageSizePolicy::resolve_or`]).
    ///
    /// ```
    /// use keyset_diesel::{CursorCodec, PageParams, PageRequestError, PageSizePolicy, Problem, SecretKey};
    /// # include!("doctest_setup.rs");
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let conn = &mut setup();
    /// let codec = CursorCodec::builder()
    ///     .signing_key(SecretKey::new(1, b"a 32+ byte secret from your secret store")?)
    ///     .build()?;
    /// let policy = PageSizePolicy::new(20, 100).unwrap();
    /// let first = PageParams { cursor: None, until: None, page_size: Some("2".into()) };
    /// let request = first.resolve::<Event>(&codec, &"W9", &policy)?;
    /// let page = events::table
    ///     .filter(events::workspace_id.eq("W9"))
    ///     .select(Event::as_select())
    ///     .paginate(request.cursor)
    ///     .until(request.until)
    ///     .page_size(request.page_size)
    ///     .load_page(conn)?;
    /// let token = codec.encode_page_cursor(&page, &"W9")?.unwrap();
    ///
    /// // Next request: only the token. The page size comes with it.
    /// let next = PageParams { cursor: Some(token.clone()), until: None, page_size: None };
    /// assert_eq!(next.resolve::<Event>(&codec, &"W9", &policy)?.page_size, 2);
    ///
    /// // Refusals: typed for the log, a problem for the client.
    /// let error = next.resolve::<Event>(&codec, &"W7", &policy).unwrap_err();
    /// assert!(matches!(error, PageRequestError::Cursor(_)));
    /// assert!(Problem::from(&error).restart_from_first_page);
    /// let bad = PageParams { cursor: None, until: None, page_size: Some("abc".into()) };
    /// let error = bad.resolve::<Event>(&codec, &"W9", &policy).unwrap_err();
    /// assert_eq!(Problem::from(&error).code, "page_size_invalid");
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    /// [`PageRequestError::Cursor`] for a token (`cursor`, then `until`) the codec refuses
    /// (checked first: a client holding a bad token must restart whatever else it sent), then
    /// [`PageRequestError::PageSize`] for a page size the policy refuses.
    pub fn resolve<K: Keyset>(
        &self,
        codec: &CursorCodec,
        scope: &(impl Serialize + ?Sized),
        policy: &PageSizePolicy,
    ) -> Result<PageRequest<K>, PageRequestError> {
        let decoded = self
            .cursor
            .as_deref()
            .map(|token| codec.decode_token::<K>(token, scope))
            .transpose()
            .map_err(PageRequestError::Cursor)?;
        let until = self
            .until
            .as_deref()
            .map(|token| codec.decode::<K>(token, scope))
            .transpose()
            .map_err(PageRequestError::Cursor)?;
        let remembered = decoded.as_ref().and_then(|d| d.page_size);
        let page_size = policy
            .resolve_or(self.page_size.as_deref(), remembered)
            .map_err(PageRequestError::PageSize)?;
        Ok(PageRequest {
            cursor: decoded.map(|d| d.cursor),
            until,
            page_size,
        })
    }
}

#[cfg(feature = "axum")]
mod axum_impls {
    use axum::extract::{FromRequestParts, Query};
    use axum::http::header::CONTENT_TYPE;
    use axum::http::request::Parts;
    use axum::http::{HeaderValue, StatusCode};
    use axum::response::{IntoResponse, Response};

    use super::{PageParams, PageRequestError, Problem};

    /// The status, `Content-Type: application/problem+json` and the JSON body.
    impl IntoResponse for Problem {
        fn into_response(self) -> Response {
            let status =
                StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            let body = serde_json::to_vec(&self).unwrap_or_default();
            let mut response = (status, body).into_response();
            response.headers_mut().insert(
                CONTENT_TYPE,
                HeaderValue::from_static(Problem::CONTENT_TYPE),
            );
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::token::fixtures::{codec, ById};

    #[test]
    fn token_errors_restart_page_size_errors_do_not() {
        for e in [
            CursorError::Malformed,
            CursorError::Expired { expired_at: 1 },
            CursorError::ScopeMismatch,
        ] {
            let p = Problem::from(&e);
            assert_eq!(p.status, 400);
            assert!(p.restart_from_first_page);
            assert_eq!(p.title, CursorError::CLIENT_MESSAGE);
            assert_eq!(p.detail, None, "nothing of the cause");
            assert_eq!(p.type_uri, format!("{}{}", Problem::TYPE_PREFIX, e.code()));
        }
        let server = Problem::from(&CursorError::ScopeNotSerializable);
        assert_eq!(
            (server.status, server.restart_from_first_page),
            (500, false)
        );
        let p = Problem::from(&PageSizeError::TooSmall);
        assert_eq!((p.status, p.code.as_str()), (400, "page_size_invalid"));
        assert!(!p.restart_from_first_page);
        let json = serde_json::to_value(&p).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "type": "tag:keyset-diesel,2026:problem/page_size_invalid",
                "title": "invalid page size", "status": 400,
                "detail": "page size must be at least 1", "code": "page_size_invalid",
            })
        );
        let back: Problem = serde_json::from_value(json).unwrap();
        assert_eq!(back, p);
    }

    #[test]
    fn params_take_the_tokens_page_size_unless_the_request_gives_one() {
        let codec = codec();
        let policy = PageSizePolicy::new(5, 10).unwrap();
        let token = codec
            .encode_with_page_size(&Cursor::<ById>::after((7,)), 3, &"W9")
            .unwrap();
        let with = |cursor: Option<&str>, size: Option<&str>| PageParams {
            cursor: cursor.map(str::to_string),
            until: None,
            page_size: size.map(str::to_string),
        };
        let r = with(Some(&token), None)
            .resolve::<ById>(&codec, &"W9", &policy)
            .unwrap();
        assert_eq!((r.cursor, r.page_size), (Some(Cursor::after((7,))), 3));
        let r = with(Some(&token), Some("8"))
            .resolve::<ById>(&codec, &"W9", &policy)
            .unwrap();
        assert_eq!(r.page_size, 8);
        let r = with(None, None)
            .resolve::<ById>(&codec, &"W9", &policy)
            .unwrap();
        assert_eq!((r.cursor, r.page_size), (None, 5));
        assert_eq!(
            with(Some(&token), Some("abc")).resolve::<ById>(&codec, &"W9", &policy),
            Err(PageRequestError::PageSize(PageSizeError::NotANumber))
        );
        // The token first: a bad token restarts even with a bad page size.
        assert_eq!(
            with(Some(&token), Some("0")).resolve::<ById>(&codec, &"W7", &policy),
            Err(PageRequestError::Cursor(CursorError::ScopeMismatch))
        );
    }

    #[test]
    fn params_resolve_the_window_end_with_the_same_codec_and_scope() {
        let codec = codec();
        let policy = PageSizePolicy::new(5, 10).unwrap();
        let after = codec.encode(&Cursor::<ById>::after((3,)), &"W9").unwrap();
        let before = codec.encode(&Cursor::<ById>::before((8,)), &"W9").unwrap();
        let params = PageParams {
            cursor: Some(after),
            until: Some(before.clone()),
            page_size: None,
        };
        let r = params.resolve::<ById>(&codec, &"W9", &policy).unwrap();
        assert_eq!(
            (r.cursor, r.until),
            (Some(Cursor::after((3,))), Some(Cursor::before((8,))))
        );
        // The window's end is checked like the cursor: another scope or a damaged token is
        // refused, never dropped (an open window would read past the client's bound).
        assert_eq!(
            params.resolve::<ById>(&codec, &"W7", &policy),
            Err(PageRequestError::Cursor(CursorError::ScopeMismatch))
        );
        let damaged = PageParams {
            cursor: None,
            until: Some(format!("{before}x")),
            page_size: None,
        };
        assert!(matches!(
            damaged.resolve::<ById>(&codec, &"W9", &policy),
            Err(PageRequestError::Cursor(_))
        ));
    }
}
