//! Opaque, signed, versioned, expiring cursor tokens bound to the query (seed articles 000 and
//! 003): what a client carries between requests instead of a [`Cursor`].
//!
//! # Layout
//!
//! `base64url_no_pad( version || key id || payload || tag )`:
//!
//! | bytes | field |
//! |---|---|
//! | 1 | format version: `1` signed, `2` signed and encrypted (feature `encrypted-tokens`) |
//! | 2 | key id, big-endian: which secret signed it |
//! | n | version 1: the payload; version 2: a 24-byte nonce, then the payload encrypted with XChaCha20-Poly1305 and its 16-byte Poly1305 tag |
//! | 32 | HMAC-SHA256 over all the bytes before it |
//!
//! The payload:
//!
//! | bytes | field |
//! |---|---|
//! | 16 | SHA-256 of the keyset's [sort signature](Keyset::sort_signature), first 16 bytes |
//! | 16 | SHA-256 of the canonical scope ([`scope_digest`]), first 16 bytes |
//! | 1 | walk direction: 0 forward, 1 backward |
//! | 4 | page size the cursor was made with, big-endian; 0 if not recorded |
//! | 8 | `expires_at`, Unix seconds, big-endian |
//! | n | the key values as a JSON array of their lossless forms ([`crate::value`]) |
//!
//! A 3-column key (timestamp, text, integer) makes a token of about 150 characters.
//!
//! # Guarantees and limits
//!
//! * **Integrity**: a token that was not made by a codec holding one of the configured secrets,
//!   or was changed in any byte, is refused ([`CursorError::BadSignature`]). The tag is checked
//!   in constant time, before anything in the payload is read.
//! * **Binding**: a token is accepted only for the same keyset (sort signature: table, columns,
//!   directions, NULL placement, key types) and the same scope (your filters), and only until it
//!   expires.
//! * **Not secret** unless the feature `encrypted-tokens` is on and the codec is built with
//!   [`CursorCodecBuilder::encrypted`]: a signed token's payload is base64 JSON that anyone can
//!   read, key values included. Do not put secrets in key columns of a signed-only token.
//! * **Grants nothing**: the request's own filters and authorization apply on every request; the
//!   token only says where to resume inside them.
//! * Every decoding failure is a [`CursorError`] whose meaning for the client is "restart from
//!   the first page" ([`CursorError::restart_from_first_page`]); never a panic.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use hmac::{Hmac, Mac};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::cursor::{Cursor, Direction};
use crate::keyset::Keyset;
use crate::page::Page;
use crate::value::KeyTuple;

type HmacSha256 = Hmac<Sha256>;

/// Format version of signed tokens.
pub const VERSION_SIGNED: u8 = 1;
/// Format version of signed and encrypted tokens.
pub const VERSION_ENCRYPTED: u8 = 2;
/// Shortest secret accepted, in bytes.
pub const MIN_SECRET_LEN: usize = 32;
/// Default longest token accepted, in characters (checked before decoding anything).
pub const DEFAULT_MAX_TOKEN_LEN: usize = 2048;
/// Default time to live of a token: one hour.
pub const DEFAULT_TTL: Duration = Duration::from_secs(3600);

const TAG_LEN: usize = 32;
const HEADER_LEN: usize = 3;

/// Why a token was refused. Every variant means the same thing to the client: **restart from
/// the first page** (and to the API: answer the status of [`CursorError::http_status`]). The
/// `Display` text is safe to show a client: it names no secret and echoes nothing of the token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CursorError {
    /// Not a token: not base64url, too short, or a payload that does not parse into this
    /// keyset's key (wrong number or type of values, NULL for a NOT NULL column). HTTP 400.
    #[error("invalid cursor: not a cursor token; restart from the first page")]
    Malformed,
    /// Longer than the codec's maximum (checked before decoding). HTTP 400.
    #[error("invalid cursor: longer than {max} characters; restart from the first page")]
    TooLong {
        /// The maximum length, in characters.
        max: usize,
    },
    /// The signature does not verify: the token was altered or made elsewhere. HTTP 400.
    #[error("invalid cursor: signature does not verify; restart from the first page")]
    BadSignature,
    /// Signed with a key id this codec does not hold (a retired key). HTTP 400.
    #[error("invalid cursor: signed with a retired or unknown key; restart from the first page")]
    UnknownKeyId,
    /// A format version this codec does not read. HTTP 400.
    #[error("invalid cursor: unsupported format version; restart from the first page")]
    UnsupportedVersion,
    /// Expired at `expired_at` (Unix seconds). HTTP 400.
    #[error("invalid cursor: expired at {expired_at} (Unix seconds); restart from the first page")]
    Expired {
        /// When the token stopped being valid, in seconds since 1970-01-01T00:00:00Z.
        expired_at: u64,
    },
    /// Made for other filters (another scope). HTTP 400.
    #[error("invalid cursor: made for other filters; restart from the first page")]
    ScopeMismatch,
    /// Made for another ordering or model (another sort signature). HTTP 400.
    #[error("invalid cursor: made for another sort order; restart from the first page")]
    SortMismatch,
    /// The *server's* scope value did not serialize (a map with non-string keys, a failing
    /// `Serialize` impl): a bug on the server, not in the token. HTTP 500; restarting does not
    /// help.
    #[error("the server could not serialize the cursor scope")]
    ScopeNotSerializable,
}

impl CursorError {
    /// The HTTP status an API should answer: `400 Bad Request` for every variant about the
    /// token (the request carries a cursor the server will not use; the client restarts from
    /// the first page), `500` for [`CursorError::ScopeNotSerializable`] (a server bug).
    pub const fn http_status(&self) -> u16 {
        match self {
            CursorError::ScopeNotSerializable => 500,
            _ => 400,
        }
    }

