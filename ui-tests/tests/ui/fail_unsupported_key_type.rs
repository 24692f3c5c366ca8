use keyset_diesel::Keyset;

diesel::table! {
    products (id) {
        id -> BigInt,
        listed_at -> TimestamptzSqlite,
    }
}

// A local-time timestamp is not a key type: it binds its own UTC offset, so the text SQLite
// compares depends on the zone of the machine that wrote it. The message says to use
// `DateTime<Utc>`.
#[derive(Keyset)]
#[diesel(table_name = products)]
struct Product {
    #[keyset(desc)]
    listed_at: chrono::DateTime<chrono::Local>,
    #[keyset(asc, unique)]
    id: i64,
}

fn main() {}
