//! A composite primary key as the tie-breaker (`order_lines (order_id, line_no)`, no field
//! marked `unique`): every walk, forward and backward, at page sizes 1 to 3, gives exactly the
//! rows of the same query with a plain `ORDER BY`, on every backend, with long tie groups on
//! the leading column and on `order_id`, in the direct form and as a deferred join (which
//! fetches the page's rows by every column of the key).

use keyset_diesel::Keyset;

use crate::composite::{LineByKey, LineByStatus, LineId};
use crate::models::{Read, Walk};
use crate::TestDb;

/// Creates `order_lines`: 20 orders of 1 to 5 lines, three statuses, inserted out of order.
fn order_lines<C: TestDb>(db: &mut C) {
    db.exec(
        "CREATE TABLE order_lines (order_id BIGINT NOT NULL, line_no INTEGER NOT NULL, \
         status INTEGER NOT NULL, PRIMARY KEY (order_id, line_no))",
    );
    let mut rows = Vec::new();
    for i in 0..20_i64 {
        let order = (i * 7) % 20 + 1;
        for line in 1..=(order % 5 + 1) {
            rows.push(format!("({order}, {line}, {})", (order + line) % 3));
        }
    }
    db.exec(&format!(
        "INSERT INTO order_lines VALUES {}",
        rows.join(", ")
    ));
}

/// Every page of `M` read with `how`, as row numbers in display order.
fn walk<M, C>(db: &mut C, how: Read) -> Vec<i64>
where
    M: Walk<C, Filter = ()> + Keyset + LineId,
{
    let mut rows = Vec::new();
    let mut cursor = None;
    for _ in 0..1_000 {
        let page = M::read(db, &(), cursor.take(), how)
            .unwrap_or_else(|e| panic!("{} {how:?}: {e:?}", std::any::type_name::<M>()));
        if !how.backward {
            crate::oracle::check_page(&page, how.page_size);
        }
        let mut ids: Vec<i64> = page.items.iter().map(M::line_id).collect();
        if how.backward {
            // A backward walk's pages come last page first; each in display order.
            ids.extend(rows);
            rows = ids;
        } else {
            rows.extend(ids);
        }
        cursor = page.next_cursor();
        if cursor.is_none() {
            return rows;
        }
    }
    panic!("the walk does not end");
}

/// The walks of both models against the oracle's `ORDER BY`.
pub fn composite_primary_key_tie_breaker_walks_as_order_by<C: TestDb>()
where
    LineByStatus: Walk<C, Filter = ()>,
    LineByKey: Walk<C, Filter = ()>,
{
    let mut fixture = C::open();
    let db: &mut C = &mut fixture;
    order_lines(db);
    let by_status = db.ids(
        "SELECT order_id * 100 + line_no AS id FROM order_lines \
         ORDER BY status ASC, order_id DESC, line_no ASC",
    );
    let by_key =
        db.ids("SELECT order_id * 100 + line_no AS id FROM order_lines ORDER BY order_id, line_no");
    assert!(by_status.len() > 50, "{}", by_status.len());
    for page_size in 1..=3 {
        for base in [Read::forward(page_size), Read::backward(page_size)] {
            // The direct form, and the deferred join (which fetches a page's rows by both
            // key columns): each forced, and the backend's default.
            for deferred in [None, Some(false), Some(true)] {
                let how = Read { deferred, ..base };
                assert_eq!(walk::<LineByStatus, C>(db, how), by_status, "{how:?}");
                assert_eq!(walk::<LineByKey, C>(db, how), by_key, "{how:?}");
            }
        }
    }
}
