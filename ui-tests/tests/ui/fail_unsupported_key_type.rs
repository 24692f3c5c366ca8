use keyset_diesel::Keyset;

diesel::table! {
    products (id) {
        id -> BigInt,
        price -> Double,
    }
}

#[derive(Keyset)]
#[diesel(table_name = products)]
struct Product {
    #[keyset(desc)]
    price: f64,
    #[keyset(asc, unique)]
    id: i64,
}

fn main() {}
