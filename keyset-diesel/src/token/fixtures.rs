//! What the token tests share: two secrets, a movable clock and a codec reading it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub use crate::fixtures::{cursor, ById, ByIdText, Row};
use crate::token::keys::{Clock, SecretKey};
use crate::token::CursorCodec;

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
