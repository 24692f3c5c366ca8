// `keyset_diesel::async_::PaginateDsl` on a blocking connection: one error, the crate's,
// naming the blocking import (`keyset_diesel::prelude::*`) and no `.await`
// (the guide's compile errors page, "Blocking and async mixed up").
use diesel::prelude::*;
use keyset_diesel::async_::PaginateDsl;
use keyset_diesel::{Keyset, Page};

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

async fn first_page(conn: &mut SqliteConnection) -> QueryResult<Page<Event>> {
    events::table
        .select(Event::as_select())
        .paginate_after(None)
        .load_page(conn)
        .await
}

fn main() {}
