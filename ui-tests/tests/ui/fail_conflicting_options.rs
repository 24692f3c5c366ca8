use keyset_diesel::Keyset;

diesel::table! {
    tracks (id) {
        id -> BigInt,
        composer -> Nullable<Text>,
        milliseconds -> Integer,
    }
}

// Each mistake is reported, all in one compile.
#[derive(Keyset)]
#[diesel(table_name = tracks)]
struct Track {
    #[keyset(asc, nulls_first, nulls_last)]
    composer: Option<String>,
    #[keyset(asc, desc)]
    milliseconds: i32,
    #[keyset(asc, asc, unique)]
    id: i64,
}

fn main() {}
