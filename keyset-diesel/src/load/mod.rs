//! How a page is read back: the page statement run on a connection (blocking here, diesel-async
//! in `async_.rs`, both through the one dispatch [`load_page_query!`]), its rows checked
//! (`check.rs`) and assembled into a [`Page`] (`assemble.rs`).

use diesel::connection::Connection;
use diesel::query_dsl::{LoadQuery, RunQueryDsl};
use diesel::QueryResult;

use self::learn::IndexPart;
use crate::backend::KeysetBackend;
use crate::keyset::{Keyset, KeysetSql};
use crate::page::Page;
use crate::paginate::{PaginateDsl, Paginated};
use crate::query::shape::shape;
use crate::query::typing::{
    TypeKeyed, WithTotal, AFTER_BACKWARD, AFTER_FORWARD, FIRST_BACKWARD, FIRST_FORWARD,
    SPLIT_BACKWARD, SPLIT_FORWARD,
};
use crate::query::{PageSource, PageStatement, SelectParts, UnionPage};

mod assemble;
#[cfg(feature = "diesel-async")]
pub mod async_;
mod check;
pub(crate) mod learn;

pub(crate) use self::assemble::Loaded;

/// Runs the page statement `$query` (a [`PageQuery`](crate::query::PageQuery)) on backend
/// `$db` with `$load` (an expression of `$q`, the query typed as it loads: `$q.load(conn)`,
/// `.await`ed or not) and returns the [`Loaded`] rows: the one dispatch of every load, blocking
/// and async. A statement whose text its types fix loads as [`TypeKeyed`] (cached by type).
macro_rules! load_page_query {
    ($query:expr, $db:ty, $total:expr, |$q:ident| $load:expr) => {{
        use $crate::query::typing::{
            TypeKeyed, WithTotal, AFTER_BACKWARD, AFTER_FORWARD, FIRST_BACKWARD, FIRST_FORWARD,
            SPLIT_BACKWARD, SPLIT_FORWARD,
        };
        use $crate::query::{PageQuery, StaticShape};
        match ($query, $total) {
            (PageQuery::Statement(statement), false) => {
                $crate::load::Loaded::Rows(match statement.static_shape::<$db>() {
                    None => {
                        let $q = statement;
                        $load
                    }
                    Some(StaticShape::FirstForward) => {
                        let $q = TypeKeyed::<_, FIRST_FORWARD>(statement);
                        $load
                    }
                    Some(StaticShape::FirstBackward) => {
                        let $q = TypeKeyed::<_, FIRST_BACKWARD>(statement);
                        $load
                    }
                    Some(StaticShape::AfterForward) => {
                        let $q = TypeKeyed::<_, AFTER_FORWARD>(statement);
                        $load
                    }
                    Some(StaticShape::AfterBackward) => {
                        let $q = TypeKeyed::<_, AFTER_BACKWARD>(statement);
                        $load
                    }
                    // A statement is never split: no statement has these shapes.
                    Some(StaticShape::SplitForward | StaticShape::SplitBackward) => {
                        let $q = statement;
                        $load
                    }
                })
            }
            (PageQuery::Statement(statement), true) => {
                let $q = WithTotal(statement);
                $crate::load::Loaded::CountedRows($load)
            }
            (PageQuery::Union(union), false) => {
                $crate::load::Loaded::Union(match union.static_shape::<$db>() {
                    Some(StaticShape::SplitForward) => {
                        let $q = TypeKeyed::<_, SPLIT_FORWARD>(union);
                        $load
                    }
                    Some(StaticShape::SplitBackward) => {
                        let $q = TypeKeyed::<_, SPLIT_BACKWARD>(union);
                        $load
                    }
                    _ => {
                        let $q = union;
                        $load
                    }
                })
            }
            (PageQuery::Union(union), true) => {
                let $q = WithTotal(union);
                $crate::load::Loaded::CountedUnion($load)
            }
        }
    }};
}
#[cfg(feature = "diesel-async")]
pub(crate) use load_page_query;

