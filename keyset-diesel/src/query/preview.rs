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
        C::Backend: KeysetBackend + Default,
        <C::Backend as diesel::backend::Backend>::QueryBuilder: Default,
        Q: PageSource<K> + SelectParts<C::Backend>,
        PageQuery<Q, K>: diesel::query_builder::QueryFragment<C::Backend>,
    {
        let _ = conn;
        let mut page = decide::<C::Backend, _, _, _>(self)?;
        name_known::<C::Backend, _, _>(&mut page);
        let (query, _) = page.statement::<C::Backend>();
        Ok(diesel::debug_query::<C::Backend, _>(&query).to_string())
    }
}
