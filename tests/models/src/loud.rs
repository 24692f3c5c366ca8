//! The tables and models of the loud-instead-of-wrong tests: a tie-breaker that is not unique
//! in the query's rows (a join repeating it, `unique` on a column with ties), key values that
//! do not survive the round trip to Rust and back (a `bool` holding 2, a REAL in an INTEGER
//! column), text a collation calls equal, `GROUP BY` keyed on its group, and long text keys.
//!
//! Partner: `tests/suites/src/loud.rs` holds the tests of this subject. The split follows the
//! crates' layers (docs/TESTING.md): this file, in the models crate, declares the models and
//! instantiates their pages once per backend; the tests reach them through traits, so editing
//! a test rebuilds no page.

use crate::models::Read;
use crate::TestDb;
use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel::QueryResult;
use keyset_diesel::{Cursor, Keyset, Page};

diesel::table! {
    /// The teams of the join that repeats the tie-breaker.
    loud_teams (id) {
        id -> Integer,
        name -> Text,
    }
}

diesel::table! {
    /// Their members: teams 1 and 3 have several, so a join repeats their team rows.
    loud_members (id) {
        id -> Integer,
        team_id -> Integer,
    }
}

diesel::joinable!(loud_members -> loud_teams (team_id));
diesel::allow_tables_to_appear_in_same_query!(loud_teams, loud_members);

diesel::table! {
    /// A flag that may hold 2: `pinned` declared `Bool`, as print-schema emits for MariaDB's
    /// `TINYINT(1)`.
    loud_flags (id) {
        id -> Integer,
        pinned -> Bool,
    }
}

diesel::table! {
    /// The same with a text column between the flag and the tie-breaker.
    loud_flag_titles (id) {
        id -> Integer,
        pinned -> Bool,
        title -> Text,
    }
}

/// A flag that may hold 2, `pinned DESC, title ASC, id ASC`: a text column in the keyset, so the
/// seek adds no arm for unrepresented values (the page check could not see a row it reads again).
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = loud_flag_titles)]
pub struct FlagTitle {
    #[keyset(desc)]
    pub pinned: bool,
    #[keyset(asc)]
    pub title: String,
    #[keyset(asc, unique)]
    pub id: i32,
}
crate::impl_walk!(FlagTitle, loud_flag_titles);

diesel::table! {
    /// An INTEGER column that SQLite lets hold a REAL.
    loud_scores (id) {
        id -> Integer,
        score -> Integer,
    }
}

diesel::table! {
    /// A text tie-breaker unique only by convention, its column's collation set per case
    /// by the test (`NOCASE`, an ICU nondeterministic collation, `utf8mb4_general_ci`, ...).
    loud_tags (tag) {
        tag -> Text,
        grp -> Integer,
    }
}

/// A text tie-breaker: `grp ASC, tag ASC (unique)`.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = loud_tags)]
pub struct TagAsc {
    #[keyset(asc)]
    pub grp: i32,
    #[keyset(asc, unique)]
    pub tag: String,
}
// Also through diesel-async: the page's collation question runs on the async path.
crate::impl_walk!(async TagAsc, loud_tags);

/// A text tie-breaker: `grp ASC, tag DESC (unique)`.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = loud_tags)]
pub struct TagDesc {
    #[keyset(asc)]
    pub grp: i32,
    #[keyset(desc, unique)]
    pub tag: String,
}
crate::impl_walk!(TagDesc, loud_tags);

/// A text tie-breaker: `grp ASC, tag ASC (unique, exact_text)`: the model says the column's
/// collation calls only the same strings equal.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = loud_tags)]
pub struct TagExact {
    #[keyset(asc)]
    pub grp: i32,
    #[keyset(asc, unique, exact_text)]
    pub tag: String,
}
crate::impl_walk!(TagExact, loud_tags);

/// `keyset_rows` by `c ASC` alone, `c` marked `unique` though it has ties.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = crate::schema::keyset_rows)]
pub struct UniqueTimestamp {
    pub id: i64,
    #[keyset(asc, unique)]
    pub c: NaiveDateTime,
}
crate::impl_walk!(UniqueTimestamp, crate::schema::keyset_rows);

/// A team keyed `name ASC, id ASC (unique)` with one of its members' ids selected, paged
/// over `loud_teams.inner_join(loud_members)`: `loud_teams.id` repeats per member.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = loud_teams)]
pub struct TeamMember {
    #[keyset(asc)]
    pub name: String,
    #[keyset(asc, unique)]
    pub id: i32,
    #[diesel(select_expression = loud_members::id, select_expression_type = loud_members::id)]
    pub member_id: i32,
}

/// A flag that may hold 2: `pinned ASC, id ASC`.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = loud_flags)]
pub struct FlagAsc {
    #[keyset(asc)]
    pub pinned: bool,
    #[keyset(asc, unique)]
    pub id: i32,
}
crate::impl_walk!(FlagAsc, loud_flags);

/// A flag that may hold 2: `pinned DESC, id ASC`.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = loud_flags)]
pub struct FlagDesc {
    #[keyset(desc)]
    pub pinned: bool,
    #[keyset(asc, unique)]
    pub id: i32,
}
crate::impl_walk!(FlagDesc, loud_flags);

