use keyset_diesel::Keyset;

diesel::table! {
    events (event_id) {
        event_id -> Text,
        occurred_at -> Timestamp,
    }
}

// A bad version, a version on a field and the model's other mistakes: all in one compile.
#[derive(Keyset)]
#[diesel(table_name = events)]
#[keyset(version = 0, asc)]
struct Event {
    #[keyset(acs)]
    occurred_at: chrono::NaiveDateTime,
    #[keyset(asc, unique, version = 2)]
    event_id: String,
}

fn main() {}
