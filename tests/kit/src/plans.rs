//! Plan tests: a deep table, a cursor far into it, and the page query under the database's own
//! EXPLAIN. The work a page does must be bounded by page size plus ties, whatever the depth.

use crate::{at, PlanRow, TestDb};

/// Rows in `plan_rows`; half of them in tenant 1.
pub const PLAN_ROWS: i64 = 30_000;
/// Rows of tenant 1 before the cursor (mid tie group for every shape).
pub const PLAN_DEPTH: i64 = 12_075;
/// Page size of the plan tests.
pub const PLAN_PAGE_SIZE: u32 = 20;
/// Rows of one tenant sharing one `at` value.
pub const AT_TIES: i64 = 10;
/// Distinct `score` values; a tenant has about `PLAN_ROWS / 2 / SCORES` rows per score.
pub const SCORES: i64 = 100;

/// Fills `plan_rows`: tenants 1 and 2 alternate by id; `at` advances every `2 * AT_TIES` ids
/// (so ties of `AT_TIES` per tenant); `score` is a scrambled value in `0..SCORES`; `maybe` is
/// `score`, or NULL for one row in five.
pub fn load_plan_rows<C: TestDb>(conn: &mut C) {
    load_plan_rows_n(conn, PLAN_ROWS);
}

/// [`load_plan_rows`] with `n` rows.
pub fn load_plan_rows_n<C: TestDb>(conn: &mut C, n: i64) {
    let rows: Vec<PlanRow> = (0..n)
        .map(|id| PlanRow {
            id,
            tenant: 1 + (id % 2) as i32,
            at: at(id / (2 * AT_TIES), 0),
            score: ((id * 7919) % SCORES) as i32,
            // NULL for one row in five; else like `score`.
            maybe: (id % 5 != 0).then_some(((id * 7919) % SCORES) as i32),
            payload: format!("payload {id}"),
        })
        .collect();
    conn.insert_plan_rows(&rows);
}

/// The id of the row at `PLAN_DEPTH` in tenant 1 under `order_sql`.
pub fn deep_id<C: TestDb>(conn: &mut C, order_sql: &str) -> i64 {
    id_at(conn, order_sql, PLAN_DEPTH)
}

/// the SQL guide, "Long runs of ties": the plan rows with every row of tenant 1 on score 7
/// (15,000 ties), analyzed. Returns the id of the row at `PLAN_DEPTH` under
/// `score DESC, id ASC` and the ids of the page after it.
pub fn long_tie_run<C: TestDb>(conn: &mut C) -> (i64, Vec<i64>) {
    load_plan_rows(conn);
    conn.exec("UPDATE plan_rows SET score = 7 WHERE tenant = 1");
    conn.exec(if C::NAME == "MySQL" {
        "ANALYZE TABLE plan_rows"
    } else {
        "ANALYZE"
    });
    let order = "score DESC, id ASC";
    let id = deep_id(conn, order);
    let expected = conn.ids(&format!(
        "SELECT id FROM plan_rows WHERE tenant = 1 ORDER BY {order} LIMIT {PLAN_PAGE_SIZE} OFFSET {}",
        PLAN_DEPTH + 1
    ));
    (id, expected)
}

/// The id of the row at `depth` in tenant 1 under `order_sql`.
pub fn id_at<C: TestDb>(conn: &mut C, order_sql: &str, depth: i64) -> i64 {
    conn.ids(&format!(
        "SELECT id FROM plan_rows WHERE tenant = 1 ORDER BY {order_sql} LIMIT 1 OFFSET {depth}"
    ))[0]
}
