//! A walk inside `with_read_snapshot` while writers insert, delete and update: the export is
//! the snapshot's rows, also on a READ COMMITTED session.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::at;

use super::writers::{Rng, Writers};
use super::{assert_no_duplicates, ev, Ev, Reader, SharedDb};

/// The walk inside [`with_read_snapshot`], while writers on other connections insert, delete
/// and update (key and non-key columns): the export is exactly the rows as they were when the
/// snapshot was taken (a copy read as the transaction's first statement), once each.
pub fn snapshot_export_under_concurrent_writes<C: SharedDb, R: Reader<C>>() {
    let shared = Arc::new(C::shared());
    let conn = &mut shared.connect();
    let rows: Vec<Ev> = (0..150).map(|n| ev("W1", n, i64::from(n / 3))).collect();
    conn.insert_evs(&rows).expect("insert");
    conn.insert_evs(&[ev("W2", 1, 0)]).expect("insert");

    let mut writers = Writers::new();
    // Inserts anywhere in the range, deletes of existing rows.
    writers.spawn(&shared, |conn: &mut C, i| {
        let mut rng = Rng(0x9E37_79B9 + i as u64);
        if i % 2 == 0 {
            let n = 200_000 + i as u32;
            conn.insert_evs(&[ev("W1", n, i64::from(rng.below(60)))])
                .is_ok()
        } else {
            let victim = format!("W1-{:06}", rng.below(150));
            conn.delete_ev(&victim).is_ok_and(|n| n == 1)
        }
    });
    // Updates: non-key (message) and key (occurred_at, forward and backward).
    writers.spawn(&shared, |conn: &mut C, i| {
        let mut rng = Rng(0x51_7CC1 + i as u64);
        let id = format!("W1-{:06}", rng.below(150));
        if i % 2 == 0 {
            conn.set_message(&id, &format!("changed {i}"))
                .is_ok_and(|n| n == 1)
        } else {
            conn.set_time(&id, at(i64::from(rng.below(60)), 3))
                .is_ok_and(|n| n == 1)
        }
    });
    writers.wait_for(4);

    let reader = &mut R::open(&shared);
    let before = Arc::new(AtomicUsize::new(usize::MAX));
    let (copy, exported) = {
        let (writers, before) = (&writers, before.clone());
        reader
            .snapshot("W1", 9, &mut || {
                // After each page: the writers' count at the first, then more writes.
                let _ = before.compare_exchange(
                    usize::MAX,
                    writers.count(),
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                );
                writers.wait_for(3);
            })
            .expect("snapshot export")
    };
    let during = writers.count() - before.load(Ordering::Relaxed).min(writers.count());
    let total = writers.stop();

    assert!(
        during >= 20,
        "writers were active during the export: {during} writes"
    );
    assert_no_duplicates(&exported, "snapshot export");
    assert_eq!(
        exported, copy,
        "the export is the snapshot's rows, content included"
    );
    let live = shared.connect().load_evs("W1").expect("load");
    assert_ne!(
        live, copy,
        "the live rows changed meanwhile ({total} writes)"
    );
}

/// The snapshot on a session whose default isolation is READ COMMITTED (a common server
/// setting; on MySQL/MariaDB `WITH CONSISTENT SNAPSHOT` alone is then ignored): a writer
/// inserts ahead of the walk after every page, and the export is still the snapshot's rows.
pub fn snapshot_holds_on_a_read_committed_session<C: SharedDb, R: Reader<C>>() {
    let shared = C::shared();
    let conn = &mut shared.connect();
    let rows: Vec<Ev> = (0..30).map(|n| ev("W1", n, i64::from(n))).collect();
    conn.insert_evs(&rows).expect("insert");
    let reader = &mut R::open(&shared);
    match C::NAME {
        "MySQL" => reader.session("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED"),
        "PostgreSQL" => reader
            .session("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED"),
        _ => {} // SQLite has one isolation: serializable.
    }
    let mut writer = shared.connect();
    let mut n = 0;
    let (copy, exported) = reader
        .snapshot("W1", 4, &mut || {
            n += 1;
            writer
                .insert_evs(&[ev("W1", 1_000 + n, 100 + i64::from(n))])
                .expect("insert ahead of the walk");
        })
        .expect("snapshot");
    assert_eq!(copy.len(), 30);
    assert!(n >= 7, "a write after every page ({n})");
    assert_eq!(
        exported, copy,
        "the snapshot's rows, none written during the walk"
    );
}
