//! keyset-diesel's test suites, generic over the connection ([`TestDb`] and the traits of
//! `keyset-test-models`): each backend's test crate (`tests/sqlite`, `tests/postgres`,
//! `tests/mysql`, and `tests/async`) turns them into `#[test]` functions with
//! [`backend_suite!`] and the other suite macros. Editing a suite rebuilds this crate (type
//! checks, no pages: the models crate instantiates those) and the test binaries that use it.
//! A suite whose server is not reachable fails; nothing is skipped.
//!
//! Everything of `keyset-test-models` (and of the kit it re-exports) is re-exported here, so
//! `crate::models::..`, `crate::schema::..` and `crate::at` read as they did in one crate.

// Each backend's test crate builds this crate with that backend's feature alone, which leaves
// the imports and helpers of the other backends' code unused; lints are read (and denied) on
// the build with every backend, where everything is used.
#![cfg_attr(
    not(all(feature = "sqlite", feature = "postgres", feature = "mysql")),
    allow(unused_imports, unused_macros, dead_code)
)]

#[cfg(feature = "diesel-async")]
pub mod async_path;
pub mod cases;
pub mod chinook;
pub mod composite_key;
pub mod concurrent;
pub mod count;
pub mod edges;
pub mod expr_keys;
pub mod faults;
pub mod locking;
pub mod loud;
pub mod named_sorts;
pub mod pinned;
pub mod plans;
pub mod property;
pub mod queries;
pub mod read_contracts;
pub mod retained;
pub mod typed;

pub use keyset_test_models::*;

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

