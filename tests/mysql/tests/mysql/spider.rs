//! Pages over a table sharded across two MariaDB servers with the Spider
//! storage engine (`plan_rows` partitioned by key on `id`, one partition on each shard of
//! `scripts/setup.sh`: 127.0.0.1:3307 and :3308, `KEYSET_MARIADB_SHARD_PORTS`). Walks through
//! every page equal the oracle's plain `ORDER BY` on every shape, heavy ties included, and a
//! deep page costs each shard a bounded number of rows sent: Spider pushes the seek, the
//! `ORDER BY` and the `LIMIT` down to each shard and merges their pages.

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::Text;
use keyset_diesel::{Cursor, Keyset};
use keyset_test_suites::db::{mysql_url, unique_name};
use keyset_test_suites::models::{PlanAsc, PlanDesc, PlanMixed, PlanNullable, Read, Walk};
use keyset_test_suites::plans::{self, PLAN_PAGE_SIZE};
use keyset_test_suites::schema::plan_rows;
use keyset_test_suites::TestDb as _;

use super::My;

/// Rows in the sharded `plan_rows`: 10,000 per tenant.
const ROWS: i64 = 20_000;

/// The shard servers' ports: `KEYSET_MARIADB_SHARD_PORTS` (comma-separated) or 3307 and 3308.
fn shard_ports() -> Vec<u16> {
    std::env::var("KEYSET_MARIADB_SHARD_PORTS")
        .unwrap_or_else(|_| "3307,3308".to_string())
        .split(',')
        .map(|p| p.trim().parse().expect("KEYSET_MARIADB_SHARD_PORTS: ports"))
        .collect()
}

/// A connection to the shard on `port`, database `database`; fails loudly when the shard is
/// not running.
fn shard(port: u16, database: &str) -> My {
    let url = mysql_url();
    let (base, _) = url.rsplit_once(':').expect("KEYSET_MYSQL_URL has a port");
    let url = format!("{base}:{port}/{database}");
    My::establish(&url).unwrap_or_else(|e| {
        panic!("MariaDB shard {url} is not reachable ({e}): run `bash scripts/setup.sh`")
    })
}

/// The shard databases and Spider servers of one test, dropped at its end.
struct Shards {
    database: String,
    servers: Vec<(u16, String)>,
}

impl Drop for Shards {
    fn drop(&mut self) {
        for (port, server) in &self.servers {
            let _ = shard(*port, "test")
                .batch_execute(&format!("DROP DATABASE IF EXISTS {}", self.database));
            if let Ok(mut main) = My::establish(&format!("{}/test", mysql_url())) {
                let _ = main.batch_execute(&format!("DROP SERVER IF EXISTS {server}"));
            }
        }
    }
}

#[derive(QueryableByName)]
struct Status {
    #[diesel(sql_type = Text)]
    name: String,
    #[diesel(sql_type = Text)]
    value: String,
}

/// Rows the shard on `port` has sent to its clients, and index entries it has read, since it
/// started (one row of status is sent per call).
fn shard_counters(conn: &mut My) -> (i64, i64) {
    let rows: Vec<Status> = diesel::sql_query(
        "SELECT VARIABLE_NAME AS name, VARIABLE_VALUE AS value FROM information_schema.GLOBAL_STATUS \
         WHERE VARIABLE_NAME IN ('ROWS_SENT', 'HANDLER_READ_NEXT', 'HANDLER_READ_PREV', 'HANDLER_READ_KEY')",
    )
    .load(conn)
    .expect("shard status");
    let get = |n: &str| -> i64 {
        rows.iter()
            .filter(|r| r.name.starts_with(n))
            .map(|r| r.value.parse::<i64>().expect("a count"))
            .sum()
    };
    (get("ROWS_SENT"), get("HANDLER_READ"))
}

