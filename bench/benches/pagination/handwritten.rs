//! The hand-written baselines: the library's SQL text with the same bind values, run through
//! `diesel::sql_query` (what a user writing SQL by hand does; Diesel never caches a
//! `sql_query` as a prepared statement) and through [`Prepared`] (the same text as a query
//! Diesel caches by its SQL text, as it caches the library's page queries).

use chrono::NaiveDateTime;
use diesel::backend::Backend;
use diesel::query_builder::{AstPass, BoxedSqlQuery, Query, QueryFragment, QueryId, SqlQuery};
use diesel::query_dsl::RunQueryDsl;
use diesel::serialize::ToSql;
use diesel::sql_types::{BigInt, HasSqlType, Integer, Timestamp, Untyped};
use diesel::QueryResult;

/// One bind value, with its SQL type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Bind {
    Int(i32),
    Big(i64),
    Ts(NaiveDateTime),
}

/// The SQL text of a `diesel::debug_query` rendering, without its `-- binds: [...]` suffix.
pub fn sql_text(debug: &str) -> String {
    match debug.rfind(" -- binds: ") {
        Some(at) => debug[..at].to_string(),
        None => debug.to_string(),
    }
}

/// `sql` as `diesel::sql_query(sql)` with `binds` bound in order.
pub fn sql_query<DB>(sql: &str, binds: &[Bind]) -> BoxedSqlQuery<'static, DB, SqlQuery>
where
    DB: Backend + HasSqlType<Integer> + HasSqlType<BigInt> + HasSqlType<Timestamp>,
    i32: ToSql<Integer, DB>,
    i64: ToSql<BigInt, DB>,
    NaiveDateTime: ToSql<Timestamp, DB>,
{
    let mut query = diesel::sql_query(sql).into_boxed::<DB>();
    for bind in binds {
        query = match *bind {
            Bind::Int(v) => query.bind::<Integer, _>(v),
            Bind::Big(v) => query.bind::<BigInt, _>(v),
            Bind::Ts(v) => query.bind::<Timestamp, _>(v),
        };
    }
    query
}

/// A hand-written statement: its text split at the bind placeholders, and the binds. Diesel
/// caches it as a prepared statement keyed by its SQL text.
#[derive(Debug, Clone)]
pub struct Prepared {
    parts: std::sync::Arc<Vec<String>>,
    binds: Vec<Bind>,
}

impl Prepared {
    /// `sql` with placeholders `$1, $2, ...` (PostgreSQL) or `?` (SQLite, MySQL).
    ///
    /// # Panics
    /// When the number of placeholders is not the number of binds.
    pub fn new(sql: &str, binds: &[Bind]) -> Prepared {
        let mut parts = Vec::new();
        let mut current = String::new();
        let mut chars = sql.chars().peekable();
        while let Some(c) = chars.next() {
            let dollar = c == '$' && chars.peek().is_some_and(char::is_ascii_digit);
            if c == '?' || dollar {
                if dollar {
                    while chars.peek().is_some_and(char::is_ascii_digit) {
                        chars.next();
                    }
                }
                parts.push(std::mem::take(&mut current));
            } else {
                current.push(c);
            }
        }
        parts.push(current);
        assert_eq!(
            parts.len(),
            binds.len() + 1,
            "placeholders vs binds in {sql}"
        );
        Prepared {
            parts: std::sync::Arc::new(parts),
            binds: binds.to_vec(),
        }
    }
}

impl QueryId for Prepared {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl Query for Prepared {
    type SqlType = Untyped;
}

impl<DB> QueryFragment<DB> for Prepared
where
    DB: Backend + HasSqlType<Integer> + HasSqlType<BigInt> + HasSqlType<Timestamp>,
    i32: ToSql<Integer, DB>,
    i64: ToSql<BigInt, DB>,
    NaiveDateTime: ToSql<Timestamp, DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        for (i, part) in self.parts.iter().enumerate() {
            out.push_sql(part);
            match self.binds.get(i) {
                Some(Bind::Int(v)) => out.push_bind_param::<Integer, i32>(v)?,
                Some(Bind::Big(v)) => out.push_bind_param::<BigInt, i64>(v)?,
                Some(Bind::Ts(v)) => out.push_bind_param::<Timestamp, NaiveDateTime>(v)?,
                None => {}
            }
        }
        Ok(())
    }
}

impl<Conn> RunQueryDsl<Conn> for Prepared {}

/// `<prefix> <query>`: EXPLAIN in front of a Diesel query, keeping its binds (the crate's own,
/// from its plan check).
pub use keyset_diesel::plan::Explain;