    /// `true` when the client should drop the token and request the first page again: every
    /// variant about the token. `false` only for [`CursorError::ScopeNotSerializable`].
    pub const fn restart_from_first_page(&self) -> bool {
        !matches!(self, CursorError::ScopeNotSerializable)
    }
}

/// Why a token could not be made. A server problem, not a client error: HTTP 500.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EncodeError {
    /// The scope (or a key value) did not serialize to JSON: a map with non-string keys, or a
    /// `Serialize` impl that fails.
    #[error("cursor scope cannot be serialized: {0}")]
    Scope(#[from] serde_json::Error),
    /// The token would be longer than the codec accepts back
    /// ([`CursorCodecBuilder::max_token_len`]): the key values are too long (long text keys).
    /// Raise the maximum, or key on shorter columns.
    #[error("the cursor token would be {len} characters, more than the codec's maximum {max}")]
    TooLong {
        /// The token's length, in characters.
        len: usize,
        /// The codec's maximum.
        max: usize,
    },
}

/// A secret key for signing (and, encrypted, sealing) tokens, with the id written in tokens.
#[derive(Clone)]
pub struct SecretKey {
    id: u16,
    mac: HmacSha256,
    #[cfg(feature = "encrypted-tokens")]
    enc: [u8; 32],
}

impl fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SecretKey")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

/// Why a codec could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CodecConfigError {
    /// A secret shorter than [`MIN_SECRET_LEN`] bytes.
    #[error("secret key {id} is {len} bytes; at least {MIN_SECRET_LEN} are required")]
    SecretTooShort {
        /// The key id.
        id: u16,
        /// Its length in bytes.
        len: usize,
    },
    /// Two keys with the same id.
    #[error("two secret keys have the id {0}")]
    DuplicateKeyId(u16),
    /// No signing key was given.
    #[error("a cursor codec needs a signing key")]
    NoSigningKey,
    /// A time to live of zero.
    #[error("the time to live must be at least one second")]
    ZeroTtl,
}

impl SecretKey {
    /// A key from `secret` (at least 32 bytes of high-entropy data: use a random value from
    /// your secret store, not a password). The signing key and the encryption key are derived
    /// from it with HMAC-SHA256 under distinct labels.
    ///
    /// # Errors
    /// [`CodecConfigError::SecretTooShort`].
    pub fn new(id: u16, secret: &[u8]) -> Result<Self, CodecConfigError> {
        if secret.len() < MIN_SECRET_LEN {
            return Err(CodecConfigError::SecretTooShort {
                id,
                len: secret.len(),
            });
        }
        let derive = |label: &[u8]| -> [u8; 32] {
            let mut m =
                <HmacSha256 as Mac>::new_from_slice(secret).expect("HMAC takes any key length");
            m.update(label);
            m.finalize().into_bytes().into()
        };
        let mac_key = derive(b"keyset-diesel token mac v1");
        Ok(SecretKey {
            id,
            mac: <HmacSha256 as Mac>::new_from_slice(&mac_key).expect("HMAC takes any key length"),
            #[cfg(feature = "encrypted-tokens")]
            enc: derive(b"keyset-diesel token enc v1"),
        })
    }

    /// The key id written in tokens.
    pub fn id(&self) -> u16 {
        self.id
    }
}

/// Where "now" comes from. Tests replace it; the default is the system clock.
pub trait Clock: Send + Sync {
    /// The current time.
    fn now(&self) -> SystemTime;
}

/// The system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> SystemTime {
        SystemTime::now()
    }
}

impl<F: Fn() -> SystemTime + Send + Sync> Clock for F {
    fn now(&self) -> SystemTime {
        self()
    }
}

/// Turns cursors into tokens and back. Cheap to clone; share one per application.
///
/// ```
/// # include!("doctest_setup.rs");
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let conn = &mut setup();
/// use keyset_diesel::{CursorCodec, SecretKey};
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
/// let token = codec.encode_page_cursor(&page, &scope)?.expect("there is a next page");
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
/// assert!(error.restart_from_first_page());
/// assert_eq!(error.http_status(), 400);
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct CursorCodec {
    inner: Arc<Inner>,
}

struct Inner {
    signing: SecretKey,
    verifying: Vec<SecretKey>,
    ttl: Duration,
    clock: Box<dyn Clock>,
    max_len: usize,
    #[cfg(feature = "encrypted-tokens")]
    encrypted: bool,
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
            .field("max_len", &self.inner.max_len)
            .finish_non_exhaustive()
    }
}

/// Builds a [`CursorCodec`].
#[derive(Default)]
pub struct CursorCodecBuilder {
    signing: Option<SecretKey>,
    verifying: Vec<SecretKey>,
    ttl: Option<Duration>,
    clock: Option<Box<dyn Clock>>,
    max_len: Option<usize>,
    #[cfg(feature = "encrypted-tokens")]
    encrypted: bool,
}

impl fmt::Debug for CursorCodecBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CursorCodecBuilder").finish_non_exhaustive()
    }
}

impl CursorCodecBuilder {
    /// The key new tokens are signed with (also accepted when verifying).
    pub fn signing_key(mut self, key: SecretKey) -> Self {
        self.signing = Some(key);
        self
    }

    /// A key still accepted when verifying, not used to sign (a key being rotated out).
    /// Remove it once its tokens have expired: its tokens then give
    /// [`CursorError::UnknownKeyId`].
    pub fn verifying_key(mut self, key: SecretKey) -> Self {
        self.verifying.push(key);
        self
    }

