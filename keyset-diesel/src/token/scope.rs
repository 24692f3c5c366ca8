//! The scope a token is bound to: the request's filters, reduced to one digest that does not
//! depend on how the same filters were written down, and that no other filters share.
//!
//! The scope is serialized with serde into a canonical byte format of this file's own
//! ([`Canonical`]): every value carries a type tag, every text and every collection its length,
//! so no two different values of the serde data model give the same bytes. Map and struct
//! entries are sorted by their encoded key (a duplicate key is an error, never a silent pick),
//! sequences and tuples keep their order, and [`Unordered`] has a tag of its own that plain data
//! cannot produce. Tokens carry an HMAC of these bytes under a key derived from the signing
//! secret (`keyed_scope_digest`), so a leaked token does not let anyone test guesses of the
//! filters it was made for.

use std::cell::Cell;
use std::fmt;

use hmac::Mac;
use serde::ser::{self, Serialize};
use sha2::{Digest, Sha256};

use super::error::EncodeError;
use super::keys::{HmacSha256, SecretKey};

/// Label of the unkeyed digest ([`scope_digest`]); part of the digested bytes.
const LABEL: &[u8] = b"keyset-diesel scope v2\0";

/// SHA-256 of the canonical bytes of `scope` (see the module text and [`Unordered`]).
///
/// Canonical: struct fields and map entries in any order give the same digest; sequences and
/// tuples keep their order (`("alice", "bob")` is not `("bob", "alice")`); a set-valued filter
/// (an `IN` list) goes in [`Unordered`]. Types are kept: a struct is not a map with the same
/// entries, a unit variant is not the string of its name, `None` is not `()`, `{1: x}` is not
/// `{"1": x}`, and the names of structs and enums are part of the digest (renaming a scope type
/// makes outstanding tokens restart). All integer types of one value are one integer (`5u8` is
/// `5i64`); a `char` is a one-character string; floats are compared by their bits.
///
/// Tokens do not carry this digest but a keyed one (HMAC under a key derived from the secret);
/// this unkeyed one is for tests and comparisons.
///
/// # Errors
/// [`EncodeError::Scope`] when `scope`'s `Serialize` impl fails, or a map or struct in it has
/// the same key twice (a `#[serde(flatten)]` map holding a field of the outer struct).
pub fn scope_digest<S: Serialize + ?Sized>(scope: &S) -> Result<[u8; 32], EncodeError> {
    let bytes = canonical(scope)?;
    Ok(Sha256::new()
        .chain_update(LABEL)
        .chain_update(&bytes)
        .finalize()
        .into())
}

/// The digest tokens carry: HMAC-SHA256 of the canonical bytes of `scope` under `key`'s scope
/// key, first 16 bytes.
pub(super) fn keyed_scope_digest<S: Serialize + ?Sized>(
    key: &SecretKey,
    scope: &S,
) -> Result<[u8; 16], EncodeError> {
    let bytes = canonical(scope)?;
    let mut mac =
        <HmacSha256 as Mac>::new_from_slice(&key.scope_key[..]).expect("HMAC takes any key length");
    mac.update(&bytes);
    let tag = mac.finalize().into_bytes();
    let mut out = [0u8; 16];
    out.copy_from_slice(&tag[..16]);
    Ok(out)
}

/// The canonical bytes of `scope`.
pub(super) fn canonical<S: Serialize + ?Sized>(scope: &S) -> Result<Vec<u8>, EncodeError> {
    scope
        .serialize(Canonical { set: false })
        .map_err(|e| EncodeError::Scope(e.0))
}

/// A set-valued part of a scope (an `IN` list): its members are sorted by their canonical bytes
/// and deduplicated, so the same set in any order, with repeats or not, gives the same
/// [`scope_digest`], and it has a tag of its own (no `Vec`, map or struct gives its digest).
/// Plain `Vec`s, slices and tuples keep their order.
///
/// The order-insensitivity is a property of the scope digest: to other serializers (JSON) an
/// `Unordered` is its members as they are, in order.
///
/// ```
/// use keyset_diesel::token::{scope_digest, Unordered};
/// let a = scope_digest(&("tasks", Unordered(vec!["a", "d"]))).unwrap();
/// let b = scope_digest(&("tasks", Unordered(vec!["d", "a", "a"]))).unwrap();
/// assert_eq!(a, b);
/// assert_ne!(a, scope_digest(&("tasks", vec!["a", "d"])).unwrap());
/// assert_ne!(scope_digest(&("a", "d")).unwrap(), scope_digest(&("d", "a")).unwrap());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Unordered<T>(pub Vec<T>);

