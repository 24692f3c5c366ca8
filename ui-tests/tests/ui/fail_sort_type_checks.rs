use keyset_diesel::Keyset;

diesel::table! {
    posts (id) {
        id -> BigInt,
        score -> Integer,
        title -> Nullable<Text>,
    }
}

// What the compiler checks for a named sort, on the sort's own entries: a tie-breaker that is
// neither `unique` nor the primary key, a nullable column without a NULL placement, a
// placement on a NOT NULL column.
#[derive(Keyset)]
#[diesel(table_name = posts)]
#[keyset(sort(Top(id(desc), score(desc))))]
#[keyset(sort(Title(title(asc), id(asc))))]
#[keyset(sort(Score(score(desc, nulls_last), id(asc))))]
struct Post {
    id: i64,
    score: i32,
    title: Option<String>,
}

fn main() {}
