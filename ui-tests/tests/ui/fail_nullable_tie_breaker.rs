use keyset_diesel::Keyset;

diesel::table! {
    users (id) {
        id -> BigInt,
        signed_up_at -> Timestamp,
        email -> Nullable<Text>,
    }
}

// `email` is unique where present, but many rows may have no email.
#[derive(Keyset)]
#[diesel(table_name = users)]
struct User {
    #[keyset(desc)]
    signed_up_at: chrono::NaiveDateTime,
    #[keyset(asc, unique)]
    email: Option<String>,
}

fn main() {}
