//! The benchmarks of one backend, written once and instantiated for PostgreSQL, SQLite and
//! MariaDB (`postgres.rs`, `sqlite.rs`, `mysql.rs`): the settings and helpers they share,
//! and `backend_run!`, the shapes, walks and notes of one backend (`shape_benches!` in
//! `shapes.rs`, `walk_fn!` in `walk.rs`).

// The macros first: a `macro_rules!` is in scope from its definition on, and the backend
// modules at the end of this file expand them.
#[macro_use]
mod shapes;
#[macro_use]
mod walk;

use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, SamplingMode};

/// Rows skipped before the page: 0 is the first page.
pub const DEPTHS: &[u64] = &[0, 1_000, 10_000, 100_000, 1_000_000];
/// Rows per page.
pub const PAGE: u32 = 20;
/// The depth of the library-vs-hand-written comparison (any later page has the same SQL).
pub const OVERHEAD_DEPTH: u64 = 100_000;
/// The deep page of the plans.
pub const DEEP: u64 = 1_000_000;

/// `KEYSET_BENCH_QUICK=1`: a smoke run with tiny measurement times (for developing the
/// benchmarks; the report then says its figures are not to be used).
pub fn quick() -> bool {
    std::env::var("KEYSET_BENCH_QUICK").is_ok_and(|v| v == "1")
}

/// Fast cases (a few hundred microseconds at most).
pub fn fast(g: &mut BenchmarkGroup<'_, WallTime>) {
    if quick() {
        g.sample_size(10)
            .warm_up_time(Duration::from_millis(50))
            .measurement_time(Duration::from_millis(200));
    } else {
        g.sample_size(30)
            .warm_up_time(Duration::from_millis(700))
            .measurement_time(Duration::from_secs(2));
    }
}

/// OFFSET cases, up to seconds per iteration: 10 samples of equal iteration counts.
pub fn slow(g: &mut BenchmarkGroup<'_, WallTime>) {
    g.sampling_mode(SamplingMode::Flat).sample_size(10);
    if quick() {
        g.warm_up_time(Duration::from_millis(50))
            .measurement_time(Duration::from_millis(200));
    } else {
        g.warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2));
    }
}

/// A walk still running after this long is stopped (and reported as stopped).
pub const WALK_LIMIT: Duration = Duration::from_secs(150);

/// A single run longer than this is timed by hand (see [`bench_slow`]).
pub const SINGLE_RUN_LIMIT: Duration = Duration::from_secs(1);
/// Timed runs of a case measured by hand.
pub const MANUAL_RUNS: usize = 3;

/// Benchmarks `f` with criterion, unless one run takes longer than [`SINGLE_RUN_LIMIT`]:
/// criterion needs at least 10 samples (11 runs with the warm-up), so such a case gets one
/// warm-up run and [`MANUAL_RUNS`] timed runs, and the median of those is recorded in
/// `measure` (the report marks it).
pub fn bench_slow<O>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    measure: &mut crate::results::Measure,
    mut f: impl FnMut() -> O,
) {
    let started = std::time::Instant::now();
    std::hint::black_box(f());
    if started.elapsed() <= SINGLE_RUN_LIMIT {
        g.bench_function(measure.id(), |b| b.iter(&mut f));
        return;
    }
    let mut runs: Vec<f64> = (0..MANUAL_RUNS)
        .map(|_| {
            let started = std::time::Instant::now();
            std::hint::black_box(f());
            started.elapsed().as_nanos() as f64
        })
        .collect();
    runs.sort_by(f64::total_cmp);
    let median = runs[runs.len() / 2];
    eprintln!(
        "[bench] {}/{}/{}: median of {MANUAL_RUNS} runs by hand: {:.3} s ({runs:?} ns)",
        measure.group,
        measure.function,
        measure.parameter,
        median / 1e9
    );
    measure.manual = Some(median);
}

/// Aligns rows of cells into columns.
pub fn columns(rows: &[Vec<String>]) -> String {
    let n = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..n)
        .map(|i| {
            rows.iter()
                .map(|r| r.get(i).map_or(0, |c| c.chars().count()))
                .max()
                .unwrap_or(0)
        })
        .collect();
    rows.iter()
        .map(|r| {
            r.iter()
                .enumerate()
                .map(|(i, c)| format!("{c:<w$}", w = widths[i]))
                .collect::<Vec<_>>()
                .join(" | ")
                .trim_end()
                .to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The shapes, walks and notes of one backend.
macro_rules! backend_run {
    ($c:expr, $conn:expr, $run:expr, $conn_ty:ty, $db:ty) => {{
        use $crate::data::{BIG_TENANT, BIG_TENANT_ROWS, SMALL_TENANT, SMALL_TENANT_ROWS};
        use $crate::schema::{Asc, Desc, LongTies, Mixed};
        let c: &mut criterion::Criterion = $c;
        let conn: &mut $conn_ty = $conn;
        let run: &mut $crate::results::BackendRun = $run;
        let shapes = std::env::var("KEYSET_BENCH_SKIP_SHAPES").map_or(true, |v| v != "1");
        if shapes {
        shape_benches!(c, conn, run, $conn_ty, $db, Asc, "asc",
            (bench_rows::at.asc(), bench_rows::id.asc()),
            lead: at as Ts, id_before: le, same_direction: true, offset: true, overhead: true,
            per_level: false,
            index: "bench_rows_tenant_at_id");
        shape_benches!(c, conn, run, $conn_ty, $db, Desc, "desc",
            (bench_rows::at.desc(), bench_rows::id.desc()),
            lead: at as Ts, id_before: ge, same_direction: true, offset: true, overhead: true,
            per_level: false,
            index: "bench_rows_tenant_at_id");
        shape_benches!(c, conn, run, $conn_ty, $db, Mixed, "mixed",
            (bench_rows::score.desc(), bench_rows::id.asc()),
            lead: score as Int, id_before: le, same_direction: false, offset: true, overhead: true,
            per_level: false,
            index: "bench_rows_tenant_score_id");
        shape_benches!(c, conn, run, $conn_ty, $db, LongTies, "long_ties",
            (bench_rows::grade.desc(), bench_rows::id.asc()),
            lead: grade as Int, id_before: le, same_direction: false, offset: false, overhead: false,
            per_level: false, index: "bench_rows_tenant_grade_id");
        shape_benches!(c, conn, run, $conn_ty, $db, LongTies, "long_ties_per_level",
            (bench_rows::grade.desc(), bench_rows::id.asc()),
            lead: grade as Int, id_before: le, same_direction: false, offset: false, overhead: false,
            per_level: true, index: "bench_rows_tenant_grade_id");
        }
        use $crate::results::WalkForm;
        for page_size in [20, 1000] {
            for (tenant, rows) in [(SMALL_TENANT, SMALL_TENANT_ROWS), (BIG_TENANT, BIG_TENANT_ROWS)] {
                run.walks.push(walk(conn, tenant, rows, page_size, WalkForm::Keyset));
            }
        }
        // Where the default is a deferred join: the big tenant at page size 20 in the direct
        // form and as OFFSET pages, with the same storage counters.
        if <$db as keyset_diesel::KeysetBackend>::DEFERRED_JOIN {
            for form in [WalkForm::Forced, WalkForm::Direct, WalkForm::Offset] {
                run.walks.push(walk(conn, BIG_TENANT, BIG_TENANT_ROWS, 20, form));
            }
        }
    }};
}

// Each backend after the macros it expands.
pub mod mysql;
pub mod postgres;
pub mod sqlite;
