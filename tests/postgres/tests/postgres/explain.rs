//! EXPLAIN of deep pages on PostgreSQL: each keyset shape's page deep in `plan_rows` is an
//! index range from the cursor (no sort, a bounded number of rows read), a nullable keyset's
//! union keeps an index condition on each arm, the exact-flags probe is bounded, one seek per
//! key level starts every branch at the cursor inside a long run of ties, and a key on
//! `lower(name)` seeks on its expression index.

use diesel::prelude::*;
use keyset_diesel::plan::{self, PlanReport, TableRead};
use keyset_diesel::{Cursor, PaginateDsl};
use keyset_test_suites::models::{PlanAsc, PlanDesc, PlanMixed};
use keyset_test_suites::plans::{self, AT_TIES, PLAN_PAGE_SIZE, PLAN_ROWS, SCORES};
use keyset_test_suites::schema::plan_rows;
use keyset_test_suites::TestDb;

/// EXPLAIN (ANALYZE, FORMAT JSON) of the page after the row at depth `PLAN_DEPTH`, with the
/// checks every shape shares; returns the scan node for shape-specific checks.
macro_rules! deep_page_plan {
    ($model:ty, $order:expr, $ties:expr) => {{
        let mut db = diesel::PgConnection::open();
        plans::load_plan_rows(&mut *db);
        db.exec("ANALYZE plan_rows");
        let conn: &mut diesel::PgConnection = &mut db;
        let id = plans::deep_id(conn, $order);
        let row: $model = plan_rows::table
            .find(id)
            .select(<$model>::as_select())
            .first(conn)
            .expect("deep row");
        let paginated = plan_rows::table
            .filter(plan_rows::tenant.eq(1))
            .select(<$model>::as_select())
            .paginate_after(Some(Cursor::after_row(&row)))
            .page_size(PLAN_PAGE_SIZE);
        // The page itself is right: the rows after the deep row.
        let page = paginated.clone().load_page(conn).expect("deep page");
        let expected = conn.ids(&format!(
            "SELECT id FROM plan_rows WHERE tenant = 1 ORDER BY {} LIMIT {PLAN_PAGE_SIZE} OFFSET {}",
            $order,
            plans::PLAN_DEPTH + 1
        ));
        assert_eq!(page.items.iter().map(|r| r.id).collect::<Vec<_>>(), expected);
        assert!(page.has_more());

        let report = plan::explain_analyze(conn, paginated).expect("plan");
        report.assert_seeks();
        let json = &report.plan;
        assert!(report.sorts.is_empty(), "no Sort node expected: {:?}\n{json}", report.sorts);
        assert_eq!(report.reads.len(), 1, "one index scan expected\n{json}");
        let scan = report.reads[0].clone();
        let removed = scan.rows_removed_by_filter.unwrap_or(0.0);
        let ties: i64 = $ties;
        assert!(
            removed <= (ties + i64::from(PLAN_PAGE_SIZE)) as f64,
            "rows removed by filter {removed} > ties {ties} + page size\n{json}"
        );
        let actual = scan.rows.expect("actual rows");
        assert!(actual <= f64::from(PLAN_PAGE_SIZE + 1), "{actual} rows read\n{json}");
        eprintln!("{}: {scan:?}", stringify!($model));
        scan
    }};
}

#[test]
fn plan_asc_keyset_is_an_index_range_scan_from_the_cursor() {
    let scan = deep_page_plan!(PlanAsc, "at ASC, id ASC", AT_TIES);
    assert_eq!(scan.index.as_deref(), Some("plan_rows_tenant_at_id"));
    let cond = scan.condition.expect("Index Cond");
    assert!(
        cond.contains("ROW(at, id) > ROW("),
        "row-value bound on (at, id): {cond}"
    );
    assert!(!scan.backward);
}

#[test]
fn plan_desc_keyset_is_a_backward_index_range_scan_from_the_cursor() {
    let scan = deep_page_plan!(PlanDesc, "at DESC, id DESC", AT_TIES);
    assert_eq!(scan.index.as_deref(), Some("plan_rows_tenant_at_id"));
    let cond = scan.condition.expect("Index Cond");
    assert!(
        cond.contains("ROW(at, id) < ROW("),
        "row-value bound on (at, id): {cond}"
    );
    assert!(scan.backward);
}

