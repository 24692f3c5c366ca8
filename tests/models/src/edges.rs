//! The edges of a page: the Relay cursors on edge pages and the byte budget
//! (`Paginated::max_bytes`), on every backend.
//!
//! Partner: `tests/suites/src/edges.rs` holds the tests of this subject. The split follows the
//! crates' layers (docs/TESTING.md): this file, in the models crate, declares the models and
//! instantiates their pages once per backend; the tests reach them through traits, so editing
//! a test rebuilds no page.

use keyset_diesel::Direction;

/// [`SeekPredicate`](keyset_diesel::query::SeekPredicate) used on its own, as a filter of the
/// caller's query: the ids of `keyset_rows` (tenant 0) strictly after `key` in the walk's
/// direction of `na DESC NULLS LAST, id ASC`, ordered by
/// [`KeysetOrder`](keyset_diesel::query::KeysetOrder) of that walk.
pub trait SeekAlone {
    fn seek_alone(&mut self, key: (Option<i32>, i64), walk: Direction) -> Vec<i64>;
}

macro_rules! seek_alone {
    ($feature:literal, $conn:ty) => {
        #[cfg(feature = $feature)]
        impl SeekAlone for $conn {
            fn seek_alone(&mut self, key: (Option<i32>, i64), walk: Direction) -> Vec<i64> {
                use crate::models::NA_desc_nulls_last__ID_asc as Na;
                use crate::schema::keyset_rows;
                use diesel::prelude::*;
                use keyset_diesel::query::{KeysetOrder, SeekPredicate};
                keyset_rows::table
                    .filter(keyset_rows::tenant.eq(0))
                    .filter(SeekPredicate::<Na>::new(key, walk))
                    .order(KeysetOrder::<Na>::new(walk))
                    .select(keyset_rows::id)
                    .load(self)
                    .expect("the seek predicate as a filter")
            }
        }
    };
}

seek_alone!("sqlite", diesel::SqliteConnection);
seek_alone!("postgres", diesel::PgConnection);
seek_alone!("mysql", diesel::MysqlConnection);

/// The model of the byte budget the database measures (`Paginated::max_bytes_in_sql`):
/// `plan_rows` by `score ASC, id DESC` (heavy ties in `score`, mixed directions), with
/// `payload` read through [`CountedText`], so a test sees how many bytes the page loaded.
#[derive(Debug, Clone, diesel::Queryable, diesel::Selectable, keyset_diesel::Keyset)]
#[diesel(table_name = crate::schema::plan_rows)]
pub struct Measured {
    #[keyset(asc)]
    pub score: i32,
    #[keyset(desc, unique)]
    pub id: i64,
    #[diesel(deserialize_as = CountedText)]
    pub payload: String,
}

impl Measured {
    /// The row's size as the budget counts it: `payload` measured twice (the measured columns'
    /// sizes add up; the same column named twice counts twice).
    pub fn weight(&self) -> usize {
        2 * self.payload.len()
    }
}

thread_local! {
    static LOADED: std::cell::Cell<(usize, usize)> = const { std::cell::Cell::new((0, 0)) };
}

/// `payload` as loaded: counts the rows and bytes this thread deserialized ([`take_loaded`]).
pub struct CountedText(String);

impl<DB> diesel::Queryable<diesel::sql_types::Text, DB> for CountedText
where
    DB: diesel::backend::Backend,
    String: diesel::deserialize::FromSql<diesel::sql_types::Text, DB>,
{
    type Row = String;
    fn build(text: String) -> diesel::deserialize::Result<Self> {
        LOADED.with(|l| {
            let (rows, bytes) = l.get();
            l.set((rows + 1, bytes + text.len()));
        });
        Ok(CountedText(text))
    }
}

impl From<CountedText> for String {
    fn from(text: CountedText) -> String {
        text.0
    }
}

/// The rows and bytes of `payload` this thread loaded since the last call.
pub fn take_loaded() -> (usize, usize) {
    LOADED.with(|l| l.replace((0, 0)))
}

/// How a [`MeasuredRead`] page bounds its bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    /// `max_bytes_in_sql(max, payload).budget_column(payload)`: measured by the database.
    InSql(usize),
    /// `max_bytes(max, Measured::weight)`: measured in Rust on the rows loaded.
    InRust(usize),
}

/// One page of [`Measured`] (tenant 0), after or before `cursor`, under `budget`; with
/// `distinct`, of `SELECT DISTINCT`; with `exact_total`, with exact flags and the total count.
pub trait MeasuredRead {
    fn measured_page(
        &mut self,
        cursor: Option<keyset_diesel::Cursor<Measured>>,
        backward: bool,
        page_size: u32,
        budget: Budget,
        distinct: bool,
        exact_total: bool,
    ) -> diesel::QueryResult<keyset_diesel::Page<Measured>>;
}

