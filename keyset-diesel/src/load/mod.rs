//! How a read runs: the statements `query/` decides, run on a connection, blocking here and
//! on diesel-async connections in `async_.rs`, both through one driver per read
//! ([`read_page!`], [`read_budgeted_page!`]) and one list of bounds
//! ([`page_connection_impl!`]); the rows checked (`check.rs`) and assembled into a [`Page`]
//! (`assemble.rs`). `budget.rs` loads the pages of a byte budget measured in SQL.

use diesel::connection::LoadConnection;
use diesel::query_dsl::{LoadQuery, RunQueryDsl};
use diesel::QueryResult;

use crate::keyset::Keyset;
use crate::page::Page;
use crate::paginate::{PaginateDsl, Paginated};
use crate::query::learn::IndexPart;
use crate::query::shape::decide;
use crate::query::PageSource;

mod assemble;
#[cfg(feature = "diesel-async")]
pub(crate) mod async_;
pub(crate) mod budget;
pub(crate) mod check;
pub(crate) mod classes;
pub(crate) mod locked;

pub(crate) use self::assemble::Loaded;

/// Runs the page statement `$query` (a [`PageQuery`](crate::query::PageQuery)) on backend
/// `$db` with `$load` (an expression of `$q`, the query typed as it loads: `$q.load(conn)`,
/// `.await`ed or not) and returns the [`Loaded`] rows: the one dispatch of every load, blocking
/// and async. A statement whose text its types fix loads as [`TypeKeyed`] (cached by type).
macro_rules! load_page_query {
    ($query:expr, $db:ty, $total:expr, |$q:ident| $load:expr) => {{
        use $crate::query::typing::{
            Classed, TypeKeyed, WithTotal, AFTER_BACKWARD, AFTER_FORWARD, FIRST_BACKWARD,
            FIRST_FORWARD, SPLIT_BACKWARD, SPLIT_FORWARD,
        };
        use $crate::query::{PageQuery, StaticShape};
        match ($query, $total) {
            // SQLite: the statement also reads its key columns' storage classes (`Classed`).
            // The condition is a constant of the backend, so each backend compiles one branch.
            (PageQuery::Statement(statement), false)
                if <$db as $crate::backend::KeysetBackend>::STORAGE_CLASSES =>
            {
                $crate::load::Loaded::Rows($crate::load::classes::rows(
                    match statement.static_shape::<$db>() {
                        None => {
                            let $q = Classed(statement);
                            $load
                        }
                        Some(StaticShape::FirstForward) => {
                            let $q = Classed(TypeKeyed::<_, FIRST_FORWARD>(statement));
                            $load
                        }
                        Some(StaticShape::FirstBackward) => {
                            let $q = Classed(TypeKeyed::<_, FIRST_BACKWARD>(statement));
                            $load
                        }
                        Some(StaticShape::AfterForward) => {
                            let $q = Classed(TypeKeyed::<_, AFTER_FORWARD>(statement));
                            $load
                        }
                        Some(StaticShape::AfterBackward) => {
                            let $q = Classed(TypeKeyed::<_, AFTER_BACKWARD>(statement));
                            $load
                        }
                        // A statement is never split: no statement has these shapes.
                        Some(StaticShape::SplitForward | StaticShape::SplitBackward) => {
                            let $q = Classed(statement);
                            $load
                        }
                    },
                )?)
            }
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
            (PageQuery::Statement(statement), true)
                if <$db as $crate::backend::KeysetBackend>::STORAGE_CLASSES =>
            {
                let $q = Classed(WithTotal(statement));
                $crate::load::Loaded::CountedRows($crate::load::classes::counted_rows($load)?)
            }
            (PageQuery::Statement(statement), true) => {
                let $q = WithTotal(statement);
                $crate::load::Loaded::CountedRows($load)
            }
            (PageQuery::Union(union), false) => $crate::load::Loaded::Union(
                $crate::load::classes::union(match union.static_shape::<$db>() {
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
                })?,
            ),
            (PageQuery::Union(union), true) => {
                let $q = WithTotal(union);
                $crate::load::Loaded::CountedUnion($crate::load::classes::counted_union($load)?)
            }
        }
    }};
}
pub(crate) use load_page_query;

