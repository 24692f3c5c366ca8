//! The store's tables (created by the crate's migrations) and the statements on them, written
//! once and implemented for each backend.

use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::serialize::ToSql;
use diesel::sql_types::{BigInt, Nullable, Text};
use diesel::{ExpressionMethods, OptionalExtension, QueryDsl, QueryResult};

use crate::backend::{BackendKind, KeysetBackend};

diesel::table! {
    /// One row per stored export.
    keyset_exports (export_id) {
        export_id -> Text,
        scope -> Text,
        row_count -> BigInt,
        created_at -> BigInt,
        expires_at -> BigInt,
    }
}

diesel::table! {
    /// The rows of the stored exports, by position.
    keyset_export_rows (export_id, seq) {
        export_id -> Text,
        seq -> BigInt,
        payload -> Text,
    }
}

/// `INSERT INTO keyset_export_rows (export_id, seq, payload) VALUES (..), (..)`: one page of
/// an export's rows in one statement, positions `first_seq..`, on every backend and both
/// connection kinds (Diesel writes a batch insert of a `Vec` row by row on SQLite, and not at
/// all through diesel-async there).
struct InsertRows<'a> {
    id: &'a str,
    /// `(seq, payload)`, in order.
    rows: Vec<(i64, String)>,
}

impl<DB: diesel::backend::Backend> QueryFragment<DB> for InsertRows<'_>
where
    str: ToSql<Text, DB>,
    i64: ToSql<BigInt, DB>,
    String: ToSql<Text, DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        out.unsafe_to_cache_prepared();
        out.push_sql("INSERT INTO ");
        out.push_identifier("keyset_export_rows")?;
        out.push_sql(" (");
        out.push_identifier("export_id")?;
        out.push_sql(", ");
        out.push_identifier("seq")?;
        out.push_sql(", ");
        out.push_identifier("payload")?;
        out.push_sql(") VALUES ");
        for (n, (seq, payload)) in self.rows.iter().enumerate() {
            out.push_sql(if n == 0 { "(" } else { ", (" });
            out.push_bind_param::<Text, str>(self.id)?;
            out.push_sql(", ");
            out.push_bind_param::<BigInt, i64>(seq)?;
            out.push_sql(", ");
            out.push_bind_param::<Text, String>(payload)?;
            out.push_sql(")");
        }
        Ok(())
    }
}

impl QueryId for InsertRows<'_> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl diesel::query_dsl::RunQueryDslSupport for InsertRows<'_> {}

/// A page of an export's rows under a byte budget, in one statement: the positions after
/// `after_seq` (at most `limit`, the page size + 1), each with its payload when it belongs to
/// the page and `NULL` past it. A row belongs to the page when it is among the first
/// `page_size` and the payloads up to and including it add up to at most `max_bytes` (the
/// first row always belongs: a row bigger than the budget comes alone). The sizes are summed
/// over the positions alone (a window over `seq` and the payload's stored size), and only the
/// rows that belong are joined back for their payload, so a payload past the budget is never
/// sent to the client.
///
/// ```sql
/// SELECT w.seq, r.payload FROM (
///     SELECT s.seq, ROW_NUMBER() OVER (ORDER BY s.seq) AS row_n,
///         SUM(s.row_bytes) OVER (ORDER BY s.seq ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS bytes_upto
///     FROM (SELECT seq, <size of payload> AS row_bytes FROM keyset_export_rows
///           WHERE export_id = ? AND seq > ? ORDER BY seq LIMIT ?) s
/// ) w
/// LEFT JOIN keyset_export_rows r ON r.export_id = ? AND r.seq = w.seq
///     AND w.row_n <= ? AND (w.row_n = 1 OR w.bytes_upto <= ?)
/// ORDER BY w.seq
/// ```
///
/// The size is `octet_length` on PostgreSQL and MySQL/MariaDB and `length(CAST(.. AS BLOB))`
/// on SQLite: the payload's bytes, not its characters.
#[doc(hidden)]
pub struct PageRows<'a> {
    pub(crate) id: &'a str,
    pub(crate) after_seq: i64,
    pub(crate) limit: i64,
    pub(crate) page_size: i64,
    pub(crate) max_bytes: i64,
}

