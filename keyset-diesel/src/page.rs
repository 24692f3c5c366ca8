//! [`Page`]: one page of rows with its exact `has_more` and the cursor to continue.

use std::fmt;

use crate::cursor::Cursor;
use crate::keyset::Keyset;

/// One page of a keyset walk.
///
/// * `items`: at most `page_size` rows, in the keyset's declared order.
/// * `has_more`: `true` iff the query found a row past the page (`LIMIT page_size + 1` returned
///   `page_size + 1` rows) at the time of this read. A last page holding exactly `page_size`
///   rows says `false`.
/// * `next_cursor`: the key of the last row *delivered* (`items.last()`), never the look-ahead
///   row. `Some` iff `has_more`; `None` is the end-of-results signal.
pub struct Page<T: Keyset> {
    /// The rows of this page, in keyset order.
    pub items: Vec<T>,
    /// Whether another page existed at this read.
    pub has_more: bool,
    /// Where the next page starts: `Some` iff `has_more`.
    pub next_cursor: Option<Cursor<T>>,
    /// The page size the page was read with (rows; the query used `LIMIT page_size + 1`).
    pub page_size: u32,
}

impl<T: Keyset> Page<T> {
    /// Number of rows on the page.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether the page holds no rows (only the first page of an empty result can).
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
            .finish()
    }
}
