//! The models of `schema` with their index declared (`#[keyset(index = "..")]`): a page of
//! theirs names it, and on MySQL/MariaDB its default form is the direct one.

use crate::schema::bench_rows;
use chrono::NaiveDateTime;
use diesel::prelude::*;
use keyset_diesel::Keyset;

/// `at ASC, id ASC` on `bench_rows_tenant_at_id`.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, QueryableByName, Keyset)]
#[diesel(table_name = bench_rows)]
#[keyset(index = "bench_rows_tenant_at_id")]
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

/// `at DESC, id DESC` on the same index, read backward.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, QueryableByName, Keyset)]
#[diesel(table_name = bench_rows)]
#[keyset(index = "bench_rows_tenant_at_id")]
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

/// `score DESC, id ASC` on `bench_rows_tenant_score_id`.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, QueryableByName, Keyset)]
#[diesel(table_name = bench_rows)]
#[keyset(index = "bench_rows_tenant_score_id")]
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
