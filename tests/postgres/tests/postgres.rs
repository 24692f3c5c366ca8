//! The PostgreSQL suite. Needs the server (see README); fails when it is not reachable.

use diesel::prelude::*;
use keyset_diesel::plan::{self, PlanReport, TableRead};
use keyset_diesel::{Cursor, PaginateDsl};
use keyset_test_suites::models::{PlanAsc, PlanDesc, PlanMixed};
use keyset_test_suites::plans::{self, AT_TIES, PLAN_PAGE_SIZE, PLAN_ROWS, SCORES};
use keyset_test_suites::schema::plan_rows;
use keyset_test_suites::NextToken as _;
use keyset_test_suites::TestDb;

keyset_test_suites::backend_suite!(diesel::PgConnection);
keyset_test_suites::read_contract_suite!(diesel::PgConnection);
keyset_test_suites::concurrent_suite!(diesel::PgConnection);
keyset_test_suites::plan_check_tests!(
    diesel::PgConnection,
    analyze = "ANALYZE plan_rows",
    drop_index = "DROP INDEX plan_rows_tenant_at_id",
    recipe =
        r#"CREATE INDEX "plan_rows_tenant_at_id" ON "plan_rows" ("tenant", "at" DESC, "id" DESC)"#
);
keyset_test_suites::fault_suite!(diesel::PgConnection);

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

/// docs/CASES.md C14 (PostgreSQL variant): `timestamptz` keys are bound as `timestamptz`, so a
/// session time zone changed between requests does not move the boundary.
#[test]
fn c14_session_time_zone_change_between_pages_keeps_pages() {
    use diesel::connection::SimpleConnection;
    use keyset_diesel::Keyset;
    use keyset_test_suites::oracle::walk_pages;
    use keyset_test_suites::typed::postgres::*;
    let mut db = diesel::PgConnection::open();
    let times = [
        "2026-01-03 00:00",
        "2026-01-03 01:00",
        "2026-01-03 02:00",
        "2026-01-03 03:00",
    ];
    // Plus the DST fall-back pair in New York: 01:30 -04:00 and 01:30 -05:00.
    let mut instants: Vec<chrono::DateTime<chrono::Utc>> = times
        .iter()
        .map(|t| {
            chrono::NaiveDateTime::parse_from_str(t, "%F %H:%M")
                .unwrap()
                .and_utc()
        })
        .collect();
    instants.push(
        chrono::DateTime::parse_from_rfc3339("2026-11-01T01:30:00-04:00")
            .unwrap()
            .into(),
    );
    instants.push(
        chrono::DateTime::parse_from_rfc3339("2026-11-01T01:30:00-05:00")
            .unwrap()
            .into(),
    );
    let rows: Vec<NewTyped> = instants
        .iter()
        .enumerate()
        .map(|(i, &t)| NewTyped {
            id: i as i64 + 1,
            tenant: 0,
            k_i16: 0,
            k_i32: 0,
            k_bool: false,
            k_text: String::new(),
            k_ts: t.naive_utc(),
            k_tstz: t,
            k_date: t.date_naive(),
            k_uuid: uuid::Uuid::nil(),
            k_dec: 0.into(),
            k_f64: 0.0,
            k_f32: 0.0,
            k_bytes: Vec::new(),
            k_time: chrono::NaiveTime::MIN,
            k_user: keyset_test_suites::typed::UserId(0),
        })
        .collect();
    diesel::insert_into(typed_rows::table)
        .values(&rows)
        .execute(&mut *db)
        .unwrap();
    let conn: &mut diesel::PgConnection = &mut db;
    let expected: Vec<i64> = walk_pages::<TstzAsc, _>(conn, &0, 2, false)
        .iter()
        .flat_map(|p| p.items.iter().map(|r| r.id))
        .collect();
    assert_eq!(expected, vec![1, 2, 3, 4, 5, 6]);
    let mut cursor = None;
    let mut walked = Vec::new();
    for zone in [
        "UTC",
        "Australia/Sydney",
        "America/New_York",
        "Asia/Kathmandu",
        "UTC",
    ] {
        conn.batch_execute(&format!("SET TIME ZONE '{zone}'"))
            .unwrap();
        let page =
            <TstzAsc as keyset_test_suites::models::Walk<_>>::page(conn, &0, cursor, 2, false)
                .unwrap();
        walked.extend(page.items.iter().map(|r| r.id));
        cursor = page
            .items
            .last()
            .map(|r| keyset_diesel::Cursor::after(r.key()));
        if !page.has_more() {
            break;
        }
    }
    assert_eq!(walked, expected);
}

