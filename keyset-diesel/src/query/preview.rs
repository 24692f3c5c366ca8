//! A page's statement without running it: [`Paginated::into_query`] for `diesel::debug_query`
//! and `EXPLAIN`, and [`Paginated::debug_sql`], which also names the index a MySQL/MariaDB page
//! names by itself, so it shows what `load_page` runs.

use super::learn::name_known;
use super::shape::decide;
use super::{PageQuery, PageSource, SelectParts};
use crate::backend::KeysetBackend;
use crate::error::KeysetError;
use crate::keyset::Keyset;
use crate::paginate::Paginated;

impl<Q, K: Keyset, M> Paginated<Q, K, M> {
    /// The SQL query this page runs on backend `DB` (the deferred-join default depends on the
    /// backend), for `diesel::debug_query` or `EXPLAIN`. It is not itself loadable: use
    /// [`Paginated::load_page`].
    ///
    /// # Errors
    /// [`KeysetError::InvalidPageSize`] for a page size of 0;
    /// [`KeysetError::InvalidCursorKey`] for a cursor (or an [`until`](Paginated::until)
    /// bound) holding a NaN; for a boxed query, [`KeysetError::AlreadyOrdered`] /
    /// [`KeysetError::AlreadyLimited`] when it already has `ORDER BY`, `LIMIT` or `OFFSET`,
    /// [`KeysetError::DistinctOn`] when it has `DISTINCT ON`.
    pub fn into_query<DB: KeysetBackend>(self) -> Result<PageQuery<Q, K>, KeysetError>
    where
        Q: PageSource<K>,
    {
        Ok(decide::<DB, _, _, _>(self)?.statement::<DB>().0)
    }

    /// The page's SQL and binds on the backend of connection `conn`, as `diesel::debug_query`
    /// prints them: [`into_query`](Self::into_query) and `debug_query` without spelling the
    /// backend. Runs nothing. On MySQL/MariaDB it also names the index a later page names by
    /// itself ([`KeysetBackend::LEARNS_INDEX`]) once this process has looked the table's
    /// indexes up (the first later page of the table does), so it shows the statement
    /// `load_page` runs; `into_query` never names a learned index.
    ///
    /// ```
    /// # include!("../doctest_setup.rs");
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let conn = &mut setup();
    /// let sql = events::table
    ///     .filter(events::workspace_id.eq("W9"))
    ///     .select(Event::as_select())
    ///     .paginate_after(None::<Cursor<Event>>)
    ///     .page_size(2)
    ///     .debug_sql(conn)?;
    /// assert!(sql.contains("ORDER BY `events`.`occurred_at` ASC, `events`.`event_id` ASC LIMIT +?"), "{sql}");
    /// assert!(sql.ends_with(r#"-- binds: ["W9", 3]"#), "{sql}");
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    /// As [`into_query`](Self::into_query).
    pub fn debug_sql<C>(self, conn: &C) -> Result<String, KeysetError>
    where
        C: diesel::Connection,
        Q: PageSql<C::Backend, K>,
    {
        let _ = conn;
        Q::page_sql(self)
    }
}

/// A query whose keyset pages of `K` can be written out on backend `DB`: the one bound generic
/// code needs to call [`Paginated::debug_sql`] (beside [`LoadPage`](crate::LoadPage), which
/// runs them). Implemented for every query [`PaginateDsl`](crate::PaginateDsl) pages on a
/// backend this crate's features enable.
///
/// ```
/// # include!("../doctest_setup.rs");
/// use diesel::Connection;
/// use keyset_diesel::{LoadPage, PageSql};
///
/// /// The first page of any query, any keyset, any blocking connection, its SQL logged.
/// fn logged_first_page<'q, Q, K, Conn>(
///     query: impl Fn() -> Q,
///     conn: &mut Conn,
/// ) -> QueryResult<(String, Page<K>)>
/// where
///     K: Keyset,
///     Conn: Connection,
///     Q: LoadPage<'q, Conn, K> + PageSql<Conn::Backend, K>,
/// {
///     let sql = query()
///         .paginate_after(None)
///         .page_size(2)
///         .debug_sql(&*conn)
///         .map_err(|e| diesel::result::Error::QueryBuilderError(e.into()))?;
///     Ok((sql, query().paginate_after(None).page_size(2).load_page(conn)?))
/// }
///
/// # fn main() -> QueryResult<()> {
/// # let conn = &mut setup();
/// let (sql, page): (String, Page<Event>) =
///     logged_first_page(|| events::table.select(Event::as_select()), conn)?;
/// assert!(sql.contains("LIMIT"), "{sql}");
/// assert_eq!(page.items.len(), 2);
/// # Ok(())
/// # }
/// ```
#[diagnostic::on_unimplemented(
    message = "the keyset pages of `{K}` on `{Self}` cannot be written out for backend `{DB}`",
    label = "not a select query that `{K}`'s keyset can page on this backend",
    note = "in generic code, bound the query with `PageSql<Conn::Backend, {K}>` beside `LoadPage<'_, Conn, {K}>`"
)]
pub trait PageSql<DB, K: Keyset>: PageSource<K> {
    /// The page's statement text and binds, as `diesel::debug_query` prints them, naming the
    /// index a MySQL/MariaDB page names by itself.
    ///
    /// # Errors
    /// As [`Paginated::into_query`].
    #[doc(hidden)]
    fn page_sql<M>(paginated: Paginated<Self, K, M>) -> Result<String, KeysetError>;
}

impl<DB, K, Q> PageSql<DB, K> for Q
where
    DB: KeysetBackend + Default,
    DB::QueryBuilder: Default,
    K: Keyset,
    Q: PageSource<K> + SelectParts<DB>,
    PageQuery<Q, K>: diesel::query_builder::QueryFragment<DB>,
{
    fn page_sql<M>(paginated: Paginated<Q, K, M>) -> Result<String, KeysetError> {
        let mut page = decide::<DB, _, _, _>(paginated)?;
        name_known::<DB, _, _>(&mut page);
        let (query, _) = page.statement::<DB>();
        Ok(diesel::debug_query::<DB, _>(&query).to_string())
    }
}
