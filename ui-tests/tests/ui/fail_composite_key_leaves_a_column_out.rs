use keyset_diesel::Keyset;

diesel::table! {
    order_lines (order_id, line_no) {
        order_id -> BigInt,
        line_no -> Integer,
        placed_at -> Timestamp,
    }
}

// A composite primary key is a tie-breaker only whole: `order_id` alone names many lines.
#[derive(Keyset)]
#[diesel(table_name = order_lines)]
struct LineByOrder {
    #[keyset(desc)]
    placed_at: chrono::NaiveDateTime,
    #[keyset(asc)]
    order_id: i64,
    line_no: i32,
}

// The key's columns in another order than `table!`'s are not the primary key either.
#[derive(Keyset)]
#[diesel(table_name = order_lines)]
struct LineSwapped {
    #[keyset(asc)]
    line_no: i32,
    #[keyset(asc)]
    order_id: i64,
}

fn main() {}
