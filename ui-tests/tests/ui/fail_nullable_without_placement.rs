use keyset_diesel::Keyset;

diesel::table! {
    tracks (id) {
        id -> BigInt,
        composer -> Nullable<Text>,
    }
}

#[derive(Keyset)]
#[diesel(table_name = tracks)]
struct Track {
    #[keyset(asc)]
    composer: Option<String>,
    #[keyset(asc, unique)]
    id: i64,
}

fn main() {}
