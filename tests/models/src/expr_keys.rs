//! Keys read through `#[diesel(select_expression = ..)]`: a key on an SQL expression of the model's
//! table (`lower(name)`, a nullable `lower(nick)`), and a key on columns of a joined table
//! (`authors.name, authors.id, books.id` over `authors.inner_join(books)`). Every walk goes through
//! tokens and is compared with the database's own `ORDER BY` of the same expressions.
//!
//! Partner: `tests/suites/src/expr_keys.rs` holds the tests of this subject. The split follows the
//! crates' layers (docs/TESTING.md): this file, in the models crate, declares the models and
//! instantiates their pages once per backend; the tests reach them through traits, so editing
//! a test rebuilds no page.

use crate::models::Read;
use crate::TestDb;
use diesel::prelude::*;
use diesel::QueryResult;
use keyset_diesel::{Cursor, Keyset, Page};

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

/// `name ASC, id ASC` on the plain column: the ordering a seek that ignored the expression would
/// use.
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
pub fn create_people<C: TestDb>(db: &mut C, n: i64) {
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
pub fn create_books<C: TestDb>(db: &mut C) {
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
