//! How Diesel sees a page statement: the same SQL under another type.
//!
//! * [`TypeKeyed`]: a page statement with a static query id. Diesel keys a connection's
//!   statement cache by the query's type when the type has a static query id, and otherwise by
//!   the SQL text, which it writes out at every call just to look the statement up. Most pages
//!   are one of four [`StaticShape`]s whose SQL their types fix
//!   ([`PageStatement::static_shape`]); such a page loads as `TypeKeyed<PageStatement<Q, K>,
//!   SHAPE>`, whose id is `(Q's id, K, SHAPE)`, and a cached page costs no SQL writing
//!   (the benchmark report, section 2a). A later page whose seek splits a leading nullable
//!   column's values from its NULL group is a union of two arms whose SQL its types fix too
//!   ([`UnionPage::static_shape`]): it loads as `TypeKeyed<UnionPage<Q, K>, SPLIT_..>`. Every
//!   other page keeps the SQL-text key, as does every page of up to 100 rows on PostgreSQL,
//!   whose `LIMIT` is a number in its text ([`limit_is_text`](super::statement::limit_is_text)).
//! * [`WithTotal`]: a page statement built with the total count, typed with its
//!   `__keyset_total` column (`BigInt`) last.
//! * [`Classed`]: a page statement on SQLite, typed with its `__keyset_class` column.

use diesel::backend::Backend;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::query_dsl::RunQueryDslSupport;
use diesel::sql_types::{BigInt, Integer};
use diesel::QueryResult;

use super::statement::{PageStatement, StaticShape};
use super::union::UnionPage;
use crate::keyset::Keyset;

/// [`StaticShape::FirstForward`] as `TypeKeyed`'s parameter.
pub(crate) const FIRST_FORWARD: u8 = StaticShape::FirstForward as u8;
/// [`StaticShape::FirstBackward`] as `TypeKeyed`'s parameter.
pub(crate) const FIRST_BACKWARD: u8 = StaticShape::FirstBackward as u8;
/// [`StaticShape::AfterForward`] as `TypeKeyed`'s parameter.
pub(crate) const AFTER_FORWARD: u8 = StaticShape::AfterForward as u8;
/// [`StaticShape::AfterBackward`] as `TypeKeyed`'s parameter.
pub(crate) const AFTER_BACKWARD: u8 = StaticShape::AfterBackward as u8;
/// [`StaticShape::SplitForward`] as `TypeKeyed`'s parameter.
pub(crate) const SPLIT_FORWARD: u8 = StaticShape::SplitForward as u8;
/// [`StaticShape::SplitBackward`] as `TypeKeyed`'s parameter.
pub(crate) const SPLIT_BACKWARD: u8 = StaticShape::SplitBackward as u8;

/// A page statement loaded with a static query id: the same SQL and binds as the statement it
/// wraps, identified by `(Q::QueryId, K, SHAPE)`, so Diesel's statement cache finds it by type.
/// Built only for the page shapes of [`StaticShape`]; the id is static only when `Q`'s is (a
/// boxed query's is not).
#[doc(hidden)]
pub struct TypeKeyed<S, const SHAPE: u8>(pub(crate) S);

/// The shape half of a [`TypeKeyed`] page's query id.
#[doc(hidden)]
pub struct ShapeId<const SHAPE: u8>;

impl<Q: QueryId, K: Keyset + 'static, const SHAPE: u8> QueryId
    for TypeKeyed<PageStatement<Q, K>, SHAPE>
{
    type QueryId = (Q::QueryId, K, ShapeId<SHAPE>);
    const HAS_STATIC_QUERY_ID: bool = Q::HAS_STATIC_QUERY_ID;
}

impl<Q: Query, K: Keyset, const SHAPE: u8> Query for TypeKeyed<PageStatement<Q, K>, SHAPE> {
    type SqlType = <PageStatement<Q, K> as Query>::SqlType;
}

impl<Q: QueryId, K: Keyset + 'static, const SHAPE: u8> QueryId
    for TypeKeyed<UnionPage<Q, K>, SHAPE>
{
    type QueryId = (Q::QueryId, K, ShapeId<SHAPE>);
    const HAS_STATIC_QUERY_ID: bool = Q::HAS_STATIC_QUERY_ID;
}

impl<Q: Query, K: Keyset, const SHAPE: u8> Query for TypeKeyed<UnionPage<Q, K>, SHAPE>
where
    UnionPage<Q, K>: Query,
{
    type SqlType = <UnionPage<Q, K> as Query>::SqlType;
}

