//! The codec's unit tests: round trips, expiry, sort and scope refusals, key rotation.
use std::sync::atomic::{AtomicU64, Ordering};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;

use super::*;
use crate::token::fixtures::{
    self, codec, codec_at, cursor, ById, ByIdText, Row, SECRET_A, SECRET_B,
};
use crate::token::CodecConfigError;

#[test]
fn round_trip_keeps_key_direction_and_page_size() {
    let codec = codec();
    let scope = serde_json::json!({"workspace": "W9", "kind": "all"});
    let token = codec.encode_with_page_size(&cursor(), 3, &scope).unwrap();
    assert!(token.len() < 140, "{} chars", token.len());
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
    let now = Arc::new(AtomicU64::new(1_800_000_000));
    let old = codec_at(&now);
    let old_token = old.encode(&cursor(), &"W9").unwrap();
    let rotated = CursorCodec::builder()
        .signing_key(SecretKey::new(2, SECRET_B).unwrap())
        .verifying_key(SecretKey::new(1, SECRET_A).unwrap())
        .clock(fixtures::TestClock(now.clone()))
        .build()
        .unwrap();
    assert_eq!(rotated.decode::<Row>(&old_token, &"W9").unwrap(), cursor());
    let new_token = rotated.encode(&cursor(), &"W9").unwrap();
    assert_eq!(URL_SAFE_NO_PAD.decode(&new_token).unwrap()[..3], [3, 0, 2]);
    let retired = CursorCodec::builder()
        .signing_key(SecretKey::new(2, SECRET_B).unwrap())
        .clock(fixtures::TestClock(now.clone()))
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

/// An export's stored scope is keyed (no offline guessing of a tenant from
/// the store's table) and names its key id (readable after rotation while the old key
/// verifies); exports stored unkeyed before stay readable.
#[cfg(feature = "export")]
#[test]
fn stored_export_scopes_are_keyed_and_survive_rotation() {
    let old = CursorCodec::builder()
        .signing_key(SecretKey::new(1, SECRET_A).unwrap())
        .build()
        .unwrap();
    let stored = old.stored_scope(&("W9",)).unwrap();
    assert!(
        stored.starts_with("k1:") && stored.len() == 3 + 32,
        "{stored}"
    );
    let unkeyed: String = scope_digest(&("W9",))
        .unwrap()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert!(!stored.contains(&unkeyed[..32]));
    assert!(old.stored_scope_is(&stored, &("W9",)).unwrap());
    assert!(!old.stored_scope_is(&stored, &("W7",)).unwrap());
    let rotated = CursorCodec::builder()
        .signing_key(SecretKey::new(2, SECRET_B).unwrap())
        .verifying_key(SecretKey::new(1, SECRET_A).unwrap())
        .build()
        .unwrap();
    assert!(rotated.stored_scope_is(&stored, &("W9",)).unwrap());
    assert!(rotated.stored_scope(&("W9",)).unwrap().starts_with("k2:"));
    let retired = CursorCodec::builder()
        .signing_key(SecretKey::new(2, SECRET_B).unwrap())
        .build()
        .unwrap();
    assert!(!retired.stored_scope_is(&stored, &("W9",)).unwrap());
    // Another secret under the same id: not the scope.
    let impostor = CursorCodec::builder()
        .signing_key(SecretKey::new(1, SECRET_B).unwrap())
        .build()
        .unwrap();
    assert!(!impostor.stored_scope_is(&stored, &("W9",)).unwrap());
    assert!(old.stored_scope_is(&unkeyed, &("W9",)).unwrap());
    assert!(!old.stored_scope_is(&unkeyed, &("W7",)).unwrap());
    assert!(!old.stored_scope_is("k1:zz", &("W9",)).unwrap());
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
        Err(EncodeError::TooLong {
            len,
            max: 200,
            key_bytes,
        }) => assert!(len > 200 && key_bytes > 300, "{len} {key_bytes}"),
        other => panic!("expected TooLong, got {other:?}"),
    }
    assert!(codec.encode(&cursor(), &"W9").is_ok());
}

#[test]
fn codec_configuration_errors() {
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
    // The time to live and the skew are bounded. Before, `Duration::MAX`
    // built a codec whose tokens never expire.
    for ttl in [Duration::MAX, CursorCodec::MAX_TTL + Duration::from_secs(1)] {
        let long = CursorCodec::builder()
            .signing_key(SecretKey::new(1, SECRET_A).unwrap())
            .ttl(ttl)
            .build();
        assert_eq!(
            long.unwrap_err(),
            CodecConfigError::TtlTooLong {
                max_secs: 30 * 24 * 3600
            }
        );
    }
    let skew = CursorCodec::builder()
        .signing_key(SecretKey::new(1, SECRET_A).unwrap())
        .max_clock_skew(Duration::from_secs(3601))
        .build();
    assert_eq!(
        skew.unwrap_err(),
        CodecConfigError::ClockSkewTooLong { max_secs: 3600 }
    );
    assert!(CursorCodec::builder()
        .signing_key(SecretKey::new(1, SECRET_A).unwrap())
        .ttl(CursorCodec::MAX_TTL)
        .build()
        .is_ok());
}

/// A token whose expiry lies further ahead than the codec's time to live
/// plus the clock skew is refused: one made before the time to live was lowered, or by a
/// server whose clock ran fast. Before, only `now >= expires_at` was checked and both
/// were accepted.
#[test]
fn the_lifetime_is_checked_at_decode() {
    let now = Arc::new(AtomicU64::new(1_800_000_000));
    let with_ttl = |ttl: u64, now: &Arc<AtomicU64>| {
        CursorCodec::builder()
            .signing_key(SecretKey::new(1, SECRET_A).unwrap())
            .ttl(Duration::from_secs(ttl))
            .clock(fixtures::TestClock(now.clone()))
            .build()
            .unwrap()
    };
    // Made under a 1-day time to live, read after it was lowered to 10 minutes.
    let day_token = with_ttl(86_400, &now).encode(&cursor(), &"W9").unwrap();
    let lowered = with_ttl(600, &now);
    assert_eq!(
        lowered.decode::<Row>(&day_token, &"W9"),
        Err(CursorError::LifetimeTooLong {
            expires_at: 1_800_086_400
        })
    );
    // A server whose clock runs a year fast.
    let fast_now = Arc::new(AtomicU64::new(1_800_000_000 + 365 * 86_400));
    let fast = with_ttl(600, &fast_now).encode(&cursor(), &"W9").unwrap();
    assert!(matches!(
        lowered.decode::<Row>(&fast, &"W9"),
        Err(CursorError::LifetimeTooLong { .. })
    ));
    // Within the default skew (60 s) a token from a slightly fast clock is accepted...
    let ahead = Arc::new(AtomicU64::new(1_800_000_060));
    let slightly = with_ttl(600, &ahead).encode(&cursor(), &"W9").unwrap();
    assert!(lowered.decode::<Row>(&slightly, &"W9").is_ok());
    // ...one second more is not.
    ahead.store(1_800_000_061, Ordering::SeqCst);
    let too_far = with_ttl(600, &ahead).encode(&cursor(), &"W9").unwrap();
    assert!(lowered.decode::<Row>(&too_far, &"W9").is_err());
}
