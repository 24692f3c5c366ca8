//! The row models of the oracle matrix over `keyset_rows`: `row_models!` declares each from one
//! line (its keyset attributes and, independently of the derive, the oracle's `ORDER BY`
//! terms), with [`ROW_MODELS`], [`ASYNC_ROW_MODELS`] and the dispatch on a model index the
//! property test uses ([`BackendRowModels`]); then the models over columns only one backend
//! has (MySQL's unsigned integers, PostgreSQL's UUID and native enum), and [`ID_asc`] at
//! ordering version 2.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use keyset_diesel::prelude::*;

use super::{Oracle, OrderTerm, Walk};
use crate::expr_keys::{lower, lower_nullable};
use crate::schema::{keyset_groups, keyset_rows};

diesel::define_sql_function! {
    /// SQL `coalesce` of a nullable integer and an integer.
    #[sql_name = "coalesce"]
    fn coalesce_int(
        x: diesel::sql_types::Nullable<diesel::sql_types::Integer>,
        y: diesel::sql_types::Integer,
    ) -> diesel::sql_types::Integer;
}

macro_rules! col_type {
    (a) => { i32 };
    (b) => { String };
    (c) => { NaiveDateTime };
    (d) => { bool };
    (e) => { i16 };
    (na) => { Option<i32> };
    (nb) => { Option<String> };
    (f) => { f64 };
    (g) => { Vec<u8> };
    (nh) => { Option<chrono::NaiveTime> };
    (k) => { crate::typed::UserId };
    (fr) => { f32 };
    (n) => { bigdecimal::BigDecimal };
    (tt) => { time::PrimitiveDateTime };
    (ntd) => { Option<time::Date> };
    (lower_b) => { String };
    (lower_nb) => { Option<String> };
    (coalesce_na) => { i32 };
    (group_name) => { String };
    (group_rank) => { Option<i32> };
}

/// The property scenario on one model, on connection `C`.
type ScenarioRunner<C> = fn(&mut C, &crate::scenario::Scenario) -> Result<(), String>;

/// Runs `runners[index]`, or past them the backend's own model number `index - runners.len()`.
fn run_indexed<C: BackendRowModels>(
    runners: &[ScenarioRunner<C>],
    index: usize,
    conn: &mut C,
    scenario: &crate::scenario::Scenario,
) -> Result<(), String> {
    match runners.get(index) {
        Some(run) => run(conn, scenario),
        None => conn.run_backend_row_model(index - runners.len(), scenario),
    }
}