/// A REAL in an INTEGER column: `score ASC, id ASC` read as `i32`.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = loud_scores)]
pub struct ScoreAsc {
    #[keyset(asc)]
    pub score: i32,
    #[keyset(asc, unique)]
    pub id: i32,
}
crate::impl_walk!(ScoreAsc, loud_scores);

/// The page of the teams joined to their members, on one backend.
pub trait LoudQueries: TestDb {
    /// `loud_teams.inner_join(loud_members)` as [`TeamMember`].
    ///
    /// # Errors
    /// What `load_page` returns.
    fn team_members(
        &mut self,
        cursor: Option<Cursor<TeamMember>>,
        how: Read,
    ) -> QueryResult<Page<TeamMember>>;
}

macro_rules! impl_loud_queries {
    ($feature:literal, $conn:ty) => {
        #[cfg(feature = $feature)]
        impl LoudQueries for $conn {
            fn team_members(
                &mut self,
                cursor: Option<Cursor<TeamMember>>,
                how: Read,
            ) -> QueryResult<Page<TeamMember>> {
                use keyset_diesel::PaginateDsl;
                let query = loud_teams::table
                    .inner_join(loud_members::table)
                    .select(TeamMember::as_select());
                let paginated = if how.backward {
                    query.paginate_before(cursor)
                } else {
                    query.paginate_after(cursor)
                };
                paginated.page_size(how.page_size).load_page(self)
            }
        }
    };
}

impl_loud_queries!("sqlite", diesel::SqliteConnection);
impl_loud_queries!("postgres", diesel::PgConnection);
impl_loud_queries!("mysql", diesel::MysqlConnection);

diesel::table! {
    /// Events of three devices, for `DISTINCT ON` and `GROUP BY device`.
    loud_events (id) {
        id -> Integer,
        device -> Text,
        at -> Integer,
    }
}

/// The keyset `device ASC, at DESC, id DESC` over `loud_events`.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = loud_events)]
pub struct DeviceEvent {
    #[keyset(asc)]
    pub device: String,
    #[keyset(desc)]
    pub at: i32,
    #[keyset(desc, unique)]
    pub id: i32,
}

/// The control of `DISTINCT ON`: events per device, keyed on the group key `device` (unique per
/// group).
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = loud_events)]
pub struct DeviceCount {
    #[keyset(asc, unique)]
    pub device: String,
    #[diesel(
        select_expression = diesel::dsl::count_star(),
        select_expression_type = diesel::dsl::count_star
    )]
    pub events: i64,
}

/// The `GROUP BY device` queries on one backend.
pub trait GroupQueries: TestDb {
    /// `GROUP BY device` with `count(*)`, optionally `HAVING count(*) >= having`.
    ///
    /// # Errors
    /// What `load_page` returns.
    fn device_counts(
        &mut self,
        having: Option<i64>,
        cursor: Option<Cursor<DeviceCount>>,
        page_size: u32,
        boxed: bool,
    ) -> QueryResult<Page<DeviceCount>>;
}

macro_rules! impl_group_queries {
    ($feature:literal, $conn:ty) => {
        #[cfg(feature = $feature)]
        impl GroupQueries for $conn {
            fn device_counts(
                &mut self,
                having: Option<i64>,
                cursor: Option<Cursor<DeviceCount>>,
                page_size: u32,
                boxed: bool,
            ) -> QueryResult<Page<DeviceCount>> {
                use diesel::dsl::count_star;
                use keyset_diesel::PaginateDsl;
                let grouped = loud_events::table
                    .group_by(loud_events::device)
                    .select(DeviceCount::as_select());
                match (having, boxed) {
                    (None, false) => grouped
                        .paginate_after(cursor)
                        .page_size(page_size)
                        .load_page(self),
                    (Some(n), false) => grouped
                        .having(count_star().ge(n))
                        .paginate_after(cursor)
                        .page_size(page_size)
                        .load_page(self),
                    (None, true) => grouped
                        .into_boxed()
                        .paginate_after(cursor)
                        .page_size(page_size)
                        .load_page(self),
                    (Some(n), true) => grouped
                        .having(count_star().ge(n))
                        .into_boxed()
                        .paginate_after(cursor)
                        .page_size(page_size)
                        .load_page(self),
                }
            }
        }
    };
}

impl_group_queries!("sqlite", diesel::SqliteConnection);
impl_group_queries!("postgres", diesel::PgConnection);
impl_group_queries!("mysql", diesel::MysqlConnection);

/// Creates and fills `loud_events`.
pub fn create_loud_events<C: TestDb>(db: &mut C) {
    db.exec(
        "CREATE TABLE loud_events (id INTEGER NOT NULL PRIMARY KEY, device VARCHAR(8) NOT NULL, \
         at INTEGER NOT NULL)",
    );
    db.exec(
        "INSERT INTO loud_events VALUES (1, 'd1', 10), (2, 'd1', 30), (3, 'd2', 20), \
         (4, 'd3', 5), (5, 'd3', 50), (6, 'd1', 20), (7, 'd2', 15)",
    );
}

diesel::table! {
    /// Documents with long and escape-heavy titles.
    loud_docs (id) {
        id -> BigInt,
        title -> Text,
    }
}

/// The keyset `title ASC, id ASC` over `loud_docs`.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = loud_docs)]
pub struct DocByTitle {
    #[keyset(asc)]
    pub title: String,
    #[keyset(asc, unique)]
    pub id: i64,
}
crate::impl_walk!(DocByTitle, loud_docs);
