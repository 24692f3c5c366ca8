//! [`Problem`]: RFC 9457 problem details, and the one table of the status, code and title
//! every error of the crate gets in a response.

use serde::{Deserialize, Serialize};

#[cfg(feature = "export")]
use crate::export::ExportError;
use crate::page_size::PageSizeError;
use crate::sort::UnknownSort;
use crate::token::{CursorError, EncodeError};
use crate::web::PageRequestError;

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
/// * `code`: the crate's stable code (the table below; listed in the [tokens guide](crate::guide::tokens#errors)).
/// * `restart_from_first_page`: `true` for every refused token (drop it and request the first
///   page); absent otherwise.
///
/// | cause | status | code |
/// |---|---|---|
/// | a refused token ([`CursorError`]) | 400 | `cursor_invalid` / `cursor_expired` (restart) |
/// | a refused page size ([`PageSizeError`]) | 400 | `page_size_invalid` |
/// | an unknown sort name ([`UnknownSort`]) | 400 | `sort_invalid` |
/// | a sort other than the cursor's ([`PageRequestError::SortMismatch`]) | 400 | `sort_mismatch` (restart) |
/// | a query string that does not parse (a parameter twice, bad percent-encoding) | 400 | `query_invalid` |
/// | no or unknown credentials ([`Problem::unauthorized`]) | 401 | `unauthorized` |
/// | not found, or not yours to read ([`Problem::not_found`]; an unknown stored export) | 404 | `not_found` |
/// | a stored export past its end (`ExportError::Expired`, feature `export`) | 410 | `export_expired` |
/// | a stored export over the store's row limit (`ExportError::TooManyRows`) | 422 | `export_too_large` |
/// | a server failure ([`EncodeError`], [`Problem::internal`], any other `ExportError`) | 500 | `internal_error` |
///
/// With the feature `axum`, `Problem` is an `IntoResponse` (the status, `Content-Type:
/// application/problem+json`, the body).
///
/// ```
/// use keyset_diesel::token::CursorError;
/// use keyset_diesel::web::{PageSizeError, Problem};
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
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
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
    /// Response headers the problem needs besides its body, as `(name, value)`: the
    /// `WWW-Authenticate` challenge of a 401 (RFC 9110, section 15.5.2). Not part of the JSON
    /// body; the axum response writes them.
    #[serde(skip)]
    pub headers: Vec<(String, String)>,
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
            headers: Vec::new(),
        }
    }

    /// The same problem with a `detail`.
    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }

    /// 401 `unauthorized`: no credentials, or credentials the server does not know, with the
    /// `WWW-Authenticate: Bearer` challenge RFC 9110 requires on a 401 (replace it with
    /// [`with_header`](Self::with_header) for another scheme or a realm).
    ///
    /// ```
    /// use keyset_diesel::web::Problem;
    /// let p = Problem::unauthorized();
    /// assert_eq!(p.headers, [("WWW-Authenticate".to_string(), "Bearer".to_string())]);
    /// let p = p.with_header("www-authenticate", r#"Bearer realm="feed""#);
    /// assert_eq!(p.headers, [("www-authenticate".to_string(), r#"Bearer realm="feed""#.to_string())]);
    /// ```
    pub fn unauthorized() -> Self {
        Problem::new(401, "unauthorized", "missing or unknown credentials")
            .with_header("WWW-Authenticate", "Bearer")
    }

    /// Sets response header `name` (compared without case) to `value`, replacing an earlier
    /// value of it.
    pub fn with_header(mut self, name: &str, value: &str) -> Self {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    /// 404 `not_found`: also what a caller gets for a resource it may not read, so that the
    /// answer does not tell whether it exists.
    pub fn not_found() -> Self {
        Problem::new(404, "not_found", "not found")
    }

    /// 500 `internal_error`, without details.
    pub fn internal() -> Self {
        let (status, code, title) = INTERNAL;
        Problem::new(status, code, title)
    }

    /// 400 `query_invalid`: the query string does not parse.
    pub fn invalid_query() -> Self {
        Problem::new(400, "query_invalid", "the query string does not parse")
    }
}

/// The text every refused token gets, whatever the reason: nothing of the cause, nothing of
/// the token, and the same for an unknown key id as for a bad signature (which would otherwise
/// let anyone enumerate the configured key ids).
pub const CURSOR_REFUSED: &str = "invalid or expired cursor; restart from the first page";

