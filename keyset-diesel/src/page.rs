//! [`Page`]: one page of rows, its exact flags and the cursors around it.

use std::fmt;

use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};

use crate::cursor::{Cursor, Direction};
use crate::keyset::Keyset;

/// One page of a keyset walk, in the words of the Relay connection spec.
///
/// `T` is the item type and `K` the keyset the page was read by; they are the same type
/// (`Page<Event>`) until [`Page::map`] turns the items into something else (your API's DTOs,
/// `Page<EventDto, Event>`): the flags and cursors stay those of the rows that were read.
///
/// * `items`: at most `page_size` rows (fewer under a byte budget,
///   [`crate::Paginated::max_bytes`]), always in the keyset's declared (display) order, also
///   for a page read backward.
/// * `has_next_page`: rows exist after the last item. Read forward it is exact: the query
///   fetched `page_size + 1` rows (a last page holding exactly `page_size` rows says `false`).
///   Read backward it is `true` when there was a cursor (its row was delivered earlier, so it
///   lies after this page), exact with [`crate::Paginated::exact_flags`].
/// * `has_previous_page`: rows exist before the first item. Exact read backward (the
///   look-ahead row); read forward it is `true` when there was a cursor, exact with
///   `exact_flags`. The first page (no cursor, forward) says `false`, the last page (no
///   cursor, backward) says `has_next_page == false`.
/// * `start_cursor`: `Some(Cursor::before(key of the first item))` whenever the page has rows
///   (the Relay spec), whatever `has_previous_page` says: pass it to
///   `paginate_before` (or `paginate`) for the previous page, or, at the top of a live list,
///   to load rows inserted before it since ("load newer" on a newest-first feed).
/// * `end_cursor`: `Some(Cursor::after(key of the last item))` whenever the page has rows:
///   pass it to `paginate_after` (or `paginate`) for the next page, or, at the end of a live
///   list (`has_next_page == false`), to come back later for rows added after it (tailing).
///   An empty page has no cursors (Relay: no edges, no cursors); go back from the page you
///   came from.
/// * [`Page::has_more`] / [`Page::next_cursor`]: the flag and cursor in the walk's own
///   direction, derived from the fields above: `has_next_page` / `end_cursor` read forward,
///   `has_previous_page` / `start_cursor` read backward, but `next_cursor()` is `Some` only
///   while `has_more()`: `None` is the end-of-results signal, and the flags (not the Relay
///   cursors) say whether more rows exist. `next_cursor()` is the key of the last row
///   delivered in walk order, never the look-ahead row.
///
/// `Page` is [`Serialize`] (items as `T` serializes them, `has_more` and `next_cursor` among
/// the fields, the cursors as
/// `{"key": [...], "direction": "forward"|"backward"}` with each key value in its lossless
/// token form): for logs, caches and server-side use. Do not hand raw cursors to clients:
/// [`PageResponse`](crate::web::PageResponse) carries signed tokens instead.
pub struct Page<T, K: Keyset = T> {
    /// The rows of this page, in keyset (display) order.
    pub items: Vec<T>,
    /// The page size the page was read with (rows; the query used `LIMIT page_size + 1`).
    pub page_size: u32,
    /// Which way the page was read.
    pub direction: Direction,
    /// Rows exist before the first item (see the type docs for exactness).
    pub has_previous_page: bool,
    /// Rows exist after the last item (see the type docs for exactness).
    pub has_next_page: bool,
    /// The cursor before the first item: `Some` iff the page has rows.
    pub start_cursor: Option<Cursor<K>>,
    /// The cursor after the last item: `Some` iff the page has rows.
    pub end_cursor: Option<Cursor<K>>,
    /// The total count, when asked for with
    /// [`with_total_count`](crate::Paginated::with_total_count): the rows of the query without
    /// the page (groups for `GROUP BY`, distinct rows for `DISTINCT`), read in the page's own
    /// statement; `None` otherwise.
    pub total_count: Option<i64>,
}

