//! How often PostgreSQL plans a page's prepared statement (`pg_prepared_statements`): a page
//! writes its `LIMIT` as a number, so after a few custom plans PostgreSQL keeps one generic
//! plan instead of planning the statement again at every page.

use diesel::prelude::*;
use keyset_diesel::{Cursor, PaginateDsl};
use keyset_test_suites::models::{PlanAsc, PlanMixed};
use keyset_test_suites::plans::{self, PLAN_PAGE_SIZE};
use keyset_test_suites::schema::plan_rows;
use keyset_test_suites::TestDb;

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