/// The code and title of every server-side failure: nothing of the cause.
const INTERNAL: (u16, &str, &str) = (500, "internal_error", "internal server error");

/// The one table of responses: every error the crate returns to a client, as status, code
/// (stable, listed in the tokens guide; never changed) and title.
///
/// | error | status | code | title |
/// |---|---|---|---|
/// | [`CursorError::Expired`], [`CursorError::LifetimeTooLong`] | 400 | `cursor_expired` | [`CURSOR_REFUSED`] |
/// | every other refusal of a token ([`CursorError`]) | 400 | `cursor_invalid` | [`CURSOR_REFUSED`] |
/// | [`CursorError::ScopeNotSerializable`], [`EncodeError`] | 500 | `internal_error` | `internal server error` |
/// | [`PageSizeError`] | 400 | `page_size_invalid` | `invalid page size` (the rule in `detail`) |
/// | [`UnknownSort`] | 400 | `sort_invalid` | `unknown sort` (the choices in `detail`) |
/// | [`PageRequestError::SortMismatch`] | 400 | `sort_mismatch` (restart) | `the cursor belongs to another sort; drop it or the sort` (both names in `detail`) |
/// | `ExportError::Unknown` (feature `export`) | 404 | `not_found` | `not found` |
/// | `ExportError::Expired` | 410 | `export_expired` | `the export expired; create a new one` |
/// | `ExportError::TooManyRows` | 422 | `export_too_large` | `the export would hold too many rows` (the limit in `detail`) |
/// | `ExportError::Cursor` | as the [`CursorError`] | | |
/// | `ExportError::InvalidPageSize`, `ExportError::PageSize` | 400 | `page_size_invalid` | `invalid page size` |
/// | any other `ExportError` (the database, serde, randomness) | 500 | `internal_error` | `internal server error` |
fn cursor_refused(e: &CursorError) -> (u16, &'static str, &'static str) {
    match e {
        CursorError::ScopeNotSerializable => INTERNAL,
        CursorError::Expired { .. } | CursorError::LifetimeTooLong { .. } => {
            (400, "cursor_expired", CURSOR_REFUSED)
        }
        _ => (400, "cursor_invalid", CURSOR_REFUSED),
    }
}

/// 400 with `restart_from_first_page` for every refusal of the token (`cursor_expired` or
/// `cursor_invalid`, title [`CURSOR_REFUSED`]); 500 `internal_error` for
/// [`CursorError::ScopeNotSerializable`].
impl From<&CursorError> for Problem {
    fn from(e: &CursorError) -> Self {
        let (status, code, title) = cursor_refused(e);
        let mut p = Problem::new(status, code, title);
        p.restart_from_first_page = e.restart_from_first_page();
        p
    }
}

/// 400 `page_size_invalid`, the rule broken in `detail`.
impl From<&PageSizeError> for Problem {
    fn from(e: &PageSizeError) -> Self {
        Problem::new(400, "page_size_invalid", "invalid page size").with_detail(e.to_string())
    }
}

/// 500 `internal_error`: nothing of the cause.
impl From<&EncodeError> for Problem {
    fn from(_: &EncodeError) -> Self {
        Problem::internal()
    }
}

/// 400 `sort_invalid`, the choices in `detail`.
impl From<&UnknownSort> for Problem {
    fn from(e: &UnknownSort) -> Self {
        Problem::new(400, "sort_invalid", "unknown sort")
            .with_detail(format!("expected one of {}", e.choices()))
    }
}

/// See the table on [`Problem`]: 404, 410, 422, the token's problem, 400, or 500.
#[cfg(feature = "export")]
impl From<&ExportError> for Problem {
    fn from(e: &ExportError) -> Self {
        match e {
            ExportError::Unknown => Problem::not_found(),
            ExportError::Expired { .. } => Problem::new(
                410,
                "export_expired",
                "the export expired; create a new one",
            ),
            ExportError::Cursor(e) => e.into(),
            ExportError::InvalidPageSize => {
                Problem::new(400, "page_size_invalid", "invalid page size")
                    .with_detail("page size must be at least 1")
            }
            ExportError::PageSize(e) => e.into(),
            ExportError::TooManyRows { limit } => Problem::new(
                422,
                "export_too_large",
                "the export would hold too many rows",
            )
            .with_detail(format!("an export holds at most {limit} rows")),
            _ => Problem::internal(),
        }
    }
}

