//! `bash scripts/bench.sh seaorm` (or `cargo run --release --manifest-path
//! bench/seaorm/Cargo.toml`): sea-orm's cursor (`cursor_by`, sea-orm 1.1 on sqlx) pages
//! section 1's table on PostgreSQL (same rows, same indexes, same depths of the 1,000,079-row
//! tenant) in the two orderings it can express, `at ASC, id ASC` and `at DESC, id DESC`, beside
//! this crate and OFFSET, interleaved in one run: every round times each form once at every
//! depth (OFFSET in the first rounds only: its deep pages take seconds), and the figures are
//! medians. Before timing, each page is checked against OFFSET's, and a walk over a nullable
//! key shows what each pages at all. Rewrites section 2d of reports/PERFORMANCE.md.
//!
//! An opt-in crate with its own workspace: sea-orm and sqlx are heavy, and nothing else here
//! needs them. It reads section 1's data set (PostgreSQL schema `keyset_bench`), which
//! `bash scripts/bench.sh` (or `bash scripts/bench.sh peers`) loads; without it, it stops.

#[path = "../../benches/pagination/numbers.rs"]
mod numbers;
#[path = "../../benches/pagination/schema.rs"]
#[allow(dead_code)] // The other shapes' models.
mod schema;
#[path = "../../benches/pagination/section.rs"]
mod section;

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use diesel::prelude::*;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl, SimpleAsyncConnection};
use keyset_diesel::async_::PaginateDsl;
use keyset_diesel::{Cursor, Keyset};
use sea_orm::{ColumnTrait, ConnectOptions, ConnectionTrait, Database, DatabaseConnection};
use sea_orm::{DbBackend, EntityTrait, MockDatabase, QueryFilter, Statement};

use schema::bench_rows;

const DEPTHS: [i64; 5] = [0, 1_000, 10_000, 100_000, 1_000_000];
const PAGE: u32 = 20;
/// The tenant of section 1 that holds 1,000,079 rows.
const TENANT: i32 = 1;
const TENANT_ROWS: i64 = 1_000_079;
/// Rounds of keyset and sea-orm pages; OFFSET is timed in the first `OFFSET_ROUNDS` only.
const ROUNDS: usize = 300;
const OFFSET_ROUNDS: usize = 5;