#[test]
fn plan_mixed_keyset_bounds_the_leading_column_in_the_index_cond() {
    let scan = deep_page_plan!(PlanMixed, "score DESC, id ASC", PLAN_ROWS / 2 / SCORES + 1);
    assert_eq!(
        scan.index.as_deref(),
        Some("plan_rows_tenant_score_desc_id")
    );
    let cond = scan.condition.expect("Index Cond");
    assert!(
        cond.contains("score <= "),
        "redundant bound on score: {cond}"
    );
}

/// EXPLAIN (ANALYZE, FORMAT JSON) of `PlanNullable`'s page after the row at `depth` (in
/// `maybe ASC NULLS LAST, id ASC`); checks the page's rows, that no read is a sequential scan
/// and that each reads a bounded number of rows, and returns the plan check's report (its
/// reads of `plan_rows`, the execution time).
fn nullable_plan(db: &mut diesel::PgConnection, depth: i64, exact: bool) -> PlanReport {
    use keyset_test_suites::models::PlanNullable;
    let order = "maybe ASC NULLS LAST, id ASC";
    let id = plans::id_at(db, order, depth);
    let row: PlanNullable = plan_rows::table
        .find(id)
        .select(PlanNullable::as_select())
        .first(db)
        .expect("deep row");
    let paginated = plan_rows::table
        .filter(plan_rows::tenant.eq(1))
        .select(PlanNullable::as_select())
        .paginate_after(Some(Cursor::after_row(&row)))
        .page_size(PLAN_PAGE_SIZE)
        .exact_flags(exact);
    let page = paginated.clone().load_page(db).expect("page");
    let expected = db.ids(&format!(
        "SELECT id FROM plan_rows WHERE tenant = 1 ORDER BY {order} LIMIT {PLAN_PAGE_SIZE} OFFSET {}",
        depth + 1
    ));
    assert_eq!(
        page.items.iter().map(|r| r.id).collect::<Vec<_>>(),
        expected
    );
    assert!(page.has_previous_page);
    let report = plan::explain_analyze(db, paginated).expect("plan");
    let json = &report.plan;
    for scan in &report.reads {
        assert_ne!(scan.access, "Seq Scan", "no sequential scan\n{json}");
        let removed = scan.rows_removed_by_filter.unwrap_or(0.0);
        assert!(
            removed <= (PLAN_ROWS / 2 / SCORES + i64::from(PLAN_PAGE_SIZE)) as f64,
            "rows removed by filter {removed}\n{json}"
        );
        assert!(scan.rows.unwrap_or(0.0) <= f64::from(PLAN_PAGE_SIZE + 1));
        eprintln!("nullable depth {depth} exact {exact}: {scan:?}");
    }
    report
}

fn index_conds(reads: &[TableRead]) -> Vec<String> {
    reads
        .iter()
        .map(|r| r.condition.clone().unwrap_or_default())
        .collect()
}

/// The common non-NULL path of a nullable keyset keeps its index condition: the values after
/// the cursor and the NULL group are two arms, each an index range (no `OR col IS NULL` filter).
#[test]
fn plan_nullable_value_cursor_keeps_the_index_condition_on_each_arm() {
    let mut db = diesel::PgConnection::open();
    plans::load_plan_rows(&mut *db);
    db.exec("ANALYZE plan_rows");
    let report = nullable_plan(&mut db, 6_050, false);
    report.assert_seeks();
    let conds = index_conds(&report.reads);
    // The values arm is one row value, an index range that starts at the
    // cursor's `(maybe, id)`: nothing of the cursor's tie group is read and filtered.
    assert!(
        conds.iter().any(|c| c.contains("ROW(maybe, id) > ROW(")),
        "value arm: {conds:?}"
    );
    for read in &report.reads {
        assert_eq!(read.rows_removed_by_filter.unwrap_or(0.0), 0.0, "{read:?}");
    }
    assert!(
        conds.iter().any(|c| c.contains("maybe IS NULL")),
        "NULL arm: {conds:?}"
    );
    // Crossing into the NULL group: a cursor on the last values still pages exactly (PostgreSQL
    // may read the few values left by a bitmap scan and sort them: no seek asserted).
    nullable_plan(&mut db, 11_990, false);
}

