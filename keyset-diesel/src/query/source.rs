//! What a page is built on: your select query, checked ([`PageSource`]) and taken apart into
//! its clauses ([`SelectParts`]), so the page statement can repeat them.

use diesel::backend::Backend;
use diesel::query_builder::{
    AstPass, BoxedSelectStatement, FromClause, LimitOffsetClause, QueryBuilder, QueryFragment,
    QueryId, SelectStatement,
};
use diesel::query_source::{AppearsInFromClause, QuerySource};
use diesel::QueryResult;

use crate::checks::{KeysetTableInQuery, NoDistinctOn, NoLimitYet, NoOffsetYet, NoOrderByYet};
use crate::error::KeysetError;
use crate::keyset::Keyset;

/// A select query a keyset page of `K` can be built on: Diesel's `SelectStatement` without
/// `ORDER BY`, `LIMIT` or `OFFSET` whose `FROM` reads `K`'s table once (checked by the
/// compiler, each rule with its own message), and boxed select statements (the table checked
/// by the compiler; the clauses when the page is built: [`KeysetError::AlreadyOrdered`],
/// [`KeysetError::AlreadyLimited`], [`KeysetError::DistinctOn`]). A query with PostgreSQL's
/// `DISTINCT ON` is refused (at compile time unboxed), since the seek would re-admit the rest
/// of the cursor's group ([limits](crate::guide::keys_and_limits#limits)).
pub trait PageSource<K: Keyset>: Sized {
    /// Refuses clauses the type system cannot see (boxed queries).
    ///
    /// # Errors
    /// See the implementors.
    fn check_clauses(&self) -> Result<(), KeysetError> {
        Ok(())
    }

    /// Whether the query's `FROM` is the keyset's table alone (no join, no alias): only then
    /// does a page name the keyset's declared [`Keyset::INDEX`].
    fn reads_keyset_table_alone(&self) -> bool {
        false
    }

    /// The index a page of this query names by default: the keyset's declared
    /// [`Keyset::INDEX`] when the query reads the keyset's table alone.
    #[doc(hidden)]
    fn default_index(&self) -> Option<&'static str> {
        K::INDEX.filter(|_| self.reads_keyset_table_alone())
    }

    /// The query's locking clause, if it has one.
    #[doc(hidden)]
    fn row_lock(&self) -> Option<RowLock> {
        None
    }
}

/// A query's locking clause (`FOR UPDATE`, `FOR NO KEY UPDATE`, `FOR SHARE`, `FOR KEY SHARE`,
/// each alone, with `SKIP LOCKED` or with `NOWAIT`), as a page needs to know it: a locking page
/// reads `LIMIT page_size` rows under the lock, so it locks exactly the rows it delivers, and
/// asks whether more follow with a statement that takes no lock
/// ([work queues](crate::guide::read_contracts#work-queues-locking-pages)).
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowLock {
    /// `SKIP LOCKED`: the page may leave out rows other transactions hold, so a short page
    /// does not mean the end.
    pub skips_locked: bool,
}

/// Diesel's locking clause types, named through its own helper types (the types themselves
/// are private to Diesel), and told apart by their query ids: which clause a statement carries.
mod lock_clauses {
    use std::any::TypeId;

    use diesel::dsl;
    use diesel::query_builder::QueryId;

    use super::{RowLock, SelectStatement};

    /// `SELECT 1`: a statement Diesel lets take every lock.
    type Base = dsl::select<dsl::AsExprOf<i32, diesel::sql_types::Integer>>;

    /// The locking clause of a select statement.
    pub trait LockOf {
        type Lock;
    }

    impl<F, S, D, W, O, LOf, G, H, LC> LockOf for SelectStatement<F, S, D, W, O, LOf, G, H, LC> {
        type Lock = LC;
    }

    /// The query id of the locking clause of statement `S`.
    fn id_of<S: LockOf>() -> TypeId
    where
        S::Lock: QueryId,
    {
        TypeId::of::<<S::Lock as QueryId>::QueryId>()
    }

