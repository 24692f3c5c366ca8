//! [`CursorCodec`]: cursors into tokens and back.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

use super::error::{CursorError, EncodeError};
use super::keys::{unix_seconds, Clock, SecretKey};
use super::scope::keyed_scope_digest;
#[cfg(any(doc, feature = "export"))]
use super::scope_digest;
#[cfg(feature = "encrypted-tokens")]
use super::wire::VERSION_ENCRYPTED;
use super::wire::{self, Payload, VERSION_SIGNED};
#[cfg(doc)]
use super::DEFAULT_MAX_TOKEN_LEN;
use crate::cursor::Cursor;
use crate::key::KeyTuple;
use crate::keyset::{column_name, Keyset};
use crate::sort::SortChoice;

/// Turns cursors into tokens and back: opaque, signed, versioned, expiring tokens bound to the
/// query, what a client carries between requests instead of a [`Cursor`]. Cheap to clone;
/// share one per application.
///
/// # What a token holds
///
/// A token is base64url text (no padding) of a format version, the id of the key that signed
/// it, a payload and an HMAC-SHA256 tag over all of it. The payload holds the digest of the
/// keyset's [sort signature](Keyset::sort_signature), a keyed digest of the scope (an HMAC of
/// its canonical form, [`scope_digest`], under a key derived from the secret), the walk
/// direction, the page size the cursor was made with (if recorded), the expiry time, and the
/// key values in a compact binary form of their lossless forms
/// ([`KeyValue`](crate::query::KeyValue)). Format version 3 carries the payload as it is;
/// version 4 (feature `encrypted-tokens`) pads it to its size class (256 bytes by default,
/// then multiples of 128) and seals it with XChaCha20-Poly1305 under a random nonce. A 3-column key (timestamp, text, integer) makes a
/// signed token of about 130 characters; a key with a 1,000-character text column at most
/// about 5,750 (the default maximum is [`DEFAULT_MAX_TOKEN_LEN`], 6,144).
///
/// # Guarantees and limits
///
/// * **Integrity**: a token that was not made by a codec holding one of the configured secrets,
///   or was changed in any byte, is refused ([`CursorError::BadSignature`]). The tag is checked
///   in constant time, before anything in the payload is read.
/// * **Binding**: a token is accepted only for the same keyset (sort signature: table by Rust
///   path and by the schema-qualified SQL name, columns, directions, NULL placement, key
///   types) and the same scope (your filters), and only until it expires; and never for longer
///   than the codec's current time to live plus the allowed clock skew.
/// * **Not secret** unless the feature `encrypted-tokens` is on and the codec is built with
///   [`CursorCodecBuilder::encrypted`](super::CursorCodecBuilder::encrypted): a signed token's payload is readable by anyone (key
///   values included). Do not put secrets in key columns of a signed-only token. An encrypted
///   token still shows the length of its key values to within 128 bytes.
/// * **Grants nothing**: the request's own filters and authorization apply on every request; the
///   token only says where to resume inside them.
/// * Every decoding failure is a [`CursorError`] whose meaning for the client is "restart from
///   the first page" ([`CursorError::restart_from_first_page`]), answered with one status, one
///   text and a stable code ([`Problem`](crate::web::Problem)); never a panic.
///
/// # Example
///
/// ```
/// # include!("../doctest_setup.rs");
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let conn = &mut setup();
/// use keyset_diesel::token::{CursorError, SecretKey};
/// use keyset_diesel::CursorCodec;
/// let codec = CursorCodec::builder()
///     .signing_key(SecretKey::new(2, b"a 32+ byte secret from your secret store")?)
///     .verifying_key(SecretKey::new(1, b"last month's secret, still accepted.....")?)
///     .ttl(std::time::Duration::from_secs(3600))
///     .build()?;
/// let scope = ("W9", "all"); // the request's filters
/// let page = events::table
///     .filter(events::workspace_id.eq("W9"))
///     .select(Event::as_select())
///     .paginate_after(None)
///     .page_size(3)
///     .load_page(conn)?;
/// let next = page.next_cursor().expect("there is a next page");
/// let token = codec.encode_with_page_size(&next, page.page_size, &scope)?;
///
/// // Next request: the client sends the token back.
/// let cursor = codec.decode::<Event>(&token, &scope)?;
/// let next = events::table
///     .filter(events::workspace_id.eq("W9"))
///     .select(Event::as_select())
///     .paginate_after(Some(cursor))
///     .page_size(3)
///     .load_page(conn)?;
/// assert_eq!(next.items[0].event_id, "e104");
///
/// // Another workspace's request cannot use it.
/// let error = codec.decode::<Event>(&token, &("W7", "all")).unwrap_err();
/// assert_eq!(error, CursorError::ScopeMismatch);
/// assert!(error.restart_from_first_page());
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct CursorCodec {
    pub(super) inner: Arc<Inner>,
}

