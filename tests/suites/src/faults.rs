//! Faults during a walk (reports/RELIABILITY.md), on PostgreSQL and
//! MySQL/MariaDB: the connection killed by the server, a statement timeout, the server going
//! away and coming back (a restart, simulated by cutting an in-process TCP proxy, so the
//! shared server other tests use keeps running), and a connection cut in the middle of a
//! page's result. In each, the page read returns Diesel's error (never a panic, never a
//! partial or wrong page), and a client that reconnects and resumes from its last token
//! finishes the walk with every row exactly once.
//!
//! Partner: `tests/models/src/faults.rs` declares this subject's models and instantiates their
//! pages. The split follows the crates' layers (docs/TESTING.md): this file, in the suites
//! crate, holds the tests, generic over the backend, so editing a test rebuilds no page.

use crate::proxy::{url_host_port, Proxy};
use crate::read_contracts::{ev, Ev, Shared, SharedDb};
use crate::NextToken as _;
use diesel::QueryResult;
use keyset_diesel::token::SecretKey;
use keyset_diesel::{CursorCodec, PaginateDsl};
pub use keyset_test_models::faults::*;

const WS: &str = "F1";
const ROWS: u32 = 97;
const PAGE: u32 = 10;

fn codec() -> CursorCodec {
    CursorCodec::builder()
        .signing_key(SecretKey::new(1, &[9; 32]).expect("key"))
        .build()
        .expect("codec")
}

/// The seeded table (ties: three rows per second) and its rows in key order.
fn seed<C: SharedDb>(shared: &Shared<C>) -> Vec<Ev> {
    let conn = &mut shared.connect();
    let rows: Vec<Ev> = (0..ROWS).map(|n| ev(WS, n, i64::from(n / 3))).collect();
    conn.insert_evs(&rows).expect("insert");
    conn.insert_evs(&[ev("other", 1, 0)]).expect("insert");
    let expected = conn.load_evs(WS).expect("load");
    assert_eq!(expected.len(), ROWS as usize);
    expected
}

/// One page after `token` (the first page for `None`): its rows and the next token.
fn page<C: SharedDb>(
    conn: &mut C,
    codec: &CursorCodec,
    token: Option<&str>,
) -> QueryResult<(Vec<Ev>, Option<String>)> {
    let cursor = token.map(|t| codec.decode::<Ev>(t, &(WS,)).expect("own token"));
    let page = C::ev_query(WS)
        .paginate(cursor)
        .page_size(PAGE)
        .load_page(conn)?;
    let next = codec.next_token(&page, &(WS,)).expect("encode");
    Ok((page.items, next))
}

/// Reads `n` pages (fewer at the end); returns the rows and the last token.
fn pages<C: SharedDb>(
    conn: &mut C,
    codec: &CursorCodec,
    mut token: Option<String>,
    n: usize,
    rows: &mut Vec<Ev>,
) -> Option<String> {
    for _ in 0..n {
        let (items, next) = page(conn, codec, token.as_deref()).expect("page");
        rows.extend(items);
        token = next;
        if token.is_none() {
            break;
        }
    }
    token
}

/// Resumes from `token` on a new connection and reads to the end.
fn finish<C: SharedDb>(conn: &mut C, codec: &CursorCodec, token: String, rows: &mut Vec<Ev>) {
    let rest = pages(conn, codec, Some(token), usize::MAX, rows);
    assert!(rest.is_none());
}

fn assert_failed<C: FaultDb>(result: QueryResult<(Vec<Ev>, Option<String>)>, what: &str) -> String {
    match result {
        Ok((rows, _)) => panic!("{what}: a page of {} rows instead of an error", rows.len()),
        Err(e) => {
            eprintln!("{what}: {e}");
            let message = e.to_string().replace(['\t', '\n'], " ");
            crate::report::append_report(
                "faults.tsv",
                &format!("{}\terror\t{what}\t{}", C::NAME, message.trim()),
            );
            e.to_string()
        }
    }
}

/// Records that the walk of `fault` finished with every row exactly once.
fn resumed<C: FaultDb>(fault: &str, rows: &[Ev], expected: &[Ev]) {
    assert_eq!(rows, expected, "{fault}: the resumed walk");
    crate::report::append_report(
        "faults.tsv",
        &format!(
            "{}\tresumed\t{fault}\t{} of {} rows, each once, in order",
            C::NAME,
            rows.len(),
            expected.len()
        ),
    );
}

/// The server kills the walk's connection between two pages (`pg_terminate_backend`,
/// `KILL CONNECTION`): the next page is Diesel's error; a new connection resumes from the
/// last token and the walk has every row once.
pub fn connection_killed_mid_walk<C: FaultDb>() {
    let shared = C::shared();
    let expected = seed(&shared);
    let codec = codec();
    let mut conn = shared.connect();
    let id = conn.session_id();
    let mut rows = Vec::new();
    let token = pages(&mut conn, &codec, None, 3, &mut rows).expect("more pages");
    shared
        .connect()
        .batch_execute(&C::kill_sql(id))
        .expect("kill");
    assert_failed::<C>(
        page(&mut conn, &codec, Some(&token)),
        "page on a killed connection",
    );
    assert_failed::<C>(
        page(&mut conn, &codec, Some(&token)),
        "again on the killed connection",
    );
    let mut conn = shared.connect();
    assert_ne!(conn.session_id(), id);
    finish(&mut conn, &codec, token, &mut rows);
    resumed::<C>("connection killed", &rows, &expected);
}

