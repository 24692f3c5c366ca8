//! [`Walk`]: every page of a query, from a cursor (or the first page) to the end, one page in
//! memory at a time; optionally bounded by a high-water mark taken when the walk starts.

use std::fmt;
use std::marker::PhantomData;

use diesel::QueryResult;

use crate::cursor::Cursor;
use crate::keyset::Keyset;
use crate::page::Page;
use crate::paginate::{LoadPage, Paginated, DEFAULT_PAGE_SIZE};

/// Walks all pages of a query forward, as an [`Iterator`] of `QueryResult<Page<K>>`.
///
/// Each page is one keyset page query, run when the iterator is advanced; only the current
/// page is held, so memory is bounded by one page whatever the size of the result. The walk
/// follows `next_cursor` until a page says there is no more.
///
/// **The query comes from a closure** (`|| events::table.filter(..).select(..)`), called once
/// per page: every page statement consumes its query, and a closure works for every Diesel
/// query, boxed ones included (a boxed query is not `Clone`). A `Clone` query is simply
/// `move || query.clone()`.
///
/// * Pages with no rows are not yielded: an empty result yields no page at all.
/// * An error is yielded once and ends the walk. [`Walk::cursor`] is then the position after
///   the last row delivered, so a new walk started `after` it resumes exactly there.
/// * Each page is a live read (see the crate docs): rows inserted ahead of the walk's position
///   are read when the walk gets there, so a walk over a table that grows faster than it is
///   read never ends. [`Walk::high_water_mark`] bounds it. Run the walk inside
///   [`with_read_snapshot`](crate::with_read_snapshot) for one consistent dataset.
///
/// ```
/// # include!("doctest_setup.rs");
/// use keyset_diesel::Walk;
/// # fn main() -> QueryResult<()> {
/// # let conn = &mut setup();
/// let workspace = "W9".to_string();
/// let mut ids = Vec::new();
/// let mut sizes = Vec::new();
/// for page in Walk::<Event, _, _>::new(conn, || {
///     events::table
///         .filter(events::workspace_id.eq(&workspace))
///         .select(Event::as_select())
///         .into_boxed()
/// })
/// .page_size(4)
/// {
///     let page = page?;
///     sizes.push(page.len());
///     ids.extend(page.items.into_iter().map(|e| e.event_id));
/// }
/// assert_eq!(sizes, [4, 2]);
/// assert_eq!(ids, ["e101", "e102", "e103", "e104", "e105", "e106"]);
/// # Ok(())
/// # }
/// ```
///
/// A generic function needs the same one bound as a single page, [`LoadPage`], on the
/// closure's query:
///
/// ```
/// # include!("doctest_setup.rs");
/// use keyset_diesel::{LoadPage, Walk};
///
/// fn count_all<'q, K, Q, Conn>(conn: &mut Conn, query: impl FnMut() -> Q) -> QueryResult<usize>
/// where
///     K: Keyset,
///     Q: LoadPage<'q, Conn, K>,
/// {
///     let mut n = 0;
///     for page in Walk::<K, _, _>::new(conn, query).page_size(2) {
///         n += page?.len();
///     }
///     Ok(n)
/// }
/// # fn main() -> QueryResult<()> {
/// # let conn = &mut setup();
/// assert_eq!(count_all::<Event, _, _>(conn, || events::table.select(Event::as_select()))?, 7);
/// # Ok(())
/// # }
/// ```
#[must_use = "a walk runs only when iterated"]
pub struct Walk<'c, 'q, K: Keyset, Conn, F> {
    conn: &'c mut Conn,
    /// Diesel's query lifetime of the [`LoadPage`] bound, independent of the connection's borrow.
    query_lifetime: PhantomData<fn() -> &'q ()>,
    make_query: F,
    cursor: Option<Cursor<K>>,
    page_size: u32,
    /// [`Walk::force_index`]: `None` until it is called (the keyset's declared index applies).
    index: Option<Option<&'static str>>,
    bound: Bound<K>,
    done: bool,
}

/// The high-water mark: not asked for, asked for but not taken yet, or taken.
enum Bound<K: Keyset> {
    Unbounded,
    Requested,
    /// The key of the last row of the range when the walk started (`None`: the range was
    /// empty, so the walk yields nothing).
    Mark(Option<K::Key>),
}

