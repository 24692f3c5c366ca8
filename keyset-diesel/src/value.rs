//! Key values: the Rust types a key column may have, with a lossless representation for tokens.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::kind::BackendKind;

/// A key value a token cannot turn back into its Rust type (for example a timestamp out of
/// chrono's range, or decimal text that does not parse).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid key value: {0}")]
pub struct InvalidKeyValue(pub &'static str);

/// A Rust type usable as one key column's value.
///
///  | Rust type | type tag | token representation |
///  |---|---|---|
///  | `i16`, `i32`, `i64` | `i16`, `i32`, `i64` | the integer |
///  | `i8`, `u8`, `u16`, `u32`, `u64` (MySQL `TINYINT`, `Unsigned<..>`) | `i8`, `u8`, `u16`, `u32`, `u64` | the integer (all of `u64`) |
///  | `f32`, `f64` | `f32`, `f64` | the IEEE 754 bits (`to_bits`): exact, `-0.0` kept |
///  | `bool` | `bool` | the boolean |
///  | `String` | `text` | the exact string |
///  | `Vec<u8>` (`Binary`: `bytea`, `BLOB`, `VARBINARY`) | `bytes` | the exact bytes |
///  | `chrono::DateTime<Utc>` (feature `chrono`) | `datetime_utc` | `[seconds since 1970-01-01T00:00:00Z, nanoseconds]` |
///  | `chrono::NaiveDateTime` (feature `chrono`) | `naive_datetime` | `[seconds since 1970-01-01T00:00:00, nanoseconds]` |
///  | `chrono::NaiveDate` (feature `chrono`) | `date` | days since 0001-01-01 (CE day number) |
///  | `chrono::NaiveTime` (feature `chrono`) | `time` | `[seconds since midnight, nanoseconds]` |
///  | `time::OffsetDateTime` (feature `time`) | `datetime_utc` | as `DateTime<Utc>`: the instant (the offset is not kept: Diesel binds the instant) |
///  | `time::PrimitiveDateTime` (feature `time`) | `naive_datetime` | as `NaiveDateTime` |
///  | `time::Date` (feature `time`) | `date` | as `NaiveDate` |
///  | `time::Time` (feature `time`) | `time` | as `NaiveTime`; a cursor Diesel 2.3 cannot bind is refused ([`KeyValue::check_bind`]): on MySQL any fraction of a second, on SQLite 1 to 999 ns |
///  | `uuid::Uuid` (feature `uuid`) | `uuid` | the 16 bytes as one big-endian `u128` |
///  | `bigdecimal::BigDecimal` (feature `numeric`) | `decimal` | `[digits, scale]`: the exact value `digits × 10^-scale` |
///  | a fieldless enum with `#[derive(KeyValue)]` (a PostgreSQL native enum) | `enum<Name>` | the variant's Rust name |
///  | `Option<T>` for any of these | `nullable<tag>` | `null` or the representation of `T` |
///
///  Timestamps keep nanoseconds, so a key read from the database is bound back exactly as it
///  was read, at whatever precision the database keeps (microseconds on PostgreSQL and
///  `DATETIME(6)`; the stored text on SQLite, re-encoded by Diesel in the same `%F %T%.f` form).
///
///  The `time` crate's types bind the same SQL values as their chrono counterparts, so they share
///  their tags and representations: a token made by a chrono model decodes in a `time` model
///  of the same key, and the other way round. On SQLite, whose timestamps are text, the two
///  crates write fractions of a second differently (chrono `12:00:00.500`, time `12:00:00.5`):
///  a key compares exactly only against text written the way its own type writes it, so keep
///  each SQLite date/time key column written by one of the two crates (see the README's limits).
///
///  Floating-point keys (`f64` for `Double`: PostgreSQL `double precision`, MySQL `DOUBLE`,
///  SQLite `REAL`; `f32` for `Float`: `real`, `FLOAT`) follow these rules:
///  * the token keeps the value's exact bits, so a cursor binds back exactly the value read,
///    and values one ulp apart page apart;
///  * `-0.0` and `0.0` are equal, as in SQL: rows holding either tie, and the tie-breaker
///    orders them;
///  * NaN is never a key value ([`KeyValue::check_key`] refuses it): SQLite stores a NaN as
///    NULL, MySQL refuses it, and PostgreSQL sorts it after every number, so no cursor may
///    hold one. The refusal is typed wherever a NaN meets the keyset: a fetched row whose key
///    is NaN (PostgreSQL) fails its page with [`crate::KeysetError::InvalidRowKey`]; a cursor
///    built by hand with a NaN fails `load_page` with [`crate::KeysetError::InvalidCursorKey`]
///    before any SQL runs, and fails `CursorCodec::encode` with `EncodeError::Key`; a token
///    whose key bits are a NaN decodes to `CursorError::Malformed`;
///  * infinities are ordinary values (PostgreSQL and SQLite store them; MySQL refuses them).
///
/// # Newtypes
///
/// A newtype around one of these (`struct UserId(i64)`) derives it: `#[derive(KeyValue)]`
/// (this path names both the trait and the derive) makes the newtype's key value its field's,
/// with the same token representation, type tag, NaN check and order. The field's column is
/// bound through the newtype's own Diesel impls: derive Diesel's `AsExpression` and
/// `FromSqlRow` with `#[diesel(sql_type = ..)]`, and implement `ToSql` / `FromSql` by
/// delegating to the field, as Diesel's documentation shows. A struct with another shape is
/// refused by the derive; implement the trait by hand for it, if its representation is
/// lossless and its Diesel `ToSql` binds exactly the value that was read.
///
/// # Enums (PostgreSQL native enums)
///
/// A fieldless enum mapped to a PostgreSQL `CREATE TYPE .. AS ENUM` in Diesel's usual way (a
/// `#[derive(SqlType)] #[diesel(postgres_type(name = ".."))]` SQL type, `AsExpression` /
/// `FromSqlRow` and `ToSql` / `FromSql` on the enum) derives it too: its token holds the
/// variant's name (a name the enum no longer has is `CursorError::Malformed`), its type tag is
/// `enum<Name>` (a token of another enum is refused with `SortMismatch`), and the seek binds the
/// value as the enum type, so the seek and the `ORDER BY` both compare in the enum's
/// `CREATE TYPE` order. Rust never orders the values: `exact_cmp` knows only equality, so
/// the Rust declaration order need not match the database's. An enum with fields is refused
/// by the derive. MySQL's `ENUM` is not covered: it sorts by index but compares with a string
/// by text, so the seek and the `ORDER BY` disagree; store such labels as text, or in an
/// integer column.
///
/// ```
/// use keyset_diesel::query::KeyValue;
///
/// #[derive(Debug, Clone, Copy, PartialEq, KeyValue)]
/// struct UserId(i64);
///
/// assert_eq!(UserId::type_tag(), "i64");
/// assert_eq!(UserId::from_repr(UserId(7).to_repr()), Ok(UserId(7)));
/// assert_eq!(UserId(1).exact_cmp(&UserId(2)), Some(std::cmp::Ordering::Less));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the type of a key field",
    label = "not a key value type",
    note = "key fields may be `i16`, `i32`, `i64`, `f32`, `f64` (never NaN), `bool`, `String`, `Vec<u8>`, MySQL's `i8`, `u8`, `u16`, `u32`, `u64`, `chrono::NaiveDateTime`, `chrono::DateTime<Utc>`, `chrono::NaiveDate`, `chrono::NaiveTime` (feature `chrono`), `time::PrimitiveDateTime`, `time::OffsetDateTime`, `time::Date`, `time::Time` (feature `time`), `uuid::Uuid` (feature `uuid`), `bigdecimal::BigDecimal` (feature `numeric`), or an `Option<_>` of one of these",
    note = "`chrono::DateTime<Local>` / `DateTime<FixedOffset>` are not key types: they bind their own UTC offset, so SQLite compares text that depends on the writer's zone; read the column as `chrono::DateTime<Utc>` (or `time::OffsetDateTime`, which Diesel binds in UTC)",
    note = "for a newtype around one of these, or a fieldless enum mapped to a PostgreSQL enum, `#[derive(keyset_diesel::query::KeyValue)]`; for another type of your own, implement `keyset_diesel::query::KeyValue` for it"
)]
pub trait KeyValue: Clone + fmt::Debug + PartialEq + Send + Sync + 'static {
    /// Serializable, lossless form used inside tokens.
    type Repr: Serialize + DeserializeOwned;

    /// A short stable name of the type, part of [`crate::Keyset::sort_signature`].
    fn type_tag() -> Cow<'static, str>;

    /// `true` for SQL NULL (`None`). The seek predicate never binds a NULL: it writes
    /// `IS NULL` / `IS NOT NULL` arms instead.
    fn is_null(&self) -> bool {
        false
    }

    /// Whether the value may be a key at all: `Err` for a value no cursor may hold because
    /// the databases do not order it alike (a floating-point NaN). The default accepts every
    /// value. `from_repr` refuses what this refuses.
    ///
    /// # Errors
    /// [`InvalidKeyValue`] naming why the value cannot be a key.
    fn check_key(&self) -> Result<(), InvalidKeyValue> {
        Ok(())
    }

    /// Whether Diesel binds the value on `backend` exactly as it is: `Err` for a value
    /// Diesel's `ToSql` would change there, so the seek would start from another value than
    /// the cursor's and lose or repeat rows. Checked for a cursor before any SQL runs
    /// ([`crate::KeysetError::InvalidCursorKey`]). The default accepts every value; `time::Time`
    /// refuses the fractions of a second Diesel 2.3 drops (see the feature `time` in the type
    /// table above).
    ///
    /// # Errors
    /// [`InvalidKeyValue`] naming what the backend would not bind.
    fn check_bind(&self, backend: BackendKind) -> Result<(), InvalidKeyValue> {
        let _ = backend;
        Ok(())
    }

    /// The token representation.
    fn to_repr(&self) -> Self::Repr;

    /// Back from the token representation.
    ///
    /// # Errors
    /// [`InvalidKeyValue`] when the representation does not name a value of this type (or
    /// names one [`check_key`](Self::check_key) refuses).
    fn from_repr(repr: Self::Repr) -> Result<Self, InvalidKeyValue>;

    /// How two values compare in the database's `ASC` order, when Rust knows that order
    /// exactly on every backend: `Some(Equal)` for equal values, `Some(Less)` / `Some(Greater)`
    /// for a type whose order Rust knows (integers, floats, `bool`, timestamps, dates,
    /// decimals), and
    /// `None` for different values of a type whose order depends on the database (text: its
    /// collation decides). Two `None`s (SQL NULL) are equal; a NULL and a value give `None`
    /// (their order is the column's NULL placement). The page check uses it (see
    /// [`crate::KeysetError::KeyOutOfOrder`]); the default knows only equality, which is
    /// always safe.
    fn exact_cmp(&self, other: &Self) -> Option<Ordering> {
        (self == other).then_some(Ordering::Equal)
    }
}