impl<S, const SHAPE: u8> RunQueryDslSupport for TypeKeyed<S, SHAPE> {}

impl<S: QueryFragment<DB>, DB: Backend, const SHAPE: u8> QueryFragment<DB> for TypeKeyed<S, SHAPE> {
    /// The statement's own (its kept text, `query/text_memo.rs`): Diesel writes it when it
    /// prepares the statement.
    fn to_sql(&self, out: &mut DB::QueryBuilder, backend: &DB) -> QueryResult<()> {
        self.0.to_sql(out, backend)
    }

    /// The statement's own (kept with its text).
    fn count_binds(&self, backend: &DB) -> QueryResult<usize> {
        self.0.count_binds(backend)
    }

    /// The statement's own (kept with its text).
    fn is_safe_to_cache_prepared(&self, backend: &DB) -> QueryResult<bool> {
        self.0.is_safe_to_cache_prepared(backend)
    }

    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.0.walk_ast(out)
    }
}

/// A page statement ([`PageStatement`] or [`UnionPage`]) built with the total count: the same
/// SQL, typed with the `__keyset_total` column (`BigInt`) last, so its rows load as
/// `(row, total)` / `(row, key, kind, classes, total)`.
#[doc(hidden)]
pub struct WithTotal<P>(pub(crate) P);

impl<P> QueryId for WithTotal<P> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<Q: Query, K: Keyset> Query for WithTotal<PageStatement<Q, K>> {
    type SqlType = (Q::SqlType, BigInt);
}

impl<Q: Query, K: Keyset> Query for WithTotal<UnionPage<Q, K>>
where
    K::Columns: diesel::expression::Expression,
{
    type SqlType = (
        Q::SqlType,
        diesel::dsl::SqlTypeOf<K::Columns>,
        Integer,
        Integer,
        BigInt,
    );
}

impl<P> RunQueryDslSupport for WithTotal<P> {}

impl<P: QueryFragment<DB>, DB: Backend> QueryFragment<DB> for WithTotal<P> {
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.0.walk_ast(out)
    }
}

/// A page statement on SQLite ([`KeysetBackend::STORAGE_CLASSES`](crate::KeysetBackend::STORAGE_CLASSES)),
/// which selects its key columns' storage classes (`__keyset_class`, `Integer`) after your
/// select list: the same SQL as the statement it wraps, typed with that column, so its rows
/// load as `(row, classes)` (`(row, classes, total)` with the total count). PostgreSQL and
/// MySQL pages select no such column and load the statement itself.
#[doc(hidden)]
pub struct Classed<S>(pub(crate) S);

/// The classed half of a [`Classed`] page's query id.
#[doc(hidden)]
pub struct ClassedId;

impl<S: QueryId> QueryId for Classed<S> {
    type QueryId = (S::QueryId, ClassedId);
    const HAS_STATIC_QUERY_ID: bool = S::HAS_STATIC_QUERY_ID;
}

impl<Q: Query, K: Keyset> Query for Classed<PageStatement<Q, K>> {
    type SqlType = (Q::SqlType, Integer);
}

impl<Q: Query, K: Keyset, const SHAPE: u8> Query
    for Classed<TypeKeyed<PageStatement<Q, K>, SHAPE>>
{
    type SqlType = (Q::SqlType, Integer);
}

impl<Q: Query, K: Keyset> Query for Classed<WithTotal<PageStatement<Q, K>>> {
    type SqlType = (Q::SqlType, Integer, BigInt);
}

impl<S> RunQueryDslSupport for Classed<S> {}

impl<S: QueryFragment<DB>, DB: Backend> QueryFragment<DB> for Classed<S> {
    /// The statement's own (its kept text, `query/text_memo.rs`).
    fn to_sql(&self, out: &mut DB::QueryBuilder, backend: &DB) -> QueryResult<()> {
        self.0.to_sql(out, backend)
    }

    /// The statement's own (kept with its text).
    fn count_binds(&self, backend: &DB) -> QueryResult<usize> {
        self.0.count_binds(backend)
    }

    /// The statement's own (kept with its text).
    fn is_safe_to_cache_prepared(&self, backend: &DB) -> QueryResult<bool> {
        self.0.is_safe_to_cache_prepared(backend)
    }

    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.0.walk_ast(out)
    }
}
