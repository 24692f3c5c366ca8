//! The question a page asks the database when two adjacent rows' keys differ only in text a
//! collation may ignore (`Bob` / `bob`, `x` / `x  `, `é` / `e` + U+0301): are they equal in the
//! column's own comparison, the one its `ORDER BY` sorts by? Rust cannot know the collation,
//! the database can:
//!
//! ```sql
//! SELECT CASE
//!   WHEN "t"."tag" IN (SELECT "t"."tag" FROM "t" WHERE "t"."tag" = $1) THEN 1
//!   WHEN EXISTS (SELECT 1 FROM "t" WHERE "t"."tag" = $2) THEN 0
//!   ELSE 2 END AS keyset_collation_equal
//! FROM "t" WHERE "t"."tag" = $3 LIMIT 1
//! ```
//!
//! `$3` is the earlier row's value, `$1` and `$2` the later row's: the outer row is the earlier
//! row (a value is equal to itself), the subquery's rows the later one, and `IN` compares the
//! two rows' stored values column to column, so the comparison is the column's own (its
//! type's and its collation's: a PostgreSQL `citext` column declared `Text` in Diesel compares
//! as `citext` here, though the binds are text). 0: different. 1: equal. 2 (the later row is
//! gone) or no row (the earlier row is gone, deleted or changed between the page and the
//! question): no answer, and the page stays loud. No `COLLATE`, no cast; the binds are the
//! key columns' own SQL types, as in the seek.

use std::fmt;

use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::query_dsl::RunQueryDslSupport;
use diesel::sql_types::Integer;
use diesel::QueryResult;

use crate::keyset::{Keyset, KeysetSql};

/// Whether two keys that differ only in text are equal in the columns' own comparison (see
/// the module docs): loads one `i32`, 0 for different, 1 for equal, 2 or no row for no
/// answer.
pub struct CollationQuestion<K: Keyset> {
    table: K::Table,
    before: K::Key,
    after: K::Key,
    /// The text columns to compare (bit `i` for key column `i`).
    columns: u64,
}

impl<K: Keyset> CollationQuestion<K> {
    pub(crate) fn new(before: K::Key, after: K::Key, columns: u64) -> Self
    where
        K::Table: Default,
    {
        CollationQuestion {
            table: K::Table::default(),
            before,
            after,
            columns,
        }
    }

    /// The key columns asked about, in key order.
    fn columns(&self) -> impl Iterator<Item = usize> + '_ {
        (0..K::COLUMNS.len().min(64)).filter(|i| self.columns & (1u64 << i) != 0)
    }

    /// ` FROM t WHERE c1 = ? AND c2 = ?` with `key`'s values.
    fn walk_rows_of<'b, DB>(
        &'b self,
        key: &'b K::Key,
        mut out: AstPass<'_, 'b, DB>,
    ) -> QueryResult<()>
    where
        DB: diesel::backend::Backend,
        K: KeysetSql<DB>,
        K::Table: QueryFragment<DB>,
    {
        out.push_sql(" FROM ");
        self.table.walk_ast(out.reborrow())?;
        out.push_sql(" WHERE ");
        for (n, index) in self.columns().enumerate() {
            if n > 0 {
                out.push_sql(" AND ");
            }
            K::walk_column(index, out.reborrow())?;
            out.push_sql(" = ");
            K::walk_value(key, index, out.reborrow())?;
        }
        Ok(())
    }
}

impl<K: Keyset> fmt::Debug for CollationQuestion<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CollationQuestion")
            .field("columns", &self.columns)
            .finish_non_exhaustive()
    }
}

impl<K: Keyset> QueryId for CollationQuestion<K> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<K: Keyset> Query for CollationQuestion<K> {
    type SqlType = Integer;
}

impl<K: Keyset> RunQueryDslSupport for CollationQuestion<K> {}