/// The newtype name `Unordered` serializes under. Plain data can use it too (`#[serde(rename)]`);
/// what makes a value a set is [`SET_NEXT`], which only [`Unordered`] sets.
const UNORDERED_NAME: &str = "$keyset_diesel::Unordered";

thread_local! {
    /// Set by `Unordered::serialize` around its call of `serialize_newtype_struct`, taken by
    /// [`Canonical`] on entry: a newtype named [`UNORDERED_NAME`] is a set only when it is set.
    static SET_NEXT: Cell<bool> = const { Cell::new(false) };
}

impl<T: Serialize> Serialize for Unordered<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        SET_NEXT.with(|flag| flag.set(true));
        let result = serializer.serialize_newtype_struct(UNORDERED_NAME, &self.0);
        SET_NEXT.with(|flag| flag.set(false));
        result
    }
}

/// Why a scope has no canonical form.
#[derive(Debug)]
pub(super) struct ScopeError(pub(super) String);

impl fmt::Display for ScopeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ScopeError {}

impl ser::Error for ScopeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        ScopeError(msg.to_string())
    }
}

/// Type tags of the canonical format. Each value is its tag, then (by tag) fixed-width
/// content, length-prefixed text, or a count and that many values: the encoding is prefix-free,
/// so concatenated values never run into each other.
mod tag {
    pub const NONE: u8 = 0x00;
    pub const SOME: u8 = 0x01;
    pub const UNIT: u8 = 0x02;
    pub const UNIT_STRUCT: u8 = 0x03;
    pub const UNIT_VARIANT: u8 = 0x04;
    pub const NEWTYPE_STRUCT: u8 = 0x05;
    pub const NEWTYPE_VARIANT: u8 = 0x06;
    pub const SEQ: u8 = 0x07;
    pub const TUPLE: u8 = 0x08;
    pub const TUPLE_STRUCT: u8 = 0x09;
    pub const TUPLE_VARIANT: u8 = 0x0a;
    pub const MAP: u8 = 0x0b;
    pub const STRUCT: u8 = 0x0c;
    pub const STRUCT_VARIANT: u8 = 0x0d;
    /// Only [`super::Unordered`] produces it.
    pub const SET: u8 = 0x0e;
    pub const BOOL: u8 = 0x10;
    /// Any integer that fits `i128`, as 16 bytes big-endian.
    pub const INT: u8 = 0x11;
    /// A `u128` above `i128::MAX`, as 16 bytes big-endian.
    pub const BIG_UINT: u8 = 0x12;
    /// `f32` or `f64`, as the 8 bytes of the `f64` bits.
    pub const FLOAT: u8 = 0x13;
    /// UTF-8 text (and `char`): length, bytes.
    pub const STR: u8 = 0x14;
    pub const BYTES: u8 = 0x15;
}

/// Appends a length (or count) as 8 bytes big-endian.
fn push_len(out: &mut Vec<u8>, len: usize) {
    out.extend_from_slice(&(len as u64).to_be_bytes());
}

/// Appends length-prefixed bytes.
fn push_text(out: &mut Vec<u8>, text: &[u8]) {
    push_len(out, text.len());
    out.extend_from_slice(text);
}

fn with_tag(tag: u8, parts: &[&[u8]]) -> Vec<u8> {
    let mut out = vec![tag];
    for part in parts {
        push_text(&mut out, part);
    }
    out
}

/// The canonical serializer: each value becomes its own bytes. `set` is true only for the
/// sequence inside a genuine [`Unordered`].
#[derive(Clone, Copy)]
struct Canonical {
    set: bool,
}

const PLAIN: Canonical = Canonical { set: false };

type Out = Result<Vec<u8>, ScopeError>;

impl ser::Serializer for Canonical {
    type Ok = Vec<u8>;
    type Error = ScopeError;
    type SerializeSeq = Seq;
    type SerializeTuple = Seq;
    type SerializeTupleStruct = Seq;
    type SerializeTupleVariant = Seq;
    type SerializeMap = Map;
    type SerializeStruct = Map;
    type SerializeStructVariant = Map;