/// sea-orm's entity for section 1's table.
mod row {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "bench_rows")]
    pub struct Model {
        pub tenant: i32,
        pub at: DateTime,
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: i64,
        pub score: i32,
        pub grade: i32,
        pub payload: String,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// sea-orm's entity for the nullable walk's table.
mod null_row {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "seaorm_nulls")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: i64,
        pub score: Option<i32>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// sea-orm's page after `after` (the previous page's last key), `PAGE + 1` rows.
async fn sea_page(
    db: &DatabaseConnection,
    after: Option<(chrono::NaiveDateTime, i64)>,
    descending: bool,
) -> Vec<row::Model> {
    let mut cursor = row::Entity::find()
        .filter(row::Column::Tenant.eq(TENANT))
        .cursor_by((row::Column::At, row::Column::Id));
    if descending {
        cursor.desc();
    }
    if let Some(key) = after {
        cursor.after(key);
    }
    cursor
        .first(u64::from(PAGE) + 1)
        .all(db)
        .await
        .expect("sea-orm page")
}

/// The depths whose sea-orm statement the section explains.
const EXPLAINED_DEPTHS: [i64; 2] = [100_000, 1_000_000];

/// sea-orm's statement for the page after `after` with its values written in (recorded by its
/// mock connection), and PostgreSQL's `EXPLAIN (ANALYZE, BUFFERS)` of it on `db`.
async fn sea_plan(
    db: &DatabaseConnection,
    after: (chrono::NaiveDateTime, i64),
    descending: bool,
) -> (String, Vec<String>) {
    let mock = MockDatabase::new(DbBackend::Postgres)
        .append_query_results([Vec::<row::Model>::new()])
        .into_connection();
    sea_page(&mock, Some(after), descending).await;
    let sql = mock
        .into_transaction_log()
        .first()
        .and_then(|t| t.statements().first().map(ToString::to_string))
        .expect("sea-orm's statement");
    let rows = db
        .query_all(Statement::from_string(
            DbBackend::Postgres,
            format!("EXPLAIN (ANALYZE, BUFFERS) {sql}"),
        ))
        .await
        .expect("EXPLAIN");
    let lines = rows
        .iter()
        .map(|r| r.try_get_by_index::<String>(0).expect("a plan line"))
        .collect();
    (sql, lines)
}

/// One shape's rows of the table: (depth, keyset, sea-orm, OFFSET), seconds.
struct ShapeRun {
    shape: &'static str,
    depths: Vec<(i64, f64, f64, f64)>,
}

fn median(mut v: Vec<Duration>) -> f64 {
    v.sort();
    v[v.len() / 2].as_secs_f64()
}

macro_rules! shape_run {
    ($conn:expr, $db:expr, $model:ty, $shape:literal, $order:expr, $descending:expr) => {{
        let conn: &mut AsyncPgConnection = $conn;
        let db: &DatabaseConnection = $db;
        let base = || {
            bench_rows::table
                .filter(bench_rows::tenant.eq(TENANT))
                .select(<$model>::as_select())
        };
        let offset = |depth: i64, limit: i64| base().order($order).limit(limit).offset(depth);
        let ids = |rows: &[$model]| rows.iter().map(|r| r.id).collect::<Vec<i64>>();
        // The cursor at each depth: the row before it, as each form holds it.
        let mut cursors = Vec::new();
        for depth in DEPTHS {
            let before = match depth {
                0 => None,
                _ => offset(depth - 1, 1)
                    .load::<$model>(conn)
                    .await
                    .expect("cursor row")
                    .pop(),
            };
            let sea_cursor = before.as_ref().map(|r| (r.at, r.id));
            let cursor = before.as_ref().map(|r| Cursor::<$model>::after(r.key()));
            let want = offset(depth, i64::from(PAGE))
                .load::<$model>(conn)
                .await
                .expect("OFFSET page");
            let want = ids(&want);
            let ours = base()
                .paginate_after(cursor.clone())
                .page_size(PAGE)
                .load_page(conn)
                .await
                .expect("keyset page");
            assert_eq!(ids(&ours.items), want, "{} keyset depth {depth}", $shape);
            let theirs = sea_page(db, sea_cursor, $descending).await;
            let theirs: Vec<i64> = theirs.iter().take(PAGE as usize).map(|r| r.id).collect();
            assert_eq!(theirs, want, "{} sea-orm depth {depth}", $shape);
            cursors.push((depth, cursor, sea_cursor));
        }
        let mut times = vec![(Vec::new(), Vec::new(), Vec::new()); DEPTHS.len()];
        for round in 0..ROUNDS {
            for (i, (depth, cursor, sea_cursor)) in cursors.iter().enumerate() {
                let started = Instant::now();
                base()
                    .paginate_after(cursor.clone())
                    .page_size(PAGE)
                    .load_page(conn)
                    .await
                    .expect("keyset page");
                times[i].0.push(started.elapsed());
                let started = Instant::now();
                sea_page(db, *sea_cursor, $descending).await;
                times[i].1.push(started.elapsed());
                if round < OFFSET_ROUNDS {
                    let started = Instant::now();
                    offset(*depth, i64::from(PAGE) + 1)
                        .load::<$model>(conn)
                        .await
                        .expect("OFFSET page");
                    times[i].2.push(started.elapsed());
                }
            }
        }
        ShapeRun {
            shape: $shape,
            depths: DEPTHS
                .iter()
                .zip(times)
                .map(|(d, (k, s, o))| (*d, median(k), median(s), median(o)))
                .collect(),
        }
    }};
}

diesel::table! {
    seaorm_nulls (id) {
        id -> BigInt,
        score -> Nullable<Integer>,
    }
}

/// A nullable key for the walk of what each form pages at all.
#[derive(Debug, Clone, Queryable, Selectable, Keyset)]
#[diesel(table_name = seaorm_nulls)]
struct NullRow {
    #[keyset(asc, nulls_last)]
    score: Option<i32>,
    #[keyset(asc, unique)]
    id: i64,
}

/// Rows of `seaorm_nulls` (1,000, a NULL score on every 10th) each form's walk delivers
/// (pages of 7, `score ASC NULLS LAST, id ASC` for this crate; sea-orm's cursor by
/// `(score, id)`, ascending): (this crate, sea-orm, rows).
async fn nullable_walks(
    conn: &mut AsyncPgConnection,
    db: &DatabaseConnection,
) -> (usize, usize, i64) {
    conn.batch_execute(
        "DROP TABLE IF EXISTS seaorm_nulls;
         CREATE TABLE seaorm_nulls (id BIGINT PRIMARY KEY, score INTEGER NULL);
         INSERT INTO seaorm_nulls SELECT g, CASE WHEN g % 10 = 0 THEN NULL ELSE g % 37 END
         FROM generate_series(1, 1000) g;",
    )
    .await
    .expect("seaorm_nulls");
    let mut ours = 0;
    let mut cursor = None;
    loop {
        let page = seaorm_nulls::table
            .select(NullRow::as_select())
            .paginate_after(cursor)
            .page_size(7)
            .load_page(conn)
            .await
            .expect("keyset page");
        ours += page.items.len();
        cursor = page.next_cursor();
        if cursor.is_none() {
            break;
        }
    }
    let mut theirs = 0;
    let mut after: Option<(Option<i32>, i64)> = None;
    for _ in 0..1_000 {
        let mut c =
            null_row::Entity::find().cursor_by((null_row::Column::Score, null_row::Column::Id));
        if let Some(key) = after {
            c.after(key);
        }
        let page = c.first(7).all(db).await.expect("sea-orm page");
        theirs += page.len();
        match page.last() {
            Some(last) if page.len() == 7 => after = Some((last.score, last.id)),
            _ => break,
        }
    }
    conn.batch_execute("DROP TABLE seaorm_nulls")
        .await
        .expect("drop seaorm_nulls");
    (ours, theirs, 1_000)
}

fn main() {
    let started = Instant::now();
    let url = std::env::var("KEYSET_PG_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_string());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let (runs, nulls, plans) = runtime.block_on(async {
        let mut conn = AsyncPgConnection::establish(&url)
            .await
            .expect("AsyncPgConnection");
        conn.batch_execute("SET search_path TO keyset_bench")
            .await
            .expect("search_path");
        let rows: i64 = bench_rows::table
            .filter(bench_rows::tenant.eq(TENANT))
            .count()
            .get_result(&mut conn)
            .await
            .unwrap_or(0);
        assert_eq!(
            rows, TENANT_ROWS,
            "section 1's data set is not loaded in schema keyset_bench: run `bash scripts/bench.sh peers` (it loads it) first"
        );
        let mut options = ConnectOptions::new(url.clone());
        options
            .max_connections(1)
            .min_connections(1)
            .set_schema_search_path("keyset_bench")
            .sqlx_logging(false);
        let db = Database::connect(options).await.expect("sea-orm connection");
        let runs = [
            shape_run!(
                &mut conn,
                &db,
                schema::Asc,
                "ASC `at, id`",
                (bench_rows::at.asc(), bench_rows::id.asc()),
                false
            ),
            shape_run!(
                &mut conn,
                &db,
                schema::Desc,
                "DESC `at DESC, id DESC`",
                (bench_rows::at.desc(), bench_rows::id.desc()),
                true
            ),
        ];
        let nulls = nullable_walks(&mut conn, &db).await;
        let mut plans = Vec::new();
        for depth in EXPLAINED_DEPTHS {
            let cursor_row: schema::Asc = bench_rows::table
                .filter(bench_rows::tenant.eq(TENANT))
                .select(schema::Asc::as_select())
                .order((bench_rows::at.asc(), bench_rows::id.asc()))
                .offset(depth - 1)
                .first(&mut conn)
                .await
                .expect("cursor row");
            let (sql, lines) = sea_plan(&db, (cursor_row.at, cursor_row.id), false).await;
            plans.push((depth, sql, lines));
        }
        (runs, nulls, plans)
    });
    let text = render(&runs, nulls, &plans, started.elapsed());
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../reports/PERFORMANCE.md");
    let doc = std::fs::read_to_string(&path).unwrap_or_default();
    std::fs::write(&path, section::SEAORM.replace(&doc, &text)).expect("write PERFORMANCE.md");
    eprintln!("[seaorm] wrote section 2d of {}", path.display());
}

