// Keys the WHERE clause cannot hold (aggregate and window keys): a key field read through an
// aggregate (`count(..)` over a GROUP BY: a leaderboard) or a window function. The seek
// predicate compares key columns in WHERE, where neither is allowed, so page 2 would be a
// database error: the derive refuses both, each on its expression.
use keyset_diesel::Keyset;

diesel::table! {
    scores (id) {
        id -> BigInt,
        player -> Text,
        points -> Integer,
    }
}

#[derive(Keyset)]
#[diesel(table_name = scores)]
struct Leader {
    #[keyset(desc)]
    #[diesel(select_expression = diesel::dsl::count(scores::id))]
    games: i64,
    #[keyset(asc, unique)]
    player: String,
}

#[derive(Keyset)]
#[diesel(table_name = scores)]
struct Ranked {
    #[keyset(asc)]
    #[diesel(select_expression = diesel::dsl::row_number().partition_by(scores::player))]
    nth: i64,
    #[keyset(asc, unique)]
    id: i64,
}

fn main() {}
