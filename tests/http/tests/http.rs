//! The feed_server example started in-process on every backend enabled and walked over HTTP:
//! token chains following `next_cursor` and `Link`, refusals as problem+json, the byte budget,
//! concurrent walks under inserts at the head. Needs the servers; fails when one is not
//! reachable.

#[cfg(feature = "sqlite")]
mod sqlite {
    keyset_tests_http::feed_server_suite!(diesel::SqliteConnection);
}

#[cfg(feature = "postgres")]
mod postgres {
    keyset_tests_http::feed_server_suite!(diesel::PgConnection);
}

#[cfg(feature = "mysql")]
mod mysql {
    keyset_tests_http::feed_server_suite!(diesel::MysqlConnection);
}

/// The GraphQL schema's types are the Relay connection the example documents, field for field.
#[test]
fn graphql_schema_has_the_relay_types() {
    let sdl = keyset_feed_server::schema(&keyset_feed_server::Settings::default()).sdl();
    let squeezed: String = sdl.split_whitespace().collect::<Vec<_>>().join(" ");
    for expected in [
        "events(workspace: String!, first: Int, after: String, last: Int, before: String): EventConnection!",
        "type EventConnection {",
        "pageInfo: PageInfo!",
        "edges: [EventEdge!]!",
        "nodes: [Event!]!",
        "totalCount: Int }",
        "type EventEdge {",
        "cursor: String!",
        "node: Event!",
        "type Event {",
        "id: String!",
        "occurredAt: String!",
        "message: String!",
        "type PageInfo {",
        "hasPreviousPage: Boolean!",
        "hasNextPage: Boolean!",
        "startCursor: String",
        "endCursor: String",
    ] {
        assert!(squeezed.contains(expected), "{expected}\n---\n{sdl}");
    }
}
