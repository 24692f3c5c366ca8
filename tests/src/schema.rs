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
