//! One-column keysets (plus the `id` tie-breaker) over `typed_rows`, one per supported key
//! type, and the test that pages each of them exactly: [`every_key_type_pages_exactly`].
//!
//! The table's columns differ per backend (`Timestamptz` vs `TimestamptzSqlite`, `Uuid` on
//! PostgreSQL only, no `timestamptz` on MySQL), so `typed_backend!` declares the table, its
//! insertable row and its models from one column list per backend, in the modules
//! [`sqlite`], [`postgres`] and [`mysql`] (each behind its feature). The values come from the
//! functions here, adjacent at the database's precision (1 µs apart, last UUID byte, 0.0001).

use bigdecimal::BigDecimal;
use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};

use crate::at;

/// A model `$name` over `$table` keyed by `$col $dir, id $iddir`, with [`crate::models::Oracle`]
/// and [`crate::models::Walk`] on one backend.
#[macro_export]
macro_rules! key_model {
    ($name:ident, $table:ident, $col:ident: $ty:ty => $dir:ident, id $iddir:ident, $feature:literal, $conn:ty) => {
        #[derive(Debug, Clone, PartialEq, diesel::Queryable, diesel::Selectable, keyset_diesel::Keyset)]
        #[diesel(table_name = $table)]
        pub struct $name {
            #[keyset($dir)]
            pub $col: $ty,
            #[keyset($iddir, unique)]
            pub id: i64,
        }

        impl $crate::models::Oracle for $name {
            const ORDER: &'static [$crate::models::OrderTerm] =
                &[(stringify!($col), stringify!($dir), None), ("id", stringify!($iddir), None)];
            const TABLE: &'static str = stringify!($table);
            const FILTER_COLUMN: &'static str = "tenant";
            fn id(&self) -> i64 {
                self.id
            }
        }

        $crate::impl_walk!(@one $feature, $conn, $name, $table, i32,
            |q, f| q.filter($table::tenant.eq(f)));
    };
}

/// Value number `(id * step) % len` of `values`: columns vary independently, with ties.
pub fn pick<T: Clone>(values: &[T], id: i64, step: i64) -> T {
    values[(id * step).rem_euclid(values.len() as i64) as usize].clone()
}

pub fn i16s() -> Vec<i16> {
    vec![i16::MIN, -1, 0, 1, i16::MAX]
}

pub fn i32s() -> Vec<i32> {
    vec![i32::MIN, -7, 0, 7, i32::MAX]
}

