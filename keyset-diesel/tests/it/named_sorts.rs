//! Named sorts on SQLite: one model, several keysets, one chosen per request by the generated
//! enum; each walks as the database's own ORDER BY, its tokens are refused by the others, and
//! one generic function serves every sort.
#![cfg(feature = "sqlite")]

use diesel::dsl::AsSelect;
use diesel::prelude::*;
use diesel::sqlite::Sqlite;
use keyset_diesel::prelude::*;
use keyset_diesel::token::{CursorError, SecretKey};
use keyset_diesel::{CursorCodec, LoadPage, SortChoice, SortRow, UnknownSort};

diesel::table! { posts (id) { id -> BigInt, score -> Integer, created -> Integer, title -> Nullable<Text> } }

/// Three sorts of one model; the model itself has no keyset of its own. Two sorts share
/// `created(desc)` and `id(desc)`: clippy (`--all-targets -D warnings` in CI) must not take
/// them for duplicated attributes.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset, serde::Serialize)]
#[diesel(table_name = posts)]
#[keyset(sort(Newest(created(desc), id(desc))))]
#[keyset(sort(Top(score(desc), created(desc), id(desc))))]
#[keyset(sort(Title(title(asc, nulls_last), id(asc))))]
struct Post {
    id: i64,
    score: i32,
    created: i32,
    title: Option<String>,
}

fn db() -> SqliteConnection {
    let mut conn = SqliteConnection::establish(":memory:").unwrap();
    diesel::sql_query(
        "CREATE TABLE posts (id BIGINT PRIMARY KEY NOT NULL, score INTEGER NOT NULL, \
         created INTEGER NOT NULL, title TEXT)",
    )
    .execute(&mut conn)
    .unwrap();
    // Heavy ties: 3 scores, 5 creation times, 4 titles and NULL, over 40 rows whose ids are
    // not in insert order.
    for i in 0..40i64 {
        let id = (i * 17) % 41;
        let title = ["b", "a", "B", "c"].get((i % 5) as usize).copied();
        diesel::insert_into(posts::table)
            .values((
                posts::id.eq(id),
                posts::score.eq((i % 3) as i32),
                posts::created.eq((i % 5) as i32),
                posts::title.eq(title),
            ))
            .execute(&mut conn)
            .unwrap();
    }
    conn
}

/// One handler for every sort: a page of `K` (tokens in and out), the rows as the model.
fn page_of<'q, K>(
    conn: &mut SqliteConnection,
    codec: &CursorCodec,
    token: Option<&str>,
) -> Result<(Vec<i64>, Option<String>), Box<dyn std::error::Error>>
where
    K: SortRow<Post, Sqlite> + 'q,
    posts::BoxedQuery<'q, Sqlite, AsSelect<K, Sqlite>>: LoadPage<'q, SqliteConnection, K>,
{
    let cursor = token.map(|t| codec.decode::<K>(t, "posts")).transpose()?;
    let page = posts::table
        .select(K::as_select())
        .into_boxed::<Sqlite>()
        .paginate(cursor)
        .page_size(3)
        .load_page(conn)?;
    let next = page
        .next_cursor()
        .map(|c| codec.encode_with_page_size(&c, page.page_size, "posts"))
        .transpose()?;
    let page = page.map(Into::into);
    Ok((page.items.iter().map(|p: &Post| p.id).collect(), next))
}

/// Every page of sort `sort`, through tokens.
fn walk(
    conn: &mut SqliteConnection,
    codec: &CursorCodec,
    sort: PostSort,
) -> Result<Vec<i64>, Box<dyn std::error::Error>> {
    let mut ids = Vec::new();
    let mut token: Option<String> = None;
    loop {
        let (page, next) = match sort {
            PostSort::Newest => page_of::<PostByNewest>(conn, codec, token.as_deref())?,
            PostSort::Top => page_of::<PostByTop>(conn, codec, token.as_deref())?,
            PostSort::Title => page_of::<PostByTitle>(conn, codec, token.as_deref())?,
        };
        ids.extend(page);
        match next {
            Some(next) => token = Some(next),
            None => return Ok(ids),
        }
    }
}