/// Declares keyset models over `keyset_rows` (joined to `keyset_groups` when marked `join`),
/// their [`Walk`] and [`Oracle`] impls, [`ROW_MODELS`] and [`ASYNC_ROW_MODELS`], and
/// `run_row_model` / `run_async_row_model`, which dispatch on a model index (for the property
/// tests). Models in the `async` section are read through diesel-async too; those in the
/// `blocking` section only on the blocking connections.
macro_rules! row_models {
    (@nulls) => { None };
    (@nulls $nulls:ident) => { Some(stringify!($nulls)) };
    // The key's SQL in the oracle's `ORDER BY`: the column, or the expression's own text.
    (@sql $col:ident) => { stringify!($col) };
    (@sql $col:ident $sql:literal) => { $sql };
    (@from) => { "keyset_rows" };
    (@from join) => { "keyset_rows INNER JOIN keyset_groups ON keyset_groups.group_id = keyset_rows.a" };
    (@walk blocking $name:ident) => {
        $crate::impl_walk!($name, keyset_rows, tenant, i32);
    };
    (@walk async $name:ident) => {
        $crate::impl_walk!(async $name, keyset_rows, tenant, i32);
    };
    (@walk blocking $name:ident join) => {
        $crate::impl_walk!($name, keyset_rows, i32,
            |q, f| q.inner_join(keyset_groups::table).filter(keyset_rows::tenant.eq(f)));
    };
    (@walk async $name:ident join) => {
        $crate::impl_walk!(async $name, keyset_rows, i32,
            |q, f| q.inner_join(keyset_groups::table).filter(keyset_rows::tenant.eq(f)));
    };
    (@runner $(#[$doc:meta])* $fn:ident [$($name:ident),* $(,)?]) => {
        $(#[$doc])*
        pub fn $fn<C: $crate::db::OracleDb + BackendRowModels>(
            index: usize,
            conn: &mut C,
            scenario: &$crate::scenario::Scenario,
        ) -> Result<(), String>
        where
            $($name: Walk<C, Filter = i32>,)*
        {
            let runners: &[ScenarioRunner<C>] =
                &[$($crate::scenario::run_scenario::<$name, C>,)*];
            run_indexed(runners, index, conn, scenario)
        }
    };
    (@models $mode:ident $($name:ident: $($join:ident)? [$($col:ident $(($sel:expr => $selty:ty, $sql:literal))? $dir:ident $($nulls:ident)?),*] id $iddir:ident;)*) => {
        $(
            #[allow(non_camel_case_types)]
            #[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
            #[diesel(table_name = keyset_rows)]
            pub struct $name {
                $(
                    $(#[diesel(select_expression = $sel, select_expression_type = $selty)])?
                    #[keyset($dir $(, $nulls)?)]
                    pub $col: col_type!($col),
                )*
                #[keyset($iddir, unique)]
                pub id: i64,
            }

            impl Oracle for $name {
                const ORDER: &'static [OrderTerm] = &[
                    $((row_models!(@sql $col $($sql)?), stringify!($dir), row_models!(@nulls $($nulls)?)),)*
                    ("id", stringify!($iddir), None),
                ];
                const TABLE: &'static str = row_models!(@from $($join)?);
                const FILTER_COLUMN: &'static str = "tenant";
                fn id(&self) -> i64 {
                    self.id
                }
            }

            row_models!(@walk $mode $name $($join)?);
        )*
    };
    (
        async { $($async_name:ident: $($aj:ident)? [$($ac:ident $(($as:expr => $at:ty, $aq:literal))? $ad:ident $($an:ident)?),*] id $ai:ident;)* }
        blocking { $($blocking_name:ident: $($bj:ident)? [$($bc:ident $(($bs:expr => $bt:ty, $bq:literal))? $bd:ident $($bn:ident)?),*] id $bi:ident;)* }
    ) => {
        row_models!(@models async
            $($async_name: $($aj)? [$($ac $(($as => $at, $aq))? $ad $($an)?),*] id $ai;)*);
        row_models!(@models blocking
            $($blocking_name: $($bj)? [$($bc $(($bs => $bt, $bq))? $bd $($bn)?),*] id $bi;)*);

        /// Names of the row models of every backend, in index order: [`ASYNC_ROW_MODELS`],
        /// then the models read on blocking connections only.
        pub const ROW_MODELS: &[&str] =
            &[$(stringify!($async_name),)* $(stringify!($blocking_name)),*];

        /// Names of the row models read through diesel-async too, in index order (the first
        /// ones of [`ROW_MODELS`]).
        pub const ASYNC_ROW_MODELS: &[&str] = &[$(stringify!($async_name)),*];

        row_models!(@runner
            /// Runs the property scenario on row model number `index` of
            /// [`BackendRowModels::row_models`]: one of [`ROW_MODELS`], or after them one of
            /// the backend's own.
            run_row_model [$($async_name,)* $($blocking_name,)*]);
        row_models!(@runner
            /// [`run_row_model`] for a diesel-async pair: model `index` of
            /// [`ASYNC_ROW_MODELS`], or after them one of the backend's own.
            run_async_row_model [$($async_name,)*]);
    };
}

/// The row models the property test draws from on a connection: [`ROW_MODELS`] (on a
/// diesel-async pair, [`ASYNC_ROW_MODELS`]), then row models over columns only its backend has (MySQL's `BIGINT UNSIGNED`, PostgreSQL's UUID and
/// native enum). Implemented concretely for each connection, so the dispatch on a model index
/// (and every page it loads) is compiled here, not in the suites.
pub trait BackendRowModels: crate::db::OracleDb + Sized {
    /// The backend's own models' names, in index order.
    const BACKEND_ROW_MODELS: &'static [&'static str];

    /// Every row model's name: [`ROW_MODELS`] or [`ASYNC_ROW_MODELS`], then
    /// [`Self::BACKEND_ROW_MODELS`].
    fn row_models() -> Vec<&'static str>;

    /// Runs the property scenario on model `index` of [`Self::row_models`].
    ///
    /// # Errors
    /// The first difference from the oracle.
    fn run_row_model(
        &mut self,
        index: usize,
        scenario: &crate::scenario::Scenario,
    ) -> Result<(), String>;

    /// Runs the property scenario on model `index` of [`Self::BACKEND_ROW_MODELS`].
    ///
    /// # Errors
    /// The first difference from the oracle.
    fn run_backend_row_model(
        &mut self,
        index: usize,
        scenario: &crate::scenario::Scenario,
    ) -> Result<(), String>;
}

/// [`BackendRowModels`] for `$conn` (behind `cfg($cfg)`) with the models listed; with a
/// leading `async`, for a diesel-async pair, which draws from [`ASYNC_ROW_MODELS`].
macro_rules! backend_row_models {
    (async $cfg:meta, $conn:ty, [$($model:ident),*]) => {
        backend_row_models!(@impl $cfg, $conn, [$($model),*],
            ASYNC_ROW_MODELS, run_async_row_model);
    };
    ($cfg:meta, $conn:ty, [$($model:ident),*]) => {
        backend_row_models!(@impl $cfg, $conn, [$($model),*], ROW_MODELS, run_row_model);
    };
    (@impl $cfg:meta, $conn:ty, [$($model:ident),*], $names:ident, $run:ident) => {
        #[cfg($cfg)]
        impl BackendRowModels for $conn {
            const BACKEND_ROW_MODELS: &'static [&'static str] = &[$(stringify!($model)),*];

            fn row_models() -> Vec<&'static str> {
                $names.iter().chain(Self::BACKEND_ROW_MODELS).copied().collect()
            }

            fn run_backend_row_model(
                &mut self,
                index: usize,
                scenario: &crate::scenario::Scenario,
            ) -> Result<(), String> {
                let runners: &[ScenarioRunner<Self>] =
                    &[$(crate::scenario::run_scenario::<$model, Self>,)*];
                runners[index](self, scenario)
            }

            fn run_row_model(
                &mut self,
                index: usize,
                scenario: &crate::scenario::Scenario,
            ) -> Result<(), String> {
                $run::<Self>(index, self, scenario)
            }
        }
    };
}

