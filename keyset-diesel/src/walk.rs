//! [`Walk`]: every page of a query, from a cursor (or the first page) to the end, one page in
//! memory at a time; optionally bounded by a high-water mark taken when the walk starts. One
//! walk state and one loop ([`walk_next!`]) for both modes: the blocking walk is an
//! `Iterator`, the async one (`async_` below) a `Stream`.

use std::fmt;
use std::marker::PhantomData;

use diesel::QueryResult;

use crate::cursor::Cursor;
use crate::cursor::Direction;
use crate::keyset::Keyset;
use crate::load::LoadPage;
use crate::page::Page;
use crate::paginate::{Blocking, IndexHint, Paginated, DEFAULT_PAGE_SIZE};

/// Walks all pages of a query forward, as an [`Iterator`] of `QueryResult<Page<K>>` (on
/// diesel-async connections, [`async_::Walk`](crate::async_::Walk): the same walk as a
/// `Stream`, feature `diesel-async`).
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
///
/// **Resuming after a failure in the middle of a page.** [`Walk::cursor`] is past the last row
/// the walk *read* (the end of its last page). A consumer that processes rows one by one and
/// fails part-way through a page resumes after the last row it *processed*:
/// [`Cursor::after_row`] of that row, passed to [`Walk::after`] of a new walk. Resuming from
/// the walk's cursor would skip the rest of that page.
///
/// ```
/// # include!("doctest_setup.rs");
/// use keyset_diesel::Walk;
/// # fn main() -> QueryResult<()> {
/// # let conn = &mut setup();
/// let query = || events::table.select(Event::as_select());
/// let mut done: Vec<Event> = Vec::new();
/// // The first run fails after the third row (in the middle of the second page).
/// 'run: for page in Walk::<Event, _, _>::new(conn, query).page_size(2) {
///     for event in page?.items {
///         done.push(event);
///         if done.len() == 3 {
///             break 'run;
///         }
///     }
/// }
/// let resume = done.last().map(Cursor::after_row);
/// for page in Walk::<Event, _, _>::new(conn, query).page_size(2).after(resume) {
///     done.extend(page?.items);
/// }
/// assert_eq!(done.len(), 7); // every event once
/// # Ok(())
/// # }
/// ```
///
/// `M` is the mode: [`Blocking`] here; [`async_::Walk`](crate::async_::Walk) is the same type
/// in the `Async` mode, so both walks share every option and the one walk logic
/// (one walk state, one loop): only how a page is loaded differs.
#[must_use = "a walk runs only when iterated"]
pub struct Walk<'c, 'q, K: Keyset, Conn, F, M = Blocking> {
    pub(crate) conn: &'c mut Conn,
    /// Diesel's query lifetime of the [`LoadPage`] bound, independent of the connection's borrow.
    query_lifetime: PhantomData<fn() -> (&'q (), M)>,
    pub(crate) make_query: F,
    pub(crate) state: WalkState<K>,
}

/// Where a walk stands and what it reads next: the walk's one logic, driven by the blocking
/// [`Walk`]'s `next` and the async walk's `next_page` alike ([`walk_next!`]).
pub(crate) struct WalkState<K: Keyset> {
    cursor: Option<Cursor<K>>,
    page_size: u32,
    /// [`Walk::force_index`], for every query of the walk.
    index: IndexHint,
    bound: Bound<K>,
    done: bool,
}

/// The next statement of a walk.
pub(crate) enum Step<K: Keyset> {
    /// The high-water mark: the range's last row (its first page read backward, one row).
    Mark,
    /// The next page, bounded by the mark's key when there is one.
    Page(Option<K::Key>),
    /// The walk is over.
    Done,
}

impl<K: Keyset> WalkState<K> {
    pub(crate) fn step(&mut self) -> Step<K> {
        if self.done {
            return Step::Done;
        }
        match &self.bound {
            Bound::Requested => Step::Mark,
            Bound::Mark(None) => {
                self.done = true;
                Step::Done
            }
            Bound::Mark(Some(mark)) => Step::Page(Some(mark.clone())),
            Bound::Unbounded => Step::Page(None),
        }
    }

