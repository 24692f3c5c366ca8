use diesel::prelude::*;
use keyset_diesel::prelude::*;

diesel::table! {
    events (event_id) {
        event_id -> Text,
        occurred_at -> Timestamp,
    }
}

// Every mistake of the model is reported in one compile, and nothing else: the model's use
// below adds no "`Event: Keyset` is not satisfied" of its own.
#[derive(Queryable, Keyset)]
#[diesel(table_name = events)]
struct Event {
    #[keyset(acs)]
    occurred_at: chrono::NaiveDateTime,
    #[keyset(asc, unique, unique)]
    event_id: String,
}

fn first_page(conn: &mut SqliteConnection) -> QueryResult<Page<Event>> {
    events::table
        .select((events::occurred_at, events::event_id))
        .paginate_after(None)
        .load_page(conn)
}

fn main() {}
