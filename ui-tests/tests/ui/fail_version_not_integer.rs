use keyset_diesel::Keyset;

diesel::table! {
    events (event_id) {
        event_id -> Text,
        occurred_at -> Timestamp,
    }
}

// A string, a float, an expression: each its own error, all in one compile.
#[derive(Keyset)]
#[diesel(table_name = events)]
#[keyset(version = "2")]
struct Event {
    #[keyset(asc)]
    occurred_at: chrono::NaiveDateTime,
    #[keyset(asc, unique)]
    event_id: String,
}

#[derive(Keyset)]
#[diesel(table_name = events)]
#[keyset(version = 2.5)]
struct EventFloat {
    #[keyset(asc, unique)]
    event_id: String,
}

const VERSION: u32 = 2;

#[derive(Keyset)]
#[diesel(table_name = events)]
#[keyset(version = VERSION)]
struct EventConst {
    #[keyset(asc, unique)]
    event_id: String,
}

fn main() {}
