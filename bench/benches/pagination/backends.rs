//! The benchmarks of one backend, written once (`shape_benches!`, `walk_fn!`) and
//! instantiated for PostgreSQL, SQLite and MariaDB in the modules below.

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

/// Depth, hand-written and plan measurements of one keyset shape.
macro_rules! shape_benches {
    (
        $c:expr, $conn:expr, $run:expr, $conn_ty:ty, $db:ty, $model:ty, $shape:literal, $order:expr,
        lead: $lead:ident as $lead_bind:ident, id_before: $idcmp:ident, same_direction: $same:expr,
        offset: $with_offset:expr, overhead: $with_overhead:expr, per_level: $per_level:expr,
        index: $index:literal
    ) => {{
        use diesel::prelude::*;
        use keyset_diesel::{Cursor, KeysetBackend, PaginateDsl};
        use $crate::backends::{fast, slow, DEEP, DEPTHS, OVERHEAD_DEPTH, PAGE};
        use $crate::data::BIG_TENANT;
        use $crate::handwritten::{page_binds, same_statement, seek_binds, sql_text, Bind};
        use $crate::results::{DepthRow, Measure, OverheadRow, PlanEntry};
        use $crate::schema::bench_rows;

        let c: &mut criterion::Criterion = $c;
        let conn: &mut $conn_ty = $conn;
        let run: &mut $crate::results::BackendRun = $run;
        let name = run.name;
        let shape: &'static str = $shape;
        let deferred_default = <$db as KeysetBackend>::DEFERRED_JOIN;
        let seek_form = $crate::handwritten::SeekForm::of::<$db>($same);
        let base = || {
            bench_rows::table
                .filter(bench_rows::tenant.eq(BIG_TENANT))
                .select(<$model>::as_select())
        };
        let offset_query = |depth: u64| {
            base()
                .order($order)
                .limit(i64::from(PAGE) + 1)
                .offset(depth as i64)
        };
        let ids = |rows: &[$model]| rows.iter().map(|r| r.id).collect::<Vec<i64>>();
        let started = std::time::Instant::now();

        // The row before each depth (not timed), the cursor a client would hold there, and
        // the expected page after it, from one OFFSET query per depth.
        let mut rows: Vec<(u64, Option<$model>)> = Vec::new();
        let mut ties = Vec::new();
        for &depth in DEPTHS {
            let mut found = base()
                .order($order)
                .limit(i64::from(PAGE) + 2)
                .offset(depth.saturating_sub(1) as i64)
                .load::<$model>(conn)
                .expect("cursor row and page");
            let row = (depth > 0).then(|| found.remove(0));
            let want = ids(&found[..PAGE as usize]);
            // Every measured page is the right one, in both forms.
            let cursor = row.as_ref().map(Cursor::after_row);
            let page = base()
                .paginate_after(cursor.clone())
                .seek_per_level($per_level)
                .page_size(PAGE)
                .load_page(conn)
                .expect("page");
            assert_eq!(ids(&page.items), want, "{name} {shape} depth {depth}");
            assert!(page.has_more());
            for deferred in [false, true] {
                let other = base()
                    .paginate_after(cursor.clone())
                    .seek_per_level($per_level)
                    .page_size(PAGE)
                    .deferred_join(deferred)
                    .load_page(conn)
                    .expect("direct or deferred page");
                assert_eq!(
                    ids(&other.items),
                    want,
                    "{name} {shape} deferred {deferred} depth {depth}"
                );
            }
            let forced = base()
                .paginate_after(cursor.clone())
                .seek_per_level($per_level)
                .page_size(PAGE)
                .force_index($index)
                .load_page(conn)
                .expect("forced page");
            assert_eq!(
                ids(&forced.items),
                want,
                "{name} {shape} force_index depth {depth}"
            );
            ties.push(row.as_ref().map(|r| {
                bench_rows::table
                    .filter(bench_rows::tenant.eq(BIG_TENANT))
                    .filter(bench_rows::$lead.eq(r.$lead))
                    .filter(bench_rows::id.$idcmp(r.id))
                    .count()
                    .get_result::<i64>(conn)
                    .expect("ties")
            }));
            rows.push((depth, row));
        }
        eprintln!(
            "[bench] {name} {shape}: cursors and checks in {:.1?}",
            started.elapsed()
        );

        // 1. One page at each depth: keyset (and the direct form where the default is a
        //    deferred join), then OFFSET.
        let first_row = run.depth.len();
        let keyset_group = format!("{name}_{shape}_keyset");
        let mut g = c.benchmark_group(&keyset_group);
        fast(&mut g);
        for ((depth, row), ties_before) in rows.iter().zip(&ties) {
            let cursor = row.as_ref().map(Cursor::after_row);
            let keyset = Measure::new(&keyset_group, "keyset", depth);
            g.bench_function(keyset.id(), |b| {
                b.iter(|| {
                    base()
                        .paginate_after(cursor.clone())
                        .seek_per_level($per_level)
                        .page_size(PAGE)
                        .load_page(&mut *conn)
                        .expect("page")
                })
            });
            run.depth.push(DepthRow {
                shape,
                depth: *depth,
                keyset,
                direct: None,
                forced: None,
                offset: None,
                ties_before: *ties_before,
            });
        }
        g.finish();
        // The deferred join (the default on MySQL/MariaDB when no index serving the seek is
        // found; slow sampling, as it was once slow at some depths).
        if deferred_default {
            let direct_group = format!("{name}_{shape}_deferred");
            let mut g = c.benchmark_group(&direct_group);
            slow(&mut g);
            for (i, (depth, row)) in rows.iter().enumerate().filter(|(_, (d, _))| *d > 0) {
                let cursor = row.as_ref().map(Cursor::after_row);
                let mut direct = Measure::new(&direct_group, "deferred", depth);
                $crate::backends::bench_slow(&mut g, &mut direct, || {
                    base()
                        .paginate_after(cursor.clone())
                        .seek_per_level($per_level)
                        .page_size(PAGE)
                        .deferred_join(true)
                        .load_page(&mut *conn)
                        .expect("deferred page")
                });
                run.depth[first_row + i].direct = Some(direct);
            }
            g.finish();
            // The direct form with the keyset's index named (`.force_index`).
            let forced_group = format!("{name}_{shape}_forced");
            let mut g = c.benchmark_group(&forced_group);
            fast(&mut g);
            for (i, (depth, row)) in rows.iter().enumerate() {
                let cursor = row.as_ref().map(Cursor::after_row);
                let mut forced = Measure::new(&forced_group, "forced", depth);
                $crate::backends::bench_slow(&mut g, &mut forced, || {
                    base()
                        .paginate_after(cursor.clone())
                        .seek_per_level($per_level)
                        .page_size(PAGE)
                        .force_index($index)
                        .load_page(&mut *conn)
                        .expect("forced page")
                });
                run.depth[first_row + i].forced = Some(forced);
            }
            g.finish();
        }
        if $with_offset {
            let offset_group = format!("{name}_{shape}_offset");
            let mut g = c.benchmark_group(&offset_group);
            slow(&mut g);
            for (i, &depth) in DEPTHS.iter().enumerate() {
                let mut offset = Measure::new(&offset_group, "offset", depth);
                $crate::backends::bench_slow(&mut g, &mut offset, || {
                    offset_query(depth)
                        .load::<$model>(&mut *conn)
                        .expect("offset page")
                });
                run.depth[first_row + i].offset = Some(offset);
            }
            g.finish();
        }

        // 1b. The physical floor: the deep page's 21 rows (the page and its look-ahead row)
        //     read by one range scan on the primary key, where they are one range of ids of
        //     the tenant (the rows of `at` order are; `score` order scatters them).
        if $with_offset {
            let deep = offset_query(DEEP)
                .load::<$model>(conn)
                .expect("deep page rows");
            let want = ids(&deep);
            let (lo, hi) = (
                want.iter().copied().min().expect("rows"),
                want.iter().copied().max().expect("rows"),
            );
            let ascending = want.windows(2).all(|w| w[0] < w[1]);
            let descending = want.windows(2).all(|w| w[0] > w[1]);
            // Few ids between: the range holds the page and a few rows of other tenants.
            let one_range = (ascending || descending) && hi - lo < 4 * i64::from(PAGE + 1);
            let in_range = || {
                bench_rows::table
                    .filter(bench_rows::tenant.eq(BIG_TENANT))
                    .filter(bench_rows::id.between(lo, hi))
                    .select(<$model>::as_select())
            };
            let group_name = format!("{name}_{shape}_floor");
            let measure = if one_range {
                let check = if ascending {
                    in_range().order(bench_rows::id.asc()).load::<$model>(conn)
                } else {
                    in_range().order(bench_rows::id.desc()).load::<$model>(conn)
                }
                .expect("floor rows");
                assert_eq!(
                    ids(&check),
                    want,
                    "{name} {shape}: the floor reads the page's rows"
                );
                let floor = Measure::new(&group_name, "floor", DEEP);
                let mut g = c.benchmark_group(&group_name);
                fast(&mut g);
                g.bench_function(floor.id(), |b| {
                    if ascending {
                        b.iter(|| {
                            in_range()
                                .order(bench_rows::id.asc())
                                .load::<$model>(&mut *conn)
                                .expect("floor")
                        })
                    } else {
                        b.iter(|| {
                            in_range()
                                .order(bench_rows::id.desc())
                                .load::<$model>(&mut *conn)
                                .expect("floor")
                        })
                    }
                });
                g.finish();
                Some(floor)
            } else {
                None
            };
            run.floors.push($crate::results::FloorRow {
                shape,
                ids: (lo, hi),
                descending,
                floor: measure,
            });
        }

        // 2. The library against the same SQL and binds written by hand.
        if $with_overhead {
            let row = rows
                .iter()
                .find(|(d, _)| *d == OVERHEAD_DEPTH)
                .and_then(|(_, r)| r.clone())
                .expect("overhead cursor row");
            let cursor = Cursor::after_row(&row);
            let variants: &[(Option<bool>, &'static str)] = if deferred_default {
                &[(None, "default"), (Some(true), "deferred")]
            } else {
                &[(None, "default")]
            };
            for &(deferred, variant) in variants {
                // The direct form on MySQL/MariaDB can be slow: slow sampling.
                let group = match deferred {
                    None => format!("{name}_overhead"),
                    Some(_) => format!("{name}_overhead_{variant}"),
                };
                let mut g = c.benchmark_group(&group);
                if deferred.is_none() {
                    fast(&mut g);
                } else {
                    slow(&mut g);
                }
                let paginated = || {
                    let p = base()
                        .paginate_after(Some(cursor.clone()))
                        .seek_per_level($per_level)
                        .page_size(PAGE);
                    match deferred {
                        Some(d) => p.deferred_join(d),
                        None => p,
                    }
                };
                // On MySQL/MariaDB the default page names the index it learned: the same
                // statement as `.force_index(..)` (checked), which the hand-written SQL is.
                let learned = deferred_default && deferred.is_none();
                let query = if learned {
                    paginated().load_page(conn).expect("learn the index");
                    let forced = paginated().force_index($index);
                    let named = forced.clone().into_query::<$db>().expect("page query");
                    assert_eq!(
                        paginated().debug_sql(&*conn).expect("default sql"),
                        diesel::debug_query::<$db, _>(&named).to_string(),
                        "{name} {shape}: the default names the learned index"
                    );
                    named
                } else {
                    paginated().into_query::<$db>().expect("page query")
                };
                let binds = page_binds::<$db>(
                    BIG_TENANT,
                    seek_binds(Bind::$lead_bind(row.$lead), row.id, seek_form),
                    i64::from(PAGE) + 1,
                    deferred.unwrap_or(deferred_default && !learned),
                );
                let (debug, prepared) = same_statement::<$db, _>(&query, &binds);
                let sql = sql_text(&debug);
                let library = paginated().load_page(conn).expect("library page");
                let by_sql: Vec<$model> = $crate::handwritten::sql_query::<$db>(&sql, &binds)
                    .load(conn)
                    .expect("sql_query");
                let by_prepared: Vec<$model> = prepared.clone().load(conn).expect("prepared");
                assert_eq!(ids(&library.items), ids(&by_sql[..PAGE as usize]));
                assert_eq!(ids(&by_sql), ids(&by_prepared));
                let function = format!("{shape}_{variant}");
                let library = Measure::new(&group, &function, "library");
                let sql_query = Measure::new(&group, &function, "sql_query");
                let prepared_m = Measure::new(&group, &function, "prepared");
                g.bench_function(library.id(), |b| {
                    b.iter(|| paginated().load_page(&mut *conn).expect("page"))
                });
                g.bench_function(sql_query.id(), |b| {
                    b.iter(|| {
                        $crate::handwritten::sql_query::<$db>(&sql, &binds)
                            .load::<$model>(&mut *conn)
                            .expect("sql_query")
                    })
                });
                g.bench_function(prepared_m.id(), |b| {
                    b.iter(|| {
                        prepared
                            .clone()
                            .load::<$model>(&mut *conn)
                            .expect("prepared")
                    })
                });
                run.overhead.push(OverheadRow {
                    shape,
                    variant,
                    library,
                    sql_query,
                    prepared: prepared_m,
                });
                g.finish();
            }
        }

        // 3. The SQL and plan of the first page and of the deep page (each form), and of
        //    OFFSET at the deep page.
        for (depth, row) in rows.iter().filter(|(d, _)| *d == 0 || *d == DEEP) {
            let cursor = row.as_ref().map(Cursor::after_row);
            // (deferred join, index named, title)
            let variants: &[(Option<bool>, bool, &str)] = if deferred_default && *depth > 0 {
                &[
                    (
                        None,
                        true,
                        ", the default: the index it learned named (the statement of `.force_index(..)`)",
                    ),
                    (Some(true), false, ", deferred join (`.deferred_join(true)`)"),
                    (
                        Some(false),
                        false,
                        ", direct, no index named (`.deferred_join(false)`)",
                    ),
                ]
            } else {
                &[(None, false, "")]
            };
            for &(deferred, forced, variant) in variants {
                let paginated = || {
                    let p = base()
                        .paginate_after(cursor.clone())
                        .seek_per_level($per_level)
                        .page_size(PAGE);
                    let p = if forced { p.force_index($index) } else { p };
                    match deferred {
                        Some(d) => p.deferred_join(d),
                        None => p,
                    }
                };
                let query = paginated().into_query::<$db>().expect("page query");
                let sql = diesel::debug_query::<$db, _>(&query).to_string();
                if forced && deferred.is_none() {
                    let default = base()
                        .paginate_after(cursor.clone())
                        .seek_per_level($per_level)
                        .page_size(PAGE);
                    default.clone().load_page(conn).expect("learn the index");
                    assert_eq!(default.debug_sql(&*conn).expect("default sql"), sql);
                }
                let plan = explain(conn, query);
                let counters = counters(conn, |conn| {
                    paginated().load_page(conn).expect("page");
                });
                let title = if *depth == 0 {
                    "keyset, first page".to_string()
                } else {
                    format!("keyset, depth {depth}{variant}")
                };
                run.plans.push(PlanEntry {
                    shape,
                    title,
                    sql,
                    plan,
                    counters,
                });
            }
        }
        if $with_offset {
            let sql = diesel::debug_query::<$db, _>(&offset_query(DEEP)).to_string();
            let plan = explain(conn, offset_query(DEEP));
            let counters = counters(conn, |conn| {
                offset_query(DEEP)
                    .load::<$model>(conn)
                    .expect("offset page");
            });
            run.plans.push(PlanEntry {
                shape,
                title: format!("OFFSET {DEEP}"),
                sql,
                plan,
                counters,
            });
        }
        eprintln!("[bench] {name} {shape}: done in {:.1?}", started.elapsed());
    }};
}

/// `fn walk(conn, tenant, tenant_rows, page_size) -> WalkRow`: every page of one tenant in
/// `at ASC, id ASC` order, timed, with the peak memory it took.
macro_rules! walk_fn {
    ($conn_ty:ty) => {
        fn walk(
            conn: &mut $conn_ty,
            tenant: i32,
            tenant_rows: i64,
            page_size: u32,
            form: $crate::results::WalkForm,
        ) -> $crate::results::WalkRow {
            use diesel::prelude::*;
            use keyset_diesel::PaginateDsl;
            use $crate::alloc;
            use $crate::results::WalkForm;
            use $crate::schema::{bench_rows, Asc};

            // Each page's time and the depth it started at (allocated before the heap peak
            // is reset, so it is not counted as the walk's memory).
            let mut page_times: Vec<(f64, u64)> =
                Vec::with_capacity((tenant_rows as usize).div_ceil(page_size as usize) + 1);
            let heap_before = alloc::current();
            alloc::reset_peak();
            let rss_reset = alloc::reset_rss_peak();
            let rss_before = alloc::rss();
            let storage_before = storage(conn);
            let started = std::time::Instant::now();
            let mut cursor = None;
            let (mut pages, mut rows) = (0u64, 0u64);
            let mut last: Option<(chrono::NaiveDateTime, i64)> = None;
            let mut stopped = false;
            loop {
                if started.elapsed() > $crate::backends::WALK_LIMIT {
                    stopped = true;
                    break;
                }
                let page_started = std::time::Instant::now();
                let query = || {
                    bench_rows::table
                        .filter(bench_rows::tenant.eq(tenant))
                        .select(Asc::as_select())
                };
                let (items, more) = match form {
                    WalkForm::Keyset | WalkForm::Direct | WalkForm::Forced => {
                        let paginated = query().paginate_after(cursor.take()).page_size(page_size);
                        let paginated = match form {
                            WalkForm::Direct => paginated.deferred_join(true),
                            WalkForm::Forced => paginated.force_index("bench_rows_tenant_at_id"),
                            _ => paginated,
                        };
                        let page = paginated.load_page(conn).expect("walk page");
                        cursor = page.next_cursor();
                        (page.items, cursor.is_some())
                    }
                    WalkForm::Offset => {
                        let mut items = query()
                            .order((bench_rows::at.asc(), bench_rows::id.asc()))
                            .limit(i64::from(page_size) + 1)
                            .offset(rows as i64)
                            .load::<Asc>(conn)
                            .expect("walk OFFSET page");
                        let more = items.len() > page_size as usize;
                        items.truncate(page_size as usize);
                        (items, more)
                    }
                };
                page_times.push((page_started.elapsed().as_nanos() as f64, rows));
                pages += 1;
                rows += items.len() as u64;
                for row in &items {
                    let key = (row.at, row.id);
                    assert!(last.is_none_or(|l| l < key), "walk out of order");
                    last = Some(key);
                }
                if !more {
                    break;
                }
            }
            let seconds = started.elapsed().as_secs_f64();
            let storage_reads = storage_before
                .zip(storage(conn))
                .map(|(b, a)| (a.0.saturating_sub(b.0), a.1.saturating_sub(b.1)));
            let heap_peak = alloc::peak().saturating_sub(heap_before) as u64;
            let rss_peak = match (rss_reset, rss_before, alloc::rss_peak()) {
                (true, Some(before), Some(peak)) => Some(peak.saturating_sub(before)),
                _ => None,
            };
            if !stopped {
                assert_eq!(rows, tenant_rows as u64, "the walk read every row once");
            }
            let mut sorted: Vec<f64> = page_times.iter().map(|p| p.0).collect();
            sorted.sort_by(f64::total_cmp);
            let at = |q: f64| sorted[((sorted.len() - 1) as f64 * q) as usize];
            let slowest = page_times
                .iter()
                .copied()
                .max_by(|a, b| a.0.total_cmp(&b.0))
                .unwrap_or((0.0, 0));
            eprintln!(
                "[bench] walk ({form:?}) tenant {tenant} page size {page_size}: {rows} rows in {seconds:.2} s, heap peak +{heap_peak} B, RSS peak +{rss_peak:?} B, storage reads {storage_reads:?}"
            );
            $crate::results::WalkRow {
                form,
                storage_reads,
                tenant,
                tenant_rows,
                page_size,
                pages,
                rows,
                seconds,
                heap_peak,
                rss_peak,
                stopped,
                page_median: at(0.5),
                page_p99: at(0.99),
                page_max: slowest.0,
                page_max_depth: slowest.1,
            }
        }
    };
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

pub mod postgres {
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
        conn.batch_execute(
            "CREATE SCHEMA IF NOT EXISTS keyset_bench; SET search_path TO keyset_bench",
        )
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
}

pub mod sqlite {
    use diesel::prelude::*;
    use diesel::query_builder::QueryFragment;
    use diesel::sql_types::{Integer, Text};
    use diesel::sqlite::{Sqlite, SqliteConnection};

    use crate::handwritten::Explain;
    use crate::results::BackendRun;

    #[derive(QueryableByName)]
    struct One {
        #[diesel(sql_type = Text)]
        v: String,
    }

    fn one(conn: &mut SqliteConnection, sql: &str) -> String {
        diesel::sql_query(sql)
            .get_result::<One>(conn)
            .map(|r| r.v)
            .unwrap_or_else(|e| format!("({e})"))
    }

    fn explain<Q: QueryFragment<Sqlite>>(conn: &mut SqliteConnection, query: Q) -> String {
        Explain::<Q, (Integer, Integer, Integer, Text)>::new("EXPLAIN QUERY PLAN", query)
            .load::<(i32, i32, i32, String)>(conn)
            .expect("explain query plan")
            .into_iter()
            .map(|(_, _, _, detail)| detail)
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn counters(
        conn: &mut SqliteConnection,
        run: impl FnOnce(&mut SqliteConnection),
    ) -> Option<String> {
        run(conn);
        None
    }

    /// Storage reads are counted on MariaDB only.
    fn storage(_: &mut SqliteConnection) -> Option<(u64, u64)> {
        None
    }

    walk_fn!(SqliteConnection);

    pub fn run(c: &mut criterion::Criterion) -> BackendRun {
        let path = crate::bench_dir().join("bench.sqlite3");
        let mut conn = SqliteConnection::establish(&path.to_string_lossy()).expect("SQLite file");
        let mut run = BackendRun {
            name: "sqlite",
            ..BackendRun::default()
        };
        run.load = crate::load(&mut conn, crate::data::load_sqlite);
        run.version = format!(
            "SQLite {} (bundled)",
            one(&mut conn, "SELECT sqlite_version() AS v")
        );
        run.settings
            .push(("file".to_string(), path.display().to_string()));
        for pragma in ["page_size", "cache_size", "journal_mode"] {
            let value = one(
                &mut conn,
                &format!("SELECT CAST({pragma} AS TEXT) AS v FROM pragma_{pragma}()"),
            );
            run.settings.push((pragma.to_string(), value));
        }
        backend_run!(c, &mut conn, &mut run, SqliteConnection, Sqlite);
        run
    }
}

pub mod mysql {
    use diesel::connection::SimpleConnection;
    use diesel::deserialize::FromSql;
    use diesel::mysql::{Mysql, MysqlConnection, MysqlValue};
    use diesel::prelude::*;
    use diesel::query_builder::QueryFragment;
    use diesel::sql_types::{BigInt, Nullable, Text};

    use crate::handwritten::Explain;
    use crate::results::BackendRun;

    pub fn url() -> String {
        std::env::var("KEYSET_MYSQL_URL")
            .unwrap_or_else(|_| "mysql://root@127.0.0.1:3306".to_string())
    }

    #[derive(QueryableByName)]
    struct One {
        #[diesel(sql_type = Text)]
        v: String,
    }

    fn one(conn: &mut MysqlConnection, sql: &str) -> String {
        diesel::sql_query(sql)
            .get_result::<One>(conn)
            .map(|r| r.v)
            .unwrap_or_else(|e| format!("({e})"))
    }

    /// One cell of EXPLAIN's output, whatever type the server sends it as (MariaDB sends
    /// some numeric columns as strings through the binary protocol).
    struct Cell(String);

    impl FromSql<Text, Mysql> for Cell {
        fn from_sql(value: MysqlValue<'_>) -> diesel::deserialize::Result<Self> {
            use diesel::mysql::MysqlType as T;
            match value.value_type() {
                T::Tiny
                | T::UnsignedTiny
                | T::Short
                | T::UnsignedShort
                | T::Long
                | T::UnsignedLong
                | T::LongLong
                | T::UnsignedLongLong => Ok(Cell(
                    <i64 as FromSql<BigInt, Mysql>>::from_sql(value)?.to_string(),
                )),
                _ => Ok(Cell(<String as FromSql<Text, Mysql>>::from_sql(value)?)),
            }
        }
    }

    #[derive(QueryableByName)]
    struct ExplainRow {
        #[diesel(sql_type = Nullable<Text>)]
        id: Option<Cell>,
        #[diesel(sql_type = Nullable<Text>)]
        select_type: Option<Cell>,
        #[diesel(sql_type = Nullable<Text>)]
        table: Option<Cell>,
        #[diesel(sql_type = Nullable<Text>)]
        r#type: Option<Cell>,
        #[diesel(sql_type = Nullable<Text>)]
        possible_keys: Option<Cell>,
        #[diesel(sql_type = Nullable<Text>)]
        key: Option<Cell>,
        #[diesel(sql_type = Nullable<Text>)]
        key_len: Option<Cell>,
        #[diesel(sql_type = Nullable<Text>)]
        r#ref: Option<Cell>,
        #[diesel(sql_type = Nullable<Text>)]
        rows: Option<Cell>,
        #[diesel(sql_type = Nullable<Text>)]
        #[diesel(column_name = Extra)]
        extra: Option<Cell>,
    }

    fn explain<Q: QueryFragment<Mysql>>(conn: &mut MysqlConnection, query: Q) -> String {
        let rows: Vec<ExplainRow> = diesel::RunQueryDsl::load(
            Explain::<Q, diesel::sql_types::Untyped>::new("EXPLAIN", query),
            conn,
        )
        .expect("explain");
        let text = |v: &Option<Cell>| {
            v.as_ref()
                .map_or_else(|| "NULL".to_string(), |c| c.0.clone())
        };
        let num = text;
        let mut table = vec![[
            "id",
            "select_type",
            "table",
            "type",
            "possible_keys",
            "key",
            "key_len",
            "ref",
            "rows",
            "Extra",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()];
        for r in &rows {
            table.push(vec![
                num(&r.id),
                text(&r.select_type),
                text(&r.table),
                text(&r.r#type),
                text(&r.possible_keys),
                text(&r.key),
                text(&r.key_len),
                text(&r.r#ref),
                num(&r.rows),
                text(&r.extra),
            ]);
        }
        crate::backends::columns(&table)
    }

    #[derive(QueryableByName)]
    struct Status {
        #[diesel(sql_type = Text)]
        #[diesel(column_name = Variable_name)]
        name: String,
        #[diesel(sql_type = Text)]
        #[diesel(column_name = Value)]
        value: String,
    }

    /// The Handler counters of `run` (FLUSH STATUS first): the work MariaDB did.
    fn counters(
        conn: &mut MysqlConnection,
        run: impl FnOnce(&mut MysqlConnection),
    ) -> Option<String> {
        conn.batch_execute("FLUSH STATUS").ok()?;
        run(conn);
        let rows: Vec<Status> = diesel::sql_query("SHOW SESSION STATUS LIKE 'Handler\\_%'")
            .load(conn)
            .ok()?;
        Some(
            rows.iter()
                .filter(|r| {
                    r.name.starts_with("Handler_read")
                        || r.name == "Handler_icp_attempts"
                        || r.name == "Handler_icp_match"
                })
                .filter(|r| r.value != "0")
                .map(|r| format!("{}={}", r.name, r.value))
                .collect::<Vec<_>>()
                .join(" "),
        )
    }

    /// The server's InnoDB buffer pool counters: pages read from storage
    /// (`Innodb_buffer_pool_reads`) and page requests (`Innodb_buffer_pool_read_requests`).
    /// Server-wide: nothing else uses the server during the run.
    fn storage(conn: &mut MysqlConnection) -> Option<(u64, u64)> {
        let rows: Vec<Status> =
            diesel::sql_query("SHOW GLOBAL STATUS LIKE 'Innodb\\_buffer\\_pool\\_read%'")
                .load(conn)
                .ok()?;
        let get = |name: &str| {
            rows.iter()
                .find(|r| r.name == name)
                .and_then(|r| r.value.parse::<u64>().ok())
        };
        Some((
            get("Innodb_buffer_pool_reads")?,
            get("Innodb_buffer_pool_read_requests")?,
        ))
    }

    walk_fn!(MysqlConnection);

    pub fn run(c: &mut criterion::Criterion) -> BackendRun {
        let base = url();
        let admin_url = format!("{}/test", base.trim_end_matches('/'));
        let mut admin = MysqlConnection::establish(&admin_url).unwrap_or_else(|e| {
            panic!(
                "MariaDB/MySQL is not reachable at {admin_url} ({e}): run `bash scripts/setup.sh`"
            )
        });
        admin
            .batch_execute("CREATE DATABASE IF NOT EXISTS keyset_bench")
            .expect("database keyset_bench");
        drop(admin);
        let url = format!("{}/keyset_bench", base.trim_end_matches('/'));
        let mut conn = MysqlConnection::establish(&url).expect("keyset_bench database");
        let mut run = BackendRun {
            name: "mysql",
            ..BackendRun::default()
        };
        run.load = crate::load(&mut conn, crate::data::load_mysql);
        run.version = one(&mut conn, "SELECT CAST(VERSION() AS CHAR) AS v");
        for setting in [
            "innodb_buffer_pool_size",
            "innodb_flush_method",
            "innodb_flush_log_at_trx_commit",
            "optimizer_search_depth",
        ] {
            let value = one(&mut conn, &format!("SELECT CAST(@@{setting} AS CHAR) AS v"));
            run.settings.push((setting.to_string(), value));
        }
        backend_run!(c, &mut conn, &mut run, MysqlConnection, Mysql);
        run
    }
}
