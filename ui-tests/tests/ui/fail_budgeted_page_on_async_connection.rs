// A byte-budgeted page (`max_bytes_in_sql`) of the prelude's (blocking) `PaginateDsl` on a
// diesel-async connection: the budgeted bound reports through `LoadPage`, so the message is the
// crate's and names the async import, as without the budget.
use diesel::prelude::*;
use diesel_async::sync_connection_wrapper::SyncConnectionWrapper;
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

fn first_page(conn: &mut SyncConnectionWrapper<SqliteConnection>) -> QueryResult<Page<Event>> {
    events::table
        .select(Event::as_select())
        .paginate_after(None)
        .max_bytes_in_sql(4096, events::event_id)
        .load_page(conn)
}

fn main() {}