macro_rules! plain_key_value {
    ($($ty:ty => $tag:literal exact $exact:literal),* $(,)?) => {$(
        impl KeyValue for $ty {
            type Repr = $ty;
            fn type_tag() -> Cow<'static, str> {
                Cow::Borrowed($tag)
            }
            fn to_repr(&self) -> Self::Repr {
                self.clone()
            }
            fn from_repr(repr: Self::Repr) -> Result<Self, InvalidKeyValue> {
                Ok(repr)
            }
            fn exact_cmp(&self, other: &Self) -> Option<Ordering> {
                // `$exact`: Rust's order is the database's on every backend.
                if $exact || self == other {
                    Some(Ord::cmp(self, other))
                } else {
                    None
                }
            }
        }
    )*};
}

// Text is not exact: its database order is the column's collation. Bytes are: `bytea`, `BLOB`
// and `VARBINARY` compare byte by byte, a prefix first, as `Vec<u8>`'s `Ord` does. `i8` and the
// unsigned integers are MySQL's `TinyInt` and `Unsigned<..>` (Diesel maps them nowhere else).
plain_key_value!(
    i8 => "i8" exact true,
    i16 => "i16" exact true,
    i32 => "i32" exact true,
    i64 => "i64" exact true,
    u8 => "u8" exact true,
    u16 => "u16" exact true,
    u32 => "u32" exact true,
    u64 => "u64" exact true,
    bool => "bool" exact true,
    String => "text" exact false,
    Vec<u8> => "bytes" exact true,
);

