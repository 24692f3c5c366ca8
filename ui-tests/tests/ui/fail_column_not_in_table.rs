use keyset_diesel::Keyset;

diesel::table! {
    events (event_id) {
        event_id -> Text,
        occurred_at -> Timestamp,
    }
}

#[derive(Keyset)]
#[diesel(table_name = events)]
struct Event {
    #[keyset(asc)]
    #[diesel(column_name = created_at)]
    at: chrono::NaiveDateTime,
    #[keyset(asc, unique)]
    event_id: String,
}

fn main() {}
