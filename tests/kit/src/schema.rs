//! Diesel schema of the tables in `migrations/<backend>` and `tests/migrations/<backend>`.

diesel::table! {
    /// The activity feed (`migrations/<backend>`).
    events (event_id) {
        event_id -> Text,
        workspace_id -> Text,
        occurred_at -> Timestamp,
        message -> Text,
    }
}

diesel::table! {
    /// Oracle and docs/CASES.md rows: small domains, heavy ties.
    keyset_rows (id) {
        id -> BigInt,
        tenant -> Integer,
        a -> Integer,
        b -> Text,
        c -> Timestamp,
        d -> Bool,
        e -> SmallInt,
        na -> Nullable<Integer>,
        nb -> Nullable<Text>,
        f -> Double,
        g -> Binary,
        nh -> Nullable<Time>,
        k -> BigInt,
        fr -> Float,
        n -> Numeric,
        tt -> Timestamp,
        ntd -> Nullable<Date>,
    }
}

diesel::table! {
    /// A lookup table joined to `keyset_rows` on `a` (the oracle's joined keys): 4 groups,
    /// tied names (more ties under a case-insensitive collation), a nullable rank.
    keyset_groups (group_id) {
        group_id -> Integer,
        group_name -> Text,
        group_rank -> Nullable<Integer>,
    }
}

diesel::joinable!(keyset_rows -> keyset_groups (a));
diesel::allow_tables_to_appear_in_same_query!(keyset_rows, keyset_groups);

/// `keyset_rows` on MySQL/MariaDB, where it also has an unsigned column (`u`, `BIGINT
/// UNSIGNED`): the oracle's unsigned keys.
#[cfg(feature = "mysql")]
pub mod mysql {
    diesel::table! {
        #[sql_name = "keyset_rows"]
        keyset_rows_u (id) {
            id -> BigInt,
            tenant -> Integer,
            u -> Unsigned<BigInt>,
        }
    }
}

/// `keyset_rows` on PostgreSQL, where it also has a UUID (`uu`) and a native enum (`st`, of
/// type `stage`): the oracle's PostgreSQL-only keys.
#[cfg(feature = "postgres")]
pub mod postgres {
    diesel::table! {
        use diesel::sql_types::*;
        use crate::values::stage::StageType;

        #[sql_name = "keyset_rows"]
        keyset_rows_pg (id) {
            id -> BigInt,
            tenant -> Integer,
            a -> Integer,
            uu -> Uuid,
            st -> StageType,
        }
    }
}

diesel::table! {
    /// Deep rows for plan tests.
    plan_rows (id) {
        id -> BigInt,
        tenant -> Integer,
        at -> Timestamp,
        score -> Integer,
        maybe -> Nullable<Integer>,
        payload -> Text,
    }
}
