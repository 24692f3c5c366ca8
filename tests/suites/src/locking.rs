//! Locking pages (`load_locked_page`): a page read under `FOR UPDATE` (alone, `SKIP LOCKED`,
//! `NOWAIT`) locks exactly the rows it delivers, never its look-ahead row; its flags stay
//! exact (the look-ahead, the other side and the count read without a lock); workers that
//! take pages with `SKIP LOCKED` each get rows no other worker holds, and drain a queue with
//! no job twice and none left. PostgreSQL and MySQL/MariaDB (SQLite has no row locks).

use diesel::{Connection, RunQueryDsl};

/// The jobs not done, in the keyset's order (the oracle's `ORDER BY`).
pub const ORACLE: &str =
    "SELECT id FROM queue_jobs WHERE done = FALSE ORDER BY priority DESC, id ASC";

/// The jobs of `jobs` another transaction holds: those `other` cannot lock at once (`FOR
/// UPDATE NOWAIT` fails), in id order.
pub fn held<C>(other: &mut C, jobs: &[i64]) -> Vec<i64>
where
    C: Connection<Backend: diesel::backend::DieselReserveSpecialization>,
{
    let mut held: Vec<i64> = jobs
        .iter()
        .copied()
        .filter(|id| {
            diesel::sql_query(format!(
                "SELECT id FROM queue_jobs WHERE id = {id} FOR UPDATE NOWAIT"
            ))
            .execute(other)
            .is_err()
        })
        .collect();
    held.sort_unstable();
    held
}

/// The async locking page on the diesel-async pair `$db` (an `AsyncDb`): a page under each
/// lock, in an open transaction, holds exactly the rows it delivered (the blocking connection
/// locks every other row at once), page sizes 1 to 3, forward and backward, with exact flags
/// and the count read without a lock.
#[macro_export]
macro_rules! async_locking_test {
    ($db:ty) => {
        #[test]
        fn async_locking_page_locks_exactly_the_rows_it_delivers() {
            use diesel::prelude::*;
            use keyset_diesel::async_::PaginateDsl;
            use keyset_diesel::{Cursor, Page};
            use $crate::locking::{held, ORACLE};
            use $crate::queue::{create_queue, queue_jobs, Job};
            use $crate::{OracleDb as _, TestDb as _};

            let mut db = <$db>::open();
            create_queue(db.db(), 9);
            let all = db.db().ids(ORACLE);
            let q = || {
                queue_jobs::table
                    .filter(queue_jobs::done.eq(false))
                    .select(Job::as_select())
                    .for_update()
                    .skip_locked()
            };
            for page_size in 1..=3_u32 {
                for backward in [false, true] {
                    let mut cursor: Option<Cursor<Job>> = None;
                    for step in 0..2 {
                        let (runtime, conn) = db.runtime_and_conn();
                        let page: Page<Job> = runtime.block_on(async {
                            diesel_async::SimpleAsyncConnection::batch_execute(conn, "BEGIN")
                                .await
                                .expect("begin");
                            let paginated = if backward {
                                q().paginate_before(cursor.take())
                            } else {
                                q().paginate_after(cursor.take())
                            };
                            paginated
                                .page_size(page_size)
                                .exact_flags(true)
                                .with_total_count()
                                .load_locked_page(conn)
                                .await
                                .expect("async locking page")
                        });
                        let mut delivered: Vec<i64> = page.items.iter().map(|j| j.id).collect();
                        delivered.sort_unstable();
                        let held_now = held(db.db(), &all);
                        // Rolled back before any assertion: a failed one must not leave the
                        // transaction open (dropping the database would wait for its locks).
                        let (runtime, conn) = db.runtime_and_conn();
                        runtime.block_on(async {
                            diesel_async::SimpleAsyncConnection::batch_execute(conn, "ROLLBACK")
                                .await
                                .expect("rollback");
                        });
                        assert_eq!(held_now, delivered, "size {page_size} step {step}");
                        assert_eq!(page.len(), page_size as usize);
                        assert_eq!(page.total_count, Some(9));
                        assert!(page.has_more());
                        let came_from = if backward {
                            page.has_next_page
                        } else {
                            page.has_previous_page
                        };
                        assert_eq!(came_from, step > 0);
                        cursor = page.next_cursor();
                    }
                }
            }
        }
    };
}