/// Expands to the `#[test]` functions every backend runs, for connection type `$db`: one
/// line per test, `test_name => module::function`, each function generic over the connection.
#[macro_export]
macro_rules! backend_suite {
    ($db:ty) => {
        $crate::backend_suite!(@tests $db;
            oracle_property_random_keysets_ties_and_page_sizes => property::oracle_property,
            non_unique_sort_key_is_completed_by_the_tie_breaker
                => cases::ordering::tie_breaker_completes_a_non_unique_sort_key,
            strict_comparison_does_not_repeat_the_boundary_row
                => cases::ordering::boundary_row_is_not_repeated,
            cursor_is_the_last_row_delivered_not_the_look_ahead_row
                => cases::ordering::cursor_is_the_last_row_delivered_not_the_look_ahead,
            descending_order_uses_the_descending_operator
                => cases::ordering::descending_key_seeks_below_the_cursor,
            mixed_directions_keep_each_declared_direction
                => cases::ordering::mixed_directions_keep_each_declared_direction,
            keysets_sharing_a_query_type_keep_their_own_cached_statements
                => cases::ordering::keysets_sharing_a_query_type_keep_their_own_statements,
            backward_page_is_the_adjacent_window_in_display_order
                => cases::backward::backward_page_is_the_adjacent_window_in_display_order,
            flags_and_cursors_are_exact_at_the_edges
                => cases::backward::flags_and_cursors_are_exact_at_the_edges,
            exact_flags_probe_the_other_side_in_the_same_statement
                => cases::backward::exact_flags_probe_the_other_side,
            null_cursor_value_continues_in_the_null_group
                => cases::nulls::null_cursor_value_continues_in_the_null_group,
            crossing_into_the_null_group_keeps_every_null_row
                => cases::nulls::crossing_into_the_null_group_keeps_every_null_row,
            null_group_pages_in_both_seek_directions
                => cases::nulls::null_group_pages_in_both_seek_directions,
            cursor_carries_every_key_column => cases::ordering::cursor_carries_every_key_column,
            tokens_record_the_direction_and_paginate_follows_it
                => cases::tokens::tokens_record_the_direction,
            enum_labels_stored_as_text_page_in_text_order
                => cases::ordering::enum_labels_stored_as_text_page_in_text_order,
            first_page_and_predicate_follow_the_same_keyset
                => cases::ordering::first_page_and_seek_follow_the_same_keyset,
            cursor_reused_with_other_filters_sort_endpoint_version_or_expired_is_refused
                => cases::tokens::cursor_is_refused_by_another_query,
            page_size_zero_negative_non_numeric_or_huge_follows_the_policy
                => cases::tokens::page_sizes_follow_the_policy,
            seed_feed_pages_are_e101_to_e103_then_e104_to_e106
                => cases::feed::tied_event_starts_the_second_feed_page,
            change_rule_newer_row_inserted_between_requests_appears_later
                => cases::feed::rows_inserted_between_requests,
            change_rule_deleted_boundary_row_still_marks_the_position
                => cases::feed::deleted_boundary_row_still_marks_the_position,
            two_tenants_never_leak_across_the_filter
                => cases::feed::tenants_never_leak_across_the_filter,
            empty_and_single_row_results => cases::feed::empty_and_single_row_tables,
            boxed_queries_with_order_limit_or_offset_are_refused
                => queries::boxed_queries_with_order_limit_or_offset_are_refused,
            or_filters_page_every_row_when_grouped_and_raw_sql_needs_its_parentheses
                => queries::or_filters_page_every_row_when_grouped,
            distinct_join_pages_every_row_with_and_without_the_deferred_join
                => queries::distinct_join_pages_every_row,
            union_pages_accept_duplicate_output_column_names
                => queries::union_pages_accept_duplicate_output_column_names,
            page_size_zero_is_a_typed_error => queries::page_size_zero_is_a_typed_error,
            every_key_type_pages_exactly_at_the_database_precision
                => typed::every_key_type_pages_exactly,
            every_time_crate_key_type_pages_exactly_at_the_database_precision
                => typed::every_time_key_type_pages_exactly,
            nan_cursor_is_a_typed_error_before_any_sql => typed::nan_cursor_is_a_typed_error,
            cursor_finer_than_the_column_is_exact_or_refused
                => typed::built_cursor_finer_than_the_column,
            edge_pages_keep_their_relay_cursors_for_tailing
                => edges::edge_pages_keep_their_relay_cursors,
            windows_bounded_on_both_sides_and_the_seek_predicate_alone
                => edges::windows_bounded_on_both_sides,
            byte_budget_walks_equal_order_by_and_deliver_an_oversized_row_alone
                => edges::byte_budget_walks_equal_order_by,
            sql_byte_budget_fetches_only_the_rows_that_fit_and_walks_equal_order_by
                => edges::sql_byte_budget_fetches_only_the_rows_that_fit,
            collation_equal_text_tie_breaker_is_a_typed_error_not_a_lost_row
                => loud::collation::collation_equal_text_tie_breaker_is_loud,
            exact_collation_text_pages_without_an_option_asking_the_database
                => loud::collation::exact_collation_text_pages_without_an_option,
            lossy_bool_is_loud_in_every_direction_and_page_size
                => loud::lossy_values::lossy_bool_is_loud_in_every_direction,
            unique_column_with_ties_is_a_typed_error_not_a_lost_row
                => loud::ties::unique_column_with_ties_is_a_typed_error,
            join_repeating_the_tie_breaker_is_a_typed_error
                => loud::ties::join_repeating_rows_is_a_typed_error,
            group_by_pages_one_row_per_group
                => loud::ties::group_by_pages_one_row_per_group,
            long_and_escape_heavy_text_keys_walk_through_tokens
                => loud::long_text::long_and_escape_heavy_text_keys_walk_through_tokens,
            filtered_total_is_the_same_on_every_page
                => count::filtered_total_is_the_same_on_every_page,
            grouped_and_distinct_totals_count_groups_and_distinct_rows
                => count::grouped_and_distinct_totals_count_groups_and_distinct_rows,
            ordering_version_refuses_tokens_of_another_version
                => cases::tokens::ordering_version_refuses_tokens_of_another_version,
            expression_keys_walk_as_order_by_of_the_same_expression
                => expr_keys::expression_keys_walk_as_order_by,
            joined_keys_walk_as_order_by_over_the_join
                => expr_keys::joined_keys_walk_as_order_by,
            named_sorts_walk_as_order_by_and_refuse_each_others_tokens
                => named_sorts::named_sorts_walk_as_order_by_and_refuse_each_others_tokens,
            retained_pages_continue_past_the_last_row_read
                => retained::retained_pages_continue_past_the_last_row_read,
            composite_primary_key_tie_breaker_walks_as_order_by
                => composite_key::composite_primary_key_tie_breaker_walks_as_order_by,
        );
    };
    (@tests $db:ty; $($name:ident => $($path:ident)::+),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                $crate::$($path)::+::<$db>();
            }
        )*
    };
}
