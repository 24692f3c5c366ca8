//! Key values: the Rust types a key column may have, with a lossless representation for tokens.
//! Floating-point keys are deliberately not supported (NaN and -0.0 have no portable order).

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;

use serde::de::DeserializeOwned;
use serde::Serialize;

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
///  | `bool` | `bool` | the boolean |
///  | `String` | `text` | the exact string |
///  | `chrono::DateTime<Utc>` (feature `chrono`) | `datetime_utc` | `[seconds since 1970-01-01T00:00:00Z, nanoseconds]` |
///  | `chrono::NaiveDateTime` (feature `chrono`) | `naive_datetime` | `[seconds since 1970-01-01T00:00:00, nanoseconds]` |
///  | `chrono::NaiveDate` (feature `chrono`) | `date` | days since 0001-01-01 (CE day number) |
///  | `uuid::Uuid` (feature `uuid`) | `uuid` | the 16 bytes as one big-endian `u128` |
///  | `bigdecimal::BigDecimal` (feature `numeric`) | `decimal` | `[digits, scale]`: the exact value `digits × 10^-scale` |
///  | `Option<T>` for any of these | `nullable<tag>` | `null` or the representation of `T` |
///
///  Timestamps keep nanoseconds, so a key read from the database is bound back exactly as it
///  was read, at whatever precision the database keeps (microseconds on PostgreSQL and
///  `DATETIME(6)`; the stored text on SQLite, re-encoded by Diesel in the same `%F %T%.f` form).
///
/// Implement it for your own type
/// (a newtype around one of them, say) if its representation is lossless and its Diesel
/// `ToSql` binds exactly the value that was read.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the type of a key field",
    label = "not a key value type",
    note = "key fields may be `i16`, `i32`, `i64`, `bool`, `String`, `chrono::NaiveDateTime`, `chrono::DateTime<Utc>`, `chrono::NaiveDate` (feature `chrono`), `uuid::Uuid` (feature `uuid`), `bigdecimal::BigDecimal` (feature `numeric`), or an `Option<_>` of one of these; floating-point keys are not supported (NaN and -0.0 have no portable order)",
    note = "for a type of your own, implement `keyset_diesel::query::KeyValue` for it"
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

    /// The token representation.
    fn to_repr(&self) -> Self::Repr;

    /// Back from the token representation.
    ///
    /// # Errors
    /// [`InvalidKeyValue`] when the representation does not name a value of this type.
    fn from_repr(repr: Self::Repr) -> Result<Self, InvalidKeyValue>;

    /// How two values compare in the database's `ASC` order, when Rust knows that order
    /// exactly on every backend: `Some(Equal)` for equal values, `Some(Less)` / `Some(Greater)`
    /// for a type whose order Rust knows (integers, `bool`, timestamps, dates, decimals), and
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

// Text is not exact: its database order is the column's collation.
plain_key_value!(
    i16 => "i16" exact true,
    i32 => "i32" exact true,
    i64 => "i64" exact true,
    bool => "bool" exact true,
    String => "text" exact false,
);

impl<T: KeyValue> KeyValue for Option<T> {
    type Repr = Option<T::Repr>;
    fn type_tag() -> Cow<'static, str> {
        Cow::Owned(format!("nullable<{}>", T::type_tag()))
    }
    fn is_null(&self) -> bool {
        self.is_none()
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
    use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};

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
    }
}
