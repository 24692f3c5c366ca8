use diesel::prelude::*;
use keyset_diesel::{Keyset, SortChoice};

diesel::table! {
    posts (id) {
        id -> BigInt,
        score -> Integer,
        title -> Nullable<Text>,
    }
}

// A model with a keyset of its own and two named sorts, one through a unique non-key column.
#[derive(Queryable, Selectable, Keyset)]
#[diesel(table_name = posts)]
#[keyset(sort(Top(score(desc), id(desc))))]
#[keyset(sort(MostRecentFirst(id(desc))))]
pub struct Post {
    #[keyset(asc)]
    pub id: i64,
    pub score: i32,
    pub title: Option<String>,
}

fn main() {
    assert_eq!(PostSort::NAMES, ["top", "most_recent_first"]);
    assert_eq!(
        PostByTop::sort_signature(),
        r#"posts@"posts"(score:i32 desc,id:i64 desc)"#
    );
    assert_eq!(Post::sort_signature(), r#"posts@"posts"(id:i64 asc)"#);
    assert_eq!(
        PostSort::MostRecentFirst.sort_signature(),
        PostByMostRecentFirst::sort_signature()
    );
}
