//! Keyset models over the test tables, and [`Walk`]: one page of a model, on each backend.
//!
//! The oracle models are declared by `row_models!` from one line each, e.g.
//! `A_asc__B_desc__ID_asc: [a asc, b desc] id asc;`. The same tokens give the model's
//! `#[keyset(..)]` attributes and, independently of the derive, the oracle's `ORDER BY` text.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use keyset_diesel::prelude::*;

use crate::schema::{events, keyset_rows, plan_rows};

/// One page of model `Self` on connection `C`, filtered by `filter`, as an unboxed or a boxed
/// Diesel query.
pub trait Walk<C>: Keyset + Sized {
    /// The caller's own filter value (a tenant, a workspace).
    type Filter: ?Sized;
    /// # Errors
    /// What `load_page` returns.
    fn page(
        conn: &mut C,
        filter: &Self::Filter,
        cursor: Option<Cursor<Self>>,
        page_size: u32,
        boxed: bool,
    ) -> QueryResult<Page<Self>>;
}

/// What the oracle needs to know about a model.
pub trait Oracle {
    /// `ORDER BY` text written from the model's declaration tokens, not from the derive.
    const ORDER_SQL: &'static str;
    /// The table the model reads.
    const TABLE: &'static str;
    /// The column the caller's filter applies to.
    const FILTER_COLUMN: &'static str;
    /// The row's id (the tie-breaker).
    fn id(&self) -> i64;
}

/// Implements [`Walk`] for a model on every enabled backend:
/// `SELECT <model> FROM $table WHERE $filter = ? <seek> ORDER BY <keyset> LIMIT n + 1`.
#[macro_export]
macro_rules! impl_walk {
    // No filter: the whole table (`Filter = ()`).
    ($model:ty, $table:path) => {
        $crate::impl_walk!(@all "sqlite", diesel::SqliteConnection, $model, $table);
        $crate::impl_walk!(@all "postgres", diesel::PgConnection, $model, $table);
        $crate::impl_walk!(@all "mysql", diesel::MysqlConnection, $model, $table);
    };
    (@all $feature:literal, $conn:ty, $model:ty, $table:path) => {
        #[cfg(feature = $feature)]
        impl $crate::models::Walk<$conn> for $model {
            type Filter = ();
            fn page(
                conn: &mut $conn,
                _filter: &(),
                cursor: Option<keyset_diesel::Cursor<Self>>,
                page_size: u32,
                boxed: bool,
            ) -> diesel::QueryResult<keyset_diesel::Page<Self>> {
                use diesel::prelude::*;
                use keyset_diesel::PaginateDsl;
                use $table as table;
                let query = table::table.select(<$model>::as_select());
                if boxed {
                    query
                        .into_boxed()
                        .paginate_after(cursor)
                        .page_size(page_size)
                        .load_page(conn)
                } else {
                    query.paginate_after(cursor).page_size(page_size).load_page(conn)
                }
            }
        }
    };
    ($model:ty, $table:ident, $filter:ident, $filter_ty:ty) => {
        $crate::impl_walk!(@one "sqlite", diesel::SqliteConnection, $model, $table, $filter, $filter_ty);
        $crate::impl_walk!(@one "postgres", diesel::PgConnection, $model, $table, $filter, $filter_ty);
        $crate::impl_walk!(@one "mysql", diesel::MysqlConnection, $model, $table, $filter, $filter_ty);
    };
    (@one $feature:literal, $conn:ty, $model:ty, $table:ident, $filter:ident, $filter_ty:ty) => {
        #[cfg(feature = $feature)]
        impl $crate::models::Walk<$conn> for $model {
            type Filter = $filter_ty;
            fn page(
                conn: &mut $conn,
                filter: &$filter_ty,
                cursor: Option<keyset_diesel::Cursor<Self>>,
                page_size: u32,
                boxed: bool,
            ) -> diesel::QueryResult<keyset_diesel::Page<Self>> {
                use diesel::prelude::*;
                use keyset_diesel::PaginateDsl;
                let query = $table::table
                    .filter($table::$filter.eq(filter))
                    .select(<$model>::as_select());
                if boxed {
                    query
                        .into_boxed()
                        .paginate_after(cursor)
                        .page_size(page_size)
                        .load_page(conn)
                } else {
                    query.paginate_after(cursor).page_size(page_size).load_page(conn)
                }
            }
        }
    };
}

macro_rules! col_type {
    (a) => {
        i32
    };
    (b) => {
        String
    };
    (c) => {
        NaiveDateTime
    };
    (d) => {
        bool
    };
    (e) => {
        i16
    };
}

