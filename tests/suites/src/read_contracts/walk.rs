//! `Walk` under concurrent writers: every page in order, resumed from its cursor, ended by an
//! error; with a high-water mark, the rows up to the mark while a writer appends.

use std::sync::Arc;

use keyset_diesel::{Cursor, Keyset};

use super::writers::Writers;
use super::{assert_no_duplicates, ev, ids, Ev, Reader, SharedDb, WalkSpec};

/// A walk follows every page in order, resumes from its cursor, and ends with an error.
pub fn walk_all_pages_and_resume<C: SharedDb, R: Reader<C>>() {
    let shared = C::shared();
    let conn = &mut shared.connect();
    let rows: Vec<Ev> = (0..23).map(|n| ev("W1", n, i64::from(n / 3))).collect();
    conn.insert_evs(&rows).expect("insert");
    conn.insert_evs(&[ev("W2", 1, 0)]).expect("insert");
    let expected = conn.load_evs("W1").expect("load");
    assert_eq!(expected.len(), 23);
    let reader = &mut R::open(&shared);
    let spec = |after, page_size| WalkSpec {
        after,
        page_size,
        high_water_mark: false,
    };

    let mut sizes = Vec::new();
    let mut walked = Vec::new();
    reader.walk("W1", spec(None, 5), &mut |page, _| {
        let page = page.expect("page");
        sizes.push(page.len());
        walked.extend(page.items);
        true
    });
    assert_eq!(sizes, [5, 5, 5, 5, 3]);
    assert_eq!(walked, expected);

    // Two pages, then a new walk after the first walk's cursor: the rest, once.
    let mut resumed: Vec<Ev> = Vec::new();
    let cursor = reader.walk("W1", spec(None, 4), &mut |page, _| {
        resumed.extend(page.expect("page").items);
        resumed.len() < 8
    });
    assert_eq!(cursor, Some(Cursor::after(expected[7].key())));
    reader.walk("W1", spec(cursor, 6), &mut |page, _| {
        resumed.extend(page.expect("page").items);
        true
    });
    assert_eq!(resumed, expected);

    // An error is yielded once and ends the walk; the cursor stays where it was.
    let mut items = Vec::new();
    let after = Some(Cursor::after(expected[2].key()));
    let cursor = reader.walk("W1", spec(after, 0), &mut |page, _| {
        items.push(page.is_err());
        true
    });
    assert_eq!(items, [true], "one item, the error, then the end");
    assert_eq!(cursor, Some(Cursor::after(expected[2].key())));

    // An empty range yields no page.
    let mut pages = 0;
    reader.walk("none", spec(None, 5), &mut |_, _| {
        pages += 1;
        true
    });
    assert_eq!(pages, 0);
}

/// A consumer that fails after any row resumes after the last row it processed
/// (`Cursor::after_row`), not after the page's cursor: for a failure after each of the 23 rows
/// in turn, at page sizes 1 to 4, the rows processed are every row once, in order. Resuming
/// from the walk's cursor instead skips the rest of the failed page (shown for one position).
pub fn walk_rows_resume_after_the_last_row_processed<C: SharedDb, R: Reader<C>>() {
    let shared = C::shared();
    let conn = &mut shared.connect();
    let rows: Vec<Ev> = (0..23).map(|n| ev("W1", n, i64::from(n / 3))).collect();
    conn.insert_evs(&rows).expect("insert");
    let expected = conn.load_evs("W1").expect("load");
    let reader = &mut R::open(&shared);
    let spec = |after, page_size| WalkSpec {
        after,
        page_size,
        high_water_mark: false,
    };
    for page_size in 1..=4 {
        for fail_after in 0..expected.len() {
            // The first run processes rows one by one and fails after `fail_after + 1` rows.
            let mut processed: Vec<Ev> = Vec::new();
            reader.walk("W1", spec(None, page_size), &mut |page, _| {
                for row in page.expect("page").items {
                    processed.push(row);
                    if processed.len() == fail_after + 1 {
                        return false;
                    }
                }
                true
            });
            assert_eq!(processed.len(), fail_after + 1);
            let resume = processed.last().map(Cursor::after_row);
            reader.walk("W1", spec(resume, page_size), &mut |page, _| {
                processed.extend(page.expect("page").items);
                true
            });
            assert_eq!(
                processed, expected,
                "page size {page_size}, failed after row {fail_after}"
            );
        }
    }
    // The walk's own cursor is the end of the page read, so a consumer that failed in the
    // middle of that page and resumes from it skips the page's unprocessed rows.
    let mut processed: Vec<Ev> = Vec::new();
    let cursor = reader.walk("W1", spec(None, 4), &mut |page, _| {
        processed.extend(page.expect("page").items.into_iter().take(2));
        false
    });
    assert_eq!(cursor, Some(Cursor::after(expected[3].key())));
    reader.walk("W1", spec(cursor, 4), &mut |page, _| {
        processed.extend(page.expect("page").items);
        true
    });
    assert_eq!(
        processed.len(),
        expected.len() - 2,
        "rows 2 and 3 were skipped"
    );
}

/// A high-water walk ends while a writer keeps appending: it yields every row up to the mark
/// taken at its start exactly once and nothing after it; also when the mark's own row is
/// deleted during the walk.
pub fn walk_high_water_mark_under_appends<C: SharedDb, R: Reader<C>>() {
    for delete_mark in [false, true] {
        let shared = Arc::new(C::shared());
        let conn = &mut shared.connect();
        let rows: Vec<Ev> = (0..120).map(|n| ev("W1", n, i64::from(n / 4))).collect();
        conn.insert_evs(&rows).expect("insert");
        let mut writers = Writers::new();
        writers.spawn(&shared, |conn: &mut C, i| {
            // Appended after every existing row, in the walk's workspace and another one.
            let n = 100_000 + i as u32;
            let ws = if i % 5 == 4 { "W2" } else { "W1" };
            conn.insert_evs(&[ev(ws, n, 10_000 + i as i64)]).is_ok()
        });
        writers.wait_for(3);

        let mut walked = Vec::new();
        let mut mark = None;
        let mut deleted = false;
        let spec = WalkSpec {
            after: None,
            page_size: 7,
            high_water_mark: true,
        };
        R::open(&shared).walk("W1", spec, &mut |page, walk_mark| {
            walked.extend(page.expect("page").items);
            if mark.is_none() {
                mark = walk_mark;
            }
            if delete_mark && !deleted {
                let (_, id) = mark.clone().expect("a mark");
                let mut other = shared.connect();
                assert_eq!(other.delete_ev(&id).expect("delete the mark row"), 1);
                deleted = true;
            }
            writers.wait_for(2);
            true
        });
        let appended = writers.stop();
        let mark = mark.expect("a mark was taken");

        let live = shared.connect().load_evs("W1").expect("load");
        let cut = live
            .iter()
            .position(|e| e.key() > mark)
            .unwrap_or(live.len());
        let (up_to_mark, after_mark) = live.split_at(cut);
        assert!(
            after_mark.len() >= 5,
            "the writer appended behind the mark during the walk ({} rows; {appended} writes)",
            after_mark.len()
        );
        assert_no_duplicates(&walked, "high-water walk");
        assert_eq!(
            ids(&walked),
            ids(up_to_mark),
            "every row up to the mark, once, in order (mark row deleted: {delete_mark})"
        );
        assert!(walked.iter().all(|e| e.key() <= mark));
        assert!(walked.len() >= 120, "the rows that existed at the start");
    }
}
