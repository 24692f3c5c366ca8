use keyset_diesel::Keyset;

diesel::table! {
    posts (id) {
        id -> BigInt,
        score -> Integer,
        created -> Integer,
    }
}

// Every mistake a named sort can make on its own, all in one compile.
#[derive(Keyset)]
#[diesel(table_name = posts)]
#[keyset(sort(Newest(created(desc), idd(desc))))]
#[keyset(sort(Top(score, created(descending), id(desc))))]
#[keyset(sort(Old, created(desc), id(desc)))]
#[keyset(sort(Newest(id(asc))))]
#[keyset(sort(Empty()))]
#[keyset(sort(Twice(id(asc), id(desc))))]
#[keyset(sort(Unique(score(desc, unique), id(desc))))]
#[keyset(sort = Newest)]
#[keyset(sort())]
#[keyset(sort(most_liked(score(desc), id(desc))))]
struct Post {
    id: i64,
    score: i32,
    created: i32,
}

fn main() {}
