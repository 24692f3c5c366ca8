//! `shape_benches!`: one keyset shape on one backend: the page at each depth (keyset, and
//! on MariaDB its deferred and forced forms; OFFSET), the physical floor, the library against
//! the same SQL written by hand, and the SQL and plans of the first and the deep page.

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