#[test]
fn chinook_walks_equal_order_by() {
    use keyset_test_suites::chinook::{check_all, postgres_script, snake};
    let Some(path) = keyset_test_suites::shared_data("chinook/Chinook_PostgreSql.sql") else {
        return;
    };
    let script = std::fs::read_to_string(path).expect("read Chinook script");
    let mut db = diesel::PgConnection::open();
    db.exec(&postgres_script(&script));
    check_all::<snake::Models, _>(&mut *db, "CAST({} AS BIGINT)");
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
    // Issue 35, item 2: the values arm is one row value, an index range that starts at the
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

keyset_test_suites::locking_clause_test!(diesel::pg::Pg);

/// PostgreSQL plans a prepared statement for its bound values (a custom plan) until one plan for
/// every value (a generic plan) is estimated close; an unknown `LIMIT $n` counts as a tenth of
/// the rows. A per-level union of up to 100 rows writes its limits as numbers, and after ten
/// pages on one connection PostgreSQL has switched to the generic plan
/// (`pg_prepared_statements`), instead of planning the union again at every page. (With the
/// long tie run's data, every row of the tenant on one score, PostgreSQL keeps custom plans
/// even so: the switch depends on the data's statistics.)
#[test]
fn a_per_level_page_is_planned_for_every_cursor_once_not_at_every_page() {
    let mut db = diesel::PgConnection::open();
    plans::load_plan_rows(&mut *db);
    db.exec("ANALYZE");
    let conn: &mut diesel::PgConnection = &mut db;
    let order = "score DESC, id ASC";
    let row: PlanMixed = plan_rows::table
        .find(plans::deep_id(conn, order))
        .select(PlanMixed::as_select())
        .first(conn)
        .expect("deep row");
    let expected = conn.ids(&format!(
        "SELECT id FROM plan_rows WHERE tenant = 1 ORDER BY {order} LIMIT {PLAN_PAGE_SIZE} OFFSET {}",
        plans::PLAN_DEPTH + 1
    ));
    let paginated = || {
        plan_rows::table
            .filter(plan_rows::tenant.eq(1))
            .select(PlanMixed::as_select())
            .paginate_after(Some(Cursor::after_row(&row)))
            .page_size(PLAN_PAGE_SIZE)
            .seek_per_level(true)
    };
    let sql = paginated().debug_sql(&*conn).expect("sql");
    assert!(
        sql.contains(" UNION ALL ") && !sql.contains("LIMIT $"),
        "{sql}"
    );
    for _ in 0..10 {
        let page = paginated().load_page(conn).expect("page");
        assert_eq!(
            page.items.iter().map(|r| r.id).collect::<Vec<_>>(),
            expected
        );
    }
    let plans = prepared_plans(conn, "%UNION ALL%plan_rows%");
    eprintln!("{plans:?}");
    assert!(
        matches!(plans.as_slice(), [p] if p.generic_plans >= 1 && p.custom_plans <= 5),
        "one cached union, planned generically after five custom plans: {plans:?}"
    );
}

/// How often PostgreSQL planned each statement Diesel prepared on `conn` whose text is `LIKE`
/// `pattern`: generic and custom plans (`pg_prepared_statements`).
#[derive(QueryableByName, Debug)]
struct Plans {
    #[diesel(sql_type = diesel::sql_types::Text)]
    statement: String,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    generic_plans: i64,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    custom_plans: i64,
}

fn prepared_plans(conn: &mut diesel::PgConnection, pattern: &str) -> Vec<Plans> {
    diesel::sql_query(
        "SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements \
         WHERE statement LIKE $1 ORDER BY statement",
    )
    .bind::<diesel::sql_types::Text, _>(pattern)
    .load(conn)
    .expect("pg_prepared_statements")
}

/// A one-statement page of up to 100 rows writes its `LIMIT` as a number, so PostgreSQL plans
/// it for its values five times and then keeps one generic plan, instead of planning it again
/// at every page (an unknown `LIMIT $n` counts as a tenth of the rows, so its generic plan was
/// never chosen: 0 generic plans). Twelve later pages on one connection, each after a cursor at
/// another depth, and the first page twelve times, for a row-value seek (`at, id`) and the
/// expanded seek of mixed directions (`score DESC, id ASC`): each of the four statements has
/// been planned generically. (Whether and how often PostgreSQL takes the generic plan depends
/// on the statistics: here the three others keep it after five custom plans, 7 generic and 5
/// custom, while the mixed later page compares its plans again at every page, 1 generic and
/// 11 custom; a walk of the mixed order's first pages, whose cursors all lie near the start of
/// the tenant, kept custom plans, 0 generic and 12 custom.)
#[test]
fn a_page_is_planned_for_its_values_five_times_then_once_for_all() {
    let mut db = diesel::PgConnection::open();
    plans::load_plan_rows(&mut *db);
    db.exec("ANALYZE");
    let conn: &mut diesel::PgConnection = &mut db;
    macro_rules! pages {
        ($model:ty, $order:expr) => {{
            // Twelve cursors spread over tenant 1's 15,000 rows, each page checked against
            // OFFSET.
            for depth in (0..12).map(|k| 100 + k * 1_200) {
                let sql = |offset: i64, limit: u32| {
                    format!(
                        "SELECT id FROM plan_rows WHERE tenant = 1 ORDER BY {} LIMIT {limit} OFFSET {offset}",
                        $order
                    )
                };
                let id = conn.ids(&sql(depth, 1))[0];
                let expected = conn.ids(&sql(depth + 1, PLAN_PAGE_SIZE));
                let row: $model = plan_rows::table
                    .find(id)
                    .select(<$model>::as_select())
                    .first(conn)
                    .expect("cursor row");
                let page = plan_rows::table
                    .filter(plan_rows::tenant.eq(1))
                    .select(<$model>::as_select())
                    .paginate_after(Some(Cursor::after_row(&row)))
                    .page_size(PLAN_PAGE_SIZE)
                    .load_page(conn)
                    .expect("page");
                assert_eq!(page.items.iter().map(|r| r.id).collect::<Vec<_>>(), expected);
                plan_rows::table
                    .filter(plan_rows::tenant.eq(1))
                    .select(<$model>::as_select())
                    .paginate_after(None)
                    .page_size(PLAN_PAGE_SIZE)
                    .load_page(conn)
                    .expect("first page");
            }
        }};
    }
    pages!(PlanAsc, "at, id");
    pages!(PlanMixed, "score DESC, id ASC");
    let plans = prepared_plans(conn, "SELECT %plan_rows%ORDER BY%");
    eprintln!("{plans:#?}");
    assert_eq!(plans.len(), 4, "{plans:#?}");
    for p in &plans {
        assert!(
            p.statement
                .ends_with(&format!(" LIMIT {}", PLAN_PAGE_SIZE + 1)),
            "{}",
            p.statement
        );
        assert!(p.generic_plans >= 1, "never planned generically: {p:?}");
    }
}

/// docs/DESIGN.md, "Long runs of ties": every row of tenant 1 shares one score (15,000 ties), the
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

/// docs/CASES.md C33: a boxed `distinct_on(device)` query is refused with
/// `KeysetError::DistinctOn` before any SQL runs (it used to give six pages for three devices);
/// plain `DISTINCT` and no `DISTINCT` are not refused. (The unboxed query does not compile:
/// the `NoDistinctOn` bound of `PageSource`.)
#[test]
fn c33_distinct_on_is_refused_before_any_sql() {
    use keyset_diesel::{KeysetError, PaginateDsl};
    use keyset_test_suites::loud::{create_loud_events, loud_events, DeviceEvent};
    let mut db = diesel::PgConnection::open();
    create_loud_events(&mut *db);
    let conn: &mut diesel::PgConnection = &mut db;
    for page_size in [1, 2] {
        let refused = loud_events::table
            .distinct_on(loud_events::device)
            .select(DeviceEvent::as_select())
            .into_boxed()
            .paginate_after(None)
            .page_size(page_size)
            .load_page(conn)
            .expect_err("DISTINCT ON is refused");
        assert!(
            matches!(refused, diesel::result::Error::QueryBuilderError(_)),
            "before any SQL: {refused:?}"
        );
        assert_eq!(
            KeysetError::from_diesel(&refused),
            Some(&KeysetError::DistinctOn)
        );
    }
    let into_query = loud_events::table
        .distinct_on(loud_events::device)
        .select(DeviceEvent::as_select())
        .into_boxed()
        .paginate_after::<DeviceEvent>(None)
        .into_query::<diesel::pg::Pg>()
        .map(|_| ());
    assert_eq!(into_query, Err(KeysetError::DistinctOn));
    // Plain DISTINCT and none page every event.
    for distinct in [false, true] {
        let base = loud_events::table
            .select(DeviceEvent::as_select())
            .into_boxed();
        let query = if distinct { base.distinct() } else { base };
        let page = query
            .paginate_after(None)
            .page_size(10)
            .load_page(conn)
            .expect("no DISTINCT ON");
        let ids: Vec<i32> = page.items.iter().map(|e| e.id).collect();
        assert_eq!(ids, vec![2, 6, 1, 3, 7, 5, 4], "distinct {distinct}");
    }
}

/// PostgreSQL stores NaN (and sorts it after every number): a page holding a row whose
/// floating-point key is NaN is refused with `KeysetError::InvalidRowKey`, never delivered with
/// a cursor that SQLite or MySQL could not bind and PostgreSQL would seek past. The pages
/// before it are delivered.
#[test]
fn nan_in_a_float_key_column_is_a_typed_error() {
    use keyset_diesel::KeysetError;
    use keyset_test_suites::models::Walk;
    use keyset_test_suites::typed::postgres::*;
    let mut db = diesel::PgConnection::open();
    let rows: Vec<NewTyped> = [1.0, f64::NAN, 3.0, 2.0]
        .into_iter()
        .zip(0..)
        .map(|(k_f64, id)| NewTyped {
            id,
            tenant: 0,
            k_i16: 0,
            k_i32: 0,
            k_bool: false,
            k_text: String::new(),
            k_ts: chrono::NaiveDateTime::default(),
            k_tstz: chrono::DateTime::default(),
            k_date: chrono::NaiveDate::default(),
            k_uuid: uuid::Uuid::nil(),
            k_dec: 0.into(),
            k_f64,
            k_f32: 0.0,
            k_bytes: Vec::new(),
            k_time: chrono::NaiveTime::MIN,
            k_user: keyset_test_suites::typed::UserId(0),
        })
        .collect();
    let conn: &mut diesel::PgConnection = &mut db;
    diesel::insert_into(typed_rows::table)
        .values(&rows)
        .execute(conn)
        .unwrap();
    for boxed in [false, true] {
        let first = F64Asc::page(conn, &0, None, 2, boxed).expect("the rows before the NaN");
        assert_eq!(first.items.len(), 2);
        let error = F64Asc::page(conn, &0, first.next_cursor(), 2, boxed)
            .expect_err("the page holding the NaN row");
        assert!(
            matches!(error, diesel::result::Error::DeserializationError(_)),
            "{error:?}"
        );
        assert!(
            matches!(
                KeysetError::from_diesel(&error),
                Some(KeysetError::InvalidRowKey {
                    column: "k_f64",
                    ..
                })
            ),
            "{error:?}"
        );
    }
}

/// A PostgreSQL native enum as a key (docs/CASES.md C19): `CREATE TYPE stage AS ENUM ('todo',
/// 'doing', 'done')`, Diesel's usual mapping, `#[derive(KeyValue)]` on the Rust enum.
mod stage_keys {
    use diesel::deserialize::{self, FromSql};
    use diesel::pg::{Pg, PgValue};
    use diesel::serialize::{self, IsNull, Output, ToSql};
    use std::io::Write;

    pub use keyset_test_suites::typed::stage::{Stage, StageType};

    diesel::table! {
        use diesel::sql_types::*;
        use super::StageType;

        stage_rows (id) {
            id -> BigInt,
            tenant -> Integer,
            stage -> StageType,
        }
    }

    #[derive(
        Debug,
        Clone,
        PartialEq,
        diesel::Queryable,
        diesel::Selectable,
        diesel::Insertable,
        keyset_diesel::Keyset,
    )]
    #[diesel(table_name = stage_rows)]
    pub struct StageRow {
        #[keyset(asc)]
        pub stage: Stage,
        pub tenant: i32,
        #[keyset(asc, unique)]
        pub id: i64,
    }

    /// Another enum type read from a column of the same name in a table of the same name: only
    /// the key's type tag tells the two keysets apart.
    pub mod other {
        use super::*;

        #[derive(diesel::sql_types::SqlType, diesel::query_builder::QueryId)]
        #[diesel(postgres_type(name = "priority"))]
        pub struct PriorityType;

        #[derive(
            Debug,
            Clone,
            Copy,
            PartialEq,
            diesel::expression::AsExpression,
            diesel::deserialize::FromSqlRow,
            keyset_diesel::query::KeyValue,
        )]
        #[diesel(sql_type = PriorityType)]
        pub enum Priority {
            Low,
            High,
        }

        impl ToSql<PriorityType, Pg> for Priority {
            fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, Pg>) -> serialize::Result {
                out.write_all(match self {
                    Priority::Low => b"low",
                    Priority::High => b"high",
                })?;
                Ok(IsNull::No)
            }
        }

        impl FromSql<PriorityType, Pg> for Priority {
            fn from_sql(bytes: PgValue<'_>) -> deserialize::Result<Self> {
                match bytes.as_bytes() {
                    b"low" => Ok(Priority::Low),
                    b"high" => Ok(Priority::High),
                    other => Err(format!("not a priority: {other:?}").into()),
                }
            }
        }

        diesel::table! {
            use diesel::sql_types::*;
            use super::PriorityType;

            stage_rows (id) {
                id -> BigInt,
                tenant -> Integer,
                stage -> PriorityType,
            }
        }

        #[derive(
            Debug, Clone, PartialEq, diesel::Queryable, diesel::Selectable, keyset_diesel::Keyset,
        )]
        #[diesel(table_name = stage_rows)]
        pub struct PriorityRow {
            #[keyset(asc)]
            pub stage: Priority,
            #[keyset(asc, unique)]
            pub id: i64,
        }
    }
}