/// The token's or the page size's problem.
impl From<&PageRequestError> for Problem {
    fn from(e: &PageRequestError) -> Self {
        match e {
            PageRequestError::Cursor(e) => e.into(),
            PageRequestError::PageSize(e) => e.into(),
            PageRequestError::SortMismatch { requested, token } => {
                let mut p = Problem::new(
                    400,
                    "sort_mismatch",
                    "the cursor belongs to another sort; drop it or the sort",
                )
                .with_detail(format!(
                    "the cursor was made in sort `{token}`, the request asks for `{requested}`"
                ));
                p.restart_from_first_page = true;
                p
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every refusal of a token is a 400 that tells the client to restart, with one text and
    /// no cause; only the server's own scope failure is a 500 that restarting does not cure.
    #[test]
    fn token_errors_restart_page_size_errors_do_not() {
        for (e, code) in [
            (CursorError::Malformed, "cursor_invalid"),
            (CursorError::TooLong { max: 2048 }, "cursor_invalid"),
            (CursorError::BadSignature, "cursor_invalid"),
            (CursorError::UnknownKeyId, "cursor_invalid"),
            (CursorError::UnsupportedVersion, "cursor_invalid"),
            (CursorError::Expired { expired_at: 1 }, "cursor_expired"),
            (
                CursorError::LifetimeTooLong { expires_at: 9 },
                "cursor_expired",
            ),
            (CursorError::ScopeMismatch, "cursor_invalid"),
            (CursorError::SortMismatch, "cursor_invalid"),
        ] {
            let p = Problem::from(&e);
            assert_eq!((p.status, p.code.as_str()), (400, code), "{e:?}");
            assert!(p.restart_from_first_page);
            assert_eq!(p.title, CURSOR_REFUSED);
            assert_eq!(p.detail, None, "nothing of the cause");
            assert_eq!(p.type_uri, format!("{}{code}", Problem::TYPE_PREFIX));
        }
        // A client cannot tell a retired key id from a bad signature.
        assert_eq!(
            Problem::from(&CursorError::UnknownKeyId),
            Problem::from(&CursorError::BadSignature)
        );
        let server = Problem::from(&CursorError::ScopeNotSerializable);
        assert_eq!(
            (
                server.status,
                server.code.as_str(),
                server.restart_from_first_page
            ),
            (500, "internal_error", false)
        );
        assert!(!server.title.contains("restart"));
        let encode = Problem::from(&EncodeError::Scope("a secret reason".into()));
        assert_eq!(
            (encode.status, encode.code.as_str()),
            (500, "internal_error")
        );
        assert!(!format!("{encode:?}").contains("secret"));
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
    fn an_unknown_sort_names_the_choices() {
        let p = Problem::from(&UnknownSort::new("top", &["newest", "most_liked"]));
        assert_eq!((p.status, p.code.as_str()), (400, "sort_invalid"));
        assert_eq!(
            p.detail.as_deref(),
            Some("expected one of \"newest\", \"most_liked\"")
        );
    }

    #[cfg(feature = "export")]
    #[test]
    fn export_errors_are_404_410_422_the_tokens_or_500() {
        let status = |e: ExportError| {
            let p = Problem::from(&e);
            (p.status, p.code)
        };
        assert_eq!(status(ExportError::Unknown), (404, "not_found".into()));
        assert_eq!(
            status(ExportError::Expired { expired_at: 1 }),
            (410, "export_expired".into())
        );
        assert_eq!(
            status(ExportError::Cursor(CursorError::ScopeMismatch)),
            (400, "cursor_invalid".into())
        );
        assert_eq!(
            status(ExportError::InvalidPageSize),
            (400, "page_size_invalid".into())
        );
        assert_eq!(
            status(ExportError::PageSize(PageSizeError::TooLarge { max: 1000 })),
            (400, "page_size_invalid".into())
        );
        assert_eq!(
            status(ExportError::TooManyRows { limit: 10 }),
            (422, "export_too_large".into())
        );
        assert_eq!(
            Problem::from(&ExportError::TooManyRows { limit: 10 })
                .detail
                .as_deref(),
            Some("an export holds at most 10 rows")
        );
        assert_eq!(
            status(ExportError::InvalidLifetime {
                requested_secs: u64::MAX,
                max_secs: 1
            }),
            (500, "internal_error".into())
        );
        assert_eq!(
            status(ExportError::Database(diesel::result::Error::NotFound)),
            (500, "internal_error".into())
        );
    }
}
