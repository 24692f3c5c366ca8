//! The test kit of keyset-diesel's suites: one isolated, migrated database per test on each
//! backend ([`TestDb`], [`Fixture`]), the test tables ([`schema`]) and their rows, value
//! generators at each database's precision ([`values`]), the plan tables' data ([`plans`]),
//! diesel-async connections paired with the blocking ones ([`async_db`], feature
//! `diesel-async`), a TCP proxy for fault tests ([`proxy`]) and the reliability report's raw
//! figures ([`report`]). It loads no page: the models that do are `keyset-test-models`.
//!
//! A backend whose server is not reachable fails the test that needs it; nothing is skipped.

#[cfg(feature = "diesel-async")]
pub mod async_db;
pub mod db;
pub mod plans;
pub mod proxy;
pub mod report;
pub mod schema;
pub mod values;

use chrono::NaiveDateTime;

pub use db::{Fixture, NewEvent, OracleDb, PlanRow, Row, TestDb};

/// 2026-10-10 12:00:00 UTC plus `secs` seconds and `micros` microseconds.
pub fn at(secs: i64, micros: i64) -> NaiveDateTime {
    NaiveDateTime::parse_from_str("2026-10-10 12:00:00", "%F %T").expect("valid base time")
        + chrono::Duration::seconds(secs)
        + chrono::Duration::microseconds(micros)
}

/// `../shared`, beside the repository (or `KEYSET_SHARED_DIR`).
pub fn shared_dir() -> std::path::PathBuf {
    match std::env::var_os("KEYSET_SHARED_DIR") {
        Some(dir) => dir.into(),
        None => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    }
}

/// A file under `../shared/data`, or `None` after saying why; under `CI=true` a missing file
/// fails the test instead.
pub fn shared_data(relative: &str) -> Option<std::path::PathBuf> {
    let path = shared_dir().join("data").join(relative);
    if path.is_file() {
        return Some(path);
    }
    let msg = format!(
        "{} is missing: this test needs ../shared/data beside the repository (or KEYSET_SHARED_DIR)",
        path.display()
    );
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{msg}");
    }
    eprintln!("NOT RUN: {msg}");
    None
}

/// The token of a page's next cursor, recording the page's size (`None` at the end of
/// results): what a handler hands its client, as [`CursorCodec`](keyset_diesel::CursorCodec)
/// makes it.
pub trait NextToken {
    /// # Errors
    /// What [`CursorCodec::encode_with_page_size`](keyset_diesel::CursorCodec::encode_with_page_size)
    /// returns.
    fn next_token<T, K: keyset_diesel::Keyset, S: serde::Serialize + ?Sized>(
        &self,
        page: &keyset_diesel::Page<T, K>,
        scope: &S,
    ) -> Result<Option<String>, keyset_diesel::token::EncodeError>;
}

impl NextToken for keyset_diesel::CursorCodec {
    fn next_token<T, K: keyset_diesel::Keyset, S: serde::Serialize + ?Sized>(
        &self,
        page: &keyset_diesel::Page<T, K>,
        scope: &S,
    ) -> Result<Option<String>, keyset_diesel::token::EncodeError> {
        page.next_cursor()
            .map(|c| self.encode_with_page_size(&c, page.page_size, scope))
            .transpose()
    }
}
