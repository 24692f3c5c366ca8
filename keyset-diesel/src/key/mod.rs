//! Key values: the Rust types a key column may have, with a lossless representation for tokens.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::backend::BackendKind;

#[cfg(feature = "chrono")]
mod chrono;
pub(crate) mod class;
#[cfg(feature = "numeric")]
mod decimal;
#[cfg(feature = "time")]
mod time;
mod tuple;
#[cfg(feature = "uuid")]
mod uuid;

pub use self::tuple::KeyTuple;

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
///  | `time::Time` (feature `time`) | `time` | as `NaiveTime`; a cursor Diesel 2.4 cannot bind is refused ([`KeyValue::check_bind`]): on MySQL any fraction of a second, on PostgreSQL a fraction below 1 µs, on SQLite 1 to 999 ns |
///  | `uuid::Uuid` (feature `uuid`) | `uuid` | the 16 bytes as one big-endian `u128` |
///  | `bigdecimal::BigDecimal` (feature `numeric`) | `decimal` | `[digits, scale]`: the exact value `digits × 10^-scale` |
///  | a fieldless enum with `#[derive(KeyValue)]` (a PostgreSQL native enum) | `enum<Name>` | the variant's Rust name |
///  | `Option<T>` for any of these | `nullable<tag>` | `null` or the representation of `T` |
///
///  Timestamps keep nanoseconds, so a key read from the database is bound back exactly as it
///  was read, at whatever precision the database keeps (microseconds on PostgreSQL and
///  `DATETIME(6)`; the stored text on SQLite, re-encoded by Diesel in the same `%F %T%.f` form).
///  A cursor the application builds with a fraction below 1 µs is refused on PostgreSQL and
///  MySQL ([`KeyValue::check_bind`]: Diesel binds whole microseconds there, so the bound would
///  move); on SQLite it is bound with every digit. A `BigDecimal` cursor on SQLite must be the
///  exact expansion of an `f64` (Diesel binds one): `BigDecimal::from_f64(1.005)`, not `1.005`.
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
    /// ([`crate::KeysetError::InvalidCursorKey`]). The default accepts every value; timestamps
    /// and times of day refuse the fractions of a second Diesel 2.4 drops (below 1 µs on
    /// PostgreSQL and MySQL; `time::Time` as in the type table above), and `BigDecimal` on
    /// SQLite a value that is not an `f64`'s exact expansion.
    ///
    /// # Errors
    /// [`InvalidKeyValue`] naming what the backend would not bind.
    fn check_bind(&self, backend: BackendKind) -> Result<(), InvalidKeyValue> {
        let _ = backend;
        Ok(())
    }

    /// For a type Diesel reads lossily on `backend` (several stored values become one Rust
    /// value): SQL written after the column that is true exactly for the stored values this
    /// type does not represent. `bool` on SQLite and MySQL returns `" NOT IN (0, 1)"`: the
    /// column is an integer there, and Diesel reads any non-zero value as `true`, which a cursor
    /// binds back as 1.
    ///
    /// A page's seek adds `OR (<column>)<this>` to its condition, so such rows are in every page
    /// query whatever the cursor: a walk that meets one reads it again after delivering it, and
    /// the page check reports `CursorRowReturned`, `KeyOutOfOrder` or `TieBreakerNotUnique`,
    /// instead of a cursor bound back as another value skipping rows silently. Only for a
    /// keyset whose every column is [exactly ordered](Self::exact_order), where the check sees
    /// the re-read row. On data that holds only represented values the arm matches nothing.
    /// The default is `None`.
    fn unrepresented_sql(backend: BackendKind) -> Option<&'static str> {
        let _ = backend;
        None
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

    /// Whether [`exact_cmp`](Self::exact_cmp) orders every two values of this type (`Some`
    /// for different values too): the integers, floats, `bool`, bytes, timestamps, dates,
    /// times and decimals. `false` (the default) for text, enums and your own types. The seek
    /// adds its arm for unrepresented values ([`unrepresented_sql`](Self::unrepresented_sql))
    /// only to a keyset whose every column is of such a type: only then does the page check
    /// see a row the arm reads again.
    fn exact_order() -> bool {
        false
    }

    /// Whether two values Rust calls different may be equal under a database collation:
    /// `String` says so when they differ only by what a collation may ignore
    /// ([`collation_fold`]); every other type's values are different when Rust says so. The
    /// page check refuses two adjacent rows whose keys may be equal that way
    /// ([`crate::KeysetError::CollationEqualKeys`]).
    fn may_collate_equal(&self, other: &Self) -> bool {
        let _ = other;
        false
    }
}