impl<'c, K: Keyset, Conn, F> Walk<'c, '_, K, Conn, F> {
    /// A walk from the first page, with pages of [`DEFAULT_PAGE_SIZE`] rows. `make_query`
    /// returns the query to paginate (filters, no `ORDER BY`/`LIMIT`), the same on every call.
    pub fn new(conn: &'c mut Conn, make_query: F) -> Self {
        Walk {
            conn,
            query_lifetime: PhantomData,
            make_query,
            cursor: None,
            page_size: DEFAULT_PAGE_SIZE,
            index: None,
            bound: Bound::Unbounded,
            done: false,
        }
    }

    /// Start after `cursor` (`None`: the first page). Only the cursor's key is used; the walk
    /// always reads forward.
    pub fn after(mut self, cursor: Option<Cursor<K>>) -> Self {
        self.cursor = cursor.map(|c| Cursor::after(c.key));
        self
    }

    /// Rows per page (at least 1; a page size of 0 is the error of the first page).
    pub fn page_size(mut self, page_size: u32) -> Self {
        self.page_size = page_size;
        self
    }

    /// The index every query of the walk names, as
    /// [`Paginated::force_index`](crate::Paginated::force_index) does for one page; `None`
    /// leaves out the hint of the keyset's declared index ([`Keyset::INDEX`]). Without the
    /// call, the walk's pages name the declared index, if any, as any page does.
    pub fn force_index(mut self, index: impl Into<Option<&'static str>>) -> Self {
        self.index = Some(index.into());
        self
    }

    /// Stop at the high-water mark: before the first page, one query (the keyset's order
    /// reversed, `LIMIT 2`) reads the key of the last row of the filtered range, and the walk
    /// ends with that row. Rows appended behind it while the walk runs are left to the next
    /// walk, so the walk ends even while writers keep appending.
    ///
    /// The rows the walk yields are the rows up to the mark *at the time each page is read*:
    /// it is not a snapshot (rows deleted before the walk reaches them are not yielded, rows
    /// inserted before the mark are). If the mark's own row is deleted or its key changes
    /// during the walk, each page that does not contain it costs one more query, the first row
    /// after the mark (`LIMIT 2`), and the walk stops before that row. That is exact for rows
    /// appended after the mark (the high-water case); a row inserted *between* the mark and the
    /// rows already after it, and deleted again, during the very page it is read on, could be
    /// yielded.
    pub fn high_water_mark(mut self) -> Self {
        self.bound = Bound::Requested;
        self
    }

    /// Where the walk stands: the cursor after the last row delivered (or the starting cursor
    /// before any page). After an error, start a new walk `after` it to resume.
    pub fn cursor(&self) -> Option<&Cursor<K>> {
        self.cursor.as_ref()
    }

    /// The high-water mark, once taken (the first call to `next`): the key of the last row of
    /// the range at the start; `None` before, without a mark, or when the range was empty.
    pub fn mark(&self) -> Option<&K::Key> {
        match &self.bound {
            Bound::Mark(mark) => mark.as_ref(),
            _ => None,
        }
    }

    /// The walk's connection, between pages: to write each page somewhere in the same
    /// transaction, say.
    pub fn connection(&mut self) -> &mut Conn {
        self.conn
    }

    fn fail<T>(&mut self, error: diesel::result::Error) -> Option<QueryResult<T>> {
        self.done = true;
        Some(Err(error))
    }
}

/// `paginated` with a walk's index choice ([`Walk::force_index`]; `None`: as the keyset
/// declares).
fn hint<Q, K: Keyset, M>(
    index: Option<Option<&'static str>>,
    paginated: Paginated<Q, K, M>,
) -> Paginated<Q, K, M> {
    match index {
        Some(index) => paginated.force_index(index),
        None => paginated,
    }
}

impl<'q, K, Conn, F, Q> Iterator for Walk<'_, 'q, K, Conn, F>
where
    K: Keyset,
    F: FnMut() -> Q,
    Q: LoadPage<'q, Conn, K>,
{
    type Item = QueryResult<Page<K>>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.done {
                return None;
            }
            if matches!(self.bound, Bound::Requested) {
                // The last row of the range: the first page read backward, one row.
                let last = hint(
                    self.index,
                    (self.make_query)().paginate_before(None).page_size(1),
                );
                match last.load_page(self.conn) {
                    Ok(last) => self.bound = Bound::Mark(last.items.first().map(K::key)),
                    Err(e) => return self.fail(e),
                }
            }
            if let Bound::Mark(None) = self.bound {
                self.done = true;
                return None;
            }
            let paginated = hint(
                self.index,
                (self.make_query)()
                    .paginate_after(self.cursor.clone())
                    .page_size(self.page_size),
            );
            let mut page = match paginated.load_page(self.conn) {
                Ok(page) => page,
                Err(e) => return self.fail(e),
            };
            if let Bound::Mark(Some(mark)) = &self.bound {
                let cut = match page.items.iter().position(|r| r.key() == *mark) {
                    Some(i) => Some(i + 1),
                    None if page.items.is_empty() => None,
                    None => {
                        // The mark's row is not here: either it is further on, or it is gone.
                        // The first row after the mark bounds the walk instead.
                        let paginated = hint(
                            self.index,
                            (self.make_query)()
                                .paginate_after(Some(Cursor::after(mark.clone())))
                                .page_size(1),
                        );
                        let after = match paginated.load_page(self.conn) {
                            Ok(after) => after,
                            Err(e) => return self.fail(e),
                        };
                        after.items.first().and_then(|first| {
                            let key = first.key();
                            page.items.iter().position(|r| r.key() == key)
                        })
                    }
                };
                if let Some(keep) = cut {
                    page.items.truncate(keep);
                    end_of_walk(&mut page);
                }
            }
            if let Some(last) = page.items.last() {
                self.cursor = Some(Cursor::after(last.key()));
            }
            if !page.has_more {
                self.done = true;
            }
            if !page.is_empty() {
                return Some(Ok(page));
            }
        }
    }
}

/// The last page of a bounded walk: nothing more in the walk's direction.
fn end_of_walk<K: Keyset>(page: &mut Page<K>) {
    page.has_more = false;
    page.next_cursor = None;
    page.has_next_page = false;
    // C29: the Relay cursors stay those of the rows delivered (the end cursor is the resume
    // position, present whenever the page has rows).
    page.start_cursor = page.items.first().map(|row| Cursor::before(row.key()));
    page.end_cursor = page.items.last().map(|row| Cursor::after(row.key()));
}

impl<K: Keyset, Conn, F> fmt::Debug for Walk<'_, '_, K, Conn, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Walk")
            .field("cursor", &self.cursor)
            .field("page_size", &self.page_size)
            .field("mark", &self.mark())
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}
