//! The JSON shape of a page an API returns: rows, the next token, the flag.

use serde::Serialize;

use super::error::EncodeError;
use super::CursorCodec;
use crate::keyset::Keyset;
use crate::page::Page;

/// A page as a JSON API returns it: `{ "items": [...], "next_cursor": "<token>" | null,
/// "has_more": bool }`, with a token only when there is a next page.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PageResponse<T> {
    /// The page's rows, as the API shows them.
    pub items: Vec<T>,
    /// The token for the next page; `null` at the end of results.
    pub next_cursor: Option<String>,
    /// Whether another page existed at this read.
    pub has_more: bool,
}

impl<T> PageResponse<T> {
    /// The response for `page`, its rows turned into API items by `map`, its next cursor into
    /// a token bound to `scope`.
    ///
    /// # Errors
    /// [`EncodeError`] when `scope` does not serialize.
    pub fn from_page<K: Keyset, S: Serialize + ?Sized>(
        page: Page<K>,
        codec: &CursorCodec,
        scope: &S,
        map: impl FnMut(K) -> T,
    ) -> Result<Self, EncodeError> {
        let next_cursor = codec.encode_page_cursor(&page, scope)?;
        Ok(PageResponse {
            has_more: page.has_more,
            next_cursor,
            items: page.items.into_iter().map(map).collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cursor::{Cursor, Direction};
    use crate::token::fixtures::{codec, ById};

    fn page(ids: &[i64], has_more: bool) -> Page<ById> {
        let next_cursor = has_more.then(|| Cursor::after((*ids.last().unwrap(),)));
        Page {
            items: ids.iter().map(|&id| ById(id)).collect(),
            has_more,
            next_cursor: next_cursor.clone(),
            page_size: 2,
            direction: Direction::Forward,
            has_previous_page: false,
            has_next_page: has_more,
            start_cursor: None,
            end_cursor: next_cursor,
        }
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
        let json = serde_json::to_value(&response).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"items": [1, 2], "next_cursor": token, "has_more": true})
        );
    }

    #[test]
    fn the_last_page_says_null_and_false() {
        let response =
            PageResponse::from_page(page(&[3], false), &codec(), &"W9", |r| r.0).unwrap();
        assert_eq!(
            serde_json::to_value(&response).unwrap(),
            serde_json::json!({"items": [3], "next_cursor": null, "has_more": false})
        );
    }
}