/// A conservative fold of text under every collation the crate meets: what remains when a
/// case-, accent- and width-insensitive, PAD SPACE collation that treats characters outside
/// the Basic Multilingual Plane alike (MariaDB's `utf8mb4_general_ci`) has had its say. Two
/// strings with the same fold may collate equal somewhere; two with different folds collate
/// equal under none of SQLite's built-in collations, PostgreSQL's deterministic and
/// `und-u-ks-level1/2` ICU collations, or MySQL's and MariaDB's `_bin`, `_general_ci`,
/// `_unicode_ci` and `_0900_ai_ci` collations, except for expansions (`ß` / `ss`, `æ` / `ae`)
/// and ignorable punctuation that the fold does not model ([text keys and
/// collations](crate::guide::keys_and_limits#text-keys-and-collations)).
///
/// Steps: compatibility decomposition (NFKD, so canonically equivalent and compatibility forms
/// meet), combining diacritics (U+0300..U+036F and the other diacritic blocks; not the vowel
/// signs of Thai or Indic scripts) and default-ignorable characters dropped, upper then lower
/// case, characters above U+FFFF as one, trailing spaces removed.
///
/// ```
/// use keyset_diesel::query::collation_fold;
///
/// assert_eq!(collation_fold("Caf\u{e9}  "), collation_fold("cafe"));
/// assert_eq!(collation_fold("\u{3c2}"), collation_fold("\u{3a3}")); // final sigma, capital sigma
/// assert_ne!(collation_fold("\u{e01}\u{e34}\u{e19}"), collation_fold("\u{e01}\u{e31}\u{e19}")); // Thai vowels differ
/// assert_ne!(collation_fold(" a"), collation_fold("a")); // leading spaces count
/// ```
pub fn collation_fold(text: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    // The combining diacritics (accents, not the vowel signs of Thai or Indic scripts, which
    // are letters to every collation).
    let diacritic = |c: char| {
        matches!(c, '\u{0300}'..='\u{036F}' | '\u{1AB0}'..='\u{1AFF}' | '\u{1DC0}'..='\u{1DFF}'
            | '\u{20D0}'..='\u{20FF}' | '\u{FE20}'..='\u{FE2F}' | '\u{3099}'..='\u{309A}')
    };
    let ignorable = |c: char| {
        matches!(c, '\u{00AD}' | '\u{034F}' | '\u{180E}' | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{206F}' | '\u{FEFF}')
    };
    let mut folded: String = text
        .nfkd()
        .filter(|&c| !diacritic(c) && !ignorable(c))
        // Upper then lower case: a fold, so `ς` and `σ` (and `Σ`) meet.
        .flat_map(char::to_uppercase)
        .flat_map(char::to_lowercase)
        .map(|c| if u32::from(c) > 0xFFFF { '\u{FFFD}' } else { c })
        .collect();
    let kept = folded.trim_end_matches(' ').len();
    folded.truncate(kept);
    folded
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
            fn exact_order() -> bool {
                true
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

// Bytes are exact: `bytea`, `BLOB` and `VARBINARY` compare byte by byte, a prefix first, as
// `Vec<u8>`'s `Ord` does. `i8` and the unsigned integers are MySQL's `TinyInt` and
// `Unsigned<..>` (Diesel maps them nowhere else). Text (`String`, below) is not: its database
// order is the column's collation.
plain_key_value!(
    i8 => "i8" exact true,
    i16 => "i16" exact true,
    i32 => "i32" exact true,
    i64 => "i64" exact true,
    u8 => "u8" exact true,
    u16 => "u16" exact true,
    u32 => "u32" exact true,
    u64 => "u64" exact true,
    Vec<u8> => "bytes" exact true,
);

/// A cursor's fraction of a second finer than a microsecond, on a backend whose Diesel `ToSql`
/// binds timestamps and times in whole microseconds (PostgreSQL, MySQL): the bound would be
/// truncated and the page boundary moved. Values read from those databases never have one, so
/// tokens the crate issued are unaffected; only cursors built by the application are refused.
#[cfg(any(feature = "chrono", feature = "time"))]
pub(crate) fn check_microseconds(nanos: u32, backend: BackendKind) -> Result<(), InvalidKeyValue> {
    match backend {
        BackendKind::Postgres | BackendKind::Mysql if !nanos.is_multiple_of(1_000) => Err(InvalidKeyValue(
            "the column keeps microseconds and Diesel binds whole microseconds, so this cursor's \
             fraction of a second below 1 us would be dropped and the page boundary moved; build \
             the cursor from a value the column holds (chrono: `DurationRound::trunc_subsecs(6)`)",
        )),
        _ => Ok(()),
    }
}

impl KeyValue for String {
    type Repr = String;
    fn type_tag() -> Cow<'static, str> {
        Cow::Borrowed("text")
    }
    fn to_repr(&self) -> Self::Repr {
        self.clone()
    }
    fn from_repr(repr: Self::Repr) -> Result<Self, InvalidKeyValue> {
        Ok(repr)
    }
    /// Only equality: the database orders text by the column's collation.
    fn exact_cmp(&self, other: &Self) -> Option<Ordering> {
        (self == other).then_some(Ordering::Equal)
    }
    fn may_collate_equal(&self, other: &Self) -> bool {
        self != other && collation_fold(self) == collation_fold(other)
    }
}

impl KeyValue for bool {
    type Repr = bool;
    fn type_tag() -> Cow<'static, str> {
        Cow::Borrowed("bool")
    }
    /// SQLite and MySQL keep booleans as integers (`BOOLEAN`, `TINYINT(1)`) that may hold
    /// other values; Diesel reads each non-zero one as `true`
    /// ([lossy reads](crate::guide::keys_and_limits#values-diesel-reads-lossily)).
    fn unrepresented_sql(backend: BackendKind) -> Option<&'static str> {
        match backend {
            BackendKind::Sqlite | BackendKind::Mysql => Some(" NOT IN (0, 1)"),
            BackendKind::Postgres => None,
        }
    }
    fn to_repr(&self) -> Self::Repr {
        *self
    }
    fn from_repr(repr: Self::Repr) -> Result<Self, InvalidKeyValue> {
        Ok(repr)
    }
    fn exact_order() -> bool {
        true
    }
    fn exact_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

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
            fn exact_order() -> bool {
                true
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
    fn unrepresented_sql(backend: BackendKind) -> Option<&'static str> {
        T::unrepresented_sql(backend)
    }
    fn to_repr(&self) -> Self::Repr {
        self.as_ref().map(T::to_repr)
    }
    fn from_repr(repr: Self::Repr) -> Result<Self, InvalidKeyValue> {
        repr.map(T::from_repr).transpose()
    }
    fn exact_order() -> bool {
        T::exact_order()
    }
    fn exact_cmp(&self, other: &Self) -> Option<Ordering> {
        match (self, other) {
            (None, None) => Some(Ordering::Equal),
            (Some(a), Some(b)) => a.exact_cmp(b),
            _ => None,
        }
    }
    fn may_collate_equal(&self, other: &Self) -> bool {
        matches!((self, other), (Some(a), Some(b)) if a.may_collate_equal(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