/// Ids of every page of `stage_rows` (tenant 0) at `page_size`, each page resumed from the
/// previous page's token, forward or backward; in display order.
fn stage_walk(conn: &mut diesel::PgConnection, page_size: u32, backward: bool) -> Vec<i64> {
    use stage_keys::{stage_rows, StageRow};
    let codec = keyset_test_suites::oracle::test_codec(std::sync::Arc::new(
        std::sync::atomic::AtomicU64::new(1_800_000_000),
    ));
    let scope = "stages";
    let mut token: Option<String> = None;
    let mut pages: Vec<Vec<i64>> = Vec::new();
    loop {
        let cursor = token
            .as_deref()
            .map(|t| codec.decode::<StageRow>(t, &scope).expect("decode"));
        let query = stage_rows::table
            .filter(stage_rows::tenant.eq(0))
            .select(StageRow::as_select());
        let page = if backward {
            query
                .paginate_before(cursor)
                .page_size(page_size)
                .load_page(conn)
        } else {
            query
                .paginate_after(cursor)
                .page_size(page_size)
                .load_page(conn)
        }
        .expect("page");
        pages.push(page.items.iter().map(|r| r.id).collect());
        token = codec.next_token(&page, &scope).expect("encode");
        if token.is_none() {
            break;
        }
        assert!(pages.len() <= 1_000, "the walk does not end");
    }
    if backward {
        pages.reverse();
    }
    pages.into_iter().flatten().collect()
}

