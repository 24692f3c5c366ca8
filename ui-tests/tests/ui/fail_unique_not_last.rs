use keyset_diesel::Keyset;

diesel::table! {
    events (event_id) {
        event_id -> Text,
        occurred_at -> Timestamp,
        message -> Text,
    }
}

#[derive(Keyset)]
#[diesel(table_name = events)]
struct Event {
    #[keyset(asc, unique)]
    event_id: String,
    #[keyset(asc)]
    occurred_at: chrono::NaiveDateTime,
    #[keyset(asc)]
    message: String,
}

fn main() {}
