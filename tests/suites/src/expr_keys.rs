//! Keys read through `#[diesel(select_expression = ..)]`: a key on an SQL expression of the model's
//! table (`lower(name)`, a nullable `lower(nick)`), and a key on columns of a joined table
//! (`authors.name, authors.id, books.id` over `authors.inner_join(books)`). Every walk goes through
//! tokens and is compared with the database's own `ORDER BY` of the same expressions.
//!
//! Partner: `tests/models/src/expr_keys.rs` declares this subject's models and instantiates their
//! pages. The split follows the crates' layers (docs/TESTING.md): this file, in the suites
//! crate, holds the tests, generic over the backend, so editing a test rebuilds no page.

use crate::models::{Read, Walk};
use crate::NextToken as _;
use diesel::QueryResult;
use keyset_diesel::token::{CursorError, SecretKey};
use keyset_diesel::{Cursor, CursorCodec, Keyset, Page};
pub use keyset_test_models::expr_keys::*;

/// The token codec of these walks.
pub(crate) fn codec() -> CursorCodec {
    let key = SecretKey::new(1, b"keyset tests: not a real secret!").expect("key");
    CursorCodec::builder()
        .signing_key(key)
        .build()
        .expect("codec")
}

/// Every page of a walk through tokens (encoded, then decoded for the next request), the ids
/// in display order: forward as read, backward with the pages put back in order.
pub(crate) fn token_walk<K: Keyset>(
    codec: &CursorCodec,
    how: Read,
    mut read: impl FnMut(Option<Cursor<K>>, Read) -> QueryResult<Page<K>>,
    id: impl Fn(&K) -> i64,
) -> Vec<i64> {
    let mut pages: Vec<Vec<i64>> = Vec::new();
    let mut token: Option<String> = None;
    for _ in 0..400 {
        let cursor = token
            .as_deref()
            .map(|t| codec.decode::<K>(t, &"expr").expect("token decodes"));
        let page = read(cursor, how).unwrap_or_else(|e| panic!("{how:?}: {e}"));
        assert!(page.items.len() <= how.page_size as usize);
        pages.push(page.items.iter().map(&id).collect());
        token = codec.next_token(&page, &"expr").expect("encodes");
        if token.is_none() {
            if how.backward {
                pages.reverse();
            }
            return pages.concat();
        }
    }
    panic!("the walk does not end: {how:?}");
}

/// The reads of every walk: page sizes 1..=3, forward and backward, with and without the
/// deferred join.
fn reads() -> Vec<Read> {
    let mut out = Vec::new();
    for page_size in 1..=3 {
        for deferred in [false, true] {
            for backward in [false, true] {
                out.push(Read {
                    backward,
                    deferred: Some(deferred),
                    ..Read::forward(page_size)
                });
            }
        }
    }
    out
}