/// A model over one backend's own view of `keyset_rows` (`$table`, with columns only that
/// backend has), keyed by the columns listed and then `id`, with [`Oracle`] and [`Walk`]
/// blocking and async on that backend.
macro_rules! backend_model {
    ($feature:literal, $conn:ty, $pair:ident, $table:ident:
        $name:ident: [$($col:ident: $ty:ty => $dir:ident),*] id $iddir:ident) => {
        crate::key_model!(@model $name, $table, "keyset_rows",
            [$($col: $ty => $dir),*] id $iddir, $conn);
        crate::impl_walk!(@async $feature, $pair, $name, $table, i32,
            |q, f| q.filter($table::tenant.eq(f)));
    };
}

/// MySQL's unsigned keys, over `keyset_rows` as [`crate::schema::mysql::keyset_rows_u`] sees it.
#[cfg(feature = "mysql")]
mod unsigned {
    use crate::schema::mysql::keyset_rows_u;

    backend_model!("mysql", diesel::MysqlConnection, AsyncMysql, keyset_rows_u:
        U_asc__ID_asc: [u: u64 => asc] id asc);
    backend_model!("mysql", diesel::MysqlConnection, AsyncMysql, keyset_rows_u:
        U_desc__ID_desc: [u: u64 => desc] id desc);
}
#[cfg(feature = "mysql")]
pub use unsigned::{U_asc__ID_asc, U_desc__ID_desc};

