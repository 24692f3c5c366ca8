//! Query shapes beyond one model walked over one table: boxed queries that already carry
//! `ORDER BY`/`LIMIT`/`OFFSET`, `OR` filters, `DISTINCT` over a join, two output columns of one
//! name, a page size of zero. The tests are generic over [`Queries`]; the Diesel query each one
//! runs is written once, in `impl_queries!`, and implemented for every enabled backend.
//!
//! Partner: `tests/suites/src/queries.rs` holds the tests of this subject. The split follows the
//! crates' layers (docs/TESTING.md): this file, in the models crate, declares the models and
//! instantiates their pages once per backend; the tests reach them through traits, so editing
//! a test rebuilds no page.

use crate::joins::{Post, PostWithTagId};
use crate::models::{FeedEvent, ID_asc};
use crate::TestDb;
use diesel::QueryResult;
use keyset_diesel::{Cursor, Page};

/// What a boxed `keyset_rows` query carries before it is paginated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoxedClause {
    /// Nothing: a plain boxed query.
    None,
    /// `.order(a)`.
    Order,
    /// `.limit(3)`.
    Limit,
    /// `.offset(3)`.
    Offset,
}

/// The filter "workspace W9 or W7", written three ways.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrFilter {
    /// Diesel's `.or()`, which groups its operands.
    Grouped,
    /// Raw SQL in parentheses.
    Parenthesized,
    /// Raw SQL with a top-level `OR` and no parentheses.
    Bare,
}

/// The queries of this module's tests on one backend.
pub trait Queries: TestDb {
    /// `keyset_rows` as `ID_asc`, boxed with `clause`, first page.
    ///
    /// # Errors
    /// What `load_page` returns.
    fn boxed_id_asc(&mut self, clause: BoxedClause) -> QueryResult<Page<ID_asc>>;

    /// `events` filtered by `filter`, two rows per page.
    ///
    /// # Errors
    /// What `load_page` returns.
    fn feed_page(
        &mut self,
        filter: OrFilter,
        cursor: Option<Cursor<FeedEvent>>,
    ) -> QueryResult<Page<FeedEvent>>;

    /// `SELECT DISTINCT` posts joined to their tags `x` or `y`, two rows per page.
    ///
    /// # Errors
    /// What `load_page` returns.
    fn distinct_tagged_posts(
        &mut self,
        cursor: Option<Cursor<Post>>,
        deferred: bool,
        exact: bool,
    ) -> QueryResult<Page<Post>>;

    /// Posts joined to their tag `x`, selecting the tag's `id` beside the post's, two rows per
    /// page, exact flags.
    ///
    /// # Errors
    /// What `load_page` returns.
    fn posts_with_tag_id(
        &mut self,
        cursor: Option<Cursor<PostWithTagId>>,
        deferred: bool,
    ) -> QueryResult<Page<PostWithTagId>>;

    /// The event ids of `workspaces` in `occurred_at, event_id` order, by a plain `ORDER BY`.
    fn events_of(&mut self, workspaces: &[&str]) -> Vec<String>;

    /// `keyset_rows` as `ID_asc`, first page of `page_size` rows.
    ///
    /// # Errors
    /// What `load_page` returns.
    fn id_asc_page(&mut self, page_size: u32) -> QueryResult<Page<ID_asc>>;
}

macro_rules! impl_queries {
    ($feature:literal, $conn:ty) => {
        #[cfg(feature = $feature)]
        impl Queries for $conn {
            fn boxed_id_asc(&mut self, clause: BoxedClause) -> QueryResult<Page<ID_asc>> {
                use diesel::prelude::*;
                use keyset_diesel::PaginateDsl;
                use $crate::schema::keyset_rows;
                let base = keyset_rows::table.select(ID_asc::as_select()).into_boxed();
                let query = match clause {
                    BoxedClause::None => base,
                    BoxedClause::Order => base.order(keyset_rows::a),
                    BoxedClause::Limit => base.limit(3),
                    BoxedClause::Offset => base.offset(3),
                };
                query.paginate_after::<ID_asc>(None).load_page(self)
            }

            fn feed_page(
                &mut self,
                filter: OrFilter,
                cursor: Option<Cursor<FeedEvent>>,
            ) -> QueryResult<Page<FeedEvent>> {
                use diesel::dsl::sql;
                use diesel::prelude::*;
                use diesel::sql_types::Bool;
                use keyset_diesel::PaginateDsl;
                use $crate::schema::events;
                let filter: Box<
                    dyn BoxableExpression<
                        events::table,
                        <$conn as Connection>::Backend,
                        SqlType = Bool,
                    >,
                > = match filter {
                    OrFilter::Grouped => Box::new(
                        events::workspace_id
                            .eq("W9")
                            .or(events::workspace_id.eq("W7")),
                    ),
                    OrFilter::Parenthesized => {
                        Box::new(sql::<Bool>("(workspace_id = 'W9' OR workspace_id = 'W7')"))
                    }
                    OrFilter::Bare => {
                        Box::new(sql::<Bool>("workspace_id = 'W9' OR workspace_id = 'W7'"))
                    }
                };
                events::table
                    .filter(filter)
                    .select(FeedEvent::as_select())
                    .paginate_after(cursor)
                    .page_size(2)
                    .load_page(self)
            }

            fn events_of(&mut self, workspaces: &[&str]) -> Vec<String> {
                use diesel::prelude::*;
                use $crate::schema::events;
                events::table
                    .filter(events::workspace_id.eq_any(workspaces))
                    .order((events::occurred_at, events::event_id))
                    .select(events::event_id)
                    .load(self)
                    .expect("oracle")
            }

            fn distinct_tagged_posts(
                &mut self,
                cursor: Option<Cursor<Post>>,
                deferred: bool,
                exact: bool,
            ) -> QueryResult<Page<Post>> {
                use diesel::prelude::*;
                use keyset_diesel::PaginateDsl;
                use $crate::joins::{posts, tags};
                posts::table
                    .inner_join(tags::table)
                    .filter(tags::tag.eq_any(["x", "y"]))
                    .select(Post::as_select())
                    .distinct()
                    .paginate_after(cursor)
                    .page_size(2)
                    .deferred_join(deferred)
                    .exact_flags(exact)
                    .load_page(self)
            }

            fn posts_with_tag_id(
                &mut self,
                cursor: Option<Cursor<PostWithTagId>>,
                deferred: bool,
            ) -> QueryResult<Page<PostWithTagId>> {
                use diesel::prelude::*;
                use keyset_diesel::PaginateDsl;
                use $crate::joins::{posts, tags};
                posts::table
                    .inner_join(tags::table)
                    .filter(tags::tag.eq("x"))
                    .select(PostWithTagId::as_select())
                    .paginate_after(cursor)
                    .page_size(2)
                    .deferred_join(deferred)
                    .exact_flags(true)
                    .load_page(self)
            }

            fn id_asc_page(&mut self, page_size: u32) -> QueryResult<Page<ID_asc>> {
                use diesel::prelude::*;
                use keyset_diesel::PaginateDsl;
                use $crate::schema::keyset_rows;
                keyset_rows::table
                    .select(ID_asc::as_select())
                    .paginate_after::<ID_asc>(None)
                    .page_size(page_size)
                    .load_page(self)
            }
        }
    };
}

impl_queries!("sqlite", diesel::SqliteConnection);
impl_queries!("postgres", diesel::PgConnection);
impl_queries!("mysql", diesel::MysqlConnection);
