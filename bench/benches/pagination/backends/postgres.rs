//! The PostgreSQL run: its connection, plans (`EXPLAIN (ANALYZE, BUFFERS)`) and settings,
//! and which page statements ran with a generic plan.

use diesel::connection::SimpleConnection;
use diesel::pg::{Pg, PgConnection};
use diesel::prelude::*;
use diesel::query_builder::QueryFragment;
use diesel::sql_types::{BigInt, Text};

use crate::handwritten::Explain;
use crate::results::BackendRun;

pub fn url() -> String {
    std::env::var("KEYSET_PG_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_string())
}

#[derive(QueryableByName)]
struct One {
    #[diesel(sql_type = Text)]
    v: String,
}

fn one(conn: &mut PgConnection, sql: &str) -> String {
    diesel::sql_query(sql)
        .get_result::<One>(conn)
        .map(|r| r.v)
        .unwrap_or_else(|e| format!("({e})"))
}

fn explain<Q: QueryFragment<Pg>>(conn: &mut PgConnection, query: Q) -> String {
    Explain::<Q, Text>::new("EXPLAIN (ANALYZE, BUFFERS)", query)
        .load::<String>(conn)
        .expect("explain")
        .join("\n")
}

fn counters(conn: &mut PgConnection, run: impl FnOnce(&mut PgConnection)) -> Option<String> {
    run(conn);
    None
}

/// Storage reads are counted on MariaDB only.
fn storage(_: &mut PgConnection) -> Option<(u64, u64)> {
    None
}

walk_fn!(PgConnection);

#[derive(QueryableByName)]
struct Statement {
    #[diesel(sql_type = Text)]
    statement: String,
    #[diesel(sql_type = BigInt)]
    generic_plans: i64,
    #[diesel(sql_type = BigInt)]
    custom_plans: i64,
}

pub fn run(c: &mut criterion::Criterion) -> BackendRun {
    let url = url();
    let mut conn = PgConnection::establish(&url).unwrap_or_else(|e| {
        panic!("PostgreSQL is not reachable at {url} ({e}): run `bash scripts/setup.sh`")
    });
    conn.batch_execute("CREATE SCHEMA IF NOT EXISTS keyset_bench; SET search_path TO keyset_bench")
        .expect("schema keyset_bench");
    let mut run = BackendRun {
        name: "postgres",
        ..BackendRun::default()
    };
    run.load = crate::load(&mut conn, crate::data::load_postgres);
    run.version = one(&mut conn, "SELECT version() AS v");
    for setting in [
        "shared_buffers",
        "effective_cache_size",
        "work_mem",
        "random_page_cost",
        "plan_cache_mode",
        "jit",
    ] {
        let value = one(
            &mut conn,
            &format!("SELECT current_setting('{setting}') AS v"),
        );
        run.settings.push((setting.to_string(), value));
    }
    backend_run!(c, &mut conn, &mut run, PgConnection, Pg);
    // Which page statements PostgreSQL ran with a generic plan (Diesel prepares and
    // caches the library's statements; `sql_query` is never cached).
    let statements: Vec<Statement> = diesel::sql_query(
        "SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements \
         WHERE statement LIKE '%bench_rows%' ORDER BY statement",
    )
    .load(&mut conn)
    .unwrap_or_default();
    let generic = statements.iter().filter(|s| s.generic_plans > 0).count();
    run.notes.push(format!(
        "Of the {} prepared statements Diesel cached on the benchmark connection, {generic} ran with a generic plan at least once (`pg_prepared_statements`).",
        statements.len()
    ));
    for s in statements.iter().filter(|s| s.generic_plans > 0) {
        let from = s.statement.find(" FROM ").unwrap_or(0);
        let short = &s.statement[from..];
        run.notes.push(format!(
            "Generic plan {} times, custom {} times: `SELECT ...{short}`",
            s.generic_plans, s.custom_plans
        ));
    }
    // A statement run more than five times that never got a generic plan: PostgreSQL
    // planned it at every execution.
    for s in statements
        .iter()
        .filter(|s| s.generic_plans == 0 && s.custom_plans > 5)
    {
        let from = s.statement.find(" FROM ").unwrap_or(0);
        let short = &s.statement[from..];
        run.notes.push(format!(
            "Custom plan at every execution ({} times, generic 0): `SELECT ...{short}`",
            s.custom_plans
        ));
    }
    run
}