    /// How long a token stays valid after it was made (whole seconds; default one hour).
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = Some(ttl);
        self
    }

    /// The clock (default: the system clock). Tests use a fixed or movable one.
    pub fn clock(mut self, clock: impl Clock + 'static) -> Self {
        self.clock = Some(Box::new(clock));
        self
    }

    /// Longest token accepted, in characters (default [`DEFAULT_MAX_TOKEN_LEN`]).
    pub fn max_token_len(mut self, max: usize) -> Self {
        self.max_len = Some(max);
        self
    }

    /// Encrypt the payload as well (XChaCha20-Poly1305), so a client cannot read the key
    /// values. Tokens get format version 2.
    #[cfg(feature = "encrypted-tokens")]
    pub fn encrypted(mut self, encrypted: bool) -> Self {
        self.encrypted = encrypted;
        self
    }

    /// The codec.
    ///
    /// # Errors
    /// [`CodecConfigError`]: no signing key, two keys with one id, or a zero time to live.
    pub fn build(self) -> Result<CursorCodec, CodecConfigError> {
        let signing = self.signing.ok_or(CodecConfigError::NoSigningKey)?;
        let mut ids = vec![signing.id];
        for key in &self.verifying {
            if ids.contains(&key.id) {
                return Err(CodecConfigError::DuplicateKeyId(key.id));
            }
            ids.push(key.id);
        }
        let ttl = self.ttl.unwrap_or(DEFAULT_TTL);
        if ttl.as_secs() == 0 {
            return Err(CodecConfigError::ZeroTtl);
        }
        Ok(CursorCodec {
            inner: Arc::new(Inner {
                signing,
                verifying: self.verifying,
                ttl,
                clock: self.clock.unwrap_or_else(|| Box::new(SystemClock)),
                max_len: self.max_len.unwrap_or(DEFAULT_MAX_TOKEN_LEN),
                #[cfg(feature = "encrypted-tokens")]
                encrypted: self.encrypted,
            }),
        })
    }
}

/// Length of the truncated SHA-256 digests of sort signature and scope, in bytes.
const DIGEST_LEN: usize = 16;
/// `sort digest || scope digest || direction || page size || expires_at`.
const FIXED_LEN: usize = 2 * DIGEST_LEN + 1 + 4 + 8;

/// The payload: a fixed binary part, then the key values as JSON (lossless reprs, see
/// [`crate::value`]). Decoding keeps the key values as text until the sort signature and scope
/// are known to match, then parses them as the keyset's types.
struct Payload<'a> {
    sort: [u8; DIGEST_LEN],
    scope: [u8; DIGEST_LEN],
    direction: u8,
    /// 0: not recorded.
    page_size: u32,
    /// Unix seconds.
    expires_at: u64,
    key: &'a [u8],
}

impl<'a> Payload<'a> {
    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.sort);
        out.extend_from_slice(&self.scope);
        out.push(self.direction);
        out.extend_from_slice(&self.page_size.to_be_bytes());
        out.extend_from_slice(&self.expires_at.to_be_bytes());
        out.extend_from_slice(self.key);
    }

    fn read(bytes: &'a [u8]) -> Option<Self> {
        if bytes.len() < FIXED_LEN {
            return None;
        }
        let (fixed, key) = bytes.split_at(FIXED_LEN);
        let (sort, rest) = fixed.split_at(DIGEST_LEN);
        let (scope, rest) = rest.split_at(DIGEST_LEN);
        let (direction, rest) = rest.split_at(1);
        let (page_size, expires_at) = rest.split_at(4);
        Some(Payload {
            sort: sort.try_into().ok()?,
            scope: scope.try_into().ok()?,
            direction: direction[0],
            page_size: u32::from_be_bytes(page_size.try_into().ok()?),
            expires_at: u64::from_be_bytes(expires_at.try_into().ok()?),
            key,
        })
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

/// SHA-256 of the canonical JSON of `scope`, the digest tokens are bound to.
///
/// Canonical: objects (structs, maps) with their keys sorted and no insignificant white space,
/// so the same fields listed in another order give the same digest. Sequences and tuples keep
/// their order (`("alice", "bob")` is not `("bob", "alice")`). For a set-valued filter (an
/// `IN` list), wrap it in [`Unordered`]: its members are sorted and deduplicated, so
/// `Unordered(vec!["a", "d"])` and `Unordered(vec!["d", "a", "a"])` give the same digest.
///
/// Limits of JSON: non-finite floats serialize as `null` (so `Some(f64::NAN)` and `None`
/// collide: keep floats out of scopes) and map keys become strings (`{1: x}` and `{"1": x}`
/// collide).
///
/// # Errors
/// [`EncodeError`] when `scope` does not serialize to JSON.
pub fn scope_digest<S: Serialize + ?Sized>(scope: &S) -> Result<[u8; 32], EncodeError> {
    let value = serde_json::to_value(scope)?;
    let mut text = Vec::with_capacity(128);
    text.extend_from_slice(b"keyset-diesel scope v1\0");
    write_canonical(&value, &mut text)?;
    Ok(Sha256::digest(&text).into())
}

/// Writes the canonical JSON text of `value` (see [`scope_digest`]).
fn write_canonical(value: &serde_json::Value, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    use serde_json::Value;
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_unstable();
            out.push(b'{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                serde_json::to_writer(&mut *out, key)?;
                out.push(b':');
                write_canonical(&map[key], out)?;
            }
            out.push(b'}');
        }
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_canonical(item, out)?;
            }
            out.push(b']');
        }
        other => serde_json::to_writer(&mut *out, other)?,
    }
    Ok(())
}

/// A set-valued part of a scope (an `IN` list): serialized with its members sorted by their
/// canonical JSON and deduplicated, so the same set in any order, with repeats or not, gives
/// the same [`scope_digest`]. Plain `Vec`s, slices and tuples keep their order.
///
/// ```
/// use keyset_diesel::{scope_digest, Unordered};
/// let a = scope_digest(&("tasks", Unordered(vec!["a", "d"]))).unwrap();
/// let b = scope_digest(&("tasks", Unordered(vec!["d", "a", "a"]))).unwrap();
/// assert_eq!(a, b);
/// assert_ne!(scope_digest(&("a", "d")).unwrap(), scope_digest(&("d", "a")).unwrap());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Unordered<T>(pub Vec<T>);

