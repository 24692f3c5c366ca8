//! A paging request's parameters: [`PageParams`] as the client sent them, [`PageRequest`] once
//! checked, [`PageRequestError`] when refused.

use serde::{Deserialize, Serialize};

use crate::cursor::Cursor;
use crate::keyset::Keyset;
use crate::page_size::{PageSizeError, PageSizePolicy};
use crate::sort::SortChoice;
use crate::token::{CursorCodec, CursorError};
#[cfg(doc)]
use crate::web::Problem;

/// The paging parameters of a request's query string, `?cursor=<token>&page_size=<n>` (and
/// `&until=<token>` for a window bounded on both sides), as the client sent them: no
/// framework rejects `page_size=abc` before your policy sees it.
/// [`PageParams::resolve`] checks them. Any framework's query extractor reads it
/// (`Deserialize`); with the feature `axum` it is an extractor itself, whose only rejection
/// (a query string that does not parse) is a [`Problem`] 400 `query_invalid`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::IntoParams))]
#[cfg_attr(feature = "utoipa", into_params(parameter_in = Query))]
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
    /// The request names a sort (`?sort=`) other than the one its token was made in
    /// ([`PageParams::resolve_sort`]): 400 `sort_mismatch`, restart from the first page of
    /// the sort asked for. The names are the server's sort names, never the client's text.
    #[error("the cursor was made in sort `{token}`, the request asks for `{requested}`")]
    SortMismatch {
        /// The sort the request names.
        requested: &'static str,
        /// The sort the token was made in.
        token: &'static str,
    },
}

/// The sort of a request whose tokens are `tokens`: the one it names (`requested`), which
/// every token must have been made in; with no sort named, the sort of its tokens (all one);
/// with neither, `default`. What [`PageParams::resolve_sort`] and the GraphQL
/// `RelayArgs::resolve_sort` decide.
///
/// # Errors
/// [`PageRequestError::SortMismatch`] when a token was made in another sort than the one named
/// (or than another token's); [`PageRequestError::Cursor`] when a token is refused.
pub(crate) fn sort_of_tokens<'t, S: SortChoice>(
    tokens: impl IntoIterator<Item = &'t str>,
    requested: Option<S>,
    default: S,
    codec: &CursorCodec,
    scope: &(impl Serialize + ?Sized),
) -> Result<S, PageRequestError> {
    let mut sort = requested;
    for token in tokens {
        let made_in = codec
            .peek_sort::<S>(token, scope)
            .map_err(PageRequestError::Cursor)?;
        match sort {
            Some(named) if named != made_in => {
                return Err(PageRequestError::SortMismatch {
                    requested: named.name(),
                    token: made_in.name(),
                })
            }
            _ => sort = Some(made_in),
        }
    }
    Ok(sort.unwrap_or(default))
}

impl PageParams {
    /// The sort of the request: the one it names (`requested`, e.g. from
    /// [`SortParam`](crate::web::SortParam)); with a cursor and no sort named, the sort the
    /// cursor's token was made in ([`CursorCodec::peek_sort`]), so a client that follows
    /// links without `?sort=` stays in its sort; with neither, `default`. Then resolve the
    /// page with [`resolve`](Self::resolve) for that sort's row type.
    ///
    /// ```
    /// # include!("../doctest_setup.rs");
    /// use keyset_diesel::token::SecretKey;
    /// use keyset_diesel::web::{PageParams, PageRequestError, Problem};
    /// use keyset_diesel::{Cursor, CursorCodec};
    ///
    /// #[derive(Queryable, Selectable, Keyset)]
    /// #[diesel(table_name = events)]
    /// #[keyset(sort(Oldest(occurred_at(asc), event_id(asc)), Latest(occurred_at(desc), event_id(desc))))]
    /// struct Post {
    ///     #[keyset(asc, unique)]
    ///     event_id: String,
    ///     occurred_at: chrono::NaiveDateTime,
    /// }
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let codec = CursorCodec::builder()
    ///     .signing_key(SecretKey::new(1, b"a 32+ byte secret from your secret store")?)
    ///     .build()?;
    /// let at = chrono::NaiveDate::from_ymd_opt(2026, 1, 2).unwrap().and_hms_opt(3, 4, 5).unwrap();
    /// let token = codec.encode(&Cursor::<PostByLatest>::after((at, "e9".into())), &"W9")?;
    /// let params = PageParams { cursor: Some(token), ..PageParams::default() };
    /// // No `?sort=`: the token's sort.
    /// assert_eq!(params.resolve_sort(None, PostSort::Oldest, &codec, &"W9")?, PostSort::Latest);
    /// // Another sort than the token's: its own problem.
    /// let error = params.resolve_sort(Some(PostSort::Oldest), PostSort::Oldest, &codec, &"W9");
    /// let error = error.unwrap_err();
    /// assert_eq!(error, PageRequestError::SortMismatch { requested: "oldest", token: "latest" });
    /// assert_eq!(Problem::from(&error).code, "sort_mismatch");
    /// // No cursor: the sort asked for, else the default.
    /// assert_eq!(PageParams::default().resolve_sort(None, PostSort::Oldest, &codec, &"W9")?, PostSort::Oldest);
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    /// [`PageRequestError::SortMismatch`] when the request names another sort than its
    /// token's; [`PageRequestError::Cursor`] when the token is refused (as by `resolve`).
    pub fn resolve_sort<S: SortChoice>(
        &self,
        requested: Option<S>,
        default: S,
        codec: &CursorCodec,
        scope: &(impl Serialize + ?Sized),
    ) -> Result<S, PageRequestError> {
        sort_of_tokens(self.cursor.as_deref(), requested, default, codec, scope)
    }

    /// Checks the parameters: the token with `codec` for keyset `K` and `scope` (the request's
    /// filters), the page size with `policy`. A request without a page size gets the one the
    /// token was made with ([`PageSizePolicy::resolve_or`]).
    ///
    /// ```
    /// use keyset_diesel::token::SecretKey;
    /// use keyset_diesel::web::{PageParams, PageRequestError, PageSizePolicy, Problem};
    /// use keyset_diesel::CursorCodec;
    /// # include!("../doctest_setup.rs");
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
    /// let token = codec.encode_with_page_size(&page.next_cursor().unwrap(), page.page_size, &"W9")?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::token::fixtures::{codec, ById};

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
