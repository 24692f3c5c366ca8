//! The async path (`keyset_diesel::async_`, feature `diesel-async`): [`AsyncDb`] pairs a
//! test's blocking connection (set-up, data loads and the oracle's plain `ORDER BY` queries)
//! with a diesel-async connection to the same database, through which every page loads. The
//! shared checks (the oracle property, the seed feed, the Chinook walks) then run unchanged on
//! the pair: [`crate::models::Walk`] is implemented for it by `impl_walk!`.
//!
//! A server that is down fails the suite, as for the blocking suites.

/// The async suite of one backend: the oracle property (`KEYSET_ASYNC_ORACLE_CASES`, default
/// 64 cases), the seed feed, the SQL of every page shape against the blocking path's, and a
/// deadpool pool. The Chinook walks are in each backend's file (each loads Chinook its own way).
#[macro_export]
macro_rules! async_suite {
    ($db:ty, $pair:ty, $backend:ty) => {
        mod async_path {

            /// The oracle property through `keyset_diesel::async_`.
            #[test]
            fn async_oracle_property_random_keysets_ties_and_page_sizes() {
                $crate::property::oracle_property_on(
                    <$pair>::open(),
                    $crate::async_db::async_oracle_cases(),
                    " (diesel-async)",
                    &<$pair as $crate::models::BackendRowModels>::row_models(),
                    |db, model, scenario| {
                        $crate::models::BackendRowModels::run_row_model(db, model, scenario)
                    },
                );
            }

            /// The seed feed (e101..e103, e104..e106) through `keyset_diesel::async_`.
            #[test]
            fn async_seed_feed_pages_are_e101_to_e103_then_e104_to_e106() {
                let mut db = <$pair>::open();
                $crate::cases::feed::seed_feed_pages(&mut db);
            }

            /// Every page shape: the async path runs the blocking path's statement, which is
            /// `into_query`'s.
            #[test]
            fn async_path_runs_the_same_sql_as_the_blocking_path_for_every_page_shape() {
                $crate::async_sql_shapes!($db, $pair, $backend);
            }

            /// Keysets sharing one Diesel query type keep their own cached statements on one
            /// diesel-async connection.
            #[test]
            fn async_keysets_sharing_a_query_type_keep_their_own_cached_statements() {
                $crate::cases::ordering::keysets_sharing_a_query_type_on(&mut <$pair>::open());
            }

            /// A unique text tie-breaker under an exact collation holding `bob`, `Bob`, `x`,
            /// `x  `: the page asks the database about each fold-equal pair through
            /// diesel-async too, and every walk equals the database's `ORDER BY`.
            #[test]
            fn async_exact_collation_text_pages_without_an_option() {
                $crate::loud::collation::exact_collation_text_pages_through_diesel_async(
                    <$pair>::open(),
                );
            }

            /// `max_bytes_in_sql` through `keyset_diesel::async_`: the same walks, each page
            /// loading only the rows that fit.
            #[test]
            fn async_sql_byte_budget_fetches_only_the_rows_that_fit() {
                $crate::edges::sql_byte_budget_fetches_only_the_rows_that_fit_on(<$pair>::open());
            }

            /// `async_::Walk` (its pages and its rows as streams, with and without a
            /// high-water mark) over the plan rows with heavy ties, mixed directions and NULL
            /// keys: every walk equals the plain `ORDER BY`, and the blocking `Walk`'s.
            #[test]
            fn async_walk_streams_equal_order_by_with_heavy_ties_and_nulls() {
                $crate::async_walk_oracle!($db, $pair);
            }

            /// `keyset_diesel::async_::explain` (and `explain_analyze`) on the deep page of the
            /// plan rows: the same statement, the same reads, the same verdict and index recipe
            /// as the blocking plan check, a seek on the migrations' index; on a table without
            /// that index the async check reports no seek and names it.
            #[test]
            fn async_plan_check_reads_the_same_plan_as_the_blocking_one() {
                $crate::async_plan_check!($db, $pair);
            }

            /// Pages on pooled connections (deadpool objects, through `DerefMut`).
            #[test]
            fn async_pages_load_on_deadpool_pooled_connections() {
                $crate::async_pooled!($db, $pair);
            }
        }
    };
}