pub(super) struct Inner {
    pub(super) signing: SecretKey,
    pub(super) verifying: Vec<SecretKey>,
    pub(super) ttl: Duration,
    pub(super) clock_skew: Duration,
    pub(super) clock: Box<dyn Clock>,
    pub(super) max_len: usize,
    #[cfg(feature = "encrypted-tokens")]
    pub(super) encrypted: bool,
    /// The smallest sealed payload, in bytes (0: none): `CursorCodecBuilder::sealed_size_class`.
    #[cfg(feature = "encrypted-tokens")]
    pub(super) sealed_len: usize,
}

impl fmt::Debug for CursorCodec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CursorCodec")
            .field("signing_key_id", &self.inner.signing.id)
            .field(
                "verifying_key_ids",
                &self
                    .inner
                    .verifying
                    .iter()
                    .map(|k| k.id)
                    .collect::<Vec<_>>(),
            )
            .field("ttl", &self.inner.ttl)
            .field("clock_skew", &self.inner.clock_skew)
            .field("max_len", &self.inner.max_len)
            .finish_non_exhaustive()
    }
}

/// Details of a verified token beyond its cursor.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodedToken<K: Keyset> {
    /// Where to resume.
    pub cursor: Cursor<K>,
    /// The page size the token was made with, if it was recorded (see
    /// [`CursorCodec::encode_with_page_size`]). Not binding: a request may ask for another.
    pub page_size: Option<u32>,
    /// When the token expires, in Unix seconds.
    pub expires_at: u64,
}

impl CursorCodec {
    /// Longest time to live a codec accepts: 30 days.
    pub const MAX_TTL: Duration = Duration::from_secs(30 * 24 * 3600);
    /// Default clock skew allowed between the servers sharing a secret: one minute (see
    /// [`CursorCodecBuilder::max_clock_skew`](super::CursorCodecBuilder::max_clock_skew)).
    pub const DEFAULT_CLOCK_SKEW: Duration = Duration::from_secs(60);
    /// Largest clock skew a codec accepts: one hour.
    pub const MAX_CLOCK_SKEW: Duration = Duration::from_secs(3600);
    /// The size class of encrypted tokens unless
    /// [`CursorCodecBuilder::sealed_size_class`](super::CursorCodecBuilder::sealed_size_class)
    /// says otherwise, in bytes of sealed payload: 256, so keys whose values encode to up to
    /// about 210 bytes (a timestamp, an id and a 150-character name or email) all make tokens
    /// of one length (about 440 characters).
    #[cfg(feature = "encrypted-tokens")]
    pub const DEFAULT_SEALED_SIZE_CLASS: usize = 256;

    /// The smallest sealed payload (`CursorCodecBuilder::sealed_size_class`, else
    /// [`CursorCodec::DEFAULT_SEALED_SIZE_CLASS`]).
    #[cfg(feature = "encrypted-tokens")]
    fn sealed_len(&self) -> usize {
        self.inner.sealed_len
    }

    /// Without the feature nothing is sealed.
    #[cfg(not(feature = "encrypted-tokens"))]
    fn sealed_len(&self) -> usize {
        0
    }

    /// The format version this codec writes, and the only one it reads: switching encryption
    /// on or off makes outstanding tokens restart.
    fn version(&self) -> u8 {
        #[cfg(feature = "encrypted-tokens")]
        if self.inner.encrypted {
            return VERSION_ENCRYPTED;
        }
        VERSION_SIGNED
    }

