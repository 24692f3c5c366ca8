use diesel::prelude::*;
use keyset_diesel::prelude::*;

diesel::table! {
    events (event_id) {
        event_id -> Text,
        occurred_at -> Timestamp,
    }
}

#[derive(Queryable, Keyset)]
#[diesel(table_name = events)]
struct Event {
    #[keyset(asc)]
    occurred_at: chrono::NaiveDateTime,
    #[keyset(asc, unique)]
    event_id: String,
}

fn first_page(conn: &mut SqliteConnection) -> QueryResult<Page<Event>> {
    events::table
        .select((events::occurred_at, events::event_id))
        .offset(40)
        .paginate_after(None)
        .load_page(conn)
}

fn main() {}