/// One page shape read both ways: the blocking path (`keyset_diesel::PaginateDsl`) on the
/// pair's blocking connection and the async path (`keyset_diesel::async_::PaginateDsl`) on its
/// async connection, `|$p| $configure` setting the options on either `Paginated`. Checks that
/// both `into_query`s print the same SQL and binds, that each path ran exactly that one
/// statement, and that the pages are equal; returns the SQL.
#[macro_export]
macro_rules! async_same_sql {
    ($db:ident, $backend:ty, $logs:expr, $model:ty, $boxed:expr, $before:expr, $cursor:expr,
     |$p:ident| $configure:expr) => {{
        use diesel::prelude::*;
        use $crate::OracleDb as _;
        use $crate::TestDb as _;
        let (blocking, async_) = $logs;
        let cursor: Option<keyset_diesel::Cursor<$model>> = $cursor;
        macro_rules! read {
            ($query:expr) => {{
                macro_rules! blocking {
                    () => {{
                        let $p = if $before {
                            keyset_diesel::PaginateDsl::paginate_before($query, cursor.clone())
                        } else {
                            keyset_diesel::PaginateDsl::paginate_after($query, cursor.clone())
                        };
                        $configure
                    }};
                }
                macro_rules! nonblocking {
                    () => {{
                        let $p = if $before {
                            keyset_diesel::async_::PaginateDsl::paginate_before(
                                $query,
                                cursor.clone(),
                            )
                        } else {
                            keyset_diesel::async_::PaginateDsl::paginate_after(
                                $query,
                                cursor.clone(),
                            )
                        };
                        $configure
                    }};
                }
                // A boxed query is not `Clone`: each `Paginated` is built afresh.
                let sync_sql = diesel::debug_query::<$backend, _>(
                    &blocking!().into_query::<$backend>().expect("page query"),
                )
                .to_string();
                let async_sql = diesel::debug_query::<$backend, _>(
                    &nonblocking!().into_query::<$backend>().expect("page query"),
                )
                .to_string();
                assert_eq!(async_sql, sync_sql, "into_query: async and blocking");
                let sync_paginated = blocking!();
                let async_paginated = nonblocking!();
                blocking.take();
                async_.take();
                let sync_page = sync_paginated.load_page($db.db()).expect("blocking page");
                let (runtime, conn) = $db.runtime_and_conn();
                let async_page = runtime
                    .block_on(async_paginated.load_page(conn))
                    .expect("async page");
                // The SQL text; the binds print per connection (SyncConnectionWrapper shows
                // SQLite's bind values by their variant), and the pages below compare them.
                let sql_text = |s: &String| {
                    s.split(" -- binds: ")
                        .next()
                        .unwrap_or_default()
                        .to_string()
                };
                let expected = [sql_text(&sync_sql)];
                let ran: Vec<String> = blocking.take().iter().map(sql_text).collect();
                assert_eq!(
                    ran, expected,
                    "the blocking path ran into_query's statement"
                );
                let ran: Vec<String> = async_.take().iter().map(sql_text).collect();
                assert_eq!(ran, expected, "the async path ran into_query's statement");
                assert_eq!(async_page.items, sync_page.items, "{sync_sql}: rows");
                assert_eq!(
                    async_page.has_more(),
                    sync_page.has_more(),
                    "{sync_sql}: has_more"
                );
                assert_eq!(
                    async_page.next_cursor(),
                    sync_page.next_cursor(),
                    "{sync_sql}: next_cursor"
                );
                assert_eq!(async_page.has_previous_page, sync_page.has_previous_page);
                assert_eq!(async_page.has_next_page, sync_page.has_next_page);
                assert_eq!(async_page.start_cursor, sync_page.start_cursor);
                assert_eq!(async_page.end_cursor, sync_page.end_cursor);
                assert_eq!(async_page.total_count, sync_page.total_count);
                assert!(
                    !sync_page.items.is_empty(),
                    "{sync_sql}: the shape reads rows"
                );
                sync_sql
            }};
        }
        let q = || {
            $crate::schema::keyset_rows::table
                .filter($crate::schema::keyset_rows::tenant.eq(0))
                .select(<$model>::as_select())
        };
        if $boxed {
            read!(q().into_boxed())
        } else {
            read!(q())
        }
    }};
}