impl<T, K: Keyset> Page<T, K> {
    /// Number of rows on the page.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether the page holds no rows.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Whether another page existed in the walk's direction at this read: `has_next_page` for
    /// a page read forward, `has_previous_page` for one read backward.
    pub fn has_more(&self) -> bool {
        match self.direction {
            Direction::Forward => self.has_next_page,
            Direction::Backward => self.has_previous_page,
        }
    }

    /// Where the walk continues: the cursor of the last row delivered in the walk's direction
    /// (`end_cursor` forward, `start_cursor` backward), `Some` iff [`Page::has_more`]; `None`
    /// is the end of results.
    pub fn next_cursor(&self) -> Option<Cursor<K>> {
        if !self.has_more() {
            return None;
        }
        match self.direction {
            Direction::Forward => self.end_cursor.clone(),
            Direction::Backward => self.start_cursor.clone(),
        }
    }

    /// Drops the items for which `keep` answers `false` (authorization decided in code after
    /// the read, say) and returns how many it dropped. The flags and cursors stay those of the
    /// rows that were **read**, so the walk goes on past every row read, kept or not:
    ///
    /// * [`Page::next_cursor`] is the cursor of the last row read in the walk's direction, not
    ///   of the last row kept: the next page never reads a dropped row again, and a page whose
    ///   rows were all dropped still continues.
    /// * [`Page::has_more`] says whether rows exist past the last row read. A page that ran
    ///   `retain` may hold fewer than `page_size` items, or none, while `has_more()` is `true`
    ///   (without `retain` or a byte budget, a page with `has_more()` is full): loop on `has_more()` or
    ///   `next_cursor()`, never on a short page. The next page may be emptied the same way.
    /// * `start_cursor` / `end_cursor` stay `Some` when rows were read, even if none is kept.
    /// * `total_count` still counts the rows of the query, dropped ones included.
    ///
    /// Each kept item is still in the page's keyset order. Dropping rows in code costs the
    /// reads of rows nobody sees; a filter the database can apply belongs in the query. A
    /// Relay connection (`web::graphql::connection`) takes its `pageInfo`
    /// cursors from its edges, so in GraphQL filter in SQL or keep the rows.
    ///
    /// ```
    /// # include!("doctest_setup.rs");
    /// # fn main() -> QueryResult<()> {
    /// # let conn = &mut setup();
    /// let mut page = events::table
    ///     .filter(events::workspace_id.eq("W9"))
    ///     .select(Event::as_select())
    ///     .paginate_after(None)
    ///     .page_size(3)
    ///     .load_page(conn)?; // e101, e102, e103
    /// let dropped = page.retain(|e| e.event_id != "e103"); // this member may not see e103
    /// assert_eq!((dropped, page.len()), (1, 2));
    /// assert!(page.has_more()); // e104.. exist
    /// assert_eq!(page.next_cursor().unwrap().key.1, "e103"); // past the last row read
    /// # Ok(())
    /// # }
    /// ```
    pub fn retain(&mut self, mut keep: impl FnMut(&T) -> bool) -> usize {
        let read = self.items.len();
        self.items.retain(|item| keep(item));
        read - self.items.len()
    }

