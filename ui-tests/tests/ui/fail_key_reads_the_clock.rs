// Keys that depend on the time of the request (a decaying "hot" score, an age): every row
// moves between two requests, so a walk repeats and loses rows without an error. The derive
// refuses the clock and random values it can see: Diesel's `now`, clock functions called, and
// SQL literals naming them, each on the word found.
use keyset_diesel::Keyset;

diesel::table! {
    posts (id) {
        id -> BigInt,
        votes -> Integer,
        created_at -> Timestamp,
    }
}

#[derive(Keyset)]
#[diesel(table_name = posts)]
struct ByAge {
    #[keyset(desc)]
    #[diesel(select_expression = diesel::dsl::now, select_expression_type = diesel::dsl::now)]
    checked_at: chrono::NaiveDateTime,
    #[keyset(asc, unique)]
    id: i64,
}

#[derive(Keyset)]
#[diesel(table_name = posts)]
struct Hot {
    #[keyset(desc)]
    #[diesel(select_expression = diesel::dsl::sql::<diesel::sql_types::Double>(
        "votes / (julianday('now') - julianday(created_at) + 2)"
    ), select_expression_type = diesel::expression::SqlLiteral<diesel::sql_types::Double>)]
    hot: f64,
    #[keyset(asc, unique)]
    id: i64,
}

fn main() {}