/// The body of the SQL comparison test (see [`async_suite!`]): first page, seek, deferred
/// join, union arms (NULL group split and one seek per key level), exact flags (the probe),
/// backward, boxed; each checked by [`async_same_sql!`] and by the shape its SQL must have.
#[macro_export]
macro_rules! async_sql_shapes {
    ($db:ty, $pair:ty, $backend:ty) => {{
        use diesel::prelude::*;
        use keyset_diesel::Cursor;
        use $crate::async_db::Statements;
        use $crate::models::{A_asc__ID_asc, A_desc__ID_asc, NA_asc_nulls_last__ID_asc};
        use $crate::schema::keyset_rows;
        use $crate::OracleDb as _;
        use $crate::TestDb as _;

        let mut db = <$pair>::open();
        let rows: Vec<$crate::Row> = (0..12)
            .map(|i| $crate::Row {
                a: (i % 3) as i32,
                na: (i % 4 != 0).then_some((i % 2) as i32),
                ..$crate::Row::new(i)
            })
            .collect();
        db.db().insert_rows(&rows);
        let logs = (Statements::default(), Statements::default());
        db.record(&logs.0, &logs.1);
        macro_rules! row_5 {
            ($model:ty) => {{
                let row: $model = keyset_rows::table
                    .find(5i64)
                    .select(<$model>::as_select())
                    .first(db.db())
                    .expect("row 5");
                Some(Cursor::after_row(&row))
            }};
        }
        let union = |sql: &str| sql.contains("UNION ALL");
        let deferred = |sql: &str| sql.contains("__keyset_tb");
        let logs = &logs;

        // The first page, forward and backward, plain and boxed.
        for (before, boxed) in [(false, false), (true, false), (false, true)] {
            let sql = $crate::async_same_sql!(
                db,
                $backend,
                logs,
                A_asc__ID_asc,
                boxed,
                before,
                None,
                |p| p.page_size(4)
            );
            assert!(!union(&sql) && !deferred(&sql), "first page: {sql}");
        }
        // One seek after (and before) the cursor, direct and as a deferred join.
        for before in [false, true] {
            for boxed in [false, true] {
                // Direct, as a deferred join, and the backend's default.
                for deferred_join in [Some(false), Some(true), None] {
                    let sql = $crate::async_same_sql!(
                        db,
                        $backend,
                        logs,
                        A_asc__ID_asc,
                        boxed,
                        before,
                        row_5!(A_asc__ID_asc),
                        |p| match deferred_join {
                            Some(on) => p.page_size(3).deferred_join(on),
                            None => p.page_size(3),
                        }
                    );
                    if let Some(on) = deferred_join {
                        assert!(!union(&sql) && deferred(&sql) == on, "{on}: {sql}");
                    }
                }
            }
        }
        // Exact flags: the probe arm, with and without the deferred join, both directions.
        for before in [false, true] {
            for deferred_join in [false, true] {
                let sql = $crate::async_same_sql!(
                    db,
                    $backend,
                    logs,
                    A_asc__ID_asc,
                    false,
                    before,
                    row_5!(A_asc__ID_asc),
                    |p| p
                        .page_size(3)
                        .exact_flags(true)
                        .deferred_join(deferred_join)
                );
                assert!(union(&sql), "exact flags: {sql}");
            }
        }
        // Union arms: the NULL group beyond a non-NULL cursor, and one seek per key level.
        let sql = $crate::async_same_sql!(
            db,
            $backend,
            logs,
            NA_asc_nulls_last__ID_asc,
            false,
            false,
            row_5!(NA_asc_nulls_last__ID_asc),
            |p| p.page_size(3)
        );
        assert!(union(&sql), "NULL group arm: {sql}");
        for boxed in [false, true] {
            for exact in [false, true] {
                let sql = $crate::async_same_sql!(
                    db,
                    $backend,
                    logs,
                    A_desc__ID_asc,
                    boxed,
                    false,
                    row_5!(A_desc__ID_asc),
                    |p| p.page_size(3).seek_per_level(true).exact_flags(exact)
                );
                assert!(union(&sql), "one seek per level: {sql}");
            }
        }
        // The total count, first page (a column of the page statement) and later pages
        // (the union's count row), still one statement; the pages compare `total_count`.
        let total = |sql: &str| sql.contains("__keyset_total") && sql.contains("COUNT(*)");
        for boxed in [false, true] {
            for before in [false, true] {
                let sql = $crate::async_same_sql!(
                    db,
                    $backend,
                    logs,
                    A_asc__ID_asc,
                    boxed,
                    before,
                    None,
                    |p| p.page_size(4).with_total_count()
                );
                assert!(total(&sql) && !union(&sql), "counted first page: {sql}");
                let sql = $crate::async_same_sql!(
                    db,
                    $backend,
                    logs,
                    A_asc__ID_asc,
                    boxed,
                    before,
                    row_5!(A_asc__ID_asc),
                    |p| p.page_size(3).with_total_count()
                );
                assert!(total(&sql) && union(&sql), "counted later page: {sql}");
            }
        }
    }};
}

