use keyset_diesel::Keyset;

diesel::table! {
    events (event_id) {
        event_id -> Text,
        occurred_at -> Timestamp,
        message -> Text,
    }
}

// The last key column must name one row: `occurred_at` alone does not.
#[derive(Keyset)]
#[diesel(table_name = events)]
struct Event {
    #[keyset(desc)]
    occurred_at: chrono::NaiveDateTime,
    event_id: String,
    message: String,
}

fn main() {}
