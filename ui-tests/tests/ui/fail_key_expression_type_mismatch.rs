// A key on an SQL expression (`select_expression`) whose SQL type does not match the field:
// `lower(name)` is Text, the field an i64. Refused at the field's type, naming the expression.
use keyset_diesel::Keyset;

diesel::table! {
    companies (id) {
        id -> BigInt,
        name -> Text,
    }
}

diesel::define_sql_function!(fn lower(x: diesel::sql_types::Text) -> diesel::sql_types::Text);

#[derive(Keyset)]
#[diesel(table_name = companies)]
struct Company {
    #[keyset(asc)]
    #[diesel(select_expression = lower(companies::name))]
    folded: i64,
    #[keyset(asc, unique)]
    id: i64,
}

fn main() {}