/// The body of the pool test (see [`async_suite!`]): a deadpool pool of the backend's async
/// connection; pages load on `&mut object` (diesel-async makes the pooled object a connection
/// through `DerefMut`), through a generic function bounded by `keyset_diesel::async_::LoadPage`,
/// and a walk that takes another pooled connection for every page gives the seed feed.
#[macro_export]
macro_rules! async_pooled {
    ($db:ty, $pair:ty) => {{
        use diesel::prelude::*;
        use diesel_async::pooled_connection::deadpool::Pool;
        use diesel_async::pooled_connection::AsyncDieselConnectionManager;
        use keyset_diesel::async_::{LoadPage, PaginateDsl};
        use keyset_diesel::{Keyset, Page};
        use $crate::models::FeedEvent;
        use $crate::schema::events;
        use $crate::OracleDb as _;
        use $crate::TestDb as _;

        async fn first_page<'q, Q, K, Conn>(query: Q, conn: &mut Conn) -> QueryResult<Page<K>>
        where
            K: Keyset,
            Q: LoadPage<'q, Conn, K>,
        {
            query
                .paginate_after(None)
                .page_size(3)
                .load_page(conn)
                .await
        }

        let mut db = <$pair>::open();
        db.db().insert_events(&$crate::cases::feed::feed_events());
        let manager =
            AsyncDieselConnectionManager::<<$db as $crate::async_db::AsyncBackend>::Async>::new(
                db.url(),
            );
        let pool = Pool::builder(manager).max_size(2).build().expect("pool");
        let ids = |page: &Page<FeedEvent>| -> Vec<String> {
            page.items.iter().map(|e| e.event_id.clone()).collect()
        };
        db.block_on(async {
            let mut first = pool.get().await.expect("pooled connection");
            let page = first_page(
                events::table
                    .filter(events::workspace_id.eq("W9"))
                    .select(FeedEvent::as_select()),
                &mut first,
            )
            .await
            .expect("first page");
            assert_eq!(ids(&page), ["e101", "e102", "e103"]);
            // The next page on a second pooled connection (both checked out at once).
            let mut second = pool.get().await.expect("second pooled connection");
            let next: Page<FeedEvent> = events::table
                .filter(events::workspace_id.eq("W9"))
                .select(FeedEvent::as_select())
                .into_boxed()
                .paginate_after(page.next_cursor())
                .page_size(3)
                .load_page(&mut second)
                .await
                .expect("second page");
            assert_eq!(ids(&next), ["e104", "e105", "e106"]);
            assert!(!next.has_more() && next.next_cursor().is_none());
            assert_eq!(pool.status().size, 2, "two pooled connections were used");
            drop((first, second));

            // A walk checking out a connection per page.
            let mut cursor = None;
            let mut walked = Vec::new();
            loop {
                let mut conn = pool.get().await.expect("pooled connection");
                let page: Page<FeedEvent> = events::table
                    .filter(events::workspace_id.eq("W9"))
                    .select(FeedEvent::as_select())
                    .paginate_after(cursor)
                    .page_size(2)
                    .load_page(&mut conn)
                    .await
                    .expect("page");
                walked.extend(ids(&page));
                match page.next_cursor() {
                    Some(next) => cursor = Some(next),
                    None => break,
                }
            }
            assert_eq!(walked, ["e101", "e102", "e103", "e104", "e105", "e106"]);
        });
    }};
}