impl<T: Serialize> Serialize for Unordered<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error as _, SerializeMap};
        let mut members = Vec::with_capacity(self.0.len());
        for member in &self.0 {
            let value = serde_json::to_value(member).map_err(S::Error::custom)?;
            let mut text = Vec::new();
            write_canonical(&value, &mut text).map_err(S::Error::custom)?;
            members.push((text, value));
        }
        members.sort_by(|a, b| a.0.cmp(&b.0));
        members.dedup_by(|a, b| a.0 == b.0);
        let mut map = serializer.serialize_map(Some(1))?;
        let values: Vec<&serde_json::Value> = members.iter().map(|m| &m.1).collect();
        map.serialize_entry("$unordered", &values)?;
        map.end()
    }
}

fn sort_digest<K: Keyset>() -> [u8; DIGEST_LEN] {
    K::sort_signature_digest()
}

/// SHA-256 of a sort signature, first 16 bytes: what tokens carry.
#[doc(hidden)]
pub fn sort_signature_digest(signature: &str) -> [u8; DIGEST_LEN] {
    let mut hasher = Sha256::new();
    hasher.update(b"keyset-diesel sort v1\0");
    hasher.update(signature.as_bytes());
    truncate(hasher.finalize().into())
}

fn truncate(digest: [u8; 32]) -> [u8; DIGEST_LEN] {
    let mut out = [0u8; DIGEST_LEN];
    out.copy_from_slice(&digest[..DIGEST_LEN]);
    out
}

