// A key field read through an expression (C18: ordering by lower(name)): the seek predicate
// and ORDER BY compare the column, so the derive refuses it on the option.
use diesel::prelude::*;
use keyset_diesel::Keyset;

diesel::table! {
    companies (id) {
        id -> BigInt,
        name -> Text,
    }
}

diesel::define_sql_function!(fn lower(x: diesel::sql_types::Text) -> diesel::sql_types::Text);

#[derive(Queryable, Selectable, Keyset)]
#[diesel(table_name = companies)]
struct Company {
    #[keyset(asc)]
    #[diesel(select_expression = lower(companies::name), select_expression_type = lower<companies::name>)]
    name: String,
    #[keyset(asc, unique)]
    id: i64,
}

fn main() {}