/// A page read blocked past the session's statement timeout (another connection holds a
/// lock on the table) fails with the timeout error; once the lock is released the same
/// connection resumes from the last token and the walk has every row once.
pub fn statement_timeout_mid_walk<C: FaultDb>() {
    let shared = C::shared();
    let expected = seed(&shared);
    let codec = codec();
    let mut conn = shared.connect();
    conn.batch_execute(&C::timeout_sql(300)).expect("timeout");
    let mut rows = Vec::new();
    let token = pages(&mut conn, &codec, None, 2, &mut rows).expect("more pages");
    let mut locker = shared.connect();
    locker.batch_execute(C::LOCK).expect("lock");
    let started = std::time::Instant::now();
    let message = assert_failed::<C>(
        page(&mut conn, &codec, Some(&token)),
        "page past the timeout",
    );
    let waited = started.elapsed();
    locker.batch_execute(C::UNLOCK).expect("unlock");
    assert!(C::is_timeout(&message), "not the timeout: {message}");
    assert!(
        waited < std::time::Duration::from_secs(20),
        "the timeout ended the read: {waited:?}"
    );
    finish(&mut conn, &codec, token, &mut rows);
    resumed::<C>("statement timeout", &rows, &expected);
}

/// The server goes away during a walk and comes back (a restart, simulated by an in-process
/// proxy that drops every connection and refuses new ones meanwhile): the next page is an
/// error, reconnecting fails while it is down, and after it is back a new connection resumes
/// from the last token; the walk has every row once.
pub fn server_restart_mid_walk<C: FaultDb>() {
    let shared = C::shared();
    let expected = seed(&shared);
    let codec = codec();
    let proxy = Proxy::start(&url_host_port(shared.url()));
    let url = proxy.url_through(shared.url());
    let mut conn = shared.try_connect_to(&url).expect("through the proxy");
    let mut rows = Vec::new();
    let token = pages(&mut conn, &codec, None, 4, &mut rows).expect("more pages");
    proxy.down();
    assert_failed::<C>(
        page(&mut conn, &codec, Some(&token)),
        "page while the server is down",
    );
    assert!(
        shared.try_connect_to(&url).is_err(),
        "no connection while the server is down"
    );
    proxy.up();
    let mut conn = shared.try_connect_to(&url).expect("reconnect");
    finish(&mut conn, &codec, token, &mut rows);
    resumed::<C>("server restart (proxy)", &rows, &expected);
}

/// The connection is cut in the middle of a page's result (half of its bytes delivered): the
/// read is an error, not a shorter page; a new connection reads the same page from the same
/// token and the walk has every row once.
pub fn connection_cut_mid_result<C: FaultDb>() {
    let shared = C::shared();
    let expected = seed(&shared);
    let codec = codec();
    let proxy = Proxy::start(&url_host_port(shared.url()));
    let url = proxy.url_through(shared.url());
    let mut conn = shared.try_connect_to(&url).expect("through the proxy");
    let mut rows = Vec::new();
    let token = pages(&mut conn, &codec, None, 1, &mut rows).expect("more pages");
    // The size of this page's response, once any statement cache is warm.
    let mut sizes = Vec::new();
    let mut second = None;
    for _ in 0..3 {
        let before = proxy.downstream_bytes();
        second = Some(page(&mut conn, &codec, Some(&token)).expect("page"));
        sizes.push(proxy.downstream_bytes() - before);
    }
    let (second_rows, _) = second.expect("read");
    assert_eq!(second_rows.len(), PAGE as usize);
    let size = sizes[2];
    assert_eq!(sizes[1], size, "a warm page read sends the same bytes");
    assert!(
        size > 200,
        "a page of {PAGE} rows is more than {size} bytes"
    );
    proxy.cut_after(size / 2);
    assert_failed::<C>(page(&mut conn, &codec, Some(&token)), "page cut mid-result");
    let mut conn = shared.try_connect_to(&url).expect("reconnect");
    let (again, _) = page(&mut conn, &codec, Some(&token)).expect("the same page again");
    assert_eq!(again, second_rows);
    finish(&mut conn, &codec, token, &mut rows);
    resumed::<C>("connection cut mid-result", &rows, &expected);
}

/// Registers the concurrent-writer tests for backend `$db`.
#[macro_export]
macro_rules! concurrent_suite {
    ($db:ty) => {
        mod concurrent_writers {
            #[test]
            fn walks_under_inserts_deletes_and_non_key_updates() {
                $crate::concurrent::walks_under_inserts_deletes_and_updates::<$db>();
            }
            #[test]
            fn walks_under_key_updates_follow_the_live_read_contract() {
                $crate::concurrent::walks_under_key_updates::<$db>();
            }
        }
    };
}

/// Registers the fault tests for server backend `$db`.
#[macro_export]
macro_rules! fault_suite {
    ($db:ty) => {
        mod faults {
            #[test]
            fn connection_killed_mid_walk_errors_then_resumes_from_the_token() {
                $crate::faults::connection_killed_mid_walk::<$db>();
            }
            #[test]
            fn statement_timeout_mid_walk_errors_then_resumes_from_the_token() {
                $crate::faults::statement_timeout_mid_walk::<$db>();
            }
            #[test]
            fn server_restart_mid_walk_errors_then_resumes_from_the_token() {
                $crate::faults::server_restart_mid_walk::<$db>();
            }
            #[test]
            fn connection_cut_mid_result_is_an_error_not_a_short_page() {
                $crate::faults::connection_cut_mid_result::<$db>();
            }
        }
    };
}