/// docs/CASES.md C19: a native enum key `(stage ASC, id ASC)` pages in the enum's declaration
/// order (todo, doing, done), not its text order, forward and backward through tokens at page
/// sizes 1, 2 and 3, with heavy ties: each walk equals `ORDER BY stage, id`. The seek binds the
/// enum as `stage` (no cast to text): the plan compares `stage` values.
#[test]
fn c19_postgres_native_enum_key_pages_in_declaration_order_through_tokens() {
    use stage_keys::{stage_rows, Stage, StageRow};
    let mut db = diesel::PgConnection::open();
    let rows: Vec<StageRow> = (1..=40)
        .map(|id| StageRow {
            id,
            tenant: if id % 9 == 0 { 1 } else { 0 },
            stage: Stage::ALL[(id * 7 % 3) as usize],
        })
        .collect();
    diesel::insert_into(stage_rows::table)
        .values(&rows)
        .execute(&mut *db)
        .unwrap();
    let conn: &mut diesel::PgConnection = &mut db;
    let expected = conn.ids("SELECT id FROM stage_rows WHERE tenant = 0 ORDER BY stage, id");
    let text_order =
        conn.ids("SELECT id FROM stage_rows WHERE tenant = 0 ORDER BY stage::text, id");
    assert_ne!(
        expected, text_order,
        "the test needs the two orders to differ"
    );
    assert_eq!(expected.len(), 36);
    for page_size in [1, 2, 3] {
        assert_eq!(
            stage_walk(conn, page_size, false),
            expected,
            "forward, page size {page_size}"
        );
        assert_eq!(
            stage_walk(conn, page_size, true),
            expected,
            "backward, page size {page_size}"
        );
    }

    let paginated = stage_rows::table
        .filter(stage_rows::tenant.eq(0))
        .select(StageRow::as_select())
        .paginate_after(Some(Cursor::<StageRow>::after((Stage::Doing, 20))))
        .page_size(3);
    let report = plan::explain_analyze(conn, paginated).expect("plan");
    let lower = report.sql.to_lowercase();
    assert!(
        !lower.contains("::text") && !lower.contains("cast("),
        "{}",
        report.sql
    );
    assert!(report.plan.contains("'doing'::stage"), "{}", report.plan);
    assert!(!report.plan.contains("::text"), "{}", report.plan);
}

