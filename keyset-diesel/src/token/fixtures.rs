//! What the token tests share: three keysets on one table, two secrets, a movable clock and a
//! codec reading it, and a cursor with a 3-column key.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::cursor::Cursor;
use crate::keyset::{KeyColumn, Keyset, SortDirection};
use crate::token::keys::{Clock, SecretKey};
use crate::token::CursorCodec;

diesel::table! { feed (id) { id -> BigInt, at -> Timestamp, name -> Text } }

/// (at DESC, name ASC, id ASC): a 3-column key.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
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
pub struct ById(pub i64);

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
pub struct ByIdText(pub String);

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

pub const SECRET_A: &[u8] = b"0123456789abcdef0123456789abcdef-A";
pub const SECRET_B: &[u8] = b"0123456789abcdef0123456789abcdef-B";

/// A clock that reads Unix seconds from a shared counter the test moves.
pub struct TestClock(pub Arc<AtomicU64>);

impl Clock for TestClock {
    fn now(&self) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(self.0.load(Ordering::SeqCst))
    }
}

/// A signed-token codec with `SECRET_A` as key 1, a 600 s time to live and the clock `now`.
pub fn codec_at(now: &Arc<AtomicU64>) -> CursorCodec {
    CursorCodec::builder()
        .signing_key(SecretKey::new(1, SECRET_A).unwrap())
        .ttl(Duration::from_secs(600))
        .clock(TestClock(now.clone()))
        .build()
        .unwrap()
}

/// [`codec_at`] a fixed time, Unix second 1,800,000,000.
pub fn codec() -> CursorCodec {
    codec_at(&Arc::new(AtomicU64::new(1_800_000_000)))
}

/// `after (2025-10-10T12:00:02.123456, "e103", 103)`.
pub fn cursor() -> Cursor<Row> {
    let at = chrono::DateTime::from_timestamp(1_760_097_602, 123_456_000)
        .unwrap()
        .naive_utc();
    Cursor::after((at, "e103".to_string(), 103))
}