    /// The statement of [`Step::Mark`].
    pub(crate) fn mark_query<Q, M>(&self, query: Q) -> Paginated<Q, K, M> {
        Paginated::new(query, None, Direction::Backward)
            .page_size(1)
            .index_hint(self.index)
    }

    /// The statement of [`Step::Page`].
    pub(crate) fn page_query<Q, M>(&self, query: Q, through: Option<K::Key>) -> Paginated<Q, K, M> {
        Paginated::new(query, self.cursor.clone(), Direction::Forward)
            .page_size(self.page_size)
            .index_hint(self.index)
            .through(through)
    }

    /// Takes the mark's row; an error ends the walk and is returned to be yielded.
    pub(crate) fn mark_read(&mut self, last: QueryResult<Page<K>>) -> Option<QueryResult<Page<K>>> {
        match last {
            Ok(last) => {
                self.bound = Bound::Mark(last.items.first().map(K::key));
                None
            }
            Err(e) => self.fail(e),
        }
    }

    /// Takes a page: what to yield (`None`: an empty page, read on).
    pub(crate) fn page_read(&mut self, page: QueryResult<Page<K>>) -> Option<QueryResult<Page<K>>> {
        let page = match page {
            Ok(page) => page,
            Err(e) => return self.fail(e),
        };
        if let Some(last) = page.items.last() {
            self.cursor = Some(Cursor::after(last.key()));
        }
        if !page.has_more() {
            self.done = true;
        }
        (!page.is_empty()).then_some(Ok(page))
    }

    fn fail(&mut self, error: diesel::result::Error) -> Option<QueryResult<Page<K>>> {
        self.done = true;
        Some(Err(error))
    }
}

/// The next item of a walk (`$walk`, a [`Walk`] in any mode): steps its [`WalkState`] and
/// loads each statement with `|$p| $load` (the mode's `LoadPage::load_paginated`, `.await`ed or not). The one
/// loop of the blocking and the async walk.
macro_rules! walk_next {
    ($walk:expr, |$p:ident| $load:expr) => {{
        use $crate::walk::Step;
        loop {
            match $walk.state.step() {
                Step::Done => break None,
                Step::Mark => {
                    let $p = $walk.state.mark_query(($walk.make_query)());
                    let last = $load;
                    if let Some(error) = $walk.state.mark_read(last) {
                        break Some(error);
                    }
                }
                Step::Page(through) => {
                    let $p = $walk.state.page_query(($walk.make_query)(), through);
                    let page = $load;
                    if let Some(item) = $walk.state.page_read(page) {
                        break Some(item);
                    }
                }
            }
        }
    }};
}

/// The high-water mark: not asked for, asked for but not taken yet, or taken.
enum Bound<K: Keyset> {
    Unbounded,
    Requested,
    /// The key of the last row of the range when the walk started (`None`: the range was
    /// empty, so the walk yields nothing): every page ends at it, inclusive.
    Mark(Option<K::Key>),
}

impl<'c, K: Keyset, Conn, F, M> Walk<'c, '_, K, Conn, F, M> {
    /// A walk from the first page, with pages of [`DEFAULT_PAGE_SIZE`] rows. `make_query`
    /// returns the query to paginate (filters, no `ORDER BY`/`LIMIT`), the same on every call.
    pub fn new(conn: &'c mut Conn, make_query: F) -> Self {
        Walk {
            conn,
            query_lifetime: PhantomData,
            make_query,
            state: WalkState {
                cursor: None,
                page_size: DEFAULT_PAGE_SIZE,
                index: IndexHint::Declared,
                bound: Bound::Unbounded,
                done: false,
            },
        }
    }

    /// Start after `cursor` (`None`: the first page). Only the cursor's key is used; the walk
    /// always reads forward.
    pub fn after(mut self, cursor: Option<Cursor<K>>) -> Self {
        self.state.cursor = cursor.map(|c| Cursor::after(c.key));
        self
    }

    /// Rows per page (at least 1; a page size of 0 is the error of the first page).
    pub fn page_size(mut self, page_size: u32) -> Self {
        self.state.page_size = page_size;
        self
    }