/// NaN bits in a token, or a NaN read from a row or put in a cursor.
const NAN_KEY: InvalidKeyValue =
    InvalidKeyValue("NaN is not a key value (databases do not order it alike)");

/// `f32` / `f64`: exact bits in tokens, NaN refused, `-0.0 == 0.0` as in SQL.
macro_rules! float_key_value {
    ($($ty:ty => $bits:ty, $tag:literal),* $(,)?) => {$(
        impl KeyValue for $ty {
            type Repr = $bits;
            fn type_tag() -> Cow<'static, str> {
                Cow::Borrowed($tag)
            }
            fn check_key(&self) -> Result<(), InvalidKeyValue> {
                if self.is_nan() {
                    Err(NAN_KEY)
                } else {
                    Ok(())
                }
            }
            fn to_repr(&self) -> Self::Repr {
                self.to_bits()
            }
            fn from_repr(bits: Self::Repr) -> Result<Self, InvalidKeyValue> {
                let value = <$ty>::from_bits(bits);
                value.check_key().map(|()| value)
            }
            fn exact_cmp(&self, other: &Self) -> Option<Ordering> {
                // IEEE comparison, SQL's: `-0.0` equals `0.0` (`total_cmp` would not), and
                // infinities sort at the ends. `None` only for a NaN, which no key holds.
                self.partial_cmp(other)
            }
        }
    )*};
}

float_key_value!(f32 => u32, "f32", f64 => u64, "f64");

impl<T: KeyValue> KeyValue for Option<T> {
    type Repr = Option<T::Repr>;
    fn type_tag() -> Cow<'static, str> {
        Cow::Owned(format!("nullable<{}>", T::type_tag()))
    }
    fn is_null(&self) -> bool {
        self.is_none()
    }
    fn check_key(&self) -> Result<(), InvalidKeyValue> {
        self.as_ref().map_or(Ok(()), T::check_key)
    }
    fn check_bind(&self, backend: BackendKind) -> Result<(), InvalidKeyValue> {
        self.as_ref().map_or(Ok(()), |v| v.check_bind(backend))
    }
    fn to_repr(&self) -> Self::Repr {
        self.as_ref().map(T::to_repr)
    }
    fn from_repr(repr: Self::Repr) -> Result<Self, InvalidKeyValue> {
        repr.map(T::from_repr).transpose()
    }
    fn exact_cmp(&self, other: &Self) -> Option<Ordering> {
        match (self, other) {
            (None, None) => Some(Ordering::Equal),
            (Some(a), Some(b)) => a.exact_cmp(b),
            _ => None,
        }
    }
}

