//! Keyset models over the test tables, and [`Walk`]: one page of a model, on each backend.
//!
//! The oracle models are declared by `row_models!` from one line each, e.g.
//! `A_asc__NA_desc_nulls_first__ID_asc: [a asc, na desc nulls_first] id asc;`. The same tokens
//! give the model's `#[keyset(..)]` attributes and, independently of the derive, the oracle's
//! `ORDER BY` terms ([`OrderTerm`]). A key on an expression or a joined column names its
//! Diesel expression, its type and its SQL: `lower_b(lower(keyset_rows::b) => lower<..>,
//! "lower(b)") asc`; a model marked `join` reads `keyset_rows` joined to `keyset_groups`.
//!
//! Beside the shared traits and [`impl_walk!`], this module holds the activity feed's model;
//! the row models of the oracle matrix are in `models/row_models.rs`, the plan tests' models
//! in `models/plan_models.rs` (both re-exported here).

use chrono::NaiveDateTime;
use diesel::prelude::*;
use keyset_diesel::prelude::*;

use crate::schema::events;

mod plan_models;
mod row_models;

pub use plan_models::*;
pub use row_models::*;

/// How to read one page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Read {
    /// Rows per page.
    pub page_size: u32,
    /// Through `.into_boxed()`.
    pub boxed: bool,
    /// `paginate_before` instead of `paginate_after`.
    pub backward: bool,
    /// `.exact_flags(true)`.
    pub exact: bool,
    /// `.deferred_join(..)`; `None`: the backend's default.
    pub deferred: Option<bool>,
    /// `.seek_per_level(..)`.
    pub per_level: bool,
    /// `.expanded_seek(..)`.
    pub expanded: bool,
    /// `.max_bytes(n, ..)`, each row weighing the length of its `Debug` text.
    pub max_bytes: Option<usize>,
    /// `.with_total_count()`.
    pub total: bool,
    /// `.inclusive(true)`: the cursor's own row is on the page.
    pub inclusive: bool,
}

impl Read {
    /// Forward, unboxed, not exact.
    pub fn forward(page_size: u32) -> Read {
        Read {
            page_size,
            boxed: false,
            backward: false,
            exact: false,
            deferred: None,
            per_level: false,
            expanded: false,
            max_bytes: None,
            total: false,
            inclusive: false,
        }
    }

    /// Backward, unboxed, not exact.
    pub fn backward(page_size: u32) -> Read {
        Read {
            backward: true,
            ..Read::forward(page_size)
        }
    }
}

/// The weight of a row under a byte budget in the tests ([`Read::max_bytes`]): the length of
/// its `Debug` text.
pub fn debug_len<M: std::fmt::Debug>(row: &M) -> usize {
    format!("{row:?}").len()
}

/// One page of model `Self` on connection `C`, filtered by `filter`.
pub trait Walk<C>: Keyset + Sized {
    /// The caller's own filter value (a tenant, a workspace).
    type Filter: ?Sized;

    /// # Errors
    /// What `load_page` returns.
    fn read(
        conn: &mut C,
        filter: &Self::Filter,
        cursor: Option<Cursor<Self>>,
        how: Read,
    ) -> QueryResult<Page<Self>> {
        Self::read_window(conn, filter, cursor, None, how)
    }

    /// A page of the window that ends at `until` (`.until(until)`; `None`: an open window).
    ///
    /// # Errors
    /// What `load_page` returns.
    fn read_window(
        conn: &mut C,
        filter: &Self::Filter,
        cursor: Option<Cursor<Self>>,
        until: Option<Cursor<Self>>,
        how: Read,
    ) -> QueryResult<Page<Self>>;

    /// A forward page.
    ///
    /// # Errors
    /// What `load_page` returns.
    fn page(
        conn: &mut C,
        filter: &Self::Filter,
        cursor: Option<Cursor<Self>>,
        page_size: u32,
        boxed: bool,
    ) -> QueryResult<Page<Self>> {
        let how = Read {
            boxed,
            ..Read::forward(page_size)
        };
        Self::read(conn, filter, cursor, how)
    }
}