impl<K, DB> QueryFragment<DB> for CollationQuestion<K>
where
    DB: diesel::backend::Backend,
    K: KeysetSql<DB>,
    K::Table: QueryFragment<DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        out.unsafe_to_cache_prepared();
        out.push_sql("SELECT CASE WHEN ");
        // Each column of the earlier row among the later row's values of it: compared column
        // to column (an `IN` per column; the subquery's table hides the outer one).
        for (n, index) in self.columns().enumerate() {
            if n > 0 {
                out.push_sql(" AND ");
            }
            K::walk_column(index, out.reborrow())?;
            out.push_sql(" IN (SELECT ");
            K::walk_column(index, out.reborrow())?;
            self.walk_rows_of(&self.after, out.reborrow())?;
            out.push_sql(")");
        }
        out.push_sql(" THEN 1 WHEN EXISTS (SELECT 1");
        self.walk_rows_of(&self.after, out.reborrow())?;
        out.push_sql(") THEN 0 ELSE 2 END AS keyset_collation_equal");
        self.walk_rows_of(&self.before, out.reborrow())?;
        out.push_sql(" LIMIT 1");
        Ok(())
    }
}

#[cfg(all(test, feature = "sqlite", feature = "postgres", feature = "mysql"))]
mod tests {
    use super::*;

    diesel::table! { users (id) { id -> BigInt, team -> Text, name -> Text } }

    #[derive(diesel::Queryable, diesel::Selectable, keyset_derive::Keyset)]
    #[diesel(table_name = users)]
    struct User {
        #[allow(dead_code)]
        id: i64,
        #[keyset(asc)]
        team: String,
        #[keyset(desc, unique)]
        name: String,
    }

    fn question() -> CollationQuestion<User> {
        let key = |team: &str, name: &str| (team.to_string(), name.to_string());
        CollationQuestion::new(key("Core", "bob"), key("core", "Bob"), 0b11)
    }

    #[test]
    fn the_question_compares_in_the_columns_own_collation_on_every_backend() {
        let sql = diesel::debug_query::<diesel::pg::Pg, _>(&question()).to_string();
        let later = "FROM \"users\" WHERE \"users\".\"team\" = $1 AND \"users\".\"name\" = $2";
        assert_eq!(
            sql,
            format!(
                "SELECT CASE WHEN \"users\".\"team\" IN (SELECT \"users\".\"team\" {later}) AND \
                 \"users\".\"name\" IN (SELECT \"users\".\"name\" {}) THEN 1 WHEN EXISTS \
                 (SELECT 1 {}) THEN 0 ELSE 2 END AS keyset_collation_equal {} LIMIT 1 \
                 -- binds: [\"core\", \"Bob\", \"core\", \"Bob\", \"core\", \"Bob\", \"Core\", \"bob\"]",
                later.replace("$2", "$4").replace("$1", "$3"),
                later.replace("$2", "$6").replace("$1", "$5"),
                later.replace("$2", "$8").replace("$1", "$7"),
            )
        );
        let sql = diesel::debug_query::<diesel::mysql::Mysql, _>(&question()).to_string();
        assert!(
            sql.starts_with("SELECT CASE WHEN `users`.`team` IN (SELECT `users`.`team` FROM `users` WHERE `users`.`team` = ? AND `users`.`name` = ?)"),
            "{sql}"
        );
        let sql = diesel::debug_query::<diesel::sqlite::Sqlite, _>(&question()).to_string();
        assert!(
            sql.contains("FROM `users` WHERE `users`.`team` = ?"),
            "{sql}"
        );
        // One column only: the other is left out of both conditions.
        let one = CollationQuestion::<User>::new(
            ("a".to_string(), "x".to_string()),
            ("a".to_string(), "X".to_string()),
            0b10,
        );
        let sql = diesel::debug_query::<diesel::pg::Pg, _>(&one).to_string();
        assert!(
            sql.contains("WHEN \"users\".\"name\" IN (SELECT \"users\".\"name\" FROM \"users\" WHERE \"users\".\"name\" = $1) THEN 1")
                && sql.ends_with("WHERE \"users\".\"name\" = $3 LIMIT 1 -- binds: [\"X\", \"X\", \"x\"]"),
            "{sql}"
        );
    }
}
