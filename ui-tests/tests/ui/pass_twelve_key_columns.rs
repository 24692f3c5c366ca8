// The widest keyset: 12 columns.
use keyset_diesel::Keyset;

diesel::table! {
    wide (c12) {
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
    }
}

#[derive(Keyset)]
#[diesel(table_name = wide)]
#[allow(dead_code)]
struct Widest {
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
    #[keyset(asc, unique)]
    c12: i32,
}

fn main() {
    assert_eq!(<Widest as Keyset>::COLUMNS.len(), 12);
}