    /// A token for `cursor` under `scope` (the request's filters), expiring after the
    /// codec's time to live. It records no page size.
    ///
    /// # Errors
    /// [`EncodeError`] when `scope` does not serialize.
    pub fn encode<K: Keyset, S: Serialize + ?Sized>(
        &self,
        cursor: &Cursor<K>,
        scope: &S,
    ) -> Result<String, EncodeError> {
        self.encode_inner(cursor, None, scope)
    }

    /// A token for `cursor` that also records the page size it was made with (returned by
    /// [`CursorCodec::decode_token`] as a default for the next request; not binding).
    ///
    /// # Errors
    /// [`EncodeError`] when `scope` does not serialize.
    pub fn encode_with_page_size<K: Keyset, S: Serialize + ?Sized>(
        &self,
        cursor: &Cursor<K>,
        page_size: u32,
        scope: &S,
    ) -> Result<String, EncodeError> {
        self.encode_inner(cursor, Some(page_size), scope)
    }

    fn encode_inner<K: Keyset, S: Serialize + ?Sized>(
        &self,
        cursor: &Cursor<K>,
        page_size: Option<u32>,
        scope: &S,
    ) -> Result<String, EncodeError> {
        let inner = &*self.inner;
        let expires_at = unix_seconds(inner.clock.now()).saturating_add(inner.ttl.as_secs());
        cursor.key.check_key().map_err(|(index, e)| {
            EncodeError::Key(format!("key column `{}`: {e}", column_name::<K>(index)))
        })?;
        let key = postcard::to_allocvec(&cursor.key.to_repr())
            .map_err(|e| EncodeError::Key(e.to_string()))?;
        let payload = Payload {
            sort: K::sort_signature_digest(),
            scope: keyed_scope_digest(&inner.signing, scope)?,
            direction: wire::direction_byte(cursor.direction),
            page_size: page_size.unwrap_or(0),
            expires_at,
            key: &key,
        };
        let mut bytes = Vec::with_capacity(wire::FIXED_LEN + key.len());
        payload.write(&mut bytes);
        self.checked_len(
            wire::encode(&inner.signing, self.version(), &bytes, self.sealed_len()),
            key.len(),
        )
    }

    /// Never issue a token `decode` would refuse as too long.
    fn checked_len(&self, token: String, key_bytes: usize) -> Result<String, EncodeError> {
        let max = self.inner.max_len;
        if token.len() > max {
            return Err(EncodeError::TooLong {
                len: token.len(),
                max,
                key_bytes,
            });
        }
        Ok(token)
    }

    /// The cursor in `token`, if the token is intact, unexpired, and made for keyset `K` and
    /// this `scope`.
    ///
    /// # Errors
    /// A [`CursorError`], each meaning "restart from the first page".
    pub fn decode<K: Keyset>(
        &self,
        token: &str,
        scope: &(impl Serialize + ?Sized),
    ) -> Result<Cursor<K>, CursorError> {
        self.decode_token(token, scope).map(|t| t.cursor)
    }

    /// Like [`CursorCodec::decode`], with the token's recorded page size and expiry.
    ///
    /// # Errors
    /// A [`CursorError`], each meaning "restart from the first page".
    pub fn decode_token<K: Keyset>(
        &self,
        token: &str,
        scope: &(impl Serialize + ?Sized),
    ) -> Result<DecodedToken<K>, CursorError> {
        self.open(
            token,
            scope,
            |sort| {
                if *sort == K::sort_signature_digest() {
                    Ok(())
                } else {
                    Err(CursorError::SortMismatch)
                }
            },
            |(), payload| {
                let direction =
                    wire::direction_of(payload.direction).ok_or(CursorError::Malformed)?;
                // Only now, for the right keyset, read the key values as its types: all of
                // the bytes.
                let (repr, rest): (<K::Key as KeyTuple>::Repr, _) =
                    postcard::take_from_bytes(payload.key).map_err(|_| CursorError::Malformed)?;
                if !rest.is_empty() {
                    return Err(CursorError::Malformed);
                }
                let key = K::Key::from_repr(repr).map_err(|_| CursorError::Malformed)?;
                Ok(DecodedToken {
                    cursor: Cursor { key, direction },
                    page_size: (payload.page_size != 0).then_some(payload.page_size),
                    expires_at: payload.expires_at,
                })
            },
        )
    }

