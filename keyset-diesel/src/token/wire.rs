//! The bytes of a token: how a payload is laid out, signed, optionally sealed, and read back.
//!
//! `base64url_no_pad( version || key id || body || tag )`:
//!
//! | bytes | field |
//! |---|---|
//! | 1 | format version: [`VERSION_SIGNED`] (3) signed, [`VERSION_ENCRYPTED`] (4) signed and encrypted (feature `encrypted-tokens`); versions 1 and 2 (JSON key values, unkeyed scope digest) are no longer read |
//! | 2 | key id, big-endian: which secret signed it |
//! | n | version 3: the payload; version 4: a 24-byte nonce, then the padded payload encrypted with XChaCha20-Poly1305 (the 3 header bytes as associated data) and its 16-byte Poly1305 tag |
//! | 32 | HMAC-SHA256 over all the bytes before it |
//!
//! The payload ([`Payload`]):
//!
//! | bytes | field |
//! |---|---|
//! | 16 | SHA-256 of the keyset's sort signature, first 16 bytes (`crate::keyset::sort_signature_digest`) |
//! | 16 | HMAC-SHA256 of the canonical scope under the key's scope key, first 16 bytes (`super::scope::keyed_scope_digest`) |
//! | 1 | walk direction: 0 forward, 1 backward |
//! | 4 | page size the cursor was made with, big-endian; 0 if not recorded |
//! | 8 | `expires_at`, Unix seconds, big-endian |
//! | n | the key values: their lossless forms (`crate::key`) in postcard, a compact binary serde format (varint integers, length-prefixed UTF-8 text: one byte per ASCII or control character, at most 4 per character) |
//!
//! Version 4 pads the payload before sealing: a `0x80` byte, then zero bytes up to the codec's
//! size class (256 bytes by default) or, past it, a multiple of [`PAD_BLOCK`] bytes, so an
//! encrypted token tells nothing of its key values' length up to the class and, past it, their
//! length only to within 128 bytes.
//!
//! A 3-column key (timestamp, text, integer) makes a signed token of about 130 characters.
//!
//! Reading checks, in this order, and stops at the first failure: base64url, the minimum
//! length, the version, the key id, the tag (in constant time), then (version 4) the seal and
//! the padding. Nothing in the payload is read before the tag verifies.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use hmac::Mac;

use super::error::CursorError;
use super::keys::SecretKey;
use crate::cursor::Direction;

/// Format version of signed tokens.
pub(crate) const VERSION_SIGNED: u8 = 3;
/// Format version of signed and encrypted tokens.
#[cfg_attr(not(feature = "encrypted-tokens"), allow(dead_code))]
pub(crate) const VERSION_ENCRYPTED: u8 = 4;
/// Sealed payloads are padded to a multiple of this many bytes.
#[cfg_attr(not(feature = "encrypted-tokens"), allow(dead_code))]
pub(crate) const PAD_BLOCK: usize = 128;

/// Version and key id.
const HEADER_LEN: usize = 3;
/// HMAC-SHA256.
const TAG_LEN: usize = 32;
/// Length of the truncated digests of sort signature and scope, in bytes.
pub(super) const DIGEST_LEN: usize = 16;
/// `sort digest || scope digest || direction || page size || expires_at`.
pub(super) const FIXED_LEN: usize = 2 * DIGEST_LEN + 1 + 4 + 8;

/// The payload: a fixed binary part, then the key values in postcard (lossless reprs, see
/// `crate::key`). Decoding keeps the key values as bytes until the sort signature and scope
/// are known to match, then parses them as the keyset's types.
pub(super) struct Payload<'a> {
    pub(super) sort: [u8; DIGEST_LEN],
    pub(super) scope: [u8; DIGEST_LEN],
    /// See [`direction_byte`].
    pub(super) direction: u8,
    /// 0: not recorded.
    pub(super) page_size: u32,
    /// Unix seconds.
    pub(super) expires_at: u64,
    pub(super) key: &'a [u8],
}

