use keyset_diesel::Keyset;

diesel::table! {
    events (event_id) {
        event_id -> Text,
        occurred_at -> Timestamp,
    }
}

// Every `index` mistake is reported, each on its own span, in one compile.
#[derive(Keyset)]
#[diesel(table_name = events)]
#[keyset(index)]
#[keyset(index = events_feed)]
#[keyset(index = "")]
#[keyset(index = "events_feed")]
#[keyset(index = "events_other")]
#[keyset(sort(Oldest(occurred_at(asc), event_id(asc), index = 7)))]
#[keyset(sort(Latest(occurred_at(desc, index = "x"), event_id(desc))))]
#[keyset(sort(Newest(occurred_at(desc), event_id(desc), index = "a", index = "b")))]
#[keyset(sort(Spaced(occurred_at(asc), event_id(asc), index = " events_feed")))]
struct Event {
    #[keyset(asc)]
    occurred_at: chrono::NaiveDateTime,
    #[keyset(asc, unique, index = "events_pkey")]
    event_id: String,
}

// An index on the struct names the model's own keyset's index: this model has only named
// sorts.
#[derive(Keyset)]
#[diesel(table_name = events)]
#[keyset(index = "events_feed")]
#[keyset(sort(Newest(occurred_at(desc), event_id(desc))))]
struct SortsOnly {
    occurred_at: chrono::NaiveDateTime,
    event_id: String,
}

fn main() {}
