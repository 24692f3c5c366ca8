//! How a page is written: the types behind the bounds, what [`Paginated::into_query`]
//! returns, and the vocabulary of a hand-written keyset. You name them in `where` clauses, in
//! `diesel::debug_query`, or in a hand-written [`KeysetSql`]; handlers need only the crate
//! root (and a generic handler only [`LoadPage`](crate::LoadPage)).
//!
//! Inside, `query/` decides every statement of a read and writes it; it runs none (that is
//! `load/`). One file per stage of a page's SQL: `shape.rs` decides the statement from the
//! options (checked once, with the backend's facts), `learn.rs` the index a MySQL/MariaDB page
//! names by itself (and the catalog statement it learns from), `source.rs` takes your query
//! apart and `filters.rs` reads its `WHERE` for the learned index and the plan check,
//! `preview.rs` shows a page's statement without running it,
//! `statement.rs` and `union.rs` write the two statement shapes, `budget.rs` the statements
//! a byte budget reads before its page, `collation.rs` the question a page asks when two of
//! its rows' text keys may be equal under the column's collation, `seek.rs` the seek predicate and `ORDER BY` as Diesel
//! nodes, `sql.rs` the text rules they follow (`small_list.rs` their scratch lists),
//! `text_memo.rs` the page texts kept per thread, and `typing.rs` how Diesel types a page
//! (static ids, total count).
//!
//! [`Paginated::into_query`]: crate::Paginated::into_query

use diesel::backend::Backend;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::QueryResult;

pub(crate) mod budget;
mod collation;
pub(crate) mod filters;
pub(crate) mod learn;
mod preview;
mod seek;
pub(crate) mod shape;
mod small_list;
mod source;
mod sql;
mod statement;
mod text_memo;
pub(crate) mod typing;
pub(crate) mod union;

pub use self::budget::{BudgetProbe, CountQuery};
pub use self::collation::CollationQuestion;
pub use self::preview::PageSql;
pub use self::seek::{KeysetOrder, SeekPredicate};
pub use self::source::{PageSource, RowLock, SelectParts};
pub use self::statement::PageStatement;
pub(crate) use self::statement::CLASS_COLUMNS;
pub use self::union::UnionPage;
pub use crate::backend::BackendKind;
pub use crate::key::{collation_fold, InvalidKeyValue, KeyTuple, KeyValue};
pub use crate::keyset::{KeyColumn, KeysetSql, NullsOrder, SortDirection};
pub use crate::paginate::Blocking;
/// Derives [`KeyValue`](trait@KeyValue) for a newtype (a struct with one field): the
/// newtype's key value is its field's, with the same token representation, type tag and
/// order; or for a fieldless enum (a PostgreSQL native enum), whose token holds the
/// variant's name. See the trait for the example and the enum rules.
pub use keyset_derive::KeyValue;

pub(crate) use self::statement::{RowKind, StaticShape};

use crate::keyset::Keyset;

/// The SQL of one page, as [`Paginated::into_query`](crate::Paginated::into_query) gives it:
/// for `diesel::debug_query` and `EXPLAIN`. Load pages with
/// [`Paginated::load_page`](crate::Paginated::load_page).
#[derive(Debug)]
pub enum PageQuery<Q, K: Keyset> {
    /// One statement: the first page (`ORDER BY` + `LIMIT`), or a later page (seek predicate
    /// + `ORDER BY` + `LIMIT`, directly or as a deferred join).
    Statement(PageStatement<Q, K>),
    /// A later page whose seek needs a union (a leading nullable column with its NULL group on
    /// the far side of the cursor, or one seek per key level), carries a probe (exact flags)
    /// or a count row (total count): see [`UnionPage`].
    Union(UnionPage<Q, K>),
}

impl<Q, K: Keyset> QueryId for PageQuery<Q, K> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<Q, K: Keyset, DB> QueryFragment<DB> for PageQuery<Q, K>
where
    DB: Backend,
    PageStatement<Q, K>: QueryFragment<DB>,
    UnionPage<Q, K>: QueryFragment<DB>,
{
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        match self {
            PageQuery::Statement(q) => q.walk_ast(out),
            PageQuery::Union(q) => q.walk_ast(out),
        }
    }
}

#[cfg(test)]
mod tests;