impl<'a> Payload<'a> {
    pub(super) fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.sort);
        out.extend_from_slice(&self.scope);
        out.push(self.direction);
        out.extend_from_slice(&self.page_size.to_be_bytes());
        out.extend_from_slice(&self.expires_at.to_be_bytes());
        out.extend_from_slice(self.key);
    }

    pub(super) fn read(bytes: &'a [u8]) -> Option<Self> {
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

/// The payload's direction byte: 0 forward, 1 backward.
pub(super) fn direction_byte(direction: Direction) -> u8 {
    match direction {
        Direction::Forward => 0,
        Direction::Backward => 1,
    }
}

/// The direction of a payload's direction byte, `None` for any other value.
pub(super) fn direction_of(byte: u8) -> Option<Direction> {
    match byte {
        0 => Some(Direction::Forward),
        1 => Some(Direction::Backward),
        _ => None,
    }
}

/// The token text of `payload`: framed with `version` and `key`'s id, sealed when `version` is
/// [`VERSION_ENCRYPTED`] (padded to at least `sealed_len` bytes, see [`pad`]), signed with
/// `key`.
pub(super) fn encode(key: &SecretKey, version: u8, payload: &[u8], sealed_len: usize) -> String {
    let [hi, lo] = key.id.to_be_bytes();
    let header = [version, hi, lo];
    let mut bytes = Vec::with_capacity(HEADER_LEN + payload.len() + 64);
    bytes.extend_from_slice(&header);
    #[cfg(not(feature = "encrypted-tokens"))]
    let _ = sealed_len;
    #[cfg(feature = "encrypted-tokens")]
    if version == VERSION_ENCRYPTED {
        sealed::seal(&key.enc, &header, &pad(payload, sealed_len), &mut bytes);
        return sign_and_encode(key, bytes);
    }
    bytes.extend_from_slice(payload);
    sign_and_encode(key, bytes)
}

/// Appends the HMAC of `bytes` under `key` and base64url-encodes the whole.
fn sign_and_encode(key: &SecretKey, mut bytes: Vec<u8>) -> String {
    let mut mac = key.mac();
    mac.update(&bytes);
    bytes.extend_from_slice(&mac.finalize().into_bytes());
    URL_SAFE_NO_PAD.encode(bytes)
}

/// The verified plaintext payload of `token`, which must have format `version` and be signed
/// with the key `key_for` returns for its key id, and that key. For an id `key_for` does not
/// know, the tag is still computed (with `unknown_id_key`, the result thrown away), so a
/// refusal takes as long whether the id is known or not: a caller learns nothing of the key
/// ids from the time an answer takes.
///
/// # Errors
/// [`CursorError::Malformed`] (not base64url, too short, a seal that does not open),
/// [`CursorError::UnsupportedVersion`], [`CursorError::UnknownKeyId`],
/// [`CursorError::BadSignature`].
pub(super) fn decode<'k>(
    token: &str,
    version: u8,
    key_for: impl FnOnce(u16) -> Option<&'k SecretKey>,
    unknown_id_key: &SecretKey,
) -> Result<(&'k SecretKey, Vec<u8>), CursorError> {
    let mut bytes = URL_SAFE_NO_PAD
        .decode(token)
        .map_err(|_| CursorError::Malformed)?;
    if bytes.len() < HEADER_LEN + TAG_LEN + 2 {
        return Err(CursorError::Malformed);
    }
    if bytes[0] != version {
        return Err(CursorError::UnsupportedVersion);
    }
    let signed_len = bytes.len() - TAG_LEN;
    let (signed, tag) = bytes.split_at(signed_len);
    let Some(key) = key_for(u16::from_be_bytes([bytes[1], bytes[2]])) else {
        let mut mac = unknown_id_key.mac();
        mac.update(signed);
        let _ = mac.verify_slice(tag);
        return Err(CursorError::UnknownKeyId);
    };
    let mut mac = key.mac();
    mac.update(signed);
    // Constant-time comparison (hmac uses `subtle`).
    mac.verify_slice(tag)
        .map_err(|_| CursorError::BadSignature)?;
    // From here on the bytes are ours.
    if version == VERSION_SIGNED {
        bytes.truncate(signed_len);
        bytes.drain(..HEADER_LEN);
        return Ok((key, bytes));
    }
    let padded = open(key, &bytes[..HEADER_LEN], &bytes[HEADER_LEN..signed_len])?;
    Ok((key, unpad(padded).ok_or(CursorError::Malformed)?))
}

