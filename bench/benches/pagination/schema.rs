//! The benchmark table and one model per keyset shape. Every model selects every column (the
//! `payload` text too), as an application's list endpoint would.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use keyset_diesel::Keyset;

diesel::table! {
    bench_rows (id) {
        id -> BigInt,
        tenant -> Integer,
        at -> Timestamp,
        score -> Integer,
        grade -> Integer,
        payload -> Text,
    }
}

/// `at ASC, id ASC`: a feed, oldest first.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, QueryableByName, Keyset)]
#[diesel(table_name = bench_rows)]
pub struct Asc {
    pub tenant: i32,
    #[keyset(asc)]
    pub at: NaiveDateTime,
    #[keyset(asc, unique)]
    pub id: i64,
    pub score: i32,
    pub grade: i32,
    pub payload: String,
}

/// `at DESC, id DESC`: a feed, newest first.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, QueryableByName, Keyset)]
#[diesel(table_name = bench_rows)]
pub struct Desc {
    pub tenant: i32,
    #[keyset(desc)]
    pub at: NaiveDateTime,
    #[keyset(desc, unique)]
    pub id: i64,
    pub score: i32,
    pub grade: i32,
    pub payload: String,
}

/// `score DESC, id ASC`: a leaderboard (mixed directions), about 10 rows per score.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, QueryableByName, Keyset)]
#[diesel(table_name = bench_rows)]
pub struct Mixed {
    pub tenant: i32,
    pub at: NaiveDateTime,
    #[keyset(desc)]
    pub score: i32,
    #[keyset(asc, unique)]
    pub id: i64,
    pub grade: i32,
    pub payload: String,
}

/// `grade DESC, id ASC`: mixed directions with long runs of ties (about 10,000 rows per
/// grade in the big tenant): the SQL guide's "Long runs of ties", asks benchmarks to be honest
/// about this case.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, QueryableByName, Keyset)]
#[diesel(table_name = bench_rows)]
pub struct LongTies {
    pub tenant: i32,
    pub at: NaiveDateTime,
    pub score: i32,
    #[keyset(desc)]
    pub grade: i32,
    #[keyset(asc, unique)]
    pub id: i64,
    pub payload: String,
}
