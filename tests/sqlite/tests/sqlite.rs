//! The SQLite suite (embedded, bundled SQLite; no server).

use diesel::prelude::*;
use keyset_diesel::plan::{self, PlanReport};
use keyset_diesel::{Cursor, PaginateDsl, Paginated};
use keyset_test_suites::models::{PlanAsc, PlanDesc, PlanIndexed, PlanIndexedByMixed, PlanMixed};
use keyset_test_suites::plans::{self, PLAN_PAGE_SIZE};
use keyset_test_suites::schema::plan_rows;
use keyset_test_suites::TestDb;

keyset_test_suites::backend_suite!(diesel::SqliteConnection);
keyset_test_suites::read_contract_suite!(diesel::SqliteConnection);
keyset_test_suites::concurrent_suite!(diesel::SqliteConnection);
keyset_test_suites::plan_check_tests!(
    diesel::SqliteConnection,
    analyze = "ANALYZE",
    drop_index = "DROP INDEX plan_rows_tenant_at_id",
    recipe =
        r#"CREATE INDEX "plan_rows_tenant_at_id" ON "plan_rows" ("tenant", "at" DESC, "id" DESC)"#
);

/// The concurrent-writers checker (runs without a database; here because the tests library
/// has no test harness of its own).
#[test]
fn concurrent_checker_reports_each_kind_of_violation() {
    keyset_test_suites::concurrent::checker_reports_each_kind_of_violation();
}

#[test]
fn cursor_equality_compares_key_and_direction() {
    keyset_test_suites::pinned::cursor_equality_compares_key_and_direction();
}

#[test]
fn union_page_arms_are_named_derived_tables_on_sqlite() {
    keyset_test_suites::pinned::sqlite_union_page_names_each_arm();
}

#[test]
fn debug_output_names_every_part_of_cursors_pages_and_page_queries() {
    keyset_test_suites::pinned::debug_output_names_every_part::<diesel::sqlite::Sqlite>();
}

/// EXPLAIN QUERY PLAN of the page after the row at depth `PLAN_DEPTH` (the plan check); returns
/// the report after checking the page's rows and that it seeks without a temp B-tree.
macro_rules! deep_page_plan {
    ($model:ty, $order:expr) => {{
        let mut db = diesel::SqliteConnection::open();
        plans::load_plan_rows(&mut *db);
        db.exec("ANALYZE");
        let conn: &mut diesel::SqliteConnection = &mut db;
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
        let page = paginated.clone().load_page(conn).expect("deep page");
        let expected = conn.ids(&format!(
            "SELECT id FROM plan_rows WHERE tenant = 1 ORDER BY {} LIMIT {PLAN_PAGE_SIZE} OFFSET {}",
            $order,
            plans::PLAN_DEPTH + 1
        ));
        assert_eq!(page.items.iter().map(|r| r.id).collect::<Vec<_>>(), expected);
        let report = plan::explain(conn, paginated).expect("plan");
        eprintln!("{}: {report:?}", stringify!($model));
        report.assert_seeks();
        assert!(
            report.sorts.is_empty(),
            "no temp B-tree for ORDER BY: {}",
            report.plan
        );
        report
    }};
}

/// `SEARCH plan_rows USING INDEX <index> (tenant=? AND <constraint>)` is one of the plan's reads.
fn assert_search(report: &PlanReport, index: &str, constraint: &str) {
    let condition = format!("tenant=? AND {constraint}");
    assert!(
        report.reads.iter().any(|r| r.access == "SEARCH"
            && r.index.as_deref() == Some(index)
            && r.condition.as_deref() == Some(condition.as_str())),
        "expected `SEARCH plan_rows USING INDEX {index} ({condition})` in {}",
        report.plan
    );
}

#[test]
fn plan_asc_keyset_is_an_index_search_from_the_cursor() {
    let report = deep_page_plan!(PlanAsc, "at ASC, id ASC");
    assert_search(&report, "plan_rows_tenant_at_id", "(at,id)>(?,?)");
}

#[test]
fn plan_desc_keyset_is_an_index_search_from_the_cursor() {
    let report = deep_page_plan!(PlanDesc, "at DESC, id DESC");
    assert_search(&report, "plan_rows_tenant_at_id", "(at,id)<(?,?)");
}