impl<Q, K: Keyset> Paginated<Q, K> {
    /// Runs the page: exactly one SQL statement. On MySQL/MariaDB, a later page that names no
    /// index first looks the table's indexes up when this process has not in the last minute
    /// (one more statement), and names the one that serves its seek
    /// ([`KeysetBackend::LEARNS_INDEX`](crate::KeysetBackend::LEARNS_INDEX)).
    ///
    /// # Errors
    /// Diesel's errors from running the query; the [`KeysetError`](crate::KeysetError)s of
    /// [`Paginated::into_query`] inside `Error::QueryBuilderError` (before any SQL runs); and
    /// inside `Error::DeserializationError` the page check's errors, when the rows read
    /// cannot make a correct page: [`TieBreakerNotUnique`](crate::KeysetError::TieBreakerNotUnique),
    /// [`CursorRowReturned`](crate::KeysetError::CursorRowReturned),
    /// [`KeyOutOfOrder`](crate::KeysetError::KeyOutOfOrder),
    /// [`InvalidRowKey`](crate::KeysetError::InvalidRowKey).
    /// [`KeysetError::from_diesel`](crate::KeysetError::from_diesel) reads either. On
    /// MySQL/MariaDB, the server's error 1176 when the index this process learned for the
    /// table was dropped since; that index is not named again, so the next page runs.
    pub fn load_page<'query, Conn>(self, conn: &mut Conn) -> QueryResult<Page<K>>
    where
        Q: LoadPage<'query, Conn, K>,
    {
        Q::load_paginated(self, conn)
    }
}

/// A query whose keyset pages of `K` load on connection `Conn`: the one bound a function
/// generic over queries, keysets or connections needs to call
/// [`paginate_after`](PaginateDsl::paginate_after) (or `paginate_before`, `paginate`) and
/// [`Paginated::load_page`]. Implemented for every Diesel select query (boxed or not) that
/// can be paginated by `K` (a `'static` model type: it is part of a page's statement cache key)
/// on `Conn`'s backend; `'query` is Diesel's [`LoadQuery`] lifetime.
///
/// ```
/// # include!("../doctest_setup.rs");
/// use keyset_diesel::LoadPage;
///
/// /// The first page of any query, any keyset, any connection.
/// fn first_page<'q, Q, K, Conn>(query: Q, conn: &mut Conn) -> QueryResult<Page<K>>
/// where
///     K: Keyset,
///     Q: LoadPage<'q, Conn, K>,
/// {
///     query.paginate_after(None).page_size(2).load_page(conn)
/// }
///
/// # fn main() -> QueryResult<()> {
/// # let conn = &mut setup();
/// let page: Page<Event> = first_page(events::table.select(Event::as_select()), conn)?;
/// assert_eq!(page.items.len(), 2);
/// # Ok(())
/// # }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot load keyset pages of `{K}` on `{Conn}`",
    label = "not a select query that `{K}`'s keyset can page on this connection",
    note = "paginate a Diesel select query (boxed or not) without ORDER BY, LIMIT or OFFSET, that reads `{K}`'s table and loads `{K}` (e.g. `.select({K}::as_select())`), on a PostgreSQL, SQLite or MySQL connection enabled by this crate's features"
)]
pub trait LoadPage<'query, Conn, K: Keyset>: PaginateDsl + PageSource<K> {
    /// Builds and runs the page (what [`Paginated::load_page`] calls).
    ///
    /// # Errors
    /// As [`Paginated::load_page`].
    #[doc(hidden)]
    fn load_paginated(paginated: Paginated<Self, K>, conn: &mut Conn) -> QueryResult<Page<K>>;
}

// The query's own checks (ORDER BY, LIMIT, OFFSET, the keyset's table: `PageSource`) are
// bounds here, so each reports its own message; what the connection must do is behind
// `BlockingPageConnection`, whose message names the async import when the connection is a
// diesel-async one (issue 32, item 4).
impl<'query, Conn, K, Q> LoadPage<'query, Conn, K> for Q
where
    K: Keyset,
    Q: PaginateDsl + PageSource<K>,
    Conn: BlockingPageConnection<'query, Q, K>,
{
    fn load_paginated(paginated: Paginated<Q, K>, conn: &mut Conn) -> QueryResult<Page<K>> {
        Conn::load_pages(paginated, conn)
    }
}

