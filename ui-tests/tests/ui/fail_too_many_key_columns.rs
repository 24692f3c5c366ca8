// A keyset has at most 12 columns (the key is a tuple of the key values): the 13th key column
// is refused on its own attribute.
use keyset_diesel::Keyset;

diesel::table! {
    wide (c13) {
        c1 -> Integer,
        c2 -> Integer,
        c3 -> Integer,
        c4 -> Integer,
        c5 -> Integer,
        c6 -> Integer,
        c7 -> Integer,
        c8 -> Integer,
        c9 -> Integer,
        c10 -> Integer,
        c11 -> Integer,
        c12 -> Integer,
        c13 -> Integer,
    }
}

#[derive(Keyset)]
#[diesel(table_name = wide)]
struct Wide {
    #[keyset(asc)]
    c1: i32,
    #[keyset(asc)]
    c2: i32,
    #[keyset(asc)]
    c3: i32,
    #[keyset(asc)]
    c4: i32,
    #[keyset(asc)]
    c5: i32,
    #[keyset(asc)]
    c6: i32,
    #[keyset(asc)]
    c7: i32,
    #[keyset(asc)]
    c8: i32,
    #[keyset(asc)]
    c9: i32,
    #[keyset(asc)]
    c10: i32,
    #[keyset(asc)]
    c11: i32,
    #[keyset(asc)]
    c12: i32,
    #[keyset(asc, unique)]
    c13: i32,
}

fn main() {}
