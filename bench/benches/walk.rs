//! A whole walk, blocking against async, on the same data: 100,000 rows of one table by
//! `at ASC, id ASC` (about 100 ties per `at`), pages of 1,000, read to the end by the blocking
//! [`Walk`] on a blocking connection and by [`async_::Walk::rows`] on the backend's
//! diesel-async connection (a current-thread runtime), interleaved in one criterion group per
//! backend. Both walks are checked to yield every row in order before any timing.
//!
//! `cargo bench -p keyset-bench --bench walk` (`KEYSET_BENCH_BACKENDS=sqlite,postgres` for a
//! subset). Prints criterion's estimates and the async/blocking ratio; writes nothing.

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel_async::futures_util::TryStreamExt;
use diesel_async::{AsyncConnection, SimpleAsyncConnection};
use keyset_diesel::{async_, Keyset, Walk};

const ROWS: i64 = 100_000;
const PAGE: u32 = 1_000;

diesel::table! {
    walk_rows (id) {
        id -> BigInt,
        at -> BigInt,
        payload -> Text,
    }
}

#[derive(Debug, Queryable, Selectable, Keyset)]
#[diesel(table_name = walk_rows)]
struct WalkRow {
    #[keyset(asc)]
    at: i64,
    #[keyset(asc, unique)]
    id: i64,
    #[allow(dead_code)] // read, as a page's rows are
    payload: String,
}

fn wanted(backend: &str) -> bool {
    std::env::var("KEYSET_BENCH_BACKENDS").map_or(true, |v| v.split(',').any(|b| b == backend))
}

/// `CREATE TABLE` and the rows, as one script for `batch_execute`.
fn load_script(bigint: &str) -> String {
    let mut sql = format!(
        "DROP TABLE IF EXISTS walk_rows; \
         CREATE TABLE walk_rows (id {bigint} PRIMARY KEY, at {bigint} NOT NULL, payload TEXT NOT NULL); \
         CREATE INDEX walk_rows_at_id ON walk_rows (at, id);"
    );
    for chunk in (0..ROWS).collect::<Vec<_>>().chunks(1_000) {
        sql.push_str("INSERT INTO walk_rows (id, at, payload) VALUES ");
        let values: Vec<String> = chunk
            .iter()
            .map(|id| {
                format!(
                    "({id}, {}, 'row {id} of the walk benchmark')",
                    (id * 7919) % 1_000
                )
            })
            .collect();
        sql.push_str(&values.join(", "));
        sql.push(';');
    }
    sql
}

macro_rules! bench_backend {
    ($c:expr, $name:expr, $blocking:ty, $async:ty, $url:expr, $setup:expr) => {{
        let url: String = $url;
        let mut conn = <$blocking>::establish(&url).expect("blocking connection");
        conn.batch_execute($setup).expect("load");
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let mut aconn = runtime
            .block_on(<$async>::establish(&url))
            .expect("async connection");
        let query = || walk_rows::table.select(WalkRow::as_select());
        let blocking = |conn: &mut $blocking| -> usize {
            Walk::<WalkRow, _, _>::new(conn, query)
                .page_size(PAGE)
                .map(|page| page.expect("page").len())
                .sum()
        };
        let async_walk = |aconn: &mut $async| -> usize {
            runtime.block_on(async {
                async_::Walk::<WalkRow, _, _>::new(aconn, query)
                    .page_size(PAGE)
                    .rows()
                    .try_fold(0, |n, _| async move { Ok(n + 1) })
                    .await
                    .expect("async walk")
            })
        };
        assert_eq!(blocking(&mut conn), ROWS as usize);
        assert_eq!(async_walk(&mut aconn), ROWS as usize);
        let mut group = $c.benchmark_group(format!("walk/{}", $name));
        group
            .sample_size(10)
            .measurement_time(Duration::from_secs(20));
        group.bench_function("blocking", |b| b.iter(|| blocking(&mut conn)));
        group.bench_function("async", |b| b.iter(|| async_walk(&mut aconn)));
        group.finish();
        // Interleaved medians for the ratio line.
        let (mut tb, mut ta) = (Vec::new(), Vec::new());
        for _ in 0..7 {
            let t = Instant::now();
            blocking(&mut conn);
            tb.push(t.elapsed());
            let t = Instant::now();
            async_walk(&mut aconn);
            ta.push(t.elapsed());
        }
        tb.sort();
        ta.sort();
        let (b, a) = (tb[3].as_secs_f64(), ta[3].as_secs_f64());
        println!(
            "walk/{}: blocking {:.0} rows/s, async {:.0} rows/s, async/blocking time {:.2}",
            $name,
            ROWS as f64 / b,
            ROWS as f64 / a,
            a / b
        );
        let _ = runtime.block_on(aconn.batch_execute("DROP TABLE walk_rows"));
    }};
}

fn walks(c: &mut Criterion) {
    if wanted("sqlite") {
        let path =
            std::env::temp_dir().join(format!("keyset_walk_bench_{}.sqlite", std::process::id()));
        let url = path.display().to_string();
        bench_backend!(
            c,
            "sqlite",
            diesel::SqliteConnection,
            diesel_async::sync_connection_wrapper::SyncConnectionWrapper<diesel::SqliteConnection>,
            url.clone(),
            &load_script("INTEGER")
        );
        let _ = std::fs::remove_file(path);
    }
    if wanted("postgres") {
        let url = std::env::var("KEYSET_PG_URL")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_string());
        bench_backend!(
            c,
            "postgres",
            diesel::PgConnection,
            diesel_async::AsyncPgConnection,
            url,
            &load_script("BIGINT")
        );
    }
    if wanted("mysql") {
        let url = std::env::var("KEYSET_MYSQL_URL")
            .map(|u| format!("{}/test", u.trim_end_matches('/')))
            .unwrap_or_else(|_| "mysql://root@127.0.0.1:3306/test".to_string());
        bench_backend!(
            c,
            "mariadb",
            diesel::MysqlConnection,
            diesel_async::AsyncMysqlConnection,
            url,
            &load_script("BIGINT")
        );
    }
}

criterion_group!(benches, walks);
criterion_main!(benches);