    fn serialize_bool(self, v: bool) -> Out {
        Ok(vec![tag::BOOL, u8::from(v)])
    }
    fn serialize_i8(self, v: i8) -> Out {
        self.serialize_i128(v.into())
    }
    fn serialize_i16(self, v: i16) -> Out {
        self.serialize_i128(v.into())
    }
    fn serialize_i32(self, v: i32) -> Out {
        self.serialize_i128(v.into())
    }
    fn serialize_i64(self, v: i64) -> Out {
        self.serialize_i128(v.into())
    }
    fn serialize_i128(self, v: i128) -> Out {
        let mut out = vec![tag::INT];
        out.extend_from_slice(&v.to_be_bytes());
        Ok(out)
    }
    fn serialize_u8(self, v: u8) -> Out {
        self.serialize_i128(v.into())
    }
    fn serialize_u16(self, v: u16) -> Out {
        self.serialize_i128(v.into())
    }
    fn serialize_u32(self, v: u32) -> Out {
        self.serialize_i128(v.into())
    }
    fn serialize_u64(self, v: u64) -> Out {
        self.serialize_i128(v.into())
    }
    fn serialize_u128(self, v: u128) -> Out {
        match i128::try_from(v) {
            Ok(v) => self.serialize_i128(v),
            Err(_) => {
                let mut out = vec![tag::BIG_UINT];
                out.extend_from_slice(&v.to_be_bytes());
                Ok(out)
            }
        }
    }
    fn serialize_f32(self, v: f32) -> Out {
        self.serialize_f64(v.into())
    }
    fn serialize_f64(self, v: f64) -> Out {
        let mut out = vec![tag::FLOAT];
        out.extend_from_slice(&v.to_bits().to_be_bytes());
        Ok(out)
    }
    fn serialize_char(self, v: char) -> Out {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Out {
        Ok(with_tag(tag::STR, &[v.as_bytes()]))
    }
    fn serialize_bytes(self, v: &[u8]) -> Out {
        Ok(with_tag(tag::BYTES, &[v]))
    }
    fn serialize_none(self) -> Out {
        Ok(vec![tag::NONE])
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Out {
        let mut out = vec![tag::SOME];
        out.extend(value.serialize(PLAIN)?);
        Ok(out)
    }
    fn serialize_unit(self) -> Out {
        Ok(vec![tag::UNIT])
    }
    fn serialize_unit_struct(self, name: &'static str) -> Out {
        Ok(with_tag(tag::UNIT_STRUCT, &[name.as_bytes()]))
    }
    fn serialize_unit_variant(self, name: &'static str, _: u32, variant: &'static str) -> Out {
        Ok(with_tag(
            tag::UNIT_VARIANT,
            &[name.as_bytes(), variant.as_bytes()],
        ))
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, name: &'static str, value: &T) -> Out {
        // Take the flag whatever the name: it belongs to this call only.
        let set = SET_NEXT.with(|flag| flag.replace(false));
        if set && name == UNORDERED_NAME {
            return value.serialize(Canonical { set: true });
        }
        let mut out = with_tag(tag::NEWTYPE_STRUCT, &[name.as_bytes()]);
        out.extend(value.serialize(PLAIN)?);
        Ok(out)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Out {
        let mut out = with_tag(tag::NEWTYPE_VARIANT, &[name.as_bytes(), variant.as_bytes()]);
        out.extend(value.serialize(PLAIN)?);
        Ok(out)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Seq, ScopeError> {
        let tag = if self.set { tag::SET } else { tag::SEQ };
        Ok(Seq::new(with_tag(tag, &[]), self.set))
    }
    fn serialize_tuple(self, _: usize) -> Result<Seq, ScopeError> {
        Ok(Seq::new(with_tag(tag::TUPLE, &[]), false))
    }
    fn serialize_tuple_struct(self, name: &'static str, _: usize) -> Result<Seq, ScopeError> {
        Ok(Seq::new(
            with_tag(tag::TUPLE_STRUCT, &[name.as_bytes()]),
            false,
        ))
    }
    fn serialize_tuple_variant(
        self,
        name: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Seq, ScopeError> {
        Ok(Seq::new(
            with_tag(tag::TUPLE_VARIANT, &[name.as_bytes(), variant.as_bytes()]),
            false,
        ))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Map, ScopeError> {
        Ok(Map::new(with_tag(tag::MAP, &[])))
    }
    fn serialize_struct(self, name: &'static str, _: usize) -> Result<Map, ScopeError> {
        Ok(Map::new(with_tag(tag::STRUCT, &[name.as_bytes()])))
    }
    fn serialize_struct_variant(
        self,
        name: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Map, ScopeError> {
        Ok(Map::new(with_tag(
            tag::STRUCT_VARIANT,
            &[name.as_bytes(), variant.as_bytes()],
        )))
    }
}

/// A sequence, tuple or set being written: its head (tag and names), then its items.
struct Seq {
    head: Vec<u8>,
    items: Vec<Vec<u8>>,
    /// Sort and deduplicate the items (an [`Unordered`]).
    set: bool,
}

impl Seq {
    fn new(head: Vec<u8>, set: bool) -> Self {
        Seq {
            head,
            items: Vec::new(),
            set,
        }
    }

    fn push<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), ScopeError> {
        self.items.push(value.serialize(PLAIN)?);
        Ok(())
    }

    fn finish(mut self) -> Out {
        if self.set {
            self.items.sort_unstable();
            self.items.dedup();
        }
        let mut out = self.head;
        push_len(&mut out, self.items.len());
        for item in self.items {
            out.extend(item);
        }
        Ok(out)
    }
}

impl ser::SerializeSeq for Seq {
    type Ok = Vec<u8>;
    type Error = ScopeError;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), ScopeError> {
        self.push(value)
    }
    fn end(self) -> Out {
        self.finish()
    }
}

impl ser::SerializeTuple for Seq {
    type Ok = Vec<u8>;
    type Error = ScopeError;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), ScopeError> {
        self.push(value)
    }
    fn end(self) -> Out {
        self.finish()
    }
}

impl ser::SerializeTupleStruct for Seq {
    type Ok = Vec<u8>;
    type Error = ScopeError;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), ScopeError> {
        self.push(value)
    }
    fn end(self) -> Out {
        self.finish()
    }
}

impl ser::SerializeTupleVariant for Seq {
    type Ok = Vec<u8>;
    type Error = ScopeError;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), ScopeError> {
        self.push(value)
    }
    fn end(self) -> Out {
        self.finish()
    }
}

/// A map, struct or struct variant being written: its head, then its entries sorted by their
/// encoded key. The same key twice is an error.
struct Map {
    head: Vec<u8>,
    entries: Vec<(Vec<u8>, Vec<u8>)>,
    key: Option<Vec<u8>>,
}

impl Map {
    fn new(head: Vec<u8>) -> Self {
        Map {
            head,
            entries: Vec::new(),
            key: None,
        }
    }

    fn field<T: ?Sized + Serialize>(
        &mut self,
        name: &'static str,
        value: &T,
    ) -> Result<(), ScopeError> {
        let key = with_tag(tag::STR, &[name.as_bytes()]);
        self.entries.push((key, value.serialize(PLAIN)?));
        Ok(())
    }

    fn finish(mut self) -> Out {
        self.entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        if let Some(pair) = self.entries.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(ScopeError(format!(
                "the scope has the key {} twice in one map or struct",
                describe_key(&pair[0].0)
            )));
        }
        let mut out = self.head;
        push_len(&mut out, self.entries.len());
        for (key, value) in self.entries {
            out.extend(key);
            out.extend(value);
        }
        Ok(out)
    }
}

/// A key for an error message: its text when it is a string.
fn describe_key(key: &[u8]) -> String {
    match key.split_first() {
        Some((&tag::STR, rest)) if rest.len() >= 8 => {
            format!("{:?}", String::from_utf8_lossy(&rest[8..]))
        }
        _ => "(a non-string key)".to_string(),
    }
}

impl ser::SerializeMap for Map {
    type Ok = Vec<u8>;
    type Error = ScopeError;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<(), ScopeError> {
        self.key = Some(key.serialize(PLAIN)?);
        Ok(())
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), ScopeError> {
        let key = self
            .key
            .take()
            .ok_or_else(|| ScopeError("a map value without its key".to_string()))?;
        self.entries.push((key, value.serialize(PLAIN)?));
        Ok(())
    }
    fn end(self) -> Out {
        self.finish()
    }
}

impl ser::SerializeStruct for Map {
    type Ok = Vec<u8>;
    type Error = ScopeError;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        name: &'static str,
        value: &T,
    ) -> Result<(), ScopeError> {
        self.field(name, value)
    }
    fn end(self) -> Out {
        self.finish()
    }
}

impl ser::SerializeStructVariant for Map {
    type Ok = Vec<u8>;
    type Error = ScopeError;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        name: &'static str,
        value: &T,
    ) -> Result<(), ScopeError> {
        self.field(name, value)
    }
    fn end(self) -> Out {
        self.finish()
    }
}

#[cfg(test)]
mod tests;
