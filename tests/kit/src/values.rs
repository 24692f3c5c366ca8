//! Key values at each database's precision (1 µs apart, the last UUID byte, 0.0001, one ulp,
//! both zeros and the extremes), the columns' own Rust types ([`UserId`], a newtype key;
//! [`stage::Stage`], a PostgreSQL native enum), and [`pick`], which spreads them over rows with
//! ties.

use crate::at;
use bigdecimal::BigDecimal;
use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, Utc};

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

/// `v`'s neighbour one ulp up (`f64::next_up` for finite positive `v`).
pub fn ulp_up(v: f64) -> f64 {
    f64::from_bits(v.to_bits() + 1)
}

/// Doubles one ulp apart (around 1, 0.1, 2^53 and 1e300), both signed zeros, the smallest
/// subnormal and normal, the extremes; with `infinities` (not on MySQL, which stores none) both
/// infinities.
pub fn f64s(infinities: bool) -> Vec<f64> {
    let mut values = vec![
        0.0,
        -0.0,
        1.0,
        ulp_up(1.0),
        ulp_up(ulp_up(1.0)),
        -1.0,
        -ulp_up(1.0),
        0.1,
        ulp_up(0.1),
        9_007_199_254_740_992.0,
        ulp_up(9_007_199_254_740_992.0),
        1e300,
        ulp_up(1e300),
        f64::MIN_POSITIVE,
        ulp_up(0.0),
        f64::MAX,
        f64::MIN,
    ];
    if infinities {
        values.extend([f64::INFINITY, f64::NEG_INFINITY]);
    }
    values
}

/// Floats one ulp apart (around 1, 0.1 and 16777216), both signed zeros, the smallest
/// subnormal and normal, the extremes; `infinities` as for [`f64s`].
pub fn f32s(infinities: bool) -> Vec<f32> {
    let up = |v: f32| f32::from_bits(v.to_bits() + 1);
    let mut values = vec![
        0.0,
        -0.0,
        1.0,
        up(1.0),
        up(up(1.0)),
        -up(1.0),
        0.1,
        up(0.1),
        16_777_216.0,
        up(16_777_216.0),
        f32::MIN_POSITIVE,
        up(0.0),
        f32::MAX,
        f32::MIN,
    ];
    if infinities {
        values.extend([f32::INFINITY, f32::NEG_INFINITY]);
    }
    values
}

/// Byte strings ordered by their first byte, by a trailing `0x00` or space (no padding on any
/// backend), by the high bit, and ties.
pub fn byte_strings() -> Vec<Vec<u8>> {
    let values: [&[u8]; 12] = [
        b"",
        b"\x00",
        b"\x00\x00",
        b"\x00\x01",
        b"\x01",
        b"\x7f",
        b"\x80",
        b"\xff",
        b"\xff\x00",
        b"a",
        b"A",
        b"a ",
    ];
    values.iter().map(|v| v.to_vec()).collect()
}

/// Times of day 1 µs apart, half a second apart, and at both ends of the day.
pub fn times_of_day() -> Vec<NaiveTime> {
    [
        (0, 0),
        (0, 1),
        (0, 500_000),
        (43_200, 0),
        (43_200, 1),
        (34_200, 250_000),
        (86_399, 999_999),
    ]
    .iter()
    .map(|&(secs, micros)| {
        NaiveTime::from_num_seconds_from_midnight_opt(secs, micros * 1_000).expect("valid time")
    })
    .collect()
}

/// A user newtype key: Diesel's own derives and delegating `ToSql` / `FromSql` for the
/// binding, `#[derive(KeyValue)]` for the key value.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    diesel::expression::AsExpression,
    diesel::deserialize::FromSqlRow,
    keyset_diesel::query::KeyValue,
)]
#[diesel(sql_type = diesel::sql_types::BigInt)]
pub struct UserId(pub i64);

impl<DB> diesel::serialize::ToSql<diesel::sql_types::BigInt, DB> for UserId
where
    DB: diesel::backend::Backend,
    i64: diesel::serialize::ToSql<diesel::sql_types::BigInt, DB>,
{
    fn to_sql<'b>(
        &'b self,
        out: &mut diesel::serialize::Output<'b, '_, DB>,
    ) -> diesel::serialize::Result {
        self.0.to_sql(out)
    }
}

impl<DB> diesel::deserialize::FromSql<diesel::sql_types::BigInt, DB> for UserId
where
    DB: diesel::backend::Backend,
    i64: diesel::deserialize::FromSql<diesel::sql_types::BigInt, DB>,
{
    fn from_sql(bytes: DB::RawValue<'_>) -> diesel::deserialize::Result<Self> {
        i64::from_sql(bytes).map(UserId)
    }
}

/// [`UserId`]s with ties and both ends of `i64`.
pub fn user_ids() -> Vec<UserId> {
    [i64::MIN, -3, 0, 1, 2, i64::MAX]
        .into_iter()
        .map(UserId)
        .collect()
}

/// `BIGINT UNSIGNED` values on both sides of `i64::MAX`.
pub fn u64s() -> Vec<u64> {
    let half = i64::MAX as u64;
    vec![0, 1, half, half + 1, half + 2, u64::MAX - 1, u64::MAX]
}