    /// The list opened at an item: `before`, the page read backward before it
    /// (`paginate_before(Some(Cursor::before(key)))`), then `from`, the page read from it
    /// ([`paginate_from(key)`](crate::PaginateDsl::paginate_from): the item itself first, when
    /// it still exists), joined into one page in display order: "jump to this message, show
    /// some before and after". Both flags are exact (each read in its own walk's direction):
    /// `has_previous_page` is `before`'s, `has_next_page` is `from`'s. The cursors continue
    /// either way: `start_cursor` before the first item (to `paginate_before`), `end_cursor`
    /// after the last (to `paginate_after`). The page size is the sum of both; the total count
    /// is `from`'s, else `before`'s. The two reads are two statements, each a live read.
    ///
    /// ```
    /// # include!("doctest_setup.rs");
    /// # fn main() -> QueryResult<()> {
    /// # let conn = &mut setup();
    /// use keyset_diesel::Cursor;
    ///
    /// let feed = || events::table.filter(events::workspace_id.eq("W9")).select(Event::as_select());
    /// let at = chrono::NaiveDateTime::parse_from_str("2026-10-10 12:00:02", "%F %T").unwrap();
    /// let key = (at, "e103".to_string());
    /// let before: Page<Event> = feed()
    ///     .paginate_before(Some(Cursor::before(key.clone())))
    ///     .page_size(1)
    ///     .load_page(conn)?;
    /// let from: Page<Event> = feed().paginate_from(key).page_size(2).load_page(conn)?;
    /// let page = Page::around(before, from);
    /// assert_eq!(page.items.iter().map(|e| e.event_id.as_str()).collect::<Vec<_>>(), ["e102", "e103", "e104"]);
    /// assert!(page.has_previous_page && page.has_next_page);
    /// // Continue either way.
    /// let earlier: Page<Event> = feed().paginate_before(page.start_cursor.clone()).load_page(conn)?;
    /// assert_eq!(earlier.items.iter().map(|e| e.event_id.as_str()).collect::<Vec<_>>(), ["e101"]);
    /// let later: Page<Event> = feed().paginate_after(page.end_cursor.clone()).load_page(conn)?;
    /// assert_eq!(later.items.iter().map(|e| e.event_id.as_str()).collect::<Vec<_>>(), ["e105", "e106"]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn around(before: Page<T, K>, from: Page<T, K>) -> Page<T, K> {
        let mut items = before.items;
        items.extend(from.items);
        Page {
            items,
            page_size: before.page_size.saturating_add(from.page_size),
            direction: Direction::Forward,
            has_previous_page: before.has_previous_page,
            has_next_page: from.has_next_page,
            start_cursor: before.start_cursor.or(from.start_cursor),
            end_cursor: from.end_cursor.or(before.end_cursor),
            total_count: from.total_count.or(before.total_count),
        }
    }

    /// The same page with each item turned into `f(item)`, in order: the flags, the page size,
    /// the direction and the cursors (still `Cursor<K>`, of the rows that were read) are kept.
    ///
    /// ```
    /// # include!("doctest_setup.rs");
    /// # fn main() -> QueryResult<()> {
    /// # let conn = &mut setup();
    /// #[derive(serde::Serialize)]
    /// struct EventDto { id: String, text: String }
    ///
    /// let page: Page<EventDto, Event> = events::table
    ///     .filter(events::workspace_id.eq("W9"))
    ///     .select(Event::as_select())
    ///     .paginate_after(None)
    ///     .page_size(3)
    ///     .load_page(conn)?
    ///     .map(|e| EventDto { id: e.event_id, text: e.message });
    /// assert_eq!(page.items[2].id, "e103");
    /// assert_eq!(page.next_cursor().unwrap().key.1, "e103"); // the cursor of the row read
    /// # Ok(())
    /// # }
    /// ```
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Page<U, K> {
        Page {
            items: self.items.into_iter().map(f).collect(),
            page_size: self.page_size,
            direction: self.direction,
            has_previous_page: self.has_previous_page,
            has_next_page: self.has_next_page,
            start_cursor: self.start_cursor,
            end_cursor: self.end_cursor,
            total_count: self.total_count,
        }
    }
}

impl<T: Clone, K: Keyset> Clone for Page<T, K> {
    fn clone(&self) -> Self {
        Page {
            items: self.items.clone(),
            page_size: self.page_size,
            direction: self.direction,
            has_previous_page: self.has_previous_page,
            has_next_page: self.has_next_page,
            start_cursor: self.start_cursor.clone(),
            end_cursor: self.end_cursor.clone(),
            total_count: self.total_count,
        }
    }
}

impl<T: fmt::Debug, K: Keyset> fmt::Debug for Page<T, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Page")
            .field("items", &self.items)
            .field("has_more", &self.has_more())
            .field("next_cursor", &self.next_cursor())
            .field("page_size", &self.page_size)
            .field("direction", &self.direction)
            .field("has_previous_page", &self.has_previous_page)
            .field("has_next_page", &self.has_next_page)
            .field("start_cursor", &self.start_cursor)
            .field("end_cursor", &self.end_cursor)
            .field("total_count", &self.total_count)
            .finish()
    }
}