    /// The lock of the clause whose query id is `id`: none for Diesel's empty clause, one
    /// that skips locked rows for the four `SKIP LOCKED` clauses.
    pub fn row_lock(id: TypeId) -> Option<RowLock> {
        if id == id_of::<Base>() {
            return None;
        }
        let skips_locked = [
            id_of::<dsl::SkipLocked<dsl::ForUpdate<Base>>>(),
            id_of::<dsl::SkipLocked<dsl::ForNoKeyUpdate<Base>>>(),
            id_of::<dsl::SkipLocked<dsl::ForShare<Base>>>(),
            id_of::<dsl::SkipLocked<dsl::ForKeyShare<Base>>>(),
        ]
        .contains(&id);
        Some(RowLock { skips_locked })
    }
}

/// Whether `source` is `T` itself. The names of two types are equal when the types are (a
/// table's name is its path; a join's names the join and every table in it, so it never
/// equals a table's), which needs no `'static` bound as `TypeId` would.
fn same_source<Source, T>() -> bool {
    std::any::type_name::<Source>() == std::any::type_name::<T>()
}

/// The query checks are bounds of this impl, each a marker trait of `checks.rs` whose message
/// names the fix: no `ORDER BY`, `LIMIT` or `OFFSET` yet, and the keyset's table in `FROM`.
impl<K, F, S, D, W, O, L, Of, G, H, LC> PageSource<K>
    for SelectStatement<FromClause<F>, S, D, W, O, LimitOffsetClause<L, Of>, G, H, LC>
where
    K: Keyset,
    F: QuerySource + AppearsInFromClause<K::Table>,
    F::Count: KeysetTableInQuery<K, K::Table, F>,
    D: NoDistinctOn,
    O: NoOrderByYet,
    L: NoLimitYet,
    Of: NoOffsetYet,
    LC: QueryId,
{
    fn reads_keyset_table_alone(&self) -> bool {
        same_source::<F, K::Table>()
    }

    fn row_lock(&self) -> Option<RowLock> {
        lock_clauses::row_lock(std::any::TypeId::of::<LC::QueryId>())
    }
}

/// Boxed queries erase their clauses from the type, so the rule is checked at run time: a
/// boxed query that already has `ORDER BY`, `LIMIT` or `OFFSET`, or has `DISTINCT ON`, is
/// refused with a [`KeysetError`] before any SQL runs.
impl<'a, K, ST, QS, DB, GB> PageSource<K> for BoxedSelectStatement<'a, ST, FromClause<QS>, DB, GB>
where
    K: Keyset,
    QS: QuerySource + AppearsInFromClause<K::Table>,
    QS::Count: KeysetTableInQuery<K, K::Table, QS>,
    DB: Backend + Default,
    DB::QueryBuilder: Default,
{
    fn reads_keyset_table_alone(&self) -> bool {
        same_source::<QS, K::Table>()
    }

    fn check_clauses(&self) -> Result<(), KeysetError> {
        // A boxed clause may be present and still write nothing (PostgreSQL boxes an absent
        // LIMIT as `Some(NoLimitClause)`), so ask each one whether it writes SQL.
        let backend = DB::default();
        let writes_sql = |clause: &Option<Box<dyn QueryFragment<DB> + Send + 'a>>| {
            clause
                .as_ref()
                .is_some_and(|c| !c.is_noop(&backend).unwrap_or(false))
        };
        if writes_sql(&self.order) {
            return Err(KeysetError::AlreadyOrdered);
        }
        if writes_sql(&self.limit_offset.limit) || writes_sql(&self.limit_offset.offset) {
            return Err(KeysetError::AlreadyLimited);
        }
        // The distinct clause is boxed too: its SQL tells `DISTINCT ON (..)` (PostgreSQL's
        // only spelling of it) from plain `DISTINCT` and nothing.
        let mut distinct = DB::QueryBuilder::default();
        if self.distinct.to_sql(&mut distinct, &backend).is_ok()
            && distinct.finish().trim_start().starts_with("DISTINCT ON")
        {
            return Err(KeysetError::DistinctOn);
        }
        Ok(())
    }
}

