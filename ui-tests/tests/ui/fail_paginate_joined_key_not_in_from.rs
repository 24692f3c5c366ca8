// A keyset with a key from a joined table (`authors::name`) on a query that reads `books`
// alone: the joined key column cannot be read there, so the page does not compile (Diesel's
// `AppearsOnTable` error on the column, behind the model table's own check).
use diesel::prelude::*;
use keyset_diesel::prelude::*;

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
        title -> Text,
    }
}

diesel::joinable!(books -> authors (author_id));
diesel::allow_tables_to_appear_in_same_query!(authors, books);

#[derive(Queryable, Keyset)]
#[diesel(table_name = books)]
struct Book {
    #[keyset(asc)]
    #[diesel(select_expression = authors::name)]
    author_name: String,
    #[keyset(asc)]
    id: i64,
}

fn first_page(conn: &mut SqliteConnection) -> QueryResult<Page<Book>> {
    books::table
        .select((books::title, books::id))
        .paginate_after(None)
        .load_page(conn)
}

fn main() {}
