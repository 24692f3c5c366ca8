//! A snapshot left by a panic: `with_read_snapshot` rolls its transaction back before the
//! panic goes on, so a connection kept after the panic is caught reads fresh rows and commits
//! its writes.

use std::panic::{catch_unwind, AssertUnwindSafe};

use diesel::connection::{AnsiTransactionManager, TransactionManager};
use keyset_diesel::with_read_snapshot;

use super::{ev, SharedDb};

/// A panic inside the closure of `with_read_snapshot`, caught by the caller (a server's panic
/// handler): the kept connection is no longer in a transaction, a new snapshot begins on it,
/// and a write on it is committed (another connection sees it). Before, the connection stayed
/// inside the read-only snapshot: PostgreSQL and MariaDB refused the write, SQLite kept it
/// in a transaction that never committed.
pub fn snapshot_closure_panic_rolls_back<C: SharedDb>() {
    let shared = C::shared();
    let conn = &mut shared.connect();
    conn.insert_evs(&[ev("W1", 1, 0)]).expect("insert");
    let caught = catch_unwind(AssertUnwindSafe(|| {
        with_read_snapshot(&mut *conn, |conn| {
            let rows = conn.load_evs("W1")?;
            assert_eq!(rows.len(), 1);
            panic!("the export's consumer failed");
            #[allow(unreachable_code)]
            Ok::<_, diesel::result::Error>(())
        })
    }));
    assert!(caught.is_err(), "the panic goes on to the caller");
    assert_eq!(
        AnsiTransactionManager::transaction_manager_status_mut(conn).transaction_depth(),
        Ok(None),
        "the snapshot's transaction is rolled back"
    );
    conn.insert_evs(&[ev("W1", 2, 0)])
        .expect("a write after the panic");
    let other = &mut shared.connect();
    assert_eq!(
        other.load_evs("W1").expect("read").len(),
        2,
        "the write is committed"
    );
    let rows = with_read_snapshot(conn, |conn| conn.load_evs("W1")).expect("a new snapshot");
    assert_eq!(rows.len(), 2);
}
