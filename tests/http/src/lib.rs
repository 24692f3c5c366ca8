//! The feed server example (`examples/feed_server`) started in-process on `127.0.0.1:0` and
//! walked with a real HTTP client (reqwest), on every backend: the token chain followed through
//! `Link` and through `next_cursor`, every refusal as a problem+json 400, 401 and 404, the byte
//! budget (of live and of stored export pages), the export creation limits (422, 503), and 32
//! concurrent walks while a writer inserts rows at the head of the list.
//!
//! [`server`] starts the servers; each other module holds the tests of one subject, as
//! functions generic over the backend that [`feed_server_suite!`] stamps out as `#[test]`s in
//! `tests/http.rs`.

pub mod access;
pub mod byte_budget;
pub mod concurrent;
pub mod export_bounds;
pub mod graphql;
pub mod graphql_limits;
pub mod identifiers;
pub mod openapi;
pub mod refusals;
pub mod server;
pub mod stored_export;
pub mod token_chains;

pub use server::{get, Answer, FeedBackend, FeedDatabase, Server};

/// The feed server's HTTP tests for backend `$db`: one `#[test]` per test function of the
/// modules above.
#[macro_export]
macro_rules! feed_server_suite {
    ($db:ty) => {
        #[test]
        fn feed_server_stored_export_over_http() {
            $crate::stored_export::stored_export_over_http::<$db>();
        }

        #[test]
        fn feed_server_export_pages_keep_the_byte_budget() {
            $crate::export_bounds::export_pages_keep_the_byte_budget::<$db>();
        }

        #[test]
        fn feed_server_export_creation_refusals_are_422_and_503() {
            $crate::export_bounds::export_creation_refusals_are_422_and_503::<$db>();
        }

        #[test]
        fn feed_server_token_chain_walks_follow_next_cursor_and_link() {
            $crate::token_chains::token_chain_walks_follow_next_cursor_and_link::<$db>();
        }

        #[test]
        fn feed_server_link_headers_walk_next_to_the_end_and_prev_back() {
            $crate::token_chains::link_headers_walk_next_to_the_end_and_prev_back::<$db>();
        }

        #[test]
        fn feed_server_named_sort_travels_with_the_token() {
            $crate::token_chains::named_sort_travels_with_the_token::<$db>();
        }

        #[test]
        fn feed_server_openapi_document_names_parameters_link_and_problems() {
            $crate::openapi::openapi_document_names_parameters_link_and_problems::<$db>();
        }

        #[test]
        fn feed_server_graphql_relay_connection_walks_both_ways() {
            $crate::graphql::graphql_relay_connection_walks_both_ways::<$db>();
        }
        #[test]
        fn feed_server_graphql_feed_sorts_as_rest_with_sort_mismatch() {
            $crate::graphql::graphql_feed_sorts_as_rest_with_sort_mismatch::<$db>();
        }
        #[test]
        fn feed_server_graphql_cost_caps_page_reads() {
            $crate::graphql_limits::graphql_cost_caps_page_reads::<$db>();
        }
        #[test]
        fn feed_server_graphql_cost_caps_total_counts() {
            $crate::graphql_limits::graphql_cost_caps_total_counts::<$db>();
        }
        #[test]
        fn feed_server_graphql_body_is_bounded() {
            $crate::graphql_limits::graphql_body_is_bounded::<$db>();
        }
        #[test]
        fn feed_server_graphql_syntax_error_does_not_echo_the_document() {
            $crate::graphql_limits::graphql_syntax_error_does_not_echo_the_document::<$db>();
        }
        #[test]
        fn feed_server_graphql_introspection_is_a_setting() {
            $crate::graphql_limits::graphql_introspection_is_a_setting::<$db>();
        }
        #[test]
        fn feed_server_refusals_are_problem_json_400_401_404() {
            $crate::refusals::refusals_are_problem_json::<$db>();
        }
        #[test]
        fn feed_server_tenants_apart_under_every_collation() {
            $crate::access::tenants_apart_under_every_collation::<$db>();
        }
        #[test]
        fn feed_server_workspace_aliases_reach_no_other_tenant() {
            $crate::identifiers::workspace_aliases_reach_no_other_tenant::<$db>();
        }
        #[test]
        fn feed_server_member_name_aliases_take_no_token() {
            $crate::identifiers::member_name_aliases_take_no_token::<$db>();
        }
        #[test]
        fn feed_server_export_id_aliases_name_no_export() {
            $crate::identifiers::export_id_aliases_name_no_export::<$db>();
        }
        #[test]
        fn feed_server_identifier_columns_compare_exactly() {
            $crate::identifiers::identifier_columns_compare_exactly::<$db>();
        }
        #[test]
        fn feed_server_demo_bearer_tokens_are_random_and_hashed() {
            $crate::access::demo_bearer_tokens_are_random_and_hashed::<$db>();
        }
        #[test]
        fn feed_server_byte_budget_pages_attachments() {
            $crate::byte_budget::byte_budget_pages_attachments::<$db>();
        }
        #[test]
        fn feed_server_concurrent_walks_under_inserts_at_the_head() {
            $crate::concurrent::concurrent_walks_under_inserts_at_the_head::<$db>();
        }
    };
}
