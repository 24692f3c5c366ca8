//! The public paths of `web::graphql` (feature `async-graphql`), pinned here rather than in
//! `ui-tests/tests/ui/pass_public_paths.rs`, which pins every other public name: the UI cases
//! compile against a crate of their own whose every dependency is built once more per run, and
//! async-graphql there costs about 85 seconds of each CI run. A move or a removal of one of
//! these names fails this binary's build, which CI runs with every feature.

#![cfg(all(feature = "async-graphql", feature = "sqlite"))]

use diesel::prelude::*;
use keyset_diesel::token::SecretKey;
use keyset_diesel::web::graphql::{
    connection, error, CostLimit, DocumentCost, RelayArgs, RelayConnection, RelayRequest,
    TotalCount,
};
use keyset_diesel::web::{PageSizePolicy, Problem};
use keyset_diesel::{CursorCodec, Page, PaginateDsl};

diesel::table! { events (id) { id -> BigInt } }

#[derive(Queryable, Selectable, keyset_diesel::Keyset)]
#[diesel(table_name = events)]
struct Event {
    #[keyset(asc, unique)]
    id: i64,
}

#[test]
fn every_graphql_name_is_at_its_public_path() {
    let conn = &mut SqliteConnection::establish(":memory:").expect("SQLite in memory");
    diesel::sql_query("CREATE TABLE events (id BIGINT PRIMARY KEY)")
        .execute(conn)
        .expect("table");
    let page: Page<Event> = events::table
        .select(Event::as_select())
        .paginate_after(None)
        .load_page(conn)
        .expect("an empty page");
    let codec = CursorCodec::builder()
        .signing_key(SecretKey::new(1, &[7; 32]).expect("key"))
        .build()
        .expect("codec");
    let relay: RelayConnection<i64> =
        connection(page, &codec, "events", |e| e.id).expect("a connection");
    assert!(relay.edges.is_empty() && !relay.has_next_page);
    let _ = error(&Problem::internal());
    let _: Option<(RelayArgs, RelayRequest<Event>, TotalCount)> = None;
    let limit = CostLimit::new(PageSizePolicy::new(1, 2).expect("policy"), &["events"]);
    let cost: DocumentCost = limit
        .pages(1)
        .counts(0)
        .selections(9)
        .check(&mut async_graphql::Request::new(
            "{ events { edges { cursor } } }",
        ))
        .expect("within the limits");
    assert_eq!(
        (cost.pages, cost.rows, cost.counts, cost.selections),
        (1, 1, 0, 3)
    );
}