/// A blocking Diesel connection that loads keyset pages of `K` from query `Q`: the bound
/// behind [`LoadPage`]'s connection. Implemented for every [`Connection`] whose backend this
/// crate's features enable and which loads `Q`'s page statements as `K` rows.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot load keyset pages of `{K}` with the blocking `load_page`",
    label = "not a blocking Diesel connection, or this query does not load `{K}` on it",
    note = "a diesel-async connection (`AsyncPgConnection`, `AsyncMysqlConnection`, `SyncConnectionWrapper<SqliteConnection>`, or a pooled one) pages through the async form: `use keyset_diesel::async_::PaginateDsl;` in place of the prelude's `PaginateDsl`, then `.load_page(conn).await`",
    note = "on a blocking connection (`PgConnection`, `SqliteConnection`, `MysqlConnection`), the query must load `{K}` (e.g. `.select({K}::as_select())`) and the backend's feature of this crate must be enabled"
)]
pub trait BlockingPageConnection<'query, Q, K: Keyset>: Sized {
    /// Builds and runs the page.
    #[doc(hidden)]
    fn load_pages(paginated: Paginated<Q, K>, conn: &mut Self) -> QueryResult<Page<K>>;
}

#[diagnostic::do_not_recommend]
impl<'query, Conn, K, Q> BlockingPageConnection<'query, Q, K> for Conn
where
    Conn: Connection,
    Conn::Backend: KeysetBackend + Default,
    <Conn::Backend as diesel::backend::Backend>::QueryBuilder: Default,
    K: KeysetSql<Conn::Backend> + 'static,
    Q: PaginateDsl + PageSource<K> + SelectParts<Conn::Backend> + diesel::query_builder::QueryId,
    diesel::query_builder::SqlQuery: LoadQuery<'query, Conn, IndexPart>,
    PageStatement<Q, K>: LoadQuery<'query, Conn, K>,
    TypeKeyed<PageStatement<Q, K>, FIRST_FORWARD>: LoadQuery<'query, Conn, K>,
    TypeKeyed<PageStatement<Q, K>, FIRST_BACKWARD>: LoadQuery<'query, Conn, K>,
    TypeKeyed<PageStatement<Q, K>, AFTER_FORWARD>: LoadQuery<'query, Conn, K>,
    TypeKeyed<PageStatement<Q, K>, AFTER_BACKWARD>: LoadQuery<'query, Conn, K>,
    UnionPage<Q, K>: LoadQuery<'query, Conn, (K, K::Key, i32)>,
    TypeKeyed<UnionPage<Q, K>, SPLIT_FORWARD>: LoadQuery<'query, Conn, (K, K::Key, i32)>,
    TypeKeyed<UnionPage<Q, K>, SPLIT_BACKWARD>: LoadQuery<'query, Conn, (K, K::Key, i32)>,
    WithTotal<PageStatement<Q, K>>: LoadQuery<'query, Conn, (K, i64)>,
    WithTotal<UnionPage<Q, K>>: LoadQuery<'query, Conn, (K, K::Key, i32, i64)>,
{
    fn load_pages(mut paginated: Paginated<Q, K>, conn: &mut Conn) -> QueryResult<Page<K>> {
        // MySQL/MariaDB: the index that serves the seek, when the page names none (`learn.rs`).
        let named = learn::lookup_cached::<Conn::Backend, _, _, _>(&paginated).and_then(|lookup| {
            let index = lookup.known(true).unwrap_or_else(|| {
                let mut listed = (0, Err(diesel::result::Error::NotFound));
                for (form, sql) in lookup.catalog_statements() {
                    listed = (form, diesel::sql_query(sql).load::<IndexPart>(conn));
                    if listed.1.is_ok() {
                        break;
                    }
                }
                lookup.learn(listed.0, listed.1)
            });
            lookup.name(index, &mut paginated)
        });
        let (query, assembly) = shape::<Conn::Backend, _, _, _>(paginated)?;
        let loaded = load_page_query!(query, Conn::Backend, assembly.total, |q| q
            .load(conn)
            .map_err(|e| learn::refused(named.as_ref(), e))?);
        Ok(loaded.into_page(assembly)?)
    }
}
