// `graphql_sort` makes the named sorts' enum a GraphQL enum: a model without named sorts has
// no such enum, and `graphql_sort` takes no value.
use diesel::prelude::*;
use keyset_diesel::prelude::*;

diesel::table! {
    events (event_id) {
        event_id -> Text,
    }
}

#[derive(Queryable, Keyset)]
#[diesel(table_name = events)]
#[keyset(graphql_sort)]
struct Event {
    #[keyset(asc, unique)]
    event_id: String,
}

#[derive(Queryable, Keyset)]
#[diesel(table_name = events)]
#[keyset(sort(Newest(event_id(desc))), graphql_sort = true)]
struct Post {
    event_id: String,
}

fn main() {}