#[cfg(feature = "chrono")]
mod chrono_impls {
    use super::*;
    use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, Timelike, Utc};

    impl KeyValue for DateTime<Utc> {
        type Repr = (i64, u32);
        fn type_tag() -> Cow<'static, str> {
            Cow::Borrowed("datetime_utc")
        }
        fn to_repr(&self) -> Self::Repr {
            (self.timestamp(), self.timestamp_subsec_nanos())
        }
        fn from_repr((secs, nanos): Self::Repr) -> Result<Self, InvalidKeyValue> {
            DateTime::from_timestamp(secs, nanos).ok_or(InvalidKeyValue("timestamp out of range"))
        }
        fn exact_cmp(&self, other: &Self) -> Option<Ordering> {
            Some(self.cmp(other))
        }
    }

    impl KeyValue for NaiveDateTime {
        type Repr = (i64, u32);
        fn type_tag() -> Cow<'static, str> {
            Cow::Borrowed("naive_datetime")
        }
        fn to_repr(&self) -> Self::Repr {
            let utc = self.and_utc();
            (utc.timestamp(), utc.timestamp_subsec_nanos())
        }
        fn from_repr((secs, nanos): Self::Repr) -> Result<Self, InvalidKeyValue> {
            DateTime::from_timestamp(secs, nanos)
                .map(|t| t.naive_utc())
                .ok_or(InvalidKeyValue("timestamp out of range"))
        }
        fn exact_cmp(&self, other: &Self) -> Option<Ordering> {
            Some(self.cmp(other))
        }
    }

    impl KeyValue for NaiveDate {
        type Repr = i32;
        fn type_tag() -> Cow<'static, str> {
            Cow::Borrowed("date")
        }
        fn to_repr(&self) -> Self::Repr {
            chrono::Datelike::num_days_from_ce(self)
        }
        fn from_repr(days: Self::Repr) -> Result<Self, InvalidKeyValue> {
            NaiveDate::from_num_days_from_ce_opt(days).ok_or(InvalidKeyValue("date out of range"))
        }
        fn exact_cmp(&self, other: &Self) -> Option<Ordering> {
            Some(self.cmp(other))
        }
    }

    impl KeyValue for NaiveTime {
        type Repr = (u32, u32);
        fn type_tag() -> Cow<'static, str> {
            Cow::Borrowed("time")
        }
        fn to_repr(&self) -> Self::Repr {
            (self.num_seconds_from_midnight(), self.nanosecond())
        }
        fn from_repr((secs, nanos): Self::Repr) -> Result<Self, InvalidKeyValue> {
            NaiveTime::from_num_seconds_from_midnight_opt(secs, nanos)
                .ok_or(InvalidKeyValue("time of day out of range"))
        }
        fn exact_cmp(&self, other: &Self) -> Option<Ordering> {
            Some(self.cmp(other))
        }
    }
}

/// The `time` crate's types share chrono's type tags and token representations: each binds the
/// same SQL value as its chrono counterpart (Diesel converts an `OffsetDateTime` to UTC on every
/// backend, so only its instant is bound, never its offset), and a token of one decodes into the
/// other.
#[cfg(feature = "time")]
mod time_impls {
    use super::*;
    use time::{Date, OffsetDateTime, PrimitiveDateTime, Time};

    /// Days from the Julian day number to chrono's day number from the common era
    /// (0001-01-01 is Julian day 1 721 426 and CE day 1).
    const JULIAN_DAY_OF_CE_DAY_0: i32 = 1_721_425;

    fn instant(secs: i64, nanos: u32) -> Result<OffsetDateTime, InvalidKeyValue> {
        OffsetDateTime::from_unix_timestamp(secs)
            .and_then(|t| t.replace_nanosecond(nanos))
            .map_err(|_| InvalidKeyValue("timestamp out of range"))
    }