    /// The named sort a token was made in: the variant of `S` (a model's `<Model>Sort`)
    /// whose row type's sort signature the token carries, once the token is verified exactly
    /// as [`decode`](Self::decode) verifies it (intact, unexpired, this `scope`). A request
    /// that carries a cursor and no `?sort=` continues in its token's sort this way; one whose
    /// `?sort=` names another sort than its token's is refused with
    /// [`CursorError::SortMismatch`] by `decode` (the `sort_mismatch` problem from
    /// [`PageParams::resolve_sort`](crate::web::PageParams::resolve_sort)).
    ///
    /// ```
    /// # include!("../doctest_setup.rs");
    /// use keyset_diesel::token::{CursorError, SecretKey};
    /// use keyset_diesel::{Cursor, CursorCodec, SortChoice};
    ///
    /// #[derive(Queryable, Selectable, Keyset)]
    /// #[diesel(table_name = events)]
    /// #[keyset(sort(Oldest(occurred_at(asc), event_id(asc)), Latest(occurred_at(desc), event_id(desc))))]
    /// struct Post {
    ///     #[keyset(asc, unique)]
    ///     event_id: String,
    ///     occurred_at: chrono::NaiveDateTime,
    /// }
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let codec = CursorCodec::builder()
    ///     .signing_key(SecretKey::new(1, b"a 32+ byte secret from your secret store")?)
    ///     .build()?;
    /// let at = chrono::NaiveDate::from_ymd_opt(2026, 1, 2).unwrap().and_hms_opt(3, 4, 5).unwrap();
    /// let token = codec.encode(&Cursor::<PostByLatest>::after((at, "e9".to_string())), &"W9")?;
    /// assert_eq!(codec.peek_sort::<PostSort>(&token, &"W9")?, PostSort::Latest);
    /// assert_eq!(codec.peek_sort::<PostSort>(&token, &"W7"), Err(CursorError::ScopeMismatch));
    /// // The model's own keyset is no named sort of it.
    /// let own = codec.encode(&Cursor::<Post>::after(("e9".to_string(),)), &"W9")?;
    /// assert_eq!(codec.peek_sort::<PostSort>(&own, &"W9"), Err(CursorError::SortMismatch));
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    /// The [`CursorError`]s of [`decode`](Self::decode); [`CursorError::SortMismatch`] when
    /// the token was made for a keyset that is none of `S`'s sorts.
    pub fn peek_sort<S: SortChoice>(
        &self,
        token: &str,
        scope: &(impl Serialize + ?Sized),
    ) -> Result<S, CursorError> {
        self.open(
            token,
            scope,
            |sort| {
                S::ALL
                    .iter()
                    .copied()
                    .find(|s| crate::signature::digest(&s.sort_signature()) == *sort)
                    .ok_or(CursorError::SortMismatch)
            },
            |s, _| Ok(s),
        )
    }