pub fn texts() -> Vec<String> {
    ["", "a", "a ", "ab", "b", "zz", "Ω"]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

/// Instants 1 µs apart, a second apart, and across midnight.
pub fn naive_datetimes() -> Vec<NaiveDateTime> {
    vec![
        at(0, 0),
        at(0, 1),
        at(0, 2),
        at(0, 999_999),
        at(1, 0),
        at(43_200, 0),
        at(-43_200, 123_456),
    ]
}

pub fn datetimes_utc() -> Vec<DateTime<Utc>> {
    naive_datetimes().into_iter().map(|t| t.and_utc()).collect()
}

pub fn dates() -> Vec<NaiveDate> {
    [(1970, 1, 1), (2026, 10, 10), (2026, 10, 11), (1999, 12, 31)]
        .iter()
        .map(|&(y, m, d)| NaiveDate::from_ymd_opt(y, m, d).expect("valid date"))
        .collect()
}

/// UUIDs whose order is decided by the first byte, the last byte, or ties.
pub fn uuids() -> Vec<uuid::Uuid> {
    [0u128, 1, 0xff, 1 << 120, u128::MAX, (0x80 << 120) | 1]
        .iter()
        .map(|&v| uuid::Uuid::from_u128(v))
        .collect()
}

/// Decimals 0.0001 apart and far apart, at NUMERIC(12, 4)'s scale.
pub fn decimals() -> Vec<BigDecimal> {
    [
        "-1.5000",
        "0.0000",
        "0.0001",
        "0.0002",
        "1.0000",
        "99999999.9999",
    ]
    .iter()
    .map(|s| s.parse().expect("valid decimal"))
    .collect()
}

/// Walks one-column model `M` over `rows` rows of tenant 0 with page sizes 1, 4 and 7, boxed
/// and not, against the oracle, and sends every cursor through a token round trip.
pub fn check_typed<M, C>(conn: &mut C, rows: usize)
where
    M: crate::models::Walk<C, Filter = i32> + crate::models::Oracle,
    C: crate::TestDb,
{
    use crate::oracle::{assert_matches, token_round_trips, walk_and_compare};
    for page_size in [1u32, 4, 7] {
        for boxed in [false, true] {
            let compared = walk_and_compare::<M, C>(conn, &0, page_size, boxed);
            assert_eq!(compared.walked.len(), rows);
            let context = format!("{} page size {page_size}", std::any::type_name::<M>());
            assert_matches(&compared, &context);
        }
        let cursors = token_round_trips::<M, C>(conn, &0, page_size);
        assert_eq!(cursors, (rows - 1) / page_size as usize);
    }
}

/// Rows in `typed_rows` for [`every_key_type_pages_exactly`].
pub const TYPED_ROWS: i64 = 90;

/// A backend with a `typed_rows` table and its one-column models.
pub trait TypedKeys: crate::TestDb {
    /// Inserts [`TYPED_ROWS`] rows of tenant 0, every column picked from its values with its
    /// own step (so columns vary independently, with ties); returns the `k_ts` values written,
    /// by id.
    fn insert_typed_rows(&mut self) -> Vec<NaiveDateTime>;
    /// Runs [`check_typed`] for every model of this backend.
    fn check_every_key_model(&mut self);
    /// The stored `k_ts` values, by id.
    fn stored_timestamps(&mut self) -> Vec<NaiveDateTime>;
}

/// Every key type pages exactly, walked with several page sizes, boxed and not, through
/// tokens; and `NaiveDateTime` keys 1 µs apart are read back as written (MySQL: the column is
/// `DATETIME(6)`).
pub fn every_key_type_pages_exactly<C: TypedKeys>() {
    let mut db = C::open();
    let written = db.insert_typed_rows();
    db.check_every_key_model();
    assert_eq!(
        db.stored_timestamps(),
        written,
        "timestamps to the microsecond"
    );
}

/// Declares, in module `$module` behind feature `$feature`, the `typed_rows` table with the
/// columns listed, `NewTyped`, the models named after each column (`key_model!`) and
/// [`TypedKeys`] for `$conn`. A column line is
/// `name -> SqlType: RustType = values(), step n, [Model dir id dir, ...];`.
macro_rules! typed_backend {
    (
        $module:ident, $feature:literal, $conn:ty;
        $($col:ident -> $sql:ident: $ty:ty = $values:expr, step $step:literal,
            [$($model:ident $dir:ident id $iddir:ident),* $(,)?];)*
    ) => {
        #[doc = concat!("`typed_rows` and its models on ", $feature, ".")]
        #[cfg(feature = $feature)]
        pub mod $module {
            #[allow(unused_imports)]
            use super::*;

            diesel::table! {
                typed_rows (id) {
                    id -> BigInt,
                    tenant -> Integer,
                    $($col -> $sql,)*
                }
            }

            /// A row of `typed_rows`.
            #[derive(diesel::Insertable)]
            #[diesel(table_name = typed_rows)]
            pub struct NewTyped {
                pub id: i64,
                pub tenant: i32,
                $(pub $col: $ty,)*
            }

            $($(
                $crate::key_model!($model, typed_rows, $col: $ty => $dir, id $iddir, $feature, $conn);
            )*)*

            impl TypedKeys for $conn {
                fn insert_typed_rows(&mut self) -> Vec<NaiveDateTime> {
                    use diesel::RunQueryDsl;
                    let rows: Vec<NewTyped> = (0..TYPED_ROWS)
                        .map(|id| NewTyped {
                            id,
                            tenant: 0,
                            $($col: pick(&$values, id, $step),)*
                        })
                        .collect();
                    diesel::insert_into(typed_rows::table)
                        .values(&rows)
                        .execute(self)
                        .expect("insert typed rows");
                    rows.iter().map(|r| r.k_ts).collect()
                }

                fn check_every_key_model(&mut self) {
                    $($(
                        check_typed::<$model, _>(self, TYPED_ROWS as usize);
                    )*)*
                }

                fn stored_timestamps(&mut self) -> Vec<NaiveDateTime> {
                    use diesel::prelude::*;
                    typed_rows::table
                        .select(typed_rows::k_ts)
                        .order(typed_rows::id)
                        .load(self)
                        .expect("read k_ts")
                }
            }
        }
    };
}

typed_backend! {
    sqlite, "sqlite", diesel::SqliteConnection;
    k_i16 -> SmallInt: i16 = i16s(), step 1, [I16Asc asc id asc, I16Desc desc id desc];
    k_i32 -> Integer: i32 = i32s(), step 2, [I32Desc desc id asc];
    k_bool -> Bool: bool = [false, true], step 1, [BoolAsc asc id desc];
    k_text -> Text: String = texts(), step 3, [TextDesc desc id asc];
    k_ts -> Timestamp: NaiveDateTime = naive_datetimes(), step 5,
        [TsAsc asc id asc, TsDesc desc id asc];
    k_tstz -> TimestamptzSqlite: DateTime<Utc> = datetimes_utc(), step 3,
        [TstzAsc asc id asc, TstzDesc desc id desc];
    k_date -> Date: NaiveDate = dates(), step 7, [DateDesc desc id asc];
    k_dec -> Numeric: BigDecimal = decimals(), step 7, [DecAsc asc id desc, DecDesc desc id asc];
}

typed_backend! {
    postgres, "postgres", diesel::PgConnection;
    k_i16 -> SmallInt: i16 = i16s(), step 1, [I16Asc asc id asc, I16Desc desc id desc];
    k_i32 -> Integer: i32 = i32s(), step 2, [I32Desc desc id asc];
    k_bool -> Bool: bool = [false, true], step 1, [BoolAsc asc id desc];
    k_text -> Text: String = texts(), step 3, [TextDesc desc id asc];
    k_ts -> Timestamp: NaiveDateTime = naive_datetimes(), step 5,
        [TsAsc asc id asc, TsDesc desc id asc];
    k_tstz -> Timestamptz: DateTime<Utc> = datetimes_utc(), step 3,
        [TstzAsc asc id asc, TstzDesc desc id desc];
    k_date -> Date: NaiveDate = dates(), step 7, [DateDesc desc id asc];
    k_uuid -> Uuid: uuid::Uuid = uuids(), step 5, [UuidAsc asc id asc, UuidDesc desc id desc];
    k_dec -> Numeric: BigDecimal = decimals(), step 7, [DecAsc asc id desc, DecDesc desc id asc];
}

typed_backend! {
    mysql, "mysql", diesel::MysqlConnection;
    k_i16 -> SmallInt: i16 = i16s(), step 1, [I16Asc asc id asc, I16Desc desc id desc];
    k_i32 -> Integer: i32 = i32s(), step 2, [I32Desc desc id asc];
    k_bool -> Bool: bool = [false, true], step 1, [BoolAsc asc id desc];
    k_text -> Text: String = texts(), step 3, [TextDesc desc id asc];
    k_ts -> Datetime: NaiveDateTime = naive_datetimes(), step 5,
        [TsAsc asc id asc, TsDesc desc id asc];
    k_date -> Date: NaiveDate = dates(), step 7, [DateDesc desc id asc];
    k_dec -> Numeric: BigDecimal = decimals(), step 7, [DecAsc asc id desc, DecDesc desc id asc];
}
