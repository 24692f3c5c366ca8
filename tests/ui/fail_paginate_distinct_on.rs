use diesel::prelude::*;
use keyset_diesel::prelude::*;

diesel::table! {
    events (id) {
        id -> Integer,
        device -> Text,
        at -> Integer,
    }
}

#[derive(Queryable, Selectable, Keyset)]
#[diesel(table_name = events)]
struct Event {
    #[keyset(asc)]
    device: String,
    #[keyset(desc)]
    at: i32,
    #[keyset(desc, unique)]
    id: i32,
}

// docs/CASES.md C33: the latest event per device cannot be paged by a seek.
fn first_page(conn: &mut PgConnection) -> QueryResult<Page<Event>> {
    events::table
        .distinct_on(events::device)
        .select(Event::as_select())
        .paginate_after(None)
        .load_page(conn)
}

fn main() {}
