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

/// docs/DESIGN.md, "Long runs of ties": the plan rows with every row of tenant 1 on score 7
/// (15,000 ties), analyzed. Returns the id of the row at `PLAN_DEPTH` under
/// `score DESC, id ASC` and the ids of the page after it.
pub fn long_tie_run<C: TestDb>(conn: &mut C) -> (i64, Vec<i64>) {
    load_plan_rows(conn);
    conn.exec("UPDATE plan_rows SET score = 7 WHERE tenant = 1");
    conn.exec("ANALYZE");
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

/// The plan check (`keyset_diesel::plan`) on connection `$db` after `$analyze` (the backend's
/// statement that refreshes statistics), on the page after the row at `PLAN_DEPTH` of
/// `PlanDesc` (`at DESC, id DESC`, filtered by tenant): it seeks on the migrations' index
/// `(tenant, at, id)`; after `$drop_index` it is not a seek and the failure message names the
/// index to create, `$recipe` (the tenant, then `at DESC, id DESC`; on MySQL ascending, read
/// backward), and creating that index makes the page seek again.
#[macro_export]
macro_rules! plan_check_tests {
    ($db:ty, analyze = $analyze:expr, drop_index = $drop:expr, recipe = $recipe:expr) => {
        /// The page after the row at `PLAN_DEPTH` of `PlanDesc`, as a handler builds it.
        macro_rules! plan_check_page {
            ($conn:expr) => {{
                use diesel::prelude::*;
                use keyset_diesel::{Cursor, PaginateDsl};
                use $crate::models::PlanDesc;
                use $crate::schema::plan_rows;
                let conn: &mut $db = $conn;
                let id = $crate::plans::deep_id(conn, "at DESC, id DESC");
                let row: PlanDesc = plan_rows::table
                    .find(id)
                    .select(PlanDesc::as_select())
                    .first(conn)
                    .expect("deep row");
                let page = plan_rows::table
                    .filter(plan_rows::tenant.eq(1))
                    .select(PlanDesc::as_select())
                    .paginate_after(Some(Cursor::after_row(&row)))
                    .page_size($crate::plans::PLAN_PAGE_SIZE);
                keyset_diesel::plan::explain(conn, page).expect("plan")
            }};
        }

        const PLAN_CHECK_RECIPE: &str = $recipe;

        #[test]
        fn plan_check_reports_a_seek_on_the_keyset_index() {
            use $crate::TestDb;
            let mut db = <$db as $crate::TestDb>::open();
            $crate::plans::load_plan_rows(&mut *db);
            db.exec($analyze);
            let conn: &mut $db = &mut db;
            let report = plan_check_page!(conn);
            eprintln!("{report:#?}");
            report.assert_seeks();
            assert!(!report.reads.is_empty(), "{report:#?}");
            assert_eq!(report.table, "plan_rows");
            assert_eq!(report.index_recipe, PLAN_CHECK_RECIPE);
            assert!(
                report
                    .reads
                    .iter()
                    .any(|r| r.index.as_deref() == Some("plan_rows_tenant_at_id")),
                "{report:#?}"
            );
        }

        #[test]
        fn plan_check_fails_without_the_index_and_names_it() {
            use $crate::TestDb;
            let mut db = <$db as $crate::TestDb>::open();
            $crate::plans::load_plan_rows(&mut *db);
            db.exec($drop);
            db.exec($analyze);
            let conn: &mut $db = &mut db;
            let report = plan_check_page!(conn);
            eprintln!("{}", report.failure());
            assert!(!report.seeks(), "{report:#?}");
            let failed = std::panic::catch_unwind(|| report.assert_seeks())
                .expect_err("assert_seeks panics on a page that does not seek");
            let message = failed
                .downcast_ref::<String>()
                .expect("a formatted panic message");
            assert_eq!(message, &report.failure());
            assert!(message.contains(PLAN_CHECK_RECIPE), "{message}");
            for reason in &report.not_a_seek {
                assert!(message.contains(&reason.to_string()), "{message}");
            }
            // The recipe makes the page a seek again.
            db.exec(&report.index_recipe);
            db.exec($analyze);
            let conn: &mut $db = &mut db;
            let again = plan_check_page!(conn);
            again.assert_seeks();
        }
    };
}
