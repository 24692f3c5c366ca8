//! A cursor of another model than the one the query selects: one error, at the call.

use diesel::prelude::*;
use keyset_diesel::prelude::*;

diesel::table! {
    events (event_id) {
        event_id -> Text,
        occurred_at -> Timestamp,
    }
}

#[derive(Queryable, Selectable, Keyset)]
#[diesel(table_name = events)]
struct Event {
    #[keyset(asc)]
    occurred_at: chrono::NaiveDateTime,
    #[keyset(asc, unique)]
    event_id: String,
}

#[derive(Queryable, Selectable, Keyset)]
#[diesel(table_name = events)]
struct Newest {
    #[keyset(desc, unique)]
    event_id: String,
}

fn next_page(conn: &mut SqliteConnection, cursor: Cursor<Newest>) -> QueryResult<Page<Event>> {
    events::table
        .select(Event::as_select())
        .paginate_after(Some(cursor))
        .load_page(conn)
}

fn main() {}
