//! The opt-in total count (`with_total_count`), on every backend: the count
//! of the query without the seek, `ORDER BY` and `LIMIT`, equal to the oracle's row count (the
//! plain query's rows, read by SQL of its own) on every page: first and later pages, forward
//! and backward, empty pages, filtered, grouped (`GROUP BY`, `HAVING`) and `DISTINCT` queries,
//! boxed and unboxed, with and without exact flags, one seek per key level and the deferred
//! join. (The oracle property test checks the count on random tables and walks, blocking and
//! async; the async SQL test checks that the count costs no second statement.)
//!
//! Partner: `tests/suites/src/count.rs` holds the tests of this subject. The split follows the
//! crates' layers (docs/TESTING.md): this file, in the models crate, declares the models and
//! instantiates their pages once per backend; the tests reach them through traits, so editing
//! a test rebuilds no page.

use crate::models::Read;
use crate::TestDb;
use diesel::prelude::*;
use diesel::QueryResult;
use keyset_diesel::{Cursor, Keyset, Page};

diesel::table! {
    /// The items of the total-count tests.
    count_items (id) {
        id -> BigInt,
        tenant -> Text,
        grp -> BigInt,
    }
}

/// An item, keyed `id ASC`.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = count_items)]
pub struct CountItem {
    #[keyset(asc, unique)]
    pub id: i64,
    pub tenant: String,
    pub grp: i64,
}

/// `GROUP BY grp` with the group's row count, keyed on the group key.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = count_items)]
pub struct CountGroup {
    #[keyset(asc, unique)]
    pub grp: i64,
    #[diesel(
        select_expression = diesel::dsl::count_star(),
        select_expression_type = diesel::dsl::count_star
    )]
    pub rows: i64,
}

/// `SELECT DISTINCT grp`, keyed on `grp`.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = count_items)]
pub struct DistinctGroup {
    #[keyset(asc, unique)]
    pub grp: i64,
}

/// The total-count queries on one backend, each read as `how` says, with the total count.
pub trait CountQueries: TestDb {
    /// Tenant `tenant`'s items, and only group `grp` when given.
    ///
    /// # Errors
    /// What `load_page` returns.
    fn items(
        &mut self,
        tenant: &str,
        grp: Option<i64>,
        cursor: Option<Cursor<CountItem>>,
        how: Read,
    ) -> QueryResult<Page<CountItem>>;

    /// Tenant A's groups, `HAVING count(*) >= having` when given.
    ///
    /// # Errors
    /// What `load_page` returns.
    fn groups(
        &mut self,
        having: Option<i64>,
        cursor: Option<Cursor<CountGroup>>,
        how: Read,
    ) -> QueryResult<Page<CountGroup>>;

    /// Tenant A's distinct groups.
    ///
    /// # Errors
    /// What `load_page` returns.
    fn distinct_groups(
        &mut self,
        cursor: Option<Cursor<DistinctGroup>>,
        how: Read,
    ) -> QueryResult<Page<DistinctGroup>>;
}

/// `$query` paginated as `how` says (boxed through `.into_boxed()` when `how.boxed`), with the
/// total count, loaded on `$conn`.
macro_rules! load_counted {
    ($conn:expr, $query:expr, $cursor:expr, $how:expr) => {{
        use keyset_diesel::PaginateDsl;
        let how: Read = $how;
        macro_rules! run {
            ($q:expr) => {{
                let paginated = if how.backward {
                    $q.paginate_before($cursor)
                } else {
                    $q.paginate_after($cursor)
                }
                .page_size(how.page_size)
                .exact_flags(how.exact)
                .seek_per_level(how.per_level)
                .with_total_count();
                match how.deferred {
                    Some(deferred) => paginated.deferred_join(deferred).load_page($conn),
                    None => paginated.load_page($conn),
                }
            }};
        }
        if how.boxed {
            run!($query.into_boxed())
        } else {
            run!($query)
        }
    }};
}

macro_rules! impl_count_queries {
    ($feature:literal, $conn:ty) => {
        #[cfg(feature = $feature)]
        impl CountQueries for $conn {
            fn items(
                &mut self,
                tenant: &str,
                grp: Option<i64>,
                cursor: Option<Cursor<CountItem>>,
                how: Read,
            ) -> QueryResult<Page<CountItem>> {
                let (lo, hi) = grp.map_or((i64::MIN, i64::MAX), |g| (g, g));
                let query = count_items::table
                    .filter(count_items::tenant.eq(tenant.to_string()))
                    .filter(count_items::grp.between(lo, hi))
                    .select(CountItem::as_select());
                load_counted!(self, query, cursor, how)
            }

            fn groups(
                &mut self,
                having: Option<i64>,
                cursor: Option<Cursor<CountGroup>>,
                how: Read,
            ) -> QueryResult<Page<CountGroup>> {
                let query = count_items::table
                    .filter(count_items::tenant.eq("A"))
                    .group_by(count_items::grp)
                    .having(diesel::dsl::count_star().ge(having.unwrap_or(0)))
                    .select(CountGroup::as_select());
                load_counted!(self, query, cursor, how)
            }

            fn distinct_groups(
                &mut self,
                cursor: Option<Cursor<DistinctGroup>>,
                how: Read,
            ) -> QueryResult<Page<DistinctGroup>> {
                let query = count_items::table
                    .filter(count_items::tenant.eq("A"))
                    .select(DistinctGroup::as_select())
                    .distinct();
                load_counted!(self, query, cursor, how)
            }
        }
    };
}

impl_count_queries!("sqlite", diesel::SqliteConnection);
impl_count_queries!("postgres", diesel::PgConnection);
impl_count_queries!("mysql", diesel::MysqlConnection);

/// Creates and fills `count_items`: tenant A (1,1) (2,1) (3,2) (4,3) (5,3), tenant B
/// (6,1) (7,2) as `(id, grp)`.
pub fn create_count_items<C: TestDb>(db: &mut C) {
    db.exec(
        "CREATE TABLE count_items (id BIGINT NOT NULL PRIMARY KEY, tenant VARCHAR(8) NOT NULL, \
         grp BIGINT NOT NULL)",
    );
    db.exec(
        "INSERT INTO count_items VALUES (1, 'A', 1), (2, 'A', 1), (3, 'A', 2), (4, 'A', 3), \
         (5, 'A', 3), (6, 'B', 1), (7, 'B', 2)",
    );
}
