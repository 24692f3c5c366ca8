//! A work queue (`queue_jobs`): jobs taken by priority, highest first, then oldest first, by
//! workers that lock the pages they take (`FOR UPDATE`, `SKIP LOCKED`).

use diesel::prelude::*;
use keyset_diesel::Keyset;

diesel::table! {
    /// Jobs; `priority` has few values (ties). Created by the test that uses it.
    queue_jobs (id) {
        id -> BigInt,
        priority -> Integer,
        done -> Bool,
        claimed_by -> Nullable<Integer>,
    }
}

/// `priority DESC, id ASC`: mixed directions (the expanded seek), the primary key last.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = queue_jobs)]
pub struct Job {
    #[keyset(desc)]
    pub priority: i32,
    #[keyset(asc)]
    pub id: i64,
    pub done: bool,
}

/// Creates `queue_jobs` with the index its pages seek (`priority DESC, id`): `jobs` jobs,
/// job `i` of priority `i % 3`, none done.
pub fn create_queue<C: keyset_testkit::TestDb>(db: &mut C, jobs: i64) {
    db.exec(
        "CREATE TABLE queue_jobs (id BIGINT NOT NULL PRIMARY KEY, priority INTEGER NOT NULL, \
         done BOOLEAN NOT NULL, claimed_by INTEGER)",
    );
    db.exec("CREATE INDEX queue_jobs_take ON queue_jobs (done, priority DESC, id)");
    for chunk in (1..=jobs).collect::<Vec<_>>().chunks(1_000) {
        let rows: Vec<String> = chunk
            .iter()
            .map(|i| format!("({i}, {}, FALSE, NULL)", i % 3))
            .collect();
        db.exec(&format!(
            "INSERT INTO queue_jobs VALUES {}",
            rows.join(", ")
        ));
    }
}