impl<DB> QueryFragment<DB> for PageRows<'_>
where
    DB: KeysetBackend,
    str: ToSql<Text, DB>,
    i64: ToSql<BigInt, DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        let (size_open, size_close) = match DB::KIND {
            BackendKind::Postgres => ("CAST(octet_length(", ") AS BIGINT)"),
            BackendKind::Mysql => ("CAST(OCTET_LENGTH(", ") AS SIGNED)"),
            BackendKind::Sqlite => ("length(CAST(", " AS BLOB))"),
        };
        out.push_sql(
            "SELECT w.seq, r.payload FROM (SELECT s.seq, ROW_NUMBER() OVER (ORDER BY s.seq) \
             AS row_n, SUM(s.row_bytes) OVER (ORDER BY s.seq ROWS BETWEEN UNBOUNDED PRECEDING \
             AND CURRENT ROW) AS bytes_upto FROM (SELECT seq, ",
        );
        out.push_sql(size_open);
        out.push_identifier("payload")?;
        out.push_sql(size_close);
        out.push_sql(" AS row_bytes FROM ");
        out.push_identifier("keyset_export_rows")?;
        out.push_sql(" WHERE export_id = ");
        out.push_bind_param::<Text, str>(self.id)?;
        out.push_sql(" AND seq > ");
        out.push_bind_param::<BigInt, i64>(&self.after_seq)?;
        out.push_sql(" ORDER BY seq LIMIT ");
        out.push_bind_param::<BigInt, i64>(&self.limit)?;
        out.push_sql(") s) w LEFT JOIN ");
        out.push_identifier("keyset_export_rows")?;
        out.push_sql(" r ON r.export_id = ");
        out.push_bind_param::<Text, str>(self.id)?;
        out.push_sql(" AND r.seq = w.seq AND w.row_n <= ");
        out.push_bind_param::<BigInt, i64>(&self.page_size)?;
        out.push_sql(" AND (w.row_n = 1 OR w.bytes_upto <= ");
        out.push_bind_param::<BigInt, i64>(&self.max_bytes)?;
        out.push_sql(") ORDER BY w.seq");
        Ok(())
    }
}

impl QueryId for PageRows<'_> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl Query for PageRows<'_> {
    type SqlType = (BigInt, Nullable<Text>);
}

impl diesel::query_dsl::RunQueryDslSupport for PageRows<'_> {}

/// Rows per `INSERT` of [`InsertRows`]: 3 binds each, 999 binds at most (SQLite before 3.32).
const INSERT_ROWS: usize = 333;
/// Payload bytes after which an `INSERT` of [`InsertRows`] is sent (plus the row that crossed
/// it: a row is at most what one page row serializes to).
const INSERT_BYTES: usize = 4 << 20;

/// An export's header: `(scope, row_count, created_at, expires_at)`.
pub(crate) type Header = (String, i64, i64, i64);

/// The store's statements on one backend, each a function of the connection; `$($aw)*` is
/// `.await` in the async form and nothing in the blocking one, so both forms run the same
/// statements, written once.
macro_rules! store_statements {
    ($mode:ident, [$($aw:tt)*]) => {
        store_fn!($mode, insert_export(conn, id: &str, scope: &str, created_at: i64, expires_at: i64) -> () {
            diesel::insert_into(keyset_exports::table)
                .values((
                    keyset_exports::export_id.eq(id),
                    keyset_exports::scope.eq(scope),
                    keyset_exports::row_count.eq(0_i64),
                    keyset_exports::created_at.eq(created_at),
                    keyset_exports::expires_at.eq(expires_at),
                ))
                .execute(conn)
                $($aw)*
                .map(drop)
        });

        store_fn!($mode, insert_rows(conn, id: &str, first_seq: i64, payloads: Vec<String>) -> () {
            // One statement per chunk: at most `INSERT_ROWS` rows (3 binds each: under 999,
            // SQLite's limit before 3.32) and about `INSERT_BYTES` of payload (MariaDB's
            // default `max_allowed_packet` is 16 MiB).
            let mut rows = Vec::new();
            let mut bytes = 0;
            let mut seqs = first_seq..;
            let mut payloads = payloads.into_iter().peekable();
            while let Some(payload) = payloads.next() {
                bytes += payload.len();
                rows.push((seqs.next().unwrap_or(i64::MAX), payload));
                let full = rows.len() >= INSERT_ROWS || bytes >= INSERT_BYTES;
                if full || payloads.peek().is_none() {
                    let chunk = std::mem::take(&mut rows);
                    bytes = 0;
                    InsertRows { id, rows: chunk }.execute(&mut *conn) $($aw)* ?;
                }
            }
            Ok(())
        });

        store_fn!($mode, set_row_count(conn, id: &str, count: i64) -> () {
            diesel::update(keyset_exports::table.find(id))
                .set(keyset_exports::row_count.eq(count))
                .execute(conn)
                $($aw)*
                .map(drop)
        });

        store_fn!($mode, find_export(conn, id: &str) -> Option<Header> {
            keyset_exports::table
                .find(id)
                .select((
                    keyset_exports::scope,
                    keyset_exports::row_count,
                    keyset_exports::created_at,
                    keyset_exports::expires_at,
                ))
                .first(conn)
                $($aw)*
                .optional()
        });

        store_fn!($mode, load_rows(conn, rows: PageRows<'_>) -> Vec<(i64, Option<String>)> {
            rows.load(conn) $($aw)*
        });

        store_fn!($mode, expire_by(conn, id: &str, now: i64) -> usize {
            // `MIN(expires_at, now)`: ending an export never moves its end later (a host whose
            // clock runs ahead must not make an expired export readable again).
            use diesel::dsl::case_when;
            diesel::update(keyset_exports::table.find(id))
                .set(keyset_exports::expires_at.eq(
                    case_when(keyset_exports::expires_at.lt(now), keyset_exports::expires_at)
                        .otherwise(now),
                ))
                .execute(conn)
                $($aw)*
        });

        store_fn!($mode, expired_ids(conn, now: i64) -> Vec<String> {
            keyset_exports::table
                .filter(keyset_exports::expires_at.le(now))
                .select(keyset_exports::export_id)
                .load(conn)
                $($aw)*
        });

        store_fn!($mode, delete_exports(conn, ids: &[String]) -> (usize, usize) {
            let mut rows = 0;
            let mut exports = 0;
            for id in ids {
                rows += diesel::delete(
                    keyset_export_rows::table.filter(keyset_export_rows::export_id.eq(id)),
                )
                .execute(conn)
                $($aw)*?;
                exports += diesel::delete(keyset_exports::table.find(id)).execute(conn) $($aw)*?;
            }
            Ok((exports, rows))
        });
    };
}

