// `DISTINCT ON` keeps the first row of each group in the query's own order; a keyset page
// would re-admit the rest of the cursor's group. An unboxed query with `.distinct_on(..)` must
// not compile, with the crate's message (not Diesel's unrelated `OrderDsl` bound).
use diesel::prelude::*;
use keyset_diesel::prelude::*;

diesel::table! {
    readings (reading_id) {
        reading_id -> BigInt,
        device -> Text,
        taken_at -> Timestamp,
    }
}

#[derive(Queryable, Selectable, Keyset)]
#[diesel(table_name = readings)]
struct Reading {
    #[keyset(asc)]
    device: String,
    #[keyset(desc)]
    taken_at: chrono::NaiveDateTime,
    #[keyset(desc, unique)]
    reading_id: i64,
}

fn latest_per_device() {
    let _query = readings::table
        .distinct_on(readings::device)
        .select(Reading::as_select())
        .paginate_after(None)
        .into_query::<diesel::pg::Pg>();
}

fn main() {}