fn unix_seconds(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

impl CursorCodec {
    /// Starts a builder.
    pub fn builder() -> CursorCodecBuilder {
        CursorCodecBuilder::default()
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

    /// The token of `page.next_cursor` (with the page's size), or `None` at the end of results.
    ///
    /// # Errors
    /// [`EncodeError`] when `scope` does not serialize.
    pub fn encode_page_cursor<K: Keyset, S: Serialize + ?Sized>(
        &self,
        page: &Page<K>,
        scope: &S,
    ) -> Result<Option<String>, EncodeError> {
        page.next_cursor
            .as_ref()
            .map(|c| self.encode_inner(c, Some(page.page_size), scope))
            .transpose()
    }

    fn encode_inner<K: Keyset, S: Serialize + ?Sized>(
        &self,
        cursor: &Cursor<K>,
        page_size: Option<u32>,
        scope: &S,
    ) -> Result<String, EncodeError> {
        let inner = &*self.inner;
        let expires_at = unix_seconds(inner.clock.now()).saturating_add(inner.ttl.as_secs());
        let key_json = serde_json::to_vec(&cursor.key.to_repr())?;
        let payload = Payload {
            sort: sort_digest::<K>(),
            scope: truncate(scope_digest(scope)?),
            direction: match cursor.direction {
                Direction::Forward => 0,
                Direction::Backward => 1,
            },
            page_size: page_size.unwrap_or(0),
            expires_at,
            key: &key_json,
        };
        let mut json = Vec::with_capacity(FIXED_LEN + key_json.len());
        payload.write(&mut json);
        let key = &inner.signing;
        let mut bytes = Vec::with_capacity(HEADER_LEN + json.len() + 64);
        #[cfg(feature = "encrypted-tokens")]
        if inner.encrypted {
            let [hi, lo] = key.id.to_be_bytes();
            let header = [VERSION_ENCRYPTED, hi, lo];
            bytes.extend_from_slice(&header);
            sealed::seal(&key.enc, &header, &json, &mut bytes);
            return self.checked_len(sign_and_encode(key, bytes));
        }
        bytes.push(VERSION_SIGNED);
        bytes.extend_from_slice(&key.id.to_be_bytes());
        bytes.extend_from_slice(&json);
        self.checked_len(sign_and_encode(key, bytes))
    }

    /// Never issue a token `decode` would refuse as too long.
    fn checked_len(&self, token: String) -> Result<String, EncodeError> {
        let max = self.inner.max_len;
        if token.len() > max {
            return Err(EncodeError::TooLong {
                len: token.len(),
                max,
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
        let inner = &*self.inner;
        if token.len() > inner.max_len {
            return Err(CursorError::TooLong { max: inner.max_len });
        }
        let bytes = URL_SAFE_NO_PAD
            .decode(token)
            .map_err(|_| CursorError::Malformed)?;
        if bytes.len() < HEADER_LEN + TAG_LEN + 2 {
            return Err(CursorError::Malformed);
        }
        let version = bytes[0];
        if version != self.version() {
            return Err(CursorError::UnsupportedVersion);
        }
        let key_id = u16::from_be_bytes([bytes[1], bytes[2]]);
        let key = std::iter::once(&inner.signing)
            .chain(&inner.verifying)
            .find(|k| k.id == key_id)
            .ok_or(CursorError::UnknownKeyId)?;
        let (signed, tag) = bytes.split_at(bytes.len() - TAG_LEN);
        let mut mac = key.mac.clone();
        mac.update(signed);
        // Constant-time comparison (hmac uses `subtle`).
        mac.verify_slice(tag)
            .map_err(|_| CursorError::BadSignature)?;
        // From here on the bytes are ours.
        let body = &signed[HEADER_LEN..];
        let opened;
        let json: &[u8] = match version {
            VERSION_SIGNED => body,
            _ => {
                opened = self.open(key, &signed[..HEADER_LEN], body)?;
                &opened
            }
        };
        let payload = Payload::read(json).ok_or(CursorError::Malformed)?;
        let now = unix_seconds(inner.clock.now());
        if now >= payload.expires_at {
            return Err(CursorError::Expired {
                expired_at: payload.expires_at,
            });
        }
        if payload.sort != sort_digest::<K>() {
            return Err(CursorError::SortMismatch);
        }
        let expected_scope = scope_digest(scope).map_err(|_| CursorError::ScopeNotSerializable)?;
        if payload.scope != truncate(expected_scope) {
            return Err(CursorError::ScopeMismatch);
        }
        let direction = match payload.direction {
            0 => Direction::Forward,
            1 => Direction::Backward,
            _ => return Err(CursorError::Malformed),
        };
        // Only now, for the right keyset, read the key values as its types.
        let repr: <K::Key as KeyTuple>::Repr =
            serde_json::from_slice(payload.key).map_err(|_| CursorError::Malformed)?;
        let key = K::Key::from_repr(repr).map_err(|_| CursorError::Malformed)?;
        Ok(DecodedToken {
            cursor: Cursor { key, direction },
            page_size: (payload.page_size != 0).then_some(payload.page_size),
            expires_at: payload.expires_at,
        })
    }

    /// The plaintext payload of an encrypted token.
    #[cfg(feature = "encrypted-tokens")]
    fn open(&self, key: &SecretKey, header: &[u8], body: &[u8]) -> Result<Vec<u8>, CursorError> {
        sealed::open(&key.enc, header, body).ok_or(CursorError::Malformed)
    }

    /// Without the feature, encrypted tokens cannot be read.
    #[cfg(not(feature = "encrypted-tokens"))]
    fn open(&self, _key: &SecretKey, _header: &[u8], _body: &[u8]) -> Result<Vec<u8>, CursorError> {
        Err(CursorError::UnsupportedVersion)
    }
}

fn sign_and_encode(key: &SecretKey, mut bytes: Vec<u8>) -> String {
    let mut mac = key.mac.clone();
    mac.update(&bytes);
    bytes.extend_from_slice(&mac.finalize().into_bytes());
    URL_SAFE_NO_PAD.encode(bytes)
}

#[cfg(feature = "encrypted-tokens")]
mod sealed {
    use chacha20poly1305::aead::{Aead, AeadCore, KeyInit, OsRng, Payload};
    use chacha20poly1305::{XChaCha20Poly1305, XNonce};

    const NONCE_LEN: usize = 24;

    /// Appends `nonce || ciphertext+tag` of `plain` to `out`, with `header` as associated data.
    pub fn seal(key: &[u8; 32], header: &[u8], plain: &[u8], out: &mut Vec<u8>) {
        let cipher = XChaCha20Poly1305::new(key.into());
        let nonce = XChaCha20Poly1305::generate_nonce(&mut OsRng);
        let sealed = cipher
            .encrypt(
                &nonce,
                Payload {
                    msg: plain,
                    aad: header,
                },
            )
            .expect("XChaCha20-Poly1305 encrypts any length we produce");
        out.extend_from_slice(&nonce);
        out.extend_from_slice(&sealed);
    }

    /// The plaintext of `nonce || ciphertext+tag`, or `None`.
    pub fn open(key: &[u8; 32], header: &[u8], body: &[u8]) -> Option<Vec<u8>> {
        if body.len() < NONCE_LEN {
            return None;
        }
        let (nonce, sealed) = body.split_at(NONCE_LEN);
        let cipher = XChaCha20Poly1305::new(key.into());
        cipher
            .decrypt(
                XNonce::from_slice(nonce),
                Payload {
                    msg: sealed,
                    aad: header,
                },
            )
            .ok()
    }
}

/// A page as a JSON API returns it: `{ "items": [...], "next_cursor": "<token>" | null,
/// "has_more": bool }`, with a token only when there is a next page.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PageResponse<T> {
    /// The page's rows, as the API shows them.
    pub items: Vec<T>,
    /// The token for the next page; `null` at the end of results.
    pub next_cursor: Option<String>,
    /// Whether another page existed at this read.
    pub has_more: bool,
}

impl<T> PageResponse<T> {
    /// The response for `page`, its rows turned into API items by `map`, its next cursor into
    /// a token bound to `scope`.
    ///
    /// # Errors
    /// [`EncodeError`] when `scope` does not serialize.
    pub fn from_page<K: Keyset, S: Serialize + ?Sized>(
        page: Page<K>,
        codec: &CursorCodec,
        scope: &S,
        map: impl FnMut(K) -> T,
    ) -> Result<Self, EncodeError> {
        let next_cursor = codec.encode_page_cursor(&page, scope)?;
        Ok(PageResponse {
            has_more: page.has_more,
            next_cursor,
            items: page.items.into_iter().map(map).collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keyset::{KeyColumn, SortDirection};
    use std::sync::atomic::{AtomicU64, Ordering};

    diesel::table! { feed (id) { id -> BigInt, at -> Timestamp, name -> Text } }

    /// (at DESC, name ASC, id ASC): a 3-column key.
    #[derive(Debug, Clone, PartialEq)]
    struct Row {
        at: chrono::NaiveDateTime,
        name: String,
        id: i64,
    }

    impl Keyset for Row {
        type Table = feed::table;
        type Columns = (feed::at, feed::name, feed::id);
        type Key = (chrono::NaiveDateTime, String, i64);
        const COLUMNS: &'static [KeyColumn] = &[
            KeyColumn {
                name: "at",
                field: "at",
                direction: SortDirection::Desc,
                nulls: None,
            },
            KeyColumn {
                name: "name",
                field: "name",
                direction: SortDirection::Asc,
                nulls: None,
            },
            KeyColumn {
                name: "id",
                field: "id",
                direction: SortDirection::Asc,
                nulls: None,
            },
        ];
        const TABLE_NAME: &'static str = "feed";
        fn key(&self) -> Self::Key {
            (self.at, self.name.clone(), self.id)
        }
    }

    /// The same table by `id ASC` only.
    #[derive(Debug, Clone, PartialEq)]
    struct ById(i64);

    impl Keyset for ById {
        type Table = feed::table;
        type Columns = (feed::id,);
        type Key = (i64,);
        const COLUMNS: &'static [KeyColumn] = &[KeyColumn {
            name: "id",
            field: "0",
            direction: SortDirection::Asc,
            nulls: None,
        }];
        const TABLE_NAME: &'static str = "feed";
        fn key(&self) -> Self::Key {
            (self.0,)
        }
    }

    /// `id` as text: same columns and directions, another key type.
    #[derive(Debug, Clone, PartialEq)]
    struct ByIdText(String);

    impl Keyset for ByIdText {
        type Table = feed::table;
        type Columns = (feed::name,);
        type Key = (String,);
        const COLUMNS: &'static [KeyColumn] = &[KeyColumn {
            name: "id",
            field: "0",
            direction: SortDirection::Asc,
            nulls: None,
        }];
        const TABLE_NAME: &'static str = "feed";
        fn key(&self) -> Self::Key {
            (self.0.clone(),)
        }
    }

    const SECRET_A: &[u8] = b"0123456789abcdef0123456789abcdef-A";
    const SECRET_B: &[u8] = b"0123456789abcdef0123456789abcdef-B";

    struct TestClock(Arc<AtomicU64>);
    impl Clock for TestClock {
        fn now(&self) -> SystemTime {
            UNIX_EPOCH + Duration::from_secs(self.0.load(Ordering::SeqCst))
        }
    }

    fn codec_at(now: &Arc<AtomicU64>) -> CursorCodec {
        CursorCodec::builder()
            .signing_key(SecretKey::new(1, SECRET_A).unwrap())
            .ttl(Duration::from_secs(600))
            .clock(TestClock(now.clone()))
            .build()
            .unwrap()
    }

    fn codec() -> CursorCodec {
        codec_at(&Arc::new(AtomicU64::new(1_800_000_000)))
    }

    fn cursor() -> Cursor<Row> {
        let at = chrono::DateTime::from_timestamp(1_760_097_602, 123_456_000)
            .unwrap()
            .naive_utc();
        Cursor::after((at, "e103".to_string(), 103))
    }

    /// Signs arbitrary bytes as `version || key id 1 || body` with `SECRET_A`.
    fn forge(version: u8, body: &[u8]) -> String {
        let key = SecretKey::new(1, SECRET_A).unwrap();
        let mut bytes = vec![version, 0, 1];
        bytes.extend_from_slice(body);
        sign_and_encode(&key, bytes)
    }

    fn payload_json(key: serde_json::Value, scope: &impl Serialize) -> Vec<u8> {
        let key = serde_json::to_vec(&key).unwrap();
        let mut out = Vec::new();
        Payload {
            sort: sort_digest::<Row>(),
            scope: truncate(scope_digest(scope).unwrap()),
            direction: 0,
            page_size: 0,
            expires_at: 1_900_000_000,
            key: &key,
        }
        .write(&mut out);
        out
    }

    #[test]
    fn round_trip_keeps_key_direction_and_page_size() {
        let codec = codec();
        let scope = serde_json::json!({"workspace": "W9", "kind": "all"});
        let token = codec.encode_with_page_size(&cursor(), 3, &scope).unwrap();
        assert!(token.len() < 160, "{} chars", token.len());
        assert!(token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
        let decoded = codec.decode_token::<Row>(&token, &scope).unwrap();
        assert_eq!(decoded.cursor, cursor());
        assert_eq!(decoded.page_size, Some(3));
        assert_eq!(decoded.expires_at, 1_800_000_600);
        let backward = Cursor::<Row>::before(cursor().key);
        let token = codec.encode(&backward, &scope).unwrap();
        assert_eq!(codec.decode::<Row>(&token, &scope).unwrap(), backward);
    }

    /// The signed format is deterministic: with a fixed clock, secret, scope and cursor, the
    /// token is this exact text (sort digest, scope digest, fields, key JSON, tag). It changes
    /// only with a new format version.
    #[test]
    fn signed_token_bytes_are_pinned() {
        let scope = serde_json::json!({"workspace": "W9", "kind": "all"});
        let token = codec().encode_with_page_size(&cursor(), 3, &scope).unwrap();
        assert_eq!(
            token,
            "AQAB9j4DiR2EXZzXDbWZ5UVX1_gGFEwO1wMhkktHlQWtolYAAAAAAwAAAABrSdRYW1sxNzYwMDk3NjAyLDEy\
             MzQ1NjAwMF0sImUxMDMiLDEwM12vBpA-n6FElcz9QELJ2e4-mkCDaNRyWLdX2Q0DzAMUMw"
        );
    }

    #[test]
    fn expired_tokens_say_when() {
        let now = Arc::new(AtomicU64::new(1_800_000_000));
        let codec = codec_at(&now);
        let token = codec.encode(&cursor(), &"W9").unwrap();
        now.store(1_800_000_599, Ordering::SeqCst);
        assert!(codec.decode::<Row>(&token, &"W9").is_ok());
        now.store(1_800_000_600, Ordering::SeqCst);
        assert_eq!(
            codec.decode::<Row>(&token, &"W9"),
            Err(CursorError::Expired {
                expired_at: 1_800_000_600
            })
        );
    }

    #[test]
    fn scope_is_canonical_and_binding() {
        let codec = codec();
        #[derive(Serialize)]
        struct Filters<'a> {
            workspace: &'a str,
            status: Vec<&'a str>,
        }
        let scope = Filters {
            workspace: "W9",
            status: vec!["a", "d"],
        };
        let token = codec.encode(&cursor(), &scope).unwrap();
        // Same filters: another field order (a map).
        let same = serde_json::json!({"status": ["a", "d"], "workspace": "W9"});
        assert!(codec.decode::<Row>(&token, &same).is_ok());
        for other in [
            serde_json::json!({"status": ["a", "d"], "workspace": "W7"}),
            serde_json::json!({"status": ["a"], "workspace": "W9"}),
            serde_json::json!({"status": ["d", "a"], "workspace": "W9"}),
            serde_json::json!({"status": ["a", "d"], "workspace": "W9", "kind": "all"}),
            serde_json::json!(null),
        ] {
            assert_eq!(
                codec.decode::<Row>(&token, &other),
                Err(CursorError::ScopeMismatch)
            );
        }
        // Tuples keep their order: a token for ("alice", "bob") is not one for ("bob", "alice").
        let pair = codec.encode(&cursor(), &("alice", "bob")).unwrap();
        for other in [("bob", "alice"), ("alice", "alice")] {
            assert_eq!(
                codec.decode::<Row>(&pair, &other),
                Err(CursorError::ScopeMismatch)
            );
        }
        // Sets are explicit: `Unordered` ignores order and repeats.
        let set = codec
            .encode(&cursor(), &("W9", Unordered(vec!["a", "d"])))
            .unwrap();
        assert!(codec
            .decode::<Row>(&set, &("W9", Unordered(vec!["d", "a", "a"])))
            .is_ok());
        assert_eq!(
            codec.decode::<Row>(&set, &("W9", vec!["a", "d"])),
            Err(CursorError::ScopeMismatch)
        );
    }

    #[test]
    fn another_keyset_or_key_type_is_a_sort_mismatch() {
        let codec = codec();
        let token = codec.encode(&Cursor::<ById>::after((7,)), &()).unwrap();
        assert_eq!(codec.decode::<ById>(&token, &()).unwrap().key, (7,));
        assert_eq!(
            codec.decode::<Row>(&token, &()),
            Err(CursorError::SortMismatch)
        );
        assert_eq!(
            codec.decode::<ByIdText>(&token, &()),
            Err(CursorError::SortMismatch)
        );
        assert_ne!(ById::sort_signature(), ByIdText::sort_signature());
    }

    #[test]
    fn rotation_old_key_verifies_new_key_signs_removed_key_is_unknown() {
        let old = codec();
        let old_token = old.encode(&cursor(), &"W9").unwrap();
        let rotated = CursorCodec::builder()
            .signing_key(SecretKey::new(2, SECRET_B).unwrap())
            .verifying_key(SecretKey::new(1, SECRET_A).unwrap())
            .build()
            .unwrap();
        assert_eq!(rotated.decode::<Row>(&old_token, &"W9").unwrap(), cursor());
        let new_token = rotated.encode(&cursor(), &"W9").unwrap();
        assert_eq!(URL_SAFE_NO_PAD.decode(&new_token).unwrap()[1..3], [0, 2]);
        let retired = CursorCodec::builder()
            .signing_key(SecretKey::new(2, SECRET_B).unwrap())
            .build()
            .unwrap();
        assert_eq!(retired.decode::<Row>(&new_token, &"W9").unwrap(), cursor());
        assert_eq!(
            retired.decode::<Row>(&old_token, &"W9"),
            Err(CursorError::UnknownKeyId)
        );
        // The same id with another secret: the signature fails.
        let impostor = CursorCodec::builder()
            .signing_key(SecretKey::new(1, SECRET_B).unwrap())
            .build()
            .unwrap();
        assert_eq!(
            impostor.decode::<Row>(&old_token, &"W9"),
            Err(CursorError::BadSignature)
        );
    }

    #[test]
    fn tokens_never_exceed_what_decode_accepts() {
        let codec = CursorCodec::builder()
            .signing_key(SecretKey::new(1, SECRET_A).unwrap())
            .max_token_len(200)
            .build()
            .unwrap();
        let at = cursor().key.0;
        let long = Cursor::<Row>::after((at, "x".repeat(300), 1));
        match codec.encode(&long, &"W9") {
            Err(EncodeError::TooLong { len, max: 200 }) => assert!(len > 200),
            other => panic!("expected TooLong, got {other:?}"),
        }
        assert!(codec.encode(&cursor(), &"W9").is_ok());
    }

    #[test]
    fn a_scope_that_does_not_serialize_is_a_server_error() {
        let codec = codec();
        let token = codec.encode(&cursor(), &"W9").unwrap();
        let mut map = std::collections::HashMap::new();
        map.insert((1, 2), "not a JSON object key");
        let error = codec.decode::<Row>(&token, &map).unwrap_err();
        assert_eq!(error, CursorError::ScopeNotSerializable);
        assert_eq!(error.http_status(), 500);
        assert!(!error.restart_from_first_page());
        assert!(matches!(
            codec.encode(&cursor(), &map),
            Err(EncodeError::Scope(_))
        ));
    }

    #[test]
    fn codec_configuration_errors() {
        assert_eq!(
            SecretKey::new(1, b"short").unwrap_err(),
            CodecConfigError::SecretTooShort { id: 1, len: 5 }
        );
        assert_eq!(
            CursorCodec::builder().build().unwrap_err(),
            CodecConfigError::NoSigningKey
        );
        let dup = CursorCodec::builder()
            .signing_key(SecretKey::new(1, SECRET_A).unwrap())
            .verifying_key(SecretKey::new(1, SECRET_B).unwrap())
            .build();
        assert_eq!(dup.unwrap_err(), CodecConfigError::DuplicateKeyId(1));
        let zero = CursorCodec::builder()
            .signing_key(SecretKey::new(1, SECRET_A).unwrap())
            .ttl(Duration::from_millis(500))
            .build();
        assert_eq!(zero.unwrap_err(), CodecConfigError::ZeroTtl);
        let debug = format!("{:?}", SecretKey::new(1, SECRET_A).unwrap());
        assert!(!debug.contains("0123"), "{debug}");
    }

    /// ../shared/CASES.md C24: each input is a typed error, never a panic, never a cursor.
    #[test]
    fn c24_malformed_or_tampered_tokens() {
        let codec = codec();
        let scope = "W9";
        let valid = codec.encode(&cursor(), &scope).unwrap();
        let decode = |t: &str| codec.decode::<Row>(t, &scope);
        // 1-3.
        assert_eq!(decode(""), Err(CursorError::Malformed));
        assert_eq!(decode("0"), Err(CursorError::Malformed));
        assert_eq!(decode("x"), Err(CursorError::Malformed));
        // 4. a valid token + "!".
        assert_eq!(decode(&format!("{valid}!")), Err(CursorError::Malformed));
        // 5. the last character changed, still valid base64.
        let mut changed = valid.clone();
        let last = changed.pop().unwrap();
        changed.push(if last == 'A' { 'Q' } else { 'A' });
        assert!(matches!(
            decode(&changed),
            Err(CursorError::BadSignature | CursorError::Malformed)
        ));
        // 6. a valid payload signed with another key (same key id).
        let other = CursorCodec::builder()
            .signing_key(SecretKey::new(1, SECRET_B).unwrap())
            .build()
            .unwrap();
        let foreign = other.encode(&cursor(), &scope).unwrap();
        assert_eq!(decode(&foreign), Err(CursorError::BadSignature));
        // 7. signature truncated by one byte.
        let mut bytes = URL_SAFE_NO_PAD.decode(&valid).unwrap();
        bytes.pop();
        assert_eq!(
            decode(&URL_SAFE_NO_PAD.encode(&bytes)),
            Err(CursorError::BadSignature)
        );
        // 8. a field of the wrong type: a string in the timestamp slot, a float in the int slot.
        let wrong = forge(
            1,
            &payload_json(serde_json::json!(["2026-10-10", "e103", 103]), &scope),
        );
        assert_eq!(decode(&wrong), Err(CursorError::Malformed));
        let wrong = forge(
            1,
            &payload_json(serde_json::json!([[1, 0], "e103", 103.5]), &scope),
        );
        assert_eq!(decode(&wrong), Err(CursorError::Malformed));
        // ...while the same forged layout with the right types decodes (so the checks above
        // fail for the type, not for the forging).
        let right = forge(
            1,
            &payload_json(serde_json::json!([[1, 0], "e103", 103]), &scope),
        );
        assert!(decode(&right).is_ok());
        // 9. the wrong number of key components.
        let short = forge(
            1,
            &payload_json(serde_json::json!([[1, 0], "e103"]), &scope),
        );
        assert_eq!(decode(&short), Err(CursorError::Malformed));
        let long = forge(
            1,
            &payload_json(serde_json::json!([[1, 0], "e103", 1, 2]), &scope),
        );
        assert_eq!(decode(&long), Err(CursorError::Malformed));
        // 10. an unknown version byte.
        let v9 = forge(
            9,
            &payload_json(serde_json::json!([[1, 0], "e103", 103]), &scope),
        );
        assert_eq!(decode(&v9), Err(CursorError::UnsupportedVersion));
        // 11. a 1 MB token: refused on its length, before decoding.
        let huge = "A".repeat(1 << 20);
        assert_eq!(
            decode(&huge),
            Err(CursorError::TooLong {
                max: DEFAULT_MAX_TOKEN_LEN
            })
        );
        // 12. standard base64 with padding, or standard alphabet: strict, always refused.
        let standard = base64::engine::general_purpose::STANDARD
            .encode(URL_SAFE_NO_PAD.decode(&valid).unwrap());
        assert_eq!(decode(&standard), Err(CursorError::Malformed));
        assert_eq!(decode(&format!("{valid}=")), Err(CursorError::Malformed));
        // 13. NULL for a NOT NULL key.
        let null = forge(
            1,
            &payload_json(serde_json::json!([null, "e103", 103]), &scope),
        );
        assert_eq!(decode(&null), Err(CursorError::Malformed));
        // Display is safe: no token content.
        for e in [decode(&wrong).unwrap_err(), decode(&foreign).unwrap_err()] {
            let text = e.to_string();
            assert!(text.contains("restart from the first page"), "{text}");
            assert!(
                !text.contains("e103") && !text.contains(&valid[..10]),
                "{text}"
            );
            assert!(e.restart_from_first_page());
            assert_eq!(e.http_status(), 400);
        }
    }

    #[cfg(feature = "encrypted-tokens")]
    #[test]
    fn encrypted_tokens_hide_the_payload() {
        let codec = CursorCodec::builder()
            .signing_key(SecretKey::new(1, SECRET_A).unwrap())
            .encrypted(true)
            .build()
            .unwrap();
        let token = codec.encode(&cursor(), &"W9").unwrap();
        let bytes = URL_SAFE_NO_PAD.decode(&token).unwrap();
        assert_eq!(bytes[0], VERSION_ENCRYPTED);
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains("e103"),
            "plaintext key in an encrypted token"
        );
        assert_eq!(codec.decode::<Row>(&token, &"W9").unwrap(), cursor());
        assert_eq!(
            codec.decode::<Row>(&token, &"W7"),
            Err(CursorError::ScopeMismatch)
        );
        // Two encodings of one cursor differ (random nonce), both decode.
        let again = codec.encode(&cursor(), &"W9").unwrap();
        assert_ne!(token, again);
        assert_eq!(codec.decode::<Row>(&again, &"W9").unwrap(), cursor());
        // A codec reads only the format it writes: an encrypted codec refuses signed tokens
        // made with the same secret (turning encryption on restarts outstanding walks).
        let plain = codec_at(&Arc::new(AtomicU64::new(0)));
        let signed_token = plain.encode(&cursor(), &"W9").unwrap();
        assert_eq!(
            codec.decode::<Row>(&signed_token, &"W9"),
            Err(CursorError::UnsupportedVersion)
        );
        assert_eq!(
            plain.decode::<Row>(&token, &"W9"),
            Err(CursorError::UnsupportedVersion)
        );
        // A signed token is readable: the documented limit.
        let signed = plain.encode(&cursor(), &"W9").unwrap();
        assert!(
            String::from_utf8_lossy(&URL_SAFE_NO_PAD.decode(&signed).unwrap()).contains("e103")
        );
    }
}