    impl KeyValue for OffsetDateTime {
        /// The instant: its offset is not part of the key (Diesel binds the instant).
        type Repr = (i64, u32);
        fn type_tag() -> Cow<'static, str> {
            Cow::Borrowed("datetime_utc")
        }
        fn to_repr(&self) -> Self::Repr {
            (self.unix_timestamp(), self.nanosecond())
        }
        fn from_repr((secs, nanos): Self::Repr) -> Result<Self, InvalidKeyValue> {
            instant(secs, nanos)
        }
        fn exact_cmp(&self, other: &Self) -> Option<Ordering> {
            // The instants' order, whatever the offsets (as `timestamptz` compares).
            Some(self.cmp(other))
        }
    }

    impl KeyValue for PrimitiveDateTime {
        type Repr = (i64, u32);
        fn type_tag() -> Cow<'static, str> {
            Cow::Borrowed("naive_datetime")
        }
        fn to_repr(&self) -> Self::Repr {
            let utc = self.assume_utc();
            (utc.unix_timestamp(), utc.nanosecond())
        }
        fn from_repr((secs, nanos): Self::Repr) -> Result<Self, InvalidKeyValue> {
            instant(secs, nanos).map(|t| PrimitiveDateTime::new(t.date(), t.time()))
        }
        fn exact_cmp(&self, other: &Self) -> Option<Ordering> {
            Some(self.cmp(other))
        }
    }

    impl KeyValue for Date {
        type Repr = i32;
        fn type_tag() -> Cow<'static, str> {
            Cow::Borrowed("date")
        }
        fn to_repr(&self) -> Self::Repr {
            self.to_julian_day() - JULIAN_DAY_OF_CE_DAY_0
        }
        fn from_repr(days: Self::Repr) -> Result<Self, InvalidKeyValue> {
            days.checked_add(JULIAN_DAY_OF_CE_DAY_0)
                .and_then(|julian| Date::from_julian_day(julian).ok())
                .ok_or(InvalidKeyValue("date out of range"))
        }
        fn exact_cmp(&self, other: &Self) -> Option<Ordering> {
            Some(self.cmp(other))
        }
    }

    impl KeyValue for Time {
        type Repr = (u32, u32);
        fn type_tag() -> Cow<'static, str> {
            Cow::Borrowed("time")
        }
        fn to_repr(&self) -> Self::Repr {
            let (h, m, s, nanos) = self.as_hms_nano();
            (
                u32::from(h) * 3600 + u32::from(m) * 60 + u32::from(s),
                nanos,
            )
        }
        fn check_bind(&self, backend: BackendKind) -> Result<(), InvalidKeyValue> {
            let nanos = self.nanosecond();
            match backend {
                // Diesel 2.3's `ToSql<Time, Mysql>` for `time::Time` binds no fraction at all.
                BackendKind::Mysql if nanos != 0 => Err(InvalidKeyValue(
                    "Diesel 2.3 binds a time::Time on MySQL without its fraction of a second; \
                     read a TIME(n) column holding fractions as chrono::NaiveTime",
                )),
                // Diesel 2.3's `ToSql<Time, Sqlite>` writes whole seconds when the
                // microseconds are 0, dropping 1 to 999 nanoseconds.
                BackendKind::Sqlite if (1..1_000).contains(&nanos) => Err(InvalidKeyValue(
                    "Diesel 2.3 binds a time::Time on SQLite without a fraction below one \
                         microsecond; read such text as chrono::NaiveTime",
                )),
                _ => Ok(()),
            }
        }
        fn from_repr((secs, nanos): Self::Repr) -> Result<Self, InvalidKeyValue> {
            const OUT: InvalidKeyValue = InvalidKeyValue("time of day out of range");
            if secs >= 86_400 {
                return Err(OUT);
            }
            // In range: each part fits its `u8`.
            let part = |v: u32| u8::try_from(v).map_err(|_| OUT);
            Time::from_hms_nano(
                part(secs / 3600)?,
                part(secs / 60 % 60)?,
                part(secs % 60)?,
                nanos,
            )
            .map_err(|_| OUT)
        }
        fn exact_cmp(&self, other: &Self) -> Option<Ordering> {
            Some(self.cmp(other))
        }
    }
}

#[cfg(feature = "uuid")]
impl KeyValue for uuid::Uuid {
    type Repr = u128;
    fn type_tag() -> Cow<'static, str> {
        Cow::Borrowed("uuid")
    }
    fn to_repr(&self) -> Self::Repr {
        self.as_u128()
    }
    fn from_repr(repr: Self::Repr) -> Result<Self, InvalidKeyValue> {
        Ok(uuid::Uuid::from_u128(repr))
    }
}

#[cfg(feature = "numeric")]
impl KeyValue for bigdecimal::BigDecimal {
    /// `[digits, scale]`: the value is `digits × 10^-scale`, exactly, whatever its size.
    type Repr = (String, i64);
    fn type_tag() -> Cow<'static, str> {
        Cow::Borrowed("decimal")
    }
    fn to_repr(&self) -> Self::Repr {
        let (digits, scale) = self.as_bigint_and_exponent();
        (digits.to_string(), scale)
    }
    fn from_repr((digits, scale): Self::Repr) -> Result<Self, InvalidKeyValue> {
        // Bounded: a token is at most a few kilobytes, and no database column has a scale
        // beyond a few thousand digits.
        if digits.len() > 1000 || !(-10_000..=10_000).contains(&scale) {
            return Err(InvalidKeyValue("decimal out of range"));
        }
        let digits: bigdecimal::num_bigint::BigInt = digits
            .parse()
            .map_err(|_| InvalidKeyValue("decimal digits do not parse"))?;
        Ok(bigdecimal::BigDecimal::new(digits, scale))
    }
    fn exact_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// A row's key: a tuple of [`KeyValue`]s, one per key column, in key order. Implemented for
