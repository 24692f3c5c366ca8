//! Queries beyond one table (joins, `DISTINCT`, duplicate output names), from the hostile
//! review: the deferred join and the union page must keep their results exact.

use diesel::prelude::*;
use keyset_diesel::Keyset;

use crate::TestDb;

diesel::table! {
    posts (id) {
        id -> BigInt,
        at -> Integer,
    }
}

diesel::table! {
    tags (id) {
        id -> BigInt,
        post_id -> BigInt,
        tag -> Text,
    }
}

diesel::joinable!(tags -> posts (post_id));
diesel::allow_tables_to_appear_in_same_query!(posts, tags);

/// A post by `at ASC, id ASC`.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = posts)]
pub struct Post {
    #[keyset(asc)]
    pub at: i32,
    #[keyset(asc, unique)]
    pub id: i64,
}

/// A post with the id of one of its tags selected first: two output columns named `id`.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = posts)]
pub struct PostWithTagId {
    #[diesel(select_expression = tags::id, select_expression_type = tags::id)]
    pub tag_id: i64,
    #[keyset(asc)]
    pub at: i32,
    #[keyset(asc, unique)]
    pub id: i64,
}

/// Posts 1..=6, all with the same `at` (ties), each tagged `x` and `y`; tag ids run the other
/// way round (`100 - post id`, `200 - post id`).
pub fn posts_with_two_tags<C: TestDb>(db: &mut C) {
    db.exec("CREATE TABLE posts (id BIGINT NOT NULL PRIMARY KEY, at INTEGER NOT NULL)");
    db.exec(
        "CREATE TABLE tags (id BIGINT NOT NULL PRIMARY KEY, post_id BIGINT NOT NULL, \
         tag VARCHAR(8) NOT NULL)",
    );
    for id in 1..=6 {
        db.exec(&format!("INSERT INTO posts VALUES ({id}, 0)"));
        db.exec(&format!(
            "INSERT INTO tags VALUES ({}, {id}, 'x'), ({}, {id}, 'y')",
            100 - id,
            200 - id
        ));
    }
}

/// Runs `page(cursor)` until the end; returns the ids in walk order (at most 20 pages).
pub fn walk_ids<K: Keyset>(
    mut page: impl FnMut(Option<keyset_diesel::Cursor<K>>) -> keyset_diesel::Page<K>,
    id: impl Fn(&K) -> i64,
) -> Vec<i64> {
    let mut cursor = None;
    let mut ids = Vec::new();
    for _ in 0..20 {
        let p = page(cursor.take());
        ids.extend(p.items.iter().map(&id));
        match p.next_cursor() {
            Some(c) => cursor = Some(c),
            None => return ids,
        }
    }
    panic!("the walk does not end: {ids:?}");
}
