//! A table hash-partitioned across two more PostgreSQL servers (`postgres_fdw` foreign
//! partitions, `keyset_test_models::shards`): walks equal the oracle, each shard is sent the
//! seek and the `ORDER BY`, and each sends a bounded number of rows per page.

use diesel::prelude::*;
use keyset_diesel::plan;
use keyset_diesel::{Cursor, PaginateDsl};
use keyset_test_suites::plans::PLAN_PAGE_SIZE;
use keyset_test_suites::TestDb;

/// A table hash-partitioned on `id` across two more PostgreSQL servers
/// (`postgres_fdw` foreign partitions; tests/models/src/shards.rs). Walking every page of tenant 1
/// (1,000 rows, 4 per `at` value, 7 scores) forward and backward, at page sizes 7 and 50, in
/// the default form and with `expanded_seek(true)`, gives exactly the parent's plain
/// `ORDER BY`, for `at, id`, `at DESC, id DESC` and `score DESC, id ASC`.
#[test]
fn sharded_table_walks_equal_the_oracle() {
    use keyset_test_suites::shards::{
        shard_rows, ShardAsc, ShardDesc, ShardMixed, Shards, TENANT_ROWS,
    };
    let mut shards = Shards::create(100);
    macro_rules! walk {
        ($model:ty, $order:literal) => {{
            let expected = shards.db.ids(&format!(
                "SELECT id FROM shard_rows WHERE tenant = 1 ORDER BY {}",
                $order
            ));
            assert_eq!(expected.len() as i64, TENANT_ROWS);
            for expanded in [false, true] {
                for page_size in [7u32, 50] {
                    for backward in [false, true] {
                        let mut pages: Vec<Vec<i64>> = Vec::new();
                        let mut cursor: Option<Cursor<$model>> = None;
                        loop {
                            let query = shard_rows::table
                                .filter(shard_rows::tenant.eq(1))
                                .select(<$model>::as_select());
                            let paginated = if backward {
                                query.paginate_before(cursor.take())
                            } else {
                                query.paginate_after(cursor.take())
                            };
                            let page = paginated
                                .page_size(page_size)
                                .expanded_seek(expanded)
                                .load_page(&mut *shards.db)
                                .expect("page");
                            assert!(page.items.len() <= page_size as usize);
                            assert_eq!(page.has_more(), page.next_cursor().is_some());
                            assert!(page
                                .items
                                .iter()
                                .all(|r| r.payload == format!("payload {}", r.id)));
                            pages.push(page.items.iter().map(|r| r.id).collect());
                            cursor = page.next_cursor();
                            if cursor.is_none() {
                                break;
                            }
                            assert!(pages.len() <= TENANT_ROWS as usize, "the walk does not end");
                        }
                        if backward {
                            pages.reverse();
                        }
                        assert_eq!(
                            pages.concat(),
                            expected,
                            "{}: expanded {expanded}, page size {page_size}, backward {backward}",
                            $order
                        );
                    }
                }
            }
        }};
    }
    walk!(ShardAsc, "at ASC, id ASC");
    walk!(ShardDesc, "at DESC, id DESC");
    walk!(ShardMixed, "score DESC, id ASC");
}

/// What each shard is sent. With `expanded_seek(true)` every foreign
/// partition's remote SQL carries the seek (from its leading bound) and the `ORDER BY`, so
/// each shard starts its own index range at the cursor and the test server merges the two
/// sorted streams (no `Sort` of the table's rows): the plan check reports a seek. In the
/// default form a one-direction keyset is a row-value comparison, which postgres_fdw does not
/// send: it stays a local `Filter` and the plan check says so (`SeekNotShipped`, naming the
/// option). `score DESC, id ASC` alternates direction, so it is the expanded form already: a
/// seek either way.
#[test]
fn sharded_pages_send_the_seek_and_order_by_to_every_shard() {
    use keyset_diesel::plan::NotASeek;
    use keyset_test_suites::shards::{shard_rows, ShardAsc, ShardDesc, ShardMixed, Shards};
    const DEPTH: i64 = 600;
    let mut shards = Shards::create(100);
    macro_rules! check {
        ($model:ty, $order:literal, $bound:literal, $row_value:literal) => {{
            let id = shards.db.ids(&format!(
                "SELECT id FROM shard_rows WHERE tenant = 1 ORDER BY {} LIMIT 1 OFFSET {DEPTH}",
                $order
            ))[0];
            let row: $model = shard_rows::table
                .filter(shard_rows::id.eq(id))
                .select(<$model>::as_select())
                .first(&mut *shards.db)
                .expect("deep row");
            let page = |expanded: bool| {
                shard_rows::table
                    .filter(shard_rows::tenant.eq(1))
                    .select(<$model>::as_select())
                    .paginate_after(Some(Cursor::after_row(&row)))
                    .page_size(PLAN_PAGE_SIZE)
                    .expanded_seek(expanded)
            };
            let report = plan::explain(&mut *shards.db, page(true)).expect("plan");
            report.assert_seeks();
            let json = &report.plan;
            assert_eq!(report.reads.len(), 2, "one read per shard\n{json}");
            for read in &report.reads {
                assert_eq!(read.access, "Foreign Scan", "{json}");
                let remote = read.remote_sql.as_deref().expect("remote SQL");
                assert!(remote.contains(" ORDER BY "), "the ORDER BY is sent: {remote}");
                let sent = read.condition.as_deref().unwrap_or_default();
                assert!(sent.contains($bound), "the seek is sent: {sent}");
                assert!(
                    read.filter.as_deref().is_none_or(|f| !f.contains("ROW(")),
                    "nothing of the seek stays local: {read:?}"
                );
            }
            let report = plan::explain(&mut *shards.db, page(false)).expect("plan");
            if $row_value {
                assert!(!report.seeks(), "{}", report.plan);
                let unshipped: Vec<&str> = report
                    .not_a_seek
                    .iter()
                    .filter_map(|r| match r {
                        NotASeek::SeekNotShipped { relation, .. } => Some(relation.as_str()),
                        _ => None,
                    })
                    .collect();
                assert_eq!(unshipped, ["shard_rows_0", "shard_rows_1"], "{}", report.failure());
                assert!(report.failure().contains(".expanded_seek(true)"));
            } else {
                report.assert_seeks();
            }
        }};
    }
    check!(ShardAsc, "at ASC, id ASC", "(at >= ", true);
    check!(ShardDesc, "at DESC, id DESC", "(at <= ", true);
    check!(ShardMixed, "score DESC, id ASC", "(score <= ", false);
}