/// `plan_rows` of the test database `db` as a Spider table over one partition per shard.
fn sharded_plan_rows(db: &mut My) -> Shards {
    let database: String = diesel::select(diesel::dsl::sql::<Text>("DATABASE()"))
        .get_result(db)
        .expect("database");
    let ddl = "(id BIGINT NOT NULL PRIMARY KEY, tenant INTEGER NOT NULL, at DATETIME(6) NOT NULL, \
               score INTEGER NOT NULL, maybe INTEGER NULL, payload TEXT NOT NULL, \
               KEY plan_rows_tenant_at_id (tenant, at, id), \
               KEY plan_rows_tenant_score_desc_id (tenant, score DESC, id ASC), \
               KEY plan_rows_tenant_maybe_id (tenant, maybe, id))";
    let mut shards = Shards {
        database: database.clone(),
        servers: Vec::new(),
    };
    let mut partitions = Vec::new();
    for (n, port) in shard_ports().into_iter().enumerate() {
        shard(port, "test")
            .batch_execute(&format!(
                "CREATE DATABASE {database}; CREATE TABLE {database}.plan_rows {ddl}"
            ))
            .expect("shard table");
        let server = format!("{}_s{n}", unique_name());
        shards.servers.push((port, server.clone()));
        db.batch_execute(&format!(
            "CREATE SERVER {server} FOREIGN DATA WRAPPER mysql OPTIONS \
             (HOST '127.0.0.1', PORT {port}, USER 'root', PASSWORD '', DATABASE '{database}')"
        ))
        .expect("spider server");
        partitions.push(format!("PARTITION p{n} COMMENT = 'srv \"{server}\"'"));
    }
    db.batch_execute(&format!(
        "DROP TABLE plan_rows; CREATE TABLE plan_rows {ddl} ENGINE = SPIDER \
         COMMENT = 'wrapper \"mysql\", table \"plan_rows\"' PARTITION BY KEY (id) ({})",
        partitions.join(", ")
    ))
    .expect("spider table (is the Spider engine loaded? run `bash scripts/setup.sh`)");
    plans::load_plan_rows_n(db, ROWS);
    shards
}

/// Walks every page of tenant 1 of `$model` (`$order`) in the default form and in the
/// deferred join, and checks the rows against the oracle.
macro_rules! walk_equals_oracle {
    ($db:expr, $model:ty, $order:expr) => {{
        let db: &mut My = $db;
        let expected = db.ids(&format!(
            "SELECT id FROM plan_rows WHERE tenant = 1 ORDER BY {}",
            $order
        ));
        assert_eq!(expected.len() as i64, ROWS / 2);
        for deferred in [None, Some(true)] {
            let how = Read {
                deferred,
                ..Read::forward(97)
            };
            let mut got = Vec::new();
            let mut cursor = None;
            loop {
                let page = <$model as Walk<My>>::read(db, &1, cursor, how).expect("page");
                got.extend(page.items.iter().map(|r| r.id));
                cursor = page.next_cursor();
                if !page.has_more() {
                    break;
                }
            }
            assert_eq!(
                got,
                expected,
                "{} deferred {deferred:?}",
                stringify!($model)
            );
        }
    }};
}

#[test]
fn sharded_pages_walk_exactly_and_each_shard_sends_one_page() {
    let mut db = My::open();
    let shards = sharded_plan_rows(&mut db);
    let db: &mut My = &mut db;
    walk_equals_oracle!(db, PlanAsc, "at ASC, id ASC");
    walk_equals_oracle!(db, PlanDesc, "at DESC, id DESC");
    walk_equals_oracle!(db, PlanMixed, "score DESC, id ASC");
    walk_equals_oracle!(db, PlanNullable, "maybe IS NULL, maybe ASC, id ASC");

    // A deep page: each shard sends at most one page and its look-ahead row (Spider merges);
    // the deferred join twice that (the inner query's ids, then the page's rows).
    let mut counters: Vec<My> = shard_ports()
        .into_iter()
        .map(|port| shard(port, &shards.database))
        .collect();
    let depth = ROWS / 2 - 500;
    let row: PlanAsc = plan_rows::table
        .find(plans::id_at(db, "at ASC, id ASC", depth))
        .select(PlanAsc::as_select())
        .first(db)
        .expect("deep row");
    for deferred in [None, Some(true), Some(false)] {
        let how = Read {
            deferred,
            ..Read::forward(PLAN_PAGE_SIZE)
        };
        // Spider opens its shard connections on the first statement: warm them up.
        <PlanAsc as Walk<My>>::read(db, &1, Some(Cursor::after(row.key())), how).expect("page");
        let before: Vec<(i64, i64)> = counters.iter_mut().map(shard_counters).collect();
        let page =
            <PlanAsc as Walk<My>>::read(db, &1, Some(Cursor::after(row.key())), how).expect("page");
        let after: Vec<(i64, i64)> = counters.iter_mut().map(shard_counters).collect();
        let expected = db.ids(&format!(
            "SELECT id FROM plan_rows WHERE tenant = 1 ORDER BY at, id LIMIT {PLAN_PAGE_SIZE} OFFSET {}",
            depth + 1
        ));
        assert_eq!(
            page.items.iter().map(|r| r.id).collect::<Vec<_>>(),
            expected
        );
        for (n, (b, a)) in before.iter().zip(&after).enumerate() {
            // The status statement of `before` sent 4 rows.
            let sent = a.0 - b.0 - 4;
            let read = a.1 - b.1;
            eprintln!("shard {n} deferred {deferred:?}: rows sent {sent}, index reads {read}");
            let pages = if deferred == Some(true) { 2 } else { 1 };
            assert!(
                sent <= pages * (i64::from(PLAN_PAGE_SIZE) + 1) + 2,
                "shard {n}, deferred {deferred:?}: {sent} rows sent for one page"
            );
        }
    }
}
