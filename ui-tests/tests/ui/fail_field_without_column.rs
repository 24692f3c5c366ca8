use keyset_diesel::Keyset;

diesel::table! {
    events (event_id) {
        event_id -> Text,
        occurred_at -> Timestamp,
    }
}

// A key field is read from the column of the same name: `occured_at` is a typo, and `key`
// needs `#[diesel(column_name = event_id)]`.
#[derive(Keyset)]
#[diesel(table_name = events)]
struct Event {
    #[keyset(asc)]
    occured_at: chrono::NaiveDateTime,
    #[keyset(asc, unique)]
    key: String,
}

fn main() {}
