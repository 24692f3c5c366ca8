//! Keys read through `#[diesel(select_expression = ..)]` (issue 11 §1, docs/CASES.md C18 and
//! C35): a key on an SQL expression of the model's table (`lower(name)`, a nullable
//! `lower(nick)`), and a key on columns of a joined table (`authors.name, authors.id,
//! books.id` over `authors.inner_join(books)`). Every walk goes through tokens and is compared
//! with the database's own `ORDER BY` of the same expressions.

use diesel::prelude::*;
use diesel::QueryResult;
use keyset_diesel::{Cursor, CursorCodec, CursorError, Keyset, Page, SecretKey};

use crate::models::{Read, Walk};
use crate::TestDb;

diesel::table! {
    /// People whose names differ only in case, in heavy ties once folded.
    expr_people (id) {
        id -> BigInt,
        name -> Text,
        nick -> Nullable<Text>,
    }
}

diesel::table! {
    /// Authors, several sharing one name.
    expr_authors (id) {
        id -> BigInt,
        name -> Text,
    }
}

diesel::table! {
    /// Books, several per author.
    expr_books (id) {
        id -> BigInt,
        author_id -> BigInt,
        title -> Text,
    }
}

diesel::joinable!(expr_books -> expr_authors (author_id));
diesel::allow_tables_to_appear_in_same_query!(expr_authors, expr_books);

diesel::define_sql_function! {
    /// SQL `lower` on text.
    fn lower(x: diesel::sql_types::Text) -> diesel::sql_types::Text;
}

diesel::define_sql_function! {
    /// SQL `lower` on nullable text.
    #[sql_name = "lower"]
    fn lower_nullable(
        x: diesel::sql_types::Nullable<diesel::sql_types::Text>,
    ) -> diesel::sql_types::Nullable<diesel::sql_types::Text>;
}

/// `lower(name) ASC, id ASC`: the tie-breaker is the primary key, so it needs no `unique`.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = expr_people)]
pub struct PersonLower {
    pub name: String,
    #[keyset(asc)]
    #[diesel(select_expression = lower(expr_people::name))]
    pub folded: String,
    #[keyset(asc)]
    pub id: i64,
}
crate::impl_walk!(PersonLower, expr_people);

/// `lower(name) DESC, id ASC`: mixed directions (the expanded OR form on every backend).
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = expr_people)]
pub struct PersonLowerDesc {
    #[keyset(desc)]
    #[diesel(select_expression = lower(expr_people::name))]
    pub folded: String,
    #[keyset(asc)]
    pub id: i64,
}
crate::impl_walk!(PersonLowerDesc, expr_people);

/// `lower(nick) ASC NULLS LAST, id DESC`: a nullable expression, its type written out.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = expr_people)]
pub struct PersonNick {
    #[keyset(asc, nulls_last)]
    #[diesel(
        select_expression = lower_nullable(expr_people::nick),
        select_expression_type = lower_nullable<expr_people::nick>
    )]
    pub folded_nick: Option<String>,
    #[keyset(desc, unique)]
    pub id: i64,
}
crate::impl_walk!(PersonNick, expr_people);

/// `name ASC, id ASC` on the plain column: the ordering C18's wrong seek used.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = expr_people)]
pub struct PersonName {
    #[keyset(asc)]
    pub name: String,
    #[keyset(asc)]
    pub id: i64,
}
crate::impl_walk!(PersonName, expr_people);

/// A book keyed by its author's name, then its author's id, then its own id, over
/// `expr_authors.inner_join(expr_books)`: each joined row is one book, so the book's primary
/// key is unique per row and is accepted as the tie-breaker without `unique`.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = expr_books)]
pub struct BookByAuthor {
    #[keyset(asc)]
    #[diesel(select_expression = expr_authors::name)]
    pub author_name: String,
    #[keyset(asc)]
    #[diesel(select_expression = expr_authors::id)]
    pub author_id: i64,
    #[keyset(asc)]
    pub id: i64,
    pub title: String,
}

/// [`BookByAuthor`] with the author's name descending.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = expr_books)]
pub struct BookByAuthorDesc {
    #[keyset(desc)]
    #[diesel(select_expression = expr_authors::name)]
    pub author_name: String,
    #[keyset(asc)]
    #[diesel(select_expression = expr_authors::id)]
    pub author_id: i64,
    #[keyset(desc)]
    pub id: i64,
}

/// The joined pages on one backend.
pub trait ExprQueries: TestDb {
    /// `expr_authors.inner_join(expr_books)` as [`BookByAuthor`].
    ///
    /// # Errors
    /// What `load_page` returns.
    fn books(
        &mut self,
        cursor: Option<Cursor<BookByAuthor>>,
        how: Read,
    ) -> QueryResult<Page<BookByAuthor>>;

    /// The same as [`BookByAuthorDesc`].
    ///
    /// # Errors
    /// What `load_page` returns.
    fn books_desc(
        &mut self,
        cursor: Option<Cursor<BookByAuthorDesc>>,
        how: Read,
    ) -> QueryResult<Page<BookByAuthorDesc>>;

    /// The plan report of the [`PersonLower`] page after the row at `depth` of
    /// `ORDER BY lower(name), id`.
    fn lower_plan(&mut self, depth: i64) -> keyset_diesel::plan::PlanReport;
}

