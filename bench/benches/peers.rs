//! `cargo bench -p keyset-bench --bench peers` (or `bash scripts/bench.sh peers`): the closest
//! Rust peer on Diesel, `i-love-jesus` 0.3 (PostgreSQL only; one direction for every key
//! column), pages section 1's table on PostgreSQL (same rows, same indexes, same depths of the
//! 1,000,079-row tenant) in the two orderings it can express, `at ASC, id ASC` and
//! `at DESC, id DESC`, beside this crate and OFFSET, interleaved in one run: every round
//! times each form once at every depth (OFFSET in the first rounds only: its deep pages take
//! seconds), and the figures are medians. Every form runs on the same diesel-async
//! `AsyncPgConnection` (the peer has no blocking `RunQueryDsl` on Diesel 2.4). Before timing,
//! each page is checked against OFFSET's, and a walk over a nullable key shows what each can
//! page at all. Rewrites section 2c of reports/PERFORMANCE.md. Needs section 1's data set (the
//! full run loads it first; run alone, it loads it when missing).

#[path = "pagination/data.rs"]
#[allow(dead_code)] // The other backends' loaders.
mod data;
#[path = "pagination/schema.rs"]
#[allow(dead_code)] // The other shapes' models.
mod schema;
#[path = "pagination/section.rs"]
mod section;

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use chrono::NaiveDateTime;
use diesel::connection::SimpleConnection;
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::query_builder::{AsQuery, AstPass, Query, QueryFragment, QueryId};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl, SimpleAsyncConnection};
use i_love_jesus::{CursorKeysModule, PaginatedQueryBuilder, SortDirection};
use keyset_diesel::async_::PaginateDsl;
use keyset_diesel::{Cursor, Keyset};

use schema::bench_rows;

const DEPTHS: [i64; 5] = [0, 1_000, 10_000, 100_000, 1_000_000];
const PAGE: u32 = 20;
/// Rounds of keyset and peer pages; OFFSET is timed in the first `OFFSET_ROUNDS` only.
const ROUNDS: usize = 600;
const OFFSET_ROUNDS: usize = 5;

/// The peer's model: the same columns, with its derive (a module of cursor keys).
#[derive(Debug, Clone, Queryable, Selectable, CursorKeysModule)]
#[diesel(table_name = bench_rows)]
#[diesel(check_for_backend(diesel::pg::Pg))]
#[cursor_keys_module(name = peer_key)]
struct PeerRow {
    tenant: i32,
    at: NaiveDateTime,
    id: i64,
    score: i32,
    grade: i32,
    payload: String,
}

type Boxed = diesel::dsl::IntoBoxed<
    'static,
    diesel::dsl::Limit<
        diesel::dsl::Select<
            diesel::dsl::Filter<bench_rows::table, diesel::dsl::Eq<bench_rows::tenant, i32>>,
            diesel::dsl::AsSelect<PeerRow, diesel::pg::Pg>,
        >,
    >,
    diesel::pg::Pg,
>;

/// The peer's page after `cursor` (the row itself) in `direction`: its builder over the
/// boxed, limited query, ordered by `at` then `id`.
fn peer_query(
    cursor: Option<PeerRow>,
    direction: SortDirection,
) -> Loadable<<PaginatedQueryBuilder<PeerRow, Boxed> as AsQuery>::Query> {
    let query: Boxed = bench_rows::table
        .filter(bench_rows::tenant.eq(data::BIG_TENANT))
        .select(PeerRow::as_select())
        .limit(i64::from(PAGE) + 1)
        .into_boxed();
    Loadable(
        PaginatedQueryBuilder::new(query, direction)
            .after(cursor)
            .then_order_by(peer_key::at)
            .then_order_by(peer_key::id)
            .as_query(),
    )
}

/// The peer's query made loadable on Diesel 2.4: i-love-jesus 0.3 was written for Diesel
/// 2.1-2.3 and its query types do not implement 2.4's `RunQueryDslSupport`, which
/// diesel-async 0.10's `RunQueryDsl` needs. This wrapper writes the peer's SQL unchanged.
struct Loadable<Q>(Q);