fn time(seconds: f64) -> String {
    if seconds >= 1e-3 {
        format!("{:.2} ms", seconds * 1e3)
    } else {
        format!("{:.1} µs", seconds * 1e6)
    }
}

fn render(
    runs: &[ShapeRun],
    nulls: (usize, usize, i64),
    plans: &[(i64, String, Vec<String>)],
    took: Duration,
) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{}", section::SEAORM.start);
    let _ = writeln!(s, "## 2d. sea-orm's cursor (PostgreSQL, opt-in)\n");
    let _ = writeln!(
        s,
        "Written by `bash scripts/bench.sh seaorm` (an opt-in crate outside the workspace, \
         `bench/seaorm`; not part of the full run; this part took {:.0} s, its build not \
         counted). Section 1's table and indexes, its 1,000,079-row tenant, pages of 20: this \
         crate (`keyset`) on one diesel-async `AsyncPgConnection`, sea-orm 1.1's cursor \
         (`Entity::find().filter(..).cursor_by((at, id))`, `.desc()` for the DESC shape, \
         `.after(key).first(21)`) on one sqlx connection to the same server, and OFFSET on the \
         first connection. Each of {ROUNDS} rounds times `keyset` and sea-orm once at every \
         depth, OFFSET in the first {OFFSET_ROUNDS} rounds; medians. Every page was first \
         checked against OFFSET's rows. The two crates use different drivers (Diesel's \
         PostgreSQL client against sqlx), so a ratio near 1 compares the drivers as much as \
         the SQL; a ratio that grows with depth is the SQL.\n",
        took.as_secs_f64()
    );
    let _ = writeln!(
        s,
        "| shape | depth | keyset | sea-orm | sea-orm / keyset | OFFSET | OFFSET / keyset |"
    );
    let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|");
    for run in runs {
        for &(depth, k, p, o) in &run.depths {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {:.2} | {} | {:.1} |",
                run.shape,
                numbers::group(depth as u64),
                time(k),
                time(p),
                p / k,
                time(o),
                o / k
            );
        }
    }
    let _ = writeln!(
        s,
        "\nsea-orm's cursor writes the seek as `(at = $ AND id > $) OR at > $`, with no bound \
         that PostgreSQL can take as an index range start on its own. Below, its statement for \
         the ASC page after the row at each depth, as its mock connection records it (values \
         written in), and PostgreSQL's `EXPLAIN (ANALYZE, BUFFERS)` of it on this server. \
         Compare this crate's `(at, id) > ($2, $3)`, an index range from the cursor (\"SQL and \
         plans\" below).\n"
    );
    for (depth, sql, lines) in plans {
        let _ = writeln!(s, "Depth {}:\n", numbers::group(*depth as u64));
        let _ = writeln!(s, "```sql\n{sql}\n```\n");
        let _ = writeln!(s, "```text\n{}\n```\n", lines.join("\n"));
    }
    let (ours, theirs, rows) = nulls;
    let _ = writeln!(
        s,
        "What each pages correctly at all. The NULL row is measured here: a walk over a \
         1,000-row table whose `score` is NULL on every 10th row, pages of 7, `score ASC NULLS \
         LAST, id ASC` for `keyset` and sea-orm's cursor by `(score, id)` ascending, delivered \
         {ours} rows with `keyset` and {theirs} with sea-orm (of {rows}); the rest is what \
         each API can express.\n"
    );
    let _ = writeln!(s, "| | keyset | sea-orm 1.1 cursor | OFFSET |");
    let _ = writeln!(s, "|---|---|---|---|");
    let _ = writeln!(
        s,
        "| backends | PostgreSQL, SQLite, MySQL/MariaDB | PostgreSQL, SQLite, MySQL/MariaDB | all |"
    );
    let _ = writeln!(
        s,
        "| every key column ascending, or every one descending | yes | yes (`.asc()` / `.desc()`) | yes |"
    );
    let _ = writeln!(
        s,
        "| mixed directions (`score DESC, id ASC`) | yes | no (one direction for the whole key) | yes |"
    );
    let _ = writeln!(
        s,
        "| nullable key column | yes, {ours} of {rows} rows (NULLs first or last) | {theirs} of {rows} rows | yes |"
    );
    let _ = writeln!(
        s,
        "| a tie-breaker required, checked at compile time | yes | no | no |"
    );
    let _ = write!(s, "\n{}", section::SEAORM.end);
    s
}