/// Declares keyset models over `keyset_rows`, their [`Walk`] and [`Oracle`] impls, and
/// `walk_row_model`, which dispatches on a model index (for the property tests).
macro_rules! row_models {
    ($($name:ident: [$($col:ident $dir:ident),*] id $iddir:ident;)*) => {
        $(
            #[allow(non_camel_case_types)]
            #[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
            #[diesel(table_name = keyset_rows)]
            pub struct $name {
                $(#[keyset($dir)] pub $col: col_type!($col),)*
                #[keyset($iddir, unique)]
                pub id: i64,
            }

            impl Oracle for $name {
                const ORDER_SQL: &'static str =
                    concat!($(stringify!($col), " ", stringify!($dir), ", ",)* "id ", stringify!($iddir));
                const TABLE: &'static str = "keyset_rows";
                const FILTER_COLUMN: &'static str = "tenant";
                fn id(&self) -> i64 {
                    self.id
                }
            }

            $crate::impl_walk!($name, keyset_rows, tenant, i32);
        )*

        /// Names of the row models, in index order.
        pub const ROW_MODELS: &[&str] = &[$(stringify!($name)),*];

        /// Walks every page of row model number `index` (see [`ROW_MODELS`]) and checks the
        /// page invariants on the way; returns the ids in page order and the oracle's ids.
        pub fn walk_row_model<C: $crate::TestDb>(
            index: usize,
            conn: &mut C,
            tenant: i32,
            page_size: u32,
            boxed: bool,
        ) -> $crate::oracle::Compared
        where
            $($name: Walk<C, Filter = i32>,)*
        {
            let walkers: &[fn(&mut C, &i32, u32, bool) -> $crate::oracle::Compared] =
                &[$($crate::oracle::walk_and_compare::<$name, C>,)*];
            walkers[index](conn, &tenant, page_size, boxed)
        }
    };
}

row_models! {
    // The tie-breaker alone.
    ID_asc: [] id asc;
    ID_desc: [] id desc;
    // One sort column of each type, in every direction pair.
    A_asc__ID_asc: [a asc] id asc;
    A_asc__ID_desc: [a asc] id desc;
    A_desc__ID_asc: [a desc] id asc;
    A_desc__ID_desc: [a desc] id desc;
    B_asc__ID_asc: [b asc] id asc;
    B_asc__ID_desc: [b asc] id desc;
    B_desc__ID_asc: [b desc] id asc;
    B_desc__ID_desc: [b desc] id desc;
    C_asc__ID_asc: [c asc] id asc;
    C_asc__ID_desc: [c asc] id desc;
    C_desc__ID_asc: [c desc] id asc;
    C_desc__ID_desc: [c desc] id desc;
    D_asc__ID_asc: [d asc] id asc;
    D_asc__ID_desc: [d asc] id desc;
    D_desc__ID_asc: [d desc] id asc;
    D_desc__ID_desc: [d desc] id desc;
    E_asc__ID_asc: [e asc] id asc;
    E_asc__ID_desc: [e asc] id desc;
    E_desc__ID_asc: [e desc] id asc;
    E_desc__ID_desc: [e desc] id desc;
    // Two sort columns, every direction combination.
    A_asc__B_asc__ID_asc: [a asc, b asc] id asc;
    A_asc__B_asc__ID_desc: [a asc, b asc] id desc;
    A_asc__B_desc__ID_asc: [a asc, b desc] id asc;
    A_asc__B_desc__ID_desc: [a asc, b desc] id desc;
    A_desc__B_asc__ID_asc: [a desc, b asc] id asc;
    A_desc__B_asc__ID_desc: [a desc, b asc] id desc;
    A_desc__B_desc__ID_asc: [a desc, b desc] id asc;
    A_desc__B_desc__ID_desc: [a desc, b desc] id desc;
    // Three sort columns (four with the tie-breaker), every direction combination.
    A_asc__C_asc__E_asc__ID_asc: [a asc, c asc, e asc] id asc;
    A_asc__C_asc__E_asc__ID_desc: [a asc, c asc, e asc] id desc;
    A_asc__C_asc__E_desc__ID_asc: [a asc, c asc, e desc] id asc;
    A_asc__C_asc__E_desc__ID_desc: [a asc, c asc, e desc] id desc;
    A_asc__C_desc__E_asc__ID_asc: [a asc, c desc, e asc] id asc;
    A_asc__C_desc__E_asc__ID_desc: [a asc, c desc, e asc] id desc;
    A_asc__C_desc__E_desc__ID_asc: [a asc, c desc, e desc] id asc;
    A_asc__C_desc__E_desc__ID_desc: [a asc, c desc, e desc] id desc;
    A_desc__C_asc__E_asc__ID_asc: [a desc, c asc, e asc] id asc;
    A_desc__C_asc__E_asc__ID_desc: [a desc, c asc, e asc] id desc;
    A_desc__C_asc__E_desc__ID_asc: [a desc, c asc, e desc] id asc;
    A_desc__C_asc__E_desc__ID_desc: [a desc, c asc, e desc] id desc;
    A_desc__C_desc__E_asc__ID_asc: [a desc, c desc, e asc] id asc;
    A_desc__C_desc__E_asc__ID_desc: [a desc, c desc, e asc] id desc;
    A_desc__C_desc__E_desc__ID_asc: [a desc, c desc, e desc] id asc;
    A_desc__C_desc__E_desc__ID_desc: [a desc, c desc, e desc] id desc;
    // Other column orders and types in the lead.
    B_asc__D_desc__A_asc__ID_asc: [b asc, d desc, a asc] id asc;
    B_desc__D_asc__A_desc__ID_desc: [b desc, d asc, a desc] id desc;
    C_desc__B_asc__ID_asc: [c desc, b asc] id asc;
    E_asc__A_asc__D_asc__ID_asc: [e asc, a asc, d asc] id asc;
    D_desc__E_desc__C_desc__ID_desc: [d desc, e desc, c desc] id desc;
}

/// The seed article's activity-feed event, keyset `occurred_at ASC, event_id ASC`.
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

impl_walk!(FeedEvent, events, workspace_id, str);

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

impl_walk!(PlanAsc, plan_rows, tenant, i32);
impl_walk!(PlanDesc, plan_rows, tenant, i32);
impl_walk!(PlanMixed, plan_rows, tenant, i32);
