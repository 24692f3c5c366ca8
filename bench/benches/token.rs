//! Token encode and decode+verify for a 3-column key (timestamp DESC, integer ASC, text ASC).
//! Target on the 2-core development machine: encode + decode under 5 microseconds together.
//!
//! `cargo bench -p keyset-bench --bench token`

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use diesel::prelude::*;
use keyset_diesel::token::SecretKey;
use keyset_diesel::{Cursor, CursorCodec, Keyset};

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

#[derive(serde::Serialize)]
struct Scope<'a> {
    workspace: &'a str,
    kinds: [&'a str; 2],
}

fn tokens(c: &mut Criterion) {
    let codec = CursorCodec::builder()
        .signing_key(SecretKey::new(1, b"benchmark only: 32 bytes secret!").unwrap())
        .ttl(Duration::from_secs(3600))
        .build()
        .unwrap();
    let at = chrono::DateTime::from_timestamp(1_791_633_602, 123_456_000)
        .unwrap()
        .naive_utc();
    let cursor = Cursor::<Event>::after((at, 42, "e103-2026-10-10".to_string()));
    let scope = Scope {
        workspace: "W9",
        kinds: ["comment", "upload"],
    };
    let token = codec.encode(&cursor, &scope).unwrap();

    let mut group = c.benchmark_group("token_3_column_key");
    group.bench_function("encode", |b| {
        b.iter(|| codec.encode(black_box(&cursor), black_box(&scope)).unwrap())
    });
    group.bench_function("decode_verify", |b| {
        b.iter(|| {
            codec
                .decode::<Event>(black_box(&token), black_box(&scope))
                .unwrap()
        })
    });
    group.bench_function("encode_then_decode", |b| {
        b.iter(|| {
            let t = codec.encode(black_box(&cursor), black_box(&scope)).unwrap();
            codec.decode::<Event>(&t, black_box(&scope)).unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, tokens);
criterion_main!(benches);