/// tuples of 1 to 12 elements (so a keyset has at most 12 columns).
pub trait KeyTuple: Clone + fmt::Debug + PartialEq + Send + Sync + 'static {
    /// Number of key columns.
    const LEN: usize;
    /// Serializable form: the tuple of the elements' [`KeyValue::Repr`], a JSON array in tokens.
    type Repr: Serialize + DeserializeOwned;
    /// [`KeyValue::type_tag`] of element `index` (empty past the end).
    fn type_tag(index: usize) -> Cow<'static, str>;
    /// Whether element `index` is SQL NULL (`false` past the end).
    fn is_null(&self, index: usize) -> bool;
    /// [`KeyValue::exact_cmp`] of element `index` of two keys (`Some(Equal)` past the end).
    fn exact_cmp_at(&self, other: &Self, index: usize) -> Option<Ordering>;
    /// [`KeyValue::check_key`] of every element.
    ///
    /// # Errors
    /// The index of the first element refused, and why.
    fn check_key(&self) -> Result<(), (usize, InvalidKeyValue)>;
    /// [`KeyValue::check_bind`] of every element.
    ///
    /// # Errors
    /// The index of the first element refused, and why.
    fn check_bind(&self, backend: BackendKind) -> Result<(), (usize, InvalidKeyValue)>;
    /// The token representation.
    fn to_repr(&self) -> Self::Repr;
    /// Back from the token representation.
    ///
    /// # Errors
    /// [`InvalidKeyValue`] from the first element that does not convert.
    fn from_repr(repr: Self::Repr) -> Result<Self, InvalidKeyValue>;
}

macro_rules! key_tuple {
    ($len:literal: $($T:ident $idx:tt),+) => {
        impl<$($T: KeyValue),+> KeyTuple for ($($T,)+) {
            const LEN: usize = $len;
            type Repr = ($($T::Repr,)+);
            fn type_tag(index: usize) -> Cow<'static, str> {
                match index {
                    $($idx => $T::type_tag(),)+
                    _ => Cow::Borrowed(""),
                }
            }
            fn is_null(&self, index: usize) -> bool {
                match index {
                    $($idx => self.$idx.is_null(),)+
                    _ => false,
                }
            }
            fn exact_cmp_at(&self, other: &Self, index: usize) -> Option<Ordering> {
                match index {
                    $($idx => self.$idx.exact_cmp(&other.$idx),)+
                    _ => Some(Ordering::Equal),
                }
            }
            fn check_key(&self) -> Result<(), (usize, InvalidKeyValue)> {
                $(self.$idx.check_key().map_err(|e| ($idx, e))?;)+
                Ok(())
            }
            fn check_bind(&self, backend: BackendKind) -> Result<(), (usize, InvalidKeyValue)> {
                $(self.$idx.check_bind(backend).map_err(|e| ($idx, e))?;)+
                Ok(())
            }
            fn to_repr(&self) -> Self::Repr {
                ($(self.$idx.to_repr(),)+)
            }
            fn from_repr(repr: Self::Repr) -> Result<Self, InvalidKeyValue> {
                Ok(($($T::from_repr(repr.$idx)?,)+))
            }
        }
    };
}