/// One `ORDER BY` term as declared: column, `"asc"`/`"desc"`, and `"nulls_first"` /
/// `"nulls_last"` for a nullable column.
pub type OrderTerm = (&'static str, &'static str, Option<&'static str>);

/// What the oracle needs to know about a model.
pub trait Oracle {
    /// `ORDER BY` terms written from the model's declaration tokens, not from the derive.
    const ORDER: &'static [OrderTerm];
    /// The table the model reads.
    const TABLE: &'static str;
    /// The column the caller's filter applies to.
    const FILTER_COLUMN: &'static str;
    /// The row's id (the tie-breaker).
    fn id(&self) -> i64;
}

/// Implements [`Walk`] for a model on every enabled blocking backend:
/// `SELECT <model> FROM $table WHERE $filter = ? <seek> ORDER BY <keyset> LIMIT n + 1`.
/// With a leading `async`, also on the diesel-async connection pair of each backend. Each
/// async impl costs about three blocking ones to compile (its futures over every page-query
/// type), so only the models a test reads through diesel-async have one.
#[macro_export]
macro_rules! impl_walk {
    // `async` first: the arms below would read `async` as the start of a type.
    (async $model:ty, $table:path) => {
        $crate::impl_walk!(async $model, $table, (), |q, _f| q);
    };
    (async $model:ty, $table:path, $filter_ty:ty, |$q:ident, $f:ident| $filtered:expr) => {
        $crate::impl_walk!($model, $table, $filter_ty, |$q, $f| $filtered);
        $crate::impl_walk!(@async "sqlite", AsyncSqlite, $model, $table, $filter_ty,
            |$q, $f| $filtered);
        $crate::impl_walk!(@async "postgres", AsyncPg, $model, $table, $filter_ty,
            |$q, $f| $filtered);
        $crate::impl_walk!(@async "mysql", AsyncMysql, $model, $table, $filter_ty,
            |$q, $f| $filtered);
    };
    (async $model:ty, $table:ident, $filter:ident, $filter_ty:ty) => {
        $crate::impl_walk!(async $model, $table, $filter_ty, |q, f| q.filter($table::$filter.eq(f)));
    };
    // No filter: the whole table (`Filter = ()`).
    ($model:ty, $table:path) => {
        $crate::impl_walk!($model, $table, (), |q, _f| q);
    };
    // Any query built from `$table::table` (bound to `$q`) and the filter value (`$f`).
    ($model:ty, $table:path, $filter_ty:ty, |$q:ident, $f:ident| $filtered:expr) => {
        $crate::impl_walk!(@one "sqlite", diesel::SqliteConnection, $model, $table, $filter_ty,
            |$q, $f| $filtered);
        $crate::impl_walk!(@one "postgres", diesel::PgConnection, $model, $table, $filter_ty,
            |$q, $f| $filtered);
        $crate::impl_walk!(@one "mysql", diesel::MysqlConnection, $model, $table, $filter_ty,
            |$q, $f| $filtered);
    };
    ($model:ty, $table:ident, $filter:ident, $filter_ty:ty) => {
        $crate::impl_walk!($model, $table, $filter_ty, |q, f| q.filter($table::$filter.eq(f)));
    };
    // The same page through diesel-async (`keyset_diesel::async_`) on the connection pair
    // `$crate::async_db::$pair`: same calls, other imports, `.await`ed on the pair's runtime.
    (@async $feature:literal, $pair:ident, $model:ty, $table:path, $filter_ty:ty, |$q:ident, $f:ident| $filtered:expr) => {
        #[cfg(all(feature = "diesel-async", feature = $feature))]
        impl $crate::models::Walk<$crate::async_db::$pair> for $model {
            type Filter = $filter_ty;
            fn read_window(
                db: &mut $crate::async_db::$pair,
                filter: &$filter_ty,
                cursor: Option<keyset_diesel::Cursor<Self>>,
                until: Option<keyset_diesel::Cursor<Self>>,
                how: $crate::models::Read,
            ) -> diesel::QueryResult<keyset_diesel::Page<Self>> {
                #[allow(unused_imports)]
                use diesel::prelude::*;
                // Named in full: this module's `keyset_diesel::prelude::*` brings the blocking
                // `PaginateDsl` into scope too.
                use keyset_diesel::async_::PaginateDsl as AsyncPaginateDsl;
                #[allow(unused_imports)]
                use $table as table;
                // The backend named, not inferred: see the blocking arm below.
                type Db = <<$crate::async_db::$pair as $crate::db::OracleDb>::Db as diesel::Connection>::Backend;
                let $f = filter;
                let $q = table::table;
                let query = $filtered.select(<$model as diesel::SelectableHelper<Db>>::as_select());
                let (runtime, conn) = db.runtime_and_conn();
                macro_rules! run {
                    ($query:expr) => {{
                        let paginated = if how.backward {
                            AsyncPaginateDsl::paginate_before($query, cursor)
                        } else {
                            AsyncPaginateDsl::paginate_after($query, cursor)
                        }
                        .until(until)
                        .page_size(how.page_size)
                        .exact_flags(how.exact)
                        .seek_per_level(how.per_level)
                        .expanded_seek(how.expanded)
                        .inclusive(how.inclusive);
                        let paginated = if how.total { paginated.with_total_count() } else { paginated };
                        match how.deferred {
                            Some(deferred) => runtime.block_on(paginated.deferred_join(deferred).load_page(conn)),
                            None => runtime.block_on(paginated.load_page(conn)),
                        }
                    }};
                }
                if how.boxed {
                    run!(diesel::QueryDsl::into_boxed::<Db>(query))
                } else {
                    run!(query)
                }
            }
        }
    };
    (@one $feature:literal, $conn:ty, $model:ty, $table:path, $filter_ty:ty, |$q:ident, $f:ident| $filtered:expr) => {
        #[cfg(feature = $feature)]
        $crate::impl_walk!(@impl $conn, $model, $table, $filter_ty, |$q, $f| $filtered);
    };
    // The page on connection `$conn`, for a caller that is already behind that backend's feature.
    (@impl $conn:ty, $model:ty, $table:path, $filter_ty:ty, |$q:ident, $f:ident| $filtered:expr) => {
        impl $crate::models::Walk<$conn> for $model {
            type Filter = $filter_ty;
            fn read_window(
                conn: &mut $conn,
                filter: &$filter_ty,
                cursor: Option<keyset_diesel::Cursor<Self>>,
                until: Option<keyset_diesel::Cursor<Self>>,
                how: $crate::models::Read,
            ) -> diesel::QueryResult<keyset_diesel::Page<Self>> {
                #[allow(unused_imports)]
                use diesel::prelude::*;
                use keyset_diesel::PaginateDsl;
                #[allow(unused_imports)]
                use $table as table;
                // The backend named, not inferred from `load_page(conn)`: `as_select()` and
                // `into_boxed()` left generic over it make the type checker weigh every
                // enabled backend's impls at each step. With all three backends enabled, this
                // crate's type check took 273 s that way and takes 20 s this way.
                type Db = <$conn as diesel::Connection>::Backend;
                let $f = filter;
                let $q = table::table;
                let query = $filtered.select(<$model as diesel::SelectableHelper<Db>>::as_select());
                macro_rules! run {
                    ($query:expr) => {{
                        let paginated = if how.backward {
                            $query.paginate_before(cursor)
                        } else {
                            $query.paginate_after(cursor)
                        }
                        .until(until)
                        .page_size(how.page_size)
                        .exact_flags(how.exact)
                        .seek_per_level(how.per_level)
                        .expanded_seek(how.expanded)
                        .inclusive(how.inclusive);
                        let paginated = match how.max_bytes {
                            Some(max) => paginated.max_bytes(max, $crate::models::debug_len::<$model>),
                            None => paginated,
                        };
                        let paginated = if how.total { paginated.with_total_count() } else { paginated };
                        match how.deferred {
                            Some(deferred) => paginated.deferred_join(deferred).load_page(conn),
                            None => paginated.load_page(conn),
                        }
                    }};
                }
                if how.boxed {
                    run!(diesel::QueryDsl::into_boxed::<Db>(query))
                } else {
                    run!(query)
                }
            }
        }
    };
}

/// An activity-feed event, keyset `occurred_at ASC, event_id ASC`.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = events)]
pub struct FeedEvent {
    #[keyset(asc)]
    pub occurred_at: NaiveDateTime,
    #[keyset(asc, unique)]
    pub event_id: String,
    pub workspace_id: String,
    pub message: String,
}

impl_walk!(async FeedEvent, events, workspace_id, str);