/// A NULL cursor inside the NULL group: one arm, `maybe IS NULL AND id > ?` as index condition.
#[test]
fn plan_nullable_null_cursor_seeks_inside_the_null_group() {
    let mut db = diesel::PgConnection::open();
    plans::load_plan_rows(&mut *db);
    db.exec("ANALYZE plan_rows");
    let report = nullable_plan(&mut db, 13_000, false);
    report.assert_seeks();
    let conds = index_conds(&report.reads);
    assert_eq!(conds.len(), 1, "{conds:?}");
    assert!(
        conds[0].contains("maybe IS NULL") && conds[0].contains("id >"),
        "{conds:?}"
    );
}

/// Exact flags add a one-row probe arm to the same statement; it reads at most
/// `page_size + 1` index entries. Prints both execution times (the note records them).
#[test]
fn plan_exact_flags_probe_is_bounded() {
    let mut db = diesel::PgConnection::open();
    plans::load_plan_rows(&mut *db);
    db.exec("ANALYZE plan_rows");
    let plain_plan = nullable_plan(&mut db, 6_050, false);
    let exact_plan = nullable_plan(&mut db, 6_050, true);
    plain_plan.assert_seeks();
    exact_plan.assert_seeks();
    assert_eq!(
        index_conds(&exact_plan.reads).len(),
        index_conds(&plain_plan.reads).len() + 1
    );
    // Timing is printed, never asserted.
    let mut plain = Vec::new();
    let mut exact = Vec::new();
    for _ in 0..20 {
        let ms = |r: PlanReport| r.execution_ms.unwrap_or(f64::NAN);
        plain.push(ms(nullable_plan(&mut db, 6_050, false)));
        exact.push(ms(nullable_plan(&mut db, 6_050, true)));
    }
    plain.sort_by(f64::total_cmp);
    exact.sort_by(f64::total_cmp);
    eprintln!(
        "median execution time: plain union {:.3} ms, with probe {:.3} ms",
        plain[10], exact[10]
    );
}