/// A token of one enum key is refused by a keyset over another enum type on the same table and
/// column name (`SortMismatch`): the type tag names the enum.
#[test]
fn c19_token_of_another_enum_is_a_sort_mismatch() {
    use keyset_diesel::token::CursorError;
    use keyset_diesel::Keyset;
    use stage_keys::other::PriorityRow;
    use stage_keys::{Stage, StageRow};
    let codec = keyset_test_suites::oracle::test_codec(std::sync::Arc::new(
        std::sync::atomic::AtomicU64::new(1_800_000_000),
    ));
    let token = codec
        .encode(&Cursor::<StageRow>::after((Stage::Doing, 3)), &"stages")
        .expect("encode");
    assert_eq!(
        codec.decode::<PriorityRow>(&token, &"stages"),
        Err(CursorError::SortMismatch)
    );
    assert_eq!(
        StageRow::sort_signature().replace("enum<Stage>", "enum<Priority>"),
        PriorityRow::sort_signature(),
        "the signatures differ by the enum's name only"
    );
    let back = codec.decode::<StageRow>(&token, &"stages").expect("decode");
    assert_eq!(back.key, (Stage::Doing, 3));
}

/// C18 / issue 11 §1: a key on `lower(name)` seeks on the expression index
/// `(lower(name), id)`: the page after a row 12,345 deep in 20,000 reads that index, whose
/// `Index Cond` carries the seek on the expression, with no `Filter` and no sort.
#[test]
fn c18_expression_key_seeks_on_an_expression_index() {
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

/// A table range-partitioned by month on its leading key column (issue 16, section 4).
mod partitioned {
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

    /// Creates and fills `part_rows` (the recipe of docs/SQL.md: the index on the parent,
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

/// Issue 16, section 4: on a table range-partitioned by month on the leading key column (24
/// partitions), a page deep in the table (the row at depth 15,000 of tenant 1's 24,000, in
/// month 15) reads every partition from the cursor: the plan check counts the partitions'
/// reads as the table's and finds a seek; every partition the page reached has the seek in its
/// `Index Cond`; the partitions before the cursor (in walk order) returned no row (each is one
/// index descent that finds nothing past the cursor, not a read from its start); the rows come
/// from at most two partitions, no more than `page_size + 1`; and the partitions after the
/// page were never executed. Both directions, each page equal to the `OFFSET` query's rows.
/// Then docs/SQL.md's workaround: a plain bound on the leading column from the cursor's key
/// gives the same page, and PostgreSQL prunes the partitions before the cursor.
#[test]
fn plan_partitioned_table_every_partition_starts_at_the_cursor() {
    use partitioned::{part_rows, PartAsc, PartDesc, PARTS};
    const DEPTH: i64 = 15_000;
    let mut db = diesel::PgConnection::open();
    partitioned::create(&mut db);

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

    // `expanded_seek(true)` (docs/SQL.md): the seek's redundant bound on the leading column,
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

/// Issue 16, section 8: a table hash-partitioned on `id` across two more PostgreSQL servers
/// (`postgres_fdw` foreign partitions; tests/src/shards.rs). Walking every page of tenant 1
/// (1,000 rows, 4 per `at` value, 7 scores) forward and backward, at page sizes 7 and 50, in
/// the default form and with `expanded_seek(true)`, gives exactly the parent's plain
/// `ORDER BY`, for `at, id`, `at DESC, id DESC` and `score DESC, id ASC`.
#[test]
fn sharded_table_walks_equal_the_oracle() {
    use keyset_test_suites::shards::{
        shard_rows, ShardAsc, ShardDesc, ShardMixed, Shards, TENANT_ROWS,
    };
    let mut shards = Shards::create(100);
    macro_rules! walk {
        ($model:ty, $order:literal) => {{
            let expected = shards.db.ids(&format!(
                "SELECT id FROM shard_rows WHERE tenant = 1 ORDER BY {}",
                $order
            ));
            assert_eq!(expected.len() as i64, TENANT_ROWS);
            for expanded in [false, true] {
                for page_size in [7u32, 50] {
                    for backward in [false, true] {
                        let mut pages: Vec<Vec<i64>> = Vec::new();
                        let mut cursor: Option<Cursor<$model>> = None;
                        loop {
                            let query = shard_rows::table
                                .filter(shard_rows::tenant.eq(1))
                                .select(<$model>::as_select());
                            let paginated = if backward {
                                query.paginate_before(cursor.take())
                            } else {
                                query.paginate_after(cursor.take())
                            };
                            let page = paginated
                                .page_size(page_size)
                                .expanded_seek(expanded)
                                .load_page(&mut *shards.db)
                                .expect("page");
                            assert!(page.items.len() <= page_size as usize);
                            assert_eq!(page.has_more(), page.next_cursor().is_some());
                            assert!(page
                                .items
                                .iter()
                                .all(|r| r.payload == format!("payload {}", r.id)));
                            pages.push(page.items.iter().map(|r| r.id).collect());
                            cursor = page.next_cursor();
                            if cursor.is_none() {
                                break;
                            }
                            assert!(pages.len() <= TENANT_ROWS as usize, "the walk does not end");
                        }
                        if backward {
                            pages.reverse();
                        }
                        assert_eq!(
                            pages.concat(),
                            expected,
                            "{}: expanded {expanded}, page size {page_size}, backward {backward}",
                            $order
                        );
                    }
                }
            }
        }};
    }
    walk!(ShardAsc, "at ASC, id ASC");
    walk!(ShardDesc, "at DESC, id DESC");
    walk!(ShardMixed, "score DESC, id ASC");
}

/// Issue 16, section 8: what each shard is sent. With `expanded_seek(true)` every foreign
/// partition's remote SQL carries the seek (from its leading bound) and the `ORDER BY`, so
/// each shard starts its own index range at the cursor and the test server merges the two
/// sorted streams (no `Sort` of the table's rows): the plan check reports a seek. In the
/// default form a one-direction keyset is a row-value comparison, which postgres_fdw does not
/// send: it stays a local `Filter` and the plan check says so (`SeekNotShipped`, naming the
/// option). `score DESC, id ASC` alternates direction, so it is the expanded form already: a
/// seek either way.
#[test]
fn sharded_pages_send_the_seek_and_order_by_to_every_shard() {
    use keyset_diesel::plan::NotASeek;
    use keyset_test_suites::shards::{shard_rows, ShardAsc, ShardDesc, ShardMixed, Shards};
    const DEPTH: i64 = 600;
    let mut shards = Shards::create(100);
    macro_rules! check {
        ($model:ty, $order:literal, $bound:literal, $row_value:literal) => {{
            let id = shards.db.ids(&format!(
                "SELECT id FROM shard_rows WHERE tenant = 1 ORDER BY {} LIMIT 1 OFFSET {DEPTH}",
                $order
            ))[0];
            let row: $model = shard_rows::table
                .filter(shard_rows::id.eq(id))
                .select(<$model>::as_select())
                .first(&mut *shards.db)
                .expect("deep row");
            let page = |expanded: bool| {
                shard_rows::table
                    .filter(shard_rows::tenant.eq(1))
                    .select(<$model>::as_select())
                    .paginate_after(Some(Cursor::after_row(&row)))
                    .page_size(PLAN_PAGE_SIZE)
                    .expanded_seek(expanded)
            };
            let report = plan::explain(&mut *shards.db, page(true)).expect("plan");
            report.assert_seeks();
            let json = &report.plan;
            assert_eq!(report.reads.len(), 2, "one read per shard\n{json}");
            for read in &report.reads {
                assert_eq!(read.access, "Foreign Scan", "{json}");
                let remote = read.remote_sql.as_deref().expect("remote SQL");
                assert!(remote.contains(" ORDER BY "), "the ORDER BY is sent: {remote}");
                let sent = read.condition.as_deref().unwrap_or_default();
                assert!(sent.contains($bound), "the seek is sent: {sent}");
                assert!(
                    read.filter.as_deref().is_none_or(|f| !f.contains("ROW(")),
                    "nothing of the seek stays local: {read:?}"
                );
            }
            let report = plan::explain(&mut *shards.db, page(false)).expect("plan");
            if $row_value {
                assert!(!report.seeks(), "{}", report.plan);
                let unshipped: Vec<&str> = report
                    .not_a_seek
                    .iter()
                    .filter_map(|r| match r {
                        NotASeek::SeekNotShipped { relation, .. } => Some(relation.as_str()),
                        _ => None,
                    })
                    .collect();
                assert_eq!(unshipped, ["shard_rows_0", "shard_rows_1"], "{}", report.failure());
                assert!(report.failure().contains(".expanded_seek(true)"));
            } else {
                report.assert_seeks();
            }
        }};
    }
    check!(ShardAsc, "at ASC, id ASC", "(at >= ", true);
    check!(ShardDesc, "at DESC, id DESC", "(at <= ", true);
    check!(ShardMixed, "score DESC, id ASC", "(score <= ", false);
}

/// Issue 16, section 8: rows each shard sends per page, counted on the shards (their
/// `pg_stat_statements` rows of postgres_fdw's `FETCH` statements). PostgreSQL does not push
/// the `LIMIT` below a partitioned parent to its foreign partitions, so a shard sends
/// `fetch_size` rows a batch until the merge has its rows: with `fetch_size` = page size + 1,
/// each shard sends one batch of at most 21 rows while many rows follow the cursor (depths 0,
/// 300 and 600 of 1,000). Near the end of the range (depth 900, 99 rows left) the planner
/// expects few rows and fetches all that are left, unsorted, to sort them itself: never a row
/// before the cursor. In the default form (a row value the shards are never sent) the shards
/// together send at least every row before the cursor: the page's cost grows with its depth.
/// The pages are the `OFFSET` query's rows either way.
#[test]
fn sharded_pages_fetch_a_bounded_number_of_rows_from_each_shard() {
    use keyset_test_suites::shards::{shard_rows, ShardAsc, Shards, TENANT_ROWS};
    const FETCH: u32 = PLAN_PAGE_SIZE + 1;
    let mut shards = Shards::create_as(FETCH, "keyset_fdw_probe");
    for depth in [0i64, 300, 600, 900] {
        let id = shards.db.ids(&format!(
            "SELECT id FROM shard_rows WHERE tenant = 1 ORDER BY at, id LIMIT 1 OFFSET {depth}"
        ))[0];
        let row: ShardAsc = shard_rows::table
            .filter(shard_rows::id.eq(id))
            .select(ShardAsc::as_select())
            .first(&mut *shards.db)
            .expect("row at depth");
        let expected = shards.db.ids(&format!(
            "SELECT id FROM shard_rows WHERE tenant = 1 ORDER BY at, id LIMIT {PLAN_PAGE_SIZE} OFFSET {}",
            depth + 1
        ));
        let mut sent = |expanded: bool, fetch: u32| {
            let before = [shards.rows_sent(0, fetch), shards.rows_sent(1, fetch)];
            let page = shard_rows::table
                .filter(shard_rows::tenant.eq(1))
                .select(ShardAsc::as_select())
                .paginate_after(Some(Cursor::after_row(&row)))
                .page_size(PLAN_PAGE_SIZE)
                .expanded_seek(expanded)
                .load_page(&mut *shards.db)
                .expect("page");
            assert_eq!(
                page.items.iter().map(|r| r.id).collect::<Vec<_>>(),
                expected
            );
            [
                shards.rows_sent(0, fetch) - before[0],
                shards.rows_sent(1, fetch) - before[1],
            ]
        };
        let expanded = sent(true, FETCH);
        let row_value = sent(false, FETCH);
        eprintln!(
            "depth {depth}: rows sent per shard, expanded {expanded:?}, row value {row_value:?}"
        );
        let after_cursor = TENANT_ROWS - depth - 1;
        assert!(
            expanded.iter().sum::<i64>() <= after_cursor,
            "depth {depth}: no row before the cursor is sent, sent {expanded:?}"
        );
        if depth <= 600 {
            assert!(
                expanded.iter().all(|&n| n <= i64::from(FETCH)),
                "depth {depth}: at most one batch per shard, sent {expanded:?}"
            );
        }
        assert!(
            expanded.iter().sum::<i64>() >= expected.len() as i64,
            "the page's rows came from the shards: {expanded:?}"
        );
        assert!(
            row_value.iter().sum::<i64>() >= depth + expected.len() as i64,
            "depth {depth}: the row value is filtered locally, after every row before the cursor was sent: {row_value:?}"
        );
    }
    // postgres_fdw's default fetch_size (100): one batch of up to 100 rows per shard.
    for server in 0..2 {
        let name = shards.server(server).to_string();
        shards.db.exec(&format!(
            "ALTER SERVER {name} OPTIONS (SET fetch_size '100')"
        ));
    }
    let before = [shards.rows_sent(0, 100), shards.rows_sent(1, 100)];
    let page = shard_rows::table
        .filter(shard_rows::tenant.eq(1))
        .select(ShardAsc::as_select())
        .paginate_after(None)
        .page_size(PLAN_PAGE_SIZE)
        .expanded_seek(true)
        .load_page(&mut *shards.db)
        .expect("page");
    assert_eq!(page.items.len(), PLAN_PAGE_SIZE as usize);
    let default = [
        shards.rows_sent(0, 100) - before[0],
        shards.rows_sent(1, 100) - before[1],
    ];
    eprintln!("fetch_size 100: rows sent per shard {default:?}");
    assert!(
        default.iter().all(|&n| n <= 100 && n > i64::from(FETCH)),
        "{default:?}"
    );
}
