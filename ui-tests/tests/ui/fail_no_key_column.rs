use keyset_diesel::Keyset;

diesel::table! {
    events (event_id) {
        event_id -> Text,
        occurred_at -> Timestamp,
    }
}

// No field is marked #[keyset(..)], so there is nothing to order by.
#[derive(Keyset)]
#[diesel(table_name = events)]
struct Event {
    occurred_at: chrono::NaiveDateTime,
    event_id: String,
}

fn main() {}
