//! The hand-written baselines: the library's SQL text with the same bind values, run through
//! `diesel::sql_query` (what a user writing SQL by hand does; Diesel never caches a
//! `sql_query` as a prepared statement) and through [`Prepared`] (the same text as a query
//! Diesel caches by its SQL text, as it caches the library's page queries).

use std::marker::PhantomData;

use chrono::NaiveDateTime;
use diesel::backend::Backend;
use diesel::query_builder::{AstPass, BoxedSqlQuery, Query, QueryFragment, QueryId, SqlQuery};
use diesel::query_dsl::RunQueryDsl;
use diesel::serialize::ToSql;
use diesel::sql_types::{BigInt, HasSqlType, Integer, Timestamp, Untyped};
use diesel::QueryResult;
use keyset_diesel::query::BackendKind;
use keyset_diesel::KeysetBackend;

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

/// The binds of the library's page query on `DB`, in the order its SQL uses them: the tenant
/// filter (twice in a deferred join: outer query and seek), the seek, the limit (twice in a
/// deferred join). On PostgreSQL the library writes the limit of a page of up to 100 rows as a
/// number in the text (keyset-diesel/src/guide/sql.md, "PostgreSQL: a page planned once"), so it is not a
/// bind there (`same_statement` checks the text and binds against the library's).
pub fn page_binds<DB: KeysetBackend>(
    tenant: i32,
    seek: Vec<Bind>,
    limit: i64,
    deferred: bool,
) -> Vec<Bind> {
    let limit_bound = DB::KIND != BackendKind::Postgres;
    let mut binds = vec![Bind::Int(tenant)];
    if deferred {
        binds.push(Bind::Int(tenant));
    }
    binds.extend(seek);
    if limit_bound {
        binds.push(Bind::Big(limit));
        if deferred {
            binds.push(Bind::Big(limit));
        }
    }
    binds
}

/// How the library writes the seek of a two-column key on a backend.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SeekForm {
    /// `(lead, id) > ($1, $2)`: one direction, a backend with row values.
    RowValue,
    /// `lead <= ? AND NOT (lead = ? AND id <= ?)`: mixed directions on SQLite.
    Negated,
    /// `lead >= $1 AND (lead > $2 OR (lead = $3 AND id > $4))`: the rest.
    Expanded,
}

impl SeekForm {
    /// The form of the library's default seek on `DB`, for a key whose two columns run in
    /// the same direction (`same`) or not.
    pub fn of<DB: keyset_diesel::KeysetBackend + 'static>(same: bool) -> Self {
        let sqlite =
            std::any::TypeId::of::<DB>() == std::any::TypeId::of::<diesel::sqlite::Sqlite>();
        if DB::ROW_VALUES && same {
            SeekForm::RowValue
        } else if sqlite {
            SeekForm::Negated
        } else {
            SeekForm::Expanded
        }
    }
}

/// The seek's binds for a two-column key written in `form`.
pub fn seek_binds(lead: Bind, id: i64, form: SeekForm) -> Vec<Bind> {
    match form {
        SeekForm::RowValue => vec![lead, Bind::Big(id)],
        SeekForm::Negated => vec![lead, lead, Bind::Big(id)],
        SeekForm::Expanded => vec![lead, lead, lead, Bind::Big(id)],
    }
}

/// `query` written by hand: its SQL text (as `diesel::debug_query` prints it) with `binds`,
/// checked to print exactly as `query` does (the same text and bind values). Returns the
/// printed query and the statement.
///
/// # Panics
/// When the statement does not print as `query`.
pub fn same_statement<DB, Q>(query: &Q, binds: &[Bind]) -> (String, Prepared)
where
    DB: Backend + Default + HasSqlType<Integer> + HasSqlType<BigInt> + HasSqlType<Timestamp>,
    DB::QueryBuilder: Default,
    Q: QueryFragment<DB>,
    i32: ToSql<Integer, DB>,
    i64: ToSql<BigInt, DB>,
    NaiveDateTime: ToSql<Timestamp, DB>,
{
    let debug = diesel::debug_query::<DB, _>(query).to_string();
    let prepared = Prepared::new(&sql_text(&debug), binds);
    assert_eq!(
        diesel::debug_query::<DB, _>(&prepared).to_string(),
        debug,
        "the hand-written SQL and binds are the library's"
    );
    (debug, prepared)
}

/// A hand-written statement: its text split at the bind placeholders, and the binds. Diesel
/// caches it as a prepared statement keyed by its SQL text. `ST` is its SQL type: `Untyped`
/// (rows read by column name, `QueryableByName`), or with [`Prepared::typed`] the select
/// clause's own type (rows read by position, as the library reads its pages).
pub struct Prepared<ST = Untyped> {
    parts: std::sync::Arc<Vec<String>>,
    binds: Vec<Bind>,
    sql_type: PhantomData<fn() -> ST>,
}

impl<ST> Clone for Prepared<ST> {
    fn clone(&self) -> Self {
        Prepared {
            parts: std::sync::Arc::clone(&self.parts),
            binds: self.binds.clone(),
            sql_type: PhantomData,
        }
    }
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
            sql_type: PhantomData,
        }
    }

    /// The same statement with the SQL type `ST` (e.g. `diesel::dsl::AsSelect<Model, DB>`).
    #[allow(dead_code)] // Used by the `instructions` target only.
    pub fn typed<ST>(self) -> Prepared<ST> {
        Prepared {
            parts: self.parts,
            binds: self.binds,
            sql_type: PhantomData,
        }
    }
}

impl<ST> QueryId for Prepared<ST> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<ST> Query for Prepared<ST> {
    type SqlType = ST;
}

impl<DB, ST> QueryFragment<DB> for Prepared<ST>
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

impl<Conn, ST> RunQueryDsl<Conn> for Prepared<ST> {}

/// `<prefix> <query>`: EXPLAIN in front of a Diesel query, keeping its binds (the crate's own,
/// from its plan check).
pub use keyset_diesel::plan::Explain;
