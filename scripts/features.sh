# The one feature set the test command, lints and docs build the workspace with (sourced by
# scripts/test.sh and .ci/run), so that they share one resolution of every crate's features.
# Every feature but `__fuzzing`, which only the fuzz targets in fuzz/ compile. Test crates
# (tests/http, tests/async) default to all three backends; the per-backend test crates name
# their backend in their own Cargo.toml.
# KEYSET_LIB_FEATURES: the library's own (its docs are built with these).
KEYSET_LIB_FEATURES=$(printf '%s,' \
    keyset-diesel/sqlite keyset-diesel/postgres keyset-diesel/mysql \
    keyset-diesel/chrono keyset-diesel/time keyset-diesel/uuid keyset-diesel/numeric \
    keyset-diesel/encrypted-tokens keyset-diesel/export keyset-diesel/diesel-async \
    keyset-diesel/plan-check keyset-diesel/axum keyset-diesel/utoipa keyset-diesel/async-graphql)
KEYSET_LIB_FEATURES=${KEYSET_LIB_FEATURES%,}
KEYSET_FEATURES=$(printf '%s,' "$KEYSET_LIB_FEATURES" \
    keyset-activity-feed/postgres keyset-stored-export/postgres \
    keyset-feed-server/sqlite keyset-feed-server/postgres keyset-feed-server/mysql)
KEYSET_FEATURES=${KEYSET_FEATURES%,}
export KEYSET_LIB_FEATURES KEYSET_FEATURES