/// The body of `async_plan_check_reads_the_same_plan_as_the_blocking_one`.
#[macro_export]
macro_rules! async_plan_check {
    ($db:ty, $pair:ty) => {{
        use diesel::prelude::*;
        use keyset_diesel::Cursor;
        use $crate::models::PlanDesc;
        use $crate::schema::plan_rows;
        use $crate::OracleDb as _;
        use $crate::TestDb as _;
        let mut db = <$pair>::open();
        $crate::plans::load_plan_rows(db.db());
        let mysql = <$db as $crate::TestDb>::NAME == "MySQL";
        db.db().exec(if mysql {
            "ANALYZE TABLE plan_rows"
        } else {
            "ANALYZE"
        });
        let id = $crate::plans::deep_id(db.db(), "at DESC, id DESC");
        let row: PlanDesc = plan_rows::table
            .find(id)
            .select(PlanDesc::as_select())
            .first(db.db())
            .expect("deep row");
        let query = || {
            plan_rows::table
                .filter(plan_rows::tenant.eq(1))
                .select(PlanDesc::as_select())
        };
        let cursor = Some(Cursor::after_row(&row));
        for analyze in [false, true] {
            let blocking = {
                use keyset_diesel::PaginateDsl;
                let page = query()
                    .paginate_after(cursor.clone())
                    .page_size($crate::plans::PLAN_PAGE_SIZE);
                if analyze {
                    keyset_diesel::plan::explain_analyze(db.db(), page)
                } else {
                    keyset_diesel::plan::explain(db.db(), page)
                }
                .expect("blocking plan")
            };
            let (runtime, conn) = db.runtime_and_conn();
            let report = runtime
                .block_on(async {
                    use keyset_diesel::async_::PaginateDsl;
                    let page = query()
                        .paginate_after(cursor.clone())
                        .page_size($crate::plans::PLAN_PAGE_SIZE);
                    if analyze {
                        keyset_diesel::async_::explain_analyze(conn, page).await
                    } else {
                        keyset_diesel::async_::explain(conn, page).await
                    }
                })
                .expect("async plan");
            report.assert_seeks();
            assert_eq!(report.sql, blocking.sql);
            assert_eq!(report.index_recipe, blocking.index_recipe);
            assert_eq!(report.not_a_seek, blocking.not_a_seek);
            assert_eq!(report.fetched, blocking.fetched);
            assert_eq!(
                report
                    .reads
                    .iter()
                    .map(|r| (&r.relation, &r.index, &r.access))
                    .collect::<Vec<_>>(),
                blocking
                    .reads
                    .iter()
                    .map(|r| (&r.relation, &r.index, &r.access))
                    .collect::<Vec<_>>(),
                "{report:#?}"
            );
            assert!(
                report
                    .reads
                    .iter()
                    .any(|r| r.index.as_deref() == Some("plan_rows_tenant_at_id")),
                "{report:#?}"
            );
            // An executed plan counts the rows it read, as the blocking one does (MariaDB
            // through its handler counters, read on the async connection).
            assert_eq!(
                report.rows_examined.is_some(),
                blocking.rows_examined.is_some()
            );
            assert_eq!(
                report.handler_reads.is_some(),
                blocking.handler_reads.is_some()
            );
            if mysql && analyze {
                let reads = report.handler_reads.expect("handler counters");
                assert!(reads.index_reads() > 0, "{reads:?}");
            }
        }
        // Without the index: no seek, and the recipe names it.
        db.db().exec(if mysql {
            "DROP INDEX plan_rows_tenant_at_id ON plan_rows"
        } else {
            "DROP INDEX plan_rows_tenant_at_id"
        });
        let (runtime, conn) = db.runtime_and_conn();
        let report = runtime
            .block_on(async {
                use keyset_diesel::async_::PaginateDsl;
                let page = query()
                    .paginate_after(cursor.clone())
                    .page_size($crate::plans::PLAN_PAGE_SIZE);
                keyset_diesel::async_::explain(conn, page).await
            })
            .expect("async plan without the index");
        assert!(!report.seeks(), "{report:#?}");
        assert!(
            report.index_recipe.contains("plan_rows"),
            "{}",
            report.index_recipe
        );
    }};
}

