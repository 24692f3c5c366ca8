// A key field read through a conversion in Rust or a nested model: the seek predicate
// and ORDER BY compare the field's SQL expression, not the value it is converted to or from, so
// the derive refuses `deserialize_as`, `serialize_as`, `embed`, and a `select_expression_type`
// without its `select_expression`, on the option. (`select_expression` itself is a key on that
// expression: see fail_key_expression_type_mismatch.rs and pass_valid_models.rs.)
use keyset_diesel::Keyset;

diesel::table! {
    companies (id) {
        id -> BigInt,
        name -> Text,
        code -> Text,
        rank -> Integer,
    }
}

#[derive(Keyset)]
#[diesel(table_name = companies)]
struct Company {
    #[keyset(asc)]
    #[diesel(deserialize_as = String)]
    name: String,
    #[keyset(asc)]
    #[diesel(serialize_as = String)]
    code: String,
    #[keyset(asc)]
    #[diesel(select_expression_type = companies::rank)]
    rank: i32,
    #[keyset(asc, unique)]
    id: i64,
}

fn main() {}