macro_rules! impl_expr_queries {
    ($feature:literal, $conn:ty) => {
        #[cfg(feature = $feature)]
        impl ExprQueries for $conn {
            fn books(
                &mut self,
                cursor: Option<Cursor<BookByAuthor>>,
                how: Read,
            ) -> QueryResult<Page<BookByAuthor>> {
                use keyset_diesel::PaginateDsl;
                let query = expr_authors::table
                    .inner_join(expr_books::table)
                    .select(BookByAuthor::as_select());
                let paginated = if how.backward {
                    query.paginate_before(cursor)
                } else {
                    query.paginate_after(cursor)
                };
                let paginated = paginated.page_size(how.page_size);
                match how.deferred {
                    Some(d) => paginated.deferred_join(d).load_page(self),
                    None => paginated.load_page(self),
                }
            }

            fn books_desc(
                &mut self,
                cursor: Option<Cursor<BookByAuthorDesc>>,
                how: Read,
            ) -> QueryResult<Page<BookByAuthorDesc>> {
                use keyset_diesel::PaginateDsl;
                let query = expr_authors::table
                    .inner_join(expr_books::table)
                    .select(BookByAuthorDesc::as_select());
                let paginated = if how.backward {
                    query.paginate_before(cursor)
                } else {
                    query.paginate_after(cursor)
                };
                let paginated = paginated.page_size(how.page_size);
                match how.deferred {
                    Some(d) => paginated.deferred_join(d).load_page(self),
                    None => paginated.load_page(self),
                }
            }

            fn lower_plan(&mut self, depth: i64) -> keyset_diesel::plan::PlanReport {
                use keyset_diesel::PaginateDsl;
                let id = self.ids(&format!(
                    "SELECT id FROM expr_people ORDER BY lower(name), id LIMIT 1 OFFSET {depth}"
                ))[0];
                let row: PersonLower = expr_people::table
                    .find(id)
                    .select(PersonLower::as_select())
                    .first(self)
                    .expect("deep row");
                let cursor = Cursor::after_row(&row);
                let page = expr_people::table
                    .select(PersonLower::as_select())
                    .paginate_after(Some(cursor))
                    .page_size(20)
                    .deferred_join(false);
                keyset_diesel::plan::explain(self, page).expect("plan")
            }
        }
    };
}

impl_expr_queries!("sqlite", diesel::SqliteConnection);
impl_expr_queries!("postgres", diesel::PgConnection);
impl_expr_queries!("mysql", diesel::MysqlConnection);

/// Names differing only in case (and `b_o`, whose `_` sorts differently from letters under some
/// collations): nine spellings, four once folded.
const NAMES: [&str; 9] = ["ann", "Ann", "ANN", "bob", "Bob", "BOB", "b_o", "cy", "Cy"];

/// `expr_people` with `n` rows: ids scrambled against the names, a NULL nick for one row in
/// four.
fn create_people<C: TestDb>(db: &mut C, n: i64) {
    db.exec(
        "CREATE TABLE expr_people (id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(16) NOT NULL, \
         nick VARCHAR(16))",
    );
    let rows: Vec<String> = (1..=n)
        .map(|id| {
            let name = NAMES[((id * 7) % 9) as usize];
            let nick = if id % 4 == 0 {
                "NULL".to_string()
            } else {
                format!("'{}'", NAMES[((id * 5) % 9) as usize])
            };
            format!("({id}, '{name}', {nick})")
        })
        .collect();
    for chunk in rows.chunks(500) {
        db.exec(&format!(
            "INSERT INTO expr_people VALUES {}",
            chunk.join(", ")
        ));
    }
}

/// Authors 1..=6 named `Ames`, `Ames`, `Baker`, `Ames`, `Baker`, `Cole` (ties on the name);
/// books 1..=18 with scrambled authors, author 6 without books.
fn create_books<C: TestDb>(db: &mut C) {
    db.exec(
        "CREATE TABLE expr_authors (id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(16) NOT NULL)",
    );
    db.exec(
        "CREATE TABLE expr_books (id BIGINT NOT NULL PRIMARY KEY, author_id BIGINT NOT NULL, \
         title VARCHAR(16) NOT NULL)",
    );
    db.exec(
        "INSERT INTO expr_authors VALUES (1, 'Ames'), (2, 'Ames'), (3, 'Baker'), (4, 'Ames'), \
         (5, 'Baker'), (6, 'Cole')",
    );
    let books: Vec<String> = (1..=18)
        .map(|id| format!("({id}, {}, 't{id}')", 1 + (id * 7) % 5))
        .collect();
    db.exec(&format!(
        "INSERT INTO expr_books VALUES {}",
        books.join(", ")
    ));
}

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
        token = codec.encode_page_cursor(&page, &"expr").expect("encodes");
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

/// C18 and issue 11 §1: keys on `lower(name)` (both directions) and on the nullable
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
        // Binary collation: the plain column orders `ANN` before `ann`, so C18's wrong seek
        // (on `name`) would walk another order.
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
        .encode_page_cursor(&page, &"expr")
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

/// Issue 11 §1, keys from joined tables: `(authors.name, authors.id, books.id)` over
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
