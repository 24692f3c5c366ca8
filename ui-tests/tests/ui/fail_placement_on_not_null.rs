use keyset_diesel::Keyset;

diesel::table! {
    tracks (id) {
        id -> BigInt,
        name -> Text,
    }
}

#[derive(Keyset)]
#[diesel(table_name = tracks)]
struct Track {
    #[keyset(asc, nulls_last)]
    name: String,
    #[keyset(asc, unique)]
    id: i64,
}

fn main() {}