/// PostgreSQL's UUID and native enum keys, over `keyset_rows` as
/// [`crate::schema::postgres::keyset_rows_pg`] sees it. The enum pages in its declaration
/// order (`todo`, `doing`, `done`), which the oracle's `ORDER BY st` follows too.
#[cfg(feature = "postgres")]
mod pg_only {
    use crate::schema::postgres::keyset_rows_pg;
    use crate::typed::stage::Stage;

    backend_model!("postgres", diesel::PgConnection, AsyncPg, keyset_rows_pg:
        ST_asc__ID_asc: [st: Stage => asc] id asc);
    backend_model!("postgres", diesel::PgConnection, AsyncPg, keyset_rows_pg:
        ST_desc__A_asc__ID_desc: [st: Stage => desc, a: i32 => asc] id desc);
    backend_model!("postgres", diesel::PgConnection, AsyncPg, keyset_rows_pg:
        UU_asc__ID_desc: [uu: uuid::Uuid => asc] id desc);
    backend_model!("postgres", diesel::PgConnection, AsyncPg, keyset_rows_pg:
        UU_desc__ST_asc__ID_asc: [uu: uuid::Uuid => desc, st: Stage => asc] id asc);
}
#[cfg(feature = "postgres")]
pub use pg_only::{
    ST_asc__ID_asc, ST_desc__A_asc__ID_desc, UU_asc__ID_desc, UU_desc__ST_asc__ID_asc,
};

backend_row_models!(feature = "sqlite", diesel::SqliteConnection, []);
backend_row_models!(
    feature = "postgres",
    diesel::PgConnection,
    [
        ST_asc__ID_asc,
        ST_desc__A_asc__ID_desc,
        UU_asc__ID_desc,
        UU_desc__ST_asc__ID_asc
    ]
);
backend_row_models!(
    feature = "mysql",
    diesel::MysqlConnection,
    [U_asc__ID_asc, U_desc__ID_desc]
);
backend_row_models!(
    async all(feature = "diesel-async", feature = "sqlite"),
    crate::async_db::AsyncSqlite,
    []
);
backend_row_models!(
    async all(feature = "diesel-async", feature = "postgres"),
    crate::async_db::AsyncPg,
    [
        ST_asc__ID_asc,
        ST_desc__A_asc__ID_desc,
        UU_asc__ID_desc,
        UU_desc__ST_asc__ID_asc
    ]
);
backend_row_models!(
    async all(feature = "diesel-async", feature = "mysql"),
    crate::async_db::AsyncMysql,
    [U_asc__ID_asc, U_desc__ID_desc]
);