#[test]
fn plan_mixed_keyset_bounds_the_leading_column_in_the_index_search() {
    let report = deep_page_plan!(PlanMixed, "score DESC, id ASC");
    assert_search(&report, "plan_rows_tenant_score_desc_id", "score<?");
}

/// A nullable key (`maybe ASC NULLS LAST, id ASC`) after a value cursor is a
/// union of the values after it and the NULL group. On SQLite the values are one arm per
/// column, `maybe > ?` and `maybe = ? AND id > ?`, each an index search from the cursor, and
/// the NULL branch searches `maybe IS NULL`; SQLite merges the three in index order (no temp
/// B-tree). Run on the table as declared (`id BIGINT PRIMARY KEY`) and with `id INTEGER
/// PRIMARY KEY`, the rowid, which SQLite's row-value search `(maybe,id)>(?,?)` would not
/// reach (it searched `maybe>?` there and read the cursor's tie group before the cursor).
#[test]
fn plan_nullable_value_cursor_searches_from_the_cursor_in_each_arm() {
    use keyset_test_suites::models::PlanNullable;
    let order = "maybe ASC NULLS LAST, id ASC";
    for rowid in [false, true] {
        let mut db = diesel::SqliteConnection::open();
        if rowid {
            db.exec("DROP TABLE plan_rows");
            db.exec(
                "CREATE TABLE plan_rows (id INTEGER PRIMARY KEY, tenant INTEGER NOT NULL, \
                 at TIMESTAMP NOT NULL, score INTEGER NOT NULL, maybe INTEGER NULL, \
                 payload TEXT NOT NULL)",
            );
            db.exec("CREATE INDEX plan_rows_tenant_maybe_id ON plan_rows (tenant, maybe, id)");
        }
        plans::load_plan_rows(&mut *db);
        db.exec("ANALYZE");
        let conn: &mut diesel::SqliteConnection = &mut db;
        let depth = 6_050;
        let id = plans::id_at(conn, order, depth);
        let row: PlanNullable = plan_rows::table
            .find(id)
            .select(PlanNullable::as_select())
            .first(conn)
            .expect("deep row");
        assert!(row.maybe.is_some(), "a value cursor");
        let paginated = plan_rows::table
            .filter(plan_rows::tenant.eq(1))
            .select(PlanNullable::as_select())
            .paginate_after(Some(Cursor::after_row(&row)))
            .page_size(PLAN_PAGE_SIZE);
        let page = paginated.clone().load_page(conn).expect("deep page");
        let expected = conn.ids(&format!(
            "SELECT id FROM plan_rows WHERE tenant = 1 ORDER BY {order} LIMIT {PLAN_PAGE_SIZE} OFFSET {}",
            depth + 1
        ));
        assert_eq!(
            page.items.iter().map(|r| r.id).collect::<Vec<_>>(),
            expected,
            "rowid {rowid}"
        );
        let report = plan::explain(conn, paginated).expect("plan");
        eprintln!("PlanNullable, rowid {rowid}: {report:?}");
        report.assert_seeks();
        assert_search(&report, "plan_rows_tenant_maybe_id", "maybe>?");
        assert_search(&report, "plan_rows_tenant_maybe_id", "maybe=? AND id>?");
        assert_search(&report, "plan_rows_tenant_maybe_id", "maybe=?");
        // The arms are members of one compound that SQLite merges in index order: no arm is
        // sorted again into a temporary B-tree.
        assert!(report.sorts.is_empty(), "no temp B-tree: {}", report.plan);
    }
}