impl<Q: Query> Query for Loadable<Q> {
    type SqlType = Q::SqlType;
}

impl<Q: QueryFragment<Pg>> QueryFragment<Pg> for Loadable<Q> {
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, Pg>) -> diesel::QueryResult<()> {
        self.0.walk_ast(out)
    }
}

impl<Q> QueryId for Loadable<Q> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<Q> diesel::query_dsl::RunQueryDslSupport for Loadable<Q> {}

/// One shape's rows of the table: the three forms at every depth.
struct ShapeRun {
    shape: &'static str,
    /// (depth, keyset, peer, OFFSET), seconds.
    depths: Vec<(i64, f64, f64, f64)>,
}

fn median(mut v: Vec<Duration>) -> f64 {
    v.sort();
    v[v.len() / 2].as_secs_f64()
}

macro_rules! shape_run {
    ($conn:expr, $runtime:expr, $model:ty, $shape:literal, $order:expr, $direction:expr) => {{
        let conn: &mut AsyncPgConnection = $conn;
        let runtime: &tokio::runtime::Runtime = $runtime;
        let base = || {
            bench_rows::table
                .filter(bench_rows::tenant.eq(data::BIG_TENANT))
                .select(<$model>::as_select())
        };
        let offset = |conn: &mut AsyncPgConnection, depth: i64| -> Vec<$model> {
            runtime
                .block_on(
                    base()
                        .order($order)
                        .limit(i64::from(PAGE) + 1)
                        .offset(depth)
                        .load::<$model>(conn),
                )
                .expect("OFFSET page")
        };
        let ids = |rows: &[$model]| rows.iter().map(|r| r.id).collect::<Vec<i64>>();
        // The cursor at each depth: the row before it, as each form holds it.
        let mut cursors = Vec::new();
        for depth in DEPTHS {
            let before = (depth > 0).then(|| {
                let mut rows = runtime
                    .block_on(
                        base()
                            .order($order)
                            .limit(1)
                            .offset(depth - 1)
                            .load::<$model>(conn),
                    )
                    .expect("cursor row");
                rows.remove(0)
            });
            let peer_cursor = before.as_ref().map(|r| PeerRow {
                tenant: r.tenant,
                at: r.at,
                id: r.id,
                score: r.score,
                grade: r.grade,
                payload: r.payload.clone(),
            });
            let cursor = before.as_ref().map(|r| Cursor::<$model>::after(r.key()));
            let want = ids(&offset(conn, depth)[..PAGE as usize]);
            let ours = runtime
                .block_on(
                    base()
                        .paginate_after(cursor.clone())
                        .page_size(PAGE)
                        .load_page(conn),
                )
                .expect("keyset page");
            assert_eq!(ids(&ours.items), want, "{} keyset depth {depth}", $shape);
            let theirs = runtime
                .block_on(peer_query(peer_cursor.clone(), $direction).load::<PeerRow>(conn))
                .expect("peer page");
            let theirs: Vec<i64> = theirs.iter().take(PAGE as usize).map(|r| r.id).collect();
            assert_eq!(theirs, want, "{} i-love-jesus depth {depth}", $shape);
            cursors.push((depth, cursor, peer_cursor));
        }
        let mut times = vec![(Vec::new(), Vec::new(), Vec::new()); DEPTHS.len()];
        for round in 0..ROUNDS {
            for (i, (depth, cursor, peer_cursor)) in cursors.iter().enumerate() {
                let started = Instant::now();
                runtime
                    .block_on(
                        base()
                            .paginate_after(cursor.clone())
                            .page_size(PAGE)
                            .load_page(conn),
                    )
                    .expect("keyset page");
                times[i].0.push(started.elapsed());
                let started = Instant::now();
                runtime
                    .block_on(peer_query(peer_cursor.clone(), $direction).load::<PeerRow>(conn))
                    .expect("peer page");
                times[i].1.push(started.elapsed());
                if round < OFFSET_ROUNDS {
                    let started = Instant::now();
                    offset(conn, *depth);
                    times[i].2.push(started.elapsed());
                }
            }
        }
        ShapeRun {
            shape: $shape,
            depths: DEPTHS
                .iter()
                .zip(times)
                .map(|(d, (k, p, o))| (*d, median(k), median(p), median(o)))
                .collect(),
        }
    }};
}

