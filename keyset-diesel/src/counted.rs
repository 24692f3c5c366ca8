//! The total count's typing of a page statement ([`Counted`]): the same SQL as a
//! [`PageStatement`] or a [`UnionPage`], with the `__keyset_total` column (written by the
//! statement writer when the total count is asked for) typed last. It sits above both
//! statement shapes, so neither names the other.

use diesel::backend::Backend;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::query_dsl::RunQueryDsl;
use diesel::sql_types::BigInt;
use diesel::QueryResult;

use crate::keyset::Keyset;
use crate::statement::PageStatement;
use crate::union::UnionPage;

/// A page statement ([`PageStatement`] or [`UnionPage`]) built with
/// the total count: the same SQL, typed with the `__keyset_total` column (`BigInt`) last, so
/// its rows load as `(row, total)` / `(row, key, arm, total)`.
#[doc(hidden)]
pub struct Counted<P>(pub(crate) P);

impl<P> QueryId for Counted<P> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<Q: Query, K: Keyset> Query for Counted<PageStatement<Q, K>> {
    type SqlType = (Q::SqlType, BigInt);
}

impl<Q: Query, K: Keyset> Query for Counted<UnionPage<Q, K>>
where
    K::Columns: diesel::expression::Expression,
{
    type SqlType = (
        Q::SqlType,
        diesel::dsl::SqlTypeOf<K::Columns>,
        diesel::sql_types::Integer,
        BigInt,
    );
}

impl<P, Conn> RunQueryDsl<Conn> for Counted<P> {}

impl<P: QueryFragment<DB>, DB: Backend> QueryFragment<DB> for Counted<P> {
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.0.walk_ast(out)
    }
}
