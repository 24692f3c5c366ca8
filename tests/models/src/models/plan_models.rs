//! The models of the plan tests over `plan_rows`: each keyset shape the plan tests read deep
//! in the table (ascending, descending, mixed directions, a nullable key), with the whole row
//! or the key alone, and a model that declares its indexes.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use keyset_diesel::prelude::*;

use crate::schema::plan_rows;

/// `plan_rows` by `at ASC, id ASC` (index `(tenant, at, id)`).
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = plan_rows)]
pub struct PlanAsc {
    #[keyset(asc)]
    pub at: NaiveDateTime,
    #[keyset(asc, unique)]
    pub id: i64,
    pub payload: String,
}

/// `plan_rows` by `at DESC, id DESC` (the same index, scanned backward).
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = plan_rows)]
pub struct PlanDesc {
    #[keyset(desc)]
    pub at: NaiveDateTime,
    #[keyset(desc, unique)]
    pub id: i64,
    pub payload: String,
}

/// `plan_rows` by `score DESC, id ASC` (index `(tenant, score DESC, id ASC)`).
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = plan_rows)]
pub struct PlanMixed {
    #[keyset(desc)]
    pub score: i32,
    #[keyset(asc, unique)]
    pub id: i64,
    pub payload: String,
}

/// `plan_rows` by `maybe ASC NULLS LAST, id ASC` (index `(tenant, maybe, id)`).
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = plan_rows)]
pub struct PlanNullable {
    #[keyset(asc, nulls_last)]
    pub maybe: Option<i32>,
    #[keyset(asc, unique)]
    pub id: i64,
    pub payload: String,
}

/// `plan_rows` by `at ASC, id ASC` with its index declared on the model, and a named sort
/// `Mixed` (`score DESC, id ASC`) declaring its own: a page of a `plan_rows` query names them
/// without `.force_index(..)`.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = plan_rows)]
#[keyset(index = "plan_rows_tenant_at_id")]
#[keyset(sort(Mixed(score(desc), id(asc), index = "plan_rows_tenant_score_desc_id")))]
pub struct PlanIndexed {
    #[keyset(asc)]
    pub at: NaiveDateTime,
    #[keyset(asc, unique)]
    pub id: i64,
    pub score: i32,
    pub payload: String,
}

crate::impl_walk!(PlanNullable, plan_rows, tenant, i32);
crate::impl_walk!(PlanAsc, plan_rows, tenant, i32);
crate::impl_walk!(PlanDesc, plan_rows, tenant, i32);
crate::impl_walk!(PlanMixed, plan_rows, tenant, i32);

/// `plan_rows` by `at ASC, id ASC`, selecting only the key (covered by the index).
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = plan_rows)]
pub struct PlanAscKey {
    #[keyset(asc)]
    pub at: NaiveDateTime,
    #[keyset(asc, unique)]
    pub id: i64,
}

/// `plan_rows` by `at DESC, id DESC`, selecting only the key.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = plan_rows)]
pub struct PlanDescKey {
    #[keyset(desc)]
    pub at: NaiveDateTime,
    #[keyset(desc, unique)]
    pub id: i64,
}

/// `plan_rows` by `score DESC, id ASC`, selecting only the key.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = plan_rows)]
pub struct PlanMixedKey {
    #[keyset(desc)]
    pub score: i32,
    #[keyset(asc, unique)]
    pub id: i64,
}

crate::impl_walk!(PlanAscKey, plan_rows, tenant, i32);
crate::impl_walk!(PlanDescKey, plan_rows, tenant, i32);
crate::impl_walk!(PlanMixedKey, plan_rows, tenant, i32);