    /// The index every query of the walk names, as
    /// [`Paginated::force_index`](crate::Paginated::force_index) does for one page; `None`
    /// leaves out the hint of the keyset's declared index ([`Keyset::INDEX`]). Without the
    /// call, the walk's pages name the declared index, if any, as any page does.
    pub fn force_index(mut self, index: impl Into<Option<&'static str>>) -> Self {
        self.state.index = IndexHint::forced(index.into());
        self
    }

    /// Stop at the high-water mark: before the first page, one query (the keyset's order
    /// reversed, `LIMIT 2`) reads the key of the last row of the filtered range, and every
    /// page of the walk is bounded by it in its statement ("at or before the mark", next to
    /// the seek), so the walk ends with the rows up to that key. Rows appended behind it while
    /// the walk runs are left to the next walk, so the walk ends even while writers keep
    /// appending.
    ///
    /// The rows the walk yields are the rows up to the mark's key *at the time each page is
    /// read*: it is not a snapshot (rows deleted before the walk reaches them are not yielded,
    /// rows inserted before the mark are). The bound is a key, not a row: the mark's row may be
    /// deleted or change during the walk and the walk still stops at the same place, with no
    /// extra query.
    pub fn high_water_mark(mut self) -> Self {
        self.state.bound = Bound::Requested;
        self
    }

    /// Where the walk stands: the cursor after the last row delivered (or the starting cursor
    /// before any page). After an error, start a new walk `after` it to resume. A consumer that
    /// stopped in the middle of a page resumes after its last processed row instead
    /// ([`Cursor::after_row`]; see the type's docs).
    pub fn cursor(&self) -> Option<&Cursor<K>> {
        self.state.cursor.as_ref()
    }

    /// The high-water mark, once taken (the first call to `next`): the key of the last row of
    /// the range at the start; `None` before, without a mark, or when the range was empty.
    pub fn mark(&self) -> Option<&K::Key> {
        match &self.state.bound {
            Bound::Mark(mark) => mark.as_ref(),
            _ => None,
        }
    }

    /// The walk's connection, between pages: to write each page somewhere in the same
    /// transaction, say.
    pub fn connection(&mut self) -> &mut Conn {
        self.conn
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
        walk_next!(self, |paginated| Q::load_paginated(paginated, self.conn))
    }
}

impl<K: Keyset, Conn, F, M> fmt::Debug for Walk<'_, '_, K, Conn, F, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Walk")
            .field("cursor", &self.state.cursor)
            .field("page_size", &self.state.page_size)
            .field("mark", &self.mark())
            .field("done", &self.state.done)
            .finish_non_exhaustive()
    }
}

/// The walk on diesel-async connections: the same [`Walk`] in the [`Async`] mode, read with
/// `next_page().await` or as a `Stream`.
#[cfg(feature = "diesel-async")]
pub(crate) mod async_ {
    use diesel::QueryResult;

    use super::Walk as BlockingWalk;
    use crate::keyset::Keyset;
    use crate::load::async_::LoadPage;
    use crate::page::Page;
    use crate::paginate::async_::Async;

