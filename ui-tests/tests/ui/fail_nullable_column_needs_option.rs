use keyset_diesel::Keyset;

diesel::table! {
    tracks (id) {
        id -> BigInt,
        duration_ms -> Nullable<Integer>,
    }
}

#[derive(Keyset)]
#[diesel(table_name = tracks)]
struct Track {
    #[keyset(asc, nulls_last)]
    duration_ms: i32,
    #[keyset(asc, unique)]
    id: i64,
}

fn main() {}
