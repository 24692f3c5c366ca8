//! A stored export's membership is fixed at creation: read one request per page while the
//! source changes, with many rows, and created while writers move rows across its pages.

use std::sync::Arc;
use std::time::Duration;

use keyset_diesel::Keyset;

use crate::at;

use super::writers::{Rng, Writers};
use super::{assert_no_duplicates, ev, ids, read_export, store, Ev, Reader, SharedDb};

/// A stored export read one request per page, on a new connection each, while the source
/// table changes before every request (inserts, deletes, key and non-key updates): it yields
/// exactly its membership at creation, content included, once each.
pub fn stored_export_is_fixed_at_creation<C: SharedDb, R: Reader<C>>() {
    let shared = C::shared();
    let conn = &mut shared.connect();
    let rows: Vec<Ev> = (0..60).map(|n| ev("W1", n, i64::from(n / 2))).collect();
    conn.insert_evs(&rows).expect("insert");
    conn.insert_evs(&[ev("W2", 1, 0)]).expect("insert");
    let now = Arc::new(std::sync::atomic::AtomicU64::new(1_800_000_000));
    let store = store(&now);
    let copy = conn.load_evs("W1").expect("copy");
    let export = R::open(&shared)
        .create(&store, "W1", &mut || C::ev_query("W1"))
        .expect("create");
    assert_eq!(export.rows, 60);
    assert_eq!(export.id.len(), 32);
    assert_eq!(export.expires_at, 1_800_000_000 + 3600);

    let mut writer = shared.connect();
    let exported = read_export::<C, R>(&shared, &store, &export.id, "W1", 7, |i| {
        let mut rng = Rng(0xC0FF_EE00 + i as u64);
        let i = i as u32;
        writer
            .insert_evs(&[ev("W1", 300 + i, i64::from(rng.below(30)))])
            .expect("insert");
        writer
            .delete_ev(&format!("W1-{:06}", rng.below(60)))
            .expect("delete");
        writer
            .set_message(&format!("W1-{:06}", rng.below(60)), "changed")
            .expect("update");
        writer
            .set_time(
                &format!("W1-{:06}", rng.below(60)),
                at(i64::from(rng.below(30)), 5),
            )
            .expect("update key");
    });
    assert_no_duplicates(&exported, "stored export");
    assert_eq!(exported, copy, "membership, order and content at creation");
    assert_ne!(writer.load_evs("W1").expect("live"), copy);
}

/// A stored export of 1,500 rows at the default creation page size (1,000 rows read per
/// statement, stored by several multi-row inserts each, within every backend's bind limit):
/// every position once, in order, read back in pages of 1,000.
pub fn stored_export_of_many_rows_keeps_every_position<C: SharedDb, R: Reader<C>>() {
    let shared = C::shared();
    let conn = &mut shared.connect();
    let rows: Vec<Ev> = (0..1_500).map(|n| ev("W1", n, i64::from(n / 5))).collect();
    conn.insert_evs(&rows).expect("insert");
    let now = Arc::new(std::sync::atomic::AtomicU64::new(1_800_000_000));
    let store = store(&now);
    let export = R::open(&shared)
        .create(&store, "W1", &mut || C::ev_query("W1"))
        .expect("create");
    assert_eq!(export.rows, 1_500);
    let exported = read_export::<C, R>(&shared, &store, &export.id, "W1", 1_000, |_| {});
    assert_eq!(exported, conn.load_evs("W1").expect("load"));
}

/// Creating a stored export while writers move rows across its pages (key updates) and
/// change their content: the creation reads one snapshot, so the export holds every row once
/// (membership never changes: rows only move) in strictly increasing key order. Without the
/// snapshot a row moved behind the walk's position is missed and one moved ahead is read twice.
pub fn stored_export_creation_reads_one_snapshot<C: SharedDb, R: Reader<C>>() {
    let shared = Arc::new(C::shared());
    let conn = &mut shared.connect();
    let rows: Vec<Ev> = (0..80).map(|n| ev("W1", n, i64::from(n))).collect();
    conn.insert_evs(&rows).expect("insert");
    let mut writers = Writers::new();
    writers.spawn(&shared, |conn: &mut C, i| {
        let mut rng = Rng(0xABCD_0000 + i as u64);
        let id = format!("W1-{:06}", rng.below(80));
        if i % 3 == 0 {
            conn.set_message(&id, &format!("changed {i}"))
                .is_ok_and(|n| n == 1)
        } else {
            conn.set_time(
                &id,
                at(i64::from(rng.below(80)), 1 + i64::from(rng.below(900))),
            )
            .is_ok_and(|n| n == 1)
        }
    });
    writers.wait_for(3);
    let now = Arc::new(std::sync::atomic::AtomicU64::new(1_800_000_000));
    let store = store(&now).create_page_size(6);
    // The query factory runs once per page of the creation's walk: let the writers move rows
    // first. SQLite's `BEGIN IMMEDIATE` holds them off until the export is stored, so there
    // the wait is short and the writers are idle meanwhile.
    let sqlite = C::NAME == "SQLite";
    let wait = Duration::from_millis(if sqlite { 10 } else { 300 });
    let mut during = 0;
    let export = R::open(&shared)
        .create(&store, "W1", &mut || {
            let before = writers.count();
            writers.wait_at_most(3, wait);
            during += writers.count() - before;
            C::ev_query("W1")
        })
        .expect("create");
    writers.stop();
    if sqlite {
        assert!(
            during <= 1,
            "SQLite writers wait for the export ({during} writes)"
        );
    } else {
        assert!(
            during >= 10,
            "writers were active during creation ({during} writes)"
        );
    }
    let exported = read_export::<C, R>(&shared, &store, &export.id, "W1", 25, |_| {});
    assert_no_duplicates(&exported, "stored export created under writes");
    let mut got = ids(&exported);
    got.sort();
    assert_eq!(got, ids(&rows), "every row once: membership is fixed");
    assert!(
        exported.windows(2).all(|w| w[0].key() < w[1].key()),
        "in key order of one snapshot"
    );
    assert_eq!(export.rows, 80);
}
