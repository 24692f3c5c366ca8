use keyset_diesel::Keyset;

diesel::table! {
    events (event_id) {
        event_id -> Text,
        occurred_at -> Timestamp,
    }
}

#[derive(Keyset)]
#[diesel(table_name = events)]
#[keyset(version = -2)]
struct Event {
    #[keyset(asc)]
    occurred_at: chrono::NaiveDateTime,
    #[keyset(asc, unique)]
    event_id: String,
}

fn main() {}
