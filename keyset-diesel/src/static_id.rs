//! Page statements Diesel finds in its prepared-statement cache by type ([`StaticPage`]).
//!
//! Diesel keys a connection's statement cache by the query's type when the type has a static
//! query id (`QueryId::HAS_STATIC_QUERY_ID`), and otherwise by the SQL text, which it writes
//! out at every call just to look the statement up. A page's SQL depends on more than its
//! types (the walk's direction, whether there is a cursor, which cursor values are NULL, the
//! options), so [`PageStatement`] has no static id. Most pages, though, are one of four shapes
//! whose SQL the types do fix: the first or a later page, forward or backward, in the
//! backend's default form, of a query with a static id, after a cursor that holds no NULL.
//! Such a page is loaded as `StaticPage<PageStatement<Q, K>, SHAPE>`, whose id is
//! `(Q's id, K, SHAPE)`: a cached page costs no SQL writing (measured in
//! docs/PERFORMANCE.md, section 2a). Every other page keeps the SQL-text key.

use diesel::backend::Backend;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::query_dsl::RunQueryDsl;
use diesel::QueryResult;

use crate::cursor::Direction;
use crate::keyset::Keyset;
use crate::statement::PageStatement;
use crate::value::KeyTuple;

/// The page shapes whose SQL text `(Q, K, backend)` fix, when the page is in the backend's
/// default form (no `deferred_join`/`force_index` choice other than the default, no `until`,
/// no total count, no `seek_per_level`), is one statement and, for a later page, its cursor
/// holds no NULL (a NULL cursor value changes the seek's text and its number of binds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StaticShape {
    /// The first page forward: `ORDER BY <keyset> LIMIT ?`.
    FirstForward,
    /// The first page backward: `ORDER BY <reversed keyset> LIMIT ?`.
    FirstBackward,
    /// A later page forward: the seek after the cursor.
    AfterForward,
    /// A later page backward: the seek before the cursor.
    AfterBackward,
}

/// [`StaticShape::FirstForward`] as `StaticPage`'s parameter.
pub(crate) const FIRST_FORWARD: u8 = 0;
/// [`StaticShape::FirstBackward`] as `StaticPage`'s parameter.
pub(crate) const FIRST_BACKWARD: u8 = 1;
/// [`StaticShape::AfterForward`] as `StaticPage`'s parameter.
pub(crate) const AFTER_FORWARD: u8 = 2;
/// [`StaticShape::AfterBackward`] as `StaticPage`'s parameter.
pub(crate) const AFTER_BACKWARD: u8 = 3;

impl StaticShape {
    /// The shape of a page with (`after`) or without a cursor, read in `walk`'s direction.
    pub(crate) fn new(after: bool, walk: Direction) -> Self {
        match (after, walk) {
            (false, Direction::Forward) => StaticShape::FirstForward,
            (false, Direction::Backward) => StaticShape::FirstBackward,
            (true, Direction::Forward) => StaticShape::AfterForward,
            (true, Direction::Backward) => StaticShape::AfterBackward,
        }
    }
}

/// Whether the seek after `key` has the text every NULL-free key of `K` has: `key` holds no
/// NULL (a NULL is written as `IS NULL` / `IS NOT NULL` arms, with one bind fewer). Asked of
/// the cursor itself, not of the declared NULL placements, so a keyset's nullable columns
/// only cost the static id of the pages whose cursor holds a NULL.
pub(crate) fn seek_text_is_fixed<K: Keyset>(key: &K::Key) -> bool {
    (0..K::COLUMNS.len()).all(|i| !KeyTuple::is_null(key, i))
}

/// A page statement loaded with a static query id: the same SQL and binds as the statement it
/// wraps, identified by `(Q::QueryId, K, SHAPE)`, so Diesel's statement cache finds it by type
/// (see the module docs). Built only for the page shapes of [`StaticShape`]; the id is static
/// only when `Q`'s is (a boxed query's is not).
#[doc(hidden)]
pub struct StaticPage<S, const SHAPE: u8>(pub(crate) S);

/// The shape half of a [`StaticPage`]'s query id.
#[doc(hidden)]
pub struct ShapeId<const SHAPE: u8>;

impl<Q: QueryId, K: Keyset + 'static, const SHAPE: u8> QueryId
    for StaticPage<PageStatement<Q, K>, SHAPE>
{
    type QueryId = (Q::QueryId, K, ShapeId<SHAPE>);
    const HAS_STATIC_QUERY_ID: bool = Q::HAS_STATIC_QUERY_ID;
}

impl<Q: Query, K: Keyset, const SHAPE: u8> Query for StaticPage<PageStatement<Q, K>, SHAPE> {
    type SqlType = Q::SqlType;
}

impl<S, Conn, const SHAPE: u8> RunQueryDsl<Conn> for StaticPage<S, SHAPE> {}

impl<S: QueryFragment<DB>, DB: Backend, const SHAPE: u8> QueryFragment<DB>
    for StaticPage<S, SHAPE>
{
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.0.walk_ast(out)
    }
}
