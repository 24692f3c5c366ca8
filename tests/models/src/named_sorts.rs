//! Named sorts: one model, `#[keyset(sort(Name(..)))]` three times, one sort
//! chosen per request from the generated enum. Each sort's row type walks through tokens
//! exactly as the database's own `ORDER BY` of its columns (page sizes 1, 2 and 5, both ways,
//! plain and boxed, with and without the deferred join, exact flags or not), and a token made
//! in one sort is refused by every other with `SortMismatch`.
//!
//! Partner: `tests/suites/src/named_sorts.rs` holds the tests of this subject. The split follows
//! the crates' layers (docs/TESTING.md): this file, in the models crate, declares the models and
//! instantiates their pages once per backend; the tests reach them through traits, so editing a
//! test rebuilds no page.

use crate::schema::keyset_rows;
use diesel::prelude::*;
use keyset_diesel::Keyset;

/// `keyset_rows` in three named sorts and no keyset of its own.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = keyset_rows)]
#[keyset(sort(Newest(c(desc), id(desc))))]
#[keyset(sort(Top(a(desc), b(asc), id(asc))))]
#[keyset(sort(Unfinished(na(asc, nulls_last), nb(desc, nulls_first), id(desc))))]
pub struct Listed {
    pub id: i64,
    pub tenant: i32,
    pub a: i32,
    pub b: String,
    pub c: chrono::NaiveDateTime,
    pub d: bool,
    pub e: i16,
    pub na: Option<i32>,
    pub nb: Option<String>,
}

crate::impl_walk!(ListedByNewest, keyset_rows, tenant, i32);
crate::impl_walk!(ListedByTop, keyset_rows, tenant, i32);
crate::impl_walk!(ListedByUnfinished, keyset_rows, tenant, i32);
