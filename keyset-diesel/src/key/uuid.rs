//! Key values of the `uuid` crate (feature `uuid`): the 16 bytes as one big-endian `u128`.

use std::borrow::Cow;

use super::{InvalidKeyValue, KeyValue};

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