diesel::table! {
    peer_nulls (id) {
        id -> BigInt,
        score -> Nullable<Integer>,
    }
}

/// A nullable key for the walk of what each form pages at all.
#[derive(Debug, Clone, Queryable, Selectable, Keyset, CursorKeysModule)]
#[diesel(table_name = peer_nulls)]
#[diesel(check_for_backend(diesel::pg::Pg))]
#[cursor_keys_module(name = peer_null_key)]
struct NullRow {
    #[keyset(asc, nulls_last)]
    score: Option<i32>,
    #[keyset(asc, unique)]
    id: i64,
}

/// Rows of `peer_nulls` (1,000, a NULL score on every 10th) each form's walk delivers
/// (pages of 7, `score ASC NULLS LAST, id ASC`): (this crate, i-love-jesus, rows).
fn nullable_walks(
    conn: &mut AsyncPgConnection,
    runtime: &tokio::runtime::Runtime,
) -> (usize, usize, i64) {
    runtime
        .block_on(conn.batch_execute(
            "DROP TABLE IF EXISTS peer_nulls;
             CREATE TABLE peer_nulls (id BIGINT PRIMARY KEY, score INTEGER NULL);
             INSERT INTO peer_nulls SELECT g, CASE WHEN g % 10 = 0 THEN NULL ELSE g % 37 END
             FROM generate_series(1, 1000) g;",
        ))
        .expect("peer_nulls");
    let mut ours = 0;
    let mut cursor = None;
    loop {
        let page = runtime
            .block_on(
                peer_nulls::table
                    .select(NullRow::as_select())
                    .paginate_after(cursor)
                    .page_size(7)
                    .load_page(conn),
            )
            .expect("keyset page");
        ours += page.items.len();
        cursor = page.next_cursor();
        if cursor.is_none() {
            break;
        }
    }
    let mut theirs = 0;
    let mut after: Option<NullRow> = None;
    for _ in 0..1_000 {
        let query = peer_nulls::table
            .select(NullRow::as_select())
            .limit(7)
            .into_boxed();
        let page: Vec<NullRow> = runtime
            .block_on(
                Loadable(
                    PaginatedQueryBuilder::new(query, SortDirection::Asc)
                        .after(after.clone())
                        .then_order_by(peer_null_key::score)
                        .then_order_by(peer_null_key::id)
                        .as_query(),
                )
                .load(conn),
            )
            .expect("peer page");
        theirs += page.len();
        match page.last() {
            Some(last) if page.len() == 7 => after = Some(last.clone()),
            _ => break,
        }
    }
    runtime
        .block_on(conn.batch_execute("DROP TABLE peer_nulls"))
        .expect("drop peer_nulls");
    (ours, theirs, 1_000)
}