/// Ordering by an expression: keys on `lower(name)` (both directions) and on the nullable
/// `lower(nick)` walk through tokens exactly as the database's `ORDER BY` of the same
/// expressions, at page sizes 1..=3, both ways, with and without the deferred join, plain and
/// boxed; the sort signature names the expression, so a token of the plain `name` ordering (or
/// of another expression) is refused.
pub fn expression_keys_walk_as_order_by<C>()
where
    C: ExprQueries,
    PersonLower: Walk<C, Filter = ()>,
    PersonLowerDesc: Walk<C, Filter = ()>,
    PersonNick: Walk<C, Filter = ()>,
    PersonName: Walk<C, Filter = ()>,
{
    let mut db = C::open();
    create_people(&mut *db, 40);
    let codec = codec();
    let by_lower = db.ids("SELECT id FROM expr_people ORDER BY lower(name), id");
    let by_lower_desc = db.ids("SELECT id FROM expr_people ORDER BY lower(name) DESC, id");
    // NULLS LAST spelt portably: `IS NULL` is 0 (false) before 1 (true) on every backend.
    let by_nick =
        db.ids("SELECT id FROM expr_people ORDER BY lower(nick) IS NULL, lower(nick), id DESC");
    let by_name = db.ids("SELECT id FROM expr_people ORDER BY name, id");
    assert_eq!(by_lower.len(), 40);
    // Heavy ties: 40 rows, 4 folded names.
    let groups = db.ids("SELECT COUNT(DISTINCT lower(name)) AS id FROM expr_people");
    assert_eq!(groups, vec![4]);
    if C::NAME == "SQLite" {
        // Binary collation: the plain column orders `ANN` before `ann`, so a seek on the plain
        // column (`name`) would walk another order.
        assert_ne!(by_lower, by_name);
    }
    let mut walks = 0;
    for how in reads() {
        for boxed in [false, true] {
            let how = Read { boxed, ..how };
            let walked = token_walk(
                &codec,
                how,
                |c, h| PersonLower::read(&mut *db, &(), c, h),
                |r| r.id,
            );
            assert_eq!(walked, by_lower, "lower(name) asc, {how:?}");
            let walked = token_walk(
                &codec,
                how,
                |c, h| PersonLowerDesc::read(&mut *db, &(), c, h),
                |r| r.id,
            );
            assert_eq!(walked, by_lower_desc, "lower(name) desc, {how:?}");
            let walked = token_walk(
                &codec,
                how,
                |c, h| PersonNick::read(&mut *db, &(), c, h),
                |r| r.id,
            );
            assert_eq!(walked, by_nick, "lower(nick) asc nulls last, {how:?}");
            let walked = token_walk(
                &codec,
                how,
                |c, h| PersonName::read(&mut *db, &(), c, h),
                |r| r.id,
            );
            assert_eq!(walked, by_name, "name asc, {how:?}");
            walks += 4;
        }
    }
    assert_eq!(walks, 96);

    // The sort signature names the expression: a token of one ordering is refused by the others.
    assert_eq!(
        PersonLower::sort_signature(),
        r#"expr_people@"expr_people"(lower(expr_people::name):text asc,id:i64 asc)"#
    );
    let page = PersonLower::read(&mut *db, &(), None, Read::forward(2)).expect("page");
    let token = codec
        .next_token(&page, &"expr")
        .expect("encodes")
        .expect("a next page");
    assert!(codec.decode::<PersonLower>(&token, &"expr").is_ok());
    assert_eq!(
        codec.decode::<PersonName>(&token, &"expr").err(),
        Some(CursorError::SortMismatch)
    );
    assert_eq!(
        codec.decode::<PersonLowerDesc>(&token, &"expr").err(),
        Some(CursorError::SortMismatch)
    );
}

/// Keys from joined tables: `(authors.name, authors.id, books.id)` over
/// `authors.inner_join(books)`, ascending and `name DESC, author id ASC, book id DESC`, walk
/// through tokens exactly as the database's `ORDER BY` of the same columns of the join, at page
/// sizes 1..=3, both ways, with and without the deferred join; the signatures name the joined
/// table's columns.
pub fn joined_keys_walk_as_order_by<C: ExprQueries>() {
    let mut db = C::open();
    create_books(&mut *db);
    let codec = codec();
    let join = "FROM expr_authors a INNER JOIN expr_books b ON b.author_id = a.id";
    let asc = db.ids(&format!(
        "SELECT b.id AS id {join} ORDER BY a.name, a.id, b.id"
    ));
    let desc = db.ids(&format!(
        "SELECT b.id AS id {join} ORDER BY a.name DESC, a.id, b.id DESC"
    ));
    assert_eq!(asc.len(), 18);
    // The key is not the book's own order: the join's order is the author's.
    assert_ne!(asc, (1..=18).collect::<Vec<i64>>());
    for how in reads() {
        let walked = token_walk(&codec, how, |c, h| db.books(c, h), |b| b.id);
        assert_eq!(walked, asc, "{how:?}");
        let walked = token_walk(&codec, how, |c, h| db.books_desc(c, h), |b| b.id);
        assert_eq!(walked, desc, "{how:?}");
    }
    assert_eq!(
        BookByAuthor::sort_signature(),
        r#"expr_books@"expr_books"(expr_authors::name:text asc,expr_authors::id:i64 asc,id:i64 asc)"#
    );
}

/// The plan of a deep [`PersonLower`] page on `expr_people` with 20,000 rows and the
/// expression index `index_sql` (created after the rows, then `analyze`d): the report, for the
/// backend's own assertions.
pub fn lower_name_plan<C: ExprQueries>(
    index_sql: &str,
    analyze: &str,
) -> keyset_diesel::plan::PlanReport {
    let mut db = C::open();
    create_people(&mut *db, 20_000);
    db.exec(index_sql);
    db.exec(analyze);
    db.lower_plan(12_345)
}
