// The prelude's (blocking) `PaginateDsl` on a diesel-async connection: one error, the crate's,
// naming the async import (`keyset_diesel::async_::PaginateDsl`) and `.await`
// (the guide's compile errors page, "Blocking and async mixed up").
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
        .load_page(conn)
}

fn main() {}