/// SQLite timestamps are text: SQLite keeps timestamps as text. Rows written by Diesel (`%F %T%.f`)
/// and by `CURRENT_TIMESTAMP`-style text (`%F %T`) compare alike, because the cursor re-binds the
/// value through Diesel's own encoding: p1 `[4,3]`, p2 `[2,1]`, no repeats, no loop.
#[test]
fn text_timestamps_from_diesel_and_current_timestamp_page_alike() {
    use keyset_test_suites::models::C_desc__ID_desc;
    use keyset_test_suites::oracle::{assert_matches, walk_and_compare, walk_pages};
    let mut db = diesel::SqliteConnection::open();
    db.exec(
        "INSERT INTO keyset_rows (id, tenant, a, b, c, d, e) VALUES \
         (1, 0, 0, '', '2026-08-10 14:51:05', 0, 0), \
         (2, 0, 0, '', '2026-08-10 14:51:06', 0, 0), \
         (3, 0, 0, '', CURRENT_TIMESTAMP, 0, 0)",
    );
    db.exec("UPDATE keyset_rows SET c = '2026-08-10 14:51:07' WHERE id = 3");
    let diesel_written = keyset_test_suites::Row {
        c: chrono::NaiveDateTime::parse_from_str("2026-08-10 14:51:08", "%F %T").unwrap(),
        ..keyset_test_suites::Row::new(4)
    };
    db.insert_rows(&[diesel_written]);
    let pages = walk_pages::<C_desc__ID_desc, _>(&mut *db, &0, 2, false);
    let ids: Vec<Vec<i64>> = pages
        .iter()
        .map(|p| p.items.iter().map(|r| r.id).collect())
        .collect();
    assert_eq!(ids, vec![vec![4, 3], vec![2, 1]]);
    // Sub-second values written by Diesel and whole seconds written as text.
    let fractional = keyset_test_suites::Row {
        c: chrono::NaiveDateTime::parse_from_str("2026-08-10 14:51:07.5", "%F %T%.f").unwrap(),
        ..keyset_test_suites::Row::new(5)
    };
    db.insert_rows(&[fractional]);
    db.exec("INSERT INTO keyset_rows (id, tenant, a, b, c, d, e) VALUES (6, 0, 0, '', '2026-08-10 14:51:07', 0, 0)");
    for page_size in [1, 2, 3] {
        let compared = walk_and_compare::<C_desc__ID_desc, _>(&mut *db, &0, page_size, false);
        assert_eq!(compared.walked, vec![4, 5, 6, 3, 2, 1]);
        assert_matches(&compared, "text timestamps, mixed writers");
    }
}

#[test]
fn chinook_walks_equal_order_by() {
    use diesel::Connection;
    use keyset_test_suites::chinook::{camel, check_all};
    let Some(path) = keyset_test_suites::shared_data("chinook/Chinook_Sqlite.sqlite") else {
        return;
    };
    let url = format!("file:{}?mode=ro", path.display());
    let conn = &mut diesel::SqliteConnection::establish(&url).expect("open Chinook read-only");
    check_all::<camel::Models, _>(conn, "{}");
}

/// SQLite timestamps written by other writers: timestamps stored as `T`-separated ISO text, with
/// six fraction digits, or with `strftime`'s `.000`. Keyed as the column's text (`String`), the
/// cursor carries the exact stored text and pages follow the text order: no repeats, no loop.
#[test]
fn timestamp_text_from_other_writers_pages_by_the_stored_text() {
    use keyset_test_suites::models::B_desc__ID_desc;
    use keyset_test_suites::oracle::{assert_matches, walk_and_compare};
    let mut db = diesel::SqliteConnection::open();
    let texts = [
        "2026-08-10T14:51:05",
        "2026-08-10T14:51:05.500000",
        "2026-08-10 14:51:05.000",
        "2026-08-10 14:51:06",
        "2026-08-10T14:51:07Z",
        "2026-08-10 14:51:07.000",
    ];
    let rows: Vec<keyset_test_suites::Row> = texts
        .iter()
        .enumerate()
        .flat_map(|(i, t)| {
            (0..2).map(move |j| keyset_test_suites::Row {
                b: t.to_string(),
                ..keyset_test_suites::Row::new((i * 2 + j) as i64)
            })
        })
        .collect();
    db.insert_rows(&rows);
    for page_size in [1, 2, 3, 5] {
        let compared = walk_and_compare::<B_desc__ID_desc, _>(&mut *db, &0, page_size, false);
        assert_eq!(compared.walked.len(), 12);
        assert_matches(&compared, "text timestamps, text keys");
    }
}