fn main() {
    let started = Instant::now();
    let url = std::env::var("KEYSET_PG_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_string());
    // Section 1's data set, in schema `keyset_bench`, loaded when missing.
    let mut blocking = PgConnection::establish(&url).expect("PostgreSQL");
    blocking
        .batch_execute("CREATE SCHEMA IF NOT EXISTS keyset_bench; SET search_path TO keyset_bench")
        .expect("schema keyset_bench");
    if !data::is_complete(&mut blocking) {
        data::load_postgres(&mut blocking).expect("load the data set");
    }
    drop(blocking);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let mut conn = runtime
        .block_on(AsyncPgConnection::establish(&url))
        .expect("AsyncPgConnection");
    runtime
        .block_on(conn.batch_execute("SET search_path TO keyset_bench"))
        .expect("search_path");
    let runs = [
        shape_run!(
            &mut conn,
            &runtime,
            schema::Asc,
            "ASC `at, id`",
            (bench_rows::at.asc(), bench_rows::id.asc()),
            SortDirection::Asc
        ),
        shape_run!(
            &mut conn,
            &runtime,
            schema::Desc,
            "DESC `at DESC, id DESC`",
            (bench_rows::at.desc(), bench_rows::id.desc()),
            SortDirection::Desc
        ),
    ];
    let nulls = nullable_walks(&mut conn, &runtime);
    let text = render(&runs, nulls, started.elapsed());
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../reports/PERFORMANCE.md");
    let doc = std::fs::read_to_string(&path).unwrap_or_default();
    std::fs::write(&path, section::PEERS.replace(&doc, &text)).expect("write PERFORMANCE.md");
    eprintln!("[peers] wrote section 2c of {}", path.display());
}

fn time(seconds: f64) -> String {
    if seconds >= 1e-3 {
        format!("{:.2} ms", seconds * 1e3)
    } else {
        format!("{:.1} µs", seconds * 1e6)
    }
}

fn group(n: i64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn render(runs: &[ShapeRun], nulls: (usize, usize, i64), took: Duration) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{}", section::PEERS.start);
    let _ = writeln!(s, "## 2c. Peers in the same run (PostgreSQL)\n");
    let _ = writeln!(
        s,
        "Written by `bash scripts/bench.sh peers` (part of the full run; this part took {:.0} s). \
         Section 1's table and indexes, its 1,000,079-row tenant, pages of 20, on one \
         diesel-async `AsyncPgConnection`: this crate (`keyset`), `i-love-jesus` 0.3 (the \
         closest Rust peer on Diesel: a boxed query, a row comparison of the cursor's values \
         with the key columns), and OFFSET. Each of {ROUNDS} rounds times `keyset` and the peer \
         once at every depth, OFFSET in the first {OFFSET_ROUNDS} rounds; medians. Every page \
         was first checked against OFFSET's rows.\n",
        took.as_secs_f64()
    );
    let _ = writeln!(
        s,
        "| shape | depth | keyset | i-love-jesus | i-love-jesus / keyset | OFFSET | OFFSET / keyset |"
    );
    let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|");
    for run in runs {
        for &(depth, k, p, o) in &run.depths {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {:.2} | {} | {:.1} |",
                run.shape,
                group(depth),
                time(k),
                time(p),
                p / k,
                time(o),
                o / k
            );
        }
    }
    let (ours, theirs, rows) = nulls;
    let _ = writeln!(
        s,
        "\nWhat each pages correctly at all. The NULL row is measured here: a walk over a \
         1,000-row table whose `score` is NULL on every 10th row, `score ASC NULLS LAST, id \
         ASC`, pages of 7, delivered {ours} rows with `keyset` and {theirs} with \
         i-love-jesus (of {rows}); the rest is what each API can express.\n"
    );
    let _ = writeln!(s, "| | keyset | i-love-jesus 0.3 | OFFSET |");
    let _ = writeln!(s, "|---|---|---|---|");
    let _ = writeln!(
        s,
        "| backends | PostgreSQL, SQLite, MySQL/MariaDB | PostgreSQL | all |"
    );
    let _ = writeln!(
        s,
        "| every key column ascending, or every one descending | yes | yes | yes |"
    );
    let _ = writeln!(
        s,
        "| mixed directions (`score DESC, id ASC`) | yes | no (one direction for the whole key) | yes |"
    );
    let _ = writeln!(
        s,
        "| nullable key column | yes, {ours} of {rows} rows (NULLs first or last) | no, {theirs} of {rows} rows: the row comparison with a NULL is unknown | yes |"
    );
    let _ = writeln!(
        s,
        "| a tie-breaker required, checked at compile time | yes | no (a key without one skips or repeats rows at page ends) | no |"
    );
    let _ = writeln!(
        s,
        "| stable under inserts before the page | yes | yes | no (rows shift) |"
    );
    let _ = write!(s, "\n{}", section::PEERS.end);
    s
}