// ---------------------------------------------------------------------------------------------
// The `time` crate's key types, over `time_rows` (written by the time crate's own Diesel
// encoding).

/// `time::PrimitiveDateTime`s 1 µs apart, a second apart, at fractions SQLite text writes with
/// one, two and six digits (`.5`, `.25`, `.000001`: the time crate trims trailing zeros), and
/// across midnight.
pub fn primitive_datetimes() -> Vec<time::PrimitiveDateTime> {
    let base = time::PrimitiveDateTime::new(
        time::Date::from_calendar_date(2026, time::Month::October, 10).expect("valid date"),
        time::Time::from_hms(12, 0, 0).expect("valid time"),
    );
    [
        (0, 0),
        (0, 1),
        (0, 2),
        (0, 999_999),
        (0, 500_000),
        (0, 250_000),
        (0, 50_000),
        (1, 0),
        (43_200, 0),
        (-43_200, 123_456),
    ]
    .iter()
    .map(|&(secs, micros)| {
        base + time::Duration::seconds(secs) + time::Duration::microseconds(micros)
    })
    .collect()
}

/// The instants of [`primitive_datetimes`] at offsets UTC, +05:45 and -08:00 in turn: the
/// offset is not part of the key, the instant is.
pub fn offset_datetimes() -> Vec<time::OffsetDateTime> {
    let offsets = [(0, 0), (5, 45), (-8, 0)];
    primitive_datetimes()
        .into_iter()
        .enumerate()
        .map(|(i, t)| {
            let (h, m) = offsets[i % offsets.len()];
            let offset = time::UtcOffset::from_hms(h, m, 0).expect("valid offset");
            t.assume_utc().to_offset(offset)
        })
        .collect()
}

/// `time::Date`s a day apart, a year apart and far apart.
pub fn time_dates() -> Vec<time::Date> {
    [
        (1970, 1, 1),
        (2026, 10, 10),
        (2026, 10, 11),
        (1999, 12, 31),
        (1000, 1, 1),
    ]
    .iter()
    .map(|&(y, m, d)| {
        let month = time::Month::try_from(m).expect("valid month");
        time::Date::from_calendar_date(y, month, d).expect("valid date")
    })
    .collect()
}

/// `time::Time`s 1 µs apart, at fractions of one and two digits, at both ends of the day.
pub fn time_times() -> Vec<time::Time> {
    primitive_datetimes()
        .into_iter()
        .map(|t| t.time())
        .chain([
            time::Time::MIDNIGHT,
            time::Time::from_hms_micro(23, 59, 59, 999_999).expect("valid time"),
        ])
        .collect()
}

/// The whole seconds of [`time_times`], without repeats.
pub fn whole_second_times() -> Vec<time::Time> {
    let mut times: Vec<time::Time> = time_times()
        .into_iter()
        .map(|t| t.replace_nanosecond(0).expect("0 ns is valid"))
        .collect();
    times.sort();
    times.dedup();
    times
}

/// A PostgreSQL native enum key: `CREATE TYPE stage AS ENUM ('todo', 'doing', 'done')`, Diesel's
/// usual mapping, `#[derive(KeyValue)]` on the Rust enum. Used by the native enum walks
/// (tests/postgres/tests/postgres/native_enum.rs) and the oracle's random pool on PostgreSQL.
#[cfg(feature = "postgres")]
pub mod stage {
    use diesel::deserialize::{self, FromSql};
    use diesel::pg::{Pg, PgValue};
    use diesel::serialize::{self, IsNull, Output, ToSql};
    use std::io::Write;

    /// The SQL type `stage`.
    #[derive(diesel::sql_types::SqlType, diesel::query_builder::QueryId)]
    #[diesel(postgres_type(name = "stage"))]
    pub struct StageType;

    /// Declared in another order than the `CREATE TYPE` (and than the labels' text order): the
    /// key's order is the database's, never the Rust declaration's.
    #[derive(
        Debug,
        Clone,
        Copy,
        PartialEq,
        Eq,
        diesel::expression::AsExpression,
        diesel::deserialize::FromSqlRow,
        keyset_diesel::query::KeyValue,
    )]
    #[diesel(sql_type = StageType)]
    pub enum Stage {
        Done,
        Todo,
        Doing,
    }

    impl Stage {
        pub const ALL: [Stage; 3] = [Stage::Done, Stage::Todo, Stage::Doing];
        /// The enum label as PostgreSQL spells it.
        pub fn label(self) -> &'static [u8] {
            match self {
                Stage::Todo => b"todo",
                Stage::Doing => b"doing",
                Stage::Done => b"done",
            }
        }
    }

    impl ToSql<StageType, Pg> for Stage {
        fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, Pg>) -> serialize::Result {
            out.write_all(self.label())?;
            Ok(IsNull::No)
        }
    }

    impl FromSql<StageType, Pg> for Stage {
        fn from_sql(bytes: PgValue<'_>) -> deserialize::Result<Self> {
            Stage::ALL
                .into_iter()
                .find(|s| s.label() == bytes.as_bytes())
                .ok_or_else(|| format!("not a stage: {:?}", bytes.as_bytes()).into())
        }
    }
}
