use keyset_diesel::Keyset;

diesel::table! {
    tracks (id) {
        id -> BigInt,
        composer -> Nullable<Text>,
        milliseconds -> Integer,
    }
}

#[derive(Keyset)]
#[diesel(table_name = tracks)]
struct Track {
    #[keyset(asc, nulls_lats)]
    composer: Option<String>,
    #[keyset(descending)]
    milliseconds: i32,
    #[keyset(asc, uniqe)]
    id: i64,
}

fn main() {}
