use diesel::prelude::*;
use keyset_diesel::prelude::*;

diesel::table! {
    events (event_id) {
        event_id -> Text,
        occurred_at -> Timestamp,
    }
}

diesel::table! {
    archived_events (event_id) {
        event_id -> Text,
        occurred_at -> Timestamp,
    }
}

diesel::allow_tables_to_appear_in_same_query!(events, archived_events);

#[derive(Queryable, Keyset)]
#[diesel(table_name = events)]
struct Event {
    #[keyset(asc)]
    occurred_at: chrono::NaiveDateTime,
    #[keyset(asc, unique)]
    event_id: String,
}

// `Event`'s keyset orders by `events` columns, but this query reads `archived_events`.
fn first_page(conn: &mut SqliteConnection) -> QueryResult<Page<Event>> {
    archived_events::table
        .select((archived_events::occurred_at, archived_events::event_id))
        .paginate_after(None)
        .load_page(conn)
}

fn main() {}