/// the SQL guide, "Long runs of ties": with every row of tenant 1 on one score, the single seek
/// searches from `score<?` and filters the run; `seek_per_level(true)` searches each level
/// from the cursor (`score=? AND id>?`, then `score<?`), merged in index order (no temp B-tree).
#[test]
fn plan_seek_per_level_searches_every_level_from_the_cursor() {
    let mut db = diesel::SqliteConnection::open();
    let conn: &mut diesel::SqliteConnection = &mut db;
    let (id, expected) = plans::long_tie_run(conn);
    let row: PlanMixed = plan_rows::table
        .find(id)
        .select(PlanMixed::as_select())
        .first(conn)
        .expect("deep row");
    let paginated = plan_rows::table
        .filter(plan_rows::tenant.eq(1))
        .select(PlanMixed::as_select())
        .paginate_after(Some(Cursor::after_row(&row)))
        .page_size(PLAN_PAGE_SIZE)
        .seek_per_level(true);
    let page = paginated.clone().load_page(conn).expect("deep page");
    assert_eq!(
        page.items.iter().map(|r| r.id).collect::<Vec<_>>(),
        expected
    );
    let report = plan::explain(conn, paginated).expect("plan");
    eprintln!("per level: {}", report.plan);
    report.assert_seeks();
    let index = "plan_rows_tenant_score_desc_id";
    assert_search(&report, index, "score=? AND id>?");
    assert_search(&report, index, "score<?");
    assert!(report.sorts.is_empty(), "no temp B-tree: {}", report.plan);
}

/// A `bool` column holding 2, a stored value the key type cannot represent, is a typed error,
/// never a repeated, lost or endless page (`keyset_test_suites::loud::lossy_values`).
#[test]
fn bool_column_holding_2_is_a_typed_error() {
    keyset_test_suites::loud::lossy_values::bool_column_holding_2_is_a_typed_error::<
        diesel::SqliteConnection,
    >();
}

/// A REAL in an INTEGER column read as `i32`, a stored value the key type cannot represent, is
/// a typed error, never a repeated, lost or endless page
/// (`keyset_test_suites::loud::lossy_values`).
#[test]
fn real_in_an_integer_column_is_a_typed_error_not_an_endless_walk() {
    keyset_test_suites::loud::lossy_values::real_in_integer_column_is_a_typed_error::<
        diesel::SqliteConnection,
    >();
}

/// `time::Time` models over `typed_rows.k_time`, which chrono writes.
mod time_over_chrono_text {
    use keyset_test_suites::typed::sqlite::typed_rows;

    keyset_test_suites::key_model!(TimeOverChronoAsc, typed_rows, k_time: time::Time => asc, id asc, diesel::SqliteConnection);
    keyset_test_suites::key_model!(TimeOverChronoDesc, typed_rows, k_time: time::Time => desc, id desc, diesel::SqliteConnection);
}

