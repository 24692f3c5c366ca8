//! Integration tests of `keyset-diesel` against real databases.
//!
//! Each backend has one test binary (`tests/sqlite.rs`, `tests/postgres.rs`, ...), compiled
//! behind that backend's feature. The shared suites live here, generic over [`TestDb`], and
//! [`backend_suite!`] turns them into `#[test]` functions for a backend. A suite whose server
//! is not reachable fails; nothing is skipped.

pub mod cases;
pub mod chinook;
pub mod db;
pub mod joins;
pub mod models;
pub mod oracle;
pub mod plans;
pub mod property;
pub mod read_contracts;
pub mod schema;
pub mod typed;

pub use db::{Fixture, NewEvent, PlanRow, Row, TestDb};

use chrono::NaiveDateTime;

/// 2026-10-10 12:00:00 UTC plus `secs` seconds and `micros` microseconds.
pub fn at(secs: i64, micros: i64) -> NaiveDateTime {
    NaiveDateTime::parse_from_str("2026-10-10 12:00:00", "%F %T").expect("valid base time")
        + chrono::Duration::seconds(secs)
        + chrono::Duration::microseconds(micros)
}

/// `../shared`, beside the repository (or `KEYSET_SHARED_DIR`).
pub fn shared_dir() -> std::path::PathBuf {
    match std::env::var_os("KEYSET_SHARED_DIR") {
        Some(dir) => dir.into(),
        None => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
    }
}

/// A file under `../shared/data`, or `None` after saying why; under `CI=true` a missing file
/// fails the test instead.
pub fn shared_data(relative: &str) -> Option<std::path::PathBuf> {
    let path = shared_dir().join("data").join(relative);
    if path.is_file() {
        return Some(path);
    }
    let msg = format!(
        "{} is missing: this test needs ../shared/data beside the repository (or KEYSET_SHARED_DIR)",
        path.display()
    );
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{msg}");
    }
    eprintln!("NOT RUN: {msg}");
    None
}

/// The test that a locking clause (`FOR UPDATE SKIP LOCKED`, the job-queue pattern) stays on
/// every page of backend `$db`, with or without the deferred join (which falls back to the
/// direct form for it). SQLite has no locking clause.
#[macro_export]
macro_rules! locking_clause_test {
    ($db:ty) => {
        #[test]
        fn locking_clause_is_kept_on_later_pages() {
            use diesel::prelude::*;
            use keyset_diesel::{Cursor, PaginateDsl};
            use $crate::joins::{posts, Post};
            for deferred in [false, true] {
                let later = posts::table
                    .select(Post::as_select())
                    .for_update()
                    .skip_locked()
                    .paginate_after(Some(Cursor::<Post>::after((2, 2))))
                    .page_size(2)
                    .deferred_join(deferred)
                    .into_query::<$db>()
                    .expect("page query");
                let sql = diesel::debug_query::<$db, _>(&later).to_string();
                assert!(sql.contains("FOR UPDATE SKIP LOCKED"), "{sql}");
                assert!(
                    !sql.contains("__keyset_tb"),
                    "no deferred join under a lock: {sql}"
                );
            }
        }
    };
}

