//! One-column keysets (plus the `id` tie-breaker) over `typed_rows`, one per supported key
//! type. The table's Diesel schema differs per backend (`Timestamptz` vs `TimestamptzSqlite`,
//! `Uuid`), so each backend file declares it and its models with `key_model!`; the values
//! come from here, adjacent at the database's precision (1 µs apart, last UUID byte, 0.0001).

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
