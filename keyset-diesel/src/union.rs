//! The page query when one seek is not enough: a union of the seek's arms (a nullable leading
//! column whose NULL group lies on the far side of the cursor) and, for exact flags, a one-row
//! probe of the other side, in one statement:
//!
//! ```sql
//! SELECT * FROM (
//!   SELECT "__keyset_a0".*, 0 AS "__keyset_arm" FROM (<page query, arm 0>) AS "__keyset_a0"
//!   UNION ALL SELECT "__keyset_a1".*, 0 AS "__keyset_arm" FROM (<page query, arm 1>) AS "__keyset_a1"
//!   UNION ALL SELECT * FROM (SELECT "__keyset_p".*, 1 AS "__keyset_arm"
//!                            FROM (<page query, probe>) AS "__keyset_p" LIMIT 1) AS "__keyset_pp"
//! ) AS "__keyset_u"
//! ORDER BY "__keyset_u"."__keyset_arm" DESC, <keyset on "__keyset_u"> LIMIT <page size + 1 (+ 1)>
//! ```
//!
//! Each branch is the ordinary page query (your filters, the arm's seek predicate, the keyset's
//! `ORDER BY`, `LIMIT page_size + 1`), so each keeps its own index range. The outer `ORDER BY`
//! names the key columns unqualified, as the page query outputs them: a union page needs the
//! key columns in the select list under their own names (as `Model::as_select()` has them) and
//! no two output columns with the same name.

use std::marker::PhantomData;
use std::sync::Arc;

use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::query_dsl::RunQueryDsl;
use diesel::serialize::ToSql;
use diesel::sql_types::{BigInt, HasSqlType, Integer};
use diesel::QueryResult;

use crate::backend::KeysetBackend;
use crate::cursor::Direction;
use crate::keyset::Keyset;
use crate::predicate::{dialect, terms, PartSelector};
use crate::sql::{self, Emitter, Part};

const UNION_ALIAS: &str = "__keyset_u";
const ARM_COLUMN: &str = "__keyset_arm";

/// A union page query; loads `(row, arm)` where `arm` is 1 for the probe row.
pub struct UnionPage<Q, K: Keyset> {
    query: Q,
    part: Arc<PartSelector>,
    arms: usize,
    probe: bool,
    walk: Direction,
    limit: i64,
    _model: PhantomData<fn() -> K>,
}

impl<Q, K: Keyset> UnionPage<Q, K> {
    /// `query` is the page query whose seek predicate reads `part`; `limit` is the outer
    /// `LIMIT` (page size + 1, + 1 more with a probe).
    pub(crate) fn new(
        query: Q,
        part: Arc<PartSelector>,
        arms: usize,
        probe: bool,
        walk: Direction,
        limit: i64,
    ) -> Self {
        UnionPage {
            query,
            part,
            arms,
            probe,
            walk,
            limit,
            _model: PhantomData,
        }
    }
}

impl<Q: std::fmt::Debug, K: Keyset> std::fmt::Debug for UnionPage<Q, K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UnionPage")
            .field("query", &self.query)
            .field("arms", &self.arms)
            .field("probe", &self.probe)
            .field("walk", &self.walk)
            .field("limit", &self.limit)
            .finish()
    }
}

impl<Q, K: Keyset> QueryId for UnionPage<Q, K> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<Q: Query, K: Keyset> Query for UnionPage<Q, K> {
    type SqlType = (Q::SqlType, Integer);
}

impl<Q, K: Keyset, Conn> RunQueryDsl<Conn> for UnionPage<Q, K> {}

/// Key columns of the union's output, unqualified names under the union's alias.
struct OuterColumns<'p, 'a, 'b, DB: diesel::backend::Backend, K> {
    out: &'p mut AstPass<'a, 'b, DB>,
    _model: PhantomData<K>,
}

impl<DB: diesel::backend::Backend, K: Keyset> Emitter for OuterColumns<'_, '_, '_, DB, K> {
    fn sql(&mut self, sql: &str) {
        self.out.push_sql(sql);
    }
    fn column(&mut self, index: usize) -> QueryResult<()> {
        let column = K::COLUMNS
            .get(index)
            .ok_or_else(|| crate::keyset::__index_error(index))?;
        self.out.push_identifier(UNION_ALIAS)?;
        self.out.push_sql(".");
        self.out.push_identifier(column.name)
    }
    fn value(&mut self, index: usize) -> QueryResult<()> {
        Err(crate::keyset::__index_error(index))
    }
}

impl<Q, K, DB> QueryFragment<DB> for UnionPage<Q, K>
where
    DB: KeysetBackend + HasSqlType<BigInt>,
    i64: ToSql<BigInt, DB>,
    Q: QueryFragment<DB>,
    K: Keyset,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        out.push_sql("SELECT * FROM (");
        let mut branches = (0..self.arms).map(Part::Arm).collect::<Vec<_>>();
        if self.probe {
            branches.push(Part::Probe);
        }
        for (i, part) in branches.iter().enumerate() {
            if i > 0 {
                out.push_sql(" UNION ALL ");
            }
            let alias = match part {
                Part::Arm(a) => format!("__keyset_a{a}"),
                Part::Probe => "__keyset_p".to_string(),
            };
            if *part == Part::Probe {
                out.push_sql("SELECT * FROM (");
            }
            out.push_sql("SELECT ");
            out.push_identifier(&alias)?;
            out.push_sql(".*, ");
            out.push_sql(if *part == Part::Probe { "1" } else { "0" });
            out.push_sql(" AS ");
            out.push_identifier(ARM_COLUMN)?;
            out.push_sql(" FROM (");
            self.part.set(*part);
            let walked = self.query.walk_ast(out.reborrow());
            self.part.set(Part::Arm(0));
            walked?;
            out.push_sql(") AS ");
            out.push_identifier(&alias)?;
            if *part == Part::Probe {
                out.push_sql(" LIMIT 1) AS ");
                out.push_identifier("__keyset_pp")?;
            }
        }
        out.push_sql(") AS ");
        out.push_identifier(UNION_ALIAS)?;
        out.push_sql(" ORDER BY ");
        if self.probe {
            out.push_identifier(UNION_ALIAS)?;
            out.push_sql(".");
            out.push_identifier(ARM_COLUMN)?;
            out.push_sql(" DESC, ");
        }
        let terms = terms::<K>(self.walk);
        sql::write_order(
            &mut OuterColumns::<DB, K> {
                out: &mut out,
                _model: PhantomData,
            },
            &terms,
            dialect::<DB>(),
        )?;
        out.push_sql(" LIMIT ");
        out.push_bind_param::<BigInt, i64>(&self.limit)
    }
}
