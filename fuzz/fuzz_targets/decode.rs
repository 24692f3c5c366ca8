//! `CursorCodec::decode` on arbitrary input: it must return an error or a cursor, never panic,
//! and any cursor it returns must re-encode to a token that decodes to the same cursor.
//!
//! Run: `RUSTC_BOOTSTRAP=1 cargo fuzz run decode -- -max_total_time=60` (from the repository
//! root; cargo-fuzz needs nightly flags, which RUSTC_BOOTSTRAP enables on a stable toolchain).
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
    }
}

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

fn codec() -> &'static CursorCodec {
    static CODEC: OnceLock<CursorCodec> = OnceLock::new();
    CODEC.get_or_init(|| {
        CursorCodec::builder()
            .signing_key(SecretKey::new(1, b"fuzzing only: 32 bytes of secret").unwrap())
            .ttl(Duration::from_secs(3600))
            .clock(|| UNIX_EPOCH + Duration::from_secs(1_800_000_000))
            .build()
            .unwrap()
    })
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let scope = ("W9", "all");
    if let Ok(cursor) = codec().decode::<Event>(&text, &scope) {
        let again = codec().encode(&cursor, &scope).expect("scope serializes");
        assert_eq!(codec().decode::<Event>(&again, &scope), Ok(cursor));
    }
});