/// Rows each shard sends per page, counted on the shards (their
/// `pg_stat_statements` rows of postgres_fdw's `FETCH` statements). PostgreSQL does not push
/// the `LIMIT` below a partitioned parent to its foreign partitions, so a shard sends
/// `fetch_size` rows a batch until the merge has its rows: with `fetch_size` = page size + 1,
/// each shard sends one batch of at most 21 rows while many rows follow the cursor (depths 0,
/// 300 and 600 of 1,000). Near the end of the range (depth 900, 99 rows left) the planner
/// expects few rows and fetches all that are left, unsorted, to sort them itself: never a row
/// before the cursor. In the default form (a row value the shards are never sent) the shards
/// together send at least every row before the cursor: the page's cost grows with its depth.
/// The pages are the `OFFSET` query's rows either way.
#[test]
fn sharded_pages_fetch_a_bounded_number_of_rows_from_each_shard() {
    use keyset_test_suites::shards::{shard_rows, ShardAsc, Shards, TENANT_ROWS};
    const FETCH: u32 = PLAN_PAGE_SIZE + 1;
    let mut shards = Shards::create_as(FETCH, "keyset_fdw_probe");
    for depth in [0i64, 300, 600, 900] {
        let id = shards.db.ids(&format!(
            "SELECT id FROM shard_rows WHERE tenant = 1 ORDER BY at, id LIMIT 1 OFFSET {depth}"
        ))[0];
        let row: ShardAsc = shard_rows::table
            .filter(shard_rows::id.eq(id))
            .select(ShardAsc::as_select())
            .first(&mut *shards.db)
            .expect("row at depth");
        let expected = shards.db.ids(&format!(
            "SELECT id FROM shard_rows WHERE tenant = 1 ORDER BY at, id LIMIT {PLAN_PAGE_SIZE} OFFSET {}",
            depth + 1
        ));
        let mut sent = |expanded: bool, fetch: u32| {
            let before = [shards.rows_sent(0, fetch), shards.rows_sent(1, fetch)];
            let page = shard_rows::table
                .filter(shard_rows::tenant.eq(1))
                .select(ShardAsc::as_select())
                .paginate_after(Some(Cursor::after_row(&row)))
                .page_size(PLAN_PAGE_SIZE)
                .expanded_seek(expanded)
                .load_page(&mut *shards.db)
                .expect("page");
            assert_eq!(
                page.items.iter().map(|r| r.id).collect::<Vec<_>>(),
                expected
            );
            [
                shards.rows_sent(0, fetch) - before[0],
                shards.rows_sent(1, fetch) - before[1],
            ]
        };
        let expanded = sent(true, FETCH);
        let row_value = sent(false, FETCH);
        eprintln!(
            "depth {depth}: rows sent per shard, expanded {expanded:?}, row value {row_value:?}"
        );
        let after_cursor = TENANT_ROWS - depth - 1;
        assert!(
            expanded.iter().sum::<i64>() <= after_cursor,
            "depth {depth}: no row before the cursor is sent, sent {expanded:?}"
        );
        if depth <= 600 {
            assert!(
                expanded.iter().all(|&n| n <= i64::from(FETCH)),
                "depth {depth}: at most one batch per shard, sent {expanded:?}"
            );
        }
        assert!(
            expanded.iter().sum::<i64>() >= expected.len() as i64,
            "the page's rows came from the shards: {expanded:?}"
        );
        assert!(
            row_value.iter().sum::<i64>() >= depth + expected.len() as i64,
            "depth {depth}: the row value is filtered locally, after every row before the cursor was sent: {row_value:?}"
        );
    }
    // postgres_fdw's default fetch_size (100): one batch of up to 100 rows per shard.
    for server in 0..2 {
        let name = shards.server(server).to_string();
        shards.db.exec(&format!(
            "ALTER SERVER {name} OPTIONS (SET fetch_size '100')"
        ));
    }
    let before = [shards.rows_sent(0, 100), shards.rows_sent(1, 100)];
    let page = shard_rows::table
        .filter(shard_rows::tenant.eq(1))
        .select(ShardAsc::as_select())
        .paginate_after(None)
        .page_size(PLAN_PAGE_SIZE)
        .expanded_seek(true)
        .load_page(&mut *shards.db)
        .expect("page");
    assert_eq!(page.items.len(), PLAN_PAGE_SIZE as usize);
    let default = [
        shards.rows_sent(0, 100) - before[0],
        shards.rows_sent(1, 100) - before[1],
    ];
    eprintln!("fetch_size 100: rows sent per shard {default:?}");
    assert!(
        default.iter().all(|&n| n <= 100 && n > i64::from(FETCH)),
        "{default:?}"
    );
}