/// Expands to the `#[test]` functions every backend runs, for connection type `$db`.
#[macro_export]
macro_rules! backend_suite {
    ($db:ty) => {
        #[test]
        fn oracle_property_random_keysets_ties_and_page_sizes() {
            $crate::property::oracle_property::<$db>();
        }
        #[test]
        fn c01_non_unique_sort_key_is_completed_by_the_tie_breaker() {
            $crate::cases::c01::<$db>();
        }
        #[test]
        fn c02_strict_comparison_does_not_repeat_the_boundary_row() {
            $crate::cases::c02::<$db>();
        }
        #[test]
        fn c03_cursor_is_the_last_row_delivered_not_the_look_ahead_row() {
            $crate::cases::c03::<$db>();
        }
        #[test]
        fn c04_descending_order_uses_the_descending_operator() {
            $crate::cases::c04::<$db>();
        }
        #[test]
        fn c05_mixed_directions_and_the_tie_breaker_direction() {
            $crate::cases::c05::<$db>();
        }
        #[test]
        fn c06_c07_backward_page_is_the_adjacent_window_in_display_order() {
            $crate::cases::c06_c07::<$db>();
        }
        #[test]
        fn c08_flags_and_cursors_are_exact_at_the_edges() {
            $crate::cases::c08::<$db>();
        }
        #[test]
        fn exact_flags_probe_the_other_side_in_the_same_statement() {
            $crate::cases::exact_flags_probe_the_other_side::<$db>();
        }
        #[test]
        fn c09_null_cursor_value_continues_in_the_null_group() {
            $crate::cases::c09::<$db>();
        }
        #[test]
        fn c10_crossing_into_the_null_group_keeps_every_null_row() {
            $crate::cases::c10::<$db>();
        }
        #[test]
        fn c11_inside_the_null_group_both_branches() {
            $crate::cases::c11::<$db>();
        }
        #[test]
        fn c12_the_cursor_carries_every_key_column() {
            $crate::cases::c12::<$db>();
        }
        #[test]
        fn tokens_record_the_direction_and_paginate_follows_it() {
            $crate::cases::token_direction::<$db>();
        }
        #[test]
        fn c19_enum_labels_stored_as_text_page_in_text_order() {
            $crate::cases::c19::<$db>();
        }
        #[test]
        fn c22_first_page_and_predicate_follow_the_same_keyset() {
            $crate::cases::c22::<$db>();
        }
        #[test]
        fn c23_cursor_reused_with_other_filters_sort_endpoint_version_or_expired() {
            $crate::cases::c23::<$db>();
        }
        #[test]
        fn c25_page_size_zero_negative_non_numeric_or_huge() {
            $crate::cases::c25::<$db>();
        }
        #[test]
        fn seed_feed_pages_are_e101_to_e103_then_e104_to_e106() {
            $crate::cases::seed_feed::<$db>();
        }
        #[test]
        fn change_rule_newer_row_inserted_between_requests_appears_later() {
            $crate::cases::insert_between_requests::<$db>();
        }
        #[test]
        fn change_rule_deleted_boundary_row_still_marks_the_position() {
            $crate::cases::delete_boundary_row::<$db>();
        }
        #[test]
        fn two_tenants_never_leak_across_the_filter() {
            $crate::cases::two_tenants::<$db>();
        }
        #[test]
        fn empty_and_single_row_results() {
            $crate::cases::empty_and_single_row::<$db>();
        }
        #[test]
        fn boxed_queries_with_order_limit_or_offset_are_refused() {
            use diesel::prelude::*;
            use keyset_diesel::{KeysetError, PaginateDsl};
            use $crate::models::ID_asc;
            use $crate::schema::keyset_rows;
            let mut db = <$db as $crate::TestDb>::open();
            let conn: &mut $db = &mut db;
            let base = || keyset_rows::table.select(ID_asc::as_select()).into_boxed();
            let ordered = base()
                .order(keyset_rows::a)
                .paginate_after::<ID_asc>(None)
                .load_page(conn);
            let limited = base()
                .limit(3)
                .paginate_after::<ID_asc>(None)
                .load_page(conn);
            let offset = base()
                .offset(3)
                .paginate_after::<ID_asc>(None)
                .load_page(conn);
            let plain = base().paginate_after::<ID_asc>(None).load_page(conn);
            let err = |r: diesel::QueryResult<keyset_diesel::Page<ID_asc>>| {
                KeysetError::from_diesel(&r.expect_err("must be refused")).cloned()
            };
            assert_eq!(err(ordered), Some(KeysetError::AlreadyOrdered));
            assert_eq!(err(limited), Some(KeysetError::AlreadyLimited));
            assert_eq!(err(offset), Some(KeysetError::AlreadyLimited));
            assert!(plain.expect("a plain boxed query pages").items.is_empty());
        }
        #[test]
        fn or_filters_page_every_row_when_grouped_and_raw_sql_needs_its_parentheses() {
            use diesel::dsl::sql;
            use diesel::prelude::*;
            use diesel::sql_types::Bool;
            use keyset_diesel::{Cursor, PaginateDsl};
            use $crate::models::FeedEvent;
            use $crate::schema::events;
            let mut db = <$db as $crate::TestDb>::open();
            db.insert_events(&$crate::cases::seed_events());
            db.insert_events(&[$crate::NewEvent {
                event_id: "e301".into(),
                workspace_id: "W3".into(),
                occurred_at: $crate::at(2, 0),
                message: "other".into(),
            }]);
            let conn: &mut $db = &mut db;
            let oracle: Vec<String> = events::table
                .filter(events::workspace_id.eq_any(["W9", "W7"]))
                .order((events::occurred_at, events::event_id))
                .select(events::event_id)
                .load(conn)
                .expect("oracle");
            assert_eq!(oracle.len(), 9);
            // Up to 20 pages of 2 rows with `filter`, the ids in page order.
            let mut walk = |filter: &dyn Fn() -> Box<
                dyn BoxableExpression<events::table, <$db as Connection>::Backend, SqlType = Bool>,
            >| {
                let mut cursor: Option<Cursor<FeedEvent>> = None;
                let mut ids = Vec::new();
                for _ in 0..20 {
                    let page = events::table
                        .filter(filter())
                        .select(FeedEvent::as_select())
                        .paginate_after(cursor.take())
                        .page_size(2)
                        .load_page(&mut *conn)
                        .expect("page");
                    ids.extend(page.items.iter().map(|e| e.event_id.clone()));
                    match page.next_cursor {
                        Some(next) => cursor = Some(next),
                        None => break,
                    }
                }
                ids
            };
            let grouped = walk(&|| {
                Box::new(
                    events::workspace_id
                        .eq("W9")
                        .or(events::workspace_id.eq("W7")),
                )
            });
            assert_eq!(grouped, oracle, "Diesel's .or() groups its operands");
            let parenthesized =
                walk(&|| Box::new(sql::<Bool>("(workspace_id = 'W9' OR workspace_id = 'W7')")));
            assert_eq!(parenthesized, oracle, "raw SQL in parentheses");
            // The documented limit: without parentheses the seek binds to the second
            // alternative only (`W9 OR (W7 AND seek)`), so W9's rows come back on every page.
            let bare =
                walk(&|| Box::new(sql::<Bool>("workspace_id = 'W9' OR workspace_id = 'W7'")));
            assert_ne!(bare, oracle, "README, Limits: raw SQL with a top-level OR");
        }
        #[test]
        fn distinct_join_pages_every_row_with_and_without_the_deferred_join() {
            use diesel::prelude::*;
            use keyset_diesel::PaginateDsl;
            use $crate::joins::{posts, posts_with_two_tags, tags, walk_ids, Post};
            let mut db = <$db as $crate::TestDb>::open();
            posts_with_two_tags(&mut *db);
            let conn: &mut $db = &mut db;
            for deferred in [false, true] {
                for exact in [false, true] {
                    let ids = walk_ids(
                        |cursor| {
                            posts::table
                                .inner_join(tags::table)
                                .filter(tags::tag.eq_any(["x", "y"]))
                                .select(Post::as_select())
                                .distinct()
                                .paginate_after(cursor)
                                .page_size(2)
                                .deferred_join(deferred)
                                .exact_flags(exact)
                                .load_page(conn)
                                .expect("page")
                        },
                        |p| p.id,
                    );
                    assert_eq!(ids, [1, 2, 3, 4, 5, 6], "deferred {deferred} exact {exact}");
                }
            }
        }
        #[test]
        fn union_pages_accept_duplicate_output_column_names() {
            use diesel::prelude::*;
            use keyset_diesel::PaginateDsl;
            use $crate::joins::{posts, posts_with_two_tags, tags, walk_ids, PostWithTagId};
            let mut db = <$db as $crate::TestDb>::open();
            posts_with_two_tags(&mut *db);
            let conn: &mut $db = &mut db;
            for deferred in [false, true] {
                let ids = walk_ids(
                    |cursor| {
                        posts::table
                            .inner_join(tags::table)
                            .filter(tags::tag.eq("x"))
                            .select(PostWithTagId::as_select())
                            .paginate_after(cursor)
                            .page_size(2)
                            .deferred_join(deferred)
                            .exact_flags(true)
                            .load_page(conn)
                            .expect("page")
                    },
                    |p| p.id,
                );
                assert_eq!(ids, [1, 2, 3, 4, 5, 6], "deferred {deferred}");
            }
        }
        #[test]
        fn page_size_zero_is_a_typed_error() {
            use diesel::prelude::*;
            use keyset_diesel::{KeysetError, PaginateDsl};
            use $crate::models::ID_asc;
            use $crate::schema::keyset_rows;
            let mut db = <$db as $crate::TestDb>::open();
            let conn: &mut $db = &mut db;
            let result = keyset_rows::table
                .select(ID_asc::as_select())
                .paginate_after::<ID_asc>(None)
                .page_size(0)
                .load_page(conn);
            let error = result.expect_err("page size 0 is refused");
            assert_eq!(
                KeysetError::from_diesel(&error),
                Some(&KeysetError::InvalidPageSize(0))
            );
        }
    };
}
