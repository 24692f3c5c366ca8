//! [`KeyTuple`]: a row's key, a tuple of 1 to 12 [`KeyValue`]s.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::{InvalidKeyValue, KeyValue};
use crate::backend::BackendKind;

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
    /// [`KeyValue::may_collate_equal`] of element `index` of two keys (`false` past the end).
    fn may_collate_equal_at(&self, other: &Self, index: usize) -> bool;
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
    /// [`KeyValue::exact_order`] of every element.
    fn exact_order() -> bool;
    /// [`KeyValue::unrepresented_sql`] of element `index` (`None` past the end).
    fn unrepresented_sql(index: usize, backend: BackendKind) -> Option<&'static str>;
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
            fn exact_order() -> bool {
                $($T::exact_order())&&+
            }
            fn unrepresented_sql(index: usize, backend: BackendKind) -> Option<&'static str> {
                match index {
                    $($idx => $T::unrepresented_sql(backend),)+
                    _ => None,
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
            fn may_collate_equal_at(&self, other: &Self, index: usize) -> bool {
                match index {
                    $($idx => self.$idx.may_collate_equal(&other.$idx),)+
                    _ => false,
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
