//! Past the signature: the fuzzer's bytes become the payload of a token *signed* (and, for odd
//! first bytes, also sealed) with a fuzz-only secret, so payload parsing, the key values'
//! binary form, the expiry checks and the encrypted mode's padding are reached, which the
//! `decode` target (whose tags never verify) cannot do. Decoding must return an error or a
//! cursor, never panic, and a cursor must re-encode to a token that decodes to it.
//!
//! Input: byte 0 picks the codec (bit 0: encrypted) and the layout (bit 1: the bytes after it
//! are the whole payload; otherwise a payload with the right sort and scope digests is built,
//! bytes 1 to 6 giving the direction byte, the page size and the expiry offset, the rest the
//! key value bytes).
//!
//! Run: `cd fuzz && cargo +nightly fuzz run signed -- -max_total_time=600`.
#![no_main]

use std::sync::OnceLock;
use std::time::{Duration, UNIX_EPOCH};

use diesel::prelude::*;
use keyset_diesel::{CursorCodec, Keyset};
use keyset_diesel::token::SecretKey;
use libfuzzer_sys::fuzz_target;

diesel::table! {
    events (event_id) {
        event_id -> Text,
        occurred_at -> Timestamp,
        rank -> Integer,
        note -> Nullable<Text>,
    }
}

/// Four key columns: a timestamp, an integer, a nullable text and a text.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = events)]
struct Event {
    #[keyset(desc)]
    occurred_at: chrono::NaiveDateTime,
    #[keyset(asc)]
    rank: i32,
    #[keyset(asc, nulls_last)]
    note: Option<String>,
    #[keyset(asc, unique)]
    event_id: String,
}

const NOW: u64 = 1_800_000_000;
const TTL: u64 = 3600;

fn codecs() -> &'static [CursorCodec; 2] {
    static CODECS: OnceLock<[CursorCodec; 2]> = OnceLock::new();
    CODECS.get_or_init(|| {
        let make = |encrypted| {
            CursorCodec::builder()
                .signing_key(SecretKey::new(1, b"fuzzing only: 32 bytes of secret").unwrap())
                .ttl(Duration::from_secs(TTL))
                .clock(|| UNIX_EPOCH + Duration::from_secs(NOW))
                .encrypted(encrypted)
                .build()
                .unwrap()
        };
        [make(false), make(true)]
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let codec = &codecs()[usize::from(mode & 1)];
    let scope = ("W9", "all");
    let payload = if mode & 2 != 0 || rest.len() < 6 {
        rest.to_vec()
    } else {
        let (fields, key) = rest.split_at(6);
        let page_size = u32::from_be_bytes([fields[1], fields[2], fields[3], fields[4]]);
        // Around the window: expired, valid, and too far ahead.
        let expires_at = NOW - 2 + u64::from(fields[5]) * (TTL + 64) / 255;
        codec.__fuzz_payload::<Event, _>(&scope, fields[0], page_size, expires_at, key)
    };
    let token = codec.__fuzz_sign_payload(&payload);
    if let Ok(decoded) = codec.decode_token::<Event>(&token, &scope) {
        assert!(decoded.expires_at > NOW && decoded.expires_at <= NOW + TTL + 60);
        let again = codec
            .encode(&decoded.cursor, &scope)
            .expect("a decoded cursor re-encodes");
        assert_eq!(codec.decode::<Event>(&again, &scope), Ok(decoded.cursor));
    }
});
