//! `walk_fn!`: a full walk of one tenant, timed page by page, with the memory and storage
//! reads it took.

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