fn codec() -> CursorCodec {
    CursorCodec::builder()
        .signing_key(SecretKey::new(1, b"named sorts test secret, 32+ bytes").unwrap())
        .build()
        .unwrap()
}

fn order_by(conn: &mut SqliteConnection, order: &str) -> Vec<i64> {
    #[derive(QueryableByName)]
    struct Id {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        id: i64,
    }
    diesel::sql_query(format!("SELECT id FROM posts ORDER BY {order}"))
        .load::<Id>(conn)
        .unwrap()
        .into_iter()
        .map(|r| r.id)
        .collect()
}

#[test]
fn each_named_sort_walks_as_its_order_by_through_tokens() {
    let conn = &mut db();
    let codec = codec();
    let orders = [
        (PostSort::Newest, "created DESC, id DESC"),
        (PostSort::Top, "score DESC, created DESC, id DESC"),
        (PostSort::Title, "title IS NULL, title ASC, id ASC"),
    ];
    for (sort, order) in orders {
        let expected = order_by(conn, order);
        assert_eq!(expected.len(), 40);
        assert_eq!(walk(conn, &codec, sort).unwrap(), expected, "{sort}");
    }
}

#[test]
fn a_token_of_one_sort_is_a_sort_mismatch_in_another() {
    let conn = &mut db();
    let codec = codec();
    let (_, next) = page_of::<PostByTop>(conn, &codec, None).unwrap();
    let token = next.expect("more than one page");
    let err = page_of::<PostByNewest>(conn, &codec, Some(&token)).unwrap_err();
    let err = err.downcast::<CursorError>().expect("a cursor error");
    assert!(matches!(*err, CursorError::SortMismatch), "{err:?}");
    // The same token in its own sort resumes.
    assert!(page_of::<PostByTop>(conn, &codec, Some(&token)).is_ok());
    // Every pair of sorts has its own signature.
    let signatures: std::collections::HashSet<String> =
        PostSort::ALL.iter().map(|s| s.sort_signature()).collect();
    assert_eq!(signatures.len(), 3);
    assert_eq!(PostSort::Top.sort_signature(), PostByTop::sort_signature());
}

#[test]
fn the_sort_enum_reads_and_writes_names_and_refuses_others() {
    assert_eq!(PostSort::NAMES, ["newest", "top", "title"]);
    assert_eq!("title".parse::<PostSort>(), Ok(PostSort::Title));
    assert_eq!(PostSort::default(), PostSort::Newest);
    assert_eq!(PostSort::Top.to_string(), "top");
    let e: UnknownSort = "oldest".parse::<PostSort>().unwrap_err();
    assert_eq!(e.expected, ["newest", "top", "title"]);
    #[derive(serde::Deserialize)]
    struct Query {
        #[serde(default)]
        sort: PostSort,
    }
    let q: Query = serde_json::from_str(r#"{"sort":"top"}"#).unwrap();
    assert_eq!(q.sort, PostSort::Top);
    let q: Query = serde_json::from_str("{}").unwrap();
    assert_eq!(q.sort, PostSort::Newest);
    let e = serde_json::from_str::<Query>(r#"{"sort":"Top"}"#)
        .err()
        .unwrap();
    assert!(
        e.to_string()
            .contains("expected one of \"newest\", \"top\", \"title\""),
        "{e}"
    );
    assert_eq!(
        serde_json::to_string(&PostSort::Title).unwrap(),
        "\"title\""
    );
}

#[test]
fn a_sort_row_is_the_model_in_a_wrapper() {
    let conn = &mut db();
    let row: PostByTop = posts::table
        .select(PostByTop::as_select())
        .order(posts::id)
        .first(conn)
        .unwrap();
    let plain: Post = posts::table
        .select(Post::as_select())
        .order(posts::id)
        .first(conn)
        .unwrap();
    assert_eq!(row.id, plain.id); // Deref
    assert_eq!(format!("{row:?}"), format!("PostByTop({plain:?})"));
    assert_eq!(row.clone(), row);
    assert_eq!(
        serde_json::to_value(&row).unwrap(),
        serde_json::json!({"id": plain.id, "score": plain.score, "created": plain.created, "title": plain.title})
    );
    assert_eq!(row.into_inner(), plain);
}
