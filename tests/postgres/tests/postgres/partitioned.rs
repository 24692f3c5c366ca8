//! A table range-partitioned by month on its leading key column: a deep page reads every
//! partition from the cursor, and `expanded_seek(true)` lets PostgreSQL prune the partitions
//! before it.

use diesel::prelude::*;
use keyset_diesel::plan::{self, TableRead};
use keyset_diesel::{Cursor, PaginateDsl};
use keyset_test_suites::plans::PLAN_PAGE_SIZE;
use keyset_test_suites::TestDb;

/// A table range-partitioned by month on its leading key column.
mod months {
    diesel::table! {
        /// 24 monthly partitions `part_rows_0` .. `part_rows_23` of `at`.
        part_rows (id) {
            id -> BigInt,
            tenant -> Integer,
            at -> Timestamp,
            payload -> Text,
        }
    }

    /// `at ASC, id ASC`: `id` is unique (each row has its own), but a partitioned table's
    /// primary key must hold the partition key, so the derive is told with `unique`.
    #[derive(Debug, Clone, diesel::Queryable, diesel::Selectable, keyset_diesel::Keyset)]
    #[diesel(table_name = part_rows)]
    pub struct PartAsc {
        #[keyset(asc)]
        pub at: chrono::NaiveDateTime,
        #[keyset(asc, unique)]
        pub id: i64,
        pub payload: String,
    }

    /// `at DESC, id DESC`: the same index read backward.
    #[derive(Debug, Clone, diesel::Queryable, diesel::Selectable, keyset_diesel::Keyset)]
    #[diesel(table_name = part_rows)]
    pub struct PartDesc {
        #[keyset(desc)]
        pub at: chrono::NaiveDateTime,
        #[keyset(desc, unique)]
        pub id: i64,
        pub payload: String,
    }

    /// Partitions.
    pub const PARTS: usize = 24;
    /// Rows, spread evenly over the 24 months, tenants 1 and 2 alternating.
    pub const ROWS: i64 = 48_000;

    /// Creates and fills `part_rows` (the recipe of the SQL guide: the index on the parent,
    /// which PostgreSQL creates on every partition), then `ANALYZE`.
    pub fn create(db: &mut diesel::PgConnection) {
        use keyset_test_suites::TestDb;
        db.exec(
            "CREATE TABLE part_rows (id BIGINT NOT NULL, tenant INTEGER NOT NULL, \
             at TIMESTAMP NOT NULL, payload TEXT NOT NULL) PARTITION BY RANGE (at)",
        );
        for m in 0..PARTS {
            db.exec(&format!(
                "CREATE TABLE part_rows_{m} PARTITION OF part_rows FOR VALUES \
                 FROM (TIMESTAMP '2025-01-01' + INTERVAL '{m} months') \
                 TO (TIMESTAMP '2025-01-01' + INTERVAL '{} months')",
                m + 1
            ));
        }
        db.exec("CREATE INDEX part_rows_tenant_at_id ON part_rows (tenant, at, id)");
        // Ties: 4 rows per `at` value, 2 of each tenant.
        db.exec(&format!(
            "INSERT INTO part_rows SELECT i, 1 + i % 2, \
             TIMESTAMP '2025-01-01' + (i / 4) * (INTERVAL '730 days' / {}), 'payload ' || i \
             FROM generate_series(0, {} - 1) i",
            ROWS / 4,
            ROWS
        ));
        db.exec("ANALYZE part_rows");
    }
}

