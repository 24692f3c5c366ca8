// An `.order(..)` left on a query paged on a diesel-async connection: one error, the crate's
// (it used to be reported three times: at the call, the expression and `.await`).
use diesel::prelude::*;
use diesel_async::sync_connection_wrapper::SyncConnectionWrapper;
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

async fn first_page(conn: &mut SyncConnectionWrapper<SqliteConnection>) -> QueryResult<Page<Event>> {
    events::table
        .select(Event::as_select())
        .order(events::occurred_at.desc())
        .paginate_after(None)
        .load_page(conn)
        .await
}

fn main() {}