macro_rules! measured_read {
    ($feature:literal, $conn:ty) => {
        #[cfg(feature = $feature)]
        impl MeasuredRead for $conn {
            fn measured_page(
                &mut self,
                cursor: Option<keyset_diesel::Cursor<Measured>>,
                backward: bool,
                page_size: u32,
                budget: Budget,
                distinct: bool,
                exact_total: bool,
            ) -> diesel::QueryResult<keyset_diesel::Page<Measured>> {
                use crate::schema::plan_rows;
                use diesel::prelude::*;
                use keyset_diesel::PaginateDsl;
                type Db = <$conn as diesel::Connection>::Backend;
                let query = plan_rows::table
                    .filter(plan_rows::tenant.eq(0))
                    .select(<Measured as SelectableHelper<Db>>::as_select());
                macro_rules! page {
                    ($q:expr) => {{
                        let p = if backward {
                            $q.paginate_before(cursor)
                        } else {
                            $q.paginate_after(cursor)
                        }
                        .page_size(page_size)
                        .exact_flags(exact_total);
                        let p = if exact_total { p.with_total_count() } else { p };
                        match budget {
                            Budget::InSql(max) => p
                                .max_bytes_in_sql(max, plan_rows::payload)
                                .budget_column(plan_rows::payload)
                                .load_page(self),
                            Budget::InRust(max) => {
                                p.max_bytes(max, Measured::weight).load_page(self)
                            }
                        }
                    }};
                }
                if distinct {
                    page!(query.distinct())
                } else {
                    page!(query)
                }
            }
        }
    };
}

measured_read!("sqlite", diesel::SqliteConnection);
measured_read!("postgres", diesel::PgConnection);
measured_read!("mysql", diesel::MysqlConnection);

impl<C: crate::TestDb + MeasuredRead> MeasuredRead for crate::db::Fixture<C> {
    fn measured_page(
        &mut self,
        cursor: Option<keyset_diesel::Cursor<Measured>>,
        backward: bool,
        page_size: u32,
        budget: Budget,
        distinct: bool,
        exact_total: bool,
    ) -> diesel::QueryResult<keyset_diesel::Page<Measured>> {
        (**self).measured_page(cursor, backward, page_size, budget, distinct, exact_total)
    }
}

/// [`MeasuredRead`] through diesel-async (`keyset_diesel::async_`) on the pair `$pair`: the
/// same calls, `.await`ed on the pair's runtime.
macro_rules! measured_read_async {
    ($feature:literal, $pair:ident) => {
        #[cfg(all(feature = "diesel-async", feature = $feature))]
        impl MeasuredRead for crate::async_db::$pair {
            fn measured_page(
                &mut self,
                cursor: Option<keyset_diesel::Cursor<Measured>>,
                backward: bool,
                page_size: u32,
                budget: Budget,
                distinct: bool,
                exact_total: bool,
            ) -> diesel::QueryResult<keyset_diesel::Page<Measured>> {
                use crate::schema::plan_rows;
                use diesel::prelude::*;
                use keyset_diesel::async_::PaginateDsl as AsyncPaginateDsl;
                type Db = <<crate::async_db::$pair as crate::db::OracleDb>::Db as diesel::Connection>::Backend;
                let query = plan_rows::table
                    .filter(plan_rows::tenant.eq(0))
                    .select(<Measured as SelectableHelper<Db>>::as_select());
                let (runtime, conn) = self.runtime_and_conn();
                macro_rules! page {
                    ($q:expr) => {{
                        let p = if backward {
                            AsyncPaginateDsl::paginate_before($q, cursor)
                        } else {
                            AsyncPaginateDsl::paginate_after($q, cursor)
                        }
                        .page_size(page_size)
                        .exact_flags(exact_total);
                        let p = if exact_total { p.with_total_count() } else { p };
                        match budget {
                            Budget::InSql(max) => runtime.block_on(
                                p.max_bytes_in_sql(max, plan_rows::payload)
                                    .budget_column(plan_rows::payload)
                                    .load_page(conn),
                            ),
                            Budget::InRust(max) => {
                                runtime.block_on(p.max_bytes(max, Measured::weight).load_page(conn))
                            }
                        }
                    }};
                }
                if distinct {
                    page!(query.distinct())
                } else {
                    page!(query)
                }
            }
        }
    };
}

measured_read_async!("sqlite", AsyncSqlite);
measured_read_async!("postgres", AsyncPg);
measured_read_async!("mysql", AsyncMysql);
