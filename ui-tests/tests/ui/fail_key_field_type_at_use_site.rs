//! A key field whose type does not match its column: the derive's message, and the model's
//! use sites add no errors of their own about the keyset.

use diesel::prelude::*;
use keyset_diesel::prelude::*;

diesel::table! {
    events (event_id) {
        event_id -> BigInt,
        occurred_at -> Timestamp,
    }
}

#[derive(Queryable, Keyset)]
#[diesel(table_name = events)]
struct Event {
    #[keyset(asc)]
    occurred_at: chrono::NaiveDateTime,
    #[keyset(asc, unique)]
    event_id: i32,
}

fn first_page(conn: &mut SqliteConnection) -> QueryResult<Page<Event>> {
    events::table
        .select((events::occurred_at, events::event_id))
        .paginate_after(None)
        .load_page(conn)
}

fn main() {}
