//! Hostile tokens: every single-byte and single-character change of a valid token, every
//! truncation and extension, standard-base64 re-encodings and random strings of 0 to 100,000
//! bytes give an error: never a panic, never a cursor.

use std::time::Duration;

use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
use base64::Engine as _;
use diesel::prelude::*;
use keyset_diesel::token::SecretKey;
use keyset_diesel::{Cursor, CursorCodec, Keyset};
use proptest::prelude::*;

diesel::table! {
    events (event_id) {
        event_id -> Text,
        occurred_at -> Timestamp,
        rank -> Integer,
    }
}

/// A 3-column key: (occurred_at DESC, rank ASC, event_id ASC).
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = events)]
struct Event {
    #[keyset(desc)]
    occurred_at: chrono::NaiveDateTime,
    #[keyset(asc)]
    rank: i32,
    #[keyset(asc, unique)]
    event_id: String,
}

fn codec() -> CursorCodec {
    CursorCodec::builder()
        .signing_key(SecretKey::new(7, b"tests only: 32 bytes of secret!!").unwrap())
        .ttl(Duration::from_secs(3600))
        .build()
        .unwrap()
}

fn valid(codec: &CursorCodec) -> String {
    let at = chrono::DateTime::from_timestamp(1_791_633_602, 250_000_000)
        .unwrap()
        .naive_utc();
    codec
        .encode(
            &Cursor::<Event>::after((at, 3, "e103".into())),
            &("W9", ["all"]),
        )
        .unwrap()
}

fn refused(codec: &CursorCodec, token: &str) -> bool {
    codec.decode::<Event>(token, &("W9", ["all"])).is_err()
}

#[test]
fn the_valid_token_is_accepted() {
    let codec = codec();
    assert!(!refused(&codec, &valid(&codec)));
}

#[test]
fn every_single_byte_change_is_refused() {
    let codec = codec();
    let bytes = URL_SAFE_NO_PAD.decode(valid(&codec)).unwrap();
    let mut tried = 0;
    for pos in 0..bytes.len() {
        for value in 0..=255u8 {
            if value == bytes[pos] {
                continue;
            }
            let mut changed = bytes.clone();
            changed[pos] = value;
            assert!(
                refused(&codec, &URL_SAFE_NO_PAD.encode(&changed)),
                "byte {pos} = {value}"
            );
            tried += 1;
        }
    }
    assert_eq!(tried, bytes.len() * 255);
}

#[test]
fn every_single_character_change_is_refused() {
    let codec = codec();
    let token = valid(&codec);
    let alphabet: Vec<char> = ('A'..='Z')
        .chain('a'..='z')
        .chain('0'..='9')
        .chain("-_+/=.!~ %\u{0}é".chars())
        .collect();
    for (pos, original) in token.char_indices() {
        for &c in &alphabet {
            if c == original {
                continue;
            }
            let mut changed = token.clone();
            changed.replace_range(pos..pos + 1, c.encode_utf8(&mut [0; 4]));
            assert!(refused(&codec, &changed), "char {pos} = {c:?}");
        }
    }
}

#[test]
fn every_truncation_and_extension_is_refused() {
    let codec = codec();
    let token = valid(&codec);
    for len in 0..token.len() {
        assert!(refused(&codec, &token[..len]), "truncated to {len}");
    }
    for suffix in ["A", "AA", "AAA", "AAAA", "=", "==", "\n", " ", "%3D"] {
        assert!(
            refused(&codec, &format!("{token}{suffix}")),
            "extended by {suffix:?}"
        );
        assert!(
            refused(&codec, &format!("{suffix}{token}")),
            "prefixed by {suffix:?}"
        );
    }
}