/// On MySQL/MariaDB, the index the page `$page` (a mutable
/// [`Decided`](crate::query::shape::Decided) page) names by itself on backend `$db`: learned
/// from the table's indexes, listed with `|$sql| $list` (an expression of the catalog
/// statement's text) when this process has not in the last minute. Evaluates to the index
/// named, if any, for [`learn::refused`](crate::query::learn::refused).
macro_rules! name_learned_index {
    ($page:expr, $db:ty, |$sql:ident| $list:expr) => {{
        use $crate::query::learn;
        match learn::lookup_cached::<$db, _, _>(&$page) {
            Some(lookup) => {
                let index = match lookup.known(true) {
                    Some(index) => index,
                    None => {
                        let mut listed = (0, Err(diesel::result::Error::NotFound));
                        for (form, $sql) in lookup.catalog_statements() {
                            listed = (form, $list);
                            if listed.1.is_ok() {
                                break;
                            }
                        }
                        lookup.learn(listed.0, listed.1)
                    }
                };
                lookup.name(index, &mut $page)
            }
            None => None,
        }
    }};
}
pub(crate) use name_learned_index;

/// Loads the page `$page` (a mutable [`Decided`](crate::query::shape::Decided) page) on
/// backend `$db`: on MySQL/MariaDB the learned index first ([`name_learned_index!`]), then the
/// page statement, loaded with `|$q| $load` ([`load_page_query!`]). Evaluates to the
/// [`Loaded`] rows and their [`Assembly`](crate::query::shape::Assembly); returns the error
/// from the enclosing function.
macro_rules! load_decided {
    ($page:expr, $db:ty, |$sql:ident| $list:expr, |$q:ident| $load:expr) => {{
        let named = $crate::load::name_learned_index!($page, $db, |$sql| $list);
        let (query, assembly) = $page.statement::<$db>();
        let loaded = $crate::load::load_page_query!(query, $db, assembly.total, |$q| $load
            .map_err(|e| $crate::query::learn::refused(named.as_ref(), e))?);
        (loaded, assembly)
    }};
}
pub(crate) use load_decided;

/// The page of the rows `$loaded` (a [`Loaded`]) with their `$assembly`: checked, and each
/// pair of adjacent rows whose keys differ only in text a collation may ignore (and the pairs
/// `$also`, a locking page's look-ahead's: [`check::look_ahead`]) asked about with a
/// [`CollationQuestion`](crate::query::CollationQuestion), loaded with `|$q| $load` (the page
/// statement's load: `.await`ed in the async drivers). A page without such a pair runs no
/// statement here. Evaluates to the page's `Result`; returns the error from the enclosing
/// function.
macro_rules! finish_page {
    ($loaded:expr, $assembly:expr, |$q:ident| $load:expr) => {
        $crate::load::finish_page!($loaded, $assembly, Vec::new(), |$q| $load)
    };
    ($loaded:expr, $assembly:expr, $also:expr, |$q:ident| $load:expr) => {{
        let mut checked = $loaded.checked($assembly)?;
        checked.ask_also($also);
        for (n, question) in checked.questions().into_iter().enumerate() {
            let answer: Vec<i32> = {
                let $q = question;
                $load
            }?;
            checked.answer(n, &answer)?;
        }
        checked.into_page()
    }};
}
pub(crate) use finish_page;

/// Reads the page `$page` (a [`Decided`](crate::query::shape::Decided) page) on backend `$db`
/// ([`load_decided!`]) and assembles it. A query with a locking clause is refused
/// ([`KeysetError::LockingQuery`](crate::KeysetError::LockingQuery): [`read_locked_page!`]
/// reads it). Evaluates to the [`Page`]; returns the error from the enclosing function. The
/// one driver of a page, blocking and async (`.await` inside `$list` and `$load`).
macro_rules! read_page {
    ($page:expr, $db:ty, |$sql:ident| $list:expr, |$q:ident| $load:expr) => {{
        let mut page = $page;
        page.refuse_lock()?;
        let (loaded, assembly) = $crate::load::load_decided!(page, $db, |$sql| $list, |$q| $load);
        $crate::load::finish_page!(loaded, assembly, |$q| $load)?
    }};
}
pub(crate) use read_page;