/// `payload || 0x80 || 0x00...` up to a multiple of [`PAD_BLOCK`] bytes (at least one byte
/// added), and to at least `min_len` bytes (rounded up to a block): a fixed size class for
/// every payload up to that size.
#[cfg_attr(not(feature = "encrypted-tokens"), allow(dead_code))]
pub(super) fn pad(payload: &[u8], min_len: usize) -> Vec<u8> {
    let len =
        ((payload.len() / PAD_BLOCK + 1) * PAD_BLOCK).max(min_len.div_ceil(PAD_BLOCK) * PAD_BLOCK);
    let mut out = Vec::with_capacity(len);
    out.extend_from_slice(payload);
    out.push(0x80);
    out.resize(len, 0);
    out
}

/// The payload of [`pad`]'s output: strips the zeros and the `0x80`; `None` when it is not
/// padded so (padding of several blocks is a size class's).
fn unpad(mut padded: Vec<u8>) -> Option<Vec<u8>> {
    if !padded.len().is_multiple_of(PAD_BLOCK) {
        return None;
    }
    let end = padded.iter().rposition(|&b| b != 0)?;
    if padded[end] != 0x80 {
        return None;
    }
    padded.truncate(end);
    Some(padded)
}

/// The plaintext payload of an encrypted token's body.
#[cfg(feature = "encrypted-tokens")]
fn open(key: &SecretKey, header: &[u8], body: &[u8]) -> Result<Vec<u8>, CursorError> {
    sealed::open(&key.enc, header, body).ok_or(CursorError::Malformed)
}

/// Without the feature, encrypted tokens cannot be read.
#[cfg(not(feature = "encrypted-tokens"))]
fn open(_key: &SecretKey, _header: &[u8], _body: &[u8]) -> Result<Vec<u8>, CursorError> {
    Err(CursorError::UnsupportedVersion)
}

/// XChaCha20-Poly1305 with a random 24-byte nonce, the token header as associated data.
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

#[cfg(test)]
mod tests {
    use serde::Serialize;

    use super::*;
    use crate::keyset::Keyset;
    use crate::token::fixtures::{codec, cursor, Row, SECRET_A, SECRET_B};
    use crate::token::scope::keyed_scope_digest;
    use crate::token::{CursorCodec, DEFAULT_MAX_TOKEN_LEN};

    /// Signs arbitrary bytes as `version || key id 1 || body` with `SECRET_A`.
    fn forge(version: u8, body: &[u8]) -> String {
        let key = SecretKey::new(1, SECRET_A).unwrap();
        let mut bytes = vec![version, 0, 1];
        bytes.extend_from_slice(body);
        sign_and_encode(&key, bytes)
    }

    /// A payload of key values `key` (any serializable value, in the token's binary form) for
    /// `Row` under `scope`, as `SECRET_A` would bind it.
    fn payload_of(key: &impl Serialize, scope: &impl Serialize) -> Vec<u8> {
        let key = postcard::to_allocvec(key).unwrap();
        let secret = SecretKey::new(1, SECRET_A).unwrap();
        let mut out = Vec::new();
        Payload {
            sort: Row::sort_signature_digest(),
            scope: keyed_scope_digest(&secret, scope).unwrap(),
            direction: 0,
            page_size: 0,
            expires_at: 1_800_000_300,
            key: &key,
        }
        .write(&mut out);
        out
    }