/// One statement function of [`store_statements!`]: in the trait (`decl_*`: its signature)
/// or in a backend's impl (its body), blocking or async.
macro_rules! store_fn {
    (decl_blocking, $name:ident($conn:ident $(, $arg:ident: $ty:ty)*) -> $out:ty $body:block) => {
        #[doc(hidden)]
        fn $name<C: diesel::connection::LoadConnection<Backend = Self>>(
            $conn: &mut C $(, $arg: $ty)*
        ) -> QueryResult<$out>;
    };
    (blocking, $name:ident($conn:ident $(, $arg:ident: $ty:ty)*) -> $out:ty $body:block) => {
        fn $name<C: diesel::connection::LoadConnection<Backend = Self>>(
            $conn: &mut C $(, $arg: $ty)*
        ) -> QueryResult<$out> {
            use diesel::RunQueryDsl;
            $body
        }
    };
    (decl_async, $name:ident($conn:ident $(, $arg:ident: $ty:ty)*) -> $out:ty $body:block) => {
        #[doc(hidden)]
        fn $name<C: diesel_async::AsyncConnectionCore<Backend = Self> + Send>(
            $conn: &mut C $(, $arg: $ty)*
        ) -> impl std::future::Future<Output = QueryResult<$out>> + Send;
    };
    (async, $name:ident($conn:ident $(, $arg:ident: $ty:ty)*) -> $out:ty $body:block) => {
        fn $name<C: diesel_async::AsyncConnectionCore<Backend = Self> + Send>(
            $conn: &mut C $(, $arg: $ty)*
        ) -> impl std::future::Future<Output = QueryResult<$out>> + Send {
            use diesel_async::RunQueryDsl;
            async move $body
        }
    };
}

/// A backend the [`ExportStore`](super::ExportStore) can keep exports on: the consistent
/// snapshot of [`KeysetBackend`] and the store's statements (implemented for PostgreSQL,
/// MySQL/MariaDB and SQLite, with the crate's migrations applied).
pub trait StoreBackend: KeysetBackend + Sized {
    store_statements!(decl_blocking, []);
}

/// The store's statements on diesel-async connections (the same statements as
/// [`StoreBackend`]'s): what [`async_::ExportStore`](crate::async_::ExportStore) runs.
#[cfg(feature = "diesel-async")]
pub trait AsyncStoreBackend: StoreBackend {
    store_statements!(decl_async, []);
}

macro_rules! store_backend {
    ($backend:ty) => {
        impl StoreBackend for $backend {
            store_statements!(blocking, []);
        }

        #[cfg(feature = "diesel-async")]
        impl AsyncStoreBackend for $backend {
            store_statements!(async, [.await]);
        }
    };
}

#[cfg(feature = "postgres")]
store_backend!(diesel::pg::Pg);
#[cfg(feature = "mysql")]
store_backend!(diesel::mysql::Mysql);
#[cfg(feature = "sqlite")]
store_backend!(diesel::sqlite::Sqlite);