key_tuple!(1: A 0);
key_tuple!(2: A 0, B 1);
key_tuple!(3: A 0, B 1, C 2);
key_tuple!(4: A 0, B 1, C 2, D 3);
key_tuple!(5: A 0, B 1, C 2, D 3, E 4);
key_tuple!(6: A 0, B 1, C 2, D 3, E 4, F 5);
key_tuple!(7: A 0, B 1, C 2, D 3, E 4, F 5, G 6);
key_tuple!(8: A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
key_tuple!(9: A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
key_tuple!(10: A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
key_tuple!(11: A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
key_tuple!(12: A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tuple_repr_round_trips_and_reports_nulls() {
        let key: (Option<String>, i64) = (None, 7);
        assert!(key.is_null(0));
        assert!(!key.is_null(1));
        assert!(!key.is_null(2));
        let back = <(Option<String>, i64)>::from_repr(key.to_repr()).unwrap();
        assert_eq!(back, key);
        assert_eq!(<(Option<String>, i64)>::type_tag(0), "nullable<text>");
        assert_eq!(<(Option<String>, i64)>::type_tag(5), "");
    }

    /// Neighbours one ulp apart (`from_bits(to_bits() + 1)`), signed zeros, extremes.
    fn f64_edges() -> Vec<f64> {
        let up = |v: f64| f64::from_bits(v.to_bits() + 1);
        vec![
            0.0,
            -0.0,
            1.0,
            up(1.0),
            up(up(1.0)),
            -1.0,
            -up(1.0),
            0.1,
            up(0.1),
            9_007_199_254_740_992.0,
            up(9_007_199_254_740_992.0),
            f64::MIN_POSITIVE,
            up(0.0), // the smallest subnormal
            f64::MAX,
            f64::MIN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ]
    }

    #[test]
    fn floats_round_trip_bit_exactly() {
        for v in f64_edges() {
            let back = f64::from_repr(v.to_repr()).unwrap();
            assert_eq!(back.to_bits(), v.to_bits(), "{v:e}");
            let narrow = v as f32;
            let back = f32::from_repr(narrow.to_repr()).unwrap();
            assert_eq!(back.to_bits(), narrow.to_bits(), "{narrow:e}");
        }
        // Through the token's own encoding too.
        let key = (-0.0f64, f32::from_bits(1.0f32.to_bits() + 1), 3i64);
        let bytes = postcard::to_allocvec(&key.to_repr()).unwrap();
        let back = <(f64, f32, i64)>::from_repr(postcard::from_bytes(&bytes).unwrap()).unwrap();
        assert_eq!(back.0.to_bits(), (-0.0f64).to_bits());
        assert_eq!(back.1.to_bits(), key.1.to_bits());
    }

    #[test]
    fn nan_is_never_a_key() {
        for nan in [f64::NAN, -f64::NAN, f64::from_bits(0x7ff0_0000_0000_0001)] {
            assert_eq!(nan.check_key(), Err(NAN_KEY));
            assert_eq!(f64::from_repr(nan.to_bits()), Err(NAN_KEY));
            assert_eq!((nan as f32).check_key(), Err(NAN_KEY));
            assert_eq!(f32::from_repr((nan as f32).to_bits()), Err(NAN_KEY));
        }
        assert_eq!(Some(f64::NAN).check_key(), Err(NAN_KEY));
        assert_eq!(None::<f64>.check_key(), Ok(()));
        assert_eq!((1i64, 2.5f64).check_key(), Ok(()));
        assert_eq!((1i64, Some(f32::NAN)).check_key(), Err((1, NAN_KEY)));
    }

    #[test]
    fn float_order_is_sqls() {
        assert_eq!((-0.0f64).exact_cmp(&0.0), Some(Ordering::Equal));
        assert_eq!(0.0f32.exact_cmp(&-0.0), Some(Ordering::Equal));
        let mut values = f64_edges();
        values.sort_by(f64::total_cmp);
        for pair in values.windows(2) {
            let expected = if pair[0] == pair[1] {
                Ordering::Equal
            } else {
                Ordering::Less
            };
            assert_eq!(pair[0].exact_cmp(&pair[1]), Some(expected), "{pair:?}");
            assert_eq!(pair[1].exact_cmp(&pair[0]), Some(expected.reverse()));
        }
    }

    #[cfg(feature = "numeric")]
    #[test]
    fn decimals_round_trip_exactly_at_any_magnitude() {
        for text in [
            "0.00000012",
            "1.2E-7",
            "1e+20",
            "1E30",
            "-99999999.9999",
            "0",
            "0.0001",
        ] {
            let d: bigdecimal::BigDecimal = text.parse().unwrap();
            let back = bigdecimal::BigDecimal::from_repr(d.to_repr()).unwrap();
            assert_eq!(back, d, "{text}");
            assert_eq!(
                back.as_bigint_and_exponent(),
                d.as_bigint_and_exponent(),
                "{text}"
            );
        }
        assert!(bigdecimal::BigDecimal::from_repr(("1".into(), 1_000_000)).is_err());
        assert!(bigdecimal::BigDecimal::from_repr(("1x".into(), 0)).is_err());
    }

    #[cfg(feature = "chrono")]
    #[test]
    fn timestamps_keep_nanoseconds() {
        let t = chrono::DateTime::from_timestamp(1_760_097_602, 123_456_789).unwrap();
        assert_eq!(
            chrono::DateTime::<chrono::Utc>::from_repr(t.to_repr()).unwrap(),
            t
        );
        let n = t.naive_utc();
        assert_eq!(chrono::NaiveDateTime::from_repr(n.to_repr()).unwrap(), n);
        assert!(chrono::NaiveDateTime::from_repr((i64::MAX, 0)).is_err());
        for (secs, nanos) in [(0, 0), (0, 1), (86_399, 999_999_999), (45_296, 500_000)] {
            let t = chrono::NaiveTime::from_num_seconds_from_midnight_opt(secs, nanos).unwrap();
            assert_eq!(chrono::NaiveTime::from_repr(t.to_repr()).unwrap(), t);
        }
        assert!(chrono::NaiveTime::from_repr((86_400, 0)).is_err());
        assert!(chrono::NaiveTime::from_repr((0, 2_000_000_000)).is_err());
    }

    #[cfg(feature = "time")]
    #[test]
    fn time_values_keep_nanoseconds_and_refuse_what_they_cannot_hold() {
        use time::{Date, Month, OffsetDateTime, PrimitiveDateTime, Time, UtcOffset};
        let date = Date::from_calendar_date(2026, Month::October, 10).unwrap();
        let t = PrimitiveDateTime::new(date, Time::from_hms_nano(13, 5, 9, 123_456_789).unwrap());
        assert_eq!(PrimitiveDateTime::from_repr(t.to_repr()), Ok(t));
        // An offset is not part of the key: the instant comes back (in UTC), equal as an instant.
        let zoned = t.assume_offset(UtcOffset::from_hms(5, 45, 0).unwrap());
        let back = OffsetDateTime::from_repr(zoned.to_repr()).unwrap();
        assert_eq!(back, zoned);
        assert_eq!(back.offset(), UtcOffset::UTC);
        assert_eq!(zoned.to_repr(), back.to_repr());
        for d in [Date::MIN, Date::MAX, date] {
            assert_eq!(Date::from_repr(d.to_repr()), Ok(d));
        }
        assert!(Date::from_repr(Date::MAX.to_repr() + 1).is_err());
        assert!(Date::from_repr(i32::MAX).is_err());
        for (h, m, s, n) in [
            (0, 0, 0, 0),
            (0, 0, 0, 1),
            (23, 59, 59, 999_999_999),
            (12, 34, 56, 500_000),
        ] {
            let v = Time::from_hms_nano(h, m, s, n).unwrap();
            assert_eq!(Time::from_repr(v.to_repr()), Ok(v));
        }
        assert!(Time::from_repr((86_400, 0)).is_err());
        assert!(Time::from_repr((0, 1_000_000_000)).is_err());
        assert!(PrimitiveDateTime::from_repr((i64::MAX, 0)).is_err());
        assert!(PrimitiveDateTime::from_repr((0, 1_000_000_000)).is_err());
    }

    #[cfg(feature = "time")]
    #[test]
    fn time_of_day_refuses_the_fractions_diesel_does_not_bind() {
        let t = |nanos| time::Time::from_hms_nano(12, 0, 0, nanos).unwrap();
        let ok = |v: time::Time, b| v.check_bind(b).is_ok();
        for b in [
            BackendKind::Postgres,
            BackendKind::Sqlite,
            BackendKind::Mysql,
        ] {
            assert!(ok(t(0), b), "{b:?}");
        }
        // 1 to 999 ns: Diesel writes whole seconds on SQLite.
        for nanos in [1, 500, 999] {
            assert!(!ok(t(nanos), BackendKind::Sqlite));
            assert!(!ok(t(nanos), BackendKind::Mysql));
            assert!(ok(t(nanos), BackendKind::Postgres));
        }
        // Any fraction on MySQL; microseconds and more are written on SQLite.
        for nanos in [1_000, 1_500, 250_000_000, 999_999_999] {
            assert!(ok(t(nanos), BackendKind::Sqlite));
            assert!(!ok(t(nanos), BackendKind::Mysql));
        }
        assert!(Some(t(500)).check_bind(BackendKind::Sqlite).is_err());
        assert!(None::<time::Time>.check_bind(BackendKind::Mysql).is_ok());
        assert_eq!(
            (1i64, t(1_000))
                .check_bind(BackendKind::Mysql)
                .map_err(|(i, _)| i),
            Err(1)
        );
    }

    /// Each `time` type has its chrono counterpart's tag and representation, value for value,
    /// so a token of one decodes into the other as the same SQL value.
    #[cfg(all(feature = "time", feature = "chrono"))]
    #[test]
    fn time_and_chrono_counterparts_share_tags_and_representations() {
        let chrono_ts = chrono::DateTime::from_timestamp(-62_135_596_800 + 86_399, 1).unwrap();
        for c in [
            chrono_ts,
            chrono::DateTime::from_timestamp(0, 0).unwrap(),
            chrono::DateTime::from_timestamp(1_760_097_602, 123_456_789).unwrap(),
            chrono::DateTime::from_timestamp(253_402_300_799, 999_999_999).unwrap(),
        ] {
            let t = time::OffsetDateTime::from_repr(c.to_repr()).unwrap();
            assert_eq!(t.to_repr(), c.to_repr());
            use chrono::{Datelike, Timelike};
            assert_eq!(
                (
                    t.year(),
                    u32::from(t.ordinal()),
                    u32::from(t.hour()),
                    t.nanosecond()
                ),
                (c.year(), c.ordinal(), c.hour(), c.nanosecond())
            );
            let p = time::PrimitiveDateTime::from_repr(c.naive_utc().to_repr()).unwrap();
            assert_eq!(p.to_repr(), c.naive_utc().to_repr());
            let d = time::Date::from_repr(c.date_naive().to_repr()).unwrap();
            assert_eq!(d.to_repr(), c.date_naive().to_repr());
            assert_eq!(
                (d.year(), u32::from(d.month() as u8), u32::from(d.day())),
                (c.year(), c.month(), c.day())
            );
            let tm = time::Time::from_repr(c.time().to_repr()).unwrap();
            assert_eq!(tm.to_repr(), c.time().to_repr());
        }
        assert_eq!(
            time::OffsetDateTime::type_tag(),
            chrono::DateTime::<chrono::Utc>::type_tag()
        );
        assert_eq!(
            time::PrimitiveDateTime::type_tag(),
            chrono::NaiveDateTime::type_tag()
        );
        assert_eq!(time::Date::type_tag(), chrono::NaiveDate::type_tag());
        assert_eq!(time::Time::type_tag(), chrono::NaiveTime::type_tag());
    }

    #[test]
    fn wide_integers_and_bytes_round_trip_through_the_token_encoding() {
        let key = (
            u64::MAX,
            i64::MAX as u64 + 1,
            i8::MIN,
            u8::MAX,
            vec![0u8, 0xff, 0x80],
        );
        let bytes = postcard::to_allocvec(&key.to_repr()).unwrap();
        let back = <(u64, u64, i8, u8, Vec<u8>)>::from_repr(postcard::from_bytes(&bytes).unwrap());
        assert_eq!(back.unwrap(), key);
        // Bytes order as the databases compare them: byte by byte, a prefix first.
        let ordered: [&[u8]; 5] = [b"", b"\x00", b"\x00\x00", b"\x01", b"\xff"];
        for pair in ordered.windows(2) {
            assert_eq!(
                pair[0].to_vec().exact_cmp(&pair[1].to_vec()),
                Some(Ordering::Less)
            );
        }
    }
}
