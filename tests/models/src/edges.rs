//! The edges of a page: the Relay cursors on edge pages (docs/CASES.md C29) and the byte budget
//! (`Paginated::max_bytes`), on every backend.

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