/// the SQL guide, "Long runs of ties": every row of tenant 1 shares one score (15,000 ties), the
/// cursor deep inside the run. The single seek bounds only `score` and filters the run from
/// its start to the cursor; `seek_per_level(true)` gives one index range per key level
/// (`score < s`, `score = s AND id > i`), each starting at the cursor.
#[test]
fn plan_seek_per_level_starts_every_branch_at_the_cursor_inside_a_long_tie_run() {
    let mut db = diesel::PgConnection::open();
    let conn: &mut diesel::PgConnection = &mut db;
    let (id, expected) = plans::long_tie_run(conn);
    let row: PlanMixed = plan_rows::table
        .find(id)
        .select(PlanMixed::as_select())
        .first(conn)
        .expect("deep row");
    // The plan's index scans of plan_rows, the JSON, and the execution time (ms; printed,
    // never asserted).
    let scans =
        |per_level: bool, conn: &mut diesel::PgConnection| -> (Vec<TableRead>, String, f64) {
            let paginated = plan_rows::table
                .filter(plan_rows::tenant.eq(1))
                .select(PlanMixed::as_select())
                .paginate_after(Some(Cursor::after_row(&row)))
                .page_size(PLAN_PAGE_SIZE)
                .seek_per_level(per_level);
            let page = paginated.clone().load_page(conn).expect("deep page");
            assert_eq!(
                page.items.iter().map(|r| r.id).collect::<Vec<_>>(),
                expected
            );
            let report = plan::explain_analyze(conn, paginated).expect("plan");
            // Both forms are index ranges whose condition carries the seek (the single one on
            // `score` alone, filtering the run); the rows read tell them apart, and the plan
            // check says so: the single seek reads past the page and names the remedy.
            eprintln!(
                "per level {per_level}: {:?} rows examined for {} fetched",
                report.rows_examined, report.fetched
            );
            if per_level {
                report.assert_seeks();
                assert!(report.rows_examined.expect("counted") <= 4 * report.fetched);
            } else {
                assert!(
                    matches!(
                        report.not_a_seek.as_slice(),
                        [plan::NotASeek::ReadsPastThePage { examined, fetched }]
                            if *examined > 100 * *fetched
                    ),
                    "{:?}",
                    report.not_a_seek
                );
                assert!(report.failure().contains(".seek_per_level(true)"));
            }
            let scans = report
                .reads
                .into_iter()
                .filter(|r| matches!(r.access.as_str(), "Index Scan" | "Index Only Scan"))
                .collect();
            (scans, report.plan, report.execution_ms.unwrap_or(f64::NAN))
        };
    let removed = |scans: &[TableRead]| -> i64 {
        scans
            .iter()
            .map(|s| s.rows_removed_by_filter.unwrap_or(0.0) as i64)
            .sum()
    };
    // One seek: the tie run up to the cursor is read and filtered.
    let (single, json, single_ms) = scans(false, conn);
    assert_eq!(single.len(), 1, "{json}");
    assert!(
        removed(&single) >= plans::PLAN_DEPTH - 100,
        "the single seek filters the run before the cursor: {json}"
    );

    // One seek per level: two index ranges from the cursor, nothing filtered.
    let (levels, json, levels_ms) = scans(true, conn);
    assert_eq!(levels.len(), 2, "{json}");
    for scan in &levels {
        assert_eq!(
            scan.index.as_deref(),
            Some("plan_rows_tenant_score_desc_id"),
            "{json}"
        );
        assert!(scan.condition.is_some(), "{json}");
        let rows = scan.rows.expect("actual rows");
        assert!(
            rows <= f64::from(PLAN_PAGE_SIZE + 1),
            "{rows} rows read\n{json}"
        );
    }
    assert_eq!(removed(&levels), 0, "{json}");
    let conds: Vec<&str> = levels
        .iter()
        .filter_map(|s| s.condition.as_deref())
        .collect();
    assert!(
        conds.iter().any(|c| c.contains("(score = 7) AND (id > ")),
        "the tie level seeks on (score, id): {conds:?}"
    );
    assert!(
        conds.iter().any(|c| c.contains("(score < 7)")),
        "the next level seeks on score: {conds:?}"
    );
    eprintln!(
        "long tie run at depth {}: single seek removed {} ({single_ms} ms), per level removed {} \
         ({levels_ms} ms), conds {conds:?}",
        plans::PLAN_DEPTH,
        removed(&single),
        removed(&levels)
    );
}

/// A key on `lower(name)` seeks on the expression index
/// `(lower(name), id)`: the page after a row 12,345 deep in 20,000 reads that index, whose
/// `Index Cond` carries the seek on the expression, with no `Filter` and no sort.
#[test]
fn expression_key_seeks_on_an_expression_index() {
    let report = keyset_test_suites::expr_keys::lower_name_plan::<diesel::PgConnection>(
        "CREATE INDEX expr_people_lower_id ON expr_people (lower(name), id)",
        "ANALYZE expr_people",
    );
    eprintln!("{report:#?}");
    assert!(report.sorts.is_empty(), "{report:#?}");
    assert_eq!(report.reads.len(), 1, "{report:#?}");
    let read = &report.reads[0];
    assert!(
        matches!(read.access.as_str(), "Index Scan" | "Index Only Scan"),
        "{report:#?}"
    );
    assert_eq!(read.index.as_deref(), Some("expr_people_lower_id"));
    let cond = read.condition.as_deref().expect("an Index Cond");
    assert!(
        cond.contains("lower("),
        "the seek is on the expression: {cond}"
    );
    assert!(read.filter.is_none(), "{report:#?}");
    assert!(report.seeks(), "{}", report.failure());
    assert_eq!(
        report.index_recipe,
        r#"CREATE INDEX "expr_people_lower_name_id" ON "expr_people" (lower(name) ASC, "id" ASC)"#
    );
}
