//! The store's tables (created by the crate's migrations) and the statements on them, written
//! once and implemented for each backend.

use diesel::connection::LoadConnection;
use diesel::prelude::*;

use crate::backend::KeysetBackend;

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

/// An export's header: `(scope, row_count, created_at, expires_at)`.
pub(crate) type Header = (String, i64, i64, i64);

/// A backend the [`ExportStore`](super::ExportStore) can keep exports on: the consistent
/// snapshot of [`KeysetBackend`] and the store's statements (implemented for PostgreSQL,
/// MySQL/MariaDB and SQLite, with the crate's migrations applied).
pub trait StoreBackend: KeysetBackend + Sized {
    #[doc(hidden)]
    fn insert_export<C: Connection<Backend = Self>>(
        conn: &mut C,
        id: &str,
        scope: &str,
        created_at: i64,
        expires_at: i64,
    ) -> QueryResult<()>;
    #[doc(hidden)]
    fn insert_rows<C: Connection<Backend = Self>>(
        conn: &mut C,
        id: &str,
        first_seq: i64,
        payloads: Vec<String>,
    ) -> QueryResult<()>;
    #[doc(hidden)]
    fn set_row_count<C: Connection<Backend = Self>>(
        conn: &mut C,
        id: &str,
        count: i64,
    ) -> QueryResult<()>;
    #[doc(hidden)]
    fn find_export<C: LoadConnection<Backend = Self>>(
        conn: &mut C,
        id: &str,
    ) -> QueryResult<Option<Header>>;
    #[doc(hidden)]
    fn load_rows<C: LoadConnection<Backend = Self>>(
        conn: &mut C,
        id: &str,
        after_seq: i64,
        limit: i64,
    ) -> QueryResult<Vec<(i64, String)>>;
    #[doc(hidden)]
    fn set_expires_at<C: Connection<Backend = Self>>(
        conn: &mut C,
        id: &str,
        expires_at: i64,
    ) -> QueryResult<usize>;
    #[doc(hidden)]
    fn expired_ids<C: LoadConnection<Backend = Self>>(
        conn: &mut C,
        now: i64,
    ) -> QueryResult<Vec<String>>;
    #[doc(hidden)]
    fn delete_exports<C: Connection<Backend = Self>>(
        conn: &mut C,
        ids: &[String],
    ) -> QueryResult<(usize, usize)>;
}

macro_rules! store_backend {
    ($backend:ty) => {
        impl StoreBackend for $backend {
            fn insert_export<C: Connection<Backend = Self>>(
                conn: &mut C,
                id: &str,
                scope: &str,
                created_at: i64,
                expires_at: i64,
            ) -> QueryResult<()> {
                diesel::insert_into(keyset_exports::table)
                    .values((
                        keyset_exports::export_id.eq(id),
                        keyset_exports::scope.eq(scope),
                        keyset_exports::row_count.eq(0_i64),
                        keyset_exports::created_at.eq(created_at),
                        keyset_exports::expires_at.eq(expires_at),
                    ))
                    .execute(conn)
                    .map(drop)
            }

            fn insert_rows<C: Connection<Backend = Self>>(
                conn: &mut C,
                id: &str,
                first_seq: i64,
                payloads: Vec<String>,
            ) -> QueryResult<()> {
                let rows: Vec<_> = payloads
                    .into_iter()
                    .zip(first_seq..)
                    .map(|(payload, seq)| {
                        (
                            keyset_export_rows::export_id.eq(id),
                            keyset_export_rows::seq.eq(seq),
                            keyset_export_rows::payload.eq(payload),
                        )
                    })
                    .collect();
                diesel::insert_into(keyset_export_rows::table)
                    .values(rows)
                    .execute(conn)
                    .map(drop)
            }

            fn set_row_count<C: Connection<Backend = Self>>(
                conn: &mut C,
                id: &str,
                count: i64,
            ) -> QueryResult<()> {
                diesel::update(keyset_exports::table.find(id))
                    .set(keyset_exports::row_count.eq(count))
                    .execute(conn)
                    .map(drop)
            }

            fn find_export<C: LoadConnection<Backend = Self>>(
                conn: &mut C,
                id: &str,
            ) -> QueryResult<Option<Header>> {
                keyset_exports::table
                    .find(id)
                    .select((
                        keyset_exports::scope,
                        keyset_exports::row_count,
                        keyset_exports::created_at,
                        keyset_exports::expires_at,
                    ))
                    .first(conn)
                    .optional()
            }

            fn load_rows<C: LoadConnection<Backend = Self>>(
                conn: &mut C,
                id: &str,
                after_seq: i64,
                limit: i64,
            ) -> QueryResult<Vec<(i64, String)>> {
                keyset_export_rows::table
                    .filter(keyset_export_rows::export_id.eq(id))
                    .filter(keyset_export_rows::seq.gt(after_seq))
                    .order(keyset_export_rows::seq.asc())
                    .limit(limit)
                    .select((keyset_export_rows::seq, keyset_export_rows::payload))
                    .load(conn)
            }

            fn set_expires_at<C: Connection<Backend = Self>>(
                conn: &mut C,
                id: &str,
                expires_at: i64,
            ) -> QueryResult<usize> {
                diesel::update(keyset_exports::table.find(id))
                    .set(keyset_exports::expires_at.eq(expires_at))
                    .execute(conn)
            }

            fn expired_ids<C: LoadConnection<Backend = Self>>(
                conn: &mut C,
                now: i64,
            ) -> QueryResult<Vec<String>> {
                keyset_exports::table
                    .filter(keyset_exports::expires_at.le(now))
                    .select(keyset_exports::export_id)
                    .load(conn)
            }

            fn delete_exports<C: Connection<Backend = Self>>(
                conn: &mut C,
                ids: &[String],
            ) -> QueryResult<(usize, usize)> {
                let mut rows = 0;
                let mut exports = 0;
                for id in ids {
                    rows += diesel::delete(
                        keyset_export_rows::table.filter(keyset_export_rows::export_id.eq(id)),
                    )
                    .execute(conn)?;
                    exports += diesel::delete(keyset_exports::table.find(id)).execute(conn)?;
                }
                Ok((exports, rows))
            }
        }
    };
}

#[cfg(feature = "postgres")]
store_backend!(diesel::pg::Pg);
#[cfg(feature = "mysql")]
store_backend!(diesel::mysql::Mysql);
#[cfg(feature = "sqlite")]
store_backend!(diesel::sqlite::Sqlite);