/// The body of `async_walk_streams_equal_order_by_with_heavy_ties_and_nulls`.
#[macro_export]
macro_rules! async_walk_oracle {
    ($db:ty, $pair:ty) => {{
        use diesel::prelude::*;
        use diesel_async::futures_util::TryStreamExt;
        use keyset_diesel::async_;
        use $crate::models::{PlanDesc, PlanMixed, PlanNullable};
        use $crate::schema::plan_rows;
        use $crate::OracleDb as _;
        use $crate::TestDb as _;
        let mut db = <$pair>::open();
        $crate::plans::load_plan_rows_n(db.db(), 3_000);

        macro_rules! check {
            ($model:ty, $order:expr) => {{
                let expected = db.db().ids(&format!(
                    "SELECT id FROM plan_rows WHERE tenant = 1 ORDER BY {}",
                    $order
                ));
                assert_eq!(expected.len(), 1_500);
                let query = || {
                    plan_rows::table
                        .filter(plan_rows::tenant.eq(1))
                        .select(<$model>::as_select())
                };
                for page_size in [7, 50] {
                    let label =
                        format!("{} by {}, pages of {page_size}", stringify!($model), $order);
                    let blocking: Vec<i64> =
                        keyset_diesel::Walk::<$model, _, _>::new(db.db(), query)
                            .page_size(page_size)
                            .map(|page| page.expect("blocking page").items)
                            .flatten()
                            .map(|row| row.id)
                            .collect();
                    assert_eq!(blocking, expected, "blocking walk, {label}");
                    let (runtime, conn) = db.runtime_and_conn();
                    let (pages, rows, marked) = runtime.block_on(async {
                        let pages: Vec<Vec<i64>> =
                            async_::Walk::<$model, _, _>::new(&mut *conn, query)
                                .page_size(page_size)
                                .pages()
                                .map_ok(|page| page.items.iter().map(|row| row.id).collect())
                                .try_collect()
                                .await
                                .expect("async pages");
                        let rows: Vec<i64> = async_::Walk::<$model, _, _>::new(&mut *conn, query)
                            .page_size(page_size)
                            .rows()
                            .map_ok(|row| row.id)
                            .try_collect()
                            .await
                            .expect("async rows");
                        let marked: Vec<i64> = async_::Walk::<$model, _, _>::new(&mut *conn, query)
                            .page_size(page_size)
                            .high_water_mark()
                            .rows()
                            .map_ok(|row| row.id)
                            .try_collect()
                            .await
                            .expect("async walk to the mark");
                        (pages, rows, marked)
                    });
                    assert!(
                        pages
                            .iter()
                            .all(|p| !p.is_empty() && p.len() <= page_size as usize),
                        "{label}"
                    );
                    assert_eq!(
                        pages.len(),
                        expected.len().div_ceil(page_size as usize),
                        "{label}"
                    );
                    assert_eq!(pages.concat(), expected, "async pages, {label}");
                    assert_eq!(rows, expected, "async rows, {label}");
                    assert_eq!(marked, expected, "async walk to the mark, {label}");
                }
            }};
        }
        check!(PlanMixed, "score DESC, id ASC");
        check!(PlanDesc, "at DESC, id DESC");
        check!(
            PlanNullable,
            "CASE WHEN maybe IS NULL THEN 1 ELSE 0 END, maybe ASC, id ASC"
        );
    }};
}
