//! Models whose tie-breaker is a composite primary key (`order_lines (order_id, line_no)`):
//! no key field is marked `unique`; the keyset ends with every primary-key column.

use diesel::prelude::*;
use keyset_diesel::Keyset;

diesel::table! {
    /// Order lines keyed by `(order_id, line_no)`; `status` has few values (long tie groups).
    /// Created by the test that uses it.
    order_lines (order_id, line_no) {
        order_id -> BigInt,
        line_no -> Integer,
        status -> Integer,
    }
}

/// `status ASC, order_id DESC, line_no ASC`: mixed directions, the composite key last.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = order_lines)]
pub struct LineByStatus {
    #[keyset(asc)]
    pub status: i32,
    #[keyset(desc)]
    pub order_id: i64,
    #[keyset(asc)]
    pub line_no: i32,
}
crate::impl_walk!(LineByStatus, order_lines);

/// `order_id ASC, line_no ASC`: the composite key alone.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = order_lines)]
pub struct LineByKey {
    #[keyset(asc)]
    pub order_id: i64,
    #[keyset(asc)]
    pub line_no: i32,
    pub status: i32,
}
crate::impl_walk!(LineByKey, order_lines);

/// A row's number in the tests: `order_id * 100 + line_no`.
pub trait LineId {
    /// `order_id * 100 + line_no`.
    fn line_id(&self) -> i64;
}

impl LineId for LineByStatus {
    fn line_id(&self) -> i64 {
        self.order_id * 100 + i64::from(self.line_no)
    }
}

impl LineId for LineByKey {
    fn line_id(&self) -> i64 {
        self.order_id * 100 + i64::from(self.line_no)
    }
}
