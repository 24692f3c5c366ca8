//! [`Page`]: one page of rows, its exact flags and the cursors around it.

use std::fmt;

use crate::cursor::{Cursor, Direction};
use crate::keyset::Keyset;

/// One page of a keyset walk, in the words of the Relay connection spec.
///
/// * `items`: at most `page_size` rows, always in the keyset's declared (display) order, also
///   for a page read backward.
/// * `has_next_page`: rows exist after the last item. Read forward it is exact: the query
///   fetched `page_size + 1` rows (a last page holding exactly `page_size` rows says `false`).
///   Read backward it is `true` when there was a cursor (its row was delivered earlier, so it
///   lies after this page), exact with [`crate::Paginated::exact_flags`].
/// * `has_previous_page`: rows exist before the first item. Exact read backward (the
///   look-ahead row); read forward it is `true` when there was a cursor, exact with
///   `exact_flags`. The first page (no cursor, forward) says `false`, the last page (no
///   cursor, backward) says `has_next_page == false`.
/// * `start_cursor`: `Some(Cursor::before(key of the first item))` iff `has_previous_page`
///   and the page has rows; pass it to `paginate_before` (or `paginate`) for the previous page.
/// * `end_cursor`: `Some(Cursor::after(key of the last item))` iff `has_next_page` and the page
///   has rows; pass it to `paginate_after` (or `paginate`) for the next page. An empty page
///   has no cursors (Relay: no edges, no cursors); go back from the page you came from.
/// * `has_more` / `next_cursor`: the flag and cursor in the walk's own direction:
///   `has_next_page` / `end_cursor` read forward, `has_previous_page` / `start_cursor` read
///   backward. `next_cursor` is the key of the last row delivered in walk order, never the
///   look-ahead row, and `None` is the end-of-results signal.
pub struct Page<T: Keyset> {
    /// The rows of this page, in keyset (display) order.
    pub items: Vec<T>,
    /// Whether another page existed in the walk's direction at this read.
    pub has_more: bool,
    /// Where the walk continues: `Some` iff `has_more`.
    pub next_cursor: Option<Cursor<T>>,
    /// The page size the page was read with (rows; the query used `LIMIT page_size + 1`).
    pub page_size: u32,
    /// Which way the page was read.
    pub direction: Direction,
    /// Rows exist before the first item (see the type docs for exactness).
    pub has_previous_page: bool,
    /// Rows exist after the last item (see the type docs for exactness).
    pub has_next_page: bool,
    /// The cursor for the previous page: `Some` iff `has_previous_page` and rows.
    pub start_cursor: Option<Cursor<T>>,
    /// The cursor for the next page: `Some` iff `has_next_page` and rows.
    pub end_cursor: Option<Cursor<T>>,
}

impl<T: Keyset> Page<T> {
    /// Number of rows on the page.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether the page holds no rows.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

impl<T: Keyset + Clone> Clone for Page<T> {
    fn clone(&self) -> Self {
        Page {
            items: self.items.clone(),
            has_more: self.has_more,
            next_cursor: self.next_cursor.clone(),
            page_size: self.page_size,
            direction: self.direction,
            has_previous_page: self.has_previous_page,
            has_next_page: self.has_next_page,
            start_cursor: self.start_cursor.clone(),
            end_cursor: self.end_cursor.clone(),
        }
    }
}

impl<T: Keyset + fmt::Debug> fmt::Debug for Page<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Page")
            .field("items", &self.items)
            .field("has_more", &self.has_more)
            .field("next_cursor", &self.next_cursor)
            .field("page_size", &self.page_size)
            .field("direction", &self.direction)
            .field("has_previous_page", &self.has_previous_page)
            .field("has_next_page", &self.has_next_page)
            .field("start_cursor", &self.start_cursor)
            .field("end_cursor", &self.end_cursor)
            .finish()
    }
}