    /// Verifies `token` (length, signature or seal, expiry, lifetime), asks `sort` about the
    /// sort digest it carries, checks its scope, and then reads the payload with `read`: the
    /// one order of checks every decode follows.
    fn open<T, R>(
        &self,
        token: &str,
        scope: &(impl Serialize + ?Sized),
        sort: impl FnOnce(&[u8; 16]) -> Result<T, CursorError>,
        read: impl FnOnce(T, &Payload<'_>) -> Result<R, CursorError>,
    ) -> Result<R, CursorError> {
        let inner = &*self.inner;
        if token.len() > inner.max_len {
            return Err(CursorError::TooLong { max: inner.max_len });
        }
        let (key, plain) = wire::decode(
            token,
            self.version(),
            |id| {
                std::iter::once(&inner.signing)
                    .chain(&inner.verifying)
                    .find(|k| k.id == id)
            },
            &inner.signing,
        )?;
        // Signed by us: from here on the bytes are ours.
        let payload = Payload::read(&plain).ok_or(CursorError::Malformed)?;
        let now = unix_seconds(inner.clock.now());
        if now >= payload.expires_at {
            return Err(CursorError::Expired {
                expired_at: payload.expires_at,
            });
        }
        // The lifetime: never more than the time to live now configured, plus the skew.
        let latest = now
            .saturating_add(inner.ttl.as_secs())
            .saturating_add(inner.clock_skew.as_secs());
        if payload.expires_at > latest {
            return Err(CursorError::LifetimeTooLong {
                expires_at: payload.expires_at,
            });
        }
        let found = sort(&payload.sort)?;
        let expected_scope =
            keyed_scope_digest(key, scope).map_err(|_| CursorError::ScopeNotSerializable)?;
        if payload.scope != expected_scope {
            return Err(CursorError::ScopeMismatch);
        }
        read(found, &payload)
    }
}

/// Test hooks for the fuzz targets in `fuzz/` (feature `__fuzzing`): they sign bytes the
/// codec did not write, to fuzz what lies past the signature. Not part of the API.
#[cfg(feature = "__fuzzing")]
#[doc(hidden)]
impl CursorCodec {
    /// A token of this codec's format (signed, or signed and sealed) whose payload is `payload`
    /// as it is.
    pub fn __fuzz_sign_payload(&self, payload: &[u8]) -> String {
        wire::encode(
            &self.inner.signing,
            self.version(),
            payload,
            self.sealed_len(),
        )
    }

    /// A payload for keyset `K` and `scope` (right digests) with the given direction byte, page
    /// size, expiry and key value bytes.
    pub fn __fuzz_payload<K: Keyset, S: Serialize + ?Sized>(
        &self,
        scope: &S,
        direction: u8,
        page_size: u32,
        expires_at: u64,
        key: &[u8],
    ) -> Vec<u8> {
        let mut out = Vec::new();
        Payload {
            sort: K::sort_signature_digest(),
            scope: keyed_scope_digest(&self.inner.signing, scope).expect("a fuzz scope serializes"),
            direction,
            page_size,
            expires_at,
            key,
        }
        .write(&mut out);
        out
    }

    /// The clock's now, in Unix seconds.
    pub fn __fuzz_now(&self) -> u64 {
        unix_seconds(self.inner.clock.now())
    }
}

/// The scope an [`ExportStore`](crate::export::ExportStore) keeps with an export: keyed, so a
/// reader of the store's table cannot test guesses of a low-entropy scope (a tenant's name)
/// offline, and naming its key id, so an export stays readable after the signing key rotates
/// while the old key still verifies.
#[cfg(feature = "export")]
impl CursorCodec {
    /// `k<key id>:<hex of the keyed scope digest>` under the signing key.
    pub(crate) fn stored_scope<S: Serialize + ?Sized>(
        &self,
        scope: &S,
    ) -> Result<String, EncodeError> {
        let key = &self.inner.signing;
        Ok(format!(
            "k{}:{}",
            key.id,
            hex16(&keyed_scope_digest(key, scope)?)
        ))
    }

    /// Whether `stored` ([`CursorCodec::stored_scope`] of some key this codec still knows, or
    /// the unkeyed hex SHA-256 of exports stored before) is `scope`'s. An unknown key id is not.
    pub(crate) fn stored_scope_is<S: Serialize + ?Sized>(
        &self,
        stored: &str,
        scope: &S,
    ) -> Result<bool, EncodeError> {
        let expected = match stored
            .strip_prefix('k')
            .and_then(|rest| rest.split_once(':'))
            .and_then(|(id, _)| id.parse::<u16>().ok())
        {
            Some(id) => {
                let inner = &*self.inner;
                let Some(key) = std::iter::once(&inner.signing)
                    .chain(&inner.verifying)
                    .find(|k| k.id == id)
                else {
                    return Ok(false);
                };
                format!("k{id}:{}", hex16(&keyed_scope_digest(key, scope)?))
            }
            None => scope_digest(scope)?
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect(),
        };
        // Compared without an early exit.
        Ok(expected.len() == stored.len()
            && expected
                .bytes()
                .zip(stored.bytes())
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                == 0)
    }
}

#[cfg(feature = "export")]
fn hex16(bytes: &[u8; 16]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests;
