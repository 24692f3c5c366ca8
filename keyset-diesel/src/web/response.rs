//! The JSON shape of a page an API returns: rows, the tokens around them, the flags.

use serde::{Deserialize, Serialize};

use crate::cursor::Cursor;
use crate::keyset::Keyset;
use crate::page::Page;
use crate::token::{CursorCodec, EncodeError};
use crate::web::PageLinks;

/// A page as a JSON API returns it, every cursor a signed token ([`CursorCodec`]) bound to the
/// request's scope and recording the page size:
///
/// ```json
/// { "items": [...], "next_cursor": "<token>" | null, "has_more": bool,
///   "page_size": 3, "start_cursor": "<token>" | null, "end_cursor": "<token>" | null,
///   "has_previous_page": bool, "has_next_page": bool,
///   "item_cursors": ["<token>", ...] }
/// ```
///
/// * `next_cursor` / `has_more`: the walk's continuation ([`Page::next_cursor`]); `null` and
///   `false` at the end of results. A client that just follows tokens uses these two.
/// * `start_cursor` / `end_cursor`: the Relay cursors, present whenever the page has
///   rows. `start_cursor` is a backward token (the page before the first item: "previous",
///   or "load newer" at the top of a newest-first list); `end_cursor` a forward one, also at
///   the end of results: the resume position, from which a client at the end of a live list
///   comes back later for the rows added since.
/// * `item_cursors`: one forward token per item, in item order (after that item: Relay's
///   edge cursors), only when asked for ([`PageResponse::from_page_with_item_cursors`]);
///   absent from the JSON otherwise.
///
/// Resolve a token a client sends back with [`CursorCodec::decode`] and page with
/// [`PaginateDsl::paginate`](crate::PaginateDsl::paginate), which follows its direction.
/// `Deserialize` is there for clients written in Rust; a response without the optional members
/// (`page_size` and the Relay members, as this crate's earlier versions wrote it) reads with
/// their defaults.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct PageResponse<T> {
    /// The page's rows, as the API shows them.
    pub items: Vec<T>,
    /// The token for the next page of the walk; `null` at the end of results.
    pub next_cursor: Option<String>,
    /// Whether another page existed at this read.
    pub has_more: bool,
    /// The page size the page was read with, in rows (also recorded in every token).
    #[serde(default)]
    pub page_size: u32,
    /// A backward token before the first item; present whenever the page has rows.
    #[serde(default)]
    pub start_cursor: Option<String>,
    /// A forward token after the last item; present whenever the page has rows.
    #[serde(default)]
    pub end_cursor: Option<String>,
    /// Rows exist before the first item (exactness: [`Page`]).
    #[serde(default)]
    pub has_previous_page: bool,
    /// Rows exist after the last item (exactness: [`Page`]).
    #[serde(default)]
    pub has_next_page: bool,
    /// One forward token per item, when asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item_cursors: Option<Vec<String>>,
    /// The total count of the query without the page, when the page was read
    /// [`with_total_count`](crate::Paginated::with_total_count); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_count: Option<i64>,
    /// The URLs of the first, previous and next pages, when asked for
    /// ([`PageResponse::with_links`]); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub links: Option<PageLinks>,
}

impl<T> PageResponse<T> {
    /// The response for `page`, its rows turned into API items by `map` (pass `|x| x` for a
    /// page already [mapped](Page::map)), its cursors into tokens bound to `scope`.
    ///
    /// # Errors
    /// [`EncodeError`] when `scope` does not serialize or a key is too long for a token.
    pub fn from_page<U, K: Keyset, S: Serialize + ?Sized>(
        page: Page<U, K>,
        codec: &CursorCodec,
        scope: &S,
        map: impl FnMut(U) -> T,
    ) -> Result<Self, EncodeError> {
        let size = page.page_size;
        let token = |c: Option<&Cursor<K>>| {
            c.map(|c| codec.encode_with_page_size(c, size, scope))
                .transpose()
        };
        Ok(PageResponse {
            next_cursor: token(page.next_cursor().as_ref())?,
            start_cursor: token(page.start_cursor.as_ref())?,
            end_cursor: token(page.end_cursor.as_ref())?,
            has_more: page.has_more(),
            page_size: size,
            has_previous_page: page.has_previous_page,
            has_next_page: page.has_next_page,
            item_cursors: None,
            total_count: page.total_count,
            links: None,
            items: page.items.into_iter().map(map).collect(),
        })
    }