/// On a table range-partitioned by month on the leading key column (24
/// partitions), a page deep in the table (the row at depth 15,000 of tenant 1's 24,000, in
/// month 15) reads every partition from the cursor: the plan check counts the partitions'
/// reads as the table's and finds a seek; every partition the page reached has the seek in its
/// `Index Cond`; the partitions before the cursor (in walk order) returned no row (each is one
/// index descent that finds nothing past the cursor, not a read from its start); the rows come
/// from at most two partitions, no more than `page_size + 1`; and the partitions after the
/// page were never executed. Both directions, each page equal to the `OFFSET` query's rows.
/// Then the SQL guide's workaround: a plain bound on the leading column from the cursor's key
/// gives the same page, and PostgreSQL prunes the partitions before the cursor.
#[test]
fn plan_partitioned_table_every_partition_starts_at_the_cursor() {
    use months::{part_rows, PartAsc, PartDesc, PARTS};
    const DEPTH: i64 = 15_000;
    let mut db = diesel::PgConnection::open();
    months::create(&mut db);

    macro_rules! check {
        ($model:ty, $order:literal, $seek:literal) => {{
            let order = $order;
            let id = db.ids(&format!(
                "SELECT id FROM part_rows WHERE tenant = 1 ORDER BY {order} LIMIT 1 OFFSET {DEPTH}"
            ))[0];
            let row: $model = part_rows::table
                .filter(part_rows::id.eq(id))
                .select(<$model>::as_select())
                .first(&mut *db)
                .expect("deep row");
            let paginated = part_rows::table
                .filter(part_rows::tenant.eq(1))
                .select(<$model>::as_select())
                .paginate_after(Some(Cursor::after_row(&row)))
                .page_size(PLAN_PAGE_SIZE);
            let page = paginated.clone().load_page(&mut *db).expect("page");
            let expected = db.ids(&format!(
                "SELECT id FROM part_rows WHERE tenant = 1 ORDER BY {order} LIMIT {PLAN_PAGE_SIZE} OFFSET {}",
                DEPTH + 1
            ));
            assert_eq!(page.items.iter().map(|r| r.id).collect::<Vec<_>>(), expected, "{order}");
            assert!(page.items.iter().all(|r| r.payload == format!("payload {}", r.id)));

            let report = plan::explain_analyze(&mut *db, paginated).expect("plan");
            report.assert_seeks();
            let json = &report.plan;
            assert_eq!(report.reads.len(), PARTS, "one read per partition\n{json}");
            assert!(
                report.reads.iter().all(|r| r.relation.starts_with("part_rows_")),
                "the reads are the partitions'\n{json}"
            );
            let executed: Vec<&TableRead> =
                report.reads.iter().filter(|r| r.loops != Some(0.0)).collect();
            for read in &executed {
                let cond = read.condition.as_deref().unwrap_or_default();
                assert!(cond.contains($seek), "{}: the seek in its Index Cond: {cond}\n{json}", read.relation);
                assert_eq!(read.rows_removed_by_filter.unwrap_or(0.0), 0.0, "{json}");
            }
            // Walk order: partitions before the cursor first, each returning nothing; then the
            // one or two holding the page; the rest never executed.
            let first_rows = executed
                .iter()
                .position(|r| r.rows.unwrap_or(0.0) > 0.0)
                .expect("a partition holds the page");
            let with_rows = executed[first_rows..]
                .iter()
                .filter(|r| r.rows.unwrap_or(0.0) > 0.0)
                .count();
            assert!(with_rows <= 2, "the page spans at most two partitions\n{json}");
            let returned: f64 = executed.iter().map(|r| r.rows.unwrap_or(0.0)).sum();
            assert!(returned <= f64::from(PLAN_PAGE_SIZE + 1), "rows returned {returned}\n{json}");
            assert!(first_rows >= 10, "partitions before the cursor reached: {first_rows}\n{json}");
            assert!(
                executed.len() < PARTS,
                "partitions after the page never executed ({} of {PARTS} ran)\n{json}",
                executed.len()
            );
            eprintln!(
                "{order}: {} partitions, {} executed, {first_rows} before the cursor with 0 rows, \
                 {returned} rows, {:?} ms",
                report.reads.len(),
                executed.len(),
                report.execution_ms
            );
        }};
    }
    check!(PartAsc, "at ASC, id ASC", "ROW(at, id) > ROW(");
    check!(PartDesc, "at DESC, id DESC", "ROW(at, id) < ROW(");

    // `expanded_seek(true)` (the SQL guide): the seek's redundant bound on the leading column,
    // `at >= $`, is one PostgreSQL prunes partitions on: the same page, and the partitions
    // before the cursor are left out of the plan instead of descended into.
    let id = db.ids(&format!(
        "SELECT id FROM part_rows WHERE tenant = 1 ORDER BY at, id LIMIT 1 OFFSET {DEPTH}"
    ))[0];
    let row: PartAsc = part_rows::table
        .filter(part_rows::id.eq(id))
        .select(PartAsc::as_select())
        .first(&mut *db)
        .expect("deep row");
    let cursor = Cursor::after_row(&row);
    let page_of = |expanded: bool| {
        part_rows::table
            .filter(part_rows::tenant.eq(1))
            .select(PartAsc::as_select())
            .paginate_after(Some(cursor.clone()))
            .page_size(PLAN_PAGE_SIZE)
            .expanded_seek(expanded)
    };
    let plain = page_of(false).load_page(&mut *db).expect("page");
    let bounded = page_of(true).load_page(&mut *db).expect("page");
    let ids = |p: &keyset_diesel::Page<PartAsc>| p.items.iter().map(|r| r.id).collect::<Vec<_>>();
    assert_eq!(ids(&bounded), ids(&plain));
    assert_eq!(
        (bounded.has_more(), &bounded.next_cursor()),
        (plain.has_more(), &plain.next_cursor())
    );
    let report = plan::explain_analyze(&mut *db, page_of(true)).expect("plan");
    report.assert_seeks();
    let json = &report.plan;
    let executed = report.reads.iter().filter(|r| r.loops != Some(0.0)).count();
    assert!(
        report.reads.len() <= PARTS - 10 && executed <= 2,
        "partitions before the cursor pruned: {} reads, {executed} executed\n{json}",
        report.reads.len()
    );
    eprintln!(
        "expanded_seek(true): {} partitions in the plan, {executed} executed, {:?} ms",
        report.reads.len(),
        report.execution_ms
    );
}