row_models! {
    // Read through diesel-async too: every column type, both directions of the tie-breaker,
    // one and several sort columns with agreeing and mixed directions, every NULL placement,
    // expression keys and keys on a join. Three of the one-column models share a query type
    // (the cached-statement case reads them on one diesel-async connection).
    async {
        ID_asc: [] id asc;
        ID_desc: [] id desc;
        A_asc__ID_asc: [a asc] id asc;
        A_asc__ID_desc: [a asc] id desc;
        A_desc__ID_asc: [a desc] id asc;
        A_desc__ID_desc: [a desc] id desc;
        B_desc__ID_asc: [b desc] id asc;
        C_asc__ID_asc: [c asc] id asc;
        D_desc__ID_desc: [d desc] id desc;
        E_asc__ID_desc: [e asc] id desc;
        A_asc__B_desc__ID_desc: [a asc, b desc] id desc;
        A_asc__C_asc__E_asc__ID_asc: [a asc, c asc, e asc] id asc;
        A_desc__C_asc__E_desc__ID_asc: [a desc, c asc, e desc] id asc;
        NB_asc_nulls_last__ID_asc: [nb asc nulls_last] id asc;
        NA_desc_nulls_first__ID_asc: [na desc nulls_first] id asc;
        NA_asc_nulls_first__NB_desc_nulls_last__ID_asc: [na asc nulls_first, nb desc nulls_last] id asc;
        LOWER_B_asc__A_desc__ID_desc: [lower_b(lower(keyset_rows::b) => lower<keyset_rows::b>, "lower(b)") asc, a desc] id desc;
        COALESCE_NA_desc__B_asc__ID_asc: [coalesce_na(coalesce_int(keyset_rows::na, 1) => coalesce_int<keyset_rows::na, i32>, "coalesce(na, 1)") desc, b asc] id asc;
        LOWER_NB_asc_nulls_first__ID_asc: [lower_nb(lower_nullable(keyset_rows::nb) => lower_nullable<keyset_rows::nb>, "lower(nb)") asc nulls_first] id asc;
        GROUP_NAME_desc__B_asc__ID_asc: join [group_name(keyset_groups::group_name => keyset_groups::group_name, "group_name") desc, b asc] id asc;
        GROUP_RANK_desc_nulls_first__C_asc__ID_asc: join [group_rank(keyset_groups::group_rank => keyset_groups::group_rank, "group_rank") desc nulls_first, c asc] id asc;
        G_asc__NH_asc_nulls_last__F_desc__ID_asc: [g asc, nh asc nulls_last, f desc] id asc;
        K_desc__NH_desc_nulls_first__ID_desc: [k desc, nh desc nulls_first] id desc;
        NTD_asc_nulls_first__TT_desc__ID_asc: [ntd asc nulls_first, tt desc] id asc;
        FR_asc__N_desc__TT_asc__ID_desc: [fr asc, n desc, tt asc] id desc;
    }
    // Read on the blocking connections only: the rest of the matrix.
    blocking {
        // One sort column of each type, in every direction pair.
        B_asc__ID_asc: [b asc] id asc;
        B_asc__ID_desc: [b asc] id desc;
        B_desc__ID_desc: [b desc] id desc;
        C_asc__ID_desc: [c asc] id desc;
        C_desc__ID_asc: [c desc] id asc;
        C_desc__ID_desc: [c desc] id desc;
        D_asc__ID_asc: [d asc] id asc;
        D_asc__ID_desc: [d asc] id desc;
        D_desc__ID_asc: [d desc] id asc;
        E_asc__ID_asc: [e asc] id asc;
        E_desc__ID_asc: [e desc] id asc;
        E_desc__ID_desc: [e desc] id desc;
        // Two sort columns, every direction combination.
        A_asc__B_asc__ID_asc: [a asc, b asc] id asc;
        A_asc__B_asc__ID_desc: [a asc, b asc] id desc;
        A_asc__B_desc__ID_asc: [a asc, b desc] id asc;
        A_desc__B_asc__ID_asc: [a desc, b asc] id asc;
        A_desc__B_asc__ID_desc: [a desc, b asc] id desc;
        A_desc__B_desc__ID_asc: [a desc, b desc] id asc;
        A_desc__B_desc__ID_desc: [a desc, b desc] id desc;
        // Three sort columns (four with the tie-breaker), every direction combination.
        A_asc__C_asc__E_asc__ID_desc: [a asc, c asc, e asc] id desc;
        A_asc__C_asc__E_desc__ID_asc: [a asc, c asc, e desc] id asc;
        A_asc__C_asc__E_desc__ID_desc: [a asc, c asc, e desc] id desc;
        A_asc__C_desc__E_asc__ID_asc: [a asc, c desc, e asc] id asc;
        A_asc__C_desc__E_asc__ID_desc: [a asc, c desc, e asc] id desc;
        A_asc__C_desc__E_desc__ID_asc: [a asc, c desc, e desc] id asc;
        A_asc__C_desc__E_desc__ID_desc: [a asc, c desc, e desc] id desc;
        A_desc__C_asc__E_asc__ID_asc: [a desc, c asc, e asc] id asc;
        A_desc__C_asc__E_asc__ID_desc: [a desc, c asc, e asc] id desc;
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
        // Nullable columns, leading and not, every placement and direction.
        NA_asc_nulls_last__ID_asc: [na asc nulls_last] id asc;
        NA_desc_nulls_first__ID_desc: [na desc nulls_first] id desc;
        NA_asc_nulls_first__ID_asc: [na asc nulls_first] id asc;
        NA_desc_nulls_last__ID_desc: [na desc nulls_last] id desc;
        NA_desc_nulls_last__ID_asc: [na desc nulls_last] id asc;
        NB_asc_nulls_first__A_desc__ID_desc: [nb asc nulls_first, a desc] id desc;
        NB_desc_nulls_last__A_asc__ID_asc: [nb desc nulls_last, a asc] id asc;
        A_asc__NA_asc_nulls_last__ID_asc: [a asc, na asc nulls_last] id asc;
        A_desc__NA_desc_nulls_first__ID_desc: [a desc, na desc nulls_first] id desc;
        NB_asc_nulls_last__NA_asc_nulls_last__C_desc__ID_desc: [nb asc nulls_last, na asc nulls_last, c desc] id desc;
        // Expression keys (`#[diesel(select_expression = ..)]`): `lower(b)` ties "a" and "A",
        // `coalesce(na, 1)` ties NULL and 1, `lower(nb)` is nullable.
        LOWER_B_asc__ID_asc: [lower_b(lower(keyset_rows::b) => lower<keyset_rows::b>, "lower(b)") asc] id asc;
        LOWER_B_desc__ID_asc: [lower_b(lower(keyset_rows::b) => lower<keyset_rows::b>, "lower(b)") desc] id asc;
        COALESCE_NA_asc__ID_desc: [coalesce_na(coalesce_int(keyset_rows::na, 1) => coalesce_int<keyset_rows::na, i32>, "coalesce(na, 1)") asc] id desc;
        LOWER_NB_desc_nulls_last__ID_desc: [lower_nb(lower_nullable(keyset_rows::nb) => lower_nullable<keyset_rows::nb>, "lower(nb)") desc nulls_last] id desc;
        // Keys on `keyset_groups`, joined on `a`: a few groups, tied names, a nullable rank.
        GROUP_NAME_asc__ID_asc: join [group_name(keyset_groups::group_name => keyset_groups::group_name, "group_name") asc] id asc;
        GROUP_NAME_desc__ID_desc: join [group_name(keyset_groups::group_name => keyset_groups::group_name, "group_name") desc] id desc;
        GROUP_RANK_asc_nulls_last__ID_desc: join [group_rank(keyset_groups::group_rank => keyset_groups::group_rank, "group_rank") asc nulls_last] id desc;
        // Doubles (one ulp apart, both zeros, extremes), bytes, a nullable time of day, a newtype.
        F_asc__ID_asc: [f asc] id asc;
        F_desc__ID_desc: [f desc] id desc;
        F_desc__A_asc__ID_asc: [f desc, a asc] id asc;
        G_asc__ID_desc: [g asc] id desc;
        G_desc__ID_asc: [g desc] id asc;
        NH_asc_nulls_first__ID_asc: [nh asc nulls_first] id asc;
        NH_desc_nulls_last__ID_desc: [nh desc nulls_last] id desc;
        K_asc__ID_asc: [k asc] id asc;
        K_desc__ID_asc: [k desc] id asc;
        // Floats (one ulp apart, both zeros, extremes), decimals 0.0001 apart, the `time` crate's
        // timestamp (1 µs apart) and nullable date.
        FR_asc__ID_desc: [fr asc] id desc;
        FR_desc__A_asc__ID_asc: [fr desc, a asc] id asc;
        N_asc__ID_asc: [n asc] id asc;
        N_desc__B_asc__ID_desc: [n desc, b asc] id desc;
        TT_asc__ID_asc: [tt asc] id asc;
        TT_desc__ID_desc: [tt desc] id desc;
        NTD_desc_nulls_last__ID_desc: [ntd desc nulls_last] id desc;
    }
}

/// [`ID_asc`] after a change its columns do not show (say `id` became a text column with a
/// new collation): the same columns at ordering version 2.
#[allow(non_camel_case_types)]
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = keyset_rows)]
#[keyset(version = 2)]
pub struct ID_asc_v2 {
    #[keyset(asc, unique)]
    pub id: i64,
}
crate::impl_walk!(ID_asc_v2, keyset_rows, tenant, i32);
