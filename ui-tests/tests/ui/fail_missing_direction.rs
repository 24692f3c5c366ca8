use keyset_diesel::Keyset;

diesel::table! {
    events (event_id) {
        event_id -> Text,
        occurred_at -> Timestamp,
    }
}

// Every key column says which way it sorts.
#[derive(Keyset)]
#[diesel(table_name = events)]
struct Event {
    #[keyset]
    occurred_at: chrono::NaiveDateTime,
    #[keyset(unique)]
    event_id: String,
}

fn main() {}