/// Reads the page `$page` of a query with a locking clause, as [`read_page!`] reads a page
/// (a query without one pages as there): the page statement reads `LIMIT page_size` rows
/// under the lock, then the statements without a lock that copies of the query (`$copy`, a
/// `fn(&Q) -> Q`) make ([`LockPlan`](crate::query::shape::LockPlan)): the look-ahead and the
/// other side's probe (each loaded with `|$probe| $load_probe`) and the count (`|$count|
/// $load_count`), each when needed.
macro_rules! read_locked_page {
    (
        $page:expr, $db:ty, $copy:expr,
        |$probe:ident| $load_probe:expr,
        |$count:ident| $load_count:expr,
        |$sql:ident| $list:expr,
        |$q:ident| $load:expr
    ) => {{
        let mut page = $page;
        let lock = page.lock_plan($copy);
        let (loaded, assembly) = $crate::load::load_decided!(page, $db, |$sql| $list, |$q| $load);
        match (lock, loaded) {
            (Some(lock), $crate::load::Loaded::Rows(rows)) => {
                let after = lock.after(&rows);
                let (more, also) = match after.look_ahead {
                    Some($probe) => {
                        // Loaded first: no borrow of the rows lives across an `.await`.
                        let keys = $load_probe?;
                        $crate::load::check::look_ahead(rows.last(), &keys, assembly.walk)?
                    }
                    None => (false, Vec::new()),
                };
                let other_side = match after.other_side {
                    Some($probe) => Some(!$load_probe?.is_empty()),
                    None => None,
                };
                let total = match after.count {
                    Some($count) => $load_count?.first().copied(),
                    None => None,
                };
                let assembly = assembly.locked(more, other_side, total);
                $crate::load::finish_page!(
                    $crate::load::Loaded::Rows(rows),
                    assembly,
                    also,
                    |$q| $load
                )?
            }
            (_, loaded) => $crate::load::finish_page!(loaded, assembly, |$q| $load)?,
        }
    }};
}
pub(crate) use read_locked_page;

/// Reads the page of `$budgeted` (a [`ByteBudgeted`](crate::paginate::budget::ByteBudgeted))
/// on backend `$db`: its plan (`query/shape.rs`), the budget's probe and, when asked for, the
/// other side's probe (each loaded with `|$probe| $load_probe`) and the count (`|$count|
/// $load_count`), then the page they narrow, read as [`read_page!`] reads it. The one driver of
/// a budgeted page, blocking and async.
macro_rules! read_budgeted_page {
    (
        $budgeted:expr, $db:ty,
        |$probe:ident| $load_probe:expr,
        |$count:ident| $load_count:expr,
        |$sql:ident| $list:expr,
        |$q:ident| $load:expr
    ) => {{
        let plan = $crate::query::shape::budget_plan::<$db, _, _, _>($budgeted)?;
        let sizes = {
            let $probe = plan.probe;
            $load_probe?
        };
        let other_side = match plan.other_side {
            Some($probe) => Some(!$load_probe?.is_empty()),
            None => None,
        };
        let total = match plan.count {
            Some($count) => $load_count?.first().copied(),
            None => None,
        };
        // SQLite: the keys' storage classes ride above the sizes.
        let sizes = if <$db as $crate::backend::KeysetBackend>::STORAGE_CLASSES {
            $crate::load::classes::sizes(&plan.page, &sizes)?
        } else {
            sizes
        };
        let page = plan.page.measured(&sizes, other_side, total)?;
        $crate::load::read_page!(page, $db, |$sql| $list, |$q| $load)
    }};
}
pub(crate) use read_budgeted_page;