    /// The signed format is deterministic: with a fixed clock, secret, scope and cursor, the
    /// token is this exact text (sort digest, keyed scope digest, fields, key values, tag). It
    /// changes only with a new format version (this is version 3).
    #[test]
    fn signed_token_bytes_are_pinned() {
        let scope = serde_json::json!({"workspace": "W9", "kind": "all"});
        let token = codec().encode_with_page_size(&cursor(), 3, &scope).unwrap();
        assert_eq!(
            token,
            "AwABuXtgaq7gs2dRzpY39GkRSMKDlx-hkS_B52LMmvV6CAcAAAAAAwAAAABrSdRYhNXHjg2AlO86BGUxMDPO\
             AdorxKTWPpNq6an6o3pKC5OTzPywOjV2Wd4TqGIbEBJ3"
        );
    }

    /// Hostile token input: each input is a typed error, never a panic, never a cursor.
    #[test]
    fn malformed_or_tampered_tokens_are_typed_errors() {
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
            VERSION_SIGNED,
            &payload_of(&("2026-10-10", "e103", 103), &scope),
        );
        assert_eq!(decode(&wrong), Err(CursorError::Malformed));
        let wrong = forge(
            VERSION_SIGNED,
            &payload_of(&((1, 0), "e103", 103.5f64), &scope),
        );
        assert_eq!(decode(&wrong), Err(CursorError::Malformed));
        // ...while the same forged layout with the right types decodes (so the checks above
        // fail for the type, not for the forging).
        let right = forge(
            VERSION_SIGNED,
            &payload_of(&((1i64, 0u32), "e103", 103i64), &scope),
        );
        assert!(decode(&right).is_ok());
        // 9. the wrong number of key components.
        let short = forge(VERSION_SIGNED, &payload_of(&((1i64, 0u32), "e103"), &scope));
        assert_eq!(decode(&short), Err(CursorError::Malformed));
        let long = forge(
            VERSION_SIGNED,
            &payload_of(&((1i64, 0u32), "e103", 1i64, 2i64), &scope),
        );
        assert_eq!(decode(&long), Err(CursorError::Malformed));
        // 10. an unknown version byte.
        let v9 = forge(9, &payload_of(&((1i64, 0u32), "e103", 103i64), &scope));
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
            VERSION_SIGNED,
            &payload_of(&(None::<(i64, u32)>, "e103", 103i64), &scope),
        );
        assert_eq!(decode(&null), Err(CursorError::Malformed));
        // Even the log text echoes nothing of the token.
        for e in [decode(&wrong).unwrap_err(), decode(&foreign).unwrap_err()] {
            let text = e.to_string();
            assert!(
                !text.contains("e103") && !text.contains(&valid[..10]),
                "{text}"
            );
            assert!(e.restart_from_first_page());
        }
    }

    #[cfg(feature = "encrypted-tokens")]
    #[test]
    fn encrypted_tokens_hide_the_payload() {
        use crate::token::fixtures::codec_at;
        use std::sync::atomic::AtomicU64;
        use std::sync::Arc;

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

    /// An encrypted token's length tells nothing of its key values' lengths up to the
    /// default size class: names of 1 to 150 characters give one length. Before the default
    /// class, 128-byte blocks alone split them (60 and 100 characters gave two lengths).
    #[cfg(feature = "encrypted-tokens")]
    #[test]
    fn encrypted_tokens_pad_the_key_values_to_the_default_size_class() {
        let codec = |class: Option<usize>| {
            let builder = CursorCodec::builder()
                .signing_key(SecretKey::new(1, SECRET_A).unwrap())
                .encrypted(true);
            match class {
                Some(class) => builder.sealed_size_class(class),
                None => builder,
            }
            .build()
            .unwrap()
        };
        let (default, blocks) = (codec(None), codec(Some(0)));
        let at = cursor().key.0;
        let len = |codec: &CursorCodec, name: &str| {
            let c = crate::cursor::Cursor::<Row>::after((at, name.to_string(), 103));
            let token = codec.encode(&c, &"W9").unwrap();
            assert_eq!(codec.decode::<Row>(&token, &"W9").unwrap(), c);
            token.len()
        };
        let lens: Vec<usize> = [1, 5, 31, 60, 100, 150]
            .iter()
            .map(|&n| len(&default, &"n".repeat(n)))
            .collect();
        assert!(lens.iter().all(|&l| l == lens[0]), "{lens:?}");
        // Past the class, 128-byte blocks.
        assert!(len(&default, &"n".repeat(300)) > lens[0]);
        // Without a class, blocks alone: within a block one length, a longer key the next.
        let small: Vec<usize> = [1, 5, 31]
            .iter()
            .map(|&n| len(&blocks, &"n".repeat(n)))
            .collect();
        assert!(small.iter().all(|&l| l == small[0]), "{small:?}");
        assert!(small[0] < lens[0]);
        assert!(len(&blocks, &"n".repeat(150)) > small[0]);
        // Each reads the other's tokens: padding is read whatever its length.
        let c = crate::cursor::Cursor::<Row>::after((at, "n".into(), 103));
        let token = blocks.encode(&c, &"W9").unwrap();
        assert_eq!(default.decode::<Row>(&token, &"W9").unwrap(), c);
    }

    /// With a fixed size class, keys of 1 to 400 characters make tokens of one length, and
    /// each decodes (by a codec with 128-byte blocks only too: padding is read whatever its
    /// length).
    #[cfg(feature = "encrypted-tokens")]
    #[test]
    fn a_sealed_size_class_gives_every_token_one_length() {
        let build = |class: usize| {
            CursorCodec::builder()
                .signing_key(SecretKey::new(1, SECRET_A).unwrap())
                .encrypted(true)
                .sealed_size_class(class)
                .build()
                .unwrap()
        };
        let (fixed, plain) = (build(512), build(0));
        let at = cursor().key.0;
        let token = |codec: &CursorCodec, n: usize| {
            let c = crate::cursor::Cursor::<Row>::after((at, "n".repeat(n), 103));
            let token = codec.encode(&c, &"W9").unwrap();
            assert_eq!(fixed.decode::<Row>(&token, &"W9").unwrap(), c);
            assert_eq!(plain.decode::<Row>(&token, &"W9").unwrap(), c);
            token.len()
        };
        let lens: Vec<usize> = [1, 60, 200, 400]
            .iter()
            .map(|&n| token(&fixed, n))
            .collect();
        assert!(lens.iter().all(|&l| l == lens[0]), "{lens:?}");
        assert!(token(&plain, 1) < token(&plain, 400));
        // Above the class, blocks again.
        assert!(token(&fixed, 600) > lens[0]);
    }

    #[test]
    fn padding_round_trips_and_refuses_what_it_did_not_write() {
        for n in [0, 1, PAD_BLOCK - 1, PAD_BLOCK, 300] {
            let payload = vec![7u8; n];
            let padded = pad(&payload, 0);
            assert_eq!(padded.len() % PAD_BLOCK, 0);
            assert!(padded.len() > n);
            assert_eq!(unpad(padded).unwrap(), payload);
            // A size class of 512 bytes: every payload below it pads to 512.
            let class = pad(&payload, 500);
            assert_eq!(class.len(), 512.max(padded_len(n)));
            assert_eq!(unpad(class).unwrap(), payload);
        }
        assert_eq!(unpad(vec![0; PAD_BLOCK]), None);
        assert_eq!(unpad(vec![1; PAD_BLOCK]), None);
        assert_eq!(unpad(vec![0x80; PAD_BLOCK - 1]), None);
        let mut class = vec![0x80];
        class.resize(2 * PAD_BLOCK, 0);
        assert_eq!(unpad(class), Some(Vec::new()));
        let mut no_marker = vec![7u8];
        no_marker.resize(2 * PAD_BLOCK, 0);
        assert_eq!(unpad(no_marker), None);
    }

    fn padded_len(n: usize) -> usize {
        (n / PAD_BLOCK + 1) * PAD_BLOCK
    }
}
