//! The PostgreSQL suite. Needs the server (see README); fails when it is not reachable.
//!
//! This file stamps the suites every backend runs and holds the Chinook walk; the tests only
//! PostgreSQL has live in `postgres/`, one file per subject: `explain.rs` (the plans of
//! deep pages), `prepared_plans.rs` (custom and generic plans), `time_zones.rs`, `refusals.rs`
//! (`DISTINCT ON`, NaN keys), `native_enum.rs`, `partitioned.rs` and `sharded.rs`
//! (`postgres_fdw`).

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
keyset_test_suites::locking_clause_test!(diesel::pg::Pg);
keyset_test_suites::locking_suite!(diesel::PgConnection);

#[path = "postgres/explain.rs"]
mod explain;
#[path = "postgres/native_enum.rs"]
mod native_enum;
#[path = "postgres/partitioned.rs"]
mod partitioned;
#[path = "postgres/prepared_plans.rs"]
mod prepared_plans;
#[path = "postgres/refusals.rs"]
mod refusals;
#[path = "postgres/sharded.rs"]
mod sharded;
#[path = "postgres/time_zones.rs"]
mod time_zones;

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