/// Renders the clauses of a select statement separately, so a page query can repeat them
/// (implemented for Diesel's `SelectStatement` and boxed select statements).
#[doc(hidden)]
pub trait SelectParts<DB: Backend> {
    /// `DISTINCT` (if any) and the select list, without the `SELECT` keyword.
    ///
    /// # Errors
    /// What the clauses' `walk_ast` return.
    fn walk_select_list<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()>;
    /// ` FROM ...`.
    ///
    /// # Errors
    /// What the clause's `walk_ast` returns.
    fn walk_from<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()>;
    /// ` WHERE ...`, or nothing.
    ///
    /// # Errors
    /// What the clause's `walk_ast` returns.
    fn walk_where<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()>;
    /// Whether the statement has a `WHERE` clause.
    ///
    /// # Errors
    /// What the clause's `is_noop` returns.
    fn has_where(&self, backend: &DB) -> QueryResult<bool>;
    /// ` GROUP BY ... HAVING ...`, or nothing.
    ///
    /// # Errors
    /// What the clauses' `walk_ast` return.
    fn walk_group<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()>;
    /// ` FOR UPDATE ...` (a locking clause), or nothing.
    ///
    /// # Errors
    /// What the clause's `walk_ast` returns.
    fn walk_locking<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()>;
    /// Whether the statement is `SELECT DISTINCT` or has a locking clause: a deferred join
    /// would change its result (duplicates would use up the inner `LIMIT`; the inner query
    /// would not lock, `SKIP LOCKED` would shorten the page), so such a page is written
    /// directly.
    ///
    /// # Errors
    /// What the clauses' `is_noop` return.
    fn distinct_or_locking(&self, backend: &DB) -> QueryResult<bool>;
    /// Whether the statement is `SELECT DISTINCT` (the total count then counts distinct rows
    /// of the select list).
    ///
    /// # Errors
    /// What the clause's `is_noop` returns.
    fn is_distinct(&self, backend: &DB) -> QueryResult<bool>;
}

/// [`SelectParts`] for a select statement type whose clauses are its fields; `locking` writes
/// its locking clause (and says whether it has one) from the statement `$s`.
macro_rules! select_parts {
    (
        impl[$($generics:tt)*] for $ty:ty where [$($bounds:tt)*]
        locking: |$s:ident, $out:ident| $walk_locking:expr, has_locking: |$h:ident, $b:ident| $has_locking:expr
    ) => {
        impl<$($generics)*> SelectParts<DB> for $ty
        where
            $($bounds)*
        {
            fn walk_select_list<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
                self.distinct.walk_ast(out.reborrow())?;
                self.select.walk_ast(out)
            }
            fn walk_from<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
                self.from.walk_ast(out)
            }
            fn walk_where<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
                self.where_clause.walk_ast(out)
            }
            fn has_where(&self, backend: &DB) -> QueryResult<bool> {
                Ok(!self.where_clause.is_noop(backend)?)
            }
            fn walk_group<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
                self.group_by.walk_ast(out.reborrow())?;
                self.having.walk_ast(out)
            }
            fn walk_locking<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
                let ($s, $out) = (self, out);
                $walk_locking
            }
            fn distinct_or_locking(&self, backend: &DB) -> QueryResult<bool> {
                let ($h, $b) = (self, backend);
                Ok(self.is_distinct(backend)? || $has_locking)
            }
            fn is_distinct(&self, backend: &DB) -> QueryResult<bool> {
                Ok(!self.distinct.is_noop(backend)?)
            }
        }
    };
}

select_parts! {
    impl[F, S, D, W, O, LOf, G, H, LC, DB] for SelectStatement<F, S, D, W, O, LOf, G, H, LC>
    where [
        DB: Backend,
        S: QueryFragment<DB>,
        F: QueryFragment<DB>,
        D: QueryFragment<DB>,
        W: QueryFragment<DB>,
        G: QueryFragment<DB>,
        H: QueryFragment<DB>,
        LC: QueryFragment<DB>,
    ]
    locking: |s, out| s.locking.walk_ast(out),
    has_locking: |s, backend| !s.locking.is_noop(backend)?
}

select_parts! {
    impl[ST, QS, DB, GB] for BoxedSelectStatement<'_, ST, QS, DB, GB>
    where [
        DB: Backend + diesel::backend::DieselReserveSpecialization,
        QS: QueryFragment<DB>,
    ]
    // Boxed select statements have no locking clause.
    locking: |_s, _out| Ok(()),
    has_locking: |_s, _backend| false
}