    /// [`crate::Walk`] on a diesel-async connection: every page of a query, from a cursor (or the
    /// first page) to the end, with the same options (`after`, `page_size`, `force_index`,
    /// `high_water_mark`) and the same rules, one page in memory at a time. Read it with
    /// [`next_page`](crate::Walk::next_page)`.await`, or as a `Stream` of pages
    /// ([`pages`](crate::Walk::pages)) or of rows ([`rows`](crate::Walk::rows)). The closure's
    /// query needs this module's [`LoadPage`].
    ///
    /// ```
    /// # include!("doctest_setup.rs");
    /// use diesel_async::futures_util::{StreamExt, TryStreamExt};
    /// use diesel_async::sync_connection_wrapper::SyncConnectionWrapper;
    /// use keyset_diesel::async_;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> QueryResult<()> {
    /// let mut conn = SyncConnectionWrapper::<SqliteConnection>::new(setup());
    /// let query = || events::table.filter(events::workspace_id.eq("W9")).select(Event::as_select());
    ///
    /// // Pages, as the blocking walk yields them.
    /// let sizes: Vec<usize> = async_::Walk::<Event, _, _>::new(&mut conn, query)
    ///     .page_size(4)
    ///     .pages()
    ///     .map_ok(|page| page.len())
    ///     .try_collect()
    ///     .await?;
    /// assert_eq!(sizes, [4, 2]);
    ///
    /// // Rows, one page in memory at a time.
    /// let ids: Vec<String> = async_::Walk::<Event, _, _>::new(&mut conn, query)
    ///     .page_size(4)
    ///     .rows()
    ///     .map_ok(|event| event.event_id)
    ///     .try_collect()
    ///     .await?;
    /// assert_eq!(ids, ["e101", "e102", "e103", "e104", "e105", "e106"]);
    ///
    /// // A loop over the stream: no `pin!` needed (the streams are `Unpin`).
    /// let mut rows = async_::Walk::<Event, _, _>::new(&mut conn, query).page_size(4).rows();
    /// let mut count = 0;
    /// while let Some(event) = rows.next().await {
    ///     let _event: Event = event?;
    ///     count += 1;
    /// }
    /// assert_eq!(count, 6);
    /// # drop(rows);
    ///
    /// // Or page by page, keeping the walk (its cursor, its connection).
    /// let mut walk = async_::Walk::<Event, _, _>::new(&mut conn, query).page_size(5);
    /// let first = walk.next_page().await.expect("a page")?;
    /// assert_eq!(first.len(), 5);
    /// assert_eq!(walk.cursor().map(|c| c.key.1.as_str()), Some("e105"));
    /// # Ok(())
    /// # }
    /// ```
    pub type Walk<'c, 'q, K, Conn, F> = BlockingWalk<'c, 'q, K, Conn, F, Async>;

    impl<'c, 'q, K, Conn, F, Q> BlockingWalk<'c, 'q, K, Conn, F, Async>
    where
        K: Keyset + Send,
        K::Key: Send,
        Conn: Send,
        F: FnMut() -> Q + Send,
        Q: LoadPage<'q, Conn, K>,
    {
        /// The next page (`None`: the walk is over): what the blocking walk's `Iterator::next`
        /// yields, with the same rules (empty pages are not yielded; an error is yielded once and
        /// ends the walk, [`Walk::cursor`](crate::Walk::cursor) staying after the last row delivered). The future is
        /// `Send`.
        #[allow(clippy::manual_async_fn)] // spelled out: the `Send` is declared, so an async
                                          // closure holding the walk (a snapshot) is `Send` too
        pub fn next_page(
            &mut self,
        ) -> impl std::future::Future<Output = Option<QueryResult<Page<K>>>>
               + Send
               + use<'_, 'c, 'q, K, Conn, F, Q> {
            async move {
                walk_next!(self, |paginated| Q::load_paginated(paginated, self.conn)
                    .await)
            }
        }

        /// The walk as a `Stream` of pages: each poll that needs a page runs
        /// [`Walk::next_page`](crate::Walk::next_page). The stream is `Send` and `Unpin`
        /// (pinned inside, on the heap): `while let Some(page) = pages.next().await` needs no
        /// `pin!` first.
        pub fn pages(
            self,
        ) -> impl diesel_async::futures_util::Stream<Item = QueryResult<Page<K>>>
               + Send
               + Unpin
               + use<'c, 'q, K, Conn, F, Q> {
            Box::pin(diesel_async::futures_util::stream::unfold(
                self,
                |mut walk| async move {
                    let page = walk.next_page().await;
                    page.map(|page| (page, walk))
                },
            ))
        }

        /// The walk as a `Stream` of rows, in the keyset's order: the pages' items one by one
        /// (one page in memory at a time); a page's error is yielded once and ends the stream.
        /// `Send` and `Unpin`, as [`pages`](crate::Walk::pages).
        pub fn rows(
            self,
        ) -> impl diesel_async::futures_util::Stream<Item = QueryResult<K>>
               + Send
               + Unpin
               + use<'c, 'q, K, Conn, F, Q> {
            use diesel_async::futures_util::stream::{self, StreamExt};
            self.pages().flat_map(|page| {
                stream::iter(match page {
                    Ok(page) => page.items.into_iter().map(Ok).collect::<Vec<_>>(),
                    Err(error) => vec![Err(error)],
                })
            })
        }
    }
}
