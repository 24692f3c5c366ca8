use keyset_diesel::Keyset;

diesel::table! {
    events (event_id) {
        event_id -> Text,
        occurred_at -> Timestamp,
    }
}

// Versions start at 1, the ordering of a model without the attribute.
#[derive(Keyset)]
#[diesel(table_name = events)]
#[keyset(version = 0)]
struct Event {
    #[keyset(asc)]
    occurred_at: chrono::NaiveDateTime,
    #[keyset(asc, unique)]
    event_id: String,
}

fn main() {}