/// The blanket impl of a connection trait of the loads (`$Trait`: `BlockingPageConnection`,
/// `AsyncPageConnection` and the byte budget's two) for every connection `Conn: $Conn` that
/// loads every page statement of `Q` and `K` with the mode's `$Load` (Diesel's or
/// diesel-async's `LoadQuery`, each bound `+ $plus`), plus the bounds `$extra`: the one list of
/// what a page needs of its connection, blocking and async.
macro_rules! page_connection_impl {
    (
        $Trait:ident for Conn: $Conn:ident, $Load:ident $(+ $plus:lifetime)?,
        where { $($extra:tt)* }
        $($body:tt)*
    ) => {
        #[diagnostic::do_not_recommend]
        impl<'query, Conn, K, Q> $Trait<'query, Q, K> for Conn
        where
            Conn: $Conn,
            Conn::Backend: $crate::backend::KeysetBackend + Default,
            <Conn::Backend as diesel::backend::Backend>::QueryBuilder: Default,
            K: $crate::query::KeysetSql<Conn::Backend> + 'static,
            Q: $crate::query::PageSource<K>
                + $crate::query::SelectParts<Conn::Backend>
                + diesel::query_builder::QueryId,
            $crate::query::PageStatement<Q, K>: $Load<'query, Conn, K> $(+ $plus)?,
            $crate::query::typing::TypeKeyed<
                $crate::query::PageStatement<Q, K>,
                { $crate::query::typing::FIRST_FORWARD },
            >: $Load<'query, Conn, K> $(+ $plus)?,
            $crate::query::typing::TypeKeyed<
                $crate::query::PageStatement<Q, K>,
                { $crate::query::typing::FIRST_BACKWARD },
            >: $Load<'query, Conn, K> $(+ $plus)?,
            $crate::query::typing::TypeKeyed<
                $crate::query::PageStatement<Q, K>,
                { $crate::query::typing::AFTER_FORWARD },
            >: $Load<'query, Conn, K> $(+ $plus)?,
            $crate::query::typing::TypeKeyed<
                $crate::query::PageStatement<Q, K>,
                { $crate::query::typing::AFTER_BACKWARD },
            >: $Load<'query, Conn, K> $(+ $plus)?,
            $crate::query::typing::Classed<$crate::query::PageStatement<Q, K>>: $Load<'query, Conn, (K, i32)> $(+ $plus)?,
            $crate::query::typing::Classed<$crate::query::typing::TypeKeyed<
                $crate::query::PageStatement<Q, K>,
                { $crate::query::typing::FIRST_FORWARD },
            >>: $Load<'query, Conn, (K, i32)> $(+ $plus)?,
            $crate::query::typing::Classed<$crate::query::typing::TypeKeyed<
                $crate::query::PageStatement<Q, K>,
                { $crate::query::typing::FIRST_BACKWARD },
            >>: $Load<'query, Conn, (K, i32)> $(+ $plus)?,
            $crate::query::typing::Classed<$crate::query::typing::TypeKeyed<
                $crate::query::PageStatement<Q, K>,
                { $crate::query::typing::AFTER_FORWARD },
            >>: $Load<'query, Conn, (K, i32)> $(+ $plus)?,
            $crate::query::typing::Classed<$crate::query::typing::TypeKeyed<
                $crate::query::PageStatement<Q, K>,
                { $crate::query::typing::AFTER_BACKWARD },
            >>: $Load<'query, Conn, (K, i32)> $(+ $plus)?,
            $crate::query::UnionPage<Q, K>: $Load<'query, Conn, (K, K::Key, i32, i32)> $(+ $plus)?,
            $crate::query::typing::TypeKeyed<
                $crate::query::UnionPage<Q, K>,
                { $crate::query::typing::SPLIT_FORWARD },
            >: $Load<'query, Conn, (K, K::Key, i32, i32)> $(+ $plus)?,
            $crate::query::typing::TypeKeyed<
                $crate::query::UnionPage<Q, K>,
                { $crate::query::typing::SPLIT_BACKWARD },
            >: $Load<'query, Conn, (K, K::Key, i32, i32)> $(+ $plus)?,
            $crate::query::typing::WithTotal<$crate::query::PageStatement<Q, K>>:
                $Load<'query, Conn, (K, i64)> $(+ $plus)?,
            $crate::query::typing::Classed<
                $crate::query::typing::WithTotal<$crate::query::PageStatement<Q, K>>,
            >: $Load<'query, Conn, (K, i32, i64)> $(+ $plus)?,
            $crate::query::typing::WithTotal<$crate::query::UnionPage<Q, K>>:
                $Load<'query, Conn, (K, K::Key, i32, i32, i64)> $(+ $plus)?,
            <K as $crate::Keyset>::Table: Default + Send,
            $crate::query::CollationQuestion<K>: $Load<'query, Conn, i32> $(+ $plus)?,
            $($extra)*
        {
            $($body)*
        }
    };
}
pub(crate) use page_connection_impl;

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
    /// [`InvalidRowKey`](crate::KeysetError::InvalidRowKey),
    /// [`CollationEqualKeys`](crate::KeysetError::CollationEqualKeys),
    /// [`StorageClassMismatch`](crate::KeysetError::StorageClassMismatch) (SQLite).
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
// diesel-async one.
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
/// behind [`LoadPage`]'s connection. Implemented for every Diesel `LoadConnection` whose backend this
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

page_connection_impl! {
    BlockingPageConnection for Conn: LoadConnection, LoadQuery,
    where {}
    fn load_pages(paginated: Paginated<Q, K>, conn: &mut Conn) -> QueryResult<Page<K>> {
        let page = decide::<Conn::Backend, _, _, _>(paginated)?;
        Ok(read_page!(
            page,
            Conn::Backend,
            |sql| diesel::sql_query(sql).load::<IndexPart>(conn),
            |q| q.load(conn)
        ))
    }
}