/// The README's limit "SQLite timestamps are text": chrono and the time crate write fractions of
/// a second differently (`00:00:00.500` and `00:00:00.5`), so a `time::Time` key over a column
/// chrono wrote binds other text than the stored text of the same value. Ascending, the page
/// after the first such row fetches that row again: `CursorRowReturned`, a typed error, not an
/// endless walk. Descending, the rest of each such tie group compares neither below nor equal
/// to the bound text and is skipped without an error; the test pins exactly which rows (the
/// stored text with a trailing zero, but the first row of its group), so a change in this
/// behaviour is seen.
#[test]
fn time_key_over_chrono_written_text_is_loud_ascending_and_loses_ties_descending() {
    use keyset_diesel::KeysetError;
    use keyset_test_suites::models::Walk;
    use keyset_test_suites::oracle::oracle_sql;
    use keyset_test_suites::typed::TypedKeys;
    use time_over_chrono_text::{TimeOverChronoAsc, TimeOverChronoDesc};
    let mut db = diesel::SqliteConnection::open();
    db.insert_typed_rows();
    let conn: &mut diesel::SqliteConnection = &mut db;
    let mut cursor: Option<Cursor<TimeOverChronoAsc>> = None;
    let mut pages = 0;
    let error = loop {
        match TimeOverChronoAsc::page(conn, &0, cursor.take(), 1, false) {
            Ok(page) => {
                pages += 1;
                cursor = Some(
                    page.next_cursor()
                        .expect("the walk meets the mismatch first"),
                );
            }
            Err(error) => break error,
        }
    };
    assert!(
        matches!(
            KeysetError::from_diesel(&error),
            Some(KeysetError::CursorRowReturned)
        ),
        "{error:?}"
    );
    // The rows before the first trailing-zero value were paged.
    let before = conn.ids(
        "SELECT id FROM typed_rows WHERE k_time < (SELECT MIN(k_time) FROM typed_rows \
         WHERE k_time LIKE '%.%0')",
    );
    assert_eq!(
        pages,
        before.len() + 1,
        "failed on the page after the group's first row"
    );

    let mut walked = Vec::new();
    let mut cursor: Option<Cursor<TimeOverChronoDesc>> = None;
    loop {
        let page = TimeOverChronoDesc::page(conn, &0, cursor.take(), 1, false)
            .expect("the descending walk raises no error");
        walked.extend(page.items.iter().map(|r| r.id));
        match page.next_cursor() {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    let expected = conn.ids(&oracle_sql::<TimeOverChronoDesc, diesel::SqliteConnection>(
        "0",
    ));
    let mut lost: Vec<i64> = expected
        .iter()
        .copied()
        .filter(|id| !walked.contains(id))
        .collect();
    lost.sort_unstable();
    let trailing_zero_but_first = conn.ids(
        "SELECT id FROM typed_rows WHERE k_time LIKE '%.%0' AND id NOT IN \
         (SELECT MAX(id) FROM typed_rows WHERE k_time LIKE '%.%0' GROUP BY k_time) ORDER BY id",
    );
    assert!(!lost.is_empty());
    assert_eq!(lost, trailing_zero_but_first);
    assert_eq!(walked.len() + lost.len(), expected.len(), "nothing twice");
}

/// Diesel 2.4 writes a `time::Time` whose microseconds are 0 as whole seconds, dropping 1 to
/// 999 ns: a cursor holding such a value (read from text chrono wrote, `12:00:00.000000500`)
/// is refused with `InvalidCursorKey` before any SQL runs, instead of seeking from
/// `12:00:00`.
#[test]
fn time_time_fraction_diesel_drops_is_a_typed_error_before_any_sql() {
    keyset_test_suites::typed::unbindable_time_cursor_is_a_typed_error::<
        keyset_test_suites::typed::sqlite_time::TimeAsc,
        diesel::SqliteConnection,
    >(
        "UPDATE time_rows SET t_time = '12:00:00.000000500' WHERE id % 4 = 0",
        "SELECT id FROM time_rows WHERE t_time = '12:00:00.000000500'",
    );
}

/// A key on `lower(name)` seeks on the expression index
/// `(lower(name), id)`: the page after a row 12,345 deep in 20,000 is a `SEARCH` of that index
/// with the seek in its constraint, and no temp B-tree sorts the rows.
#[test]
fn expression_key_seeks_on_an_expression_index() {
    let report = keyset_test_suites::expr_keys::lower_name_plan::<diesel::SqliteConnection>(
        "CREATE INDEX expr_people_lower_id ON expr_people (lower(name), id)",
        "ANALYZE",
    );
    eprintln!("{report:#?}");
    assert!(report.sorts.is_empty(), "{report:#?}");
    assert_eq!(report.reads.len(), 1, "{report:#?}");
    let read = &report.reads[0];
    assert_eq!(read.access, "SEARCH", "{report:#?}");
    assert_eq!(read.index.as_deref(), Some("expr_people_lower_id"));
    let cond = read.condition.as_deref().expect("a constraint");
    assert!(cond.contains('>'), "the seek is an index range: {cond}");
    assert!(report.seeks(), "{}", report.failure());
    assert_eq!(
        report.index_recipe,
        r#"CREATE INDEX "expr_people_lower_name_id" ON "expr_people" (lower(name) ASC, "id" ASC)"#
    );
}

/// Every page of tenant 1 of `plan_rows` (2,000 rows) read with `.force_index($index)` (with
/// `declared`: no call, the model declares the index), page size 7, forward with exact flags
/// (a union page) and plain: the rows of `ORDER BY $order`, each page's SQL naming the index
/// (`INDEXED BY`), and the plan reading it.
macro_rules! forced_walk {
    ($conn:expr, $model:ty, $order:literal, $index:literal) => {
        forced_walk!(@walk $conn, $model, $order, $index, |p: Paginated<Q, $model>| p.force_index($index))
    };
    ($conn:expr, $model:ty, $order:literal, $index:literal, declared) => {
        forced_walk!(@walk $conn, $model, $order, $index, |p: Paginated<Q, $model>| p)
    };
    (@walk $conn:expr, $model:ty, $order:literal, $index:literal, $hint:expr) => {{
        fn hint<Q>(p: Paginated<Q, $model>) -> Paginated<Q, $model> {
            let hint = $hint;
            hint(p)
        }
        let conn: &mut diesel::SqliteConnection = $conn;
        let expected = conn.ids(&format!(
            "SELECT id FROM plan_rows WHERE tenant = 1 ORDER BY {}",
            $order
        ));
        for exact in [false, true] {
            let (mut cursor, mut seen) = (None::<Cursor<$model>>, Vec::new());
            loop {
                let page = || {
                    hint(
                        plan_rows::table
                            .filter(plan_rows::tenant.eq(1))
                            .select(<$model>::as_select())
                            .paginate_after(cursor.clone())
                            .page_size(7)
                            .exact_flags(exact),
                    )
                };
                let sql = diesel::debug_query::<diesel::sqlite::Sqlite, _>(
                    &page()
                        .into_query::<diesel::sqlite::Sqlite>()
                        .expect("query"),
                )
                .to_string();
                assert!(
                    sql.contains(concat!("FROM `plan_rows` INDEXED BY `", $index, "`")),
                    "{sql}"
                );
                let got = page().load_page(conn).expect("forced page");
                seen.extend(got.items.iter().map(|r| r.id));
                match got.next_cursor() {
                    Some(next) => cursor = Some(next),
                    None => break,
                }
            }
            assert_eq!(seen, expected, "{} exact {exact}", stringify!($model));
        }
        let row: $model = plan_rows::table
            .find(expected[1000])
            .select(<$model>::as_select())
            .first(conn)
            .expect("row");
        let report = plan::explain(
            conn,
            hint(
                plan_rows::table
                    .filter(plan_rows::tenant.eq(1))
                    .select(<$model>::as_select())
                    .paginate_after(Some(Cursor::<$model>::after(row.key())))
                    .page_size(7),
            ),
        )
        .expect("explain");
        assert!(report.seeks(), "{report:?}");
        assert!(
            report
                .reads
                .iter()
                .all(|r| r.index.as_deref() == Some($index)),
            "{report:?}"
        );
    }};
}

/// `.force_index(..)` on SQLite (`INDEXED BY`): walks equal `ORDER BY` for ASC, DESC and mixed
/// keysets, plain and with exact flags, and the plan reads the named index, given per query
/// or declared on the model (`#[keyset(index = ..)]`, a named sort's `index = ..`); an index
/// that does not exist is SQLite's error, not a page.
#[test]
fn force_index_walks_equal_order_by() {
    use keyset_diesel::Keyset;
    let mut db = diesel::SqliteConnection::open();
    plans::load_plan_rows_n(&mut *db, 4_000);
    db.exec("ANALYZE");
    forced_walk!(
        &mut *db,
        PlanAsc,
        "at ASC, id ASC",
        "plan_rows_tenant_at_id"
    );
    forced_walk!(
        &mut *db,
        PlanDesc,
        "at DESC, id DESC",
        "plan_rows_tenant_at_id"
    );
    forced_walk!(
        &mut *db,
        PlanMixed,
        "score DESC, id ASC",
        "plan_rows_tenant_score_desc_id"
    );
    // Declared on the model (its own keyset and a named sort): the same pages, no call.
    forced_walk!(
        &mut *db,
        PlanIndexed,
        "at ASC, id ASC",
        "plan_rows_tenant_at_id",
        declared
    );
    forced_walk!(
        &mut *db,
        PlanIndexedByMixed,
        "score DESC, id ASC",
        "plan_rows_tenant_score_desc_id",
        declared
    );
    let missing = plan_rows::table
        .filter(plan_rows::tenant.eq(1))
        .select(PlanAsc::as_select())
        .paginate_after(None)
        .force_index("plan_rows_no_such_index")
        .load_page(&mut *db);
    assert!(
        matches!(missing, Err(diesel::result::Error::DatabaseError(..))),
        "{missing:?}"
    );
}

#[derive(QueryableByName)]
struct QueryPlanLine {
    #[diesel(sql_type = diesel::sql_types::Text)]
    detail: String,
}

/// Found by the HTTP bench: a byte-budgeted page's second statement ends its
/// window with the last row that fits, inclusive, and still asks for page size + 1 rows. Its
/// bound is one `<=` (here the row value `(at, id) <= (?, ?)`), the end of the index range:
/// written as `(row < key OR row = key)` it was a filter, and the scan read every row to the
/// end of the tenant looking for the row past the window.
#[test]
fn budgeted_page_window_end_is_the_end_of_its_index_search() {
    use std::sync::{Arc, Mutex};
    let mut db = diesel::SqliteConnection::open();
    plans::load_plan_rows(&mut *db);
    db.exec("ANALYZE");
    let log = Arc::new(Mutex::new(Vec::<String>::new()));
    let seen = Arc::clone(&log);
    db.set_instrumentation(move |event: diesel::connection::InstrumentationEvent<'_>| {
        if let diesel::connection::InstrumentationEvent::StartQuery { query, .. } = event {
            seen.lock().expect("log").push(query.to_string());
        }
    });
    let conn: &mut diesel::SqliteConnection = &mut db;
    let order = "at ASC, id ASC";
    let id = plans::deep_id(conn, order);
    let row: PlanAsc = plan_rows::table
        .find(id)
        .select(PlanAsc::as_select())
        .first(conn)
        .expect("deep row");
    log.lock().expect("log").clear();
    let page = plan_rows::table
        .filter(plan_rows::tenant.eq(1))
        .select(PlanAsc::as_select())
        .paginate_after(Some(Cursor::after_row(&row)))
        .page_size(PLAN_PAGE_SIZE)
        .max_bytes_in_sql(1 << 20, plan_rows::payload)
        .load_page(conn)
        .expect("budgeted page");
    // The statements as Diesel's instrumentation shows them, without the binds.
    let statements: Vec<String> = log
        .lock()
        .expect("log")
        .iter()
        .map(|s| s.split(" -- binds:").next().unwrap_or(s).to_string())
        .collect();
    let expected = conn.ids(&format!(
        "SELECT id FROM plan_rows WHERE tenant = 1 ORDER BY {order} LIMIT {PLAN_PAGE_SIZE} OFFSET {}",
        plans::PLAN_DEPTH + 1
    ));
    assert_eq!(
        page.items.iter().map(|r| r.id).collect::<Vec<_>>(),
        expected
    );
    assert_eq!(
        statements.len(),
        2,
        "the size probe, then the page: {statements:?}"
    );
    use diesel::sql_types::{BigInt, Integer, Timestamp};
    let last = page.items.last().expect("a full page");
    let lines: Vec<QueryPlanLine> =
        diesel::sql_query(format!("EXPLAIN QUERY PLAN {}", statements[1]))
            .bind::<Integer, _>(1)
            .bind::<Timestamp, _>(row.at)
            .bind::<BigInt, _>(row.id)
            .bind::<Timestamp, _>(last.at)
            .bind::<BigInt, _>(last.id)
            .bind::<BigInt, _>(i64::from(PLAN_PAGE_SIZE) + 1)
            .load(conn)
            .expect("query plan");
    let details: Vec<&str> = lines.iter().map(|l| l.detail.as_str()).collect();
    assert!(
        details.iter().any(|d| d.contains(
            "USING INDEX plan_rows_tenant_at_id (tenant=? AND (at,id)>(?,?) AND (at,id)<(?,?))"
        )),
        "the window's end bounds the index search: {details:?}\n{}",
        statements[1]
    );
}

/// SQLite storage classes: `sqlite/storage_classes.rs`.
#[path = "sqlite/storage_classes.rs"]
mod storage_classes;