/// The fields in declaration order (`total_count` only when present); see the type docs for
/// the cursors' form.
impl<T: Serialize, K: Keyset> Serialize for Page<T, K> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let fields = 9 + usize::from(self.total_count.is_some());
        let mut s = serializer.serialize_struct("Page", fields)?;
        s.serialize_field("items", &self.items)?;
        s.serialize_field("has_more", &self.has_more())?;
        s.serialize_field("next_cursor", &self.next_cursor())?;
        s.serialize_field("page_size", &self.page_size)?;
        s.serialize_field("direction", &self.direction)?;
        s.serialize_field("has_previous_page", &self.has_previous_page)?;
        s.serialize_field("has_next_page", &self.has_next_page)?;
        s.serialize_field("start_cursor", &self.start_cursor)?;
        s.serialize_field("end_cursor", &self.end_cursor)?;
        match self.total_count {
            Some(total) => s.serialize_field("total_count", &total)?,
            None => s.skip_field("total_count")?,
        }
        s.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::ById;

    /// The serialized shape token by token, with the struct's field count, which a
    /// length-prefixed format (CBOR, MessagePack) writes before the fields: 9, or 10 with the
    /// total count.
    #[test]
    fn serialize_announces_the_fields_it_writes() {
        use serde_test::{assert_ser_tokens, Token};
        let page = |total_count| Page::<u8, ById> {
            items: vec![7],
            page_size: 5,
            direction: Direction::Backward,
            has_previous_page: false,
            has_next_page: true,
            start_cursor: None,
            end_cursor: None,
            total_count,
        };
        let tokens = |len: usize, total: &[Token]| {
            let mut t = vec![
                Token::Struct { name: "Page", len },
                Token::Str("items"),
                Token::Seq { len: Some(1) },
                Token::U8(7),
                Token::SeqEnd,
                Token::Str("has_more"),
                Token::Bool(false),
                Token::Str("next_cursor"),
                Token::None,
                Token::Str("page_size"),
                Token::U32(5),
                Token::Str("direction"),
            ];
            t.push(Token::UnitVariant {
                name: "Direction",
                variant: "backward",
            });
            t.extend([
                Token::Str("has_previous_page"),
                Token::Bool(false),
                Token::Str("has_next_page"),
                Token::Bool(true),
                Token::Str("start_cursor"),
                Token::None,
                Token::Str("end_cursor"),
                Token::None,
            ]);
            t.extend_from_slice(total);
            t.push(Token::StructEnd);
            t
        };
        assert_ser_tokens(&page(None), &tokens(9, &[]));
        assert_ser_tokens(
            &page(Some(42)),
            &tokens(10, &[Token::Str("total_count"), Token::I64(42)]),
        );
    }

    #[test]
    fn len_and_is_empty_count_the_items() {
        let page = |items: Vec<ById>| Page::<ById> {
            items,
            page_size: 5,
            direction: Direction::Forward,
            has_previous_page: false,
            has_next_page: false,
            start_cursor: None,
            end_cursor: None,
            total_count: None,
        };
        let two = page(vec![ById(1), ById(2)]);
        assert_eq!((two.len(), two.is_empty()), (2, false));
        let none = page(vec![]);
        assert_eq!((none.len(), none.is_empty()), (0, true));
    }

    #[test]
    fn debug_shows_the_items_flags_and_cursors() {
        let page = Page::<ById> {
            items: vec![ById(4)],
            page_size: 1,
            direction: Direction::Forward,
            has_previous_page: false,
            has_next_page: true,
            start_cursor: Some(Cursor::before((4,))),
            end_cursor: Some(Cursor::after((4,))),
            total_count: Some(9),
        };
        let text = format!("{page:?}");
        for field in [
            "items: [ById(4)]",
            "has_more: true",
            "page_size: 1",
            "has_next_page: true",
            "start_cursor: Some(Cursor { key: (4,), direction: Backward })",
            "total_count: Some(9)",
        ] {
            assert!(text.contains(field), "{field} in {text}");
        }
    }
}
