//! The read contracts (the guide's read contracts page) under concurrent writers: a walk with a
//! high-water mark, a snapshot export, a stored export. Each test opens one database that
//! several connections share (a WAL-mode SQLite file, a PostgreSQL schema, a MySQL database),
//! runs writer threads on their own connections, and checks what the reader got.
//!
//! Partner: `tests/models/src/read_contracts.rs` declares this subject's models and instantiates
//! their pages. The split follows the crates' layers (docs/TESTING.md): this file, in the suites
//! crate, holds the tests, generic over the backend, so editing a test rebuilds no page.
//!
//! Writers are bounded by count and time, and the reader waits (briefly) for them between
//! pages, so every page is read after concurrent changes and each test ends in seconds.
//!
//! One file per subject in `read_contracts/`: the [`Reader`] (`reader.rs`, blocking;
//! `async_reader.rs`, diesel-async), the writer threads (`writers.rs`), and the tests of
//! [`walk`], [`snapshot`], [`stored_export`] (membership fixed at creation), [`expiry`],
//! [`scopes`] and [`bounds`] (a page's byte budget, an export's row limit). [`read_contract_suite!`] stamps them out for a backend.

use std::collections::HashSet;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use keyset_diesel::export::ExportStore;
use keyset_diesel::token::SecretKey;
use keyset_diesel::CursorCodec;
pub use keyset_test_models::read_contracts::*;

pub mod abandoned;
#[cfg(feature = "diesel-async")]
pub mod async_reader;
pub mod bounds;
pub mod expiry;
mod reader;
pub mod scopes;
pub mod snapshot;
pub mod stored_export;
pub mod walk;
mod writers;

pub use reader::{OnItem, Reader, WalkSpec};

/// The event ids of `rows`, in order.
fn ids(rows: &[Ev]) -> Vec<String> {
    rows.iter().map(|e| e.event_id.clone()).collect()
}

/// Panics if an event id appears twice in `rows`.
fn assert_no_duplicates(rows: &[Ev], what: &str) {
    let mut seen = HashSet::new();
    for r in rows {
        assert!(seen.insert(&r.event_id), "{what}: {} twice", r.event_id);
    }
}

/// A store of exports that live an hour, signed with a fixed key, on the clock `now` (seconds).
fn store(now: &Arc<std::sync::atomic::AtomicU64>) -> ExportStore {
    let codec = CursorCodec::builder()
        .signing_key(SecretKey::new(1, &[7; 32]).expect("key"))
        .build()
        .expect("codec");
    let now = now.clone();
    ExportStore::new(codec, Duration::from_secs(3600)).with_clock(move || {
        std::time::UNIX_EPOCH + Duration::from_secs(now.load(Ordering::Relaxed))
    })
}

/// Reads a whole stored export, one request (and one new connection) per page, calling
/// `between` before each request.
fn read_export<C: SharedDb, R: Reader<C>>(
    shared: &Shared<C>,
    store: &ExportStore,
    id: &str,
    scope: &str,
    page_size: u32,
    mut between: impl FnMut(usize),
) -> Vec<Ev> {
    let mut token: Option<String> = None;
    let mut rows: Vec<Ev> = Vec::new();
    for request in 0.. {
        between(request);
        let page = R::open(shared)
            .page(store, id, scope, token.as_deref(), page_size)
            .expect("export page");
        assert_eq!(page.first_position, rows.len() as u64 + 1);
        rows.extend(page.items);
        match page.next_token {
            Some(next) => token = Some(next),
            None => break,
        }
    }
    rows
}

/// Registers this module's tests for backend `$db`, read through the blocking API; with
/// `async $reader`, the same tests read through `keyset_diesel::async_` by `$reader` (an
/// [`AsyncReader`](async_reader::AsyncReader) of the backend's diesel-async connection).
#[macro_export]
macro_rules! read_contract_suite {
    ($db:ty) => {
        $crate::read_contract_suite!(@tests read_contracts, $db, $db);
        #[test]
        fn snapshot_closure_panic_rolls_back_the_kept_connection() {
            $crate::read_contracts::abandoned::snapshot_closure_panic_rolls_back::<$db>();
        }
    };
    (async $db:ty, $reader:ty) => {
        $crate::read_contract_suite!(@tests async_read_contracts, $db, $reader);
    };
    (@tests $module:ident, $db:ty, $reader:ty) => {
        mod $module {
            use $crate::read_contracts as rc;
            #[test]
            fn walk_follows_every_page_resumes_and_ends_on_error() {
                rc::walk::walk_all_pages_and_resume::<$db, $reader>();
            }
            #[test]
            fn walk_rows_resume_after_the_last_row_processed() {
                rc::walk::walk_rows_resume_after_the_last_row_processed::<$db, $reader>();
            }
            #[test]
            fn walk_with_high_water_mark_ends_under_appends() {
                rc::walk::walk_high_water_mark_under_appends::<$db, $reader>();
            }
            #[test]
            fn snapshot_export_is_the_snapshot_under_concurrent_writes() {
                rc::snapshot::snapshot_export_under_concurrent_writes::<$db, $reader>();
            }
            #[test]
            fn snapshot_holds_on_a_read_committed_session() {
                rc::snapshot::snapshot_holds_on_a_read_committed_session::<$db, $reader>();
            }
            #[test]
            fn stored_export_of_many_rows_keeps_every_position() {
                rc::stored_export::stored_export_of_many_rows_keeps_every_position::<$db, $reader>();
            }
            #[test]
            fn stored_export_is_fixed_at_creation_across_requests() {
                rc::stored_export::stored_export_is_fixed_at_creation::<$db, $reader>();
            }
            #[test]
            fn stored_export_creation_reads_one_snapshot_under_key_updates() {
                rc::stored_export::stored_export_creation_reads_one_snapshot::<$db, $reader>();
            }
            #[test]
            fn stored_export_expires_410_and_purge_removes_it_404() {
                rc::expiry::stored_export_expires_and_is_purged::<$db, $reader>();
            }
            #[test]
            fn stored_export_read_meeting_a_purge_is_expired_or_unknown() {
                rc::expiry::stored_export_read_meeting_a_purge::<$db, $reader>();
            }
            #[test]
            fn stored_export_expire_never_moves_the_end_later() {
                rc::expiry::stored_export_expire_never_moves_the_end_later::<$db, $reader>();
            }
            #[test]
            fn stored_export_pages_keep_the_byte_budget() {
                rc::bounds::stored_export_pages_keep_the_byte_budget::<$db, $reader>();
            }
            #[test]
            fn stored_export_refuses_more_rows_than_max_rows() {
                rc::bounds::stored_export_refuses_more_rows_than_max_rows::<$db, $reader>();
            }
            #[test]
            fn stored_export_is_scoped_and_bounded() {
                rc::scopes::stored_export_is_scoped_and_bounded::<$db, $reader>();
            }
            #[test]
            fn stored_exports_of_two_scopes_stay_apart_and_tokens_are_bound() {
                rc::scopes::stored_exports_of_two_scopes::<$db, $reader>();
            }
        }
    };
}
