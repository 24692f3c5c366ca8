// Keys from a joined table, a join repeating the tie-breaker: `authors::id`, read through
// `select_expression` on a model of `books`, is not the model's primary key, and a join of
// authors to books repeats it (one row per book); without `unique` it is refused.
use keyset_diesel::Keyset;

diesel::table! {
    authors (id) {
        id -> BigInt,
        name -> Text,
    }
}

diesel::table! {
    books (id) {
        id -> BigInt,
        author_id -> BigInt,
    }
}

diesel::joinable!(books -> authors (author_id));
diesel::allow_tables_to_appear_in_same_query!(authors, books);

#[derive(Keyset)]
#[diesel(table_name = books)]
struct Book {
    #[keyset(asc)]
    #[diesel(select_expression = authors::name)]
    author_name: String,
    #[keyset(asc)]
    #[diesel(select_expression = authors::id)]
    author_id: i64,
}

fn main() {}