/// The locking-page tests for blocking connection type `$conn` (a `SharedDb`).
#[macro_export]
macro_rules! locking_suite {
    ($conn:ty) => {
        mod locking_pages {
            use std::collections::BTreeSet;
            use std::sync::atomic::{AtomicUsize, Ordering};

            use diesel::connection::{AnsiTransactionManager, Connection as _, TransactionManager};
            use diesel::prelude::*;
            use keyset_diesel::{Cursor, KeysetError, LoadLockedPage, Page, PaginateDsl};
            use $crate::queue::{create_queue, queue_jobs, Job};
            use $crate::read_contracts::{Shared, SharedDb};
            use $crate::TestDb as _;

            type Conn = $conn;

            use $crate::locking::ORACLE;

            fn queue(jobs: i64) -> (Shared<Conn>, Conn) {
                let shared = <Conn as SharedDb>::shared();
                let mut db = shared.connect();
                create_queue(&mut db, jobs);
                (shared, db)
            }

            fn ids(page: &Page<Job>) -> Vec<i64> {
                page.items.iter().map(|job| job.id).collect()
            }

            fn held(other: &mut Conn, jobs: &[i64]) -> Vec<i64> {
                $crate::locking::held(other, jobs)
            }

            /// One locking page of `query` after (or before) `cursor`.
            fn take<Q>(
                query: Q,
                conn: &mut Conn,
                cursor: Option<Cursor<Job>>,
                page_size: u32,
                backward: bool,
            ) -> Page<Job>
            where
                Q: for<'q> LoadLockedPage<'q, Conn, Job>,
            {
                let paginated = if backward {
                    query.paginate_before(cursor)
                } else {
                    query.paginate_after(cursor)
                };
                paginated
                    .page_size(page_size)
                    .exact_flags(true)
                    .with_total_count()
                    .load_locked_page(conn)
                    .unwrap_or_else(|e| panic!("locking page: {e:?}"))
            }

            /// Every way a page can lock: `FOR UPDATE` alone, `SKIP LOCKED`, `NOWAIT`.
            macro_rules! each_lock {
                (|$q:ident| $body:expr) => {{
                    let base = || {
                        queue_jobs::table
                            .filter(queue_jobs::done.eq(false))
                            .select(Job::as_select())
                    };
                    {
                        let $q = || base().for_update();
                        $body
                    }
                    {
                        let $q = || base().for_update().skip_locked();
                        $body
                    }
                    {
                        let $q = || base().for_update().no_wait();
                        $body
                    }
                }};
            }

            /// A collation-equal pair at a locking page's boundary (`a` and `A` under a case-
            /// insensitive collation, `grp, tag` unique by convention): a locking page reads
            /// no look-ahead row of its own, so its look-ahead reads from the last row
            /// inclusive and asks the database about such a neighbour. Every walk, forward and
            /// backward, page sizes 1 to 3, under `FOR UPDATE`, stops with a typed error before
            /// a row repeats (before: at page size 1 the next page's strict seek from `a`
            /// skipped `A`, and the walk ended without it and without an error).
            #[test]
            fn locking_walk_over_a_collation_equal_pair_is_loud() {
                use $crate::loud::{loud_tags, TagAsc};
                let mut db = <Conn as $crate::TestDb>::open();
                let column = if <Conn as $crate::TestDb>::NAME == "PostgreSQL" {
                    db.exec(
                        "CREATE COLLATION IF NOT EXISTS public.keyset_ci_ai \
                         (provider = icu, locale = 'und-u-ks-level1', deterministic = false)",
                    );
                    "TEXT NOT NULL COLLATE public.keyset_ci_ai"
                } else {
                    "VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NOT NULL"
                };
                db.exec(&format!(
                    "CREATE TABLE loud_tags (tag {column}, grp INTEGER NOT NULL)"
                ));
                db.exec("INSERT INTO loud_tags VALUES ('a', 1), ('A', 1), ('b', 1), ('c', 1)");
                for page_size in 1..=3_u32 {
                    for backward in [false, true] {
                        let mut cursor: Option<Cursor<TagAsc>> = None;
                        let mut seen: Vec<String> = Vec::new();
                        let mut error = None;
                        for _ in 0..10 {
                            let q = loud_tags::table.select(TagAsc::as_select()).for_update();
                            let paginated = if backward {
                                q.paginate_before(cursor.take())
                            } else {
                                q.paginate_after(cursor.take())
                            };
                            match paginated.page_size(page_size).load_locked_page(&mut *db) {
                                Ok(page) => {
                                    seen.extend(page.items.iter().map(|t| t.tag.clone()));
                                    match page.next_cursor() {
                                        Some(next) => cursor = Some(next),
                                        None => break,
                                    }
                                }
                                Err(e) => {
                                    error = KeysetError::from_diesel(&e).cloned();
                                    assert!(error.is_some(), "a KeysetError, not {e:?}");
                                    break;
                                }
                            }
                        }
                        let label = format!("page size {page_size}, backward {backward}: {seen:?}");
                        assert!(
                            matches!(
                                error,
                                Some(
                                    KeysetError::CollationEqualKeys { column: "tag", .. }
                                        | KeysetError::TieBreakerNotUnique { .. }
                                )
                            ),
                            "{label}: {error:?}"
                        );
                        let mut unique = seen.clone();
                        unique.sort();
                        unique.dedup();
                        assert_eq!(unique.len(), seen.len(), "{label}: no row twice");
                    }
                }
            }

            /// A page read under a lock, in a transaction still open, holds exactly the rows
            /// it delivered: another connection locks every other row (the look-ahead row
            /// first) at once. First pages and later pages, forward and backward, page sizes
            /// 1 to 3, every lock.
            #[test]
            fn locking_page_locks_exactly_the_rows_it_delivers() {
                let (shared, mut db) = queue(12);
                let all = db.ids(ORACLE);
                let mut other = shared.connect();
                each_lock!(|q| {
                    for page_size in 1..=3_u32 {
                        for backward in [false, true] {
                            // The first page, and the page after (before) it.
                            let first = db
                                .transaction(|conn| {
                                    let page = take(q(), conn, None, page_size, backward);
                                    assert_eq!(held(&mut other, &all), sorted(ids(&page)));
                                    Ok::<_, diesel::result::Error>(page)
                                })
                                .expect("transaction");
                            db.transaction(|conn| {
                                let later =
                                    take(q(), conn, first.next_cursor(), page_size, backward);
                                assert_eq!(later.len(), page_size as usize);
                                assert_eq!(held(&mut other, &all), sorted(ids(&later)));
                                Ok::<_, diesel::result::Error>(())
                            })
                            .expect("transaction");
                        }
                    }
                });
            }

            fn sorted(mut ids: Vec<i64>) -> Vec<i64> {
                ids.sort_unstable();
                ids
            }

            /// Walking every page under a lock (one worker, each page its own transaction)
            /// gives exactly the rows of the same query with a plain `ORDER BY`, forward and
            /// backward, page sizes 1 to 3, with exact flags and the total count on every page.
            #[test]
            fn locking_walks_equal_order_by_with_exact_flags() {
                let (_shared, mut db) = queue(11);
                let expected = db.ids(ORACLE);
                each_lock!(|q| {
                    for page_size in 1..=3_u32 {
                        for backward in [false, true] {
                            let mut rows: Vec<i64> = Vec::new();
                            let mut cursor = None;
                            let mut pages = 0;
                            loop {
                                let page = db
                                    .transaction(|conn| {
                                        Ok::<_, diesel::result::Error>(take(
                                            q(),
                                            conn,
                                            cursor.take(),
                                            page_size,
                                            backward,
                                        ))
                                    })
                                    .expect("transaction");
                                let context =
                                    format!("size {page_size} backward {backward} page {pages}");
                                assert_eq!(page.total_count, Some(11), "{context}");
                                // The side the walk came from: a row there iff this is not
                                // the first page read.
                                let came_from = if backward {
                                    page.has_next_page
                                } else {
                                    page.has_previous_page
                                };
                                assert_eq!(came_from, pages > 0, "{context}");
                                let got = ids(&page);
                                if page.has_more() {
                                    assert_eq!(got.len(), page_size as usize, "{context}");
                                }
                                if backward {
                                    rows.splice(0..0, got);
                                } else {
                                    rows.extend(got);
                                }
                                pages += 1;
                                cursor = page.next_cursor();
                                if cursor.is_none() {
                                    break;
                                }
                                assert!(pages < 100, "the walk does not end");
                            }
                            assert_eq!(rows, expected, "size {page_size} backward {backward}");
                        }
                    }
                });
            }

            /// Three workers in open transactions each take a page of 2 with `SKIP LOCKED`:
            /// three disjoint pages that cover the queue in order, each with `has_more` when a
            /// job follows it (held or not); a fourth worker gets an empty page whose
            /// `has_more` says the jobs are held, not gone.
            #[test]
            fn skip_locked_workers_take_disjoint_pages_with_exact_flags() {
                let (shared, mut db) = queue(6);
                let expected = db.ids(ORACLE);
                let q = || {
                    queue_jobs::table
                        .filter(queue_jobs::done.eq(false))
                        .select(Job::as_select())
                        .for_update()
                        .skip_locked()
                };
                let mut workers: Vec<Conn> = (0..4).map(|_| shared.connect()).collect();
                for worker in &mut workers {
                    <AnsiTransactionManager as TransactionManager<Conn>>::begin_transaction(worker)
                        .expect("begin");
                }
                let pages: Vec<Page<Job>> = workers
                    .iter_mut()
                    .map(|worker| take(q(), worker, None, 2, false))
                    .collect();
                let taken: Vec<i64> = pages[..3].iter().flat_map(ids).collect();
                assert_eq!(taken, expected);
                let more: Vec<bool> = pages.iter().map(Page::has_more).collect();
                assert_eq!(more, [true, true, false, true]);
                assert!(pages[3].is_empty());
                for worker in &mut workers {
                    <AnsiTransactionManager as TransactionManager<Conn>>::rollback_transaction(
                        worker,
                    )
                    .expect("rollback");
                }
                // Released: the first page is the first jobs again.
                let again = db
                    .transaction(|conn| {
                        Ok::<_, diesel::result::Error>(take(q(), conn, None, 2, false))
                    })
                    .expect("transaction");
                assert_eq!(ids(&again), expected[..2]);
            }

            /// The queue recipe: 4 workers, each on its own connection, drain 10,000 jobs.
            /// Each takes the first page (50 jobs, `SKIP LOCKED`) in a transaction, marks
            /// them done and commits; an empty page with `has_more` means other workers hold
            /// the rest, so it tries again; an empty page without it is the end. No job is
            /// taken twice, none is left, and every worker took jobs.
            #[test]
            fn four_workers_drain_ten_thousand_jobs_once_each() {
                const JOBS: i64 = 10_000;
                let (shared, mut db) = queue(JOBS);
                let empty_with_more = AtomicUsize::new(0);
                let taken: Vec<Vec<i64>> = std::thread::scope(|scope| {
                    let workers: Vec<_> = (0..4)
                        .map(|worker: i32| {
                            let mut conn = shared.connect();
                            let empty_with_more = &empty_with_more;
                            scope.spawn(move || {
                                let mut mine = Vec::new();
                                loop {
                                    let page = conn
                                        .transaction(|conn| {
                                            let page = take(
                                                queue_jobs::table
                                                    .filter(queue_jobs::done.eq(false))
                                                    .select(Job::as_select())
                                                    .for_update()
                                                    .skip_locked(),
                                                conn,
                                                None,
                                                50,
                                                false,
                                            );
                                            diesel::update(queue_jobs::table)
                                                .filter(queue_jobs::id.eq_any(ids(&page)))
                                                .set((
                                                    queue_jobs::done.eq(true),
                                                    queue_jobs::claimed_by.eq(worker),
                                                ))
                                                .execute(conn)?;
                                            Ok::<_, diesel::result::Error>(page)
                                        })
                                        .expect("worker transaction");
                                    mine.extend(ids(&page));
                                    if page.is_empty() {
                                        if !page.has_more() {
                                            return mine;
                                        }
                                        empty_with_more.fetch_add(1, Ordering::Relaxed);
                                        std::thread::sleep(std::time::Duration::from_millis(1));
                                    }
                                }
                            })
                        })
                        .collect();
                    workers
                        .into_iter()
                        .map(|w| w.join().expect("worker"))
                        .collect()
                });
                let all: Vec<i64> = taken.iter().flatten().copied().collect();
                let once: BTreeSet<i64> = all.iter().copied().collect();
                assert_eq!(all.len(), once.len(), "a job taken twice");
                assert_eq!(
                    once,
                    (1..=JOBS).collect::<BTreeSet<_>>(),
                    "a job left or unknown"
                );
                assert!(db.ids(ORACLE).is_empty());
                let per_worker: Vec<usize> = taken.iter().map(Vec::len).collect();
                assert!(per_worker.iter().all(|n| *n > 0), "{per_worker:?}");
                eprintln!(
                    "drained {JOBS} jobs: per worker {per_worker:?}, empty pages with has_more {}",
                    empty_with_more.load(Ordering::Relaxed)
                );
            }

            /// `load_page` refuses a locking query (it would lock its look-ahead row), and a
            /// byte budget cannot cut a locking page: each a typed error before any SQL runs.
            #[test]
            fn locking_query_refusals_are_typed() {
                let (_shared, mut db) = queue(3);
                let q = || {
                    queue_jobs::table
                        .select(Job::as_select())
                        .for_update()
                        .skip_locked()
                };
                let err = q()
                    .paginate_after(None::<Cursor<Job>>)
                    .page_size(2)
                    .load_page(&mut db)
                    .expect_err("load_page of a locking query");
                assert!(
                    matches!(
                        KeysetError::from_diesel(&err),
                        Some(KeysetError::LockingQuery)
                    ),
                    "{err:?}"
                );
                let err = q()
                    .paginate_after(None::<Cursor<Job>>)
                    .page_size(2)
                    .max_bytes(1_000, |job: &Job| job.id.to_string().len())
                    .load_locked_page(&mut db)
                    .expect_err("a byte budget on a locking page");
                assert!(
                    matches!(
                        KeysetError::from_diesel(&err),
                        Some(KeysetError::LockingPageCut)
                    ),
                    "{err:?}"
                );
            }
        }
    };
}