    /// With `links`: the URLs of the first, previous and next pages, built from the request's
    /// URL ([`PageLinks::new`]); [`PageLinks::header_value`] is the same URLs as a `Link`
    /// header.
    pub fn with_links(mut self, request_url: &str) -> Self {
        self.links = Some(PageLinks::new(&self, request_url));
        self
    }

    /// Like [`PageResponse::from_page`], with `item_cursors`: a forward token after each item
    /// (Relay edges). The page's items must still be its keyset's rows (map them here).
    ///
    /// ```
    /// use keyset_diesel::token::SecretKey;
    /// use keyset_diesel::web::PageResponse;
    /// use keyset_diesel::{CursorCodec, Page};
    /// # include!("../doctest_setup.rs");
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let conn = &mut setup();
    /// let codec = CursorCodec::builder()
    ///     .signing_key(SecretKey::new(1, b"a 32+ byte secret from your secret store")?)
    ///     .build()?;
    /// let page: Page<Event> = events::table
    ///     .filter(events::workspace_id.eq("W9"))
    ///     .select(Event::as_select())
    ///     .paginate_after(None)
    ///     .page_size(2)
    ///     .load_page(conn)?;
    /// let response = PageResponse::from_page_with_item_cursors(page, &codec, &"W9", |e| e.event_id)?;
    /// let cursors = response.item_cursors.as_ref().expect("asked for");
    /// assert_eq!(cursors.len(), 2);
    /// // The last item's cursor is the page's end cursor.
    /// let last = codec.decode::<Event>(&cursors[1], &"W9")?;
    /// assert_eq!(last.key.1, "e102");
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    /// As [`PageResponse::from_page`].
    pub fn from_page_with_item_cursors<K: Keyset, S: Serialize + ?Sized>(
        page: Page<K>,
        codec: &CursorCodec,
        scope: &S,
        map: impl FnMut(K) -> T,
    ) -> Result<Self, EncodeError> {
        let item_cursors = page
            .items
            .iter()
            .map(|row| codec.encode_with_page_size(&Cursor::after_row(row), page.page_size, scope))
            .collect::<Result<Vec<_>, _>>()?;
        let mut response = Self::from_page(page, codec, scope, map)?;
        response.item_cursors = Some(item_cursors);
        Ok(response)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cursor::{Cursor, Direction};
    use crate::token::fixtures::{codec, ById};

    /// A forward page of `ids`, as `assemble` makes it (both cursors whenever it has rows).
    fn page(ids: &[i64], has_more: bool) -> Page<ById> {
        let end_cursor = ids.last().map(|&id| Cursor::after((id,)));
        Page {
            items: ids.iter().map(|&id| ById(id)).collect(),
            page_size: 2,
            direction: Direction::Forward,
            has_previous_page: false,
            has_next_page: has_more,
            start_cursor: ids.first().map(|&id| Cursor::before((id,))),
            end_cursor,
            total_count: None,
        }
    }

    /// The total count is a member only when the page was read with it (the exact JSON
    /// of a page without it is pinned in the test below).
    #[test]
    fn the_total_count_is_serialized_only_when_present() {
        let codec = codec();
        let counted = Page {
            total_count: Some(5),
            ..page(&[1, 2], true)
        };
        let response = PageResponse::from_page(counted, &codec, &"W9", |r| r.0).unwrap();
        let json = serde_json::to_value(&response).unwrap();
        assert_eq!(json["total_count"], 5);
        let back: PageResponse<i64> = serde_json::from_value(json).unwrap();
        assert_eq!(back.total_count, Some(5));
        let plain = PageResponse::from_page(page(&[1, 2], true), &codec, &"W9", |r| r.0).unwrap();
        let json = serde_json::to_value(&plain).unwrap();
        assert!(json.get("total_count").is_none(), "{json}");
        // `Page`'s own serialization follows the same rule.
        let json = serde_json::to_value(page(&[1], false).map(|r| r.0)).unwrap();
        assert!(json.get("total_count").is_none(), "{json}");
        let counted = Page {
            total_count: Some(0),
            ..page(&[], false)
        };
        let json = serde_json::to_value(counted.map(|r| r.0)).unwrap();
        assert_eq!(json["total_count"], 0);
    }

    #[test]
    fn a_page_with_more_carries_a_token_of_its_next_cursor() {
        let codec = codec();
        let response =
            PageResponse::from_page(page(&[1, 2], true), &codec, &"W9", |r| r.0).unwrap();
        assert_eq!(response.items, [1, 2]);
        assert!(response.has_more);
        let token = response.next_cursor.as_deref().expect("a next page");
        let decoded = codec.decode_token::<ById>(token, &"W9").unwrap();
        assert_eq!(decoded.cursor, Cursor::after((2,)));
        assert_eq!(decoded.page_size, Some(2));
        let start = response
            .start_cursor
            .as_deref()
            .expect("rows: a start cursor");
        assert_eq!(
            codec.decode::<ById>(start, &"W9").unwrap(),
            Cursor::before((1,))
        );
        let json = serde_json::to_value(&response).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "items": [1, 2], "next_cursor": token, "has_more": true, "page_size": 2,
                "start_cursor": start, "end_cursor": token,
                "has_previous_page": false, "has_next_page": true,
            })
        );
        // A Rust client reads it back.
        let back: PageResponse<i64> = serde_json::from_value(json).unwrap();
        assert_eq!(back, response);
    }

    /// The last page has no next token but keeps its resume position.
    #[test]
    fn the_last_page_says_null_and_false_and_keeps_the_resume_position() {
        let codec = codec();
        let response = PageResponse::from_page(page(&[3], false), &codec, &"W9", |r| r.0).unwrap();
        assert_eq!(response.next_cursor, None);
        assert!(!response.has_more && !response.has_next_page);
        let resume = response.end_cursor.as_deref().expect("the resume position");
        assert_eq!(
            codec.decode::<ById>(resume, &"W9").unwrap(),
            Cursor::after((3,))
        );
        let json = serde_json::to_value(&response).unwrap();
        assert_eq!(json["next_cursor"], serde_json::Value::Null);
        assert_eq!(json["has_more"], false);
        assert!(json.get("item_cursors").is_none(), "only when asked");
        // An empty page: no tokens at all.
        let empty = PageResponse::from_page(page(&[], false), &codec, &"W9", |r| r.0).unwrap();
        assert_eq!(
            (empty.start_cursor, empty.end_cursor, empty.next_cursor),
            (None, None, None)
        );
    }

    #[test]
    fn item_cursors_are_forward_tokens_after_each_item() {
        let codec = codec();
        let response =
            PageResponse::from_page_with_item_cursors(page(&[4, 5], true), &codec, &"W9", |r| r.0)
                .unwrap();
        let cursors = response.item_cursors.clone().unwrap();
        let keys: Vec<_> = cursors
            .iter()
            .map(|t| codec.decode::<ById>(t, &"W9").unwrap())
            .collect();
        assert_eq!(keys, [Cursor::after((4,)), Cursor::after((5,))]);
        let json = serde_json::to_value(&response).unwrap();
        assert_eq!(json["item_cursors"].as_array().unwrap().len(), 2);
    }

    /// What this crate wrote before (three members) still reads.
    #[test]
    fn an_older_three_member_response_deserializes() {
        let old: PageResponse<i64> =
            serde_json::from_str(r#"{"items": [1], "next_cursor": null, "has_more": false}"#)
                .unwrap();
        assert_eq!(old.items, [1]);
        assert_eq!((old.page_size, old.end_cursor), (0, None));
    }
}