#[test]
fn standard_base64_re_encodings_are_refused() {
    let codec = codec();
    let bytes = URL_SAFE_NO_PAD.decode(valid(&codec)).unwrap();
    for engine in [&STANDARD, &STANDARD_NO_PAD, &URL_SAFE] {
        let other = engine.encode(&bytes);
        if other == valid(&codec) {
            // Same text when the bytes need neither '+', '/' nor padding: nothing to test.
            continue;
        }
        assert!(refused(&codec, &other), "{other}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_as_text_are_refused(raw in prop::collection::vec(any::<u8>(), 0..100_000)) {
        let codec = codec();
        prop_assert!(refused(&codec, &String::from_utf8_lossy(&raw)));
    }

    #[test]
    fn random_base64url_strings_are_refused(text in "[A-Za-z0-9_-]{0,3000}") {
        let codec = codec();
        prop_assert!(refused(&codec, &text));
    }

    #[test]
    fn random_signed_looking_tokens_are_refused(
        body in prop::collection::vec(any::<u8>(), 0..600),
        key in 0u16..10,
    ) {
        // A plausible header (version 1, a key id) and random bytes as payload and tag.
        let codec = codec();
        let mut bytes = vec![1u8];
        bytes.extend_from_slice(&key.to_be_bytes());
        bytes.extend_from_slice(&body);
        prop_assert!(refused(&codec, &URL_SAFE_NO_PAD.encode(&bytes)));
    }
}

/// Two tables of one name in two schemas, each imported as `events`: their
/// keysets have different sort signatures, so a token for one is refused by the other. Before,
/// the signature named the table by its Rust path only (`events` for both) and the token was
/// accepted.
mod schemas {
    pub mod live {
        diesel::table! { live.events (id) { id -> BigInt } }
    }
    pub mod archive {
        diesel::table! { archive.events (id) { id -> BigInt } }
    }
    pub mod live_model {
        use super::live::events;
        use diesel::prelude::*;
        use keyset_diesel::Keyset;
        #[derive(Queryable, Selectable, Keyset)]
        #[diesel(table_name = events)]
        pub struct Live {
            #[keyset(asc, unique)]
            pub id: i64,
        }
    }
    pub mod archive_model {
        use super::archive::events;
        use diesel::prelude::*;
        use keyset_diesel::Keyset;
        #[derive(Queryable, Selectable, Keyset)]
        #[diesel(table_name = events)]
        pub struct Archived {
            #[keyset(asc, unique)]
            pub id: i64,
        }
    }
}

#[test]
fn tables_in_two_schemas_have_two_signatures() {
    use schemas::archive_model::Archived;
    use schemas::live_model::Live;
    assert_eq!(
        Live::sort_signature(),
        r#"events@"live"."events"(id:i64 asc)"#
    );
    assert_eq!(
        Archived::sort_signature(),
        r#"events@"archive"."events"(id:i64 asc)"#
    );
    assert_eq!(Event::sql_table_name(), r#""events""#);
    let codec = codec();
    let token = codec.encode(&Cursor::<Live>::after((7,)), &"W9").unwrap();
    assert_eq!(codec.decode::<Live>(&token, &"W9").unwrap().key, (7,));
    assert_eq!(
        codec.decode::<Archived>(&token, &"W9"),
        Err(keyset_diesel::token::CursorError::SortMismatch)
    );
}

/// A 4-column key whose text column may hold any `varchar(1000)` content.
mod wide {
    diesel::table! {
        notes (id) { at -> Timestamp, id -> BigInt, rank -> Integer, title -> Text }
    }
    use diesel::prelude::*;
    use keyset_diesel::Keyset;
    #[derive(Queryable, Selectable, Keyset)]
    #[diesel(table_name = notes)]
    pub struct Note {
        #[keyset(desc)]
        pub at: chrono::NaiveDateTime,
        #[keyset(asc)]
        pub title: String,
        #[keyset(asc)]
        pub rank: i32,
        #[keyset(asc, unique)]
        pub id: i64,
    }
}

/// The codecs to measure: signed, and (with the feature) encrypted; default maximum length.
fn default_codecs() -> Vec<(&'static str, CursorCodec)> {
    let secret = b"tests only: 32 bytes of secret!!";
    #[allow(unused_mut)]
    let mut codecs = vec![(
        "signed",
        CursorCodec::builder()
            .signing_key(SecretKey::new(7, secret).unwrap())
            .build()
            .unwrap(),
    )];
    #[cfg(feature = "encrypted-tokens")]
    codecs.push((
        "encrypted",
        CursorCodec::builder()
            .signing_key(SecretKey::new(7, secret).unwrap())
            .encrypted(true)
            .build()
            .unwrap(),
    ));
    codecs
}

/// Any key a `varchar(1000)` column can hold (any Unicode, control characters
/// included) makes a token the default codec issues and reads back, short enough for a URL
/// query string (at most `DEFAULT_MAX_TOKEN_LEN`, 6,144 characters, all URL-safe), for keys of
/// 3 and 4 columns, signed and encrypted. Before, 255 control characters (2,159 characters) and
/// 1,600 ASCII characters (2,252) were `EncodeError::TooLong` under the 2,048 default, and no
/// client could page past the row. Prints the lengths (`--nocapture`).
#[test]
fn long_text_keys_fit_a_url() {
    use keyset_diesel::token::DEFAULT_MAX_TOKEN_LEN;
    use wide::Note;
    let at = chrono::DateTime::from_timestamp(1_791_633_602, 999_999_999)
        .unwrap()
        .naive_utc();
    let control: String = (0..255u32)
        .map(|i| char::from_u32(i % 32).unwrap())
        .collect();
    let cases: Vec<(&str, String)> = vec![
        ("255 control characters", control),
        ("1,600 ASCII", "a".repeat(1600)),
        ("255 emoji", "\u{1F600}".repeat(255)),
        ("1,000 ASCII", "~".repeat(1000)),
        ("1,000 control characters", "\u{1}".repeat(1000)),
        ("1,000 emoji (4 bytes each)", "\u{1F600}".repeat(1000)),
        ("1,000 x U+10FFFF", "\u{10FFFF}".repeat(1000)),
    ];
    for (mode, codec) in default_codecs() {
        for (label, text) in &cases {
            let three = Cursor::<Event>::after((at, i32::MIN, text.clone()));
            let four = Cursor::<Note>::before((at, text.clone(), i32::MIN, i64::MIN));
            let t3 = codec
                .encode_with_page_size(&three, u32::MAX, &("W9", ["all"]))
                .unwrap();
            let t4 = codec
                .encode_with_page_size(&four, u32::MAX, &("W9", ["all"]))
                .unwrap();
            eprintln!(
                "{mode:9} {label:28} 3 columns: {:5}  4 columns: {:5}",
                t3.len(),
                t4.len()
            );
            for t in [&t3, &t4] {
                assert!(
                    t.len() <= DEFAULT_MAX_TOKEN_LEN,
                    "{mode} {label}: {}",
                    t.len()
                );
                assert!(t
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
            }
            assert_eq!(codec.decode::<Event>(&t3, &("W9", ["all"])).unwrap(), three);
            assert_eq!(codec.decode::<Note>(&t4, &("W9", ["all"])).unwrap(), four);
        }
        // Unbounded text can still be too long: the error names the cause.
        let huge = Cursor::<Event>::after((at, 1, "\u{1F600}".repeat(2000)));
        match codec.encode(&huge, &"W9") {
            Err(e @ keyset_diesel::token::EncodeError::TooLong { key_bytes, .. }) => {
                assert!(key_bytes > 8000, "{key_bytes}");
                let text = e.to_string();
                assert!(text.contains(&format!("{key_bytes} bytes")), "{text}");
                assert!(text.contains("varchar(1000)"), "{text}");
                assert_eq!(keyset_diesel::web::Problem::from(&e).status, 500);
            }
            other => panic!("expected TooLong, got {other:?}"),
        }
    }
}

/// `#[keyset(version = N)]`: `Event`'s columns at ordering versions 1 (written out) and 2.
mod versions {
    use super::events;
    use diesel::prelude::*;
    use keyset_diesel::Keyset;

    #[derive(Queryable, Selectable, Keyset)]
    #[diesel(table_name = events)]
    #[keyset(version = 1)]
    pub struct EventV1 {
        #[keyset(desc)]
        occurred_at: chrono::NaiveDateTime,
        #[keyset(asc)]
        rank: i32,
        #[keyset(asc, unique)]
        event_id: String,
    }

    #[derive(Queryable, Selectable, Keyset)]
    #[diesel(table_name = events)]
    #[keyset(version = 2)]
    pub struct EventV2 {
        #[keyset(desc)]
        occurred_at: chrono::NaiveDateTime,
        #[keyset(asc)]
        rank: i32,
        #[keyset(asc, unique)]
        event_id: String,
    }
}

/// A model without `#[keyset(version = ..)]` keeps the signature and digest it always had
/// (pinned here, so the tokens made before the attribute existed still decode), and
/// `version = 1` is that same ordering; `version = 2` is another, whose tokens and the older
/// ones refuse each other with `SortMismatch`.
#[test]
fn ordering_versions_keep_version_1_and_refuse_across_versions() {
    use versions::{EventV1, EventV2};
    let signature =
        r#"events@"events"(occurred_at:naive_datetime desc,rank:i32 asc,event_id:text asc)"#;
    assert_eq!(Event::sort_signature(), signature);
    let hex = |d: [u8; 16]| d.iter().map(|b| format!("{b:02x}")).collect::<String>();
    assert_eq!(
        hex(Event::sort_signature_digest()),
        "17f19683ee9df8c0bd665033374c516a"
    );
    assert_eq!(EventV1::sort_signature(), signature);
    assert_eq!(
        EventV1::sort_signature_digest(),
        Event::sort_signature_digest()
    );
    assert_eq!(EventV2::sort_signature(), format!("{signature};version=2"));
    assert_ne!(
        EventV2::sort_signature_digest(),
        Event::sort_signature_digest()
    );

    let codec = codec();
    let token = valid(&codec);
    assert!(codec.decode::<EventV1>(&token, &("W9", ["all"])).is_ok());
    assert_eq!(
        codec
            .decode::<EventV2>(&token, &("W9", ["all"]))
            .map(|c| c.key),
        Err(keyset_diesel::token::CursorError::SortMismatch)
    );
    let at = chrono::DateTime::from_timestamp(1_791_633_602, 0)
        .unwrap()
        .naive_utc();
    let v2 = codec
        .encode(
            &Cursor::<EventV2>::after((at, 3, "e103".into())),
            &("W9", ["all"]),
        )
        .unwrap();
    assert_eq!(
        codec.decode::<EventV2>(&v2, &("W9", ["all"])).unwrap().key,
        (at, 3, "e103".to_string())
    );
    assert_eq!(
        codec.decode::<Event>(&v2, &("W9", ["all"])).map(|c| c.key),
        Err(keyset_diesel::token::CursorError::SortMismatch)
    );
}
